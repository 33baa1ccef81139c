/**
 * Delta entities for tests
 * ========================
 * A delta entity (sorted-delta.ts DeltaEntity) made from its folded identifier alone, for the tests
 * of the structures that hold them (gram index, start groups, seekEntity): its raw identifier is
 * the folded one, type "0", no base entity and no score.
 */

import type { DeltaEntity } from "../../src/engine/live/sorted-delta.js";

export function deltaEntity(folded: string, entityId: string): DeltaEntity {
  return { entityId, baseId: -1, rawIdentifier: folded, type: "0", sourceType: "", score: undefined, folded };
}

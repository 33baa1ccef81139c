/**
 * Live search items
 * =================
 * The live graph's search vocabulary, shared by its two reads of `search` (order "name" in
 * live-graph.ts, order "score" in score-search.ts): the match tiers, the parts of a search cursor
 * as the base Graph writes them, a base entity hidden by the delta (HiddenEntity), an entity's page
 * item (itemOf), the binary search of a sorted delta entity list (seekEntity), the string order
 * (cmp), and the error of a cursor of an unknown shape. Its own file so that both reads import it
 * and neither imports the other for it.
 *
 * Costs: seekEntity O(log n) comparisons, most of them of packed heads (a list's summary,
 * GramIndex.summaryOf) without reading an item; the rest O(1).
 */

import { QuiverError } from "../errors.js";
import type { Entity, EntityType } from "../types.js";
import { packedHead, SUMMARY_HEAD, SUMMARY_TAIL, SUMMARY_WORDS } from "./gram-index.js";
import type { DeltaEntity } from "./sorted-delta.js";

/** Match tiers (CONTRACT.md "GET /graph/v1/search"). */
export const TIER_EXACT = 0;
export const TIER_PREFIX = 1;
export const TIER_INFIX = 2;

/** The parts of a search cursor, by index, as the base Graph writes them (engine/graph.ts). */
export const SEARCH_PART = { raw: 0, entityId: 1, hint: 2, score: 3 } as const;

/** A base entity replaced or deleted: what search matched it by. */
export interface HiddenEntity {
  readonly entityId: string;
  readonly folded: string;
  readonly type: EntityType;
}

/** A search page's item of a delta entity or a base one: its four API fields, nothing more. */
export function itemOf(e: DeltaEntity | Entity): Entity {
  return { entityId: e.entityId, rawIdentifier: e.rawIdentifier, type: e.type, sourceType: e.sourceType };
}

/**
 * The first index of `list` (sorted by folded identifier, then entityId) whose key is above
 * (folded, entityId), or at/above when `inclusive`; with `summary` (the list's GramIndex.summaryOf,
 * from word `from`) an item is read only where its head (first three units) ties with the key's.
 */
export function seekEntity(
  list: readonly DeltaEntity[],
  folded: string,
  entityId: string,
  inclusive: boolean,
  summary?: Int32Array,
  from = 0,
): number {
  let lo = 0;
  let hi = list.length;
  const head = summary === undefined ? 0 : packedHead(folded);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let c = 0;
    // Each branch: the heads differ (they decide, no item read); else the item's key compared.
    if (summary !== undefined) {
      const h = summaryHeadAt(summary, mid, from);
      if (h !== head) c = h < head ? -1 : 1;
    }
    if (c === 0) {
      const e = list[mid]!;
      c = cmp(e.folded, folded) || cmp(e.entityId, entityId);
    }
    if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Item i's first three folded units in a list's summary (GramIndex.summaryOf, from word `from`),
 * packed as packedHead packs them.
 */
export function summaryHeadAt(summary: Int32Array, i: number, from = 0): number {
  const at = from + i * SUMMARY_WORDS;
  return (summary[at + SUMMARY_HEAD]! >>> 0) * 65536 + (summary[at + SUMMARY_TAIL]! >>> 8);
}

/** An entity's type as a summary's type code (GramIndex.summaryOf): "0" to "7" as 0 to 7. */
export function typeCodeOf(x: { readonly type: EntityType }): number {
  return x.type.charCodeAt(0) - 48;
}

/** Two strings in JavaScript's order (UTF-16 code units): negative, 0 or positive. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The error for a cursor of the right seal but a shape no read of this version writes. */
export function unknownCursorShape(): QuiverError {
  return new QuiverError(
    "INVALID_CURSOR",
    "The cursor was issued by another version of this service; start again from the first page (leave cursor out).",
    { parameter: "cursor" },
  );
}

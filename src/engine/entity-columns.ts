/**
 * Entity columns
 * ==============
 * What a graph knows of each entity besides its entityId (the dictionary's), by dense id: the
 * rawIdentifier string, the type as a byte (0..7), and the sourceType as an index into the table of
 * distinct sourceTypes (a handful per graph, so 4 bytes an entity instead of a string each).
 *
 * Serial form (engine/serial.ts): `rawIdentifiers` and `sourceTypes` (string lists), `types` and
 * `sourceTypeIndex` (arrays). `deserialize` checks every length against the entity count and, with
 * `verify`, that every type is below 8 and every sourceType index names a sourceType.
 *
 * Memory: the strings, plus 5 bytes an entity.
 */

import { checkBelow, checkLength, type SerialReader, type SerialWriter } from "./serial.js";
import { ENTITY_TYPES } from "./types.js";

export class EntityColumns {
  readonly rawIdentifiers: readonly string[];
  /** Type 0..7 per dense id. */
  readonly types: Uint8Array;
  /** Index into `sourceTypes` per dense id. */
  readonly sourceTypeIndex: Uint32Array;
  readonly sourceTypes: readonly string[];

  constructor(
    rawIdentifiers: readonly string[],
    types: Uint8Array,
    sourceTypeIndex: Uint32Array,
    sourceTypes: readonly string[],
  ) {
    this.rawIdentifiers = rawIdentifiers;
    this.types = types;
    this.sourceTypeIndex = sourceTypeIndex;
    this.sourceTypes = sourceTypes;
  }

  get size(): number {
    return this.types.length;
  }

  /** The sourceType of dense id `id`. */
  sourceTypeOf(id: number): string {
    return this.sourceTypes[this.sourceTypeIndex[id]!]!;
  }

  /** Bytes of the typed arrays (the strings are counted by whoever reports them). */
  get byteLength(): number {
    return this.types.byteLength + this.sourceTypeIndex.byteLength;
  }

  /** Writes the serial form (see the banner). */
  serialize(w: SerialWriter): void {
    w.strings("rawIdentifiers", this.rawIdentifiers);
    w.array("types", this.types);
    w.array("sourceTypeIndex", this.sourceTypeIndex);
    w.strings("sourceTypes", this.sourceTypes);
  }

  /** Restores the columns of `entityCount` entities from their serial form, checking them. */
  static deserialize(r: SerialReader, entityCount: number): EntityColumns {
    const rawIdentifiers = r.strings("rawIdentifiers");
    const types = r.uint8("types");
    const sourceTypeIndex = r.uint32("sourceTypeIndex");
    const sourceTypes = r.strings("sourceTypes");
    checkLength(r, "rawIdentifiers", rawIdentifiers, entityCount, "one per entity");
    checkLength(r, "types", types, entityCount, "one per entity");
    checkLength(r, "sourceTypeIndex", sourceTypeIndex, entityCount, "one per entity");
    if (r.verify) {
      for (let i = 0; i < types.length; i++) {
        if (types[i]! >= ENTITY_TYPES.length) r.corrupt(`types holds ${types[i]}, not a type (0 to 7)`);
      }
      checkBelow(r, "sourceTypeIndex", sourceTypeIndex, sourceTypes.length, "indexes into sourceTypes");
    }
    return new EntityColumns(rawIdentifiers, types, sourceTypeIndex, sourceTypes);
  }
}

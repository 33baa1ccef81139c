/**
 * Entity columns
 * ==============
 * What a graph knows of each entity besides its entityId (the dictionary's), by dense id: the
 * rawIdentifier (a TextList: no string object per entity), the type as a byte (0..7), and the
 * sourceType as an index into the table of distinct sourceTypes (a handful per graph), in a typed
 * array sized to fit the table: 1 byte an entity for up to 256 sourceTypes.
 *
 * Serial form (engine/serial.ts): `rawIdentifiers` (a TextList), `types`, `sourceTypeIndex` with its
 * element width, and `sourceTypes` (a string list). `deserialize` checks every length against the
 * entity count and, with `verify`, that every type is below 8 and every sourceType index names one.
 *
 * Memory: the identifiers' text list, plus 2 to 5 bytes an entity.
 */

import { checkLength, type SerialReader, type SerialWriter } from "./serial.js";
import { TextList } from "./text-list.js";
import { ENTITY_TYPES } from "./types.js";

export type IndexArray = Uint8Array | Uint16Array | Uint32Array;

export class EntityColumns {
  readonly rawIdentifiers: TextList;
  /** Type 0..7 per dense id. */
  readonly types: Uint8Array;
  /** Index into `sourceTypes` per dense id. */
  readonly sourceTypeIndex: IndexArray;
  readonly sourceTypes: readonly string[];

  constructor(
    rawIdentifiers: TextList,
    types: Uint8Array,
    sourceTypeIndex: IndexArray,
    sourceTypes: readonly string[],
  ) {
    this.rawIdentifiers = rawIdentifiers;
    this.types = types;
    this.sourceTypeIndex = sourceTypeIndex;
    this.sourceTypes = sourceTypes;
  }

  /** An index array of n entries holding values up to `max`: 1, 2 or 4 bytes each (mnemonist's habit). */
  static indexArray(n: number, max: number): IndexArray {
    if (max < 0x100) return new Uint8Array(n);
    if (max < 0x10000) return new Uint16Array(n);
    return new Uint32Array(n);
  }

  get size(): number {
    return this.types.length;
  }

  /** The rawIdentifier of dense id `id`. */
  rawIdentifierOf(id: number): string {
    return this.rawIdentifiers.get(id);
  }

  /** The sourceType of dense id `id`. */
  sourceTypeOf(id: number): string {
    return this.sourceTypes[this.sourceTypeIndex[id]!]!;
  }

  /** Bytes held: the identifiers' text and the columns. */
  get byteLength(): number {
    return this.rawIdentifiers.byteLength + this.types.byteLength + this.sourceTypeIndex.byteLength;
  }

  serialize(w: SerialWriter): void {
    this.rawIdentifiers.serialize(w.child("rawIdentifiers"));
    w.array("types", this.types);
    w.integer("sourceTypeBytes", this.sourceTypeIndex.BYTES_PER_ELEMENT);
    w.array("sourceTypeIndex", this.sourceTypeIndex);
    w.strings("sourceTypes", this.sourceTypes);
  }

  /** Restores the columns of `entityCount` entities from their serial form, checking them. */
  static deserialize(r: SerialReader, entityCount: number): EntityColumns {
    const rawIdentifiers = TextList.deserialize(r.child("rawIdentifiers"));
    const types = r.uint8("types");
    const width = r.integer("sourceTypeBytes");
    const sourceTypeIndex =
      width === 1
        ? r.uint8("sourceTypeIndex")
        : width === 2
          ? r.uint16("sourceTypeIndex")
          : width === 4
            ? r.uint32("sourceTypeIndex")
            : r.corrupt(`sourceTypeBytes is ${width}, not 1, 2 or 4`);
    const sourceTypes = r.strings("sourceTypes");
    checkLength(r, "rawIdentifiers", { length: rawIdentifiers.length }, entityCount, "one per entity");
    checkLength(r, "types", types, entityCount, "one per entity");
    checkLength(r, "sourceTypeIndex", sourceTypeIndex, entityCount, "one per entity");
    if (r.verify) {
      for (let i = 0; i < types.length; i++) {
        if (types[i]! >= ENTITY_TYPES.length) r.corrupt(`types holds ${types[i]}, not a type (0 to 7)`);
      }
      for (let i = 0; i < sourceTypeIndex.length; i++) {
        if (sourceTypeIndex[i]! >= sourceTypes.length)
          r.corrupt(`sourceTypeIndex holds ${sourceTypeIndex[i]}, past sourceTypes`);
      }
    }
    return new EntityColumns(rawIdentifiers, types, sourceTypeIndex, sourceTypes);
  }
}

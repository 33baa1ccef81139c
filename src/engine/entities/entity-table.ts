/**
 * Entity table
 * ============
 * Everything a graph knows of each entity, by dense id (= position in entityId order, see
 * dictionary.ts): entityId, rawIdentifier, type, sourceType, and the entityId's 64-bit FNV-1a hash.
 *
 * Laid out for the number of cache misses per entity read, not the number of arrays: a page of
 * results reads entities at random (a search hit, a statement's three entities), and at a million
 * entities every separate array an entity has a slot in is one more cache miss for it. So:
 *  - one record of RECORD_WORDS (4) 32-bit words per entity, 16 bytes, four to a cache line:
 *      [0] the word (text-store.ts) of the entity's span of text
 *      [1] entityId length (bits 0..9) | rawIdentifier length (10..20) | type (21..23) |
 *          sourceType index (24..31, when the graph has at most PACKED_SOURCE_TYPES of them)
 *      [2], [3] hi and lo half of hash64([entityId]) (derived statement fingerprints are made from
 *          them, fingerprint.ts, without reading the entityIds' characters; the dictionary's lookup
 *          table is keyed by them)
 *  - the entityId and rawIdentifier adjacent in one span of a TextStore (both in the UTF-16 store
 *    when either needs it), so their characters share a cache line or two.
 * An entity is read with one record miss, plus its characters when they are copied (strings shorter
 * than 13 code units: text-store.ts). Lengths fit their fields because the builder enforces the
 * contract's limits (512 and 1,024 bytes of UTF-8: at most as many UTF-16 code units).
 *
 * A graph with more than PACKED_SOURCE_TYPES distinct sourceTypes keeps their indexes in a column
 * of their own beside the records (and bits 24..31 are 0).
 *
 * Cost: every read O(1); compareId O(length). Space: 16 bytes an entity plus 1 or 2 bytes a code
 * unit of text (plus the sourceType column when there are many). Serial form: `records`, the text
 * store (`narrow`, `wide`), `sourceTypes` (a string list) and `sourceTypeIndex` (with its width,
 * 0 when packed). `deserialize` always checks the shapes and that every span lies inside its store;
 * with `verify`, also that the entityIds ascend, every hash is right and every sourceType index
 * names one.
 */

import { hash64, type Hash64 } from "../hash64.js";
import { checkLength, type SerialReader, type SerialWriter, verifyLater } from "../serial.js";
import { StoredUnits, TextStore, TextStoreBuilder } from "./text-store.js";
import { ENTITY_TYPES, type Entity } from "../types.js";
import { finalArray } from "../array-slab.js";

export type IndexArray = Uint8Array | Uint16Array | Uint32Array;

/** 32-bit words per entity record. */
export const RECORD_WORDS = 4;
/** Word of the record holding the lengths, type and packed sourceType. */
const SHAPE = 1;
/** Word of the record holding the hash's high half; the low half follows. */
const HASH_HI = 2;
const HASH_LO = 3;
const ID_LENGTH_BITS = 10;
const RAW_LENGTH_BITS = 11;
const ID_LENGTH_MASK = (1 << ID_LENGTH_BITS) - 1;
const RAW_LENGTH_MASK = (1 << RAW_LENGTH_BITS) - 1;
const TYPE_SHIFT = ID_LENGTH_BITS + RAW_LENGTH_BITS;
const SOURCE_SHIFT = TYPE_SHIFT + 3;
/** Distinct sourceTypes whose index fits the record (8 bits); more get a column of their own. */
export const PACKED_SOURCE_TYPES = 256;

/** An index array of n entries holding values up to `max`: 1, 2 or 4 bytes each (mnemonist's habit). */
export function indexArray(n: number, max: number): IndexArray {
  if (max < 0x100) return new Uint8Array(n);
  if (max < 0x10000) return new Uint16Array(n);
  return new Uint32Array(n);
}

/** The columns of a table as the builder has them, in dense-id order. */
export interface EntityColumnsInput {
  /** Ascending (JavaScript `<`), distinct. */
  entityIds: readonly string[];
  rawIdentifiers: readonly string[];
  /** 0..7 per entity. */
  types: ArrayLike<number>;
  sourceTypeIndex: ArrayLike<number>;
  sourceTypes: readonly string[];
  /** hash64([entityId]) hi and lo per entity, when the caller has them; else computed. */
  hashes?: Uint32Array | undefined;
}

export class EntityTable {
  /** RECORD_WORDS words per entity; see the banner. Read through the methods; public for snapshot tests. */
  readonly records: Uint32Array;
  private readonly texts: TextStore;
  readonly sourceTypes: readonly string[];
  /** The sourceType indexes, when they do not fit the records; else null. */
  private readonly sourceTypeColumn: IndexArray | null;
  /** What the last touch() read, folded: written (public) only so that its reads cannot be optimized away. */
  touched = 0;
  /** The text words touch() gathered (grown to the longest page's). */
  private spans = new Uint32Array(256);

  private constructor(
    records: Uint32Array,
    texts: TextStore,
    sourceTypes: readonly string[],
    sourceTypeColumn: IndexArray | null,
  ) {
    this.records = records;
    this.texts = texts;
    this.sourceTypes = sourceTypes;
    this.sourceTypeColumn = sourceTypeColumn;
  }

  static from(input: EntityColumnsInput): EntityTable {
    const n = input.entityIds.length;
    const records = finalArray(Uint32Array, RECORD_WORDS * n);
    const builder = new TextStoreBuilder();
    const packed = input.sourceTypes.length <= PACKED_SOURCE_TYPES;
    const column = packed ? null : indexArray(n, input.sourceTypes.length - 1);
    const h: Hash64 = [0, 0];
    for (let d = 0; d < n; d++) {
      const id = input.entityIds[d]!;
      const raw = input.rawIdentifiers[d]!;
      if (id.length > ID_LENGTH_MASK || raw.length > RAW_LENGTH_MASK)
        throw new RangeError(`entity ${d}: an entityId or rawIdentifier longer than the contract allows`);
      const at = RECORD_WORDS * d;
      records[at] = builder.add(id + raw);
      const source = input.sourceTypeIndex[d]!;
      records[at + SHAPE] =
        (id.length |
          (raw.length << ID_LENGTH_BITS) |
          (input.types[d]! << TYPE_SHIFT) |
          (packed ? source << SOURCE_SHIFT : 0)) >>>
        0;
      if (column !== null) column[d] = source;
      if (input.hashes === undefined) {
        hash64([id], h);
        records[at + HASH_HI] = h[0];
        records[at + HASH_LO] = h[1];
      } else {
        records[at + HASH_HI] = input.hashes[2 * d]!;
        records[at + HASH_LO] = input.hashes[2 * d + 1]!;
      }
    }
    return new EntityTable(records, builder.finish(), input.sourceTypes.slice(), column);
  }

  get size(): number {
    return this.records.length / RECORD_WORDS;
  }

  /** The entityId of dense id d (0 <= d < size, not checked). */
  entityId(d: number): string {
    const at = RECORD_WORDS * d;
    return this.texts.slice(this.records[at]!, this.records[at + SHAPE]! & ID_LENGTH_MASK);
  }

  /** The rawIdentifier of dense id d: the text right after its entityId. */
  rawIdentifier(d: number): string {
    const at = RECORD_WORDS * d;
    const shape = this.records[at + SHAPE]!;
    const idLength = shape & ID_LENGTH_MASK;
    return this.texts.slice(this.records[at]! + idLength, (shape >>> ID_LENGTH_BITS) & RAW_LENGTH_MASK);
  }

  /** The type of dense id d, 0..7. */
  typeOf(d: number): number {
    return (this.records[RECORD_WORDS * d + SHAPE]! >>> TYPE_SHIFT) & 7;
  }

  /** The sourceType of dense id d. */
  sourceTypeOf(d: number): string {
    return this.sourceTypes[this.sourceTypeIndexOf(d)]!;
  }

  /** The index of d's sourceType in `sourceTypes`. */
  private sourceTypeIndexOf(d: number): number {
    const column = this.sourceTypeColumn;
    // Packed in the record's top byte unless the graph has too many distinct sourceTypes.
    return column === null ? this.records[RECORD_WORDS * d + SHAPE]! >>> SOURCE_SHIFT : column[d]!;
  }

  /**
   * The whole entity, for a caller that may keep it (a lookup, an export). Its object literal is not
   * entityNamed's on purpose: V8 decides per allocation site (one literal of the source, whoever
   * calls it) whether the objects made there are born in the old generation, once most of them have
   * been seen to survive scavenges ("allocation-site pretenuring"). A host that keeps what it looks up
   * or exports (a bench holding every exported entity) made every search page's items born old, where
   * only a major GC, which marks the host's whole heap, frees them: at 1M entities 2.2 KB a search
   * page instead of about 0.4 KB (`npm run bench:alloc`, kept B / query; 0.4 KB with
   * --no-allocation-site-pretenuring). Page items (entityNamed) now die young whatever a host keeps.
   */
  entity(d: number): Entity {
    return {
      entityId: this.entityId(d),
      rawIdentifier: this.rawIdentifier(d),
      type: ENTITY_TYPES[this.typeOf(d)]!,
      sourceType: this.sourceTypeOf(d),
    };
  }

  /**
   * Dense id d as an item of a page, with its two strings given (a caller that keeps them:
   * name-cache.ts). Its own allocation site: see entity().
   */
  entityNamed(d: number, entityId: string, rawIdentifier: string): Entity {
    return { entityId, rawIdentifier, type: ENTITY_TYPES[this.typeOf(d)]!, sourceType: this.sourceTypeOf(d) };
  }

  /**
   * Reads the record and the first code unit of the text of each of the `count` entities in `ids`,
   * in two tight loops, and keeps nothing: a page calls it before it makes its items one by one.
   * At a million entities each of those reads is a cache miss; inside a loop this small the CPU
   * keeps many of them in flight at once (each read depends on nothing the loop computes), where
   * making one item after another (strings, objects) leaves room for one entity's misses at a
   * time. The item loop then finds everything in the cache. (Group prefetching: Chen, Ailamaki,
   * Gibbons and Mowry, "Improving hash join performance through prefetching", ICDE 2004.)
   */
  touch(ids: Uint32Array, count: number): void {
    const records = this.records;
    if (this.spans.length < count) this.spans = new Uint32Array(count);
    const spans = this.spans;
    // The first loop reads each record (its text's word, in the record's line) and keeps the word;
    // the second reads the first code unit of each text (TextStore.touch).
    for (let k = 0; k < count; k++) spans[k] = records[RECORD_WORDS * ids[k]!]!;
    // Kept so that the compiler cannot drop the reads as unused.
    this.touched = this.texts.touch(spans, count);
  }

  /**
   * The low half of the hash of each of the `count` entities in `entries` (dense id + 1; 0 for none,
   * whose half reads as 0) into `out`: one tight loop of independent reads, so that their cache
   * misses overlap (Dictionary.idsOf's probe rounds).
   */
  hashLosOfEntries(entries: Uint32Array, count: number, out: Uint32Array): void {
    const records = this.records;
    for (let k = 0; k < count; k++) {
      const entry = entries[k]!;
      // Each branch: no entity (an empty slot), or entity entry - 1's record.
      out[k] = entry === 0 ? 0 : records[RECORD_WORDS * (entry - 1) + HASH_LO]!;
    }
  }

  /** High half of the entityId's hash64. */
  hashHi(d: number): number {
    return this.records[RECORD_WORDS * d + HASH_HI]!;
  }

  /** Low half of the entityId's hash64. */
  hashLo(d: number): number {
    return this.records[RECORD_WORDS * d + HASH_LO]!;
  }

  /** Compares entityId d with `s` in JavaScript order (UTF-16 code units): negative, 0 or positive. */
  compareId(d: number, s: string): number {
    const at = RECORD_WORDS * d;
    return this.texts.compare(this.records[at]!, this.records[at + SHAPE]! & ID_LENGTH_MASK, s);
  }

  /** Whether entityId d is `s`. */
  idEquals(d: number, s: string): boolean {
    const at = RECORD_WORDS * d;
    return this.texts.equals(this.records[at]!, this.records[at + SHAPE]! & ID_LENGTH_MASK, s);
  }

  /** UTF-16 code units of all rawIdentifiers. */
  get rawCodeUnits(): number {
    let n = 0;
    for (let at = SHAPE; at < this.records.length; at += RECORD_WORDS)
      n += (this.records[at]! >>> ID_LENGTH_BITS) & RAW_LENGTH_MASK;
    return n;
  }

  /** Bytes held: records, text and the sourceType column when there is one. */
  get byteLength(): number {
    return this.records.byteLength + this.texts.byteLength + (this.sourceTypeColumn?.byteLength ?? 0);
  }

  serialize(w: SerialWriter): void {
    w.array("records", this.records);
    this.texts.serialize(w);
    w.strings("sourceTypes", this.sourceTypes);
    const column = this.sourceTypeColumn;
    w.integer("sourceTypeBytes", column === null ? 0 : column.BYTES_PER_ELEMENT);
    if (column !== null) w.array("sourceTypeIndex", column);
  }

  /** Restores a table from its serial form, checking it (see the banner). */
  static deserialize(r: SerialReader): EntityTable {
    const records = r.uint32("records");
    const texts = TextStore.deserialize(r);
    const sourceTypes = r.strings("sourceTypes");
    const width = r.integer("sourceTypeBytes");
    const column = readSourceTypeColumn(r);
    if (records.length % RECORD_WORDS !== 0)
      r.corrupt(`records has ${records.length} words, not ${RECORD_WORDS} per entity`);
    if (column !== null) checkLength(r, "sourceTypeIndex", column, records.length / RECORD_WORDS, "one per entity");
    if ((column === null) !== sourceTypes.length <= PACKED_SOURCE_TYPES)
      r.corrupt(`${sourceTypes.length} sourceTypes, but sourceTypeBytes is ${width}`);
    // Every span must lie inside its store: a bad record could otherwise read past a chunk.
    for (let at = 0; at < records.length; at += RECORD_WORDS) {
      const shape = records[at + SHAPE]!;
      const span = (shape & ID_LENGTH_MASK) + ((shape >>> ID_LENGTH_BITS) & RAW_LENGTH_MASK);
      if (!texts.holds(records[at]!, span)) r.corrupt(`entity ${at / RECORD_WORDS} lies outside its text store`);
    }
    const table = new EntityTable(records, texts, sourceTypes, column);
    if (r.verify)
      verifyLater(r, "verify", () => verifyRecords(r, records, new StoredUnits(r), column, sourceTypes.length));
    return table;
  }

  /**
   * The pass `deserialize` defers (see verifyRecords), from the stored form alone, restoring
   * nothing: what another thread runs over the same bytes (snapshot/read-thread.ts). The shape
   * checks are deserialize's; run on a form that fails them, this only reads wrong values.
   */
  static verifyStored(r: SerialReader): void {
    const records = r.uint32("records");
    const column = readSourceTypeColumn(r);
    verifyRecords(r, records, new StoredUnits(r), column, r.strings("sourceTypes").length);
  }
}

/** The sourceType column as stored (null when the indexes are packed in the records). */
function readSourceTypeColumn(r: SerialReader): IndexArray | null {
  const width = r.integer("sourceTypeBytes");
  return width === 0
    ? null
    : width === 1
      ? r.uint8("sourceTypeIndex")
      : width === 2
        ? r.uint16("sourceTypeIndex")
        : width === 4
          ? r.uint32("sourceTypeIndex")
          : r.corrupt(`sourceTypeBytes is ${width}, not 0, 1, 2 or 4`);
}

/**
 * The checks that cost a pass over the data: id order, hashes, sourceType indexes (a type's 3 bits
 * are always 0..7). Order and hashes are read from the stored code units (`units`, the table's
 * text as the file holds it), not from strings: no string is made, and a Latin-1 code unit costs
 * one multiply of the hash (hash64Units).
 */
function verifyRecords(
  r: SerialReader,
  records: Uint32Array,
  units: StoredUnits,
  column: IndexArray | null,
  sourceTypeCount: number,
): void {
  const h: Hash64 = [0, 0];
  const size = records.length / RECORD_WORDS;
  let previous = 0;
  let previousLength = 0;
  for (let d = 0; d < size; d++) {
    const at = RECORD_WORDS * d;
    const word = records[at]!;
    const length = records[at + SHAPE]! & ID_LENGTH_MASK;
    if (d > 0 && units.compare(previous, previousLength, word, length) >= 0)
      r.corrupt("the entityIds are not in strictly ascending order");
    units.hash(word, length, h);
    if (records[at + HASH_HI] !== h[0] || records[at + HASH_LO] !== h[1])
      r.corrupt(`the hash of entityId ${d} is wrong`);
    if (column !== null && records[at + SHAPE]! >>> SOURCE_SHIFT !== 0)
      r.corrupt(`entity ${d} has a sourceType in its record and in the column`);
    const index = column === null ? records[at + SHAPE]! >>> SOURCE_SHIFT : column[d]!;
    if (index >= sourceTypeCount) r.corrupt(`entity ${d} has sourceType index ${index}, past sourceTypes`);
    previous = word;
    previousLength = length;
  }
}

/**
 * Entity id table, shared by the parser threads
 * ==============================================
 * Owns finding an entityId's column index (GraphBuilder.columnEntityIds: its dense id, once the
 * entities are sealed) and its entityId hash from the bytes of a statement line, in any thread: an
 * open-addressing table over the ids in one SharedArrayBuffer, made once on the loading thread and
 * read by every parser thread (statement-threads.ts) without a copy. A thread resolves the three
 * ids of a line from the line's own bytes: no string is made and no per-thread Map is built.
 *
 * Layout: `slots` holds SLOT_WORDS 32-bit words a slot (32 bytes: a slot never straddles a 64-byte
 * cache line), ids / MAX_LOAD slots (not rounded up to a power of two: 427 MB at 10M ids, where
 * the power of two above would take 537). A slot is empty (word 0 is 0) or holds id i: i + 1, the
 * id's entityId hash (hi, lo: what a derived fingerprint is made of), its UTF-8 length, and its
 * first INLINE_BYTES bytes (zero-padded). The bytes of an id longer than INLINE_BYTES from
 * INLINE_BYTES on are in `tails`, from tailStarts[i]. So a look-up of a short id
 * (every Wikidata-style id, "Q123456789") reads one cache line of the table for the index, the hash
 * and the comparison, where a table of indexes over separate byte and hash arrays reads three or
 * four lines at random (about 3x slower once the table is far larger than the cache, at 10M ids).
 *
 * Algorithm: linear probing; the slot of a byte string is FNV-1a 32 over its bytes from a random
 * per-table basis, mixed by MurmurHash3's fmix32 (so a file cannot pile its ids onto one run of
 * slots), mapped onto the slots by a multiply-shift (Lemire's fastrange); a slot's candidate is
 * compared by length, then byte by byte.
 *
 * Cost: making it, one UTF-8 encoding of every id and one insertion each (about 0.3 s at 1M ids);
 * a look-up, a hash over the id's bytes and expected 2.5 probes (load MAX_LOAD), two slots a cache
 * line. Memory: 32 bytes a slot, 1/MAX_LOAD slots an id (43 bytes an id; 427 MB at 10M ids), plus
 * the tails of long ids; shared by every thread. The table is held through the statements' parse,
 * where a load's memory peaks: a fuller table is that much less peak, for about one probe more.
 *
 * Reference: D. Knuth, TAOCP vol. 3, 6.4 (linear probing); FNV-1a (Fowler, Noll, Vo); A. Appleby,
 * MurmurHash3 (fmix32); D. Lemire, "A fast alternative to the modulo reduction" (2016).
 */

import { randomBytes } from "node:crypto";
import { fastRange, fmix32 } from "../engine/hash64.js";

/** Fraction of slots in use: the slots are ids / MAX_LOAD. */
const MAX_LOAD = 0.75;
/** 32-bit words a slot: entry, hash hi, hash lo, length, then the inline bytes. */
const SLOT_WORDS = 8;
const SLOT_BYTES = 4 * SLOT_WORDS;
/** Word indexes in a slot, and the inline bytes' byte offset. */
const HASH_HI_WORD = 1;
const HASH_LO_WORD = 2;
const LENGTH_WORD = 3;
const INLINE_AT = 16;
/** An id's bytes kept in its slot. */
const INLINE_BYTES = SLOT_BYTES - INLINE_AT;
const EMPTY = 0;
const FNV_PRIME = 0x01000193;
/** Ids whose home slots are read at once, ahead of their insertion: enough misses in flight to overlap. */
const INSERT_BLOCK = 256;

/** The table's arrays, each on a SharedArrayBuffer: what a parser thread is given. */
export interface EntityIdTable {
  /** SLOT_WORDS words a slot. */
  slots: Uint32Array;
  /** The same memory as bytes (the inline bytes). */
  slotBytes: Uint8Array;
  /** The bytes of ids longer than INLINE_BYTES past their first INLINE_BYTES, one after the other. */
  tails: Uint8Array;
  /** Id i's tail starts at tailStarts[i] (only ids longer than INLINE_BYTES have one; empty when none does). */
  tailStarts: Uint32Array;
  /** The hash's random basis. */
  seed: number;
  /** A fold of the slots read ahead while the table was made (kept so that those reads stay). */
  touched?: number;
}

/**
 * Makes the table of `ids` (distinct strings; id i is found as i) with each id's entityId hash
 * (hi, lo) at hashes[2i], hashes[2i + 1].
 */
export function makeEntityIdTable(ids: readonly string[], hashes: Uint32Array): EntityIdTable {
  const n = ids.length;
  const size = Math.max(1, Math.ceil(n / MAX_LOAD));
  const seed = randomBytes(4).readUInt32LE(0);
  // Each id's UTF-8 length and home slot first, so that both arrays are made once at their size and
  // the insertions below can read their home slots ahead.
  const lengths = new Uint32Array(n);
  const homes = new Uint32Array(n);
  let scratch = Buffer.allocUnsafe(64);
  let tailBytes = 0;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    let length = id.length;
    let h = seed;
    let k = 0;
    for (; k < length; k++) {
      const c = id.charCodeAt(k);
      if (c >= 0x80) break;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    // Each branch: an ASCII id (nearly all) is its own UTF-8, read as code units; another is encoded.
    if (k < length) {
      length = Buffer.byteLength(id, "utf8");
      if (length > scratch.length) scratch = Buffer.allocUnsafe(2 * length);
      scratch.write(id, 0, "utf8");
      homes[i] = fastRange(hashBytes(scratch, 0, length, seed), size);
    } else homes[i] = fastRange(fmix32(h), size);
    lengths[i] = length;
    if (length > INLINE_BYTES) tailBytes += length - INLINE_BYTES;
  }
  const shared = new SharedArrayBuffer(SLOT_BYTES * size);
  const slots = new Uint32Array(shared);
  const slotBytes = new Uint8Array(shared);
  // Each branch: tails only when some id is long (else an empty array: nothing to share).
  const tails = new Uint8Array(new SharedArrayBuffer(Math.max(1, tailBytes))).subarray(0, tailBytes);
  const tailStarts = new Uint32Array(new SharedArrayBuffer(tailBytes > 0 ? 4 * n : 4)).subarray(
    0,
    tailBytes > 0 ? n : 0,
  );
  const table: EntityIdTable = { slots, slotBytes, tails, tailStarts, seed };
  let tailAt = 0;
  let touched = 0;
  for (let i = 0; i < n; i++) {
    // Each block's home slots are read at once (their cache misses overlap) before its ids go in.
    if (i % INSERT_BLOCK === 0) {
      for (let j = i; j < Math.min(n, i + INSERT_BLOCK); j++) touched ^= slots[SLOT_WORDS * homes[j]!]!;
    }
    const id = ids[i]!;
    const length = lengths[i]!;
    let at = homes[i]!;
    while (slots[SLOT_WORDS * at] !== EMPTY) at = nextSlot(at, size);
    const word = SLOT_WORDS * at;
    slots[word] = i + 1;
    slots[word + HASH_HI_WORD] = hashes[2 * i]!;
    slots[word + HASH_LO_WORD] = hashes[2 * i + 1]!;
    slots[word + LENGTH_WORD] = length;
    const inlineAt = SLOT_BYTES * at + INLINE_AT;
    // Each branch: an ASCII id's bytes are its code units; another's are encoded. A long id keeps
    // the rest of its bytes in the tails.
    if (length === id.length) {
      for (let k = 0; k < Math.min(length, INLINE_BYTES); k++) slotBytes[inlineAt + k] = id.charCodeAt(k);
      if (length > INLINE_BYTES) {
        tailStarts[i] = tailAt;
        for (let k = INLINE_BYTES; k < length; k++) tails[tailAt++] = id.charCodeAt(k);
      }
    } else {
      if (length > scratch.length) scratch = Buffer.allocUnsafe(2 * length);
      scratch.write(id, 0, "utf8");
      slotBytes.set(scratch.subarray(0, Math.min(length, INLINE_BYTES)), inlineAt);
      if (length > INLINE_BYTES) {
        tailStarts[i] = tailAt;
        tails.set(scratch.subarray(INLINE_BYTES, length), tailAt);
        tailAt += length - INLINE_BYTES;
      }
    }
  }
  // The reads above only warm the cache; their fold is kept where nothing can drop it.
  table.touched = touched;
  return table;
}

/**
 * The slot of the id whose UTF-8 is bytes [start, end) of `line`, or -1 when there is none: its
 * index is entityIndex(table, slot), its hash entityHashHi / entityHashLo.
 */
export function findEntitySlot(table: EntityIdTable, line: Uint8Array, start: number, end: number): number {
  const home = homeSlot(table, line, start, end);
  return probeEntitySlot(table, line, start, end, home, table.slots[SLOT_WORDS * home]!);
}

/** The slot where the search for the id whose UTF-8 is bytes [start, end) of `line` begins. */
export function homeSlot(table: EntityIdTable, line: Uint8Array, start: number, end: number): number {
  return fastRange(hashBytes(line, start, end, table.seed), table.slots.length / SLOT_WORDS);
}

/** The slot linear probing tries after `at`, of `size` slots (the last one's next is the first). */
function nextSlot(at: number, size: number): number {
  return at + 1 === size ? 0 : at + 1;
}

/** What `home`'s first word holds: read early, for several ids at once, it lets their cache misses overlap. */
export function slotEntry(table: EntityIdTable, home: number): number {
  return table.slots[SLOT_WORDS * home]!;
}

/**
 * findEntitySlot from the id's home slot (homeSlot) and that slot's first word (slotEntry): a caller
 * that looks up several ids reads their home slots first, one after the other, so that the memory
 * fetches run at once rather than each after the last one's compare (at 10M ids the table is far
 * larger than the cache, and nearly every home slot is a miss).
 */
export function probeEntitySlot(
  table: EntityIdTable,
  line: Uint8Array,
  start: number,
  end: number,
  home: number,
  firstEntry: number,
): number {
  const { slots, slotBytes } = table;
  const size = slots.length / SLOT_WORDS;
  const length = end - start;
  const inline = Math.min(length, INLINE_BYTES);
  let at = home;
  let entry = firstEntry;
  for (;;) {
    if (entry === EMPTY) return -1;
    const word = SLOT_WORDS * at;
    if (slots[word + LENGTH_WORD] === length) {
      const from = SLOT_BYTES * at + INLINE_AT;
      let k = 0;
      while (k < inline && slotBytes[from + k] === line[start + k]) k++;
      // Each branch: a short id is compared whole in its slot; a long one's tail is compared after.
      if (k === inline && (length <= INLINE_BYTES || tailEquals(table, entry - 1, line, start, length))) return at;
    }
    at = nextSlot(at, size);
    entry = slots[SLOT_WORDS * at]!;
  }
}

/** The index of the id in `slot` (found by findEntitySlot). */
export function entityIndex(table: EntityIdTable, slot: number): number {
  return table.slots[SLOT_WORDS * slot]! - 1;
}

/** The high half of the entityId hash of the id in `slot`. */
export function entityHashHi(table: EntityIdTable, slot: number): number {
  return table.slots[SLOT_WORDS * slot + HASH_HI_WORD]!;
}

/** The low half of the entityId hash of the id in `slot`. */
export function entityHashLo(table: EntityIdTable, slot: number): number {
  return table.slots[SLOT_WORDS * slot + HASH_LO_WORD]!;
}

/** The index of the id whose UTF-8 is bytes [start, end) of `line`, or -1 when there is none. */
export function findEntityId(table: EntityIdTable, line: Uint8Array, start: number, end: number): number {
  const slot = findEntitySlot(table, line, start, end);
  return slot < 0 ? -1 : entityIndex(table, slot);
}

/** Whether long id i's bytes past INLINE_BYTES are those of line[start + INLINE_BYTES, start + length). */
function tailEquals(table: EntityIdTable, i: number, line: Uint8Array, start: number, length: number): boolean {
  const { tails } = table;
  const from = table.tailStarts[i]! - INLINE_BYTES;
  for (let k = INLINE_BYTES; k < length; k++) if (tails[from + k] !== line[start + k]) return false;
  return true;
}

/** FNV-1a 32 over bytes [start, end) from basis `seed`, then fmix32. */
function hashBytes(b: Uint8Array, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return fmix32(h);
}

/**
 * Text store
 * ==========
 * Owns the characters of many short strings, held as a few large JavaScript strings instead of one
 * string object each. A V8 string costs a header of about 24 bytes plus its characters, and a
 * pointer in whatever holds it: on a million short identifiers that is more than the text itself, and
 * a million objects for the collector to trace. Whoever owns the strings (a TextList, the entity
 * table) keeps, per string, one word naming where it starts here, and its length.
 *
 * Two stores: text whose code units all fit in one byte goes to a Latin-1 store (1 byte a code unit
 * in V8's one-byte strings), other text to a UTF-16 store (2 bytes). Each store is a list of chunks
 * of at most CHUNK_UNITS code units (far below V8's longest string); a span (one string, or several
 * added together) never straddles two chunks (the rest of a chunk is left empty). A span's word: bit
 * 31 set for the UTF-16 store, bits 0..30 its position in that store's space. A string added inside a
 * span at offset k is at word + k (a span never crosses 2^31, so the store bit is untouched).
 *
 * `slice(word, length)` is `chunk.slice(start, end)`: V8 makes a sliced string (a view on the chunk,
 * no copy, no read of the characters) for 13 code units or more, and copies shorter ones. The strings
 * it returns keep their chunk alive (an embedder that holds on to one identifier of a dropped graph
 * holds its chunk: copy it if that matters). `compare(word, length, s)` reads code units in place.
 *
 * Cost: slice O(1) (no character read for long strings); compare O(length). Space: 1 or 2 bytes a
 * code unit. Serial form: each store's code units as one array (bytes, or 16-bit units), both
 * transient: restoring decodes each chunk with one Buffer call.
 */

import { type Hash64, hash64Units } from "../hash64.js";
import type { SerialReader, SerialWriter } from "../serial.js";
import { type FinalArrayType, finalArray } from "../array-slab.js";

/** Code units per chunk: 2^26 (64 Mi), far below V8's string length limit (2^29 - 24). */
export const CHUNK_BITS = 26;
const CHUNK_UNITS = 2 ** CHUNK_BITS;
const CHUNK_MASK = CHUNK_UNITS - 1;
/** Bit 31 of a span's word: the span is in the UTF-16 store. */
export const WIDE = 0x80000000;
/** Code units of one store at most: positions are 31 bits. */
const MAX_STORE_UNITS = 0x80000000;

/** Whether every code unit of `s` is below 256. */
export function isLatin1(s: string): boolean {
  for (let k = 0; k < s.length; k++) if (s.charCodeAt(k) > 0xff) return false;
  return true;
}

/** Accumulates one store's spans into chunks. */
class StoreBuilder {
  readonly chunks: string[] = [];
  private parts: string[] = [];
  private used = 0;
  /** Position in the store's space where the current chunk starts. */
  private base = 0;

  /** Appends `s`; returns its position in the store's space. */
  add(s: string): number {
    if (this.used + s.length > CHUNK_UNITS && this.used > 0) this.close();
    const at = this.base + this.used;
    if (at + s.length > MAX_STORE_UNITS) throw new RangeError("text store: more than 2^31 code units in one store");
    this.parts.push(s);
    this.used += s.length;
    return at;
  }

  /** Ends the current chunk (what is left of its space stays empty). */
  close(): void {
    if (this.used === 0 && this.parts.length === 0) return;
    this.chunks.push(this.parts.join(""));
    this.parts = [];
    this.used = 0;
    this.base += CHUNK_UNITS;
  }
}

/** Builds a TextStore span by span. */
export class TextStoreBuilder {
  private readonly narrow = new StoreBuilder();
  private readonly wide = new StoreBuilder();

  /** Adds `span` (one string, or several concatenated to stay adjacent); returns its word. */
  add(span: string): number {
    // One byte a code unit when the whole span allows it; else the UTF-16 store.
    if (isLatin1(span)) return this.narrow.add(span);
    return (WIDE | this.wide.add(span)) >>> 0;
  }

  finish(): TextStore {
    this.narrow.close();
    this.wide.close();
    return new TextStore(this.narrow.chunks, this.wide.chunks);
  }
}

export class TextStore {
  private readonly narrow: readonly string[];
  private readonly wide: readonly string[];

  /** Each store's extent in its space: where its last chunk ends (0 when empty), for `holds`. */
  private readonly narrowUnits: number;
  private readonly wideUnits: number;

  constructor(narrow: readonly string[], wide: readonly string[]) {
    this.narrow = narrow;
    this.wide = wide;
    this.narrowUnits = extent(narrow);
    this.wideUnits = extent(wide);
  }

  /** The `length` code units at `word` (a word this store gave, plus an offset inside its span). */
  slice(word: number, length: number): string {
    // An empty string needs no chunk (a store of empty strings has none).
    if (length === 0) return "";
    const pos = word & 0x7fffffff;
    const chunk = (word >= WIDE ? this.wide : this.narrow)[Math.floor(pos / CHUNK_UNITS)]!;
    const at = pos & CHUNK_MASK;
    return chunk.slice(at, at + length);
  }

  /**
   * Reads the first code unit at each of `words[0, count)` and keeps nothing but a fold of them
   * (returned so the reads stay): a page calls it to have its strings' characters in the cache
   * before it makes them (EntityTable.touch). The chunk is found by a shift and a mask, inline,
   * for every word of either store: `codeAt`'s division and call a word would make each iteration
   * several times longer, and the CPU then keeps fewer of these independent misses in flight (a
   * store past 64 Mi code units, about 2.5M entities of the generator's names, has several chunks;
   * the UTF-16 store is another).
   */
  touch(words: Uint32Array, count: number): number {
    const narrow = this.narrow;
    const wide = this.wide;
    let sink = 0;
    for (let k = 0; k < count; k++) {
      const word = words[k]!;
      const pos = word & 0x7fffffff;
      // Each branch: the UTF-16 store's words have bit 31 set; a chunk past the end (never for a
      // word this store gave) reads as an empty string.
      const chunk = (word >= WIDE ? wide : narrow)[pos >>> CHUNK_BITS] ?? "";
      sink ^= chunk.charCodeAt(pos & CHUNK_MASK) | 0;
    }
    return sink;
  }

  /** The code unit at `word` (0 past the end of its chunk: only for touching memory, see touch). */
  codeAt(word: number): number {
    const pos = word & 0x7fffffff;
    const chunk = (word >= WIDE ? this.wide : this.narrow)[Math.floor(pos / CHUNK_UNITS)];
    return chunk === undefined ? 0 : chunk.charCodeAt(pos & CHUNK_MASK) | 0;
  }

  /** Compares the `length` code units at `word` with `s` in JavaScript order: negative, 0 or positive. */
  compare(word: number, length: number, s: string): number {
    const m = Math.min(length, s.length);
    if (m > 0) {
      const pos = word & 0x7fffffff;
      const chunk = (word >= WIDE ? this.wide : this.narrow)[Math.floor(pos / CHUNK_UNITS)]!;
      const at = pos & CHUNK_MASK;
      for (let k = 0; k < m; k++) {
        const d = chunk.charCodeAt(at + k) - s.charCodeAt(k);
        if (d !== 0) return d;
      }
    }
    return length - s.length;
  }

  /**
   * Whether the `length` code units at `word` are `s`: the lengths, then the span's slice of its
   * chunk compared with `s` by `===` (V8's native comparison of two strings' characters). A loop of
   * charCodeAt over a chunk (what compare does) took about four times as long in an A/B of the
   * dictionary's look-ups of a batch's entityIds; the chunk's startsWith at the span's place, about
   * twice as long as the slice for short ids (the slice is a copy of a few bytes), and as long
   * within the noise for 13 code units or more (the slice is a view then). The commits that brought
   * each have the figures and how they were taken. Equality is what those look-ups ask, so they
   * need no order.
   */
  equals(word: number, length: number, s: string): boolean {
    if (length !== s.length) return false;
    // An empty span needs no chunk (a store of empty strings has none).
    if (length === 0) return true;
    const pos = word & 0x7fffffff;
    // A span lies inside one chunk (TextStore.holds, checked when a store is restored), as compare assumes.
    const chunk = (word >= WIDE ? this.wide : this.narrow)[pos >>> CHUNK_BITS]!;
    const at = pos & CHUNK_MASK;
    return chunk.slice(at, at + length) === s;
  }

  /** Whether `length` code units at `word` lie inside one chunk of their store (for restores to check). */
  holds(word: number, length: number): boolean {
    const pos = word & 0x7fffffff;
    const end = pos + length;
    // Positions and ends stay below 2^32: the chunk is a shift, not a division.
    return (
      end <= (word >= WIDE ? this.wideUnits : this.narrowUnits) &&
      pos >>> CHUNK_BITS === Math.max(pos, end - 1) >>> CHUNK_BITS
    );
  }

  /** Bytes of the characters: 1 a code unit in the Latin-1 store, 2 in the UTF-16 one. */
  get byteLength(): number {
    let chars = 0;
    for (const c of this.narrow) chars += c.length;
    for (const c of this.wide) chars += 2 * c.length;
    return chars;
  }

  serialize(w: SerialWriter): void {
    // The code units become JS strings when restored: read only while restoring.
    w.array("narrow", storeUnits(this.narrow, Uint8Array), { transient: true });
    w.array("wide", storeUnits(this.wide, Uint16Array), { transient: true });
  }

  static deserialize(r: SerialReader): TextStore {
    return new TextStore(decodeStore(r.uint8("narrow"), "latin1"), decodeStore(r.uint16("wide"), "utf16le"));
  }
}

/**
 * A store's serial form read in place, as its code units (chunk c at c * CHUNK_UNITS of each array):
 * what a restore checks stored text by (hashes, order) without making a string of each span. Valid
 * only while the restore runs (the arrays are transient sections); spans must have passed `holds`.
 */
export class StoredUnits {
  private readonly narrow: Uint8Array;
  private readonly wide: Uint16Array;

  constructor(r: SerialReader) {
    this.narrow = r.uint8("narrow");
    this.wide = r.uint16("wide");
  }

  /** hash64 of the `length` code units at `word` (see hash64Units). */
  hash(word: number, length: number, out: Hash64): Hash64 {
    return hash64Units(word >= WIDE ? this.wide : this.narrow, word & 0x7fffffff, length, out);
  }

  /** Compares the spans at `a` and `b` in JavaScript order (code units): negative, 0 or positive. */
  compare(a: number, aLength: number, b: number, bLength: number): number {
    const ua = a >= WIDE ? this.wide : this.narrow;
    const ub = b >= WIDE ? this.wide : this.narrow;
    const pa = a & 0x7fffffff;
    const pb = b & 0x7fffffff;
    const m = Math.min(aLength, bLength);
    // Each branch: both spans Latin-1 (nearly every pair: one array, one kind of load), or any mix.
    if (ua === this.narrow && ub === this.narrow) {
      const units = this.narrow;
      for (let k = 0; k < m; k++) {
        const d = units[pa + k]! - units[pb + k]!;
        if (d !== 0) return d;
      }
    } else {
      for (let k = 0; k < m; k++) {
        const d = ua[pa + k]! - ub[pb + k]!;
        if (d !== 0) return d;
      }
    }
    return aLength - bLength;
  }
}

/** Where a store's last chunk ends in its space (chunk c starts at c * CHUNK_UNITS). */
function extent(chunks: readonly string[]): number {
  return chunks.length === 0 ? 0 : (chunks.length - 1) * CHUNK_UNITS + chunks[chunks.length - 1]!.length;
}

/** A store's chunks as one array of code units (chunk c at c * CHUNK_UNITS; gaps are zeros). */
function storeUnits<T extends Uint8Array | Uint16Array>(chunks: readonly string[], type: FinalArrayType<T>): T {
  const out = finalArray(type, extent(chunks));
  const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  const unitBytes = out.BYTES_PER_ELEMENT;
  // One Buffer write a chunk: latin1 for the one-byte store, UTF-16LE (code units as they are) for the other.
  for (const [c, chunk] of chunks.entries())
    bytes.write(chunk, c * CHUNK_UNITS * unitBytes, unitBytes === 1 ? "latin1" : "utf16le");
  return out;
}

/** The chunks of a store, one Buffer decode each. */
function decodeStore(units: Uint8Array | Uint16Array, encoding: "latin1" | "utf16le"): string[] {
  const bytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);
  const unitBytes = encoding === "latin1" ? 1 : 2;
  const chunks: string[] = [];
  for (let at = 0; at < units.length; at += CHUNK_UNITS) {
    const end = Math.min(units.length, at + CHUNK_UNITS);
    chunks.push(bytes.toString(encoding, at * unitBytes, end * unitBytes));
  }
  return chunks;
}

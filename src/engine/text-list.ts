/**
 * Text list
 * =========
 * Owns an immutable list of strings (entityIds, raw identifiers, given fingerprints) stored as a few
 * large JavaScript strings instead of one string object each. A V8 string costs a header of about
 * 24 bytes plus its characters, and a pointer in the array that holds it: on a million short
 * identifiers that is more than the text itself, and a million objects for the collector to trace.
 * Here a string costs 8 bytes of index plus its code units.
 *
 * Two stores: strings whose code units all fit in one byte go to a Latin-1 store (1 byte a code
 * unit in V8's one-byte strings), the others to a UTF-16 store (2 bytes). Each store is a list of
 * chunks of at most CHUNK_UNITS code units (far below V8's longest string); a string never straddles
 * two chunks (the rest of a chunk is left empty). Entry i is two words: store bit and position in
 * the store's space, then length.
 *
 * `get(i)` is `chunk.slice(start, end)`: V8 makes a sliced string (a view on the chunk, no copy, no
 * read of the characters) for 13 code units or more, and copies shorter ones. So a page of results
 * costs a few small allocations, and the strings it returns keep their chunk alive (an embedder that
 * holds on to one identifier of a dropped graph holds its chunk: copy it if that matters).
 * `compare(i, s)` and `equals(i, s)` read code units in place, for binary searches and lookups.
 *
 * Cost: get O(1) (one index read, no character read); compare O(length). Space: 8 bytes a string
 * plus 1 or 2 bytes a code unit. Serial form: the index, and each store's code units as one array
 * (bytes, or 16-bit units); restoring decodes each chunk with one Buffer call.
 */

import type { SerialReader, SerialWriter } from "./serial.js";

/** Code units per chunk: 2^26 (64 Mi), far below V8's string length limit (2^29 - 24). */
export const CHUNK_BITS = 26;
const CHUNK_UNITS = 2 ** CHUNK_BITS;
const CHUNK_MASK = CHUNK_UNITS - 1;
/** Bit 31 of an entry's first word: the string is in the UTF-16 store. */
const WIDE = 0x80000000;
/** Strings of one list at most: positions are 31 bits per store. */
const MAX_STORE_UNITS = 0x80000000;

/** Whether every code unit of `s` is below 256. */
function isLatin1(s: string): boolean {
  for (let k = 0; k < s.length; k++) if (s.charCodeAt(k) > 0xff) return false;
  return true;
}

/** Accumulates one store's strings into chunks. */
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
    if (at + s.length > MAX_STORE_UNITS) throw new RangeError("text list: more than 2^31 code units in one store");
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

export class TextList {
  /** Two words an entry: store bit | position, length. */
  private readonly index: Uint32Array;
  private readonly narrow: readonly string[];
  private readonly wide: readonly string[];

  private constructor(index: Uint32Array, narrow: readonly string[], wide: readonly string[]) {
    this.index = index;
    this.narrow = narrow;
    this.wide = wide;
  }

  static from(strings: Iterable<string>, count?: number): TextList {
    const narrow = new StoreBuilder();
    const wide = new StoreBuilder();
    let index = new Uint32Array(2 * (count ?? 16));
    let n = 0;
    for (const s of strings) {
      if (2 * n + 2 > index.length) {
        const grown = new Uint32Array(index.length * 2);
        grown.set(index);
        index = grown;
      }
      // One byte a code unit when the string allows it; else the UTF-16 store.
      if (isLatin1(s)) index[2 * n] = narrow.add(s);
      else index[2 * n] = (WIDE | wide.add(s)) >>> 0;
      index[2 * n + 1] = s.length;
      n++;
    }
    narrow.close();
    wide.close();
    return new TextList(index.length === 2 * n ? index : index.slice(0, 2 * n), narrow.chunks, wide.chunks);
  }

  get length(): number {
    return this.index.length >>> 1;
  }

  /** The string at i, for 0 <= i < length (not checked). */
  get(i: number): string {
    const w = this.index[2 * i]!;
    const len = this.index[2 * i + 1]!;
    // An empty string needs no chunk (a store of empty strings has none).
    if (len === 0) return "";
    const pos = w & 0x7fffffff;
    const chunk = (w >= WIDE ? this.wide : this.narrow)[Math.floor(pos / CHUNK_UNITS)]!;
    const at = pos & CHUNK_MASK;
    return chunk.slice(at, at + len);
  }

  /** Length of string i in code units. */
  lengthOf(i: number): number {
    return this.index[2 * i + 1]!;
  }

  /** Compares string i with `s` in JavaScript order (UTF-16 code units): negative, 0 or positive. */
  compare(i: number, s: string): number {
    const w = this.index[2 * i]!;
    const len = this.index[2 * i + 1]!;
    const pos = w & 0x7fffffff;
    const chunk = (w >= WIDE ? this.wide : this.narrow)[Math.floor(pos / CHUNK_UNITS)]!;
    const at = pos & CHUNK_MASK;
    const m = Math.min(len, s.length);
    for (let k = 0; k < m; k++) {
      const d = chunk.charCodeAt(at + k) - s.charCodeAt(k);
      if (d !== 0) return d;
    }
    return len - s.length;
  }

  equals(i: number, s: string): boolean {
    return this.index[2 * i + 1] === s.length && this.compare(i, s) === 0;
  }

  /** Code units of all strings. */
  get codeUnits(): number {
    let n = 0;
    for (let i = 1; i < this.index.length; i += 2) n += this.index[i]!;
    return n;
  }

  /** Bytes held: the index, and the stores' characters (1 or 2 bytes a code unit). */
  get byteLength(): number {
    let chars = 0;
    for (const c of this.narrow) chars += c.length;
    for (const c of this.wide) chars += 2 * c.length;
    return this.index.byteLength + chars;
  }

  serialize(w: SerialWriter): void {
    w.array("index", this.index);
    // The code units become JS strings when restored: read only while restoring.
    w.array("narrow", storeUnits(this.narrow, Uint8Array), { transient: true });
    w.array("wide", storeUnits(this.wide, Uint16Array), { transient: true });
  }

  static deserialize(r: SerialReader): TextList {
    const index = r.uint32("index");
    const narrow = r.uint8("narrow");
    const wide = r.uint16("wide");
    if (index.length % 2 !== 0) r.corrupt("a text list index has an odd number of words");
    // Every entry must lie inside its store: a bad entry could otherwise read past a chunk.
    for (let i = 0; i < index.length; i += 2) {
      const word = index[i]!;
      const pos = word & 0x7fffffff;
      const end = pos + index[i + 1]!;
      const size = word >= WIDE ? wide.length : narrow.length;
      if (end > size || Math.floor(pos / CHUNK_UNITS) !== Math.floor(Math.max(pos, end - 1) / CHUNK_UNITS)) {
        r.corrupt(`text list entry ${i / 2} lies outside its store`);
      }
    }
    return new TextList(index, decodeStore(narrow, "latin1"), decodeStore(wide, "utf16le"));
  }
}

/** A store's chunks as one array of code units (chunk c at c * CHUNK_UNITS; gaps are zeros). */
function storeUnits<T extends Uint8Array | Uint16Array>(chunks: readonly string[], type: new (n: number) => T): T {
  const size = chunks.length === 0 ? 0 : (chunks.length - 1) * CHUNK_UNITS + chunks[chunks.length - 1]!.length;
  const out = new type(size);
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

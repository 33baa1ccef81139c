/**
 * Packed integer vector
 * =====================
 * Owns a fixed sequence of n non-negative integers of `width` bits each (0 <= width <= 32), packed
 * back to back into 32-bit words: sdsl-lite's `int_vector<0>` (Gog et al., "From theory to practice:
 * plug and play with succinct data structures", SEA 2014), the way the engine stores every column of
 * ids: ceil(log2(max + 1)) bits a value instead of 32.
 *
 * Value i occupies bits [i * width, (i + 1) * width) of the word array, least significant first; it
 * lies in one word or straddles two. Positions are computed in doubles, so vectors of more than 2^32
 * bits are fine. One spare word at the end lets `get` read word + 1 without a bound check.
 *
 * Cost: get O(1), one or two reads of adjacent words (one cache line, or two neighbours). Build
 * O(n). A range check of every value (`fieldsBelow`, also over one field of packed records, which
 * is how a restore checks its columns, and `threeFieldsBelow` for three adjacent fields in one pass)
 * O(n), a few integer operations a value. Space: n * width / 8
 * bytes, plus 4.
 * Serial form: `length`, `width`, `words`.
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { finalArray } from "../array-slab.js";

/** The `width` bits (<= 32) of `words` from bit `bit` on, least significant first. */
export function readBits(words: Uint32Array, bit: number, width: number): number {
  // A shift while the bit index fits 31 bits (every vector but the largest), else a division.
  const w = bit < 0x80000000 ? bit >>> 5 : Math.floor(bit / 32);
  const shift = bit & 31; // right for any bit index: 2^32 is a multiple of 32
  // The high word's part: shifted in only when the value straddles (a shift by 32 is a no-op in JS).
  const hi = shift === 0 ? 0 : words[w + 1]! << (32 - shift);
  const mask = width === 32 ? -1 : (1 << width) - 1;
  return (((words[w]! >>> shift) | hi) & mask) >>> 0;
}

/**
 * Whether each of `count` fields of `width` bits (<= 32) is below `limit`, the first field at bit
 * `offset` of `words` and each `stride` bits after the one before: a column of packed records (an
 * IntVector's values are stride = width, offset 0). What a restore checks a column's range by, so it
 * costs a few integer operations a value and no decode of whole records: the position steps along
 * as a word index and a shift (no multiplication, no double past 2^32 bits), and each value's
 * `limit - 1 - value` is OR-ed into one word whose sign bit ends up set iff some value reached
 * `limit` (no branch in the loop). Needs one spare word after the last field (every packed array
 * here has one). Cost: O(count), one sequential read of the words.
 */
export function fieldsBelow(
  words: Uint32Array,
  count: number,
  stride: number,
  offset: number,
  width: number,
  limit: number,
): boolean {
  // Each branch: no value to read, no value that could reach the limit, or the general loop.
  if (count === 0 || limit >= 2 ** width) return true;
  if (limit <= 0) return false;
  if (width === 32) {
    // Values of 32 bits do not fit the sign trick below: compare them one by one.
    for (let i = 0; i < count; i++) if (readBits(words, offset + i * stride, 32) >= limit) return false;
    return true;
  }
  // Every number the loop uses as an int32 (`>>> 0`, `| 0`): callers pass fields that V8 may hold
  // as doubles (an IntVector's length, width), and a loop specialized for small integers first
  // deoptimizes on them into float code twice as slow. The words are read as int32 for the same
  // reason (a Uint32Array's loads above 2^31 are doubles to V8).
  const n = count >>> 0;
  const wordStep = stride >>> 5;
  const shiftStep = stride & 31;
  let w = offset >>> 5;
  let shift = offset & 31;
  const bits = new Int32Array(words.buffer, words.byteOffset, words.length);
  const mask = (1 << width) - 1;
  const last = (limit - 1) | 0;
  let sign = 0;
  for (let i = 0; i < n; i++) {
    // The next word's bits above the field's first part; (x << 1) << (31 - shift) is 0 at shift 0,
    // where a shift by 32 would be a no-op.
    const v = ((bits[w]! >>> shift) | ((bits[w + 1]! << 1) << (31 - shift))) & mask;
    sign |= last - v;
    shift += shiftStep;
    w += wordStep + (shift >>> 5);
    shift &= 31;
  }
  return sign >= 0;
}

/**
 * Whether each of `count` records of `stride` bits, the first at bit 0 of `words`, holds three
 * adjacent fields, from the record's first bit on, of widths `w0`, `w1`, `w2` (each below 32), each
 * below its limit (`l0`, `l1`, `l2`): the same answer as fieldsBelow on each field, in one pass over
 * the words instead of three (a statement row's subject, predicate and object). Same branch-free
 * sign trick; a field whose limit no value can reach is checked against its largest value (always
 * passes). Needs one spare word after the last record. Cost: O(count), one sequential read.
 */
export function threeFieldsBelow(
  words: Uint32Array,
  count: number,
  stride: number,
  w0: number,
  l0: number,
  w1: number,
  l1: number,
  w2: number,
  l2: number,
): boolean {
  // Each branch: nothing to read, a field that no value can be below, a 32-bit field (outside the
  // sign trick: three single passes), or the general loop.
  if (count === 0) return true;
  if (l0 <= 0 || l1 <= 0 || l2 <= 0) return false;
  if (w0 >= 32 || w1 >= 32 || w2 >= 32)
    return (
      fieldsBelow(words, count, stride, 0, w0, l0) &&
      fieldsBelow(words, count, stride, w0, w1, l1) &&
      fieldsBelow(words, count, stride, w0 + w1, w2, l2)
    );
  // int32 throughout, as in fieldsBelow.
  const n = count >>> 0;
  const wordStep = stride >>> 5;
  const shiftStep = stride & 31;
  // Masks from 2 ** w (1 << 31 is negative); each below 2^31, so int32.
  const m0 = (2 ** w0 - 1) | 0;
  const m1 = (2 ** w1 - 1) | 0;
  const m2 = (2 ** w2 - 1) | 0;
  const last0 = Math.min(l0 - 1, m0) | 0;
  const last1 = Math.min(l1 - 1, m1) | 0;
  const last2 = Math.min(l2 - 1, m2) | 0;
  const bits = new Int32Array(words.buffer, words.byteOffset, words.length);
  const a0 = w0 | 0;
  const a1 = w1 | 0;
  let w = 0;
  let shift = 0;
  let sign = 0;
  for (let i = 0; i < n; i++) {
    sign |= last0 - (((bits[w]! >>> shift) | ((bits[w + 1]! << 1) << (31 - shift))) & m0);
    let s = shift + a0;
    let at = w + (s >>> 5);
    s &= 31;
    sign |= last1 - (((bits[at]! >>> s) | ((bits[at + 1]! << 1) << (31 - s))) & m1);
    s += a1;
    at += s >>> 5;
    s &= 31;
    sign |= last2 - (((bits[at]! >>> s) | ((bits[at + 1]! << 1) << (31 - s))) & m2);
    shift += shiftStep;
    w += wordStep + (shift >>> 5);
    shift &= 31;
  }
  return sign >= 0;
}

/** Writes `value` into the `width` bits of `words` from bit `bit` on (building only). */
export function writeBits(words: Uint32Array, bit: number, width: number, value: number): void {
  if (width === 0) return;
  const mask = width === 32 ? -1 : (1 << width) - 1;
  const w = Math.floor(bit / 32);
  const shift = bit - w * 32;
  words[w] = (words[w]! & ~(mask << shift)) | (value << shift);
  if (shift + width > 32) {
    const spill = 32 - shift;
    words[w + 1] = (words[w + 1]! & ~(mask >>> spill)) | (value >>> spill);
  }
}

export class IntVector {
  readonly length: number;
  readonly width: number;
  readonly words: Uint32Array;
  /** width ones, as an int32 mask (-1 for width 32). */
  private readonly mask: number;

  constructor(length: number, width: number, words?: Uint32Array) {
    if (!Number.isInteger(width) || width < 0 || width > 32)
      throw new RangeError(`width must be in [0, 32], got ${width}`);
    if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`length must be >= 0, got ${length}`);
    const size = IntVector.wordsFor(length, width);
    if (words !== undefined && words.length !== size) {
      throw new RangeError(`an int vector of ${length} x ${width} bits needs ${size} words, got ${words.length}`);
    }
    this.length = length;
    this.width = width;
    this.words = words ?? finalArray(Uint32Array, size);
    this.mask = width === 32 ? -1 : (1 << width) - 1;
  }

  /** Words of storage for `length` values of `width` bits (one spare). */
  static wordsFor(length: number, width: number): number {
    return Math.ceil((length * width) / 32) + 1;
  }

  /** The width that holds every value in [0, max]. */
  static widthFor(max: number): number {
    return max <= 0 ? 0 : Math.floor(Math.log2(max)) + 1;
  }

  /** A vector holding `values`, each below 2^width (width defaults to what the largest needs). */
  static from(values: ArrayLike<number>, width?: number): IntVector {
    let max = 0;
    for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
    const v = new IntVector(values.length, width ?? IntVector.widthFor(max));
    for (let i = 0; i < values.length; i++) v.set(i, values[i]!);
    return v;
  }

  /** Value i, for 0 <= i < length (not checked). */
  get(i: number): number {
    return readBits(this.words, i * this.width, this.width);
  }

  /** Sets value i (only while building: vectors are immutable once handed out). */
  set(i: number, value: number): void {
    if (!(value >= 0 && value <= this.mask >>> 0) || !Number.isInteger(value)) {
      throw new RangeError(`value ${value} does not fit in ${this.width} bits`);
    }
    writeBits(this.words, i * this.width, this.width, value);
  }

  /** Whether every value is below `limit`: one pass over the words (fieldsBelow). */
  allBelow(limit: number): boolean {
    return fieldsBelow(this.words, this.length, this.width, 0, this.width, limit);
  }

  get byteLength(): number {
    return this.words.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("width", this.width);
    w.array("words", this.words);
  }

  static deserialize(r: SerialReader): IntVector {
    const length = r.integer("length");
    const width = r.integer("width");
    const words = r.uint32("words");
    if (width > 32 || words.length !== IntVector.wordsFor(length, width)) {
      r.corrupt(`an int vector of ${length} values of ${width} bits cannot have ${words.length} words`);
    }
    return new IntVector(length, width, words);
  }
}

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
 * O(n). Space: n * width / 8 bytes, plus 4.
 * Serial form: `length`, `width`, `words`.
 */

import type { SerialReader, SerialWriter } from "../serial.js";

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
    this.words = words ?? new Uint32Array(size);
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

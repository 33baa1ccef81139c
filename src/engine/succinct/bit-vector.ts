/**
 * Static bit vector with constant-time rank
 * =========================================
 * Owns one immutable sequence of bits and the counting of its 1s: rank1(i), rank0(i), get(i).
 * The wavelet matrix is built on it; so may anything else that needs "how many before i".
 *
 * Layout: one Int32Array of interleaved 512-bit blocks, 18 words each (the rank9 idea of Vigna,
 * "Broadword Implementation of Rank/Select Queries", WEA 2008, cut down to 32-bit words):
 *
 *   word 0      ones in all earlier blocks (cumulative count)
 *   word 1      ones in the first 4, 8 and 12 words of this block, 9 bits each at bits 0, 9, 18
 *   words 2..17 the 512 bits, bit i of the vector at bit (i & 31) of word (i >>> 5) & 15
 *
 * So rank1 is one cumulative count, one sub-count, at most three full-word popcounts and one
 * masked popcount, all within one 72-byte block (usually two cache lines). Space: 2 header words
 * per 16 data words, 12.5% over n bits. There is always one block more than full blocks, so
 * rank1(length) needs no special case. Int32, not Uint32: V8 keeps int32 loads in registers,
 * while a Uint32 word with its top bit set would become a heap double. Hence length < 2^31.
 *
 * Building: `new BitVector(length)`, `set(i)` for each 1 (or `setWord(w, word)` for 32 at a
 * time), then `seal()` (computes the counts; set() throws afterwards). Or
 * `BitVector.fromBits(bits)` from any array of 0/1. Queries before seal() are wrong, not checked
 * (no branch in the hot path).
 *
 * Serial form (engine/serial.ts): `length` and `blocks` (the one Int32Array above,
 * BitVector.blocksLength(length) words) are the whole state. `deserialize` checks the shape, and
 * with `verify` recounts every block (`firstWrongCount`, one popcount pass) so that no stored count
 * lies; `fromArrays(blocks, length)` restores without any check, for callers that just built them.
 *
 * Cost: build O(n / 32) after the set() calls; rank1/rank0/get O(1); no allocation after build.
 */

import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";

/** Bits per block; a power of two, `i >>> BLOCK_SHIFT` is the block of bit i. */
export const BLOCK_SHIFT = 9;
const WORDS_PER_BLOCK = 16;
/** Cumulative count + packed sub-counts. */
const HEADER_WORDS = 2;
/** Int32s per block: `blocks[b * BLOCK_STRIDE]` is block b's first (its count before it). */
export const BLOCK_STRIDE = HEADER_WORDS + WORDS_PER_BLOCK;
/** Width of each packed sub-count (they go up to 384). */
const SUB_COUNT_BITS = 9;
const SUB_COUNT_MASK = (1 << SUB_COUNT_BITS) - 1;
/** Longest vector: counts and positions stay int32. */
export const MAX_BIT_VECTOR_LENGTH = 0x7fffffff;

export class BitVector {
  /** Number of bits. */
  readonly length: number;
  /** The interleaved blocks (see the banner); the whole state with `length`. */
  readonly blocks: Int32Array;
  private _ones: number;
  private sealed: boolean;

  /**
   * An all-zero, unsealed vector of `length` bits. `blocks` lets a caller place it in storage of
   * its own (zeroed, exactly BitVector.blocksLength(length) words), as the wavelet matrix does
   * with one array for all its levels.
   */
  constructor(length: number, blocks?: Int32Array) {
    if (!Number.isInteger(length) || length < 0 || length > MAX_BIT_VECTOR_LENGTH) {
      throw new RangeError(`bit vector length must be an integer in [0, 2^31), got ${length}`);
    }
    const size = BitVector.blocksLength(length);
    if (blocks !== undefined && blocks.length !== size) {
      throw new RangeError(`bit vector of ${length} bits needs ${size} block words, got ${blocks.length}`);
    }
    this.length = length;
    this.blocks = blocks ?? new Int32Array(size);
    this._ones = 0;
    this.sealed = false;
  }

  /** Words of `blocks` for a vector of `length` bits (one block beyond the full ones). */
  static blocksLength(length: number): number {
    return (Math.floor(length / 2 ** BLOCK_SHIFT) + 1) * BLOCK_STRIDE;
  }

  /** A sealed vector whose bit i is 1 when bits[i] is non-zero. */
  static fromBits(bits: ArrayLike<number>): BitVector {
    const bv = new BitVector(bits.length);
    for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) bv.set(i);
    return bv.seal();
  }

  /** Restores a sealed vector from a snapshot of `blocks` and `length`, without rebuilding. */
  static fromArrays(blocks: Int32Array, length: number): BitVector {
    const bv = new BitVector(length, blocks);
    bv.sealed = true;
    bv._ones = bv.rank1(length);
    return bv;
  }

  /** Writes the serial form: `length` and `blocks`. Only a sealed vector has one. */
  serialize(w: SerialWriter): void {
    if (!this.sealed) throw new Error("BitVector.serialize before seal()");
    w.integer("length", this.length);
    w.array("blocks", this.blocks);
  }

  /** Restores a sealed vector from its serial form; with `r.verify`, recounts every block. */
  static deserialize(r: SerialReader): BitVector {
    const length = r.integer("length");
    if (length > MAX_BIT_VECTOR_LENGTH) r.corrupt(`length ${length} is not below 2^31`);
    const blocks = r.int32("blocks");
    checkLength(r, "blocks", blocks, BitVector.blocksLength(length), `a vector of ${length} bits`);
    if (r.verify) {
      const w = BitVector.firstWrongCount(blocks);
      if (w >= 0) r.corrupt(`blocks hold a wrong rank count at word ${w}`);
    }
    return BitVector.fromArrays(blocks, length);
  }

  /**
   * The first header word of `blocks` (a vector's blocks, BitVector.blocksLength(n) words) whose
   * count differs from what its bits give, or -1 when every count is right: seal()'s computation,
   * compared instead of stored. One popcount pass, no allocation.
   */
  static firstWrongCount(blocks: Int32Array): number {
    let cumulative = 0;
    for (let base = 0; base < blocks.length; base += BLOCK_STRIDE) {
      if (blocks[base] !== cumulative) return base;
      let inBlock = 0;
      let packed = 0;
      for (let w = 0; w < WORDS_PER_BLOCK; w++) {
        if (w !== 0 && (w & 3) === 0) packed |= inBlock << (SUB_COUNT_BITS * ((w >>> 2) - 1));
        inBlock += popcount32(blocks[base + HEADER_WORDS + w]!);
      }
      if (blocks[base + 1] !== packed) return base + 1;
      cumulative += inBlock;
    }
    return -1;
  }

  /** Sets bit i to 1. Only before seal(). */
  set(i: number): void {
    if (this.sealed) throw new Error("BitVector.set after seal()");
    if (!(i >= 0 && i < this.length)) throw new RangeError(`bit ${i} out of [0, ${this.length})`);
    this.blocks[(i >>> BLOCK_SHIFT) * BLOCK_STRIDE + HEADER_WORDS + ((i >>> 5) & 15)]! |= 1 << (i & 31);
  }

  /**
   * Sets bits 32w .. 32w+31 at once to the bits of `word` (bit k of word = bit 32w + k), for
   * builders that produce whole words. Only before seal(); bits at or past `length` must be 0.
   */
  setWord(w: number, word: number): void {
    if (this.sealed) throw new Error("BitVector.setWord after seal()");
    if (!(w >= 0 && w * 32 < this.length)) throw new RangeError(`word ${w} out of [0, ${Math.ceil(this.length / 32)})`);
    this.blocks[(w >>> 4) * BLOCK_STRIDE + HEADER_WORDS + (w & 15)] = word;
  }

  /** Computes the counts; the vector is immutable from here on. Returns this. */
  seal(): this {
    if (this.sealed) return this;
    const blocks = this.blocks;
    let cumulative = 0;
    for (let base = 0; base < blocks.length; base += BLOCK_STRIDE) {
      blocks[base] = cumulative;
      let inBlock = 0;
      let packed = 0;
      for (let w = 0; w < WORDS_PER_BLOCK; w++) {
        // Sub-counts after words 3, 7 and 11: ones in the first 4, 8, 12 words.
        if (w !== 0 && (w & 3) === 0) packed |= inBlock << (SUB_COUNT_BITS * ((w >>> 2) - 1));
        inBlock += popcount32(blocks[base + HEADER_WORDS + w]!);
      }
      blocks[base + 1] = packed;
      cumulative += inBlock;
    }
    this._ones = cumulative;
    this.sealed = true;
    return this;
  }

  /** Number of 1 bits. */
  get ones(): number {
    return this._ones;
  }

  /** Bytes of the backing array. */
  get byteLength(): number {
    return this.blocks.byteLength;
  }

  /** Bit i (0 or 1), for 0 <= i < length. */
  get(i: number): number {
    return bitAt(this.blocks, 0, i);
  }

  /** Number of 1s in [0, i), for 0 <= i <= length (not checked). */
  rank1(i: number): number {
    return rank1At(this.blocks, 0, i);
  }

  /** Number of 0s in [0, i), for 0 <= i <= length (not checked). */
  rank0(i: number): number {
    return i - rank1At(this.blocks, 0, i);
  }
}

/**
 * rank1 of the bit vector whose blocks start at `blocks[offset]`: the kernel behind
 * BitVector.rank1, exported for structures that keep many vectors in one array (the wavelet
 * matrix), so they need no object per vector in their hot loops.
 */
export function rank1At(blocks: Int32Array, offset: number, i: number): number {
  const base = offset + (i >>> BLOCK_SHIFT) * BLOCK_STRIDE;
  // Which 128-bit quarter of the block i falls in; quarter 0 has no stored sub-count, so its
  // mask is 0 (-((q + 3) >> 2) is 0 for q = 0, all ones for q = 1..3): no branch.
  const q = (i >>> 7) & 3;
  let r =
    blocks[base]! +
    ((blocks[base + 1]! >>> (SUB_COUNT_BITS * q - SUB_COUNT_BITS)) & (-((q + 3) >> 2) & SUB_COUNT_MASK));
  const words = base + HEADER_WORDS;
  const last = words + ((i >>> 5) & 15);
  for (let w = words + (q << 2); w < last; w++) r += popcount32(blocks[w]!);
  // ~(-1 << k) keeps the low k bits; k = 0 keeps none.
  return r + popcount32(blocks[last]! & ~(-1 << (i & 31)));
}

/**
 * Reads, for each of the `n` nodes [starts[i], ends[i]), the words rank1At will read first at both
 * ends in the bit vector whose blocks start at `blocks[offset]` (the block's counts and the word holding the position), and returns
 * them combined. A loop of independent loads and nothing else: the cache misses of the whole
 * frontier are in flight together (as many as the core tracks), where the rank loop, with its
 * popcounts between the loads, would keep only a node or two in flight. The rank loop then finds
 * the lines in the cache: software prefetching for a language without a prefetch instruction.
 */
export function touchRanks(
  blocks: Int32Array,
  offset: number,
  starts: Int32Array,
  ends: Int32Array,
  n: number,
): number {
  let sink = 0;
  for (let i = 0; i < n; i++) {
    const s = starts[i]!;
    const e = ends[i]!;
    const bs = offset + (s >>> BLOCK_SHIFT) * BLOCK_STRIDE;
    const be = offset + (e >>> BLOCK_SHIFT) * BLOCK_STRIDE;
    sink ^=
      blocks[bs]! ^
      blocks[bs + HEADER_WORDS + ((s >>> 5) & 15)]! ^
      blocks[be]! ^
      blocks[be + HEADER_WORDS + ((e >>> 5) & 15)]!;
  }
  return sink;
}

/** Bit i of the bit vector whose blocks start at `blocks[offset]`. */
export function bitAt(blocks: Int32Array, offset: number, i: number): number {
  return (blocks[offset + (i >>> BLOCK_SHIFT) * BLOCK_STRIDE + HEADER_WORDS + ((i >>> 5) & 15)]! >>> (i & 31)) & 1;
}

/**
 * Position of the zero number `j` (0-based) of the bit vector `blocks`, searched from block
 * `fromBlock` on (a block at or before the one holding it: a caller's sample). Reads the
 * cumulative counts of the blocks forward, then the sub-counts and words of the one block. Bits
 * past the vector's length are zeros too: j must be below the vector's count of zeros.
 */
export function select0At(blocks: Int32Array, fromBlock: number, j: number): number {
  const blockCount = blocks.length / BLOCK_STRIDE;
  let b = fromBlock;
  // Zeros before block b + 1 at most j: the zero lies further on.
  while (b + 1 < blockCount && (b + 1) * (1 << BLOCK_SHIFT) - blocks[(b + 1) * BLOCK_STRIDE]! <= j) b++;
  const base = b * BLOCK_STRIDE;
  let rest = j - (b * (1 << BLOCK_SHIFT) - blocks[base]!);
  // The last quarter whose earlier bits hold at most `rest` zeros (quarter q starts after q * 128 bits).
  const packed = blocks[base + 1]!;
  let q = 3;
  while (q > 0 && q * 128 - ((packed >>> (SUB_COUNT_BITS * (q - 1))) & SUB_COUNT_MASK) > rest) q--;
  if (q > 0) rest -= q * 128 - ((packed >>> (SUB_COUNT_BITS * (q - 1))) & SUB_COUNT_MASK);
  for (let w = q << 2; ; w++) {
    let zeros = ~blocks[base + HEADER_WORDS + w]!;
    const z = popcount32(zeros);
    if (rest < z) {
      for (; rest > 0; rest--) zeros &= zeros - 1;
      return b * (1 << BLOCK_SHIFT) + w * 32 + (31 - Math.clz32(zeros & -zeros));
    }
    rest -= z;
  }
}

/** Ones in a 32-bit word (SWAR bit trick; Hacker's Delight 5-2). */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

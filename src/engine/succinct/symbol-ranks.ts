/**
 * Symbol ranks of a small alphabet, one block holding all it needs
 * ================================================================
 * Owns a static sequence of n symbols, each < 2^bits for a small `bits` (at most MAX_SYMBOL_BITS),
 * and one question: rank(c, i), how often symbol c occurs in positions [0, i). The FM-index asks it
 * (two at a time) at every step of a backward search, for the class of a code unit.
 *
 * Why not a wavelet matrix: there rank walks `bits` levels, each level's position found from the
 * level above, so a step is a chain of `bits` dependent cache misses once the levels outgrow the
 * cache (at 10M entities the FM-index's class sequence is 165M symbols, 116 MB as a matrix of five
 * levels). Here the position alone names everything a rank reads, so its few misses are independent
 * and overlap: about one memory latency a rank instead of `bits`.
 *
 * Layout: the occurrence counts of every symbol sampled at block starts (the "Occ" table of
 * Ferragina and Manzini's FM-index, blocked like bwa's BWT occurrence array) beside the block's
 * symbols as bit-planes (the planes of a one-level wavelet tree, as in the bit-sliced rank of
 * Gog and Petri's "Optimized succinct data structures for massive data", and sdsl's and sucds'
 * interleaved rank blocks, which keep the counts and the bits of a block in one run of memory).
 * Blocks of BLOCK positions, `stride` Int32s each, in one Int32Array:
 *
 *   words 0 .. countWords-1   each symbol's 16-bit count of the positions before the block since its
 *                             superblock's start (symbol c at bits 16 * (c & 1) of word c >>> 1)
 *   then BLOCK / 32 groups    group w: `bits` words, word k = bit k of the symbols at positions
 *                             32w .. 32w+31 of the block (bit t of the word for position 32w + t)
 *
 * and `supers`: every symbol's count before each superblock of SUPER positions (2^16, so a block's
 * counts fit 16 bits), sigma Int32s per superblock: a small array (at 165M symbols, 2,520
 * superblocks x 32 symbols x 4 bytes = 322 KB) that stays in the cache. rank(c, i) = supers +
 * the block's count + the ones of (AND over k of plane k, complemented where c's bit k is 0) in
 * the block's words before i: at most BLOCK / 32 groups of `bits` words, popcounts in registers.
 * For bits = 5 a block is 16 + 40 words (224 bytes, 3.5 cache lines, read front to back): 7 bits a
 * symbol, against 5.6 for the five levels of a wavelet matrix.
 *
 * Building: `build(values, bits)` in one pass. `fromWavelet(matrix)` makes the same from a wavelet
 * matrix (a snapshot that stored one), decoding it in position order: each level's positions are
 * visited in order within each node, so a cursor per node reads every level sequentially (n x bits
 * bit reads, no rank).
 *
 * Serial form (engine/serial.ts): `length`, `bits`, `blocks`, `supers` are the whole state.
 * `deserialize` checks the shape and that every superblock's counts add up to its start; with
 * `verify`, that every block's counts follow from the previous block's (firstWrongBlock).
 *
 * Cost: build O(n) (fromWavelet O(n * bits)); rank O(bits * BLOCK / 32) word operations on about
 * four adjacent cache lines; no allocation after build. Space: (bits + 2^bits / 16) bits a symbol
 * for BLOCK = 256, plus sigma words per 2^16 symbols.
 */

import { finalArray } from "../array-slab.js";
import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";
import { BitVector, bitAt, MAX_BIT_VECTOR_LENGTH, popcount32, rank1At } from "./bit-vector.js";
import type { WaveletMatrix } from "./wavelet-matrix.js";

/** Widest symbol: 2^6 = 64 counts a block (128 bytes) are as many as a block should carry. */
export const MAX_SYMBOL_BITS = 6;

/** Whether symbols of `bits` bits are what SymbolRanks holds: an integer in [1, MAX_SYMBOL_BITS]. */
export function symbolBitsFit(bits: number): boolean {
  return Number.isInteger(bits) && bits >= 1 && bits <= MAX_SYMBOL_BITS;
}
/** Positions a block; `i >>> BLOCK_SHIFT` is the block of position i. */
const BLOCK_SHIFT = 8;
const BLOCK = 1 << BLOCK_SHIFT;
/** Positions a superblock: 2^16, so the count before a block since its superblock fits 16 bits. */
const SUPER_SHIFT = 16;
/** 32-bit words of one plane in a block. */
const GROUPS = BLOCK / 32;
/** Longest sequence: its bit-planes' (positions and counts then stay int32). */
const MAX_LENGTH = MAX_BIT_VECTOR_LENGTH;

export class SymbolRanks {
  /** Number of symbols. */
  readonly length: number;
  /** Bits per symbol; symbols lie in [0, 2^bits). */
  readonly bits: number;
  /** The blocks (see the banner). */
  readonly blocks: Int32Array;
  /** Each symbol's count before each superblock, 2^bits Int32s per superblock. */
  readonly supers: Int32Array;
  /** Int32s of count header a block. */
  private readonly countWords: number;
  /** Int32s a block. */
  private readonly stride: number;

  private constructor(length: number, bits: number, blocks: Int32Array, supers: Int32Array) {
    checkShape(length, bits);
    this.length = length;
    this.bits = bits;
    this.countWords = countWordsOf(bits);
    this.stride = strideOf(bits);
    if (blocks.length !== SymbolRanks.blocksLength(length, bits))
      throw new RangeError(
        `symbol ranks of ${length} x ${bits} bits need ${SymbolRanks.blocksLength(length, bits)} block words, got ${blocks.length}`,
      );
    if (supers.length !== SymbolRanks.supersLength(length, bits))
      throw new RangeError(
        `symbol ranks of ${length} x ${bits} bits need ${SymbolRanks.supersLength(length, bits)} superblock counts, got ${supers.length}`,
      );
    this.blocks = blocks;
    this.supers = supers;
  }

  /** Words of `blocks` for n symbols of `bits` (one block beyond the full ones: rank(n) reads it). */
  static blocksLength(length: number, bits: number): number {
    return ((length >>> BLOCK_SHIFT) + 1) * strideOf(bits);
  }

  /** Int32s of `supers` for n symbols of `bits`. */
  static supersLength(length: number, bits: number): number {
    return ((length >>> SUPER_SHIFT) + 1) << bits;
  }

  /** The ranks of `values`, each < 2^bits (RangeError otherwise), 1 <= bits <= MAX_SYMBOL_BITS. */
  static build(values: ArrayLike<number>, bits: number): SymbolRanks {
    const n = values.length;
    checkShape(n, bits);
    const sigma = 1 << bits;
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      if (!(v >= 0 && v < sigma)) throw new RangeError(`values[${i}] = ${v} does not fit in ${bits} bits`);
    }
    const fill = new BlockFiller(n, bits);
    for (let i = 0; i < n; i++) fill.push(values[i]!);
    return fill.finish();
  }

  /**
   * The ranks of the sequence a wavelet matrix of at most MAX_SYMBOL_BITS levels holds, decoded in
   * position order (see the banner): node p of level d (its values' top d bits are p) keeps a
   * cursor, its next position at that level, starting at the node's start.
   */
  static fromWavelet(matrix: WaveletMatrix): SymbolRanks {
    const { length: n, bits, levelBlocks, zeros } = matrix;
    checkShape(n, bits);
    const stride = BitVector.blocksLength(n);
    // cursor[2^d + p]: node p of level d. Level d + 1's children of node p start at
    // start - rank1(start) (its 0s, stably first) and zeros[d] + rank1(start) (its 1s).
    const cursor = new Int32Array(2 << bits);
    cursor[1] = 0;
    for (let d = 0; d + 1 < bits; d++) {
      for (let p = 0; p < 1 << d; p++) {
        const start = cursor[(1 << d) + p]!;
        const ones = rank1At(levelBlocks, d * stride, start);
        cursor[(2 << d) + 2 * p] = start - ones;
        cursor[(2 << d) + 2 * p + 1] = zeros[d]! + ones;
      }
    }
    const fill = new BlockFiller(n, bits);
    for (let i = 0; i < n; i++) {
      let p = 0;
      let pos = i;
      for (let d = 0, off = 0; ; off += stride) {
        p = (p << 1) | bitAt(levelBlocks, off, pos);
        d++;
        // The bottom: p is the value. Else the next level's position is the child's cursor.
        if (d === bits) break;
        pos = cursor[(1 << d) + p]!++;
      }
      fill.push(p);
    }
    return fill.finish();
  }

  /** Restores the ranks from their arrays (just built or read), without checks. */
  static fromArrays(length: number, bits: number, blocks: Int32Array, supers: Int32Array): SymbolRanks {
    return new SymbolRanks(length, bits, blocks, supers);
  }

  /** Writes the serial form: `length`, `bits`, `blocks`, `supers`. */
  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("bits", this.bits);
    w.array("blocks", this.blocks);
    w.array("supers", this.supers);
  }

  /** Restores the ranks from their serial form, checking them (see the banner). */
  static deserialize(r: SerialReader): SymbolRanks {
    const length = r.integer("length");
    const bits = r.integer("bits");
    if (!symbolBitsFit(bits)) r.corrupt(`${bits} bits per symbol, not in [1, ${MAX_SYMBOL_BITS}]`);
    if (length > MAX_LENGTH) r.corrupt(`length ${length} is not below 2^31`);
    const blocks = r.int32("blocks");
    const supers = r.int32("supers");
    checkLength(r, "blocks", blocks, SymbolRanks.blocksLength(length, bits), `blocks of ${length} symbols`);
    checkLength(r, "supers", supers, SymbolRanks.supersLength(length, bits), `superblocks of ${length} symbols`);
    const sigma = 1 << bits;
    for (let s = 0, at = 0; at < supers.length; s++, at += sigma) {
      let sum = 0;
      for (let c = 0; c < sigma; c++) sum += supers[at + c]!;
      if (sum !== Math.min(s * (1 << SUPER_SHIFT), length)) r.corrupt(`superblock ${s} counts ${sum} symbols`);
    }
    const ranks = new SymbolRanks(length, bits, blocks, supers);
    if (r.verify) {
      const b = ranks.firstWrongBlock();
      if (b >= 0) r.corrupt(`block ${b} holds a wrong count`);
    }
    return ranks;
  }

  /**
   * The first block whose counts disagree, or -1: a superblock's first block counts nothing; each
   * other block's counts exceed the previous block's by a block's worth of symbols in all (each by
   * 0 to BLOCK); and the last block of each superblock, with its planes, gives the next superblock's
   * counts. O(blocks x sigma) and a superblock's last block's planes: a few tens of milliseconds at
   * 165M symbols, where recounting every block's planes would take a second (the file's checksum
   * covers those bytes; these checks keep every count a rank adds consistent with its neighbours).
   */
  private firstWrongBlock(): number {
    const sigma = 1 << this.bits;
    const blocks = this.blocks;
    const stride = this.stride;
    const perSuper = 1 << (SUPER_SHIFT - BLOCK_SHIFT);
    const count = (base: number, c: number) => (blocks[base + (c >>> 1)]! >>> ((c & 1) << 4)) & 0xffff;
    const blockCount = blocks.length / stride;
    for (let b = 0; b < blockCount; b++) {
      const base = b * stride;
      // Each branch: a superblock's first block (zero counts; the previous superblock's totals
      // checked from its last block), or any other (its counts from the previous block's).
      if (b % perSuper === 0) {
        const at = (b / perSuper) << this.bits;
        for (let c = 0; c < sigma; c++) {
          if (count(base, c) !== 0) return b;
          if (
            b > 0 &&
            this.supers[at + c]! - this.supers[at - sigma + c]! !==
              count(base - stride, c) + this.inBlock(base - stride, c, BLOCK)
          )
            return b - 1;
        }
      } else {
        let sum = 0;
        for (let c = 0; c < sigma; c++) {
          const d = count(base, c) - count(base - stride, c);
          if (d < 0 || d > BLOCK) return b;
          sum += d;
        }
        if (sum !== BLOCK) return b;
      }
    }
    return -1;
  }

  /** Bytes held in typed arrays (for memory reports). */
  get byteLength(): number {
    return this.blocks.byteLength + this.supers.byteLength;
  }

  /** Occurrences of symbol c (0 <= c < 2^bits, not checked) in [0, i), 0 <= i <= length. */
  rank(c: number, i: number): number {
    const base = (i >>> BLOCK_SHIFT) * this.stride;
    return (
      this.supers[((i >>> SUPER_SHIFT) << this.bits) + c]! +
      ((this.blocks[base + (c >>> 1)]! >>> ((c & 1) << 4)) & 0xffff) +
      this.inBlock(base, c, i & (BLOCK - 1))
    );
  }

  /** rank(c, i) and rank(c, j) into out[0], out[1]; the two reads are independent. */
  rankPair(c: number, i: number, j: number, out: Int32Array): void {
    out[0] = this.rank(c, i);
    out[1] = this.rank(c, j);
  }

  /** Occurrences of c among the first `k` positions (0 <= k <= BLOCK) of the block at `base`. */
  private inBlock(base: number, c: number, k: number): number {
    const blocks = this.blocks;
    const bits = this.bits;
    let r = 0;
    let w = base + this.countWords;
    const full = w + (k >>> 5) * bits;
    // Whole 32-position groups, then the part of one (k & 31 positions), when there is one. In
    // each, keep the positions whose bit p equals c's: the plane itself where c's bit is 1, else
    // its complement (((c >>> p) & 1) - 1 is 0 or all ones).
    for (; w < full; w += bits) {
      let m = -1;
      for (let p = 0; p < bits; p++) m &= blocks[w + p]! ^ (((c >>> p) & 1) - 1);
      r += popcount32(m);
    }
    if ((k & 31) !== 0) {
      let m = ~(-1 << (k & 31));
      for (let p = 0; p < bits; p++) m &= blocks[w + p]! ^ (((c >>> p) & 1) - 1);
      r += popcount32(m);
    }
    return r;
  }
}

/** Writes symbols one at a time, in order, into a SymbolRanks' arrays. */
class BlockFiller {
  private readonly n: number;
  private readonly bits: number;
  private readonly blocks: Int32Array;
  private readonly supers: Int32Array;
  private readonly stride: number;
  private readonly countWords: number;
  /** Each symbol's count since the current superblock's start, and since the sequence's. */
  private readonly sinceSuper: Int32Array;
  private readonly total: Int32Array;
  private i = 0;

  constructor(n: number, bits: number) {
    this.n = n;
    this.bits = bits;
    this.blocks = finalArray(Int32Array, SymbolRanks.blocksLength(n, bits));
    this.supers = finalArray(Int32Array, SymbolRanks.supersLength(n, bits));
    this.stride = strideOf(bits);
    this.countWords = countWordsOf(bits);
    this.sinceSuper = new Int32Array(1 << bits);
    this.total = new Int32Array(1 << bits);
  }

  push(v: number): void {
    const i = this.i++;
    // A block's start: its counts (and a superblock's, at one) before its first symbol.
    if ((i & (BLOCK - 1)) === 0) this.startBlock(i);
    const w = (i >>> BLOCK_SHIFT) * this.stride + this.countWords + ((i >>> 5) & (GROUPS - 1)) * this.bits;
    const bit = 1 << (i & 31);
    for (let p = 0; p < this.bits; p++) if ((v >>> p) & 1) this.blocks[w + p]! |= bit;
    this.sinceSuper[v]!++;
    this.total[v]!++;
  }

  private startBlock(i: number): void {
    const sigma = 1 << this.bits;
    if ((i & ((1 << SUPER_SHIFT) - 1)) === 0) {
      this.supers.set(this.total, (i >>> SUPER_SHIFT) << this.bits);
      this.sinceSuper.fill(0);
    }
    const base = (i >>> BLOCK_SHIFT) * this.stride;
    for (let c = 0; c < sigma; c++) this.blocks[base + (c >>> 1)]! |= this.sinceSuper[c]! << ((c & 1) << 4);
  }

  finish(): SymbolRanks {
    if (this.i !== this.n) throw new Error(`symbol ranks: ${this.i} symbols pushed of ${this.n}`);
    // Position n's block, which rank(n) reads: started by a symbol unless n is a block start.
    if ((this.n & (BLOCK - 1)) === 0) this.startBlock(this.n);
    return SymbolRanks.fromArrays(this.n, this.bits, this.blocks, this.supers);
  }
}

function countWordsOf(bits: number): number {
  return Math.max(1, (1 << bits) >>> 1);
}

function strideOf(bits: number): number {
  return countWordsOf(bits) + GROUPS * bits;
}

function checkShape(length: number, bits: number): void {
  if (!symbolBitsFit(bits)) throw new RangeError(`bits must be an integer in [1, ${MAX_SYMBOL_BITS}], got ${bits}`);
  if (!Number.isInteger(length) || length < 0 || length > MAX_LENGTH)
    throw new RangeError(`length must be an integer in [0, 2^31), got ${length}`);
}

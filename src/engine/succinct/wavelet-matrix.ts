/**
 * Wavelet matrix
 * ==============
 * Owns a static sequence of n integers, each < 2^bits, and the questions asked of it: the value at
 * a position (access), how often a value occurs before a position (rank), and the ones the search
 * index lives on: the smallest value in [lo, hi) that occurs in positions [l, r) (rangeSuccessor),
 * and the k smallest such distinct values in one walk (rangeDistinct): a page of the distinct
 * documents of a suffix-array interval, in increasing order.
 *
 * Structure (Claude, Navarro, Ordóñez, "The wavelet matrix", Information Systems 47, 2015): one bit
 * vector per bit, most significant first. Level d holds bit (bits-1-d) of every value, in the order
 * left by stably moving the 0s before the 1s at every level above; zeros[d] counts its 0s. A
 * position p at level d goes to rank0(p) at level d+1 when its bit is 0 and to zeros[d] + rank1(p)
 * when it is 1, so a range of positions stays a range, one per tree node.
 *
 * rangeSuccessor (Gagie, Navarro, Puglisi, "New algorithms on wavelet trees and applications to
 * information retrieval", TCS 426-427, 2012, range next value): descend along lo's bits. Where
 * lo's bit is 0, the 1-child holds only values greater than lo; remember the deepest non-empty one.
 * If the descent reaches the bottom with a non-empty range, lo itself occurs. Otherwise the answer
 * is the minimum under the remembered node (greedy: 0-child whenever non-empty), so one backtrack
 * in all, and no stack: four numbers remember the node. Reentrant and allocation-free.
 *
 * rangeDistinct (document listing by depth-first traversal: Välimäki and Mäkinen, "Space-efficient
 * algorithms for document retrieval", CPM 2007; also in the paper above): one walk, smaller child
 * first, pruned below lo and at hi, stopping after `limit` leaves. It answers a page of k
 * successors with the top levels walked once, not k times. Its stack lives in the instance
 * (preallocated, bits + 2 frames), so it is allocation-free but not reentrant.
 *
 * Cost: build O(n * bits) time, 2n words of temporaries. access/rank: bits rank1 calls each.
 * rangeSuccessor: at most 2 * bits levels, two rank1 calls each. rangeDistinct for k values:
 * O(k * bits) worst case, about bits + 2k node visits when the values are close together.
 * Space: bits * n * 1.125 bits. Every level is one bit vector of n bits, so a query touches about
 * two cache lines per level: at 5M values x 20 bits (14 MB) it is memory-latency bound.
 *
 * Serial form (engine/serial.ts): `length`, `bits`, `levels` (every level's BitVector blocks, level
 * 0 first, each BitVector.blocksLength(length) words) and `zeros` (bits Int32s) are the whole state.
 * `deserialize` checks the shape and that each zero count is the level's own (so every position a
 * query moves to stays in [0, length]); with `verify` it recounts every level's blocks first, since
 * the queries trust those counts. `fromArrays` restores without checks, for arrays just built.
 */

import { BitVector, bitAt, MAX_BIT_VECTOR_LENGTH, rank1At } from "./bit-vector.js";
import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";
import { finalArray } from "../array-slab.js";

/** Widest value: 31 bits keeps every value and prefix a non-negative int32 (a V8 small integer). */
export const MAX_WAVELET_BITS = 31;
/** Int32s per node on rangeDistinct's stack: level, start, end, prefix. */
const STACK_FRAME = 4;

export class WaveletMatrix {
  /** Number of values. */
  readonly length: number;
  /** Bits per value; values lie in [0, 2^bits). */
  readonly bits: number;
  /** All levels' bit-vector blocks, level 0 (most significant bit) first; see the banner. */
  readonly levelBlocks: Int32Array;
  /** zeros[d] = number of 0 bits at level d. */
  readonly zeros: Int32Array;
  /** Words per level in levelBlocks. */
  private readonly levelStride: number;
  /** 2^bits: one past the largest storable value. */
  private readonly limit: number;
  /**
   * rangeDistinct's depth-first stack, 4 Int32s per node (level, start, end, prefix), at most
   * bits + 1 nodes deep. Owned by the instance so the call allocates nothing; this makes
   * rangeDistinct non-reentrant, which single-threaded JS cannot violate (it calls nothing back).
   */
  private readonly stack: Int32Array;

  private constructor(length: number, bits: number, levelBlocks: Int32Array, zeros: Int32Array) {
    checkShape(length, bits);
    const stride = BitVector.blocksLength(length);
    if (levelBlocks.length !== bits * stride) {
      throw new RangeError(
        `wavelet matrix of ${length} x ${bits} bits needs ${bits * stride} block words, got ${levelBlocks.length}`,
      );
    }
    if (zeros.length !== bits)
      throw new RangeError(`wavelet matrix of ${bits} bits needs ${bits} zero counts, got ${zeros.length}`);
    this.length = length;
    this.bits = bits;
    this.levelBlocks = levelBlocks;
    this.zeros = zeros;
    this.levelStride = stride;
    this.limit = 2 ** bits;
    this.stack = new Int32Array(STACK_FRAME * (bits + 2));
  }

  /**
   * Builds the matrix of `values`, each an integer < 2^bits (RangeError otherwise), 0 <= bits <= 31.
   * `consume`: the caller is done with `values`, and the build reorders them in place (one array of
   * n words fewer at its peak) rather than in a copy.
   */
  static build(values: Uint32Array, bits: number, consume = false): WaveletMatrix {
    // Each branch: the caller's array as the first level's order (it gives it up), or a copy.
    return WaveletMatrix.buildLevels(consume ? values : values.slice(), bits, 0, false).matrix;
  }

  /**
   * The matrix of every value's bits [below, below + bits) (each `values[i] >>> below` < 2^bits,
   * RangeError otherwise), made on the whole values: `order` is then the values in the order below
   * the last level (stably partitioned by every level's bit, the last one too), their low `below`
   * bits with them. The caller gives `values` up: it is reordered in place and may come back as
   * `order`. What a structure that keeps its low bits plain under a matrix of its high ones
   * (document-array.ts) builds in one set of partitions, where the matrix's own build and a second
   * partition of the values would make two.
   */
  static buildAbove(values: Uint32Array, bits: number, below: number): { matrix: WaveletMatrix; order: Uint32Array } {
    return WaveletMatrix.buildLevels(values, bits, below, true);
  }

  /**
   * The levels of `cur`'s bits [below, below + bits), `cur` reordered level by level (in place or
   * in a second array); the last level's partition only when `orderLast` (else its order is never
   * read). Cost: O(n * bits) time, one array of n words besides `cur`.
   */
  private static buildLevels(
    values: Uint32Array,
    bits: number,
    below: number,
    orderLast: boolean,
  ): { matrix: WaveletMatrix; order: Uint32Array } {
    const n = values.length;
    checkShape(n, bits);
    const limit = 2 ** bits;
    for (let i = 0; i < n; i++) {
      if (values[i]! >>> below >= limit) {
        throw new RangeError(`values[${i}] = ${values[i]! >>> below} does not fit in ${bits} bits`);
      }
    }
    const stride = BitVector.blocksLength(n);
    const levelBlocks = finalArray(Int32Array, bits * stride);
    const zeros = finalArray(Int32Array, bits);
    // cur: the values in level d's order; next: the same after the stable 0s-then-1s partition.
    let cur: Uint32Array = values;
    let next: Uint32Array = new Uint32Array(n);
    for (let d = 0; d < bits; d++) {
      const shift = below + bits - 1 - d;
      const level = new BitVector(n, levelBlocks.subarray(d * stride, (d + 1) * stride));
      // Whole words at a time: 32 values' bits per setWord call.
      for (let w = 0; w * 32 < n; w++) {
        const first = w * 32;
        const last = Math.min(first + 32, n);
        let word = 0;
        for (let i = first; i < last; i++) word |= ((cur[i]! >>> shift) & 1) << (i - first);
        if (word !== 0) level.setWord(w, word);
      }
      level.seal();
      const z = n - level.ones;
      zeros[d] = z;
      // Each branch: the last level's order is read only when asked for; skip its partition else.
      if (d === bits - 1 && !orderLast) break;
      // Branch-free stable partition (the bits are random, so an if would mispredict half the
      // time): the slot is oi for a 1, zi for a 0, chosen by masking.
      let zi = 0;
      let oi = z;
      for (let i = 0; i < n; i++) {
        const v = cur[i]!;
        const bit = (v >>> shift) & 1;
        next[zi + ((oi - zi) & -bit)] = v;
        oi += bit;
        zi += 1 - bit;
      }
      const t = cur;
      cur = next;
      next = t;
    }
    return { matrix: new WaveletMatrix(n, bits, levelBlocks, zeros), order: cur };
  }

  /** Restores a matrix from a snapshot of its arrays (see the banner), without rebuilding. */
  static fromArrays(length: number, bits: number, levelBlocks: Int32Array, zeros: Int32Array): WaveletMatrix {
    return new WaveletMatrix(length, bits, levelBlocks, zeros);
  }

  /** Writes the serial form: `length`, `bits`, `levels`, `zeros`. */
  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("bits", this.bits);
    w.array("levels", this.levelBlocks);
    w.array("zeros", this.zeros);
  }

  /** Restores a matrix from its serial form, checking it (see the banner). */
  static deserialize(r: SerialReader): WaveletMatrix {
    const length = r.integer("length");
    const bits = r.integer("bits");
    if (bits > MAX_WAVELET_BITS) r.corrupt(`${bits} bits per value, more than ${MAX_WAVELET_BITS}`);
    if (length > MAX_BIT_VECTOR_LENGTH) r.corrupt(`length ${length} is not below 2^31`);
    const levelBlocks = r.int32("levels");
    const zeros = r.int32("zeros");
    const stride = BitVector.blocksLength(length);
    checkLength(r, "levels", levelBlocks, bits * stride, `${bits} levels of ${length} bits`);
    checkLength(r, "zeros", zeros, bits, "one count per level");
    for (let d = 0, off = 0; d < bits; d++, off += stride) {
      if (r.verify) {
        const w = BitVector.firstWrongCount(levelBlocks.subarray(off, off + stride));
        if (w >= 0) r.corrupt(`level ${d} has a wrong rank count at word ${w}`);
      }
      if (zeros[d] !== length - rank1At(levelBlocks, off, length)) r.corrupt(`level ${d} has a wrong zero count`);
    }
    return new WaveletMatrix(length, bits, levelBlocks, zeros);
  }

  /** Bytes held in typed arrays (for memory reports). */
  get byteLength(): number {
    return this.levelBlocks.byteLength + this.zeros.byteLength + this.stack.byteLength;
  }

  /** The value at position i, for 0 <= i < length (not checked). */
  access(i: number): number {
    return this.complete(0, i, 0);
  }

  /**
   * The value of the one position `i` of level d whose leading d bits are `prefix`: follow it down,
   * one rank per level. The range queries switch to this once their range is a single position.
   */
  private complete(d: number, i: number, prefix: number): number {
    const blocks = this.levelBlocks;
    const zeros = this.zeros;
    const stride = this.levelStride;
    const bits = this.bits;
    for (let off = d * stride; d < bits; d++, off += stride) {
      const ones = rank1At(blocks, off, i);
      if (bitAt(blocks, off, i) === 1) {
        i = zeros[d]! + ones;
        prefix = (prefix << 1) | 1;
      } else {
        i -= ones;
        prefix <<= 1;
      }
    }
    return prefix;
  }

  /** Occurrences of `value` in positions [0, i), for 0 <= i <= length; 0 for a value out of range. */
  rank(value: number, i: number): number {
    // A value that cannot be stored occurs nowhere.
    if (!(value >= 0 && value < this.limit)) return 0;
    const blocks = this.levelBlocks;
    const zeros = this.zeros;
    const stride = this.levelStride;
    const bits = this.bits;
    // [start, end): the positions, at the current level, of the values that share value's prefix
    // and lie before i.
    let start = 0;
    let end = i;
    for (let d = 0, off = 0; d < bits; d++, off += stride) {
      const onesStart = rank1At(blocks, off, start);
      const onesEnd = rank1At(blocks, off, end);
      if ((value >>> (bits - 1 - d)) & 1) {
        start = zeros[d]! + onesStart;
        end = zeros[d]! + onesEnd;
      } else {
        start -= onesStart;
        end -= onesEnd;
      }
      // Nothing left with this prefix: no need to go deeper.
      if (start === end) return 0;
    }
    return end - start;
  }

  /**
   * The smallest value v with lo <= v < hi that occurs at some position in [l, r); -1 if none.
   * All four are integers; positions are clamped to [0, length] and values to [0, 2^bits).
   * Allocation-free and reentrant; O(bits).
   */
  rangeSuccessor(l: number, r: number, lo: number, hi: number): number {
    if (l < 0) l = 0;
    if (r > this.length) r = this.length;
    if (lo < 0) lo = 0;
    if (hi > this.limit) hi = this.limit;
    // Empty position range or empty value range: nothing to find.
    if (l >= r || lo >= hi) return -1;

    const blocks = this.levelBlocks;
    const zeros = this.zeros;
    const stride = this.levelStride;
    const bits = this.bits;

    // The deepest node seen whose values all exceed lo: its level, position range, value prefix.
    let fallbackLevel = -1;
    let fallbackStart = 0;
    let fallbackEnd = 0;
    let fallbackPrefix = 0;

    // One loop for both phases, so that rank1At has two call sites and V8 inlines both. Tight
    // phase: the node whose values share lo's first d bits. Greedy phase (after the backtrack):
    // the minimum under the fallback node.
    let greedy = false;
    let start = l;
    let end = r;
    let prefix = 0;
    let d = 0;
    let off = 0;
    while (d < bits) {
      let dead: boolean;
      if (end - start === 1) {
        // One position left: its value is the only candidate here; read it off at one rank per
        // level instead of two. It answers unless the tight phase finds it below lo.
        const v = this.complete(d, start, prefix);
        if (greedy || v >= lo) return v < hi ? v : -1;
        dead = true;
      } else {
        const onesStart = rank1At(blocks, off, start);
        const onesEnd = rank1At(blocks, off, end);
        let one: boolean;
        if (greedy) {
          // Take the 0-child, which holds the smaller values, whenever it is non-empty.
          one = end - start === onesEnd - onesStart;
        } else if ((lo >>> (bits - 1 - d)) & 1) {
          // lo's bit is 1: the 0-child is all below lo; follow the 1-child.
          one = true;
        } else {
          // lo's bit is 0: the 1-child is all above lo, and deeper than any fallback so far, so
          // it has the smaller values; keep it if non-empty, then follow the 0-child.
          if (onesEnd > onesStart) {
            fallbackLevel = d;
            fallbackStart = zeros[d]! + onesStart;
            fallbackEnd = zeros[d]! + onesEnd;
            fallbackPrefix = (prefix << 1) | 1;
          }
          one = false;
        }
        if (one) {
          start = zeros[d]! + onesStart;
          end = zeros[d]! + onesEnd;
          prefix = (prefix << 1) | 1;
        } else {
          start -= onesStart;
          end -= onesEnd;
          prefix <<= 1;
        }
        d++;
        off += stride;
        // Only the tight phase can empty its range (the greedy one picks non-empty children).
        dead = start === end;
      }
      if (dead) {
        // Nobody in range shares lo's prefix this far (or the last one is below lo): backtrack,
        // once, to the fallback. No fallback: every value in range is below lo.
        if (fallbackLevel < 0) return -1;
        // The fallback's smallest conceivable value is already too big: skip the descent.
        if (fallbackPrefix << (bits - 1 - fallbackLevel) >= hi) return -1;
        greedy = true;
        start = fallbackStart;
        end = fallbackEnd;
        prefix = fallbackPrefix;
        d = fallbackLevel + 1;
        off = d * stride;
      }
    }
    // The tight phase reached the bottom with a non-empty range: lo itself occurs (and lo < hi).
    if (!greedy) return lo;
    return prefix < hi ? prefix : -1;
  }

  /**
   * The smallest `limit` distinct values v with lo <= v < hi occurring in positions [l, r),
   * written in increasing order to out[0..count); returns count (< limit only when no more
   * exist). Same answers as calling rangeSuccessor repeatedly with lo = previous + 1, but one
   * depth-first walk visits each tree node once, so the top levels are not re-descended per
   * value: about (count + bits) node visits instead of count * bits. To page on, call again with
   * lo = out[count - 1] + 1. Allocation-free; not reentrant (see `stack`).
   */
  rangeDistinct(
    l: number,
    r: number,
    lo: number,
    hi: number,
    out: Int32Array | Uint32Array,
    limit: number = out.length,
  ): number {
    if (l < 0) l = 0;
    if (r > this.length) r = this.length;
    if (lo < 0) lo = 0;
    if (hi > this.limit) hi = this.limit;
    if (limit > out.length) limit = out.length;
    // Nothing to find, or no room to put it.
    if (l >= r || lo >= hi || limit <= 0) return 0;

    const blocks = this.levelBlocks;
    const zeros = this.zeros;
    const stride = this.levelStride;
    const bits = this.bits;
    const stack = this.stack;
    let count = 0;
    // Push the root; frames are (level, start, end, prefix), prefix = the level's leading bits.
    stack[0] = 0;
    stack[1] = l;
    stack[2] = r;
    stack[3] = 0;
    let top = STACK_FRAME;
    while (top > 0) {
      top -= STACK_FRAME;
      const d = stack[top]!;
      const start = stack[top + 1]!;
      const end = stack[top + 2]!;
      const prefix = stack[top + 3]!;
      // The node's smallest conceivable value is prefix << below (< 2^bits, so int32 non-negative).
      const below = bits - d;
      // Nodes pop in increasing value order: once one starts at or above hi, so does the rest.
      if (prefix << below >= hi) break;
      // Whether this node lies on lo's path; then values below lo are skipped.
      const tight = prefix === lo >>> below;
      if (d === bits || end - start === 1) {
        // A leaf, or a single position whose value is read off at one rank per level: one value
        // that occurs (ranges on the stack are never empty), unless it is below lo.
        const v = d === bits ? prefix : this.complete(d, start, prefix);
        if (tight && v < lo) continue;
        // The smallest value left is too big: so is everything after it.
        if (v >= hi) break;
        out[count++] = v;
        if (count === limit) break;
        continue;
      }
      const off = d * stride;
      const onesStart = rank1At(blocks, off, start);
      const onesEnd = rank1At(blocks, off, end);
      const loBit = (lo >>> (below - 1)) & 1;
      // Push the 1-child first so that the 0-child (smaller values) pops first. A 1-child never
      // lies wholly below lo; the 0-child does, on lo's path where lo's bit is 1: skip it.
      if (onesEnd > onesStart) {
        stack[top] = d + 1;
        stack[top + 1] = zeros[d]! + onesStart;
        stack[top + 2] = zeros[d]! + onesEnd;
        stack[top + 3] = (prefix << 1) | 1;
        top += STACK_FRAME;
      }
      if (end - start > onesEnd - onesStart && !(tight && loBit === 1)) {
        stack[top] = d + 1;
        stack[top + 1] = start - onesStart;
        stack[top + 2] = end - onesEnd;
        stack[top + 3] = prefix << 1;
        top += STACK_FRAME;
      }
    }
    return count;
  }
}

function checkShape(length: number, bits: number): void {
  if (!Number.isInteger(bits) || bits < 0 || bits > MAX_WAVELET_BITS) {
    throw new RangeError(`bits must be an integer in [0, ${MAX_WAVELET_BITS}], got ${bits}`);
  }
  if (!Number.isInteger(length) || length < 0)
    throw new RangeError(`length must be a non-negative integer, got ${length}`);
}

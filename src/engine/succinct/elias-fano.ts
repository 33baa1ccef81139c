/**
 * Elias-Fano sequence
 * ===================
 * Owns a non-decreasing sequence of n integers in [0, U] (U the universe), stored in about
 * n * (2 + log2(U / n)) bits, and the question "values i and i + 1?" in a few reads of neighbouring
 * words: Elias's and Fano's encoding (P. Elias, "Efficient storage and retrieval by content and
 * address of static files", J. ACM 21, 1974; S. Vigna, "Quasi-succinct indices", WSDM 2013).
 *
 * Each value v_i is split into its low L = max(0, floor(log2(U / n))) bits, packed in an IntVector,
 * and its high part h_i = v_i >> L, written in unary: bit h_i + i of the `high` bit vector is set
 * (n ones, at most U >> L zeros). The i-th one's position minus i is h_i. Finding the i-th one (a
 * select) starts from a sample: the value at every SAMPLE-th index, kept plainly (the one of index
 * SAMPLE * k is at bit (sampled[k] >> L) + SAMPLE * k), then scans forward over the words, counting
 * ones, to the ones of i and i + 1. Between two samples lie SAMPLE ones and as many zeros as the
 * high parts grow, so a scan reads a cache line or two, except across a large gap of values (an
 * object with a million statements): `pair` declines a scan longer than SCAN_WORDS, and the caller
 * searches instead.
 *
 * Cost: pair O(SAMPLE + span / 32) word reads inside one sample's span, or declined. Build O(n + U >> L),
 * one pass over the values in order. Space: n * L + n + (U >> L) + 32 * n / SAMPLE bits.
 * Serial form: `length`, `universe`, `low` (IntVector), `high`, `sampled`.
 */

import { popcount32 } from "./bit-vector.js";
import { IntVector } from "./int-vector.js";
import type { SerialReader, SerialWriter } from "../serial.js";

/** Values between two plain samples. */
export const SAMPLE = 16;
/** The longest scan `pair` makes, in 32-bit words (about half a microsecond); longer ones are declined. */
export const SCAN_WORDS = 256;

export class EliasFano {
  /** Values stored. */
  readonly length: number;
  /** The largest value allowed. */
  readonly universe: number;
  private readonly lowBits: number;
  private readonly low: IntVector;
  private readonly high: Uint32Array;
  /** sampled[k] = value k * SAMPLE, for each k with k * SAMPLE < length. */
  private readonly sampled: Uint32Array;

  private constructor(length: number, universe: number, low: IntVector, high: Uint32Array, sampled: Uint32Array) {
    this.length = length;
    this.universe = universe;
    this.lowBits = EliasFano.lowBitsFor(length, universe);
    this.low = low;
    this.high = high;
    this.sampled = sampled;
  }

  /** L for n values up to `universe`: floor(log2(universe / n)), at least 0. */
  static lowBitsFor(n: number, universe: number): number {
    // Each branch: no values, or a universe smaller than n (then every high part is the value itself).
    if (n === 0 || universe < n) return 0;
    return Math.floor(Math.log2(universe / n));
  }

  /** Words of the high bit vector for n values up to `universe` (one spare, as IntVector keeps). */
  private static highWords(n: number, universe: number): number {
    return Math.ceil((n + Math.floor(universe / 2 ** EliasFano.lowBitsFor(n, universe)) + 1) / 32) + 1;
  }

  /**
   * The sequence of n values up to `universe`; `valueAt(i)` is asked once for each i, in order
   * (so a caller can walk its data alongside), and must not decrease.
   */
  static build(n: number, universe: number, valueAt: (i: number) => number): EliasFano {
    const L = EliasFano.lowBitsFor(n, universe);
    const low = new IntVector(n, L);
    const high = new Uint32Array(EliasFano.highWords(n, universe));
    const sampled = new Uint32Array(Math.ceil(n / SAMPLE));
    const scale = 2 ** L;
    let previous = 0;
    for (let i = 0; i < n; i++) {
      const v = valueAt(i);
      if (v < previous || v > universe) throw new Error(`Elias-Fano value ${i} (${v}) out of order or range`);
      previous = v;
      // Each branch: L = 0 keeps no low part.
      if (L > 0) low.set(i, v % scale);
      const bit = Math.floor(v / scale) + i;
      const w = Math.floor(bit / 32);
      high[w] = high[w]! | (1 << (bit & 31));
      if (i % SAMPLE === 0) sampled[i / SAMPLE] = v;
    }
    return new EliasFano(n, universe, low, high, sampled);
  }

  /**
   * Writes values i and i + 1 (i + 1 < length) into out[0] and out[1] and returns true, or returns
   * false (writing nothing) when finding them would scan more than SCAN_WORDS words.
   */
  pair(i: number, out: Uint32Array): boolean {
    const k = Math.floor(i / SAMPLE);
    const L = this.lowBits;
    const scale = 2 ** L;
    const sampled = this.sampled;
    // From the sample's one, the scan reaches at most the next sample's one (or the vector's end).
    const from = Math.floor(sampled[k]! / scale) + k * SAMPLE;
    const to = k + 1 < sampled.length ? Math.floor(sampled[k + 1]! / scale) + (k + 1) * SAMPLE : this.high.length * 32;
    // Each branch: a span longer than the budget (a large gap of values inside it) is declined.
    if (Math.floor(to / 32) - Math.floor(from / 32) > SCAN_WORDS) return false;
    const high = this.high;
    // Ones to skip before the one of index i: the sample's own and the ones between.
    let skip = i - k * SAMPLE;
    let w = Math.floor(from / 32);
    let word = (high[w]! & (-1 << (from & 31))) >>> 0;
    let found = 0;
    let hi0 = 0;
    for (;;) {
      const ones = popcount32(word);
      // Each branch: the wanted one is in this word (clear the ones before it), or skip the word.
      if (skip < ones) {
        for (let s = 0; s < skip; s++) word = (word & (word - 1)) >>> 0;
        const bit = w * 32 + (31 - Math.clz32(word & -word));
        const index = i + found;
        const value = (bit - index) * scale + (L > 0 ? this.low.get(index) : 0);
        if (found === 1) {
          out[0] = hi0;
          out[1] = value;
          return true;
        }
        hi0 = value;
        found = 1;
        // The next one: the lowest set bit after this one.
        word = (word & (word - 1)) >>> 0;
        skip = 0;
        continue;
      }
      skip -= ones;
      // Past the last word: only a damaged vector (its samples disagree with its ones) gets here.
      if (++w >= high.length) return false;
      word = high[w]!;
    }
  }

  /**
   * Writes into out[0], out[1] the samples around value i: value k * SAMPLE (k = floor(i / SAMPLE))
   * and value (k + 1) * SAMPLE, or the universe past the last sample. Values k * SAMPLE to
   * (k + 1) * SAMPLE lie between them: what a caller searches when `pair` declines.
   */
  window(i: number, out: Uint32Array): void {
    const k = Math.floor(i / SAMPLE);
    out[0] = this.sampled[k]!;
    out[1] = k + 1 < this.sampled.length ? this.sampled[k + 1]! : this.universe;
  }

  /** Value i (i < length), by a scan from its sample (unbounded: for checks and tests). */
  get(i: number): number {
    const k = Math.floor(i / SAMPLE);
    const scale = 2 ** this.lowBits;
    let skip = i - k * SAMPLE;
    const from = Math.floor(this.sampled[k]! / scale) + k * SAMPLE;
    let w = Math.floor(from / 32);
    let word = (this.high[w]! & (-1 << (from & 31))) >>> 0;
    for (;;) {
      const ones = popcount32(word);
      if (skip < ones) {
        for (let s = 0; s < skip; s++) word = (word & (word - 1)) >>> 0;
        const bit = w * 32 + (31 - Math.clz32(word & -word));
        return (bit - i) * scale + (this.lowBits > 0 ? this.low.get(i) : 0);
      }
      skip -= ones;
      if (++w >= this.high.length) throw new Error(`Elias-Fano value ${i} not found`);
      word = this.high[w]!;
    }
  }

  get byteLength(): number {
    return this.low.byteLength + this.high.byteLength + this.sampled.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("universe", this.universe);
    this.low.serialize(w.child("low"));
    w.array("high", this.high);
    w.array("sampled", this.sampled);
  }

  /**
   * Restores a sequence, checking its shapes and that the high vector holds `length` ones and the
   * samples agree with it (O(length / 32 + U >> L), one pass over the words).
   */
  static deserialize(r: SerialReader): EliasFano {
    const length = r.integer("length");
    const universe = r.integer("universe");
    const low = IntVector.deserialize(r.child("low"));
    const high = r.uint32("high");
    const sampled = r.uint32("sampled");
    if (low.length !== length || low.width !== EliasFano.lowBitsFor(length, universe))
      r.corrupt("the Elias-Fano low bits have the wrong shape");
    if (high.length !== EliasFano.highWords(length, universe) || sampled.length !== Math.ceil(length / SAMPLE))
      r.corrupt("the Elias-Fano high bits or samples have the wrong size");
    let ones = 0;
    for (let w = 0; w < high.length; w++) ones += popcount32(high[w]!);
    if (ones !== length) r.corrupt("the Elias-Fano high bits hold the wrong number of values");
    for (let k = 0; k < sampled.length; k++) {
      if (sampled[k]! > universe || (k > 0 && sampled[k]! < sampled[k - 1]!))
        r.corrupt("the Elias-Fano samples are out of order or range");
    }
    const ef = new EliasFano(length, universe, low, high, sampled);
    if (r.verify) {
      for (let k = 0; k < sampled.length; k++) {
        if (ef.get(k * SAMPLE) !== sampled[k]) r.corrupt("the Elias-Fano samples disagree with its values");
      }
    }
    return ef;
  }
}

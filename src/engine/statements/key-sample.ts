/**
 * Key sample
 * ==========
 * Owns a sparse copy of one component of one order of the statement index: its value at every
 * KEY_SAMPLE-th position (0, S, 2S, ...), and the question "which part of a range sorted on that
 * component can hold this value?". The statement index asks it before a binary search over a long
 * range of a permuted order (POS, OSP), where every probe is two dependent cache misses (the
 * permutation's entry, then the SPO row it names, anywhere in memory): a predicate-object filter
 * searches a predicate's range of positions (a million at 100M statements), an object-subject
 * filter a heavy object's. Searching the sample first (one small array, a few lines) leaves a range
 * of at most KEY_SAMPLE positions around each bound, so the search's probes go from log2 of the
 * range to log2(KEY_SAMPLE).
 *
 * The sample is the classic top level of a two-level search (a B-tree's inner node, or the sampled
 * suffix array of Manber and Myers' "Suffix arrays", SIAM J. Comput. 22, 1993), kept for the
 * positions of the whole order: inside any range sorted on the component, the samples that fall in
 * it are sorted too.
 *
 * Two levels, both read when the index is made (not stored: a snapshot's open reads M / KEY_SAMPLE
 * scattered rows per order, 45 ms of CPU for both orders at 10M statements): the samples, and
 * every TOP_SAMPLE-th of them (the top: 4 bytes per KEY_SAMPLE * TOP_SAMPLE statements, a few
 * hundred KB at 100M, which the searches keep in the cache). A narrow searches the top, then one
 * block of TOP_SAMPLE samples (one cache line), then the index searches at most KEY_SAMPLE
 * positions. Read ahead, not on demand: a sample read at its first probe costs two dependent
 * misses (the permutation's entry, then the row), and a stream of distinct queries over a large
 * graph keeps meeting samples not read yet.
 * Cost: narrow O(log(range / S)) array reads, the top's in the cache, one block's line missed.
 * Space: 4 bytes per KEY_SAMPLE statements (0.0625 bytes a statement), plus the top's 1/TOP_SAMPLE of it.
 */

/** Positions between two samples (a power of two is not needed; 64 keeps the rest of a search to 6 probes). */
export const KEY_SAMPLE = 64;

/** How a key sample reads its order: the row at a position, a row's component. */
export interface SampledOrder {
  length: number;
  rowAt(position: number): number;
  valueOf(row: number): number;
}

/** Samples per block of the top level (16 words: one cache line). */
export const TOP_SAMPLE = 16;

export class KeySample {
  /** values[j] = the component at position j * KEY_SAMPLE. */
  private readonly values: Uint32Array;
  /** top[t] = values[t * TOP_SAMPLE]. */
  private readonly top: Uint32Array;

  /**
   * The sample of `order`, read now (see the banner). In two passes: the rows at the sampled
   * positions (a fixed stride through the permutation, which the hardware prefetches), then each
   * row's value (a miss anywhere in the rows, but each independent of the others, so the CPU keeps
   * several in flight; one pass would make each value wait for its own permutation entry first).
   */
  constructor(order: SampledOrder) {
    const values = new Uint32Array(Math.ceil(order.length / KEY_SAMPLE));
    for (let j = 0; j < values.length; j++) values[j] = order.rowAt(j * KEY_SAMPLE);
    for (let j = 0; j < values.length; j++) values[j] = order.valueOf(values[j]!);
    const top = new Uint32Array(Math.ceil(values.length / TOP_SAMPLE));
    for (let t = 0; t < top.length; t++) top[t] = values[t * TOP_SAMPLE]!;
    this.values = values;
    this.top = top;
  }

  /**
   * The first sample j in [j0, j1) whose value is >= `value` (`strict`: > value), or j1; the
   * samples in [j0, j1) are sorted. The top's entries inside [j0, j1) leave one block, then that.
   */
  private firstSample(j0: number, j1: number, value: number, strict: boolean): number {
    const top = this.top;
    const values = this.values;
    // Top entries t0 .. t1 - 1 are samples inside [j0, j1).
    const t0 = Math.ceil(j0 / TOP_SAMPLE);
    const t1 = Math.floor((j1 - 1) / TOP_SAMPLE) + 1;
    let a = t0;
    let b = t1;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const v = top[mid]!;
      if (v < value || (strict && v === value)) a = mid + 1;
      else b = mid;
    }
    // Each branch: a top entry past the bound's block caps it, one before it floors it; none on a
    // side leaves that end of [j0, j1).
    let lo = a > t0 ? (a - 1) * TOP_SAMPLE + 1 : j0;
    let hi = a < t1 ? a * TOP_SAMPLE : j1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = values[mid]!;
      if (v < value || (strict && v === value)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * For [lo, hi), a range of positions sorted on the component: writes where each bound of the
   * positions equal to `value` can lie. The lower bound (the first position >= value, or the
   * insertion point) lies in [out[0], out[1]]: positions before out[0] hold less, the one at out[1]
   * (when < hi) holds at least `value`. The upper bound (the first position > value) lies in
   * [out[2], out[3]]: positions before out[2] hold at most `value`, positions from out[3] on more.
   * Each interval spans at most KEY_SAMPLE positions when samples fall on both of its sides, so a
   * search of a heavy key's range (a million positions) probes each bound log2(KEY_SAMPLE) times,
   * not log2 of the range.
   */
  narrow(lo: number, hi: number, value: number, out: Int32Array): void {
    // Samples j0 .. j1 - 1 are the ones at positions inside [lo, hi).
    const j0 = Math.ceil(lo / KEY_SAMPLE);
    const j1 = hi > 0 ? Math.floor((hi - 1) / KEY_SAMPLE) + 1 : 0;
    out[0] = lo;
    out[1] = hi;
    out[2] = lo;
    out[3] = hi;
    // Fewer than two samples inside: the range is already about one gap between samples.
    if (j1 - j0 < 2) return;
    // jl: the first sample >= value; ju: the first sample > value (at or after jl).
    const jl = this.firstSample(j0, j1, value, false);
    const ju = this.firstSample(jl, j1, value, true);
    // Each branch: a sample below value bounds the lower bound from below (everything up to it is
    // less), one at or above it from above; a sample at or below value bounds the upper bound from
    // below, one above it from above; none on a side leaves that end as it was.
    if (jl > j0) out[0] = (jl - 1) * KEY_SAMPLE + 1;
    if (jl < j1) out[1] = jl * KEY_SAMPLE;
    if (ju > j0) out[2] = (ju - 1) * KEY_SAMPLE + 1;
    if (ju < j1) out[3] = ju * KEY_SAMPLE;
  }

  get byteLength(): number {
    return this.values.byteLength + this.top.byteLength;
  }
}

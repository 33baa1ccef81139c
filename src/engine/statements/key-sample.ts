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
 * Not stored, and not computed ahead: a sample is read from the order (the permutation's entry, then
 * the row it names) the first time a search probes it, and kept. Computing all of them when the
 * index is made would read two scattered words for each of M / KEY_SAMPLE samples of each of two
 * orders before the first query (about 0.3 s at 100M statements, at every snapshot open); read on
 * demand, a search's probe of a sample not yet read costs what the same probe of the order costs
 * without a sample (the same two reads), so the first searches run as they would unsampled, and the
 * samples the workload touches (the upper levels of its binary searches first) are read once.
 * Cost: narrow O(log(range / S)) probes, each one array read once the sample is kept. Space: 4 bytes
 * per KEY_SAMPLE statements (0.0625 bytes a statement), allocated (zero pages) when the index is made.
 */

/** Positions between two samples (a power of two is not needed; 64 keeps the rest of a search to 6 probes). */
export const KEY_SAMPLE = 64;

/** How a key sample reads its order: the row at a position, a row's component. */
export interface SampledOrder {
  length: number;
  rowAt(position: number): number;
  valueOf(row: number): number;
}

export class KeySample {
  /** values[j] = 1 + the component at position j * KEY_SAMPLE once read, 0 until then. */
  private readonly values: Uint32Array;
  private readonly order: SampledOrder;

  /** The sample of `order`, every value unread (see the banner). */
  constructor(order: SampledOrder) {
    this.order = order;
    this.values = new Uint32Array(Math.ceil(order.length / KEY_SAMPLE));
  }

  /** Sample j: read from the order the first time, kept after. */
  private valueAt(j: number): number {
    const kept = this.values[j]!;
    // Each branch: kept (stored plus one, so that 0 means unread), or read now and kept.
    if (kept !== 0) return kept - 1;
    const value = this.order.valueOf(this.order.rowAt(j * KEY_SAMPLE));
    this.values[j] = value + 1;
    return value;
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
    // jl: the first sample >= value; ju: the first sample > value.
    let a = j0;
    let b = j1;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.valueAt(mid) < value) a = mid + 1;
      else b = mid;
    }
    const jl = a;
    b = j1;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.valueAt(mid) <= value) a = mid + 1;
      else b = mid;
    }
    const ju = a;
    // Each branch: a sample below value bounds the lower bound from below (everything up to it is
    // less), one at or above it from above; a sample at or below value bounds the upper bound from
    // below, one above it from above; none on a side leaves that end as it was.
    if (jl > j0) out[0] = (jl - 1) * KEY_SAMPLE + 1;
    if (jl < j1) out[1] = jl * KEY_SAMPLE;
    if (ju > j0) out[2] = (ju - 1) * KEY_SAMPLE + 1;
    if (ju < j1) out[3] = ju * KEY_SAMPLE;
  }

  get byteLength(): number {
    return this.values.byteLength;
  }
}

/**
 * Stable counting sort, in chunks
 * ===============================
 * Owns the sort every statement order is made of (statement-index.ts): `out` = the rows of `order`
 * stably sorted by key[row], keys below `range`. Split so that T threads can share one pass: the
 * rows of `order` are cut into T consecutive chunks; each chunk's keys are counted into a histogram
 * of its own (countChunk), the T histograms become every chunk's first output position per key
 * (chunkOffsets: for key k, the rows of k of chunks before this one come first), and each chunk is
 * scattered to its positions (scatterChunk). The positions a chunk writes are its own, so the chunks
 * run at once without a lock, and the result is the one-thread sort's, row for row: a stable sort
 * has one answer.
 *
 * Cost: O(M) reads and writes per pass and O(T * range) for the offsets. The random accesses (a
 * key per row, a count per key, an output position per row) dominate; T threads keep T times as
 * many misses in flight. The statement index's three gathers of its ids in SPO order (one random
 * read a row: GatherPass) are cut into the same chunks and share the threads alike. The threads
 * themselves are the loader's (load/order-threads.ts): this file holds the arithmetic only, the
 * same on every thread.
 */

/** One stable counting sort the statement index asks for. */
export interface SortPass {
  /** Rows to sort (read only), or null: rows 0 to M - 1 in order (M: `key`'s length), no array read. */
  order: Uint32Array | null;
  /** Key of each row, below `range`: one a row, M in all. */
  key: Uint32Array;
  range: number;
  /** Where the sorted rows go: M words, and not `order` or `key`. */
  out: Uint32Array;
}

/**
 * One gather the statement index asks for beside its sorts: into[j] = column[order[j]], every j
 * (one random read a row; its rows cut into chunks as a sort pass's are, each written by one thread).
 */
export interface GatherPass {
  into: Uint32Array;
  /** Read only; not `into`. */
  column: Uint32Array;
  /** Read only; not `into`. */
  order: Uint32Array;
}

/** Runs sort passes and gathers on several threads (load/order-threads.ts); one thread calls sortPass, gatherChunk itself. */
export interface OrderSorter {
  /** Whether the arrays of a pass must be on SharedArrayBuffers (the other threads read them). */
  readonly shared: boolean;
  sort(pass: SortPass): Promise<void>;
  gather(pass: GatherPass): Promise<void>;
}

/** into[j] = column[order[j]] for j in [lo, hi). */
export function gatherChunk(pass: GatherPass, lo: number, hi: number): void {
  const { into, column, order } = pass;
  for (let j = lo; j < hi; j++) into[j] = column[order[j]!]!;
}

/** The chunk [lo, hi) of the M rows for thread t of T (consecutive, as even as can be). */
export function chunkBounds(m: number, t: number, threads: number): [number, number] {
  return [Math.floor((m * t) / threads), Math.floor((m * (t + 1)) / threads)];
}

/** counts[k] = how many rows of order[lo, hi) have key k (counts: `range` words, zeroed here). */
export function countChunk(
  order: Uint32Array | null,
  key: Uint32Array,
  lo: number,
  hi: number,
  counts: Uint32Array,
): void {
  counts.fill(0);
  // Each branch: the rows in order (the identity: no array), or as `order` gives them.
  if (order === null) for (let i = lo; i < hi; i++) counts[key[i]!]!++;
  else for (let i = lo; i < hi; i++) counts[key[order[i]!]!]!++;
}

/**
 * Turns the T chunks' counts (chunk t's in counts[t]) into their first output positions: chunk t's
 * rows of key k start after every row of a smaller key and after chunk t' < t's rows of key k.
 */
export function chunkOffsets(counts: readonly Uint32Array[], range: number): void {
  let at = 0;
  for (let k = 0; k < range; k++) {
    for (const c of counts) {
      const n = c[k]!;
      c[k] = at;
      at += n;
    }
  }
}

/** Writes the rows of order[lo, hi) to `out` at their positions (offsets, from chunkOffsets; advanced here). */
export function scatterChunk(
  order: Uint32Array | null,
  key: Uint32Array,
  lo: number,
  hi: number,
  offsets: Uint32Array,
  out: Uint32Array,
): void {
  // Each branch: the rows in order (the identity: no array), or as `order` gives them.
  if (order === null) {
    for (let row = lo; row < hi; row++) {
      const k = key[row]!;
      out[offsets[k]!] = row;
      offsets[k]!++;
    }
    return;
  }
  for (let i = lo; i < hi; i++) {
    const row = order[i]!;
    const k = key[row]!;
    out[offsets[k]!] = row;
    offsets[k]!++;
  }
}

/** A sort pass on this thread alone: one chunk. `counts` is scratch of at least `range` words. */
export function sortPass(pass: SortPass, counts: Uint32Array): void {
  const { order, key, range, out } = pass;
  const c = counts.subarray(0, range);
  countChunk(order, key, 0, key.length, c);
  chunkOffsets([c], range);
  scatterChunk(order, key, 0, key.length, c, out);
}

/**
 * Rank list
 * =========
 * Owns the list a search page's ranks (or sranks, or tiers) are appended to while the page is
 * listed: a Uint32Array and a length, reused from page to page by its owner (graph.ts keeps one per
 * list), so listing a page allocates nothing. A plain `number[]` satisfies the same `RankSink`
 * interface (the listings append with `push` and read `length`), which the tests and one-off callers
 * pass instead.
 *
 * Why: the lists grew by `push` from empty on every page, two of them a page (ranks and tiers), each
 * through two or three backing stores: about 1 KB of the 5 KB a search page allocated at 1M entities
 * (`npm run bench:alloc`), garbage that brings the next scavenge nearer, which in a host with a
 * large heap is the page's tail latency.
 *
 * Cost: push O(1) (amortized: the array doubles when full, which a page within the limits never
 * needs once made with SEARCH_MAX_LIMIT + 1 slots). Space: 4 bytes a slot.
 */

/** What a listing appends to: a RankList, or a plain number[]. */
export interface RankSink {
  length: number;
  push(value: number): unknown;
}

export class RankList implements RankSink {
  /** The values, [0, length) in use. */
  values: Uint32Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Uint32Array(Math.max(1, capacity));
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(2 * this.values.length);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

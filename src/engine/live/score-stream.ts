/**
 * Live order=score stream
 * =======================
 * The base's side of a live order=score read (score-search.ts): the base's listed matches after
 * the key, each at its score now, in typed columns (tier, score, name rank, score rank;
 * one slot an item, a read's scratch) with their merge order (`order`: item numbers, kept sorted as
 * items come), and the delta's side's items (ScoreItem objects: few) met against it. Why columns:
 * an item object and a comparison closure per listed item cost the merge several times what the
 * base's own page spends on an item (the objects, their sort by calls, their collection); two stream
 * items compare by three numbers read here in place (tier, score, name rank: the base's name order),
 * a listing's items mostly arrive in order (the base's score order, a raise of at most
 * SCORE_RAISE_MAX moving a few), so an insertion is one comparison and a rare binary search.
 *
 * Order (CONTRACT.md "GET /graph/v1/search", order=score): tier, score highest first, folded
 * identifier, entityId. A stream item against a delta item ties on tier and score only by name:
 * the caller's `byName` (the stream item's identifier folded, then entityIds), or by name rank when
 * the other carries one of this base (a cursor's key of a hint of this base).
 *
 * Cost: add O(1) (O(log n) comparisons and a shift when out of order); nth O(log n) comparisons,
 * one object made; item one object.
 */

import type { Entity } from "../types.js";

/**
 * An item of an order "score" merge met as an object: a delta item (`entity` given; `srank` -1,
 * `rank` -1 but for a rescored base entity's, its base name rank when its walk read it: its name is
 * its base name; `d` its base dense id when it has one), a cursor's key, or a stream item made from
 * the columns (ScoreStream.item: `d` its dense id, `rank` and `srank` its name and score ranks in
 * the base, `entity` undefined).
 */
export interface ScoreItem {
  tier: number;
  score: number;
  /** Its folded identifier ("" until a comparison needs it: a match is never empty). */
  folded: string;
  entity: Entity | undefined;
  d: number;
  rank: number;
  srank: number;
}

/** Slots a stream holds at first (a page of the default limit and its look-ahead), doubled as needed. */
const INITIAL_ITEMS = 64;

/** The base's stream items of one read, in columns, in merge order (see the banner). */
export class ScoreStream {
  tiers = new Uint8Array(INITIAL_ITEMS);
  scores = new Float64Array(INITIAL_ITEMS);
  ranks = new Int32Array(INITIAL_ITEMS);
  sranks = new Int32Array(INITIAL_ITEMS);
  /** Item numbers in merge order: order[0 .. length). */
  order = new Int32Array(INITIAL_ITEMS);
  /** Items held. */
  length = 0;
  /**
   * A stream item (by name rank) against an object of no name rank of this base, on name: its folded
   * identifier, then entityId (the caller's: it reads the base's names and folds).
   */
  readonly #byName: (rank: number, y: ScoreItem) => number;
  /** The dense id of a base name rank (the caller's: the base's search index). */
  readonly #idOfRank: (rank: number) => number;

  constructor(byName: (rank: number, y: ScoreItem) => number, idOfRank: (rank: number) => number) {
    this.#byName = byName;
    this.#idOfRank = idOfRank;
  }

  /** Empties the stream for a read. */
  clear(): void {
    this.length = 0;
  }

  /** Room for `extra` items more. */
  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.order.length) return;
    const size = Math.max(need, 2 * this.order.length);
    const grow = <T extends Uint8Array | Float64Array | Int32Array | Uint32Array>(old: T, made: T): T => {
      made.set(old as never);
      return made;
    };
    this.tiers = grow(this.tiers, new Uint8Array(size));
    this.scores = grow(this.scores, new Float64Array(size));
    this.ranks = grow(this.ranks, new Int32Array(size));
    this.sranks = grow(this.sranks, new Int32Array(size));
    this.order = grow(this.order, new Int32Array(size));
  }

  /**
   * Writes an item into the next slot (reserve first) without adding it: the caller may weigh it
   * (compareSlot) and then add() it or leave it.
   */
  write(tier: number, score: number, rank: number, srank: number): void {
    const i = this.length;
    this.tiers[i] = tier;
    this.scores[i] = score;
    this.ranks[i] = rank;
    this.sranks[i] = srank;
  }

  /** Adds the item written in the next slot at its place in the order (after its equals: none, ranks differ). */
  add(): void {
    const i = this.length;
    const order = this.order;
    let hi = i;
    // Each branch: in order after the last (a listing's common case: one comparison), or placed by a binary search.
    if (hi > 0 && this.compareItems(order[hi - 1]!, i) > 0) {
      let lo = 0;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.compareItems(order[mid]!, i) <= 0) lo = mid + 1;
        else hi = mid;
      }
      order.copyWithin(lo + 1, lo, i);
    }
    order[hi] = i;
    this.length = i + 1;
  }

  /** Two stream items in the merge's order: tier, score highest first, name rank (the base's name order). */
  compareItems(i: number, j: number): number {
    return this.tiers[i]! - this.tiers[j]! || this.scores[j]! - this.scores[i]! || this.ranks[i]! - this.ranks[j]!;
  }

  /** Stream item `i` (an item number; the slot being written too) against an object, in the merge's order. */
  compareTo(i: number, y: ScoreItem): number {
    return (
      this.tiers[i]! - y.tier ||
      y.score - this.scores[i]! ||
      (y.rank >= 0 ? this.ranks[i]! - y.rank : this.#byName(this.ranks[i]!, y))
    );
  }

  /** The slot being written (the next one) against an object. */
  compareSlot(y: ScoreItem): number {
    return this.compareTo(this.length, y);
  }

  /** Stream item `i` (an item number), as an object (its dense id read: one look-up). */
  item(i: number): ScoreItem {
    return {
      tier: this.tiers[i]!,
      score: this.scores[i]!,
      folded: "",
      entity: undefined,
      d: this.#idOfRank(this.ranks[i]!),
      rank: this.ranks[i]!,
      srank: this.sranks[i]!,
    };
  }

  /**
   * The `n`th smallest (1-based) of this stream and `found` (sorted, no item in both) together, or
   * undefined when they hold fewer: the split (i of the stream, n - i of `found`) found by a binary
   * search, O(log n) comparisons.
   */
  nth(found: readonly ScoreItem[], n: number): ScoreItem | undefined {
    const order = this.order;
    if (this.length + found.length < n) return undefined;
    // The common case: nothing of the delta's side yet, the stream's own nth.
    if (found.length === 0) return this.item(order[n - 1]!);
    // The fewest stream items in the first n: none of the stream's next is smaller than found's last taken.
    let lo = Math.max(0, n - found.length);
    let hi = Math.min(n, this.length);
    while (lo < hi) {
      const i = (lo + hi) >>> 1;
      if (this.compareTo(order[i]!, found[n - i - 1]!) < 0) lo = i + 1;
      else hi = i;
    }
    const j = n - lo;
    // Each branch: one side gave none of the first n (the other's last), else the larger of the two lasts.
    if (lo === 0) return found[j - 1];
    if (j === 0) return this.item(order[lo - 1]!);
    return this.compareTo(order[lo - 1]!, found[j - 1]!) < 0 ? found[j - 1] : this.item(order[lo - 1]!);
  }
}

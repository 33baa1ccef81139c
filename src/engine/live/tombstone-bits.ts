/**
 * Tombstone bits
 * ==============
 * Which positions of each order (SPO, POS, OSP) of an immutable base hold a statement the delta
 * deleted: one bit a position, a Uint32Array of ceil(M / 32) words an order (M base statements).
 * A filtered page of the base is one run of positions of one order, so whether a tombstone falls
 * on it is a read of the run's words (one or two: a cache line), and whether any base statement
 * after it is left is a scan for a clear bit from its end (the next word, most often), where the
 * sorted tombstone list needs a fence and two binary searches of several dependent misses each
 * (live-statements.ts).
 *
 * Positions: a tombstone's SPO position is its row (the base's fingerprint map gives it); in POS it
 * lies in the range of its (predicate, object), sorted by subject then row; in OSP in the range of
 * its (object, subject), sorted by predicate then row: a binary search of that range each
 * (StatementIndex.plan gives it), then a step or two over rows of the same key.
 *
 * Cost: 3M / 8 bytes (3.75 MB at 10M statements), made at the first tombstone of a base; O(log
 * range) to mark a tombstone; O(words of the run) to test one.
 */

import type { StatementIndex } from "../statements/statement-index.js";

type Order = "SPO" | "POS" | "OSP";

export class TombstoneBits {
  /** The owner's token of the base these positions are of (LiveGraph placeToken: made again at each swap). */
  readonly token: object;
  /** How many tombstones are marked. */
  count = 0;
  private readonly spo: Uint32Array;
  private readonly pos: Uint32Array;
  private readonly osp: Uint32Array;

  /** No tombstone yet, over a base of `statements` rows whose owner's token is `token`. */
  constructor(token: object, statements: number) {
    this.token = token;
    const words = Math.ceil(statements / 32);
    this.spo = new Uint32Array(words);
    this.pos = new Uint32Array(words);
    this.osp = new Uint32Array(words);
  }

  /** The bits of `order`. */
  of(order: Order): Uint32Array {
    // Each branch: the order's bits.
    return order === "SPO" ? this.spo : order === "POS" ? this.pos : this.osp;
  }

  /** Marks base row `row` of `index` (a statement deleted) at its position in each order. */
  mark(index: StatementIndex, row: number): void {
    setBit(this.spo, row);
    setBit(this.pos, positionOf(index, "POS", row));
    setBit(this.osp, positionOf(index, "OSP", row));
    this.count++;
  }
}

function setBit(bits: Uint32Array, at: number): void {
  bits[at >>> 5]! |= 1 << (at & 31);
}

/**
 * The position of base row `row` in `order` (POS or OSP): the range of its first two components
 * (plan), a binary search there on the third, then the rows of the same triple (by row: each
 * order's stable passes keep a key's rows in row order) walked to `row`.
 */
export function positionOf(index: StatementIndex, order: "POS" | "OSP", row: number): number {
  const s = index.subjectOf(row);
  const p = index.predicateOf(row);
  const o = index.objectOf(row);
  // Each branch: POS ranges (p, o) sorted by subject; OSP ranges (o, s) sorted by predicate index.
  const plan =
    order === "POS"
      ? index.plan({ subject: undefined, predicate: p, object: o })
      : index.plan({ subject: s, predicate: undefined, object: o });
  const third = order === "POS" ? s : index.predicateIndexOf(row);
  const thirdAt = (at: number): number => {
    const r = index.rowAt(order, at);
    // Each branch: the order's third component.
    return order === "POS" ? index.subjectOf(r) : index.predicateIndexOf(r);
  };
  let lo = plan.lo;
  let hi = plan.hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (thirdAt(mid) < third) lo = mid + 1;
    else hi = mid;
  }
  for (let at = lo; at < plan.hi; at++) if (index.rowAt(order, at) === row) return at;
  throw new Error(`TombstoneBits: row ${row} is not in its ${order} range`);
}

/** Whether position `at` is marked in `bits`. */
export function isMarked(bits: Uint32Array, at: number): boolean {
  return (bits[at >>> 5]! & (1 << (at & 31))) !== 0;
}

/** Whether any of positions [from, to) is marked in `bits`. */
export function anyMarked(bits: Uint32Array, from: number, to: number): boolean {
  if (from >= to) return false;
  const first = from >>> 5;
  const last = (to - 1) >>> 5;
  // Each branch: the run within one word (the high bits past `to` masked off), or a first word, whole words, a last word.
  if (first === last) return (bits[first]! & (~0 << (from & 31)) & (~0 >>> (31 - ((to - 1) & 31)))) !== 0;
  if ((bits[first]! & (~0 << (from & 31))) !== 0) return true;
  for (let w = first + 1; w < last; w++) if (bits[w] !== 0) return true;
  return (bits[last]! & (~0 >>> (31 - ((to - 1) & 31)))) !== 0;
}

/** Whether any of positions [from, to) is not marked in `bits` (a scan from `from`: most often one word). */
export function anyUnmarked(bits: Uint32Array, from: number, to: number): boolean {
  for (let at = from; at < to; ) {
    const w = at >>> 5;
    // The word's bits from `at` on, those past `to` counted as marked.
    let clear = ~bits[w]! & (~0 << (at & 31));
    const end = (w + 1) << 5;
    if (to < end) clear &= ~0 >>> (end - to);
    if (clear !== 0) return true;
    at = end;
  }
  return false;
}

/**
 * Triple index
 * ============
 * One sorted order of the statements (SPO, POS or OSP), as typed arrays: three key columns indexed
 * by statement row, and `rows`, the rows in this order (null for the order the rows are stored in,
 * SPO). The key of position j is (first[rows[j]], second[rows[j]], third[rows[j]], fingerprint).
 *
 * Operations, all binary searches over positions, O(log n) comparisons:
 *  - `range(bound)`: the positions whose key starts with the bound dense ids (a filter);
 *  - `seekAfter(lo, hi, key)`: the first position in [lo, hi) whose key is greater than a cursor's
 *    key. The cursor's ids were placed with the dictionary's lowerBound, so a key whose entities are
 *    gone still lands between its neighbours ("inexact" components never compare equal).
 *
 * Memory: 4 bytes a statement for `rows` (the columns are shared by the three orders).
 *
 * Serial form (engine/serial.ts): `rows` alone; the columns and fingerprints belong to the statement
 * index, which passes them back to `deserialize`. The order the rows are stored in (rows null) has
 * no serial form of its own. `deserialize` checks the length, and with `verify` that every row is
 * below the statement count; not that the rows are sorted (that would cost a comparison per row).
 */

import type { FingerprintColumn } from "./fingerprint-column.js";
import { checkBelow, checkLength, type SerialReader, type SerialWriter } from "./serial.js";

export type IndexOrder = "SPO" | "POS" | "OSP";

/** A cursor key in this index's component order, placed in the dictionary. */
export interface SeekKey {
  /** Per component: the dictionary's lowerBound of the cursor's entityId. */
  ids: [number, number, number];
  /** Per component: whether that entityId is in the dictionary (lowerBound hit it exactly). */
  exact: [boolean, boolean, boolean];
  fingerprint: string;
}

export class TripleIndex {
  readonly order: IndexOrder;
  readonly first: Uint32Array;
  readonly second: Uint32Array;
  readonly third: Uint32Array;
  readonly rows: Uint32Array | null;
  readonly fingerprints: FingerprintColumn;
  readonly length: number;

  constructor(
    order: IndexOrder,
    columns: [Uint32Array, Uint32Array, Uint32Array],
    rows: Uint32Array | null,
    fingerprints: FingerprintColumn,
  ) {
    this.order = order;
    [this.first, this.second, this.third] = columns;
    this.rows = rows;
    this.fingerprints = fingerprints;
    this.length = columns[0].length;
  }

  /** Writes the serial form: `rows`. */
  serialize(w: SerialWriter): void {
    if (this.rows === null) throw new Error(`TripleIndex ${this.order}: the stored order has no rows to serialize`);
    w.array("rows", this.rows);
  }

  /** Restores the `order` index over the given columns and fingerprints from its serial form. */
  static deserialize(
    r: SerialReader,
    order: IndexOrder,
    columns: [Uint32Array, Uint32Array, Uint32Array],
    fingerprints: FingerprintColumn,
  ): TripleIndex {
    const m = columns[0].length;
    const rows = r.uint32("rows");
    checkLength(r, "rows", rows, m, "one per statement");
    if (r.verify) checkBelow(r, "rows", rows, m, "statement rows");
    return new TripleIndex(order, columns, rows, fingerprints);
  }

  rowAt(pos: number): number {
    return this.rows === null ? pos : (this.rows[pos] as number);
  }

  /** Positions [lo, hi) whose first `bound.length` key components equal `bound`. */
  range(bound: readonly number[]): [number, number] {
    if (bound.length === 0) return [0, this.length];
    return [this.boundary(bound, false), this.boundary(bound, true)];
  }

  /** First position in [lo, hi) whose key is strictly greater than `key`; `hi` when none. */
  seekAfter(lo: number, hi: number, key: SeekKey): number {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareToKey(this.rowAt(mid), key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose prefix is >= bound (upper=false) or > bound (upper=true). */
  private boundary(bound: readonly number[], upper: boolean): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.comparePrefix(this.rowAt(mid), bound);
      if (c < 0 || (upper && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private comparePrefix(row: number, bound: readonly number[]): number {
    const k = bound.length;
    let d = (this.first[row] as number) - (bound[0] as number);
    if (d !== 0 || k === 1) return d;
    d = (this.second[row] as number) - (bound[1] as number);
    if (d !== 0 || k === 2) return d;
    return (this.third[row] as number) - (bound[2] as number);
  }

  private compareToKey(row: number, key: SeekKey): number {
    const c0 = compareComponent(this.first[row] as number, key.ids[0], key.exact[0]);
    if (c0 !== 0) return c0;
    const c1 = compareComponent(this.second[row] as number, key.ids[1], key.exact[1]);
    if (c1 !== 0) return c1;
    const c2 = compareComponent(this.third[row] as number, key.ids[2], key.exact[2]);
    if (c2 !== 0) return c2;
    return this.fingerprints.compareTo(row, key.fingerprint);
  }
}

/**
 * Compares a row's dense id with a cursor component. An inexact component (an entityId no longer in
 * the graph) sits just below `lowerBound`, between two dense ids, so it never compares equal.
 */
function compareComponent(id: number, lowerBound: number, exact: boolean): number {
  if (exact) return id - lowerBound;
  return id < lowerBound ? -1 : 1;
}

/**
 * Statement index
 * ===============
 * The statements as dictionary-encoded columns (subject, predicate, object dense ids and the
 * fingerprint), stored in SPO order, plus two permutations, POS and OSP. Which order serves which
 * filters is decided in one place, `plan`, exactly as CONTRACT.md's table says.
 *
 * Construction: stable LSD counting sorts on the dense ids (ids are < entity count), O(m + n) per
 * pass: SPO = three passes (object, predicate, subject), then each run of equal (s, p, o) is ordered
 * by fingerprint (runs longer than one are rare: the same triple with several given fingerprints).
 * From SPO order, one stable pass by object gives OSP (o, s, p, fp) and two passes, object then
 * predicate, give POS (p, o, s, fp). No comparison sort touches the statements.
 *
 * Memory: 12 bytes a statement of id columns + 4 (POS) + 4 (OSP) = 20 bytes, plus 8 bytes of
 * fingerprints (FingerprintColumn). Queries: two binary searches for the filter's range, one for the
 * cursor's seek point, then a sequential walk: O(log m + page).
 *
 * Serial form (engine/serial.ts): the `subject`, `predicate` and `object` columns, then the
 * fingerprints, POS and OSP each under its own name. `deserialize` checks the lengths, and with
 * `verify` that every id is below the entity count; each part checks the rest of itself.
 */

import { FingerprintColumn } from "./fingerprint-column.js";
import { checkBelow, checkLength, type SerialReader, type SerialWriter } from "./serial.js";
import { TripleIndex } from "./triple-index.js";

/** A filter as dense ids; undefined = not filtered on. */
export interface DenseFilter {
  subject: number | undefined;
  predicate: number | undefined;
  object: number | undefined;
}

export interface QueryPlan {
  index: TripleIndex;
  /** The filter's ids in the index's component order. */
  bound: number[];
}

/** Unsorted statements as they left the builder: dense ids and fingerprints per row. */
export interface StatementRows {
  subject: Uint32Array;
  predicate: Uint32Array;
  object: Uint32Array;
  fingerprints: FingerprintColumn;
}

export class StatementIndex {
  readonly subject: Uint32Array;
  readonly predicate: Uint32Array;
  readonly object: Uint32Array;
  readonly fingerprints: FingerprintColumn;
  readonly spo: TripleIndex;
  readonly pos: TripleIndex;
  readonly osp: TripleIndex;

  constructor(
    subject: Uint32Array,
    predicate: Uint32Array,
    object: Uint32Array,
    fingerprints: FingerprintColumn,
    posRows: Uint32Array,
    ospRows: Uint32Array,
  ) {
    this.subject = subject;
    this.predicate = predicate;
    this.object = object;
    this.fingerprints = fingerprints;
    this.spo = new TripleIndex("SPO", [subject, predicate, object], null, fingerprints);
    this.pos = new TripleIndex("POS", [predicate, object, subject], posRows, fingerprints);
    this.osp = new TripleIndex("OSP", [object, subject, predicate], ospRows, fingerprints);
  }

  get length(): number {
    return this.subject.length;
  }

  /** Writes the serial form (see the banner). */
  serialize(w: SerialWriter): void {
    w.array("subject", this.subject);
    w.array("predicate", this.predicate);
    w.array("object", this.object);
    this.fingerprints.serialize(w.child("fingerprints"));
    this.pos.serialize(w.child("pos"));
    this.osp.serialize(w.child("osp"));
  }

  /** Restores the index over `entityCount` entities from its serial form, checking it. */
  static deserialize(r: SerialReader, entityCount: number): StatementIndex {
    const subject = r.uint32("subject");
    const predicate = r.uint32("predicate");
    const object = r.uint32("object");
    const m = subject.length;
    checkLength(r, "predicate", predicate, m, "one per statement");
    checkLength(r, "object", object, m, "one per statement");
    if (r.verify) {
      checkBelow(r, "subject", subject, entityCount, "dense entity ids");
      checkBelow(r, "predicate", predicate, entityCount, "dense entity ids");
      checkBelow(r, "object", object, entityCount, "dense entity ids");
    }
    const fingerprints = FingerprintColumn.deserialize(r.child("fingerprints"), m);
    const pos = TripleIndex.deserialize(r.child("pos"), "POS", [predicate, object, subject], fingerprints);
    const osp = TripleIndex.deserialize(r.child("osp"), "OSP", [object, subject, predicate], fingerprints);
    return new StatementIndex(subject, predicate, object, fingerprints, pos.rows!, osp.rows!);
  }

  /** Sorts `rows` into the three orders. `entityCount` bounds the dense ids. */
  static build(
    rows: StatementRows,
    entityCount: number,
    onProgress?: (done: number, total: number) => void,
  ): StatementIndex {
    const m = rows.subject.length;
    const identity = new Uint32Array(m);
    for (let i = 0; i < m; i++) identity[i] = i;
    const scratch = new Uint32Array(m);
    const counts = new Uint32Array(entityCount + 1);
    const total = 6;
    // SPO: least significant key first. The fingerprint tie-break is applied to runs afterwards.
    let order = identity;
    let other = scratch;
    for (const [step, key] of [rows.object, rows.predicate, rows.subject].entries()) {
      stableCountingSort(order, key, counts, other);
      [order, other] = [other, order];
      onProgress?.(step + 1, total);
    }
    orderRunsByFingerprint(order, rows);
    // Store the columns in SPO order, so SPO needs no permutation of its own.
    const subject = gather(rows.subject, order);
    const predicate = gather(rows.predicate, order);
    const object = gather(rows.object, order);
    const fingerprints = gatherFingerprints(rows.fingerprints, order);
    onProgress?.(4, total);
    // From SPO order (s, p, o, fp): a stable pass by object gives (o, s, p, fp) = OSP.
    for (let i = 0; i < m; i++) other[i] = i;
    const ospRows = new Uint32Array(m);
    stableCountingSort(other, object, counts, ospRows);
    onProgress?.(5, total);
    // Passes by object then predicate give (p, o, s, fp) = POS.
    const byObject = ospRows.slice();
    const posRows = new Uint32Array(m);
    stableCountingSort(byObject, predicate, counts, posRows);
    onProgress?.(6, total);
    return new StatementIndex(subject, predicate, object, fingerprints, posRows, ospRows);
  }

  /**
   * The index that serves a filter, and the filter's ids in that index's component order.
   * Each branch takes the order whose key starts with every bound component, so the matches are one
   * contiguous range and come out already in the contract's order for that filter.
   */
  plan(f: DenseFilter): QueryPlan {
    const { subject: s, predicate: p, object: o } = f;
    if (s !== undefined) {
      // O+S without P: SPO would need a scan over all of the subject's predicates; OSP keys start
      // with (o, s), so the pair is one range.
      if (p === undefined && o !== undefined) return { index: this.osp, bound: [o, s] };
      // S, S+P, S+P+O: SPO keys start with s, then p, then o. (S+O is the branch above.)
      if (p === undefined) return { index: this.spo, bound: [s] };
      return { index: this.spo, bound: o === undefined ? [s, p] : [s, p, o] };
    }
    // P, P+O: POS keys start with (p, o).
    if (p !== undefined) return { index: this.pos, bound: o === undefined ? [p] : [p, o] };
    // O alone: OSP keys start with o.
    if (o !== undefined) return { index: this.osp, bound: [o] };
    // No filter: every statement, in SPO order.
    return { index: this.spo, bound: [] };
  }

  get byteLength(): number {
    return this.subject.byteLength * 3 + (this.pos.rows?.byteLength ?? 0) + (this.osp.rows?.byteLength ?? 0);
  }
}

/** out = `order` stably sorted by key[row]. `counts` is scratch of length >= max key + 2. */
function stableCountingSort(order: Uint32Array, key: Uint32Array, counts: Uint32Array, out: Uint32Array): void {
  counts.fill(0);
  const n = order.length;
  for (let i = 0; i < n; i++) (counts[(key[order[i] as number] as number) + 1] as number)++;
  for (let k = 1; k < counts.length; k++) counts[k] = (counts[k] as number) + (counts[k - 1] as number);
  for (let i = 0; i < n; i++) {
    const row = order[i] as number;
    const k = key[row] as number;
    out[counts[k] as number] = row;
    counts[k] = (counts[k] as number) + 1;
  }
}

/** Sorts each run of equal (s, p, o) in `order` by fingerprint. */
function orderRunsByFingerprint(order: Uint32Array, rows: StatementRows): void {
  const { subject: s, predicate: p, object: o, fingerprints: fp } = rows;
  let start = 0;
  for (let i = 1; i <= order.length; i++) {
    const a = order[start] as number;
    const b = order[i];
    if (b !== undefined && s[a] === s[b] && p[a] === p[b] && o[a] === o[b]) continue;
    if (i - start > 1) {
      const run = Array.from(order.subarray(start, i)).sort((x, y) => fp.compareRows(x, y));
      order.set(run, start);
    }
    start = i;
  }
}

function gather(column: Uint32Array, order: Uint32Array): Uint32Array {
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = column[order[i] as number] as number;
  return out;
}

function gatherFingerprints(fp: FingerprintColumn, order: Uint32Array): FingerprintColumn {
  const text = new Map<number, string>();
  if (fp.text.size !== 0) {
    for (let i = 0; i < order.length; i++) {
      const t = fp.text.get(order[i] as number);
      if (t !== undefined) text.set(i, t);
    }
  }
  return new FingerprintColumn(gather(fp.hi, order), gather(fp.lo, order), text);
}

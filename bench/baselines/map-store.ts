/**
 * Baseline: a Map from entityId to its statements
 * ===============================================
 * The store a user would hand-roll: statement objects {s, p, o, fingerprint}, and one Map per role
 * from an entityId to the statements naming it there. Each list is sorted once, at build, in the
 * order the contract gives that role's filters (subject lists in SPO order, predicate lists in POS,
 * object lists in OSP, the list of all in SPO), so a page is in the contract's order whichever list
 * serves it: with the bound roles fixed, the three orders agree on the rest (S+P by SPO or by POS is
 * (object, fingerprint) either way). A page: the shortest list among the bound roles, the other
 * bound roles as a filter, skip `offset` matches, take `limit`.
 *
 * Cost per page: O(offset + limit) over the chosen list (more when the other filters reject most of
 * it): a deep page costs in proportion to its depth. Memory: about 100 B a statement (an object, a
 * fingerprint string, four list slots), so the benchmark builds it once per run.
 */

import { deriveFingerprint, type Statement, type StatementInput } from "../../src/index.js";

/** Bound roles of a statements query; absent ones are free. */
export interface Filter {
  s?: string | undefined;
  p?: string | undefined;
  o?: string | undefined;
}

interface Row {
  s: string;
  p: string;
  o: string;
  fp: string;
}

const NONE: readonly Row[] = [];

/** JavaScript `<` on strings, as the contract compares entityIds and fingerprints. */
function cmp(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

const bySPO = (a: Row, b: Row): number => cmp(a.s, b.s) || cmp(a.p, b.p) || cmp(a.o, b.o) || cmp(a.fp, b.fp);
const byPOS = (a: Row, b: Row): number => cmp(a.p, b.p) || cmp(a.o, b.o) || cmp(a.s, b.s) || cmp(a.fp, b.fp);
const byOSP = (a: Row, b: Row): number => cmp(a.o, b.o) || cmp(a.s, b.s) || cmp(a.p, b.p) || cmp(a.fp, b.fp);

export class MapStore {
  private readonly names: ReadonlyMap<string, string>;
  private readonly all: Row[];
  private readonly bySubject = new Map<string, Row[]>();
  private readonly byPredicate = new Map<string, Row[]>();
  private readonly byObject = new Map<string, Row[]>();

  /** `names`: entityId -> rawIdentifier, for the items' raw identifiers. */
  constructor(statements: Iterable<StatementInput>, names: ReadonlyMap<string, string>) {
    this.names = names;
    const rows: Row[] = [];
    for (const x of statements) {
      const fp = x.statementFingerprint ?? deriveFingerprint(x.subjectEntityId, x.predicateEntityId, x.objectEntityId);
      rows.push({ s: x.subjectEntityId, p: x.predicateEntityId, o: x.objectEntityId, fp });
    }
    rows.sort(bySPO);
    // The same statement twice is one statement (the contract): keep the first of equal neighbours.
    this.all = rows.filter((x, i) => i === 0 || bySPO(x, rows[i - 1]!) !== 0);
    for (const x of this.all) {
      push(this.bySubject, x.s, x);
      push(this.byPredicate, x.p, x);
      push(this.byObject, x.o, x);
    }
    // Subject lists are in SPO order already (filled from `all`); the other two need their order.
    for (const list of this.byPredicate.values()) list.sort(byPOS);
    for (const list of this.byObject.values()) list.sort(byOSP);
  }

  get size(): number {
    return this.all.length;
  }

  page(f: Filter, offset: number, limit: number): Statement[] {
    // The shortest list among the bound roles; the other bound roles filter it.
    let list: readonly Row[] = this.all;
    if (f.s !== undefined) list = shorter(list, this.bySubject.get(f.s));
    if (f.p !== undefined) list = shorter(list, this.byPredicate.get(f.p));
    if (f.o !== undefined) list = shorter(list, this.byObject.get(f.o));
    const items: Statement[] = [];
    let skipped = 0;
    for (const x of list) {
      if (
        (f.s !== undefined && x.s !== f.s) ||
        (f.p !== undefined && x.p !== f.p) ||
        (f.o !== undefined && x.o !== f.o)
      )
        continue;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      items.push(statementItem(this.names, x.s, x.p, x.o, x.fp));
      if (items.length === limit) break;
    }
    return items;
  }
}

function shorter(a: readonly Row[], b: readonly Row[] | undefined): readonly Row[] {
  // An entity with no statements in that role: nothing can match.
  if (b === undefined) return NONE;
  return b.length < a.length ? b : a;
}

function push(map: Map<string, Row[]>, key: string, x: Row): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [x]);
  else list.push(x);
}

/** A page item as Graph.statements builds it. */
export function statementItem(
  names: ReadonlyMap<string, string>,
  s: string,
  p: string,
  o: string,
  fp: string,
): Statement {
  return {
    statementFingerprint: fp,
    subjectEntityId: s,
    subjectRawIdentifier: names.get(s) ?? "",
    predicateEntityId: p,
    predicateRawIdentifier: names.get(p) ?? "",
    objectEntityId: o,
    objectRawIdentifier: names.get(o) ?? "",
  };
}

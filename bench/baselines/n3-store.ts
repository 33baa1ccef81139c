/**
 * Baseline: the N3.js Store
 * =========================
 * The in-memory triple store of the JavaScript world (`n3`), as its users page it: the triples as
 * NamedNode quads in the default graph; page k = `store.readQuads(s, p, o, null)` (a lazy iterator
 * over the index N3 picks for the bound terms), skip (k - 1) * limit, take limit, in N3's own order
 * (it keeps none of the contract's). N3 holds triples, not statements: an item's fingerprint is
 * derived from its triple (Quiver's rule when none is given), and repeated triples merge.
 *
 * Cost per page: O(offset + limit) iterator steps. Memory: about 2 KB a triple (measured: 1M
 * triples, 2.0 GB of heap), so the benchmark gives it a subset of a large graph.
 */

import N3 from "n3";

import { deriveFingerprint, type Statement, type StatementInput } from "../../src/index.js";
import { statementItem, type Filter } from "./map-store.js";

export class N3Baseline {
  private readonly names: ReadonlyMap<string, string>;
  private readonly store = new N3.Store();

  constructor(statements: Iterable<StatementInput>, names: ReadonlyMap<string, string>) {
    this.names = names;
    const { namedNode, quad } = N3.DataFactory;
    for (const x of statements)
      this.store.addQuad(
        quad(namedNode(x.subjectEntityId), namedNode(x.predicateEntityId), namedNode(x.objectEntityId)),
      );
  }

  get size(): number {
    return this.store.size;
  }

  page(f: Filter, offset: number, limit: number): Statement[] {
    const { namedNode } = N3.DataFactory;
    const quads = this.store.readQuads(
      f.s === undefined ? null : namedNode(f.s),
      f.p === undefined ? null : namedNode(f.p),
      f.o === undefined ? null : namedNode(f.o),
      null,
    );
    const items: Statement[] = [];
    let skipped = 0;
    for (const q of quads) {
      if (skipped < offset) {
        skipped++;
        continue;
      }
      const s = q.subject.value;
      const p = q.predicate.value;
      const o = q.object.value;
      items.push(statementItem(this.names, s, p, o, deriveFingerprint(s, p, o)));
      if (items.length === limit) break;
    }
    return items;
  }
}

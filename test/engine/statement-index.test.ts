/**
 * Statement index tests
 * =====================
 * src/engine/statement-index.ts: `StatementIndex.build` on a hand-made set (five entities, eight
 * statements given out of order, one triple twice with its fingerprints given in descending order),
 * with the stored SPO columns and the POS and OSP permutations worked out by hand; the fingerprint
 * tie-break with text fingerprints mixed into hex ones; `plan` for each of the eight filter
 * combinations, naming CONTRACT.md's index and the bound in that index's component order (dense id 0
 * included, so "bound" is never confused with "truthy"); then a seeded oracle: random triples, every
 * order against a sort by the contract's keys, every plan + range against a filter.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { StatementIndex, type DenseFilter } from "../../src/engine/statement-index.js";
import { FingerprintColumn } from "../../src/engine/fingerprint-column.js";
import { Rng, show } from "../support/oracle.js";

// Input rows (s, p, o, fingerprint lo; hi = 0 except row 4), in the order the builder hands them over:
//   r0 (2,0,1) b0   r1 (0,1,3) 09   r2 (1,0,2) 01   r3 (0,1,3) 05
//   r4 (3,4,0) hi=1 r5 (0,0,4) 02   r6 (4,1,1) 03   r7 (1,4,2) 04
// r1 and r3 are one triple: r3 (fingerprint ...05) must come first although it is given later.
function handBuilt(onProgress?: (done: number, total: number) => void): StatementIndex {
  return StatementIndex.build(
    {
      subject: Uint32Array.of(2, 0, 1, 0, 3, 0, 4, 1),
      predicate: Uint32Array.of(0, 1, 0, 1, 4, 0, 1, 4),
      object: Uint32Array.of(1, 3, 2, 3, 0, 4, 1, 2),
      fingerprints: new FingerprintColumn(
        Uint32Array.of(0, 0, 0, 0, 1, 0, 0, 0),
        Uint32Array.of(0xb0, 9, 1, 5, 0, 2, 3, 4),
        new Map(),
      ),
    },
    5,
    onProgress,
  );
}

test("build: columns stored in SPO order, the repeated triple ordered by fingerprint", () => {
  const index = handBuilt();
  assert.is(index.length, 8);
  // SPO: r5 (0,0,4), r3 (0,1,3 fp5), r1 (0,1,3 fp9), r2 (1,0,2), r7 (1,4,2), r0 (2,0,1), r4 (3,4,0), r6 (4,1,1).
  assert.equal(Array.from(index.subject), [0, 0, 0, 1, 1, 2, 3, 4]);
  assert.equal(Array.from(index.predicate), [0, 1, 1, 0, 4, 0, 4, 1]);
  assert.equal(Array.from(index.object), [4, 3, 3, 2, 2, 1, 0, 1]);
  assert.equal(Array.from(index.fingerprints.lo), [2, 5, 9, 1, 4, 0xb0, 0, 3]);
  assert.equal(Array.from(index.fingerprints.hi), [0, 0, 0, 0, 0, 0, 1, 0]);
  assert.is(index.fingerprints.get(6), "0000000100000000");
  assert.is(index.spo.rows, null);
  assert.ok(
    index.spo.first === index.subject && index.pos.first === index.predicate && index.osp.first === index.object,
  );
});

test("build: POS and OSP permutations, by hand", () => {
  const index = handBuilt();
  // POS (p, o, s, fp): p0: rows 5 (o1), 3 (o2), 0 (o4); p1: 7 (o1), 1, 2 (o3, fp 5 < 9); p4: 6 (o0), 4 (o2).
  assert.equal(Array.from(index.pos.rows ?? []), [5, 3, 0, 7, 1, 2, 6, 4]);
  // OSP (o, s, p, fp): o0: 6; o1: 5 (s2), 7 (s4); o2: 3 (s1 p0), 4 (s1 p4); o3: 1, 2; o4: 0.
  assert.equal(Array.from(index.osp.rows ?? []), [6, 5, 7, 3, 4, 1, 2, 0]);
  // 3 id columns + 2 permutations, 4 bytes each.
  assert.is(index.byteLength, 8 * 4 * 5);
});

test("build reports progress 1..6 of 6", () => {
  const calls: [number, number][] = [];
  handBuilt((done, total) => calls.push([done, total]));
  assert.equal(calls, [
    [1, 6],
    [2, 6],
    [3, 6],
    [4, 6],
    [5, 6],
    [6, 6],
  ]);
});

test("build: text and hex fingerprints on one triple sort as strings, and the side table follows its rows", () => {
  // Given as "b", ffff..., "Z", 0000..., "a" on (1,0,1); plus (0,0,0) "fp" and (1,0,0) hex 7 around them.
  const index = StatementIndex.build(
    {
      subject: Uint32Array.of(1, 1, 1, 1, 1, 0, 1),
      predicate: Uint32Array.of(0, 0, 0, 0, 0, 0, 0),
      object: Uint32Array.of(1, 1, 1, 1, 1, 0, 0),
      fingerprints: new FingerprintColumn(
        Uint32Array.of(0, 0xffffffff, 0, 0, 0, 0, 0),
        Uint32Array.of(0, 0xffffffff, 0, 0, 0, 0, 7),
        new Map([
          [0, "b"],
          [2, "Z"],
          [4, "a"],
          [5, "fp"],
        ]),
      ),
    },
    2,
  );
  const all = Array.from({ length: 7 }, (_, row) => index.fingerprints.get(row));
  assert.equal(all, ["fp", "0000000000000007", "0000000000000000", "Z", "a", "b", "ffffffffffffffff"]);
  assert.equal(Array.from(index.subject), [0, 1, 1, 1, 1, 1, 1]);
  assert.equal(Array.from(index.object), [0, 0, 1, 1, 1, 1, 1]);
  // POS (p, o, s, fp) and OSP (o, s, p, fp) keep the fingerprint order within the triple.
  assert.equal(Array.from(index.pos.rows ?? []), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(Array.from(index.osp.rows ?? []), [0, 1, 2, 3, 4, 5, 6]);
});

test("build: no statements", () => {
  const none = new Uint32Array(0);
  const index = StatementIndex.build(
    { subject: none, predicate: none, object: none, fingerprints: new FingerprintColumn(none, none, new Map()) },
    3,
  );
  assert.is(index.length, 0);
  assert.equal(index.plan({ subject: 0, predicate: undefined, object: undefined }).index.range([0]), [0, 0]);
});

test("plan: the contract's index for each of the eight filter combinations, bound in its component order", () => {
  const index = handBuilt();
  const u = undefined;
  // s = 1, p = 0 (dense id 0 is a filter too), o = 2.
  const cases: [string, DenseFilter, "SPO" | "POS" | "OSP", number[]][] = [
    ["none", { subject: u, predicate: u, object: u }, "SPO", []],
    ["S", { subject: 1, predicate: u, object: u }, "SPO", [1]],
    ["S+P", { subject: 1, predicate: 0, object: u }, "SPO", [1, 0]],
    ["S+P+O", { subject: 1, predicate: 0, object: 2 }, "SPO", [1, 0, 2]],
    ["P", { subject: u, predicate: 0, object: u }, "POS", [0]],
    ["P+O", { subject: u, predicate: 0, object: 2 }, "POS", [0, 2]],
    ["O", { subject: u, predicate: u, object: 2 }, "OSP", [2]],
    ["O+S", { subject: 1, predicate: u, object: 2 }, "OSP", [2, 1]],
  ];
  const byOrder = { SPO: index.spo, POS: index.pos, OSP: index.osp };
  for (const [name, filter, order, bound] of cases) {
    const plan = index.plan(filter);
    assert.ok(plan.index === byOrder[order], `${name}: ${plan.index.order}, want ${order}`);
    assert.equal(plan.bound, bound, name);
  }
  // Subject 0 with object 3 is O+S, not S: the subject id 0 must count as given.
  const zero = index.plan({ subject: 0, predicate: u, object: 3 });
  assert.is(zero.index.order, "OSP");
  assert.equal(zero.bound, [3, 0]);
});

test("plan + range: the matching statements, in the contract's order (hand-checked)", () => {
  const index = handBuilt();
  const u = undefined;
  /** SPO rows (stored rows) of a filter's page. */
  const rowsFor = (f: DenseFilter) => {
    const { index: ix, bound } = index.plan(f);
    const [lo, hi] = ix.range(bound);
    const out: number[] = [];
    for (let j = lo; j < hi; j++) out.push(ix.rowAt(j));
    return out;
  };
  assert.equal(rowsFor({ subject: u, predicate: u, object: u }), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(rowsFor({ subject: 1, predicate: u, object: u }), [3, 4]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: u }), [3]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: 2 }), [3]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: 1 }), []);
  // P = 0 in POS order: (0,1,2) row 5, (0,2,1) row 3, (0,4,0) row 0.
  assert.equal(rowsFor({ subject: u, predicate: 0, object: u }), [5, 3, 0]);
  assert.equal(rowsFor({ subject: u, predicate: 0, object: 2 }), [3]);
  assert.equal(rowsFor({ subject: u, predicate: 2, object: u }), []);
  // O = 2 in OSP order: (2,1,0) row 3, (2,1,4) row 4.
  assert.equal(rowsFor({ subject: u, predicate: u, object: 2 }), [3, 4]);
  assert.equal(rowsFor({ subject: 1, predicate: u, object: 2 }), [3, 4]);
  // O = 1: (1,2,0) row 5 before (1,4,1) row 7; subject 0 with object 3: the repeated triple.
  assert.equal(rowsFor({ subject: u, predicate: u, object: 1 }), [5, 7]);
  assert.equal(rowsFor({ subject: 0, predicate: u, object: 3 }), [1, 2]);
  assert.equal(rowsFor({ subject: 0, predicate: 1, object: 3 }), [1, 2]);
});

// ---------------------------------------------------------------------------------------------
// Seeded oracle

type Order = "SPO" | "POS" | "OSP";
type Row = { s: number; p: number; o: number; fp: string };

const TEXT_FPS = ["A", "Z", "a", "fp-1", "g"];

function components(order: Order, r: Row): number[] {
  return order === "SPO" ? [r.s, r.p, r.o] : order === "POS" ? [r.p, r.o, r.s] : [r.o, r.s, r.p];
}

function compareKey(order: Order, a: Row, b: Row): number {
  const x = components(order, a);
  const y = components(order, b);
  for (let k = 0; k < 3; k++) if (x[k] !== y[k]) return (x[k] as number) - (y[k] as number);
  return a.fp < b.fp ? -1 : a.fp > b.fp ? 1 : 0;
}

/** The contract's table: which order serves a filter. */
function contractOrder(f: DenseFilter): Order {
  if (f.predicate !== undefined && f.subject === undefined) return "POS";
  if (f.object !== undefined && f.subject === undefined) return "OSP";
  if (f.object !== undefined && f.predicate === undefined) return "OSP";
  return "SPO";
}

function keyText(r: Row): string {
  return `${r.s},${r.p},${r.o},${r.fp}`;
}

test("oracle: every order against a sort by the contract's keys, every plan + range against a filter", () => {
  for (let seed = 1; seed <= 150; seed++) {
    const rng = new Rng(seed);
    const n = rng.range(1, 7);
    const m = rng.int(60);
    const withText = rng.chance(0.4);
    const input: Row[] = [];
    for (let i = 0; i < m; i++) {
      const fp =
        withText && rng.chance(0.3)
          ? rng.pick(TEXT_FPS)
          : `${rng.pick(["00000000", "00000001", "ffffffff"])}${rng.pick(["00000000", "00000005", "80000000", "ffffffff"])}`;
      input.push({ s: rng.int(n), p: rng.int(n), o: rng.int(n), fp });
    }
    const text = new Map<number, string>();
    input.forEach((r, i) => {
      if (!/^[0-9a-f]{16}$/.test(r.fp)) text.set(i, r.fp);
    });
    const hex = (r: Row, half: 0 | 1) =>
      /^[0-9a-f]{16}$/.test(r.fp) ? parseInt(r.fp.slice(8 * half, 8 * half + 8), 16) : 0;
    const index = StatementIndex.build(
      {
        subject: Uint32Array.from(input, (r) => r.s),
        predicate: Uint32Array.from(input, (r) => r.p),
        object: Uint32Array.from(input, (r) => r.o),
        fingerprints: new FingerprintColumn(
          Uint32Array.from(input, (r) => hex(r, 0)),
          Uint32Array.from(input, (r) => hex(r, 1)),
          text,
        ),
      },
      n,
    );
    const stored: Row[] = Array.from({ length: m }, (_, row) => ({
      s: index.subject[row] as number,
      p: index.predicate[row] as number,
      o: index.object[row] as number,
      fp: index.fingerprints.get(row),
    }));
    const ctx = `seed ${seed}`;
    // The stored rows are the input rows (same multiset) in SPO order.
    assert.equal(stored.map(keyText).sort(), input.map(keyText).sort(), `${ctx}: stored rows are not the input rows`);
    const indexes = { SPO: index.spo, POS: index.pos, OSP: index.osp };
    for (const order of ["SPO", "POS", "OSP"] as const) {
      const ix = indexes[order];
      const rows = Array.from({ length: m }, (_, j) => ix.rowAt(j));
      assert.equal(
        [...rows].sort((a, b) => a - b),
        Array.from({ length: m }, (_, j) => j),
        `${ctx}: ${order} is not a permutation`,
      );
      const got = rows.map((row) => stored[row] as Row);
      const want = [...input].sort((a, b) => compareKey(order, a, b));
      assert.equal(got.map(keyText), want.map(keyText), `${ctx}: ${order} order`);
    }
    // Every filter combination, ids drawn from the entities.
    for (let k = 0; k < 40; k++) {
      const f: DenseFilter = {
        subject: rng.chance(0.5) ? rng.int(n) : undefined,
        predicate: rng.chance(0.5) ? rng.int(n) : undefined,
        object: rng.chance(0.5) ? rng.int(n) : undefined,
      };
      const order = contractOrder(f);
      const plan = index.plan(f);
      if (plan.index.order !== order)
        assert.unreachable(`${ctx}: plan(${show(f)}) uses ${plan.index.order}, contract says ${order}`);
      const [lo, hi] = plan.index.range(plan.bound);
      const got: Row[] = [];
      for (let j = lo; j < hi; j++) got.push(stored[plan.index.rowAt(j)] as Row);
      const want = input
        .filter(
          (r) =>
            (f.subject === undefined || r.s === f.subject) &&
            (f.predicate === undefined || r.p === f.predicate) &&
            (f.object === undefined || r.o === f.object),
        )
        .sort((a, b) => compareKey(order, a, b));
      if (show(got.map(keyText)) !== show(want.map(keyText))) {
        assert.unreachable(
          `${ctx}: plan(${show(f)}) + range gives ${show(got.map(keyText))}, want ${show(want.map(keyText))}`,
        );
      }
    }
  }
});

test.run();

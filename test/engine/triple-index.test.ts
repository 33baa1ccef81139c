/**
 * Triple index tests
 * ==================
 * src/engine/triple-index.ts on its own: three TripleIndex orders over one hand-sorted set of eight
 * statements (five entities, one triple twice under two fingerprints), with the POS and OSP
 * permutations worked out by hand. `range` on hand-checked bounds, including empty ranges between
 * and beyond the keys; `seekAfter` with exact keys (resuming right after a row, the fingerprint
 * breaking the tie) and inexact ones (an entityId that is gone sits between two dense ids and never
 * compares equal). Then a seeded oracle: random columns, sorted here by the contract's keys, every
 * range against a filter and every seek against a linear scan, with hex and text fingerprints.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { TripleIndex, type SeekKey } from "../../src/engine/triple-index.js";
import { FingerprintColumn } from "../../src/engine/fingerprint-column.js";
import { hex64 } from "../../src/engine/hash64.js";
import { Rng, show } from "../support/oracle.js";

// The eight statements in SPO order (position = row), fingerprints as (hi, lo):
//   row  s p o  fingerprint
//    0   0 0 4  0000000000000002
//    1   0 1 3  0000000000000005
//    2   0 1 3  0000000000000009   (same triple as row 1, later fingerprint)
//    3   1 0 2  0000000000000001
//    4   1 4 2  0000000000000004
//    5   2 0 1  00000000000000b0
//    6   3 4 0  0000000100000000
//    7   4 1 1  0000000000000003
const S = Uint32Array.of(0, 0, 0, 1, 1, 2, 3, 4);
const P = Uint32Array.of(0, 1, 1, 0, 4, 0, 4, 1);
const O = Uint32Array.of(4, 3, 3, 2, 2, 1, 0, 1);
const FP_HI = Uint32Array.of(0, 0, 0, 0, 0, 0, 1, 0);
const FP_LO = Uint32Array.of(2, 5, 9, 1, 4, 0xb0, 0, 3);
// POS (p, o, s, fp): p=0: rows 5 (o1), 3 (o2), 0 (o4); p=1: 7 (o1), 1 and 2 (o3, fp 5 < 9); p=4: 6 (o0), 4 (o2).
const POS_ROWS = Uint32Array.of(5, 3, 0, 7, 1, 2, 6, 4);
// OSP (o, s, p, fp): o=0: 6; o=1: 5 (s2), 7 (s4); o=2: 3 (s1 p0), 4 (s1 p4); o=3: 1, 2; o=4: 0.
const OSP_ROWS = Uint32Array.of(6, 5, 7, 3, 4, 1, 2, 0);

function handIndexes(): { spo: TripleIndex; pos: TripleIndex; osp: TripleIndex } {
  const fps = new FingerprintColumn(FP_HI, FP_LO, new Map());
  return {
    spo: new TripleIndex("SPO", [S, P, O], null, fps),
    pos: new TripleIndex("POS", [P, O, S], POS_ROWS, fps),
    osp: new TripleIndex("OSP", [O, S, P], OSP_ROWS, fps),
  };
}

function fp(hi: number, lo: number): string {
  return hex64(hi, lo);
}

function exactKey(ids: [number, number, number], fingerprint: string): SeekKey {
  return { ids, exact: [true, true, true], fingerprint };
}

test("rowAt: SPO is the stored order, POS and OSP go through their permutation", () => {
  const { spo, pos, osp } = handIndexes();
  assert.is(spo.length, 8);
  assert.is(spo.rows, null);
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7].map((j) => spo.rowAt(j)),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7].map((j) => pos.rowAt(j)),
    [5, 3, 0, 7, 1, 2, 6, 4],
  );
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7].map((j) => osp.rowAt(j)),
    [6, 5, 7, 3, 4, 1, 2, 0],
  );
  assert.is(pos.order, "POS");
  assert.is(osp.order, "OSP");
});

test("range: hand-checked bounds in each order, empty ranges at their insertion point", () => {
  const { spo, pos, osp } = handIndexes();
  const cases: [TripleIndex, number[], [number, number]][] = [
    [spo, [], [0, 8]],
    [spo, [0], [0, 3]],
    [spo, [0, 1], [1, 3]],
    [spo, [0, 1, 3], [1, 3]],
    [spo, [0, 0, 4], [0, 1]],
    [spo, [3], [6, 7]],
    [spo, [4], [7, 8]],
    [spo, [0, 2], [3, 3]], // between (0,1,*) and (1,*,*)
    [spo, [0, 1, 4], [3, 3]],
    [spo, [1, 0, 3], [4, 4]], // between (1,0,2) and (1,4,2)
    [spo, [2, 1], [6, 6]],
    [spo, [5], [8, 8]], // past every key
    [pos, [], [0, 8]],
    [pos, [0], [0, 3]],
    [pos, [1], [3, 6]],
    [pos, [1, 1], [3, 4]],
    [pos, [1, 3], [4, 6]],
    [pos, [1, 3, 0], [4, 6]],
    [pos, [4, 2], [7, 8]],
    [pos, [4, 0, 3], [6, 7]],
    [pos, [4, 0, 2], [6, 6]],
    [pos, [0, 3], [2, 2]],
    [pos, [2], [6, 6]], // no statement has predicate 2
    [osp, [0], [0, 1]],
    [osp, [1], [1, 3]],
    [osp, [2, 1], [3, 5]],
    [osp, [2, 1, 4], [4, 5]],
    [osp, [3, 0], [5, 7]],
    [osp, [3, 0, 1], [5, 7]],
    [osp, [1, 3], [2, 2]], // between (1,2,*) and (1,4,*)
    [osp, [4], [7, 8]],
    [osp, [0, 0], [0, 0]], // before every key
  ];
  for (const [index, bound, want] of cases) assert.equal(index.range(bound), want, `${index.order} ${show(bound)}`);
});

test("seekAfter, exact keys: right after the key's row, the fingerprint breaking ties", () => {
  const { spo, pos, osp } = handIndexes();
  // Row 1 and row 2 share (0,1,3): the fingerprint decides.
  assert.is(spo.seekAfter(0, 8, exactKey([0, 1, 3], fp(0, 5))), 2);
  assert.is(spo.seekAfter(0, 8, exactKey([0, 1, 3], fp(0, 9))), 3);
  assert.is(spo.seekAfter(0, 8, exactKey([0, 1, 3], fp(0, 7))), 2); // a fingerprint between the two
  assert.is(spo.seekAfter(0, 8, exactKey([0, 1, 3], "")), 1); // below every fingerprint
  assert.is(spo.seekAfter(0, 8, exactKey([0, 1, 3], "g")), 3); // above every hex fingerprint
  // The first and the last row.
  assert.is(spo.seekAfter(0, 8, exactKey([0, 0, 4], fp(0, 2))), 1);
  assert.is(spo.seekAfter(0, 8, exactKey([4, 1, 1], fp(0, 3))), 8);
  assert.is(spo.seekAfter(0, 8, exactKey([0, 0, 0], "")), 0);
  // Hex fingerprints compare as strings: (1, 0) is "0000000100000000" > "00000000000000b0".
  assert.is(spo.seekAfter(0, 8, exactKey([3, 4, 0], fp(0, 0xffffffff))), 6);
  assert.is(spo.seekAfter(0, 8, exactKey([3, 4, 0], fp(1, 0))), 7);
  // Within a range: the result stays in [lo, hi).
  assert.is(spo.seekAfter(1, 3, exactKey([0, 1, 3], fp(0, 5))), 2);
  assert.is(spo.seekAfter(1, 3, exactKey([0, 1, 3], fp(0, 9))), 3);
  assert.is(spo.seekAfter(3, 3, exactKey([0, 0, 0], "")), 3);
  assert.is(spo.seekAfter(3, 5, exactKey([0, 0, 0], "")), 3);
  assert.is(spo.seekAfter(3, 5, exactKey([4, 4, 4], "")), 5);
  // POS: (p1, o3, s0) is at POS positions 4 and 5.
  assert.is(pos.seekAfter(0, 8, exactKey([1, 3, 0], fp(0, 5))), 5);
  assert.is(pos.seekAfter(3, 6, exactKey([1, 3, 0], fp(0, 5))), 5);
  assert.is(pos.seekAfter(3, 6, exactKey([1, 3, 0], fp(0, 9))), 6);
  assert.is(pos.seekAfter(0, 8, exactKey([0, 2, 1], fp(0, 1))), 2);
  // OSP: (o2, s1, p0) is position 3.
  assert.is(osp.seekAfter(0, 8, exactKey([2, 1, 0], fp(0, 1))), 4);
  assert.is(osp.seekAfter(3, 5, exactKey([2, 1, 0], fp(0, 1))), 4);
});

test("seekAfter, inexact keys: an absent id lands between its neighbours, never equal", () => {
  const { spo, pos, osp } = handIndexes();
  // Subject gone, lowerBound 1 (between 0 and 1): after every row of subject 0, before subject 1,
  // whatever the later components say. Taken as exact, (1,4,2,"fff...") would give 5.
  assert.is(spo.seekAfter(0, 8, { ids: [1, 4, 2], exact: [false, true, true], fingerprint: "ffffffffffffffff" }), 3);
  assert.is(spo.seekAfter(0, 8, { ids: [1, 0, 0], exact: [false, true, true], fingerprint: "" }), 3);
  // Subject past every id (lowerBound = entity count): the end.
  assert.is(spo.seekAfter(0, 8, { ids: [5, 0, 0], exact: [false, true, true], fingerprint: "" }), 8);
  // Subject before every id (lowerBound 0): the start. Taken as exact, (0,0,4,fp2) would give 1.
  assert.is(spo.seekAfter(0, 8, { ids: [0, 0, 4], exact: [false, true, true], fingerprint: fp(0, 2) }), 0);
  // Predicate gone between 0 and 1, subject 0: after (0,0,4), before (0,1,3).
  assert.is(spo.seekAfter(0, 8, { ids: [0, 1, 0], exact: [true, false, true], fingerprint: "" }), 1);
  // Object gone between 3 and 4 under (0,1): after both (0,1,3) rows.
  assert.is(spo.seekAfter(0, 8, { ids: [0, 1, 4], exact: [true, true, false], fingerprint: "" }), 3);
  // Object gone between 2 and 3 under (0,1): before both (0,1,3) rows. As exact it would give 3.
  assert.is(spo.seekAfter(0, 8, { ids: [0, 1, 3], exact: [true, true, false], fingerprint: "ffffffffffffffff" }), 1);
  // Object gone between 3 and 4 under (0,0): (0,0,4) is above it. As exact it would give 1.
  assert.is(spo.seekAfter(0, 8, { ids: [0, 0, 4], exact: [true, true, false], fingerprint: fp(0, 2) }), 0);
  // POS: object gone between 2 and 3 under p1: before (1,3,*), after (1,1,4).
  assert.is(pos.seekAfter(0, 8, { ids: [1, 3, 0], exact: [true, false, true], fingerprint: fp(0, 9) }), 4);
  assert.is(pos.seekAfter(0, 8, exactKey([1, 3, 0], fp(0, 9))), 6);
  // OSP: subject gone between 2 and 3 under o0: (0,3,4) lies above it. As exact it would give 1.
  assert.is(osp.seekAfter(0, 8, { ids: [0, 3, 4], exact: [true, false, true], fingerprint: fp(1, 0) }), 0);
  assert.is(osp.seekAfter(0, 8, exactKey([0, 3, 4], fp(1, 0))), 1);
});

test("text fingerprints (the side table) compare as strings with hex ones", () => {
  // One triple, five fingerprints: "0000000000000000" < "Z" < "a" < "b" < "ffffffffffffffff".
  const s = Uint32Array.of(0, 0, 0, 0, 0);
  const fps = new FingerprintColumn(
    Uint32Array.of(0, 0, 0, 0, 0xffffffff),
    Uint32Array.of(0, 0, 0, 0, 0xffffffff),
    new Map([
      [1, "Z"],
      [2, "a"],
      [3, "b"],
    ]),
  );
  const spo = new TripleIndex("SPO", [s, s, s], null, fps);
  const key = (fingerprint: string) => exactKey([0, 0, 0], fingerprint);
  assert.is(spo.seekAfter(0, 5, key("0000000000000000")), 1);
  assert.is(spo.seekAfter(0, 5, key("Z")), 2);
  assert.is(spo.seekAfter(0, 5, key("Za")), 2);
  assert.is(spo.seekAfter(0, 5, key("a")), 3);
  assert.is(spo.seekAfter(0, 5, key("b")), 4);
  assert.is(spo.seekAfter(0, 5, key("c")), 4);
  assert.is(spo.seekAfter(0, 5, key("ffffffffffffffff")), 5);
  assert.is(spo.seekAfter(0, 5, key("1")), 1);
  assert.equal(spo.range([0, 0, 0]), [0, 5]);
});

// ---------------------------------------------------------------------------------------------
// Seeded oracle

type Row = { s: number; p: number; o: number; fp: string };

const TEXT_FPS = ["A", "Z", "a", "fp-1", "g", "0"];

function componentsOf(order: "SPO" | "POS" | "OSP", r: Row): [number, number, number] {
  return order === "SPO" ? [r.s, r.p, r.o] : order === "POS" ? [r.p, r.o, r.s] : [r.o, r.s, r.p];
}

/** The contract's sort key of a row in `order`, compared component-wise, the fingerprint as a string. */
function compareRows(order: "SPO" | "POS" | "OSP", a: Row, b: Row): number {
  const x = componentsOf(order, a);
  const y = componentsOf(order, b);
  for (let k = 0; k < 3; k++) if (x[k] !== y[k]) return (x[k] as number) - (y[k] as number);
  return a.fp < b.fp ? -1 : a.fp > b.fp ? 1 : 0;
}

/** A seek key compared to a row: an inexact component sits at id - 0.5. */
function compareRowToKey(order: "SPO" | "POS" | "OSP", r: Row, key: SeekKey): number {
  const x = componentsOf(order, r);
  for (let k = 0; k < 3; k++) {
    const at = key.exact[k] ? (key.ids[k] as number) : (key.ids[k] as number) - 0.5;
    if (x[k] !== at) return (x[k] as number) - at;
  }
  return r.fp < key.fingerprint ? -1 : r.fp > key.fingerprint ? 1 : 0;
}

test("oracle: range against a filter, seekAfter against a linear scan, random columns", () => {
  for (let seed = 1; seed <= 150; seed++) {
    const rng = new Rng(seed);
    const n = rng.range(1, 6);
    const m = rng.int(40);
    const withText = rng.chance(0.4);
    const rows: Row[] = [];
    for (let i = 0; i < m; i++) {
      const f =
        withText && rng.chance(0.3)
          ? rng.pick(TEXT_FPS)
          : fp(rng.pick([0, 1, 0xffffffff]), rng.pick([0, 5, 0x80000000, 0xffffffff]));
      rows.push({ s: rng.int(n), p: rng.int(n), o: rng.int(n), fp: f });
    }
    // Stored in SPO order, as StatementIndex stores them.
    rows.sort((a, b) => compareRows("SPO", a, b));
    const text = new Map<number, string>();
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    rows.forEach((r, i) => {
      if (/^[0-9a-f]{16}$/.test(r.fp)) {
        hi[i] = parseInt(r.fp.slice(0, 8), 16);
        lo[i] = parseInt(r.fp.slice(8), 16);
      } else text.set(i, r.fp);
    });
    const fps = new FingerprintColumn(hi, lo, text);
    const col = (f: (r: Row) => number) => Uint32Array.from(rows, f);
    const [cs, cp, co] = [col((r) => r.s), col((r) => r.p), col((r) => r.o)];
    const permutation = (order: "POS" | "OSP") =>
      Uint32Array.from(
        rows.map((_, i) => i).sort((a, b) => compareRows(order, rows[a] as Row, rows[b] as Row) || a - b),
      );
    const indexes = [
      new TripleIndex("SPO", [cs, cp, co], null, fps),
      new TripleIndex("POS", [cp, co, cs], permutation("POS"), fps),
      new TripleIndex("OSP", [co, cs, cp], permutation("OSP"), fps),
    ];
    for (const index of indexes) {
      const order = index.order;
      const sorted = Array.from({ length: m }, (_, j) => rows[index.rowAt(j)] as Row);
      for (let k = 0; k < 60; k++) {
        const ctx = () => `seed ${seed} ${order}`;
        // range: [lo, hi) = the rows whose prefix equals the bound; lo = how many sort below it.
        const bound = Array.from({ length: rng.int(4) }, () => rng.int(n + 1));
        const matches = (r: Row) => bound.every((b, c) => componentsOf(order, r)[c] === b);
        const below = (r: Row) => {
          const x = componentsOf(order, r);
          for (let c = 0; c < bound.length; c++) if (x[c] !== bound[c]) return (x[c] as number) < (bound[c] as number);
          return false;
        };
        const wantLo = sorted.filter(below).length;
        const wantHi = wantLo + sorted.filter(matches).length;
        const [gotLo, gotHi] = index.range(bound);
        if (gotLo !== wantLo || gotHi !== wantHi)
          assert.unreachable(`${ctx()}: range(${show(bound)}) = [${gotLo}, ${gotHi}), want [${wantLo}, ${wantHi})`);
        for (let j = gotLo; j < gotHi; j++)
          if (!matches(sorted[j] as Row))
            assert.unreachable(`${ctx()}: range(${show(bound)}) holds a non-match at ${j}`);
        // seekAfter: from a row's own key (exact), or a random key with absent ids.
        let key: SeekKey;
        if (m > 0 && rng.chance(0.5)) {
          const r = rng.pick(sorted);
          key = exactKey(componentsOf(order, r), r.fp);
        } else {
          const exact: [boolean, boolean, boolean] = [rng.chance(0.5), rng.chance(0.5), rng.chance(0.5)];
          const ids: [number, number, number] = [0, 0, 0];
          for (let c = 0; c < 3; c++) ids[c] = exact[c] ? rng.int(n) : rng.int(n + 1);
          key = {
            ids,
            exact,
            fingerprint: rng.chance(0.5) ? rng.pick(TEXT_FPS) : fp(rng.pick([0, 1]), rng.pick([0, 5, 7])),
          };
        }
        const [from, to] = rng.chance(0.5) ? [gotLo, gotHi] : [0, m];
        let want = from;
        while (want < to && compareRowToKey(order, sorted[want] as Row, key) <= 0) want++;
        const got = index.seekAfter(from, to, key);
        if (got !== want)
          assert.unreachable(
            `${ctx()}: seekAfter(${from}, ${to}, ${show(key)}) = ${got}, want ${want}; rows ${show(sorted)}`,
          );
      }
    }
  }
});

test.run();

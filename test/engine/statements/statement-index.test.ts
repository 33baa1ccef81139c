/**
 * Statement index tests
 * =====================
 * src/engine/statements/statement-index.ts: `plan` for each of the eight filter combinations on a hand-made set
 * (five entities, eight statements given out of order, one triple twice under two fingerprints),
 * naming CONTRACT.md's order and the rows it returns (dense id 0 included, so "given" is never
 * confused with "truthy"); then a seeded oracle on random triples over enough entities to exercise
 * the sampled offsets: every order against a sort by the contract's keys, every filter's range
 * against a scan, every seek after every key (present, or between two rows) against the sorted list.
 * Predicate and object ranges of hundreds of positions pass through the key samples (key-sample.ts).
 * And a restore with verify: each id column and each order with one value out of range is refused
 * naming the first bad row or position.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GivenFingerprint } from "../../../src/engine/statements/fingerprint-column.js";
import { hex64 } from "../../../src/engine/hash64.js";
import {
  type DenseFilter,
  type IndexOrder,
  OBJECT,
  PREDICATE,
  type SeekKey,
  StatementIndex,
  SUBJECT,
} from "../../../src/engine/statements/statement-index.js";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { writeBits } from "../../../src/engine/succinct/int-vector.js";
import { Rng } from "../../support/oracle.js";

interface Row {
  s: number;
  p: number;
  o: number;
  fp: string;
}

/** Hex fingerprints as halves, anything else as text. */
function givenOf(fp: string): GivenFingerprint {
  return /^[0-9a-f]{16}$/.test(fp)
    ? { hi: Number.parseInt(fp.slice(0, 8), 16), lo: Number.parseInt(fp.slice(8), 16) }
    : fp;
}

function build(rows: readonly Row[], entities: number): StatementIndex {
  return StatementIndex.build(
    {
      subject: Uint32Array.from(rows, (r) => r.s),
      predicate: Uint32Array.from(rows, (r) => r.p),
      object: Uint32Array.from(rows, (r) => r.o),
      given: (i) => givenOf(rows[i]!.fp),
    },
    entities,
    (i) => rows[i]!.fp,
  );
}

/** The row as stored: components (the predicate as its dense id) and the fingerprint. */
function stored(index: StatementIndex, row: number): Row {
  return {
    s: index.subjectOf(row),
    p: index.predicateOf(row),
    o: index.objectOf(row),
    fp: index.fingerprints.given(row) ?? "?",
  };
}

function key(order: IndexOrder, r: Row): number[] {
  return order === "SPO" ? [r.s, r.p, r.o] : order === "POS" ? [r.p, r.o, r.s] : [r.o, r.s, r.p];
}

function compare(order: IndexOrder, a: Row, b: Row): number {
  const x = key(order, a);
  const y = key(order, b);
  for (let k = 0; k < 3; k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
  return a.fp < b.fp ? -1 : a.fp > b.fp ? 1 : 0;
}

/** The contract's table: which order serves a filter. */
function contractOrder(f: DenseFilter): IndexOrder {
  if (f.subject !== undefined) return f.object !== undefined && f.predicate === undefined ? "OSP" : "SPO";
  if (f.predicate !== undefined) return "POS";
  return f.object !== undefined ? "OSP" : "SPO";
}

function matches(f: DenseFilter, r: Row): boolean {
  return (
    (f.subject === undefined || r.s === f.subject) &&
    (f.predicate === undefined || r.p === f.predicate) &&
    (f.object === undefined || r.o === f.object)
  );
}

const hex = (n: number) => hex64(0, n);

// Entities 0..4; predicates 0, 1 and 4. Rows given out of order; (0,1,3) twice.
const HAND: Row[] = [
  { s: 2, p: 0, o: 1, fp: hex(0xb0) },
  { s: 0, p: 1, o: 3, fp: hex(9) },
  { s: 1, p: 0, o: 2, fp: hex(1) },
  { s: 0, p: 1, o: 3, fp: hex(5) },
  { s: 3, p: 4, o: 0, fp: hex64(1, 0) },
  { s: 0, p: 0, o: 4, fp: hex(2) },
  { s: 4, p: 1, o: 1, fp: hex(3) },
  { s: 1, p: 4, o: 2, fp: hex(4) },
];

test("plan: the contract's order for each of the eight filter combinations, and its rows in order", () => {
  const index = build(HAND, 5);
  const u = undefined;
  const rowsFor = (f: DenseFilter) => {
    const plan = index.plan(f);
    assert.is(plan.order, contractOrder(f), JSON.stringify(f));
    const out: Row[] = [];
    for (let j = plan.lo; j < plan.hi; j++) out.push(stored(index, index.rowAt(plan.order, j)));
    return out.map((r) => `${r.s}${r.p}${r.o}:${r.fp.slice(-2)}`);
  };
  assert.equal(rowsFor({ subject: u, predicate: u, object: u }), [
    "004:02",
    "013:05",
    "013:09",
    "102:01",
    "142:04",
    "201:b0",
    "340:00",
    "411:03",
  ]);
  assert.equal(rowsFor({ subject: 1, predicate: u, object: u }), ["102:01", "142:04"]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: u }), ["102:01"]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: 2 }), ["102:01"]);
  assert.equal(rowsFor({ subject: 1, predicate: 0, object: 1 }), []);
  assert.equal(rowsFor({ subject: u, predicate: 0, object: u }), ["201:b0", "102:01", "004:02"]);
  assert.equal(rowsFor({ subject: u, predicate: 0, object: 2 }), ["102:01"]);
  // Entity 2 is never a predicate: nothing, not an error.
  assert.equal(rowsFor({ subject: u, predicate: 2, object: u }), []);
  assert.equal(rowsFor({ subject: u, predicate: u, object: 2 }), ["102:01", "142:04"]);
  assert.equal(rowsFor({ subject: 1, predicate: u, object: 2 }), ["102:01", "142:04"]);
  assert.equal(rowsFor({ subject: u, predicate: u, object: 1 }), ["201:b0", "411:03"]);
  // Subject 0 with object 3 is O+S, not S: the subject id 0 must count as given.
  assert.equal(rowsFor({ subject: 0, predicate: u, object: 3 }), ["013:05", "013:09"]);
  assert.equal(rowsFor({ subject: 0, predicate: 1, object: 3 }), ["013:05", "013:09"]);
  assert.equal(Array.from(index.predicates), [0, 1, 4]);
});

test("touchRows reads each row's hex fingerprint with it: its fold is the rows' (as without fingerprints) xor their halves", () => {
  const rng = new Rng(31);
  const entities = 300;
  const triples = new Map<string, Row>();
  while (triples.size < 2000) {
    const r = { s: rng.int(entities), p: rng.int(7), o: rng.int(entities), fp: "" };
    r.fp = hex64(rng.int(0x100000000) >>> 0, rng.int(0x100000000) >>> 0);
    triples.set(`${r.s} ${r.p} ${r.o}`, r);
  }
  const rows = [...triples.values()];
  const withHex = build(rows, entities);
  // The same triples with no fingerprint given: the same rows in the same words, nothing else read.
  const derived = StatementIndex.build(
    {
      subject: Uint32Array.from(rows, (r) => r.s),
      predicate: Uint32Array.from(rows, (r) => r.p),
      object: Uint32Array.from(rows, (r) => r.o),
      given: () => undefined,
    },
    entities,
    () => "",
  );
  assert.is(derived.fingerprints.touchHalves, null);
  const halves: [number, number] = [0, 0];
  for (let round = 0; round < 20; round++) {
    const page = Uint32Array.from({ length: 1 + rng.int(100) }, () => rng.int(rows.length));
    withHex.touchRows(page, page.length);
    derived.touchRows(page, page.length);
    let want = 0;
    for (const row of page) {
      assert.ok(withHex.fingerprints.hexHalves(row, halves));
      want ^= halves[0] ^ halves[1];
    }
    assert.is(withHex.touched ^ derived.touched, want, `round ${round}`);
  }
});

test("build reports progress 1..6 of 6; an empty index plans empty ranges", () => {
  const seen: string[] = [];
  StatementIndex.build(
    { subject: Uint32Array.of(0), predicate: Uint32Array.of(0), object: Uint32Array.of(0), given: () => undefined },
    1,
    () => "x",
    (done, total) => seen.push(`${done}/${total}`),
  );
  assert.equal(seen, ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"]);
  const empty = StatementIndex.build(
    { subject: new Uint32Array(0), predicate: new Uint32Array(0), object: new Uint32Array(0), given: () => undefined },
    3,
    () => "x",
  );
  assert.equal(empty.plan({ subject: 1, predicate: undefined, object: undefined }), { order: "SPO", lo: 0, hi: 0 });
  assert.equal(empty.plan({ subject: undefined, predicate: 1, object: undefined }), { order: "POS", lo: 0, hi: 0 });
  assert.equal(empty.plan({ subject: undefined, predicate: undefined, object: undefined }), {
    order: "SPO",
    lo: 0,
    hi: 0,
  });
});

test("oracle: orders, filter ranges and seeks against sorts and scans of random triples", () => {
  const TEXT = ["A", "Z", "a", "fp-1", "g"];
  let checks = 0;
  for (let seed = 1; seed <= 120; seed++) {
    const rng = new Rng(seed);
    // Enough entities now and then to span several sampled offsets.
    const n = rng.chance(0.3) ? rng.range(40, 200) : rng.range(1, 8);
    const m = rng.int(rng.chance(0.3) ? 600 : 60);
    const input: Row[] = [];
    const used = new Set<string>();
    for (let i = 0; i < m; i++) {
      const row: Row = {
        s: rng.int(n),
        p: rng.int(Math.min(n, rng.chance(0.5) ? 3 : n)),
        // Now and then a heavy object or two: object ranges of hundreds of positions, which the
        // OSP key sample narrows (as the POS one narrows the few predicates' ranges).
        o: rng.int(Math.min(n, rng.chance(0.25) ? 2 : n)),
        fp: rng.chance(0.2) ? rng.pick(TEXT) + i : hex64(rng.int(3), rng.int(1 << 30)),
      };
      // One triple may repeat under another fingerprint; a fingerprint never repeats.
      if (used.has(row.fp)) continue;
      used.add(row.fp);
      input.push(row);
    }
    const index = build(input, n);
    const ctx = `seed ${seed}`;
    for (const order of ["SPO", "POS", "OSP"] as const) {
      const want = input.slice().sort((a, b) => compare(order, a, b));
      const got = want.map((_, j) => stored(index, index.rowAt(order, j)));
      assert.equal(got, want, `${ctx} ${order}`);
    }
    for (let k = 0; k < 40; k++) {
      const pick =
        input.length > 0 && rng.chance(0.8) ? rng.pick(input) : { s: rng.int(n), p: rng.int(n), o: rng.int(n) };
      const mask = rng.int(8);
      const f: DenseFilter = {
        subject: mask & 1 ? pick.s : undefined,
        predicate: mask & 2 ? pick.p : undefined,
        object: mask & 4 ? pick.o : undefined,
      };
      const plan = index.plan(f);
      const order = contractOrder(f);
      assert.is(plan.order, order, ctx);
      const want = input.filter((r) => matches(f, r)).sort((a, b) => compare(order, a, b));
      const got: Row[] = [];
      for (let j = plan.lo; j < plan.hi; j++) got.push(stored(index, index.rowAt(order, j)));
      assert.equal(got, want, `${ctx} filter ${JSON.stringify(f)}`);
      // Seek after each matching row's key, and after keys between rows.
      for (const after of [...want, { s: rng.int(n), p: rng.int(n), o: rng.int(n), fp: "m" }]) {
        const seek: SeekKey = { at: [0, 0, 0], exact: [true, true, true], fingerprint: after.fp };
        seek.at[SUBJECT] = after.s;
        seek.at[OBJECT] = after.o;
        // Predicates compare by index among the graph's predicates; a non-predicate sits between.
        const pi = index.predicateLowerBound(after.p);
        seek.at[PREDICATE] = pi;
        seek.exact[PREDICATE] = index.predicates[pi] === after.p;
        const start = index.seekAfter(order, plan.lo, plan.hi, seek, (row) => stored(index, row).fp);
        const expected = plan.lo + want.filter((r) => compare(order, r, after) <= 0).length;
        assert.is(start, expected, `${ctx} seek after ${JSON.stringify(after)} in ${JSON.stringify(f)}`);
        checks++;
      }
    }
  }
  assert.ok(checks > 3000, `only ${checks} checks`);
});

test("oracle: long runs (a heavy subject, predicate-object pairs of hundreds of rows): every filter's range equals a scan", () => {
  // Ranges far longer than a key sample's gap, so that the bound searches run over long stretches
  // (a heavy subject's SPO rows, too long to be read before the search), with and without a key
  // sample narrowing them first, and the upper bound's gallop goes a long way.
  let checks = 0;
  for (let seed = 1; seed <= 6; seed++) {
    const rng = new Rng(1000 + seed);
    const n = rng.range(20, 60);
    const m = rng.range(2000, 4000);
    const input: Row[] = [];
    for (let i = 0; i < m; i++) {
      input.push({
        s: rng.chance(0.5) ? 0 : rng.int(n),
        p: rng.int(rng.chance(0.7) ? 2 : n),
        o: rng.int(rng.chance(0.7) ? 3 : n),
        fp: hex64(seed, i),
      });
    }
    const index = build(input, n);
    for (let k = 0; k < 60; k++) {
      const pick = rng.chance(0.9) ? rng.pick(input) : { s: rng.int(n), p: rng.int(n), o: rng.int(n) };
      const mask = 1 + rng.int(7);
      const f: DenseFilter = {
        subject: mask & 1 ? pick.s : undefined,
        predicate: mask & 2 ? pick.p : undefined,
        object: mask & 4 ? pick.o : undefined,
      };
      const plan = index.plan(f);
      const order = contractOrder(f);
      const want = input.filter((r) => matches(f, r)).sort((a, b) => compare(order, a, b));
      const got: Row[] = [];
      for (let j = plan.lo; j < plan.hi; j++) got.push(stored(index, index.rowAt(order, j)));
      assert.equal(got, want, `seed ${seed} filter ${JSON.stringify(f)}`);
      checks++;
    }
  }
  assert.ok(checks === 360, `${checks} checks`);
});

test("object ranges: a heavy object's window (the Elias-Fano scan declined), a format 5 section (every 16th start) and it saved again agree with scans", () => {
  const rng = new Rng(77);
  const entities = 20000;
  const heavy = 777;
  const rows: Row[] = Array.from({ length: 60000 }, (_, i) => ({
    s: rng.int(entities),
    p: rng.pick([1, 5, 9]),
    o: i % 4 === 0 ? rng.int(entities) : heavy,
    fp: hex(i),
  }));
  const index = build(rows, entities);
  // Format 5: the same fields, less the sequence, plus the start of every 16th object.
  const w = new MemorySerialWriter();
  index.serialize(w);
  const v5 = new Map([...w.fields].filter(([k]) => !k.startsWith("objectIndex.")));
  const starts = new Uint32Array(Math.floor(entities / 16) + 2);
  // starts[k] = the rows whose object is below 16k: a count per object, summed (one pass, not a scan per k).
  const perObject = new Uint32Array(entities);
  for (const r of rows) perObject[r.o]!++;
  for (let k = 0, below = 0, o = 0; k < starts.length - 1; k++) {
    for (; o < Math.min(k * 16, entities); o++) below += perObject[o]!;
    starts[k] = below;
  }
  starts[starts.length - 1] = rows.length;
  v5.set("objectStarts", starts);
  const reader = new MemorySerialReader(v5 as never, { verify: true, fail: (what) => new Error(what) });
  const old = StatementIndex.deserialize(reader, entities);
  // Saved again, it writes the full sequence (format 6), counted from its rows.
  const again = new MemorySerialWriter();
  old.serialize(again);
  assert.ok(again.fields.has("objectIndex.length") && !again.fields.has("objectStarts"));
  const resaved = StatementIndex.deserialize(
    new MemorySerialReader(again.fields as never, { verify: true, fail: (what) => new Error(what) }),
    entities,
  );
  const objects = [...Array.from({ length: 40 }, (_, i) => heavy - 20 + i), 0, entities - 1, rng.int(entities)];
  // The scan (and its sort) is made once per filter and held against each of the three indexes.
  for (const o of objects) {
    for (const s of [undefined, rows.find((r) => r.o === o)?.s ?? 0]) {
      const f: DenseFilter = { subject: s, predicate: undefined, object: o };
      const want = rows.filter((r) => matches(f, r)).sort((a, b) => compare("OSP", a, b));
      for (const graph of [index, old, resaved]) {
        const plan = graph.plan(f);
        const got: Row[] = [];
        for (let j = plan.lo; j < plan.hi; j++) got.push(stored(graph, graph.rowAt("OSP", j)));
        assert.equal(
          got,
          want,
          `${graph === old ? "format 5" : graph === resaved ? "resaved" : "built"} ${JSON.stringify(f)}`,
        );
      }
    }
  }
});

test("deserialize with verify: an id or a position out of range is refused, naming the first bad one", () => {
  const rng = new Rng(91);
  // 37 entities (not a power of two: 6 bits hold 38..63, which must be refused), 5 predicates.
  const entities = 37;
  const rows: Row[] = Array.from({ length: 300 }, (_, i) => ({
    s: rng.int(entities),
    p: rng.pick([0, 3, 8, 20, 36]),
    o: rng.int(entities),
    fp: hex(i),
  }));
  const index = build(rows, entities);
  const fields = () => {
    const w = new MemorySerialWriter();
    index.serialize(w);
    // Copies: the index's own arrays stay as they are.
    for (const [k, v] of w.fields) if (ArrayBuffer.isView(v)) w.fields.set(k, (v as Uint32Array).slice());
    return w.fields;
  };
  const restore = (f: Map<string, unknown>) =>
    StatementIndex.deserialize(
      new MemorySerialReader(f as never, { verify: true, fail: (what) => new Error(what) }),
      entities,
    );
  assert.is(restore(fields()).length, 300);
  const sBits = 6;
  const pBits = 3;
  const rowBits = 2 * sBits + pBits;
  for (const [name, at, width, bad] of [
    ["subject", 0, sBits, entities],
    ["predicate", sBits, pBits, 5],
    ["object", sBits + pBits, sBits, 63],
  ] as const) {
    for (const row of [0, 17, 299]) {
      const f = fields();
      const words = f.get("rows") as Uint32Array;
      writeBits(words, row * rowBits + at, width, bad);
      // A later row bad too: the error names the first.
      writeBits(words, 299 * rowBits + at, width, bad);
      assert.throws(
        () => restore(f),
        new RegExp(`statement row ${row} names an entity out of range`),
        `${name} ${row}`,
      );
    }
  }
  for (const order of ["pos", "osp"]) {
    for (const position of [0, 150, 299]) {
      const f = fields();
      const words = f.get(`${order}.words`) as Uint32Array;
      const width = f.get(`${order}.width`) as number;
      writeBits(words, position * width, width, 2 ** width - 1);
      assert.throws(
        () => restore(f),
        new RegExp(`statement position ${position} is out of range`),
        `${order} ${position}`,
      );
    }
  }
});

test.run();

/**
 * Serial form tests
 * =================
 * src/engine/serial.ts and every structure's serialize / deserialize, through the in-memory carrier
 * (MemorySerialWriter / MemorySerialReader): the protocol itself (names, prefixes, kinds, the
 * transfer list, a structuredClone with transfer as a worker thread does it); then per structure a
 * seeded round trip whose restored structure answers exactly like the original, and the damage each
 * must refuse: shape damage always, damage found by a pass over the data only with `verify` (and
 * then accepted without it, which is what verify false means).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { BitVector } from "../../src/engine/succinct/bit-vector.js";
import { EntityTable, RECORD_WORDS } from "../../src/engine/entities/entity-table.js";
import { FingerprintColumn } from "../../src/engine/statements/fingerprint-column.js";
import { ScoreIndex } from "../../src/engine/search/score-index.js";
import { Scores } from "../../src/engine/search/scores.js";
import { SearchIndex } from "../../src/engine/search/search-index.js";
import {
  MemorySerialReader,
  MemorySerialWriter,
  type SerialField,
  type SerialReader,
  type SerialWriter,
} from "../../src/engine/serial.js";
import { StatementIndex } from "../../src/engine/statements/statement-index.js";
import { readBits, writeBits } from "../../src/engine/succinct/int-vector.js";
import { WaveletMatrix } from "../../src/engine/succinct/wavelet-matrix.js";
import { hex64 } from "../../src/engine/hash64.js";
import { fold, Rng, show } from "../support/oracle.js";

class Corrupt extends Error {}

/** The fields `write` produces. */
function fieldsOf(write: (w: SerialWriter) => void): Map<string, SerialField> {
  const w = new MemorySerialWriter();
  write(w);
  return w.fields;
}

function readerOf(fields: ReadonlyMap<string, SerialField>, verify = true): SerialReader {
  return new MemorySerialReader(fields, { verify, fail: (what) => new Corrupt(what) });
}

/** `f` must throw the reader's corruption error, its message matching `pattern`. */
function expectCorrupt(f: () => unknown, pattern: RegExp, ctx = ""): void {
  try {
    f();
  } catch (e) {
    if (!(e instanceof Corrupt)) throw new Error(`${ctx}: want a corruption error, got ${String(e)}`);
    assert.match(e.message, pattern, ctx);
    return;
  }
  assert.unreachable(`${ctx}: want a corruption error matching ${pattern}, but it restored`);
}

/** `fields` with `name` replaced by `value`. */
function patched(fields: ReadonlyMap<string, SerialField>, name: string, value: SerialField): Map<string, SerialField> {
  assert.ok(fields.has(name), `no field ${name} in ${show([...fields.keys()])}`);
  return new Map(fields).set(name, value);
}

/** A copy of the typed-array field `name` of `fields`, changed by `change`. */
function withArray<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array>(
  fields: ReadonlyMap<string, SerialField>,
  name: string,
  change: (copy: T) => void,
): Map<string, SerialField> {
  const copy = (fields.get(name) as T).slice() as T;
  change(copy);
  return patched(fields, name, copy);
}

// ---------------------------------------------------------------------------------------------
// The protocol

test("protocol: children prefix names, names are checked, a field is written once", () => {
  const w = new MemorySerialWriter();
  w.integer("n", 3);
  w.child("search").child("documents").array("levels", Int32Array.of(1, 2));
  w.child("search").text("tag", "x");
  w.strings("ids", ["a", "\uD800"]);
  assert.equal([...w.fields.keys()], ["n", "search.documents.levels", "search.tag", "ids"]);
  assert.throws(() => w.integer("n", 4), /written twice/);
  assert.throws(() => w.integer("a.b", 1), /not \[A-Za-z0-9_-\]\+/);
  assert.throws(() => w.child(""), /not \[A-Za-z0-9_-\]\+/);
  assert.throws(() => w.integer("m", -1), RangeError);
  assert.throws(() => w.integer("m", 1.5), RangeError);
  const r = readerOf(w.fields);
  assert.is(r.integer("n"), 3);
  assert.equal(r.child("search").child("documents").int32("levels"), Int32Array.of(1, 2));
  assert.equal(r.strings("ids"), ["a", "\uD800"]);
  assert.is(r.verify, true);
  expectCorrupt(() => r.child("search").uint32("missing"), /^search: missing is missing or not a Uint32Array$/);
  expectCorrupt(() => r.child("search").child("documents").uint32("levels"), /^search\.documents: levels is missing/);
  expectCorrupt(() => r.integer("ids"), /ids is missing or not an integer/);
  expectCorrupt(() => r.text("n"), /n is missing or not a string/);
  expectCorrupt(() => r.strings("n"), /not a list of strings/);
  expectCorrupt(() => readerOf(new Map([["ids", ["a", 3 as unknown as string]]])).strings("ids"), /not a string/);
  // The default error of a reader without `fail`.
  assert.throws(() => new MemorySerialReader(new Map()).integer("x"), /corrupt serial form: x is missing/);
});

test("protocol: transferables lists each buffer once, and a structuredClone with transfer reads back", () => {
  const shared = new Uint32Array(8);
  const w = new MemorySerialWriter();
  w.array("a", shared.subarray(0, 4));
  w.array("b", shared.subarray(4));
  w.array("c", Uint8Array.of(1, 2, 3));
  w.strings("s", ["x"]);
  w.integer("n", 1);
  const buffers = w.transferables();
  assert.is(buffers.length, 2);
  const moved = structuredClone(w.fields, { transfer: buffers });
  // The sender's arrays are detached: the receiver owns the memory now.
  assert.is(shared.length, 0);
  const r = readerOf(moved, false);
  assert.equal(r.uint32("b"), new Uint32Array(4));
  assert.equal(r.uint8("c"), Uint8Array.of(1, 2, 3));
  assert.equal(r.strings("s"), ["x"]);
});

// ---------------------------------------------------------------------------------------------
// BitVector and WaveletMatrix

function randomBits(rng: Rng, n: number): BitVector {
  const bv = new BitVector(n);
  const density = rng.float();
  for (let i = 0; i < n; i++) if (rng.chance(density)) bv.set(i);
  return bv.seal();
}

test("BitVector: round trip at every size around a block, answers equal; damage refused", () => {
  const rng = new Rng(1);
  for (const n of [0, 1, 31, 32, 511, 512, 513, 1024, 5000]) {
    const bv = randomBits(rng, n);
    const fields = fieldsOf((w) => bv.serialize(w));
    const back = BitVector.deserialize(readerOf(fields));
    assert.is(back.length, n);
    assert.is(back.ones, bv.ones);
    for (let i = 0; i <= n; i++) assert.is(back.rank1(i), bv.rank1(i), `n ${n} rank1(${i})`);
    expectCorrupt(() => BitVector.deserialize(readerOf(patched(fields, "length", n + 512))), /blocks has/);
    expectCorrupt(
      () => BitVector.deserialize(readerOf(patched(fields, "blocks", new Int32Array(3)))),
      /blocks has 3 elements/,
    );
  }
  const bv = randomBits(rng, 3000);
  const fields = fieldsOf((w) => bv.serialize(w));
  // A bit flipped after sealing: the stored counts now lie.
  const flipped = withArray<Int32Array>(fields, "blocks", (b) => (b[2 + 18] = b[2 + 18]! ^ 1));
  // Block 1's first word feeds its own sub-counts (word 19) first.
  expectCorrupt(() => BitVector.deserialize(readerOf(flipped)), /wrong rank count at word 19$/);
  assert.is(BitVector.deserialize(readerOf(flipped, false)).length, 3000, "verify false skips the recount");
  expectCorrupt(() => BitVector.deserialize(readerOf(patched(fields, "length", 2 ** 31))), /not below 2\^31/);
  assert.throws(() => new BitVector(4).serialize(new MemorySerialWriter()), /before seal/);
});

test("WaveletMatrix: round trip answers equal (random sequences); damage refused", () => {
  const rng = new Rng(2);
  for (const [n, bits] of [
    [0, 3],
    [1, 1],
    [700, 5],
    [3000, 12],
  ] as const) {
    const values = Uint32Array.from({ length: n }, () => rng.int(2 ** bits));
    const wm = WaveletMatrix.build(values, bits);
    const back = WaveletMatrix.deserialize(readerOf(fieldsOf((w) => wm.serialize(w))));
    for (let i = 0; i < n; i++) assert.is(back.access(i), values[i], `access(${i})`);
    for (let k = 0; k < 200; k++) {
      const l = rng.int(n + 1);
      const r = rng.range(l, n);
      const lo = rng.int(2 ** bits);
      assert.is(back.rangeSuccessor(l, r, lo, 2 ** bits), wm.rangeSuccessor(l, r, lo, 2 ** bits));
    }
  }
  const wm = WaveletMatrix.build(
    Uint32Array.from({ length: 2000 }, () => rng.int(1024)),
    10,
  );
  const fields = fieldsOf((w) => wm.serialize(w));
  expectCorrupt(() => WaveletMatrix.deserialize(readerOf(patched(fields, "bits", 32))), /more than 31/);
  expectCorrupt(() => WaveletMatrix.deserialize(readerOf(patched(fields, "bits", 9))), /levels has/);
  expectCorrupt(() => WaveletMatrix.deserialize(readerOf(patched(fields, "zeros", new Int32Array(9)))), /zeros has 9/);
  // A zero count that is not its level's own would send queries outside [0, length]: always refused.
  const zeros = withArray<Int32Array>(fields, "zeros", (z) => (z[4] = z[4]! + 1));
  expectCorrupt(() => WaveletMatrix.deserialize(readerOf(zeros, false)), /level 4 has a wrong zero count/);
  // Level 0's third cumulative count (2,000 bits: 4 blocks of 18 words a level).
  const counts = withArray<Int32Array>(fields, "levels", (b) => (b[36] = b[36]! + 1));
  expectCorrupt(() => WaveletMatrix.deserialize(readerOf(counts)), /level 0 has a wrong rank count at word 36$/);
});

// ---------------------------------------------------------------------------------------------
// Entity table, fingerprints

/** An entity table of the given columns (ids ascending), its hashes computed. */
function tableOf(
  ids: string[],
  raws: string[],
  types: number[],
  sources: number[],
  sourceTypes: string[],
): EntityTable {
  return EntityTable.from({ entityIds: ids, rawIdentifiers: raws, types, sourceTypeIndex: sources, sourceTypes });
}

/** Every column of `t`, read back entity by entity. */
function rowsOf(t: EntityTable): unknown[] {
  return Array.from({ length: t.size }, (_, d) => [t.entityId(d), t.rawIdentifier(d), t.typeOf(d), t.sourceTypeOf(d)]);
}

test("EntityTable: round trip; shapes always, order, hashes and sourceType indexes with verify, checked", () => {
  const table = tableOf(["a", "b", "é", "😀"], ["x", "", "Straße", "字"], [0, 7, 3, 1], [1, 0, 1, 0], ["", "w"]);
  const fields = fieldsOf((w) => table.serialize(w));
  const back = EntityTable.deserialize(readerOf(fields));
  assert.equal(rowsOf(back), [
    ["a", "x", 0, "w"],
    ["b", "", 7, ""],
    ["é", "Straße", 3, "w"],
    ["😀", "字", 1, ""],
  ]);
  expectCorrupt(
    () => EntityTable.deserialize(readerOf(patched(fields, "records", new Uint32Array(15)), false)),
    /records has 15 words, not 4 per entity/,
  );
  // Entities 0 and 1 swapped (hashes and all): the order is wrong.
  const swapped = withArray<Uint32Array>(fields, "records", (r) => {
    const first = r.slice(0, RECORD_WORDS);
    r.copyWithin(0, RECORD_WORDS, 2 * RECORD_WORDS);
    r.set(first, RECORD_WORDS);
  });
  expectCorrupt(() => EntityTable.deserialize(readerOf(swapped)), /not in strictly ascending order/);
  assert.is(EntityTable.deserialize(readerOf(swapped, false)).entityId(0), "b");
  const hash = withArray<Uint32Array>(fields, "records", (r) => (r[RECORD_WORDS + 3] = r[RECORD_WORDS + 3]! ^ 1));
  expectCorrupt(() => EntityTable.deserialize(readerOf(hash)), /hash of entityId 1 is wrong/);
  // Entity 2's packed sourceType index set to 2, past the two sourceTypes.
  const source = withArray<Uint32Array>(
    fields,
    "records",
    (r) => (r[2 * RECORD_WORDS + 1] = (r[2 * RECORD_WORDS + 1]! & 0xffffff) | (2 << 24)),
  );
  expectCorrupt(() => EntityTable.deserialize(readerOf(source)), /entity 2 has sourceType index 2/);
  // Entity 3's span moved past the end of its store: refused even without verify.
  const outside = withArray<Uint32Array>(fields, "records", (r) => (r[3 * RECORD_WORDS] = r[3 * RECORD_WORDS]! + 1000));
  expectCorrupt(() => EntityTable.deserialize(readerOf(outside, false)), /entity 3 lies outside its text store/);
  expectCorrupt(() => EntityTable.deserialize(readerOf(patched(fields, "sourceTypeBytes", 3))), /not 0, 1, 2 or 4/);
  expectCorrupt(
    () =>
      EntityTable.deserialize(
        readerOf(new Map(patched(fields, "sourceTypeBytes", 1)).set("sourceTypeIndex", new Uint8Array(4))),
      ),
    /2 sourceTypes, but sourceTypeBytes is 1/,
  );
});

test("EntityTable: more sourceTypes than a record packs get a column, which round trips and is checked", () => {
  const sourceTypes = Array.from({ length: 300 }, (_, i) => `s${i}`);
  const ids = ["a", "b", "c"];
  const table = tableOf(ids, ["x", "y", "z"], [1, 2, 3], [299, 0, 256], sourceTypes);
  const fields = fieldsOf((w) => table.serialize(w));
  assert.is(fields.get("sourceTypeBytes"), 2);
  const back = EntityTable.deserialize(readerOf(fields));
  assert.equal(rowsOf(back), [
    ["a", "x", 1, "s299"],
    ["b", "y", 2, "s0"],
    ["c", "z", 3, "s256"],
  ]);
  const bad = withArray<Uint16Array>(fields, "sourceTypeIndex", (c) => (c[1] = 300));
  expectCorrupt(() => EntityTable.deserialize(readerOf(bad)), /entity 1 has sourceType index 300/);
  expectCorrupt(
    () => EntityTable.deserialize(readerOf(patched(fields, "sourceTypeIndex", new Uint16Array(2)), false)),
    /sourceTypeIndex has 2 elements, expected 3/,
  );
  expectCorrupt(
    () => EntityTable.deserialize(readerOf(patched(fields, "sourceTypeBytes", 0), false)),
    /300 sourceTypes, but sourceTypeBytes is 0/,
  );
});

test("FingerprintColumn: every layout round trips (given and hexHalves); counts that disagree are refused", () => {
  const layouts: (string | undefined)[][] = [
    [undefined, undefined],
    [hex64(1, 2), hex64(0, 9)],
    [hex64(1, 2), "text fp", undefined, hex64(3, 4)],
  ];
  for (const given of layouts) {
    const column = FingerprintColumn.build(given.length, (row) => {
      const g = given[row];
      return g === undefined || !/^[0-9a-f]{16}$/.test(g)
        ? g
        : { hi: Number.parseInt(g.slice(0, 8), 16), lo: Number.parseInt(g.slice(8), 16) };
    });
    const back = FingerprintColumn.deserialize(readerOf(fieldsOf((w) => column.serialize(w))));
    assert.equal(
      given.map((_, row) => back.given(row)),
      given,
    );
    // hexHalves: the value of exactly the rows given in 16 hex digits, whose text is hex64 of it.
    const halves: [number, number] = [0, 0];
    assert.equal(
      given.map((_, row) => (back.hexHalves(row, halves) ? hex64(halves[0], halves[1]) : null)),
      given.map((g) => (g !== undefined && /^[0-9a-f]{16}$/.test(g) ? g : null)),
    );
  }
  const mixed = FingerprintColumn.build(3, (row) => (row === 0 ? "t" : row === 1 ? { hi: 0, lo: 1 } : undefined));
  const fields = fieldsOf((w) => mixed.serialize(w));
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(patched(fields, "halves", new Uint32Array(3)))), /halves/);
  expectCorrupt(
    () => FingerprintColumn.deserialize(readerOf(patched(fields, "halves", new Uint32Array(4)))),
    /counts disagree/,
  );
  expectCorrupt(
    () => FingerprintColumn.deserialize(readerOf(patched(fields, "layout", 7))),
    /unknown fingerprint layout/,
  );
});

// ---------------------------------------------------------------------------------------------
// Statement and search indexes

test("StatementIndex: round trip keeps every order and plan; shapes and ranges checked", () => {
  const rng = new Rng(3);
  const n = 60;
  const m = 500;
  const column = () => Uint32Array.from({ length: m }, () => rng.int(n));
  const subject = column();
  const predicate = Uint32Array.from({ length: m }, () => rng.int(5));
  const object = column();
  const index = StatementIndex.build(
    { subject, predicate, object, given: (row) => `fp${row}` },
    n,
    (row) => `fp${row}`,
  );
  const fields = fieldsOf((w) => index.serialize(w));
  const back = StatementIndex.deserialize(readerOf(fields), n);
  for (let k = 0; k < 100; k++) {
    const f = {
      subject: rng.chance(0.5) ? rng.int(n) : undefined,
      predicate: rng.chance(0.5) ? rng.int(5) : undefined,
      object: rng.chance(0.5) ? rng.int(n) : undefined,
    };
    const a = index.plan(f);
    assert.equal(back.plan(f), a);
    for (let j = a.lo; j < a.hi; j++) {
      const row = index.rowAt(a.order, j);
      assert.is(back.rowAt(a.order, j), row);
      assert.equal(
        [back.subjectOf(row), back.predicateOf(row), back.objectOf(row), back.fingerprints.given(row)],
        [index.subjectOf(row), index.predicateOf(row), index.objectOf(row), index.fingerprints.given(row)],
      );
    }
  }
  expectCorrupt(() => StatementIndex.deserialize(readerOf(fields), n + 1), /the graph has 61/);
  expectCorrupt(
    () => StatementIndex.deserialize(readerOf(patched(fields, "rows", new Uint32Array(3))), n),
    /rows have the wrong size/,
  );
  const offsets = withArray<Uint32Array>(fields, "subjectStarts", (s) => (s[1] = m + 1));
  expectCorrupt(() => StatementIndex.deserialize(readerOf(offsets, false), n), /offsets out of order or range/);
});

test("SearchIndex: round trip answers every query alike; shapes and ranks checked", () => {
  const rng = new Rng(5);
  const pieces = ["a", "b", "ab", "é", "😀", "x", " "];
  const n = 300;
  const folded = Array.from({ length: n }, () => {
    let s = "";
    for (let k = rng.int(6); k > 0; k--) s += rng.pick(pieces);
    return fold(s);
  });
  const types = Uint8Array.from({ length: n }, () => rng.int(8));
  const index = SearchIndex.build(folded, types);
  const fields = fieldsOf((w) => index.serialize(w));
  const back = SearchIndex.deserialize(readerOf(fields), n);
  for (const q of ["a", "ab", "b", "é", "😀", "x a", "zz", "aab"]) {
    for (const type of [-1, 0, 3]) {
      assert.equal(back.find(q, type, null, 1000), index.find(q, type, null, 1000), `${q} ${type}`);
    }
  }
  expectCorrupt(() => SearchIndex.deserialize(readerOf(fields), n + 1), /not of this graph's size/);
  const starts = withArray<Uint32Array>(fields, "typeStarts", (t) => (t[8] = n - 1));
  expectCorrupt(() => SearchIndex.deserialize(readerOf(starts, false), n), /typeStarts do not span/);
  const grams = withArray<Uint32Array>(fields, "fm.grams.intervals", (iv) => {
    const at = iv.findIndex((x) => x > 0);
    iv[at] = 1e9;
  });
  expectCorrupt(() => SearchIndex.deserialize(readerOf(grams, false), n), /k-gram slot/);
  const classes = withArray<Int32Array>(fields, "fm.classOf", (c) => (c[2] = 1 << 20));
  expectCorrupt(() => SearchIndex.deserialize(readerOf(classes, false), n), /not a value of the class matrix/);
  // Rank 7 of rankToId, then of typeRanks, past the entities: refused with verify, by rank.
  for (const name of ["rankToId", "typeRanks"]) {
    const width = fields.get(`${name}.width`) as number;
    const past = withArray<Uint32Array>(fields, `${name}.words`, (words) =>
      writeBits(words, 7 * width, width, 2 ** width - 1),
    );
    expectCorrupt(() => SearchIndex.deserialize(readerOf(past), n), /rank 7 names no entity/, name);
    SearchIndex.deserialize(readerOf(past, false), n);
  }
});

test("ScoreIndex: round trip; with verify, the two rank arrays must be inverse, past the first chunk the check reads too", () => {
  // More entities than one chunk of the check (4096), so that a damaged rank in the second is seen.
  const rng = new Rng(23);
  const n = 5000;
  const folded = Array.from({ length: n }, (_, i) => `e${i.toString(36)}`);
  const search = SearchIndex.build(folded, new Uint8Array(n));
  const index = ScoreIndex.build(search, Scores.from(Uint32Array.from(folded, () => rng.int(100))));
  const fields = fieldsOf((w) => index.serialize(w));
  const positions = search.documents.top.length;
  const back = ScoreIndex.deserialize(readerOf(fields), n, positions);
  for (const s of [0, 4095, 4096, n - 1]) assert.is(back.rankAt(s), index.rankAt(s));
  const width = index.rankOfSrank.width;
  // Sranks 4500 and 4501 swapped: each names a rank whose srank is the other.
  const swapped = withArray<Uint32Array>(fields, "rankOfSrank.words", (words) => {
    const a = readBits(words, 4500 * width, width);
    writeBits(words, 4500 * width, width, readBits(words, 4501 * width, width));
    writeBits(words, 4501 * width, width, a);
  });
  expectCorrupt(() => ScoreIndex.deserialize(readerOf(swapped), n, positions), /score rank 4500 names no entity/);
  ScoreIndex.deserialize(readerOf(swapped, false), n, positions);
  // Srank 4097's rank past the entities.
  const outside = withArray<Uint32Array>(fields, "rankOfSrank.words", (words) =>
    writeBits(words, 4097 * width, width, 2 ** width - 1),
  );
  expectCorrupt(() => ScoreIndex.deserialize(readerOf(outside), n, positions), /score rank 4097 names no entity/);
});

test.run();

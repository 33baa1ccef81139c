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

import { BitVector } from "../../src/engine/bit-vector.js";
import { Dictionary } from "../../src/engine/dictionary.js";
import { EntityColumns } from "../../src/engine/entity-columns.js";
import { FingerprintColumn } from "../../src/engine/fingerprint-column.js";
import { graphParts } from "../../src/engine/internal.js";
import { SearchIndex } from "../../src/engine/search-index.js";
import {
  MemorySerialReader,
  MemorySerialWriter,
  type SerialField,
  type SerialReader,
  type SerialWriter,
} from "../../src/engine/serial.js";
import { StatementIndex } from "../../src/engine/statement-index.js";
import { TripleIndex } from "../../src/engine/triple-index.js";
import { WaveletMatrix } from "../../src/engine/wavelet-matrix.js";
import { buildGraph, fold, generateGraph, Rng, show } from "../support/oracle.js";

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
// Dictionary, entity columns, fingerprints

test("Dictionary: round trip; an empty first id always, an unsorted list with verify, refused", () => {
  const ids = ["", "a", "b\uD800", "é"].slice(1);
  const fields = fieldsOf((w) => new Dictionary(ids).serialize(w));
  const back = Dictionary.deserialize(readerOf(fields));
  assert.equal(back.ids, ids);
  assert.is(back.idOf("é"), 2);
  expectCorrupt(
    () => Dictionary.deserialize(readerOf(patched(fields, "ids", ["", "a"]), false)),
    /an entityId is empty/,
  );
  const unsorted = patched(fields, "ids", ["b", "a"]);
  expectCorrupt(() => Dictionary.deserialize(readerOf(unsorted)), /ids 0 and 1 are not in ascending order/);
  expectCorrupt(() => Dictionary.deserialize(readerOf(patched(fields, "ids", ["a", "a"]))), /not in ascending/);
  assert.is(Dictionary.deserialize(readerOf(unsorted, false)).size, 2);
  assert.is(Dictionary.deserialize(readerOf(fieldsOf((w) => new Dictionary([]).serialize(w)))).size, 0);
});

test("EntityColumns: round trip; lengths always, types and sourceType indexes with verify, checked", () => {
  const columns = new EntityColumns(["x", "", "Straße"], Uint8Array.of(0, 7, 3), Uint32Array.of(1, 0, 1), ["", "w"]);
  const fields = fieldsOf((w) => columns.serialize(w));
  const back = EntityColumns.deserialize(readerOf(fields), 3);
  assert.equal(back.rawIdentifiers, columns.rawIdentifiers);
  assert.equal(back.types, columns.types);
  assert.equal(
    [0, 1, 2].map((id) => back.sourceTypeOf(id)),
    ["w", "", "w"],
  );
  expectCorrupt(
    () => EntityColumns.deserialize(readerOf(fields, false), 4),
    /rawIdentifiers has 3 elements, expected 4/,
  );
  const badType = withArray<Uint8Array>(fields, "types", (t) => (t[1] = 8));
  expectCorrupt(() => EntityColumns.deserialize(readerOf(badType), 3), /types holds 8/);
  assert.is(EntityColumns.deserialize(readerOf(badType, false), 3).size, 3);
  const badSource = withArray<Uint32Array>(fields, "sourceTypeIndex", (s) => (s[2] = 2));
  expectCorrupt(() => EntityColumns.deserialize(readerOf(badSource), 3), /sourceTypeIndex holds 2, not below 2/);
});

test("FingerprintColumn: round trip with a side table; its rows and texts checked", () => {
  const column = new FingerprintColumn(
    Uint32Array.of(1, 2, 3, 4),
    Uint32Array.of(5, 6, 7, 8),
    new Map([
      [3, "z"],
      [0, "not hex \uD800"],
    ]),
  );
  const fields = fieldsOf((w) => column.serialize(w));
  assert.equal(fields.get("textRows"), Uint32Array.of(0, 3), "rows ascending");
  const back = FingerprintColumn.deserialize(readerOf(fields), 4);
  for (let row = 0; row < 4; row++) assert.is(back.get(row), column.get(row));
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(fields), 5), /hi has 4 elements, expected 5/);
  const swapped = patched(fields, "textRows", Uint32Array.of(3, 0));
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(swapped, false), 4), /textRows are out of range or order/);
  const beyond = patched(fields, "textRows", Uint32Array.of(0, 4));
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(beyond), 4), /out of range/);
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(patched(fields, "text", ["a", ""])), 4), /row 3 is empty/);
  expectCorrupt(() => FingerprintColumn.deserialize(readerOf(patched(fields, "text", ["a"])), 4), /text has 1/);
});

// ---------------------------------------------------------------------------------------------
// Statement and search indexes

function randomStatementIndex(rng: Rng, n: number, m: number): StatementIndex {
  const column = () => Uint32Array.from({ length: m }, () => rng.int(n));
  const text = new Map<number, string>();
  for (let row = 0; row < m; row++) if (rng.chance(0.05)) text.set(row, `fp ${rng.int(1000)}`);
  const fingerprints = new FingerprintColumn(column(), column(), text);
  return StatementIndex.build({ subject: column(), predicate: column(), object: column(), fingerprints }, n);
}

test("StatementIndex and TripleIndex: round trip keeps every order and plan; ids and rows checked", () => {
  const rng = new Rng(3);
  for (const [n, m] of [
    [1, 0],
    [5, 40],
    [60, 900],
  ] as const) {
    const index = randomStatementIndex(rng, n, m);
    const fields = fieldsOf((w) => index.serialize(w));
    const back = StatementIndex.deserialize(readerOf(fields), n);
    for (const order of ["spo", "pos", "osp"] as const) {
      for (let pos = 0; pos < m; pos++) assert.is(back[order].rowAt(pos), index[order].rowAt(pos), order);
    }
    for (let k = 0; k < 50; k++) {
      const pick = () => (rng.chance(0.5) ? undefined : rng.int(n));
      const filter = { subject: pick(), predicate: pick(), object: pick() };
      const a = index.plan(filter);
      const b = back.plan(filter);
      assert.is(b.index.order, a.index.order);
      assert.equal(b.index.range(b.bound), a.index.range(a.bound), show(filter));
    }
    for (let row = 0; row < m; row++) assert.is(back.fingerprints.get(row), index.fingerprints.get(row));
  }
  const index = randomStatementIndex(rng, 30, 200);
  const fields = fieldsOf((w) => index.serialize(w));
  expectCorrupt(
    () => StatementIndex.deserialize(readerOf(patched(fields, "object", new Uint32Array(3))), 30),
    /object has 3/,
  );
  const badId = withArray<Uint32Array>(fields, "predicate", (p) => (p[7] = 30));
  expectCorrupt(() => StatementIndex.deserialize(readerOf(badId), 30), /predicate holds 30, not below 30/);
  assert.is(StatementIndex.deserialize(readerOf(badId, false), 30).length, 200);
  const badRow = withArray<Uint32Array>(fields, "osp.rows", (r) => (r[0] = 200));
  expectCorrupt(() => StatementIndex.deserialize(readerOf(badRow), 30), /^osp: rows holds 200/);
  expectCorrupt(
    () => StatementIndex.deserialize(readerOf(patched(fields, "pos.rows", new Uint32Array(199))), 30),
    /^pos: rows has 199 elements/,
  );
  expectCorrupt(
    () => StatementIndex.deserialize(readerOf(patched(fields, "fingerprints.lo", new Uint32Array(0))), 30),
    /^fingerprints: lo has 0/,
  );
  // The stored order (rows null) has no serial form of its own.
  assert.throws(() => index.spo.serialize(new MemorySerialWriter()), /no rows/);
  const pos = TripleIndex.deserialize(
    readerOf(fieldsOf((w) => index.pos.serialize(w))),
    "POS",
    [index.predicate, index.object, index.subject],
    index.fingerprints,
  );
  assert.equal(pos.rows, index.pos.rows);
});

/** A built graph's search index and what it was built over. */
function searchSubject(seed: number, entities: number) {
  const g = buildGraph(generateGraph(new Rng(seed), { entities, statements: 0 }));
  const parts = graphParts(g);
  return {
    index: parts.searchIndex,
    context: { ids: parts.dictionary.ids, types: parts.entities.types },
    raws: parts.entities.rawIdentifiers,
  };
}

test("SearchIndex: round trip answers every query alike (seeded graphs)", () => {
  for (const [seed, entities] of [
    [4, 0],
    [5, 1],
    [6, 40],
    [7, 400],
  ] as const) {
    const { index, context, raws } = searchSubject(seed, entities);
    const back = SearchIndex.deserialize(readerOf(fieldsOf((w) => index.serialize(w))), context);
    const rng = new Rng(seed);
    for (let k = 0; k < 60; k++) {
      const raw = raws.length === 0 ? "a" : fold(rng.pick(raws));
      const a = rng.int(raw.length);
      const q = raw.slice(a, a + rng.range(1, 4)) || "a";
      const type = rng.chance(0.3) ? rng.int(8) : -1;
      assert.equal(back.find(q, type, null, 30), index.find(q, type, null, 30), `q ${show(q)} type ${type}`);
    }
  }
});

test("SearchIndex: damage to its arrays, its ranks or its wavelet matrix is refused", () => {
  const { index, context } = searchSubject(8, 300);
  const fields = fieldsOf((w) => index.serialize(w));
  const read = (f: ReadonlyMap<string, SerialField>, verify = true) =>
    SearchIndex.deserialize(readerOf(f, verify), context);
  const n = context.ids.length;
  // Shape: always.
  expectCorrupt(() => read(patched(fields, "starts", new Uint32Array(3)), false), /starts has 3 elements/);
  expectCorrupt(
    () =>
      read(
        withArray<Uint32Array>(fields, "starts", (s) => (s[n] = s[n]! + 1)),
        false,
      ),
    /starts do not span/,
  );
  expectCorrupt(
    () =>
      read(
        withArray<Uint32Array>(fields, "typeStarts", (t) => ([t[3], t[4]] = [t[4]!, t[3]! + 1])),
        false,
      ),
    /typeStarts|out of order/,
  );
  expectCorrupt(() => read(patched(fields, "rankBits", 29), false), /rankBits 29 cannot hold/);
  expectCorrupt(() => read(patched(fields, "rankBits", 2), false), /rankBits 2 cannot hold 300/);
  expectCorrupt(() => read(patched(fields, "documents.bits", 5), false), /^documents: levels has/);
  // A document array whose values pass the last rank of a band: the listing would hand out ranks >= n.
  const rankBits = fields.get("rankBits") as number;
  const length = (fields.get("text") as Uint16Array).length;
  const values = Uint32Array.from({ length }, (_, i) => (i === 5 ? 3 * 2 ** rankBits + n : 0));
  const other = fieldsOf((w) => WaveletMatrix.build(values, rankBits + 3).serialize(w));
  const replaced = new Map(fields);
  for (const [k, v] of other) replaced.set(`documents.${k}`, v);
  expectCorrupt(() => read(replaced, false), /documents hold a rank of type 3 beyond the 300 entities/);
  // With verify: the passes over the data.
  const checks: [string, (a: Uint32Array) => void, RegExp][] = [
    ["rankToId", (a) => (a[1] = a[0]!), /rankToId is not a permutation/],
    ["suffixArray", (a) => (a[9] = length), /suffixArray holds/],
    ["starts", (a) => (a[2] = a[1]!), /start 2 does not follow start 1/],
    ["separators", (a) => a.fill(0), /lacks the separator after rank 0/],
    ["typeRanks", (a) => (a[0] = n), /typeRanks of type \d are out of range or order/],
  ];
  for (const [name, change, pattern] of checks) {
    const bad = withArray<Uint32Array>(fields, name, change);
    expectCorrupt(() => read(bad), pattern, name);
    read(bad, false);
  }
  // typeRanks listing an entity of another type (two ranks of different types swapped).
  const typeStarts = fields.get("typeStarts") as Uint32Array;
  const t = [0, 1, 2, 3, 4, 5, 6].find(
    (x) => typeStarts[x + 1]! > typeStarts[x]! && typeStarts[x + 2]! > typeStarts[x + 1]!,
  )!;
  const mixed = withArray<Uint32Array>(fields, "typeRanks", (a) => {
    const i = typeStarts[t]!;
    const j = typeStarts[t + 1]!;
    [a[i], a[j]] = [a[j]!, a[i]!];
  });
  expectCorrupt(() => read(mixed), /typeRanks of type \d (are out of range or order|list an entity of another type)/);
});

test.run();

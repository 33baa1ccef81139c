/**
 * Fingerprint table tests
 * =======================
 * src/engine/statements/fingerprint-table.ts against a Map of the 64-bit keys (as strings) on seeded random
 * keys with repeats, through its doublings and with the room reserved up front; `reserve` sizes the
 * table once, so the adds after it never double. A table told its most rows (tags in the slots'
 * spare bits) gives the same answers, reads far fewer keys for absent ones, and hands over whole;
 * findMany answers as find. A table told nothing widens its row bits as rows come, its tags kept.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { FingerprintTable } from "../../../src/engine/statements/fingerprint-table.js";
import { mulberry32 } from "../../../tools/prng.js";

/** The builder's key columns, as plain arrays. */
function columns() {
  const hi: number[] = [];
  const lo: number[] = [];
  return { hi, lo, keyHi: { get: (row: number) => hi[row]! }, keyLo: { get: (row: number) => lo[row]! } };
}

/** Adds `n` keys drawn (with repeats) from a pool; checks every answer against a Map; returns the table. */
function run(n: number, reserve: number | undefined, seed: number, maxRows?: number): FingerprintTable {
  const rand = mulberry32(seed);
  const pool = Array.from({ length: Math.ceil(n / 3) }, () => [(rand() * 2 ** 32) >>> 0, (rand() * 2 ** 32) >>> 0]);
  // Keys that differ in one half only, so a probe must compare both halves.
  pool.push([1, 2], [1, 3], [4, 2]);
  const c = columns();
  const table = new FingerprintTable(c.keyHi, c.keyLo, undefined, maxRows);
  if (reserve !== undefined) table.reserve(reserve);
  const bytesAfterReserve = table.byteLength;
  const oracle = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const [hi, lo] = pool[Math.floor(rand() * pool.length)]!;
    const row = c.hi.length;
    const expected = oracle.get(`${hi}:${lo}`) ?? -1;
    const found = table.findOrAdd(hi!, lo!, row);
    assert.is(found, expected, `add ${i}`);
    if (found === -1) {
      oracle.set(`${hi}:${lo}`, row);
      c.hi.push(hi!);
      c.lo.push(lo!);
    }
    // Asked again, the key is found (and nothing is added).
    assert.is(table.findOrAdd(hi!, lo!, c.hi.length), oracle.get(`${hi}:${lo}`));
  }
  assert.is(table.size, oracle.size);
  // Reserved for at least every key entered: the table never doubled.
  if (reserve !== undefined && reserve >= oracle.size) assert.is(table.byteLength, bytesAfterReserve);
  return table;
}

test("findOrAdd agrees with a Map, through doublings", () => {
  run(20_000, undefined, 1);
});

test("reserve: the same answers, sized once for what it was told", () => {
  // Told the number of adds (more than the distinct keys): never doubles (checked in run).
  run(20_000, 20_000, 2);
  // Reserving more than comes, or less (the table doubles past it), is as correct.
  run(5_000, 50_000, 3);
  run(20_000, 1_000, 4);
  // Reserving after entries were added rehashes them into the larger table.
  const c = columns();
  const table = new FingerprintTable(c.keyHi, c.keyLo);
  for (let row = 0; row < 300; row++) {
    c.hi.push(row);
    c.lo.push(row * 7);
    assert.is(table.findOrAdd(row, row * 7, row), -1);
  }
  table.reserve(100_000);
  for (let row = 0; row < 300; row++) assert.is(table.findOrAdd(row, row * 7, 1_000), row);
  assert.is(table.size, 300);
});

test("tags (a table told its most rows): the same answers, few key reads for absent keys, handed over whole", () => {
  // Rows up to 20,000 leave 17 bits of tag; up to 2^31 - 1, one bit.
  for (const [maxRows, seed] of [
    [20_000, 5],
    [2 ** 31 - 1, 6],
  ] as const) {
    run(20_000, undefined, seed, maxRows);
    run(20_000, 20_000, seed + 10, maxRows);
  }
  const c = columns();
  const rand = mulberry32(7);
  const n = 50_000;
  const table = new FingerprintTable(c.keyHi, c.keyLo, undefined, n);
  for (let row = 0; row < n; row++) {
    c.hi.push((rand() * 2 ** 32) >>> 0);
    c.lo.push((rand() * 2 ** 32) >>> 0);
    assert.is(table.findOrAdd(c.hi[row]!, c.lo[row]!, row), -1);
  }
  // Absent keys: about 1.5 full slots probed each, a key read only on a tag match (1 in 2^16 here).
  const probes = table.probes;
  const reads = table.keyReads;
  for (let k = 0; k < 10_000; k++) assert.is(table.find((rand() * 2 ** 32) >>> 0, (rand() * 2 ** 32) >>> 0), -1);
  assert.ok(table.probes - probes > 10_000, "probes");
  assert.ok(table.keyReads - reads < 20, `key reads ${table.keyReads - reads}`);
  // findMany (all at once, in rounds) answers as find, for present and absent keys, with and without tags.
  const untagged = new FingerprintTable(c.keyHi, c.keyLo);
  for (let row = 0; row < n; row++) untagged.findOrAdd(c.hi[row]!, c.lo[row]!, row);
  const m = 5_000;
  const his = new Uint32Array(m);
  const los = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const row = rand() < 0.5 ? Math.floor(rand() * n) : -1;
    his[i] = row >= 0 ? c.hi[row]! : (rand() * 2 ** 32) >>> 0;
    los[i] = row >= 0 ? c.lo[row]! : (rand() * 2 ** 32) >>> 0;
  }
  for (const t of [table, untagged]) {
    const many = new Int32Array(m);
    t.findMany(his, los, m, many);
    for (let i = 0; i < m; i++) assert.is(many[i], t.find(his[i]!, los[i]!), `findMany ${i}`);
  }
  // Handed over (another thread's table over the same keys): the same answers.
  const other = new FingerprintTable(c.keyHi, c.keyLo, table.state());
  for (let row = 0; row < n; row += 7) assert.is(other.find(c.hi[row]!, c.lo[row]!), row);
  // A row beyond what the table was told does not fit its bits.
  assert.throws(() => table.findOrAdd(1, 2, 2 ** 17), /does not fit/);
});

test("a table told nothing (the builder's) widens its row bits as rows come: same answers, tags kept", () => {
  const c = columns();
  const rand = mulberry32(8);
  const table = new FingerprintTable(c.keyHi, c.keyLo);
  // Rows spread out past the first rows' bits, so the row bits widen several times (each re-encodes
  // the slots in place); below 2^21 in all, they leave 11 bits of tag.
  const rows: number[] = [];
  for (let k = 0; k < 30_000; k++) {
    const row = k < 20_000 ? k : 20_000 + (k - 20_000) * 97;
    rows.push(row);
    c.hi[row] = (rand() * 2 ** 32) >>> 0;
    c.lo[row] = (rand() * 2 ** 32) >>> 0;
    assert.is(table.findOrAdd(c.hi[row]!, c.lo[row]!, row), -1);
  }
  for (const row of rows) assert.is(table.find(c.hi[row]!, c.lo[row]!), row, `row ${row}`);
  // Absent keys: a key read only on a tag match (1 in 2^11 of the full slots probed; untagged, every one).
  const probes = table.probes;
  const reads = table.keyReads;
  for (let k = 0; k < 10_000; k++) assert.is(table.find((rand() * 2 ** 32) >>> 0, (rand() * 2 ** 32) >>> 0), -1);
  assert.ok(table.probes - probes > 10_000, "probes");
  assert.ok(table.keyReads - reads < 50, `key reads ${table.keyReads - reads}`);
  // reserve widens a new table's row bits at once; the answers stay.
  const small = new FingerprintTable(c.keyHi, c.keyLo);
  for (let row = 0; row < 500; row++) assert.is(small.findOrAdd(c.hi[row]!, c.lo[row]!, row), -1);
  small.reserve(3_000_000);
  for (let row = 0; row < 500; row++) assert.is(small.findOrAdd(c.hi[row]!, c.lo[row]!, 2_999_999), row);
  assert.is(small.findOrAdd(1, 2, 2_999_999), -1);
});

test.run();

/**
 * Dictionary tests
 * ================
 * src/engine/entities/dictionary.ts: a hand-checked sorted list whose UTF-16 code-unit order differs from
 * code-point order (an astral emoji's lead surrogate 0xD83D sorts before U+E000 and U+FF46), with
 * prefixes, then lowerBound / idOf for present ids, absent ids between each pair of neighbours, and
 * ids beyond both ends; then a seeded oracle against a linear scan (idOf, and idsOf with every
 * query at once); then the table's size (exactly
 * ceil(n / 0.5) slots, not a power of two) and idOf over every id at sizes whose buckets and
 * probe runs wrap around the table's end, and idsOf over all of them at once, repeated and shuffled; idsOf
 * called again and again on one dictionary with lengths that grow past what it keeps arrays for and shrink; then touchKeys (the read-ahead of a statements query's
 * filters) followed by idOf, against the scan, over keys that repeat.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { Dictionary } from "../../../src/engine/entities/dictionary.js";
import { EntityTable } from "../../../src/engine/entities/entity-table.js";
import { hash64 } from "../../../src/engine/hash64.js";
import { Rng, show } from "../../support/oracle.js";

// By UTF-16 code units: "a" (61) < "ab" (61 62) < "b" (62) < "é" (E9) < "😀" (D83D DE00) < "ｆ" (FF46).
// By code points "ｆ" (U+FF46) would come before "😀" (U+1F600): the dictionary must not sort that way.
const SORTED = ["a", "ab", "b", "é", "😀", "ｆ"];

/**
 * `ids.indexOf` as a function, answered from a Map made once: the position of each id's first
 * occurrence, -1 for any other string (a scan of `ids` per key made these tests quadratic).
 */
function positionsOf(ids: readonly string[]): (key: string) => number {
  const at = new Map<string, number>();
  for (let i = ids.length - 1; i >= 0; i--) at.set(ids[i]!, i);
  return (key) => at.get(key) ?? -1;
}

/** A dictionary over an entity table of `ids` (ascending), every other column empty. */
function dictionaryOf(ids: readonly string[]): Dictionary {
  return new Dictionary(
    EntityTable.from({
      entityIds: ids,
      rawIdentifiers: ids.map(() => ""),
      types: ids.map(() => 0),
      sourceTypeIndex: ids.map(() => 0),
      sourceTypes: [""],
    }),
  );
}

test("idOf: every present id is its position; absent ids are -1", () => {
  const d = dictionaryOf(SORTED);
  assert.is(d.size, 6);
  SORTED.forEach((id, i) => {
    assert.is(d.idOf(id), i, id);
    assert.is(d.lowerBound(id), i, id);
  });
  for (const absent of [
    "",
    "aa",
    "abc",
    "A",
    "c",
    "e",
    "\u00E9\u0000",
    "\uD83D",
    "\uDE00",
    "😁",
    "\uE000",
    "ｆｆ",
    "\uFFFF",
    "e\u0301",
  ]) {
    assert.is(d.idOf(absent), -1, show(absent));
  }
});

test("lowerBound: absent ids land between their neighbours", () => {
  const d = dictionaryOf(SORTED);
  const cases: [string, number][] = [
    ["", 0], // before everything
    ["A", 0], // 41 < 61
    ["a\u0000", 1], // "a" < "a\0" < "ab"
    ["aa", 1],
    ["abc", 2], // "ab" < "abc" < "b"
    ["b\u0000", 3],
    ["z", 3], // 7A < E9
    ["e\u0301", 3], // decomposed é is "e" + mark: 65 < E9, and it is not "é"
    ["\u00FF", 4], // FF: between é and 😀
    ["\uD83D", 4], // a lone lead surrogate is a prefix of "😀"
    ["😁", 5], // D83D DE01 > D83D DE00
    ["\uE000", 5], // U+E000 < U+1F600 by code point, but E000 > D83D by code unit
    ["ｆ\u0000", 6],
    ["ｇ", 6], // FF47: after everything
    ["\uFFFF", 6],
  ];
  for (const [id, at] of cases) {
    assert.is(d.lowerBound(id), at, show(id));
    assert.is(d.idOf(id), -1, show(id));
  }
});

test("empty and one-entry dictionaries", () => {
  const empty = dictionaryOf([]);
  assert.is(empty.size, 0);
  assert.is(empty.lowerBound("a"), 0);
  assert.is(empty.idOf("a"), -1);
  const one = dictionaryOf(["m"]);
  assert.is(one.lowerBound("a"), 0);
  assert.is(one.lowerBound("m"), 0);
  assert.is(one.lowerBound("z"), 1);
  assert.is(one.idOf("m"), 0);
  assert.is(one.idOf("z"), -1);
});

const CHARS = ["a", "b", "c", "A", "0", "\u0000", "é", "中", "😀", "\uD83D", "\uDE00", "\uE000", "ｆ", "\uFFFF"];

function randomId(rng: Rng): string {
  let s = "";
  const n = rng.range(1, 5);
  for (let i = 0; i < n; i++) s += rng.pick(CHARS);
  return s;
}

test("oracle: lowerBound and idOf against a linear scan", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const rng = new Rng(seed);
    const set = new Set<string>();
    const n = rng.int(60);
    for (let i = 0; i < n; i++) set.add(randomId(rng));
    // Array.prototype.sort without a comparator orders strings by UTF-16 code units.
    const ids = [...set].sort();
    const d = dictionaryOf(ids);
    const queries = [...ids];
    for (let i = 0; i < 60; i++) queries.push(randomId(rng));
    for (const q of queries) {
      let scan = ids.findIndex((id) => id >= q);
      if (scan < 0) scan = ids.length;
      const lb = d.lowerBound(q);
      if (lb !== scan)
        assert.unreachable(`seed ${seed}: lowerBound(${show(q)}) = ${lb}, scan says ${scan} in ${show(ids)}`);
      const id = d.idOf(q);
      if (id !== ids.indexOf(q)) assert.unreachable(`seed ${seed}: idOf(${show(q)}) = ${id}, want ${ids.indexOf(q)}`);
    }
    // idsOf (all at once, in phases) answers as the scan does, for the same queries in one call.
    const many = new Int32Array(queries.length);
    d.idsOf(queries, many);
    assert.equal(
      [...many],
      queries.map((q) => ids.indexOf(q)),
      `seed ${seed}: idsOf`,
    );
    // With `hashes`: the same ids, and each query's hash64, found or not.
    const again = new Int32Array(queries.length);
    const hashes = new Uint32Array(2 * queries.length);
    d.idsOf(queries, again, hashes);
    assert.equal([...again], [...many], `seed ${seed}: idsOf with hashes`);
    assert.equal(
      [...hashes],
      queries.flatMap((q) => hash64([q])),
      `seed ${seed}: idsOf's hashes`,
    );
  }
});

test("the lookup table is sized exactly (8 bytes an entity), and idOf finds every id at many sizes", () => {
  for (const n of [0, 1, 2, 3, 5, 31, 255, 256, 257, 1000, 4097, 20_000]) {
    const ids = Array.from({ length: n }, (_, i) => `Q${i.toString().padStart(6, "0")}`);
    const d = dictionaryOf(ids);
    assert.is(d.byteLength, 4 * Math.max(2, 2 * n), `n ${n}`);
    const indexOf = positionsOf(ids);
    for (let i = 0; i < n; i++) if (d.idOf(ids[i]!) !== i) assert.unreachable(`n ${n}: idOf(${ids[i]}) is not ${i}`);
    for (const absent of ["Q", "Q-1", `Q${n}`, "R000000"])
      if (indexOf(absent) < 0 && d.idOf(absent) !== -1) assert.unreachable(`n ${n}: idOf(${absent}) found`);
    // idsOf over every id (their probe runs share slots, and wrap at the table's end), each named
    // three times in a shuffled order as a batch would, and the absent ones: idOf's answers.
    const rng = new Rng(n + 1);
    const keys = [...ids, ...ids, ...ids, "Q", "Q-1", `Q${n}`, "R000000"];
    for (let i = keys.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out = new Int32Array(keys.length);
    d.idsOf(keys, out);
    for (let i = 0; i < keys.length; i++)
      if (out[i] !== indexOf(keys[i]!)) assert.unreachable(`n ${n}: idsOf gives ${keys[i]} ${out[i]}`);
  }
});

test("idsOf: calls of growing and shrinking lengths on one dictionary (its kept working arrays, and past them) answer as idOf", () => {
  const ids = Array.from({ length: 3000 }, (_, i) => `E${(i * 7919).toString(36)}`).sort();
  const d = dictionaryOf(ids);
  const indexOf = positionsOf(ids);
  const rng = new Rng(99);
  // Past 65,536 ids (the most idsOf keeps arrays for), then smaller again: every call's own answers.
  for (const n of [0, 1, 5, 100, 3000, 70_000, 50, 9000, 64, 65, 65_536, 65_537, 2, 30_000]) {
    const keys = Array.from({ length: n }, () => (rng.chance(0.8) ? rng.pick(ids) : `absent${rng.int(50)}`));
    const out = new Int32Array(n).fill(-7);
    const hashes = new Uint32Array(2 * n);
    d.idsOf(keys, out, hashes);
    for (let i = 0; i < n; i++) {
      if (out[i] !== indexOf(keys[i]!)) assert.unreachable(`n ${n}: idsOf gives ${keys[i]} ${out[i]}`);
      const h = hash64([keys[i]!]);
      if (hashes[2 * i] !== h[0] || hashes[2 * i + 1] !== h[1]) assert.unreachable(`n ${n}: hash of ${keys[i]}`);
    }
  }
});

test("idOf: looked up again, interleaved, and as new strings of the same text, each gives its own id (the memo of the last two)", () => {
  const d = dictionaryOf(SORTED);
  const rng = new Rng(41);
  const ids = [...SORTED, "aa", "c", "\uD83D"];
  for (let i = 0; i < 2_000; i++) {
    const id = rng.pick(ids);
    // A copy of the same text half the time (another string object: the memo compares by content).
    const asked = rng.chance(0.5) ? id : [...id].join("");
    assert.is(d.idOf(asked), SORTED.indexOf(id), show(id));
  }
});

test("touchKeys, then idOf: the same ids as idOf alone, whatever keys came before (its kept hashes, the memo of the last two)", () => {
  // A key touchKeys skips (one of the memo's two) must not be taken later with another key's kept
  // hash: the keys repeat often here, so every mix of skipped, kept and new keys comes up.
  for (let seed = 1; seed <= 50; seed++) {
    const rng = new Rng(seed);
    const set = new Set<string>();
    const n = 1 + rng.int(40);
    for (let i = 0; i < n; i++) set.add(randomId(rng));
    const ids = [...set].sort();
    const pool = [...ids, randomId(rng), randomId(rng), randomId(rng)];
    const d = dictionaryOf(ids);
    const key = (): string | undefined => (rng.chance(0.2) ? undefined : rng.pick(pool));
    for (let q = 0; q < 300; q++) {
      const keys = [key(), key(), key()] as const;
      // Two keys read ahead (a query's subject and object), then up to three looked up.
      d.touchKeys(keys[0] ?? rng.pick(pool), keys[2] ?? rng.pick(pool));
      for (const k of keys) {
        if (k === undefined) continue;
        const got = d.idOf(rng.chance(0.5) ? k : [...k].join(""));
        if (got !== ids.indexOf(k))
          assert.unreachable(`seed ${seed}, query ${q}: idOf(${show(k)}) = ${got}, want ${ids.indexOf(k)}`);
      }
    }
  }
});

test.run();

/**
 * Search index tests
 * ==================
 * src/engine/search/search-index.ts on its own, with folded identifiers given directly: a hand-made list of
 * thirteen entities (equal identifiers on different entities, an empty identifier, one holding
 * U+0000, identifiers that would spell the pattern across the separator between two neighbours)
 * and `find` checked against answers worked out by hand: tier 0, 1, 2 in order, ties broken by
 * entityId, the type filter, resuming after a key in each tier (also keys whose entity or folded
 * identifier is not in the index), count limiting; a 100,000-unit identifier. Then a seeded oracle: random small graphs with 1..8 types, brute-force substring
 * search sorted by (tier, folded, entityId), every resume point of every (pattern, type); the
 * type groups' sampled lower bound against a scan. The build's steps: a caller's names let go at
 * the first, and the stop at the suffix array (buildWithValues' steps), change nothing of the index.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  SearchIndex,
  TIER_EXACT,
  TIER_INFIX,
  TIER_PREFIX,
  type SearchResume,
} from "../../../src/engine/search/search-index.js";
import { MemorySerialWriter } from "../../../src/engine/serial.js";
import { Rng, show } from "../../support/oracle.js";
import { assertSameFields } from "../../support/snapshot.js";

// dense id: entityId, folded identifier, type. entityIds ascend with the dense id.
const HAND: [string, string, number][] = [
  ["a1", "ab", 2], // d0
  ["a2", "xaby", 1], // d1
  ["a3", "abc", 0], // d2
  ["a4", "ab", 0], // d3  (same identifier as d0: a1 < a4 breaks the tie, whatever the types)
  ["a5", "", 0], // d4  (empty identifier)
  ["a6", "a\u0000b", 1], // d5  (U+0000 inside)
  ["a7", "a", 0], // d6
  ["a8", "b", 1], // d7
  ["a9", "ab ab", 1], // d8  (the pattern twice: listed once)
  ["b0", "cab", 1], // d9
  ["b1", "abab", 2], // d10
  ["b2", "zzab", 2], // d11
  ["b3", "cab", 0], // d12 (same identifier as d9, lower type: b0 < b3 still breaks the tie)
];
// Rank order, by (folded, entityId):
//   0 ""(d4)  1 "a"(d6)  2 "a\0b"(d5)  3 "ab"(d0)  4 "ab"(d3)  5 "ab ab"(d8)  6 "abab"(d10)
//   7 "abc"(d2)  8 "b"(d7)  9 "cab"(d9)  10 "cab"(d12)  11 "xaby"(d1)  12 "zzab"(d11)
// so the text is "" | "a" | "a\0b" | "ab" | ... | "b" | "cab" | ... | "xaby" | "zzab" with a separator after each.

/** The entityIds of each index built here (ascending = dense id order), to place keys. */
const idsOf = new WeakMap<SearchIndex, readonly string[]>();

function buildIndex(folded: readonly string[], types: Uint8Array, ids: readonly string[]): SearchIndex {
  const index = SearchIndex.build(folded, types);
  idsOf.set(index, ids);
  return index;
}

function build(rows: readonly [string, string, number][]): SearchIndex {
  return buildIndex(
    rows.map((r) => r[1]),
    Uint8Array.from(rows, (r) => r[2]),
    rows.map((r) => r[0]),
  );
}

/** A resume key as a cursor carries it: the last item's tier, folded identifier and entityId. */
interface SearchKey {
  tier: number;
  folded: string;
  entityId: string;
}

/** A key placed among an index's entityIds, as the graph does. */
function resumeOf(index: SearchIndex, k: SearchKey | null): SearchResume {
  if (k === null) return null;
  const ids = idsOf.get(index)!;
  let at = 0;
  while (at < ids.length && ids[at]! < k.entityId) at++;
  return { tier: k.tier, folded: k.folded, entityAt: at, entityExact: ids[at] === k.entityId };
}

/** find, with ranks mapped to dense ids. */
function find(
  index: SearchIndex,
  pattern: string,
  type = -1,
  after: SearchKey | null = null,
  count = 1000,
): { ids: number[]; tiers: number[] } {
  const hits = index.find(pattern, type, resumeOf(index, after), count);
  assert.is(hits.ranks.length, hits.tiers.length);
  return { ids: hits.ranks.map((r) => index.idAt(r)), tiers: hits.tiers };
}

function key(tier: number, folded: string, entityId: string): SearchKey {
  return { tier, folded, entityId };
}

test("the tier constants are the contract's order", () => {
  assert.equal([TIER_EXACT, TIER_PREFIX, TIER_INFIX], [0, 1, 2]);
});

test("rank order: (folded, entityId)", () => {
  const index = build(HAND);
  assert.is(index.entityCount, 13);
  const byRank = Array.from({ length: 13 }, (_, r) => index.idAt(r));
  assert.equal(byRank, [4, 6, 5, 0, 3, 8, 10, 2, 7, 9, 12, 1, 11]);
  // The folded identifiers in rank order ascend (ties by entityId, dense ids ascending).
  for (let r = 1; r < 13; r++) {
    const [a, b] = [HAND[index.idAt(r - 1)]!, HAND[index.idAt(r)]!];
    assert.ok(a[1] < b[1] || (a[1] === b[1] && a[0] < b[0]), `rank ${r}`);
  }
});

test("find: tier 0, then 1, then 2, each in (folded, entityId) order", () => {
  const index = build(HAND);
  assert.equal(find(index, "ab"), { ids: [0, 3, 8, 10, 2, 9, 12, 1, 11], tiers: [0, 0, 1, 1, 1, 2, 2, 2, 2] });
  assert.equal(find(index, "a"), {
    ids: [6, 5, 0, 3, 8, 10, 2, 9, 12, 1, 11],
    tiers: [0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2],
  });
  // "b": tier 2 lies both below and above the prefix range (rank 8).
  assert.equal(find(index, "b"), {
    ids: [7, 5, 0, 3, 8, 10, 2, 9, 12, 1, 11],
    tiers: [0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
  });
  assert.equal(find(index, "cab"), { ids: [9, 12], tiers: [0, 0] });
  assert.equal(find(index, "ab ab"), { ids: [8], tiers: [0] });
  assert.equal(find(index, "zz"), { ids: [11], tiers: [1] });
  assert.equal(find(index, "y"), { ids: [1], tiers: [2] });
  for (const none of ["q", "abx", "abababab", "A", "zzabz"])
    assert.equal(find(index, none), { ids: [], tiers: [] }, show(none));
});

test("find: no match across the separator between neighbours, U+0000 only where the text has it", () => {
  const index = build(HAND);
  // Neighbours "b" | "cab" and "xaby" | "zzab" would spell these without the separator.
  assert.equal(find(index, "bca").ids, []);
  assert.equal(find(index, "abyz").ids, []);
  // If separators were stored as U+0000, these would match across them.
  assert.equal(find(index, "\u0000"), { ids: [5], tiers: [2] });
  assert.equal(find(index, "a\u0000b"), { ids: [5], tiers: [0] });
  assert.equal(find(index, "a\u0000"), { ids: [5], tiers: [1] });
  assert.equal(find(index, "\u0000b"), { ids: [5], tiers: [2] });
  assert.equal(find(index, "b\u0000").ids, []);
  assert.equal(find(index, "\u0000c").ids, []);
  // Two entities "a" and "b", adjacent in the text: "a\0b" must not find them.
  const two = build([
    ["e1", "a", 0],
    ["e2", "b", 0],
  ]);
  assert.equal(find(two, "a\u0000b").ids, []);
  assert.equal(find(two, "\u0000").ids, []);
  assert.equal(find(two, "ab").ids, []);
  assert.equal(find(two, "a").ids, [0]);
  assert.equal(find(two, "b").ids, [1]);
});

test("find: empty identifiers never match, and do not disturb their neighbours", () => {
  const empties = build([
    ["e1", "", 0],
    ["e2", "a", 1],
    ["e3", "", 0],
    ["e4", "ba", 0],
  ]);
  assert.equal(find(empties, "a"), { ids: [1, 3], tiers: [0, 2] });
  assert.equal(find(empties, "a", 0), { ids: [3], tiers: [2] });
  assert.equal(find(empties, "\u0000").ids, []);
  assert.equal(find(empties, "b"), { ids: [3], tiers: [1] });
  const allEmpty = build([
    ["e1", "", 0],
    ["e2", "", 3],
  ]);
  assert.equal(find(allEmpty, "a").ids, []);
  assert.equal(find(allEmpty, "\u0000").ids, []);
  const none = build([]);
  assert.is(none.entityCount, 0);
  assert.equal(find(none, "a").ids, []);
});

test("find: a type filter lists exactly that type's matches", () => {
  const index = build(HAND);
  assert.equal(find(index, "ab", 0), { ids: [3, 2, 12], tiers: [0, 1, 2] });
  assert.equal(find(index, "ab", 1), { ids: [8, 9, 1], tiers: [1, 2, 2] });
  assert.equal(find(index, "ab", 2), { ids: [0, 10, 11], tiers: [0, 1, 2] });
  for (let t = 3; t < 8; t++) assert.equal(find(index, "ab", t).ids, [], `type ${t}`);
  assert.equal(find(index, "b", 1), { ids: [7, 5, 8, 9, 1], tiers: [0, 2, 2, 2, 2] });
  assert.equal(find(index, "a", 0), { ids: [6, 3, 2, 12], tiers: [0, 1, 1, 2] });
  assert.equal(find(index, "\u0000", 0).ids, []);
});

test("find: count limits the page, across tiers", () => {
  const index = build(HAND);
  assert.equal(find(index, "ab", -1, null, 0).ids, []);
  assert.equal(find(index, "ab", -1, null, 1), { ids: [0], tiers: [0] });
  assert.equal(find(index, "ab", -1, null, 2).ids, [0, 3]);
  assert.equal(find(index, "ab", -1, null, 4), { ids: [0, 3, 8, 10], tiers: [0, 0, 1, 1] });
  assert.equal(find(index, "ab", -1, null, 6), { ids: [0, 3, 8, 10, 2, 9], tiers: [0, 0, 1, 1, 1, 2] });
  assert.equal(find(index, "ab", -1, null, 9).ids, [0, 3, 8, 10, 2, 9, 12, 1, 11]);
  assert.equal(find(index, "ab", 1, null, 2).ids, [8, 9]);
  assert.equal(find(index, "b", -1, null, 3).ids, [7, 5, 0]);
});

test("find: resume after a key in each tier, present or not in the index", () => {
  const index = build(HAND);
  const after = (k: SearchKey, type = -1, count = 1000) => find(index, "ab", type, k, count).ids;
  // Tier 0.
  assert.equal(after(key(0, "ab", "a1")), [3, 8, 10, 2, 9, 12, 1, 11]);
  assert.equal(after(key(0, "ab", "a2")), [3, 8, 10, 2, 9, 12, 1, 11]); // a2 is not an "ab": between a1 and a4
  assert.equal(after(key(0, "ab", "a0")), [0, 3, 8, 10, 2, 9, 12, 1, 11]); // before a1: nothing skipped
  assert.equal(after(key(0, "ab", "a4")), [8, 10, 2, 9, 12, 1, 11]);
  assert.equal(after(key(0, "ab", "zz")), [8, 10, 2, 9, 12, 1, 11]); // an entity gone, after every "ab"
  // Tier 1.
  assert.equal(after(key(1, "ab ab", "a9")), [10, 2, 9, 12, 1, 11]);
  assert.equal(after(key(1, "abab", "zz")), [2, 9, 12, 1, 11]);
  assert.equal(after(key(1, "abb", "x")), [2, 9, 12, 1, 11]); // a folded identifier not in the index
  assert.equal(after(key(1, "abc", "a3")), [9, 12, 1, 11]); // the last of tier 1
  // Tier 2.
  assert.equal(after(key(2, "a", "z")), [9, 12, 1, 11]); // below every tier-2 identifier
  assert.equal(after(key(2, "cab", "a0")), [9, 12, 1, 11]);
  assert.equal(after(key(2, "cab", "b0")), [12, 1, 11]);
  assert.equal(after(key(2, "cab", "b1")), [12, 1, 11]); // b1 is not a "cab": between b0 and b3
  assert.equal(after(key(2, "cab", "b3")), [1, 11]);
  assert.equal(after(key(2, "y", "x")), [11]);
  assert.equal(after(key(2, "zzab", "b2")), []);
  assert.equal(after(key(2, "\uFFFF", "")), []);
  // With a count.
  assert.equal(after(key(1, "ab ab", "a9"), -1, 2), [10, 2]);
  assert.equal(after(key(0, "ab", "a4"), -1, 3), [8, 10, 2]);
  assert.equal(after(key(2, "cab", "b0"), -1, 1), [12]);
  // With a type filter (the key's own entity may be of another type).
  assert.equal(after(key(1, "ab ab", "a9"), 1), [9, 1]);
  assert.equal(after(key(2, "cab", "b0"), 0), [12]); // d9 ("b0") is type 1
  assert.equal(after(key(2, "cab", "a0"), 0), [12]);
  assert.equal(after(key(0, "ab", "a1"), 2), [10, 11]);
  assert.equal(after(key(0, "ab", "a1"), 0), [3, 2, 12]);
  assert.equal(after(key(0, "ab", "a4"), 0), [2, 12]);
  // "b": tier-2 ranks on both sides of the prefix range; resuming skips the tier-0 "b".
  const afterB = (k: SearchKey) => find(index, "b", -1, k).ids;
  assert.equal(afterB(key(0, "b", "a8")), [5, 0, 3, 8, 10, 2, 9, 12, 1, 11]);
  assert.equal(afterB(key(1, "b\u0000", "zz")), [5, 0, 3, 8, 10, 2, 9, 12, 1, 11]);
  assert.equal(afterB(key(2, "ab", "a1")), [3, 8, 10, 2, 9, 12, 1, 11]);
  assert.equal(afterB(key(2, "abc", "a3")), [9, 12, 1, 11]);
});

test("tier 2 without a type filter: the eight bands merge in rank order, for every page size and resume point", () => {
  // 96 entities "z000a".."z095a": all tier 2 for "a", rank = dense id. Several type layouts: round
  // robin (every band holds many matches, interleaved), one band holding most, two bands in runs.
  const layouts: [string, (i: number) => number][] = [
    ["round robin", (i) => i % 8],
    ["skewed", (i) => (i < 60 ? 3 : i % 8)],
    ["runs", (i) => (Math.floor(i / 10) % 2 === 0 ? 1 : 6)],
    ["reverse runs", (i) => 7 - Math.floor(i / 12)],
  ];
  const n = 96;
  const folded = Array.from({ length: n }, (_, i) => `z${String(i).padStart(3, "0")}a`);
  const ids = Array.from({ length: n }, (_, i) => `e${String(i).padStart(3, "0")}`);
  const everything = Array.from({ length: n }, (_, i) => i);
  for (const [name, typeOf] of layouts) {
    const index = buildIndex(
      folded,
      Uint8Array.from(folded, (_, i) => typeOf(i)),
      ids,
    );
    for (let count = 1; count <= n + 1; count++) {
      const got = find(index, "a", -1, null, count).ids;
      if (show(got) !== show(everything.slice(0, count))) assert.unreachable(`${name}, count ${count}: ${show(got)}`);
    }
    for (let i = 0; i < n; i++) {
      for (const count of [1, 7, 20, 50]) {
        const got = find(index, "a", -1, key(2, folded[i]!, ids[i]!), count).ids;
        if (show(got) !== show(everything.slice(i + 1, i + 1 + count)))
          assert.unreachable(`${name}, after ${i}, count ${count}: ${show(got)}`);
      }
    }
    // Each band alone: its own entities, in order.
    for (let t = 0; t < 8; t++) {
      assert.equal(
        find(index, "a", t).ids,
        everything.filter((i) => typeOf(i) === t),
        `${name}, type ${t}`,
      );
    }
  }
});

test("a 100,000-unit identifier is found as infix, exact and prefix match", () => {
  const rng = new Rng(3);
  let long = "";
  while (long.length < 100_000) long += String.fromCharCode(rng.pick([0x61, 0x62, 0x00, 0xd83d, 0xde00, 0xe9, 0xffff]));
  long = long.slice(0, 49_990) + "MARKER" + long.slice(49_996);
  assert.is(long.length, 100_000);
  const index = build([
    ["e1", "a", 0],
    ["e2", long, 1],
    ["e3", "zz", 2],
  ]);
  const rank = [0, 1, 2].find((r) => index.idAt(r) === 1)!;
  assert.is(index.idAt(rank), 1);
  assert.equal(find(index, "MARKER"), { ids: [1], tiers: [2] });
  assert.equal(find(index, long), { ids: [1], tiers: [0] });
  assert.equal(find(index, long.slice(0, 60_000)), { ids: [1], tiers: [1] });
  assert.equal(find(index, long + "a").ids, []);
});

// ---------------------------------------------------------------------------------------------
// Seeded oracle

const PIECES = ["a", "b", "c", "ab", "\u0000", "é", "😀", "\uD83D", "\uFFFF"];

function randomText(rng: Rng, maxPieces: number): string {
  let s = "";
  const n = rng.int(maxPieces + 1);
  for (let i = 0; i < n; i++) s += rng.pick(PIECES);
  return s;
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Item = { id: number; tier: number; folded: string; entityId: string };

function compareItemToKey(x: Item, k: SearchKey): number {
  return cmp(x.tier, k.tier) || cmp(x.folded, k.folded) || cmp(x.entityId, k.entityId);
}

test("oracle: find against brute force, from every resume point, every type", () => {
  let checks = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rng = new Rng(seed);
    const n = rng.chance(0.2) ? rng.range(30, 80) : rng.int(25);
    const typeCount = rng.range(1, 8);
    const typePool = rng.shuffle([0, 1, 2, 3, 4, 5, 6, 7]).slice(0, typeCount);
    const idSet = new Set<string>();
    while (idSet.size < n) idSet.add(`${rng.pick(["a", "b", "é", "😀", "\uE000"])}${rng.int(50)}`);
    const ids = [...idSet].sort();
    // Few pieces per identifier: many equal identifiers, prefixes and ties.
    const folded = ids.map(() => randomText(rng, rng.chance(0.2) ? 8 : 3));
    const types = Uint8Array.from(ids, () => rng.pick(typePool));
    const index = buildIndex(folded, types, ids);
    const patterns = new Set<string>();
    for (let k = 0; k < 6; k++) {
      const src = n > 0 && rng.chance(0.7) ? folded[rng.int(n)]! : randomText(rng, 3);
      const from = rng.int(src.length + 1);
      const pattern = rng.chance(0.3) ? src : src.slice(from, from + rng.range(1, 4));
      if (pattern.length > 0) patterns.add(pattern);
    }
    for (const pattern of patterns) {
      for (let type = -1; type < 8; type++) {
        const ctx = `seed ${seed} pattern ${show(pattern)} type ${type} ids ${show(ids)} folded ${show(folded)} types ${show(Array.from(types))}`;
        const all: Item[] = [];
        for (let d = 0; d < n; d++) {
          const f = folded[d]!;
          if (!f.includes(pattern) || (type >= 0 && types[d] !== type)) continue;
          all.push({ id: d, tier: f === pattern ? 0 : f.startsWith(pattern) ? 1 : 2, folded: f, entityId: ids[d]! });
        }
        all.sort((x, y) => cmp(x.tier, y.tier) || cmp(x.folded, y.folded) || cmp(x.entityId, y.entityId));
        const check = (after: SearchKey | null, count: number) => {
          const rest = after === null ? all : all.filter((x) => compareItemToKey(x, after) > 0);
          const want = rest.slice(0, count);
          const got = find(index, pattern, type, after, count);
          const same =
            got.ids.length === want.length && want.every((x, i) => got.ids[i] === x.id && got.tiers[i] === x.tier);
          if (!same) {
            assert.unreachable(
              `${ctx} after ${show(after)} count ${count}: got ${show(got)}, want ${show({ ids: want.map((x) => x.id), tiers: want.map((x) => x.tier) })}`,
            );
          }
          checks++;
        };
        check(null, 1000);
        check(null, rng.range(1, 3));
        // Every item as a resume point, with a small page and an unbounded one.
        for (const x of all) {
          check(key(x.tier, x.folded, x.entityId), rng.pick([1, 2, 3, 5, 8, 13]));
          check(key(x.tier, x.folded, x.entityId), 1000);
        }
        // Keys not in the index: an entity gone next to each item, and random keys in each tier.
        for (const x of all) check(key(x.tier, x.folded, `${x.entityId}\u0000`), 1000);
        for (let k = 0; k < 3; k++)
          check(
            key(rng.int(3), randomText(rng, 3), rng.chance(0.5) ? "" : `${rng.pick(["a", "b", "z"])}${rng.int(50)}`),
            rng.range(1, 1000),
          );
      }
    }
  }
  assert.ok(checks > 10_000, `only ${checks} checks`);
});

test("lowerBoundInType: the sampled search equals a scan of the type's ranks, around the sample's width", () => {
  for (const n of [1, 5, 31, 32, 33, 64, 65, 200, 1000]) {
    const rng = new Rng(n);
    // Two or three types in play, one of them rare: groups of every length against the samples.
    const types = Uint8Array.from({ length: n }, () => (rng.chance(0.1) ? 5 : rng.chance(0.5) ? 1 : 2));
    const index = SearchIndex.build(
      Array.from({ length: n }, (_, i) => `e${i}`),
      types,
    );
    for (let t = 0; t < 8; t++) {
      const start = index.typeStarts[t]!;
      const end = index.typeStarts[t + 1]!;
      for (let rank = 0; rank <= n + 1; rank++) {
        let want = start;
        while (want < end && index.typeRanks.get(want) < rank) want++;
        assert.is(index.lowerBoundInType(t, rank), want, `n=${n} type ${t} rank ${rank}`);
      }
    }
  }
});

test("a caller that lets its names go at the first step (a compaction's feed) gets the index of the names", () => {
  const rng = new Rng(77);
  const names = Array.from({ length: 3_000 }, (_, i) => `${rng.pick(["ab", "cd", "ef"])} ${i % 700}`);
  const types = Uint8Array.from(names, () => rng.int(8));
  const expected = new MemorySerialWriter();
  SearchIndex.build(names, types).serialize(expected);
  const given = names.slice();
  const got = new MemorySerialWriter();
  SearchIndex.build(given, types, (done) => {
    if (done === 1) given.length = 0;
  }).serialize(got);
  assertSameFields(got.fields, expected.fields);
});

test("buildWithValues calls its FM-index steps once each, between steps 1 and 2, and makes build()'s index", () => {
  const rng = new Rng(78);
  const names = Array.from({ length: 3_000 }, (_, i) => `${rng.pick(["ab", "cd", "éf"])} ${i % 900}`);
  const types = Uint8Array.from(names, () => rng.int(8));
  const expected = new MemorySerialWriter();
  SearchIndex.build(names, types).serialize(expected);
  const given = names.slice();
  const events: string[] = [];
  const { index, documentValues } = SearchIndex.buildWithValues(
    given,
    types,
    (done) => {
      events.push(`step ${done}`);
      // A caller that lets its names go at the first step (the search index's thread).
      if (done === 1) given.length = 0;
    },
    { textMade: () => events.push("text"), suffixArrayMade: () => events.push("suffix array") },
  );
  assert.equal(events, ["step 1", "text", "suffix array", "step 2", "step 3", "step 4", "step 5"]);
  const got = new MemorySerialWriter();
  index.serialize(got);
  assertSameFields(got.fields, expected.fields);
  assert.equal(Array.from(documentValues), Array.from(SearchIndex.buildWithValues(names, types).documentValues));
});

test.run();

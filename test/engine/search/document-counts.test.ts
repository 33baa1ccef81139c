/**
 * Document counts tests: for random identifier sets (tiny alphabets: many repeats inside one
 * identifier and across identifiers, prefixes of one another, every type, some types absent), the
 * count of every pattern's suffix interval, with each type and none, equals the number of distinct
 * entities containing the pattern (brute force over the identifiers).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { SearchIndex } from "../../../src/engine/search/search-index.js";
import { Rng } from "../../support/oracle.js";

function check(seed: number, entities: number, alphabet: string, maxLength: number): void {
  const rng = new Rng(seed);
  const names: string[] = [];
  for (let i = 0; i < entities; i++) {
    const earlier = names.length > 0 && rng.chance(0.2) ? rng.pick(names) : "";
    let s = earlier;
    const n = rng.int(maxLength + 1);
    for (let k = 0; k < n; k++) s += alphabet[rng.int(alphabet.length)];
    names.push(s);
  }
  const absent = rng.int(8);
  const types = Uint8Array.from(names, () => {
    const t = rng.int(8);
    return t === absent ? (t + 1) % 8 : t;
  });
  const index = SearchIndex.build(names, types);
  // Every pattern of length 1..3 over the alphabet, and some longer ones cut from the names.
  const patterns = new Set<string>();
  const grow = (p: string): void => {
    if (p.length > 0) patterns.add(p);
    if (p.length < 3) for (const c of alphabet) grow(p + c);
  };
  grow("");
  for (let k = 0; k < 30; k++) {
    const s = rng.pick(names);
    const a = rng.int(s.length + 1);
    const p = s.slice(a, a + rng.range(1, 8));
    if (p.length > 0) patterns.add(p);
  }
  for (const p of patterns) {
    for (let type = -1; type < 8; type++) {
      let want = 0;
      for (let d = 0; d < names.length; d++) if ((type < 0 || types[d] === type) && names[d]!.includes(p)) want++;
      const got = index.count(p, type);
      if (got !== want) assert.unreachable(`seed ${seed}: count(${JSON.stringify(p)}, ${type}) = ${got}, want ${want}`);
    }
  }
}

test("count: distinct entities per pattern, any type or none, small alphabets", () => {
  for (let seed = 1; seed <= 60; seed++) check(seed, 1 + (seed % 50), "ab", 8);
  for (let seed = 61; seed <= 90; seed++) check(seed, 200, "abc", 12);
  for (let seed = 91; seed <= 95; seed++) check(seed, 2000, "ab", 20);
});

test("count: one identifier repeated thousands of times (a stack of increasing LCPs deeper than its first size)", () => {
  // "ab" 3,000 times, ranked last (the others sort before it), ends the text with "#ab" repeated:
  // those suffixes come shortest first, each one's LCP with the one before it three units longer,
  // so the build's stack of increasing LCPs is thousands deep.
  const names = [...Array.from({ length: 3000 }, () => "ab"), "a", "aa", "aab"];
  const types = Uint8Array.from(names, (_, i) => i % 5);
  const index = SearchIndex.build(names, types);
  for (const p of ["a", "ab", "b", "aa", "aab", "ba", "bab", "c"]) {
    for (let type = -1; type < 8; type++) {
      let want = 0;
      for (let d = 0; d < names.length; d++) if ((type < 0 || types[d] === type) && names[d]!.includes(p)) want++;
      assert.is(index.count(p, type), want, `count(${JSON.stringify(p)}, ${type})`);
    }
  }
});

test("count: an empty graph and a graph of empty names", () => {
  const empty = SearchIndex.build([], new Uint8Array(0));
  assert.is(empty.count("a", -1), 0);
  const blanks = SearchIndex.build(["", "", "a"], Uint8Array.of(0, 3, 3));
  assert.is(blanks.count("a", -1), 1);
  assert.is(blanks.count("a", 3), 1);
  assert.is(blanks.count("a", 0), 0);
  assert.is(blanks.count("", -1), 3);
  assert.is(blanks.count("", 3), 2);
});

test.run();

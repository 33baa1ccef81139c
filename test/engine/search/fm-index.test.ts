/**
 * FM-index tests: intervals and lower bounds against a naive suffix sort of the same text, on random
 * identifier lists (tiny alphabets for many repeats, Unicode and astral code units, empty
 * identifiers), and the alphabet partitioning on a skewed alphabet (rare symbols in their own matrix);
 * the build's text is two bytes a symbol when the alphabet fits them and four when every code unit
 * occurs, with the same suffix array either way.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { FMIndex, SEPARATOR, TERMINATOR } from "../../../src/engine/search/fm-index.js";
import { naiveSuffixArray } from "../../../tools/naive-suffix-array.js";
import { Rng } from "../../support/oracle.js";

/** T as code-unit-order keys: # = 0, $ = 1, unit u = u + 2 (the same order as the index's symbols). */
function textOf(ids: readonly string[]): number[] {
  const t: number[] = [];
  for (const s of ids) {
    t.push(1);
    for (let k = 0; k < s.length; k++) t.push(s.charCodeAt(k) + 2);
  }
  t.push(1, 0);
  return t;
}

function keyOf(head: number, pattern: string, tail: number): number[] {
  const key: number[] = [];
  if (head >= 0) key.push(head);
  for (let k = 0; k < pattern.length; k++) key.push(pattern.charCodeAt(k) + 2);
  if (tail >= 0) key.push(tail);
  return key;
}

/** Suffixes of t below key, and those starting with it. */
function naiveCounts(
  t: readonly number[],
  sa: readonly number[],
  key: readonly number[],
): { below: number; starting: number } {
  let below = 0;
  let starting = 0;
  for (const p of sa) {
    let c = 0;
    for (let k = 0; k < key.length; k++) {
      const a = p + k < t.length ? t[p + k]! : -1;
      if (a !== key[k]) {
        c = a < key[k]! ? -1 : 1;
        break;
      }
    }
    if (c < 0) below++;
    else if (c === 0) starting++;
  }
  return { below, starting };
}

function randomIds(rng: Rng, n: number, alphabet: readonly string[]): string[] {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    const len = rng.int(7);
    for (let k = 0; k < len; k++) s += rng.pick(alphabet);
    ids.push(s);
  }
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

test("intervals and lower bounds equal a naive suffix sort", () => {
  const rng = new Rng(11);
  const alphabets = [["a", "b"], ["a", "b", "c", "é", "ß", "\u{1F600}", "字", "\u0000"], ["x"]];
  for (let round = 0; round < 60; round++) {
    const ids = randomIds(rng, 1 + rng.int(30), alphabets[round % alphabets.length]!);
    const { index } = FMIndex.build(ids);
    const t = textOf(ids);
    const sa = naiveSuffixArray(t);
    for (let k = 0; k < 40; k++) {
      let q = "";
      const len = 1 + rng.int(4);
      for (let j = 0; j < len; j++) q += rng.pick([...alphabets[round % alphabets.length]!, "z"]);
      const iv = index.interval(q);
      const n = naiveCounts(t, sa, keyOf(-1, q, -1));
      assert.is(iv.ep - iv.sp, n.starting, `round ${round} q=${JSON.stringify(q)}`);
      if (n.starting > 0) assert.is(iv.sp, n.below, `round ${round} q=${JSON.stringify(q)} sp`);
      for (const [head, tail] of [
        [-1, -1],
        [SEPARATOR, -1],
        [SEPARATOR, SEPARATOR],
        [-1, SEPARATOR],
        [-1, TERMINATOR],
      ] as const) {
        const expected = naiveCounts(t, sa, keyOf(head, q, tail)).below;
        assert.is(index.lowerBound(head, q, tail), expected, `round ${round} lb(${head},${JSON.stringify(q)},${tail})`);
      }
    }
  }
});

test("the text is two bytes a symbol up to 65,536 symbols, four past them; the suffix array is the naive one", () => {
  const rng = new Rng(17);
  // Every code unit once, in blocks, and short repeats of a few: 65,538 symbols with # and $.
  const every = Array.from({ length: 256 }, (_, b) =>
    String.fromCharCode(...Array.from({ length: 256 }, (_, k) => b * 256 + k)),
  );
  const repeats = Array.from({ length: 200 }, () => rng.pick(["ab", "abc", "b", "\uffff\u0000", "\uffffa"]));
  const sorted = (ids: string[]): string[] => ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Without the two highest units: exactly 65,536 symbols, the most that fit two bytes.
  const fitting = sorted([...every, ...repeats].map((s) => s.replace(/[\ufffe\uffff]/g, "")));
  for (const [ids, wide] of [
    [sorted([...every, ...repeats]), true],
    [fitting, false],
  ] as const) {
    const { index, suffixArray, text } = FMIndex.build(ids);
    assert.is(text instanceof Int32Array, wide);
    assert.is(text instanceof Uint16Array, !wide);
    const t = textOf(ids);
    assert.equal(Array.from(suffixArray), naiveSuffixArray(t));
    for (const q of ["ab", "abc", "\uffff", "\u00ff\u0100", "a"]) {
      const iv = index.interval(q);
      assert.is(iv.ep - iv.sp, naiveCounts(t, naiveSuffixArray(t), keyOf(-1, q, -1)).starting, JSON.stringify(q));
    }
  }
});

test("suffixes starting with $q are the identifiers starting with q, after # and $#", () => {
  const ids = ["", "ab", "abc", "abc", "b", "ba"];
  const { index } = FMIndex.build(ids);
  const iv = index.interval("ab");
  const withSep = index.extendLeft(iv.sp, iv.ep, SEPARATOR, { sp: 0, ep: 0 });
  // ranks 1..3 start with "ab"; $-suffix positions are rank + 2
  assert.equal([withSep.sp - 2, withSep.ep - 2], [1, 4]);
  assert.is(index.lowerBound(SEPARATOR, "abc", SEPARATOR) - 2, 2);
});

test("a skewed alphabet puts its rare symbols in a second matrix, answers unchanged", () => {
  const rng = new Rng(5);
  const common = ["a", "b", "c", "d"];
  const rare = Array.from({ length: 300 }, (_, i) => String.fromCharCode(0x4e00 + i));
  const ids: string[] = [];
  for (let i = 0; i < 400; i++) {
    let s = "";
    for (let k = 0; k < 12; k++) s += rng.chance(0.03) ? rng.pick(rare) : rng.pick(common);
    ids.push(s);
  }
  ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const { index } = FMIndex.build(ids);
  assert.ok(index.shape.rareBits > 0 && index.shape.rareShare < 0.2, JSON.stringify(index.shape));
  const t = textOf(ids);
  const sa = naiveSuffixArray(t);
  for (let k = 0; k < 200; k++) {
    const q = (rng.chance(0.5) ? rng.pick(rare) : "") + rng.pick(common) + (rng.chance(0.3) ? rng.pick(rare) : "");
    const iv = index.interval(q);
    assert.is(iv.ep - iv.sp, naiveCounts(t, sa, keyOf(-1, q, -1)).starting, JSON.stringify(q));
  }
});

test.run();

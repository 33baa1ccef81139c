/**
 * Suffix array tests
 * ==================
 * Hand-checked literals, then an oracle: seeded random texts (small alphabets stress SA-IS's
 * recursion, large ones its buckets, astral characters its UTF-16 use) against a naive sort of
 * suffixes. Long texts (n ~ 200k, including the Fibonacci word, which recurses deepest) are checked
 * in linear time with the inverse-permutation test instead of a naive sort.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildSuffixArray } from "../../../src/engine/succinct/suffix-array.js";
import { mulberry32 } from "../../../tools/prng.js";
import { naiveSuffixArray } from "../../../tools/naive-suffix-array.js";

function codes(s: string): Uint16Array {
  const out = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function sa(s: string): number[] {
  return Array.from(buildSuffixArray(codes(s), 65536));
}

/**
 * Linear-time check that `suffixes` is the suffix array of `text`: it is a permutation, and each
 * adjacent pair is ordered by (first symbol, rank of the rest), the empty rest ranking lowest.
 */
function verifySuffixArray(text: ArrayLike<number>, suffixes: Uint32Array): string | null {
  const n = text.length;
  if (suffixes.length !== n) return `length ${suffixes.length} !== ${n}`;
  const rank = new Int32Array(n + 1).fill(-1);
  for (let k = 0; k < n; k++) {
    const p = suffixes[k]!;
    if (p >= n || rank[p] !== -1) return `not a permutation at ${k}`;
    rank[p] = k;
  }
  rank[n] = -1;
  for (let k = 1; k < n; k++) {
    const a = suffixes[k - 1]!;
    const b = suffixes[k]!;
    const ca = text[a]!;
    const cb = text[b]!;
    if (ca < cb) continue;
    if (ca > cb || rank[a + 1]! > rank[b + 1]!) return `suffixes ${a} and ${b} out of order at ${k}`;
  }
  return null;
}

function sameArray(actual: Uint32Array, expected: number[]): boolean {
  if (actual.length !== expected.length) return false;
  for (let i = 0; i < actual.length; i++) if (actual[i] !== expected[i]) return false;
  return true;
}

test("hand-checked literals", () => {
  assert.equal(sa("banana"), [5, 3, 1, 0, 4, 2]);
  assert.equal(sa("mississippi"), [10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
  assert.equal(sa("abracadabra"), [10, 7, 0, 3, 5, 8, 1, 4, 6, 9, 2]);
  assert.equal(sa(""), []);
  assert.equal(sa("x"), [0]);
  assert.equal(sa("ab"), [0, 1]);
  assert.equal(sa("ba"), [1, 0]);
  assert.equal(sa("aa"), [1, 0]);
  assert.equal(sa("aaaa"), [3, 2, 1, 0]);
  assert.equal(sa("abab"), [2, 0, 3, 1]);
  assert.equal(sa("dcba"), [3, 2, 1, 0]);
  // Long enough to skip the naive fallback: all-equal has no LMS position at all.
  assert.equal(
    sa("aaaaaaaaaaaaaaaaaaaa"),
    Array.from({ length: 20 }, (_, i) => 19 - i),
  );
  assert.equal(
    sa("abcdefghijklmnopqrst"),
    Array.from({ length: 20 }, (_, i) => i),
  );
});

test("a proper prefix sorts first, with no sentinel", () => {
  // "ab" < "abab": suffix 2 before suffix 0.
  const r = buildSuffixArray(Int32Array.of(0, 1, 0, 1), 2);
  assert.ok(r instanceof Uint32Array);
  assert.equal(Array.from(r), [2, 0, 3, 1]);
});

test("accepts every integer array type and a tight alphabet", () => {
  const s = "mississippi";
  const expected = [10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2];
  const small = Array.from(s, (c) => "imps".indexOf(c));
  assert.equal(Array.from(buildSuffixArray(small, 4)), expected);
  assert.equal(Array.from(buildSuffixArray(Int32Array.from(small), 4)), expected);
  assert.equal(Array.from(buildSuffixArray(Uint32Array.from(small), 4)), expected);
  assert.equal(Array.from(buildSuffixArray(Uint16Array.from(small), 4)), expected);
  assert.equal(Array.from(buildSuffixArray(new Uint16Array(0), 0)), []);
});

test("rejects symbols outside the alphabet", () => {
  assert.throws(() => buildSuffixArray(Int32Array.of(0, 4, 1), 4), RangeError);
  assert.throws(() => buildSuffixArray(Int32Array.of(0, -1, 1), 4), RangeError);
  assert.throws(() => buildSuffixArray([0, 1.5, 1], 4), RangeError);
  assert.throws(() => buildSuffixArray(Int32Array.of(0), -1), RangeError);
  assert.throws(() => buildSuffixArray(Int32Array.of(0), 2.5), RangeError);
});

test("oracle: small alphabets (2-4 symbols) exercise the recursion", () => {
  const rand = mulberry32(0x5a15);
  for (let t = 0; t < 3000; t++) {
    const sigma = 2 + Math.floor(rand() * 3);
    const n = Math.floor(rand() * (t < 2000 ? 40 : 300));
    const text = new Int32Array(n);
    // Some texts are periodic with noise, which makes many equal LMS substrings.
    const period = 1 + Math.floor(rand() * 5);
    const noisy = rand() < 0.5;
    for (let i = 0; i < n; i++) {
      text[i] = noisy && rand() < 0.9 && i >= period ? text[i - period]! : Math.floor(rand() * sigma);
    }
    const got = buildSuffixArray(text, sigma);
    const want = naiveSuffixArray(text);
    if (!sameArray(got, want)) assert.equal(Array.from(got), want, `text ${Array.from(text)}`);
  }
});

test("oracle: large alphabets up to 65537", () => {
  const rand = mulberry32(0xb16);
  for (let t = 0; t < 1500; t++) {
    const sigma = t % 3 === 0 ? 65537 : 2 + Math.floor(rand() * 65536);
    const n = Math.floor(rand() * 120);
    const text = new Uint32Array(n);
    // Draw from a few symbols of the big alphabet, so repeats still happen.
    const palette = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => Math.floor(rand() * sigma));
    for (let i = 0; i < n; i++)
      text[i] = rand() < 0.7 ? palette[Math.floor(rand() * palette.length)]! : Math.floor(rand() * sigma);
    const got = buildSuffixArray(text, sigma);
    const want = naiveSuffixArray(text);
    if (!sameArray(got, want)) assert.equal(Array.from(got), want, `text ${Array.from(text)}`);
  }
});

test("oracle: astral characters as UTF-16 surrogate pairs, separator 0, units + 1", () => {
  const rand = mulberry32(0xa57a1);
  const astral = [0x1f600, 0x1f601, 0x1d11e, 0x20000, 0x10ffff, 0x10000];
  const bmp = [0x61, 0x62, 0xe9, 0x4e2d, 0xffff];
  for (let t = 0; t < 1000; t++) {
    let s = "";
    const chars = Math.floor(rand() * 40);
    for (let i = 0; i < chars; i++) {
      const x = rand();
      s +=
        x < 0.45
          ? String.fromCodePoint(astral[Math.floor(rand() * astral.length)]!)
          : x < 0.9
            ? String.fromCharCode(bmp[Math.floor(rand() * bmp.length)]!)
            : "\u0000SEP";
    }
    // The search index's shape: code unit + 1, with 0 free for a separator between identifiers.
    const text = new Uint32Array(s.length);
    for (let i = 0; i < s.length; i++) text[i] = s.startsWith("\u0000SEP", i) ? 0 : s.charCodeAt(i) + 1;
    const got = buildSuffixArray(text, 65537);
    const want = naiveSuffixArray(text);
    if (!sameArray(got, want)) assert.equal(Array.from(got), want, `text ${Array.from(text)}`);
  }
});

test("linear check: n ~ 200k, small alphabets and the Fibonacci word (deepest recursion)", () => {
  const rand = mulberry32(42);
  const n = 200_000;
  const cases: Array<[string, Int32Array, number]> = [];
  const random2 = new Int32Array(n);
  for (let i = 0; i < n; i++) random2[i] = rand() < 0.5 ? 1 : 0;
  cases.push(["random binary", random2, 2]);
  const random4 = new Int32Array(n);
  for (let i = 0; i < n; i++) random4[i] = Math.floor(rand() * 4);
  cases.push(["random 4 symbols", random4, 4]);
  // Fibonacci word: a -> ab, b -> a. Each SA-IS level reduces it to another Fibonacci-like word.
  const fib = new Int32Array(n);
  let a = [0];
  let b = [0, 1];
  while (b.length < n) [a, b] = [b, b.concat(a)];
  for (let i = 0; i < n; i++) fib[i] = b[i]!;
  cases.push(["Fibonacci word", fib, 2]);
  const periodic = new Int32Array(n);
  for (let i = 0; i < n; i++) periodic[i] = [0, 1, 1, 0, 2][i % 5]!;
  cases.push(["periodic", periodic, 3]);
  const allSame = new Int32Array(n).fill(3);
  cases.push(["all equal", allSame, 4]);
  for (const [name, text, sigma] of cases) {
    const problem = verifySuffixArray(text, buildSuffixArray(text, sigma));
    assert.is(problem, null, name);
  }
});

test.run();

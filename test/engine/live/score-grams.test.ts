/**
 * Score grams tests
 * =================
 * src/engine/live/score-grams.ts against a brute force: seeded random identifiers in three
 * indexes, queries cut from them or made up; each index's pick is a gram of the query whose size is
 * the least of the query's grams' (-1 when one is 0), a gram's sizes are asked once per content and
 * its lists made once, a new content starts empty, and a cache past its most grams (code units over a
 * wide range) starts again and still answers right; a gram's starts and its lists' top scores are
 * the ones given and made for this content, the first gram's number the query's first gram.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  FIRST_GRAM,
  GRAMS_MAX,
  LIST_ALL,
  LIST_DELTA,
  LIST_RAISED,
  PICKS,
  STARTS,
  ScoreGrams,
} from "../../../src/engine/live/score-grams.js";
import type { Graph } from "../../../src/engine/graph.js";
import { Rng } from "../../support/oracle.js";

const UNITS = ["a", "b", "c", "d", "e", " ", "é", "ж", "😀", "上"];
const GRAM = 3;

function word(length: number, unit: () => string): string {
  let s = "";
  while (s.length < length) s += unit();
  return s;
}

function gramsOf(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + GRAM <= s.length; i++) out.push(s.slice(i, i + GRAM));
  return out;
}

/** Checks every query's picks against the indexes' items (brute force); returns the sizes' asks. */
function check(cache: ScoreGrams, indexes: string[][], queries: string[]): Map<string, number> {
  const asked = new Map<string, number>();
  const sizeOf = (k: number, text: string) => indexes[k]!.filter((x) => x.includes(text)).length;
  const sizes = (text: string, data: Float64Array, at: number) => {
    asked.set(text, (asked.get(text) ?? 0) + 1);
    for (let k = 0; k < 3; k++) data[at + k] = sizeOf(k, text);
  };
  const out = new Int32Array(PICKS);
  for (const q of queries) {
    cache.rarest(q, sizes, out);
    for (const k of [LIST_DELTA, LIST_RAISED, LIST_ALL]) {
      const least = Math.min(...gramsOf(q).map((g) => sizeOf(k, g)));
      if (least === 0) assert.is(out[k], -1, `${JSON.stringify(q)} index ${k}`);
      else {
        const text = cache.textOf(out[k]!);
        assert.ok(
          gramsOf(q).includes(text),
          `${JSON.stringify(q)} index ${k}: ${JSON.stringify(text)} is a gram of it`,
        );
        assert.is(sizeOf(k, text), least, `${JSON.stringify(q)} index ${k}: the rarest`);
      }
    }
  }
  return asked;
}

test("each index's pick is the query's rarest gram there (-1 when one is in none), a gram asked once per content", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rng = new Rng(seed);
    const unit = () => UNITS[rng.int(UNITS.length)]!;
    const indexes = [0, 1, 2].map(() => Array.from({ length: rng.range(0, 40) }, () => word(rng.range(0, 20), unit)));
    const all = indexes.flat();
    const queries = Array.from({ length: 200 }, () => {
      const from = all.length > 0 && rng.chance(0.7) ? all[rng.int(all.length)]! : word(12, unit);
      const at = rng.int(Math.max(1, from.length - GRAM));
      return from.slice(at, at + GRAM + rng.int(4));
    }).filter((q) => q.length >= GRAM);
    const cache = new ScoreGrams();
    const base = {} as Graph;
    assert.ok(cache.forContent(1, base));
    assert.not.ok(cache.forContent(1, base));
    const asked = check(cache, indexes, queries);
    for (const [text, n] of asked) assert.is(n, 1, `${JSON.stringify(text)} asked once`);
    // The same content: nothing asked again. A new one: asked again.
    assert.is(check(cache, indexes, queries).size, 0);
    assert.ok(cache.forContent(2, base));
    assert.is(check(cache, indexes, queries).size, asked.size);
    assert.ok(cache.forContent(2, {} as Graph));
  }
});

test("a gram's list is made once per content, and made again after a new content", () => {
  const cache = new ScoreGrams();
  cache.forContent(1, {} as Graph);
  const out = new Int32Array(PICKS);
  cache.rarest("abcd", (_text, data, at) => data.fill(1, at, at + 3), out);
  let made = 0;
  const make = (text: string) => {
    made++;
    return { items: [text], scores: new Float64Array(1), signatures: new Int32Array(2) };
  };
  const first = cache.listOf(LIST_RAISED, out[LIST_RAISED]!, make);
  assert.is(cache.listOf(LIST_RAISED, out[LIST_RAISED]!, make), first);
  assert.is(made, 1);
  cache.listOf(LIST_ALL, out[LIST_ALL]!, make);
  assert.is(made, 2);
  cache.forContent(2, {} as Graph);
  cache.rarest("abcd", (_text, data, at) => data.fill(1, at, at + 3), out);
  assert.is.not(cache.listOf(LIST_RAISED, out[LIST_RAISED]!, make), first);
  assert.is(made, 3);
});

test("past its most grams (code units over a wide range) the cache starts again and still answers right", () => {
  const rng = new Rng(7);
  const unit = () => String.fromCharCode(0x20 + rng.int(0x3000));
  const indexes = [0, 1, 2].map(() => Array.from({ length: 30 }, () => word(12, unit)));
  const cache = new ScoreGrams();
  cache.forContent(1, {} as Graph);
  const out = new Int32Array(PICKS);
  // About 100,000 distinct grams of made-up queries (sizes 0 but for the indexes' own).
  const sizes = (text: string, data: Float64Array, at: number) => {
    for (let k = 0; k < 3; k++) data[at + k] = indexes[k]!.filter((x) => x.includes(text)).length;
  };
  for (let i = 0; i < 20_000; i++) cache.rarest(word(7, unit), sizes, out);
  const queries = indexes.flat().map((x) => x.slice(2, 8));
  check(cache, indexes, queries);
  check(
    cache,
    indexes,
    queries.map((q) => `${q}x`),
  );
});

test("a query whose grams pass the most grams held: each pick names the query's rarest gram, not a gram of before the restart", () => {
  const cache = new ScoreGrams();
  cache.forContent(1, {} as Graph);
  const out = new Int32Array(PICKS);
  // GRAMS_MAX - 1 distinct grams, one a query (three code units each), every size 1.
  for (let i = 0; i < GRAMS_MAX - 1; i++) {
    const q = String.fromCharCode(0x4e00 + (i & 0xff), 0x4e00 + (i >>> 8), 0x61);
    cache.rarest(q, (_text, data, at) => data.fill(1, at, at + 3), out);
  }
  // Two new grams: the first fills the cache, the second would not fit; the first is the rarest.
  cache.rarest("xyzw", (text, data, at) => data.fill(text === "xyz" ? 1 : 5, at, at + 3), out);
  for (const k of [LIST_DELTA, LIST_RAISED, LIST_ALL]) assert.is(cache.textOf(out[k]!), "xyz", `index ${k}`);
  // Asked again, the same picks, without asking the indexes again.
  cache.rarest("xyzw", () => assert.unreachable("asked again"), out);
  for (const k of [LIST_DELTA, LIST_RAISED, LIST_ALL]) assert.is(cache.textOf(out[k]!), "xyz", `index ${k} again`);
});

test("a gram's starts, its lists' top scores (NaN until made, -1 empty) and the query's first gram, per content", () => {
  const cache = new ScoreGrams();
  const out = new Int32Array(PICKS);
  for (let content = 1; content <= 3; content++) {
    cache.forContent(content, {} as Graph);
    const sizes = (text: string, data: Float64Array, at: number) => {
      data.fill(1, at, at + 3);
      data[at + STARTS] = text === "bcd" ? content : text.charCodeAt(0);
    };
    cache.rarest("bcde", sizes, out);
    assert.is(cache.textOf(out[FIRST_GRAM]!), "bcd");
    assert.is(cache.startsOf(out[FIRST_GRAM]!), content);
    cache.rarest("cdef", sizes, out);
    assert.is(cache.textOf(out[FIRST_GRAM]!), "cde");
    assert.is(cache.startsOf(out[FIRST_GRAM]!), "c".charCodeAt(0));
    const g = out[FIRST_GRAM]!;
    for (const k of [LIST_DELTA, LIST_RAISED, LIST_ALL])
      assert.ok(Number.isNaN(cache.topOf(k, g)), `index ${k} not made`);
    const scores = Float64Array.of(10 * content + 7, 3);
    cache.listOf(LIST_RAISED, g, () => ({ items: ["x", "y"], scores, signatures: new Int32Array(4) }));
    cache.listOf(LIST_ALL, g, () => ({ items: [], scores: new Float64Array(0), signatures: new Int32Array(0) }));
    assert.is(cache.topOf(LIST_RAISED, g), 10 * content + 7);
    assert.is(cache.topOf(LIST_ALL, g), -1);
    assert.ok(Number.isNaN(cache.topOf(LIST_DELTA, g)));
  }
});

test.run();

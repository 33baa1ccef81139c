/**
 * FM-index tests: intervals and lower bounds against a naive suffix sort of the same text, on random
 * identifier lists (tiny alphabets for many repeats, Unicode and astral code units, empty
 * identifiers), and the alphabet partitioning on a skewed alphabet (rare symbols in their own matrix);
 * the build's text is two bytes a symbol when the alphabet fits them and four when every code unit
 * occurs, with the same suffix array either way; the k-gram table's derived short keys (queries of
 * 2 and 3 code units, and their identifiers) agree with the naive sort, spare every LF step, and
 * come back on open, whether the table was saved with them or without.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { FMIndex, SEPARATOR, TERMINATOR } from "../../../src/engine/search/fm-index.js";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { MAX_SYMBOL_BITS, SymbolRanks } from "../../../src/engine/succinct/symbol-ranks.js";
import { WaveletMatrix } from "../../../src/engine/succinct/wavelet-matrix.js";
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

/** 400 sorted identifiers of 12 code units, each one of `rare` with chance `rareShare`, else of `common`. */
function skewedIds(rng: Rng, common: readonly string[], rare: readonly string[], rareShare: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < 400; i++) {
    let s = "";
    for (let k = 0; k < 12; k++) s += rng.chance(rareShare) ? rng.pick(rare) : rng.pick(common);
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
  const ids = skewedIds(rng, common, rare, 0.03);
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

/** The index through its serial form (a snapshot's), with `edit` applied to the fields first. */
function reopened(index: FMIndex, edit?: (fields: Map<string, unknown>) => void): FMIndex {
  const w = new MemorySerialWriter();
  index.serialize(w);
  edit?.(w.fields as Map<string, unknown>);
  return FMIndex.deserialize(new MemorySerialReader(w.fields));
}

/** The classes of an index's serial form, decoded from its blocked ranks (the field `classRanks`). */
function classValuesOf(fields: Map<string, unknown>): { values: Uint32Array; bits: number } {
  const ranks = SymbolRanks.deserialize(new MemorySerialReader(fields as never, { prefix: "classRanks." }));
  const values = new Uint32Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) {
    for (let c = 0; c < 2 ** ranks.bits; c++) if (ranks.rank(c, i + 1) > ranks.rank(c, i)) values[i] = c;
  }
  return { values, bits: ranks.bits };
}

test("classes saved as a wavelet matrix (formats 5 to 7) open to the same answers, and save as blocked ranks", () => {
  const rng = new Rng(31);
  const alphabet = [
    "a",
    "b",
    "c",
    "é",
    "ß",
    "字",
    "\u{1F600}",
    ...Array.from({ length: 60 }, (_, i) => String.fromCharCode(0x400 + i)),
  ];
  for (let round = 0; round < 8; round++) {
    const ids = randomIds(rng, 50 + rng.int(400), alphabet);
    const { index } = FMIndex.build(ids);
    const saved = new MemorySerialWriter();
    index.serialize(saved);
    const fields = saved.fields as Map<string, unknown>;
    const old = reopened(index, (f) => {
      const { values, bits } = classValuesOf(f);
      for (const key of [...f.keys()]) if (key.startsWith("classRanks.")) f.delete(key);
      const w = new MemorySerialWriter();
      WaveletMatrix.build(values, bits).serialize(w);
      for (const [key, value] of w.fields) f.set(`classes.${key}`, value);
    });
    const t = textOf(ids);
    const sa = naiveSuffixArray(t);
    for (let k = 0; k < 40; k++) {
      let q = "";
      for (let j = 1 + rng.int(4); j > 0; j--) q += rng.pick(alphabet);
      const iv = old.interval(q);
      assert.is(iv.ep - iv.sp, naiveCounts(t, sa, keyOf(-1, q, -1)).starting, `round ${round} q=${JSON.stringify(q)}`);
      assert.equal(old.interval(q), index.interval(q));
      assert.is(old.lowerBound(SEPARATOR, q, -1), index.lowerBound(SEPARATOR, q, -1));
    }
    const again = new MemorySerialWriter();
    old.serialize(again);
    assert.equal([...again.fields.keys()].sort(), [...fields.keys()].sort());
    for (const [key, value] of fields) {
      if (ArrayBuffer.isView(value))
        assert.ok(Buffer.from((again.fields.get(key) as Int32Array).buffer).equals(Buffer.from(value.buffer)), key);
    }
  }
});

test("a wide alphabet (100 common code units, hundreds of rare ones) keeps its classes in a wavelet matrix", () => {
  const rng = new Rng(37);
  const common = Array.from({ length: 100 }, (_, i) => String.fromCharCode(0x400 + i));
  const rare = Array.from({ length: 600 }, (_, i) => String.fromCharCode(0x4e00 + i));
  const alphabet = [...common, ...rare];
  const ids = skewedIds(rng, common, rare, 0.1);
  const { index } = FMIndex.build(ids);
  assert.ok(index.shape.classBits > MAX_SYMBOL_BITS, JSON.stringify(index.shape));
  const w = new MemorySerialWriter();
  index.serialize(w);
  assert.ok(w.fields.has("classes.levels") && !w.fields.has("classRanks.blocks"));
  const back = reopened(index);
  const t = textOf(ids);
  const sa = naiveSuffixArray(t);
  for (let k = 0; k < 100; k++) {
    const q = rng.pick(alphabet) + (rng.chance(0.5) ? rng.pick(common) : "");
    for (const ix of [index, back])
      assert.is(ix.interval(q).ep - ix.interval(q).sp, naiveCounts(t, sa, keyOf(-1, q, -1)).starting, q);
  }
});

test("short queries and their identifiers come from the k-gram table, equal to the naive sort, also after a reopen", () => {
  const rng = new Rng(23);
  const alphabet = ["a", "b", "c", "é", "字"];
  for (let round = 0; round < 30; round++) {
    const ids = randomIds(rng, 1 + rng.int(40), alphabet);
    const built = FMIndex.build(ids).index;
    const t = textOf(ids);
    const sa = naiveSuffixArray(t);
    // Saved with the derived keys, and saved without them (an older file): emptying their slots
    // cuts no probe of a trigram short, since every derived key was inserted after the trigrams.
    const sigma = built.sigma;
    const stripped = reopened(built, (fields) => {
      // Derived: 2 or 4 symbols, or an empty interval (the text's own trigrams occur).
      const keys = (fields.get("grams.keys") as Float64Array).slice();
      const intervals = fields.get("grams.intervals") as Uint32Array;
      for (let slot = 0; slot < keys.length; slot++) {
        const key = keys[slot]!;
        const empty = intervals[2 * slot] === intervals[2 * slot + 1];
        if (key !== -1 && (key < sigma * sigma || key >= sigma ** 3 || empty)) keys[slot] = -1;
      }
      fields.set("grams.keys", keys);
    });
    for (const index of [built, reopened(built), stripped]) {
      let steps = 0;
      const step = index.extendLeft.bind(index);
      index.extendLeft = (sp, ep, s, out) => {
        steps++;
        return step(sp, ep, s, out);
      };
      for (let k = 0; k < 30; k++) {
        let q = "";
        const len = 1 + rng.int(6);
        for (let j = 0; j < len; j++) q += rng.pick([...alphabet, "z"]);
        steps = 0;
        const iv = index.interval(q);
        const n = naiveCounts(t, sa, keyOf(-1, q, -1));
        assert.is(iv.ep - iv.sp, n.starting, `round ${round} q=${JSON.stringify(q)}`);
        if (n.starting === 0) continue;
        const headed = index.headed(q, iv.sp, iv.ep, { sp: 0, ep: 0 });
        const h = naiveCounts(t, sa, keyOf(SEPARATOR, q, -1));
        assert.is(headed.ep - headed.sp, h.starting, `round ${round} $q=${JSON.stringify(q)}`);
        // Where it inserts too, when empty: the search index's prefix tier [a, b) is read off it.
        assert.is(headed.sp, h.below, `round ${round} $q=${JSON.stringify(q)} sp`);
        // Every trigram of this small text is in the table: 2 and 3 code units take no LF step, a
        // longer one no step for an empty prefix tier when no identifier starts with its first 3.
        if (q.length === 2 || q.length === 3) assert.is(steps, 0, `round ${round} q=${JSON.stringify(q)} steps`);
        const startsFirst3 = ids.some((id) => id.startsWith(q.slice(0, 3)));
        if (q.length > 3)
          assert.is(steps, q.length - 3 + (startsFirst3 ? 1 : 0), `round ${round} q=${JSON.stringify(q)} steps`);
      }
    }
    // A table saved with its derived keys is read as it is: saved again, the same fields.
    const again = new MemorySerialWriter();
    reopened(built).serialize(again);
    const first = new MemorySerialWriter();
    built.serialize(first);
    assert.equal(again.fields.get("grams.keys"), first.fields.get("grams.keys"));
    assert.equal(again.fields.get("grams.intervals"), first.fields.get("grams.intervals"));
  }
});

test.run();

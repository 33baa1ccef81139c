/**
 * Fold tests
 * ==========
 * src/engine/search/fold.ts against CONTRACT.md "Case and Unicode": each example the contract names, as a
 * literal checked by hand, then a property check: on seeded random strings drawn from a
 * Unicode-rich alphabet (every case the contract names, plus compatibility forms, astral letters,
 * lone surrogates and U+0000), `fold` equals the contract's one-line definition (the copy in
 * oracle.ts), so a faster rewrite of fold.ts cannot drift from it.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { compareFoldedToRaw, fold, foldAccents } from "../../../src/engine/search/fold.js";
import { GraphBuilder } from "../../../src/engine/graph-builder.js";
import { fold as contractFold, Rng, show } from "../../support/oracle.js";

test("the contract's examples, by hand", () => {
  // "STRASSE" finds "Straße": ß upper-cases to SS.
  assert.is(fold("STRASSE"), "strasse");
  assert.is(fold("Straße"), "strasse");
  assert.is(fold("STRASSE"), fold("Straße"));
  // "istanbul" finds "İstanbul": İ lowers to i + U+0307, which folds to plain i.
  assert.is(fold("İstanbul"), "istanbul");
  assert.is(fold("I\u0307stanbul"), "istanbul");
  assert.is(fold("ISTANBUL"), "istanbul");
  // "ﬁnance" finds "finance": NFKC splits the ligature.
  assert.is(fold("ﬁnance"), "finance");
  assert.is(fold("FINANCE"), "finance");
  // Full-width letters match their ASCII forms.
  assert.is(fold("ＡＢＣ"), "abc");
  assert.is(fold("ａｂｃ"), "abc");
});

test("final sigma folds to σ, so ΟΔΟΣ is found inside ΟΔΟΣΟ", () => {
  // JavaScript lowers a word-final Σ to ς; the contract then maps ς -> σ.
  assert.is("ΟΔΟΣ".toLowerCase(), "οδος");
  assert.is(fold("ΟΔΟΣ"), "οδοσ");
  assert.is(fold("ΟΔΟΣΟ"), "οδοσο");
  assert.ok(fold("ΟΔΟΣΟ").includes(fold("ΟΔΟΣ")));
  assert.is(fold("ς"), "σ");
  assert.is(fold("οδος"), "οδοσ");
  assert.is(fold("Σ"), "σ");
});

test("accents are kept: dürer does not match durer", () => {
  assert.is(fold("Dürer"), "dürer");
  assert.is(fold("DÜRER"), "dürer");
  assert.is(fold("Durer"), "durer");
  assert.is.not(fold("Dürer"), fold("Durer"));
  assert.not.ok(fold("Albrecht Dürer").includes(fold("durer")));
});

test("NFKC: a combining sequence equals its precomposed form", () => {
  assert.is(fold("e\u0301"), "\u00E9");
  assert.is(fold("e\u0301"), fold("\u00E9"));
  assert.is(fold("E\u0301"), "\u00E9");
  assert.is(fold("du\u0308rer"), fold("dürer"));
  // More compatibility forms: ligature, circled digit, unit symbol, Kelvin sign, half-width kana.
  assert.is(fold("ﬃ"), "ffi");
  assert.is(fold("①"), "1");
  assert.is(fold("㎏"), "kg");
  assert.is(fold("\u212A"), "k");
  assert.is(fold("\uFF76\uFF9E"), "\u30AC");
});

test('capital sharp s: ẞ -> ss, the contract\'s last step ("STRAẞE" is found by "strasse")', () => {
  // Capital sharp s (U+1E9E) upper-cases to itself and lowers to ß; the contract's ß -> ss step then
  // gives "ss", as Unicode full case folding (CaseFolding.txt) does. At 1d9af4c fold("ẞ") was "ß".
  assert.is(fold("\u1E9E"), "ss");
  assert.is(fold("\u00DF"), "ss");
  assert.is(fold("STRA\u1E9EE"), "strasse");
  assert.is(fold("STRA\u1E9EE"), fold("Straße"));
  assert.is(fold(fold("\u1E9E")), fold("\u1E9E"), "folding twice changes nothing");
  // Dotless ı upper-cases to I, so it folds to plain i.
  assert.is(fold("ı"), "i");
});

test('search: "STRAẞE" is found by "strasse", "STRASSE" and "ß"; and "ẞ" finds "Straße"', () => {
  const b = new GraphBuilder();
  b.addEntity({ entityId: "capital", rawIdentifier: "STRA\u1E9EE", type: "0", sourceType: "" });
  b.addEntity({ entityId: "small", rawIdentifier: "Straße", type: "0", sourceType: "" });
  b.addEntity({ entityId: "plain", rawIdentifier: "strasse", type: "0", sourceType: "" });
  const g = b.build();
  for (const q of ["strasse", "STRASSE", "ß", "\u1E9E", "STRA\u1E9EE", "aß"]) {
    assert.equal(
      g.search({ q }).items.map((e) => e.entityId),
      ["capital", "plain", "small"],
      `q=${show(q)}`,
    );
  }
});

test("characters with no case pass through: digits, CJK, emoji, U+0000, lone surrogates", () => {
  assert.is(fold(""), "");
  assert.is(fold("Q42"), "q42");
  assert.is(fold("日本語"), "日本語");
  assert.is(fold("😀"), "😀");
  assert.is(fold("a\u0000B"), "a\u0000b");
  assert.is(fold("\uD83D"), "\uD83D");
  assert.is(fold("X\uDE00"), "x\uDE00");
  // Astral letters have case too: DESERET CAPITAL LONG I -> small.
  assert.is(fold("\u{10400}"), "\u{10428}");
});

/** Code points and short strings that each stress one step of the fold. */
const ALPHABET: readonly string[] = [
  "a",
  "Z",
  "i",
  "I",
  "s",
  "S",
  "0",
  " ",
  "-",
  "ß",
  "\u1E9E",
  "İ",
  "ı",
  "\u0307",
  "\u0301",
  "\u0308",
  "é",
  "É",
  "ü",
  "Σ",
  "σ",
  "ς",
  "Ο",
  "ΐ",
  "\u0390",
  "ŉ",
  "ǅ",
  "Ǆ",
  "\u212A",
  "\u212B",
  "ﬁ",
  "ﬀ",
  "ﬃ",
  "Ａ",
  "ａ",
  "ｶ",
  "ﾞ",
  "①",
  "㎏",
  "\u3000",
  "\u1100",
  "\u1161",
  "\u11A8", // Hangul jamo: NFKC composes them into a syllable
  "日",
  "😀",
  "\u{10400}",
  "\u{1D49C}",
  "\u0000",
  "\uD83D",
  "\uDE00",
  "\uE000",
  "\uFFFF",
];

test("property: fold equals the contract's one-line definition on random strings", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rng = new Rng(seed);
    for (let k = 0; k < 500; k++) {
      const parts: string[] = [];
      const n = rng.int(12);
      for (let i = 0; i < n; i++) parts.push(rng.pick(ALPHABET));
      const s = parts.join("");
      const got = fold(s);
      const want = contractFold(s);
      if (got !== want)
        assert.unreachable(`seed ${seed}: fold(${show(s)}) = ${show(got)}, contract says ${show(want)}`);
    }
  }
});

test("ASCII text (the fold's fast path) folds as the contract's definition, in both modes", () => {
  const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
  // Every ASCII character alone, then seeded random ASCII strings.
  const samples = [...ascii, ascii.join("")];
  const rng = new Rng(7);
  for (let k = 0; k < 2000; k++) samples.push(Array.from({ length: rng.int(16) }, () => rng.pick(ascii)).join(""));
  for (const s of samples) {
    const want = contractFold(s);
    if (fold(s) !== want) assert.unreachable(`fold(${show(s)}) = ${show(fold(s))}, contract says ${show(want)}`);
    const accents = want.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
    if (foldAccents(s) !== accents) assert.unreachable(`foldAccents(${show(s)}) = ${show(foldAccents(s))}`);
  }
});

test("compareFoldedToRaw orders a folded name against a raw one as < orders the two folds, in both modes", () => {
  // Pairs that share long ASCII prefixes (mixed case) and part after them, at, before or inside a
  // character that folds with what follows (a combining mark, a ligature, İ, ß, jamo).
  const ascii = ["a", "b", "A", "B", "z", "Z", "0", " ", "~", "i", "I", "s", "S"];
  const pieces = [...ascii, ...ascii, ...ALPHABET];
  for (const [mode, foldText] of [
    ["case", fold],
    ["accents", foldAccents],
  ] as const)
    for (let seed = 1; seed <= 10; seed++) {
      const rng = new Rng(seed);
      for (let k = 0; k < 1000; k++) {
        const parts = Array.from({ length: rng.int(10) }, () => rng.pick(pieces));
        const raw = parts.join("");
        // The other: raw itself, a prefix of it, or a prefix with other characters after it.
        const cut = rng.int(parts.length + 1);
        const tail = Array.from({ length: rng.int(4) }, () => rng.pick(pieces));
        const other = rng.chance(0.2) ? raw : [...parts.slice(0, cut), ...tail].join("");
        const folded = foldText(other);
        const f = foldText(raw);
        const want = folded < f ? -1 : folded > f ? 1 : 0;
        const got = compareFoldedToRaw(folded, raw, foldText);
        if (got !== want)
          assert.unreachable(
            `${mode} seed ${seed}: compareFoldedToRaw(${show(folded)}, ${show(raw)}) = ${got}, folds say ${want}`,
          );
      }
    }
});

test.run();

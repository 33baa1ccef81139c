/**
 * Text store tests: src/engine/entities/text-store.ts on seeded random spans, Latin-1 and not (so both
 * stores hold text, and a store may be empty): every span reads back whole and in parts (`slice`,
 * `codeAt`, `compare` against JavaScript's own comparison), and `touch` folds exactly the first code
 * unit of each word it is given (both stores, one of them empty, and a Latin-1 store of several
 * chunks).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { CHUNK_BITS, TextStoreBuilder } from "../../../src/engine/entities/text-store.js";
import { Rng } from "../../support/oracle.js";

const ALPHABETS = ["abcXYZ019 _-", "àéîõüÿ", "Ωλж中文😀"];

function randomText(rng: Rng, alphabets: readonly string[]): string {
  const alphabet = [...alphabets[rng.int(alphabets.length)]!];
  let s = "";
  const n = 1 + rng.int(20);
  for (let k = 0; k < n; k++) s += alphabet[rng.int(alphabet.length)];
  return s;
}

function check(alphabets: readonly string[], seed: number): void {
  const rng = new Rng(seed);
  const builder = new TextStoreBuilder();
  const texts = Array.from({ length: 2000 }, () => randomText(rng, alphabets));
  const words = Uint32Array.from(texts, (t) => builder.add(t));
  const store = builder.finish();
  let want = 0;
  for (const [k, t] of texts.entries()) {
    const word = words[k]!;
    assert.is(store.slice(word, t.length), t, `span ${k}`);
    const cut = rng.int(t.length);
    assert.is(store.slice(word + cut, t.length - cut), t.slice(cut), `span ${k} from ${cut}`);
    assert.is(store.codeAt(word), t.charCodeAt(0), `span ${k}`);
    const other = texts[rng.int(texts.length)]!;
    assert.is(Math.sign(store.compare(word, t.length, other)), Math.sign(t < other ? -1 : t > other ? 1 : 0));
    want ^= t.charCodeAt(0);
  }
  assert.is(store.touch(words, words.length), want);
  // A prefix of the words: only those are read.
  let prefix = 0;
  for (let k = 0; k < 100; k++) prefix ^= texts[k]!.charCodeAt(0);
  assert.is(store.touch(words, 100), prefix);
}

test("spans read back; touch folds each span's first code unit (both stores)", () => check(ALPHABETS, 3));
test("the same with Latin-1 text only", () => check(ALPHABETS.slice(0, 2), 4));
test("the same with no Latin-1 text at all", () => check(ALPHABETS.slice(2), 5));

test("touch and codeAt read the words of every chunk of a store past one chunk", () => {
  const rng = new Rng(6);
  const builder = new TextStoreBuilder();
  // Long texts fill two chunks and part of a third quickly; a short one after each of some.
  const long = "x".repeat(4096);
  const texts: string[] = [];
  const words: number[] = [];
  for (let k = 0; 4096 * k < 2.5 * 2 ** CHUNK_BITS; k++) {
    const t = `${String.fromCharCode(97 + rng.int(26))}${long}`;
    texts.push(t);
    words.push(builder.add(t));
    if (k % 7 !== 0) continue;
    const short = randomText(rng, ALPHABETS);
    texts.push(short);
    words.push(builder.add(short));
  }
  const store = builder.finish();
  const picked = Uint32Array.from({ length: 3000 }, () => rng.int(words.length));
  let want = 0;
  for (const k of picked) {
    assert.is(store.codeAt(words[k]!), texts[k]!.charCodeAt(0), `span ${k}`);
    want ^= texts[k]!.charCodeAt(0);
  }
  const at = Uint32Array.from(picked, (k) => words[k]!);
  assert.ok(Math.max(...at.filter((w) => w < 0x80000000)) >= 2 * 2 ** CHUNK_BITS, "a word in the third chunk");
  assert.is(store.touch(at, at.length), want);
});

test.run();

/**
 * Text store tests: src/engine/entities/text-store.ts on seeded random spans, Latin-1 and not (so both
 * stores hold text, and a store may be empty): every span reads back whole and in parts (`slice`,
 * `codeAt`, `compare` against JavaScript's own comparison), and `touch` folds exactly the first code
 * unit of each word it is given (its loop for the first Latin-1 chunk, and the general one when
 * there is no Latin-1 text at all).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { TextStoreBuilder } from "../../../src/engine/entities/text-store.js";
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
test("the same with no Latin-1 text at all (touch's general loop)", () => check(ALPHABETS.slice(2), 5));

test.run();

/**
 * Gram signature tests
 * ====================
 * src/engine/live/gram-signature.ts against includes(): seeded random identifiers over a small
 * alphabet (many shared grams) with some code units above the Basic Latin range; every query cut
 * from an identifier passes its signature (no match is ever dropped), and most queries of several
 * grams that an identifier does not contain are ruled out.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { mayContain, signatureInto, signaturesOf } from "../../../src/engine/live/gram-signature.js";
import { Rng, show } from "../../support/oracle.js";

const UNITS = ["a", "b", "c", "d", "e", "f", "g", " ", "é", "ж", "😀"];

function randomWord(rng: Rng, length: number): string {
  let s = "";
  while (s.length < length) s += rng.pick(UNITS);
  return s;
}

test("a query cut from an identifier always passes its signature; most of several grams that it lacks do not", () => {
  let kept = 0;
  let absent = 0;
  let ruledOut = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    const items = Array.from({ length: 50 }, () => ({ folded: randomWord(rng, rng.range(0, 30)) }));
    const signatures = signaturesOf(items);
    const query = new Int32Array(2);
    for (let k = 0; k < 200; k++) {
      const i = rng.int(items.length);
      const source = rng.chance(0.5) ? items[i]!.folded : randomWord(rng, 12);
      const from = rng.int(Math.max(1, source.length - 3));
      const q = source.slice(from, from + rng.range(3, 9));
      if (q.length < 3) continue;
      signatureInto(q, query, 0);
      for (let j = 0; j < items.length; j++) {
        const contains = items[j]!.folded.includes(q);
        const may = mayContain(signatures, j, query);
        if (contains && !may) assert.unreachable(`seed ${seed}: ${show(items[j]!.folded)} holds ${show(q)}`);
        if (contains) kept++;
        else if (q.length >= 6 && items[j]!.folded.length <= 15) {
          absent++;
          if (!may) ruledOut++;
        }
      }
    }
  }
  assert.ok(kept > 1000, `only ${kept} matches checked`);
  assert.ok(ruledOut > 0.5 * absent, `ruled out ${ruledOut} of ${absent}`);
});

test("a short identifier (no gram) has an empty signature; a query of grams it cannot hold is ruled out", () => {
  const signatures = signaturesOf([{ folded: "" }, { folded: "ab" }, { folded: "abc" }]);
  const query = new Int32Array(2);
  signatureInto("abc", query, 0);
  assert.is(signatures[0], 0);
  assert.is(signatures[1], 0);
  assert.is(signatures[2], 0);
  assert.is(signatures[3], 0);
  assert.not.ok(mayContain(signatures, 0, query));
  assert.not.ok(mayContain(signatures, 1, query));
  assert.ok(mayContain(signatures, 2, query));
});

test.run();

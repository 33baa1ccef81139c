/**
 * The page's fold, tiers and highlight (explorer/src/fold.ts)
 * ===========================================================
 * The explorer computes each result's tier in the browser, so its folds must be the contract's to
 * the code unit: checked against the engine's (src/engine/search/fold.ts, both modes) on seeded random
 * identifiers from the oracle's Unicode fragments (ligatures, final sigma, dotted I, sharp s,
 * full-width forms, combining marks, astral letters). The tier against the contract's rule with the
 * engine's fold; the highlighted range against what it claims (its fold holds the query's).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { accentFold, caseFold, inferFolding, matchRange, tierOf } from "../../explorer/src/fold.js";
import { fold as engineFold, foldAccents as engineFoldAccents } from "../../src/engine/search/fold.js";
import { randomIdentifier, Rng } from "../support/oracle.js";

const ROUNDS = 4000;

function identifiers(seed: number, n: number): string[] {
  const rng = new Rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(randomIdentifier(rng, out));
  return out;
}

/** The contract's tier, written from its text with the engine's fold. */
function contractTier(name: string, q: string): number {
  const n = engineFold(name);
  const f = engineFold(q);
  return n === f ? 0 : n.startsWith(f) ? 1 : 2;
}

test("caseFold is the engine's fold on seeded random identifiers", () => {
  for (const s of identifiers(29, ROUNDS)) assert.is(caseFold(s), engineFold(s), JSON.stringify(s));
});

test("accentFold is the engine's accent fold on seeded random identifiers", () => {
  for (const s of identifiers(30, ROUNDS)) assert.is(accentFold(s), engineFoldAccents(s), JSON.stringify(s));
});

test("the contract's examples", () => {
  assert.ok(caseFold("Straße").includes(caseFold("STRASSE")));
  assert.ok(caseFold("STRAẞE").includes(caseFold("strasse")));
  assert.ok(caseFold("İstanbul").includes(caseFold("istanbul")));
  assert.ok(caseFold("finance").includes(caseFold("ﬁnance")));
  assert.ok(caseFold("ΟΔΟΣΟ").includes(caseFold("ΟΔΟΣ")));
  assert.not.ok(caseFold("Dürer").includes(caseFold("durer")), "accents kept by default");
  assert.ok(accentFold("Dürer").includes(accentFold("durer")));
  assert.ok(accentFold("Zürich").includes(accentFold("zurich")));
  assert.ok(accentFold("Malmö").includes(accentFold("malmo")));
});

test("tierOf follows the contract on random names and queries cut from them", () => {
  const rng = new Rng(2929);
  const names = identifiers(7, ROUNDS);
  for (const name of names) {
    const f = engineFold(name);
    if (f === "") continue;
    // A query that is the whole name, a prefix of its fold or a piece from inside it.
    const start = rng.chance(0.4) ? 0 : rng.int(f.length);
    const q = f.slice(start, start + rng.range(1, f.length - start));
    if (!f.includes(engineFold(q))) continue;
    assert.is(tierOf(name, q, "case"), contractTier(name, q), JSON.stringify([name, q]));
  }
  assert.is(tierOf("Paul Merson", "paul merson", "case"), 0);
  assert.is(tierOf("Paul Merson", "PAUL", "case"), 1);
  assert.is(tierOf("Paul Merson", "merson", "case"), 2);
  assert.is(tierOf("Dürer", "durer", "accents"), 0);
});

test("matchRange marks a part of the name whose fold holds the query's", () => {
  const rng = new Rng(4242);
  let mapped = 0;
  let tried = 0;
  for (const name of identifiers(11, ROUNDS)) {
    const f = caseFold(name);
    if (f === "") continue;
    const start = rng.int(f.length);
    const q = f.slice(start, start + rng.range(1, Math.min(6, f.length - start)));
    if (caseFold(q) === "" || !f.includes(caseFold(q))) continue;
    tried++;
    const range = matchRange(name, q, "case");
    if (range === null) continue;
    mapped++;
    assert.ok(range.start >= 0 && range.start < range.end && range.end <= name.length);
    assert.ok(caseFold(name.slice(range.start, range.end)).includes(caseFold(q)), JSON.stringify([name, q, range]));
  }
  // Unmappable names (the whole fold differs from the folds of its pieces) are rare.
  assert.ok(mapped > tried * 0.9, `${mapped} of ${tried} mapped`);
});

test("matchRange on the cases where fold changes lengths", () => {
  assert.equal(matchRange("Paul Merson", "merson", "case"), { start: 5, end: 11 });
  assert.equal(matchRange("Straße 5", "STRASSE", "case"), { start: 0, end: 6 });
  assert.equal(matchRange("Groß", "ss", "case"), { start: 3, end: 4 }, "ß as a whole");
  assert.equal(matchRange("İstanbul", "ist", "case"), { start: 0, end: 3 });
  assert.equal(matchRange("ﬁnance", "fin", "case"), { start: 0, end: 2 }, "the ligature whole, then n");
  assert.equal(matchRange("Albrecht Dürer", "durer", "accents"), { start: 9, end: 14 });
  assert.equal(matchRange("Dürer", "durer", "case"), null, "no match without accent folding");
  const decomposed = "Du\u0308rer";
  assert.equal(matchRange(decomposed, "dürer", "case"), { start: 0, end: 6 }, "a base and its mark together");
});

test("inferFolding: only a result the case fold cannot explain proves accent folding", () => {
  assert.is(inferFolding(["Zürich", "Zurich"], "zurich"), "accents");
  assert.is(inferFolding(["Zurich", "Zurich Airport"], "zurich"), null);
  assert.is(inferFolding(["Zürich"], "zürich"), null);
});

test.run();

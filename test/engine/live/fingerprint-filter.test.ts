/**
 * Fingerprint filter tests
 * ========================
 * The filter never says "absent" of a fingerprint it was given (the delta's map would be skipped
 * for a statement it holds): on seeded random derived (16 hex digits) and given text fingerprints
 * (empty, short, long, non-ASCII), every one added is held; and of as many never added, few are
 * derived ones are said to be held (the filter skips most probes, its reason to be).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { FingerprintFilter } from "../../../src/engine/live/fingerprint-filter.js";
import { randomIdentifier, Rng } from "../../support/oracle.js";

/** A random fingerprint: mostly 16 lowercase hex digits (derived), else any text (given). */
function randomFingerprint(rng: Rng): string {
  return rng.chance(0.2) ? randomIdentifier(rng, []) : randomHex(rng);
}

/** A derived fingerprint's form: 16 lowercase hex digits. */
function randomHex(rng: Rng): string {
  let fp = "";
  for (let i = 0; i < 16; i++) fp += "0123456789abcdef"[rng.int(16)];
  return fp;
}

test("every fingerprint added is held; of those never added, few are", () => {
  for (const seed of [1, 2, 3]) {
    const rng = new Rng(seed);
    const filter = new FingerprintFilter();
    const added = new Set<string>();
    for (let i = 0; i < 50_000; i++) {
      const fp = randomFingerprint(rng);
      added.add(fp);
      filter.add(fp);
    }
    for (const fp of added) assert.ok(filter.mayHold(fp), `seed ${seed}: ${JSON.stringify(fp)} added but not held`);
    // Of absent derived (hex) fingerprints, the ones a big batch mostly asks: few share a bit.
    let absent = 0;
    let held = 0;
    while (absent < 50_000) {
      const fp = randomHex(rng);
      if (added.has(fp)) continue;
      absent++;
      if (filter.mayHold(fp)) held++;
    }
    // 50,000 keys in 2^22 bits: about 1.2% of absent keys find their bit set.
    assert.ok(held < absent * 0.05, `seed ${seed}: ${held} of ${absent} absent fingerprints said held`);
  }
});

test("a fresh filter holds nothing", () => {
  const filter = new FingerprintFilter();
  for (const fp of ["", "a", "0123456789abcdef", "ffffffffffffffff"]) assert.not.ok(filter.mayHold(fp));
});

test.run();

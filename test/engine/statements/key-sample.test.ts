/**
 * Key sample tests
 * ================
 * src/engine/statements/key-sample.ts: for random sorted runs inside random sequences, `narrow`
 * keeps every position equal to the value and the insertion point, and cuts nothing it must keep:
 * positions before its range hold less than the value, positions after it more, and each bound lies
 * inside the interval it gives for it (a brute-force scan).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { KEY_SAMPLE, KeySample } from "../../../src/engine/statements/key-sample.js";
import { Rng } from "../../support/oracle.js";

test("narrow: a range inside [lo, hi) around every position equal to the value, against a scan", () => {
  const out = new Int32Array(4);
  let narrowed = 0;
  let bounded = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed);
    // Now and then a range of hundreds of samples: a long search of the samples.
    const length = rng.int(rng.chance(0.2) ? 400 * KEY_SAMPLE : rng.chance(0.5) ? 20 * KEY_SAMPLE : 3 * KEY_SAMPLE);
    // Random values, then one random range sorted (as a predicate's range of POS is on objects).
    const values = Array.from({ length }, () => rng.int(rng.chance(0.5) ? 10 : 1000));
    const lo = rng.int(length + 1);
    const hi = lo + rng.int(length - lo + 1);
    const run = values.slice(lo, hi).sort((a, b) => a - b);
    values.splice(lo, hi - lo, ...run);
    // The order's "rows" are its positions.
    const sample = new KeySample({ length, rowAt: (p) => p, valueOf: (p) => values[p]! });
    for (let k = 0; k < 50; k++) {
      const value = rng.chance(0.8) && run.length > 0 ? rng.pick(run) + rng.int(3) - 1 : rng.int(1001);
      sample.narrow(lo, hi, value, out);
      const [a, l, u, b] = [out[0]!, out[1]!, out[2]!, out[3]!];
      const ctx = `seed ${seed} [${lo}, ${hi}) value ${value} -> [${a}, ${l}] [${u}, ${b}]`;
      assert.ok(lo <= a && a <= l && l <= b && a <= u && u <= b && b <= hi, ctx);
      for (let p = lo; p < a; p++) assert.ok(values[p]! < value, `${ctx}: position ${p} cut below`);
      for (let p = b; p < hi; p++) assert.ok(values[p]! > value, `${ctx}: position ${p} cut above`);
      // The lower bound is at or before l; the upper bound at or after u.
      if (l < hi) assert.ok(values[l]! >= value, `${ctx}: the lower bound is past ${l}`);
      for (let p = lo; p < u; p++) assert.ok(values[p]! <= value, `${ctx}: the upper bound is before ${u}`);
      if (b - a < hi - lo) narrowed++;
      if (l - a + (b - u) < b - a) bounded++;
    }
  }
  assert.ok(narrowed > 500, `only ${narrowed} narrowed`);
  assert.ok(bounded > 20, `only ${bounded} ranges whose bounds' intervals are shorter than the range`);
});

test.run();

/**
 * bench:changes' paired timing and its split by class (bench/changes.bench.ts timePaired,
 * samplesOf): each kept sample comes with the query it timed, so a case's rows split by whether the
 * delta changes a query's page hold that query's samples, on both sides.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { samplesOf, timePaired } from "../../bench/changes.bench.js";
import { mulberry32 } from "../../tools/generator.js";

test("timePaired keeps, beside each sample, the query it timed (the warm-up round left out)", () => {
  const n = 7;
  const rounds = 3;
  let now = 0;
  // The clock moves by 1,000 + the query asked (a's) or 2,000 + it (b's) across each call: a sample names its query.
  let step = 0;
  const clock = () => now;
  const paired = timePaired(
    n,
    rounds,
    mulberry32(3),
    clock,
    (i) => {
      now += 1000 + i;
      step++;
    },
    (i) => {
      now += 2000 + i;
      step++;
    },
  );
  assert.is(step, 2 * n * (rounds + 1));
  assert.is(paired.a.length, n * rounds);
  assert.is(paired.b.length, n * rounds);
  for (let k = 0; k < paired.a.length; k++) {
    assert.is(paired.a[k], 1000 + paired.aQuery[k]!);
    assert.is(paired.b[k], 2000 + paired.bQuery[k]!);
  }
  // Each round asks every query once on each side.
  for (const queries of [paired.aQuery, paired.bQuery])
    for (let i = 0; i < n; i++) assert.is(queries.filter((q) => q === i).length, rounds);
});

test("samplesOf keeps the samples of a class's queries, in order", () => {
  assert.equal(
    samplesOf([10, 11, 12, 13], [0, 3, 2, 3], (i) => i === 3),
    [11, 13],
  );
  assert.equal(
    samplesOf([10, 11], [1, 2], () => false),
    [],
  );
});

test.run();

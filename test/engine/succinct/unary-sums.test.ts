/**
 * Unary prefix sums tests: sumBefore(x) equals the running sum for every x, on random counts (many
 * zeros, runs of large counts, long sequences that cross many select samples), and the serial form
 * round-trips.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { SELECT_SAMPLE, UnarySums } from "../../../src/engine/succinct/unary-sums.js";
import { Rng } from "../../support/oracle.js";

function check(counts: number[], ctx: string): void {
  const sums = UnarySums.from(counts);
  let sum = 0;
  for (let x = 0; x <= counts.length; x++) {
    if (sums.sumBefore(x) !== sum) assert.unreachable(`${ctx}: sumBefore(${x}) = ${sums.sumBefore(x)}, want ${sum}`);
    if (x < counts.length) sum += counts[x]!;
  }
}

test("sumBefore equals the running sum: empty, all zero, all one, random", () => {
  check([], "empty");
  check([0], "one zero");
  check([5], "one five");
  check(new Array(5000).fill(0), "zeros");
  check(new Array(5000).fill(1), "ones");
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    const n = rng.int(3 * SELECT_SAMPLE + 100);
    const counts = Array.from({ length: n }, () => {
      const r = rng.float();
      return r < 0.5 ? 0 : r < 0.85 ? 1 : r < 0.97 ? rng.int(5) : rng.int(700);
    });
    check(counts, `seed ${seed}`);
  }
});

test("serial form round-trips; a damaged zero count is refused", () => {
  const rng = new Rng(3);
  const counts = Array.from({ length: 4000 }, () => rng.int(3));
  const sums = UnarySums.from(counts);
  const w = new MemorySerialWriter();
  sums.serialize(w);
  const back = UnarySums.deserialize(new MemorySerialReader(w.fields, { verify: true }));
  for (let x = 0; x <= counts.length; x += 7) assert.is(back.sumBefore(x), sums.sumBefore(x));
  w.fields.set("length", counts.length + 1);
  assert.throws(() => UnarySums.deserialize(new MemorySerialReader(w.fields, { verify: true })));
});

test.run();

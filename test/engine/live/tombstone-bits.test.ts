/**
 * Tombstone bits (the live graph's deleted base statements, a bit per position of each order)
 * against brute force: each row's position in POS and OSP found by positionOf is the position whose
 * row it is (on a seeded random graph with repeated triples under other fingerprints), and the run
 * tests anyMarked / anyUnmarked equal a Set of the positions marked, at every run of a few sizes.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { graphParts } from "../../../src/engine/internal.js";
import { anyMarked, anyUnmarked, positionOf, TombstoneBits } from "../../../src/engine/live/tombstone-bits.js";
import { buildGraph, generateGraph, Rng } from "../../support/oracle.js";

test("positionOf: every row's position in POS and OSP holds that row; mark sets the row's bit in each order", () => {
  const rng = new Rng(5101);
  const graph = buildGraph(generateGraph(rng, { entities: 400, statements: 3000 }));
  const index = graphParts(graph).statementIndex;
  for (let row = 0; row < index.length; row++)
    for (const order of ["POS", "OSP"] as const) {
      const at = positionOf(index, order, row);
      assert.is(index.rowAt(order, at), row, `row ${row} in ${order}`);
    }
  const bits = new TombstoneBits({}, index.length);
  const rows = [0, index.length - 1, rng.int(index.length), rng.int(index.length)];
  for (const row of rows) bits.mark(index, row);
  assert.is(bits.count, rows.length);
  for (const order of ["SPO", "POS", "OSP"] as const)
    for (let at = 0; at < index.length; at++) {
      const row = index.rowAt(order, at);
      assert.is(anyMarked(bits.of(order), at, at + 1), rows.includes(row), `${order} position ${at}`);
    }
});

test("anyMarked and anyUnmarked equal a Set of the positions marked, for every run of a few lengths", () => {
  const rng = new Rng(5102);
  for (const n of [1, 31, 32, 33, 95, 300]) {
    const bits = new Uint32Array(Math.ceil(n / 32));
    const marked = new Set<number>();
    for (let round = 0; round < 12; round++) {
      // Each round a few marks, some in runs (whole words marked too).
      for (let k = rng.range(0, 6); k > 0; k--) {
        const from = rng.int(n);
        const run = rng.chance(0.3) ? rng.range(1, 70) : 1;
        for (let at = from; at < Math.min(n, from + run); at++) {
          bits[at >>> 5]! |= 1 << (at & 31);
          marked.add(at);
        }
      }
      for (let from = 0; from <= n; from++)
        for (const length of [0, 1, 2, 5, 31, 32, 33, 64, 100]) {
          const to = Math.min(n, from + length);
          let some = false;
          let clear = false;
          for (let at = from; at < to; at++) {
            if (marked.has(at)) some = true;
            else clear = true;
          }
          assert.is(anyMarked(bits, from, to), some, `n ${n} marked in [${from}, ${to})`);
          assert.is(anyUnmarked(bits, from, to), clear, `n ${n} clear in [${from}, ${to})`);
        }
    }
  }
});

test.run();

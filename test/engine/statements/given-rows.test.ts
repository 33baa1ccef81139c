/**
 * Given rows: tests
 * =================
 * src/engine/statements/given-rows.ts against a plain oracle (a sorted list of rows and their
 * halves), on seeded random rows at several densities (none, sparse, half, every row), reserved
 * and grown: indexOf while rows come and after, and the sealed rows' bits, ranks and halves. A row
 * not above the last one is refused.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { GivenRows } from "../../../src/engine/statements/given-rows.js";
import { Rng } from "../../support/oracle.js";

for (const density of [0, 0.01, 0.5, 1]) {
  for (const reserved of [false, true]) {
    test(`indexOf and seal agree with a list of the rows (density ${density}, ${reserved ? "reserved" : "grown"})`, () => {
      const rng = new Rng(Math.round(density * 1000) + (reserved ? 7 : 3));
      const rowCount = 5_000;
      const rows = new GivenRows();
      if (reserved) rows.reserve(rowCount);
      const list: number[] = [];
      const his: number[] = [];
      const los: number[] = [];
      for (let row = 0; row < rowCount; row++) {
        if (density === 0 || (density < 1 && rng.int(1_000_000) >= density * 1_000_000)) continue;
        const hi = rng.int(2 ** 32);
        const lo = rng.int(2 ** 32);
        rows.add(row, hi, lo);
        list.push(row);
        his.push(hi);
        los.push(lo);
        // While rows come: every row so far (and one past the last) has its index.
        if (row % 997 === 0) for (let r = 0; r <= row + 1; r++) assert.is(rows.indexOf(r), list.indexOf(r), `row ${r}`);
      }
      assert.is(rows.count, list.length);
      for (let r = 0; r < rowCount; r++) {
        const at = list.indexOf(r);
        assert.is(rows.indexOf(r), at, `row ${r}`);
        if (at >= 0) {
          assert.is(rows.hiAt(at), his[at]);
          assert.is(rows.loAt(at), los[at]);
        }
      }
      const sealed = rows.seal(rowCount);
      assert.is(sealed.rows.length, rowCount);
      assert.is(sealed.rows.ones, list.length);
      assert.equal(Array.from(sealed.hi), his);
      assert.equal(Array.from(sealed.lo), los);
      for (let r = 0; r < rowCount; r++) {
        const at = list.indexOf(r);
        assert.is(sealed.rows.get(r), at >= 0 ? 1 : 0, `bit ${r}`);
        if (at >= 0) assert.is(sealed.rows.rank1(r), at, `rank ${r}`);
      }
    });
  }
}

test("a row not above the last one added is refused", () => {
  const rows = new GivenRows();
  rows.add(5, 1, 2);
  assert.throws(() => rows.add(5, 3, 4));
  assert.throws(() => rows.add(2, 3, 4));
});

test.run();

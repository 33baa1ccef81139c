/**
 * Rank list tests: src/engine/search/rank-list.ts against a plain array fed the same values, across
 * growth past its capacity and emptying between pages (as SearchIndex.find empties it).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { RankList } from "../../../src/engine/search/rank-list.js";
import { Rng } from "../../support/oracle.js";

test("a rank list holds what was pushed since it was emptied, past its first capacity too", () => {
  const rng = new Rng(31);
  const list = new RankList(3);
  for (let page = 0; page < 50; page++) {
    list.length = 0;
    const want: number[] = [];
    const n = rng.int(40);
    for (let i = 0; i < n; i++) {
      const v = rng.int(0xffffffff);
      list.push(v);
      want.push(v);
    }
    assert.is(list.length, n);
    assert.equal([...list.values.subarray(0, list.length)], want, `page ${page}`);
  }
});

test.run();

/**
 * Pair filter tests
 * =================
 * src/engine/live/pair-filter.ts through a statement list's own filter (StatementList.pairFilter)
 * on seeded random merges of puts and removals: the filter passes the first two components of every
 * item whose both are base entities, whether it was made before the merges or after, for bases
 * whose merge keys pack the pair and for one past 2^26 entities (the items read); a small merge
 * keeps the filter (its items' bits set), a list that outgrows it gets a larger one.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { PAIR_FILTER_BITS, pairMayHold } from "../../../src/engine/live/pair-filter.js";
import { type DeltaStatement, ORDERS } from "../../../src/engine/live/sorted-delta.js";
import { StatementList } from "../../../src/engine/live/statement-list.js";
import { Rng } from "../../support/oracle.js";

test("a list's pair filter passes every item's pair of base entities, as merges put and remove items", () => {
  const rng = new Rng(95);
  const name = (d: number) => `e${String(d).padStart(9, "0")}`;
  for (const bound of [50, 1 << 20, 2 ** 26 + 5])
    for (const order of ORDERS) {
      const list = new StatementList(order);
      const live = new Map<string, DeltaStatement>();
      let n = 0;
      const id = (): [string, number] => {
        const d = rng.int(Math.min(bound, 300));
        return rng.chance(0.05) ? [`${name(d)}x`, -1] : [name(d), d];
      };
      for (let round = 0; round < 60; round++) {
        // Each merge: puts (a few, at times many), and removals of items there.
        const added: DeltaStatement[] = [];
        for (let k = rng.chance(0.1) ? rng.range(20, 400) : rng.range(0, 6); k > 0; k--) {
          const [s, sd] = id();
          const [p, pd] = id();
          const [o, od] = id();
          added.push({ s, p, o, fp: `fp${n++}`, given: false, sd, pd, od });
        }
        const removedItems = [...live.values()].filter(() => rng.chance(0.05));
        for (const st of removedItems) live.delete(st.fp);
        for (const st of added) live.set(st.fp, st);
        list.merge(new Set(removedItems.map((st) => st.fp)), removedItems, added, bound);
        // The filter asked now and then (made, then kept across the merges that follow).
        if (!rng.chance(0.6)) continue;
        const bits = list.pairFilter(bound);
        assert.ok(bits.length * 32 >= list.length * PAIR_FILTER_BITS, `${order} round ${round}: sized for the list`);
        for (const st of live.values()) {
          const a = order === "SPO" ? st.sd : order === "POS" ? st.pd : st.od;
          const b = order === "SPO" ? st.pd : order === "POS" ? st.od : st.sd;
          if (a >= 0 && b >= 0) assert.ok(pairMayHold(bits, a, b), `${order} bound ${bound} round ${round}: ${st.fp}`);
        }
      }
    }
});

test("a small merge keeps the list's pair filter (its items' bits set); a list that outgrows it gets a larger one", () => {
  const order = "SPO";
  const list = new StatementList(order);
  const st = (i: number): DeltaStatement => ({
    s: `s${i}`,
    p: `p${i % 7}`,
    o: `o${i}`,
    fp: `fp${i}`,
    given: false,
    sd: i,
    pd: 1000 + (i % 7),
    od: i + 1,
  });
  list.merge(
    new Set(),
    [],
    Array.from({ length: 100 }, (_, i) => st(i)),
    5000,
  );
  const bits = list.pairFilter(5000);
  list.merge(new Set(), [], [st(100)], 5000);
  assert.is(list.pairFilter(5000), bits, "kept");
  assert.ok(pairMayHold(bits, 100, 1000 + (100 % 7)), "the added item's pair");
  list.merge(
    new Set(),
    [],
    Array.from({ length: 2000 }, (_, i) => st(200 + i)),
    5000,
  );
  const larger = list.pairFilter(5000);
  assert.ok(larger.length > bits.length, "made again, larger");
});

test.run();

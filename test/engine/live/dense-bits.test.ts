/**
 * Dense bits (the live graph's tombstoned base entities, a bit each) against the Set of ids they
 * stand for, on seeded random marks: hasBit, countBits over a page of ids and dropBits.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { countBits, denseBits, dropBits, hasBit, markBit } from "../../../src/engine/live/dense-bits.js";
import { Rng } from "../../support/oracle.js";

test("denseBits: hasBit, countBits and dropBits equal a Set of the ids marked, as marks come", () => {
  const rng = new Rng(71);
  for (const n of [1, 31, 32, 33, 64, 1000, 100_003]) {
    const bits = denseBits(n);
    const marked = new Set<number>();
    for (let round = 0; round < 60; round++) {
      // Each round a few marks (some twice), then a page of ids read against both.
      for (let k = rng.range(0, 20); k > 0; k--) {
        const d = rng.chance(0.2) ? rng.pick([0, n - 1, 31 % n, 32 % n]) : rng.int(n);
        markBit(bits, d);
        marked.add(d);
      }
      const ids = Array.from({ length: rng.range(0, 40) }, () =>
        rng.chance(0.5) && marked.size > 0 ? rng.pick([...marked]) : rng.int(n),
      );
      for (const d of ids) assert.is(hasBit(bits, d), marked.has(d), `n=${n} round ${round} id ${d}`);
      const upTo = rng.range(0, ids.length);
      assert.is(
        countBits(bits, ids, upTo),
        ids.slice(0, upTo).filter((d) => marked.has(d)).length,
        `n=${n} round ${round} count`,
      );
      const items = ids.map((d) => `item${d}`);
      dropBits(items, bits, ids);
      assert.equal(
        items,
        ids.filter((d) => !marked.has(d)).map((d) => `item${d}`),
        `n=${n} round ${round} drop`,
      );
    }
    for (let d = 0; d < n; d++) if (hasBit(bits, d) !== marked.has(d)) assert.unreachable(`n=${n} id ${d}`);
  }
});

test.run();

/**
 * Bits filter tests
 * =================
 * src/engine/live/bits-filter.ts against the Set of ids a bitmap stands for, on seeded random marks
 * (markFiltered) and clears (clearBit) with reads (filterOf, filteredHas) between them: the filter
 * passes every id marked (filteredHas equals the Set), whenever it was made; it is kept from one read
 * to the next as marks come while it has room (not made again after each batch of marks), and made
 * again, larger, once they outnumber it; an id cleared keeps its filter bit and is not passed on.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { FILTER_BITS_PER_MARK, filteredHas, filterOf, markFiltered } from "../../../src/engine/live/bits-filter.js";
import { clearBit, denseBits, hasBit } from "../../../src/engine/live/dense-bits.js";
import { Rng } from "../../support/oracle.js";

test("filteredHas through filterOf equals the Set of the ids marked, as marks and clears come between reads", () => {
  const rng = new Rng(81);
  for (const n of [1, 33, 1000, 100_003, 1_000_000]) {
    const bits = denseBits(n);
    const marked = new Set<number>();
    for (let round = 0; round < 80; round++) {
      // A batch: a few marks (some twice), at times many, and now and then a clear.
      const marks = rng.chance(0.1) ? rng.range(0, 2000) : rng.range(0, 20);
      for (let k = 0; k < marks; k++) {
        const d = rng.chance(0.2) && marked.size > 0 ? rng.pick([...marked].slice(0, 50)) : rng.int(n);
        markFiltered(bits, d);
        marked.add(d);
      }
      if (marked.size > 0 && rng.chance(0.3)) {
        const d = rng.pick([...marked].slice(0, 50));
        clearBit(bits, d);
        marked.delete(d);
      }
      // A read: the marked ids and others, through the filter.
      const filter = filterOf(bits);
      const ids = Array.from({ length: 200 }, () =>
        rng.chance(0.5) && marked.size > 0 ? rng.pick([...marked].slice(0, 200)) : rng.int(n),
      );
      for (const d of ids) assert.is(filteredHas(filter, bits, d), marked.has(d), `n=${n} round ${round} id ${d}`);
      for (const d of marked) assert.ok(filteredHas(filter, bits, d), `n=${n} round ${round}: marked ${d} not passed`);
    }
  }
});

test("filterOf keeps a bitmap's filter while marks come (each sets its bit), and makes it again, larger, once they outnumber it", () => {
  const n = 10_000_000;
  const bits = denseBits(n);
  for (let d = 0; d < 100; d++) markFiltered(bits, d * 7919);
  const first = filterOf(bits);
  assert.is(filterOf(bits), first, "kept between reads");
  // Its room: 100 marks take 1,600 bits, rounded up to 2,048, room for 28 more.
  for (let d = 100; d < 128; d++) markFiltered(bits, d * 7919);
  assert.is(filterOf(bits), first, "kept while it has room");
  for (let d = 0; d < 128; d++) assert.ok(filteredHas(first, bits, d * 7919), `mark ${d} passed`);
  markFiltered(bits, 128 * 7919);
  assert.is.not(filterOf(bits), first, "made again past its room");
  // Far more marks than it has room for: made again, larger.
  for (let d = 129; d < 20_000; d++) markFiltered(bits, d * 499);
  const second = filterOf(bits);
  assert.is.not(second, first, "made again");
  assert.ok(second.bits.length > first.bits.length, "larger");
  assert.ok(second.bits.length * 32 >= 20_000 * FILTER_BITS_PER_MARK, "sized for its marks");
  for (let d = 0; d < 20_000; d++) {
    const id = d <= 128 ? d * 7919 : d * 499;
    assert.ok(hasBit(bits, id) && filteredHas(second, bits, id), `mark ${d}`);
  }
  // About 1 in FILTER_BITS_PER_MARK of the other ids passes to the bitmap (its own check then says no).
  let passed = 0;
  for (let d = 1; d < 100_000; d += 3) {
    const f = (d * 1_000_003 + 17) % n;
    if (!hasBit(bits, f) && (second.bits[(f & second.mask) >>> 5]! & (1 << (f & 31))) !== 0) passed++;
  }
  assert.ok(passed < 33_333 / 4, `${passed} of 33,333 other ids pass the filter`);
});

test("a bitmap too small for a filter is its own (every mark in it at once)", () => {
  const bits = denseBits(500);
  markFiltered(bits, 3);
  const filter = filterOf(bits);
  assert.is(filter.bits, bits);
  markFiltered(bits, 499);
  assert.ok(filteredHas(filterOf(bits), bits, 499));
  assert.not.ok(filteredHas(filterOf(bits), bits, 4));
});

test.run();

/**
 * ByteLru tests
 * =============
 * src/engine/cursor/byte-lru.ts: a least-recently-used cache bounded by charged bytes. Small literal cases
 * checked by hand, then a property check against a naive model (an array in recency order) on seeded
 * random operations: the same entries, in the same order, and the total never over the budget.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { ByteLru } from "../../../src/engine/cursor/byte-lru.js";
import { Rng } from "../../support/oracle.js";

test("evicts the least recently used entries until the total fits the budget", () => {
  const lru = new ByteLru<string, number>(100);
  assert.ok(lru.set("a", 1, 40));
  assert.ok(lru.set("b", 2, 40));
  assert.is(lru.bytes, 80);
  assert.is(lru.get("a"), 1); // "a" is now the most recent: "b" goes first
  assert.ok(lru.set("c", 3, 40));
  assert.is(lru.get("b"), undefined);
  assert.is(lru.get("a"), 1);
  assert.is(lru.get("c"), 3);
  assert.is(lru.bytes, 80);
  assert.ok(lru.set("d", 4, 100)); // the whole budget: everything else goes
  assert.is(lru.size, 1);
  assert.is(lru.bytes, 100);
  assert.is(lru.get("d"), 4);
});

test("an entry over maxEntryBytes is not stored, and drops an older value under its key", () => {
  const lru = new ByteLru<string, string>(1000, 50);
  assert.ok(lru.set("k", "small", 10));
  assert.not.ok(lru.set("k", "large", 51));
  assert.is(lru.get("k"), undefined, "a stale value stayed behind");
  assert.is(lru.bytes, 0);
  assert.not.ok(new ByteLru<string, string>(10).set("x", "y", 11), "over the budget itself");
});

test("replacing a key charges the new size once", () => {
  const lru = new ByteLru<string, string>(100);
  lru.set("k", "a", 30);
  lru.set("k", "b", 50);
  assert.is(lru.size, 1);
  assert.is(lru.bytes, 50);
  assert.is(lru.get("k"), "b");
  assert.ok(lru.delete("k"));
  assert.not.ok(lru.delete("k"));
  assert.is(lru.bytes, 0);
});

test("a budget of 0 keeps nothing; a bad budget is refused", () => {
  const lru = new ByteLru<string, string>(0);
  assert.not.ok(lru.set("k", "v", 0 + 1));
  assert.is(lru.size, 0);
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => new ByteLru(bad));
});

test("after clear() it starts empty and works as new; slots are reused past the first arrays", () => {
  const lru = new ByteLru<number, number>(1000);
  for (let k = 0; k < 100; k++) lru.set(k, k, 10);
  assert.is(lru.size, 100);
  lru.clear();
  assert.is(lru.size, 0);
  assert.is(lru.bytes, 0);
  assert.is(lru.get(5), undefined);
  // 300 sets into room for 100: the oldest 200 go, in order.
  for (let k = 0; k < 300; k++) lru.set(k, 2 * k, 10);
  assert.is(lru.size, 100);
  assert.is(lru.get(199), undefined);
  assert.is(lru.get(200), 400);
  assert.is(lru.get(299), 598);
});

/** Counts the Map calls `run` makes: deletions and iterations (either may walk a V8 Map's holes). */
function mapCalls(run: () => void): { deletes: number; iterations: number } {
  const proto = Map.prototype as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  const names = ["delete", "entries", "keys", "values", "forEach", Symbol.iterator] as const;
  const saved = names.map((name) => proto[name]!);
  const calls = { deletes: 0, iterations: 0 };
  names.forEach((name, i) => {
    proto[name] = function (this: unknown, ...args: unknown[]) {
      if (name === "delete") calls.deletes++;
      else calls.iterations++;
      return saved[i]!.apply(this, args);
    };
  });
  try {
    run();
  } finally {
    names.forEach((name, i) => {
      proto[name] = saved[i]!;
    });
  }
  return calls;
}

test("a hit or a set of a key held never deletes it from the Map, and nothing iterates the Map", () => {
  // Regression: moving a key to the front by delete + set left a hole in its hash chain per move
  // (102-145 us a set of one key in a full 100,000-entry cache), and eviction iterated the Map
  // from its front, past the hole of every earlier eviction (54 us a set).
  const lru = new ByteLru<string, number>(1000);
  for (let k = 0; k < 100; k++) lru.set(`k${k}`, k, 10);
  assert.equal(
    mapCalls(() => {
      for (let round = 0; round < 50; round++) {
        assert.is(lru.get("k50"), 50);
        assert.ok(lru.set("k60", round, 10));
        assert.ok(lru.set("k70", round, 10));
      }
    }),
    { deletes: 0, iterations: 0 },
  );
  // A key held set again with another charge: the total follows, still without a deletion.
  const roomy = new ByteLru<string, number>(1000);
  roomy.set("a", 1, 10);
  roomy.set("b", 2, 10);
  assert.equal(
    mapCalls(() => roomy.set("a", 3, 25)),
    { deletes: 0, iterations: 0 },
  );
  assert.is(roomy.bytes, 35);
  assert.is(roomy.get("a"), 3);
  // A new key at budget evicts exactly one entry, the least recently used, by key: one deletion.
  assert.equal(
    mapCalls(() => {
      lru.set("k70", 0, 10);
      lru.set("new", 1, 10);
    }),
    { deletes: 1, iterations: 0 },
  );
  assert.is(lru.size, 100);
  assert.is(lru.get("k0"), undefined);
  assert.is(lru.get("k1"), 1);
});

test("property: the same entries, in the same order, as a naive model; never over the budget", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const rng = new Rng(seed);
    const budget = rng.range(0, 400);
    const maxEntry = rng.range(0, 200);
    const lru = new ByteLru<number, number>(budget, maxEntry);
    const model: { key: number; value: number; bytes: number }[] = []; // least recent first
    const total = () => model.reduce((n, e) => n + e.bytes, 0);
    for (let op = 0; op < 2000; op++) {
      const key = rng.int(40);
      const at = model.findIndex((e) => e.key === key);
      if (rng.chance(0.5)) {
        const got = lru.get(key);
        if (at < 0) assert.is(got, undefined, `seed ${seed} op ${op}: get ${key}`);
        else {
          const [e] = model.splice(at, 1);
          model.push(e!);
          assert.is(got, e!.value, `seed ${seed} op ${op}: get ${key}`);
        }
      } else {
        const bytes = rng.range(0, 120);
        const value = rng.int(1e6);
        if (at >= 0) model.splice(at, 1);
        const stored = lru.set(key, value, bytes);
        assert.is(stored, bytes <= Math.min(maxEntry, budget), `seed ${seed} op ${op}: set ${key} of ${bytes}`);
        if (stored) {
          model.push({ key, value, bytes });
          while (total() > budget) model.shift();
        }
      }
      assert.is(lru.size, model.length, `seed ${seed} op ${op}: size`);
      assert.is(lru.bytes, total(), `seed ${seed} op ${op}: bytes`);
      assert.ok(lru.bytes <= budget);
    }
    for (const e of model) assert.ok(lru.has(e.key));
  }
});

test.run();

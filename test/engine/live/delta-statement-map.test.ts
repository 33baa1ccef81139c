/**
 * Delta statement map tests
 * =========================
 * DeltaStatementMap against a plain Map (the oracle) on seeded random operations: sets (new keys
 * and replacements), deletes (present and absent keys) and look-ups, over derived fingerprints (16
 * lowercase hex digits, the table's keys) and text ones (the Map's: capitals, 15 or 17 digits,
 * empty, non-ASCII), with size and values compared after each round. The rounds grow the map past
 * several doublings, shrink it by deletes (backward shifts through clusters and across the table's
 * end), and put keys back (put, delete, put). A separate case fills 100,000 keys, deletes them in
 * random order and fills them again.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { DeltaStatementMap } from "../../../src/engine/live/delta-statement-map.js";
import { randomIdentifier, Rng } from "../../support/oracle.js";

interface Item {
  readonly fp: string;
  readonly n: number;
}

function randomHex(rng: Rng, digits = 16, alphabet = "0123456789abcdef"): string {
  let fp = "";
  for (let i = 0; i < digits; i++) fp += alphabet[rng.int(alphabet.length)];
  return fp;
}

/** Mostly derived fingerprints; else text that is almost one (or not at all). */
function randomFingerprint(rng: Rng): string {
  const r = rng.float();
  if (r < 0.75) return randomHex(rng);
  if (r < 0.8) return randomHex(rng, 16, "0123456789ABCDEF");
  if (r < 0.85) return randomHex(rng, rng.chance(0.5) ? 15 : 17);
  return randomIdentifier(rng, []);
}

function same(map: DeltaStatementMap<Item>, oracle: Map<string, Item>, pool: readonly string[], what: string): void {
  assert.is(map.size, oracle.size, `${what}: size`);
  for (const fp of pool) {
    assert.is(map.get(fp), oracle.get(fp), `${what}: get ${JSON.stringify(fp)}`);
    assert.is(map.has(fp), oracle.has(fp), `${what}: has ${JSON.stringify(fp)}`);
  }
  const values = [...map.values()];
  assert.is(values.length, oracle.size, `${what}: values`);
  const expected = new Set(oracle.values());
  for (const v of values) assert.ok(expected.has(v), `${what}: value ${JSON.stringify(v)} not in the oracle`);
}

test("random sets, deletes and look-ups agree with a Map, through growth and shrinking", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const rng = new Rng(seed);
    // A pool of keys, some chosen again and again (replacements, deletes of present keys).
    const pool = Array.from({ length: 6000 }, () => randomFingerprint(rng));
    const map = new DeltaStatementMap<Item>();
    const oracle = new Map<string, Item>();
    let n = 0;
    // Rounds: grow (mostly sets), shrink (mostly deletes), grow again.
    for (const [round, setShare, ops] of [
      [0, 0.9, 5000],
      [1, 0.1, 6000],
      [2, 0.8, 8000],
      [3, 0.05, 9000],
      [4, 0.6, 4000],
    ] as const) {
      for (let i = 0; i < ops; i++) {
        const fp = rng.pick(pool);
        if (rng.float() < setShare) {
          const item = { fp, n: n++ };
          map.set(fp, item);
          oracle.set(fp, item);
        } else
          assert.is(map.delete(fp), oracle.delete(fp), `seed ${seed} round ${round}: delete ${JSON.stringify(fp)}`);
        if (i % 1000 === 0) assert.is(map.get(fp), oracle.get(fp));
      }
      same(map, oracle, pool, `seed ${seed} round ${round}`);
    }
  }
});

test("100,000 keys put, deleted in random order, and put again", () => {
  const rng = new Rng(7);
  const keys = [...new Set(Array.from({ length: 100_000 }, () => randomHex(rng)))];
  const map = new DeltaStatementMap<Item>();
  keys.forEach((fp, n) => {
    map.set(fp, { fp, n });
  });
  assert.is(map.size, keys.length);
  keys.forEach((fp, n) => {
    assert.is(map.get(fp)?.n, n);
  });
  const order = keys.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // Half deleted: the other half still found (the shifts kept every run reachable).
  const half = order.length >> 1;
  for (let i = 0; i < half; i++) assert.ok(map.delete(order[i]!));
  for (let i = 0; i < order.length; i++) assert.is(map.has(order[i]!), i >= half, `key ${i}`);
  for (let i = half; i < order.length; i++) assert.ok(map.delete(order[i]!));
  assert.is(map.size, 0);
  assert.is([...map.values()].length, 0);
  assert.not.ok(map.delete(keys[0]!));
  keys.forEach((fp, n) => {
    map.set(fp, { fp, n: -n });
  });
  assert.is(map.size, keys.length);
  keys.forEach((fp, n) => {
    assert.is(map.get(fp)?.n, -n);
  });
});

test("a hex fingerprint and its capitalized or padded text are different keys", () => {
  const map = new DeltaStatementMap<Item>();
  const fp = "00000000deadbeef";
  map.set(fp, { fp, n: 1 });
  for (const other of ["00000000DEADBEEF", "0000000deadbeef", "000000000deadbeef", "00000000deadbeef "])
    assert.is(map.get(other), undefined, other);
  map.set("00000000DEADBEEF", { fp: "00000000DEADBEEF", n: 2 });
  assert.is(map.get(fp)?.n, 1);
  assert.is(map.get("00000000DEADBEEF")?.n, 2);
  assert.is(map.size, 2);
  assert.ok(map.delete(fp));
  assert.is(map.get("00000000DEADBEEF")?.n, 2);
  assert.is(map.size, 1);
});

test("a delete inside a run that wraps around the table's end keeps every key of it reachable", () => {
  const rng = new Rng(11);
  const map = new DeltaStatementMap<Item>();
  const last = map.slotCount - 1;
  /** A fresh hex key whose first slot is `home`. */
  const keyAt = (home: number): string => {
    for (;;) {
      const fp = randomHex(rng);
      if (map.homeOf(fp) === home && map.get(fp) === undefined) return fp;
    }
  };
  // Four keys in slots last - 1 .. 1 (a run that wraps), their first slots as listed.
  for (const [shape, homes] of [
    ["stays across the end", [last - 1, last, 0, last - 1]],
    ["moves across the end", [last - 1, last - 1, last, 0]],
    ["moves from slot 0 into the end", [last, last, 0, last]],
  ] as const) {
    const keys = homes.map(keyAt);
    keys.forEach((fp, n) => {
      map.set(fp, { fp, n });
    });
    for (let gone = 0; gone < keys.length; gone++) {
      // Each key deleted in turn, the others looked up, and the key put back (at the run's end now).
      assert.ok(map.delete(keys[gone]!), `${shape}: delete ${gone}`);
      for (let n = 0; n < keys.length; n++)
        assert.is(map.get(keys[n]!)?.n, n === gone ? undefined : n, `${shape}: key ${n} after deleting ${gone}`);
      map.set(keys[gone]!, { fp: keys[gone]!, n: gone });
    }
    for (const fp of keys) assert.ok(map.delete(fp));
    assert.is(map.size, 0);
  }
});

test.run();

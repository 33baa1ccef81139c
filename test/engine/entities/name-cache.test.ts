/**
 * Name cache tests: src/engine/entities/name-cache.ts against the entity table it caches. Random dense ids
 * over more entities than slots (so slots are taken over again and again, ids of one slot back to
 * back), each slot's strings read right after it is found: always the entity's own names. The
 * admission (an id is admitted at its second miss in a row in its slot, else its names go to the
 * spare slot), and touchMissing touches exactly the ids no slot holds; raw gives any entity's
 * rawIdentifier and admits nothing.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { EntityTable } from "../../../src/engine/entities/entity-table.js";
import { NAME_CACHE_SLOTS, NameCache, SPARE_SLOT } from "../../../src/engine/entities/name-cache.js";
import { Rng } from "../../support/oracle.js";

function table(n: number): EntityTable {
  const entityIds = Array.from({ length: n }, (_, d) => `E${String(d).padStart(7, "0")}`);
  return EntityTable.from({
    entityIds,
    rawIdentifiers: entityIds.map((id, d) => (d % 3 === 0 ? "" : `name ${id} ${"é".repeat(d % 5)}`)),
    types: entityIds.map((_, d) => d % 8),
    sourceTypeIndex: entityIds.map(() => 0),
    sourceTypes: [""],
  });
}

test("a slot's strings are always its entity's, across collisions", () => {
  const n = 3 * NAME_CACHE_SLOTS + 17;
  const t = table(n);
  const cache = new NameCache(t);
  const rng = new Rng(21);
  for (let k = 0; k < 50000; k++) {
    // Half the time an id of the slot just used (a collision), else any id.
    const d = rng.chance(0.5) ? rng.int(n) : ((k * 7) % NAME_CACHE_SLOTS) + NAME_CACHE_SLOTS * rng.int(3);
    const slot = cache.slot(d);
    assert.is(cache.entityIds[slot], t.entityId(d), `id ${d}`);
    assert.is(cache.raws[slot], t.rawIdentifier(d), `id ${d}`);
  }
});

test("raw gives every entity's rawIdentifier, held or not, and admits nothing", () => {
  const n = 2 * NAME_CACHE_SLOTS + 5;
  const t = table(n);
  const cache = new NameCache(t);
  const rng = new Rng(23);
  for (let k = 0; k < 20000; k++) {
    const d = rng.int(n);
    // Each branch: a slot taken (twice in a row: admitted), then raw of any id, held or not.
    if (rng.chance(0.3)) {
      cache.slot(d);
      cache.slot(d);
    }
    const e = rng.int(n);
    const held = cache.entityIds[e % NAME_CACHE_SLOTS] === t.entityId(e);
    assert.is(cache.raw(e), t.rawIdentifier(e), `id ${e}`);
    // raw admits nothing: whether the slot holds e is as it was.
    assert.is(cache.entityIds[e % NAME_CACHE_SLOTS] === t.entityId(e), held, `id ${e} admitted`);
  }
});

test("touchMissing passes on exactly the ids no slot holds", () => {
  const n = 2 * NAME_CACHE_SLOTS;
  const t = table(n);
  const touched: number[][] = [];
  const spy = Object.create(t) as EntityTable;
  spy.touch = (ids: Uint32Array, count: number) => {
    touched.push([...ids.subarray(0, count)]);
  };
  const cache = new NameCache(spy);
  const rng = new Rng(22);
  // The oracle: slot -> id held, and slot -> the last id that missed there without being admitted.
  const held = new Map<number, number>();
  const seen = new Map<number, number>();
  for (let round = 0; round < 200; round++) {
    const ids = Uint32Array.from({ length: 1 + rng.int(300) }, () => rng.int(n));
    cache.touchMissing(ids, ids.length);
    const want = [...ids].filter((d) => held.get(d % NAME_CACHE_SLOTS) !== d);
    assert.equal(touched.pop(), want, `round ${round}`);
    for (const d of ids)
      if (rng.chance(0.5)) {
        const s = d % NAME_CACHE_SLOTS;
        const slot = cache.slot(d);
        if (held.get(s) === d) assert.is(slot, s);
        else if (seen.get(s) === d) {
          assert.is(slot, s, `id ${d}: its second miss in a row admits it`);
          held.set(s, d);
        } else {
          assert.is(slot, SPARE_SLOT, `id ${d}: its first miss is not admitted`);
          seen.set(s, d);
        }
      }
  }
});

test("an entity named once is never admitted; one named twice in a row in its slot is", () => {
  const t = table(2 * NAME_CACHE_SLOTS);
  const cache = new NameCache(t);
  // Ids 5 and 5 + SLOTS share slot 5.
  const a = 5;
  const b = 5 + NAME_CACHE_SLOTS;
  assert.is(cache.slot(a), SPARE_SLOT);
  assert.is(cache.slot(b), SPARE_SLOT);
  // a again, but b missed in between: still not admitted.
  assert.is(cache.slot(a), SPARE_SLOT);
  assert.is(cache.slot(a), 5);
  assert.is(cache.entityIds[5], t.entityId(a));
  // b's two misses in a row take the slot over.
  assert.is(cache.slot(b), SPARE_SLOT);
  assert.is(cache.slot(b), 5);
  assert.is(cache.raws[5], t.rawIdentifier(b));
  assert.is(cache.slot(b), 5);
});

test.run();

/**
 * Start groups tests
 * ==================
 * src/engine/live/start-groups.ts against brute force on seeded random puts and deletes of delta
 * entities: a first gram's group (startingWith, sizeOf) equals the entities there now that share
 * its first GRAM code units, in search order with their start keys; a change regroups only the
 * changed entity's group (the others' arrays are kept as they were).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { GRAM } from "../../../src/engine/live/gram-index.js";
import { compareEntities, type DeltaEntity } from "../../../src/engine/live/sorted-delta.js";
import { StartGroups, startKey } from "../../../src/engine/live/start-groups.js";
import { deltaEntity } from "../../support/delta-entities.js";
import { Rng } from "../../support/oracle.js";

function entity(folded: string, n: number): DeltaEntity {
  return deltaEntity(folded, `e${n}`);
}

test("startingWith and sizeOf equal the entities there now that share the query's first gram, in search order, as entities come and go", () => {
  const rng = new Rng(91);
  const groups = new StartGroups();
  const live: DeltaEntity[] = [];
  const pieces = ["ab", "abc", "b", "é", "😀", "x", "ab\u0000", ""];
  let n = 0;
  for (let round = 0; round < 800; round++) {
    // A batch: a few puts and deletes (a put again is a new object: the old one goes first).
    for (let k = rng.range(1, 5); k > 0; k--) {
      if (live.length > 0 && rng.chance(0.4)) {
        const x = live.splice(rng.int(live.length), 1)[0]!;
        groups.remove(x);
      } else {
        const x = entity(Array.from({ length: rng.range(0, 4) }, () => rng.pick(pieces)).join(""), n++);
        groups.add(x);
        live.push(x);
      }
    }
    for (let k = 0; k < 4; k++) {
      const fq = live.length > 0 && rng.chance(0.7) ? rng.pick(live).folded : rng.pick(pieces) + rng.pick(pieces);
      const start = fq.slice(0, GRAM);
      const want = live.filter((x) => x.folded.slice(0, GRAM) === start).sort(compareEntities);
      assert.is(groups.sizeOf(start), want.length, `round ${round} ${JSON.stringify(start)} size`);
      const got = groups.startingWith(fq);
      if (want.length === 0) {
        assert.is(got, undefined, `round ${round} ${JSON.stringify(start)}: no group`);
        continue;
      }
      assert.equal(
        got!.entities.map((x) => x.entityId),
        want.map((x) => x.entityId),
        `round ${round} ${JSON.stringify(start)} entities`,
      );
      assert.equal(
        [...got!.keys],
        want.map((x) => startKey(x.folded)),
        `round ${round} keys`,
      );
    }
  }
});

test("a change regroups only its entity's group: another group's sorted entities and keys are kept", () => {
  const groups = new StartGroups();
  for (let i = 0; i < 500; i++) groups.add(entity(`abc ${(i * 37) % 500}`, i));
  for (let i = 0; i < 500; i++) groups.add(entity(`xyz ${(i * 37) % 500}`, 1000 + i));
  const before = groups.startingWith("abc")!;
  const entities = before.entities;
  const keys = before.keys;
  groups.add(entity("xyz new", 5000));
  const other = groups.startingWith("xyz")!;
  assert.is(other.entities.length, 501);
  const after = groups.startingWith("abc")!;
  assert.is(after.entities, entities, "the same array");
  assert.is(after.keys, keys, "the same keys");
});

test.run();

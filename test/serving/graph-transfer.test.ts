/**
 * graph-transfer.ts: a graph's image restored on a thread that serves (imageGraphSliced) is the graph
 * imageGraph restores, a structure per turn of the event loop.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { imageGraph, imageGraphSliced, shareGraph } from "../../src/serving/graph-transfer.js";
import { buildGraph, generateGraph, Rng } from "../support/oracle.js";
import { countTurns } from "../support/event-loop-turns.js";

test("imageGraphSliced: the graph imageGraph gives, with a turn of the event loop between its structures", async () => {
  const data = generateGraph(new Rng(46), { entities: 300, statements: 1_200, edgeFingerprints: true });
  const built = buildGraph(data, "sliced");
  const image = shareGraph(() => built);
  const whole = imageGraph(image, { cursorSecret: "sliced" });
  const stopCounting = countTurns();
  const sliced = await imageGraphSliced(image, { cursorSecret: "sliced" });
  const turns = stopCounting();
  // One after each structure but the last (entities, dictionary, statements, search, scores).
  assert.ok(turns >= 5, `${turns} turns of the event loop during the restore`);
  assert.is(sliced.contentTag, whole.contentTag);
  assert.equal([...sliced.exportEntities()], [...whole.exportEntities()]);
  assert.equal([...sliced.exportStatements()], [...whole.exportStatements()]);
  for (const q of ["a", "b", "ab", "e"])
    for (const order of ["name", "score"] as const) {
      const page = whole.search({ q, order, limit: 7 });
      assert.equal(sliced.search({ q, order, limit: 7 }).items, page.items, `q=${q} order=${order}`);
      // A cursor of one opens on the other (one secret, one content).
      if (page.nextCursor !== null)
        assert.equal(
          sliced.search({ q, order, limit: 7, cursor: page.nextCursor }).items,
          whole.search({ q, order, limit: 7, cursor: page.nextCursor }).items,
          `q=${q} order=${order} page 2`,
        );
    }
  assert.equal(sliced.statements({ limit: 50 }).items, whole.statements({ limit: 50 }).items);
});

test.run();

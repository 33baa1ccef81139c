/**
 * loadGraphInWorker: the graph a worker thread builds (from JSON Lines) or opens (a snapshot) and
 * hands over is the graph loadGraphSource makes on the calling thread, string for string and page
 * for page (a seeded random graph with awkward Unicode and explicit fingerprints, over more than
 * one string slice); the calling thread gets a turn of its event loop between slices; a bad input
 * rejects with the loader's error, its code kept.
 */

import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isQuiverError } from "../../src/engine/errors.js";
import { Graph } from "../../src/engine/graph.js";
import { createHandler } from "../../src/http/node.js";
import { saveSnapshot } from "../../src/snapshot/file.js";
import { loadGraphSource } from "../../src/serving/graph-source.js";
import { STRING_SLICE_ITEMS } from "../../src/serving/graph-transfer.js";
import { loadGraphInWorker } from "../../src/serving/load-in-worker.js";
import { countTurns } from "../support/event-loop-turns.js";
import { generateGraph, Rng } from "../support/oracle.js";

const ENTITIES = STRING_SLICE_ITEMS + 5_000;

async function writeGraph(dir: string): Promise<{ entities: string; statements: string }> {
  const data = generateGraph(new Rng(11), { entities: ENTITIES, statements: 20_000, edgeFingerprints: true });
  const entities = join(dir, "e.jsonl");
  const statements = join(dir, "s.jsonl");
  await writeFile(entities, data.entities.map((e) => JSON.stringify(e)).join("\n") + "\n");
  await writeFile(statements, data.statements.map((s) => JSON.stringify(s)).join("\n") + "\n");
  return { entities, statements };
}

function assertSameGraph(actual: Graph, expected: Graph): void {
  assert.is(actual.entityCount, expected.entityCount);
  assert.is(actual.statementCount, expected.statementCount);
  assert.is(actual.stats().contentTag, expected.stats().contentTag);
  for (const q of ["a", "E", "ß", "x", "ab"]) {
    for (const type of [undefined, "0", "3"] as const) {
      const params = type === undefined ? { q, limit: 100 } : { q, type, limit: 100 };
      assert.equal(actual.search(params).items, expected.search(params).items, `q=${q} type=${type}`);
    }
  }
  assert.equal([...actual.exportStatements()], [...expected.exportStatements()]);
  assert.equal([...actual.exportEntities()], [...expected.exportEntities()]);
  // Every entity by its id, and one that is not there: the dictionary's table came over made.
  for (const e of expected.exportEntities()) assert.equal(actual.getEntity(e.entityId), e);
  assert.is(actual.getEntity("no such entity"), undefined);
  assert.equal(actual.statements({ subjectEntityId: "no such entity" }).items, []);
}

test("JSON Lines and a snapshot, loaded in a worker thread: the same graph as on this thread, with turns of the event loop between slices", async () => {
  const dir = await mkdtemp(join(tmpdir(), "quiver-worker-"));
  const source = await writeGraph(dir);
  const expected = await loadGraphSource(source);
  const stopCounting = countTurns();
  const viaWorker = await loadGraphInWorker(source, { cursorSecret: "s" });
  const turns = stopCounting();
  assertSameGraph(viaWorker, expected);
  // Two slices of entityIds, two of raw identifiers, one of source types, at least: each one waited for a turn.
  assert.ok(turns >= 5, `${turns} turns of the event loop during the load`);
  // The options reach the graph: a cursor sealed with "s" opens on a graph given the same secret.
  const page = viaWorker.search({ q: "a", limit: 1 });
  assert.ok(page.nextCursor !== null);
  assert.equal(
    expected.withCursorSecret("s").search({ q: "a", limit: 1, cursor: page.nextCursor }).items,
    expected.search({ q: "a", limit: 2 }).items.slice(1),
  );

  const snap = join(dir, "g.snap");
  await saveSnapshot(expected, snap);
  assertSameGraph(await loadGraphInWorker({ snapshot: snap }), expected);
});

test("swapping a handed-over graph into a handler runs no stats() on this thread (its content tag travels with it)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "quiver-worker-"));
  const source = await writeGraph(dir);
  const expected = await loadGraphSource(source);
  const handler = createHandler(expected, { apiKeys: ["sk_swap"], cursorSecret: "shared" });
  const next = await loadGraphInWorker(source);
  assert.is(next.contentTag, expected.stats().contentTag);
  const stats = Graph.prototype.stats;
  Graph.prototype.stats = () => {
    throw new Error("stats() ran on the serving thread during the swap");
  };
  try {
    handler.setGraph(next);
  } finally {
    Graph.prototype.stats = stats;
  }
  assert.is(handler.graph.entityCount, expected.entityCount);
});

test("a bad line or a damaged snapshot rejects with the loader's error and code", async () => {
  const dir = await mkdtemp(join(tmpdir(), "quiver-worker-"));
  const entities = join(dir, "e.jsonl");
  const statements = join(dir, "s.jsonl");
  await writeFile(entities, '{"entityId":"a","rawIdentifier":"A","type":"0","sourceType":"t"}\n{"entityId":"b"}\n');
  await writeFile(statements, "");
  try {
    await loadGraphInWorker({ entities, statements });
    assert.unreachable("a bad line must reject");
  } catch (e) {
    assert.ok(isQuiverError(e), String(e));
    assert.match((e as Error).message, new RegExp(`${entities.replace(/[.]/g, "\\.")}:2: `));
  }
  const snap = join(dir, "bad.snap");
  await writeFile(snap, "QUIVERSN but not a snapshot");
  try {
    await loadGraphInWorker({ snapshot: snap });
    assert.unreachable("a damaged snapshot must reject");
  } catch (e) {
    assert.ok(isQuiverError(e) && e.code === "INVALID_SNAPSHOT", String(e));
    assert.match((e as Error).message, /bad\.snap/);
  }
});

test.run();

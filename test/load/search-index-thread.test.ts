/**
 * Search index in a worker thread: tests
 * ======================================
 * src/load/search-index-thread.ts through loadGraph: a graph loaded with the index built beside
 * the statements' reading is the same graph as one built after them (content tag, bytes, every page
 * of a set of searches walked to the end); progress names the phases in their new order; a bad
 * statement line rejects as before and ends the thread; a sealed builder refuses more entities, and
 * statements added before and after the seal (insertion indexes, then dense ids) build the graph of a
 * builder never sealed, duplicates and conflicts across the seal included. The thread's build waits
 * (at its suffix array) for open() and then makes the one-thread build's index byte for byte, under
 * each fold; stop() ends it while it waits, or before its index arrives.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import type { Graph } from "../../src/engine/graph.js";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import { SearchIndex, sealEntities } from "../../src/engine/internal.js";
import { folder } from "../../src/engine/search/fold.js";
import { MemorySerialWriter } from "../../src/engine/serial.js";
import type { Entity, SearchParams } from "../../src/engine/types.js";
import { loadGraph, type LoadProgress } from "../../src/load/jsonl.js";
import { runningSearchIndexThreads, startSearchIndexThread } from "../../src/load/search-index-thread.js";
import { writeGraphJsonl } from "../../tools/generator.js";
import { Rng, TYPES } from "../support/oracle.js";
import { assertSameFields, snapshotBytes } from "../support/snapshot.js";

let root = "";
let files = { entities: "", statements: "" };

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-index-thread-"));
  files = await writeGraphJsonl(root, { entities: 3_000, statements: 20_000, seed: 11 });
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Byte equality without a diff of megabytes on failure. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** Every page of a search, walked through its cursors. */
function walk(g: Graph, params: SearchParams): Entity[] {
  const items: Entity[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = g.search({ ...params, limit: 7, ...(cursor === undefined ? {} : { cursor }) });
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    cursor = page.nextCursor;
  }
}

test("the graph is the same whether its search index was built in a worker thread or after the statements", async () => {
  const threaded = await loadGraph({ ...files, cursorSecret: "s", searchIndexThread: true });
  const inline = await loadGraph({ ...files, cursorSecret: "s", searchIndexThread: false });
  assert.is(threaded.stats().contentTag, inline.stats().contentTag);
  assert.equal(threaded.stats().bytes, inline.stats().bytes);
  // The score index (made in the thread beside the statement index) too: the same bytes.
  assert.ok(sameBytes(snapshotBytes(threaded), snapshotBytes(inline)), "the snapshots differ");
  const names = [...inline.exportEntities()].map((e) => e.rawIdentifier);
  const queries = ["a", "e", "ä", names[5]!.slice(0, 3), names[700]!.slice(1, 4), names[2000]!, "zzzzqq"];
  for (const q of queries) {
    for (const type of [undefined, "1", "7"] as const) {
      const params = type === undefined ? { q } : { q, type };
      assert.equal(walk(threaded, params), walk(inline, params), `${q}/${type}`);
      const byScore = { ...params, order: "score" as const };
      assert.equal(walk(threaded, byScore), walk(inline, byScore), `${q}/${type} by score`);
    }
  }
  // Cursors of one are good on the other: the same content, so the same positions.
  const first = threaded.search({ q: "a", limit: 3 });
  assert.equal(
    inline.search({ q: "a", limit: 3, cursor: first.nextCursor! }),
    threaded.search({ q: "a", limit: 3, cursor: first.nextCursor! }),
  );
});

test("accent folding and scores: the same graph from a worker thread as after the statements", async () => {
  const entities = join(root, "fold-entities.jsonl");
  const statements = join(root, "fold-statements.jsonl");
  await writeFile(
    entities,
    [
      '{"entityId":"d","rawIdentifier":"Dürer","type":"0","sourceType":"x","score":7}',
      '{"entityId":"z","rawIdentifier":"Zürich","type":"1","sourceType":"x"}',
      '{"entityId":"m","rawIdentifier":"Malmö","type":"0","sourceType":"x","score":4294967295}',
    ].join("\n"),
  );
  await writeFile(statements, '{"subjectEntityId":"z","predicateEntityId":"d","objectEntityId":"m"}\n');
  const snapshots: Uint8Array[] = [];
  for (const searchIndexThread of [true, false]) {
    const g = await loadGraph({ entities, statements, fold: "accents", searchIndexThread });
    snapshots.push(snapshotBytes(g));
    assert.is(g.fold, "accents");
    for (const [q, id] of [
      ["durer", "d"],
      ["zurich", "z"],
      ["malmo", "m"],
    ] as const)
      assert.equal(
        g.search({ q }).items.map((e) => e.entityId),
        [id],
      );
    assert.equal(
      g.search({ q: "r", order: "score" }).items.map((e) => e.entityId),
      ["d", "z"],
    );
  }
  // Given scores (one of them the largest) reach the thread's score index as they are.
  assert.ok(sameBytes(snapshots[0]!, snapshots[1]!), "the snapshots differ");
  await writeFile(entities, '{"entityId":"d","rawIdentifier":"Dürer","type":"0","sourceType":"x","score":-1}\n');
  const error = await loadGraph({ entities, statements }).then(
    () => null,
    (e: Error) => e,
  );
  assert.match(
    error?.message ?? "",
    /fold-entities\.jsonl:1: field "score" must be a whole number from 0 to 4294967295, got -1/,
  );
});

test("progress: entities, sort-entities, statements, then the rest of the search index and the other phases", async () => {
  const reports: LoadProgress[] = [];
  await loadGraph({ ...files, searchIndexThread: true, onProgress: (p) => reports.push(p) });
  const finished = reports.filter((p) => p.finished).map((p) => p.phase);
  assert.equal(finished, [
    "entities",
    "sort-entities",
    "statements",
    "search-index",
    "statement-index",
    "score-index",
    "content-tag",
  ]);
});

test("a bad statement line rejects naming its line, and the thread is ended at once", async () => {
  // Entities enough that the index takes a second or more to build: a thread left running would still be alive.
  const big = await writeGraphJsonl(join(root, "big"), { entities: 150_000, statements: 10, seed: 12 });
  const statements = join(root, "bad-statements.jsonl");
  await writeFile(statements, '{"subjectEntityId":"nobody","predicateEntityId":"p","objectEntityId":"o"}\n');
  const error = await loadGraph({ entities: big.entities, statements, searchIndexThread: true }).then(
    () => null,
    (e: Error) => e,
  );
  assert.match(error?.message ?? "", /bad-statements\.jsonl:1: subjectEntityId "nobody" names no entity/);
  const until = performance.now() + 500;
  while (runningSearchIndexThreads() > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.is(runningSearchIndexThreads(), 0);
});

test("stop() ends a thread before its index arrives", async () => {
  const names = Array.from({ length: 200_000 }, (_, i) => `entity number ${i} of many`);
  const thread = startSearchIndexThread({ rawIdentifiers: names, types: new Uint8Array(names.length), fold: "case" });
  assert.is(runningSearchIndexThreads(), 1);
  thread.stop();
  const until = performance.now() + 500;
  while (runningSearchIndexThreads() > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.is(runningSearchIndexThreads(), 0);
});

test("a thread opened at once makes the index a one-thread build makes, byte for byte, under each fold", async () => {
  const rng = new Rng(47);
  const names = Array.from({ length: 20_000 }, (_, i) =>
    rng.chance(0.1) ? `Name ${i % 50}` : `${rng.pick(["alpha", "Beta", "gämma", "delta"])} ${i} ${rng.int(1e6)}`,
  );
  const types = Uint8Array.from(names, () => rng.int(8));
  for (const fold of ["case", "accents"] as const) {
    const expected = new MemorySerialWriter();
    SearchIndex.build(names.map(folder(fold)), types).serialize(expected);
    const thread = startSearchIndexThread({ rawIdentifiers: names.slice(), types: types.slice(), fold });
    thread.open();
    const got = new MemorySerialWriter();
    (await thread.index).serialize(got);
    assertSameFields(got.fields, expected.fields, fold);
    thread.stop();
  }
});

test("a build waits at its suffix array until open(), then makes the one-thread build's index; stop() ends it while it waits", async () => {
  const rng = new Rng(53);
  const names = Array.from(
    { length: 20_000 },
    (_, i) => `${rng.pick(["alpha", "Beta", "gämma"])} ${i} ${rng.int(1e6)}`,
  );
  const types = Uint8Array.from(names, () => rng.int(8));
  const expected = new MemorySerialWriter();
  SearchIndex.build(names.map(folder("case")), types).serialize(expected);
  const gated = startSearchIndexThread({ rawIdentifiers: names.slice(), types: types.slice(), fold: "case" });
  let settled = false;
  void gated.index.then(() => (settled = true));
  // A one-thread build of 20,000 names takes tens of milliseconds: this one cannot end before open().
  await new Promise((r) => setTimeout(r, 500));
  assert.not.ok(settled);
  gated.open();
  const got = new MemorySerialWriter();
  (await gated.index).serialize(got);
  assertSameFields(got.fields, expected.fields);
  gated.stop();
  // A build left waiting (never opened) is ended by stop(), as any other.
  const waiting = startSearchIndexThread({ rawIdentifiers: names.slice(), types: types.slice(), fold: "case" });
  await new Promise((r) => setTimeout(r, 300));
  waiting.stop();
  const until = performance.now() + 2_000;
  while (runningSearchIndexThreads() > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.is(runningSearchIndexThreads(), 0);
});

test("a sealed builder refuses another entity", () => {
  const builder = new GraphBuilder();
  builder.addEntity({ entityId: "a", rawIdentifier: "a", type: "0", sourceType: "t" });
  sealEntities(builder);
  assert.throws(
    () => builder.addEntity({ entityId: "b", rawIdentifier: "b", type: "0", sourceType: "t" }),
    /entities were sealed/,
  );
  // Statements still go in, and build() uses the sorted entities.
  builder.addStatement({ subjectEntityId: "a", predicateEntityId: "a", objectEntityId: "a" });
  assert.is(builder.build().search({ q: "a" }).items.length, 1);
});

test("statements added before and after sealing build the graph of a builder never sealed", () => {
  const rng = new Rng(31);
  // Entities in an order unlike entityId order, so that insertion indexes and dense ids differ.
  const ids = Array.from({ length: 300 }, (_, i) => `e${(i * 7919) % 1000}`);
  const statements = Array.from({ length: 4_000 }, () => ({
    subjectEntityId: rng.pick(ids),
    predicateEntityId: rng.pick(ids.slice(0, 12)),
    objectEntityId: rng.pick(ids),
    ...(rng.chance(0.3)
      ? {
          statementFingerprint: rng
            .int(2 ** 32)
            .toString(16)
            .padStart(16, "0"),
        }
      : {}),
  }));
  // Exact copies of earlier statements, so duplicates meet across the seal.
  for (let k = 0; k < 400; k++) statements.push({ ...statements[rng.int(2_000)]! });
  const fill = (builder: GraphBuilder, sealAt: number): GraphBuilder => {
    for (const [i, entityId] of ids.entries()) {
      builder.addEntity({ entityId, rawIdentifier: `name ${entityId}`, type: TYPES[i % 8]!, sourceType: "t" });
    }
    for (const [i, statement] of statements.entries()) {
      if (i === sealAt) sealEntities(builder);
      builder.addStatement(statement, { file: "s", line: i + 1 });
    }
    return builder;
  };
  const plain = fill(new GraphBuilder({ cursorSecret: "s" }), -1).build();
  for (const sealAt of [0, 1_700, statements.length]) {
    const sealed = fill(new GraphBuilder({ cursorSecret: "s" }), sealAt).build();
    assert.is(sealed.stats().contentTag, plain.stats().contentTag, `sealed at ${sealAt}`);
    assert.ok(sameBytes(snapshotBytes(sealed), snapshotBytes(plain)), `sealed at ${sealAt}: the snapshots differ`);
  }
  // A conflict after the seal names the line before it that used the fingerprint first.
  const builder = fill(new GraphBuilder(), 1_700);
  const first = statements.findIndex((st) => st.statementFingerprint !== undefined);
  const other = {
    ...statements[first]!,
    objectEntityId: statements[first]!.objectEntityId === ids[0] ? ids[1]! : ids[0]!,
  };
  assert.throws(
    () => builder.addStatement(other, { file: "s", line: 9_999 }),
    new RegExp(`already used by a different statement at s:${first + 1}`),
  );
});

test.run();

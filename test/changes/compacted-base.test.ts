/**
 * A compacted base with its change log
 * ====================================
 * A graph compacted from a base and a change log holds its sequence (snapshot format 5): opened
 * again with the same log, as its writer (openLive) or a follower (LiveFollower), it applies only
 * the batches after that sequence, and names its content as the live graph over the first base
 * does (the same pages; cursors of one followable on the other; the tag names the compacted base
 * too, since a cursor's bytes may differ between bases). A follower swaps a
 * compaction in as its base (rebase) without losing a batch or a cursor's place. A background
 * compaction that saves its graph (compactInWorker with saveTo) writes that snapshot, and the next
 * compaction starts from it. A base opened with its head shared (openSnapshotShared) is opened by
 * the worker from that memory; a file changed since is refused.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { batchFileName } from "../../src/changes/change-log.js";
import { LiveFollower, openLive } from "../../src/changes/live-store.js";
import { graphParts } from "../../src/engine/graph.js";
import { MemorySerialWriter } from "../../src/engine/serial.js";
import { type Graph, openSharedSnapshot, openSnapshot, openSnapshotShared, saveSnapshot } from "../../src/index.js";

import { writeGraph } from "../../src/snapshot/graph-manifest.js";
import { BatchStream } from "../support/live-oracle.js";
import { buildGraph } from "../support/oracle.js";

const SECRET = "compacted-base-secret";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "quiver-compacted-"));
}

/**
 * Every page of a search and of the statements, walked with cursors: the items and totals a client
 * sees. A cursor's bytes are left out: one may carry a position hint in the base that issued it
 * (docs/changes.md), and two bases of one content differ there.
 */
function walk(graph: { search: Graph["search"]; statements: Graph["statements"] }): unknown[] {
  const out: unknown[] = [];
  for (const q of ["a", "e", "ab"]) {
    let cursor: string | undefined;
    do {
      const page = graph.search({ q, limit: 4, cursor, count: true });
      out.push([page.items, page.total, page.nextCursor === null]);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
  let cursor: string | undefined;
  do {
    const page = graph.statements({ limit: 25, cursor, count: true });
    out.push([page.items, page.total, page.nextCursor === null]);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return out;
}

/** Every page of a few walks as JSON text, cursors and all: the bytes an ETag stands for. */
function pages(graph: { search: Graph["search"]; statements: Graph["statements"] }): string[] {
  const out: string[] = [];
  for (const q of ["a", "e", "ab"]) {
    let cursor: string | undefined;
    do {
      const page = graph.search({ q, limit: 4, cursor });
      out.push(JSON.stringify(page));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
  return out;
}

test("a compacted snapshot holds its sequence: with the same log, the writer and a follower apply only the batches after it; the pages agree, the tag names the base", async () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(31);
    const base = buildGraph(stream.data);
    const store = openLive(base, dir, { cursorSecret: SECRET });
    for (let i = 0; i < 6; i++) store.apply(stream.next());
    const file = join(dir, "..", `${dir.split("/").at(-1)}.snap`);
    await saveSnapshot(store.graph.buildCompacted(), file);
    for (let i = 0; i < 2; i++) store.apply(stream.next());
    store.close();
    const compacted = await openSnapshot(file);
    assert.is(compacted.sequence, 6);

    // A follower on the compacted snapshot: batches 7 and 8 only (batches 1-6 again would not apply).
    const follower = new LiveFollower(compacted, dir, { cursorSecret: SECRET });
    assert.is(follower.graph.baseSequence, 6);
    assert.is(follower.graph.sequence, 8);
    const fromBase = new LiveFollower(base, dir, { cursorSecret: SECRET });
    // The same answers; the tag names the span, the batches since its base (7 and 8, batch-chain.ts)
    // and the compacted base too (a cursor's bytes may differ); a second follower of it, the same tag.
    const span = fromBase.graph.contentTag.split("#")[0]!;
    assert.ok(follower.graph.contentTag.startsWith(`${span}#`), follower.graph.contentTag);
    assert.ok(follower.graph.contentTag.endsWith(`@${compacted.contentTag}`), follower.graph.contentTag);
    assert.is.not(follower.graph.contentTag, fromBase.graph.contentTag);
    assert.is(new LiveFollower(compacted, dir, { cursorSecret: SECRET }).graph.contentTag, follower.graph.contentTag);
    assert.equal(walk(follower.graph), walk(fromBase.graph));
    assert.is(follower.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag);

    // The writer restarted on it: replays 7 and 8, then numbers the next batch 9.
    const again = openLive(compacted, dir, { cursorSecret: SECRET });
    assert.is(again.sequence, 8);
    assert.is(again.apply(stream.next()).sequence, 9);
    assert.is(fromBase.catchUp(), 1);
    assert.is(follower.catchUp(), 1);
    assert.equal(walk(follower.graph), walk(fromBase.graph));
    again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.snap`, { force: true });
  }
});

test("a follower rebases onto a compaction: the delta shrinks to the later batches; content and a walk's cursor carry on; one tag, one set of bytes", async () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(32);
    const base = buildGraph(stream.data);
    const store = openLive(base, dir, { cursorSecret: SECRET });
    const follower = new LiveFollower(base, dir, { cursorSecret: SECRET });
    for (let i = 0; i < 5; i++) store.apply(stream.next());
    follower.catchUp();
    const page1 = follower.graph.statements({ limit: 20 });
    const tag = follower.graph.contentTag;
    const compacted = store.graph.buildCompacted();
    // Two more batches land before the follower hears of the compaction: it catches them up too.
    for (let i = 0; i < 2; i++) store.apply(stream.next());
    const before = walk(store.graph);
    follower.rebase(compacted);
    assert.is(follower.graph.baseSequence, 5);
    assert.is(follower.graph.sequence, 7);
    assert.equal(walk(follower.graph), before);
    const d = follower.graph.deltaSize;
    const writerDelta = store.graph.deltaSize;
    assert.ok(
      d.entities + d.statements + d.hiddenEntities + d.hiddenStatements <
        writerDelta.entities + writerDelta.statements + writerDelta.hiddenEntities + writerDelta.hiddenStatements,
      "the rebased delta holds only batches 6 and 7",
    );
    assert.not.equal(follower.graph.contentTag, tag);
    // One tag, one set of bytes (cursors included): a follower on the same compaction and log gives
    // the rebased one's tag and bytes; the writer, on the first base, a tag of its own.
    const twin = new LiveFollower(compacted, dir, { cursorSecret: SECRET });
    assert.is(twin.graph.contentTag, follower.graph.contentTag);
    assert.equal(pages(twin.graph), pages(follower.graph));
    assert.is.not(store.graph.contentTag, follower.graph.contentTag);
    // The cursor of a page issued before the rebase still places the walk.
    assert.ok(page1.nextCursor !== null);
    assert.equal(
      follower.graph.statements({ limit: 20, cursor: page1.nextCursor }).items,
      store.graph.statements({ limit: 20, cursor: page1.nextCursor }).items,
    );
    // A compaction ahead of the log is refused, the follower as it was.
    store.apply(stream.next());
    const ahead = store.graph.buildCompacted();
    const other = new LiveFollower(base, dir, { cursorSecret: SECRET });
    rmSync(join(dir, "0000000000000008.batch"));
    const behind = new LiveFollower(base, dir, { cursorSecret: SECRET });
    assert.throws(() => behind.rebase(ahead), /ahead of the log/);
    assert.is(behind.graph.sequence, 7);
    assert.is(other.graph.sequence, 8);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("compactInWorker with saveTo writes the compacted snapshot (its sequence in it), and the next compaction starts from it", async () => {
  const dir = tempDir();
  const saved = `${dir}-1.snap`;
  const saved2 = `${dir}-2.snap`;
  try {
    const stream = new BatchStream(33);
    const baseFile = `${dir}-base.snap`;
    await saveSnapshot(buildGraph(stream.data), baseFile);
    const base = await openSnapshot(baseFile);
    const store = openLive(base, dir, { cursorSecret: SECRET, source: { snapshot: baseFile } });
    for (let i = 0; i < 4; i++) store.apply(stream.next());
    const tag = store.graph.contentTag;
    const graph = await store.compactInWorker({ saveTo: saved });
    assert.is(graph.sequence, 4);
    assert.is(store.graph.baseSequence, 4);
    // The base holds every batch now: the span and the compacted base name the content (no chain).
    assert.is(
      store.graph.contentTag,
      `${tag.split("#")[0]}@${graph.contentTag}`,
      "the tag names the compacted base too",
    );
    assert.is((await openSnapshot(saved)).sequence, 4);
    for (let i = 0; i < 3; i++) store.apply(stream.next());
    // The base file gone: the second compaction loads the first one's snapshot, replays 5 to 7.
    rmSync(baseFile);
    const second = await store.compactInWorker({ saveTo: saved2 });
    assert.is(second.sequence, 7);
    assert.is(second.contentTag, buildGraph(stream.oracle.data()).contentTag);
    assert.ok(existsSync(saved2));
    store.close();
  } finally {
    for (const f of [dir, saved, saved2, `${dir}-base.snap`]) rmSync(f, { recursive: true, force: true });
  }
});

test("compactInWorker hands the new base's fingerprint map and counts over: the batches after the swap (deletes of its statements by fingerprint) and order=score reads equal a graph built from scratch", async () => {
  const dir = tempDir();
  const baseFile = `${dir}-base.snap`;
  try {
    const stream = new BatchStream(34);
    await saveSnapshot(buildGraph(stream.data), baseFile);
    const store = openLive(await openSnapshot(baseFile), dir, {
      cursorSecret: SECRET,
      source: { snapshot: baseFile },
    });
    for (let i = 0; i < 4; i++) store.apply(stream.next());
    await store.compactInWorker();
    // Every batch from here names the compacted base's statements by fingerprint (the map handed
    // over) and moves its entities' counts (the counts handed over): a wrong one refuses a batch
    // that applies, or leaves a deleted statement in.
    let deleted = 0;
    for (let i = 0; i < 12; i++) deleted += store.apply(stream.next()).statements.deleted;
    assert.ok(deleted > 0, "the batches deleted statements of the compacted base");
    const fresh = buildGraph(stream.oracle.data());
    assert.equal(walk(store.graph), walk(fresh));
    for (const q of ["a", "e", "o"])
      assert.equal(
        store.graph.search({ q, order: "score", limit: 50 }).items,
        fresh.search({ q, order: "score", limit: 50 }).items,
        q,
      );
    store.close();
  } finally {
    for (const f of [dir, baseFile]) rmSync(f, { recursive: true, force: true });
  }
});

test("compactInWorker from a shared head (openSnapshotShared): the worker opens the base from the serving thread's memory, the compaction equals a graph built from scratch, and a second compaction after the swap reads its file", async () => {
  const dir = tempDir();
  const baseFile = `${dir}-base.snap`;
  const saved = `${dir}-1.snap`;
  try {
    const stream = new BatchStream(35);
    await saveSnapshot(buildGraph(stream.data), baseFile);
    const { graph: base, shared } = await openSnapshotShared(baseFile);
    assert.ok(shared.head instanceof SharedArrayBuffer);
    const store = openLive(base, dir, { cursorSecret: SECRET, source: { snapshot: baseFile, shared } });
    for (let i = 0; i < 4; i++) store.apply(stream.next());
    const graph = await store.compactInWorker({ saveTo: saved });
    assert.is(graph.contentTag, buildGraph(stream.oracle.data()).contentTag);
    assert.equal(walk(store.graph), walk(buildGraph(stream.oracle.data())));
    // The serving thread's base is untouched by the worker's open of the same memory.
    assert.equal(walk(base), walk(await openSnapshot(baseFile)));
    for (let i = 0; i < 3; i++) store.apply(stream.next());
    const second = await store.compactInWorker();
    assert.is(second.contentTag, buildGraph(stream.oracle.data()).contentTag);
    store.close();
  } finally {
    for (const f of [dir, baseFile, saved]) rmSync(f, { recursive: true, force: true });
  }
});

test("a compaction's result, in shared memory, is the next compaction's source: the second replays only the batches after the first (the ones before are gone from the log), and after two the store serves what a graph built from scratch does", async () => {
  const dir = tempDir();
  const baseFile = `${dir}-base.snap`;
  try {
    const stream = new BatchStream(37);
    await saveSnapshot(buildGraph(stream.data), baseFile);
    const { graph: base, shared } = await openSnapshotShared(baseFile);
    const store = openLive(base, dir, { cursorSecret: SECRET, source: { snapshot: baseFile, shared } });
    for (let i = 0; i < 4; i++) store.apply(stream.next());
    const first = await store.compactInWorker();
    assert.is(first.sequence, 4);
    // Every array of the swapped-in base is in shared memory: the image the next worker opens.
    const parts = graphParts(store.graph.base);
    for (const array of [parts.entities.records, parts.statementIndex.predicates, parts.dictionary.slots])
      assert.ok(array.buffer instanceof SharedArrayBuffer, "the new base's arrays are shared");
    // Built in the worker's slab (engine/array-slab.ts), not copied one by one: every array of the
    // new base is a view of one chunk of shared memory (a small graph fits one). The text stores'
    // code units are made by the serialization here (the graph holds its text as strings).
    const writer = new MemorySerialWriter();
    writeGraph(store.graph.base, writer);
    const buffers = new Set<ArrayBufferLike>([parts.dictionary.slots.buffer]);
    for (const [name, value] of writer.fields)
      if (ArrayBuffer.isView(value) && !/\.(narrow|wide)$/.test(name)) buffers.add(value.buffer);
    assert.is(buffers.size, 1, "one shared chunk holds the new base's arrays");
    assert.ok([...buffers][0] instanceof SharedArrayBuffer);
    for (let i = 0; i < 3; i++) store.apply(stream.next());
    // Batches 1 to 4 gone (and the base file): a compaction that replayed from the opened snapshot
    // would find the log starting at batch 5; one from the first compaction's result needs 5 to 7 only.
    for (let s = 1; s <= 4; s++) rmSync(join(dir, batchFileName(s)));
    rmSync(baseFile);
    const second = await store.compactInWorker();
    assert.is(second.sequence, 7);
    for (let i = 0; i < 2; i++) store.apply(stream.next());
    const third = await store.compactInWorker();
    assert.is(third.sequence, 9);
    const fresh = buildGraph(stream.oracle.data());
    assert.is(third.contentTag, fresh.contentTag);
    assert.equal(walk(store.graph), walk(fresh));
    assert.equal(walk(store.graph.base), walk(fresh));
    for (const q of ["a", "e", "o"])
      assert.equal(
        store.graph.search({ q, order: "score", limit: 50 }).items,
        fresh.search({ q, order: "score", limit: 50 }).items,
        q,
      );
    // A batch after the last swap applies over the shared base (its fingerprints and counts).
    store.apply(stream.next());
    assert.equal(walk(store.graph), walk(buildGraph(stream.oracle.data())));
    store.close();
  } finally {
    for (const f of [dir, baseFile]) rmSync(f, { recursive: true, force: true });
  }
});

/** Fails unless `run` rejects with a QuiverError INVALID_SNAPSHOT whose message matches `pattern`. */
async function assertRejects(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  const outcome = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(outcome instanceof Error, "it rejects");
  assert.is((outcome as { code?: unknown }).code, "INVALID_SNAPSHOT");
  assert.match((outcome as Error).message, pattern);
}

test("openSharedSnapshot refuses a file changed since the head was opened (INVALID_SNAPSHOT), and a compaction from it rejects with the live graph as it was", async () => {
  const dir = tempDir();
  const baseFile = `${dir}-base.snap`;
  try {
    const stream = new BatchStream(36);
    await saveSnapshot(buildGraph(stream.data), baseFile);
    const { graph: base, shared } = await openSnapshotShared(baseFile);
    // Same size, other bytes in the tail: the checksum continued from the head's tells.
    const bytes = readFileSync(baseFile);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    writeFileSync(baseFile, bytes);
    await assertRejects(() => openSharedSnapshot(shared), /changed since it was opened/);
    writeFileSync(baseFile, bytes.subarray(0, bytes.length - 8));
    await assertRejects(() => openSharedSnapshot(shared), /changed since it was opened/);
    const store = openLive(base, dir, { cursorSecret: SECRET, source: { snapshot: baseFile, shared } });
    store.apply(stream.next());
    const tag = store.graph.contentTag;
    await assertRejects(() => store.compactInWorker(), /changed since it was opened/);
    assert.is(store.graph.contentTag, tag);
    store.close();
  } finally {
    for (const f of [dir, baseFile]) rmSync(f, { recursive: true, force: true });
  }
});

test.run();

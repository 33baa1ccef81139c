/**
 * Change log tests
 * ================
 * The log's file format and rules (change-log.ts) and the live store over it (live-store.ts): batches
 * numbered in order and read back, reopening applies them, one writer (a second refuses naming the
 * holder's pid; a dead holder's lock is taken over), a torn last file ignored whole and set aside, a
 * damaged earlier file refused, temporary files of crashed writes removed, and bad batches (a bad
 * line, a conflict, a failing disk) leave the graph and the log exactly as before. encodeBatch (one
 * buffer, the header written in front of the hashed body) against the format made plainly, on
 * seeded random texts.
 */

import { fsync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import {
  batchFileName,
  ChangeLogWriter,
  changeLogInfo,
  decodeBatch,
  encodeBatch,
  LOCK_FILE,
  readChangeLog,
} from "../../src/changes/change-log.js";
import { LiveFollower, openLive } from "../../src/changes/live-store.js";
import { type Change, isQuiverError, saveSnapshot } from "../../src/index.js";
import { BatchStream } from "../support/live-oracle.js";
import { buildGraph, compareKeys, Rng, statementKey } from "../support/oracle.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "quiver-changes-"));
}

/** Every file of `dir` with its bytes (the log "exactly as before"). */
function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name)).toString("base64");
  return out;
}

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isQuiverError(e)) return e.code;
    throw e;
  }
  return "ok";
}

test("batches are numbered, durable files read back in order; reopening applies them", () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(5);
    const base = buildGraph(stream.data);
    const store = openLive(base, dir);
    const batches = Array.from({ length: 6 }, () => stream.next());
    for (let i = 0; i < batches.length; i++) assert.is(store.apply(batches[i]!).sequence, i + 1);
    assert.equal(
      readdirSync(dir).sort(),
      [LOCK_FILE, ...Array.from({ length: 6 }, (_, i) => batchFileName(i + 1))].sort(),
    );
    assert.equal(
      [...readChangeLog(dir, 2)].map((b) => b.sequence),
      [3, 4, 5, 6],
    );
    const info = changeLogInfo(dir);
    assert.equal([info.first, info.last, info.batches, info.lockedBy], [1, 6, 6, process.pid]);
    const tag = store.graph.buildCompacted().contentTag;
    assert.is(tag, buildGraph(stream.oracle.data()).contentTag);
    /** The writer's live tag: batches given as objects, named by the text its log holds of them. */
    const liveTag = store.graph.contentTag;
    store.close();
    assert.not.ok(readdirSync(dir).includes(LOCK_FILE));
    // Reopened on the same base: the six batches again, the same content; warming the write path
    // (a server's writer does) writes nothing to the log and changes nothing.
    const files = snapshotDir(dir);
    const again = openLive(base, dir, { warmWrites: true });
    assert.is(again.sequence, 6);
    assert.is(again.graph.buildCompacted().contentTag, tag);
    // The same log read again: the same live tag (its ETags), as a restarted server's.
    assert.is(again.graph.contentTag, liveTag);
    assert.equal(snapshotDir(dir), { ...files, [LOCK_FILE]: snapshotDir(dir)[LOCK_FILE]! });
    // A follower reads the same log without the lock, and catches up with what appears later: the
    // same content, the same pages and cursors (one cursor secret) as the writer's.
    const follower = new LiveFollower(base, dir, { cursorSecret: "replicas" });
    assert.is(follower.graph.sequence, 6);
    again.apply(stream.next());
    assert.is(follower.catchUp(), 1);
    assert.is(follower.catchUp(), 0);
    // A follower of the log and its writer, at one sequence: one live tag (one ETag a query).
    assert.is(follower.graph.contentTag, again.graph.contentTag);
    assert.is(follower.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag);
    const writer = new LiveFollower(base, dir, { cursorSecret: "replicas" });
    for (const q of ["a", "e", "ab", "É"]) {
      let cursor: string | undefined;
      do {
        const page = follower.graph.search({ q, limit: 3, cursor, count: true });
        assert.equal(writer.graph.search({ q, limit: 3, cursor, count: true }), page);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
    }
    assert.equal(writer.graph.statements({ limit: 200 }), follower.graph.statements({ limit: 200 }));
    again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("one writer: a second refuses naming the holder's pid; a dead holder's lock is taken over", () => {
  const dir = tempDir();
  try {
    const first = ChangeLogWriter.open(dir);
    try {
      ChangeLogWriter.open(dir);
      assert.unreachable("a second writer opened the log");
    } catch (e) {
      if (!isQuiverError(e)) throw e;
      assert.is(e.code, "CHANGE_LOG_LOCKED");
      assert.ok(e.message.includes(`process ${process.pid}`), e.message);
    }
    first.close();
    // A lock whose process is gone (pid 2^22 + 1 is above Linux's default pid_max... or dead).
    writeFileSync(join(dir, LOCK_FILE), "4194305\n");
    const taker = ChangeLogWriter.open(dir);
    assert.is(readFileSync(join(dir, LOCK_FILE), "utf8"), `${process.pid}\n`);
    taker.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A batch file made as the format says, plainly: the header's JSON, a newline, the text's UTF-8. */
function plainBatchFile(sequence: number, text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  const sha256 = createHash("sha256").update(body).digest("hex");
  const header = JSON.stringify({ quiverChanges: 1, sequence, bytes: body.length, sha256 });
  return Buffer.concat([Buffer.from(`${header}\n`, "utf8"), body]);
}

test("oracle: encodeBatch gives the format's bytes made plainly (seeded texts: empty, ASCII, accents, astral, lone surrogates), and decodeBatch reads them back", () => {
  const units = ["a", "{", '"', "\n", "é", "中", "😀", "\uD83D", "\uDE00", "\u0000", "\uFFFF"];
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed);
    const length = rng.chance(0.1) ? 0 : rng.chance(0.1) ? rng.range(5000, 20000) : rng.int(200);
    let text = "";
    for (let i = 0; i < length; i++) text += rng.pick(units);
    const sequence = rng.chance(0.5) ? 1 + rng.int(9) : 1 + rng.int(2 ** 40);
    const got = encodeBatch(sequence, text);
    const want = plainBatchFile(sequence, text);
    if (!got.equals(want)) assert.unreachable(`seed ${seed}: encodeBatch(${sequence}, ${length} units) differs`);
    // A text with a lone surrogate is stored as UTF-8 stores it (U+FFFD): read back, that text.
    assert.equal(decodeBatch(sequence, got), { text: Buffer.from(text, "utf8").toString("utf8") }, `seed ${seed}`);
  }
});

test("a torn last file is ignored whole and set aside; damage before the last is refused; temp files go", () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(6);
    const base = buildGraph(stream.data);
    const store = openLive(base, dir);
    for (let i = 0; i < 3; i++) store.apply(stream.next());
    const tag = store.graph.buildCompacted().contentTag;
    store.close();
    // Batch 4, cut short as a crash mid-copy leaves it, and a temporary file of a write in flight.
    const whole = encodeBatch(4, JSON.stringify({ op: "delete", statementFingerprint: "x" }));
    for (const cut of [0, 10, whole.length - 1]) {
      writeFileSync(join(dir, batchFileName(4)), whole.subarray(0, cut));
      writeFileSync(join(dir, `.${batchFileName(5)}.999.tmp`), "partial");
      assert.equal(
        [...readChangeLog(dir)].map((b) => b.sequence),
        [1, 2, 3],
      );
      assert.is(changeLogInfo(dir).torn, batchFileName(4));
      const reopened = openLive(base, dir);
      assert.is(reopened.sequence, 3);
      assert.is(reopened.graph.buildCompacted().contentTag, tag);
      assert.ok(readdirSync(dir).includes(`${batchFileName(4)}.torn`));
      assert.not.ok(readdirSync(dir).some((n) => n.endsWith(".tmp")));
      reopened.close();
      rmSync(join(dir, `${batchFileName(4)}.torn`));
    }
    // A damaged file before the last is not a torn write: the log is refused.
    const second = join(dir, batchFileName(2));
    const good = readFileSync(second);
    const bad = Buffer.from(good);
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    writeFileSync(second, bad);
    assert.is(
      codeOf(() => [...readChangeLog(dir)]),
      "INVALID_CHANGE_LOG",
    );
    assert.is(
      codeOf(() => openLive(base, dir)),
      "INVALID_CHANGE_LOG",
    );
    writeFileSync(second, good);
    // A gap is refused too.
    rmSync(second);
    assert.is(
      codeOf(() => openLive(base, dir)),
      "INVALID_CHANGE_LOG",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bad batches leave the graph and the log exactly as before", () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(7);
    const store = openLive(buildGraph(stream.data), dir);
    store.apply(stream.next());
    const files = snapshotDir(dir);
    const tag = store.graph.buildCompacted().contentTag;
    const someEntity = stream.oracle.data().entities[0]!.entityId;
    assert.is(
      codeOf(() =>
        store.apply('{"op":"put","entity":{"entityId":"n","rawIdentifier":"","type":"0","sourceType":""}}\nnot json'),
      ),
      "INVALID_CHANGE",
    );
    assert.is(
      codeOf(() =>
        store.apply([
          {
            op: "put",
            statement: { subjectEntityId: someEntity, predicateEntityId: someEntity, objectEntityId: "none" },
          },
        ]),
      ),
      "CHANGE_CONFLICT",
    );
    // A disk that refuses the write: the rename onto batch 2's name fails (a directory is there).
    const blocker = join(dir, batchFileName(2));
    mkdirSync(join(blocker, "x"), { recursive: true });
    const refused = stream.next();
    assert.throws(() => store.apply(refused));
    rmSync(blocker, { recursive: true });
    assert.is(store.sequence, 1);
    assert.equal(snapshotDir(dir), files);
    assert.is(store.graph.buildCompacted().contentTag, tag);
    // Once the disk takes it, the same batch takes number 2.
    assert.is(store.apply(refused).sequence, 2);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("applyAsync of batches as text (hashed off the thread while prepared) writes the log, names the content and holds it as apply does, for batches of a few changes and of a hundred puts", async () => {
  const sync = tempDir();
  const async = tempDir();
  try {
    // Batches of up to 200 lines: most put more statements than a commit splices one by one.
    const stream = new BatchStream(13, 200);
    const base = buildGraph(stream.data);
    const a = openLive(base, sync, { cursorSecret: "one-secret" });
    const b = openLive(base, async, { cursorSecret: "one-secret" });
    const rng = new Rng(14);
    for (let i = 0; i < 8; i++) {
      // Every other batch the stream's (entities and statements put, replaced and deleted); the
      // others a hundred statement puts and a few deletes, more than a commit splices one by one.
      let changes: Change[];
      if (i % 2 === 0) changes = stream.next();
      else {
        const ids = [...stream.oracle.entities.keys()];
        const there = [...stream.oracle.statements.keys()];
        changes = Array.from({ length: 100 }, () => ({
          op: "put" as const,
          statement: {
            subjectEntityId: rng.pick(ids),
            predicateEntityId: rng.pick(ids),
            objectEntityId: rng.pick(ids),
          },
        }));
        for (let k = 0; k < 5; k++) changes.push({ op: "delete", statementFingerprint: rng.pick(there) });
        assert.ok(stream.oracle.apply(changes).ok);
      }
      // JSON Lines with some lines spelled otherwise (escapes): the text itself is named.
      const text = changes
        .map((c, k) => (k % 3 === 1 ? JSON.stringify(c).replace(/"op"/, '"\\u006fp"') : JSON.stringify(c)))
        .join("\n");
      assert.equal(await b.applyAsync(text), a.apply(text));
      assert.is(b.graph.contentTag, a.graph.contentTag);
      // Every order's list read: unfiltered (SPO), by predicate (POS), by object (OSP).
      assert.equal(b.graph.statements({ limit: 200 }), a.graph.statements({ limit: 200 }));
      for (const e of stream.data.entities.slice(0, 20)) {
        for (const filter of [{ predicateEntityId: e.entityId }, { objectEntityId: e.entityId }])
          assert.equal(b.graph.statements({ ...filter, limit: 200 }), a.graph.statements({ ...filter, limit: 200 }));
      }
    }
    assert.is(b.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag);
    const files = (dir: string) => {
      const { [LOCK_FILE]: _lock, ...batches } = snapshotDir(dir);
      return batches;
    };
    assert.equal(files(async), files(sync));
    a.close();
    b.close();
  } finally {
    rmSync(sync, { recursive: true, force: true });
    rmSync(async, { recursive: true, force: true });
  }
});

test("applyAsync: batches queue in call order; a bad one or a refused write changes nothing, the rest apply", async () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(9);
    const store = openLive(buildGraph(stream.data), dir);
    const good = Array.from({ length: 4 }, () => stream.next());
    // All called at once, before any has flushed: each is prepared on what the ones before it left.
    const first = store.applyAsync(good[0]!);
    // While batch 1 flushes, reads see the content before it, and a synchronous apply is refused.
    assert.is(store.sequence, 0);
    assert.throws(() => store.apply(good[1]!), /applyAsync/);
    const bad = store.applyAsync("not json");
    const second = store.applyAsync(good[1]!);
    const third = store.applyAsync(good[2]!);
    assert.is((await first).sequence, 1);
    await bad.then(
      () => assert.unreachable("a bad line applied"),
      (e: unknown) => assert.is(isQuiverError(e) && e.code, "INVALID_CHANGE"),
    );
    assert.is((await second).sequence, 2);
    assert.is((await third).sequence, 3);
    const files = snapshotDir(dir);
    const tag = store.graph.buildCompacted().contentTag;
    // A disk that refuses the write (batch 4's name is taken by a directory): CHANGE_LOG_UNAVAILABLE, nothing changed.
    const blocker = join(dir, batchFileName(4));
    mkdirSync(join(blocker, "x"), { recursive: true });
    await store.applyAsync(good[3]!).then(
      () => assert.unreachable("the write was refused"),
      (e: unknown) => assert.is(isQuiverError(e) && e.code, "CHANGE_LOG_UNAVAILABLE"),
    );
    rmSync(blocker, { recursive: true });
    assert.is(store.sequence, 3);
    assert.equal(snapshotDir(dir), files);
    assert.is(store.graph.buildCompacted().contentTag, tag);
    assert.is((await store.applyAsync(good[3]!)).sequence, 4);
    // The log read back equals the content: the same as the oracle's after the four good batches.
    store.close();
    const reopened = openLive(buildGraph(stream.data), dir);
    assert.is(reopened.sequence, 4);
    assert.is(reopened.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a flush that fails after a batch is named stops the writer: the file stays, its number is never used again", async () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(12);
    const batches = Array.from({ length: 3 }, () => stream.next());
    // A disk whose flushes fail from batch 2 on (each batch flushes its file and the directory).
    let flushes = 0;
    const flush = (fd: number): Promise<void> =>
      new Promise((resolve, reject) => {
        flushes++;
        if (flushes > 2) reject(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }));
        else fsync(fd, (e) => (e === null ? resolve() : reject(e)));
      });
    const store = openLive(buildGraph(stream.data), dir, { flush });
    assert.is((await store.applyAsync(batches[0]!)).sequence, 1);
    const unavailable = (e: unknown) => assert.is(isQuiverError(e) && e.code, "CHANGE_LOG_UNAVAILABLE");
    await store.applyAsync(batches[1]!).then(() => assert.unreachable("the flush failed"), unavailable);
    // Batch 2 was named before its flush failed: a follower may hold it already, so it stays as written.
    const follower = new LiveFollower(buildGraph(stream.data), dir);
    assert.is(follower.graph.sequence, 2);
    assert.equal(
      [...readChangeLog(dir)].map((b) => b.sequence),
      [1, 2],
    );
    // The writer takes nothing more (batch 2's number is not used again), and its graph shows batch 1 only.
    await store.applyAsync(batches[2]!).then(() => assert.unreachable("a broken writer wrote"), unavailable);
    assert.is(store.sequence, 1);
    assert.is(readdirSync(dir).filter((n) => n.endsWith(".batch")).length, 2);
    assert.equal(
      [...readChangeLog(dir, 1)].map((b) => b.text),
      [batches[1]!.map((c) => JSON.stringify(c)).join("\n")],
    );
    // Restarted, the writer reads the log as it is: the same content as the follower's.
    store.close();
    const reopened = openLive(buildGraph(stream.data), dir);
    assert.is(reopened.sequence, 2);
    assert.is(reopened.graph.buildCompacted().contentTag, follower.graph.buildCompacted().contentTag);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("compaction in a worker thread: batches applied meanwhile are kept, cursors stay followable", async () => {
  const dir = tempDir();
  try {
    const stream = new BatchStream(8);
    const base = buildGraph(stream.data);
    const snapshot = join(dir, "base.qvr");
    await saveSnapshot(base, snapshot);
    const store = openLive(base, join(dir, "log"), { source: { snapshot }, cursorSecret: "compact" });
    for (let i = 0; i < 5; i++) store.apply(stream.next());
    const before = store.graph.statements({ limit: 3 });
    const compaction = store.compactInWorker();
    // Batches while the worker builds: applied again over the new base before it is swapped in.
    for (let i = 0; i < 2; i++) store.apply(stream.next());
    // One through applyAsync: the swap waits for it (it never lands between a prepare and its commit).
    const queued = store.applyAsync(stream.next());
    const graph = await compaction;
    assert.is((await queued).sequence, 8);
    assert.is(store.graph.baseSequence, 5);
    assert.is(store.sequence, 8);
    assert.is(graph.statementCount > 0, true);
    const content = buildGraph(stream.oracle.data()).contentTag;
    assert.is(store.graph.buildCompacted().contentTag, content);
    // A second one, from the same source and the longer log, with nothing applied meanwhile.
    await store.compactInWorker();
    assert.is(store.graph.baseSequence, 8);
    assert.equal(store.graph.deltaSize, { entities: 0, statements: 0, hiddenEntities: 0, hiddenStatements: 0 });
    assert.is(store.graph.base.contentTag, content);
    // The walk begun before the compactions goes on from its cursor.
    const rest = store.graph.statements({ limit: 200, cursor: before.nextCursor ?? undefined });
    const last = statementKey("SPO", before.items[2]!);
    const want = stream.oracle
      .oracle()
      .statementsFor({})
      .filter((st) => compareKeys(statementKey("SPO", st), last) > 0);
    assert.equal(rest.items, want.slice(0, 200));
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

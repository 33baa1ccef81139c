/**
 * Writing JSON Lines
 * ==================
 * Items out as JSON Lines (one `JSON.stringify` per line, LF endings, no BOM), the format the loader
 * reads: to a stream (`quiver search` on stdout) or to a file (`quiver dump`, `quiver convert`).
 * Lines are gathered into batches of WRITE_BATCH_CHARS before one write (few syscalls), and the
 * writer waits for the stream to drain when it asks to, so a dump of millions of items holds one
 * batch in memory, not the whole output.
 *
 * A file is written under a temporary name of its own (snapshot/durable-file.ts: exclusive, beside
 * PATH), fsync'ed and renamed over PATH once complete, then the directory is fsync'ed: whoever reads
 * PATH sees the old file or the new one, never a cut one; a failed write removes only its own
 * temporary file. Two writers at once (two overlapping dumps) each publish a whole file.
 *
 * A pair (`quiver dump`'s and `quiver convert`'s entities + statements) is written whole first, both
 * files under temporary names, and only then renamed, the two renames under a lock file in the
 * folder (PUBLISH_LOCK_FILE, created exclusively, holding the writer's pid). So a failure while
 * writing either file (a full disk) publishes neither, and two overlapping writers publish their
 * pairs one after the other, never one's entities beside the other's statements. A lock whose pid
 * is gone (a writer killed mid-publish) is taken over; a live one is waited for up to
 * PUBLISH_LOCK_WAIT_MS, then refused with a sentence. What remains: a crash between a pair's two
 * renames (microseconds) leaves the new entities beside the old statements.
 *
 * Cost: O(bytes written); memory one batch.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { createTemporary, syncDirectory } from "../snapshot/durable-file.js";

/** Characters gathered before one write: few syscalls, bounded memory. */
export const WRITE_BATCH_CHARS = 1 << 20;
/** The lock file a pair's renames are made under, in the pair's folder. */
export const PUBLISH_LOCK_FILE = ".quiver-publish.lock";
/** How long a writer waits for another one's lock before it gives up. */
export const PUBLISH_LOCK_WAIT_MS = 10_000;
/** Between two tries at a held lock. */
const PUBLISH_LOCK_POLL_MS = 20;

export interface WriteResult {
  lines: number;
  bytes: number;
}

/**
 * Writes `items` to `out`, one JSON line each, waiting for `drain` when the stream asks. Does not end
 * the stream. Rejects with the stream's error (EPIPE when stdout's reader has gone).
 */
export async function writeJsonLinesTo(out: Writable, items: Iterable<unknown>): Promise<WriteResult> {
  let failure: Error | undefined;
  const onError = (e: Error): void => {
    failure ??= e;
  };
  out.on("error", onError);
  let lines = 0;
  let bytes = 0;
  let batch = "";
  const flush = async (): Promise<void> => {
    bytes += Buffer.byteLength(batch);
    const ok = out.write(batch);
    batch = "";
    // Respect backpressure: a huge output must not pile up in memory.
    if (!ok && failure === undefined) await once(out, "drain"); // rejects if the stream errors meanwhile
  };
  try {
    for (const item of items) {
      if (failure !== undefined) break;
      batch += JSON.stringify(item) + "\n";
      lines++;
      if (batch.length >= WRITE_BATCH_CHARS) await flush();
    }
    if (batch.length > 0 && failure === undefined) await flush();
    // A write error surfaces on a later turn: wait for this batch to reach the stream's sink.
    if (failure === undefined) await new Promise<void>((resolve) => out.write("", () => resolve()));
  } finally {
    out.off("error", onError);
  }
  if (failure !== undefined) throw failure;
  return { lines, bytes };
}

/** A file written whole under its temporary name, not yet published. */
export interface StagedFile {
  path: string;
  tmp: string;
  result: WriteResult;
}

/** Writes `items` to a temporary file beside `path`, fsync'ed and closed; publish() renames it. */
export async function stageJsonLines(path: string, items: Iterable<unknown>): Promise<StagedFile> {
  const { handle, tmp } = await createTemporary(path);
  // The stream owns the handle: `flush` fsyncs it before the close (durable before visible: the
  // rename must never publish bytes still in the page cache only).
  const out = createWriteStream("", { fd: handle, flush: true });
  const closed = new Promise<void>((resolve, reject) => {
    out.on("close", resolve);
    out.on("error", reject);
  });
  try {
    const result = await writeJsonLinesTo(out, items);
    out.end();
    await closed;
    return { path, tmp, result };
  } catch (e) {
    out.destroy();
    await closed.catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Renames staged files into place (under the folder's lock when there are several), then syncs the folders. */
export async function publish(staged: StagedFile[]): Promise<void> {
  const dirs = [...new Set(staged.map((s) => dirname(s.path)))];
  const renameAll = async (): Promise<void> => {
    for (const s of staged) await rename(s.tmp, s.path);
  };
  // Each branch: one file is atomic by itself; a pair needs its renames kept together.
  if (staged.length === 1) await renameAll();
  else await underPublishLock(dirs[0] as string, renameAll);
  for (const dir of dirs) await syncDirectory(dir);
}

/** Removes staged files that will not be published. */
export async function discard(staged: StagedFile[]): Promise<void> {
  for (const s of staged) await rm(s.tmp, { force: true });
}

/** Writes `items` to the file `path`, published whole (see the banner). */
export async function writeJsonLines(path: string, items: Iterable<unknown>): Promise<WriteResult> {
  const staged = await stageJsonLines(path, items);
  try {
    await publish([staged]);
  } catch (e) {
    await discard([staged]);
    throw e;
  }
  return staged.result;
}

/** Writes several files and publishes them together: all of them, or none (see the banner). */
export async function writeJsonLinesTogether(
  files: readonly (readonly [path: string, items: Iterable<unknown>])[],
): Promise<WriteResult[]> {
  const staged: StagedFile[] = [];
  try {
    for (const [path, items] of files) staged.push(await stageJsonLines(path, items));
    await publish(staged);
  } catch (e) {
    await discard(staged);
    throw e;
  }
  return staged.map((s) => s.result);
}

/** Runs `body` holding the folder's publish lock (see the banner). */
async function underPublishLock(dir: string, body: () => Promise<void>): Promise<void> {
  const lock = join(dir, PUBLISH_LOCK_FILE);
  const giveUp = Date.now() + PUBLISH_LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (e) {
      if ((e as { code?: unknown }).code !== "EEXIST") throw e;
    }
    const holder = Number.parseInt(await readFile(lock, "utf8").catch(() => ""), 10);
    // Each branch: the holder is gone (take the lock over), or it lives (wait, up to a bound).
    if (Number.isInteger(holder) && !processExists(holder)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() > giveUp)
      throw new Error(
        `another quiver command (pid ${Number.isInteger(holder) ? holder : "unknown"}) is publishing files into ${dir}: ` +
          `try again when it is done, or remove ${lock} if no such process runs`,
      );
    await new Promise((r) => setTimeout(r, PUBLISH_LOCK_POLL_MS));
  }
  try {
    await body();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Whether a process with this pid runs (signal 0 checks without sending). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as { code?: unknown }).code === "EPERM";
  }
}

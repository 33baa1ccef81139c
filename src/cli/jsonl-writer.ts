/**
 * Writing JSON Lines
 * ==================
 * Items out as JSON Lines (one `JSON.stringify` per line, LF endings, no BOM), the format the loader
 * reads: to a stream (`quiver search` on stdout) or to a file (`quiver dump`, `quiver convert`).
 * Lines are gathered into batches of WRITE_BATCH_CHARS before one write (few syscalls), and the
 * writer waits for the stream to drain when it asks to, so a dump of millions of items holds one
 * batch in memory, not the whole output.
 *
 * A file is written as `PATH.partial` and renamed over PATH once complete and closed: whoever reads
 * PATH sees the old file or the new one, never a cut one; a failed write removes the partial file.
 *
 * Cost: O(bytes written); memory one batch.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";

/** Characters gathered before one write: few syscalls, bounded memory. */
export const WRITE_BATCH_CHARS = 1 << 20;

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

/** Writes `items` to the file `path` (as `path.partial`, renamed once complete). */
export async function writeJsonLines(path: string, items: Iterable<unknown>): Promise<WriteResult> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const closed = new Promise<void>((resolve, reject) => {
    out.on("close", resolve);
    out.on("error", reject);
  });
  try {
    const result = await writeJsonLinesTo(out, items);
    out.end();
    await closed;
    await rename(partial, path);
    return result;
  } catch (e) {
    out.destroy();
    await closed.catch(() => {});
    await rm(partial, { force: true });
    throw e;
  }
}

/**
 * Request log
 * ===========
 * One JSON line per request on stdout:
 *
 *   {"level":"info","time":"2025-01-01T12:00:00.000Z","pid":4242,"id":"k3Jd9xQa-1042","method":"GET","path":"/graph/v1/search","status":200,"ms":0.412}
 *
 * `level` is "error" for a 5xx (its stack went to stderr through the handler's onError, under the
 * same id), "info" otherwise. Never headers (the API key is a header) and never the query string.
 *
 * Cost, a few microseconds a request (`npm run bench:http`, the request-log row): the line is built
 * by concatenation around a prefix made once (`{"level":"info","time":"` ... `","pid":4242,"id":`),
 * the ISO timestamp is made once per millisecond and reused, strings are escaped only when they hold
 * a character JSON must escape (a method or id never does; a path rarely); lines are gathered and
 * written every REQUEST_LOG_FLUSH_MS, or at once when the next line might not fit in the
 * REQUEST_LOG_FLUSH_BYTES pending, so a busy server makes a few dozen write calls a second, not one
 * per request or per turn of the event loop (a write to a file goes through libuv's thread pool:
 * about 15 us of CPU each; `npm run bench:http` times the log's share of a request). Each line goes
 * as UTF-8 into a buffer at once: a string of the pending lines, added to line by line, would be a
 * rope of thousands of pieces living through the young generation's collections, flattened to be
 * written. `flush` hands what is pending to the
 * writer; `close` flushes and waits (bounded) until every queued line is out (a clean stop).
 *
 * A reader that cannot keep up: the log never holds more than
 * REQUEST_LOG_MAX_QUEUED_BYTES of lines for it. Batches go out one write at a time (the next only
 * when the previous one's callback says the bytes are with the kernel), so the stream's own
 * buffer holds one piece at most; a batch that would take the queue past its bound is dropped and
 * its lines counted (`onDrop`, /metrics quiver_request_log_dropped_lines_total), and once the queue
 * empties again a `request-log-dropped` event line says how many. Dropping, not blocking: a slow
 * log reader must not slow the answers.
 *
 * Whole lines, also from a cluster's workers sharing one stdout: each write is at most PIPE_BUF
 * bytes and ends at a line's end, and no line is longer (the path is cut to fit). POSIX makes a
 * write of at most PIPE_BUF bytes to a pipe atomic (all of it, or none and EAGAIN, then libuv
 * retries the same whole piece), so the lines of two processes never cut into each other; a file
 * (`> out.log`) is written synchronously by node, one write(2) per piece at the shared offset.
 */

import type { RequestLogEntry } from "../http/adapter-kit.js";

/** Longest wait before gathered lines are written. */
export const REQUEST_LOG_FLUSH_MS = 25;
/** Bytes of pending lines: a batch is written when the next line might not fit, whatever the time. */
const REQUEST_LOG_FLUSH_BYTES = 64 * 1024;
/** UTF-8 bytes of one UTF-16 code unit at most (a surrogate pair's two units make 4). */
const MAX_UTF8_PER_UNIT = 3;

/** A path longer than this is cut in the log (a 414's target can be long). */
const MAX_LOGGED_PATH_CHARS = 1024;
/** Bytes POSIX writes to a pipe atomically on Linux (PIPE_BUF): the longest write, and line. */
export const PIPE_BUF = 4096;
/** Bytes of lines the log holds for a reader that is behind; past this, batches are dropped. */
export const REQUEST_LOG_MAX_QUEUED_BYTES = 1024 * 1024;
/** How long a clean stop waits for a slow reader to take the queued lines. */
export const REQUEST_LOG_CLOSE_MS = 5000;

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  /** Hands the pending lines to the writer. */
  flush(): void;
  /** Flushes, then resolves once every queued line is written, or after `ms` (the rest counted as dropped). */
  close(ms?: number): Promise<void>;
  /** Lines dropped so far because the reader was behind. */
  readonly dropped: number;
}

export interface RequestLogOptions {
  /** Called with the number of lines of each dropped batch. */
  onDrop?: (lines: number) => void;
}

/** Characters JSON.stringify escapes, and the rest of non-ASCII (rare in paths, never in ids). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/;

function jsonText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** The longest prefix of `line` that is at most `bytes` UTF-8 bytes and ends with a newline. */
function fitLine(line: string, bytes: number): string {
  if (Buffer.byteLength(line) <= bytes) return line;
  // Only the path can make a line this long: keep the JSON whole by cutting the path's own text.
  const entry = JSON.parse(line) as Record<string, unknown>;
  let path = String(entry["path"]);
  while (path.length > 0) {
    path = path.slice(0, Math.floor(path.length / 2));
    entry["path"] = path;
    const cut = `${JSON.stringify(entry)}\n`;
    if (Buffer.byteLength(cut) <= bytes) return cut;
  }
  return `${JSON.stringify(entry)}\n`;
}

export function createRequestLog(
  out: NodeJS.WritableStream = process.stdout,
  options: RequestLogOptions = {},
): RequestLog {
  let pending = Buffer.allocUnsafe(REQUEST_LOG_FLUSH_BYTES);
  let used = 0;
  let lines = 0;
  let timer: NodeJS.Timeout | undefined;
  let broken = false;
  /** Pieces waiting for the writer, each whole lines of at most PIPE_BUF bytes. */
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let writing = false;
  let dropped = 0;
  let droppedReported = 0;
  const idle = new Set<() => void>();
  const writeNext = (): void => {
    const piece = queue.shift();
    if (piece === undefined || broken) {
      writing = false;
      queue.length = 0;
      queuedBytes = 0;
      // The reader caught up: say how many lines it missed, once, in the log itself.
      if (!broken && dropped > droppedReported) {
        const missed = dropped - droppedReported;
        droppedReported = dropped;
        enqueue(
          Buffer.from(
            `{"level":"warn","time":"${new Date().toISOString()}","pid":${process.pid},"event":"request-log-dropped",` +
              `"lines":${missed},"total":${dropped}}\n`,
          ),
        );
        return;
      }
      for (const resolve of [...idle]) resolve();
      return;
    }
    writing = true;
    queuedBytes -= piece.length;
    out.write(piece, () => writeNext());
  };
  const enqueue = (piece: Buffer): void => {
    queue.push(piece);
    queuedBytes += piece.length;
    if (!writing) writeNext();
  };
  // stdout closed under us (`quiver serve | head`): stop logging, keep serving.
  out.on("error", (error: Error) => {
    if (!broken) process.stderr.write(`quiver serve: request log stopped: ${error.message}\n`);
    broken = true;
  });
  const afterTime = `","pid":${process.pid},"id":`;
  let lastMs = -1;
  let lastTime = "";
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batchLines = lines;
    lines = 0;
    if (used === 0 || broken) {
      used = 0;
      return;
    }
    // The queue keeps the batch's bytes until they are out: the next batch gets a buffer of its own.
    const batch = pending.subarray(0, used);
    pending = Buffer.allocUnsafe(REQUEST_LOG_FLUSH_BYTES);
    used = 0;
    // Each branch: the reader is too far behind (drop and count the batch), or queue it.
    if (queuedBytes + batch.length > REQUEST_LOG_MAX_QUEUED_BYTES) {
      dropped += batchLines;
      options.onDrop?.(batchLines);
      return;
    }
    // Pieces of at most PIPE_BUF bytes, each ending at a line's end (no line is longer).
    for (let start = 0; start < batch.length; ) {
      let end = Math.min(start + PIPE_BUF, batch.length);
      if (end < batch.length) end = batch.lastIndexOf(0x0a, end - 1) + 1;
      enqueue(batch.subarray(start, end));
      start = end;
    }
  };
  return {
    write(entry) {
      const now = Date.now();
      // One Date and one toISOString per millisecond, whatever the request rate.
      if (now !== lastMs) {
        lastMs = now;
        lastTime = new Date(now).toISOString();
      }
      const path = entry.path.length > MAX_LOGGED_PATH_CHARS ? entry.path.slice(0, MAX_LOGGED_PATH_CHARS) : entry.path;
      let line =
        (entry.status >= 500 ? '{"level":"error","time":"' : '{"level":"info","time":"') +
        lastTime +
        afterTime +
        jsonText(entry.requestId) +
        ',"method":' +
        jsonText(entry.method) +
        ',"path":' +
        jsonText(path) +
        ',"status":' +
        entry.status +
        ',"ms":' +
        Math.round(entry.durationMs * 1000) / 1000 +
        "}\n";
      // A path of escapes can make a line longer than one atomic write: cut the path to fit.
      if (line.length > PIPE_BUF / MAX_UTF8_PER_UNIT) line = fitLine(line, PIPE_BUF);
      // A batch the line might not fit in goes first. A line always fits an empty batch: the path
      // is cut to MAX_LOGGED_PATH_CHARS (6 units each at most once escaped), the request id is
      // bounded (request-id.ts), the rest is short: under 8,000 units, 24,000 bytes.
      if (used + MAX_UTF8_PER_UNIT * line.length > REQUEST_LOG_FLUSH_BYTES) flush();
      used += pending.write(line, used);
      lines++;
      // The first line of a batch starts its clock (unref'd: a pending batch never keeps the
      // process alive; shutdown calls flush).
      if (timer === undefined) timer = setTimeout(flush, REQUEST_LOG_FLUSH_MS).unref();
    },
    flush,
    close(ms = REQUEST_LOG_CLOSE_MS) {
      flush();
      if (!writing || broken) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(giveUp);
          idle.delete(done);
          resolve();
        };
        // A reader that takes nothing for `ms`: what is still queued is lost, and said so.
        const giveUp = setTimeout(() => {
          idle.delete(done);
          const left = queue.reduce((n, piece) => n + piece.filter((b) => b === 0x0a).length, 0);
          process.stderr.write(
            `quiver serve: request log: ${left} lines not written (the reader took nothing for ${ms} ms)\n`,
          );
          resolve();
        }, ms);
        idle.add(done);
      });
    },
    get dropped() {
      return dropped;
    },
  };
}

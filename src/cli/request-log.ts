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
 * written. `flush` writes what is pending (on shutdown).
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

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  flush(): void;
}

/** Characters JSON.stringify escapes, and the rest of non-ASCII (rare in paths, never in ids). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/;

function jsonText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

export function createRequestLog(out: NodeJS.WritableStream = process.stdout): RequestLog {
  let pending = Buffer.allocUnsafe(REQUEST_LOG_FLUSH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  let broken = false;
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
    if (used === 0 || broken) {
      used = 0;
      return;
    }
    // The stream keeps the written bytes until they are out: the next batch gets a buffer of its own.
    const chunk = pending.subarray(0, used);
    pending = Buffer.allocUnsafe(REQUEST_LOG_FLUSH_BYTES);
    used = 0;
    out.write(chunk);
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
      const line =
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
      // A batch the line might not fit in goes first. A line always fits an empty batch: the path
      // is cut to MAX_LOGGED_PATH_CHARS (6 units each at most once escaped), the request id is
      // bounded (request-id.ts), the rest is short: under 8,000 units, 24,000 bytes.
      if (used + MAX_UTF8_PER_UNIT * line.length > REQUEST_LOG_FLUSH_BYTES) flush();
      used += pending.write(line, used);
      // The first line of a batch starts its clock (unref'd: a pending batch never keeps the
      // process alive; shutdown calls flush).
      if (timer === undefined) timer = setTimeout(flush, REQUEST_LOG_FLUSH_MS).unref();
    },
    flush,
  };
}

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
 * written once per turn of the event loop, so a busy server makes one write call per batch, not per
 * request. `flush` writes what is pending (on shutdown).
 */

import type { RequestLogEntry } from "../http/adapter-kit.js";

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
  let pending = "";
  let scheduled = false;
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
    scheduled = false;
    if (pending === "" || broken) {
      pending = "";
      return;
    }
    const chunk = pending;
    pending = "";
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
      pending +=
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
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

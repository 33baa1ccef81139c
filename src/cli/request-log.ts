/**
 * Request log
 * ===========
 * One JSON line per request on stdout: `{"time","method","path","status","ms"}`. Never headers
 * (the API key is a header) and never the query string. Lines are gathered and written once per
 * turn of the event loop, so a busy server makes one write call per batch, not per request; `flush`
 * writes what is pending (on shutdown).
 */

import type { RequestLogEntry } from "../http/handler.js";

/** A path longer than this is cut in the log (a 414's target can be long). */
const MAX_LOGGED_PATH_CHARS = 1024;

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  flush(): void;
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
      const path = entry.path.length > MAX_LOGGED_PATH_CHARS ? entry.path.slice(0, MAX_LOGGED_PATH_CHARS) : entry.path;
      pending +=
        JSON.stringify({
          time: new Date().toISOString(),
          method: entry.method,
          path,
          status: entry.status,
          ms: Math.round(entry.durationMs * 1000) / 1000,
        }) + "\n";
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

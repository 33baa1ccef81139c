/**
 * Event log
 * =========
 * What a machine reads about the server's life, one JSON line per event on stdout:
 * `{"level","time","pid","event",...fields}` (startup, ready with counts and timings, reload, a
 * worker replaced, errors). The per-request lines (request-log.ts) share the stream and the first
 * three keys; they have an `id` (the request's) where these have an `event`. Never keys, never cursor secrets, never data: callers pass counts, paths and messages.
 *
 * A line is written at once (one write call per event; events are rare next to requests), so a
 * crash right after an event still leaves it in the log. stdout closed under the server (`| head`)
 * stops the log, never the server.
 */

export type EventLevel = "info" | "warn" | "error";

export type EventFields = Record<string, string | number | boolean | null | undefined>;

export interface EventLog {
  info(event: string, fields?: EventFields): void;
  warn(event: string, fields?: EventFields): void;
  error(event: string, fields?: EventFields): void;
}

/** The JSON line of one event (exported for tests). */
export function eventLine(level: EventLevel, event: string, fields: EventFields = {}, now = new Date()): string {
  // The request log's order (request-log.ts): level, time, pid, then what the line is about.
  const line: Record<string, unknown> = { level, time: now.toISOString(), pid: process.pid, event };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) line[k] = v;
  return JSON.stringify(line) + "\n";
}

export function createEventLog(out: NodeJS.WritableStream = process.stdout): EventLog {
  let broken = false;
  out.on("error", () => (broken = true));
  const write = (level: EventLevel, event: string, fields?: EventFields): void => {
    if (broken) return;
    out.write(eventLine(level, event, fields));
  };
  return {
    info: (event, fields) => write("info", event, fields),
    warn: (event, fields) => write("warn", event, fields),
    error: (event, fields) => write("error", event, fields),
  };
}

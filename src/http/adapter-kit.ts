/**
 * What every adapter shares
 * =========================
 * Besides the router itself: the handler options (the router's, plus the request log) compiled with
 * the default fault reporter (one JSON line on stderr, the one place the HTTP layer writes to the
 * process's streams), the log entry, and how a reply is logged (guarded, so a throwing logger never
 * takes a server down). An
 * adapter for another server (src/http/node.ts and fetch.ts are the two here) imports this and
 * router.ts, and writes only the translation of requests in and replies out.
 */

import {
  compileRouterOptions,
  type ErrorContext,
  reportFault,
  type Reply,
  type RouterConfig,
  type RouterOptions,
} from "./router.js";

/** One line of the request log: never headers, never the query string. */
export interface RequestLogEntry {
  /** The `X-Request-Id` the answer carried (the client's, or one made for it). */
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

export interface HandlerOptions extends RouterOptions {
  /** Called once per request after the answer is written; leave out for no request log. */
  log?: ((entry: RequestLogEntry) => void) | undefined;
}

/** Calls the log with one reply; a logger that throws is reported, never rethrown. */
export function logReply(
  config: RouterConfig,
  log: (entry: RequestLogEntry) => void,
  method: string,
  reply: Reply,
  started: number,
): void {
  try {
    log({
      requestId: reply.requestId,
      method,
      path: reply.path,
      status: reply.status,
      durationMs: performance.now() - started,
    });
  } catch (error) {
    reportFault(config, error, { method, path: reply.path, requestId: reply.requestId });
  }
}

/** The options, checked and compiled once per handler; faults go to `onError`, else to stderr. */
export function compileOptions(options: RouterOptions): RouterConfig {
  return compileRouterOptions(options, reportToStderr);
}

/** The default reporter: one JSON line on stderr with the stack, the request's id, method and path. */
export function reportToStderr(error: unknown, context: ErrorContext): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    JSON.stringify({
      level: "error",
      time: new Date().toISOString(),
      pid: process.pid,
      id: context.requestId,
      method: context.method,
      path: context.path,
      error: detail,
    }) + "\n",
  );
}

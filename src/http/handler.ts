/**
 * Request handler
 * ===============
 * `createHandler(graph, options)` returns a `(req, res)` listener for any node:http server that
 * serves CONTRACT.md: routing, the API key, the status of every error, serialization. It holds no
 * query logic: parameters go to the engine as parsed, and what the engine returns is serialized.
 *
 * Order of checks (each one a decision of the contract):
 *   1. on the two data endpoints, the API key before anything else (401 even when the method, the
 *      target length or the parameters are also wrong);
 *   2. request target over MAX_REQUEST_TARGET_BYTES: 414 (past node's header limit, server.ts answers it);
 *   3. path: the two data endpoints, `/healthz`, `/graph/v1/openapi.json`; anything else 404;
 *   4. a method other than GET or HEAD: 405 with `Allow: GET, HEAD`; HEAD answers as GET without a body;
 *   5. parameters (params.ts, then the engine): 400 naming the parameter.
 * A `QuiverError` becomes the status of its code (status.ts) with its message; any other error is
 * 500 with a fixed sentence, and the error goes to `onError` (stderr by default), never to the client.
 *
 * Isolation: the handler is synchronous and keeps nothing per request outside its own frame; each
 * request reads the current graph once, so `setGraph` never changes a request that has started.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { isQuiverError } from "../engine/errors.js";
import type { Graph } from "../engine/graph.js";
import { API_KEY_HEADER, createKeyVerifier, type ApiKeys } from "./auth.js";
import { MAX_REQUEST_TARGET_BYTES } from "./limits.js";
import { OPENAPI_JSON } from "./openapi.js";
import { quote } from "../engine/quote.js";
import { parseSearchParams, parseStatementsParams } from "./params.js";
import { errorBody, PageSerializer } from "./serialize.js";
import * as S from "./status.js";

export const SEARCH_PATH = "/graph/v1/search";
export const STATEMENTS_PATH = "/graph/v1/statements";
export const HEALTH_PATH = "/healthz";
export const OPENAPI_PATH = "/graph/v1/openapi.json";

const KNOWN_PATHS = new Set([SEARCH_PATH, STATEMENTS_PATH, HEALTH_PATH, OPENAPI_PATH]);
const PATH_LIST = [...KNOWN_PATHS].join(", ");
const ALLOWED_METHODS = "GET, HEAD";
const HEALTH_BODY = Buffer.from('{"status":"ok"}');
const INTERNAL_ERROR_MESSAGE =
  "The server met an unexpected fault and did not complete the request; try again, and report it if it persists.";

/** One line of the request log: never headers, never the query string. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

export interface HandlerOptions {
  /** The accepted API keys (each begins with `sk_`), or a function that checks one presented key. */
  apiKeys: ApiKeys;
  /**
   * Seals and opens cursors with this secret, whatever secret the graph was built with (every graph
   * given to the handler, `setGraph` included, is served through `graph.withCursorSecret`). Servers
   * with the same secret accept each other's cursors.
   */
  cursorSecret?: string | Uint8Array;
  /** The byte budget of each served graph's caches (GraphOptions.cacheBytes); default the graph's own. */
  cacheBytes?: number;
  /** Longest request target in bytes before 414 (default 8192, the contract's). */
  maxRequestTargetBytes?: number;
  /** Called once per request after the response is written; leave out for no request log. */
  log?: (entry: RequestLogEntry) => void;
  /** Called with every unexpected fault (the 500s); default: one JSON line on stderr. */
  onError?: (error: unknown, req: IncomingMessage) => void;
}

export interface QuiverHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The graph new requests are served from. */
  readonly graph: Graph;
  /** Serves new requests from `graph`; requests already started finish on the graph they began with. */
  setGraph(graph: Graph): void;
}

/** The graph and the serializer whose caches belong to it, swapped together. */
interface Served {
  readonly graph: Graph;
  readonly serializer: PageSerializer;
}

export function createHandler(graph: Graph, options: HandlerOptions): QuiverHandler {
  const verifyKey = createKeyVerifier(options.apiKeys);
  const maxTarget = options.maxRequestTargetBytes ?? MAX_REQUEST_TARGET_BYTES;
  const { log } = options;
  const onError = options.onError ?? reportToStderr;
  const { cursorSecret, cacheBytes } = options;
  // Only the options given replace the graph's own (a graph without them is served as it is).
  const graphOptions = {
    ...(cursorSecret === undefined ? {} : { cursorSecret }),
    ...(cacheBytes === undefined ? {} : { cacheBytes }),
  };
  const serve = (g: Graph): Served => ({
    graph: Object.keys(graphOptions).length === 0 ? g : g.withOptions(graphOptions),
    serializer: new PageSerializer(),
  });
  let served = serve(graph);

  function respond(current: Served, req: IncomingMessage, res: ServerResponse, url: string, path: string): number {
    const dataEndpoint = path === SEARCH_PATH || path === STATEMENTS_PATH;
    if (dataEndpoint) {
      const failure = verifyKey(req.headers[API_KEY_HEADER]);
      if (failure !== null) return sendError(req, res, S.STATUS_UNAUTHORIZED, failure);
    }
    // Bytes, not characters: node only lets ASCII through, but an embedder may call us directly.
    if (url.length > maxTarget || Buffer.byteLength(url, "utf8") > maxTarget) {
      return sendError(
        req,
        res,
        S.STATUS_URI_TOO_LONG,
        `The request target is longer than ${maxTarget} bytes; shorten the query.`,
      );
    }
    if (!dataEndpoint && !KNOWN_PATHS.has(path)) {
      return sendError(req, res, S.STATUS_NOT_FOUND, `There is nothing at ${quote(path)}; the paths are ${PATH_LIST}.`);
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendError(
        req,
        res,
        S.STATUS_METHOD_NOT_ALLOWED,
        `${path} answers GET and HEAD only, not ${req.method}.`,
        ALLOWED_METHODS,
      );
    }
    const query = path.length < url.length ? url.slice(path.length + 1) : "";
    switch (path) {
      case SEARCH_PATH:
        return sendJson(
          req,
          res,
          S.STATUS_OK,
          current.serializer.entities(current.graph.search(parseSearchParams(query))),
        );
      case STATEMENTS_PATH:
        return sendJson(
          req,
          res,
          S.STATUS_OK,
          current.serializer.statements(current.graph.statements(parseStatementsParams(query))),
        );
      case HEALTH_PATH:
        return sendJson(req, res, S.STATUS_OK, HEALTH_BODY);
      default:
        return sendJson(req, res, S.STATUS_OK, OPENAPI_JSON);
    }
  }

  function fail(error: unknown, req: IncomingMessage, res: ServerResponse): number {
    let status: number = S.STATUS_INTERNAL_ERROR;
    if (isQuiverError(error)) status = S.statusForCode(error.code);
    if (status === S.STATUS_INTERNAL_ERROR) report(error, req);
    // Only the caller's own mistakes are echoed; a fault of ours gets the fixed sentence.
    const message =
      status === S.STATUS_INTERNAL_ERROR || !isQuiverError(error) ? INTERNAL_ERROR_MESSAGE : error.message;
    if (res.headersSent) {
      res.destroy(); // cannot happen with the synchronous writes above; never send half a body as whole
      return status;
    }
    return sendError(req, res, status, message);
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = log === undefined ? 0 : performance.now();
    const current = served; // read once: a swap during this request does not affect it
    const url = req.url ?? "/";
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    let status: number;
    try {
      status = respond(current, req, res, url, path);
    } catch (error) {
      status = fail(error, req, res);
    }
    if (log !== undefined) {
      try {
        log({ method: req.method ?? "", path, status, durationMs: performance.now() - started });
      } catch (error) {
        report(error, req); // a broken logger must not take the server down
      }
    }
  };

  /** The embedder's onError, itself guarded: a throwing reporter falls back to stderr. */
  function report(error: unknown, req: IncomingMessage): void {
    try {
      onError(error, req);
    } catch (secondary) {
      reportToStderr(secondary, req);
      reportToStderr(error, req);
    }
  }

  return Object.defineProperties(handler, {
    graph: { get: () => served.graph, enumerable: true },
    setGraph: {
      value: (next: Graph) => {
        served = serve(next);
      },
    },
  }) as QuiverHandler;
}

function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  allow?: string,
): number {
  const length = typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length;
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": length };
  if (allow !== undefined) headers["allow"] = allow;
  res.writeHead(status, headers);
  // HEAD: the same status and headers (Content-Length included), no body.
  if (req.method === "HEAD") res.end();
  else res.end(body);
  return status;
}

function sendError(req: IncomingMessage, res: ServerResponse, status: number, message: string, allow?: string): number {
  return sendJson(req, res, status, errorBody(message), allow);
}

function reportToStderr(error: unknown, req: IncomingMessage): void {
  const url = req.url ?? "";
  const path = url.includes("?") ? url.slice(0, url.indexOf("?")) : url;
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    JSON.stringify({ level: "error", time: new Date().toISOString(), method: req.method, path, error: detail }) + "\n",
  );
}

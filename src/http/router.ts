/**
 * Router
 * ======
 * `route(served, { method, target, headers })` returns the whole answer, `{ status, headers, body }`,
 * as plain data: CONTRACT.md from the first check to the last byte, with no socket, stream or node
 * type in sight (as Oxigraph's `handle_request` returns a response value). The adapters (node.ts,
 * fetch.ts) only translate requests in and replies out, so every server that hosts Quiver answers
 * alike, and this file can be tested by calling it.
 *
 * Order of checks (each one a decision of the contract):
 *   0. a head over MAX_HEAD_BYTES (the adapter says how large, when it knows): 414 when the target
 *      alone passes the target limit, else 431, before the key; then the Host rule of HTTP/1.1
 *      (400) when the adapter counted Host headers (`answerProblem` gives the same answers, and 400
 *      and 408, for requests an adapter's parser could not read at all);
 *   1. a CORS preflight on a known path from an allowed origin: 204, before the key (cors.ts);
 *   2. on the three data endpoints, the API key (401 even when the method, the target length or the
 *      parameters are also wrong);
 *   3. request target over `maxRequestTargetBytes`: 414;
 *   4. path (origin-form or absolute-form, routes.ts): the five routes; with an explorer (explorer.ts),
 *      "/" and "/explorer/..." (no key; GET and HEAD); anything else 404;
 *   5. a method other than GET or HEAD: 405 with `Allow: GET, HEAD`; HEAD answers as GET without a body;
 *   6. parameters (params.ts, then the engine): 400 naming the parameter (the lookup: its path's
 *      entityId, then its query string, which must hold none);
 *   7. `If-None-Match` naming the answer's tag: 304 (caching.ts), before the query runs; else 200
 *      (the lookup: 404 ENTITY_NOT_FOUND when the graph has no such entity).
 * `POST /graph/v1/changes` (only with `changes`, a writer: else 404 like any unknown path): a write
 * key, else 403 WRITE_FORBIDDEN for a read key on POST (401 first without one); a method other than
 * POST: 405 with `Allow: POST`, for a read key too; a query parameter (it takes none) or a
 * Content-Type other than application/x-ndjson: 400; then the body, which the adapter reads when
 * `route` answers NEEDS_BODY and hands over in `request.body` (over `maxChangeBytes`: 413); the writer's errors (400, 409, 503 with `Retry-After`); 200 with the result.
 * Every answer of a data endpoint (a 401 and the changes path's refusals included) carries
 * `X-Quiver-Sequence`, the batch the graph that answered holds; tags follow the graph's content tag, which names its content
 * (a live graph's: its base, its sequence and the batches' chain).
 * A `QuiverError` becomes the status of its code (status.ts), with its sentence and its code; any
 * other error is 500 with a fixed sentence and the error goes to `onError`, never to the client.
 * Every answer carries `X-Request-Id` (request-id.ts) and, with CORS on, its headers.
 *
 * Isolation: `route` is synchronous and keeps nothing per request outside its own frame; a `Served`
 * is immutable, so an adapter swapping graphs never changes a request that has started.
 */

import { QuiverError, isQuiverError, type QuiverErrorCode } from "../engine/errors.js";
import type { Graph } from "../engine/graph.js";
import { decodeChangeBatch } from "../engine/live/change-batch.js";
import type { ChangeResult } from "../engine/live/live-graph.js";
import type { ReadGraph } from "../engine/read-graph.js";
import { SEARCH_DEFAULT_LIMIT, STATEMENTS_DEFAULT_LIMIT } from "../engine/limits.js";
import { quote } from "../engine/quote.js";
import { checkObject } from "../engine/validate.js";
import { API_KEY_HEADER, createKeyVerifier, type ApiKeys, type AuthFailure } from "./auth.js";
import {
  DATA_CACHE_CONTROL,
  bytesDigest,
  entityKey,
  entityTag,
  ifNoneMatchAny,
  ifNoneMatchNames,
  searchDigest,
  secretTag,
  statementsDigest,
  tagDigest,
  tagSeed,
  type TagSeed,
} from "./caching.js";
import {
  DEFAULT_COMPRESSION_THRESHOLD_BYTES,
  encodeBody,
  negotiateEncoding,
  type ContentEncoding,
} from "./compression.js";
import {
  CORS_ALLOWED_HEADERS,
  CORS_ALLOWED_METHODS,
  CORS_CHANGES_HEADERS,
  CORS_CHANGES_METHODS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  corsPolicy,
  type CorsOrigins,
  type CorsPolicy,
} from "./cors.js";
import { assetAnswer, explorerAsset, isExplorerPath, type Explorer } from "./explorer.js";
import {
  CHANGE_RETRY_AFTER_SECONDS,
  MAX_CHANGE_BODY_BYTES,
  MAX_HEAD_BYTES,
  MAX_REQUEST_TARGET_BYTES,
} from "./limits.js";
import { OPENAPI_JSON } from "./openapi.js";
import { checkChangesQuery, parseEntityLookup, parseSearchParams, parseStatementsParams } from "./params.js";
import { REQUEST_ID_HEADER, newRequestId, requestIdOf } from "./request-id.js";
import { ROUTES, ROUTE_PATHS, isDataRoute, routeOf, splitTarget } from "./routes.js";
import { entityBody, entityPage, errorBody, statementPage } from "./serialize.js";
import * as S from "./status.js";

/** A header's value as servers hand it over: node joins most repeats into one string, some give lists. */
export type HeaderValue = string | readonly string[] | undefined;

/** Request headers by lower-case name (node's `req.headers` is one; fetch.ts builds one). */
export type RequestHeaders = Readonly<Record<string, HeaderValue>>;

/** The request headers the router reads; an adapter that copies headers needs only these. */
export const ROUTER_HEADERS = [
  API_KEY_HEADER,
  "if-none-match",
  "accept-encoding",
  "origin",
  "access-control-request-method",
  REQUEST_ID_HEADER,
  "content-type",
] as const;

/** The header that names the last change batch the answering graph holds. */
export const SEQUENCE_HEADER = "x-quiver-sequence";

/** The media type of a change batch. */
export const CHANGES_MEDIA_TYPE = "application/x-ndjson";

/** What takes change batches: a LiveStore (changes/live-store.ts), durable before it returns. */
export interface ChangeWriter {
  /** The graph the batches change (served for reads too). */
  readonly graph: ReadGraph;
  /**
   * Applies one batch (JSON Lines) durably and visibly, or throws a QuiverError and changes nothing.
   * A promise when the flush waits off the event loop (LiveStore.applyAsync), or when the writer is
   * another process (a cluster worker forwards the batch to the writer and settles once every worker
   * holds it): the router then answers with a `later` reply.
   */
  apply(batch: string): ChangeResult | Promise<ChangeResult>;
}

/** The body of a POST as the adapter read it: the bytes, or TOO_LARGE when it passed the limit. */
export const BODY_TOO_LARGE: unique symbol = Symbol("quiver.bodyTooLarge");

export interface RouterRequest {
  method: string;
  /** The request target as sent: origin-form (`/graph/v1/search?q=a`) or absolute-form. */
  target: string;
  headers: RequestHeaders;
  /** Bytes of the request line and headers, when the adapter knows them; over MAX_HEAD_BYTES: 414 or 431. */
  headBytes?: number | undefined;
  /** True when the adapter counted the Host headers and the HTTP/1.1 rule is broken (400, before the key). */
  badHost?: boolean | undefined;
  /** A POST's body, once the adapter has read it (route answered NEEDS_BODY); BODY_TOO_LARGE past the limit. */
  body?: Buffer | typeof BODY_TOO_LARGE | undefined;
}

/** One whole answer. */
export interface Reply {
  status: number;
  /** Header names (lower case) and values, flat: [name, value, name, value, ...]. */
  headers: string[];
  /** The body; null for HEAD, 204 and 304 (a HEAD's Content-Length still gives the GET body's length). */
  body: Buffer | null;
  /** For the request log and the error reporter. */
  requestId: string;
  /** The path the request named (never the query string), for the request log. */
  path: string;
  /** Set on a change batch whose writer answers later: the adapter sends what this settles to, not this. */
  later?: Promise<Reply>;
}

/** What the error reporter learns of the request besides the error: never a header, never the query. */
export interface ErrorContext {
  method: string;
  path: string;
  requestId: string;
}

export interface RouterOptions {
  /** The accepted API keys (each begins with `sk_`), or a function that checks one presented key. */
  apiKeys: ApiKeys;
  /**
   * Seals and opens cursors with this secret, whatever secret the graph was built with (every graph
   * served, `setGraph` included, goes through `graph.withOptions`). Servers with the same secret
   * accept each other's cursors and give the same ETags for the same content.
   */
  cursorSecret?: string | Uint8Array | undefined;
  /** The byte budget of each served graph's caches (default DEFAULT_CACHE_BYTES). */
  cacheBytes?: number | undefined;
  /** Longest request target in bytes before 414 (default 8192, the contract's). */
  maxRequestTargetBytes?: number | undefined;
  /** CORS: "*" or the origins a browser page may call from; off when left out (cors.ts). */
  cors?: CorsOrigins | undefined;
  /**
   * gzip and brotli for bodies of at least `thresholdBytes` (default 1024) when the client accepts
   * them (default on); false sends every body as it is (behind a proxy that compresses, say).
   */
  compression?: boolean | { thresholdBytes?: number } | undefined;
  /** Called with every unexpected fault (the 500s); default: the adapter's (one JSON line on stderr). */
  onError?: ErrorReporter | undefined;
  /**
   * The explorer page (`loadExplorer()`, explorer.ts), served at "/" and under "/explorer/" with no
   * key. Left out (the default), those paths are 404 like any other: a host app owns its "/".
   */
  explorer?: Explorer | undefined;
  /**
   * The writer of change batches (a LiveStore): serves `POST /graph/v1/changes`, and its graph is the
   * one to serve. Left out, the path is 404.
   */
  changes?: ChangeWriter | undefined;
  /** The keys that may write (each begins with `sk_`); they read too. A read key gets 403 on the changes path. */
  writeKeys?: ApiKeys | undefined;
  /** Largest change batch body in bytes before 413 (default MAX_CHANGE_BODY_BYTES). */
  maxChangeBytes?: number | undefined;
}

/** Where an unexpected fault is reported. */
export type ErrorReporter = (error: unknown, context: ErrorContext) => void;

/** The options, checked and compiled once per handler. */
export interface RouterConfig {
  readonly verifyKey: (presented: HeaderValue) => AuthFailure;
  readonly cursorSecret: string | Uint8Array | undefined;
  readonly cacheBytes: number | undefined;
  readonly maxTargetBytes: number;
  readonly cors: CorsPolicy | null;
  /** Smallest body compressed; Infinity when compression is off. */
  readonly compressFrom: number;
  readonly onError: ErrorReporter;
  /** The adapter's reporter: the default onError, and where a fault goes when onError throws. */
  readonly defaultReporter: ErrorReporter;
  readonly explorer: Explorer | null;
  readonly changes: ChangeWriter | null;
  /** Null when no key may write. */
  readonly verifyWriteKey: ((presented: HeaderValue) => AuthFailure) | null;
  readonly maxChangeBytes: number;
}

/**
 * The options, checked and compiled once per handler; `defaultReporter` is the adapter's (this file
 * writes nowhere: adapter-kit.ts's `compileOptions` passes one that writes to stderr).
 */
export function compileRouterOptions(options: RouterOptions, defaultReporter: ErrorReporter): RouterConfig {
  checkObject(options, "the handler options ({apiKeys, ...})", false);
  const compression = options.compression ?? true;
  return {
    verifyKey: createKeyVerifier(options.apiKeys),
    cursorSecret: options.cursorSecret,
    cacheBytes: options.cacheBytes,
    maxTargetBytes: options.maxRequestTargetBytes ?? MAX_REQUEST_TARGET_BYTES,
    cors: corsPolicy(options.cors),
    compressFrom:
      compression === false
        ? Number.POSITIVE_INFINITY
        : ((compression === true ? undefined : compression.thresholdBytes) ?? DEFAULT_COMPRESSION_THRESHOLD_BYTES),
    onError: options.onError ?? defaultReporter,
    defaultReporter,
    explorer: options.explorer ?? null,
    changes: options.changes ?? null,
    verifyWriteKey: options.writeKeys === undefined ? null : createKeyVerifier(options.writeKeys),
    maxChangeBytes: options.maxChangeBytes ?? MAX_CHANGE_BODY_BYTES,
  };
}

/** One graph as served: the graph (with the handler's options), and the seed of its tags. */
export interface Served {
  readonly graph: ReadGraph;
  readonly config: RouterConfig;
  /** The secret's part of the tags (caching.ts). */
  readonly secretTag: string;
  /** Content, secret and wire format, folded once per content tag (a live graph's changes with each batch). */
  seed: { contentTag: string; tagSeed: TagSeed };
}

/** The seed of the tags for the graph's content now: folded again only when a batch changed it. */
function currentSeed(served: Served): TagSeed {
  const contentTag = served.graph.contentTag;
  if (served.seed.contentTag !== contentTag)
    served.seed = { contentTag, tagSeed: tagSeed(contentTag, served.secretTag) };
  return served.seed.tagSeed;
}

/**
 * Prepares a graph for serving. Cost: none beyond reading `graph.contentTag` (computed as the graph
 * was built, or read from its snapshot); `graph.stats()` is never called here.
 */
export function serveGraph(graph: Graph | ReadGraph, config: RouterConfig): Served {
  // A live graph (or any read graph that is not a built Graph) keeps its own secret and caches: its
  // writer made it with the server's secret.
  if (typeof (graph as Partial<Graph> | null)?.withOptions !== "function" && isReadGraph(graph)) {
    const secret = secretTag(config.cursorSecret);
    return {
      graph,
      config,
      secretTag: secret,
      seed: { contentTag: graph.contentTag, tagSeed: tagSeed(graph.contentTag, secret) },
    };
  }
  // A call from plain JavaScript may pass anything: refused here, not by a 500 on every request.
  if (typeof (graph as Partial<Graph> | null)?.withOptions !== "function")
    throw new QuiverError(
      "INVALID_PARAMETER",
      "graph must be a Graph (from GraphBuilder.build(), loadGraph() or openSnapshot()).",
      { parameter: "graph" },
    );
  const { cursorSecret, cacheBytes } = config;
  const built = graph as Graph;
  // Only the options given replace the graph's own: an absent secret keeps the graph's secret.
  const served =
    cursorSecret === undefined && cacheBytes === undefined
      ? built
      : built.withOptions({
          ...(cursorSecret === undefined ? {} : { cursorSecret }),
          ...(cacheBytes === undefined ? {} : { cacheBytes }),
        });
  const secret = secretTag(cursorSecret);
  return {
    graph: served,
    config,
    secretTag: secret,
    seed: { contentTag: served.contentTag, tagSeed: tagSeed(served.contentTag, secret) },
  };
}

function isReadGraph(graph: unknown): graph is ReadGraph {
  const g = graph as Partial<ReadGraph> | null;
  return (
    typeof g?.search === "function" &&
    typeof g.statements === "function" &&
    typeof g.getEntity === "function" &&
    typeof g.sequence === "number"
  );
}

/**
 * What `route` answers when a POST on the changes path passed every check that needs no body: the
 * adapter reads the body (up to `config.maxChangeBytes`) and calls `route` again with it. Never sent.
 */
export const NEEDS_BODY: Reply = Object.freeze({
  status: 0,
  headers: [],
  body: null,
  requestId: "",
  path: "",
});

const ALLOWED_METHODS = "GET, HEAD";
const CHANGES_ALLOWED_METHODS = "POST";
const PATH_LIST = ROUTE_PATHS.join(", ");
/** Why the changes path is not there: the server was not asked to take changes. */
const NO_CHANGES =
  "this server takes no changes (quiver serve --changes DIR takes them, an embedded handler with its changes option)";
const HEALTH_BODY = Buffer.from('{"status":"ok"}');
const INTERNAL_ERROR_MESSAGE =
  "The server met an unexpected fault and did not complete the request; try again, and report it if it persists.";
const OPENAPI_DIGEST = bytesDigest(OPENAPI_JSON);
/** The document in each coding, made on first use (three fixed buffers at most). */
const openapiBodies: Partial<Record<ContentEncoding, Buffer>> = { identity: OPENAPI_JSON };

/**
 * The contract's edge, checked before anything else on every path (a pre-route such as /metrics
 * included): a head past the bound, a broken Host rule, a raw "#" in the target.
 */
export function edgeProblem(request: RouterRequest, maxTargetBytes: number): RequestProblem | undefined {
  // A head node read whole but the contract bounds: answered before anything else.
  if (request.headBytes !== undefined && request.headBytes > MAX_HEAD_BYTES)
    return { kind: "head-too-large", targetTooLong: longerThan(request.target, maxTargetBytes) };
  if (request.badHost === true) return { kind: "host" };
  // A fragment never reaches a server (RFC 9112 origin-form has none): a raw "#" is a byte that
  // must be percent-encoded, never data nor a path's end.
  if (request.target.includes("#")) return { kind: "invalid-target" };
  return undefined;
}

/** The answer to one request. Never throws: a fault becomes a 500. */
export function route(served: Served, request: RouterRequest): Reply {
  const { config } = served;
  const { method, target, headers } = request;
  const requestId = requestIdOf(headers[REQUEST_ID_HEADER]);
  const { path, query } = splitTarget(target);
  const origin = config.cors === null ? null : config.cors.allow(headers["origin"]);
  const at: Context = {
    requestId,
    path,
    head: method === "HEAD",
    config,
    origin,
    sequence: null,
    allow: ALLOWED_METHODS,
  };
  try {
    const problem = edgeProblem(request, config.maxTargetBytes);
    if (problem !== undefined) return problemAnswer(at, problem);
    const known = routeOf(path);
    // The changes path exists only on a server that takes changes.
    const name = known === "changes" && config.changes === null ? undefined : known;
    // CORS preflight: before the key, which browsers never send on a preflight.
    if (
      method === "OPTIONS" &&
      origin !== null &&
      name !== undefined &&
      headers["access-control-request-method"] !== undefined
    ) {
      return preflight(at, name === "changes");
    }
    if (isDataRoute(name)) {
      // Every answer of a data endpoint names the graph's last batch, a refused key's too (CONTRACT.md
      // "Changes": every answer of the data endpoints carries X-Quiver-Sequence); no content is read.
      at.sequence = String(served.graph.sequence);
      const presented = headers[API_KEY_HEADER];
      const failure = config.verifyKey(presented);
      // A write key reads too.
      if (failure !== null && (config.verifyWriteKey === null || config.verifyWriteKey(presented) !== null))
        return error(at, failure.code, failure.message);
    }
    if (name === "changes") return changesAnswer(at, served, request, query);
    if (longerThan(target, config.maxTargetBytes)) return targetTooLong(at);
    if (config.explorer !== null && isExplorerPath(path)) return explorerAnswer(at, method, headers, config.explorer);
    if (name === undefined) {
      // Each branch: the changes path on a server that takes none (say how one takes them); any other.
      const why = known === "changes" ? `: ${NO_CHANGES}` : "";
      return error(at, "NOT_FOUND", `There is nothing at ${quote(path)}${why}; the paths are ${PATH_LIST}.`);
    }
    if (method !== "GET" && method !== "HEAD") {
      return error(at, "METHOD_NOT_ALLOWED", `${path} answers GET and HEAD only, not ${method}.`);
    }
    switch (name) {
      case "search": {
        const params = parseSearchParams(query);
        return dataAnswer(at, headers, served, searchDigest(currentSeed(served), params, SEARCH_DEFAULT_LIMIT), () =>
          entityPage(served.graph.search(params)),
        );
      }
      case "statements": {
        const params = parseStatementsParams(query);
        return dataAnswer(
          at,
          headers,
          served,
          statementsDigest(currentSeed(served), params, STATEMENTS_DEFAULT_LIMIT),
          () => statementPage(served.graph.statements(params)),
        );
      }
      case "entity": {
        const entityId = parseEntityLookup(path, query);
        return dataAnswer(at, headers, served, tagDigest(currentSeed(served), entityKey(entityId)), () => {
          const entity = served.graph.getEntity(entityId);
          if (entity === undefined) {
            throw new QuiverError(
              "ENTITY_NOT_FOUND",
              `The graph has no entity with the entityId ${quote(entityId)}; search finds entities by name (${ROUTES.search}?q=...).`,
            );
          }
          return entityBody(entity);
        });
      }
      case "health":
        return answer(at, S.STATUS_OK, HEALTH_BODY, []);
      default:
        return openapiAnswer(at, headers);
    }
  } catch (e) {
    return fault(at, method, e);
  }
}

/** What an adapter knows of a request its parser could not read. */
export type RequestProblem =
  /** The head passed the parser's limit; `targetTooLong` when the request line alone is what made it long. */
  | { kind: "head-too-large"; targetTooLong: boolean }
  /** A request line or header that is not HTTP/1.x. */
  | { kind: "malformed" }
  /** A method token that no registry holds (`FOO`, `get`: methods are case-sensitive). */
  | { kind: "unknown-method"; method: string }
  /** A byte in the target that must be percent-encoded. */
  | { kind: "invalid-target" }
  /** Not one Host header in HTTP/1.1, or two in any version. */
  | { kind: "host" }
  /** The head (or the body) did not arrive in time. */
  | { kind: "timeout" };

/**
 * The answer to a request that cannot be routed (CONTRACT.md: answered before authentication). `head`
 * when it is known to be a HEAD request (no body then); CORS headers when its `Origin` is known.
 */
export function answerProblem(
  config: RouterConfig,
  problem: RequestProblem,
  known: { head?: boolean; requestId?: string; path?: string; origin?: HeaderValue } = {},
): Reply {
  const at: Context = {
    requestId: known.requestId ?? newRequestId(),
    path: known.path ?? "",
    head: known.head === true,
    config,
    origin: config.cors === null ? null : config.cors.allow(known.origin),
    sequence: null,
    allow: ALLOWED_METHODS,
  };
  return problemAnswer(at, problem);
}

/**
 * `POST /graph/v1/changes`, past the CORS preflight: the write key (401, then 403 for a read key on
 * POST), the target's length, the method (405 `Allow: POST`), the query string (400: it takes no
 * parameter), the media type, then the body (NEEDS_BODY until the adapter has it; 413 past the
 * limit), then the writer.
 */
function changesAnswer(at: Context, served: Served, request: RouterRequest, query: string): Reply {
  const { config } = served;
  const writer = config.changes as ChangeWriter;
  const { headers, method } = request;
  // Every answer of this data endpoint names the graph's last batch, its refusals (401 and 403 too)
  // included (CONTRACT.md: every answer of the data endpoints carries X-Quiver-Sequence).
  at.sequence = String(served.graph.sequence);
  const presented = headers[API_KEY_HEADER];
  // Each branch: a write key goes on; anything else but a read key is the read check's 401 (missing or
  // rejected); a read key may not write, which is 403 on POST, the one method that writes (CONTRACT.md
  // "Errors": 403 "on POST /graph/v1/changes"). With any other method a read key goes on to the checks
  // every accepted key meets there (414, then 405 with Allow: POST), none of which writes.
  if (config.verifyWriteKey === null || config.verifyWriteKey(presented) !== null) {
    const failure = config.verifyKey(presented);
    if (failure !== null) return error(at, failure.code, failure.message);
    if (method === "POST")
      return error(
        at,
        "WRITE_FORBIDDEN",
        "This API key may read but not write; send a key from the server's write keys (QUIVER_WRITE_KEYS).",
      );
  }
  if (longerThan(request.target, config.maxTargetBytes)) return targetTooLong(at);
  at.allow = CHANGES_ALLOWED_METHODS;
  if (method !== "POST")
    return error(at, "METHOD_NOT_ALLOWED", `${at.path} answers POST only (a change batch), not ${method}.`);
  // A parameter would mean nothing here, and a client that sends one (a dry run, say) must not have
  // its batch applied as if it had not: 400 like an unknown parameter anywhere (throws; route answers).
  checkChangesQuery(query);
  if (!isChangesMediaType(headers["content-type"]))
    return error(
      at,
      "INVALID_CONTENT_TYPE",
      `A change batch is sent as Content-Type: ${CHANGES_MEDIA_TYPE} (JSON Lines, one change a line).`,
    );
  const body = request.body;
  if (body === undefined) return NEEDS_BODY;
  if (body === BODY_TOO_LARGE)
    return error(
      at,
      "CHANGES_TOO_LARGE",
      `The change batch is larger than ${config.maxChangeBytes} bytes; split it into several batches.`,
    );
  // Strict UTF-8 (throws INVALID_CHANGE naming the line): body.toString would turn a bad byte into U+FFFD.
  const text = decodeChangeBatch(body);
  const result = writer.apply(text);
  // Each branch: the writer has applied it already; or it answers later (its flush off the event loop, or another process).
  if (result instanceof Promise)
    return {
      ...NEEDS_BODY,
      later: result.then(
        (r) => changesOk(at, served, r),
        (e: unknown) => {
          // The refusal names the sequence the graph holds when it is sent (others may have applied meanwhile).
          at.sequence = String(served.graph.sequence);
          return fault(at, method, e);
        },
      ),
    };
  return changesOk(at, served, result);
}

function changesOk(at: Context, served: Served, result: ChangeResult): Reply {
  at.sequence = String(served.graph.sequence);
  const json =
    `{"sequence":${result.sequence},"entities":{"put":${result.entities.put},"deleted":${result.entities.deleted}},` +
    `"statements":{"put":${result.statements.put},"deleted":${result.statements.deleted}}}`;
  return answer(at, S.STATUS_OK, Buffer.from(json, "utf8"), ["cache-control", "no-store"]);
}

/** application/x-ndjson, in any case, with or without parameters (`; charset=utf-8`). */
function isChangesMediaType(value: HeaderValue): boolean {
  if (typeof value !== "string") return false;
  const semicolon = value.indexOf(";");
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase() === CHANGES_MEDIA_TYPE;
}

function problemAnswer(at: Context, problem: RequestProblem): Reply {
  switch (problem.kind) {
    case "head-too-large":
      return headTooLarge(at, problem.targetTooLong);
    case "unknown-method":
      return error(
        at,
        "UNKNOWN_METHOD",
        `The method ${quote(problem.method)} is not an HTTP method (method names are case-sensitive); this API answers GET and HEAD.`,
      );
    case "invalid-target":
      return error(
        at,
        "INVALID_TARGET",
        "The request target has a character that must be percent-encoded (a space, a #, a control character or a non-ASCII byte).",
      );
    case "host":
      return error(at, "INVALID_HOST", "The request must carry one Host header (HTTP/1.1 requires it), never two.");
    case "timeout":
      return error(at, "REQUEST_TIMEOUT", "The request was not received in time; send the whole request at once.");
    default:
      return error(
        at,
        "MALFORMED_REQUEST",
        "The request is not valid HTTP/1.1; check the request line and the headers.",
      );
  }
}

// ---- answers ------------------------------------------------------------------------------------

/** What every answer to one request shares. */
interface Context {
  readonly requestId: string;
  readonly path: string;
  readonly head: boolean;
  readonly config: RouterConfig;
  /** The `Access-Control-Allow-Origin` this request gets, or null. */
  readonly origin: string | null;
  /** `X-Quiver-Sequence` of a data endpoint's answers (set once the key passed), else null. */
  sequence: string | null;
  /** `Allow` of a 405 on this path. */
  allow: string;
}

/** A JSON answer: content type, length, request id, CORS, then `extra` headers. */
function answer(at: Context, status: number, body: Buffer, extra: string[]): Reply {
  const headers = [
    "content-type",
    "application/json",
    "content-length",
    String(body.length),
    REQUEST_ID_HEADER,
    at.requestId,
    ...extra,
  ];
  if (at.sequence !== null) headers.push(SEQUENCE_HEADER, at.sequence);
  addCors(at, headers);
  // HEAD: the same status and headers (Content-Length included), no body.
  return { status, headers, body: at.head ? null : body, requestId: at.requestId, path: at.path };
}

function error(at: Context, code: QuiverErrorCode, message: string): Reply {
  const status = S.statusForCode(code);
  // Each branch: a 405 says what the path answers; a 503 when to try again; others nothing more.
  const extra =
    status === S.STATUS_METHOD_NOT_ALLOWED
      ? ["allow", at.allow]
      : status === S.STATUS_SERVICE_UNAVAILABLE
        ? ["retry-after", String(CHANGE_RETRY_AFTER_SECONDS)]
        : [];
  return answer(at, status, errorBody(message, code), extra);
}

function targetTooLong(at: Context): Reply {
  return error(
    at,
    "TARGET_TOO_LONG",
    `The request target is longer than ${at.config.maxTargetBytes} bytes; shorten the query.`,
  );
}

/** CONTRACT.md: over the head limit, 414 when the target alone passes its limit, else 431. */
function headTooLarge(at: Context, targetTooLongToo: boolean): Reply {
  if (targetTooLongToo) return targetTooLong(at);
  return error(
    at,
    "HEADERS_TOO_LARGE",
    `The request head (request line and headers) is over ${MAX_HEAD_BYTES} bytes; send fewer or shorter headers.`,
  );
}

/** The 500: a fixed sentence for the client, the error itself for the reporter. */
function fault(at: Context, method: string, e: unknown): Reply {
  const code = isQuiverError(e) ? e.code : "INTERNAL_ERROR";
  const status = S.statusForCode(code);
  // Only the caller's own mistakes are echoed; a fault of ours gets the fixed sentence.
  if (status !== S.STATUS_INTERNAL_ERROR) return error(at, code, (e as QuiverError).message);
  reportFault(at.config, e, { method, path: at.path, requestId: at.requestId });
  return error(at, "INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE);
}

function preflight(at: Context, changes: boolean): Reply {
  const headers = [
    REQUEST_ID_HEADER,
    at.requestId,
    "access-control-allow-origin",
    at.origin as string,
    "access-control-allow-methods",
    changes ? CORS_CHANGES_METHODS : CORS_ALLOWED_METHODS,
    "access-control-allow-headers",
    changes ? CORS_CHANGES_HEADERS : CORS_ALLOWED_HEADERS,
    "access-control-max-age",
    String(CORS_MAX_AGE_SECONDS),
  ];
  if (at.config.cors?.varyOrigin === true) headers.push("vary", "Origin");
  return { status: S.STATUS_NO_CONTENT, headers, body: null, requestId: at.requestId, path: at.path };
}

/** CORS headers of an ordinary answer; `Vary: Origin` is added where `Vary` is written. */
function addCors(at: Context, headers: string[]): void {
  if (at.origin !== null)
    headers.push("access-control-allow-origin", at.origin, "access-control-expose-headers", CORS_EXPOSED_HEADERS);
  // Answers that differ by origin say so, even to a request without one (a cache keys them apart).
  if (at.config.cors?.varyOrigin === true && !headers.includes("vary")) headers.push("vary", "Origin");
}

/** `Vary` of a compressible answer: the coding, and the origin when CORS lists origins. */
function varyOf(config: RouterConfig): string | null {
  const byOrigin = config.cors?.varyOrigin === true;
  if (config.compressFrom === Number.POSITIVE_INFINITY) return byOrigin ? "Origin" : null;
  return byOrigin ? "Accept-Encoding, Origin" : "Accept-Encoding";
}

/**
 * A 200 of a data endpoint, or a 304: the tag comes from the canonical parameters, so a request that
 * names it is answered before `page()` runs the query (caching.ts says why that is sound).
 */
function dataAnswer(at: Context, headers: RequestHeaders, served: Served, digest: string, page: () => Buffer): Reply {
  const { config } = served;
  const encoding =
    config.compressFrom === Number.POSITIVE_INFINITY ? "identity" : negotiateEncoding(headers["accept-encoding"]);
  const ifNoneMatch = headers["if-none-match"];
  if (ifNoneMatch !== undefined) {
    // The client holds the identity bytes or the bytes in the coding it asks for now: both are current.
    const held = entityTag(digest, "identity");
    if (ifNoneMatchNames(ifNoneMatch, held)) return notModified(at, held, DATA_CACHE_CONTROL);
    const coded = entityTag(digest, encoding);
    if (encoding !== "identity" && ifNoneMatchNames(ifNoneMatch, coded))
      return notModified(at, coded, DATA_CACHE_CONTROL);
  }
  const body = page();
  return representation(at, body, digest, encoding, DATA_CACHE_CONTROL, ifNoneMatchAny(ifNoneMatch));
}

function openapiAnswer(at: Context, headers: RequestHeaders): Reply {
  const encoding =
    at.config.compressFrom === Number.POSITIVE_INFINITY ? "identity" : negotiateEncoding(headers["accept-encoding"]);
  const ifNoneMatch = headers["if-none-match"];
  for (const e of encoding === "identity" ? (["identity"] as const) : (["identity", encoding] as const)) {
    const tag = entityTag(OPENAPI_DIGEST, e);
    if (ifNoneMatchNames(ifNoneMatch, tag) || ifNoneMatchAny(ifNoneMatch)) return notModified(at, tag, null);
  }
  return representation(at, OPENAPI_JSON, OPENAPI_DIGEST, encoding, null, false);
}

/** A 200 with its tag, in the negotiated coding when the body is large enough to be worth it. */
function representation(
  at: Context,
  body: Buffer,
  digest: string,
  encoding: ContentEncoding,
  cacheControl: string | null,
  anyMatches: boolean,
): Reply {
  const coding = body.length >= at.config.compressFrom ? encoding : "identity";
  const tag = entityTag(digest, coding);
  if (anyMatches) return notModified(at, tag, cacheControl);
  const sent = coding === "identity" ? body : body === OPENAPI_JSON ? openapiIn(coding) : encodeBody(body, coding);
  const vary = varyOf(at.config);
  // answer()'s headers, written into one array of the right length (every 200 of a data endpoint
  // comes here: growing an array of extras, then the headers, by push made three arrays a request).
  const headers = new Array<string>(
    8 +
      (cacheControl === null ? 0 : 2) +
      (vary === null ? 0 : 2) +
      (coding === "identity" ? 0 : 2) +
      (at.sequence === null ? 0 : 2),
  );
  let k = 0;
  headers[k++] = "content-type";
  headers[k++] = "application/json";
  headers[k++] = "content-length";
  headers[k++] = String(sent.length);
  headers[k++] = REQUEST_ID_HEADER;
  headers[k++] = at.requestId;
  headers[k++] = "etag";
  headers[k++] = tag;
  // Each branch: a header this answer carries, in answer()'s order.
  if (cacheControl !== null) {
    headers[k++] = "cache-control";
    headers[k++] = cacheControl;
  }
  if (vary !== null) {
    headers[k++] = "vary";
    headers[k++] = vary;
  }
  if (coding !== "identity") {
    headers[k++] = "content-encoding";
    headers[k++] = coding;
  }
  if (at.sequence !== null) {
    headers[k++] = SEQUENCE_HEADER;
    headers[k++] = at.sequence;
  }
  addCors(at, headers);
  return { status: S.STATUS_OK, headers, body: at.head ? null : sent, requestId: at.requestId, path: at.path };
}

function openapiIn(coding: ContentEncoding): Buffer {
  let body = openapiBodies[coding];
  if (body === undefined) openapiBodies[coding] = body = encodeBody(OPENAPI_JSON, coding);
  return body;
}

/** 304: the validators and the headers a 200 would carry that caches need (RFC 9110 section 15.4.5); no body. */
function notModified(at: Context, tag: string, cacheControl: string | null): Reply {
  const headers = [REQUEST_ID_HEADER, at.requestId, "etag", tag];
  if (at.sequence !== null) headers.push(SEQUENCE_HEADER, at.sequence);
  if (cacheControl !== null) headers.push("cache-control", cacheControl);
  const vary = varyOf(at.config);
  if (vary !== null) headers.push("vary", vary);
  addCors(at, headers);
  return { status: S.STATUS_NOT_MODIFIED, headers, body: null, requestId: at.requestId, path: at.path };
}

/** The explorer's page or one of its assets (explorer.ts): no key, GET and HEAD only. */
function explorerAnswer(at: Context, method: string, headers: RequestHeaders, explorer: Explorer): Reply {
  const asset = explorerAsset(explorer, at.path);
  if (asset === undefined)
    return error(at, "NOT_FOUND", `There is nothing at ${quote(at.path)}; the explorer is at /.`);
  if (method !== "GET" && method !== "HEAD") {
    return error(at, "METHOD_NOT_ALLOWED", `${at.path} answers GET and HEAD only, not ${method}.`);
  }
  const {
    status,
    headers: out,
    body,
  } = assetAnswer(asset, headers, at.config.compressFrom !== Number.POSITIVE_INFINITY);
  out.push(REQUEST_ID_HEADER, at.requestId);
  return { status, headers: out, body: at.head ? null : body, requestId: at.requestId, path: at.path };
}

/**
 * True when a target has more than `max` bytes of UTF-8. node only lets ASCII through, but another
 * adapter or an embedder may not; a target of at most max/3 characters cannot pass, and is not measured.
 */
function longerThan(target: string, max: number): boolean {
  return target.length > max || (target.length * 3 > max && Buffer.byteLength(target, "utf8") > max);
}

// ---- the error reporter -------------------------------------------------------------------------

/** The embedder's onError, itself guarded: a throwing reporter falls back to the adapter's default. */
export function reportFault(config: RouterConfig, error: unknown, context: ErrorContext): void {
  try {
    config.onError(error, context);
  } catch (secondary) {
    config.defaultReporter(secondary, context);
    config.defaultReporter(error, context);
  }
}

/**
 * node:http adapter
 * =================
 * Translation only, between node's `IncomingMessage`/`ServerResponse` and the router's plain data:
 *
 * - `createHandler(graph, options)`: a `(req, res)` listener for any node:http server. It reads the
 *   method, the target and the headers, counts the head's bytes and its Host headers from
 *   `rawHeaders` in one pass (no header object is built, nothing lower-cased), asks `route`, and
 *   writes the reply with `writeReply`. `handler.setGraph(g)` serves new requests from `g`;
 *   requests already started finish on the graph they began with.
 * - `handler.attach(server)`: what node would otherwise answer itself, outside the contract, goes
 *   through the router too: requests node's parser refuses (`clientError`: a head past its limit,
 *   a malformed request line, a method it does not know, a timeout), an `Expect` other than
 *   100-continue (node: a bare 417), `CONNECT` (node: the connection closed unanswered), a missing
 *   Host (node: 400 with no body). It also raises node's header limit to PARSER_MAX_HEADER_BYTES
 *   so that heads over the contract's 16 KB are read whole and classified exactly (limits.ts).
 *   `createServer`/`serve` call it; an embedder with its own `http.createServer` calls it once.
 * - `createMiddleware(graph, options)`: the same handler as an Express-style `(req, res, next)`
 *   middleware that answers its four paths and passes every other on, so it mounts under a prefix
 *   in an existing app (`app.use("/quiver", middleware)`: Express hands it the path past the prefix).
 * - `writeReply(out, reply)`: the one writer of every answer, to a `ServerResponse` or, for a request
 *   node's parser gave up on, to the raw socket (then the connection is closed).
 *
 * Per request: `performance.now()` twice when a log is configured, one loop over `rawHeaders`, the
 * router, one `writeHead` with the headers as a flat array (no per-request header object), one
 * `end` with the body's single buffer.
 */

import http, { type IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Graph } from "../engine/graph.js";
import type { ReadGraph } from "../engine/read-graph.js";
import { compileOptions, logReply, type HandlerOptions } from "./adapter-kit.js";
import { CLIENT_ERROR_LINGER_MS, PARSER_MAX_HEADER_BYTES, UNREAD_HEAD_TIMEOUT_MS } from "./limits.js";
import { REGISTERED_METHODS } from "./methods.js";
import { headEnd, leadingToken, parseRawHead, startsRequestLine } from "./raw-head.js";
import {
  BODY_TOO_LARGE,
  NEEDS_BODY,
  answerProblem,
  route,
  serveGraph,
  type Reply,
  type RequestProblem,
  type RouterRequest,
  type Served,
} from "./router.js";
import { ROUTES, routeOf, splitTarget } from "./routes.js";

export interface QuiverHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The graph new requests are served from. */
  readonly graph: Graph | ReadGraph;
  /** Serves new requests from `graph`; requests already started finish on the graph they began with. */
  setGraph(graph: Graph | ReadGraph): void;
  /**
   * Makes `server` answer as the contract says what node would answer itself (see the banner).
   * `listener` is what the server's requests go through (default: this handler).
   */
  attach(server: http.Server, listener?: http.RequestListener): void;
}

export type NextFunction = (error?: unknown) => void;

export interface QuiverMiddleware {
  (req: IncomingMessage, res: ServerResponse, next: NextFunction): void;
  readonly graph: Graph;
  setGraph(graph: Graph): void;
  attach(server: http.Server, listener?: http.RequestListener): void;
}

export function createHandler(graph: Graph | ReadGraph, options: HandlerOptions): QuiverHandler {
  const config = compileOptions(options);
  let served = serveGraph(graph, config);
  const { log } = options;

  /** Writes a reply and logs it; no closure is made a request unless its answer comes later. */
  const finish = (res: ServerResponse, method: string, final: Reply, started: number): void => {
    // A change batch applied by another process: its answer comes when the writer's does.
    if (final.later !== undefined) {
      void final.later.then((later) => finish(res, method, later, started));
      return;
    }
    writeReply(res, final);
    if (log !== undefined) logReply(config, log, method, final, started);
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = log === undefined ? 0 : performance.now();
    const request = requestOf(req);
    const reply = route(served, request);
    // A change batch: the router has checked all it can without the body; it gets the body now.
    if (reply === NEEDS_BODY) {
      const at = served;
      readBody(
        req,
        config.maxChangeBytes,
        (body) => finish(res, request.method, route(at, { ...request, body }), started),
        // Each branch: a client waiting for 100 Continue (attachTo's checkContinue) is told to send
        // the body only now, once nothing but the body can refuse it; any other has sent it already.
        AWAITING_CONTINUE.has(req) ? () => res.writeContinue() : undefined,
      );
      return;
    }
    finish(res, request.method, reply, started);
  };

  return Object.defineProperties(handler, {
    graph: { get: () => served.graph, enumerable: true },
    setGraph: {
      value: (next: Graph | ReadGraph) => {
        served = serveGraph(next, config);
      },
    },
    attach: {
      value: (server: http.Server, listener: http.RequestListener = handler) =>
        attachTo(server, listener, () => served, log, true),
    },
    // The middleware's attach: the server is the host app's (see attachTo).
    [ATTACH_SHARED]: {
      value: (server: http.Server, listener: http.RequestListener) =>
        attachTo(server, listener, () => served, log, false),
    },
  }) as QuiverHandler;
}

export function createMiddleware(graph: Graph, options: HandlerOptions): QuiverMiddleware {
  const handler = createHandler(graph, options);
  const middleware = (req: IncomingMessage, res: ServerResponse, next: NextFunction): void => {
    // Not one of ours: the app's other routes (or its 404) decide.
    if (routeOf(splitTarget(req.url ?? "/").path) === undefined) next();
    else handler(req, res);
  };
  return Object.defineProperties(middleware, {
    graph: { get: () => handler.graph, enumerable: true },
    setGraph: { value: (next: Graph) => handler.setGraph(next) },
    attach: {
      value: (server: http.Server, listener: http.RequestListener = handler) =>
        (handler as unknown as { [ATTACH_SHARED]: AttachShared })[ATTACH_SHARED](server, listener),
    },
  }) as QuiverMiddleware;
}

/** Requests whose client waits for 100 Continue before it sends the body (attachTo's checkContinue). */
const AWAITING_CONTINUE = new WeakSet<IncomingMessage>();

/**
 * Reads a request's body into one buffer, up to `max` bytes; past it, `BODY_TOO_LARGE`, at once when
 * Content-Length says so (not a byte read), else as soon as the count passes it. The rest is left
 * to node, which discards it after the answer (nothing more is held). A request that breaks off
 * gets no answer (its connection is gone).
 */
function readBody(
  req: IncomingMessage,
  max: number,
  then: (body: Buffer | typeof BODY_TOO_LARGE) => void,
  beforeReading?: () => void,
): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > max) {
    then(BODY_TOO_LARGE);
    return;
  }
  beforeReading?.();
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > max) {
      settled = true;
      chunks.length = 0;
      req.off("data", onData);
      req.off("end", onEnd);
      req.resume();
      then(BODY_TOO_LARGE);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    if (settled) return;
    settled = true;
    then(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  };
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", () => {
    settled = true;
  });
}

/** The router's view of a node request, with the head's size and the Host rule from one pass. */
export function requestOf(req: IncomingMessage): RouterRequest {
  const method = req.method ?? "";
  const target = req.url ?? "/";
  const raw = req.rawHeaders;
  // The head's bytes through its blank line: the request line "METHOD SP target SP HTTP/1.1 CRLF"
  // (12 bytes besides method and target), the final CRLF (2), each header "name: value CRLF" (4
  // besides name and value). Counted as every common client writes a header, one space after the
  // colon: node has already cut any other whitespace around a value, which goes uncounted here
  // (node's own PARSER_MAX_HEADER_BYTES still bounds it).
  let headBytes = method.length + target.length + 14;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    headBytes += name.length + (raw[i + 1] as string).length + 4;
    if (name.length === 4 && name.toLowerCase() === "host") hosts++;
  }
  return { method, target, headers: req.headers, headBytes, badHost: hostRuleBroken(req, hosts) };
}

/** RFC 9112 section 3.2: exactly one Host in HTTP/1.1; never two in any version. */
function hostRuleBroken(req: IncomingMessage, hosts: number): boolean {
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? hosts !== 1 : hosts > 1;
}

// ---- writing ------------------------------------------------------------------------------------

/**
 * Writes one reply. To a ServerResponse: `writeHead` with the flat header array, then `end` with the
 * body (none for HEAD, 204, 304). To a raw socket, for a request node's parser gave up on: the status
 * line and headers by hand, `Connection: close`, then the connection is half-closed and cut after
 * CLIENT_ERROR_LINGER_MS, so a client that never closes its side cannot keep the socket.
 */
export function writeReply(out: ServerResponse | Duplex, reply: Reply): void {
  if (out instanceof ServerResponse) {
    out.writeHead(reply.status, reply.headers);
    if (reply.body === null) out.end();
    else out.end(reply.body);
    return;
  }
  let head = `HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status] ?? ""}\r\n`;
  const h = reply.headers;
  for (let i = 0; i < h.length; i += 2) head += `${h[i]}: ${h[i + 1]}\r\n`;
  head += "connection: close\r\n\r\n";
  out.end(reply.body === null ? Buffer.from(head, "latin1") : Buffer.concat([Buffer.from(head, "latin1"), reply.body]));
  const linger = setTimeout(() => out.destroy(), CLIENT_ERROR_LINGER_MS);
  linger.unref();
  out.once("close", () => clearTimeout(linger));
}

// ---- attach: what node would answer itself ------------------------------------------------------

/** The middleware's way to the handler's attach for a server that is not Quiver's alone. */
const ATTACH_SHARED = Symbol("quiver.attachShared");
type AttachShared = (server: http.Server, listener: http.RequestListener) => void;

/**
 * The path a request names, with any mount prefix before one of Quiver's paths cut off (the path
 * itself, so an entity lookup keeps its id); undefined if it names none of Quiver's paths.
 */
function quiverPathOf(url: string): string | undefined {
  const { path } = splitTarget(url);
  if (routeOf(path) !== undefined) return path;
  // Under a mount prefix: /healthz by its end, every other path from its "/graph/v1/" on.
  if (path.endsWith(ROUTES.health)) return ROUTES.health;
  const at = path.indexOf(API_PATH_PREFIX);
  return at > 0 && routeOf(path.slice(at)) !== undefined ? path.slice(at) : undefined;
}

/** What every Quiver path but /healthz begins with. */
const API_PATH_PREFIX = "/graph/v1/";

/** Marks a socket whose parser failed and that this adapter has taken over. */
const TAKEN = Symbol("quiver.takenOver");

function attachTo(
  server: http.Server,
  listener: http.RequestListener,
  current: () => Served,
  log: HandlerOptions["log"],
  ownsServer: boolean,
): void {
  // Heads between the contract's 16 KB and this are read whole, then classified by the router; a
  // limit the embedder chose is theirs.
  const limited = server as http.Server & { maxHeaderSize?: number; requireHostHeader?: boolean };
  if (limited.maxHeaderSize === undefined) limited.maxHeaderSize = PARSER_MAX_HEADER_BYTES;
  // node drops headers past maxHeadersCount (about a thousand by default) from rawHeaders, which
  // the head's size is counted from: keep them all (the byte limit above still bounds them).
  if (server.maxHeadersCount === null) server.maxHeadersCount = 0;
  server.on("clientError", (error: ParserError, socket: Duplex) => onClientError(error, socket, current, log));
  // Each branch: the server is Quiver's alone (createHandler), or a host app's that mounts the
  // middleware, whose own requests keep node's behaviour (its Host check, its 417, CONNECT closed).
  if (!ownsServer) {
    // Expect other than 100-continue on one of Quiver's paths (under any mount prefix): served as if
    // the header were absent; on the app's paths, node's own 417.
    server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
      const path = quiverPathOf(req.url ?? "/");
      if (path === undefined) {
        res.writeHead(417);
        res.end();
        return;
      }
      const url = req.url ?? "/";
      const at = url.indexOf(path);
      req.url = url.slice(at);
      listener(req, res);
    });
    return;
  }
  // node's own Host check answers 400 with no body; the handler checks the rule instead.
  limited.requireHostHeader = false;
  // Expect: 100-continue (curl sends it for a body over 1 MiB): node would send 100 at once, so a
  // client uploads a change batch that the router then refuses (401, 403, 405, 413 by its length)
  // and throws away. The request goes to the handler as it is, and the 100 goes out only when the
  // router asks for the body (NEEDS_BODY: readBody's beforeReading); a refusal comes instead of it.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    AWAITING_CONTINUE.add(req);
    listener(req, res);
  });
  // Expect other than 100-continue: served as if the header were absent (RFC 9110 section 10.1.1
  // lets a server ignore an expectation it does not support) rather than node's bare 417.
  server.on("checkExpectation", listener);
  // CONNECT: node hands over the raw socket and, with no listener, closes it unanswered. It is
  // never a tunnel here: answer it like any other method on that socket, then close.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy()); // node removed its own error listener from this socket
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on("finish", () => {
      res.detachSocket(socket);
      socket.destroySoon();
    });
    listener(req, res);
  });
}

interface ParserError extends Error {
  code?: string;
  rawPacket?: unknown;
  bytesParsed?: number;
}

/** Errors node's parser reports before there is a request to hand to the handler. */
function onClientError(error: ParserError, socket: Duplex, current: () => Served, log: HandlerOptions["log"]): void {
  const held = socket as Duplex & { [TAKEN]?: boolean; _httpMessage?: ServerResponse | null };
  // Further data on a socket we read ourselves makes node's failed parser report again: ours already.
  if (held[TAKEN] === true) return;
  // A reset cannot take an answer: just drop the connection (node does the same).
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  held[TAKEN] = true;
  // A bad request pipelined behind one still being answered (both in one read): its answer
  // follows that response's last byte, in order, as pipelining requires; a response that ends
  // without finishing (the connection went) takes the socket with it.
  // A timeout while an answer waits for a client that does not read: that client gets nothing more.
  const pending = held._httpMessage;
  if (pending != null && !pending.writableFinished) {
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      socket.destroy();
      return;
    }
    // Bounded: a response that never finishes (its reader stalls) does not hold the socket.
    const giveUp = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
    giveUp.unref();
    pending.once("finish", () => {
      clearTimeout(giveUp);
      answerClientError(error, socket, current, log);
    });
    pending.once("close", () => {
      if (!pending.writableFinished) socket.destroy();
    });
    return;
  }
  answerClientError(error, socket, current, log);
}

/** The answer to a request node's parser refused, written on the socket by hand. */
function answerClientError(
  error: ParserError,
  socket: Duplex,
  current: () => Served,
  log: HandlerOptions["log"],
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const started = performance.now();
  const served = current();
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : Buffer.alloc(0);
  const answer = (reply: Reply, method: string): void => {
    writeReply(socket, reply);
    if (log !== undefined) logReply(served.config, log, method, reply, started);
  };
  // A method node does not know: whether HTTP registers it decides between 405/401 and 400, so the
  // request is read on (PRI is known to node only as HTTP/2's preface, so it fails at the version).
  if (error.code === "HPE_INVALID_METHOD" || error.code === "HPE_INVALID_VERSION") {
    const request = raw.subarray(requestStart(raw, error.bytesParsed ?? 0));
    const lead = leadingToken(request);
    if (error.code === "HPE_INVALID_METHOD" || (lead.kind === "token" && lead.token === "PRI")) {
      readUnreadRequest(socket, request, served, answer);
      return;
    }
  }
  const problem = problemOf(error, raw, served.config.maxTargetBytes);
  const lead = leadingToken(raw);
  const method = lead.kind === "token" ? lead.token : "";
  // An answer to HEAD has no body (RFC 9110 section 9.3.2), even when the parser gave up on the rest.
  answer(answerProblem(served.config, problem, { head: method === "HEAD" }), method);
}

/**
 * Where the failed request starts in the read that failed: after whatever that read held of earlier,
 * pipelined requests. The parser stops inside the method, or just past the request line's CRLF
 * when the version is what it refused.
 */
function requestStart(raw: Buffer, bytesParsed: number): number {
  let end = Math.min(bytesParsed, raw.length);
  if (end > 0 && raw[end - 1] === 0x0a) end--;
  if (end > 0 && raw[end - 1] === 0x0d) end--;
  return end === 0 ? 0 : raw.lastIndexOf(0x0a, end - 1) + 1;
}

function problemOf(error: ParserError, raw: Buffer, maxTarget: number): RequestProblem {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { kind: "head-too-large", targetTooLong: requestLineTooLong(raw, maxTarget) };
    case "HPE_INVALID_URL":
      return { kind: "invalid-target" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { kind: "timeout" };
    default:
      return { kind: "malformed" };
  }
}

/**
 * Past node's header limit: whether the request line alone passes the target limit. The bytes at
 * hand are the read in which node gave up. PARSER_MAX_HEADER_BYTES is below the 64 KB node reads at
 * a time, so a head that arrives at once overflows within its first read, which starts with the
 * request line: its end (or its absence) decides. When the head came in several reads and the one
 * that overflowed does not hold its start, the start is gone: the overflow is taken for long
 * headers (431). That is the one case the contract's 414 is missed (a head over
 * PARSER_MAX_HEADER_BYTES, in pieces, whose target passes the limit; README "Known edges").
 */
function requestLineTooLong(raw: Buffer, maxTarget: number): boolean {
  if (!startsRequestLine(raw)) return false;
  const lineEnd = raw.indexOf(0x0a);
  const lineBytes = lineEnd === -1 ? raw.length : lineEnd;
  // "METHOD SP target SP HTTP/1.1 CR": the target is the line less the method and about 11 bytes.
  const method = raw.indexOf(0x20);
  return lineBytes - method - 11 > maxTarget;
}

/**
 * A method node does not know: read on from the socket (node's parser has failed, so its bytes come
 * to us) until the method is complete. One HTTP does not register is 400 at once; a registered one
 * is read to the end of its head and routed like any request (401 first on the data endpoints, 405
 * elsewhere). Bounded by PARSER_MAX_HEADER_BYTES and UNREAD_HEAD_TIMEOUT_MS; the connection is
 * closed after the answer.
 */
function readUnreadRequest(
  socket: Duplex,
  first: Buffer,
  served: Served,
  answer: (reply: Reply, method: string) => void,
): void {
  let bytes = first;
  let done = false;
  const finish = (reply: Reply, method: string): void => {
    done = true;
    clearTimeout(timer);
    socket.off("data", onData);
    answer(reply, method);
  };
  /** Answers once the bytes so far decide; false while they do not. */
  const decide = (): boolean => {
    const lead = leadingToken(bytes);
    if (lead.kind === "incomplete") return false;
    if (lead.kind === "bad") {
      finish(answerProblem(served.config, { kind: "malformed" }), "");
      return true;
    }
    const method = lead.token;
    if (!REGISTERED_METHODS.has(method)) {
      finish(answerProblem(served.config, { kind: "unknown-method", method }), method);
      return true;
    }
    if (headEnd(bytes) === -1) {
      if (bytes.length <= PARSER_MAX_HEADER_BYTES) return false;
      const targetTooLong = requestLineTooLong(bytes, served.config.maxTargetBytes);
      finish(answerProblem(served.config, { kind: "head-too-large", targetTooLong }), method);
      return true;
    }
    const head = parseRawHead(bytes);
    if (head === null) {
      finish(answerProblem(served.config, { kind: "malformed" }), method);
      return true;
    }
    const request = {
      method,
      target: head.target,
      headers: head.headers,
      headBytes: head.bytes,
      badHost: head.minor === 1 ? head.hosts !== 1 : head.hosts > 1,
    };
    finish(route(served, request), method);
    return true;
  };
  const onData = (chunk: Buffer): void => {
    if (done) return;
    bytes = Buffer.concat([bytes, chunk]);
    decide();
  };
  const timer = setTimeout(() => {
    if (!done) finish(answerProblem(served.config, { kind: "timeout" }), "");
  }, UNREAD_HEAD_TIMEOUT_MS);
  timer.unref();
  if (decide()) return;
  // Adding a data listener makes node hand the socket's bytes to JavaScript (its parser has failed).
  socket.on("data", onData);
  socket.once("close", () => {
    done = true;
    clearTimeout(timer);
  });
}

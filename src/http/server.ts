/**
 * HTTP server
 * ===========
 * `createServer(handler)` wraps a handler in a node:http server set for production, and `serve(...)`
 * also listens and hands back a `close()` that drains. Owns the connection-level concerns only:
 *
 * - keep-alive on (HTTP persistent connections, TCP keep-alive probes on each socket), and a listen
 *   backlog (LISTEN_BACKLOG) deep enough that a burst of connections does not drop new ones;
 * - `headersTimeout` and `requestTimeout` against slow clients, header size bounded (limits.ts);
 * - errors node's parser raises before a request exists (`clientError`) answered as the contract's
 *   JSON errors: a request line that alone overflows the header limit is 414 (the contract's rule for
 *   a long target, which the handler cannot see past node's limit), other header overflows 431, a
 *   timeout 408, anything else 400; the connection is then cut after CLIENT_ERROR_LINGER_MS, so a
 *   client that never closes its side cannot keep the socket;
 * - requests node would otherwise answer itself, with a body that is not the contract's JSON or with
 *   no answer at all, all go through the handler: an `Expect` other than `100-continue` (node: 417
 *   with an empty body) is ignored as RFC 9110 allows, and a `CONNECT` (node: the connection closed
 *   without a word) is answered like any other method (405 on a known path, 404 elsewhere, 401 first
 *   on the data endpoints), then the connection is closed;
 * - the Host rule of HTTP/1.1 (RFC 9112 section 3.2: exactly one `Host` header, else 400) answered
 *   as the contract's JSON error (node's own check answers 400 with an empty body);
 * - graceful close: stop accepting, close idle connections, let requests in flight finish (their
 *   responses carry `Connection: close`), cut off whatever is left after DRAIN_TIMEOUT_MS.
 */

import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Graph } from "../engine/graph.js";
import { createHandler, type HandlerOptions, type QuiverHandler } from "./handler.js";
import {
  CLIENT_ERROR_LINGER_MS,
  CONNECTIONS_CHECK_INTERVAL_MS,
  DRAIN_TIMEOUT_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  LISTEN_BACKLOG,
  MAX_HEADER_BYTES,
  MAX_REQUEST_TARGET_BYTES,
  REQUEST_TIMEOUT_MS,
} from "./limits.js";
import { errorBody } from "./serialize.js";
import * as S from "./status.js";

export interface ServerLimits {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  connectionsCheckIntervalMs?: number;
  maxHeaderBytes?: number;
  drainTimeoutMs?: number;
}

/** A server that can be closed gracefully. */
export interface QuiverServer extends http.Server {
  /** Stops accepting, lets requests in flight finish, resolves when every connection is gone. */
  drain(): Promise<void>;
}

export function createServer(handler: http.RequestListener, limits: ServerLimits = {}): QuiverServer {
  let closing = false;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // While draining, answer what is in flight but do not keep the connection for more.
    if (closing) res.shouldKeepAlive = false;
    if (!hostHeaderValid(req)) {
      const body = errorBody("The request must carry one Host header (HTTP/1.1 requires it), never two.");
      res.writeHead(S.STATUS_BAD_REQUEST, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    handler(req, res);
  };
  const server = http.createServer(
    {
      keepAlive: true,
      maxHeaderSize: limits.maxHeaderBytes ?? MAX_HEADER_BYTES,
      headersTimeout: limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: limits.connectionsCheckIntervalMs ?? CONNECTIONS_CHECK_INTERVAL_MS,
      // Checked in onRequest instead, so the 400 carries the contract's JSON body.
      requireHostHeader: false,
    },
    onRequest,
  ) as QuiverServer;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
  server.on("clientError", answerClientError);
  // Expect: anything but 100-continue. Serve the request as if the header were absent (RFC 9110
  // section 10.1.1 lets a server ignore an expectation it does not support) rather than node's bare 417.
  server.on("checkExpectation", onRequest);
  // CONNECT: node hands over the raw socket and, with no listener, closes it unanswered. Answer it
  // through the handler on that socket (it is never a tunnel here), then close the connection.
  server.on("connect", (req: http.IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy()); // node removed its own error listener from this socket
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on("finish", () => {
      res.detachSocket(socket);
      socket.destroySoon();
    });
    onRequest(req, res);
  });

  let drained: Promise<void> | undefined;
  server.drain = () => {
    drained ??= new Promise<void>((resolve) => {
      closing = true;
      server.close(() => resolve());
      server.closeIdleConnections();
      const cutOff = setTimeout(() => server.closeAllConnections(), limits.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
      cutOff.unref();
    });
    return drained;
  };
  return server;
}

/** Errors node's parser reports before there is a request to hand to the handler. */
function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  const inResponse =
    (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  // A reset or a half-written response cannot take an answer: just drop the connection (node does the same).
  if (error.code === "ECONNRESET" || !socket.writable || inResponse) {
    socket.destroy();
    return;
  }
  let status: number = S.STATUS_BAD_REQUEST;
  let message = "The request is not valid HTTP/1.1; check the request line and the headers.";
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      if (requestLineTooLong(error.rawPacket)) {
        status = S.STATUS_URI_TOO_LONG;
        message = `The request target is longer than ${MAX_REQUEST_TARGET_BYTES} bytes; shorten the query.`;
      } else {
        status = S.STATUS_HEADERS_TOO_LARGE;
        message = "The request headers are too large; send fewer or shorter headers.";
      }
      break;
    case "HPE_INVALID_URL":
      message =
        "The request target has a character that must be percent-encoded (a space, a control character or a non-ASCII byte).";
      break;
    case "ERR_HTTP_REQUEST_TIMEOUT":
      status = S.STATUS_REQUEST_TIMEOUT;
      message = "The request was not received in time; send the whole request at once.";
      break;
  }
  const body = errorBody(message);
  // An answer to HEAD has no body (RFC 9110 section 9.3.2), even when the parser gave up on the rest.
  const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? "" : body}`,
  );
  // Half-closed, the socket stays open until the client closes its side, which a hostile client
  // never does: give it CLIENT_ERROR_LINGER_MS to read the answer, then cut the connection.
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}

/**
 * Never two Host headers; HTTP/1.1 requires one (older versions may leave it out). Counted over
 * rawHeaders (names at even positions) on every request, so no per-request header object is built
 * (req.headersDistinct would make one) and no string is lower-cased.
 */
function hostHeaderValid(req: http.IncomingMessage): boolean {
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && (name === "Host" || name === "host" || name.toLowerCase() === "host")) hosts++;
  }
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? hosts === 1 : hosts <= 1;
}

/** A method token, a space, then no line end within the target limit: the request line overflowed. */
function requestLineTooLong(raw: unknown): boolean {
  if (!Buffer.isBuffer(raw) || !/^[A-Z]+ /.test(raw.subarray(0, 16).toString("latin1"))) return false;
  const lineEnd = raw.indexOf(0x0a);
  return lineEnd === -1 ? raw.length > MAX_REQUEST_TARGET_BYTES : lineEnd > MAX_REQUEST_TARGET_BYTES;
}

export interface ServeOptions extends HandlerOptions, ServerLimits {
  graph: Graph;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
}

export interface RunningServer {
  readonly server: QuiverServer;
  readonly handler: QuiverHandler;
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** Stops accepting, finishes requests in flight, resolves when the server is closed. */
  close(): Promise<void>;
}

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8080;

/** Creates the handler and the server and listens; rejects if the port cannot be bound. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const handler = createHandler(options.graph, options);
  const server = createServer(handler, options);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(
      { port: options.port ?? DEFAULT_PORT, host: options.host ?? DEFAULT_HOST, backlog: LISTEN_BACKLOG },
      () => {
        server.off("error", reject);
        resolve();
      },
    );
  });
  // Once listening, a server error (accept failing for lack of file descriptors, say) is reported,
  // never left to crash the process with every request in flight.
  server.on("error", (error) => {
    process.stderr.write(
      JSON.stringify({ level: "error", time: new Date().toISOString(), error: String(error) }) + "\n",
    );
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { server, handler, url: `http://${host}:${address.port}`, close: () => server.drain() };
}

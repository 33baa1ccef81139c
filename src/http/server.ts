/**
 * HTTP server
 * ===========
 * `createServer(handler)` wraps a handler in a node:http server set for production, and `serve(...)`
 * also listens and hands back a `close()` that drains. Owns the connection-level concerns only:
 *
 * - keep-alive on (HTTP persistent connections, TCP keep-alive probes on each socket), and a listen
 *   backlog (LISTEN_BACKLOG) deep enough that a burst of connections does not drop new ones;
 * - `headersTimeout` and `requestTimeout` against slow clients, the head bounded (limits.ts);
 * - what node would answer itself outside the contract (parser errors, Expect, CONNECT, the Host
 *   rule) goes through the handler's router: `handler.attach(server)` (node.ts) wires it;
 * - graceful close: stop accepting, close idle connections, let requests in flight finish (their
 *   responses carry `Connection: close`), cut off whatever is left after DRAIN_TIMEOUT_MS.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Graph } from "../engine/graph.js";
import type { ReadGraph } from "../engine/read-graph.js";
import type { HandlerOptions } from "./adapter-kit.js";
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  DRAIN_TIMEOUT_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  LISTEN_BACKLOG,
  PARSER_MAX_HEADER_BYTES,
  REQUEST_TIMEOUT_MS,
} from "./limits.js";
import { createHandler, type QuiverHandler } from "./node.js";

export interface ServerLimits {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  connectionsCheckIntervalMs?: number;
  /** node's parser limit on a head (default PARSER_MAX_HEADER_BYTES); the contract's 16 KB is the router's. */
  maxHeaderBytes?: number;
  drainTimeoutMs?: number;
}

/** A server that can be closed gracefully. */
export interface QuiverServer extends http.Server {
  /** Stops accepting, lets requests in flight finish, resolves when every connection is gone. */
  drain(): Promise<void>;
}

/**
 * A production server around `handler`. A Quiver handler is attached (node.ts), so every answer is
 * the contract's; any other listener gets node's own answers to what its parser refuses.
 */
export function createServer(handler: QuiverHandler | http.RequestListener, limits: ServerLimits = {}): QuiverServer {
  let closing = false;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // While draining, answer what is in flight but do not keep the connection for more.
    if (closing) res.shouldKeepAlive = false;
    handler(req, res);
  };
  const server = http.createServer(
    {
      keepAlive: true,
      maxHeaderSize: limits.maxHeaderBytes ?? PARSER_MAX_HEADER_BYTES,
      headersTimeout: limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: limits.connectionsCheckIntervalMs ?? CONNECTIONS_CHECK_INTERVAL_MS,
    },
    onRequest,
  ) as QuiverServer;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
  if ("attach" in handler) handler.attach(server, onRequest);

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

export interface ServeOptions extends HandlerOptions, ServerLimits {
  graph: Graph | ReadGraph;
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

/**
 * One serving process's HTTP stack
 * ================================
 * `startServing(options)` puts together what `quiver serve` runs in one process (alone, or as one
 * worker of a cluster): the handler (http/handler.ts) on the graph, the metrics pre-route in front
 * of it when metrics are on (metrics.ts), the production node:http server (http/server.ts), and
 * the listen. `probePort(host, port)` is the check made before loading: it binds the address and
 * lets it go, so "port in use" is reported at once, not after minutes of loading.
 */

import type { RequestListener, Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Graph } from "../engine/graph.js";
import type { ReadGraph } from "../engine/read-graph.js";
import type { ChangeWriter } from "../http/router.js";
import type { RequestLogEntry } from "../http/adapter-kit.js";
import type { CorsOrigins } from "../http/cors.js";
import type { Explorer } from "../http/explorer.js";
import { LISTEN_BACKLOG } from "../http/limits.js";
import { createHandler, type QuiverHandler } from "../http/node.js";
import { createServer, type QuiverServer } from "../http/server.js";
import type { EventLog } from "./event-log.js";
import { withMetrics, type ServerMetrics } from "./metrics.js";

export interface ServingOptions {
  graph: Graph | ReadGraph;
  apiKeys: string[];
  /** The writer of change batches (`--changes`): serves POST /graph/v1/changes for `writeKeys`. */
  changes?: ChangeWriter | undefined;
  writeKeys?: string[] | undefined;
  cursorSecret: string | undefined;
  /** Byte budget of the served graph's caches (the handler's cacheBytes); undefined: the default. */
  cacheBytes: number | undefined;
  cors: CorsOrigins | undefined;
  /** The explorer page to serve at "/" (loadExplorer), or undefined for the API alone. */
  explorer: Explorer | undefined;
  host: string;
  port: number;
  log: ((entry: RequestLogEntry) => void) | undefined;
  metrics: ServerMetrics | undefined;
  events: EventLog;
}

export interface Serving {
  readonly server: QuiverServer;
  readonly handler: QuiverHandler;
  readonly url: string;
  readonly port: number;
  /** Serves `graph` from now on (requests in flight finish on the old one). */
  setGraph(graph: Graph): void;
  /** Stops accepting, finishes requests in flight. */
  close(): Promise<void>;
}

export async function startServing(options: ServingOptions): Promise<Serving> {
  const { events, metrics } = options;
  const handler = createHandler(options.graph, {
    apiKeys: options.apiKeys,
    cursorSecret: options.cursorSecret,
    cacheBytes: options.cacheBytes,
    cors: options.cors,
    explorer: options.explorer,
    log: options.log,
    changes: options.changes,
    writeKeys: options.writeKeys,
    onError: (error, context) =>
      events.error("request-fault", {
        method: context.method,
        path: context.path,
        requestId: context.requestId,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  });
  metrics?.graphServed(options.graph);
  // Each branch: with metrics, the pre-route sits in front of the handler (and what node's parser
  // refuses still goes through the handler's own attach); without, the handler is the listener.
  const listener: QuiverHandler | RequestListener =
    metrics === undefined
      ? handler
      : Object.assign(withMetrics(handler, metrics), {
          attach: (server: Server, through: RequestListener) => handler.attach(server, through),
        });
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => events.error("server-error", { error: String(error) }));
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    handler,
    url: `http://${host}:${address.port}`,
    port: address.port,
    setGraph(graph) {
      handler.setGraph(graph);
      metrics?.graphServed(graph);
    },
    close: () => server.drain(),
  };
}

/** A port that is free on `host` now (bound and let go): for a cluster told `--port 0`. */
export function pickPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (e: Error) => reject(new Error(`cannot listen on ${host}: ${e.message}`)));
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves when `host:port` can be bound (then releases it); rejects with a sentence naming it. */
export function probePort(host: string, port: number): Promise<void> {
  // Port 0 always binds (the system picks a free one): nothing to check.
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (e: NodeJS.ErrnoException) => {
      const why =
        e.code === "EADDRINUSE"
          ? "it is in use by another process"
          : e.code === "EACCES"
            ? "permission denied (ports below 1024 need privileges)"
            : e.code === "EADDRNOTAVAIL"
              ? "that address is not one of this machine's"
              : e.message;
      reject(new Error(`cannot listen on ${host}:${port}: ${why}`));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * One serving process's HTTP stack
 * ================================
 * `startServing(options)` puts together what `quiver serve` runs in one process (alone, or as one
 * worker of a cluster): the handler (http/handler.ts) on the graph, the metrics pre-route in front
 * of it when metrics are on (metrics.ts), the production node:http server (http/server.ts), and
 * the listen. `probePort(host, port)` is the check made before loading: it binds the address and
 * lets it go, so "port in use" is reported at once, not after minutes of loading.
 */

import type { RequestListener } from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Graph } from "../engine/graph.js";
import { createHandler, type QuiverHandler, type RequestLogEntry } from "../http/handler.js";
import { LISTEN_BACKLOG } from "../http/limits.js";
import { createServer, type QuiverServer } from "../http/server.js";
import type { EventLog } from "./event-log.js";
import { withMetrics, type ServerMetrics } from "./metrics.js";

export interface ServingOptions {
  graph: Graph;
  apiKeys: string[];
  cursorSecret: string | undefined;
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
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
    ...(options.log === undefined ? {} : { log: options.log }),
    onError: (error, req) =>
      events.error("request-fault", {
        method: req.method,
        path: (req.url ?? "").split("?")[0],
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  });
  metrics?.graphServed(options.graph);
  // Each branch: with metrics, the pre-route sits in front of the handler; without, nothing does.
  const listener: RequestListener = metrics === undefined ? handler : withMetrics(handler, metrics);
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

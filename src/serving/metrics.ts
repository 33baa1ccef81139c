/**
 * Metrics
 * =======
 * What an operator scrapes: `GET /metrics` in the Prometheus text format, made by prom-client.
 * Off unless asked for (`--metrics`, QUIVER_METRICS=1); no key is needed and nothing in it is data:
 * counts, durations, timestamps and process figures only, with labels drawn from closed sets (the
 * contract's paths and `other`, the status code), so a client cannot grow the label space.
 *
 *   quiver_http_requests_total{route,status}          counter
 *   quiver_http_request_duration_seconds{route}        histogram (HTTP_DURATION_BUCKETS)
 *   quiver_graph_entities, quiver_graph_statements     gauges of the graph being served
 *   quiver_graph_loaded_timestamp_seconds              when that graph was loaded
 *   quiver_reloads_total{result="success"|"failure"}   reloads (the process that reloads counts them)
 *   process_*, nodejs_*                                prom-client's default process metrics
 *
 * Where it hooks in: a server-level pre-route, `withMetrics(listener, metrics)`, wraps the node
 * request listener at the adapter edge. It answers `/metrics` itself and times every other request
 * from its arrival to the response's `finish`; the router and the handler know nothing of it.
 *
 * Cluster (`--workers N` > 1): each worker keeps its own registry; a scrape lands on one worker,
 * which asks the primary (IPC), and the primary gathers the registries of the workers serving
 * (IPC again; one that does not answer within WORKER_REGISTRY_TIMEOUT_MS, or exits, is left out of
 * that scrape), aggregates them with prom-client's AggregatorRegistry.aggregate (counters and
 * histograms summed; the graph gauges take the largest value among workers, as they agree once a
 * roll is done) and adds its own (the reload counters: in a cluster the primary reloads). See
 * cli/serve-cluster.ts.
 */

import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { MAX_REQUEST_TARGET_BYTES } from "../http/limits.js";
import { requestOf } from "../http/node.js";
import { edgeProblem } from "../http/router.js";
import { routePathOf, splitTarget } from "../http/routes.js";
import { errorBody } from "../http/serialize.js";
import { STATUS_INTERNAL_ERROR, STATUS_METHOD_NOT_ALLOWED } from "../http/status.js";

export const METRICS_PATH = "/metrics";
/** How long a cluster scrape waits for one worker's registry before leaving that worker out. */
export const WORKER_REGISTRY_TIMEOUT_MS = 2000;
/** Seconds; from a cached page (tens of µs) to a client that reads slowly. */
export const HTTP_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

export interface ServerMetrics {
  readonly registry: Registry;
  /** The text a scrape answers (in a cluster worker: the whole cluster's, from the primary). */
  scrape(): Promise<string>;
  graphServed(graph: { readonly entityCount: number; readonly statementCount: number }): void;
  reloaded(ok: boolean): void;
  request(route: string, status: number, seconds: number): void;
  /** Request-log lines dropped because stdout's reader was behind (request-log.ts). */
  logDropped(lines: number): void;
}

export interface ServerMetricsOptions {
  /** Register the process metrics (a cluster's primary leaves them to its workers). Default true. */
  processMetrics?: boolean;
  /** Register the reload counters (cluster workers never reload: the primary counts). Default true. */
  reloads?: boolean;
  /** Where the scrape text comes from; default this registry's own text. */
  scrape?: (registry: Registry) => Promise<string>;
}

export function createServerMetrics(options: ServerMetricsOptions = {}): ServerMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "quiver_http_requests_total",
    help: "HTTP requests answered, by route (the contract's paths, or other) and status code.",
    labelNames: ["route", "status"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "quiver_http_request_duration_seconds",
    help: "Time from a request's arrival to its response's last byte handed to the kernel, by route.",
    labelNames: ["route"],
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  const entities = new Gauge({
    name: "quiver_graph_entities",
    help: "Entities of the graph being served.",
    registers: [registry],
    aggregator: "max",
  });
  const statements = new Gauge({
    name: "quiver_graph_statements",
    help: "Statements of the graph being served.",
    registers: [registry],
    aggregator: "max",
  });
  const loadedAt = new Gauge({
    name: "quiver_graph_loaded_timestamp_seconds",
    help: "When the graph being served was loaded (Unix time, seconds).",
    registers: [registry],
    aggregator: "max",
  });
  const reloads =
    (options.reloads ?? true)
      ? new Counter({
          name: "quiver_reloads_total",
          help: "Reloads of the graph (SIGHUP), by result; a failed reload keeps the previous graph.",
          labelNames: ["result"],
          registers: [registry],
        })
      : undefined;
  // Both series exist from the start, so a rate() over them works before the first reload.
  reloads?.inc({ result: "success" }, 0);
  reloads?.inc({ result: "failure" }, 0);
  const logDropped = new Counter({
    name: "quiver_request_log_dropped_lines_total",
    help: "Request-log lines dropped because the reader of stdout was behind (the log holds 1 MiB at most).",
    registers: [registry],
  });
  logDropped.inc(0);
  const scrape = options.scrape ?? ((r: Registry) => r.metrics());
  return {
    registry,
    scrape: () => scrape(registry),
    graphServed(graph) {
      entities.set(graph.entityCount);
      statements.set(graph.statementCount);
      loadedAt.set(Date.now() / 1000);
    },
    reloaded(ok) {
      reloads?.inc({ result: ok ? "success" : "failure" });
    },
    request(route, status, seconds) {
      requests.inc({ route, status: String(status) });
      duration.observe({ route }, seconds);
    },
    logDropped(lines) {
      logDropped.inc(lines);
    },
  };
}

/**
 * The route label of a request path: the API's paths as they are, a lookup as its template
 * (`/graph/v1/entities/{entityId}`: one label, however many ids), /metrics, anything else `other`.
 */
export function routeLabel(path: string): string {
  return path === METRICS_PATH ? path : (routePathOf(path) ?? "other");
}

/**
 * The pre-route: `/metrics` answered here, every request counted and timed. Wraps a node request
 * listener and returns one; `listener` is called for everything but `/metrics`.
 */
export function withMetrics(listener: RequestListener, metrics: ServerMetrics): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // The path as the router reads it (absolute-form too).
    const path = splitTarget(req.url ?? "/").path;
    const route = routeLabel(path);
    res.once("finish", () => metrics.request(route, res.statusCode, (performance.now() - started) / 1000));
    // Each branch: not the scrape, or a scrape that breaks the contract's edge (a head past the
    // bound, no Host, a raw "#"), which the handler answers as it answers every path.
    if (path !== METRICS_PATH || edgeProblem(requestOf(req), MAX_REQUEST_TARGET_BYTES) !== undefined) {
      listener(req, res);
      return;
    }
    answerScrape(req, res, metrics);
  };
}

function answerScrape(req: IncomingMessage, res: ServerResponse, metrics: ServerMetrics): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const body = errorBody(`${METRICS_PATH} answers GET and HEAD only, not ${req.method}.`, "METHOD_NOT_ALLOWED");
    res.writeHead(STATUS_METHOD_NOT_ALLOWED, {
      "content-type": "application/json",
      "content-length": body.length,
      allow: "GET, HEAD",
    });
    res.end(body);
    return;
  }
  metrics.scrape().then(
    (text) => {
      res.writeHead(200, {
        "content-type": metrics.registry.contentType,
        "content-length": Buffer.byteLength(text),
        "cache-control": "no-store",
      });
      res.end(req.method === "HEAD" ? undefined : text);
    },
    (error: unknown) => {
      const body = errorBody(`The metrics could not be gathered: ${(error as Error).message}`, "INTERNAL_ERROR");
      if (res.headersSent) return void res.destroy();
      res.writeHead(STATUS_INTERNAL_ERROR, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    },
  );
}

/** A cluster primary's own metrics: only the reload counters (it serves no request). */
export function createPrimaryMetrics(): { registry: Registry; reloaded(ok: boolean): void } {
  const registry = new Registry();
  const reloads = new Counter({
    name: "quiver_reloads_total",
    help: "Reloads of the graph (SIGHUP), by result; a failed reload keeps the previous graph.",
    labelNames: ["result"],
    registers: [registry],
  });
  reloads.inc({ result: "success" }, 0);
  reloads.inc({ result: "failure" }, 0);
  return { registry, reloaded: (ok) => reloads.inc({ result: ok ? "success" : "failure" }) };
}

/** One worker's registry as it crosses the IPC channel (prom-client's JSON form of its metrics). */
export type RegistryJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

/** Cluster worker: its registry, for the primary to aggregate. */
export function registryJson(registry: Registry): Promise<RegistryJson> {
  return registry.getMetricsAsJSON();
}

/**
 * Cluster primary: the workers' registries, aggregated by prom-client (counters and histograms
 * summed, gauges by their own `aggregator`), then the primary's own (its metric names are distinct
 * from the workers'). The primary gathers the registries itself (serve-cluster.ts), from the
 * workers that are serving, rather than with AggregatorRegistry.clusterMetrics(): that one asks
 * every connected worker and waits up to 5 s for all, so a worker that exits between the question
 * and its answer (an old one retiring at the end of a roll) failed the whole scrape.
 */
export async function clusterText(workers: readonly RegistryJson[], own: Registry): Promise<string> {
  const [aggregated, mine] = await Promise.all([AggregatorRegistry.aggregate([...workers]).metrics(), own.metrics()]);
  return `${aggregated.trimEnd()}\n${mine}`;
}

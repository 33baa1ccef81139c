/**
 * The probing client of the compaction under load, on its own thread (part of `npm run bench:changes`)
 * ====================================================================================================
 * Owns the open-loop client of changes-compaction.ts: GET /healthz and GET /graph/v1/search?q=...
 * alternately every PROBE_MS, and a batch of 1 statement put every WRITE_MS, each timed from its
 * start to its answer's last byte. It runs in a worker thread (its own isolate and heap) holding
 * only what it sends: the query strings and a pool of statement lines made by the bench. Why: the
 * bench's main thread holds a 1M-entity graph, the live graph and a million id strings, and its
 * major collections (40-165 ms at 1M entities, seen as `gc` performance entries) landed inside the
 * measured latencies; a probe timed here waits only for the server (and the machine's scheduler).
 * So that a reader can see this thread's own pauses are small, each window also reports the time
 * the thread spent in GC (the `gc` PerformanceObserver entries that started inside it).
 *
 *   main -> worker   { op: "start", port, writes }   (a window: probes until "stop")
 *   main -> worker   { op: "stop" }                  (the window's end: the pending answers awaited)
 *   worker -> main   { op: "done", probes }          (the window's samples, errors, GC time)
 *
 * Statement lines are taken in turn across windows (each put a new one while the pool lasts, then
 * again from the first: a put of a statement already there is still a batch and a 200).
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { Agent } from "node:http";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

import { send } from "./changes-http.js";
import { progress } from "./format.js";

export const PROBE_MS = 10;
export const WRITE_MS = 500;
const SHOWN_ERRORS = 5;
/** workerData's kind: the one this file answers to. */
const WORKER_KIND = "quiver.bench.changes-probe";

/** One window's samples (ms), from a request's start to its answer's end; only 200s are samples. */
export interface Probes {
  healthz: number[];
  search: number[];
  writes: number[];
  /** Each write sample's start, ms since the epoch (performance.timeOrigin + now: comparable across threads). */
  writeStarts: number[];
  errors: number;
  /** The probing thread's time in GC over the window, ms (sum of `gc` entries), their count and the longest. */
  gcMs: number;
  gcs: number;
  gcMaxMs: number;
}

interface ProbeData {
  kind: typeof WORKER_KIND;
  queries: readonly string[];
  statements: readonly string[];
}

type Request = { op: "start"; port: number; writes: boolean } | { op: "stop" };
type Reply = { op: "done"; probes: Probes } | { op: "failed"; message: string };

/** The probing thread, seen from the bench's main thread. */
export interface ProbeThread {
  /** Probes `port` until `until` settles (with statement puts when `writes`), then the window's figures. */
  run(port: number, writes: boolean, until: Promise<unknown>): Promise<Probes>;
  close(): Promise<void>;
}

/** Starts the thread with the search terms `queries` (a distinct one each time, round robin) and the put lines `statements`. */
export function startProbeThread(queries: readonly string[], statements: readonly string[]): ProbeThread {
  const data: ProbeData = { kind: WORKER_KIND, queries, statements };
  const worker = new Worker(new URL(import.meta.url), { workerData: data });
  let waiting: { resolve: (p: Probes) => void; reject: (e: Error) => void } | undefined;
  const settle = (probes: Probes | undefined, error: Error | undefined): void => {
    const w = waiting;
    waiting = undefined;
    // Each branch: a window's figures, or the thread's failure, go to the window awaiting them (none: dropped).
    if (probes !== undefined) w?.resolve(probes);
    else w?.reject(error!);
  };
  worker.on("message", (reply: Reply) =>
    reply.op === "done" ? settle(reply.probes, undefined) : settle(undefined, new Error(reply.message)),
  );
  worker.on("error", (e: Error) => settle(undefined, e));
  worker.on("exit", (code) => settle(undefined, new Error(`the probe thread ended (exit code ${code})`)));
  return {
    run(port, writes, until) {
      const done = new Promise<Probes>((resolve, reject) => {
        waiting = { resolve, reject };
      });
      worker.postMessage({ op: "start", port, writes } satisfies Request);
      // Settled either way: the caller awaits `until` itself for its error.
      const stop = (): void => worker.postMessage({ op: "stop" } satisfies Request);
      until.then(stop, stop);
      return done;
    },
    async close() {
      await worker.terminate();
    },
  };
}

/** The worker's side: one window at a time, as the main thread asks. */
function serveProbes(data: ProbeData): void {
  const { queries, statements } = data;
  let nextStatement = 0;
  /** `gc` entries not yet counted in a window (the observer is called after the fact, in batches). */
  const gcEntries: { start: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcEntries.push({ start: e.startTime, ms: e.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  let stopped: () => void = () => {};

  const window = async (port: number, writes: boolean): Promise<Probes> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const out: Probes = {
      healthz: [],
      search: [],
      writes: [],
      writeStarts: [],
      errors: 0,
      gcMs: 0,
      gcs: 0,
      gcMaxMs: 0,
    };
    const pending = new Set<Promise<void>>();
    const failed = (why: string): void => {
      // The first few are shown (what went wrong); every one counts.
      if (out.errors++ < SHOWN_ERRORS) progress(`compaction under load: error: ${why}`);
    };
    const fire = (kind: "healthz" | "search" | "writes", method: string, path: string, body?: string): void => {
      const t = performance.now();
      const p = send(agent, port, method, path, body).then(
        (a) => {
          if (a.status !== 200) failed(`${method} ${path.slice(0, 40)}: ${a.status} ${a.body.slice(0, 200)}`);
          else {
            out[kind].push(performance.now() - t);
            if (kind === "writes") out.writeStarts.push(performance.timeOrigin + t);
          }
        },
        (e: Error) => failed(`${method} ${path.slice(0, 40)}: ${e.message}`),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };
    let done = false;
    stopped = () => (done = true);
    const started = performance.now();
    const every = WRITE_MS / PROBE_MS;
    for (let tick = 0; !done; tick++) {
      // Each branch: a write on every `every`th tick, else a read, /healthz and search alternately.
      if (writes && tick % every === 0)
        fire("writes", "POST", "/graph/v1/changes", statements[nextStatement++ % statements.length]);
      else if (tick % 2 === 0) fire("healthz", "GET", "/healthz");
      else fire("search", "GET", `/graph/v1/search?q=${encodeURIComponent(queries[tick % queries.length]!)}`);
      await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
    }
    await Promise.all(pending);
    agent.destroy();
    for (const e of observer.takeRecords()) gcEntries.push({ start: e.startTime, ms: e.duration });
    // The window's collections: those that started in it (earlier ones, between windows, are dropped).
    for (const e of gcEntries.splice(0))
      if (e.start >= started) {
        out.gcMs += e.ms;
        out.gcs++;
        out.gcMaxMs = Math.max(out.gcMaxMs, e.ms);
      }
    return out;
  };

  parentPort!.on("message", (request: Request) => {
    // Each branch: a window starts (its figures sent at its end), or the running one is told to end.
    if (request.op === "stop") stopped();
    else
      window(request.port, request.writes).then(
        (probes) => parentPort!.postMessage({ op: "done", probes } satisfies Reply),
        (e: Error) => parentPort!.postMessage({ op: "failed", message: e.stack ?? e.message } satisfies Reply),
      );
  });
}

if (!isMainThread && (workerData as ProbeData | null)?.kind === WORKER_KIND) serveProbes(workerData as ProbeData);

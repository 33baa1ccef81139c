/**
 * `quiver serve --workers N`: one host, every core
 * ================================================
 * A node:cluster on one port. The primary serves nothing itself: it prepares the graph once,
 * forks N workers that each open it and serve, and keeps them there.
 *
 * - One graph build. JSON Lines are built once, in a worker thread of the primary
 *   (serving/load-in-worker.ts), into a snapshot in a temporary directory; every worker opens
 *   that file (typed arrays from the file, about a second for 1M entities / 10M statements),
 *   never N builds. A `--snapshot` is opened by the workers as it is.
 * - One cursor secret and one key set for all: given, or made once by the primary and handed to
 *   the workers in their environment, so a cursor from one worker works on every other.
 * - A worker that dies is replaced (after RESTART_DELAY_MS, doubling while replacements die before
 *   they are ready, up to MAX_RESTART_DELAY_MS); the others keep serving meanwhile.
 * - SIGHUP rolls: the new graph is prepared (JSON Lines: a new snapshot, built off the primary's
 *   event loop), then, one worker at a time, a new worker opens it and reports ready before an old
 *   one is told to drain. So capacity never drops below N - 0 workers ready... and never to zero.
 *   A new worker that fails to open the graph stops the roll: the old workers keep serving the
 *   old graph, the failure is logged and counted.
 * - SIGTERM or SIGINT: every worker drains (stops accepting, finishes requests in flight), then the
 *   primary removes its temporary files and exits 0.
 * - Metrics: a scrape lands on a worker, which asks the primary; the primary asks each serving
 *   worker (adopted, not retiring) for its registry, aggregates the answers (serving/metrics.ts)
 *   and adds its reload counters. A worker that exits or does not answer within
 *   WORKER_REGISTRY_TIMEOUT_MS is left out of that one scrape, which never fails for it.
 *
 * Messages between primary and workers are objects with a `quiver` field.
 */

import cluster, { type Worker } from "node:cluster";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Graph } from "../engine/graph.js";
import { openSnapshot } from "../snapshot/file.js";
import type { EventLog } from "../serving/event-log.js";
import type { GraphSource } from "../serving/graph-source.js";
import { startServing } from "../serving/listen.js";
import { saveSnapshotInWorker } from "../serving/load-in-worker.js";
import {
  clusterText,
  createPrimaryMetrics,
  createServerMetrics,
  registryJson,
  type RegistryJson,
  WORKER_REGISTRY_TIMEOUT_MS,
} from "../serving/metrics.js";
import { createEventLog } from "../serving/event-log.js";
import { API_KEYS_ENV, type ApiKeySetup } from "./api-keys.js";
import { createRequestLog } from "./request-log.js";
import type { ServeArgs } from "./serve-options.js";
import { CURSOR_SECRET_ENV } from "./serve-options.js";
import {
  EXIT_FAILURE,
  catchStopSignals,
  generateCursorSecret,
  explorerLine,
  openExplorer,
  pidLine,
  progressOutput,
  stopWhenNpmIsGone,
  tryItLines,
} from "./serve.js";

/** The environment variable that makes `quiver serve` a cluster worker (its settings, as JSON). */
export const CLUSTER_WORKER_ENV = "QUIVER_CLUSTER_WORKER";
/** Wait before replacing a dead worker; doubles while replacements die unready. */
const RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 5000;
/**
 * How long a drained worker stays connected before it exits. The primary may have handed it a
 * connection just before it stopped listening; that hand-off is still in the IPC pipe, and only a
 * worker that reads it can refuse it (the primary then gives the connection to another worker). A
 * worker that exited first would never answer, and the primary would hold that connection forever:
 * the client's request hangs (seen in the rolling-reload test, once in several runs, before this).
 */
const WORKER_EXIT_GRACE_MS = 500;
/** A worker still there this long after it was told to drain is killed. */
const DRAIN_KILL_MS = 40_000;

/** What a worker is told (its environment carries the key list and the cursor secret). */
interface WorkerConfig {
  snapshot: string;
  host: string;
  port: number;
  quiet: boolean;
  metrics: boolean;
  cacheBytes: number | undefined;
  cors: string | string[] | undefined;
  /** Serve the explorer page (the primary found it built). */
  ui: boolean;
  generation: number;
}

type FromWorker =
  | { quiver: "ready"; url: string; entities: number; statements: number; openMs: number; word: string }
  | { quiver: "failed"; error: string }
  | { quiver: "metrics?"; id: number }
  | { quiver: "registry"; id: number; metrics: RegistryJson };
type ToWorker =
  | { quiver: "drain" }
  | { quiver: "metrics"; id: number; text?: string; error?: string }
  | { quiver: "registry?"; id: number };

/** The primary's own registry (its reload counters). */
type PrimaryRegistry = ReturnType<typeof createPrimaryMetrics>["registry"];

export interface ClusterPrimaryOptions {
  args: ServeArgs;
  source: GraphSource;
  keys: ApiKeySetup;
  events: EventLog;
  err: NodeJS.WriteStream;
  workers: number;
}

export async function runClusterPrimary(options: ClusterPrimaryOptions): Promise<number> {
  const { args, source, keys, events, err, workers } = options;
  const secret = args.cursorSecret ?? generateCursorSecret();
  const stop = catchStopSignals();
  let tempDir: string | undefined;
  const cleanUp = async (): Promise<void> => {
    if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
  };
  let ready = false;
  void stop.first.then(async (signal) => {
    if (ready) return;
    err.write(`quiver serve: ${signal} before the server was listening: stopped\n`);
    events.info("stopped", { signal, before: "listening" });
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGKILL");
    await cleanUp();
    process.exit(0);
  });

  // Checked once here, so a missing page is reported once; each worker reads its own copy.
  const ui = args.ui && openExplorer(events, err) !== undefined;
  const started = performance.now();
  let generation = 0;
  /** The graph for `generation`: JSON Lines built into a new snapshot, or the snapshot as it is. */
  const prepare = async (gen: number): Promise<string> => {
    if ("snapshot" in source) return source.snapshot;
    const buildStarted = performance.now();
    tempDir ??= await mkdtemp(join(tmpdir(), "quiver-serve-"));
    const saved = await saveSnapshotInWorker(source, join(tempDir, `graph-${gen}.snap`), {
      onProgress: progressOutput(err),
    });
    events.info("graph-built", {
      entities: saved.entities,
      statements: saved.statements,
      snapshotBytes: saved.bytes,
      buildMs: Math.round(performance.now() - buildStarted),
    });
    return saved.path;
  };
  let current: WorkerConfig;
  try {
    current = {
      snapshot: await prepare(generation),
      host: args.host,
      port: args.port,
      quiet: args.quiet,
      metrics: args.metrics,
      cacheBytes: args.cacheBytes,
      cors: args.cors,
      ui,
      generation,
    };
  } catch (e) {
    const message = (e as Error).message;
    events.error("load-failed", { error: message });
    err.write(`quiver serve: cannot load the graph: ${message}\n`);
    await cleanUp();
    return EXIT_FAILURE;
  }

  const primaryMetrics = args.metrics ? createPrimaryMetrics() : undefined;
  const generationOf = new Map<Worker, number>();
  /** Workers adopted and not retiring: the ones a metrics scrape asks. */
  const serving = new Set<Worker>();
  /** Registry questions waiting for a worker's answer, by id. */
  const asked = new Map<number, { worker: Worker; answer(metrics: RegistryJson | undefined): void }>();
  let nextQuestion = 0;
  /** A worker's registry, or undefined when it exits or does not answer in time. */
  const askRegistry = (worker: Worker): Promise<RegistryJson | undefined> =>
    new Promise((resolve) => {
      const id = nextQuestion++;
      const timer = setTimeout(() => answer(undefined), WORKER_REGISTRY_TIMEOUT_MS);
      const answer = (metrics: RegistryJson | undefined): void => {
        clearTimeout(timer);
        asked.delete(id);
        resolve(metrics);
      };
      asked.set(id, { worker, answer });
      if (worker.isConnected()) worker.send({ quiver: "registry?", id } satisfies ToWorker);
      else answer(undefined);
    });
  const scrapeCluster = async (own: PrimaryRegistry): Promise<string> => {
    const answers = await Promise.all([...serving].map(askRegistry));
    return clusterText(
      answers.filter((a) => a !== undefined),
      own,
    );
  };
  const retiring = new Set<Worker>();
  let stopping = false;
  let restartDelay = RESTART_DELAY_MS;

  const workerEnv = (config: WorkerConfig): Record<string, string> => ({
    [CLUSTER_WORKER_ENV]: JSON.stringify(config),
    [API_KEYS_ENV]: keys.keys.join(","),
    [CURSOR_SECRET_ENV]: secret,
  });

  /** Forks a worker on `config`; resolves once it serves, rejects if it ends first. */
  const startWorker = (config: WorkerConfig): Promise<{ worker: Worker; ready: FromWorker & { quiver: "ready" } }> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork(workerEnv(config));
      // A message to a worker that is just going away (a signal sent to the whole process group,
      // Ctrl-C in a terminal, reaches the workers too) fails with EPIPE: that is not a fault.
      worker.on("error", (e) => events.warn("worker-channel", { workerPid: worker.process.pid, error: e.message }));
      generationOf.set(worker, config.generation);
      let failure = "";
      const onMessage = (m: FromWorker): void => {
        if (m?.quiver === "failed") failure = m.error;
        if (m?.quiver !== "ready") return;
        worker.off("message", onMessage);
        worker.off("exit", onEarlyExit);
        resolve({ worker, ready: m });
      };
      const onEarlyExit = (code: number | null, signal: string | null): void => {
        generationOf.delete(worker);
        worker.off("message", onMessage);
        reject(new Error(failure || `a worker stopped before it was ready (exit ${code ?? signal})`));
      };
      worker.on("message", onMessage);
      worker.once("exit", onEarlyExit);
    });

  /** Watches a ready worker: answers its metrics questions, replaces it if it dies unasked. */
  const adopt = (worker: Worker): void => {
    serving.add(worker);
    worker.on("message", (m: FromWorker) => {
      if (m?.quiver === "registry") asked.get(m.id)?.answer(m.metrics);
      if (m?.quiver !== "metrics?" || primaryMetrics === undefined) return;
      const reply = (answer: ToWorker): void => {
        if (worker.isConnected()) worker.send(answer);
      };
      scrapeCluster(primaryMetrics.registry).then(
        (text) => reply({ quiver: "metrics", id: m.id, text }),
        (e: unknown) => reply({ quiver: "metrics", id: m.id, error: (e as Error).message }),
      );
    });
    worker.once("exit", (code, signal) => {
      serving.delete(worker);
      // Its unanswered registry questions: a scrape goes on without it.
      for (const question of [...asked.values()]) if (question.worker === worker) question.answer(undefined);
      generationOf.delete(worker);
      if (retiring.delete(worker) || stopping) return;
      events.warn("worker-died", { workerPid: worker.process.pid, code, signal, replacing: true });
      setTimeout(() => void replace(), restartDelay).unref();
    });
  };

  const replace = async (): Promise<void> => {
    if (stopping) return;
    try {
      const { worker, ready: r } = await startWorker(current);
      adopt(worker);
      restartDelay = RESTART_DELAY_MS;
      events.info("worker-replaced", { workerPid: worker.process.pid, entities: r.entities, statements: r.statements });
    } catch (e) {
      restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
      events.error("worker-start-failed", { error: (e as Error).message, retryMs: restartDelay });
      setTimeout(() => void replace(), restartDelay).unref();
    }
  };

  const retire = (worker: Worker): void => {
    retiring.add(worker);
    serving.delete(worker);
    if (worker.isConnected()) worker.send({ quiver: "drain" } satisfies ToWorker);
    const kill = setTimeout(() => worker.process.kill("SIGKILL"), DRAIN_KILL_MS);
    kill.unref();
    worker.once("exit", () => clearTimeout(kill));
  };

  // Start-up: N workers on the first graph.
  cluster.setupPrimary({ exec: process.argv[1] as string, args: ["serve"] });
  let first: { worker: Worker; ready: FromWorker & { quiver: "ready" } }[];
  try {
    first = await Promise.all(Array.from({ length: workers }, () => startWorker(current)));
  } catch (e) {
    const message = (e as Error).message;
    events.error("startup-failed", { error: message });
    err.write(`quiver serve: ${message}\n`);
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGKILL");
    await cleanUp();
    return EXIT_FAILURE;
  }
  for (const { worker } of first) adopt(worker);
  const head = (first[0] as (typeof first)[number]).ready;
  ready = true;
  stop.onRepeat(() => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
  });
  events.info("ready", {
    url: head.url,
    entities: head.entities,
    statements: head.statements,
    loadMs: Math.round(performance.now() - started),
    workers,
    workerPids: first.map((f) => f.worker.process.pid).join(" "),
  });
  err.write(
    `ready: ${head.entities.toLocaleString("en-US")} entities, ${head.statements.toLocaleString("en-US")} statements, ` +
      `${workers} workers, in ${((performance.now() - started) / 1000).toFixed(2)} s\n`,
  );
  err.write(
    tryItLines(head.url, undefined, keys.generated ? keys.keys[0] : undefined).replace(
      "q=a&",
      `q=${encodeURIComponent(head.word)}&`,
    ),
  );
  if (ui) err.write(explorerLine(head.url));
  err.write(pidLine(process.pid));
  err.write(`listening on ${head.url}\n`);

  // SIGHUP: roll every worker onto the new graph, one at a time.
  let rolling = false;
  const roll = async (): Promise<void> => {
    const rollStarted = performance.now();
    const gen = ++generation;
    let next: WorkerConfig;
    try {
      next = { ...current, snapshot: await prepare(gen), generation: gen };
    } catch (e) {
      primaryMetrics?.reloaded(false);
      const message = (e as Error).message;
      events.error("reload-failed", { error: message });
      err.write(`quiver serve: reload failed, still serving the previous graph: ${message}\n`);
      return;
    }
    let rolled = 0;
    let last: (FromWorker & { quiver: "ready" }) | undefined;
    for (;;) {
      if (stopping) return;
      const old = [...generationOf.entries()].find(([w, g]) => g < gen && !retiring.has(w))?.[0];
      if (old === undefined) break;
      try {
        const { worker, ready: r } = await startWorker(next);
        adopt(worker);
        last = r;
        // The new worker is serving: only now does an old one leave.
        retire(old);
        rolled++;
        events.info("worker-rolled", { workerPid: worker.process.pid, retiredPid: old.process.pid, generation: gen });
      } catch (e) {
        primaryMetrics?.reloaded(false);
        const message = (e as Error).message;
        events.error("reload-failed", { error: message, workersRolled: rolled });
        err.write(`quiver serve: reload failed, still serving the previous graph: ${message}\n`);
        if (next.snapshot !== current.snapshot && rolled === 0) await rm(next.snapshot, { force: true });
        return;
      }
    }
    const previous = current.snapshot;
    current = next;
    primaryMetrics?.reloaded(true);
    events.info("reloaded", {
      entities: last?.entities,
      statements: last?.statements,
      reloadMs: Math.round(performance.now() - rollStarted),
      workers: rolled,
    });
    err.write(
      `quiver serve: reloaded; ${last?.entities ?? 0} entities, ${last?.statements ?? 0} statements, ${rolled} workers rolled\n`,
    );
    // The old snapshot was ours (built from JSON Lines): no worker needs it any more.
    if (!("snapshot" in source) && previous !== current.snapshot) await rm(previous, { force: true });
  };
  const onHangup = (): void => {
    if (rolling) {
      events.warn("reload-ignored", { reason: "a reload is already running" });
      return;
    }
    rolling = true;
    events.info("reload-started", {});
    err.write("quiver serve: SIGHUP: rolling the workers onto a new graph (the current ones keep serving)\n");
    roll().finally(() => (rolling = false));
  };
  process.on("SIGHUP", onHangup);
  const stopWatching = stopWhenNpmIsGone(stop.trigger);

  const signal = await stop.first;
  stopping = true;
  stopWatching();
  process.off("SIGHUP", onHangup);
  events.info("stopping", { signal });
  err.write(`quiver serve: ${signal}: stopping; the workers finish requests in flight\n`);
  const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  await Promise.all(
    all.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.isDead()) return resolve();
          w.once("exit", () => resolve());
          retire(w);
        }),
    ),
  );
  await cleanUp();
  events.info("stopped", { signal });
  err.write("quiver serve: stopped\n");
  return 0;
}

/** A cluster worker: open the snapshot, serve, report ready; drain when told or signalled. */
export async function runClusterWorker(env: NodeJS.ProcessEnv): Promise<number> {
  const config = JSON.parse(env[CLUSTER_WORKER_ENV] as string) as WorkerConfig;
  const events = createEventLog(process.stdout);
  const send = (m: FromWorker): void => {
    // The callback takes a failed send (the primary already gone) instead of an 'error' event.
    if (process.connected) process.send?.(m, undefined, {}, () => {});
  };
  // The primary orchestrates reloads: a SIGHUP sent to the whole process group is not ours.
  process.on("SIGHUP", () => {});
  const started = performance.now();
  let graph: Graph;
  try {
    graph = await openSnapshot(config.snapshot);
  } catch (e) {
    const message = (e as Error).message;
    events.error("worker-load-failed", { error: message });
    send({ quiver: "failed", error: message });
    return EXIT_FAILURE;
  }
  const openMs = performance.now() - started;

  const pending = new Map<number, { resolve(text: string): void; reject(e: Error): void }>();
  let nextId = 0;
  const metrics = config.metrics
    ? createServerMetrics({
        reloads: false,
        // The whole cluster's text, from the primary.
        scrape: () =>
          new Promise<string>((resolve, reject) => {
            const id = nextId++;
            pending.set(id, { resolve, reject });
            send({ quiver: "metrics?", id });
          }),
      })
    : undefined;
  const requestLog = config.quiet ? undefined : createRequestLog();
  const running = await startServing({
    graph,
    apiKeys: (env[API_KEYS_ENV] ?? "").split(","),
    // The handler seals cursors with the shared secret (and tags answers with it: same ETags everywhere).
    cursorSecret: env[CURSOR_SECRET_ENV],
    cacheBytes: config.cacheBytes,
    cors: config.cors,
    explorer: config.ui ? openExplorer(events, process.stderr) : undefined,
    host: config.host,
    port: config.port,
    log: requestLog?.write,
    metrics,
    events,
  });

  const stop = catchStopSignals();
  process.on("message", (m: ToWorker) => {
    if (m?.quiver === "drain") stop.trigger("SIGTERM");
    if (m?.quiver === "registry?" && metrics !== undefined) {
      const id = m.id;
      void registryJson(metrics.registry).then((json) => send({ quiver: "registry", id, metrics: json }));
    }
    if (m?.quiver === "metrics") {
      const waiter = pending.get(m.id);
      pending.delete(m.id);
      if (m.text !== undefined) waiter?.resolve(m.text);
      else waiter?.reject(new Error(m.error ?? "no answer"));
    }
  });
  // The primary gone (killed): nobody will replace or stop this worker; stop on our own.
  process.on("disconnect", () => stop.trigger("SIGTERM"));
  const first = graph.statements({ limit: 1 }).items[0];
  // Logged before the primary hears of it, so the log shows a worker ready before any roll event.
  events.info("worker-ready", { generation: config.generation, openMs: Math.round(openMs) });
  send({
    quiver: "ready",
    url: running.url,
    entities: graph.entityCount,
    statements: graph.statementCount,
    openMs: Math.round(openMs),
    word: first?.subjectRawIdentifier.split(/\s+/).find((w) => w !== "") ?? "a",
  });
  await stop.first;
  await running.close();
  requestLog?.flush();
  await new Promise((resolve) => setTimeout(resolve, WORKER_EXIT_GRACE_MS));
  return 0;
}

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
 * - The workers themselves (start, replace with back-off, roll, drain, stop) are a WorkerPool
 *   (serving/worker-pool.ts); this file wires it to node:cluster, the signals and the log.
 * - Scheduling: each worker accepts its own connections (cluster.SCHED_NONE), unless
 *   NODE_CLUSTER_SCHED_POLICY chooses otherwise. Under node's round-robin the primary accepts and
 *   hands each connection to a worker over IPC; a worker that dies with a hand-off in its pipe
 *   leaves that connection open in the primary forever, and its client waits forever. With each
 *   worker accepting, a dying worker's connections are closed by the kernel with it, and the ones
 *   not yet accepted wait in the shared backlog for another worker (`npm run test:kill-load`).
 * - `--port 0`: the primary picks the free port once, before the first worker, and every worker
 *   (replacements too) listens on it, so the announced URL stays right after every worker died.
 * - SIGHUP rolls: the new graph is prepared (JSON Lines: a new snapshot, built off the primary's
 *   event loop), then the pool rolls. A SIGHUP before the workers serve is logged and ignored, and
 *   so is every SIGHUP to a live graph (--changes, --follow), as in one process.
 * - SIGTERM or SIGINT: every worker drains (stops accepting, finishes requests in flight), then the
 *   primary removes its temporary files and exits 0. The temporary files are also removed when
 *   the primary exits any other way (process 'exit').
 * - Metrics: a scrape lands on a worker, which asks the primary; the primary asks each serving
 *   worker (adopted, not retiring) for its registry, aggregates the answers (serving/metrics.ts)
 *   and adds its reload counters. A worker that exits or does not answer within
 *   WORKER_REGISTRY_TIMEOUT_MS is left out of that one scrape, which never fails for it.
 *
 * - Changes (`--changes DIR`): the primary is the log's one writer (it opens the graph too, holds
 *   the lock, applies and fsyncs, and compacts in the background as one process does); every worker
 *   follows the log (serve-live.ts's follower). A POST that lands on a worker is forwarded over IPC
 *   (`apply`); the primary applies it, tells every worker that has opened the graph to catch up to
 *   its sequence (`catch-up`), and answers the worker (`applied`) once each has acknowledged
 *   (`caught-up`), or exited, or CATCH_UP_TIMEOUT_MS passed: so after a 200 every worker answers
 *   with the batch. A worker started later replays the log when it opens, says `opened`, and
 *   listens only after the primary's `opened-ack` (catching up to the sequence it names): a batch
 *   applied before the primary heard `opened` is in that catch-up, one after waits for the worker.
 *   Compaction: the primary's background compaction is also saved as a snapshot in its temporary
 *   directory; every worker is told to `rebase` on it (opened in a worker thread, swapped in as the
 *   base: LiveFollower.rebase), so the workers' deltas shrink as the primary's does.
 *   `--follow DIR`: every worker follows.
 *
 * Messages between primary and workers are objects with a `quiver` field.
 */

import cluster, { type Worker } from "node:cluster";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Graph } from "../engine/graph.js";
import { openSnapshot, openSnapshotShared } from "../snapshot/file.js";
import type { EventLog } from "../serving/event-log.js";
import type { GraphSource } from "../serving/graph-source.js";
import { pickPort, startServing } from "../serving/listen.js";
import { loadBaseInWorker, saveSnapshotInWorker } from "../serving/load-in-worker.js";
import {
  clusterText,
  createPrimaryMetrics,
  createServerMetrics,
  registryJson,
  type RegistryJson,
  WORKER_REGISTRY_TIMEOUT_MS,
} from "../serving/metrics.js";
import { createEventLog } from "../serving/event-log.js";
import {
  type PoolWorker,
  PoolStopped,
  RollFailed,
  type WorkerFailed,
  WorkerPool,
  type WorkerReady,
} from "../serving/worker-pool.js";
import { API_KEYS_ENV, type ApiKeySetup } from "./api-keys.js";
import type { ChangeResult } from "../engine/live/live-graph.js";
import { isQuiverError, QuiverError, type QuiverErrorCode } from "../engine/errors.js";
import type { ChangeWriter } from "../http/router.js";
import { DEFAULT_COMPACT_AFTER, type LiveServing, openLiveServing, WRITE_KEYS_ENV } from "./serve-live.js";
import { EXIT_FAILURE } from "./command.js";
import { createRequestLog } from "./request-log.js";
import type { ServeArgs } from "./serve-options.js";
import { CURSOR_SECRET_ENV } from "./serve-options.js";
import {
  catchStopSignals,
  firstWord,
  generateCursorSecret,
  explorerLine,
  generatedKeyLines,
  ignoreHangupUntilServing,
  openExplorer,
  pidLine,
  progressOutput,
  stopWhenNpmIsGone,
  tryItLines,
} from "./serve-process.js";

/** The environment variable that makes `quiver serve` a cluster worker (its settings, as JSON). */
export const CLUSTER_WORKER_ENV = "QUIVER_CLUSTER_WORKER";
/** node's own variable for the scheduling policy: when set, it is left to decide. */
const SCHED_POLICY_ENV = "NODE_CLUSTER_SCHED_POLICY";
/**
 * How long a drained worker stays connected before it exits. Under round-robin scheduling the
 * primary may have handed it a connection just before it stopped listening; only a worker that
 * reads that hand-off can refuse it (the primary then gives it to another worker).
 */
const WORKER_EXIT_GRACE_MS = 500;
/**
 * Longest wait, after a batch is in the log, for every worker to say it holds it before the POST is
 * answered anyway (a worker stuck that long is late; it still catches up at its next poll).
 */
export const CATCH_UP_TIMEOUT_MS = 5_000;
/** glibc's list of tunables (`name=value`, separated by colons), read once when a process starts. */
export const GLIBC_TUNABLES_ENV = "GLIBC_TUNABLES";
/** The tunable by which glibc's malloc asks for transparent huge pages for the blocks it maps. */
export const HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb";

/**
 * The GLIBC_TUNABLES a worker starts with, or undefined to leave it the primary's as it is. A
 * worker is a fresh process, so it can have glibc's huge pages at no cost (docs/operations.md,
 * "Huge pages"): the tunable is added after any others the user set.
 */
export function workerTunables(
  current: string | undefined,
  platform: NodeJS.Platform,
  hugePages: boolean,
): string | undefined {
  // Each branch: opted out (--no-huge-pages); not Linux (no glibc to read it); the user chose a value.
  if (!hugePages || platform !== "linux") return undefined;
  const given = current === undefined || current === "" ? [] : current.split(":");
  if (given.some((t) => t.startsWith(`${HUGE_PAGES_TUNABLE}=`))) return undefined;
  return [...given, `${HUGE_PAGES_TUNABLE}=1`].join(":");
}

/** Compacted snapshots the primary keeps (the newest, and the one before for a worker still opening it). */
const KEPT_COMPACTIONS = 2;

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
  /** The change log every worker follows (--changes or --follow), if any. */
  follow: string | undefined;
  /** Take POST /graph/v1/changes and forward the batches to the primary (--changes). */
  forwardChanges: boolean;
}

/** A writer's refusal as it crosses IPC: the QuiverError's code and message (no code: a fault). */
interface ApplyFailure {
  code: QuiverErrorCode | undefined;
  message: string;
}

type FromWorker =
  | WorkerReady
  | WorkerFailed
  | { quiver: "metrics?"; id: number }
  | { quiver: "registry"; id: number; metrics: RegistryJson }
  | { quiver: "apply"; id: number; batch: string }
  | { quiver: "caught-up"; sequence: number }
  | { quiver: "opened"; sequence: number };
type ToWorker =
  | { quiver: "drain" }
  | { quiver: "applied"; id: number; result?: ChangeResult; error?: ApplyFailure }
  | { quiver: "catch-up"; sequence: number }
  | { quiver: "opened-ack"; sequence: number }
  | { quiver: "rebase"; snapshot: string }
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
  /** Removes the start-up SIGHUP guard (serve-process.ts) once the roll handler is in place. */
  stopIgnoring(): void;
}

/** A node:cluster worker as the pool sees it. */
function poolWorker(worker: Worker, events: EventLog): PoolWorker {
  // A message to a worker that is just going away (a signal sent to the whole process group,
  // Ctrl-C in a terminal, reaches the workers too) fails with EPIPE: that is not a fault.
  worker.on("error", (e) => events.warn("worker-channel", { workerPid: worker.process.pid, error: e.message }));
  return {
    pid: worker.process.pid,
    on: (event, listener) => worker.on(event, listener),
    once: (event, listener) => worker.once(event, listener),
    send: (message) => {
      if (worker.isConnected()) worker.send(message);
    },
    kill: (signal) => worker.process.kill(signal),
  };
}

export async function runClusterPrimary(options: ClusterPrimaryOptions): Promise<number> {
  const { args, source, keys, events, err, workers, stopIgnoring } = options;
  const secret = args.cursorSecret ?? generateCursorSecret();
  const stop = catchStopSignals();
  let tempDir: string | undefined;
  // However the primary ends (a thrown fault included), its temporary snapshots go with it.
  const removeTempNow = (): void => {
    if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
  };
  process.on("exit", removeTempNow);
  const cleanUp = async (): Promise<void> => {
    if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
    tempDir = undefined;
  };
  let pool: WorkerPool<WorkerConfig> | undefined;
  let ready = false;
  void stop.first.then(async (signal) => {
    if (ready) return;
    err.write(`quiver serve: ${signal} before the server was listening: stopped\n`);
    events.info("stopped", { signal, before: "listening" });
    pool?.killAll();
    await pool?.stop();
    await cleanUp();
    process.exit(0);
  });

  // Checked once here, so a missing page is reported once; each worker reads its own copy.
  const ui = args.ui && openExplorer(events, err) !== undefined;
  const started = performance.now();
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
  let first: WorkerConfig;
  try {
    first = {
      snapshot: await prepare(0),
      host: args.host,
      // Port 0: one free port for the whole run, so replacements never move (see the banner).
      port: args.port === 0 ? await pickPort(args.host) : args.port,
      quiet: args.quiet,
      metrics: args.metrics,
      cacheBytes: args.cacheBytes,
      cors: args.cors,
      ui,
      generation: 0,
      follow: args.changes ?? args.follow,
      forwardChanges: args.changes !== undefined,
    };
  } catch (e) {
    const message = (e as Error).message;
    events.error("load-failed", { error: message });
    err.write(`quiver serve: cannot load the graph: ${message}\n`);
    await cleanUp();
    return EXIT_FAILURE;
  }

  // --changes: the primary is the log's writer (see the banner); it opens the graph for that.
  let live: LiveServing | undefined;
  /** Compacted snapshots the workers were told to swap in, oldest first (the last two are kept). */
  const compactedSnapshots: string[] = [];
  const onCompacted = (ms: number, sequence: number, snapshot: string | undefined): void => {
    events.info("compacted", { compactMs: Math.round(ms), sequence });
    if (snapshot === undefined) return;
    // Every serving worker swaps it in as its base (its delta shrinks to the batches after it).
    for (const worker of liveWorkers()) worker.send({ quiver: "rebase", snapshot } satisfies ToWorker);
    compactedSnapshots.push(snapshot);
    // Two kept: a worker may still be opening the one before; older ones nobody opens any more.
    while (compactedSnapshots.length > KEPT_COMPACTIONS) void rm(compactedSnapshots.shift() as string, { force: true });
  };
  if (args.changes !== undefined) {
    try {
      tempDir ??= await mkdtemp(join(tmpdir(), "quiver-serve-"));
      // Each branch: the source's snapshot, its head shared with the compaction's worker; or the one built from JSON Lines.
      const opened =
        "snapshot" in source
          ? await openSnapshotShared(source.snapshot)
          : { graph: await openSnapshot(first.snapshot), shared: undefined };
      live = openLiveServing(
        opened.graph,
        {
          changes: args.changes,
          follow: undefined,
          cursorSecret: secret,
          cacheBytes: args.cacheBytes,
          compactAfter: args.compactAfter ?? DEFAULT_COMPACT_AFTER,
          compactDir: tempDir,
        },
        opened.shared === undefined ? source : { snapshot: opened.shared.path, shared: opened.shared },
        process.env,
        () => {},
        {
          compacted: onCompacted,
          failed: (e) => {
            events.error("compaction-failed", { error: (e as Error).message });
            err.write(
              `quiver serve: background compaction failed (the delta keeps serving): ${(e as Error).message}\n`,
            );
          },
        },
      );
    } catch (e) {
      const message = (e as Error).message;
      events.error("changes-failed", { error: message });
      err.write(`quiver serve: cannot open the change log: ${message}\n`);
      await cleanUp();
      return EXIT_FAILURE;
    }
  }
  /**
   * Workers that opened the live graph (said `opened`) and have not exited: serving, or about to
   * listen. A batch's 200 waits for each of them, so a worker that listens a moment after a batch
   * landed already holds it (see runClusterWorker: it listens only after the primary's `opened-ack`).
   */
  const opened = new Set<PoolWorker>();
  const liveWorkers = (): PoolWorker[] => [...new Set([...opened, ...(pool?.serving() ?? [])])];
  /** Workers yet to acknowledge a sequence: each resolved by its ack, its exit or the timeout. */
  const catchUps = new Set<{ worker: PoolWorker; sequence: number; done(): void }>();
  const everyWorkerHolds = (sequence: number): Promise<unknown> =>
    Promise.all(
      liveWorkers().map(
        (worker) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              events.warn("catch-up-late", { workerPid: worker.pid, sequence });
              done();
            }, CATCH_UP_TIMEOUT_MS);
            const entry = { worker, sequence, done: () => done() };
            function done(): void {
              clearTimeout(timer);
              catchUps.delete(entry);
              resolve();
            }
            catchUps.add(entry);
            worker.send({ quiver: "catch-up", sequence } satisfies ToWorker);
          }),
      ),
    );
  /** A batch a worker forwarded: applied here, held by every worker, then answered. */
  const applyFor = async (worker: PoolWorker, id: number, batch: string): Promise<void> => {
    const writer = live?.changes as ChangeWriter;
    let result: ChangeResult;
    try {
      result = await writer.apply(batch);
    } catch (e) {
      // A refusal keeps its code (the worker answers 400/409/503 as one process would); a fault does not.
      const error = { code: isQuiverError(e) ? e.code : undefined, message: (e as Error).message };
      worker.send({ quiver: "applied", id, error } satisfies ToWorker);
      return;
    }
    await everyWorkerHolds(result.sequence);
    worker.send({ quiver: "applied", id, result } satisfies ToWorker);
  };

  const primaryMetrics = args.metrics ? createPrimaryMetrics() : undefined;
  /** Registry questions waiting for a worker's answer, by id. */
  const asked = new Map<number, { worker: PoolWorker; answer(metrics: RegistryJson | undefined): void }>();
  let nextQuestion = 0;
  /** A worker's registry, or undefined when it exits or does not answer in time. */
  const askRegistry = (worker: PoolWorker): Promise<RegistryJson | undefined> =>
    new Promise((resolve) => {
      const id = nextQuestion++;
      const timer = setTimeout(() => answer(undefined), WORKER_REGISTRY_TIMEOUT_MS);
      const answer = (metrics: RegistryJson | undefined): void => {
        clearTimeout(timer);
        asked.delete(id);
        resolve(metrics);
      };
      asked.set(id, { worker, answer });
      worker.send({ quiver: "registry?", id } satisfies ToWorker);
    });
  const scrapeCluster = async (own: PrimaryRegistry): Promise<string> => {
    const answers = await Promise.all((pool?.serving() ?? []).map(askRegistry));
    return clusterText(
      answers.filter((a) => a !== undefined),
      own,
    );
  };
  const onMessage = (worker: PoolWorker, message: unknown): void => {
    const m = message as FromWorker;
    if (m?.quiver === "registry") asked.get(m.id)?.answer(m.metrics);
    if (m?.quiver === "apply" && live !== undefined) void applyFor(worker, m.id, m.batch);
    // From now on every batch waits for it; it catches up to the sequence now before it listens.
    if (m?.quiver === "opened" && live !== undefined) {
      opened.add(worker);
      worker.send({ quiver: "opened-ack", sequence: live.graph.sequence } satisfies ToWorker);
    }
    if (m?.quiver === "caught-up")
      for (const entry of [...catchUps]) if (entry.worker === worker && entry.sequence <= m.sequence) entry.done();
    if (m?.quiver !== "metrics?" || primaryMetrics === undefined) return;
    scrapeCluster(primaryMetrics.registry).then(
      (text) => worker.send({ quiver: "metrics", id: m.id, text } satisfies ToWorker),
      (e: unknown) => worker.send({ quiver: "metrics", id: m.id, error: (e as Error).message } satisfies ToWorker),
    );
  };
  // A worker gone: its unanswered registry questions are answered empty, a scrape goes on without it.
  const onExit = (worker: PoolWorker): void => {
    for (const question of [...asked.values()]) if (question.worker === worker) question.answer(undefined);
    for (const entry of [...catchUps]) if (entry.worker === worker) entry.done();
    opened.delete(worker);
  };
  const tunables = workerTunables(process.env[GLIBC_TUNABLES_ENV], process.platform, args.hugePages);
  const workerEnv = (config: WorkerConfig): Record<string, string> => ({
    [CLUSTER_WORKER_ENV]: JSON.stringify(config),
    ...(tunables === undefined ? {} : { [GLIBC_TUNABLES_ENV]: tunables }),
    [API_KEYS_ENV]: keys.keys.join(","),
    [CURSOR_SECRET_ENV]: secret,
    ...(live?.writeKeys === undefined ? {} : { [WRITE_KEYS_ENV]: live.writeKeys.join(",") }),
  });

  // Each worker accepts its own connections unless the operator chose node's policy (see the banner).
  if (process.env[SCHED_POLICY_ENV] === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: process.argv[1] as string, args: ["serve"] });
  const workerPool = new WorkerPool<WorkerConfig>({
    fork: (config) => poolWorker(cluster.fork(workerEnv(config)), events),
    config: first,
    events,
    onMessage,
    onExit,
  });
  pool = workerPool;
  let heads: { worker: PoolWorker; ready: WorkerReady }[];
  try {
    heads = await workerPool.start(workers);
  } catch (e) {
    const message = (e as Error).message;
    events.error("startup-failed", { error: message });
    err.write(`quiver serve: ${message}\n`);
    live?.close();
    await cleanUp();
    return EXIT_FAILURE;
  }
  const head = (heads[0] as (typeof heads)[number]).ready;
  ready = true;
  stop.onRepeat(() => workerPool.killAll());
  events.info("ready", {
    url: head.url,
    entities: head.entities,
    statements: head.statements,
    loadMs: Math.round(performance.now() - started),
    workers,
    workerPids: heads.map((h) => h.worker.pid).join(" "),
  });
  err.write(
    `ready: ${head.entities.toLocaleString("en-US")} entities, ${head.statements.toLocaleString("en-US")} statements, ` +
      `${workers} workers, in ${((performance.now() - started) / 1000).toFixed(2)} s\n`,
  );
  err.write(generatedKeyLines(keys));
  if (live !== undefined) err.write(live.lines);
  err.write(tryItLines(head.url, head.word, keys.generated ? keys.keys[0] : undefined));
  if (ui) err.write(explorerLine(head.url));
  // A live graph (--changes or --follow): its workers serve the base plus the log, so a roll onto
  // a base prepared again (JSON Lines that changed since) would serve other content under the same
  // log than the writer checks batches against and than every replica serves; it is ignored, as
  // one process ignores it (serve.ts).
  const isLive = workerPool.config.follow !== undefined;
  err.write(pidLine(process.pid, !isLive));
  err.write(`listening on ${head.url}\n`);

  // SIGHUP: roll every worker onto the new graph, one at a time.
  let generation = 0;
  const roll = async (): Promise<void> => {
    const rollStarted = performance.now();
    const current = workerPool.config;
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
    let result: Awaited<ReturnType<typeof workerPool.roll>>;
    try {
      result = await workerPool.roll(next);
    } catch (e) {
      // Each branch: a stop cut the roll short (nothing to report), or a new worker failed.
      if (e instanceof PoolStopped) return;
      primaryMetrics?.reloaded(false);
      const rolled = e instanceof RollFailed ? e.rolled : 0;
      const message = (e as Error).message;
      events.error("reload-failed", { error: message, workersRolled: rolled });
      err.write(`quiver serve: reload failed, still serving the previous graph: ${message}\n`);
      if (next.snapshot !== current.snapshot && rolled === 0) await rm(next.snapshot, { force: true });
      return;
    }
    primaryMetrics?.reloaded(true);
    events.info("reloaded", {
      entities: result.last?.entities,
      statements: result.last?.statements,
      reloadMs: Math.round(performance.now() - rollStarted),
      workers: result.rolled,
    });
    err.write(
      `quiver serve: reloaded; ${result.last?.entities ?? 0} entities, ${result.last?.statements ?? 0} statements, ${result.rolled} workers rolled\n`,
    );
    // The old snapshot was ours (built from JSON Lines): no worker needs it any more.
    if (!("snapshot" in source) && current.snapshot !== next.snapshot) await rm(current.snapshot, { force: true });
  };
  let rolling = false;
  const onHangup = (): void => {
    if (isLive) {
      events.warn("reload-ignored", { reason: "a live graph (--changes or --follow) is not reloaded" });
      err.write("quiver serve: SIGHUP: a live graph is not reloaded; ignored\n");
      return;
    }
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
  stopIgnoring();
  const stopWatching = stopWhenNpmIsGone(stop.trigger);

  const signal = await stop.first;
  stopWatching();
  process.off("SIGHUP", onHangup);
  // A SIGHUP while the workers drain must not end the primary before it cleans up.
  ignoreHangupUntilServing(() => events.warn("reload-ignored", { reason: "stopping" }));
  events.info("stopping", { signal });
  err.write(`quiver serve: ${signal}: stopping; the workers finish requests in flight\n`);
  await workerPool.stop();
  live?.close();
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
  // --changes or --follow: this worker follows the log (a replica of the primary's writer).
  const live = openLiveServing(
    graph,
    {
      changes: undefined,
      follow: config.follow,
      cursorSecret: env[CURSOR_SECRET_ENV] as string,
      cacheBytes: config.cacheBytes,
      compactAfter: 0,
    },
    { snapshot: config.snapshot },
    env,
    (e) => events.error("follow-failed", { error: (e as Error).message }),
    { compacted: () => {}, failed: () => {} },
  );
  // Catch-up and rebase requests are heard from now on (the primary may wait on this worker from `opened`).
  const catchUpNow = (): void => {
    try {
      live.catchUp?.();
    } catch (e) {
      events.error("follow-failed", { error: (e as Error).message });
    }
  };
  /** Compactions to swap in, one at a time, in order (the newest wins: older ones waiting are skipped). */
  let rebaseTo: string | undefined;
  let rebasing = false;
  const rebase = async (): Promise<void> => {
    if (rebasing || rebaseTo === undefined || live.rebase === undefined) return;
    rebasing = true;
    const snapshot = rebaseTo;
    rebaseTo = undefined;
    const started = performance.now();
    try {
      // Opened in a worker thread and handed over in slices: this worker keeps answering meanwhile.
      // Its fingerprint map and counts made there too, so no write after the swap builds them here.
      const { graph: compacted, warmth } = await loadBaseInWorker({ snapshot });
      live.rebase(compacted, warmth);
      events.info("worker-rebased", {
        sequence: compacted.sequence,
        heldSequence: live.graph.sequence,
        rebaseMs: Math.round(performance.now() - started),
      });
    } catch (e) {
      // The delta keeps serving as it was; the next compaction tries again.
      events.error("rebase-failed", { snapshot, error: (e as Error).message });
    } finally {
      rebasing = false;
      void rebase();
    }
  };
  const onChanges = (m: ToWorker): void => {
    if (m?.quiver === "rebase") {
      rebaseTo = m.snapshot;
      void rebase();
    }
    if (m?.quiver !== "catch-up") return;
    catchUpNow();
    send({ quiver: "caught-up", sequence: live.graph.sequence });
  };
  process.on("message", onChanges);
  if (config.forwardChanges) {
    // With a writer in the primary: listen only once holding every batch the primary has answered
    // 200 for, or will answer without waiting for this worker (see the primary's `opened`).
    const ack = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CATCH_UP_TIMEOUT_MS);
      const onAck = (m: ToWorker): void => {
        if (m?.quiver !== "opened-ack") return;
        process.off("message", onAck);
        clearTimeout(timer);
        if (live.graph.sequence < m.sequence) catchUpNow();
        resolve();
      };
      process.on("message", onAck);
    });
    send({ quiver: "opened", sequence: live.graph.sequence });
    await ack;
  }
  const openMs = performance.now() - started;
  /** Batches forwarded to the primary, by id, until it answers. */
  const applying = new Map<number, { resolve(result: ChangeResult): void; reject(e: Error): void }>();
  let nextApply = 0;
  const changes: ChangeWriter | undefined = config.forwardChanges
    ? {
        graph: live.graph,
        apply: (batch) =>
          new Promise<ChangeResult>((resolve, reject) => {
            const id = nextApply++;
            applying.set(id, { resolve, reject });
            send({ quiver: "apply", id, batch });
          }),
      }
    : undefined;

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
  const requestLog = config.quiet
    ? undefined
    : createRequestLog(process.stdout, { onDrop: (n) => metrics?.logDropped(n) });
  const running = await startServing({
    graph: live.graph,
    changes,
    writeKeys: changes === undefined ? undefined : (env[WRITE_KEYS_ENV] ?? "").split(","),
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

    if (m?.quiver === "applied") {
      const waiter = applying.get(m.id);
      applying.delete(m.id);
      // Each branch: applied; refused (the writer's code kept); a fault of the writer.
      if (m.result !== undefined) waiter?.resolve(m.result);
      else if (m.error?.code !== undefined) waiter?.reject(new QuiverError(m.error.code, m.error.message));
      else waiter?.reject(new Error(m.error?.message ?? "the writer did not answer"));
    }
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
  // Logged before the primary hears of it, so the log shows a worker ready before any roll event.
  events.info("worker-ready", { generation: config.generation, openMs: Math.round(openMs) });
  send({
    quiver: "ready",
    url: running.url,
    entities: graph.entityCount,
    statements: graph.statementCount,
    openMs: Math.round(openMs),
    word: firstWord(graph),
  });
  await stop.first;
  await running.close();
  live.close();
  // Every line queued for a slow reader goes out before the worker does (bounded wait).
  await requestLog?.close();
  await new Promise((resolve) => setTimeout(resolve, WORKER_EXIT_GRACE_MS));
  return 0;
}

/**
 * `quiver serve`
 * ==============
 * The micro-server. Options are checked first (serve-options.ts), then the inputs (every file
 * named exists and is a file, the port can be bound), and only then is the graph loaded, so a typo
 * costs a second, not a load. One process by default; `--workers N` runs a node:cluster of N
 * processes on one port (serve-cluster.ts).
 *
 * Output: one JSON line per event on stdout (serving/event-log.ts: startup, ready with counts and
 * timings, reload, errors; the request log's lines between them), and for people, on stderr,
 * loading progress, the generated key with curl lines to try, the pid to signal and the
 * "listening on URL" line, printed last so a script can wait for it.
 *
 * Signals: SIGTERM or SIGINT stop accepting, finish requests in flight and exit 0 (a second one
 * cuts off what is left). SIGHUP loads the same source again in a worker thread
 * (serving/load-in-worker.ts) while the current graph keeps answering, then swaps it in; requests
 * in flight finish on the old graph, and a failed reload keeps it, logs why and counts it.
 * Run through `npm start`, the server is npm's child: npm forwards SIGTERM and SIGINT to it (the
 * start script execs node), but dies of SIGHUP; so the server also stops, drained, when the npm
 * that started it is gone, and prints its own pid for SIGHUP.
 */

import cluster from "node:cluster";
import type { Graph } from "../engine/graph.js";
import { createEventLog, type EventLog } from "../serving/event-log.js";
import { checkSourceReadable, loadGraphSource, sourceFiles, type GraphSource } from "../serving/graph-source.js";
import { openSnapshotShared } from "../snapshot/file.js";
import { loadGraphInWorker } from "../serving/load-in-worker.js";
import { probePort, startServing, type Serving } from "../serving/listen.js";
import { createServerMetrics } from "../serving/metrics.js";
import { apiKeysFromEnv, API_KEYS_ENV, type ApiKeySetup } from "./api-keys.js";
import { graphSourceFrom } from "./graph-source.js";
import {
  DEFAULT_COMPACT_AFTER,
  type LiveServing,
  openLiveServing,
  WRITE_KEYS_ENV,
  writeKeysFromEnv,
} from "./serve-live.js";
import { EXIT_FAILURE, EXIT_USAGE } from "./command.js";
import { summary } from "./progress.js";
import { createRequestLog } from "./request-log.js";
import { runClusterPrimary, runClusterWorker, CLUSTER_WORKER_ENV } from "./serve-cluster.js";
import {
  CURSOR_SECRET_ENV,
  HOST_ENV,
  MAX_WORKERS,
  METRICS_ENV,
  PORT_ENV,
  parseServeArgs,
  type ServeArgs,
} from "./serve-options.js";
import {
  catchStopSignals,
  explorerLine,
  firstWord,
  generateCursorSecret,
  generatedKeyLines,
  ignoreHangupUntilServing,
  openExplorer,
  pidLine,
  progressOutput,
  stopWhenNpmIsGone,
  tryItLines,
} from "./serve-process.js";
import { QUIVER_VERSION as VERSION } from "../version.js";
import { ROUTES } from "../http/routes.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../http/server.js";

export const SERVE_HELP = `Usage: quiver serve [--entities FILE --statements FILE [--fold case|accents] [--threads N] | --snapshot FILE]
                    [--host H] [--port P] [--workers N|auto] [--metrics] [--cache-mb N] [--cors ORIGINS]
                    [--cursor-secret S] [--quiet] [--no-ui] [--no-huge-pages] [--changes DIR [--compact-after N] | --follow DIR]

Loads a graph from JSON Lines files or a snapshot and serves the Quiver HTTP API:
GET ${ROUTES.search}, GET ${ROUTES.statements}, GET ${ROUTES.entity} (all need X-API-Key),
GET ${ROUTES.health} and GET ${ROUTES.openapi} (no key), GET /metrics with --metrics (no key),
and the explorer, a page to search and browse the graph in a browser, at GET / (no key to load it;
it asks for one).

Options:
  --entities FILE       entities, one JSON object per line: {"entityId","rawIdentifier","type","sourceType"}
  --statements FILE     statements, one JSON object per line: {"subjectEntityId","predicateEntityId",
                        "objectEntityId"} and optionally "statementFingerprint".
                        Give both files or neither; with neither, the demo graph in fixtures/ is served.
  --fold case|accents   how search folds names and queries of the JSON Lines: case (the default:
                        case and compatibility forms, accents kept) or accents (also removes
                        accents: "zurich" finds "Zürich"). A snapshot keeps the fold it was built with.
  --threads N           threads that parse the statements file (default: the cores, at most 8, for
                        a file of 16 MB or more); a .gz file is read on one thread
  --snapshot FILE       a snapshot made by "quiver build" (opens in about a second, no rebuild)
  --host H              address to listen on (default ${HOST_ENV}, else ${DEFAULT_HOST}, this machine
                        only; 0.0.0.0 or :: for every interface)
  --port P              TCP port, 0 to 65535 (default ${PORT_ENV}, else ${DEFAULT_PORT}; 0 picks a free port)
  --workers N|auto      serve from N processes on one port (node:cluster); auto = one per core.
                        Default 1. JSON Lines are built once into a temporary snapshot that every
                        worker opens; a worker that dies is replaced. With --changes the
                        primary writes the log and every worker follows it: a 200 means every
                        worker answers with the batch.
  --changes DIR         take changes (POST /graph/v1/changes, keys in QUIVER_WRITE_KEYS) into the
                        change log DIR, as its one writer; batches in it are applied before listening.
  --follow DIR          a replica: apply each new batch of the change log DIR as it appears; no writes.
  --compact-after N     with --changes: rebuild the base with the delta in a worker thread, while
                        serving, once the delta holds N changed items (default 100000; 0: never).
  --metrics             serve GET /metrics (Prometheus text format; no key, no data).
                        Default ${METRICS_ENV}=1 turns it on.
  --cache-mb N          megabytes the graph's caches may hold in all (default 64)
  --cors ORIGINS        let browser pages from these origins call the API: * or a comma-separated
                        list such as https://app.example,https://admin.example (default: off)
  --cursor-secret S     secret that seals pagination cursors. Servers with the same secret accept
                        each other's cursors (replicas behind a load balancer, or a restart).
                        Default: ${CURSOR_SECRET_ENV}, else a random secret for this run (shared by
                        its workers). Prefer the variable: options are visible in the process list.
                        At least 32 characters with 10 different ones: draw it at random, e.g.
                        "openssl rand -hex 16" (16 random bytes); a weaker one is refused.
  --quiet               no request log on stdout
  --no-ui               do not serve the explorer page at / (its paths answer 404)
  --no-huge-pages       with --workers on Linux: do not start the workers with
                        GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (transparent huge pages for the
                        graph's arrays; added by default unless GLIBC_TUNABLES already sets it)
  --version             print the version
  -h, --help            show this help

Environment:
  ${API_KEYS_ENV}       the accepted API keys, comma-separated; each starts with sk_.
                        Unset or empty: one random key is made for this run and printed on stderr.
  ${CURSOR_SECRET_ENV}  as --cursor-secret (the option wins)
  ${WRITE_KEYS_ENV}     with --changes: the keys that may POST changes (they read too), comma-separated,
                        each starting with sk_. Unset: one random write key is made and printed.
  ${PORT_ENV}, ${HOST_ENV}            as --port and --host (the options win)
  ${METRICS_ENV}        1 for --metrics

Output:
  stdout  one JSON line per event, {"level","time","pid","event",...}: startup, ready (counts,
          timings, url), reload, reload-failed, worker-replaced, errors; and one JSON line per
          request, {"level","time","pid","id","method","path","status","ms"} (id: the
          X-Request-Id the answer carried; not with --quiet). Never headers, keys or query strings.
          A reader that falls behind costs at most 1 MiB: further lines are dropped and counted
          (a request-log-dropped line once it catches up; quiver_request_log_dropped_lines_total).
  stderr  for people: loading progress, the generated key and curl lines to try, the pid, then
          "listening on http://HOST:PORT"; errors.

SIGTERM or SIGINT: stop accepting connections, finish requests in flight, exit 0.
SIGHUP: load the same files or snapshot again, off the serving thread, and serve the new graph;
requests in flight finish on the old one, cursors issued before carry on, and if the reload fails
the old graph keeps serving (logged, and counted in the metrics). With --workers, new workers open
the new graph one at a time, each ready before an old one drains. A server with --changes or
--follow ignores SIGHUP (its graph is the base plus the change log; a reload would drop the delta).
Run production servers as "quiver serve" (or "node dist/src/cli/main.js serve"), not "npm start":
npm does not pass SIGHUP on.
Exit status: 0 after a clean stop; 1 when an input is missing, the data cannot be loaded or the
address cannot be bound; 2 for a usage error.
`;

/** Runs `quiver serve`; resolves with the exit status once the server has stopped (or failed to start). */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // A cluster worker is this command started again by the primary, its settings in the environment.
  if (cluster.isWorker && env[CLUSTER_WORKER_ENV] !== undefined) return runClusterWorker(env);
  const err = process.stderr;
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv, env);
  } catch (e) {
    err.write(`quiver serve: ${(e as Error).message}\nRun "quiver serve --help" for the options.\n`);
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  let keys: ApiKeySetup;
  let source: GraphSource;
  try {
    keys = apiKeysFromEnv(env[API_KEYS_ENV]);
    // The write keys checked now too (a writer's: with --changes), not after the graph is loaded,
    // where a bad one was reported as a change log that could not be opened.
    if (args.changes !== undefined) writeKeysFromEnv(env[WRITE_KEYS_ENV]);
    source = graphSourceFrom(args);
    // `-` reads stdin in the other commands; a server reads its files again on every SIGHUP.
    for (const { what, path } of sourceFiles(source))
      if (path === "-")
        throw new Error(`serve cannot read the ${what} from stdin (-): a reload on SIGHUP reads it again; give a file`);
  } catch (e) {
    err.write(`quiver serve: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  }
  const events = createEventLog(process.stdout);
  // From the first event on, a SIGHUP cannot end the process: ignored (and said) until it serves.
  const stopIgnoring = ignoreHangupUntilServing(() => {
    events.warn("reload-ignored", { reason: "not serving yet" });
    err.write("quiver serve: SIGHUP before the server was listening: ignored\n");
  });
  events.info("startup", {
    version: VERSION,
    node: process.version,
    workers: args.workers,
    source: "snapshot" in source ? "snapshot" : "jsonl",
    files: sourceFiles(source)
      .map((f) => f.path)
      .join(" "),
    metrics: args.metrics,
  });
  // Inputs before the long work: each missing file or busy port is named at once.
  try {
    await checkSourceReadable(source);
    await probePort(args.host, args.port);
  } catch (e) {
    const message = (e as Error).message;
    events.error("startup-failed", { error: message });
    err.write(`quiver serve: ${message}\n`);
    return EXIT_FAILURE;
  }
  if (args.workers > 1) {
    return runClusterPrimary({
      args,
      source,
      keys,
      events,
      err,
      workers: Math.min(args.workers, MAX_WORKERS),
      stopIgnoring,
    });
  }
  return runSingle(args, source, keys, events, err, stopIgnoring);
}

async function runSingle(
  args: ServeArgs,
  source: GraphSource,
  keys: ApiKeySetup,
  events: EventLog,
  err: NodeJS.WriteStream,
  stopIgnoring: () => void,
): Promise<number> {
  // Signals are caught from here on. Before the server listens there is nothing to drain: a signal
  // ends the command at once, with status 0 like a drained stop.
  const stop = catchStopSignals();
  let serving = false;
  void stop.first.then((signal) => {
    if (serving) return;
    err.write(`quiver serve: ${signal} before the server was listening: stopped\n`);
    events.info("stopped", { signal, before: "listening" });
    process.exit(0);
  });

  const runSecret = generateCursorSecret();
  const explorer = args.ui ? openExplorer(events, err) : undefined;
  const started = performance.now();
  /**
   * The base as loaded, and the source a compaction loads it from (a snapshot's opened head, shared:
   * no second copy). A holder, emptied once the live graph has them: this frame stays suspended
   * until the server stops, and a local of it (an awaited value's register included) would keep the
   * first base, and the snapshot's shared memory, alive through every compaction after it.
   */
  const loaded: { graph?: Graph | undefined; source?: GraphSource | undefined } = {};
  try {
    await loadBase(source, args.changes !== undefined, loaded, err);
  } catch (e) {
    // The loader's message already reads "file:line: reason"; a snapshot's names its file.
    const message = (e as Error).message;
    events.error("load-failed", { error: message });
    err.write(`quiver serve: cannot load the graph: ${message}\n`);
    return EXIT_FAILURE;
  }
  const loadMs = performance.now() - started;
  err.write(summary(loaded.graph as Graph, loadMs) + "\n");
  const { entityCount, statementCount } = loaded.graph as Graph;
  const first = firstWord(loaded.graph as Graph);
  let live: LiveServing;
  try {
    live = openLiveServing(
      loaded.graph as Graph,
      {
        changes: args.changes,
        follow: args.follow,
        cursorSecret: args.cursorSecret ?? runSecret,
        cacheBytes: args.cacheBytes,
        compactAfter: args.compactAfter ?? DEFAULT_COMPACT_AFTER,
      },
      loaded.source as GraphSource,
      process.env,
      (e) => {
        events.error("follow-failed", { error: (e as Error).message });
        err.write(`quiver serve: --follow: ${(e as Error).message}\n`);
      },
      {
        compacted: (ms, sequence) => events.info("compacted", { compactMs: Math.round(ms), sequence }),
        failed: (e) => {
          events.error("compaction-failed", { error: (e as Error).message });
          err.write(`quiver serve: background compaction failed (the delta keeps serving): ${(e as Error).message}\n`);
        },
      },
    );
  } catch (e) {
    const message = (e as Error).message;
    events.error("changes-failed", { error: message });
    err.write(`quiver serve: cannot open the change log: ${message}\n`);
    return EXIT_FAILURE;
  }

  const metrics = args.metrics ? createServerMetrics() : undefined;
  const requestLog = args.quiet
    ? undefined
    : createRequestLog(process.stdout, { onDrop: (n) => metrics?.logDropped(n) });
  let running: Serving;
  try {
    running = await startServing({
      graph: live.graph,
      changes: live.changes,
      writeKeys: live.writeKeys,
      apiKeys: keys.keys,
      // A secret for the run when none is given (as a cluster's primary makes one): the answers'
      // tags then depend on the data only, so a reload of unchanged data keeps every ETag.
      cursorSecret: args.cursorSecret ?? runSecret,
      cacheBytes: args.cacheBytes,
      cors: args.cors,
      explorer,
      host: args.host,
      port: args.port,
      log: requestLog?.write,
      metrics,
      events,
    });
  } catch (e) {
    const message = `cannot listen on ${args.host}:${args.port}: ${(e as Error).message}`;
    events.error("startup-failed", { error: message });
    err.write(`quiver serve: ${message}\n`);
    live.close();
    return EXIT_FAILURE;
  }
  serving = true;
  stop.onRepeat(() => running.server.closeAllConnections());
  // A live graph's delta lives in this process: a reload of the base would drop it, so SIGHUP is
  // ignored (a compaction is what renews the base).
  const isLive = live.graph !== loaded.graph;
  // The live graph holds the base now (a compaction lets it go); a graph that never changes is live.graph.
  loaded.graph = undefined;
  loaded.source = undefined;
  const stopReloads = !isLive
    ? reloadOnHangup(source, running, events, err, metrics)
    : ignoreHangupUntilServing(() => {
        events.warn("reload-ignored", { reason: "a live graph (--changes or --follow) is not reloaded" });
        err.write("quiver serve: SIGHUP: a live graph is not reloaded; ignored\n");
      });
  stopIgnoring();
  const stopWatching = stopWhenNpmIsGone(stop.trigger);
  events.info("ready", {
    url: running.url,
    entities: entityCount,
    statements: statementCount,
    loadMs: Math.round(loadMs),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    workers: 1,
  });
  err.write(generatedKeyLines(keys));
  err.write(live.lines);
  err.write(tryItLines(running.url, first, keys.generated ? keys.keys[0] : undefined));
  if (explorer !== undefined) err.write(explorerLine(running.url));
  err.write(pidLine(process.pid, !isLive));
  // Last line of the start-up, so a script can wait for it: everything above is printed by then.
  err.write(`listening on ${running.url}\n`);

  const signal = await stop.first;
  err.write(`quiver serve: ${signal}: stopping; finishing requests in flight\n`);
  events.info("stopping", { signal });
  stopReloads();
  // A SIGHUP while draining must not end the process before the drain does.
  ignoreHangupUntilServing(() => events.warn("reload-ignored", { reason: "stopping" }));
  stopWatching();
  await running.close();
  live.close();
  // Every line queued for a slow reader goes out before the process does (bounded wait).
  await requestLog?.close();
  events.info("stopped", { signal });
  err.write("quiver serve: stopped\n");
  return 0;
}

/**
 * Loads `source` into `into` (serve's holder: see there): a snapshot under a change log opened with
 * its head shared (the compaction's worker opens the base from that memory), any other source loaded.
 */
async function loadBase(
  source: GraphSource,
  changes: boolean,
  into: { graph?: Graph | undefined; source?: GraphSource | undefined },
  err: NodeJS.WriteStream,
): Promise<void> {
  // Each branch: a snapshot under a change log (its head shared with the compaction's worker), or any other source.
  if ("snapshot" in source && changes) {
    const opened = await openSnapshotShared(source.snapshot);
    into.graph = opened.graph;
    into.source = { snapshot: source.snapshot, shared: opened.shared };
  } else {
    into.graph = await loadGraphSource(source, { onProgress: progressOutput(err) });
    into.source = source;
  }
}

/**
 * SIGHUP: load `source` again in a worker thread and swap it in. One reload at a time (a SIGHUP
 * during a reload is logged and ignored); a failure is logged, counted, and the old graph keeps
 * serving. Returns the remover.
 */
function reloadOnHangup(
  source: GraphSource,
  running: Serving,
  events: EventLog,
  err: NodeJS.WriteStream,
  metrics: ReturnType<typeof createServerMetrics> | undefined,
): () => void {
  let reloading = false;
  const onHangup = (): void => {
    if (reloading) {
      events.warn("reload-ignored", { reason: "a reload is already running" });
      err.write("quiver serve: SIGHUP: a reload is already running; ignored\n");
      return;
    }
    reloading = true;
    const started = performance.now();
    events.info("reload-started", {});
    err.write("quiver serve: SIGHUP: reloading the graph (the current one keeps serving)\n");
    // The handler applies the cursor secret and the cache budget to whatever graph it serves.
    loadGraphInWorker(source, { onProgress: progressOutput(err) })
      .then(
        (graph) => {
          running.setGraph(graph);
          metrics?.reloaded(true);
          const ms = performance.now() - started;
          events.info("reloaded", {
            entities: graph.entityCount,
            statements: graph.statementCount,
            reloadMs: Math.round(ms),
          });
          err.write(`quiver serve: reloaded; ${summary(graph, ms)}\n`);
        },
        (e: unknown) => {
          metrics?.reloaded(false);
          const message = (e as Error).message;
          events.error("reload-failed", { error: message });
          err.write(`quiver serve: reload failed, still serving the previous graph: ${message}\n`);
        },
      )
      .finally(() => (reloading = false));
  };
  process.on("SIGHUP", onHangup);
  return () => process.off("SIGHUP", onHangup);
}

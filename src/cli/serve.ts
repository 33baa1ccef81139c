/**
 * `quiver serve`
 * ==============
 * The micro-server: load a graph (graph-source.ts), print progress and a summary on stderr, listen,
 * log one JSON line per request on stdout, and on SIGTERM or SIGINT stop accepting, finish what is in
 * flight and exit 0. A bad data file ends the command with the loader's `file:line:` error and exit
 * status 1 before any port is opened. SIGHUP loads the same source again and swaps the new graph in;
 * requests in flight finish on the old one, and a failed reload keeps the old one serving.
 */

import { parseArgs } from "node:util";
import type { Graph } from "../engine/graph.js";
import { serve, DEFAULT_HOST, DEFAULT_PORT, type RunningServer } from "../http/server.js";
import { apiKeysFromEnv, API_KEYS_ENV, type ApiKeySetup } from "./api-keys.js";
import { graphSourceFrom, loadServeGraph, UsageError, type GraphSource } from "./graph-source.js";
import { createProgressPrinter, summary } from "./progress.js";
import { createRequestLog } from "./request-log.js";

export const CURSOR_SECRET_ENV = "QUIVER_CURSOR_SECRET";

export const SERVE_HELP = `Usage: quiver serve [--entities FILE --statements FILE | --snapshot FILE] [--host H] [--port P]
                    [--cursor-secret S] [--quiet]

Loads a graph from JSON Lines files or a snapshot and serves the Quiver HTTP API:
GET /graph/v1/search, GET /graph/v1/statements (both need X-API-Key),
GET /healthz and GET /graph/v1/openapi.json (no key).

Options:
  --entities FILE       entities, one JSON object per line: {"entityId","rawIdentifier","type","sourceType"}
  --statements FILE     statements, one JSON object per line: {"subjectEntityId","predicateEntityId",
                        "objectEntityId"} and optionally "statementFingerprint".
                        Give both files or neither; with neither, the demo graph in fixtures/ is served.
  --snapshot FILE       a snapshot made by "quiver build" (opens in about a second, no rebuild)
  --host H              address to listen on (default ${DEFAULT_HOST}, this machine only;
                        0.0.0.0 or :: for every interface)
  --port P              TCP port, 0 to 65535 (default ${DEFAULT_PORT}; 0 picks a free port)
  --cursor-secret S     secret that seals pagination cursors. Servers with the same secret accept
                        each other's cursors (replicas behind a load balancer, or a restart).
                        Default: ${CURSOR_SECRET_ENV}, else a random secret for this process.
                        Prefer the variable: options are visible to other users in the process list.
  --quiet               no request log on stdout
  -h, --help            show this help

Environment:
  ${API_KEYS_ENV}       the accepted API keys, comma-separated; each starts with sk_.
                        Unset or empty: one random key is made for this run and printed on stderr.
  ${CURSOR_SECRET_ENV}  as --cursor-secret (the option wins)

Output:
  stderr  loading progress (lines read, rate, phase), a summary when ready (entities, statements,
          build time, memory), then "listening on http://HOST:PORT"; errors
  stdout  one JSON line per request: {"time","method","path","status","ms"}; never headers, keys
          or query strings (turned off by --quiet)

SIGTERM or SIGINT: stop accepting connections, finish requests in flight, exit 0.
SIGHUP: load the same files or snapshot again and serve the new graph; requests in flight finish on
the old one, cursors issued before carry on, and if the reload fails the old graph keeps serving.
Exit status: 0 after a clean stop; 1 when the data cannot be loaded or the address cannot be bound;
2 for a usage error.
`;

/** Exit status of a command that ends with an error. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

interface ServeArgs {
  help: boolean;
  entities: string | undefined;
  statements: string | undefined;
  snapshot: string | undefined;
  host: string;
  port: number;
  cursorSecret: string | undefined;
  quiet: boolean;
}

function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeArgs {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: "boolean", short: "h" },
      entities: { type: "string" },
      statements: { type: "string" },
      snapshot: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "cursor-secret": { type: "string" },
      quiet: { type: "boolean" },
    },
  });
  const port = values.port ?? String(DEFAULT_PORT);
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535; got ${JSON.stringify(port)}`);
  const cursorSecret = values["cursor-secret"] ?? env[CURSOR_SECRET_ENV];
  if (cursorSecret === "")
    throw new UsageError(`the cursor secret (--cursor-secret or ${CURSOR_SECRET_ENV}) must not be empty`);
  return {
    help: values.help ?? false,
    entities: values.entities,
    statements: values.statements,
    snapshot: values.snapshot,
    host: values.host ?? DEFAULT_HOST,
    port: Number(port),
    cursorSecret,
    quiet: values.quiet ?? false,
  };
}

/** Runs `quiver serve`; resolves with the exit status once the server has stopped (or failed to start). */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
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
  let keys: ApiKeySetup;
  let source: GraphSource;
  try {
    keys = apiKeysFromEnv(env[API_KEYS_ENV]);
    source = graphSourceFrom(args);
  } catch (e) {
    err.write(`quiver serve: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  }

  // Signals are caught from here on. Before the server listens there is nothing to drain: a signal
  // ends the command at once, with status 0 like a drained stop.
  const stop = catchStopSignals();
  let serving = false;
  void stop.first.then((signal) => {
    if (serving) return;
    err.write(`quiver serve: ${signal} before the server was listening: stopped\n`);
    process.exit(0);
  });

  const started = performance.now();
  let graph: Graph;
  try {
    graph = await loadServeGraph(source, { onProgress: createProgressPrinter(err) });
  } catch (e) {
    // The loader's message already reads "file:line: reason"; a missing file names its path.
    err.write(`quiver serve: cannot load the graph: ${(e as Error).message}\n`);
    return EXIT_FAILURE;
  }
  err.write(summary(graph, performance.now() - started) + "\n");

  const log = args.quiet ? undefined : createRequestLog();
  let running: RunningServer;
  try {
    running = await serve({
      graph,
      apiKeys: keys.keys,
      host: args.host,
      port: args.port,
      ...(args.cursorSecret === undefined ? {} : { cursorSecret: args.cursorSecret }),
      ...(log === undefined ? {} : { log: log.write }),
    });
  } catch (e) {
    err.write(`quiver serve: cannot listen on ${args.host}:${args.port}: ${(e as Error).message}\n`);
    return EXIT_FAILURE;
  }
  serving = true;
  stop.onRepeat(() => running.server.closeAllConnections());
  const stopReloads = reloadOnHangup(running, source, err);
  err.write(tryItLines(running.url, graph, keys.generated ? keys.keys[0] : undefined));
  // Last line of the start-up, so a script can wait for it: everything above is printed by then.
  err.write(`listening on ${running.url}\n`);

  const signal = await stop.first;
  err.write(`quiver serve: ${signal}: stopping; finishing requests in flight\n`);
  stopReloads();
  await running.close();
  log?.flush();
  err.write("quiver serve: stopped\n");
  return 0;
}

/**
 * SIGHUP: load `source` again and swap it in. One reload at a time (a SIGHUP during a reload is
 * reported and ignored); a failure is reported and the old graph keeps serving. Returns the remover.
 */
function reloadOnHangup(running: RunningServer, source: GraphSource, err: NodeJS.WriteStream): () => void {
  let reloading = false;
  const onHangup = (): void => {
    if (reloading) {
      err.write("quiver serve: SIGHUP: a reload is already running; ignored\n");
      return;
    }
    reloading = true;
    const started = performance.now();
    err.write("quiver serve: SIGHUP: reloading the graph\n");
    loadServeGraph(source, { onProgress: createProgressPrinter(err) })
      .then(
        (graph) => {
          running.handler.setGraph(graph);
          err.write(`quiver serve: reloaded; ${summary(graph, performance.now() - started)}\n`);
        },
        (e: unknown) =>
          err.write(`quiver serve: reload failed, still serving the previous graph: ${(e as Error).message}\n`),
      )
      .finally(() => (reloading = false));
  };
  process.on("SIGHUP", onHangup);
  return () => process.off("SIGHUP", onHangup);
}

/** The first SIGTERM or SIGINT starts the drain; a second one cuts off whatever is still in flight. */
function catchStopSignals(): { first: Promise<NodeJS.Signals>; onRepeat(cut: () => void): void } {
  let received = false;
  let cut: () => void = () => {};
  let resolveFirst: (signal: NodeJS.Signals) => void = () => {};
  const first = new Promise<NodeJS.Signals>((resolve) => (resolveFirst = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      process.stderr.write(`quiver serve: ${signal} again: closing every connection now\n`);
      cut();
      return;
    }
    received = true;
    resolveFirst(signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return { first, onRepeat: (f) => (cut = f) };
}

/** The generated key (when there is one) and ready-to-paste curl lines against this graph. */
function tryItLines(url: string, graph: Graph, generatedKey: string | undefined): string {
  const key = generatedKey ?? "<one of QUIVER_API_KEYS>";
  // A real word of this graph, so the first try finds something: the subject of its first statement.
  const first = graph.statements({ limit: 1 }).items[0];
  const word = first?.subjectRawIdentifier.split(/\s+/).find((w) => w !== "") ?? "a";
  const head =
    generatedKey === undefined
      ? ""
      : `${API_KEYS_ENV} is not set: this run accepts one generated key:\n  ${generatedKey}\n`;
  return (
    head +
    `try:\n` +
    `  curl -H 'X-API-Key: ${key}' '${url}/graph/v1/search?q=${encodeURIComponent(word).replace(/'/g, "%27")}&limit=3'\n` +
    `  curl -H 'X-API-Key: ${key}' '${url}/graph/v1/statements?limit=2'\n`
  );
}

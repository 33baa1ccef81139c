/**
 * What one `quiver serve` process shares with the cluster's primary and workers
 * =============================================================================
 * The process lifecycle both serving modes use (serve.ts alone, serve-cluster.ts as a cluster):
 * catching the stop signals (first: drain, second: cut), stopping when the npm that started the
 * server is gone, the lines printed for people at start-up (pid, curl lines to try, progress),
 * and the run's cursor secret when none is given. Owned here so that the two modes import it
 * from below and never each other.
 */

import { randomBytes } from "node:crypto";
import type { Graph } from "../engine/graph.js";
import { type Explorer, loadExplorer } from "../http/explorer.js";
import type { LoadProgress } from "../load/jsonl.js";
import type { EventLog } from "../serving/event-log.js";
import { API_KEYS_ENV, type ApiKeySetup } from "./api-keys.js";
import { createProgressPrinter } from "./progress.js";

/** How often a server started by npm checks that npm is still there. */
export const PARENT_CHECK_MS = 1000;
/** Random bytes of a generated cursor secret (256 bits, HMAC-SHA256's own key size). */
const GENERATED_SECRET_BYTES = 32;

/** Progress for people: on stderr (rewritten in place on a terminal, a line a second otherwise). */
export function progressOutput(err: NodeJS.WriteStream): (p: LoadProgress) => void {
  return createProgressPrinter(err);
}

export function pidLine(pid: number, reloads = true): string {
  // A live graph (--changes, --follow) ignores SIGHUP: only the stop is offered.
  return reloads
    ? `pid ${pid}: kill -HUP ${pid} reloads the graph, kill -TERM ${pid} stops\n`
    : `pid ${pid}: kill -TERM ${pid} stops\n`;
}

/**
 * Started by npm (`npm start`), the server outlives an npm killed by a signal npm does not pass
 * on (SIGHUP): then it stops as on SIGTERM instead of running on as an orphan holding the port.
 */
export function stopWhenNpmIsGone(stop: (signal: NodeJS.Signals) => void): () => void {
  if (process.env["npm_lifecycle_event"] === undefined) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      process.stderr.write("quiver serve: npm, which started this server, is gone: stopping\n");
      stop("SIGTERM");
    }
  }, PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * How soon the same signal again is the first one delivered twice, not a person's second: npm
 * passes a signal on to the server it started, so a Ctrl-C on `npm start` reaches the server from
 * the terminal (the whole process group) and again from npm, about 1 ms apart (0.8 to 1.1 ms in
 * three runs of a POST held in flight under `npm start`, Ctrl-C as `kill -INT -PGID`); counted as
 * a second signal, that echo cut the request the first one lets finish. A person's second Ctrl-C,
 * after reading "stopping", comes later than this.
 */
export const SIGNAL_ECHO_MS = 500;

/**
 * The first SIGTERM or SIGINT starts the drain; a second one cuts off whatever is still in flight.
 * The same signal again within SIGNAL_ECHO_MS is the first one delivered twice and changes nothing.
 * `trigger` asks for the drain by other means (the primary's "drain" message to a worker, the
 * primary or npm gone): it starts the drain when none has started and never counts as a signal,
 * since a worker gets both a signal and the primary's drain message whenever the signal goes to
 * the whole process group (Ctrl-C in a terminal, `timeout`, systemd's default
 * KillMode=control-group). `now` is the clock (a test's own).
 */
export function catchStopSignals(now: () => number = () => performance.now()): {
  first: Promise<NodeJS.Signals>;
  onRepeat(cut: () => void): void;
  trigger(signal: NodeJS.Signals): void;
} {
  let started = false;
  let firstSignal: { signal: NodeJS.Signals; at: number } | undefined;
  let cut: () => void = () => {};
  let resolveFirst: (signal: NodeJS.Signals) => void = () => {};
  const first = new Promise<NodeJS.Signals>((resolve) => (resolveFirst = resolve));
  const begin = (signal: NodeJS.Signals): void => {
    if (started) return;
    started = true;
    resolveFirst(signal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    // Each branch: the first signal drains (also after a drain asked for otherwise); the same one
    // again at once is its echo (npm's); any other later one is a person's second, and cuts.
    if (firstSignal === undefined) {
      firstSignal = { signal, at: now() };
      begin(signal);
      return;
    }
    if (signal === firstSignal.signal && now() - firstSignal.at < SIGNAL_ECHO_MS) return;
    process.stderr.write(`quiver serve: ${signal} again: closing every connection now\n`);
    cut();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return { first, onRepeat: (f) => (cut = f), trigger: begin };
}

/**
 * SIGHUP before the server serves: the default action would kill the process (and leave a
 * cluster's temporary snapshot behind). Caught from the first moment, logged as ignored; the
 * serving code installs its own reload handler once it can reload, then calls the remover.
 */
export function ignoreHangupUntilServing(onIgnored: () => void): () => void {
  const listener = (): void => onIgnored();
  process.on("SIGHUP", listener);
  return () => process.off("SIGHUP", listener);
}

/** A random cursor secret for a run that was given none (shared by all its workers). */
export function generateCursorSecret(): string {
  return randomBytes(GENERATED_SECRET_BYTES).toString("base64url");
}

/** A real word of this graph, so the first try finds something: the subject of its first statement. */
export function firstWord(graph: Graph): string {
  const first = graph.statements({ limit: 1 }).items[0];
  return first?.subjectRawIdentifier.split(/\s+/).find((w) => w !== "") ?? "a";
}

/** The generated key with why it was made (nothing when the keys were given). */
export function generatedKeyLines(keys: ApiKeySetup): string {
  // Each branch names what the operator did: no variable at all, or one that holds only blanks.
  if (!keys.generated) return "";
  const why = keys.blank ? `${API_KEYS_ENV} holds no key (only blanks and commas)` : `${API_KEYS_ENV} is not set`;
  return `${why}: this run accepts one generated key:\n  ${keys.keys[0]}\n`;
}

/** Ready-to-paste curl lines that search for `word`, with the generated key when there is one. */
export function tryItLines(url: string, word: string, generatedKey: string | undefined): string {
  const key = generatedKey ?? "<one of QUIVER_API_KEYS>";
  return (
    `try:\n` +
    `  curl -H 'X-API-Key: ${key}' '${url}/graph/v1/search?q=${encodeURIComponent(word).replace(/'/g, "%27")}&limit=3'\n` +
    `  curl -H 'X-API-Key: ${key}' '${url}/graph/v1/statements?limit=2'\n`
  );
}

/**
 * The built explorer page, read once; when it is not built (a checkout where only tsc ran), the
 * server still serves the API: a warning says how to build the page, and "/" answers 404.
 */
export function openExplorer(events: EventLog, err: NodeJS.WritableStream): Explorer | undefined {
  try {
    return loadExplorer();
  } catch (e) {
    const message = (e as Error).message;
    events.warn("explorer-missing", { error: message });
    err.write(`quiver serve: ${message}; serving the API only\n`);
    return undefined;
  }
}

/** The line that points a person at the explorer page. */
export function explorerLine(url: string): string {
  return `explorer: ${url}/ (in a browser; paste the key into its "API key" field)\n`;
}

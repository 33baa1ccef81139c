/**
 * Options of `quiver serve`
 * =========================
 * Flags first, then the environment (12-factor: `PORT`, `HOST`, `QUIVER_METRICS`,
 * `QUIVER_CURSOR_SECRET`), then the defaults. Every value is checked here, before anything is
 * loaded; a bad one is a usage error (exit 2) that names the flag or the variable.
 */

import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import type { FoldMode } from "../engine/search/fold.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../http/server.js";
import { foldOption } from "./fold-option.js";
import { threadsOption } from "./threads-option.js";
import { UsageError } from "./graph-source.js";

export const CURSOR_SECRET_ENV = "QUIVER_CURSOR_SECRET";
export const METRICS_ENV = "QUIVER_METRICS";
export const PORT_ENV = "PORT";
export const HOST_ENV = "HOST";
/** Largest --workers: far more processes than cores only adds memory (each holds the graph). */
export const MAX_WORKERS = 256;

export interface ServeArgs {
  help: boolean;
  version: boolean;
  entities: string | undefined;
  statements: string | undefined;
  snapshot: string | undefined;
  /** --fold: how a graph built from JSON Lines folds for search; undefined: the default ("case"). */
  fold: FoldMode | undefined;
  /** --threads: threads that parse the statements file; undefined: the default (the cores). */
  threads: number | undefined;
  host: string;
  port: number;
  cursorSecret: string | undefined;
  quiet: boolean;
  metrics: boolean;
  workers: number;
  /** Byte budget of the graph's caches (--cache-mb), or undefined for the engine's default. */
  cacheBytes: number | undefined;
  /** --cors: "*" or the origins a browser page may call from; undefined: CORS off. */
  cors: string | string[] | undefined;
  /** The explorer page at "/" (off with --no-ui). */
  ui: boolean;
  /** --workers on Linux: start the workers with glibc's huge-page tunable (off with --no-huge-pages). */
  hugePages: boolean;
  /** --changes DIR: the change log this server writes (POST /graph/v1/changes). */
  changes: string | undefined;
  /** --follow DIR: a change log this server reads as it grows (a replica; no writes). */
  follow: string | undefined;
  /** --compact-after N: delta items that start a background compaction (0: never); undefined: the default. */
  compactAfter: number | undefined;
}

function parsePort(value: string, from: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${from} must be a number from 0 to 65535; got ${JSON.stringify(value)}`);
  return Number(value);
}

function parseWorkers(value: string): number {
  // "auto": one per core this process may use (cgroup limits included).
  if (value === "auto") return availableParallelism();
  if (!/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > MAX_WORKERS)
    throw new UsageError(
      `--workers must be auto or a whole number from 1 to ${MAX_WORKERS}; got ${JSON.stringify(value)}`,
    );
  return Number(value);
}

function parseCompactAfter(value: string): number {
  if (!/^(0|[1-9][0-9]{0,9})$/.test(value))
    throw new UsageError(
      `--compact-after must be a whole number of changed items (0: never); got ${JSON.stringify(value)}`,
    );
  return Number(value);
}

function parseCacheMegabytes(value: string): number {
  if (!/^(0|[1-9][0-9]{0,6})$/.test(value))
    throw new UsageError(`--cache-mb must be a whole number of megabytes (0 or more); got ${JSON.stringify(value)}`);
  return Number(value) * 1024 * 1024;
}

/** "*", or origins separated by commas: each scheme://host[:port], nothing after it. */
function parseCors(value: string): string | string[] {
  if (value === "*") return "*";
  const origins = value.split(",").map((o) => o.trim());
  for (const origin of origins) {
    if (!/^https?:\/\/[^\s/?#]+$/.test(origin))
      throw new UsageError(
        `--cors takes * or origins such as https://app.example (scheme and host, no path), separated by commas; got ${JSON.stringify(origin)}`,
      );
  }
  return origins;
}

function parseBooleanEnv(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new UsageError(`${name} must be 1 or 0 (true or false); got ${JSON.stringify(value)}`);
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    // Refused below, saying how serve takes its graph: the other commands take a SNAPSHOT so.
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
      entities: { type: "string" },
      statements: { type: "string" },
      snapshot: { type: "string" },
      fold: { type: "string" },
      threads: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "cursor-secret": { type: "string" },
      quiet: { type: "boolean" },
      metrics: { type: "boolean" },
      workers: { type: "string" },
      "cache-mb": { type: "string" },
      cors: { type: "string" },
      "no-ui": { type: "boolean" },
      "no-huge-pages": { type: "boolean" },
      changes: { type: "string" },
      follow: { type: "string" },
      "compact-after": { type: "string" },
    },
  });
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[0])}: serve takes its graph as --snapshot FILE, or --entities FILE --statements FILE`,
    );
  }
  // Each of these: the flag wins, then the variable, then the default.
  const port =
    values.port !== undefined
      ? parsePort(values.port, "--port")
      : env[PORT_ENV] !== undefined && env[PORT_ENV] !== ""
        ? parsePort(env[PORT_ENV], PORT_ENV)
        : DEFAULT_PORT;
  const host = values.host ?? (env[HOST_ENV] === undefined || env[HOST_ENV] === "" ? DEFAULT_HOST : env[HOST_ENV]);
  const cursorSecret = values["cursor-secret"] ?? env[CURSOR_SECRET_ENV];
  if (cursorSecret !== undefined) checkCursorSecret(cursorSecret);
  // One writer per log, and a replica never writes: the two roles exclude each other.
  if (values.changes !== undefined && values.follow !== undefined)
    throw new UsageError("--changes (write a change log) and --follow (read one) exclude each other; give one");
  for (const flag of ["changes", "follow"] as const) {
    if (values[flag] === "") throw new UsageError(`--${flag} needs a directory`);
  }
  return {
    cors: values.cors === undefined ? undefined : parseCors(values.cors),
    help: values.help ?? false,
    version: values.version ?? false,
    entities: values.entities,
    statements: values.statements,
    snapshot: values.snapshot,
    fold: foldOption(values.fold),
    threads: threadsOption(values.threads),
    host,
    port,
    cursorSecret,
    quiet: values.quiet ?? false,
    metrics: values.metrics ?? parseBooleanEnv(METRICS_ENV, env[METRICS_ENV]),
    workers: values.workers === undefined ? 1 : parseWorkers(values.workers),
    cacheBytes: values["cache-mb"] === undefined ? undefined : parseCacheMegabytes(values["cache-mb"]),
    ui: values["no-ui"] !== true,
    hugePages: values["no-huge-pages"] !== true,
    changes: values.changes,
    follow: values.follow,
    compactAfter: values["compact-after"] === undefined ? undefined : parseCompactAfter(values["compact-after"]),
  };
}

/**
 * The shortest cursor secret `quiver serve` accepts: 32 characters, what 16 random bytes take as hex
 * (24 as base64url). One issued cursor lets anyone test guesses of the secret offline at HMAC
 * speed (a 2-character secret fell in 7,075 guesses); 16 random bytes (128 bits) put every search
 * out of reach. A length cannot measure randomness, so the help says to draw the secret at random.
 */
export const MIN_CURSOR_SECRET_CHARS = 32;
/** Distinct characters a secret must hold: refuses the long but guessable ("aaaa...", "abab..."). */
export const MIN_CURSOR_SECRET_DISTINCT = 10;

/** Throws a UsageError saying what a strong secret is, unless `secret` meets the minimum. */
export function checkCursorSecret(secret: string): void {
  const where = `the cursor secret (--cursor-secret or ${CURSOR_SECRET_ENV})`;
  // The commands unquoted, each as a shell takes it: the node one holds double quotes of its own.
  const how = `use 16 random bytes or more, e.g. the output of: openssl rand -hex 16, or node -p "crypto.randomBytes(16).toString('hex')"`;
  // Each branch names what is wrong with it: empty, too short, or too few different characters.
  if (secret === "") throw new UsageError(`${where} must not be empty: ${how}`);
  if (secret.length < MIN_CURSOR_SECRET_CHARS)
    throw new UsageError(
      `${where} is too short to be safe (${secret.length} characters, at least ${MIN_CURSOR_SECRET_CHARS}): ${how}`,
    );
  if (new Set(secret).size < MIN_CURSOR_SECRET_DISTINCT)
    throw new UsageError(
      `${where} is too repetitive to be safe (fewer than ${MIN_CURSOR_SECRET_DISTINCT} different characters): ${how}`,
    );
}

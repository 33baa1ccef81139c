/**
 * Benchmark command line
 * ======================
 * Parses the options of `npm run bench -- ...` into one plain object, with every default named here.
 *
 *   --entities N --statements N    generate a graph of that size (default 200000 and 2000000;
 *                                  `1M`, `10M`, `200k` and `1_000_000` are accepted)
 *   --entities FILE --statements FILE
 *                                  benchmark your own JSON Lines files (a value that is not a number
 *                                  is a path; `--entities-file` / `--statements-file` say so outright)
 *   --yago [DIR]                   the real names of YAGO3-10 (default DIR $QUIVER_DATA_DIR/yago3-10,
 *                                  QUIVER_DATA_DIR defaulting to ../shared/data)
 *   --seed N                       generator seed (default 1)
 *   --fingerprints given|derived   generated statements carry their fingerprints (default), or none,
 *                                  so Quiver derives them
 *   --only PART,...                run only these parts (PARTS below; the build always runs: it makes
 *                                  the graph)
 *   --queries N                    distinct queries per case of the stream (default 2000)
 *   --rounds N                     rounds of the stream, the first a warm-up (default 3)
 *   --naive-queries N              of them, how many the baselines answer (default 40: they are slow)
 *   --host-heap MB                 the stream runs again with this much of the bench's own live
 *                                  objects held (a host's heap, bench/host-heap.ts; default 500, 0: not)
 *   --time MS                      time budget per repeated case (default 500)
 *   --baseline-statements N        statements the N3 and Map baselines of the repeated statements
 *                                  cases hold (default 1000000): N3 needs ~2 KB a triple, so 10M
 *                                  would not fit; a Quiver graph of the same subset runs beside them
 *   --data-dir DIR                 where generated files go (default a cache under the OS temp dir,
 *                                  reused while the generator is unchanged)
 *   --out FILE                     results JSON (default bench/results/<dataset>.json)
 *   --goals                        also judge each figure against the project's own targets
 *                                  (goals.ts: set for 1M entities / 10M statements on the
 *                                  development machine); off by default, so a run reports figures
 *                                  and baselines and never prints a verdict
 */

import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const DEFAULT_ENTITIES = 200_000;
export const DEFAULT_STATEMENTS = 2_000_000;
export const DEFAULT_SEED = 1;
export const DEFAULT_TASK_TIME_MS = 500;
export const DEFAULT_BASELINE_STATEMENTS = 1_000_000;
export const DEFAULT_QUERIES = 2_000;
export const DEFAULT_ROUNDS = 3;
export const DEFAULT_NAIVE_QUERIES = 40;
export const DEFAULT_HOST_HEAP_MB = 500;
/** Where the shared datasets live: QUIVER_DATA_DIR, else ../shared/data beside the repository. */
export const DATA_DIR = process.env["QUIVER_DATA_DIR"] ?? "../shared/data";
export const DEFAULT_YAGO_DIR = join(DATA_DIR, "yago3-10");
export const DEFAULT_RESULTS_DIR = "bench/results";
export const DEFAULT_DATA_CACHE = join(tmpdir(), "quiver-bench");

/**
 * The parts of a run, in the order they run. The build of the graph always runs.
 *  memory: the entities alone, and the same data with derived fingerprints (two more builds);
 *  stream: the distinct-query stream (the headline) and its naive baselines;
 *  depth: latency against page number, Quiver and the baselines;
 *  search, statements: the repeated-query cases, with a replica for cold cursors, and baselines;
 *  snapshot: save the graph and open it again.
 */
export type Part = "memory" | "stream" | "depth" | "search" | "statements" | "snapshot";
export const PARTS: readonly Part[] = ["memory", "stream", "depth", "search", "statements", "snapshot"];

/** Generated statements with their fingerprints ("given"), or without, for Quiver to derive. */
export type Fingerprints = "given" | "derived";

export type DataSource =
  | { kind: "generated"; entities: number; statements: number; seed: number; fingerprints: Fingerprints }
  | { kind: "files"; entities: string; statements: string }
  | { kind: "yago"; dir: string };

export interface BenchArgs {
  source: DataSource;
  parts: ReadonlySet<Part>;
  queries: number;
  rounds: number;
  naiveQueries: number;
  hostHeapMB: number;
  taskTimeMs: number;
  baselineStatements: number;
  dataDir: string | undefined;
  out: string | undefined;
  /** Print (and draw) the project's own goals beside the figures, with pass/FAIL. */
  goals: boolean;
}

export const USAGE = `usage: npm run bench -- [options]

  --entities N --statements N       generated graph (default ${DEFAULT_ENTITIES} / ${DEFAULT_STATEMENTS}; 1M, 10M, 200k accepted)
  --entities FILE --statements FILE your JSON Lines files (--entities-file / --statements-file also work)
  --yago [DIR]                      YAGO3-10's real names (default $QUIVER_DATA_DIR/yago3-10)
  --seed N                          generator seed (default ${DEFAULT_SEED})
  --fingerprints given|derived      generated statements with fingerprints (default) or without
  --only PART,...                   only these parts: ${PARTS.join(",")}
  --queries N                       distinct queries per stream case (default ${DEFAULT_QUERIES})
  --rounds N                        stream rounds, the first a warm-up (default ${DEFAULT_ROUNDS})
  --naive-queries N                 stream queries the baselines answer (default ${DEFAULT_NAIVE_QUERIES})
  --host-heap MB                    the stream again with MB of the bench's own objects live (default ${DEFAULT_HOST_HEAP_MB}; 0: not)
  --time MS                         time budget per repeated case (default ${DEFAULT_TASK_TIME_MS})
  --baseline-statements N           statements of the N3 / Map subset (default ${DEFAULT_BASELINE_STATEMENTS})
  --data-dir DIR                    where generated JSON Lines go (default a cache in the temp dir)
  --out FILE                        results JSON (default ${DEFAULT_RESULTS_DIR}/<dataset>.json);
                                    the HTML report is written beside it (.html)
  --goals                           also judge the figures against the project's own targets
                                    (set for npm run bench:full, 1M entities / 10M statements)`;

/** "200000", "200_000", "200k", "1M", "1.5m" -> a whole number; anything else -> undefined. */
export function parseCount(text: string): number | undefined {
  const m = /^(\d+(?:[._,]\d+)*)([kKmM]?)$/.exec(text.trim());
  if (m === null) return undefined;
  const digits = m[1] as string;
  const suffix = (m[2] as string).toLowerCase();
  const scale = suffix === "k" ? 1e3 : suffix === "m" ? 1e6 : 1;
  // With a suffix, "." is a decimal point (1.5M); without one, separators are only grouping.
  const value = suffix !== "" ? Number(digits.replace(/[_,]/g, "")) * scale : Number(digits.replace(/[._,]/g, ""));
  return Number.isSafeInteger(Math.round(value)) ? Math.round(value) : undefined;
}

export function parseArgs(argv: readonly string[]): BenchArgs {
  const values = new Map<string, string>();
  let yago: string | undefined;
  let goals = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") throw new UsageError("");
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    const next = argv[i + 1];
    // --yago takes an optional value: the next argument, unless it is another option.
    // --goals is a switch: it takes no value.
    if (name === "goals") {
      if (value !== undefined) throw new UsageError("--goals takes no value");
      goals = true;
      continue;
    }
    if (name === "yago") {
      if (value === undefined && next !== undefined && !next.startsWith("--")) value = argv[++i];
      yago = value ?? DEFAULT_YAGO_DIR;
      continue;
    }
    if (value === undefined) {
      if (next === undefined || next.startsWith("--")) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    if (!KNOWN.has(name)) throw new UsageError(`unknown option --${name}`);
    if (values.has(name)) throw new UsageError(`--${name} given twice`);
    values.set(name, value);
  }

  const count = (name: string, fallback: number): number => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const n = parseCount(text);
    if (n === undefined) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(text)}`);
    return n;
  };

  const entitiesText = values.get("entities-file") ?? values.get("entities");
  const statementsText = values.get("statements-file") ?? values.get("statements");
  const entitiesIsFile =
    values.has("entities-file") || (entitiesText !== undefined && parseCount(entitiesText) === undefined);
  const statementsIsFile =
    values.has("statements-file") || (statementsText !== undefined && parseCount(statementsText) === undefined);

  let source: DataSource;
  if (yago !== undefined) {
    if (entitiesText !== undefined || statementsText !== undefined)
      throw new UsageError("--yago cannot be combined with --entities / --statements");
    source = { kind: "yago", dir: resolve(yago) };
  } else if (entitiesIsFile || statementsIsFile) {
    if (!(entitiesIsFile && statementsIsFile))
      throw new UsageError("give both --entities FILE and --statements FILE (or two numbers)");
    source = {
      kind: "files",
      entities: resolve(entitiesText as string),
      statements: resolve(statementsText as string),
    };
  } else {
    source = {
      kind: "generated",
      entities: entitiesText === undefined ? DEFAULT_ENTITIES : (parseCount(entitiesText) as number),
      statements: statementsText === undefined ? DEFAULT_STATEMENTS : (parseCount(statementsText) as number),
      seed: count("seed", DEFAULT_SEED),
      fingerprints: fingerprintsOf(values.get("fingerprints")),
    };
  }

  let parts: Set<Part> = new Set(PARTS);
  const only = values.get("only");
  if (only !== undefined) {
    parts = new Set();
    for (const p of only
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")) {
      if (!(PARTS as readonly string[]).includes(p))
        throw new UsageError(`--only takes ${PARTS.join(",")}, got ${JSON.stringify(p)}`);
      parts.add(p as Part);
    }
  }
  const rounds = count("rounds", DEFAULT_ROUNDS);
  // Round 0 is a warm-up that is not kept: one round would measure nothing.
  if (rounds < 2) throw new UsageError("--rounds must be at least 2 (the first is a warm-up)");
  const dataDir = values.get("data-dir");
  const out = values.get("out");
  return {
    source,
    parts,
    queries: count("queries", DEFAULT_QUERIES),
    rounds,
    naiveQueries: count("naive-queries", DEFAULT_NAIVE_QUERIES),
    hostHeapMB: count("host-heap", DEFAULT_HOST_HEAP_MB),
    taskTimeMs: count("time", DEFAULT_TASK_TIME_MS),
    baselineStatements: count("baseline-statements", DEFAULT_BASELINE_STATEMENTS),
    dataDir: dataDir === undefined ? undefined : resolve(dataDir),
    out: out === undefined ? undefined : resolve(out),
    goals,
  };
}

const KNOWN = new Set([
  "entities",
  "statements",
  "entities-file",
  "statements-file",
  "seed",
  "fingerprints",
  "only",
  "queries",
  "rounds",
  "naive-queries",
  "host-heap",
  "time",
  "baseline-statements",
  "data-dir",
  "out",
]);

function fingerprintsOf(text: string | undefined): Fingerprints {
  if (text === undefined || text === "given" || text === "derived") return text ?? "given";
  throw new UsageError(`--fingerprints takes given or derived, got ${JSON.stringify(text)}`);
}

/** A bad command line: main prints the message and USAGE, and exits 2. */
export class UsageError extends Error {}

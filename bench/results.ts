/**
 * Benchmark results
 * =================
 * Owns the shape of bench/results/<dataset>.json: what one run of `npm run bench` measured, written
 * by bench/main.ts and read by the HTML report (bench/html-report.ts) and by anyone comparing runs.
 * Every latency is in microseconds, every size in bytes, every duration in milliseconds; a part that
 * did not run is null, and a part that failed leaves its message in `errors`.
 *
 * Two kinds of latency rows, never mixed in one table or chart without their label:
 *  - "distinct": the distinct-query stream, each query asked once per round: the headline;
 *  - "repeated": one query asked many times (caches warm): a microbenchmark, kept for comparison.
 */

import { execFileSync } from "node:child_process";

import type { LatencyDistribution, LatencySummary } from "./sample.js";
import type { MemorySnapshot } from "./memory.js";
import type { GcTally } from "./stream.bench.js";

export const RESULTS_VERSION = 1;

/** Which implementation answered: Quiver or one of the baselines of bench/baselines/. */
export type Impl = "quiver" | "naive scan" | "Map store" | "N3 Store" | "Map of entities";

export interface LatencyRow extends LatencySummary {
  kind: "distinct" | "repeated";
  /** "search" or "statements". */
  endpoint: "search" | "statements";
  /** The case, e.g. `search page 2` or `P+O deep`; rows of several impls share it. */
  case: string;
  impl: Impl;
  /** What the case asked: the page reached, the matches, the filter. */
  detail: string;
  /** Page number asked for (1-based) when the case is one page. */
  page?: number;
  /** The data the row ran on, when not the whole graph (the baselines' subset). */
  data?: string;
}

export interface StreamFamily extends LatencyDistribution {
  /** e.g. "search, first pages": the pooled samples of several stream rows, for the CDF chart. */
  name: string;
}

export interface StreamResults {
  queries: number;
  rounds: number;
  naiveQueries: number;
  deepPage: number;
  rows: LatencyRow[];
  families: StreamFamily[];
  /** Queries whose baseline page differed from Quiver's (should be none). */
  disagreements: string[];
  /** GCs during Quiver's timed passes (the bench's forced ones between rounds left out). */
  gc: GcTally;
  /** Quiver's same passes again with a host heap held (bench/host-heap.ts); null with --host-heap 0. */
  hostHeap: HostHeapStream | null;
}

export interface HostHeapStream {
  /** Live heap the host's objects added (heapUsed after full GCs), bytes. */
  bytes: number;
  /** Objects the host heap holds. */
  objects: number;
  gc: GcTally;
  rows: LatencyRow[];
  families: StreamFamily[];
}

export interface DepthPoint {
  page: number;
  p50us: number;
  p99us: number;
  samples: number;
}

export interface DepthSeries {
  name: string;
  impl: Impl;
  endpoint: "search" | "statements";
  points: DepthPoint[];
}

export interface DepthResults {
  series: DepthSeries[];
}

export interface BuildPhase {
  /** The loader's progress phase ("entities", "search-index", ...). */
  phase: string;
  /** What the phase does, for people. */
  label: string;
  ms: number;
}

export interface BuildResults {
  entities: number;
  statements: number;
  inputBytes: number;
  totalMs: number;
  phases: BuildPhase[];
  identifierCodeUnits: number;
  /** graph.stats().bytes of the built graph. */
  bytes: Record<string, number>;
  /** Process memory the whole graph holds (heap + ArrayBuffers after full GCs). */
  held: MemorySnapshot;
  /** The process's peak resident set once built (VmHWM, the kernel's figure); null without /proc. */
  peakRssBytes: number | null;
}

export interface MemoryResults {
  gcAvailable: boolean;
  identifierCodeUnits: number;
  entities: number;
  statements: number;
  /** The process's memory held by a graph of the entities alone. */
  entitiesOnlyHeld: MemorySnapshot;
  /** (heap + ArrayBuffers of the entities-only graph) / identifier code units. */
  processPerCodeUnit: number;
  /** (whole graph - entities-only graph) / statements, fingerprints as the input gives them. */
  processPerStatement: number;
  /** The same data with every fingerprint left out, so Quiver derives them (repeats then merge). */
  derived: {
    statements: number;
    bytes: Record<string, number>;
    held: MemorySnapshot;
    processPerStatement: number;
  } | null;
}

export interface SearchResults {
  typeFilter: string;
  rareQuery: string | null;
  infixQuery: string | null;
  rows: LatencyRow[];
  disagreements: string[];
}

export interface StatementsResults {
  rows: LatencyRow[];
  /** The baselines' block: Quiver, Map store and N3 Store on the same (possibly partial) data. */
  baselineRows: LatencyRow[];
  baseline: {
    statements: number;
    subset: boolean;
    mapBuildMs: number;
    mapHeldBytes: number;
    n3BuildMs: number;
    n3HeldBytes: number;
    quiverBuildMs: number;
  } | null;
  notes: string[];
}

export interface SnapshotResults {
  fileBytes: number;
  saveMs: number;
  openMs: number;
  buildMs: number;
  held: MemorySnapshot;
}

export interface GoalCheck {
  /** Stable id, e.g. `stream.search.p99`. */
  id: string;
  /** Section of the report it belongs to. */
  section: "stream" | "repeated" | "memory" | "build" | "snapshot";
  /** What is measured, e.g. "search index". */
  figure: string;
  unit: string;
  measured: number | null;
  goal: number;
  stretch?: number;
  /** null: not judged (another size than the goal's, or not measured). */
  pass: boolean | null;
  note?: string;
}

export interface BenchResults {
  version: typeof RESULTS_VERSION;
  startedAt: string;
  durationMs: number;
  environment: {
    node: string;
    cpus: number;
    cpu: string;
    totalMemBytes: number;
    loadAtStart: number[];
    loadAtEnd: number[];
    revision: string;
  };
  dataset: {
    label: string;
    description: string;
    kind: "generated" | "yago" | "files";
    inputBytes: number;
  };
  options: Record<string, unknown>;
  build: BuildResults;
  memory: MemoryResults | null;
  stream: StreamResults | null;
  depth: DepthResults | null;
  search: SearchResults | null;
  statements: StatementsResults | null;
  snapshot: SnapshotResults | null;
  goals: GoalCheck[];
  /** Wall time of each part that ran, ms (the build: loadGraph alone). */
  partMs: Record<string, number>;
  errors: { part: string; message: string }[];
}

/** The file `npm run bench:changes` writes in bench/results/ (its own shape: ChangesResults). */
export const CHANGES_RESULTS = "changes.json";

/** One latency row of bench:changes, in milliseconds (a write is milliseconds, not microseconds). */
export interface ChangesRow {
  case: string;
  samples: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
  /** What else the row measured (statements/s, what the batch did). */
  detail: string;
  /** The project's goal for the row, in words, when it has one (issue 25). */
  goal?: string;
  /**
   * CPU time a batch, ms: over HTTP the writer process's (user + system, over the whole series,
   * divided by its batches), which a loaded machine does not inflate as it does wall-clock time.
   */
  cpuMs?: number;
}

/** One read case of bench:changes: the base alone beside base + delta, microseconds. */
export interface ChangesReadRow {
  case: string;
  baseP50us: number;
  liveP50us: number;
  baseP99us: number;
  liveP99us: number;
  /** A row of the case above's queries split by whether the delta changes their page: the class's share of them. */
  share?: number;
}

/** What one run of `npm run bench:changes` measured (bench/changes.bench.ts). */
export interface ChangesResults {
  kind: "changes";
  startedAt: string;
  environment: {
    node: string;
    cpus: number;
    cpu: string;
    loadAtStart: number[];
    loadAtEnd: number[];
    revision: string;
  };
  options: { entities: number; statements: number; delta: number; seed: number; http: boolean };
  /** Through the embedded API (openLive: prepare, the log's write with its fsyncs, commit). */
  apply: ChangesRow[];
  /** Over HTTP to a `quiver serve --changes` child on 127.0.0.1 (POST to 200), and a --follow replica; null: --no-http. */
  http: ChangesRow[] | null;
  delta: { entities: number; statements: number; hiddenEntities: number; hiddenStatements: number };
  reads: ChangesReadRow[];
  compaction: { inWorkerMs: number; timerLateMs: number; syncMs: number; entities: number; statements: number };
}

/** The commit the figures belong to, and whether src/ had uncommitted changes; "unknown" outside git. */
export function gitRevision(): string {
  try {
    const git = (...a: string[]) =>
      execFileSync("git", a, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const head = git("rev-parse", "--short", "HEAD");
    return git("status", "--porcelain", "--", "src") === "" ? head : `${head} + uncommitted changes in src/`;
  } catch {
    return "unknown";
  }
}

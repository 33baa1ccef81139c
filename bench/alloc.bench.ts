/**
 * Bytes allocated per query: `npm run bench:alloc -- --snapshot FILE`
 * ====================================================================
 * What makes the distinct-query stream's tail inside a host: every byte a page allocates brings the
 * next scavenge nearer, and a scavenge that lands in a page is that page's p99; whatever a page
 * keeps (a cache entry) is promoted and brings the next major GC nearer, which marks the host's
 * whole heap. Wall-clock percentiles on a shared machine are noisy; bytes allocated are not. This
 * counts them for every case of the stream (bench/stream.bench.ts: the same queries, the same
 * seed), on a graph opened from a snapshot, with this checkout's Quiver or another build's
 * (`--quiver DIR`: DIR/dist/src/index.js, so one bench measures a before and an after alike).
 *
 * How: per case, a warm-up pass over its queries (JIT, caches), then full GCs, then the queries in
 * batches of BATCH, heapUsed read before and after each batch. heapUsed grows by exactly what was
 * allocated on the heap while no GC runs; the GCs are observed (gc performance entries) and a batch
 * that one overlapped is not counted (run node with a large young generation,
 * --max-semi-space-size=64, and there are none). ArrayBuffer backing stores (Buffers) are outside
 * the heap: the `arrayBuffers` growth is shown beside it. Then what the queries keep: after a full
 * GC, the queries once more and two scavenges; the old generation's growth per query is what each
 * page promotes (cache entries, cached names): what makes scavenges slow (they copy it) and brings
 * the next major GC nearer (it marks the host's whole heap).
 *
 * `--profile CASE,...` (substrings of case names; `all`) also records where those cases allocate:
 * V8's sampling heap profiler through node:inspector, objects collected by GCs included, one sample
 * per PROFILE_INTERVAL bytes, and prints the allocation sites holding the most bytes.
 *
 * `--stream` then runs the stream itself on the same graph (bench/stream.bench.ts's runStream, no
 * baselines: `--host-heap MB`, default 500, and --rounds), as `npm run bench -- --only stream` does
 * on a graph it builds: the same figures without the build. `--stream-only` times the stream alone
 * (no byte counts: at 10M / 100M they take most of the run). `--cases NAME,...` keeps only the
 * named cases (exact names, as the tables print them): their queries are the same as in a full run,
 * and the walks to later pages no kept case needs are skipped (the deep-page walks are most of a
 * full run): at 10M / 100M what is left is opening the graph and drawing the queries (exporting the
 * entities and the statements), a few minutes on a busy machine.
 *
 * Huge pages (bench/huge-pages.ts): the stream's report says whether the process has them (the
 * transparent huge page mode, GLIBC_TUNABLES, the resident set in huge pages). `--huge-pages both`
 * runs the stream twice, each run a child process of this bench with the same options, without and
 * with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (read at process start: one process cannot have both),
 * and sets their percentiles side by side: what a deployment gains by setting it
 * (docs/operations.md, "Huge pages").
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { pathToFileURL } from "node:url";

import type * as Quiver from "../src/index.js";
import type { Graph } from "../src/index.js";
import { mulberry32 } from "../tools/prng.js";
import { count, heading, num, printTable, progress } from "./format.js";
import { GraphData } from "./graph-data.js";
import { describeHugePages, type HugePages, hugePages, withHugePages } from "./huge-pages.js";
import { collectGarbage, gcAvailable } from "./memory.js";
import { benchOptions } from "./options.js";
import { QUERY_SEED, runStream, type StreamCase, streamCaseNames, streamCases } from "./stream.bench.js";

/** How long a full GC's concurrent sweeping is given before the old generation is read. */
const SWEEP_WAIT_MS = 200;
/** Queries between two readings of heapUsed. */
const BATCH = 100;
/** Bytes between two samples of the heap profiler (V8's default is 32 KiB: too coarse for pages of a few KB). */
const PROFILE_INTERVAL = 512;
/** Allocation sites listed per profile. */
const PROFILE_SITES = 25;

const USAGE = `
npm run bench:alloc -- --snapshot FILE [options]

Bytes allocated per query, for every case of the distinct-query stream, on a graph opened from FILE.

  --snapshot FILE    the graph (quiver build --out FILE)
  --quiver DIR       measure the Quiver built in DIR (its dist/src/index.js; default this checkout)
  --queries N        distinct queries per case (default 2000)
  --profile CASES    also list where these cases allocate (comma-separated substrings of case
                     names, or all): V8's sampling heap profiler
  --cache-bytes N    the graph's cache budget (GraphOptions.cacheBytes; default the graph's)
  --kept             with --profile: only what the queries keep past two scavenges
  --stream           then time the stream on the same graph (no baselines)
  --stream-only      time the stream only: no byte counts (at 10M / 100M they take most of the run)
  --host-heap MB     with --stream: the second run's host heap (default 500; 0: none)
  --rounds N         with --stream: rounds, the first a warm-up (default 3)
  --cases NAMES      only these cases (comma-separated exact names, e.g. "O first page,search page 1")
  --huge-pages both  with --stream(-only): the stream twice, in two child processes, without and with
                     GLIBC_TUNABLES=glibc.malloc.hugetlb=1, side by side
  --json FILE        with --stream(-only): also write the stream's rows and huge pages to FILE
`;

const OPTIONS = {
  snapshot: { type: "string" },
  quiver: { type: "string" },
  queries: { type: "string", default: "2000" },
  profile: { type: "string" },
  kept: { type: "boolean", default: false },
  "cache-bytes": { type: "string" },
  stream: { type: "boolean", default: false },
  "stream-only": { type: "boolean", default: false },
  "host-heap": { type: "string", default: "500" },
  rounds: { type: "string", default: "3" },
  cases: { type: "string" },
  "huge-pages": { type: "string" },
  json: { type: "string" },
} as const;

/** What a run of the stream writes with --json (and --huge-pages both reads from its children). */
interface StreamJson {
  hugePages: HugePages;
  rows: { case: string; p50us: number; p99us: number }[];
}

interface CaseBytes {
  name: string;
  queries: number;
  /** Heap bytes per query, over the batches no GC overlapped. */
  heapPerQuery: number;
  /** ArrayBuffer bytes per query (Buffers' backing stores, off the heap). */
  buffersPerQuery: number;
  /** Batches left out because a GC ran during them. */
  skipped: number;
  /** Heap bytes per query still reachable after two scavenges: what the next major GC must mark. */
  keptPerQuery: number;
}

/** Bytes of the old generation (every space but new space): what scavenges promote into. */
function oldBytes(): number {
  let bytes = 0;
  for (const s of getHeapSpaceStatistics()) if (s.space_name !== "new_space") bytes += s.space_used_size;
  return bytes;
}

/** A scavenge (young generation only), when node runs with --expose-gc. */
function scavenge(): void {
  const gc = (globalThis as { gc?: (options: { type: string; execution: string }) => void }).gc;
  gc?.({ type: "minor", execution: "sync" });
}

/** Heap bytes allocated per query of `c` (see the banner). */
async function measure(c: StreamCase): Promise<CaseBytes> {
  for (let i = 0; i < c.queries; i++) c.ask(i);
  collectGarbage();
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const batches: { t0: number; t1: number; heap: number; buffers: number; n: number }[] = [];
  for (let from = 0; from < c.queries; from += BATCH) {
    const to = Math.min(c.queries, from + BATCH);
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    for (let i = from; i < to; i++) c.ask(i);
    const t1 = performance.now();
    const m1 = process.memoryUsage();
    batches.push({ t0, t1, heap: m1.heapUsed - m0.heapUsed, buffers: m1.arrayBuffers - m0.arrayBuffers, n: to - from });
  }
  await new Promise((r) => setImmediate(r));
  entries.push(...observer.takeRecords());
  observer.disconnect();
  // What the queries keep: a full GC, the queries once more, then two scavenges (the first copies
  // the survivors within the young generation, the second promotes them).
  collectGarbage();
  // The old generation's pages are swept after a full GC on other threads: its used bytes settle
  // once they are (read before that, the growth below came out several times too large).
  await new Promise((r) => setTimeout(r, SWEEP_WAIT_MS));
  const before = oldBytes();
  for (let i = 0; i < c.queries; i++) c.ask(i);
  scavenge();
  scavenge();
  const keptPerQuery = (oldBytes() - before) / c.queries;
  let heap = 0;
  let buffers = 0;
  let n = 0;
  let skipped = 0;
  for (const b of batches) {
    // A GC that overlapped the batch (memoryUsage is read just outside [t0, t1]: a margin of a ms).
    if (entries.some((e) => e.startTime <= b.t1 + 1 && e.startTime + e.duration >= b.t0 - 1)) {
      skipped++;
      continue;
    }
    heap += b.heap;
    buffers += b.buffers;
    n += b.n;
  }
  return {
    name: c.spec.name,
    queries: c.queries,
    heapPerQuery: n === 0 ? Number.NaN : heap / n,
    buffersPerQuery: n === 0 ? Number.NaN : buffers / n,
    skipped,
    keptPerQuery,
  };
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** The allocation sites of the cases' queries, bytes each (sampled), most first. */
async function profile(cases: readonly StreamCase[], kept: boolean): Promise<[string, number][]> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  collectGarbage();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: PROFILE_INTERVAL,
    includeObjectsCollectedByMajorGC: !kept,
    includeObjectsCollectedByMinorGC: !kept,
  } as never);
  let queries = 0;
  for (const c of cases) {
    for (let i = 0; i < c.queries; i++) c.ask(i);
    queries += c.queries;
  }
  // Kept: only what survives (two scavenges promote it; the profile drops what they collect).
  if (kept) {
    scavenge();
    scavenge();
  }
  const { profile: p } = (await session.post("HeapProfiler.stopSampling")) as unknown as {
    profile: { head: ProfileNode };
  };
  session.disconnect();
  const sites = new Map<string, number>();
  const walk = (node: ProfileNode, caller: string) => {
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/dist\//, "");
    const here = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    if (node.selfSize > 0) {
      const key = `${here}  <- ${caller}`;
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize / Math.max(1, queries));
    }
    for (const child of node.children) walk(child, here);
  };
  walk(p.head, "");
  return [...sites.entries()].sort((a, b) => b[1] - a[1]);
}

/**
 * --huge-pages both: this bench's command line run twice as child processes (node's own flags
 * kept), without and with the huge-page tunable, each writing its stream as JSON; then the two side
 * by side. The children run one after the other: at 10M / 100M one graph is all a machine should
 * hold (a caller holding the 10M lock holds it for both).
 */
function bothHugePages(argv: readonly string[]): void {
  const dir = mkdtempSync(join(tmpdir(), "quiver-huge-pages-"));
  const runs: [string, StreamJson][] = [];
  try {
    const rest: string[] = [];
    // The child's options: this command line without --huge-pages (and its value) and --json.
    for (let k = 0; k < argv.length; k++) {
      if (argv[k] === "--huge-pages" || argv[k] === "--json") k++;
      else if (!argv[k]!.startsWith("--huge-pages=") && !argv[k]!.startsWith("--json=")) rest.push(argv[k]!);
    }
    for (const [label, on] of [
      ["4 KiB pages", false],
      ["huge pages", true],
    ] as const) {
      const out = join(dir, `${on ? "on" : "off"}.json`);
      progress(`--huge-pages both: the stream with ${label}`);
      const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, ...rest, "--json", out], {
        stdio: "inherit",
        env: withHugePages(process.env, on),
      });
      if (child.status !== 0) throw new Error(`the run with ${label} failed (status ${child.status})`);
      runs.push([label, JSON.parse(readFileSync(out, "utf8")) as StreamJson]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [[, off], [, on]] = runs as [[string, StreamJson], [string, StreamJson]];
  heading("Distinct-query stream without and with huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), µs");
  printTable(
    ["case", "4 KiB p50", "4 KiB p99", "huge p50", "huge p99", "p50 huge / 4 KiB"].map((header) => ({ header })),
    off.rows.map((r) => {
      const h = on.rows.find((x) => x.case === r.case);
      return [
        r.case,
        num(r.p50us),
        num(r.p99us),
        h === undefined ? "" : num(h.p50us),
        h === undefined ? "" : num(h.p99us),
        h === undefined ? "" : num(h.p50us / r.p50us, 2),
      ];
    }),
  );
  for (const [label, run] of runs) console.log(`run with ${label}: ${describeHugePages(run.hugePages)}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const values = benchOptions(argv, OPTIONS, USAGE);
  if (values.snapshot === undefined) {
    process.stderr.write(`--snapshot FILE is required\n\n${USAGE.trim()}\n`);
    process.exit(2);
  }
  const streamed = values.stream || values["stream-only"];
  if (values["huge-pages"] !== undefined) {
    // Each branch: the one value this option takes, asked with a stream to compare; else a usage error.
    if (values["huge-pages"] !== "both" || !streamed) {
      process.stderr.write(`--huge-pages takes "both", with --stream or --stream-only\n\n${USAGE.trim()}\n`);
      process.exit(2);
    }
    bothHugePages(argv);
    return;
  }
  if (!gcAvailable) progress("warning: run node with --expose-gc, or the batches start with garbage of the warm-up");
  const from =
    values.quiver === undefined ? "../src/index.js" : pathToFileURL(resolve(values.quiver, "dist/src/index.js")).href;
  const api = (await import(from)) as typeof Quiver;
  progress(`opening ${values.snapshot} with ${values.quiver ?? "this checkout"}`);
  // Another build's Graph is another class: the bench reaches it through the public API only.
  const graph = (await api.openSnapshot(values.snapshot, {
    cursorSecret: "bench-alloc",
    cacheBytes: values["cache-bytes"] === undefined ? undefined : Number(values["cache-bytes"]),
  })) as unknown as Graph;
  const data = new GraphData(graph);
  const only = values.cases === undefined ? undefined : new Set(values.cases.split(",").map((s) => s.trim()));
  const unknown = [...(only ?? [])].filter((name) => !streamCaseNames().includes(name));
  if (unknown.length > 0) {
    process.stderr.write(
      `--cases: no case named ${unknown.map((n) => JSON.stringify(n)).join(", ")}\n\n${USAGE.trim()}\n`,
    );
    process.exit(2);
  }
  // --stream-only skips the byte counts (and their warm-up passes): the stream warms itself up, and
  // draws its own cases (the same queries), so none are drawn here.
  const byteCounts = !values["stream-only"] || values.profile !== undefined;
  const cases = byteCounts ? streamCases(data, Number(values.queries), mulberry32(QUERY_SEED), only) : [];
  const rows: CaseBytes[] = [];
  for (const c of values["stream-only"] ? [] : cases) {
    progress(`measuring ${c.spec.name} (${c.queries} queries)`);
    rows.push(await measure(c));
  }
  if (rows.length > 0) heading(`Bytes allocated per query (${values.quiver ?? "this checkout"}), batches of ${BATCH}`);
  if (rows.length > 0)
    printTable(
      ["case", "queries", "heap B / query", "kept B / query", "buffers B / query", "batches skipped (GC)"].map(
        (header) => ({ header }),
      ),
      rows.map((r) => [
        r.name,
        count(r.queries),
        num(r.heapPerQuery, 0),
        num(r.keptPerQuery, 0),
        num(r.buffersPerQuery, 0),
        String(r.skipped),
      ]),
    );
  if (values.profile !== undefined) {
    const wanted = values.profile.split(",").map((s) => s.trim());
    const chosen = cases.filter((c) => wanted.includes("all") || wanted.some((w) => c.spec.name.includes(w)));
    progress(`profiling ${chosen.length} cases`);
    const sites = await profile(chosen, values.kept);
    heading(
      `Where ${chosen.map((c) => c.spec.name).join(", ")} allocate${values.kept ? " what they keep" : ""}: sampled bytes per query`,
    );
    for (const [site, bytes] of sites.slice(0, PROFILE_SITES)) console.log(`${num(bytes, 0).padStart(8)}  ${site}`);
  }
  if (streamed) {
    const results = await runStream(data, {
      queries: Number(values.queries),
      rounds: Number(values.rounds),
      naiveQueries: 0,
      goals: true,
      hostHeapMB: Number(values["host-heap"]),
      only,
    });
    // Read after the stream: by then the graph and the queries' pages are resident.
    const pages = hugePages();
    console.log(`huge pages: ${describeHugePages(pages)}`);
    if (values.json !== undefined) {
      const rows = results.rows
        .filter((r) => r.impl === "quiver")
        .map((r) => ({ case: r.case, p50us: r.p50us, p99us: r.p99us }));
      writeFileSync(values.json, `${JSON.stringify({ hugePages: pages, rows } satisfies StreamJson)}\n`);
    }
  }
}

await main();

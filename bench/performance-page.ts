/**
 * docs/performance.md, written from the results
 * =============================================
 * Owns the performance page of the documentation: it is written from the benchmarks' JSON results,
 * never by hand, so its figures are always one run's, with the commit, the machine and the command
 * that measured them. History stays in git (this page's diffs), not in the page.
 *
 *   npm run docs:performance                    from bench/results/*.json
 *   node dist/bench/performance-page.js FILE... from the results files named
 *
 * Of the `npm run bench` results (bench/results.ts), the latest run of each dataset is kept (by
 * `startedAt`), the default size first; `bench/results/http.json` (`npm run bench:http`) adds an HTTP
 * section when it is there, `bench/results/changes.json` (`npm run bench:changes`) a live-changes one, and the latest `bench/results/databases-*.json` (`npm run bench:databases`) a
 * comparison with SQLite and PostgreSQL. The depth chart of the default-size run is drawn again into
 * docs/bench-depth.svg (the README shows it). Nothing here judges a figure against the project's
 * goals: the page compares Quiver with its baselines.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

import { isMainModule } from "../tools/main-module.js";
import { DEFAULT_ENTITIES, DEFAULT_RESULTS_DIR, DEFAULT_STATEMENTS, PARTS } from "./args.js";
import { memoryLines } from "./build.bench.js";
import type { DatabasesResults, SystemInfo } from "./databases.bench.js";
import { count, mib, num, secondsOf } from "./format.js";
import { charts } from "./html-report.js";
import { heldBytes } from "./memory.js";
import { CHANGES_RESULTS, type BenchResults, type ChangesResults, type LatencyRow } from "./results.js";

export const PERFORMANCE_PAGE = join("docs", "performance.md");
export const DEPTH_SVG = join("docs", "bench-depth.svg");
/** The results of `npm run bench:databases` are named so (one file per size). */
const DATABASES_RESULTS = /^databases-.*\.json$/;
/** The results of `npm run bench:http`, when a run wrote them. */
const HTTP_RESULTS = "http.json";

/** A Markdown table; numbers are already formatted. */
function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The command that makes a run like this one. */
export function commandOf(r: BenchResults): string {
  const o = r.options as {
    source?: { kind: string; entities?: number; statements?: number; fingerprints?: string; dir?: string };
    parts?: string[];
  };
  const args: string[] = [];
  const source = o.source;
  if (source?.kind === "generated") {
    if (source.entities !== DEFAULT_ENTITIES || source.statements !== DEFAULT_STATEMENTS)
      args.push(`--entities ${source.entities}`, `--statements ${source.statements}`);
    if (source.fingerprints === "derived") args.push("--fingerprints derived");
  } else if (source?.kind === "yago") args.push("--yago");
  else if (source?.kind === "files") args.push("--entities FILE --statements FILE");
  const parts = o.parts ?? [...PARTS];
  if (parts.length < PARTS.length) args.push(`--only ${parts.join(",")}`);
  return args.length === 0 ? "npm run bench" : `npm run bench -- ${args.join(" ")}`;
}

/** Every results file of `npm run bench` among `files`, the latest run of each dataset, default size first. */
export function latestRuns(runs: readonly BenchResults[]): BenchResults[] {
  const latest = new Map<string, BenchResults>();
  for (const r of runs) {
    const seen = latest.get(r.dataset.label);
    if (seen === undefined || seen.startedAt < r.startedAt) latest.set(r.dataset.label, r);
  }
  const isDefault = (r: BenchResults) =>
    r.build.entities === DEFAULT_ENTITIES &&
    r.build.statements === DEFAULT_STATEMENTS &&
    r.dataset.kind === "generated";
  return [...latest.values()].sort(
    (a, b) => Number(isDefault(b)) - Number(isDefault(a)) || a.dataset.label.localeCompare(b.dataset.label),
  );
}

function streamSection(r: BenchResults): string {
  const s = r.stream;
  if (s === null) return "";
  const quiver = s.rows.filter((x) => x.impl === "quiver");
  const baseline = (x: LatencyRow) => s.rows.find((b) => b.impl !== "quiver" && b.case === x.case);
  const kept = Math.max(1, s.rounds - 1);
  return `### Distinct queries (the headline)

${count(s.queries)} distinct queries per case, each asked once per round, ${kept} rounds kept (after a warm-up round), in
a fresh random order each round. The baselines answer the first ${count(s.naiveQueries)} queries of each case, and their
pages must equal Quiver's${s.disagreements.length === 0 ? " (they did)" : ` (${s.disagreements.length} did not)`}. µs.

${table(
  ["case", "queries", "Quiver p50", "Quiver p99", "baseline", "baseline p50"],
  quiver.map((x) => {
    const b = baseline(x);
    return [
      x.case,
      count(x.samples / kept),
      num(x.p50us),
      num(x.p99us),
      b?.impl ?? "",
      b === undefined ? "" : num(b.p50us),
    ];
  }),
)}

Pooled: ${s.families.map((f) => `${f.name} p50 ${num(f.p50us)}, p99 ${num(f.p99us)}`).join("; ")} µs.`;
}

function depthSection(r: BenchResults): string {
  const d = r.depth;
  if (d === null) return "";
  const pages = [...new Set(d.series.flatMap((x) => x.points.map((p) => p.page)))].sort((a, b) => a - b);
  return `### Latency against page depth

One query per endpoint, each page timed as a repeated query; Quiver resumes from the cursor's key, the baselines page
by offset. p50 µs.

${table(
  ["page", ...d.series.map((x) => `${x.name}, ${x.impl === "quiver" ? "Quiver" : x.impl}`)],
  pages.map((p) => [count(p), ...d.series.map((x) => num(x.points.find((q) => q.page === p)?.p50us))]),
)}`;
}

function repeatedSection(r: BenchResults): string {
  const out: string[] = [];
  if (r.search !== null) {
    const s = r.search;
    out.push(`### Repeated queries: search

One query timed again and again (its data stays in the CPU's caches): microbenchmark figures. "Replica cursor": the
page asked on a graph built apart from the same data and secret. µs.

${table(
  ["case", "Quiver p50", "Quiver p99", "naive scan p50"],
  s.rows
    .filter((x) => x.impl === "quiver")
    .map((x) => {
      const b = s.rows.find((y) => y.impl === "naive scan" && y.case === x.case);
      return [x.case, num(x.p50us), num(x.p99us), b === undefined ? "" : num(b.p50us)];
    }),
)}`);
  }
  const st = r.statements;
  if (st !== null) {
    const p50 = (rows: readonly LatencyRow[], name: string, impl: string) =>
      num(rows.find((x) => x.case === name && x.impl === impl)?.p50us);
    const cases = [...new Set(st.rows.map((x) => x.case))];
    out.push(`### Repeated queries: statements

The heaviest group of each filter shape, limit 50, µs.

${table(
  ["case", "Quiver p50", "Quiver p99"],
  cases.map((c) => {
    const x = st.rows.find((y) => y.case === c && y.impl === "quiver");
    return [c, num(x?.p50us), num(x?.p99us)];
  }),
)}`);
    if (st.baseline !== null) {
      const b = st.baseline;
      const names = [...new Set(st.baselineRows.map((x) => x.case))];
      out.push(`### Beside the Map store and the N3.js Store

On ${b.subset ? "the first " : "all "}${count(b.statements)} statements (the N3.js Store holds about 2 KB a statement), a Quiver
graph of the same statements beside them; the Map store and N3 page by offset. Repeated queries, p50 µs.

${table(
  ["case", "Quiver", "Map store", "N3.js Store"],
  names.map((n) => [
    n,
    p50(st.baselineRows, n, "quiver"),
    p50(st.baselineRows, n, "Map store"),
    p50(st.baselineRows, n, "N3 Store"),
  ]),
)}

Built in: Quiver ${secondsOf(b.quiverBuildMs)} s, Map store ${secondsOf(b.mapBuildMs)} s (${mib(b.mapHeldBytes)} MiB held), N3.js Store
${secondsOf(b.n3BuildMs)} s (${mib(b.n3HeldBytes)} MiB held).`);
    }
  }
  return out.join("\n\n");
}

function buildSection(r: BenchResults): string {
  const b = r.build;
  const out = [
    `### Build, memory and snapshot

Building from JSON Lines (${mib(b.inputBytes)} MiB), by phase, s:

${table(["phase", "s"], [...b.phases.map((p) => [p.label, secondsOf(p.ms)]), ["total", secondsOf(b.totalMs)]])}

Memory per structure (\`graph.stats().bytes\`), and what the process holds (heap and array buffers after full garbage
collections):

${table(
  ["structure", "MiB", "per unit", "unit"],
  memoryLines(b, r.memory).map((l) => [l.what, mib(l.bytes), num(l.per), l.unit]),
)}`,
  ];
  if (r.snapshot !== null) {
    const s = r.snapshot;
    out.push(
      `Snapshot: a ${mib(s.fileBytes)} MiB file, saved in ${secondsOf(s.saveMs)} s, opened in ${secondsOf(s.openMs)} s (the page cache warm); the
opened graph holds ${mib(heldBytes(s.held))} MiB.`,
    );
  }
  return out.join("\n\n");
}

function runSection(r: BenchResults): string {
  const e = r.environment;
  const busy = (e.loadAtEnd[0] ?? 0) > e.cpus;
  const header = `## ${r.dataset.description}

\`${commandOf(r)}\` at commit ${e.revision}, ${r.startedAt.slice(0, 10)}; node ${e.node}, ${e.cpus} × ${e.cpu},
${num(e.totalMemBytes / 2 ** 30, 0)} GiB; load average ${num(e.loadAtStart[0])} at the start, ${num(e.loadAtEnd[0])} at the end${
    busy ? " (other work shared the CPUs: the latencies are noisy)" : ""
  }; ${count(r.durationMs / 1000)} s in all.`;
  const failed =
    r.errors.length === 0 ? "" : `Parts that failed: ${r.errors.map((x) => `${x.part} (${x.message})`).join("; ")}.`;
  return [header, streamSection(r), depthSection(r), repeatedSection(r), buildSection(r), failed]
    .filter((x) => x !== "")
    .join("\n\n");
}

/** The `npm run bench:http` results, as the bench writes them (only what the page reads). */
interface HttpResults {
  options: { entities: number; statements: number; rounds: number; connections: number };
  table: Record<string, string | number>[];
  layers: Record<string, number>;
  /** Quiver's own CPU per request over the paced bare server, A/B (absent in runs before it was measured so). */
  ownRow?: { "us per request": number; goal: string; verdict: string; how: string };
}

function httpSection(h: HttpResults): string {
  const rows = h.table.filter((x) => x["workload"] !== undefined);
  const headers = rows.length === 0 ? [] : Object.keys(rows[0]!);
  return `## HTTP

\`npm run bench:http\` (${count(h.options.entities)} entities, ${count(h.options.statements)} statements; \`wrk\` with ${h.options.connections}
connections on one core, the server pinned to the other; medians of ${h.options.rounds} rounds): Quiver's server beside a bare
node:http server answering the same bytes. CPU per request in µs.

${table(
  headers,
  rows.map((x) => headers.map((k) => (typeof x[k] === "number" ? num(x[k] as number) : String(x[k])))),
)}

CPU added per layer on the mix, µs a request: ${Object.entries(h.layers)
    .map(([k, v]) => `${k} ${num(v)}`)
    .join(", ")}.${
    h.ownRow === undefined
      ? ""
      : `

Quiver's own CPU per request on the mix, over the paced bare server: ${num(h.ownRow["us per request"])} µs (goal ${h.ownRow.goal}: ${h.ownRow.verdict}; ${h.ownRow.how}).`
  }`;
}

function changesSection(c: ChangesResults): string {
  const env = c.environment;
  const rows = [...c.apply, ...(c.http ?? [])];
  return `## Live changes

\`npm run bench:changes -- --entities ${c.options.entities} --statements ${c.options.statements} --delta ${c.options.delta}\`
(${c.startedAt.slice(0, 10)}, node ${env.node}, ${env.cpus} × ${env.cpu}, engine at ${env.revision}, load average
${num(env.loadAtStart[0] ?? 0)} at the start, ${num(env.loadAtEnd[0] ?? 0)} at the end). A batch is answered once durable (log
file and directory fsync'd) and visible; the API rows run in the bench's process, the HTTP rows from one client on
127.0.0.1 to a \`quiver serve --changes\` child (and a \`--follow\` replica).

${table(
  ["case", "batches", "p50 ms", "p99 ms", "max ms", "detail"],
  rows.map((r) => [r.case, count(r.samples), num(r.p50ms), num(r.p99ms), num(r.maxMs), r.detail]),
)}

Reads on the base alone and on base + a delta of ${count(c.delta.statements)} statements and ${count(c.delta.entities)} entities (distinct
queries, paired; µs). The rows "page changed by the delta" and "page as the base's" split a case's queries by whether
the delta changes their page (a delta item on it, a tombstoned item left out, a new name):

${table(
  ["query", "base p50", "live p50", "x", "base p99", "live p99", "x"],
  c.reads.map((r) => [
    r.case,
    num(r.baseP50us),
    num(r.liveP50us),
    `${num(r.liveP50us / r.baseP50us, 2)}×`,
    num(r.baseP99us),
    num(r.liveP99us),
    `${num(r.liveP99us / r.baseP99us, 2)}×`,
  ]),
)}

Compaction in a worker thread ${secondsOf(c.compaction.inWorkerMs)} s (the serving thread's 1 ms timer at most
${num(c.compaction.timerLateMs, 1)} ms late).`;
}

function databasesSection(d: DatabasesResults): string {
  const g = d.generated;
  const pair = (x: { p50us: number; p99us: number } | null) => (x === null ? "" : `${num(x.p50us)} / ${num(x.p99us)}`);
  const size = (name: string, i: SystemInfo | null) =>
    i === null
      ? `${name}: not run`
      : `${name}: loaded and indexed in ${secondsOf(i.buildMs)} s, ${mib(i.bytes)} MiB ${i.bytesKind === "heap" ? "of heap" : "on disk"}`;
  const args =
    g.entities === 200_000 && g.statements === 1_000_000
      ? ""
      : ` -- --entities ${g.entities} --statements ${g.statements}`;
  const pgDiffers = d.postgresMissing === null ? `, PostgreSQL ${d.disagreements.postgres.count}` : "";
  return `## Against SQLite and PostgreSQL

\`npm run bench:databases${args}\`, ${d.startedAt.slice(0, 10)} (${count(g.entities)} entities, ${count(g.statements)} statements; node
${d.versions.node}, SQLite ${d.versions.sqlite}, PostgreSQL ${d.versions.postgres ?? "not run"}; ${d.machine.cpus} CPUs, load average
${num(d.machine.loadavgBefore)} at the start, ${num(d.machine.loadavgAfter)} at the end). The same distinct queries, each once per round,
${d.rounds - 1} rounds kept, p50 / p99 in µs: Quiver in-process; SQLite through better-sqlite3 (in-process: an FTS5 trigram
index over the folded names, B-tree indexes in SPO, POS and OSP order); PostgreSQL over one local connection with
prepared statements (a pg_trgm GIN index for \`ILIKE\`, the same B-trees), so its figures include a round trip. Next
pages: Quiver by its cursor, the databases by keyset. Search queries of 2 characters cannot use a trigram index: they
scan, and set the databases' p99.

${table(
  ["case", "queries", "Quiver", "SQLite", "PostgreSQL"],
  d.rows.map((r) => [r.case, r.detail, pair(r.quiver), pair(r.sqlite), pair(r.postgres)]),
)}

${[size("Quiver", d.systems.quiver), size("SQLite", d.systems.sqlite), d.postgresMissing ?? size("PostgreSQL", d.systems.postgres)].join("; ")}.
Pages differing from Quiver's on ${count(d.comparedQueries)} compared queries (search: plain ASCII letters only): SQLite
${d.disagreements.sqlite.count}${pgDiffers}.`;
}

const INTRO = `# Performance

<!-- Written by npm run docs:performance from the benchmarks' JSON results (bench/performance-page.ts): do not edit. -->

What Quiver's queries cost, measured through its public API beside naive baselines that answer the same queries with
the same pages: a substring scan over every identifier (search), a JavaScript \`Map\` from each entity to its
statements with offset paging, and the N3.js \`Store\` (statements). Each section below is one run of one commit, with
the command that made it; the development machine is a shared VM whose timings move by tens of percent between runs.
Run the benchmarks on your own machine, and on your own data, before you rely on a figure.

## Running the benchmarks

| command | what runs |
|---|---|
| \`npm run bench\` | every part at 200,000 entities and 2M generated statements: about 9 minutes on a busy 2-core machine (8 min 46 s at load 2 to 12), 2.7 GB of memory at its peak, and 250 MB of generated files kept in \`$TMPDIR/quiver-bench\` for the next run (delete them when done); half of the time is building the N3.js baseline |
| \`npm run bench:full\` | the same at 1M entities and 10M statements (about 20 minutes, 3 GB) |
| \`npm run bench:stream\` | the distinct-query stream alone, at 1M entities and 2M statements |
| \`npm run bench:yago\` | every part on YAGO3-10's real names (in \`$QUIVER_DATA_DIR/yago3-10\`) |
| \`npm run bench -- --entities FILE --statements FILE\` | every part on your own JSON Lines |
| \`npm run bench:alloc -- --snapshot FILE\` | bytes each case of the distinct stream allocates and keeps past a scavenge, per query, on a graph opened from a snapshot (\`--quiver DIR\`: another build's; \`--profile CASES\`: where; \`--stream\`: then the stream itself, with and without a 500 MB host heap; \`--cases\`: only the named cases; \`--huge-pages both\`: the stream without and with huge pages) |
| \`npm run bench:compare -- --against DIR\` | the distinct stream on this checkout and on the Quiver built in DIR, interleaved in one process; every page must agree |
| \`npm run bench:databases\` | the distinct stream on Quiver, SQLite (FTS5 trigram) and PostgreSQL 15 (pg_trgm) at 200,000 entities and 1M statements; PostgreSQL runs in a throwaway local cluster when its server binaries are installed |
| \`npm run bench:changes\` | live changes: a batch of 1 and of 10,000 statement puts (in-process and over HTTP to a \`quiver serve --changes\` child), the sustained rate, a batch of 10,000 entity changes (and the engine's CPU for them in batches of 1,000), how soon a \`--follow\` replica holds a batch, reads on base + delta beside the base alone, reads right after a batch of one change beside the same read again, and a compaction under load; default 100,000 entities and 1M statements, the project's goals at \`-- --entities 1000000 --statements 10000000\` (\`--snapshot FILE\`: a base opened from a snapshot; \`--reads-only\`, \`--compaction-only\`, \`--cases TEXT\`: parts of it) |
| \`npm run bench:scale\` | build time by phase, peak RSS, bytes per structure, snapshot size and open time and the distinct stream at 1M / 10M and 10M / 100M, side by side (\`--scale 0.2\` for 2M / 20M); the JSON Lines are generated once into \`--dir\` (about 14 GB free needed at full size) |
| \`npm run bench:snapshot\` | saving and opening a snapshot |
| \`npm run bench:http\` | CPU per request of the server beside a bare node:http server (needs \`wrk\` and \`taskset\`) |
| \`npm run bench:http-workers\` | the same load against \`--workers 1\` and \`--workers 2\` |
| \`npm run bench:reload\` | request latency while the server reloads a 1M-entity graph |
| \`npm run bench:memory\` | the memory of a served graph, per million entities and per ten million statements |

\`npm run bench -- --help\` lists every option (\`--only stream,depth,...\`, \`--queries\`, \`--rounds\`, \`--time\`,
\`--fingerprints derived\`). A run prints tables that fit 100 columns and writes \`bench/results/<dataset>.json\` with a
self-contained HTML report beside it (inline SVG charts, nothing fetched); \`node dist/bench/html-report.js FILE.json\`
draws the report again. \`--goals\` adds the project's own targets, with a verdict, to the output and the report.
After a run, \`npm run docs:performance\` writes this page again from the results.

Two kinds of latency, never mixed in one table:

- **distinct** (the headline): a stream of different queries, each asked once per round, in a fresh random order each
  round: what a service sees, the caches holding what other queries left in them. Timed with the bench's own sampler,
  one \`performance.now()\` pair around each call, since a stream of different calls is not what a microbenchmark
  library times;
  a statements case's \`first page full\` and \`first page short\` rows split its queries by whether the page
  holds the limit (a full page makes each item's strings: a few times a short one's cost);
- **repeated**: one query asked again and again, everything it touches cached: a microbenchmark (timed with
  tinybench).`;

/** The page for these runs (and the HTTP results, when there are some). */
export function renderPerformance(
  runs: readonly BenchResults[],
  http?: HttpResults,
  databases: readonly DatabasesResults[] = [],
  changes?: ChangesResults,
): string {
  const sections = latestRuns(runs).map(runSection);
  if (sections.length === 0)
    sections.push("## Results\n\nNo results yet: run `npm run bench`, then `npm run docs:performance`.");
  if (http !== undefined) sections.push(httpSection(http));
  if (changes !== undefined) sections.push(changesSection(changes));
  // The latest databases run only: one comparison table on the page.
  const latest = [...databases].sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
  if (latest !== undefined) sections.push(databasesSection(latest));
  return `${[INTRO, ...sections].join("\n\n")}\n`;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

function main(argv: readonly string[]): void {
  const files =
    argv.length > 0
      ? [...argv]
      : existsSync(DEFAULT_RESULTS_DIR)
        ? readdirSync(DEFAULT_RESULTS_DIR)
            .filter((f) => f.endsWith(".json"))
            .map((f) => join(DEFAULT_RESULTS_DIR, f))
        : [];
  const runs: BenchResults[] = [];
  let http: HttpResults | undefined;
  let changes: ChangesResults | undefined;
  const databases: DatabasesResults[] = [];
  for (const file of files) {
    const value = readJson(file) as Partial<BenchResults> & Partial<HttpResults>;
    // bench:http writes its own shape; every other file is a run of npm run bench.
    if (basename(file) === HTTP_RESULTS) http = value as HttpResults;
    else if (basename(file) === CHANGES_RESULTS && (value as { kind?: string }).kind === "changes")
      changes = value as unknown as ChangesResults;
    else if (DATABASES_RESULTS.test(basename(file)) && (value as { kind?: string }).kind === "databases")
      databases.push(value as unknown as DatabasesResults);
    else if (value.version !== undefined && value.build !== undefined) runs.push(value as BenchResults);
    else console.error(`${file}: not a results file of npm run bench; left out`);
  }
  writeFileSync(PERFORMANCE_PAGE, renderPerformance(runs, http, databases, changes));
  console.log(
    `wrote ${PERFORMANCE_PAGE} from ${runs.length} run(s)${http === undefined ? "" : " and the HTTP results"}${databases.length === 0 ? "" : " and the databases comparison"}`,
  );
  const withDepth = latestRuns(runs).find((r) => r.depth !== null);
  const svg = withDepth === undefined ? undefined : charts(withDepth).get("depth");
  if (svg !== undefined) {
    writeFileSync(DEPTH_SVG, `${svg}\n`);
    console.log(`wrote ${DEPTH_SVG}`);
  }
}

if (isMainModule(import.meta.url)) main(process.argv.slice(2));

/**
 * HTML benchmark report
 * =====================
 * Owns the report written beside each results JSON: one self-contained HTML file, its
 * charts inline SVG (bench/charts.ts), no script, no stylesheet or font from elsewhere, nothing
 * fetched, so it opens offline and can be attached to an issue. Sections:
 *  1. with `goals` only (`npm run bench -- --goals`): the project's own targets, each figure beside
 *     it with a verdict, and the goal marks in the charts; by default the report compares Quiver with
 *     its baselines and judges nothing;
 *  2. the distinct-query stream (the headline): p50 with p99 whiskers per case, Quiver beside the
 *     naive baselines, on a log axis; and the latency distribution (CDF) of its pooled samples;
 *  3. latency against page depth;
 *  4. the repeated-query cases, labelled so, search and statements, with the Map and N3 baselines;
 *  5. build time by phase; 6. memory per structure; 7. the snapshot; errors.
 * Every chart has its figures in a table beside it.
 *
 * Usage: main.ts calls renderReport after a run. To draw a report again from a results file, or to
 * save one chart alone as an .svg (the README's picture):
 *   node dist/bench/html-report.js RESULTS.json [--out REPORT.html] [--svg CHART_NAME FILE.svg] [--goals]
 */

import { readFile, writeFile } from "node:fs/promises";

import { isMainModule } from "../tools/main-module.js";
import { memoryLines } from "./build.bench.js";
import {
  barChart,
  escapeXml,
  lineChart,
  PALETTE,
  SERIES_COLOURS,
  stackedBar,
  whiskerChart,
  type WhiskerRow,
} from "./charts.js";
import { count, mib, num, readCells, secondsOf } from "./format.js";
import { goalCells } from "./goals.js";
import {
  SEARCH_P50_GOAL_US,
  STATEMENTS_P50_GOAL_US,
  STREAM_SEARCH_P50_GOAL_US,
  STREAM_SEARCH_P99_GOAL_US,
  STREAM_STATEMENTS_P50_GOAL_US,
  STREAM_STATEMENTS_P99_GOAL_US,
} from "./goals.js";
import { heldBytes } from "./memory.js";
import type { BenchResults, ChangesResults, LatencyRow } from "./results.js";

const esc = escapeXml;

/** The reports' stylesheet (bench:scale's report shares it). */
export const REPORT_STYLE = `body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px auto; max-width: 960px; color: #222; padding: 0 12px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 36px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p { line-height: 1.45; } figure { margin: 16px 0; } figcaption { font-size: 13px; color: #555; }
svg { max-width: 100%; height: auto; border: 1px solid #eee; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; } th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; } td.pass { color: #1e7b34; } td.FAIL { color: #b03030; font-weight: 600; }
.missing { color: #b03030; } .meta { color: #555; font-size: 13px; } details { margin: 8px 0; }
`;

/** Rows of several implementations grouped by case, in first-seen order. */
function whiskerRows(rows: readonly LatencyRow[]): WhiskerRow[] {
  const byCase = new Map<string, WhiskerRow>();
  for (const r of rows) {
    let w = byCase.get(r.case);
    if (w === undefined) byCase.set(r.case, (w = { label: r.case, marks: [] }));
    w.marks.push({ impl: r.impl, p50: r.p50us, p99: r.p99us, note: `${count(r.samples)} samples; ${r.detail}` });
  }
  return [...byCase.values()];
}

/** A table; a column whose cells are all numbers (or empty, or "–") aligns right. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = headers.map((_, i) => rows.every((r) => /^(-?[\d,]+(\.\d+)?|–|)$/.test(r[i] ?? "")));
  const cls = (i: number) => (numeric[i] ? ' class="n"' : "");
  const th = headers.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join("");
  const trs = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${trs}\n</tbody></table>`;
}

function latencyTable(rows: readonly LatencyRow[]): string {
  return table(
    ["case", "implementation", "p50 µs", "p99 µs", "mean µs", "samples", "detail"],
    rows.map((r) => [r.case, r.impl, num(r.p50us), num(r.p99us), num(r.meanUs), count(r.samples), r.detail]),
  );
}

function figure(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption>${caption}</figcaption></figure>`;
}

function notRun(what: string, r: BenchResults, part: string): string {
  const error = r.errors.find((e) => e.part === part);
  return `<p class="missing">${esc(what)}: ${error === undefined ? "not run (see --only)" : `failed: ${esc(error.message)}`}</p>`;
}

/** Quiver's stream in the bare process beside the same passes inside a host's heap. */
function hostHeapSection(s: NonNullable<BenchResults["stream"]>): string {
  const gc = (g: { count: number; ms: number; major: number; majorMs: number }) =>
    `${count(g.count)} GCs, ${num(g.ms)} ms of pauses (${count(g.major)} major, ${num(g.majorMs)} ms)`;
  if (s.hostHeap === null) return `<p>Bare process only (--host-heap 0); ${gc(s.gc)} while timed.</p>`;
  const h = s.hostHeap;
  const rows = s.rows
    .filter((x) => x.impl === "quiver")
    .map((x) => {
      const y = h.rows.find((z) => z.case === x.case);
      return [
        x.case,
        num(x.p50us),
        num(x.p99us),
        y === undefined ? "" : num(y.p50us),
        y === undefined ? "" : num(y.p99us),
      ];
    });
  return `<h3>Inside a host's heap</h3>
<p>Quiver is embedded: its host's objects share the heap and the caches. The same passes again while the bench holds
${num(h.bytes / 1e6, 0)} MB of live heap of its own in ${count(h.objects)} small objects (records, strings, arrays).
Bare: ${gc(s.gc)} while timed; host heap: ${gc(h.gc)}.</p>
${table(["case", "bare p50 µs", "bare p99 µs", "host heap p50 µs", "host heap p99 µs"], rows)}`;
}

/** What a report shows besides the figures. */
export interface ReportOptions {
  /** The project's own goals: a Goals section, goal marks in the charts, goal columns. Default off. */
  goals?: boolean;
  /** The latest `npm run bench:changes` figures (bench/results/changes.json), shown in a section of their own. */
  changes?: ChangesResults | undefined;
}

/** The bench:changes figures: writes through the API and over HTTP, reads with a delta, compaction. */
export function changesSection(c: ChangesResults): string {
  const env = c.environment;
  const rows = (list: readonly ChangesResults["apply"][number][]) =>
    table(
      ["case", "batches", "p50 ms", "p99 ms", "max ms", "CPU ms a batch", "goal", "detail"],
      list.map((r) => [
        r.case,
        count(r.samples),
        num(r.p50ms),
        num(r.p99ms),
        num(r.maxMs),
        r.cpuMs === undefined ? "" : num(r.cpuMs),
        r.goal ?? "",
        r.detail,
      ]),
    );
  return `<section><h2>Live changes: the change log</h2>
<p class="meta">npm run bench:changes -- --entities ${c.options.entities} --statements ${c.options.statements} --delta ${c.options.delta}${c.options.http ? "" : " --no-http"};
${esc(c.startedAt)}; node ${esc(env.node)}, ${env.cpus} × ${esc(env.cpu)}; engine at ${esc(env.revision)}; load average
${env.loadAtStart.map((x) => num(x)).join(" ")} at the start, ${env.loadAtEnd.map((x) => num(x)).join(" ")} at the end.</p>
<p>A batch is answered once it is durable (its log file and the directory fsync'd) and visible. Through the embedded API
(openLive, in the bench's process):</p>
${rows(c.apply)}
${
  c.http === null
    ? '<p class="missing">Over HTTP: not run (--no-http).</p>'
    : `<p>Over HTTP: POST to 200 from one client on 127.0.0.1 to a <code>quiver serve --changes</code> child, with the
writer's CPU time a batch beside it; then a <code>--follow</code> replica of the same base and log.</p>
${rows(c.http)}`
}
<p>Reads on the base alone and on base + a delta of ${count(c.delta.statements)} statements and ${count(c.delta.entities)} entities put,
${count(c.delta.hiddenEntities)} entities and ${count(c.delta.hiddenStatements)} statements hidden (distinct queries, page 1), µs:</p>
${table(
  ["query", "base p50", "live p50", "x", "base p99", "live p99", "x"],
  c.reads.map((r) => [r.case, ...readCells(r)]),
)}
<p>Compaction of base + delta (${count(c.compaction.entities)} entities, ${count(c.compaction.statements)} statements): in a worker
thread ${secondsOf(c.compaction.inWorkerMs)} s (the serving thread's 1 ms timer at most ${num(c.compaction.timerLateMs, 1)} ms late),
on the calling thread ${secondsOf(c.compaction.syncMs)} s.</p></section>`;
}

/** A page of its own for a bench:changes run (bench/results/changes.html). */
export function renderChangesReport(c: ChangesResults): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quiver benchmark: live changes</title>
<style>
${REPORT_STYLE}</style>
</head>
<body>
<h1>Quiver benchmark: live changes</h1>
${changesSection(c)}
</body>
</html>
`;
}

/** The charts of a run by name (each also drawn in the report), for `--svg`. */
export function charts(r: BenchResults, options: ReportOptions = {}): Map<string, string> {
  const out = new Map<string, string>();
  // Goal marks only when asked for; `marks` keeps the list, or drops it to none.
  const marks = <T>(goals: readonly T[]): readonly T[] => (options.goals === true ? goals : []);
  const stripGoals = options.goals !== true;
  if (r.stream !== null) {
    out.set(
      "stream-latency",
      whiskerChart({
        name: "stream-latency",
        title: `Distinct-query stream: each query once per round (${count(r.stream.queries)} per case)`,
        rows: whiskerRows(r.stream.rows),
        goals: marks([
          { value: STREAM_STATEMENTS_P50_GOAL_US, label: `${STREAM_STATEMENTS_P50_GOAL_US}` },
          { value: STREAM_SEARCH_P50_GOAL_US, label: `${STREAM_SEARCH_P50_GOAL_US}` },
          { value: STREAM_SEARCH_P99_GOAL_US, label: `${STREAM_SEARCH_P99_GOAL_US}` },
        ]),
      }),
    );
    out.set(
      "stream-cdf",
      lineChart({
        name: "stream-cdf",
        title: "Distinct-query stream: latency distribution (share of calls at or under x)",
        series: r.stream.families.map((f, i) => ({
          name: f.name,
          colour: SERIES_COLOURS[i % SERIES_COLOURS.length]!,
          points: f.cdf.map(([p, us]) => ({ x: us, y: p, note: `${f.name}: ${p}% of calls ≤ ${num(us)} µs` })),
        })),
        xLabel: "µs (log scale)",
        yLabel: "% of calls",
        yLog: false,
        yRange: [0, 100],
        marks: false,
        goals: marks([
          { value: STREAM_STATEMENTS_P99_GOAL_US, label: `${STREAM_STATEMENTS_P99_GOAL_US}` },
          { value: STREAM_SEARCH_P99_GOAL_US, label: `${STREAM_SEARCH_P99_GOAL_US}` },
        ]),
      }),
    );
  }
  if (r.depth !== null) {
    out.set(
      "depth",
      lineChart({
        name: "depth",
        title: "Latency against page depth (p50; keyset cursors against offset paging)",
        series: r.depth.series.map((s) => ({
          name: `${s.name}, ${s.impl === "quiver" ? "Quiver" : s.impl}`,
          colour: PALETTE[s.impl] ?? "#555",
          dashed: s.endpoint === "statements",
          points: s.points.map((p) => ({
            x: p.page,
            y: p.p50us,
            note: `page ${count(p.page)}: p50 ${num(p.p50us)} µs, p99 ${num(p.p99us)} µs`,
          })),
        })),
        xLabel: "page number (log scale)",
        yLabel: "p50 µs (log scale)",
        yLog: true,
      }),
    );
  }
  if (r.search !== null) {
    out.set(
      "search-latency",
      whiskerChart({
        name: "search-latency",
        title: "Search, repeated queries (one query timed many times)",
        rows: whiskerRows(r.search.rows),
        goals: marks([{ value: SEARCH_P50_GOAL_US, label: `${SEARCH_P50_GOAL_US}` }]),
      }),
    );
  }
  if (r.statements !== null) {
    out.set(
      "statements-latency",
      whiskerChart({
        name: "statements-latency",
        title: "Statements, repeated queries, whole graph",
        rows: whiskerRows(r.statements.rows),
        goals: marks([{ value: STATEMENTS_P50_GOAL_US, label: `${STATEMENTS_P50_GOAL_US}` }]),
      }),
    );
    if (r.statements.baseline !== null) {
      out.set(
        "statements-baselines",
        whiskerChart({
          name: "statements-baselines",
          title: `Statements beside the baselines, repeated queries, ${r.statements.baseline.subset ? "first " : ""}${count(r.statements.baseline.statements)} statements`,
          rows: whiskerRows(r.statements.baselineRows),
        }),
      );
    }
  }
  out.set(
    "build-phases",
    stackedBar({
      name: "build-phases",
      title: `Build from JSON Lines by phase (${count(r.build.entities)} entities, ${count(r.build.statements)} statements)`,
      unit: "s",
      segments: r.build.phases.map((p) => ({ label: p.label, value: p.ms / 1000 })),
    }),
  );
  const lines = memoryLines(r.build, r.memory);
  for (const [name, unit, title] of [
    ["memory-code-unit", "B/code unit", "Memory per UTF-16 code unit of identifiers"],
    ["memory-statement", "B/statement", "Memory per statement"],
  ] as const) {
    const bars = lines
      .filter((l) => l.unit === unit)
      .map((l) => ({
        label: l.what,
        value: l.per,
        ...(l.goal === undefined || stripGoals ? {} : { goal: l.goal }),
        ...(l.stretch === undefined || stripGoals ? {} : { stretch: l.stretch }),
      }));
    if (bars.length > 0) out.set(name, barChart({ name, title, unit, bars }));
  }
  return out;
}

export function renderReport(r: BenchResults, options: ReportOptions = {}): string {
  const goals = options.goals === true;
  const c = charts(r, options);
  const chart = (name: string, caption: string) => {
    const svg = c.get(name);
    return svg === undefined ? "" : figure(svg, caption);
  };
  const env = r.environment;
  const sections: string[] = [];

  if (goals)
    sections.push(
      `<section><h2>Project goals</h2><p>The project's own targets, set for 1M entities and 10M statements on its
development machine (a shared 2-core VM): a verdict on this run, not a promise about yours.</p>${table(
        ["figure", "unit", "measured", "goal", "stretch", "verdict", "note"],
        r.goals.map((g) => [...goalCells(g), g.note ?? ""]),
      ).replace(/<td>(pass|FAIL)<\/td>/g, '<td class="$1">$1</td>')}</section>`,
    );

  if (r.stream !== null) {
    const s = r.stream;
    sections.push(`<section><h2>Headline: the distinct-query stream</h2>
<p>Each query asked <b>once per round</b>, ${count(s.queries)} distinct queries per case, ${s.rounds - 1} rounds kept (the
first is a warm-up), in a fresh random order each round: the caches hold what a real workload leaves in them. Search
queries are 2 to 6 code points cut from random identifiers; statement filters come from random statements. The
baselines answer the first ${count(s.naiveQueries)} queries of each case: the naive substring scan (search) and the Map
store of every statement (statements), both paging by offset; their pages must equal Quiver's.${
      goals
        ? `
Goals: search pages 1 and 2 p50 ≤ ${STREAM_SEARCH_P50_GOAL_US} µs, p99 ≤ ${STREAM_SEARCH_P99_GOAL_US} µs; statements
p50 ≤ ${STREAM_STATEMENTS_P50_GOAL_US} µs, p99 ≤ ${STREAM_STATEMENTS_P99_GOAL_US} µs.`
        : ""
    }</p>
${chart("stream-latency", `p50 (dot) and p99 (whisker end) per case${goals ? "; dashed: the goals" : ""}`)}
${chart("stream-cdf", `The pooled samples of Quiver's stream cases${goals ? "; dashed: the p99 goals" : ""}`)}
${s.disagreements.length === 0 ? "<p>Check: every baseline page equals Quiver's.</p>" : `<p class="missing">Pages that differ from the baseline's: ${esc(s.disagreements.join("; "))}</p>`}
${hostHeapSection(s)}
<details><summary>Figures</summary>${latencyTable(s.rows)}</details></section>`);
  } else
    sections.push(
      `<section><h2>Headline: the distinct-query stream</h2>${notRun("the stream", r, "stream")}</section>`,
    );

  if (r.depth !== null) {
    const pages = [...new Set(r.depth.series.flatMap((x) => x.points.map((p) => p.page)))].sort((a, b) => a - b);
    sections.push(`<section><h2>Latency against page depth</h2>
<p>One query per endpoint, each page timed as a repeated query. Quiver resumes from the cursor's key, so a page costs
the same at any depth; the baselines page by offset.</p>
${chart("depth", "Solid: search; dashed: statements")}
${table(
  ["page", ...r.depth.series.map((x) => `${x.name}, ${x.impl} p50 µs`)],
  pages.map((p) => [count(p), ...r.depth!.series.map((x) => num(x.points.find((q) => q.page === p)?.p50us))]),
)}</section>`);
  } else sections.push(`<section><h2>Latency against page depth</h2>${notRun("depth", r, "depth")}</section>`);

  sections.push(`<section><h2>Repeated queries</h2>
<p>One query timed again and again: everything it touches stays cached, so these are microbenchmark figures, kept
beside the stream for comparison. "Replica cursor": the page asked on a graph built separately from the same data with
the same secret, so the cursor's key is placed there rather than its position reused.</p>
${r.search === null ? notRun("search", r, "search") : `${chart("search-latency", goals ? `Goal: every case p50 ≤ ${SEARCH_P50_GOAL_US} µs` : "Quiver beside the naive scan")}<details><summary>Figures</summary>${latencyTable(r.search.rows)}</details>`}
${
  r.statements === null
    ? notRun("statements", r, "statements")
    : `${chart("statements-latency", goals ? `Goal: p50 ≤ ${STATEMENTS_P50_GOAL_US} µs` : "First and deep pages of each filter")}
${chart("statements-baselines", "The Map store pages in the contract's order by offset; N3 in its own order by offset")}
<details><summary>Figures</summary>${latencyTable([...r.statements.rows, ...r.statements.baselineRows])}</details>`
}
</section>`);

  sections.push(`<section><h2>Build</h2>
${chart("build-phases", "From loadGraph's progress reports")}
${table(
  ["phase", "s"],
  [...r.build.phases.map((p) => [p.label, secondsOf(p.ms)]), ["total", secondsOf(r.build.totalMs)]],
)}</section>`);

  const lines = memoryLines(r.build, r.memory);
  sections.push(`<section><h2>Memory</h2>
<p>Per structure from <code>graph.stats().bytes</code>; "process" lines: heap + ArrayBuffers held after full GCs${r.memory === null ? " (memory part not run)" : r.memory.gcAvailable ? "" : " (node ran without --expose-gc: rough)"}.</p>
${chart("memory-code-unit", goals ? "Bars: measured; dashed: goal; dotted: stretch goal" : "Bytes per code unit")}
${chart("memory-statement", goals ? "Bars: measured; dashed: goal; dotted: stretch goal" : "Bytes per statement")}
${table(
  ["structure", "MiB", "per unit", "unit", ...(goals ? ["goal", "stretch"] : [])],
  lines.map((l) => [
    l.what,
    mib(l.bytes),
    num(l.per),
    l.unit,
    ...(goals ? [l.goal === undefined ? "" : num(l.goal, 1), l.stretch === undefined ? "" : num(l.stretch, 1)] : []),
  ]),
)}</section>`);

  sections.push(
    `<section><h2>Snapshot</h2>${
      r.snapshot === null
        ? notRun("snapshot", r, "snapshot")
        : table(
            ["step", "value"],
            [
              ["file", `${mib(r.snapshot.fileBytes)} MiB`],
              ["save", `${secondsOf(r.snapshot.saveMs)} s`],
              ["open", `${secondsOf(r.snapshot.openMs)} s`],
              ["build from JSON Lines", `${secondsOf(r.snapshot.buildMs)} s`],
              ["held after open", `${mib(heldBytes(r.snapshot.held))} MiB`],
            ],
          )
    }</section>`,
  );

  if (options.changes !== undefined) sections.push(changesSection(options.changes));

  if (r.errors.length > 0)
    sections.push(
      `<section><h2>Failed parts</h2><ul>${r.errors.map((e) => `<li>${esc(e.part)}: ${esc(e.message)}</li>`).join("")}</ul></section>`,
    );

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quiver benchmark: ${esc(r.dataset.description)}</title>
<style>
${REPORT_STYLE}</style>
</head>
<body>
<h1>Quiver benchmark: ${esc(r.dataset.description)}</h1>
<p class="meta">${esc(r.startedAt)}; ${count(r.durationMs / 1000)} s; node ${esc(env.node)}, ${env.cpus} × ${esc(env.cpu)}, ${num(env.totalMemBytes / 2 ** 30, 0)} GiB; engine at ${esc(env.revision)}; load average ${env.loadAtStart.map((x) => num(x)).join(" ")} at the start, ${env.loadAtEnd.map((x) => num(x)).join(" ")} at the end${(env.loadAtEnd[0] ?? 0) > env.cpus ? " (busy: latencies are noisy)" : ""}.</p>
<p class="meta">Time per part: ${Object.entries(r.partMs ?? {})
    .map(([part, ms]) => `${esc(part)} ${secondsOf(ms)} s`)
    .join(", ")}.</p>
${sections.join("\n")}
</body>
</html>
`;
}

async function cli(argv: readonly string[]): Promise<void> {
  const input = argv[0];
  if (input === undefined || input.startsWith("--"))
    throw new Error(
      "usage: node dist/bench/html-report.js RESULTS.json [--out REPORT.html] [--svg CHART FILE.svg] [--goals]",
    );
  const r = JSON.parse(await readFile(input, "utf8")) as BenchResults;
  let out: string | undefined;
  let svgOnly = false;
  const options: ReportOptions = { goals: argv.includes("--goals") };
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === "--goals") continue;
    if (argv[i] === "--out") out = argv[++i];
    else if (argv[i] === "--svg") {
      const name = argv[++i] ?? "";
      const file = argv[++i];
      const svg = charts(r, options).get(name);
      if (svg === undefined || file === undefined)
        throw new Error(`--svg needs a chart name and a file; charts of this run: ${[...charts(r).keys()].join(", ")}`);
      await writeFile(file, `${svg}\n`);
      svgOnly = true;
    } else throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
  }
  // With --svg alone, only the chart is written; else the report (beside the JSON unless --out says).
  if (out !== undefined || !svgOnly)
    await writeFile(out ?? `${input.replace(/\.json$/, "")}.html`, renderReport(r, options));
}

if (isMainModule(import.meta.url)) await cli(process.argv.slice(2));

/**
 * `npm run bench`
 * ===============
 * The benchmark of what people use Quiver for, through its public API only (src/index.ts) and the
 * tools (tools/generator.ts, the KG converters of src/cli/kg-datasets.ts): build a graph from JSON
 * Lines, then time search and statements pages beside naive baselines (and, with --goals, check the
 * project's own targets).
 *
 *   npm run bench                          generated, 200k entities / 2M statements (a few minutes)
 *   npm run bench:full                     the goals' size: 1M entities / 10M statements (GBs, minutes)
 *   npm run bench:stream                   the headline: the stream alone, 1M entities / 2M statements
 *   npm run bench:yago                     YAGO3-10's real names (QUIVER_DATA_DIR)
 *   npm run bench:snapshot                 save and open a snapshot of the default graph
 *   npm run bench -- --entities FILE --statements FILE      your own data
 *   npm run bench -- --goals               also judge the figures against the project's own targets
 *   npm run bench -- --help                every option (bench/args.ts)
 *
 * Parts, in the order they run (each can be chosen with --only; the build always runs):
 *   build       loadGraph by phase, bytes per structure (build.bench.ts)
 *   memory      the process's memory: entities alone, then statements, with derived fingerprints too
 *   stream      THE HEADLINE: the distinct-query stream, each query once per round (stream.bench.ts)
 *   depth       latency against page number, Quiver and the baselines (depth.bench.ts)
 *   search      repeated-query search cases (search.bench.ts)
 *   statements  repeated-query statements cases, Map store and N3 Store (statements.bench.ts)
 *   snapshot    save and open (snapshot.bench.ts)
 * A part that fails is reported (and the exit code is 1); the others still run.
 *
 * Output: a summary on stdout that fits 100 columns (one unit per column), progress on stderr, the
 * results as JSON in bench/results/<dataset>.json (gitignored; bench/results.ts is its shape) and a
 * self-contained HTML report beside it (bench/html-report.ts; with the latest `npm run bench:changes`
 * figures when bench/results/changes.json is there). Run node with --expose-gc (the npm
 * scripts do) so memory is read after full GCs.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";

import type { Graph } from "../src/index.js";
import { DEFAULT_RESULTS_DIR, parseArgs, USAGE, UsageError, type BenchArgs, type Part } from "./args.js";
import { buildReplica, printMemory, runBuild, runMemory } from "./build.bench.js";
import { prepareData } from "./data.js";
import { runDepth } from "./depth.bench.js";
import { count, heading, num, printTable, progress, wrap } from "./format.js";
import { checkGoals, goalCells } from "./goals.js";
import { GraphData } from "./graph-data.js";
import { renderReport } from "./html-report.js";
import { CHANGES_RESULTS, type ChangesResults, gitRevision, RESULTS_VERSION, type BenchResults } from "./results.js";
import { runSearch } from "./search.bench.js";
import { runSnapshot } from "./snapshot.bench.js";
import { runStatements } from "./statements.bench.js";
import { runStream } from "./stream.bench.js";

/** The cursor secret of every graph of a run: the replica must share it to accept cursors. */
const CURSOR_SECRET = "quiver-bench";

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message !== "") console.error(`error: ${e.message}\n`);
    console.error(USAGE);
    process.exitCode = e.message === "" ? 0 : 2;
    return;
  }
  const scratch = await mkdtemp(join(tmpdir(), "quiver-bench-run-"));
  try {
    await run(args, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function run(args: BenchArgs, scratch: string): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const environment = {
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    totalMemBytes: totalmem(),
    loadAtStart,
    loadAtEnd: loadAtStart,
    revision: gitRevision(),
  };
  const data = await prepareData(args, scratch);
  console.log(`# Quiver benchmark: ${data.description}`);
  console.log(
    wrap(
      `${startedAt.toISOString()}; node ${environment.node}, ${environment.cpus} × ${environment.cpu}, ${num(environment.totalMemBytes / 2 ** 30, 0)} GiB; load average ${num(loadAtStart[0])}`,
    ),
  );
  console.log(`engine at ${environment.revision}`);

  const { graph, build } = await runBuild(data, CURSOR_SECRET);
  const results: Omit<BenchResults, "goals"> = {
    version: RESULTS_VERSION,
    startedAt: startedAt.toISOString(),
    durationMs: 0,
    environment,
    dataset: { label: data.label, description: data.description, kind: data.kind, inputBytes: data.inputBytes },
    options: { ...args, parts: [...args.parts] },
    build,
    memory: null,
    stream: null,
    depth: null,
    search: null,
    statements: null,
    snapshot: null,
    partMs: { build: build.totalMs },
    errors: [],
  };
  const part = async (name: Part, body: () => Promise<void> | void): Promise<void> => {
    if (!args.parts.has(name)) return;
    const started = performance.now();
    try {
      await body();
      results.partMs[name] = performance.now() - started;
      progress(`${name}: ${count((performance.now() - started) / 1000)} s`);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      results.errors.push({ part: name, message });
      console.log(`\n## ${name}: FAILED: ${message}`);
      process.stderr.write(`${e instanceof Error ? e.stack : message}\n`);
      process.exitCode = 1;
    }
  };

  const graphData = new GraphData(graph);
  await part("memory", async () => {
    results.memory = await runMemory(data, graph, build, scratch, CURSOR_SECRET, args.goals);
  });
  // Without the memory part, still the bytes of each structure.
  if (results.memory === null) printMemory(null, build, args.goals);
  await part("stream", async () => {
    results.stream = await runStream(graphData, args);
  });
  await part("depth", () => {
    results.depth = runDepth(graphData);
  });
  graphData.dropMapStore();

  let replica: Graph | undefined;
  const replicaOf = (): Graph => {
    if (replica === undefined) {
      progress("building a replica: the same data and secret, built separately");
      replica = buildReplica(graph, CURSOR_SECRET);
    }
    return replica;
  };
  await part("search", () => {
    results.search = runSearch(graphData, replicaOf(), { timeMs: args.taskTimeMs, goals: args.goals });
  });
  await part("statements", async () => {
    results.statements = await runStatements(graphData, replicaOf(), data, scratch, {
      timeMs: args.taskTimeMs,
      baselineStatements: args.baselineStatements,
      cursorSecret: CURSOR_SECRET,
      goals: args.goals,
    });
  });
  replica = undefined;
  await part("snapshot", async () => {
    results.snapshot = await runSnapshot(graph, build.totalMs, scratch, CURSOR_SECRET, args.goals);
  });

  results.environment.loadAtEnd = loadavg();
  results.durationMs = Date.now() - startedAt.getTime();
  const full: BenchResults = { ...results, goals: checkGoals(results) };
  // The goals are always in the results file (for whoever tracks them); printed only on request.
  if (args.goals) printGoals(full);
  printFooter(full);

  const out = args.out ?? join(DEFAULT_RESULTS_DIR, `${data.label}.json`);
  const html = out.replace(/\.json$/, "") + ".html";
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(full, null, 2)}\n`);
  // The latest bench:changes figures, when a run left them beside this one's (their own date and load).
  const changesFile = join(dirname(out), CHANGES_RESULTS);
  const changes = existsSync(changesFile)
    ? (JSON.parse(await readFile(changesFile, "utf8")) as ChangesResults)
    : undefined;
  await writeFile(html, renderReport(full, { goals: args.goals, changes }));
  console.log(`\nresults: ${out}\nreport:  ${html}`);
}

function printGoals(r: BenchResults): void {
  heading(`Goals (${r.dataset.description})`);
  printTable(
    [
      { header: "figure" },
      { header: "unit", align: "left" },
      { header: "measured" },
      { header: "goal" },
      { header: "stretch" },
      { header: "verdict", align: "left" },
    ],
    r.goals.map(goalCells),
  );
  // Notes: which case was worst, why a goal has no verdict; each note once.
  const notes = new Map<string, string[]>();
  for (const g of r.goals) if (g.note !== undefined) notes.set(g.note, [...(notes.get(g.note) ?? []), g.figure]);
  for (const [note, figures] of notes) console.log(wrap(`${figures.join("; ")}: ${note}`, "  ").replace(/^ {2}/, "- "));
}

/** How long the run took, how busy the machine was, and which parts failed. */
function printFooter(r: BenchResults): void {
  console.log("");
  const load = r.environment.loadAtEnd[0] ?? 0;
  const busy = load > r.environment.cpus;
  console.log(`${count(r.durationMs / 1000)} s in all; load average at the end ${num(load)}`);
  // More runnable threads than CPUs: other work shared them, and every latency above carries it.
  if (busy) console.log(`(above ${r.environment.cpus}, the number of CPUs: the latencies are noisy)`);
  if (r.errors.length > 0) console.log(`FAILED parts: ${r.errors.map((e) => e.part).join(", ")}`);
}

await main();

/**
 * Two builds of Quiver side by side, in one process: `npm run bench:compare -- --against DIR`
 * ==========================================================================================
 * Is a change faster? On a shared machine two runs of the same bench, even back to back, differ by
 * tens of percent (other tenants come and go), often more than the change. This bench removes most
 * of that: it loads this checkout's Quiver and the one built in DIR (another worktree or clone, its
 * `dist/src` compiled), builds the same generated graph with each, and times the distinct-query
 * stream (bench/stream.bench.ts draws the queries) on both, interleaved (sample.ts timeInterleaved):
 * batches of queries, one build then the other, the order alternating from batch to batch.
 * Whatever the machine does meanwhile falls on both about equally. Each query is timed on its own (one call, page built and
 * cursor sealed), `rounds` rounds, the first a warm-up not kept.
 *
 * It also checks the two builds agree: every page's items must be equal (the contract leaves no
 * freedom: same order, same derived fingerprints); a difference is counted and the first ones
 * listed, and the process exits 1.
 *
 * This is the bench's baseline in the sense of the others: the other build is what the change is
 * measured against. Cost: two graphs in memory; (2 + 2 x shapes) cases x queries x rounds x 2 calls.
 */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Quiver from "../src/index.js";
import type { Entity, Graph, Statement } from "../src/index.js";
import { generateEntities, generateStatements, type GenerateOptions } from "../tools/generator.js";
import { mulberry32 } from "../tools/prng.js";
import type { Filter } from "./baselines/map-store.js";
import { count, heading, num, printTable, progress } from "./format.js";
import { makeHostHeap } from "./host-heap.js";
import { benchOptions } from "./options.js";
import { SCORE_AND_TOTALS_PARTS } from "./goals.js";
import { distribution, INTERLEAVE_BATCH, timeInterleaved } from "./sample.js";
import { SEARCH_LIMIT } from "./search.bench.js";
import { STATEMENTS_LIMIT } from "./statements.bench.js";
import { drawFilters, drawSearchQueries, STREAM_SHAPES, type SearchQuery } from "./stream.bench.js";

/** The seed of the queries drawn. */
const QUERY_SEED = 20261124;
/** Disagreements listed at most. */
const MAX_LISTED = 10;

const USAGE = `
npm run bench:compare -- --against DIR [options]

Times the distinct-query stream on this checkout's Quiver and on the one built in DIR (run
\`npx tsc -p .\` there first), interleaved in one process, and checks their pages agree.

  --against DIR        the other checkout (its dist/src/index.js is loaded)
  --entities N         generated entities (default 1000000)
  --statements N       generated statements, fingerprints derived (default 2000000)
  --queries N          distinct queries per case (default 2000)
  --rounds N           rounds, the first a warm-up (default 4)
  --host-heap MB       time with MB of the bench's own small live objects held (a host's heap,
                       bench/host-heap.ts; default 0: none)
  --cache-bytes N      both graphs' cache budget (GraphOptions.cacheBytes; default the graph's)
`;

const OPTIONS = {
  against: { type: "string" },
  entities: { type: "string", default: "1000000" },
  statements: { type: "string", default: "2000000" },
  queries: { type: "string", default: "2000" },
  rounds: { type: "string", default: "4" },
  "host-heap": { type: "string", default: "0" },
  "cache-bytes": { type: "string" },
} as const;

type Api = typeof Quiver;

interface Build {
  label: string;
  graph: Graph;
}

/** One case: how each build answers query i. */
interface Case {
  name: string;
  queries: number;
  /** Query i's page on `build` (b: 0 this checkout, 1 the other). */
  ask: (b: number, i: number) => Entity[] | Statement[];
}

function positiveInteger(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a positive integer, got ${JSON.stringify(text)}\n\n${USAGE.trim()}\n`);
    process.exit(2);
  }
  return n;
}

async function loadOther(dir: string): Promise<Api> {
  const entry = resolve(dir, "dist", "src", "index.js");
  if (!existsSync(entry)) {
    process.stderr.write(`${entry} not found: build that checkout first (cd ${dir} && npx tsc -p .)\n`);
    process.exit(2);
  }
  return (await import(pathToFileURL(entry).href)) as Api;
}

function build(api: Api, options: GenerateOptions, cacheBytes: number | undefined): Graph {
  const builder = new api.GraphBuilder(cacheBytes === undefined ? {} : { cacheBytes });
  for (const e of generateEntities(options)) builder.addEntity(e);
  for (const st of generateStatements(options)) builder.addStatement(st);
  return builder.build();
}

/** The cases: search pages 1 and 2, then each statements shape's first and next page. */
function cases(builds: readonly Build[], queries: number, rand: () => number): Case[] {
  const first = builds[0]!.graph;
  const entities = [...first.exportEntities()];
  const { plain, typed } = drawSearchQueries(entities, queries, rand);
  const out: Case[] = [];
  const search = (g: Graph, q: SearchQuery, order: "name" | "score", cursor?: string) =>
    g.search({
      q: q.q,
      limit: SEARCH_LIMIT,
      order,
      ...(q.type === undefined ? {} : { type: q.type }),
      ...(cursor === undefined ? {} : { cursor }),
    });
  // Pages 1 and 2 (of the queries that have one, through each build's own cursor), in each order,
  // without and with the type filter.
  for (const order of ["name", "score"] as const) {
    for (const [label, qs] of [
      ["", plain],
      [" typed", typed],
    ] as const) {
      const name = `search${order === "score" ? " order=score" : ""}${label}`;
      out.push({
        name: `${name} page 1`,
        queries: qs.length,
        ask: (b, i) => search(builds[b]!.graph, qs[i]!, order).items,
      });
      const second = qs.filter((q) => search(first, q, order).nextCursor !== null);
      const cursors = builds.map((b) => second.map((q) => search(b.graph, q, order).nextCursor!));
      out.push({
        name: `${name} page 2`,
        queries: second.length,
        ask: (b, i) => search(builds[b]!.graph, second[i]!, order, cursors[b]![i]!).items,
      });
    }
  }
  const filters = drawFilters(first, queries, rand);
  const statements = (g: Graph, f: Filter, cursor?: string) =>
    g.statements({
      ...(f.s === undefined ? {} : { subjectEntityId: f.s }),
      ...(f.p === undefined ? {} : { predicateEntityId: f.p }),
      ...(f.o === undefined ? {} : { objectEntityId: f.o }),
      limit: STATEMENTS_LIMIT,
      ...(cursor === undefined ? {} : { cursor }),
    });
  for (const shape of STREAM_SHAPES) {
    const fs = filters.get(shape) ?? [];
    out.push({
      name: `${shape} first page`,
      queries: fs.length,
      ask: (b, i) => statements(builds[b]!.graph, fs[i]!).items,
    });
    const more = fs.filter((f) => statements(first, f).nextCursor !== null);
    if (more.length === 0) continue;
    const next = builds.map((b) => more.map((f) => statements(b.graph, f).nextCursor!));
    out.push({
      name: `${shape} next page`,
      queries: more.length,
      ask: (b, i) => statements(builds[b]!.graph, more[i]!, next[b]![i]!).items,
    });
  }
  return out;
}

/** Queries of the case whose pages differ between the builds. */
function disagreements(c: Case): string[] {
  const out: string[] = [];
  for (let i = 0; i < c.queries; i++) {
    if (JSON.stringify(c.ask(0, i)) !== JSON.stringify(c.ask(1, i))) out.push(`${c.name}: query ${i}`);
  }
  return out;
}

async function main(): Promise<void> {
  const values = benchOptions(process.argv.slice(2), OPTIONS, USAGE);
  if (values.against === undefined) {
    process.stderr.write(`--against DIR is required\n\n${USAGE.trim()}\n`);
    process.exit(2);
  }
  const generate: GenerateOptions = {
    entities: positiveInteger("entities", values.entities),
    statements: positiveInteger("statements", values.statements),
    seed: 1,
    fingerprints: "derived",
  };
  const queries = positiveInteger("queries", values.queries);
  const rounds = positiveInteger("rounds", values.rounds);
  const hostHeapMB = Number(values["host-heap"]);
  const cacheBytes =
    values["cache-bytes"] === undefined ? undefined : positiveInteger("cache-bytes", values["cache-bytes"]);
  const self = (await import("../src/index.js")) as Api;
  const other = await loadOther(values.against);
  const labels = ["this checkout", resolve(values.against)];
  const builds: Build[] = [];
  for (const [k, api] of [self, other].entries()) {
    progress(`building ${num(generate.entities)} entities / ${num(generate.statements)} statements with ${labels[k]}`);
    builds.push({ label: labels[k]!, graph: build(api, generate, cacheBytes) });
  }
  for (const b of builds) {
    // What scores, order=score and totals hold, per code unit of identifiers (goals.ts's parts).
    const stats = b.graph.stats();
    const per = (n: number) => num(n / Math.max(1, stats.identifierCodeUnits), 2);
    const parts = SCORE_AND_TOTALS_PARTS.map((p) => `${p} ${per(stats.bytes[p] ?? 0)}`).join(", ");
    const sum = SCORE_AND_TOTALS_PARTS.reduce((t, p) => t + (stats.bytes[p] ?? 0), 0);
    // Whole lines (progress cuts at the terminal's width).
    process.stderr.write(`${b.label}: B per identifier code unit: ${parts}; together ${per(sum)}\n`);
  }
  const rand = mulberry32(QUERY_SEED);
  progress("drawing the queries and the cursors");
  const all = cases(builds, queries, rand);
  const differ: string[] = [];
  for (const c of all) differ.push(...disagreements(c));
  // The host's objects, made after the graphs and the queries, live until the timing ends.
  const host = hostHeapMB > 0 ? makeHostHeap(hostHeapMB * 1e6) : undefined;
  if (host !== undefined)
    progress(`holding a host heap: ${num(host.bytes / 1e6, 0)} MB of heap in ${count(host.objects)} objects`);
  const rows: (string | number)[][] = [];
  for (const c of all) {
    progress(`timing ${c.name} (${c.queries} queries, ${rounds} rounds)`);
    const [mine, theirs] = timeInterleaved(c.queries, c.ask, rounds, rand).samples;
    const a = distribution(mine, false);
    const b = distribution(theirs, false);
    rows.push([c.name, c.queries, a.p50us, a.p99us, b.p50us, b.p99us, a.p50us / b.p50us]);
  }
  host?.release();
  heading(
    `Side by side, interleaved in batches of ${INTERLEAVE_BATCH}, ${rounds - 1} rounds kept, µs${host === undefined ? "" : `, host heap of ${num(host.bytes / 1e6, 0)} MB held`}`,
  );
  process.stdout.write(`A = ${labels[0]}, B = ${labels[1]}\n`);
  printTable(
    ["case", "queries", "A p50", "A p99", "B p50", "B p99", "A / B p50"].map((header) => ({ header })),
    rows.map((r) =>
      r.map((v, i) => (typeof v === "string" ? v : i === 1 ? count(v) : i === 6 ? `${v.toFixed(2)}x` : num(v))),
    ),
  );
  if (differ.length > 0) {
    process.stdout.write(`\n${differ.length} pages differ between the builds:\n`);
    for (const d of differ.slice(0, MAX_LISTED)) process.stdout.write(`  ${d}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write("\nEvery page agreed between the two builds.\n");
  }
}

await main();

/**
 * Accent folding's cost: `npm run bench:fold -- --plain FILE --folded FILE`
 * ==========================================================================
 * The goal "a graph built with accent folding: same speed and memory as without", measured
 * on two snapshots of the same data (`quiver build`, then `quiver build --fold accents`), opened in
 * one process with this checkout's Quiver:
 *  - memory: graph.stats().bytes of the search structures (the search index, its counts, the score
 *    index's parts, scores), per UTF-16 code unit of identifiers, side by side;
 *  - speed: the distinct-query search stream (bench/stream.bench.ts draws the queries, from the
 *    plain graph's entities: the same queries ask both graphs, as users would) in both orders,
 *    with and without type, pages 1 and 2, and page 1 with count=true, timed interleaved as
 *    bench/compare.bench.ts does (sample.ts timeInterleaved: batches of queries, one graph then
 *    the other, the order alternating), each query on its own, `rounds` rounds, the first a warm-up not kept; beside the
 *    percentiles, each graph's CPU time per query (process.cpuUsage over its batches), which other
 *    tenants of a shared machine disturb less than wall-clock time.
 * The pages differ where folding finds more ("malmo" finds "Malmö"): the bench counts the queries
 * whose page 1 differs, it does not compare them.
 *
 * Cost: two graphs in memory; 10 cases x queries x rounds x 2 calls.
 */

import { type Graph, openSnapshot } from "../src/index.js";
import { mulberry32 } from "../tools/prng.js";
import { count, heading, num, printTable, progress } from "./format.js";
import { benchOptions } from "./options.js";
import { distribution, INTERLEAVE_BATCH, timeInterleaved } from "./sample.js";
import { SEARCH_LIMIT } from "./search.bench.js";
import { drawSearchQueries, QUERY_SEED, type SearchQuery } from "./stream.bench.js";

/** The structures search reads (graph.stats().bytes), compared per code unit of identifiers. */
const SEARCH_PARTS = ["search", "searchCounts", "scores", "scoreRanks", "scoreNames", "scoreInfix"] as const;

const USAGE = `
npm run bench:fold -- --plain FILE --folded FILE [options]

Memory and search speed of a graph built with accent folding beside the same graph without it.

  --plain FILE     the snapshot built without --fold (or --fold case)
  --folded FILE    the snapshot of the same data built with --fold accents
  --queries N      distinct queries per case (default 2000)
  --rounds N       rounds, the first a warm-up (default 4)
`;

const OPTIONS = {
  plain: { type: "string" },
  folded: { type: "string" },
  queries: { type: "string", default: "2000" },
  rounds: { type: "string", default: "4" },
} as const;

interface Case {
  name: string;
  queries: number;
  /** Query i's page on graph g (0 plain, 1 folded). */
  ask: (g: number, i: number) => unknown;
}

function cases(graphs: readonly Graph[], plain: readonly SearchQuery[], typed: readonly SearchQuery[]): Case[] {
  const out: Case[] = [];
  const search = (g: Graph, q: SearchQuery, order: "name" | "score", cursor?: string, withCount = false) =>
    g.search({
      q: q.q,
      limit: SEARCH_LIMIT,
      order,
      ...(q.type === undefined ? {} : { type: q.type }),
      ...(cursor === undefined ? {} : { cursor }),
      ...(withCount ? { count: true } : {}),
    });
  for (const order of ["name", "score"] as const) {
    for (const [label, qs] of [
      ["", plain],
      [" type=", typed],
    ] as const) {
      // Names without "search " (every case is one): the figures' columns keep the width.
      const name = `${order === "score" ? "order=score" : "order=name"}${label}`;
      out.push({ name: `${name} page 1`, queries: qs.length, ask: (g, i) => search(graphs[g]!, qs[i]!, order).items });
      // Page 2 of the queries that have one on both graphs, through each graph's own cursor.
      const second = qs.filter((q) => graphs.every((g) => search(g, q, order).nextCursor !== null));
      const cursors = graphs.map((g) => second.map((q) => search(g, q, order).nextCursor!));
      out.push({
        name: `${name} page 2`,
        queries: second.length,
        ask: (g, i) => search(graphs[g]!, second[i]!, order, cursors[g]![i]!).items,
      });
    }
  }
  for (const [label, qs] of [
    ["", plain],
    [" type=", typed],
  ] as const) {
    out.push({
      name: `count=true${label} page 1`,
      queries: qs.length,
      ask: (g, i) => search(graphs[g]!, qs[i]!, "name", undefined, true).total,
    });
  }
  return out;
}

async function main(): Promise<void> {
  const values = benchOptions(process.argv.slice(2), OPTIONS, USAGE);
  if (values.plain === undefined || values.folded === undefined) {
    process.stderr.write(`--plain FILE and --folded FILE are required\n\n${USAGE.trim()}\n`);
    process.exit(2);
  }
  const queries = Number(values.queries);
  const rounds = Number(values.rounds);
  const graphs: Graph[] = [];
  for (const file of [values.plain, values.folded]) {
    progress(`opening ${file}`);
    graphs.push(await openSnapshot(file, { cursorSecret: "bench-fold" }));
  }
  const stats = graphs.map((g) => g.stats());
  if (stats[1]!.fold !== "accents" || stats[0]!.fold === "accents") {
    process.stderr.write(`--plain must be a graph without accent folding, --folded one with it\n`);
    process.exit(2);
  }
  heading("Search structures, B per UTF-16 code unit of identifiers");
  const per = (g: number, bytes: number) => bytes / Math.max(1, stats[g]!.identifierCodeUnits);
  const total = (g: number) => SEARCH_PARTS.reduce((t, p) => t + (stats[g]!.bytes[p] ?? 0), 0);
  printTable(
    ["structure", `fold ${stats[0]!.fold}`, "fold accents", "MB, case", "MB, accents"].map((header) => ({ header })),
    [...SEARCH_PARTS, "together"].map((p) => {
      const bytes = [0, 1].map((g) => (p === "together" ? total(g) : (stats[g]!.bytes[p] ?? 0)));
      return [
        p,
        num(per(0, bytes[0]!), 3),
        num(per(1, bytes[1]!), 3),
        num(bytes[0]! / 1e6, 1),
        num(bytes[1]! / 1e6, 1),
      ];
    }),
  );
  progress("drawing the queries and the cursors");
  const entities = [...graphs[0]!.exportEntities()];
  const { plain, typed } = drawSearchQueries(entities, queries, mulberry32(QUERY_SEED));
  const differ = plain.filter(
    (q) => JSON.stringify(graphs[0]!.search({ q: q.q }).items) !== JSON.stringify(graphs[1]!.search({ q: q.q }).items),
  ).length;
  const rand = mulberry32(QUERY_SEED + 1);
  const rows: string[][] = [];
  for (const c of cases(graphs, plain, typed)) {
    progress(`timing ${c.name} (${c.queries} queries, ${rounds} rounds)`);
    const { samples, cpuUs } = timeInterleaved(c.queries, c.ask, rounds, rand);
    const [a, b] = samples.map((s) => distribution(s, false));
    const kept = c.queries * (rounds - 1);
    rows.push([
      c.name,
      count(c.queries),
      num(a!.p50us),
      num(a!.p99us),
      num(cpuUs[0]! / kept),
      num(b!.p50us),
      num(b!.p99us),
      num(cpuUs[1]! / kept),
      `${(cpuUs[1]! / cpuUs[0]!).toFixed(2)}x`,
    ]);
  }
  heading(
    `Search stream, interleaved in batches of ${INTERLEAVE_BATCH}, ${rounds - 1} rounds kept, µs (fold: with accent folding; CPU: per query)`,
  );
  printTable(
    ["search", "queries", "p50", "p99", "CPU", "fold p50", "fold p99", "fold CPU", "CPU ratio"].map((header) => ({
      header,
    })),
    rows,
  );
  process.stdout.write(`\n${count(differ)} of ${count(plain.length)} queries' page 1 differ (folding finds more).\n`);
}

await main();

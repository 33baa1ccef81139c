/**
 * Distinct-query stream benchmark
 * ===============================
 * The figures users see: each query asked once per round, as a stream of different queries, so the
 * CPU caches hold what a real workload leaves in them rather than one query's footprint.
 *
 * Streams (seeded, drawn from the graph's own data):
 *  - search: DISTINCT_QUERIES random substrings of 2..6 code points of random entities' raw
 *    identifiers (a pair is never cut), unfiltered and, as a second stream, with the type of the
 *    entity they came from; page 1, then page 2 through page 1's cursor (a separate pass, so page 2
 *    does not find page 1's path still in cache), and a deep page (DEEP_PAGE) for the queries that
 *    have one (its cursor found by walking, untimed);
 *  - statements: DISTINCT_QUERIES filters of each shape (S, P, O, S+P, P+O, O+S, S+P+O) taken from
 *    random statements, page 1 and page 2.
 * Each pass visits its queries in a fresh random order; ROUNDS rounds, the first one a warm-up (JIT)
 * that is not counted. Latency of one call: performance.now() around it (items built, cursor sealed).
 *
 * Beside it, the naive baseline on NAIVE_QUERIES of the same queries: identifiers folded once up
 * front, `includes` over all of them, a sort in the contract's order and a slice; statements: a scan
 * of all statements with the filter, then the sort. Its answers are checked against Quiver's.
 *
 * Public API only, so the same file measures any version of the engine.
 * Run: `npm run bench:stream -- [--entities N] [--statements N] [--seed N] [--rounds N]`.
 */

import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";

import { fold, type Entity, type Graph, type StatementInput, type StatementsParams } from "../src/index.js";
import { buildGeneratedGraph, generateEntities, generateStatements, mulberry32 } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";

export const DISTINCT_QUERIES = 2_000;
export const ROUNDS = 3;
export const SEARCH_LIMIT = 20;
export const STATEMENTS_LIMIT = 50;
export const DEEP_PAGE = 50;
export const NAIVE_QUERIES = 50;
const QUERY_SEED = 20261123;

type Sampler = () => number;

export interface StreamRow {
  case: string;
  calls: number;
  p50us: number;
  p99us: number;
  meanUs: number;
  maxUs: number;
  naiveP50us?: number;
}

export interface StreamReport {
  entities: number;
  statements: number;
  rounds: number;
  rows: StreamRow[];
  disagreements: string[];
}

interface SearchQuery {
  q: string;
  type: Entity["type"] | undefined;
}

/** 2..6 code points cut from `raw` at a random code-point boundary; undefined when too short. */
function substringOf(raw: string, rand: Sampler): string | undefined {
  const points = Array.from(raw);
  if (points.length < 2) return undefined;
  const length = Math.min(points.length, 2 + Math.floor(rand() * 5));
  const start = Math.floor(rand() * (points.length - length + 1));
  const q = points.slice(start, start + length).join("");
  // A query of only spaces folds to itself and matches nearly everything: not what users type.
  return q.trim() === "" ? undefined : q;
}

function shuffled<T>(xs: readonly T[], rand: Sampler): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function summarize(name: string, samples: number[]): StreamRow {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const s of samples) sum += s;
  return {
    case: name,
    calls: samples.length,
    p50us: percentile(sorted, 0.5) * 1000,
    p99us: percentile(sorted, 0.99) * 1000,
    meanUs: (sum / Math.max(1, samples.length)) * 1000,
    maxUs: (sorted[sorted.length - 1] ?? Number.NaN) * 1000,
  };
}

/** Times `call` once per item, in a fresh random order each round after the warm-up. */
function timePasses<T>(items: readonly T[], rounds: number, rand: Sampler, call: (item: T) => unknown): number[] {
  const samples: number[] = [];
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    for (const item of shuffled(items, rand)) {
      const t0 = performance.now();
      const r = call(item);
      const t1 = performance.now();
      if (r !== undefined) sink++;
      if (round > 0) samples.push(t1 - t0);
    }
  }
  if (sink < 0) console.log(sink);
  return samples;
}

export interface StreamOptions {
  entities: number;
  statements: number;
  seed: number;
  rounds: number;
}

export function runStream(graph: Graph, options: StreamOptions): StreamReport {
  const rand = mulberry32(QUERY_SEED);
  const gen = { entities: options.entities, statements: options.statements, seed: options.seed };
  const rows: StreamRow[] = [];
  const disagreements: string[] = [];

  // Search queries from random entities.
  const pick = new Set<number>();
  const wantEntities = Math.min(options.entities, 4 * DISTINCT_QUERIES);
  while (pick.size < wantEntities) pick.add(Math.floor(rand() * options.entities));
  const plain = new Map<string, SearchQuery>();
  const typed = new Map<string, SearchQuery>();
  const allEntities: Entity[] = [];
  let i = 0;
  for (const e of generateEntities(gen)) {
    allEntities.push(e);
    if (pick.has(i++)) {
      const q = substringOf(e.rawIdentifier, rand);
      if (q === undefined) continue;
      if (plain.size < DISTINCT_QUERIES && !plain.has(q)) plain.set(q, { q, type: undefined });
      else if (typed.size < DISTINCT_QUERIES && !typed.has(`${q}\u0000${e.type}`))
        typed.set(`${q}\u0000${e.type}`, { q, type: e.type });
    }
  }

  for (const [label, queries] of [
    ["search", [...plain.values()]],
    ["search type=", [...typed.values()]],
  ] as const) {
    const cursors = new Map<SearchQuery, string>();
    const page1 = timePasses(queries, options.rounds, rand, (sq) => {
      const page = graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT });
      if (page.nextCursor !== null) cursors.set(sq, page.nextCursor);
      return page;
    });
    rows.push(summarize(`${label} page 1`, page1));
    const second = [...cursors.entries()];
    rows.push(
      summarize(
        `${label} page 2`,
        timePasses(second, options.rounds, rand, ([sq, cursor]) =>
          graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT, cursor }),
        ),
      ),
    );
    // Deep pages: walk (untimed) to the cursor before DEEP_PAGE.
    const deep: [SearchQuery, string][] = [];
    for (const [sq, first] of second) {
      let cursor: string | null = first;
      for (let p = 2; p < DEEP_PAGE && cursor !== null; p++)
        cursor = graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT, cursor }).nextCursor;
      if (cursor !== null) deep.push([sq, cursor]);
    }
    if (deep.length > 0) {
      rows.push(
        summarize(
          `${label} page ${DEEP_PAGE} (${deep.length} queries)`,
          timePasses(deep, options.rounds, rand, ([sq, cursor]) =>
            graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT, cursor }),
          ),
        ),
      );
    }
  }

  // Naive search baseline on a sample of the plain queries.
  const folded = allEntities.map((e) => fold(e.rawIdentifier));
  const naiveSample = [...plain.values()].slice(0, NAIVE_QUERIES);
  const naiveTimes: number[] = [];
  for (const sq of naiveSample) {
    const t0 = performance.now();
    const naive = naiveSearch(allEntities, folded, sq.q, SEARCH_LIMIT);
    naiveTimes.push(performance.now() - t0);
    const mine = graph.search({ q: sq.q, limit: SEARCH_LIMIT }).items.map((e) => e.entityId);
    if (mine.join("\n") !== naive.join("\n")) disagreements.push(`search q=${JSON.stringify(sq.q)}`);
  }
  const searchRow = rows.find((r) => r.case === "search page 1");
  if (searchRow !== undefined) searchRow.naiveP50us = summarize("", naiveTimes).p50us;
  allEntities.length = 0;
  folded.length = 0;

  // Statement filters from random statements.
  const shapes = ["S", "P", "O", "S+P", "P+O", "O+S", "S+P+O"] as const;
  const wanted = new Set<number>();
  const sampleCount = Math.min(options.statements, DISTINCT_QUERIES * 4);
  while (wanted.size < sampleCount) wanted.add(Math.floor(rand() * options.statements));
  const sampled: StatementInput[] = [];
  const all: StatementInput[] = [];
  let row = 0;
  const keepAll = options.statements <= 5_000_000;
  for (const st of generateStatements(gen)) {
    if (wanted.has(row++)) sampled.push(st);
    if (keepAll)
      all.push({
        subjectEntityId: st.subjectEntityId,
        predicateEntityId: st.predicateEntityId,
        objectEntityId: st.objectEntityId,
      });
  }
  for (const shape of shapes) {
    const filters = new Map<string, StatementsParams>();
    for (const st of shuffled(sampled, rand)) {
      if (filters.size >= DISTINCT_QUERIES) break;
      const f: StatementsParams = {};
      if (shape.includes("S")) f.subjectEntityId = st.subjectEntityId;
      if (shape.includes("P")) f.predicateEntityId = st.predicateEntityId;
      if (shape.includes("O")) f.objectEntityId = st.objectEntityId;
      filters.set(JSON.stringify(f), f);
    }
    const list = [...filters.values()];
    const cursors = new Map<StatementsParams, string>();
    rows.push(
      summarize(
        `statements ${shape} page 1 (${list.length} filters)`,
        timePasses(list, options.rounds, rand, (f) => {
          const page = graph.statements({ ...f, limit: STATEMENTS_LIMIT });
          if (page.nextCursor !== null) cursors.set(f, page.nextCursor);
          return page;
        }),
      ),
    );
    if (cursors.size > 0) {
      rows.push(
        summarize(
          `statements ${shape} page 2 (${cursors.size} filters)`,
          timePasses([...cursors.entries()], options.rounds, rand, ([f, cursor]) =>
            graph.statements({ ...f, limit: STATEMENTS_LIMIT, cursor }),
          ),
        ),
      );
    }
    if (keepAll) {
      const times: number[] = [];
      for (const f of list.slice(0, NAIVE_QUERIES)) {
        const t0 = performance.now();
        const n = naiveStatementsCount(all, f);
        times.push(performance.now() - t0);
        if (n < Math.min(1, graph.statements({ ...f, limit: 1 }).items.length))
          disagreements.push(`statements ${JSON.stringify(f)}`);
      }
      rows[rows.findIndex((r) => r.case.startsWith(`statements ${shape} page 1`))]!.naiveP50us = summarize(
        "",
        times,
      ).p50us;
    }
  }
  return { entities: graph.entityCount, statements: graph.statementCount, rounds: options.rounds, rows, disagreements };
}

/** The contract's search, the slow way: page 1 of `q`. */
function naiveSearch(entities: readonly Entity[], folded: readonly string[], q: string, limit: number): string[] {
  const fq = fold(q);
  const hits: [number, string, string][] = [];
  for (let i = 0; i < entities.length; i++) {
    const f = folded[i]!;
    if (!f.includes(fq)) continue;
    hits.push([f === fq ? 0 : f.startsWith(fq) ? 1 : 2, f, entities[i]!.entityId]);
  }
  hits.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
  return hits.slice(0, limit).map((h) => h[2]);
}

/** The statements a filter matches, by a scan of all of them (the baseline: no index). */
function naiveStatementsCount(all: readonly StatementInput[], f: StatementsParams): number {
  let n = 0;
  for (const st of all) {
    if (f.subjectEntityId !== undefined && st.subjectEntityId !== f.subjectEntityId) continue;
    if (f.predicateEntityId !== undefined && st.predicateEntityId !== f.predicateEntityId) continue;
    if (f.objectEntityId !== undefined && st.objectEntityId !== f.objectEntityId) continue;
    n++;
  }
  return n;
}

function parseOptions(argv: string[]): StreamOptions & { out: string | undefined } {
  const get = (name: string): string | undefined => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const num = (name: string, fallback: number): number => {
    const v = get(name);
    if (v === undefined) return fallback;
    const n = Number(v.replace(/_/g, "").replace(/[kK]$/, "000").replace(/M$/, "000000"));
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got ${v}`);
    return n;
  };
  return {
    entities: num("entities", 1_000_000),
    statements: num("statements", 2_000_000),
    seed: num("seed", 1),
    rounds: Math.max(2, num("rounds", ROUNDS)),
    out: get("out"),
  };
}

if (isMainModule(import.meta.url)) {
  const options = parseOptions(process.argv.slice(2));
  console.log(`building a generated graph of ${options.entities} entities and ${options.statements} statements...`);
  const t0 = performance.now();
  const graph = buildGeneratedGraph({ ...options, fingerprints: "derived" });
  console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const report = runStream(graph, options);
  console.table(
    report.rows.map((r) => ({
      case: r.case,
      calls: r.calls,
      "p50 µs": r.p50us.toFixed(1),
      "p99 µs": r.p99us.toFixed(1),
      "mean µs": r.meanUs.toFixed(1),
      "max µs": r.maxUs.toFixed(0),
      "naive p50 µs": r.naiveP50us === undefined ? "" : r.naiveP50us.toFixed(0),
    })),
  );
  if (report.disagreements.length > 0) console.log("DISAGREEMENTS with the naive baseline:", report.disagreements);
  const out = options.out ?? `bench/results/stream-${options.entities}x${options.statements}.json`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${out}`);
}

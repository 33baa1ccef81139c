/**
 * Distinct-query stream benchmark: the headline
 * =============================================
 * The figures users see: a stream of different queries, each asked once per round, so
 * the CPU caches hold what a real workload leaves in them rather than one query's footprint.
 *
 * Streams, drawn (seeded) from the graph's own data through its public API:
 *  - search: `queries` random substrings of 2..6 code points of random entities' raw identifiers (a
 *    surrogate pair is never cut; blank queries are skipped), without a type filter and, as a
 *    second stream, with the type of the entity each came from. Page 1; then page 2 through page
 *    1's cursor (a separate pass, so page 2 does not find page 1's path still cached); then page
 *    DEEP_PAGE for the queries that have one (its cursor found by walking, untimed);
 *  - the same two search streams in order "score" (pages 1, 2 and DEEP_PAGE), and page 1 with
 *    count=true (what the total adds: that row less the plain page 1 row);
 *  - lookup: graph.getEntity of `queries` random entityIds;
 *  - statements: `queries` filters of each shape (S, P, O, S+P, P+O, O+S, S+P+O) taken from random
 *    statements (so heavy groups come up as often as users meet them): the first page, then the
 *    next one through its cursor; and the first page with count=true.
 * Each pass visits its queries in a fresh random order, `rounds` rounds, the first a warm-up that is
 * not kept (bench/sample.ts: timeEach). One sample: one call, page built and cursor sealed.
 *
 * Beside it, the same stream against the naive baselines (bench/baselines/), on the first
 * `naiveQueries` queries of each case, since they are slow: the substring scan for search (sorted
 * by score for order "score", the scores counted from the statements as the contract defines them;
 * a second scan counts the matches for count=true), the Map store of every statement for
 * statements, a Map of every entity for lookup, all paging by offset in the contract's order. Their
 * pages must equal Quiver's; any difference is listed (`disagreements`) and shown in the summary.
 * The baselines are made only after Quiver's passes, so their garbage does not slow Quiver's GCs.
 *
 * Cost: (6 search passes + 14 statements passes) x queries x rounds calls, a few seconds at the
 * default 2,000 queries; the deep-page walks (DEEP_PAGE calls per query that has that many pages);
 * and the baselines: naiveQueries x 6 full scans of the identifiers.
 */

import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";

import type { Entity, EntityType, Graph, Statement, StatementInput } from "../src/index.js";
import { mulberry32 } from "../tools/prng.js";
import type { Filter } from "./baselines/map-store.js";
import { count, heading, num, printTable, progress, wrap } from "./format.js";
import {
  STREAM_SEARCH_GOAL_PAGES,
  STREAM_SEARCH_P50_GOAL_US,
  STREAM_SEARCH_P99_GOAL_US,
  STREAM_STATEMENTS_P50_GOAL_US,
  STREAM_STATEMENTS_P99_GOAL_US,
  STREAM_STATEMENTS_POOLED_FAMILY,
} from "./goals.js";
import type { GraphData } from "./graph-data.js";
import { SEARCH_LIMIT } from "./search.bench.js";
import { SHAPES as STATEMENT_SHAPES, STATEMENTS_LIMIT } from "./statements.bench.js";
import { makeHostHeap } from "./host-heap.js";
import { memoryDelta, settledMemory } from "./memory.js";
import type { HostHeapStream, Impl, LatencyRow, StreamFamily, StreamResults } from "./results.js";
import { distribution, shuffled, summarize, timeEach, timeOnce } from "./sample.js";

/** The deep page of the search stream, reached by walking (untimed). */
export const DEEP_PAGE = 50;
/** Every filter shape but "none" (one query, not a stream of distinct ones). */
export const STREAM_SHAPES = STATEMENT_SHAPES.filter((shape) => shape !== "none");
/** Query lengths drawn, in code points. */
const MIN_QUERY_POINTS = 2;
const MAX_QUERY_POINTS = 6;
/** Entities (and statements) drawn per wanted query: some draws repeat or are blank. */
const DRAWS_PER_QUERY = 4;
/** The stream's query seed (bench:alloc draws the same queries with it). */
export const QUERY_SEED = 20261123;
/** Disagreements listed at most (the rest are counted). */
const MAX_LISTED_DISAGREEMENTS = 20;
const MB = 1e6;

export interface StreamOptions {
  queries: number;
  rounds: number;
  naiveQueries: number;
  /** Show the project's goals and a verdict per row (`--goals`). */
  goals: boolean;
  /** MB of the bench's own live objects held for a second run of Quiver's passes; 0: none. */
  hostHeapMB: number;
  /** Only the cases of these names (bench:alloc's `--cases`); default every case. */
  only?: ReadonlySet<string>;
}

export interface SearchQuery {
  q: string;
  type: EntityType | undefined;
}

/** What a case asks (its queries of type T), and how Quiver and the baseline answer one. */
interface CaseSpec<T> {
  endpoint: "search" | "statements";
  name: string;
  /** The page asked (none for a lookup). */
  page?: number;
  detail: string;
  /** The pooled distribution (CDF chart) the case's samples join; none: they join none (a case that
   * splits another's queries, whose samples are pooled already). */
  family?: string;
  items: readonly T[];
  /** Quiver's page: timed. */
  quiver: (item: T) => Entity[] | Statement[];
  /** The baseline's page: timed on a sample. */
  baseline: (item: T) => Entity[] | Statement[];
  impl: Impl;
  /** A further agreement check of one query (a total against the baseline's count); default none. */
  same?: (item: T) => boolean;
}

/** A case with its query type hidden: the runner needs only these. */
export interface StreamCase {
  spec: Pick<CaseSpec<unknown>, "endpoint" | "name" | "page" | "detail" | "family" | "impl">;
  queries: number;
  /** Quiver's page of query i (0 <= i < queries), untimed: for bench/alloc.bench.ts. */
  ask: (i: number) => unknown;
  /** `gc` false: no full GC between rounds (timeEach). */
  timeQuiver: (rounds: number, rand: () => number, gc: boolean) => number[];
  timeBaseline: (sample: number) => number[];
  /** The sample's queries whose baseline page differs from Quiver's. */
  disagreements: (sample: number) => string[];
}

function streamCase<T>(spec: CaseSpec<T>): StreamCase {
  const keys = (page: Entity[] | Statement[]) => page.map(itemKey).join("\n");
  return {
    spec,
    queries: spec.items.length,
    ask: (i) => spec.quiver(spec.items[i]!),
    timeQuiver: (rounds, rand, gc) => timeEach(spec.items, rounds, rand, spec.quiver, gc),
    timeBaseline: (sample) => timeOnce(spec.items.slice(0, sample), spec.baseline),
    disagreements: (sample) =>
      spec.items
        .slice(0, sample)
        .filter((item) => keys(spec.quiver(item)) !== keys(spec.baseline(item)) || spec.same?.(item) === false)
        .map((item) => `${spec.name}: ${JSON.stringify(item)}`),
  };
}

/** An item as a comparable string: an entity's id; a statement's ids and fingerprint. */
function itemKey(x: Entity | Statement): string {
  return "entityId" in x
    ? x.entityId
    : `${x.subjectEntityId} ${x.predicateEntityId} ${x.objectEntityId} ${x.statementFingerprint}`;
}

/** 2..6 code points cut from `raw` at a random code-point boundary; undefined when too short or blank. */
function substringOf(raw: string, rand: () => number): string | undefined {
  const points = Array.from(raw);
  if (points.length < MIN_QUERY_POINTS) return undefined;
  const span = MAX_QUERY_POINTS - MIN_QUERY_POINTS + 1;
  const length = Math.min(points.length, MIN_QUERY_POINTS + Math.floor(rand() * span));
  const start = Math.floor(rand() * (points.length - length + 1));
  const q = points.slice(start, start + length).join("");
  // A query of only spaces matches nearly everything: not what users type.
  return q.trim() === "" ? undefined : q;
}

export async function runStream(data: GraphData, options: StreamOptions): Promise<StreamResults> {
  const rand = mulberry32(QUERY_SEED);
  const cases = streamCases(data, options.queries, rand, options.only);

  // Quiver first, every pass, before any baseline exists: bare, then inside a host's heap.
  const bare = await timeQuiver(cases, options.rounds, rand, "", true);
  let hostHeap: HostHeapStream | null = null;
  if (options.hostHeapMB > 0) {
    progress(`stream: making a host heap of ${count(options.hostHeapMB)} MB of small live objects`);
    const before = await settledMemory();
    const host = makeHostHeap(options.hostHeapMB * MB);
    const held = memoryDelta(before, await settledMemory()).heapUsed;
    // As a host runs: no full GC between rounds, so the pages' garbage is collected while they are
    // timed (with forced GCs before each round, 2,000 pages never fill the young generation and no
    // GC at all runs while they are timed: the host's heap could not show).
    const timed = await timeQuiver(cases, options.rounds, rand, ", host heap", false);
    hostHeap = {
      bytes: held,
      objects: host.objects,
      gc: timed.gc,
      rows: cases.map((c) => quiverRow(c, timed.samples)),
      families: pooledFamilies(cases, timed.samples),
    };
    host.release();
    await settledMemory();
  }
  const samples = bare.samples;

  const rows: LatencyRow[] = [];
  const disagreements: string[] = [];
  let unlisted = 0;
  for (const c of cases) {
    const { endpoint, name, page, impl } = c.spec;
    const at = page === undefined ? {} : { page };
    rows.push(quiverRow(c, samples));
    if (options.naiveQueries <= 0) continue;
    const sample = Math.min(c.queries, options.naiveQueries);
    progress(`stream: ${name}, ${impl} (${sample} queries)`);
    rows.push({
      kind: "distinct",
      endpoint,
      case: name,
      impl,
      detail: `${sample} of the queries`,
      ...at,
      ...summarize(c.timeBaseline(sample)),
    });
    for (const d of c.disagreements(sample)) {
      if (disagreements.length < MAX_LISTED_DISAGREEMENTS) disagreements.push(d);
      else unlisted++;
    }
  }
  if (unlisted > 0) disagreements.push(`... and ${unlisted} more`);

  const results: StreamResults = {
    queries: options.queries,
    rounds: options.rounds,
    naiveQueries: options.naiveQueries,
    deepPage: DEEP_PAGE,
    rows,
    families: pooledFamilies(cases, samples),
    disagreements,
    gc: bare.gc,
    hostHeap,
  };
  printStream(results, options.goals);
  return results;
}

/** GCs that ran during the timed passes: how many, and their summed pause. */
export interface GcTally {
  count: number;
  ms: number;
  /** Of them, the major ones (mark-compact: they walk the whole heap, the host's objects too). */
  major: number;
  majorMs: number;
}

/**
 * Times every case's Quiver passes, with the GCs that ran meanwhile (a PerformanceObserver of gc
 * entries: the passes are synchronous, so the entries are taken after them).
 */
async function timeQuiver(
  cases: readonly StreamCase[],
  rounds: number,
  rand: () => number,
  label: string,
  gc: boolean,
): Promise<{ samples: Map<StreamCase, number[]>; gc: GcTally }> {
  // timeEach's own full GCs (between rounds) are not the pages' cost: isForcedGc leaves them out.
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const samples = new Map<StreamCase, number[]>();
  for (const c of cases) {
    progress(`stream${label}: ${c.spec.name} (${c.queries} queries)`);
    samples.set(c, c.timeQuiver(rounds, rand, gc));
  }
  await new Promise((resolve) => setImmediate(resolve));
  entries.push(...observer.takeRecords());
  observer.disconnect();
  const pageGcs = entries.filter((e) => !isForcedGc(e));
  const major = pageGcs.filter((e) => gcKind(e) === constants.NODE_PERFORMANCE_GC_MAJOR);
  const ms = (es: PerformanceEntry[]) => es.reduce((sum, e) => sum + e.duration, 0);
  return { samples, gc: { count: pageGcs.length, ms: ms(pageGcs), major: major.length, majorMs: ms(major) } };
}

function gcKind(e: PerformanceEntry): number {
  return (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
}

/** A GC the bench forced (global.gc between passes), not one the pages' allocation caused. */
function isForcedGc(e: PerformanceEntry): boolean {
  const flags = (e as PerformanceEntry & { detail?: { flags?: number } }).detail?.flags ?? 0;
  return (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
}

function quiverRow(c: StreamCase, samples: Map<StreamCase, number[]>): LatencyRow {
  const { endpoint, name, page, detail } = c.spec;
  const at = page === undefined ? {} : { page };
  return { kind: "distinct", endpoint, case: name, impl: "quiver", detail, ...at, ...summarize(samples.get(c)!) };
}

/** The pooled distributions of the report's CDF chart: every query of a family's cases together. */
function pooledFamilies(cases: readonly StreamCase[], samples: Map<StreamCase, number[]>): StreamFamily[] {
  const families: StreamFamily[] = [];
  const names = new Set(cases.flatMap((c) => (c.spec.family === undefined ? [] : [c.spec.family])));
  for (const name of names) {
    const pooled = cases.filter((c) => c.spec.family === name).flatMap((c) => samples.get(c)!);
    families.push({ name, ...distribution(pooled, true) });
  }
  return families;
}

export function drawSearchQueries(
  entities: readonly Entity[],
  wanted: number,
  rand: () => number,
): { plain: SearchQuery[]; typed: SearchQuery[] } {
  const plain = new Map<string, SearchQuery>();
  const typed = new Map<string, SearchQuery>();
  const draws = DRAWS_PER_QUERY * 2 * wanted;
  for (let i = 0; i < draws && (plain.size < wanted || typed.size < wanted); i++) {
    const e = entities[Math.floor(rand() * entities.length)];
    if (e === undefined) break;
    const q = substringOf(e.rawIdentifier, rand);
    if (q === undefined) continue;
    // Alternate: a draw feeds the plain stream first, then the typed one, so both get every kind.
    if (plain.size < wanted && !plain.has(q) && (i % 2 === 0 || typed.size >= wanted))
      plain.set(q, { q, type: undefined });
    else if (typed.size < wanted && !typed.has(`${q}\u0000${e.type}`))
      typed.set(`${q}\u0000${e.type}`, { q, type: e.type });
  }
  return { plain: [...plain.values()], typed: [...typed.values()] };
}

/** Up to `wanted` distinct filters per shape, from random statements (read through exportStatements). */
export function drawFilters(graph: Graph, wanted: number, rand: () => number): Map<string, Filter[]> {
  const n = graph.statementCount;
  const rows = new Set<number>();
  const target = Math.min(n, DRAWS_PER_QUERY * wanted);
  while (rows.size < target) rows.add(Math.floor(rand() * n));
  const picked: StatementInput[] = [];
  let row = 0;
  for (const st of graph.exportStatements()) if (rows.has(row++)) picked.push(st);
  const out = new Map<string, Filter[]>();
  for (const shape of STREAM_SHAPES) {
    const distinct = new Map<string, Filter>();
    for (const st of shuffled(picked, rand)) {
      if (distinct.size >= wanted) break;
      const f: Filter = {};
      if (shape.includes("S")) f.s = st.subjectEntityId;
      if (shape.includes("P")) f.p = st.predicateEntityId;
      if (shape.includes("O")) f.o = st.objectEntityId;
      distinct.set(`${f.s} ${f.p} ${f.o}`, f);
    }
    out.set(shape, [...distinct.values()]);
  }
  return out;
}

function searchCases(
  data: GraphData,
  label: string,
  queries: readonly SearchQuery[],
  order: "name" | "score",
  wanted: (name: string) => boolean,
): StreamCase[] {
  const graph = data.graph;
  // Order "name" is asked as before (no order parameter), so its rows compare with earlier runs.
  const ask = (sq: SearchQuery, cursor?: string) =>
    graph.search({
      q: sq.q,
      type: sq.type,
      limit: SEARCH_LIMIT,
      ...(order === "name" ? {} : { order }),
      ...(cursor === undefined ? {} : { cursor }),
    });
  const naive = (sq: SearchQuery, page: number) =>
    order === "name"
      ? data.naiveSearch().page(sq.q, sq.type, (page - 1) * SEARCH_LIMIT, SEARCH_LIMIT)
      : data.naiveSearch().pageByScore(sq.q, sq.type, (page - 1) * SEARCH_LIMIT, SEARCH_LIMIT, data.scores());

  // Cursors to page 2 and to the deep page, found untimed: every query asks its pages in order.
  // A page no case times is not walked to (the deep walks are most of the setup at 10M).
  const walkTo = wanted(`${label} page ${DEEP_PAGE}`) ? DEEP_PAGE : wanted(`${label} page 2`) ? 2 : 1;
  const second: [SearchQuery, string][] = [];
  const deep: [SearchQuery, string][] = [];
  for (const sq of walkTo > 1 ? queries : []) {
    let cursor = ask(sq).nextCursor;
    if (cursor === null) continue;
    second.push([sq, cursor]);
    for (let page = 2; page < walkTo && cursor !== null; page++) cursor = ask(sq, cursor).nextCursor;
    if (walkTo === DEEP_PAGE && cursor !== null) deep.push([sq, cursor]);
  }
  const later = (page: number, list: [SearchQuery, string][]) =>
    streamCase({
      endpoint: "search",
      name: `${label} page ${page}`,
      page,
      detail: `${count(list.length)} queries with a page ${page}`,
      family: `search, page ${page}`,
      items: list,
      quiver: ([sq, cursor]) => ask(sq, cursor).items,
      baseline: ([sq]) => naive(sq, page),
      impl: "naive scan",
    });
  return [
    streamCase({
      endpoint: "search",
      name: `${label} page 1`,
      page: 1,
      detail: `${count(queries.length)} queries of ${MIN_QUERY_POINTS}-${MAX_QUERY_POINTS} code points`,
      family: "search, page 1",
      items: queries,
      quiver: (sq) => ask(sq).items,
      baseline: (sq) => naive(sq, 1),
      impl: "naive scan",
    }),
    later(2, second),
    later(DEEP_PAGE, deep),
  ];
}

/**
 * Page 1 with count=true: the page and its exact total (what it adds is this row less the plain
 * page 1 row). The baseline's page and count (one more scan) must agree with Quiver's.
 */
function countCase(data: GraphData, label: string, queries: readonly SearchQuery[]): StreamCase {
  const ask = (sq: SearchQuery) => data.graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT, count: true });
  const naiveCount = (sq: SearchQuery) => data.naiveSearch().count(sq.q, sq.type);
  return streamCase({
    endpoint: "search",
    name: `${label} page 1`,
    page: 1,
    detail: `${count(queries.length)} queries, page and total`,
    family: "search, page 1 with total",
    items: queries,
    quiver: (sq) => ask(sq).items,
    baseline: (sq) => {
      naiveCount(sq);
      return data.naiveSearch().page(sq.q, sq.type, 0, SEARCH_LIMIT);
    },
    same: (sq) => ask(sq).total === naiveCount(sq),
    impl: "naive scan",
  });
}

/** Lookup by entityId (graph.getEntity) of random entities, against a Map of every entity. */
function lookupCase(data: GraphData, wanted: number, rand: () => number): StreamCase {
  const entities = data.entities;
  const ids = Array.from({ length: Math.min(wanted, entities.length) }, () => {
    return entities[Math.floor(rand() * entities.length)]!.entityId;
  });
  return streamCase({
    endpoint: "search",
    name: "lookup getEntity",
    detail: `${count(ids.length)} random entityIds`,
    family: "lookup",
    items: ids,
    quiver: (id) => [data.graph.getEntity(id)!],
    baseline: (id) => [data.byId().get(id)!],
    impl: "Map of entities",
  });
}

/** The first page with count=true, per filter shape: the index range's length (what it adds: this row less the plain one). */
function statementsCountCase(data: GraphData, shape: string, filters: readonly Filter[]): StreamCase {
  const ask = (f: Filter) =>
    data.graph.statements({
      subjectEntityId: f.s,
      predicateEntityId: f.p,
      objectEntityId: f.o,
      limit: STATEMENTS_LIMIT,
      count: true,
    });
  return streamCase({
    endpoint: "statements",
    name: `${shape} first page count=true`,
    page: 1,
    detail: `${count(filters.length)} filters, page and total`,
    family: "statements, first pages with total",
    items: filters,
    quiver: (f) => ask(f).items,
    baseline: (f) => data.mapStore().page(f, 0, STATEMENTS_LIMIT),
    impl: "Map store",
  });
}

function statementsCases(
  data: GraphData,
  shape: string,
  filters: readonly Filter[],
  wanted: (name: string) => boolean,
): StreamCase[] {
  const graph = data.graph;
  const ask = (f: Filter, cursor?: string) =>
    graph.statements({
      subjectEntityId: f.s,
      predicateEntityId: f.p,
      objectEntityId: f.o,
      limit: STATEMENTS_LIMIT,
      ...(cursor === undefined ? {} : { cursor }),
    });
  const map = (f: Filter, page: number) => data.mapStore().page(f, (page - 1) * STATEMENTS_LIMIT, STATEMENTS_LIMIT);
  const next: [Filter, string][] = [];
  for (const f of wanted(`${shape} next page`) ? filters : []) {
    const cursor = ask(f).nextCursor;
    if (cursor !== null) next.push([f, cursor]);
  }
  // The first page again, split by whether it is full: the filters are drawn from random
  // statements, so a larger graph's heavier entities give more full pages, and the case's p50
  // moves from one page size's cost to the other's. These rows compare sizes like with like.
  const full: Filter[] = [];
  const short: Filter[] = [];
  if (wanted(`${shape} first page full`) || wanted(`${shape} first page short`))
    for (const f of filters) (ask(f).items.length === STATEMENTS_LIMIT ? full : short).push(f);
  const share = (part: readonly Filter[]) => `${num((100 * part.length) / Math.max(1, filters.length), 1)}%`;
  const fill = (which: "full" | "short", part: readonly Filter[]) =>
    streamCase({
      endpoint: "statements",
      name: `${shape} first page ${which}`,
      page: 1,
      detail: `${count(part.length)} filters (${share(part)}) whose first page ${which === "full" ? "holds" : "holds fewer than"} ${STATEMENTS_LIMIT}`,
      items: part,
      quiver: (f) => ask(f).items,
      baseline: (f) => map(f, 1),
      impl: "Map store",
    });
  return [
    streamCase({
      endpoint: "statements",
      name: `${shape} first page`,
      page: 1,
      detail: `${count(filters.length)} filters`,
      family: STREAM_STATEMENTS_POOLED_FAMILY,
      items: filters,
      quiver: (f) => ask(f).items,
      baseline: (f) => map(f, 1),
      impl: "Map store",
    }),
    streamCase({
      endpoint: "statements",
      name: `${shape} next page`,
      page: 2,
      detail: `${count(next.length)} filters with a next page`,
      family: "statements, next pages",
      items: next,
      quiver: ([f, cursor]) => ask(f, cursor).items,
      baseline: ([f]) => map(f, 2),
      impl: "Map store",
    }),
    fill("full", full),
    fill("short", short),
  ];
}

/** The goal a stream row is judged by: p50 and p99 in µs, or none (deep search pages). */
export function streamGoal(row: Pick<LatencyRow, "endpoint" | "page">): { p50: number; p99: number } | undefined {
  if (row.endpoint === "statements") return { p50: STREAM_STATEMENTS_P50_GOAL_US, p99: STREAM_STATEMENTS_P99_GOAL_US };
  return (row.page ?? 1) <= STREAM_SEARCH_GOAL_PAGES
    ? { p50: STREAM_SEARCH_P50_GOAL_US, p99: STREAM_SEARCH_P99_GOAL_US }
    : undefined;
}

function printStream(r: StreamResults, goals: boolean): void {
  heading(
    `Distinct-query stream (headline): each query once per round, ${r.rounds - 1} rounds kept, µs; baseline on ${r.naiveQueries}`,
  );
  const quiver = r.rows.filter((x) => x.impl === "quiver");
  const host = r.hostHeap;
  const verdict = (x: LatencyRow | undefined) => {
    const goal = x === undefined ? undefined : streamGoal(x);
    if (x === undefined || goal === undefined) return "";
    return x.p50us <= goal.p50 && x.p99us <= goal.p99 ? "pass" : "FAIL";
  };
  // The goal columns only with --goals: by default a run compares Quiver with its baselines.
  const left = { header: "", align: "left" as const };
  printTable(
    [
      { header: "case" },
      { header: "queries" },
      { header: "p50 µs" },
      { header: "p99 µs" },
      ...(goals ? [left] : []),
      ...(host === null ? [] : [{ header: "host p50" }, { header: "host p99" }, ...(goals ? [left] : [])]),
      ...(goals ? [{ header: "goal µs" }] : []),
      { header: "baseline p50 µs" },
    ],
    quiver.map((x) => {
      const goal = streamGoal(x);
      const base = r.rows.find((b) => b.impl !== "quiver" && b.case === x.case);
      const h = host?.rows.find((y) => y.case === x.case);
      return [
        x.case,
        count(x.samples / Math.max(1, r.rounds - 1)),
        num(x.p50us),
        num(x.p99us),
        ...(goals ? [verdict(x)] : []),
        ...(host === null
          ? []
          : [h === undefined ? "" : num(h.p50us), h === undefined ? "" : num(h.p99us), ...(goals ? [verdict(h)] : [])]),
        ...(goals ? [goal === undefined ? "" : `${goal.p50} / ${goal.p99}`] : []),
        base === undefined ? "" : num(base.p50us),
      ];
    }),
  );
  console.log(
    `baseline: naive substring scan (search), Map store of every statement (statements)${goals ? "; goal: p50 / p99" : ""}`,
  );
  const gcLine = (g: GcTally) =>
    `${count(g.count)} GCs, ${num(g.ms)} ms of pauses (${count(g.major)} major, ${num(g.majorMs)} ms)`;
  console.log(wrap(`bare process: no host objects, a full GC before each round; ${gcLine(r.gc)} while timed`));
  if (host !== null)
    console.log(
      wrap(
        `host heap: ${num(host.bytes / 1e6, 0)} MB of live heap in ${count(host.objects)} small objects held by the bench while timed, no GC forced between rounds; ${gcLine(host.gc)}`,
      ),
    );
  // The pooled distributions: every query of the family's cases together.
  for (const [label, families] of [
    ["", r.families] as const,
    ...(host === null ? [] : [[", host heap", host.families] as const]),
  ])
    for (const f of families)
      console.log(
        `pooled${label}, ${f.name}: ${count(f.samples / Math.max(1, r.rounds - 1))} queries, p50 ${num(f.p50us)} µs, p99 ${num(f.p99us)} µs`,
      );
  if (r.disagreements.length > 0) {
    console.log(`DISAGREEMENTS with the baseline (${r.disagreements.length}):`);
    for (const d of r.disagreements.slice(0, 5)) console.log(`  ${d.slice(0, 96)}`);
  }
}

/**
 * Every case of the stream (or those named in `only`), its queries drawn from `data` with `rand`
 * (`queries` per case at most), and the cursors of its later pages found (untimed). The draws are
 * the same whichever cases are kept: a case's queries do not depend on `only`.
 */
export function streamCases(
  data: GraphData,
  queries: number,
  rand: () => number,
  only?: ReadonlySet<string>,
): StreamCase[] {
  progress(`stream: drawing ${count(queries)} queries per case`);
  const wanted = (name: string) => only === undefined || only.has(name);
  const { plain, typed } = drawSearchQueries(data.entities, queries, rand);
  const filters = drawFilters(data.graph, queries, rand);
  return [
    ...searchCases(data, "search", plain, "name", wanted),
    ...searchCases(data, "search type=", typed, "name", wanted),
    ...searchCases(data, "search order=score", plain, "score", wanted),
    ...searchCases(data, "search order=score type=", typed, "score", wanted),
    countCase(data, "search count=true", plain),
    countCase(data, "search count=true type=", typed),
    lookupCase(data, queries, rand),
    ...STREAM_SHAPES.flatMap((shape) => statementsCases(data, shape, filters.get(shape) ?? [], wanted)),
    ...STREAM_SHAPES.map((shape) => statementsCountCase(data, shape, filters.get(shape) ?? [])),
  ].filter((c) => c.queries > 0 && wanted(c.spec.name));
}

/** Every case name the stream can have (`--cases` checks against it). */
export function streamCaseNames(): string[] {
  const search = ["search", "search type=", "search order=score", "search order=score type="].flatMap((label) =>
    [1, 2, DEEP_PAGE].map((page) => `${label} page ${page}`),
  );
  return [
    ...search,
    "search count=true page 1",
    "search count=true type= page 1",
    "lookup getEntity",
    ...STREAM_SHAPES.flatMap((shape) => [
      `${shape} first page`,
      `${shape} next page`,
      `${shape} first page full`,
      `${shape} first page short`,
    ]),
    ...STREAM_SHAPES.map((shape) => `${shape} first page count=true`),
  ];
}

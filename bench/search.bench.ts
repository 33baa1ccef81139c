/**
 * Search benchmark
 * ================
 * Latency of one search page (limit SEARCH_LIMIT, items built, cursor sealed) through
 * `Graph.search`, the call the HTTP adapter makes, for the issue's cases:
 *   - q = COMMON_QUERY ("e", matching most entities) on page 1 and on page DEEP_SEARCH_PAGE (the
 *     cursor is taken by walking the pages before it, as a client would);
 *   - a rare q, with 1 to RARE_MATCHES_MAX matches, cut from an identifier of the data;
 *   - each of the three with a type filter too: the second most frequent type (a filter that
 *     drops most matches; the most frequent would barely filter);
 *   - one more, not in the issue's list: a deep page (DEEP_SEARCH_PAGE) in the infix tier without
 *     a type filter, for the most frequent of INFIX_CANDIDATES whose page lies there. Whether
 *     q="e"'s page 1,000 is in the prefix tier (names starting with "e") or the infix tier is an
 *     accident of the data (it is infix on YAGO3-10 and on 200k generated names), and the two
 *     tiers take different paths through the index.
 * Deep pages are also timed on a replica (same data and secret, its own memory of the cursors it
 * issued), which checks the cursor's HMAC: "cold cursor" rows, an extra line in the summary.
 * Beside it, the naive baseline: every identifier folded once up front (as a user would keep them),
 * then per query `includes` over all of them, a sort of the matches in the contract's order
 * (tier, folded identifier, entityId) and a slice at the page's offset. It is slow, so it runs
 * NAIVE_ITERATIONS times. Its pages double as a check: they must equal Quiver's.
 *
 * Goal (the issue's, at 1M entities): p50 <= SEARCH_GOAL_US for every Quiver case.
 * Run through `npm run bench` (bench/main.ts), which builds the graph first.
 */

import { graphParts } from "../src/engine/internal.js";
import { Bench } from "tinybench";

import { fold } from "../src/engine/fold.js";
import { Graph } from "../src/engine/graph.js";
import { ENTITY_TYPES, type Entity, type EntityType, type SearchParams } from "../src/engine/types.js";
import { mulberry32 } from "../tools/generator.js";
import { latencyRow, latencyTable, seconds, sink, thousands, type GoalCheck, type LatencyRow } from "./report.js";

export const SEARCH_LIMIT = 20;
export const DEEP_SEARCH_PAGE = 1_000;
export const SEARCH_GOAL_US = 20;
export const COMMON_QUERY = "e";
/** A rare query matches at least one and at most this many entities. */
export const RARE_MATCHES_MAX = 3;
/** Lengths tried, in order, for a rare query cut from an identifier. */
const RARE_QUERY_LENGTHS = [7, 6, 8, 5, 10];
const RARE_QUERY_TRIES = 5_000;
const RARE_QUERY_SEED = 42;
export const NAIVE_ITERATIONS = 3;
/** Queries tried for the infix-tier deep page, common letters and bigrams of names ("e" has its own cases). */
const INFIX_CANDIDATES = ["a", "n", "r", "i", "o", "l", "s", "t", "er", "an", "on", "en", "in", "ar", "el", "or"];

export interface SearchReport {
  typeFilter: string;
  rareQuery: string | undefined;
  naivePrepareMs: number;
  rows: LatencyRow[];
  /** Cases where the naive page differed from Quiver's (should be none). */
  disagreements: string[];
}

interface SearchCase {
  name: string;
  q: string;
  type: EntityType | undefined;
  /** Page number asked for, and the one reached (smaller when the results end before it). */
  page: number;
  cursor: string | undefined;
  matches: number;
  /** Match tiers on the page ("prefix", "infix", "exact..prefix"): tiers take different paths. */
  tiers: string;
}

export async function runSearch(graph: Graph, options: { timeMs: number }): Promise<SearchReport> {
  console.log(`\n## Search page (limit ${SEARCH_LIMIT}) on ${thousands(graph.entityCount)} entities`);
  const naive = new NaiveSearch(graph);
  console.log(
    `naive baseline: folded ${thousands(graph.entityCount)} identifiers up front in ${seconds(naive.prepareMs)}`,
  );

  const typeFilter = secondMostFrequentType(graph);
  const rareQuery = findRareQuery(graph, typeFilter);
  console.log(
    `type filter: "${typeFilter}" (second most frequent type); rare q: ${rareQuery === undefined ? "none found, case skipped" : JSON.stringify(rareQuery)}`,
  );

  const cases: SearchCase[] = [];
  for (const type of [undefined, typeFilter]) {
    const label = type === undefined ? "" : ` type=${type}`;
    const common = naive.count(COMMON_QUERY, type);
    cases.push(makeCase(graph, `q="${COMMON_QUERY}"${label} page 1`, COMMON_QUERY, type, 1, common));
    cases.push(
      makeCase(
        graph,
        `q="${COMMON_QUERY}"${label} page ${thousands(DEEP_SEARCH_PAGE)}`,
        COMMON_QUERY,
        type,
        DEEP_SEARCH_PAGE,
        common,
      ),
    );
    if (rareQuery !== undefined)
      cases.push(makeCase(graph, `rare q${label}`, rareQuery, type, 1, naive.count(rareQuery, type)));
  }
  const infix = naive.infixDeepQuery(
    INFIX_CANDIDATES,
    (DEEP_SEARCH_PAGE - 1) * SEARCH_LIMIT,
    DEEP_SEARCH_PAGE * SEARCH_LIMIT,
  );
  if (infix !== undefined) {
    cases.push(
      makeCase(
        graph,
        `${INFIX_CASE_PREFIX} q="${infix.q}" page ${thousands(DEEP_SEARCH_PAGE)}`,
        infix.q,
        undefined,
        DEEP_SEARCH_PAGE,
        infix.matches,
      ),
    );
  } else {
    console.log(
      `(no candidate query has ${thousands(DEEP_SEARCH_PAGE)} pages with its page ${thousands(DEEP_SEARCH_PAGE)} in the infix tier: that case is skipped)`,
    );
  }

  const bench = new Bench({
    name: `Quiver search page (limit ${SEARCH_LIMIT})`,
    time: options.timeMs,
    warmupTime: 100,
    warmupIterations: 50,
  });
  const naiveBench = new Bench({
    name: "naive search: includes over all folded identifiers, sort, slice",
    time: 0,
    iterations: NAIVE_ITERATIONS,
    warmupIterations: 1,
    warmupTime: 0,
  });
  const disagreements: string[] = [];
  // A replica (same data and secret, its own cursor codec) checks the HMAC of the main graph's
  // cursors: the "cold cursor" variant of the deep pages (see statements.bench.ts).
  const replica = new Graph(graphParts(graph));
  const coldCases: SearchCase[] = [];
  for (const c of cases) {
    const params: SearchParams = { q: c.q, limit: SEARCH_LIMIT, type: c.type, cursor: c.cursor };
    bench.add(
      c.name,
      () => {
        sink.value += graph.search(params).items.length;
      },
      { async: false },
    );
    if (c.cursor !== undefined && !c.name.startsWith(INFIX_CASE_PREFIX)) {
      const cold = { ...c, name: `${c.name}${COLD_SUFFIX}` };
      coldCases.push(cold);
      bench.add(
        cold.name,
        () => {
          sink.value += replica.search(params).items.length;
        },
        { async: false },
      );
    }
    const offset = (c.page - 1) * SEARCH_LIMIT;
    naiveBench.add(
      c.name,
      () => {
        sink.value += naive.page(c.q, c.type, offset, SEARCH_LIMIT).length;
      },
      { async: false },
    );
    // The naive page is the reference: Quiver's must be the same entities in the same order.
    const mine = graph.search(params).items.map((e) => e.entityId);
    const theirs = naive.page(c.q, c.type, offset, SEARCH_LIMIT).map((e) => e.entityId);
    if (mine.join("\n") !== theirs.join("\n")) disagreements.push(c.name);
  }
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());
  await naiveBench.run();
  console.log(naiveBench.name);
  console.table(naiveBench.table());

  const rows: LatencyRow[] = [];
  for (const c of cases) {
    const last = c.page < DEEP_SEARCH_PAGE && c.name.includes(thousands(DEEP_SEARCH_PAGE)) ? " (last)" : "";
    const detail = `page ${thousands(c.page)}${last}, ${thousands(c.matches)} matches, ${c.tiers} tier`;
    rows.push(latencyRow(bench, c.name, { case: c.name, impl: "quiver", detail }));
    rows.push(latencyRow(naiveBench, c.name, { case: c.name, impl: "naive scan", detail }));
  }
  for (const c of coldCases)
    rows.push(
      latencyRow(bench, c.name, {
        case: c.name,
        impl: "quiver",
        detail: `page ${thousands(c.page)}, ${c.tiers} tier, HMAC checked`,
      }),
    );
  console.log(`\nsearch page latency (limit ${SEARCH_LIMIT}; naive: ${NAIVE_ITERATIONS} runs each)`);
  console.table(latencyTable(rows, SEARCH_GOAL_US));
  if (disagreements.length > 0) console.log(`WARNING: naive and Quiver pages differ for: ${disagreements.join("; ")}`);
  else console.log("check: every Quiver page equals the naive page");
  return { typeFilter, rareQuery, naivePrepareMs: naive.prepareMs, rows, disagreements };
}

export function searchGoals(report: SearchReport): GoalCheck[] {
  const quiver = report.rows.filter(
    (r) => r.impl === "quiver" && !r.case.startsWith(INFIX_CASE_PREFIX) && !r.case.endsWith(COLD_SUFFIX),
  );
  const extra = report.rows.filter((r) => r.impl === "quiver" && r.case.startsWith(INFIX_CASE_PREFIX));
  const cold = report.rows.filter((r) => r.impl === "quiver" && r.case.endsWith(COLD_SUFFIX));
  const worst = quiver.reduce((a, b) => (b.p50us > a.p50us ? b : a));
  const checks: GoalCheck[] = [
    {
      goal: `search page p50 ≤ ${SEARCH_GOAL_US} µs (q="e" p1 and p1,000, rare q; ± type filter)`,
      measured: `worst ${worst.p50us.toFixed(1)} µs (${worst.case}); ${quiver.map((r) => r.p50us.toFixed(1)).join(" / ")}`,
      pass: quiver.every((r) => r.p50us <= SEARCH_GOAL_US) && report.disagreements.length === 0,
      ...(report.disagreements.length > 0
        ? { note: `pages differ from the naive reference: ${report.disagreements.join("; ")}` }
        : {}),
    },
  ];
  if (cold.length > 0) {
    checks.push({
      goal: `extra: search deep page p50 ≤ ${SEARCH_GOAL_US} µs, cursor from a replica`,
      measured: cold.map((r) => `${r.p50us.toFixed(1)} µs (${r.case})`).join("; "),
      pass: cold.every((r) => r.p50us <= SEARCH_GOAL_US),
      note: "the cursor's HMAC is checked",
    });
  }
  for (const r of extra) {
    checks.push({
      goal: `extra: deep infix-tier page p50 ≤ ${SEARCH_GOAL_US} µs, no type filter`,
      measured: `${r.p50us.toFixed(1)} µs (${r.case}, ${r.detail})`,
      pass: r.p50us <= SEARCH_GOAL_US,
      note: 'not in the issue\'s list; q="e" page 1,000 takes this path on other data',
    });
  }
  return checks;
}

/** Name the extra cases, so the goal check can tell them from the cases. */
const INFIX_CASE_PREFIX = "infix tier:";
const COLD_SUFFIX = ", cold cursor";

/** Walks to `page` by following nextCursor; stops early at the last page. */
function makeCase(
  graph: Graph,
  name: string,
  q: string,
  type: EntityType | undefined,
  page: number,
  matches: number,
): SearchCase {
  let cursor: string | undefined;
  let reached = 1;
  while (reached < page) {
    const next = graph.search({ q, type, limit: SEARCH_LIMIT, cursor }).nextCursor;
    if (next === null) break;
    cursor = next;
    reached++;
  }
  const fq = fold(q);
  const tierOf = (e: Entity) => {
    const f = fold(e.rawIdentifier);
    return f === fq ? "exact" : f.startsWith(fq) ? "prefix" : "infix";
  };
  const items = graph.search({ q, type, limit: SEARCH_LIMIT, cursor }).items;
  const first = items[0] === undefined ? "none" : tierOf(items[0]);
  const last = items[items.length - 1] === undefined ? "none" : tierOf(items[items.length - 1] as Entity);
  return { name, q, type, page: reached, cursor, matches, tiers: first === last ? first : `${first}..${last}` };
}

function secondMostFrequentType(graph: Graph): EntityType {
  const counts = new Array<number>(ENTITY_TYPES.length).fill(0);
  for (const t of graphParts(graph).entities.types) counts[t] = (counts[t] as number) + 1;
  const order = counts
    .map((n, t) => [n, t] as const)
    .filter(([n]) => n > 0)
    .sort((a, b) => b[0] - a[0]);
  const pick = order[1] ?? order[0];
  return ENTITY_TYPES[pick === undefined ? 0 : pick[1]] as EntityType;
}

/**
 * A substring of some identifier of type `type` that matches 1..RARE_MATCHES_MAX entities in all
 * (so the query matches with and without the filter). Deterministic for a given graph.
 */
function findRareQuery(graph: Graph, type: string): string | undefined {
  const { rawIdentifiers, types } = graphParts(graph).entities;
  const rand = mulberry32(RARE_QUERY_SEED);
  const n = rawIdentifiers.length;
  const wanted = Number(type);
  for (const length of RARE_QUERY_LENGTHS) {
    for (let attempt = 0; attempt < RARE_QUERY_TRIES; attempt++) {
      const id = Math.floor(rand() * n);
      if (types[id] !== wanted) continue;
      const raw = rawIdentifiers[id] as string;
      if (raw.length < length) continue;
      const start = Math.floor(rand() * (raw.length - length + 1));
      const q = raw.slice(start, start + length);
      // No cut surrogate pair, no blank at either end: a query a person would type.
      if (/^[\udc00-\udfff]|[\ud800-\udbff]$|^\s|\s$/.test(q)) continue;
      const page = graph.search({ q, limit: RARE_MATCHES_MAX + 1 });
      if (page.items.length >= 1 && page.items.length <= RARE_MATCHES_MAX && page.nextCursor === null) return q;
    }
  }
  // Every substring tried matches more than a few entities (tiny or very repetitive data).
  return undefined;
}

/** The baseline: pre-folded identifiers in an array, a full scan and a sort per query. */
class NaiveSearch {
  readonly prepareMs: number;
  private readonly folded: string[];
  private readonly graph: Graph;

  constructor(graph: Graph) {
    this.graph = graph;
    const started = performance.now();
    this.folded = graphParts(graph).entities.rawIdentifiers.map(fold);
    this.prepareMs = performance.now() - started;
  }

  count(q: string, type: string | undefined): number {
    const fq = fold(q);
    const t = type === undefined ? -1 : Number(type);
    const { types } = graphParts(this.graph).entities;
    let n = 0;
    for (let i = 0; i < this.folded.length; i++)
      if ((t < 0 || types[i] === t) && (this.folded[i] as string).includes(fq)) n++;
    return n;
  }

  /**
   * Among `candidates`, the query with most matches whose matches at [from, to) in the contract's
   * order lie in the infix tier (fewer than `from` exact or prefix matches, at least `to` in all).
   */
  infixDeepQuery(candidates: readonly string[], from: number, to: number): { q: string; matches: number } | undefined {
    let best: { q: string; matches: number } | undefined;
    for (const q of candidates) {
      const fq = fold(q);
      let all = 0;
      let prefix = 0;
      for (const f of this.folded) {
        if (!f.includes(fq)) continue;
        all++;
        if (f.startsWith(fq)) prefix++;
      }
      if (prefix < from && all >= to && (best === undefined || all > best.matches)) best = { q, matches: all };
    }
    return best;
  }

  page(q: string, type: string | undefined, offset: number, limit: number): Entity[] {
    const fq = fold(q);
    const t = type === undefined ? -1 : Number(type);
    const { rawIdentifiers, types, sourceTypeIndex, sourceTypes } = graphParts(this.graph).entities;
    const entityIds = graphParts(this.graph).dictionary.ids;
    const folded = this.folded;
    const hits: number[] = [];
    const tiers = new Uint8Array(folded.length);
    for (let i = 0; i < folded.length; i++) {
      const f = folded[i] as string;
      if ((t < 0 || types[i] === t) && f.includes(fq)) {
        hits.push(i);
        tiers[i] = f === fq ? 0 : f.startsWith(fq) ? 1 : 2;
      }
    }
    hits.sort((a, b) => {
      const ta = tiers[a] as number;
      const tb = tiers[b] as number;
      if (ta !== tb) return ta - tb;
      const fa = folded[a] as string;
      const fb = folded[b] as string;
      if (fa !== fb) return fa < fb ? -1 : 1;
      const ia = entityIds[a] as string;
      const ib = entityIds[b] as string;
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    });
    return hits.slice(offset, offset + limit).map((i) => ({
      entityId: entityIds[i] as string,
      rawIdentifier: rawIdentifiers[i] as string,
      type: ENTITY_TYPES[types[i] as number] as Entity["type"],
      sourceType: sourceTypes[sourceTypeIndex[i] as number] as string,
    }));
  }
}

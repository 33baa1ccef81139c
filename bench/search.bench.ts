/**
 * Search, repeated queries
 * ========================
 * Mirrors Graph.search: one search page (limit SEARCH_LIMIT, items built, cursor sealed) asked again
 * and again (bench/sample.ts: timeRepeated), for fixed cases. These are microbenchmark figures:
 * everything the query touches stays in the CPU caches. The distinct-query stream
 * (stream.bench.ts) is the headline; these are kept beside it, labelled "repeated".
 *
 * Cases:
 *  - q = COMMON_QUERY ("e", matching most entities) on page 1 and on page DEEP_SEARCH_PAGE (its
 *    cursor taken by walking the pages before it, as a client would);
 *  - a rare q, 1 to RARE_MATCHES_MAX matches, cut from an identifier of the data;
 *  - each of the three with a type filter too: the second most frequent type (a filter that drops
 *    most matches; the most frequent would barely filter);
 *  - a deep page in the infix tier without a type filter, for the commonest of INFIX_CANDIDATES
 *    whose page DEEP_SEARCH_PAGE lies there (whether q="e"'s deep page is prefix or infix is an
 *    accident of the data, and the tiers take different paths);
 *  - each deep page again on a replica: a graph built separately from the same data with the same
 *    secret, so the cursor's key is placed there rather than its position reused ("replica cursor").
 * Beside each, the naive substring scan (bench/baselines/naive-search.ts), NAIVE_SAMPLES times: it
 * is slow. Its pages are the reference: Quiver's must be the same entities in the same order.
 */

import type { EntityType, Graph, SearchParams } from "../src/index.js";
import { mulberry32 } from "../tools/prng.js";
import { count, heading, num, printTable, progress } from "./format.js";
import { SEARCH_P50_GOAL_US } from "./goals.js";
import type { GraphData } from "./graph-data.js";
import type { LatencyRow, SearchResults } from "./results.js";
import { summarize, timeRepeated } from "./sample.js";

export const SEARCH_LIMIT = 20;
export const DEEP_SEARCH_PAGE = 1_000;
export const COMMON_QUERY = "e";
/** A rare query matches at least one and at most this many entities. */
export const RARE_MATCHES_MAX = 3;
/** Lengths tried, in order, for a rare query cut from an identifier. */
const RARE_QUERY_LENGTHS = [7, 6, 8, 5, 10];
const RARE_QUERY_TRIES = 5_000;
const RARE_QUERY_SEED = 42;
const NAIVE_SAMPLES = 3;
/** Queries tried for the infix-tier deep page: common letters and bigrams of names. */
const INFIX_CANDIDATES = ["a", "n", "r", "i", "o", "l", "s", "t", "er", "an", "on", "en", "in", "ar", "el", "or"];
export const REPLICA_SUFFIX = ", replica cursor";

interface SearchCase {
  name: string;
  q: string;
  type: EntityType | undefined;
  /** The page reached (smaller than asked when the results end first) and its cursor. */
  page: number;
  cursor: string | undefined;
  matches: number;
}

export function runSearch(data: GraphData, replica: Graph, options: { timeMs: number; goals: boolean }): SearchResults {
  const graph = data.graph;
  const naive = data.naiveSearch();
  const typeFilter = secondMostFrequentType(graph);
  const rareQuery = findRareQuery(data, typeFilter);
  const cases: SearchCase[] = [];
  for (const type of [undefined, typeFilter]) {
    const label = type === undefined ? "" : ` type=${type}`;
    const common = naive.count(COMMON_QUERY, type);
    cases.push(makeCase(graph, `q="${COMMON_QUERY}"${label}`, COMMON_QUERY, type, 1, common));
    cases.push(makeCase(graph, `q="${COMMON_QUERY}"${label}`, COMMON_QUERY, type, DEEP_SEARCH_PAGE, common));
    if (rareQuery !== undefined)
      cases.push(makeCase(graph, `rare q${label}`, rareQuery, type, 1, naive.count(rareQuery, type)));
  }
  const infix = infixDeepQuery(data);
  if (infix !== undefined)
    cases.push(makeCase(graph, `infix tier q="${infix.q}"`, infix.q, undefined, DEEP_SEARCH_PAGE, infix.matches));

  const rows: LatencyRow[] = [];
  const disagreements: string[] = [];
  for (const c of cases) {
    progress(`search: ${c.name}`);
    const params: SearchParams = {
      q: c.q,
      type: c.type,
      limit: SEARCH_LIMIT,
      ...(c.cursor === undefined ? {} : { cursor: c.cursor }),
    };
    const offset = (c.page - 1) * SEARCH_LIMIT;
    const detail = `page ${count(c.page)}, ${count(c.matches)} matches`;
    const row = (impl: LatencyRow["impl"], name: string, samples: number[], extra = ""): LatencyRow => ({
      kind: "repeated",
      endpoint: "search",
      case: name,
      impl,
      detail: detail + extra,
      page: c.page,
      ...summarize(samples),
    });
    rows.push(
      row(
        "quiver",
        c.name,
        timeRepeated(() => graph.search(params), { timeMs: options.timeMs }),
      ),
    );
    if (c.cursor !== undefined)
      rows.push(
        row(
          "quiver",
          c.name + REPLICA_SUFFIX,
          timeRepeated(() => replica.search(params), { timeMs: options.timeMs }),
          ", key placed",
        ),
      );
    const naivePage = () => naive.page(c.q, c.type, offset, SEARCH_LIMIT);
    rows.push(row("naive scan", c.name, timeRepeated(naivePage, { timeMs: 0, minSamples: NAIVE_SAMPLES, warmup: 1 })));
    // The naive page is the reference; the replica must agree with the graph that issued the cursor.
    const mine = graph
      .search(params)
      .items.map((e) => e.entityId)
      .join("\n");
    if (
      mine !==
      naivePage()
        .map((e) => e.entityId)
        .join("\n")
    )
      disagreements.push(c.name);
    if (
      c.cursor !== undefined &&
      mine !==
        replica
          .search(params)
          .items.map((e) => e.entityId)
          .join("\n")
    )
      disagreements.push(c.name + REPLICA_SUFFIX);
  }
  const results: SearchResults = {
    typeFilter,
    rareQuery: rareQuery ?? null,
    infixQuery: infix?.q ?? null,
    rows,
    disagreements,
  };
  printSearch(results, options.goals);
  return results;
}

/**
 * Walks to `page` by following nextCursor; stops early at the last page, and names the case by the
 * page reached ("rare q" is always one page 1).
 */
function makeCase(
  graph: Graph,
  label: string,
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
  const name = label.startsWith("rare") ? label : `${label} page ${count(reached)}${reached < page ? " (last)" : ""}`;
  return { name, q, type, page: reached, cursor, matches };
}

function secondMostFrequentType(graph: Graph): EntityType {
  const order = (Object.entries(graph.stats().entitiesByType) as [EntityType, number][])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return (order[1] ?? order[0] ?? ["0"])[0];
}

/**
 * A substring of some identifier of type `type` that matches 1..RARE_MATCHES_MAX entities in all
 * (so it matches with and without the filter). Deterministic for a given graph.
 */
function findRareQuery(data: GraphData, type: EntityType): string | undefined {
  const rand = mulberry32(RARE_QUERY_SEED);
  const entities = data.entities;
  for (const length of RARE_QUERY_LENGTHS) {
    for (let attempt = 0; attempt < RARE_QUERY_TRIES; attempt++) {
      const e = entities[Math.floor(rand() * entities.length)];
      if (e === undefined || e.type !== type) continue;
      const raw = e.rawIdentifier;
      if (raw.length < length) continue;
      const start = Math.floor(rand() * (raw.length - length + 1));
      const q = raw.slice(start, start + length);
      // No cut surrogate pair, no blank at either end: a query a person would type.
      if (/^[\udc00-\udfff]|[\ud800-\udbff]$|^\s|\s$/.test(q)) continue;
      const page = data.graph.search({ q, limit: RARE_MATCHES_MAX + 1 });
      if (page.items.length >= 1 && page.items.length <= RARE_MATCHES_MAX && page.nextCursor === null) return q;
    }
  }
  // Every substring tried matches more than a few entities (tiny or very repetitive data).
  return undefined;
}

/** The candidate with most matches whose page DEEP_SEARCH_PAGE lies wholly in the infix tier. */
function infixDeepQuery(data: GraphData): { q: string; matches: number } | undefined {
  const from = (DEEP_SEARCH_PAGE - 1) * SEARCH_LIMIT;
  const to = DEEP_SEARCH_PAGE * SEARCH_LIMIT;
  let best: { q: string; matches: number } | undefined;
  for (const q of INFIX_CANDIDATES) {
    const { all, exactOrPrefix } = data.naiveSearch().tierCounts(q);
    if (exactOrPrefix < from && all >= to && (best === undefined || all > best.matches)) best = { q, matches: all };
  }
  return best;
}

function printSearch(r: SearchResults, goals: boolean): void {
  heading(`Search, repeated queries (one query timed many times), limit ${SEARCH_LIMIT}, µs`);
  const quiver = r.rows.filter((x) => x.impl === "quiver");
  printTable(
    [
      { header: "case" },
      { header: "p50 µs" },
      { header: "p99 µs" },
      // The goal's verdict only with --goals.
      ...(goals ? [{ header: `≤ ${SEARCH_P50_GOAL_US}` }] : []),
      { header: "naive p50 µs" },
    ],
    quiver.map((x) => {
      const base = r.rows.find((b) => b.impl === "naive scan" && b.case === x.case);
      return [
        x.case,
        num(x.p50us),
        num(x.p99us),
        ...(goals ? [x.p50us <= SEARCH_P50_GOAL_US ? "pass" : "FAIL"] : []),
        base ? num(base.p50us) : "",
      ];
    }),
  );
  console.log(
    `type filter: the second most frequent type; rare q ${r.rareQuery === null ? "(none found)" : JSON.stringify(r.rareQuery)}`,
  );
  if (r.disagreements.length > 0) console.log(`DISAGREEMENTS with the naive scan: ${r.disagreements.join("; ")}`);
}

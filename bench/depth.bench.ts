/**
 * Latency against page depth
 * ==========================
 * The claim, at a glance: with keyset cursors the cost of a page does not grow with its number,
 * while the baselines, paging by offset, pay for every item before the page. One query per
 * endpoint, its pages at DEPTH_PAGES (those that exist), each page timed as a repeated query
 * (bench/sample.ts: timeRepeated; its cursor got by walking the pages before it, untimed):
 *  - search q = COMMON_QUERY ("e": most names have one), limit 20: Quiver and the naive scan;
 *  - statements with no filter (every statement), limit 50: Quiver and the Map store.
 * The naive scan costs a full scan and sort whatever the page; the Map store skips `offset`
 * statements. Both are slow, so they take BASELINE_SAMPLES samples per page.
 *
 * Cost: walking to the deepest page (10,000 calls), DEPTH_TIME_MS per Quiver page, and
 * BASELINE_SAMPLES full scans per search page of the baseline.
 */

import { count, heading, num, printTable, progress } from "./format.js";
import type { GraphData } from "./graph-data.js";
import type { DepthPoint, DepthResults, DepthSeries } from "./results.js";
import { summarize, timeRepeated } from "./sample.js";
import { COMMON_QUERY, SEARCH_LIMIT } from "./search.bench.js";
import { STATEMENTS_LIMIT } from "./statements.bench.js";

export const DEPTH_PAGES: readonly number[] = [1, 10, 100, 1_000, 10_000];
const DEPTH_TIME_MS = 200;
const BASELINE_SAMPLES = 3;

interface Walker {
  /** The cursor of `page` (undefined for page 1), or null when the results end before it. */
  cursorOf(page: number): string | undefined | null;
}

/** Follows nextCursor from page 1, remembering the cursor of each page in `pages`. */
function walk(pages: readonly number[], next: (cursor: string | undefined) => string | null): Walker {
  const cursors = new Map<number, string | undefined>([[1, undefined]]);
  let cursor: string | undefined;
  const last = pages[pages.length - 1] ?? 1;
  for (let page = 1; page < last; page++) {
    const n = next(cursor);
    if (n === null) break;
    cursor = n;
    if (pages.includes(page + 1)) cursors.set(page + 1, cursor);
  }
  return { cursorOf: (page) => (cursors.has(page) ? cursors.get(page) : null) };
}

export function runDepth(data: GraphData): DepthResults {
  const graph = data.graph;
  const series: DepthSeries[] = [];
  const point = (page: number, samples: number[]): DepthPoint => {
    const s = summarize(samples);
    return { page, p50us: s.p50us, p99us: s.p99us, samples: s.samples };
  };

  progress(`depth: search q="${COMMON_QUERY}"`);
  const search = walk(
    DEPTH_PAGES,
    (cursor) => graph.search({ q: COMMON_QUERY, limit: SEARCH_LIMIT, cursor }).nextCursor,
  );
  const searchPages = DEPTH_PAGES.filter((p) => search.cursorOf(p) !== null);
  const naive = data.naiveSearch();
  series.push(
    {
      name: `search q="${COMMON_QUERY}"`,
      impl: "quiver",
      endpoint: "search",
      points: searchPages.map((page) => {
        const cursor = search.cursorOf(page) ?? undefined;
        return point(
          page,
          timeRepeated(() => graph.search({ q: COMMON_QUERY, limit: SEARCH_LIMIT, cursor }), { timeMs: DEPTH_TIME_MS }),
        );
      }),
    },
    {
      name: `search q="${COMMON_QUERY}"`,
      impl: "naive scan",
      endpoint: "search",
      points: searchPages.map((page) =>
        point(
          page,
          timeRepeated(() => naive.page(COMMON_QUERY, undefined, (page - 1) * SEARCH_LIMIT, SEARCH_LIMIT), {
            timeMs: 0,
            minSamples: BASELINE_SAMPLES,
            warmup: 1,
          }),
        ),
      ),
    },
  );

  progress("depth: statements, no filter");
  const statements = walk(DEPTH_PAGES, (cursor) => graph.statements({ limit: STATEMENTS_LIMIT, cursor }).nextCursor);
  const statementPages = DEPTH_PAGES.filter((p) => statements.cursorOf(p) !== null);
  const map = data.mapStore();
  series.push(
    {
      name: "statements, no filter",
      impl: "quiver",
      endpoint: "statements",
      points: statementPages.map((page) => {
        const cursor = statements.cursorOf(page) ?? undefined;
        return point(
          page,
          timeRepeated(() => graph.statements({ limit: STATEMENTS_LIMIT, cursor }), { timeMs: DEPTH_TIME_MS }),
        );
      }),
    },
    {
      name: "statements, no filter",
      impl: "Map store",
      endpoint: "statements",
      points: statementPages.map((page) =>
        point(
          page,
          timeRepeated(() => map.page({}, (page - 1) * STATEMENTS_LIMIT, STATEMENTS_LIMIT), {
            timeMs: 0,
            minSamples: BASELINE_SAMPLES,
            warmup: 1,
          }),
        ),
      ),
    },
  );
  const results = { series };
  printDepth(results);
  return results;
}

function printDepth(r: DepthResults): void {
  heading("Latency against page depth (repeated query per page), p50 µs");
  const pages = [...new Set(r.series.flatMap((s) => s.points.map((p) => p.page)))].sort((a, b) => a - b);
  const columns = r.series.map((s) => ({ header: `${s.endpoint} ${s.impl === "quiver" ? "Quiver" : s.impl}` }));
  printTable(
    [{ header: "page" }, ...columns],
    pages.map((page) => [
      count(page),
      ...r.series.map((s) => {
        const p = s.points.find((x) => x.page === page);
        return p === undefined ? "" : num(p.p50us);
      }),
    ]),
  );
  console.log(`search: q="${COMMON_QUERY}", limit ${SEARCH_LIMIT}; statements: no filter, limit ${STATEMENTS_LIMIT}`);
}

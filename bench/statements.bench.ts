/**
 * Statements, repeated queries
 * ============================
 * Mirrors Graph.statements: one statements page (limit STATEMENTS_LIMIT, items built with the three
 * raw identifiers, cursor sealed) asked again and again (bench/sample.ts: timeRepeated), for every
 * filter shape of the contract (none, S, P, O, S+P, P+O, O+S, S+P+O), on the first page and on a
 * deep page (DEEP_STATEMENTS_PAGE, or the middle page of a smaller group; its cursor got by walking
 * the pages before it). Each deep page is timed twice: on the graph that issued the cursor (it
 * resumes at the position the cursor records), and on a replica, a graph built separately from the
 * same data with the same secret, where the cursor's key is placed by a search ("replica cursor"):
 * the path of a page that a load balancer sends to another process, or a graph reloaded since.
 * Repeated-query figures: the distinct-query stream (stream.bench.ts) is the headline.
 *
 * Filter values: each shape's heaviest group, found through the public API: graph.stats().heaviest
 * names the heaviest subject, predicate and object; the pairs and the triple come from walking the
 * statements of the HEAVY_CANDIDATES heaviest subjects and objects (at most WALK_CAP each) and
 * counting. Heavy groups are the ones with deep pages, and the worst case for the baselines.
 *
 * Baselines (bench/baselines/), paging by offset: the Map store (in the contract's order, so its
 * pages must equal Quiver's) and the N3.js Store (its own order; only page lengths are compared).
 * N3 needs about 2 KB a triple, so the baselines hold the first `baselineStatements` statements of
 * the file, read as a user would (readline, JSON.parse), and a Quiver graph of the same subset runs
 * beside them, with the subset's own heaviest groups. Each baseline is timed alone in the heap
 * (built, timed, dropped): beside N3's gigabytes of small objects the others would slow down.
 */

import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

import {
  loadGraph,
  type Statement,
  STATEMENTS_MAX_LIMIT,
  type Graph,
  type StatementInput,
  type StatementsParams,
} from "../src/index.js";
import type { Filter } from "./baselines/map-store.js";
import { MapStore } from "./baselines/map-store.js";
import { N3Baseline } from "./baselines/n3-store.js";
import type { DatasetFiles } from "./data.js";
import { count, heading, num, printTable, progress, secondsOf } from "./format.js";
import { STATEMENTS_P50_GOAL_US } from "./goals.js";
import type { GraphData } from "./graph-data.js";
import { heldBytes, measureHeld, type MemorySnapshot } from "./memory.js";
import type { Impl, LatencyRow, StatementsResults } from "./results.js";
import { REPLICA_SUFFIX } from "./search.bench.js";
import { summarize, timeRepeated } from "./sample.js";

export const STATEMENTS_LIMIT = 50;
export const DEEP_STATEMENTS_PAGE = 1_000;
export const SHAPES = ["none", "S", "P", "O", "S+P", "P+O", "O+S", "S+P+O"] as const;
export type Shape = (typeof SHAPES)[number];
const HEAVY_CANDIDATES = 5;
const WALK_CAP = 100_000;
/** The baselines are slow: a shorter budget each, and at least this many samples. */
const BASELINE_BUDGET = { timeMs: 300, minSamples: 10, warmup: 3 };

interface ShapeGroup {
  shape: Shape;
  filter: Filter;
  /** Statements in the group (a lower bound when a walk was capped). */
  matches: number;
}

interface PageCase {
  shape: Shape;
  depth: "first" | "deep";
  filter: Filter;
  page: number;
  matches: number;
  params: StatementsParams;
}

export async function runStatements(
  data: GraphData,
  replica: Graph,
  files: DatasetFiles,
  scratch: string,
  options: { timeMs: number; baselineStatements: number; cursorSecret: string; goals: boolean },
): Promise<StatementsResults> {
  const graph = data.graph;
  const rows: LatencyRow[] = [];
  for (const c of pageCases(graph)) {
    progress(`statements: ${caseName(c)}`);
    rows.push(
      row(
        c,
        "quiver",
        caseName(c),
        timeRepeated(() => graph.statements(c.params), { timeMs: options.timeMs }),
      ),
    );
    if (c.depth === "deep")
      rows.push(
        row(
          c,
          "quiver",
          caseName(c) + REPLICA_SUFFIX,
          timeRepeated(() => replica.statements(c.params), { timeMs: options.timeMs }),
        ),
      );
  }
  const notes: string[] = [];
  const { baselineRows, baseline } = await runBaselines(data, files, scratch, options, notes);
  const results: StatementsResults = { rows, baselineRows, baseline, notes };
  printStatements(results, options.goals);
  return results;
}

function caseName(c: Pick<PageCase, "shape" | "depth">): string {
  return `${c.shape} ${c.depth}`;
}

function row(c: PageCase, impl: Impl, name: string, samples: number[], data?: string): LatencyRow {
  const f = [c.filter.s && `s=${c.filter.s}`, c.filter.p && `p=${c.filter.p}`, c.filter.o && `o=${c.filter.o}`]
    .filter(Boolean)
    .join(" ");
  return {
    kind: "repeated",
    endpoint: "statements",
    case: name,
    impl,
    detail: `page ${count(c.page)} of ${count(Math.ceil(c.matches / STATEMENTS_LIMIT))}${f === "" ? "" : `, ${f}`}`,
    page: c.page,
    ...(data === undefined ? {} : { data }),
    ...summarize(samples),
  };
}

function paramsOf(f: Filter, cursor?: string, limit = STATEMENTS_LIMIT): StatementsParams {
  return {
    subjectEntityId: f.s,
    predicateEntityId: f.p,
    objectEntityId: f.o,
    limit,
    ...(cursor === undefined ? {} : { cursor }),
  };
}

/** A page's items as one comparable string. */
function statementKeys(items: readonly Statement[]): string {
  return items
    .map((x) => `${x.subjectEntityId} ${x.predicateEntityId} ${x.objectEntityId} ${x.statementFingerprint}`)
    .join("\n");
}

/** First and deep page of each shape's heaviest group (no deep page when the group fits in one). */
function pageCases(graph: Graph): PageCase[] {
  const cases: PageCase[] = [];
  for (const g of heaviestGroups(graph)) {
    cases.push({
      shape: g.shape,
      depth: "first",
      filter: g.filter,
      page: 1,
      matches: g.matches,
      params: paramsOf(g.filter),
    });
    // Deep: page DEEP_STATEMENTS_PAGE, or the middle page of a smaller group (not its last: the
    // baselines' groups can be a little smaller, N3 merging repeated triples).
    const fullPages = Math.floor(g.matches / STATEMENTS_LIMIT);
    if (fullPages < 2) continue;
    const want = Math.min(DEEP_STATEMENTS_PAGE, Math.max(2, Math.ceil(fullPages / 2)));
    let cursor: string | undefined;
    let page = 1;
    while (page < want) {
      const next = graph.statements(paramsOf(g.filter, cursor)).nextCursor;
      if (next === null) break;
      cursor = next;
      page++;
    }
    cases.push({
      shape: g.shape,
      depth: "deep",
      filter: g.filter,
      page,
      matches: g.matches,
      params: paramsOf(g.filter, cursor),
    });
  }
  return cases;
}

/** Each page of a filter's statements, at most `cap` statements in all. */
function* walkStatements(graph: Graph, f: Filter, cap: number): Generator<StatementInput> {
  let cursor: string | undefined;
  let seen = 0;
  while (seen < cap) {
    const page = graph.statements(paramsOf(f, cursor, STATEMENTS_MAX_LIMIT));
    for (const st of page.items) {
      yield st;
      if (++seen >= cap) return;
    }
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}

/** The most frequent key among `keys`, with its count. */
function mostFrequent(counts: Map<string, { filter: Filter; n: number }>): { filter: Filter; n: number } | undefined {
  let best: { filter: Filter; n: number } | undefined;
  for (const v of counts.values()) if (best === undefined || v.n > best.n) best = v;
  return best;
}

function tally(counts: Map<string, { filter: Filter; n: number }>, filter: Filter): void {
  const key = `${filter.s}\u0000${filter.p}\u0000${filter.o}`;
  const v = counts.get(key);
  if (v === undefined) counts.set(key, { filter, n: 1 });
  else v.n++;
}

/** The heaviest group of each shape, through stats() and walks of the heaviest entities' statements. */
function heaviestGroups(graph: Graph): ShapeGroup[] {
  const groups: ShapeGroup[] = [{ shape: "none", filter: {}, matches: graph.statementCount }];
  if (graph.statementCount === 0) return groups;
  const { subjects, predicates, objects } = graph.stats().heaviest;
  const s = subjects[0]!;
  const p = predicates[0]!;
  const o = objects[0]!;
  groups.push(
    { shape: "S", filter: { s: s.entityId }, matches: s.statements },
    { shape: "P", filter: { p: p.entityId }, matches: p.statements },
    { shape: "O", filter: { o: o.entityId }, matches: o.statements },
  );
  const sp = new Map<string, { filter: Filter; n: number }>();
  const spo = new Map<string, { filter: Filter; n: number }>();
  for (const heavy of subjects.slice(0, HEAVY_CANDIDATES)) {
    for (const st of walkStatements(graph, { s: heavy.entityId }, WALK_CAP)) {
      tally(sp, { s: st.subjectEntityId, p: st.predicateEntityId });
      tally(spo, { s: st.subjectEntityId, p: st.predicateEntityId, o: st.objectEntityId });
    }
  }
  const po = new Map<string, { filter: Filter; n: number }>();
  const os = new Map<string, { filter: Filter; n: number }>();
  for (const heavy of objects.slice(0, HEAVY_CANDIDATES)) {
    for (const st of walkStatements(graph, { o: heavy.entityId }, WALK_CAP)) {
      tally(po, { p: st.predicateEntityId, o: st.objectEntityId });
      tally(os, { o: st.objectEntityId, s: st.subjectEntityId });
    }
  }
  for (const [shape, counts] of [
    ["S+P", sp],
    ["P+O", po],
    ["O+S", os],
    ["S+P+O", spo],
  ] as const) {
    const best = mostFrequent(counts);
    if (best !== undefined) groups.push({ shape, filter: best.filter, matches: best.n });
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------
// Baselines

async function runBaselines(
  data: GraphData,
  files: DatasetFiles,
  scratch: string,
  options: { baselineStatements: number; cursorSecret: string },
  notes: string[],
): Promise<Pick<StatementsResults, "baselineRows" | "baseline">> {
  const cap = options.baselineStatements;
  if (cap <= 0) return { baselineRows: [], baseline: null };
  const subsetFile = join(scratch, "baseline-statements.jsonl");
  progress(`statements baselines: reading the first ${count(cap)} statements`);
  const { statements, truncated } = await readSubset(files.statements, cap, subsetFile);
  const what = truncated
    ? `the first ${count(statements.length)} statements`
    : `all ${count(statements.length)} statements`;

  // Quiver's graph of the subset first: built beside N3's millions of objects, its GCs would walk them.
  const started = performance.now();
  const subsetGraph = truncated
    ? await loadGraph({ entities: files.entities, statements: subsetFile, cursorSecret: options.cursorSecret })
    : data.graph;
  const quiverBuildMs = truncated ? performance.now() - started : 0;
  const cases = pageCases(subsetGraph);
  const baselineRows: LatencyRow[] = [];
  const quiverPages = new Map<PageCase, Statement[]>();
  for (const c of cases) {
    progress(`statements beside the baselines: Quiver, ${caseName(c)}`);
    baselineRows.push(
      row(
        c,
        "quiver",
        caseName(c),
        timeRepeated(() => subsetGraph.statements(c.params), BASELINE_BUDGET),
        what,
      ),
    );
    quiverPages.set(c, subsetGraph.statements(c.params).items);
  }

  // Each baseline alone in the heap: built, timed, checked, dropped. (Beside N3's two gigabytes of
  // small objects, the Map store's scattered rows cost many times more: that would measure N3.)
  const map = await timeStore(
    "Map store",
    () => new MapStore(statements, data.names),
    cases,
    what,
    true,
    (c, page) => {
      if (statementKeys(page) !== statementKeys(quiverPages.get(c)!))
        notes.push(`${caseName(c)}: the Map store's page differs from Quiver's`);
    },
  );
  // No full GC per case for N3: with its objects in the heap each takes seconds.
  const n3 = await timeStore(
    "N3 Store",
    () => new N3Baseline(statements, data.names),
    cases,
    what,
    false,
    (c, page) => {
      const mine = quiverPages.get(c)!.length;
      if (page.length !== mine)
        notes.push(`${caseName(c)}: N3's page has ${page.length} items, Quiver's ${mine} (N3 merges repeated triples)`);
    },
  );
  baselineRows.push(...map.rows, ...n3.rows);
  return {
    baselineRows,
    baseline: {
      statements: statements.length,
      subset: truncated,
      mapBuildMs: map.buildMs,
      mapHeldBytes: heldBytes(map.held),
      n3BuildMs: n3.buildMs,
      n3HeldBytes: heldBytes(n3.held),
      quiverBuildMs,
    },
  };
}

/** A baseline store: a page by offset. */
interface OffsetStore {
  page(f: Filter, offset: number, limit: number): Statement[];
}

/** Builds a store (its memory measured), times every case on it, checks each page; the store is dropped on return. */
async function timeStore(
  impl: Impl,
  make: () => OffsetStore,
  cases: readonly PageCase[],
  what: string,
  gcEachCase: boolean,
  check: (c: PageCase, page: Statement[]) => void,
): Promise<{ rows: LatencyRow[]; buildMs: number; held: MemorySnapshot }> {
  const started = performance.now();
  const { value: store, held } = await measureHeld(make);
  const buildMs = performance.now() - started;
  progress(`${impl} of ${what}: built in ${secondsOf(buildMs)} s`);
  const rows = cases.map((c) => {
    const page = () => store.page(c.filter, (c.page - 1) * STATEMENTS_LIMIT, STATEMENTS_LIMIT);
    const r = row(c, impl, caseName(c), timeRepeated(page, { ...BASELINE_BUDGET, gc: gcEachCase }), what);
    check(c, page());
    return r;
  });
  return { rows, buildMs, held };
}

/**
 * The first `cap` statements of the file, read as a user would (readline, JSON.parse). When the file
 * holds more, the subset is also written to `subsetFile` for Quiver's own graph of it.
 */
async function readSubset(
  path: string,
  cap: number,
  subsetFile: string,
): Promise<{ statements: StatementInput[]; truncated: boolean }> {
  const statements: StatementInput[] = [];
  const kept: string[] = [];
  let truncated = false;
  const input = createReadStream(path);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      if (statements.length === cap) {
        truncated = true;
        break;
      }
      statements.push(JSON.parse(line) as StatementInput);
      kept.push(line);
    }
  } finally {
    // Leaving early: close the file too, not only the line reader.
    lines.close();
    input.destroy();
  }
  if (truncated) {
    const out = createWriteStream(subsetFile);
    const BATCH = 10_000;
    for (let i = 0; i < kept.length; i += BATCH) {
      if (!out.write(`${kept.slice(i, i + BATCH).join("\n")}\n`)) await once(out, "drain");
    }
    out.end();
    await once(out, "close");
  }
  return { statements, truncated };
}

function printStatements(r: StatementsResults, goals: boolean): void {
  heading(`Statements, repeated queries (one query timed many times), limit ${STATEMENTS_LIMIT}, p50 µs`);
  const p50 = (name: string, rows = r.rows, impl: Impl = "quiver") =>
    rows.find((x) => x.case === name && x.impl === impl)?.p50us;
  printTable(
    [
      { header: "filter" },
      { header: "first page" },
      { header: "deep page" },
      { header: "deep, replica cursor" },
      // The goal's verdict only with --goals.
      ...(goals ? [{ header: `≤ ${STATEMENTS_P50_GOAL_US}` }] : []),
    ],
    SHAPES.filter((s) => p50(`${s} first`) !== undefined).map((shape) => {
      const cells = [p50(`${shape} first`), p50(`${shape} deep`), p50(`${shape} deep${REPLICA_SUFFIX}`)];
      const measured = cells.filter((x): x is number => x !== undefined);
      const verdict = measured.every((x) => x <= STATEMENTS_P50_GOAL_US) ? "pass" : "FAIL";
      return [shape, ...cells.map((x) => num(x)), ...(goals ? [verdict] : [])];
    }),
  );
  if (r.baseline === null) return;
  const b = r.baseline;
  heading(
    `Statements beside the baselines on ${b.subset ? "the first " : "all "}${count(b.statements)} statements (repeated), p50 µs`,
  );
  const names = [...new Set(r.baselineRows.map((x) => x.case))];
  printTable(
    [{ header: "case" }, { header: "Quiver" }, { header: "Map store" }, { header: "N3 Store" }],
    names.map((name) => [
      name,
      num(p50(name, r.baselineRows, "quiver")),
      num(p50(name, r.baselineRows, "Map store")),
      num(p50(name, r.baselineRows, "N3 Store")),
    ]),
  );
  console.log(
    `built in s (MiB held): Map ${secondsOf(b.mapBuildMs)} (${num(b.mapHeldBytes / 2 ** 20, 0)}), N3 ${secondsOf(b.n3BuildMs)} (${num(b.n3HeldBytes / 2 ** 20, 0)})${b.subset ? `, Quiver ${secondsOf(b.quiverBuildMs)}` : ""}`,
  );
  for (const n of r.notes.slice(0, 5)) console.log(`note: ${n}`);
}

/**
 * Statements benchmark
 * ====================
 * Latency of one statements page (limit STATEMENTS_LIMIT, items built with the three raw
 * identifiers, cursor sealed) through `Graph.statements`, the call the HTTP adapter makes, for every
 * filter shape of the contract (none, S, P, O, S+P, P+O, O+S, S+P+O), on the first page and on a
 * deep page (DEEP_STATEMENTS_PAGE, or the middle page of a smaller group; its cursor is taken by
 * walking the pages before it, as a client would). Each deep page is timed twice: on the graph that
 * issued the cursor (which remembers the cursors it issued lately and skips their HMAC check), and
 * on a replica (same data and secret, its own memory of cursors), which checks the HMAC: a
 * "cold cursor", as after a load balancer sends the next page elsewhere.
 *
 * Filter values: for each shape, the heaviest group of the data (the subject with most statements,
 * the (predicate, object) pair with most, ...), found by one pass over each index order. Heavy
 * groups are the ones with deep pages, and the worst case for the baselines.
 *
 * Baselines, what users would pick instead, each paging the way its user would (by offset, in its
 * own order, since neither keeps the contract's sort order):
 *  - N3.js Store (`n3`): the triples as NamedNode quads in the default graph; page k =
 *    `store.readQuads(s, p, o, null)` (a lazy iterator over N3's index for the bound terms),
 *    skip (k - 1) * limit, take limit. N3 holds triples, not statements: the fingerprint of an item
 *    is derived from its triple (Quiver's rule when none is given), and repeated triples merge.
 *  - A hand-rolled Map from entityId to its statement objects, one Map per role plus the array of
 *    all statements: take the shortest list among the bound roles, filter by the others, skip,
 *    take.
 * N3 needs about 1.7 KB a triple (measured: 1M triples = 1.7 GB of heap, 16 s to load), so 10M do
 * not fit: the baselines hold the first `baselineStatements` statements of the file, and a Quiver
 * graph of the same subset runs beside them, with the subset's own heaviest groups.
 *
 * Goal (the issue's, at 10M statements): p50 <= STATEMENTS_GOAL_US for every Quiver case.
 */

import { graphParts } from "../src/engine/internal.js";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

import N3 from "n3";
import { Bench } from "tinybench";

import { deriveFingerprint } from "../src/engine/fingerprint.js";
import { Graph } from "../src/engine/graph.js";
import type { Statement, StatementInput, StatementsParams } from "../src/engine/types.js";
import { loadGraph } from "../src/load/jsonl.js";
import {
  latencyRow,
  latencyTable,
  memoryDelta,
  mib,
  seconds,
  settledMemory,
  sink,
  thousands,
  type GoalCheck,
  type LatencyRow,
} from "./report.js";

export const STATEMENTS_LIMIT = 50;
export const DEEP_STATEMENTS_PAGE = 1_000;
export const STATEMENTS_GOAL_US = 10;
/** Baseline tasks are slow: a shorter budget, and at least this many runs. */
const BASELINE_TIME_MS = 300;
const BASELINE_MIN_ITERATIONS = 10;

export const SHAPES = ["none", "S", "P", "O", "S+P", "P+O", "O+S", "S+P+O"] as const;
export type Shape = (typeof SHAPES)[number];

interface Filter {
  s?: string;
  p?: string;
  o?: string;
}

interface ShapeGroup {
  shape: Shape;
  filter: Filter;
  matches: number;
}

interface PageCase {
  shape: Shape;
  depth: "first" | "deep";
  filter: Filter;
  /** Page number (1-based) and its offset for the baselines. */
  page: number;
  matches: number;
}

export interface BaselineInfo {
  statements: number;
  subsetOfTotal: boolean;
  readMs: number;
  mapBuildMs: number;
  mapHeapBytes: number;
  n3BuildMs: number;
  n3HeapBytes: number;
  quiverSubsetBuildMs: number | null;
}

export interface StatementsReport {
  rows: LatencyRow[];
  baselineRows: LatencyRow[];
  baseline: BaselineInfo | null;
  /** Baseline pages whose length differed from Quiver's (expected only where N3 merges triples). */
  notes: string[];
}

export async function runStatements(
  graph: Graph,
  files: { entities: string; statements: string },
  options: { timeMs: number; baselineStatements: number; scratchDir: string },
): Promise<StatementsReport> {
  console.log(`\n## Statements page (limit ${STATEMENTS_LIMIT}) on ${thousands(graph.statementCount)} statements`);
  const cases = pageCases(graph);
  // A replica: the same data and (process-wide default) secret, its own cursor codec. Cursors the
  // main graph issued are not among the replica's recently issued ones, so it checks their HMAC:
  // the path of a cursor that comes back to another replica, or after many others were issued.
  const replica = new Graph(graphParts(graph));
  const bench = new Bench({
    name: `Quiver statements page (limit ${STATEMENTS_LIMIT}), full data`,
    time: options.timeMs,
    warmupTime: 100,
    warmupIterations: 50,
  });
  const named: { name: string; c: PageCase }[] = [];
  for (const c of cases) {
    const params = quiverParams(graph, c);
    bench.add(
      caseName(c),
      () => {
        sink.value += graph.statements(params).items.length;
      },
      { async: false },
    );
    named.push({ name: caseName(c), c });
    if (c.depth === "deep") {
      const cold = `${caseName(c)}${COLD_SUFFIX}`;
      bench.add(
        cold,
        () => {
          sink.value += replica.statements(params).items.length;
        },
        { async: false },
      );
      named.push({ name: cold, c });
    }
  }
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());
  const rows = named.map(({ name, c }) =>
    latencyRow(bench, name, { case: name, impl: "quiver", detail: caseDetail(c) }),
  );
  console.log(
    `\nstatements page latency, full data (${thousands(graph.statementCount)} statements); "${COLD_SUFFIX.trim()}": the cursor's HMAC is checked (see the banner)`,
  );
  console.table(latencyTable(rows, STATEMENTS_GOAL_US));

  const notes: string[] = [];
  const { baselineRows, baseline } = await runBaselines(graph, files, options, notes);
  return { rows, baselineRows, baseline, notes };
}

export function statementsGoals(report: StatementsReport): GoalCheck[] {
  const warm = report.rows.filter((r) => !r.case.endsWith(COLD_SUFFIX));
  const cold = report.rows.filter((r) => r.case.endsWith(COLD_SUFFIX));
  const worst = (rows: LatencyRow[]) => rows.reduce((a, b) => (b.p50us > a.p50us ? b : a));
  const checks: GoalCheck[] = [
    {
      goal: `statements page p50 ≤ ${STATEMENTS_GOAL_US} µs (8 filter shapes × first and deep page)`,
      measured: `worst ${worst(warm).p50us.toFixed(1)} µs (${worst(warm).case}); median of cases ${median(warm.map((r) => r.p50us)).toFixed(1)} µs`,
      pass: warm.every((r) => r.p50us <= STATEMENTS_GOAL_US),
      note: "deep pages with a cursor this graph issued lately (a client walking pages)",
    },
  ];
  if (cold.length > 0) {
    checks.push({
      goal: `extra: statements deep page p50 ≤ ${STATEMENTS_GOAL_US} µs, cursor from a replica`,
      measured: `worst ${worst(cold).p50us.toFixed(1)} µs (${worst(cold).case}); median ${median(cold.map((r) => r.p50us)).toFixed(1)} µs`,
      pass: cold.every((r) => r.p50us <= STATEMENTS_GOAL_US),
      note: "the cursor's HMAC is checked: another replica, or a cursor reused after many others",
    });
  }
  return checks;
}

/** Marks the deep-page variant whose cursor the answering graph did not issue itself. */
const COLD_SUFFIX = ", cold cursor";

// ---------------------------------------------------------------------------------------------
// Cases

function caseName(c: PageCase): string {
  return `${c.shape} ${c.depth}`;
}

function caseDetail(c: PageCase): string {
  const f = [c.filter.s && `s=${c.filter.s}`, c.filter.p && `p=${c.filter.p}`, c.filter.o && `o=${c.filter.o}`]
    .filter(Boolean)
    .join(" ");
  return `page ${thousands(c.page)} of ${thousands(Math.ceil(c.matches / STATEMENTS_LIMIT))}${f === "" ? "" : `, ${f}`}`;
}

/** First and deep page of each shape's heaviest group (no deep page when the group fits in one). */
function pageCases(graph: Graph): PageCase[] {
  const cases: PageCase[] = [];
  for (const g of heaviestGroups(graph)) {
    cases.push({ shape: g.shape, depth: "first", filter: g.filter, page: 1, matches: g.matches });
    // Deep: page DEEP_STATEMENTS_PAGE, or the middle page of a smaller group (not its last: the
    // baselines' groups can be a little smaller, N3 merging repeated triples).
    const fullPages = Math.floor(g.matches / STATEMENTS_LIMIT);
    if (fullPages >= 2)
      cases.push({
        shape: g.shape,
        depth: "deep",
        filter: g.filter,
        page: Math.min(DEEP_STATEMENTS_PAGE, Math.max(2, Math.ceil(fullPages / 2))),
        matches: g.matches,
      });
    else console.log(`(${g.shape}: the heaviest group has ${g.matches} statements, one page: no deep page)`);
  }
  return cases;
}

/** The request for a case's page, with the cursor got by walking the pages before it. */
function quiverParams(graph: Graph, c: PageCase): StatementsParams {
  const params: StatementsParams = {
    subjectEntityId: c.filter.s,
    predicateEntityId: c.filter.p,
    objectEntityId: c.filter.o,
    limit: STATEMENTS_LIMIT,
  };
  for (let page = 1; page < c.page; page++) {
    const next = graph.statements(params).nextCursor;
    if (next === null) throw new Error(`${caseName(c)}: the results ended at page ${page}, before page ${c.page}`);
    params.cursor = next;
  }
  return params;
}

/**
 * The heaviest group of each shape, from one pass over each index order of the graph's statement
 * columns (read only to choose filters; every timed call goes through Graph.statements).
 */
function heaviestGroups(graph: Graph): ShapeGroup[] {
  const st = graphParts(graph).statementIndex;
  const ids = graphParts(graph).dictionary.ids;
  const m = st.length;
  const name = (id: number | undefined) => ids[id as number] as string;
  // SPO order gives S, S+P, S+P+O; POS gives P, P+O; OSP gives O, O+S.
  const [rs, rsp, rspo] = longestRuns(m, null, [st.subject, st.predicate, st.object]) as [Run, Run, Run];
  const [rp, rpo] = longestRuns(m, st.pos.rows, [st.predicate, st.object]) as [Run, Run];
  const [ro, ros] = longestRuns(m, st.osp.rows, [st.object, st.subject]) as [Run, Run];
  const S = (r: Run) => name(st.subject[r.row]);
  const P = (r: Run) => name(st.predicate[r.row]);
  const O = (r: Run) => name(st.object[r.row]);
  const groups: ShapeGroup[] = [{ shape: "none", filter: {}, matches: m }];
  if (m === 0) return groups;
  groups.push(
    { shape: "S", filter: { s: S(rs) }, matches: rs.length },
    { shape: "P", filter: { p: P(rp) }, matches: rp.length },
    { shape: "O", filter: { o: O(ro) }, matches: ro.length },
    { shape: "S+P", filter: { s: S(rsp), p: P(rsp) }, matches: rsp.length },
    { shape: "P+O", filter: { p: P(rpo), o: O(rpo) }, matches: rpo.length },
    { shape: "O+S", filter: { o: O(ros), s: S(ros) }, matches: ros.length },
    { shape: "S+P+O", filter: { s: S(rspo), p: P(rspo), o: O(rspo) }, matches: rspo.length },
  );
  return groups;
}

interface Run {
  row: number;
  length: number;
}

/**
 * For each key prefix length k = 1..cols.length, the longest run of positions (in the order given
 * by `rows`, or row order when null) whose first k columns are equal.
 */
function longestRuns(m: number, rows: Uint32Array | null, cols: readonly Uint32Array[]): Run[] {
  const levels = cols.length;
  const start = new Array<number>(levels).fill(0);
  const best: Run[] = Array.from({ length: levels }, () => ({ row: 0, length: 0 }));
  let prev = -1;
  for (let pos = 0; pos <= m; pos++) {
    const row = pos === m ? -1 : rows === null ? pos : (rows[pos] as number);
    let same = 0;
    if (row >= 0 && prev >= 0)
      while (same < levels && (cols[same] as Uint32Array)[row] === (cols[same] as Uint32Array)[prev]) same++;
    // Runs of prefixes longer than `same` end here.
    for (let k = same; k < levels; k++) {
      const length = pos - (start[k] as number);
      if (prev >= 0 && length > (best[k] as Run).length) best[k] = { row: prev, length };
      start[k] = pos;
    }
    prev = row;
  }
  return best;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : ((s[Math.floor((s.length - 1) / 2)] as number) + (s[Math.ceil((s.length - 1) / 2)] as number)) / 2;
}

// ---------------------------------------------------------------------------------------------
// Baselines

async function runBaselines(
  graph: Graph,
  files: { entities: string; statements: string },
  options: { timeMs: number; baselineStatements: number; scratchDir: string },
  notes: string[],
): Promise<{ baselineRows: LatencyRow[]; baseline: BaselineInfo | null }> {
  const cap = options.baselineStatements;
  if (cap <= 0) return { baselineRows: [], baseline: null };
  const subsetFile = join(options.scratchDir, "baseline-statements.jsonl");
  let started = performance.now();
  const data = await readBaselineData(files, cap, subsetFile);
  const readMs = performance.now() - started;
  const what = data.truncated
    ? `the first ${thousands(data.statements.length)} of the statements (N3 cannot hold them all)`
    : `all ${thousands(data.statements.length)} statements`;
  console.log(`\n## Baselines on ${what}, with a Quiver graph of the same data beside them`);
  console.log(`read with readline + JSON.parse in ${seconds(readMs)}`);

  // Quiver's subset graph first: loaded beside N3's gigabytes of small objects, every GC of the
  // load would walk them, and the load time would say more about N3 than about Quiver.
  let subsetGraph = graph;
  let quiverSubsetBuildMs: number | null = null;
  if (data.truncated) {
    started = performance.now();
    subsetGraph = await loadGraph({ entities: files.entities, statements: subsetFile });
    quiverSubsetBuildMs = performance.now() - started;
    console.log(`Quiver graph of the subset: loaded in ${seconds(quiverSubsetBuildMs)}`);
  }

  let m0 = await settledMemory();
  started = performance.now();
  const map = new MapBaseline(data.names, data.statements);
  const mapBuildMs = performance.now() - started;
  const mapHeapBytes = memoryDelta(m0, await settledMemory()).heapUsed;

  m0 = await settledMemory();
  started = performance.now();
  const n3 = new N3Baseline(data.names, data.statements);
  const n3BuildMs = performance.now() - started;
  const n3HeapBytes = memoryDelta(m0, await settledMemory()).heapUsed;
  console.log(
    `Map baseline: built in ${seconds(mapBuildMs)}, ${mib(mapHeapBytes)} of heap; N3 Store: ${thousands(n3.size)} triples, built in ${seconds(n3BuildMs)}, ${mib(n3HeapBytes)} of heap`,
  );

  const cases = pageCases(subsetGraph);
  const bench = new Bench({
    name: `statements page (limit ${STATEMENTS_LIMIT}) on ${thousands(data.statements.length)} statements: Quiver, Map, N3`,
    time: BASELINE_TIME_MS,
    iterations: BASELINE_MIN_ITERATIONS,
    warmupTime: 50,
    warmupIterations: 3,
  });
  for (const c of cases) {
    const params = quiverParams(subsetGraph, c);
    const offset = (c.page - 1) * STATEMENTS_LIMIT;
    const expected = subsetGraph.statements(params).items.length;
    bench.add(
      `quiver ${caseName(c)}`,
      () => {
        sink.value += subsetGraph.statements(params).items.length;
      },
      { async: false },
    );
    bench.add(
      `Map ${caseName(c)}`,
      () => {
        sink.value += map.page(c.filter, offset, STATEMENTS_LIMIT).length;
      },
      { async: false },
    );
    bench.add(
      `n3 ${caseName(c)}`,
      () => {
        sink.value += n3.page(c.filter, offset, STATEMENTS_LIMIT).length;
      },
      { async: false },
    );
    const mapCount = map.page(c.filter, offset, STATEMENTS_LIMIT).length;
    const n3Count = n3.page(c.filter, offset, STATEMENTS_LIMIT).length;
    if (mapCount !== expected) notes.push(`${caseName(c)}: Map page has ${mapCount} items, Quiver's ${expected}`);
    if (n3Count !== expected)
      notes.push(`${caseName(c)}: N3 page has ${n3Count} items, Quiver's ${expected} (N3 merges repeated triples)`);
  }
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());

  const baselineRows: LatencyRow[] = [];
  for (const c of cases) {
    const detail = caseDetail(c);
    baselineRows.push(latencyRow(bench, `quiver ${caseName(c)}`, { case: caseName(c), impl: "quiver", detail }));
    baselineRows.push(latencyRow(bench, `Map ${caseName(c)}`, { case: caseName(c), impl: "Map", detail }));
    baselineRows.push(latencyRow(bench, `n3 ${caseName(c)}`, { case: caseName(c), impl: "n3 Store", detail }));
  }
  console.log(`\nstatements page latency beside the baselines (${what})`);
  console.table(latencyTable(baselineRows));
  for (const n of notes) console.log(`note: ${n}`);
  return {
    baselineRows,
    baseline: {
      statements: data.statements.length,
      subsetOfTotal: data.truncated,
      readMs,
      mapBuildMs,
      mapHeapBytes,
      n3BuildMs,
      n3HeapBytes,
      quiverSubsetBuildMs,
    },
  };
}

interface BaselineData {
  names: Map<string, string>;
  statements: StatementInput[];
  truncated: boolean;
}

/**
 * The entities' names and the first `cap` statements, read as a user would (readline, JSON.parse).
 * When the file holds more, the subset is also written to `subsetFile` for Quiver's own graph.
 */
async function readBaselineData(
  files: { entities: string; statements: string },
  cap: number,
  subsetFile: string,
): Promise<BaselineData> {
  const names = new Map<string, string>();
  for await (const line of lines(files.entities)) {
    const e = JSON.parse(line) as { entityId: string; rawIdentifier: string };
    names.set(e.entityId, e.rawIdentifier);
  }
  const statements: StatementInput[] = [];
  const kept: string[] = [];
  let truncated = false;
  for await (const line of lines(files.statements)) {
    if (statements.length === cap) {
      truncated = true;
      break;
    }
    statements.push(JSON.parse(line) as StatementInput);
    kept.push(line);
  }
  if (truncated) {
    const out = createWriteStream(subsetFile);
    const BATCH = 10_000;
    for (let i = 0; i < kept.length; i += BATCH) {
      if (!out.write(kept.slice(i, i + BATCH).join("\n") + "\n")) await once(out, "drain");
    }
    out.end();
    await once(out, "close");
  }
  return { names, statements, truncated };
}

async function* lines(path: string): AsyncGenerator<string> {
  const input = createReadStream(path);
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) if (line.trim() !== "") yield line;
  } finally {
    // Leaving early (the subset is read): close the file too, not only the line reader.
    rl.close();
    input.destroy();
  }
}

interface MapStatement {
  s: string;
  p: string;
  o: string;
  fp: string;
}

const NO_STATEMENTS: readonly MapStatement[] = [];

/** Map from entityId to its statements, per role, and the array of all: offset paging in file order. */
class MapBaseline {
  private readonly names: Map<string, string>;
  private readonly all: MapStatement[] = [];
  private readonly bySubject = new Map<string, MapStatement[]>();
  private readonly byPredicate = new Map<string, MapStatement[]>();
  private readonly byObject = new Map<string, MapStatement[]>();

  constructor(names: Map<string, string>, statements: readonly StatementInput[]) {
    this.names = names;
    for (const x of statements) {
      const st: MapStatement = {
        s: x.subjectEntityId,
        p: x.predicateEntityId,
        o: x.objectEntityId,
        fp: x.statementFingerprint ?? deriveFingerprint(x.subjectEntityId, x.predicateEntityId, x.objectEntityId),
      };
      this.all.push(st);
      push(this.bySubject, st.s, st);
      push(this.byPredicate, st.p, st);
      push(this.byObject, st.o, st);
    }
  }

  page(f: Filter, offset: number, limit: number): Statement[] {
    // The shortest list among the bound roles; the other bound roles filter it.
    let list: readonly MapStatement[] = this.all;
    if (f.s !== undefined) list = shorter(list, this.bySubject.get(f.s));
    if (f.p !== undefined) list = shorter(list, this.byPredicate.get(f.p));
    if (f.o !== undefined) list = shorter(list, this.byObject.get(f.o));
    const items: Statement[] = [];
    let skipped = 0;
    for (const st of list) {
      if (
        (f.s !== undefined && st.s !== f.s) ||
        (f.p !== undefined && st.p !== f.p) ||
        (f.o !== undefined && st.o !== f.o)
      )
        continue;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      items.push(item(this.names, st.s, st.p, st.o, st.fp));
      if (items.length === limit) break;
    }
    return items;
  }
}

function shorter(a: readonly MapStatement[], b: readonly MapStatement[] | undefined): readonly MapStatement[] {
  if (b === undefined) return NO_STATEMENTS;
  return b.length < a.length ? b : a;
}

function push(map: Map<string, MapStatement[]>, key: string, st: MapStatement): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [st]);
  else list.push(st);
}

/** N3.js Store of the triples: offset paging over `readQuads` in N3's index order. */
class N3Baseline {
  private readonly names: Map<string, string>;
  private readonly store: N3.Store;

  constructor(names: Map<string, string>, statements: readonly StatementInput[]) {
    this.names = names;
    this.store = new N3.Store();
    const { namedNode, quad } = N3.DataFactory;
    for (const x of statements)
      this.store.addQuad(
        quad(namedNode(x.subjectEntityId), namedNode(x.predicateEntityId), namedNode(x.objectEntityId)),
      );
  }

  get size(): number {
    return this.store.size;
  }

  page(f: Filter, offset: number, limit: number): Statement[] {
    const { namedNode } = N3.DataFactory;
    const quads = this.store.readQuads(
      f.s === undefined ? null : namedNode(f.s),
      f.p === undefined ? null : namedNode(f.p),
      f.o === undefined ? null : namedNode(f.o),
      null,
    );
    const items: Statement[] = [];
    let skipped = 0;
    for (const q of quads) {
      if (skipped < offset) {
        skipped++;
        continue;
      }
      const s = q.subject.value;
      const p = q.predicate.value;
      const o = q.object.value;
      items.push(item(this.names, s, p, o, deriveFingerprint(s, p, o)));
      if (items.length === limit) break;
    }
    return items;
  }
}

function item(names: Map<string, string>, s: string, p: string, o: string, fp: string): Statement {
  return {
    statementFingerprint: fp,
    subjectEntityId: s,
    subjectRawIdentifier: names.get(s) ?? "",
    predicateEntityId: p,
    predicateRawIdentifier: names.get(p) ?? "",
    objectEntityId: o,
    objectRawIdentifier: names.get(o) ?? "",
  };
}

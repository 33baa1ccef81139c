/**
 * Goals
 * =====
 * Owns every target of the project (printed only with --goals), named once, and the one function that
 * checks a run's results against them. Sections print each figure beside its goal with these
 * constants; the summary prints the checks.
 *
 * Size-bound goals (the build, the snapshot's open) are stated for 1M entities and 10M statements:
 * at another size they are reported without a verdict. A goal whose figure was not measured (its
 * part did not run, or failed) has no verdict either.
 */

import { num } from "./format.js";
import type { BenchResults, GoalCheck, LatencyRow } from "./results.js";

// Memory, from graph.stats().bytes and from the process.
export const SEARCH_INDEX_GOAL = 5.0; // B per UTF-16 code unit of identifiers
export const SEARCH_INDEX_STRETCH = 3.4;
/** What scores, order=score and totals add together, B per UTF-16 code unit of identifiers. */
export const SCORE_AND_TOTALS_GOAL = 1.5;
/** The stats().bytes parts that scores, order=score and totals add. */
export const SCORE_AND_TOTALS_PARTS = ["scores", "scoreRanks", "scoreNames", "scoreInfix", "searchCounts"] as const;
export const STATEMENTS_GOAL = 13; // B per statement, the three orders
export const STATEMENTS_STRETCH = 8;
export const DERIVED_FINGERPRINTS_GOAL = 0; // B per statement when the input gives none
export const PROCESS_PER_CODE_UNIT_GOAL = 10; // heap + ArrayBuffers of the entities alone
export const PROCESS_PER_STATEMENT_GOAL = 13; // what the statements add (fingerprints derived)

// Repeated-query latency (one query timed many times), µs.
export const SEARCH_P50_GOAL_US = 20;
/** The slowest search case's p50 within this factor of the median case's. */
export const SEARCH_SPREAD_GOAL = 3;
export const STATEMENTS_P50_GOAL_US = 12;

// Distinct-query stream, µs.
export const STREAM_SEARCH_P50_GOAL_US = 20; // pages 1 and 2
export const STREAM_SEARCH_P99_GOAL_US = 100;
export const STREAM_STATEMENTS_P50_GOAL_US = 10;
export const STREAM_STATEMENTS_P99_GOAL_US = 40;
// The same stream inside a host's heap (--host-heap, 500 MB of the bench's own objects).
export const STREAM_HOST_STATEMENTS_P99_GOAL_US = 50;

// Time, at the goals' size.
export const BUILD_GOAL_S = 60;
export const SNAPSHOT_OPEN_GOAL_S = 1;
export const GOAL_ENTITIES = 1_000_000;
export const GOAL_STATEMENTS = 10_000_000;

/** The stream's pooled distribution (stream.bench.ts) that the statements figure is. */
export const STREAM_STATEMENTS_POOLED_FAMILY = "statements, first pages";

/** The stream's search pages the search goals cover (deep pages are shown, not judged). */
export const STREAM_SEARCH_GOAL_PAGES = 2;

const atMost = (measured: number | null, goal: number): boolean | null =>
  measured === null || !Number.isFinite(measured) ? null : measured <= goal;

function worst(rows: readonly LatencyRow[], key: "p50us" | "p99us"): LatencyRow | undefined {
  return rows.reduce<LatencyRow | undefined>((a, b) => (a === undefined || b[key] > a[key] ? b : a), undefined);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
}

/** Every goal, checked against what the run measured. */
export function checkGoals(r: Omit<BenchResults, "goals">): GoalCheck[] {
  const checks: GoalCheck[] = [];
  const atGoalSize = r.build.entities >= GOAL_ENTITIES && r.build.statements >= GOAL_STATEMENTS;
  const sizeNote = atGoalSize ? undefined : "stated at 1M entities / 10M statements: npm run bench:full";
  const add = (c: Omit<GoalCheck, "pass"> & { pass?: boolean | null }): void => {
    const pass = c.pass !== undefined ? c.pass : atMost(c.measured, c.goal);
    checks.push({ ...c, pass, ...(c.note === undefined ? {} : { note: c.note }) });
  };

  // Stream: the headline, in the bare process and inside a host's heap.
  const variants = [
    { id: "", label: "", rows: r.stream?.rows ?? [], statementsP99: STREAM_STATEMENTS_P99_GOAL_US },
    ...(r.stream?.hostHeap == null
      ? []
      : [
          {
            id: ".host",
            label: ", host heap",
            rows: r.stream.hostHeap.rows,
            statementsP99: STREAM_HOST_STATEMENTS_P99_GOAL_US,
          },
        ]),
  ];
  for (const variant of variants) {
    const stream = variant.rows.filter((x) => x.impl === "quiver");
    const streamSearch = stream.filter((x) => x.endpoint === "search" && (x.page ?? 1) <= STREAM_SEARCH_GOAL_PAGES);
    const streamStatements = stream.filter((x) => x.endpoint === "statements");
    for (const [endpoint, rows, p50, p99] of [
      ["search (pages 1, 2)", streamSearch, STREAM_SEARCH_P50_GOAL_US, STREAM_SEARCH_P99_GOAL_US],
      ["statements", streamStatements, STREAM_STATEMENTS_P50_GOAL_US, variant.statementsP99],
    ] as const) {
      const w50 = worst(rows, "p50us");
      const w99 = worst(rows, "p99us");
      add({
        id: `stream${variant.id}.${endpoint.split(" ")[0]}.p50`,
        section: "stream",
        figure: `stream${variant.label} ${endpoint} p50, worst case`,
        unit: "µs",
        measured: w50?.p50us ?? null,
        goal: p50,
        ...(w50 === undefined ? {} : { note: w50.case }),
      });
      add({
        id: `stream${variant.id}.${endpoint.split(" ")[0]}.p99`,
        section: "stream",
        figure: `stream${variant.label} ${endpoint} p99, worst case`,
        unit: "µs",
        measured: w99?.p99us ?? null,
        goal: p99,
        ...(w99 === undefined ? {} : { note: w99.case }),
      });
    }
  }

  // The issue's own measure: one stream of distinct statement filters, every shape's first pages
  // pooled (its "today" of 10 / 84 µs was taken so); the rows above judge each shape apart, stricter.
  const pooled = r.stream?.families.find((f) => f.name === STREAM_STATEMENTS_POOLED_FAMILY);
  for (const [name, key, goal] of [
    ["p50", "p50us", STREAM_STATEMENTS_P50_GOAL_US],
    ["p99", "p99us", STREAM_STATEMENTS_P99_GOAL_US],
  ] as const) {
    add({
      id: `stream.statements.pooled.${name}`,
      section: "stream",
      figure: `stream statements ${name}, first pages pooled`,
      unit: "µs",
      measured: pooled?.[key] ?? null,
      goal,
    });
  }

  // Repeated cases.
  const search = r.search?.rows.filter((x) => x.impl === "quiver") ?? [];
  const wSearch = worst(search, "p50us");
  add({
    id: "repeated.search.p50",
    section: "repeated",
    figure: "repeated search p50, worst case",
    unit: "µs",
    measured: wSearch?.p50us ?? null,
    goal: SEARCH_P50_GOAL_US,
    ...(wSearch === undefined ? {} : { note: wSearch.case }),
  });
  const spread = wSearch === undefined ? null : wSearch.p50us / median(search.map((x) => x.p50us));
  add({
    id: "repeated.search.spread",
    section: "repeated",
    figure: "repeated search: slowest p50 / median case",
    unit: "×",
    measured: spread,
    goal: SEARCH_SPREAD_GOAL,
  });
  const statements = r.statements?.rows.filter((x) => x.impl === "quiver") ?? [];
  const wStatements = worst(statements, "p50us");
  add({
    id: "repeated.statements.p50",
    section: "repeated",
    figure: "repeated statements p50, worst case",
    unit: "µs",
    measured: wStatements?.p50us ?? null,
    goal: STATEMENTS_P50_GOAL_US,
    ...(wStatements === undefined ? {} : { note: wStatements.case }),
  });

  // Memory.
  const b = r.build;
  add({
    id: "memory.search",
    section: "memory",
    figure: "search index",
    unit: "B/code unit",
    measured: (b.bytes["search"] ?? Number.NaN) / Math.max(1, b.identifierCodeUnits),
    goal: SEARCH_INDEX_GOAL,
    stretch: SEARCH_INDEX_STRETCH,
  });
  add({
    id: "memory.scoreAndTotals",
    section: "memory",
    figure: `scores, order=score and totals (${SCORE_AND_TOTALS_PARTS.join(" + ")})`,
    unit: "B/code unit",
    measured:
      SCORE_AND_TOTALS_PARTS.reduce((sum, part) => sum + (b.bytes[part] ?? Number.NaN), 0) /
      Math.max(1, b.identifierCodeUnits),
    goal: SCORE_AND_TOTALS_GOAL,
  });
  add({
    id: "memory.statements",
    section: "memory",
    figure: "statements, three orders",
    unit: "B/statement",
    measured: (b.bytes["statements"] ?? Number.NaN) / Math.max(1, b.statements),
    goal: STATEMENTS_GOAL,
    stretch: STATEMENTS_STRETCH,
  });
  const m = r.memory;
  add({
    id: "memory.fingerprints.derived",
    section: "memory",
    figure: "fingerprints when the input gives none",
    unit: "B/statement",
    measured: m?.derived ? (m.derived.bytes["fingerprints"] ?? Number.NaN) / Math.max(1, m.derived.statements) : null,
    goal: DERIVED_FINGERPRINTS_GOAL,
  });
  add({
    id: "memory.process.entities",
    section: "memory",
    figure: "process, entities alone",
    unit: "B/code unit",
    measured: m?.processPerCodeUnit ?? null,
    goal: PROCESS_PER_CODE_UNIT_GOAL,
  });
  add({
    id: "memory.process.statements",
    section: "memory",
    figure: "process, what statements add (derived fps)",
    unit: "B/statement",
    measured: m?.derived?.processPerStatement ?? null,
    goal: PROCESS_PER_STATEMENT_GOAL,
  });

  // Time at the goals' size.
  add({
    id: "build.total",
    section: "build",
    figure: "build from JSON Lines",
    unit: "s",
    measured: b.totalMs / 1000,
    goal: BUILD_GOAL_S,
    pass: atGoalSize ? b.totalMs / 1000 <= BUILD_GOAL_S : null,
    ...(sizeNote === undefined ? {} : { note: sizeNote }),
  });
  const openS = r.snapshot === null ? null : r.snapshot.openMs / 1000;
  const snapshotError = r.errors.find((e) => e.part === "snapshot");
  add({
    id: "snapshot.open",
    section: "snapshot",
    figure: "snapshot open",
    unit: "s",
    measured: openS,
    goal: SNAPSHOT_OPEN_GOAL_S,
    pass: atGoalSize && openS !== null ? openS <= SNAPSHOT_OPEN_GOAL_S : null,
    ...(snapshotError !== undefined
      ? { note: `failed: ${snapshotError.message}` }
      : sizeNote === undefined
        ? {}
        : { note: sizeNote }),
  });
  return checks;
}

/** A checked goal as table cells: figure, unit, measured, goal, stretch, verdict (summary and report). */
export function goalCells(g: GoalCheck): string[] {
  return [
    g.figure,
    g.unit,
    num(g.measured),
    num(g.goal, g.goal >= 10 ? 0 : 1),
    g.stretch === undefined ? "" : num(g.stretch, 1),
    g.pass === null ? "n/a" : g.pass ? "pass" : "FAIL",
  ];
}

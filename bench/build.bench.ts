/**
 * Build and memory benchmark
 * ==========================
 * Mirrors src/load and GraphBuilder.build: how long `loadGraph` takes on the two JSON
 * Lines files, phase by phase, and what the graph holds.
 *
 * Phases come from loadGraph's progress reports (`onProgress`), in the order they end: reading
 * entities.jsonl, the builder's phases (sort-entities; then, with the search index built in a
 * worker thread beside the reading, as on a machine of two cores or more: reading statements.jsonl,
 * what is left of the search index, statement-index, content-tag; on one core sort-entities follows
 * the statements). A phase runs from the end of the previous one to its own final report; what
 * follows the last report (making the Graph object) is "finish".
 *
 * Memory, two ways:
 *  - per structure, from graph.stats().bytes: the search index per UTF-16 code unit of the raw
 *    identifiers, the statements (three orders) and the fingerprints per statement, the entity
 *    strings;
 *  - the process: heap + ArrayBuffers held (bench/memory.ts) by a graph of the entities alone (per
 *    identifier code unit: ids, strings and index together), and what the statements add (per
 *    statement), with fingerprints as the input gives them and, from a third build of the same data
 *    with every fingerprint left out, as Quiver derives them (the "fingerprints when the
 *    input gives none" row).
 * A one-shot measurement: a build is not repeated to take a distribution.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { GraphBuilder, loadGraph, type Graph, type LoadProgress } from "../src/index.js";
import type { DatasetFiles } from "./data.js";
import { count, heading, mib, num, printTable, progress, secondsOf } from "./format.js";
import { gcAvailable, heldBytes, measureHeld, peakRssBytes, type MemorySnapshot } from "./memory.js";
import {
  DERIVED_FINGERPRINTS_GOAL,
  PROCESS_PER_CODE_UNIT_GOAL,
  PROCESS_PER_STATEMENT_GOAL,
  SEARCH_INDEX_GOAL,
  SEARCH_INDEX_STRETCH,
  STATEMENTS_GOAL,
  STATEMENTS_STRETCH,
} from "./goals.js";
import type { BuildPhase, BuildResults, MemoryResults } from "./results.js";

/** What each progress phase of loadGraph does, for people. */
const PHASE_LABELS: Record<string, string> = {
  entities: "read entities.jsonl (parse, validate)",
  statements: "read statements.jsonl (parse, validate)",
  "sort-entities": "sort entityIds (dense ids)",
  "search-index":
    "search index (what is left of it after the statements: loadGraph builds it in a worker thread beside them)",
  "statement-index": "statement orders and fingerprints",
  "score-index": "score index (search in order score: srank arrays and two document arrays)",
  finish: "finish (the Graph object)",
};

/** A heartbeat on stderr this often while a long build runs. */
const HEARTBEAT_MS = 10_000;

/** Loads the whole graph from the files, timed by phase, and measures what it holds. */
export async function runBuild(
  files: DatasetFiles,
  cursorSecret: string,
): Promise<{ graph: Graph; build: BuildResults }> {
  progress(`building from ${files.description}`);
  const marks: { phase: string; at: number }[] = [];
  let lastBeat = performance.now();
  let startedAt = 0;
  let endedAt = 0;
  const { value: graph, held } = await measureHeld(async () => {
    startedAt = performance.now();
    const g = await loadGraph({
      entities: files.entities,
      statements: files.statements,
      cursorSecret,
      onProgress: (p: LoadProgress) => {
        const now = performance.now();
        if (p.finished) marks.push({ phase: p.phase, at: now });
        else if (now - lastBeat > HEARTBEAT_MS) {
          lastBeat = now;
          progress(`  ${p.phase} (${secondsOf(now - startedAt)} s)`);
        }
      },
    });
    endedAt = performance.now();
    return g;
  });
  const phases: BuildPhase[] = [];
  let from = startedAt;
  for (const m of [...marks, { phase: "finish", at: endedAt }]) {
    phases.push({ phase: m.phase, label: PHASE_LABELS[m.phase] ?? m.phase, ms: m.at - from });
    from = m.at;
  }
  const stats = graph.stats();
  const build: BuildResults = {
    entities: graph.entityCount,
    statements: graph.statementCount,
    inputBytes: files.inputBytes,
    totalMs: endedAt - startedAt,
    phases,
    identifierCodeUnits: stats.identifierCodeUnits,
    bytes: { ...stats.bytes },
    held,
    // Read before anything else runs in the process: the build's peak (input, builder and graph).
    peakRssBytes: peakRssBytes(),
  };
  printBuild(build);
  return { graph, build };
}

function printBuild(b: BuildResults): void {
  heading(
    `Build from JSON Lines: ${count(b.entities)} entities, ${count(b.statements)} statements, ${mib(b.inputBytes)} MiB`,
  );
  printTable(
    [{ header: "phase" }, { header: "s" }, { header: "share %" }],
    [
      ...b.phases.map((p) => [p.label, secondsOf(p.ms), num((100 * p.ms) / b.totalMs, 0)]),
      ["total", secondsOf(b.totalMs), "100"],
    ],
  );
  if (b.peakRssBytes !== null) console.log(`peak RSS of the process once built (VmHWM): ${mib(b.peakRssBytes)} MiB`);
}

/**
 * The process's memory for the entities alone (a graph of them with no statements), and for the
 * same data as `graph` with derived fingerprints (a build through GraphBuilder from graph's export).
 */
export async function runMemory(
  files: DatasetFiles,
  graph: Graph,
  build: BuildResults,
  scratch: string,
  cursorSecret: string,
  goals: boolean,
): Promise<MemoryResults> {
  progress("memory: the entities alone");
  const empty = join(scratch, "no-statements.jsonl");
  await writeFile(empty, "");
  // Only the reading is kept: the graph is garbage once heldBy returns, before the next build.
  const entitiesOnlyHeld = await heldBy(() => loadGraph({ entities: files.entities, statements: empty, cursorSecret }));

  progress("memory: the same data with derived fingerprints");
  const derived = await derivedMemory(graph, entitiesOnlyHeld, cursorSecret);
  const memory: MemoryResults = {
    gcAvailable,
    identifierCodeUnits: build.identifierCodeUnits,
    entities: build.entities,
    statements: build.statements,
    entitiesOnlyHeld,
    processPerCodeUnit: heldBytes(entitiesOnlyHeld) / Math.max(1, build.identifierCodeUnits),
    processPerStatement: (heldBytes(build.held) - heldBytes(entitiesOnlyHeld)) / Math.max(1, build.statements),
    derived,
  };
  printMemory(memory, build, goals);
  return memory;
}

async function heldBy(make: () => Promise<Graph>): Promise<MemorySnapshot> {
  return (await measureHeld(make)).held;
}

async function derivedMemory(
  graph: Graph,
  entitiesOnlyHeld: MemorySnapshot,
  cursorSecret: string,
): Promise<NonNullable<MemoryResults["derived"]>> {
  const { value: derived, held } = await measureHeld(() => buildDerived(graph, cursorSecret));
  return {
    statements: derived.statementCount,
    bytes: { ...derived.stats().bytes },
    held,
    processPerStatement: (heldBytes(held) - heldBytes(entitiesOnlyHeld)) / Math.max(1, derived.statementCount),
  };
}

/** The same entities and statements, every fingerprint left out (Quiver derives them; repeats merge). */
function buildDerived(graph: Graph, cursorSecret: string): Graph {
  const builder = new GraphBuilder({ cursorSecret });
  for (const e of graph.exportEntities()) builder.addEntity(e);
  for (const st of graph.exportStatements())
    builder.addStatement({
      subjectEntityId: st.subjectEntityId,
      predicateEntityId: st.predicateEntityId,
      objectEntityId: st.objectEntityId,
    });
  return builder.build();
}

/** A graph built separately from the same data with the same secret: its cursors' keys are placed, not reused. */
export function buildReplica(graph: Graph, cursorSecret: string): Graph {
  const builder = new GraphBuilder({ cursorSecret });
  for (const e of graph.exportEntities()) builder.addEntity(e);
  for (const st of graph.exportStatements()) builder.addStatement(st);
  return builder.build();
}

/** One line of the memory table: bytes, bytes per unit, and the goal when there is one. */
interface MemoryLine {
  what: string;
  bytes: number;
  per: number;
  unit: string;
  goal?: number;
  stretch?: number;
}

/** The memory lines of a run (the HTML report draws the same). */
export function memoryLines(build: BuildResults, memory: MemoryResults | null): MemoryLine[] {
  const b = build.bytes;
  const units = build.identifierCodeUnits;
  const lines: MemoryLine[] = [
    {
      what: "entity table (entityId and raw identifier text, type, sourceType, hash)",
      bytes: b["entities"] ?? 0,
      per: (b["entities"] ?? 0) / build.entities,
      unit: "B/entity",
    },
    {
      what: "entityId lookup (hash table)",
      bytes: b["entityLookup"] ?? 0,
      per: (b["entityLookup"] ?? 0) / build.entities,
      unit: "B/entity",
    },
    {
      what: "search index",
      bytes: b["search"] ?? 0,
      per: (b["search"] ?? 0) / units,
      unit: "B/code unit",
      goal: SEARCH_INDEX_GOAL,
      stretch: SEARCH_INDEX_STRETCH,
    },
    {
      what: "statements, three orders",
      bytes: b["statements"] ?? 0,
      per: (b["statements"] ?? 0) / build.statements,
      unit: "B/statement",
      goal: STATEMENTS_GOAL,
      stretch: STATEMENTS_STRETCH,
    },
    {
      what: "fingerprints, as the input gives them",
      bytes: b["fingerprints"] ?? 0,
      per: (b["fingerprints"] ?? 0) / build.statements,
      unit: "B/statement",
    },
  ];
  if (memory?.derived) {
    const fp = memory.derived.bytes["fingerprints"] ?? 0;
    lines.push({
      what: "fingerprints, derived (none given)",
      bytes: fp,
      per: fp / memory.derived.statements,
      unit: "B/statement",
      goal: DERIVED_FINGERPRINTS_GOAL,
    });
  }
  if (memory !== null) {
    const entitiesOnly = heldBytes(memory.entitiesOnlyHeld);
    lines.push(
      {
        what: "process: entities alone (ids, strings, index)",
        bytes: entitiesOnly,
        per: memory.processPerCodeUnit,
        unit: "B/code unit",
        goal: PROCESS_PER_CODE_UNIT_GOAL,
      },
      {
        what: "process: + statements, fingerprints as given",
        bytes: heldBytes(build.held) - entitiesOnly,
        per: memory.processPerStatement,
        unit: "B/statement",
      },
    );
    if (memory.derived)
      lines.push({
        what: "process: + statements, fingerprints derived",
        bytes: heldBytes(memory.derived.held) - entitiesOnly,
        per: memory.derived.processPerStatement,
        unit: "B/statement",
        goal: PROCESS_PER_STATEMENT_GOAL,
      });
  }
  return lines;
}

export function printMemory(memory: MemoryResults | null, build: BuildResults, goals: boolean): void {
  heading(`Memory: ${count(build.identifierCodeUnits)} identifier code units, ${count(build.statements)} statements`);
  if (memory !== null && !memory.gcAvailable)
    console.log("(node without --expose-gc: process figures are rough; npm run bench passes it)");
  printTable(
    [
      { header: "structure" },
      { header: "MiB" },
      { header: "per unit" },
      { header: "unit", align: "left" },
      // The goal columns only with --goals.
      ...(goals ? [{ header: "goal" }, { header: "stretch" }] : []),
    ],
    memoryLines(build, memory).map((l) => [
      l.what,
      mib(l.bytes),
      num(l.per),
      l.unit,
      ...(goals
        ? [l.goal === undefined ? "" : `≤ ${num(l.goal, 1)}`, l.stretch === undefined ? "" : `≤ ${num(l.stretch, 1)}`]
        : []),
    ]),
  );
}

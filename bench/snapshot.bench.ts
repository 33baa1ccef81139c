/**
 * Snapshot benchmark
 * ==================
 * Mirrors src/snapshot: what a snapshot buys. The built graph is saved (`saveSnapshot`: encode,
 * write, fsync, rename) and opened again (`openSnapshot`), through the public API only; measured:
 * the file's size, the save time, the open time beside the build from JSON Lines, and the process
 * memory the opened graph holds (heap + ArrayBuffers after full GCs, bench/memory.ts). A few pages
 * (search with and without type, each statements order, and a cursor of the built graph followed
 * on the opened one) must come back the same, so a fast open of a wrong graph cannot pass.
 *
 * The open is measured with the file in the page cache (it was just written): a cold disk adds its
 * read time. Goal (with --goals, at 1M entities / 10M statements): open <= 1 s (bench/goals.ts).
 * Run alone: `npm run bench:snapshot` (= `npm run bench -- --only snapshot`).
 */

import { rm } from "node:fs/promises";
import { join } from "node:path";

import { openSnapshot, saveSnapshot, type Graph, type Page } from "../src/index.js";
import { heading, mib, num, printTable, progress, secondsOf } from "./format.js";
import { SNAPSHOT_OPEN_GOAL_S } from "./goals.js";
import { heldBytes, measureHeld } from "./memory.js";
import type { SnapshotResults } from "./results.js";

export async function runSnapshot(
  graph: Graph,
  buildMs: number,
  scratch: string,
  cursorSecret: string,
  goals: boolean,
): Promise<SnapshotResults> {
  const path = join(scratch, "graph.snapshot");
  try {
    progress("snapshot: save");
    let started = performance.now();
    const { bytes: fileBytes } = await saveSnapshot(graph, path);
    const saveMs = performance.now() - started;
    progress("snapshot: open");
    let openMs = 0;
    const { value: opened, held } = await measureHeld(async () => {
      started = performance.now();
      const g = await openSnapshot(path, { cursorSecret });
      openMs = performance.now() - started;
      return g;
    });
    const before = probe(graph);
    const after = probe(opened);
    for (let i = 0; i < before.length; i++) {
      if (JSON.stringify(after[i]) !== JSON.stringify(before[i]))
        throw new Error(`the opened graph answers probe ${i} differently from the built one`);
    }
    // A cursor the built graph issued must lead to the same page on the opened one (same secret).
    const cursor = graph.statements({ limit: 3 }).nextCursor;
    if (cursor !== null) {
      const page = (g: Graph) => JSON.stringify(g.statements({ limit: 3, cursor }));
      if (page(opened) !== page(graph))
        throw new Error("a cursor of the built graph leads elsewhere on the opened one");
    }
    const results: SnapshotResults = { fileBytes, saveMs, openMs, buildMs, held };
    printSnapshot(results, graph.statementCount, goals);
    return results;
  } finally {
    await rm(path, { force: true });
  }
}

/** Pages whose answers must survive the round trip. */
function probe(g: Graph): Page<unknown>[] {
  const pages: Page<unknown>[] = [];
  for (const q of ["a", "an", "straße", "Dürer", "東", "1"]) {
    pages.push(g.search({ q, limit: 20 }));
    pages.push(g.search({ q, type: "2", limit: 5 }));
  }
  const head = g.statements({ limit: 3 });
  pages.push(head);
  const st = head.items[0];
  if (st !== undefined) {
    pages.push(g.statements({ subjectEntityId: st.subjectEntityId, limit: 50 }));
    pages.push(g.statements({ predicateEntityId: st.predicateEntityId, limit: 50 }));
    pages.push(g.statements({ objectEntityId: st.objectEntityId, limit: 50 }));
  }
  return pages;
}

function printSnapshot(r: SnapshotResults, statements: number, goals: boolean): void {
  heading(`Snapshot: ${mib(r.fileBytes)} MiB file, ${num(r.fileBytes / Math.max(1, statements))} B/statement`);
  const rows: [string, string, string][] = [
    ["build from JSON Lines", secondsOf(r.buildMs), ""],
    ["save (encode, write, fsync, rename)", secondsOf(r.saveMs), ""],
    ["open (page cache warm)", secondsOf(r.openMs), `≤ ${SNAPSHOT_OPEN_GOAL_S} at 1M/10M`],
  ];
  // The goal column only with --goals.
  printTable(
    [{ header: "step" }, { header: "s" }, ...(goals ? [{ header: "goal s" }] : [])],
    rows.map(([step, s, goal]) => (goals ? [step, s, goal] : [step, s])),
  );
  console.log(`the opened graph holds ${mib(heldBytes(r.held))} MiB (heap + ArrayBuffers)`);
}

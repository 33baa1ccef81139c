/**
 * Memory of a served graph
 * ========================
 * `npm run bench:memory`: how much memory a graph takes once opened from its snapshot (the way
 * `quiver serve --snapshot` and every cluster worker hold it), split into a cost per entity and a
 * cost per statement, for sizing hosts (README "Deploying").
 *
 * For each size (default 200k entities / 2M statements and 1M entities / 2M statements, generated
 * and cached like `npm run bench` caches its files): build from JSON Lines, save a snapshot, drop
 * the built graph, collect garbage, then open the snapshot and measure heapUsed + external (typed
 * arrays and large strings are external) after full collections, against the same figure before
 * opening. Two sizes with the same statement count and different entity counts give the cost per
 * entity (their difference over the entity difference); the rest of either is the statements'.
 *
 * Usage: npm run bench:memory -- [--sizes 200000x2000000,1000000x2000000]
 * Cost: two builds; a few minutes on the 2-core machine.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGraph } from "../src/load/jsonl.js";
import { openSnapshot, saveSnapshot } from "../src/snapshot/file.js";

import { isMainModule } from "../tools/main-module.js";
import { benchOptions } from "./options.js";
import { generatedFiles } from "./data.js";
import { count as thousands, mib } from "./format.js";
import { gcAvailable, settledMemory } from "./memory.js";

/** Bytes held by the graph opened from the snapshot of `entities` / `statements`. */
async function servedBytes(entities: number, statements: number, dir: string): Promise<number> {
  const { files } = await generatedFiles({ entities, statements, seed: 1 });
  const snap = join(dir, `${entities}x${statements}.snap`);
  {
    const built = await loadGraph(files);
    await saveSnapshot(built, snap);
  }
  const before = await settledMemory();
  const graph = await openSnapshot(snap);
  const after = await settledMemory();
  // Keep the graph alive until measured.
  if (graph.entityCount !== entities) throw new Error("opened a graph of another size");
  await rm(snap, { force: true });
  return after.heapUsed + after.external - (before.heapUsed + before.external);
}

const USAGE = `usage: npm run bench:memory -- [--sizes ENTITIESxSTATEMENTS,...]
  --sizes LIST   graph sizes to measure (default 200000x2000000,1000000x2000000)`;

export async function runMemoryBench(argv: string[]): Promise<void> {
  const values = benchOptions(argv, { sizes: { type: "string", default: "200000x2000000,1000000x2000000" } }, USAGE);
  if (!gcAvailable) throw new Error("run with node --expose-gc (npm run bench:memory does)");
  const sizes = values.sizes.split(",").map((s) => s.split("x").map(Number) as [number, number]);
  const dir = await mkdtemp(join(tmpdir(), "quiver-memory-"));
  const rows: { entities: number; statements: number; bytes: number }[] = [];
  try {
    for (const [entities, statements] of sizes)
      rows.push({ entities, statements, bytes: await servedBytes(entities, statements, dir) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.table(
    rows.map((r) => ({
      entities: thousands(r.entities),
      statements: thousands(r.statements),
      "served graph": `${mib(r.bytes)} MiB`,
    })),
  );
  const [a, b] = rows;
  // Same statements, different entities: the difference is the entities'.
  if (a !== undefined && b !== undefined && a.statements === b.statements && a.entities !== b.entities) {
    const perEntity = (b.bytes - a.bytes) / (b.entities - a.entities);
    const perStatement = (b.bytes - perEntity * b.entities) / b.statements;
    console.log(
      `per million entities: ${mib(perEntity * 1e6)} MiB; per ten million statements: ${mib(perStatement * 1e7)} MiB ` +
        `(${perEntity.toFixed(0)} B an entity, ${perStatement.toFixed(1)} B a statement)`,
    );
  }
}

if (isMainModule(import.meta.url)) {
  runMemoryBench(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

/**
 * Demo fixtures from YAGO3-10
 * ===========================
 * Regenerates `fixtures/entities.jsonl` and `fixtures/statements.jsonl`, the small demo graph that
 * `npm start` serves: the YAGO3-10 triples of `valid.txt` and `test.txt` converted by
 * `readKgDataset`, cut by `connectedSubset` to the largest connected piece thinned to
 * FIXTURE_MAX_NAMES names (see fixtures/README.md for the why). Deterministic: the same data gives
 * byte-identical files, which `test/load/fixtures.test.ts` checks.
 *
 * Usage, from the repository root after `npx tsc -p .`:
 *   node dist/bench/make-fixtures.js [DATA_DIR] [OUT_DIR]
 * DATA_DIR defaults to ../shared/data (the folder holding yago3-10/), OUT_DIR to fixtures.
 *
 * Cost: reads the 3 MB dataset once; under a second.
 */

import { resolve, join } from "node:path";

import { isMainModule } from "./main-module.js";
import { connectedSubset, readKgDataset, writeKgDatasetJsonLines } from "../src/cli/kg-datasets.js";

/** Names kept in the demo graph: with its ~13 relations, under 600 entities and about as many statements. */
export const FIXTURE_MAX_NAMES = 560;

/** Writes the fixture pair into `outDir`; returns their paths and sizes. */
export async function makeFixtures(dataDir: string, outDir: string) {
  const yago = await readKgDataset(join(dataDir, "yago3-10"));
  const subset = connectedSubset(yago, FIXTURE_MAX_NAMES);
  const paths = await writeKgDatasetJsonLines(subset, outDir);
  return {
    ...paths,
    entityCount: subset.entities.length,
    statementCount: subset.statements.length,
    relationCount: subset.relationCount,
  };
}

// Run only when executed directly, never when a test imports makeFixtures.
if (isMainModule(import.meta.url)) {
  const dataDir = resolve(process.argv[2] ?? "../shared/data");
  const outDir = resolve(process.argv[3] ?? "fixtures");
  const made = await makeFixtures(dataDir, outDir);
  console.error(
    `wrote ${made.entities} (${made.entityCount} entities, ${made.relationCount} of them relations) and ${made.statements} (${made.statementCount} statements)`,
  );
}

/**
 * The shared datasets
 * ===================
 * Where the suites of `npm run test:datasets` find YAGO3-10 and FB15k-237: `QUIVER_DATA_DIR`, else
 * `../shared/data` beside the repository (tests run from its root). Never skipped: without the data
 * those suites cannot say anything, so they fail with a sentence saying what is missing and how to
 * point at it. `npm test` needs none of this.
 *
 * Run as a script (`node dist/test/support/datasets.js`), it checks that both datasets are there
 * and exits 1 with that sentence when they are not, before any suite starts.
 */

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const DATA_DIR = resolve(process.env["QUIVER_DATA_DIR"] ?? "../shared/data");
export const DATASETS = ["yago3-10", "fb15k-237"] as const;
export type DatasetName = (typeof DATASETS)[number];

/** The folder of one dataset; throws a clear Error when it is missing. */
export function datasetDir(name: DatasetName): string {
  const dir = join(DATA_DIR, name);
  if (!existsSync(join(dir, "entities.dict"))) {
    throw new Error(
      `The ${name} dataset is missing: expected ${join(dir, "entities.dict")}. ` +
        `Set QUIVER_DATA_DIR to the folder that holds yago3-10/ and fb15k-237/ (default ../shared/data).`,
    );
  }
  return dir;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const name of DATASETS) datasetDir(name);
    process.stdout.write(`datasets found under ${DATA_DIR}\n`);
  } catch (e) {
    process.stderr.write(`npm run test:datasets: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

/**
 * Where `quiver serve` gets its graph
 * ===================================
 * `graphSourceFrom` turns the serve command's data options into a `GraphSource`: JSON Lines files
 * (`--entities`, `--statements`) or a built snapshot (`--snapshot`).
 * A SIGHUP reload loads the same source again (serving/graph-source.ts loads it, on this thread or
 * in a worker thread).
 *
 * With no data option the demo graph in `fixtures/` is served (CONTRACT.md "Server"). The cursor
 * secret is not a loading matter: the handler applies it to whatever graph it serves.
 */

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FoldMode } from "../engine/search/fold.js";
import type { GraphSource } from "../serving/graph-source.js";

export type { GraphSource };

/** The data options of `serve`, as parsed. */
export interface DataOptions {
  entities?: string | undefined;
  statements?: string | undefined;
  snapshot?: string | undefined;
  /** How a graph built from JSON Lines folds for search (--fold); a snapshot keeps its own. */
  fold?: FoldMode | undefined;
  /** Threads that parse the statements file (--threads); a snapshot has none to parse. */
  threads?: number | undefined;
}

/** The bundled demo graph (dist/src/cli/ -> repository root -> fixtures/). */
export const DEMO_ENTITIES = fileURLToPath(new URL("../../../fixtures/entities.jsonl", import.meta.url));
export const DEMO_STATEMENTS = fileURLToPath(new URL("../../../fixtures/statements.jsonl", import.meta.url));

/** Thrown for a combination of options that cannot be served; the CLI prints it as a usage error. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function graphSourceFrom(options: DataOptions): GraphSource {
  const { entities, statements, snapshot, fold, threads } = options;
  if (snapshot !== undefined) {
    // A snapshot holds the whole graph: JSON Lines files beside it would be a second graph.
    if (entities !== undefined || statements !== undefined)
      throw new UsageError("give --snapshot alone, or --entities and --statements, not both");
    // It also holds its fold: another one asked for would be silently ignored.
    if (fold !== undefined)
      throw new UsageError("--fold applies to JSON Lines input; a snapshot keeps the fold it was built with");
    return { snapshot };
  }
  // The fold goes with the files, so a reload (and a cluster's build) folds the same way.
  const folding = { ...(fold === undefined ? {} : { fold }), ...(threads === undefined ? {} : { threads }) };
  // Both files or neither: a graph's statements only make sense with the entities they name.
  if ((entities === undefined) !== (statements === undefined)) {
    throw new UsageError("give --entities and --statements together (or neither, for the demo graph)");
  }
  if (entities === undefined || statements === undefined) {
    // The demo graph ships with the repository, not necessarily with an installed package.
    if (!existsSync(DEMO_ENTITIES) || !existsSync(DEMO_STATEMENTS)) {
      throw new UsageError(`the demo graph is not here (${DEMO_ENTITIES}); give --entities FILE and --statements FILE`);
    }
    return { entities: DEMO_ENTITIES, statements: DEMO_STATEMENTS, ...folding };
  }
  return { entities, statements, ...folding };
}

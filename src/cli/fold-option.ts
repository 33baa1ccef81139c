/**
 * The `--fold` option
 * ===================
 * How a graph built from JSON Lines folds identifiers and queries for search (CONTRACT.md "Case and
 * Unicode"): `case` (the default; accents are kept) or `accents` (combining marks removed too, so
 * "zurich" finds "Zürich"). A build option kept with the graph: `quiver build` stores it in the
 * snapshot, and a snapshot is served and queried with the fold it was built with, so `--fold` beside
 * a snapshot is a usage error rather than a silent no-op. One parser and one help line for `build`,
 * `serve` and the commands that read a graph (`search`, `statements`, `entity`, `dump`).
 */

import type { FoldMode } from "../index.js";
import { UsageError } from "./graph-source.js";

/** The help line of the option, for every command that takes it. */
export const FOLD_HELP = `  --fold case|accents   how search folds names and queries, for JSON Lines input: case (the
                        default: case and compatibility forms, accents kept) or accents (also
                        removes accents: "zurich" finds "Zürich"); a snapshot keeps its own`;

/** The mode `--fold` names, or undefined when it is absent; a usage error for any other value. */
export function foldOption(value: string | undefined): FoldMode | undefined {
  if (value === undefined) return undefined;
  // Each branch: the two modes the engine knows, spelt as the API spells them.
  if (value === "case" || value === "accents") return value;
  throw new UsageError(`--fold must be case or accents; got ${JSON.stringify(value)}`);
}

/** A snapshot was built with its fold: asking for another one there is a mistake worth saying. */
export function refuseFoldWithSnapshot(fold: FoldMode | undefined): void {
  if (fold !== undefined) {
    throw new UsageError(
      "--fold applies to JSON Lines input; a snapshot keeps the fold it was built with (quiver info shows it)",
    );
  }
}

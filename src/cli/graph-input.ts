/**
 * The graph a query or dump command reads
 * =======================================
 * `quiver search`, `statements` and `dump` take their graph the same way: a snapshot file as the
 * positional argument (opened in about a second), or JSON Lines files with `--entities` and
 * `--statements` (loaded and built, with progress on stderr unless `--quiet`). One of the two,
 * never both and never neither: a script that forgot its data should fail, not query a demo graph.
 * The paths are checked before any loading starts (paths.ts).
 */

import { type FoldMode, type Graph, loadGraph, openSnapshot } from "../index.js";
import { UsageError } from "./command.js";
import { FOLD_HELP, foldOption, refuseFoldWithSnapshot } from "./fold-option.js";
import { checkGraphInputFiles, checkInputFile } from "./paths.js";
import { createProgressPrinter } from "./progress.js";

/** The parseArgs options of the graph input, shared by the commands that take one. */
export const GRAPH_INPUT_OPTIONS = {
  entities: { type: "string" },
  statements: { type: "string" },
  fold: { type: "string" },
  quiet: { type: "boolean" },
} as const;

/** The help lines of those options, for the commands' --help. */
export const GRAPH_INPUT_HELP = `  SNAPSHOT              a snapshot file made by "quiver build"
  --entities FILE       or JSON Lines: entities, one JSON object per line (see "quiver build --help")
  --statements FILE     and statements, one JSON object per line; give both files, or a SNAPSHOT.
                        - reads stdin (for one of the two); a name ending in .gz is gunzipped
${FOLD_HELP}
  --quiet               no loading progress on stderr`;

export type GraphInput =
  | { kind: "snapshot"; file: string }
  | { kind: "jsonl"; entities: string; statements: string; fold: FoldMode | undefined };

/** Which graph the arguments name, checked: the files exist and can be read. */
export async function graphInputFrom(
  positionals: readonly string[],
  values: { entities?: string | undefined; statements?: string | undefined; fold?: string | undefined },
): Promise<GraphInput> {
  const { entities, statements } = values;
  const fold = foldOption(values.fold);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const snapshot = positionals[0];
  if (snapshot !== undefined) {
    // A snapshot holds the whole graph: JSON Lines files beside it would be a second graph.
    if (entities !== undefined || statements !== undefined) {
      throw new UsageError("give a SNAPSHOT, or --entities and --statements, not both");
    }
    refuseFoldWithSnapshot(fold);
    await checkInputFile("SNAPSHOT", snapshot);
    return { kind: "snapshot", file: snapshot };
  }
  if (entities === undefined || statements === undefined) {
    throw new UsageError(
      entities === undefined && statements === undefined
        ? "give the graph: a SNAPSHOT file, or --entities FILE and --statements FILE"
        : "give --entities and --statements together",
    );
  }
  await checkGraphInputFiles(entities, statements);
  return { kind: "jsonl", entities, statements, fold };
}

/** Opens or loads the graph; `cursorSecret` seals the cursors it issues. */
export async function openGraphInput(
  input: GraphInput,
  options: { cursorSecret: string; quiet: boolean },
): Promise<Graph> {
  switch (input.kind) {
    case "snapshot":
      return openSnapshot(input.file, { cursorSecret: options.cursorSecret });
    case "jsonl":
      return loadGraph({
        entities: input.entities,
        statements: input.statements,
        cursorSecret: options.cursorSecret,
        ...(input.fold === undefined ? {} : { fold: input.fold }),
        ...(options.quiet ? {} : { onProgress: createProgressPrinter(process.stderr) }),
      });
  }
}

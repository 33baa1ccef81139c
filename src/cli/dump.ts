/**
 * `quiver dump`
 * =============
 * A graph back to the input format: `entities.jsonl` (every entity, in entityId order) and
 * `statements.jsonl` (every statement in subject, predicate, object order) in the folder `--out`.
 * A statement's fingerprint is written only when it is not the one Quiver derives, so loading the
 * dump gives the same graph (`graph.stats().contentTag` equal): build -> dump -> build round-trips.
 * The two files are written whole under temporary names, then renamed into place together
 * (jsonl-writer.ts): a failed dump publishes neither, overlapping dumps never mix their files.
 *
 * Cost: opening the graph, then O(items) to write; memory one write batch beyond the graph.
 */

import { join } from "node:path";
import type { Graph } from "../index.js";
import { makeDirectory } from "../snapshot/make-directory.js";
import { runCommand, UsageError } from "./command.js";
import { GRAPH_INPUT_HELP, GRAPH_INPUT_OPTIONS, graphInputFrom, openGraphInput } from "./graph-input.js";
import { writeJsonLinesTogether } from "./jsonl-writer.js";
import { checkOutputDirectory } from "./paths.js";

/** The file names of the input format, as `quiver convert` and the README name them too. */
export const ENTITIES_FILE = "entities.jsonl";
export const STATEMENTS_FILE = "statements.jsonl";

export const DUMP_HELP = `Usage: quiver dump (SNAPSHOT | --entities FILE --statements FILE) --out DIR [--quiet]

Writes a graph back as JSON Lines: DIR/${ENTITIES_FILE} (every entity, in entityId order) and
DIR/${STATEMENTS_FILE} (every statement, by subject, predicate, object). A statement's
"statementFingerprint" is written only when it is not the one Quiver derives, so
"quiver build --entities DIR/${ENTITIES_FILE} --statements DIR/${STATEMENTS_FILE}" gives back the same
graph. Both files are written whole first and only then replaced, together: a dump that fails
publishes neither, and two dumps into one folder at once never leave a mix of the two.

Graph:
${GRAPH_INPUT_HELP}

Options:
  --out DIR             the folder to write the two files into (created if missing)
  -h, --help            show this help

Output: a line per file written on stderr (and, for a graph built with --fold accents, a note to
build it again with it). Exit status: 0 on success; 1 when the graph cannot be
read or a file cannot be written; 2 for a usage error.
`;

export function runDump(argv: string[]): Promise<number> {
  const options = { ...GRAPH_INPUT_OPTIONS, out: { type: "string" } } as const;
  return runCommand("dump", DUMP_HELP, argv, options, async ({ values, positionals }) => {
    const out = values.out;
    if (out === undefined) throw new UsageError("--out DIR is required: the folder to write the files into");
    const input = await graphInputFrom(positionals, values);
    await checkOutputDirectory("--out", out);
    // The dump's cursors are never shown: any secret will do.
    const graph = await openGraphInput(input, { cursorSecret: "dump", quiet: values.quiet === true });
    await dumpGraph(graph, out);
    // The fold is the build's option, not a field of the files: say how to build the same graph again.
    if (graph.fold !== "case") {
      process.stderr.write(`note: this graph folds ${graph.fold}; build it again with --fold ${graph.fold}\n`);
    }
    return 0;
  });
}

/** Writes the two files of `graph` into `dir` (created if missing) and reports each on stderr. */
export async function dumpGraph(graph: Graph, dir: string): Promise<void> {
  makeDirectory(dir);
  const files = [
    [join(dir, ENTITIES_FILE), graph.exportEntities(), "entities"],
    [join(dir, STATEMENTS_FILE), graph.exportStatements(), "statements"],
  ] as const;
  const results = await writeJsonLinesTogether(files.map(([file, items]) => [file, items] as const));
  files.forEach(([file, , what], i) => {
    const { lines, bytes } = results[i] as { lines: number; bytes: number };
    process.stderr.write(`wrote ${file}: ${lines.toLocaleString("en-US")} ${what}, ${(bytes / 1e6).toFixed(1)} MB\n`);
  });
}

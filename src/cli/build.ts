/**
 * `quiver build`
 * ==============
 * Turns JSON Lines into a snapshot: load and build the graph (with the same progress lines as
 * `serve`), then save it with `saveSnapshot` (temporary file, fsync, rename: a failed build never
 * leaves a half-written snapshot at the target). `quiver serve --snapshot FILE` then serves it
 * without rebuilding. A bad data line stops the command with `file:line: reason` and exit status 1.
 */

import { parseArgs } from "node:util";
import type { Graph } from "../engine/graph.js";
import { loadGraph } from "../load/jsonl.js";
import { saveSnapshot } from "../snapshot/file.js";
import { createProgressPrinter, summary } from "./progress.js";
import { EXIT_FAILURE, EXIT_USAGE } from "./serve.js";

export const BUILD_HELP = `Usage: quiver build --entities FILE --statements FILE --out FILE

Loads a graph from JSON Lines files, builds its indexes, and saves everything to one snapshot file
that "quiver serve --snapshot FILE" (or openSnapshot() when embedding) opens in about a second.

Options:
  --entities FILE     entities, one JSON object per line: {"entityId","rawIdentifier","type","sourceType"}
  --statements FILE   statements, one JSON object per line: {"subjectEntityId","predicateEntityId",
                      "objectEntityId"} and optionally "statementFingerprint"
  --out FILE          the snapshot to write (replaced only once the new one is complete)
  -h, --help          show this help

Output: progress and a summary on stderr. Exit status: 0 on success, 1 when the data cannot be
loaded or the snapshot cannot be written, 2 for a usage error.
`;

const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

function parseBuildArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: "boolean", short: "h" },
      entities: { type: "string" },
      statements: { type: "string" },
      out: { type: "string" },
    },
  }).values;
}

export async function runBuild(argv: string[]): Promise<number> {
  const err = process.stderr;
  let values: ReturnType<typeof parseBuildArgs>;
  try {
    values = parseBuildArgs(argv);
  } catch (e) {
    err.write(`quiver build: ${(e as Error).message}\nRun "quiver build --help" for the options.\n`);
    return EXIT_USAGE;
  }
  if (values.help === true) {
    process.stdout.write(BUILD_HELP);
    return 0;
  }
  const { entities, statements, out } = values;
  if (entities === undefined || statements === undefined || out === undefined) {
    err.write(
      `quiver build: --entities, --statements and --out are all required\nRun "quiver build --help" for the options.\n`,
    );
    return EXIT_USAGE;
  }
  const started = performance.now();
  let graph: Graph;
  try {
    graph = await loadGraph({ entities, statements, onProgress: createProgressPrinter(err) });
  } catch (e) {
    err.write(`quiver build: cannot load the graph: ${(e as Error).message}\n`);
    return EXIT_FAILURE;
  }
  err.write(summary(graph, performance.now() - started) + "\n");
  const saving = performance.now();
  try {
    const { bytes } = await saveSnapshot(graph, out);
    err.write(`wrote ${out}: ${megabytes(bytes)} MB in ${((performance.now() - saving) / 1000).toFixed(2)} s\n`);
  } catch (e) {
    err.write(`quiver build: cannot write ${out}: ${(e as Error).message}\n`);
    return EXIT_FAILURE;
  }
  return 0;
}

/**
 * `quiver build`
 * ==============
 * Turns JSON Lines into a snapshot: load and build the graph (with the same progress lines as
 * `serve`), then save it with `saveSnapshot` (temporary file, fsync, rename: a failed build never
 * leaves a half-written snapshot at the target). `quiver serve --snapshot FILE` then serves it
 * without rebuilding. A bad data line stops the command with `file:line: reason` and exit status 1.
 *
 * Every path is checked before the loading starts (paths.ts): a missing input, a folder given for a
 * file, or an --out that cannot be written is reported at once, naming the option and the path,
 * not after minutes of loading.
 */

import { type Graph, loadGraph, saveSnapshot } from "../index.js";
import { CommandFailure, runCommand, UsageError } from "./command.js";
import { checkGraphInputFiles, checkOutputFile } from "./paths.js";
import { foldOption } from "./fold-option.js";
import { createProgressPrinter, summary } from "./progress.js";
import { THREADS_HELP, threadsOption } from "./threads-option.js";

export const BUILD_HELP = `Usage: quiver build --entities FILE --statements FILE --out FILE [--fold case|accents] [--threads N] [--quiet]

Loads a graph from JSON Lines files, builds its indexes, and saves everything to one snapshot file
that "quiver serve --snapshot FILE" (or openSnapshot() when embedding) opens in about a second.

Options:
  --entities FILE     entities, one JSON object per line:
                      {"entityId":"Q42","rawIdentifier":"Douglas Adams","type":"0","sourceType":"wikidata"}
                      and optionally "score", a whole number 0 to 4294967295 that ranks the entity
                      under order=score (else its number of statements)
  --statements FILE   statements, one JSON object per line, each id naming an entity:
                      {"subjectEntityId":"Q42","predicateEntityId":"P31","objectEntityId":"Q5"}
                      and optionally "statementFingerprint" (else derived from the three ids)
                      For either file (not both), - reads stdin; a name ending in .gz is read
                      through gunzip (zcat data.jsonl.gz | quiver build --entities - ...)
  --out FILE          the snapshot to write (replaced only once the new one is complete)
  --fold case|accents how search folds names and queries, kept in the snapshot: case (the default:
                      case and compatibility forms, accents kept) or accents (also removes accents:
                      "zurich" finds "Zürich", "malmo" finds "Malmö")
${THREADS_HELP}
  --quiet             no progress lines, only the summary and errors
  -h, --help          show this help

The files are UTF-8; blank lines are skipped and other fields ignored. A bad line (not JSON, a
missing or mistyped field, a type outside "0".."7", a repeated entityId, a statement naming an
unknown entity...) stops the build with "file:line: reason". The README gives the format in full.

Output: progress and a summary on stderr. Exit status: 0 on success, 1 when a file is missing or
cannot be loaded, or the snapshot cannot be written, 2 for a usage error.
`;

const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

export function runBuild(argv: string[]): Promise<number> {
  const options = {
    entities: { type: "string" },
    statements: { type: "string" },
    out: { type: "string" },
    fold: { type: "string" },
    threads: { type: "string" },
    quiet: { type: "boolean" },
  } as const;
  return runCommand("build", BUILD_HELP, argv, options, async ({ values, positionals }) => {
    const { entities, statements, out } = values;
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    if (entities === undefined || statements === undefined || out === undefined) {
      throw new UsageError("--entities, --statements and --out are all required");
    }
    const fold = foldOption(values.fold);
    const threads = threadsOption(values.threads);
    await checkGraphInputFiles(entities, statements);
    await checkOutputFile("--out", out);

    const err = process.stderr;
    const started = performance.now();
    const graph: Graph = await loadGraph({
      entities,
      statements,
      ...(fold === undefined ? {} : { fold }),
      ...(threads === undefined ? {} : { threads }),
      ...(values.quiet === true ? {} : { onProgress: createProgressPrinter(err) }),
    });
    err.write(summary(graph, performance.now() - started) + "\n");
    const saving = performance.now();
    const { bytes } = await saveSnapshot(graph, out).catch((e: Error) => {
      // The check above passed, so this is the disk (full, gone read-only): say which file failed.
      throw new CommandFailure(`cannot write ${out}: ${e.message}`);
    });
    err.write(`wrote ${out}: ${megabytes(bytes)} MB in ${((performance.now() - saving) / 1000).toFixed(2)} s\n`);
    return 0;
  });
}

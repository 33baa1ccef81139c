/**
 * `quiver apply` and `quiver compact`
 * ===================================
 * The change log from the command line (docs/changes.md).
 *
 * - `quiver apply --snapshot BASE --changes DIR [FILE|-]`: appends one batch (JSON Lines, from FILE
 *   or stdin) to the log as its writer: the base is opened with the log (openLive: the lock, the
 *   batches replayed), the batch checked against the content it would change (400/409's codes:
 *   INVALID_CHANGE, CHANGE_CONFLICT, naming the line), written durably, and the result printed as
 *   the server's 200 body. While a server holds the log, it refuses with CHANGE_LOG_LOCKED naming
 *   the holder's pid (send the batch to that server instead). The base is needed because a batch is
 *   checked against the content it changes.
 * - `quiver compact --snapshot BASE --changes DIR --out FILE`: base + log -> one snapshot of the
 *   content at the log's last batch, published whole (saveSnapshot: temporary name, fsync, rename,
 *   directory fsync); the snapshot records that batch's sequence, so the same log goes on from it.
 *   The log is read without its lock, so a running writer is not disturbed.
 *
 * Cost: loading the base, replaying the log (O(delta log delta)), and for compact one build.
 */

import { readFile } from "node:fs/promises";
import type { LiveGraph } from "../engine/live/live-graph.js";
import { LiveFollower, openLive } from "../changes/live-store.js";
import { saveSnapshot } from "../snapshot/file.js";
import { loadGraphSource } from "../serving/graph-source.js";
import { CommandFailure, runCommand, UsageError } from "./command.js";
import { isQuiverError } from "../engine/errors.js";
import { decodeChangeBatch } from "../engine/live/change-batch.js";
import type { ChangeResult } from "../engine/live/live-graph.js";
import { graphSourceFrom } from "./graph-source.js";
import { checkInputDirectory, checkInputFile, checkOutputFile } from "./paths.js";

const SOURCE_HELP = `  --snapshot BASE       the base graph the log applies to (a snapshot file)
  --entities FILE       or the base as JSON Lines, with --statements FILE`;

export const APPLY_HELP = `Usage: quiver apply --snapshot BASE --changes DIR [FILE|-]

Appends one batch of changes (JSON Lines, one change a line: docs/changes.md) to the change log DIR,
as its writer: the batch is checked against BASE with the log's batches applied, written durably,
and its result printed: {"sequence": N, "entities": {...}, "statements": {...}}. A batch with a bad
line or a conflict changes nothing. Refuses while a server (quiver serve --changes DIR) holds the
log, naming its pid: send the batch to that server (POST /graph/v1/changes) instead.

Options:
${SOURCE_HELP}
  --changes DIR         the change log (made when missing)
  FILE                  the batch; - or none reads stdin
  -h, --help            show this help

Exit status: 0 when the batch is in the log; 1 when it is refused (the message names the line) or
the log cannot be written; 2 for a usage error.
`;

export const COMPACT_HELP = `Usage: quiver compact --snapshot BASE --changes DIR --out FILE

Folds the change log DIR into BASE and writes the result, the content at the log's last batch, as
the snapshot FILE (published whole: written under a temporary name, flushed, renamed). FILE records
that batch's sequence: served or applied to with the same log (--snapshot FILE --changes DIR or
--follow DIR), it takes only the batches after it. The log is read, not locked: a server writing it
keeps running.

Options:
${SOURCE_HELP}
  --changes DIR         the change log
  --out FILE            the snapshot to write
  -h, --help            show this help

Exit status: 0 when the snapshot is written; 1 when the base or the log cannot be read (missing,
damaged, or batches that do not apply to the base) or the snapshot cannot be written; 2 for a
usage error.
`;

const SOURCE_OPTIONS = {
  snapshot: { type: "string" },
  entities: { type: "string" },
  statements: { type: "string" },
  changes: { type: "string" },
} as const;

function baseSource(values: { snapshot?: string; entities?: string; statements?: string }) {
  // The demo graph is never a base by default: a batch checked against the wrong graph is a mistake.
  if (values.snapshot === undefined && values.entities === undefined)
    throw new UsageError("give the base the log applies to: --snapshot BASE (or --entities and --statements)");
  return graphSourceFrom(values);
}

function changesDir(value: string | undefined): string {
  if (value === undefined || value === "") throw new UsageError("give the change log: --changes DIR");
  return value;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

export function runApply(argv: string[]): Promise<number> {
  return runCommand("apply", APPLY_HELP, argv, SOURCE_OPTIONS, async ({ values, positionals }) => {
    const dir = changesDir(values.changes);
    const source = baseSource(values);
    if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
    const file = positionals[0];
    // Paths first: a typo in the batch's name is named before the base is loaded.
    if (file !== undefined) await checkInputFile("FILE", file);
    const bytes = file === undefined || file === "-" ? await readAll(process.stdin) : await readFile(file);
    const base = await loadGraphSource(source);
    const store = openLive(base, dir, { source });
    try {
      let result: ChangeResult;
      try {
        // Strict UTF-8, as the HTTP path reads a batch: a bad byte is refused naming its line.
        result = store.apply(decodeChangeBatch(bytes));
      } catch (e) {
        // A refused batch is the input's fault but not a usage error: status 1, the line named.
        if (isQuiverError(e)) throw new CommandFailure(`${file ?? "stdin"}: ${e.code}: ${e.message}`);
        throw e;
      }
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      store.close();
    }
    return 0;
  });
}

export function runCompact(argv: string[]): Promise<number> {
  const options = { ...SOURCE_OPTIONS, out: { type: "string" } } as const;
  return runCommand("compact", COMPACT_HELP, argv, options, async ({ values, positionals }) => {
    const dir = changesDir(values.changes);
    const source = baseSource(values);
    if (values.out === undefined || values.out === "") throw new UsageError("give the snapshot to write: --out FILE");
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    // Paths first, before the base is loaded and compacted. A log folder that is not there is a
    // typo here (a follower may wait for its writer to make it; compact reads what exists now).
    await checkInputDirectory("--changes", dir);
    await checkOutputFile("--out", values.out);
    const base = await loadGraphSource(source);
    const follower = new LiveFollower(base, dir);
    const graph: LiveGraph = follower.graph;
    const compacted = graph.buildCompacted();
    const { bytes } = await saveSnapshot(compacted, values.out);
    process.stderr.write(
      `quiver compact: ${values.out}: ${compacted.entityCount} entities, ${compacted.statementCount} statements, ` +
        `the base with batches up to ${graph.sequence} (${bytes} bytes); with --changes ${dir} it takes the batches after ${graph.sequence}\n`,
    );
    return 0;
  });
}

/**
 * `quiver info`
 * =============
 * What a snapshot file holds, without opening the graph: its format version, counts, fold mode, content tag,
 * checksum, when and by which Quiver it was built, and its bytes per structure (or per section with
 * `--sections`), as `readSnapshotInfo` reads them from the file's header and table. `--verify` also
 * reads the whole file to compare the checksum, and a file that does not match ends with status 1;
 * `--json` prints everything as one JSON object for scripts.
 *
 * Cost: a few KB read, whatever the file's size; with --verify, one pass over the file.
 */

import { readSnapshotInfo, type SnapshotInfo } from "../index.js";
import { type ChangeLogInfo, changeLogInfo } from "../changes/change-log.js";
import { EXIT_FAILURE, positionalArgument, runCommand, UsageError } from "./command.js";
import { checkInputDirectory, checkInputFile } from "./paths.js";

export const INFO_HELP = `Usage: quiver info SNAPSHOT [--verify] [--sections] [--json]
       quiver info --changes DIR [--json]

Describes a snapshot file made by "quiver build" without loading its graph: format version, entity
and statement counts, how search folds (case, or accents too: quiver build --fold accents), the
content tag (equal tags, equal graphs), the CRC-32 checksum, when and by which Quiver it was built,
and its bytes per structure. Reads a few KB, however large the file.

Options:
  --verify      read the whole file and compare its checksum (exit status 1 when it differs)
  --sections    bytes per section, not only per structure
  --changes DIR a change log instead: its sequence (last batch), batches, size, writer's pid
  --json        everything as one JSON object on stdout (builtAt as an ISO 8601 time;
                checksumMatches null unless --verify)
  -h, --help    show this help

Output: the description on stdout. Exit status: 0 on success; 1 when the file is missing, is not a
snapshot of a format this Quiver reads (the message says which format it has), or fails --verify;
2 for a usage error.
`;

const count = (n: number): string => n.toLocaleString("en-US");

export function runInfo(argv: string[]): Promise<number> {
  const options = {
    verify: { type: "boolean" },
    sections: { type: "boolean" },
    json: { type: "boolean" },
    changes: { type: "string" },
  } as const;
  return runCommand("info", INFO_HELP, argv, options, async ({ values, positionals }) => {
    // A change log instead of a snapshot: its batches, sequence, size, writer.
    if (values.changes !== undefined) {
      if (positionals.length > 0) throw new UsageError("give a SNAPSHOT or --changes DIR, not both");
      // A log folder that is not there is a typo, not an empty log.
      await checkInputDirectory("--changes", values.changes);
      const info = changeLogInfo(values.changes);
      process.stdout.write(
        values.json === true ? `${JSON.stringify(changeLogJson(info))}\n` : describeChangeLog(values.changes, info),
      );
      return 0;
    }
    const file = positionalArgument(positionals, "SNAPSHOT");
    await checkInputFile("SNAPSHOT", file);
    const info = await readSnapshotInfo(file, { verifyChecksum: values.verify === true });
    process.stdout.write(
      values.json === true
        ? `${JSON.stringify({ ...info, checksumMatches: info.checksumMatches ?? null })}\n`
        : describeSnapshot(info, values.sections === true),
    );
    // A checksum that was read and does not match: the file is damaged, whatever else it says.
    if (info.checksumMatches === false) {
      process.stderr.write(`quiver info: ${file}: the checksum does not match its content; the file is damaged\n`);
      return EXIT_FAILURE;
    }
    return 0;
  });
}

/** The description a person reads: one fact per line, sizes right-aligned. */
export function describeSnapshot(info: SnapshotInfo, bySection: boolean): string {
  const verdict =
    info.checksumMatches === undefined
      ? "(not verified: --verify)"
      : info.checksumMatches
        ? "(verified)"
        : "(DOES NOT MATCH)";
  const rows: [string, number][] = [["header and table", info.headerBytes]];
  if (bySection) for (const s of info.sections) rows.push([`${s.name}${s.transient ? " (read once)" : ""}`, s.bytes]);
  else for (const s of info.structures) rows.push([s.name, s.bytes]);
  const nameWidth = Math.max(...rows.map(([name]) => name.length));
  const sizeWidth = Math.max(...rows.map(([, bytes]) => count(bytes).length));
  return (
    `${info.path}\n` +
    `  format       ${info.formatVersion}\n` +
    `  entities     ${count(info.entities)}\n` +
    `  statements   ${count(info.statements)}\n` +
    `  fold         ${info.fold}\n` +
    // Only a compacted graph holds change batches: the line would say 0 for every other.
    (info.sequence === 0 ? "" : `  sequence     ${info.sequence} (change batches 1 to ${info.sequence} are in it)\n`) +
    `  content tag  ${info.contentTag}\n` +
    `  checksum     ${info.checksum} CRC-32 ${verdict}\n` +
    `  built        ${info.builtAt.toISOString()} by ${info.writer}\n` +
    `  size         ${count(info.fileBytes)} bytes\n` +
    rows.map(([name, bytes]) => `    ${name.padEnd(nameWidth)}  ${count(bytes).padStart(sizeWidth)}\n`).join("")
  );
}

/**
 * A change log's description as --json prints it: every field always there (null for no writer, no
 * torn file), and its sequence under the name the text gives it (the last whole batch, as `last`).
 */
function changeLogJson(info: ChangeLogInfo): object {
  return { sequence: info.last, ...info, torn: info.torn ?? null, lockedBy: info.lockedBy ?? null };
}

/** A change log's description: one fact per line. */
export function describeChangeLog(dir: string, info: ChangeLogInfo): string {
  return (
    `${dir}\n` +
    `  sequence     ${info.last}\n` +
    `  batches      ${count(info.batches)}${info.batches === 0 ? "" : ` (${info.first} to ${info.last})`}\n` +
    `  size         ${count(info.bytes)} bytes\n` +
    `  writer       ${info.lockedBy === undefined ? "none" : `process ${info.lockedBy}`}\n` +
    (info.torn === undefined
      ? ""
      : `  torn         ${info.torn} (an unfinished write; the next writer sets it aside)\n`)
  );
}

/**
 * What a snapshot file holds, without opening the graph
 * =====================================================
 * `readSnapshotInfo(path)` answers `quiver info FILE.snap`: the format version, the counts, the
 * checksum, the bytes of every section and of every structure (sections grouped by the first part
 * of their name: entities, search, statements...), when it was built and by which Quiver.
 * It reads the header, the table and the summary texts only (a few KB, container.ts's readTable and
 * graph-manifest.ts's readGraphSummary), so it answers at once for a file of any size; with
 * `verifyChecksum` it also reads the whole file once to compare the checksum (and says whether it
 * matches rather than refusing, so a damaged file can still be described).
 *
 * Errors: as openSnapshot's, INVALID_SNAPSHOT "<path>: <what>" for a file that is not a readable
 * snapshot of this format (an older or newer one says which format it has).
 */

import { ContainerReader } from "./container-serial.js";
import {
  CHECKSUM_FROM,
  HEADER_BYTES,
  readTable,
  snapshotChecksum,
  type SectionKind,
  type SectionValue,
} from "./container.js";
import { IO_CHUNK_BYTES, openForReading, readFully, readStart } from "./file.js";
import { readGraphSummary } from "./graph-manifest.js";
import type { FoldMode } from "../engine/search/fold.js";

/** The longest summary text read (a version, a digest): anything longer is not a summary's. */
const MAX_TEXT_BYTES = 4096;

export interface SnapshotSectionInfo {
  name: string;
  kind: SectionKind;
  /** Bytes of data in the file (0 for an integer, which lives in the table). */
  bytes: number;
  /** Read only while opening, then dropped. */
  transient: boolean;
}

export interface SnapshotInfo {
  path: string;
  fileBytes: number;
  formatVersion: number;
  /** The CRC-32 the header records, 8 hex digits. */
  checksum: string;
  /** Whether the content matches it: undefined unless `verifyChecksum` was asked. */
  checksumMatches: boolean | undefined;
  entities: number;
  statements: number;
  contentTag: string;
  builtAt: Date;
  /** "quiver <version>" of the Quiver that wrote the file. */
  writer: string;
  /** How the stored graph folds identifiers for search: "case" or "accents". */
  fold: FoldMode;
  /** The last change batch the stored graph holds (a compacted one's; 0: none, and any format 4 file). */
  sequence: number;
  /** Header and section table. */
  headerBytes: number;
  sections: SnapshotSectionInfo[];
  /** Bytes per structure (the first part of the section names), in file order. */
  structures: { name: string; bytes: number }[];
}

export interface ReadSnapshotInfoOptions {
  /** Read the whole file to compare its checksum (default false: header and table only). */
  verifyChecksum?: boolean;
}

export async function readSnapshotInfo(path: string, options: ReadSnapshotInfoOptions = {}): Promise<SnapshotInfo> {
  const { handle, size } = await openForReading(path);
  try {
    const { header, sections } = readTable(await readStart(handle, path, size, size), path, size);
    // The summary's fields: integers are in the table; texts are read, each a few bytes.
    const values = new Map<string, SectionValue>();
    for (const s of sections) {
      if (!s.name.startsWith("graph.")) continue;
      if (s.kind === "integer") values.set(s.name, s.count);
      else if (s.kind === "text" && s.byteLength <= MAX_TEXT_BYTES) {
        const bytes = new Uint8Array(s.byteLength);
        await readFully(handle, bytes, s.offset, path, size);
        values.set(s.name, Buffer.from(bytes).toString("utf8"));
      }
    }
    const summary = readGraphSummary(new ContainerReader(values, { fileName: path }));
    let checksumMatches: boolean | undefined;
    if (options.verifyChecksum === true) {
      let crc = 0;
      const piece = new Uint8Array(Math.min(IO_CHUNK_BYTES, size));
      for (let at = CHECKSUM_FROM; at < size; at += piece.length) {
        const part = piece.subarray(0, Math.min(piece.length, size - at));
        await readFully(handle, part, at, path, size);
        crc = snapshotChecksum(part, crc);
      }
      checksumMatches = crc === header.checksum;
    }
    const structures = new Map<string, number>();
    for (const s of sections) {
      const name = s.name.split(".")[0]!;
      structures.set(name, (structures.get(name) ?? 0) + s.byteLength);
    }
    return {
      path,
      fileBytes: size,
      formatVersion: header.version,
      checksum: header.checksum.toString(16).padStart(8, "0"),
      checksumMatches,
      entities: summary.entities,
      statements: summary.statements,
      contentTag: summary.contentTag,
      builtAt: summary.builtAt,
      writer: summary.writer,
      fold: summary.fold,
      sequence: summary.sequence,
      headerBytes: HEADER_BYTES + header.tableBytes,
      sections: sections.map((s) => ({ name: s.name, kind: s.kind, bytes: s.byteLength, transient: s.transient })),
      structures: [...structures].map(([name, bytes]) => ({ name, bytes })),
    };
  } finally {
    await handle.close();
  }
}

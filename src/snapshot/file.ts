/**
 * Snapshot files
 * ==============
 * Owns putting a snapshot on disk and getting it back: `saveSnapshot(graph, path)` writes the bytes
 * of format.ts, `openSnapshot(path)` reads them and returns a ready Graph. The layout, the checksum
 * and every check live in format.ts; this file only moves bytes and names the file in errors.
 *
 * Save: the chunks are written to `path + ".tmp"`, fsync'ed, then renamed over `path`. rename(2) is
 * atomic within a file system, so whoever opens `path` (a server reloading on SIGHUP, a replica)
 * sees the old snapshot or the new one, never half of one, even if the writer crashes or the power
 * goes. A failed save removes its temporary file.
 *
 * Open: the file is read into two ArrayBuffers allocated here (not pooled Buffers, whose byteOffset
 * need not be 8-aligned): the head, of which each typed array of the graph is a view, and the tail,
 * the transient sections (string blobs and offsets, see format.ts), dropped once the strings are
 * decoded. So memory after open is the head plus the decoded strings. The checksum is computed piece
 * by piece while the next piece is being read. Then decodeSnapshot checks and assembles, and only a
 * fully checked graph is returned.
 *
 * Errors: a damaged, foreign or newer file is a QuiverError INVALID_SNAPSHOT "<path>: <what>". A
 * file that cannot be read at all (missing, a directory, no permission) is the same error, with
 * the system error as its `cause` ("<path>: cannot read the snapshot: no such file"): a caller that
 * opens a snapshot (the CLI, a reload on SIGHUP) has one error to catch and print, and keeps serving
 * its current graph.
 *
 * Cost: save writes the file once (plus the strings copied into blobs and one CRC pass); open is
 * one sequential read plus the checks of format.ts. Reads and writes go in IO_CHUNK_BYTES pieces
 * (Linux caps one read or write at about 2 GiB; smaller pieces also pace the progress reports).
 */

import { open, rename, rm, type FileHandle } from "node:fs/promises";

import { QuiverError } from "../engine/errors.js";
import { Graph, type GraphOptions } from "../engine/graph.js";
import { graphParts } from "../engine/internal.js";
import {
  decodeSnapshot,
  encodeSnapshot,
  HEADER_BYTES,
  snapshotChecksum,
  transientSplit,
  type SnapshotBytes,
} from "./format.js";

/** Bytes per read or write call. */
export const IO_CHUNK_BYTES = 64 * 1024 * 1024;
/** Bytes written between two progress reports. */
export const PROGRESS_STEP_BYTES = 16 * 1024 * 1024;

export interface SaveProgress {
  bytesWritten: number;
  totalBytes: number;
}

export interface SaveSnapshotOptions {
  /** Called every PROGRESS_STEP_BYTES or so, and once at the end. */
  onProgress?: ((progress: SaveProgress) => void) | undefined;
}

export interface SaveSnapshotResult {
  /** Size of the file written. */
  bytes: number;
}

export type OpenSnapshotOptions = GraphOptions;

/** Writes `graph` as a snapshot file at `path`, atomically (temporary file, fsync, rename). */
export async function saveSnapshot(
  graph: Graph,
  path: string,
  options: SaveSnapshotOptions = {},
): Promise<SaveSnapshotResult> {
  const chunks = encodeSnapshot(graphParts(graph));
  let totalBytes = 0;
  for (const c of chunks) totalBytes += c.length;
  const tmp = `${path}.tmp`;
  let bytesWritten = 0;
  let reported = 0;
  try {
    const handle = await open(tmp, "w");
    try {
      for (const chunk of chunks) {
        for (let at = 0; at < chunk.length; ) {
          const piece = chunk.subarray(at, Math.min(chunk.length, at + IO_CHUNK_BYTES));
          const { bytesWritten: n } = await handle.write(piece, 0, piece.length);
          at += n;
          bytesWritten += n;
          // Report by bytes, not by call: the many small chunks (header, padding) would flood the caller.
          if (bytesWritten - reported >= PROGRESS_STEP_BYTES) {
            reported = bytesWritten;
            options.onProgress?.({ bytesWritten, totalBytes });
          }
        }
      }
      // Durable before visible: the rename must never publish bytes still in the page cache only.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  options.onProgress?.({ bytesWritten, totalBytes });
  return { bytes: totalBytes };
}

/** Opens the snapshot at `path` as a Graph; refuses any damaged, foreign or newer file (see the banner). */
export async function openSnapshot(path: string, options: OpenSnapshotOptions = {}): Promise<Graph> {
  const { bytes, checksum } = await readSnapshotFile(path);
  const parts = decodeSnapshot(bytes, path, { checksum });
  return new Graph(parts, options);
}

/** Bytes read first, to find where the transient sections start: the header and the whole table. */
const TABLE_PROBE_BYTES = 4096;

/**
 * The file's bytes in two fresh (8-aligned) ArrayBuffers, cut at transientSplit (the head, kept as
 * the graph's memory; the tail, transient sections only, dropped after decoding), and the snapshot
 * checksum of bytes [HEADER_BYTES, size). Each piece of `pieceBytes` is summed while the next one is
 * being read (reads run on libuv's thread pool), so the checksum costs almost no time of its own.
 * Exported for tests (small pieces) and benchmarks; openSnapshot is the way to open a snapshot.
 */
export async function readSnapshotFile(
  path: string,
  pieceBytes: number = IO_CHUNK_BYTES,
): Promise<{ bytes: SnapshotBytes; checksum: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    throw cannotRead(path, e);
  }
  try {
    const info = await handle.stat();
    // A directory opens fine on Linux and fails only on read: say what it is.
    if (!info.isFile())
      throw new QuiverError("INVALID_SNAPSHOT", `${path}: cannot read the snapshot: not a regular file`);
    const size = info.size;
    const probe = new Uint8Array(Math.min(size, TABLE_PROBE_BYTES));
    await readFully(handle, probe, 0, path, size);
    const split = transientSplit(probe, size);
    const head = new Uint8Array(new ArrayBuffer(split));
    const tail = new Uint8Array(new ArrayBuffer(size - split));
    // The file in pieces, in file order, each within one of the two buffers.
    const pieces: { into: Uint8Array; at: number; length: number; fileOffset: number }[] = [];
    for (const [into, base] of [
      [head, 0],
      [tail, split],
    ] as const) {
      for (let at = 0; at < into.length; at += pieceBytes)
        pieces.push({ into, at, length: Math.min(pieceBytes, into.length - at), fileOffset: base + at });
    }
    const file = handle;
    const readPiece = (k: number) => {
      const p = pieces[k] as (typeof pieces)[number];
      return readFully(file, p.into.subarray(p.at, p.at + p.length), p.fileOffset, path, size);
    };
    let checksum = 0;
    let pending = pieces.length > 0 ? readPiece(0) : undefined;
    for (let k = 0; pending !== undefined; k++) {
      await pending;
      // Start the next read first, then sum this piece meanwhile.
      pending = k + 1 < pieces.length ? readPiece(k + 1) : undefined;
      const p = pieces[k] as (typeof pieces)[number];
      const skip = Math.max(0, HEADER_BYTES - p.fileOffset);
      if (skip < p.length) checksum = snapshotChecksum(p.into.subarray(p.at + skip, p.at + p.length), checksum);
    }
    return { bytes: { head, tail }, checksum };
  } catch (e) {
    throw e instanceof QuiverError ? e : cannotRead(path, e);
  } finally {
    await handle.close();
  }
}

/** Fills `into` from `fileOffset` on; a file that ends early shrank while being read. */
async function readFully(
  handle: FileHandle,
  into: Uint8Array,
  fileOffset: number,
  path: string,
  size: number,
): Promise<void> {
  for (let at = 0; at < into.length; ) {
    const { bytesRead } = await handle.read(into, at, into.length - at, fileOffset + at);
    if (bytesRead === 0)
      throw new QuiverError(
        "INVALID_SNAPSHOT",
        `${path}: truncated: the file shrank below ${fileOffset + at} bytes while being read (it had ${size})`,
      );
    at += bytesRead;
  }
}

function cannotRead(path: string, cause: unknown): QuiverError {
  const code = (cause as { code?: unknown } | null)?.code;
  // The common system errors in words; anything else keeps the system's own message.
  const reason =
    code === "ENOENT"
      ? "no such file"
      : code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EISDIR"
          ? "not a regular file"
          : cause instanceof Error
            ? cause.message
            : String(cause);
  return new QuiverError("INVALID_SNAPSHOT", `${path}: cannot read the snapshot: ${reason}`, { cause });
}

/**
 * Snapshot files
 * ==============
 * Owns putting a graph on disk and getting it back: `saveSnapshot(graph, path)` and
 * `openSnapshot(path)`, and the pure steps between a graph and a file's bytes (`encodeSnapshot`,
 * `decodeSnapshot`): the graph manifest (graph-manifest.ts) over the container (container.ts).
 *
 * Save: the bytes go to a temporary file of the save's own, `<path>.<pid>.<random>.tmp`, created
 * exclusively ("wx": never an existing file, so never a user's own `<path>.tmp` or another save's
 * file), are fsync'ed, then renamed over `path`, and the directory is fsync'ed. rename(2) is atomic
 * within a file system, so whoever opens `path` (a server reloading on SIGHUP, a replica) sees the old
 * snapshot or a new one whole, even if the writer crashes or the power goes. Two saves to one path at
 * once (two `quiver build --out` runs overlapping) each write and publish a whole file of their own;
 * the later rename wins, and both report what they did truthfully. Any failure removes the save's
 * temporary file (and only it) and rejects; nothing is published.
 *
 * Open: the file is read into two buffers allocated here (not pooled Buffers, whose byteOffset
 * need not be 8-aligned): the head, of which each typed array of the graph is a view, and the tail,
 * the transient sections (string lists, see container.ts), dropped once the strings are decoded. So
 * memory after open is the head plus the decoded strings. A file of THREAD_FROM_BYTES or more whose
 * table reads is opened by two threads at once (openInThread): a worker reads and sums the bytes
 * (read-thread.ts) into shared memory while this thread restores the structures, each section
 * waited for as it is first read, in the order the restore wants them, so the disk, the checksum
 * and the restore overlap; the longest verify passes are deferred to the restore's end and run by
 * whichever thread is free first (runDeferredChecks); the checksum is compared once every byte is
 * in, before the graph is returned or a restore's complaint is believed. A smaller file (or one whose table does not read) is read whole, its checksum computed
 * piece by piece while the next piece is read, then restored. Either way every structure restores
 * and checks itself, and only a fully checked graph is returned; a section nobody reads is refused
 * as damage.
 *
 * Errors: a damaged, foreign, older or newer file is a QuiverError INVALID_SNAPSHOT "<path>: <what>".
 * A file that cannot be read at all (missing, a directory, no permission) is the same error, with the
 * system error as its `cause` ("<path>: cannot read the snapshot: no such file"): a caller that opens
 * a snapshot (the CLI, a reload on SIGHUP) has one error to catch and print, and keeps serving its
 * current graph. A failed save rejects with the system error.
 *
 * Cost: save writes the file once (plus the strings copied into blobs and one CRC pass); open is
 * one read of the file and the structures' checks, at about the longer of the two on two cores
 * (npm run bench:snapshot). Reads and writes go in
 * IO_CHUNK_BYTES pieces (Linux caps one read or write at about 2 GiB; smaller pieces also pace the
 * progress reports).
 */

import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";

import { QuiverError } from "../engine/errors.js";
import type { Graph, GraphOptions } from "../engine/graph.js";
import {
  CHECKSUM_FROM,
  HEADER_BYTES,
  openContainer,
  encodeContainer,
  readTable,
  snapshotChecksum,
  tableEnd,
  transientSplit,
  type SnapshotBytes,
  type SnapshotTable,
} from "./container.js";
import { type CheckHelper, ContainerReader, ContainerWriter, type DeferredCheck } from "./container-serial.js";
import { createTemporary, syncDirectory } from "./durable-file.js";
import { RESTORE_ORDER, readGraph, STORED_CHECKS, writeGraph, type WriteGraphOptions } from "./graph-manifest.js";
import { type SnapshotReading, shrank, startSnapshotRead } from "./read-thread.js";

/** Bytes per read or write call. */
export const IO_CHUNK_BYTES = 64 * 1024 * 1024;
/**
 * Files from this size on are read by a worker thread while the graph is restored (openInThread):
 * below it, starting the thread (about 30 ms) costs more than the overlap saves.
 */
export const THREAD_FROM_BYTES = 64 * 1024 * 1024;
/** Bytes per read in the worker: small enough that a restore waits for little more than it reads. */
export const THREAD_PIECE_BYTES = 16 * 1024 * 1024;
/** Reads of a snapshot's pieces in flight at once when opening (see readSnapshotFile). */
export const READS_IN_FLIGHT = 2;
/** Bytes written between two progress reports. */
export const PROGRESS_STEP_BYTES = 16 * 1024 * 1024;
/** The largest section table read ahead to find the transient cut; past it the file is read whole. */
export const MAX_TABLE_PROBE_BYTES = 1024 * 1024;

export interface SaveProgress {
  bytesWritten: number;
  totalBytes: number;
}

export interface SaveSnapshotOptions {
  /** Called every PROGRESS_STEP_BYTES or so, and once when every byte is written and synced. */
  onProgress?: ((progress: SaveProgress) => void) | undefined;
  /** The time recorded as the snapshot's build time (default: now). */
  builtAt?: Date | undefined;
}

export interface SaveSnapshotResult {
  /** Size of the file written. */
  bytes: number;
}

export type OpenSnapshotOptions = GraphOptions;

/** The snapshot of `graph`, as chunks whose concatenation is the file (arrays as they are, not copied). */
export function encodeSnapshot(graph: Graph, options: WriteGraphOptions = {}): Uint8Array[] {
  const w = new ContainerWriter();
  writeGraph(graph, w, options);
  return encodeContainer(w.sections);
}

export interface DecodeSnapshotOptions extends GraphOptions {
  /** The checksum when the caller computed it while reading (see openContainer). */
  checksum?: number | undefined;
  /** Bytes still arriving: blocks until a section's bytes are in; the caller checks the checksum (see openContainer). */
  waitFor?: ((offset: number, length: number) => void) | undefined;
  /** Another thread that may run some of the deferred verify passes (STORED_CHECKS); see runDeferredChecks. */
  helper?: CheckHelper | undefined;
  /** Check every structure (default); false only for bytes checked once already (openSharedSnapshot). */
  verify?: boolean | undefined;
}

/**
 * The graph stored in `bytes` (a whole snapshot, in one piece or two), its typed arrays views on the
 * head's buffer. Throws INVALID_SNAPSHOT "<fileName>: <what>" for any damaged, foreign, older or
 * newer file.
 */
export function decodeSnapshot(
  bytes: Uint8Array | SnapshotBytes,
  fileName: string,
  options: DecodeSnapshotOptions = {},
): Graph {
  const { checksum, verify, waitFor, helper, ...graphOptions } = options;
  const { values, ready } = openContainer(bytes, fileName, { checksum, waitFor });
  const reader = new ContainerReader(values, { fileName, verify: verify ?? true, ready, deferChecks: true });
  const graph = readGraph(reader, graphOptions);
  runDeferredChecks(reader.deferredChecks(), helper);
  const unread = reader.unread();
  if (unread.length > 0)
    reader.corrupt(
      `section ${unread[0]} is not one this Quiver stores${unread.length > 1 ? ` (nor ${unread.length - 1} more)` : ""}`,
    );
  return graph;
}

/**
 * Runs the verify passes the restore deferred, in the order they were deferred: each one the
 * helper has not started here, each one it has by waiting for its verdict. The restore's steps
 * run first and the passes last, so a helper that finishes reading early takes the passes this
 * thread has not reached yet, and both threads end together.
 */
function runDeferredChecks(deferred: readonly DeferredCheck[], helper: CheckHelper | undefined): void {
  for (const { name, check } of deferred) {
    const k = helper === undefined ? -1 : helper.checks.indexOf(name);
    // Each branch: a pass only this thread knows or claims, or one the helper runs.
    if (k < 0 || helper!.claim(k)) check();
    else helper!.verdict(k);
  }
}

/** Writes `graph` as a snapshot file at `path`, atomically and safely against other saves (see the banner). */
export async function saveSnapshot(
  graph: Graph,
  path: string,
  options: SaveSnapshotOptions = {},
): Promise<SaveSnapshotResult> {
  const chunks = encodeSnapshot(graph, { builtAt: options.builtAt });
  let totalBytes = 0;
  for (const c of chunks) totalBytes += c.length;
  const { handle, tmp } = await createTemporary(path);
  let closed = false;
  try {
    let bytesWritten = 0;
    let reported = 0;
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
    closed = true;
    await handle.close();
    // The last report before the rename: a callback that throws leaves nothing published.
    options.onProgress?.({ bytesWritten, totalBytes });
    await rename(tmp, path);
  } catch (e) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
  await syncDirectory(dirname(path));
  return { bytes: totalBytes };
}

/** Opens the snapshot at `path` as a Graph; refuses any damaged, foreign, older or newer file (see the banner). */
export async function openSnapshot(path: string, options: OpenSnapshotOptions = {}): Promise<Graph> {
  return (await openSnapshotFile(path, options, false)).graph;
}

/**
 * A snapshot opened once, its head in shared memory: what another thread of this process opens the
 * same graph from (openSharedSnapshot) without reading the head from the file again. `headChecksum`
 * is the running checksum at the end of the head, `checksum` the file's, `size` its length.
 */
export interface SharedSnapshot {
  path: string;
  head: SharedArrayBuffer;
  size: number;
  headChecksum: number;
  checksum: number;
}

/**
 * Opens the snapshot at `path` as openSnapshot does, with the head (every typed array of the graph
 * is a view of it) in a SharedArrayBuffer, returned with it: posted to a worker thread (a
 * compaction's), it is shared, not copied, and openSharedSnapshot opens the same graph there.
 */
export async function openSnapshotShared(
  path: string,
  options: OpenSnapshotOptions = {},
): Promise<{ graph: Graph; shared: SharedSnapshot }> {
  const { graph, head, headChecksum, checksum, size } = await openSnapshotFile(path, options, true);
  return { graph, shared: { path, head: head.buffer as SharedArrayBuffer, size, headChecksum, checksum } };
}

export interface OpenFileOptions extends OpenSnapshotOptions {
  /**
   * Read in a worker thread while the graph is restored (see openInThread) from this many bytes
   * on (default THREAD_FROM_BYTES, or never on a machine with one core; tests pass 0 to take that
   * path with small files).
   */
  threadFromBytes?: number | undefined;
  /** Bytes per read (default: IO_CHUNK_BYTES on this thread, THREAD_PIECE_BYTES in the worker). */
  pieceBytes?: number | undefined;
  /** The worker runs every deferred check it knows, none claimed here (tests take its path so). */
  leaveChecks?: boolean | undefined;
}

/**
 * The graph of the snapshot at `path`, its head (shared memory when `shareHead`), and the checksums:
 * read by a worker thread while it is restored (openInThread) when the file is large and its table
 * sound, else read whole, then restored (readSnapshotFile, decodeSnapshot).
 */
export async function openSnapshotFile(
  path: string,
  options: OpenFileOptions = {},
  shareHead = false,
): Promise<OpenedSnapshot> {
  const { threadFromBytes, pieceBytes, leaveChecks, ...graphOptions } = options;
  const { handle, size } = await openForReading(path);
  try {
    // Each branch: a file worth a thread whose table reads, so the cut and every section are known
    // before their bytes are; anything else (or no thread to be had) is read whole first on this
    // thread, and refused as it always was.
    // One core only: a second thread would add its work to the open, not overlap it.
    if (size >= (threadFromBytes ?? (availableParallelism() > 1 ? THREAD_FROM_BYTES : Number.POSITIVE_INFINITY))) {
      const start = await readStart(handle, path, size);
      const table = soundTable(start, size);
      const opened =
        table === undefined
          ? undefined
          : await openInThread(path, handle, size, start, table, graphOptions, {
              pieceBytes: pieceBytes ?? THREAD_PIECE_BYTES,
              leaveChecks: leaveChecks === true,
            });
      if (opened !== undefined) return opened;
    }
    const read = await readOpenSnapshot(handle, path, size, pieceBytes ?? IO_CHUNK_BYTES, shareHead);
    const graph = decodeSnapshot(read.bytes, path, { ...graphOptions, checksum: read.checksum });
    return { graph, head: read.bytes.head, headChecksum: read.headChecksum, checksum: read.checksum, size };
  } catch (e) {
    throw e instanceof QuiverError ? e : cannotRead(path, e);
  } finally {
    await handle.close();
  }
}

/** A snapshot opened: the graph, its head (the memory its arrays view), the checksums, the file's size. */
interface OpenedSnapshot {
  graph: Graph;
  head: Uint8Array;
  headChecksum: number;
  checksum: number;
  size: number;
}

/**
 * Bytes [from, size) of the file as [start, end) pairs (flat) in the order the restore wants them:
 * structure by structure in RESTORE_ORDER (a structure's sections in the tail with it: the entity
 * table's text comes right after its records), each in file order. The file is cut at every
 * section's start and at `split`; a piece of padding goes with the section before it.
 */
function readRanges(table: SnapshotTable, from: number, split: number, size: number): number[] {
  const placed = table.sections.filter((s) => s.kind !== "integer").sort((a, b) => a.offset - b.offset);
  const rank = (name: string): number => {
    const dot = name.indexOf(".");
    const k = RESTORE_ORDER.indexOf((dot < 0 ? name : name.slice(0, dot)) as (typeof RESTORE_ORDER)[number]);
    // A structure the manifest does not name (a damaged table's, refused later) is read last.
    return k < 0 ? RESTORE_ORDER.length : k;
  };
  const cuts = [...new Set([from, split, size, ...placed.map((s) => s.offset)])]
    .filter((at) => at >= from && at <= size)
    .sort((a, b) => a - b);
  const segments: { start: number; end: number; rank: number }[] = [];
  let section = -1;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const start = cuts[i]!;
    while (section + 1 < placed.length && placed[section + 1]!.offset <= start) section++;
    // The bytes before the first section (none in a file this Quiver wrote) go first.
    segments.push({ start, end: cuts[i + 1]!, rank: section < 0 ? -1 : rank(placed[section]!.name) });
  }
  segments.sort((a, b) => a.rank - b.rank || a.start - b.start);
  const ranges: number[] = [];
  for (const { start, end } of segments) {
    // Adjacent in the file and on the same side of the cut: one range.
    if (ranges.length > 0 && ranges[ranges.length - 1] === start && start !== split) ranges[ranges.length - 1] = end;
    else ranges.push(start, end);
  }
  return ranges;
}

/** The table of a snapshot whose first bytes are `start`, or undefined when it does not read. */
function soundTable(start: Uint8Array, size: number): SnapshotTable | undefined {
  try {
    return readTable(start, "", size);
  } catch {
    return undefined;
  }
}

/**
 * Opens the snapshot on `handle` (its header and table in `start`, checked: `table`) with a worker
 * thread reading and summing the rest of the file (read-thread.ts) while this one restores the
 * graph, each section waited for as it is first read. The head is shared memory (the worker reads
 * into it), which is also what openSnapshotShared hands other threads. The errors are the ones
 * reading whole first gives, in the same precedence: a read's failure, then a checksum mismatch,
 * then what the restore found (a damaged file's restore may fail on bytes the checksum refuses).
 */
async function openInThread(
  path: string,
  handle: FileHandle,
  size: number,
  start: Uint8Array,
  table: SnapshotTable,
  options: OpenSnapshotOptions,
  { pieceBytes, leaveChecks }: { pieceBytes: number; leaveChecks: boolean },
): Promise<OpenedSnapshot | undefined> {
  let reading: SnapshotReading | undefined;
  try {
    const split = transientSplit(start, size);
    const head = new Uint8Array(new SharedArrayBuffer(split));
    const tail = new Uint8Array(new SharedArrayBuffer(size - split));
    // The header and the table as read and checked here; the worker reads the rest.
    const from = tableEnd(table.header);
    head.set(start.subarray(0, from));
    const started = await startSnapshotRead({
      fd: handle.fd,
      path,
      size,
      head: head.buffer as SharedArrayBuffer,
      tail: tail.buffer as SharedArrayBuffer,
      from,
      fromChecksum: snapshotChecksum(head.subarray(CHECKSUM_FROM, from), 0),
      ranges: readRanges(table, from, split, size),
      checks: Object.keys(STORED_CHECKS),
      pieceBytes,
    });
    // A worker that cannot start (a limit on threads): the caller reads the file on its own thread.
    if (started === undefined) return undefined;
    reading = started;
    const waitFor = reading.waitFor;
    let graph: Graph | undefined;
    let refused: unknown;
    try {
      // A helper that is never claimed from (leaveChecks) runs every check it knows.
      const helper = leaveChecks ? { ...reading, claim: () => false } : reading;
      graph = decodeSnapshot({ head, tail }, path, { ...options, waitFor, helper });
    } catch (e) {
      refused = e;
    }
    // Every byte in and summed before anything is trusted (or refused for what the restore found).
    const { checksum, headChecksum } = reading.finish();
    reading = undefined;
    if (checksum !== table.header.checksum)
      throw new QuiverError("INVALID_SNAPSHOT", `${path}: checksum mismatch: the file is corrupted`);
    if (graph === undefined) throw refused;
    return { graph, head, headChecksum, checksum, size };
  } finally {
    // The worker reads through the caller's descriptor: it may close only once the worker is done.
    if (reading !== undefined) {
      try {
        reading.finish();
      } catch {
        // Already failing: the error thrown above is the one to report.
      }
    }
  }
}

/**
 * The graph openSnapshotShared opened, opened again (on another thread) from its shared head: only
 * the tail (the transient string sections) is read from the file, and its checksum continued from
 * the head's must give the file's, else the file changed since (INVALID_SNAPSHOT). The structures
 * are not checked again: they were when the head was first opened, and the head has not changed
 * since, as a graph's arrays are never written after it is built or opened (the base of a live graph
 * is immutable; changes go to its delta), and the tail is the same bytes by its checksum.
 */
export async function openSharedSnapshot(shared: SharedSnapshot, options: OpenSnapshotOptions = {}): Promise<Graph> {
  const { path, size } = shared;
  const { handle, size: now } = await openForReading(path);
  let tail: Uint8Array;
  try {
    if (now !== size)
      throw new QuiverError(
        "INVALID_SNAPSHOT",
        `${path}: the file changed since it was opened (${size} bytes, now ${now})`,
      );
    tail = new Uint8Array(new ArrayBuffer(size - shared.head.byteLength));
    for (let at = 0; at < tail.length; at += IO_CHUNK_BYTES) {
      const piece = tail.subarray(at, Math.min(tail.length, at + IO_CHUNK_BYTES));
      await readFully(handle, piece, shared.head.byteLength + at, path, size);
    }
  } catch (e) {
    throw e instanceof QuiverError ? e : cannotRead(path, e);
  } finally {
    await handle.close();
  }
  const skip = Math.max(0, CHECKSUM_FROM - shared.head.byteLength);
  const checksum =
    skip < tail.length ? snapshotChecksum(tail.subarray(skip), shared.headChecksum) : shared.headChecksum;
  if (checksum !== shared.checksum)
    throw new QuiverError("INVALID_SNAPSHOT", `${path}: the file changed since it was opened (its checksum differs)`);
  return decodeSnapshot({ head: new Uint8Array(shared.head), tail }, path, { ...options, checksum, verify: false });
}

/**
 * The file's bytes in two fresh (8-aligned) ArrayBuffers, cut at transientSplit (the head, kept as
 * the graph's memory; the tail, transient sections only, dropped after decoding), and the snapshot
 * checksum of bytes [CHECKSUM_FROM, size). READS_IN_FLIGHT pieces of `pieceBytes` are read at once
 * (on libuv's thread pool, so on as many cores), and each is summed, in file order, while later
 * ones are being read, so the checksum costs almost no time of its own.
 * Exported for tests (small pieces) and benchmarks; openSnapshot is the way to open a snapshot.
 */
export async function readSnapshotFile(
  path: string,
  pieceBytes: number = IO_CHUNK_BYTES,
  shareHead = false,
): Promise<{ bytes: SnapshotBytes; checksum: number; headChecksum: number; size: number }> {
  const { handle, size } = await openForReading(path);
  try {
    return await readOpenSnapshot(handle, path, size, pieceBytes, shareHead);
  } catch (e) {
    throw e instanceof QuiverError ? e : cannotRead(path, e);
  } finally {
    await handle.close();
  }
}

/** readSnapshotFile of a file open on `handle` (`size` bytes); system errors thrown as they are. */
async function readOpenSnapshot(
  handle: FileHandle,
  path: string,
  size: number,
  pieceBytes: number,
  shareHead: boolean,
): Promise<{ bytes: SnapshotBytes; checksum: number; headChecksum: number; size: number }> {
  const split = transientSplit(await readStart(handle, path, size), size);
  // Each branch: a head other threads may open the graph from (openSnapshotShared), or one of this thread's.
  const head = new Uint8Array(shareHead ? new SharedArrayBuffer(split) : new ArrayBuffer(split));
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
  // A read settles to its failure (or null) so that one failing while an earlier one is awaited
  // is never an unhandled rejection; it is rethrown in file order.
  const readPiece = (k: number): Promise<{ failure: unknown } | null> => {
    const p = pieces[k]!;
    return readFully(handle, p.into.subarray(p.at, p.at + p.length), p.fileOffset, path, size).then(
      () => null,
      (failure: unknown) => ({ failure }),
    );
  };
  // READS_IN_FLIGHT reads at once, each on a thread of libuv's pool: the kernel's copy into this
  // process (and its page faults) then runs on that many cores, while this thread sums each piece
  // in file order (CRC-32 runs in order) as soon as it is in.
  const pending: Promise<{ failure: unknown } | null>[] = [];
  for (let k = 0; k < Math.min(READS_IN_FLIGHT, pieces.length); k++) pending.push(readPiece(k));
  let checksum = 0;
  let headChecksum = 0;
  try {
    for (let k = 0; k < pieces.length; k++) {
      const outcome = await pending[k]!;
      if (outcome !== null) throw outcome.failure;
      if (k + READS_IN_FLIGHT < pieces.length) pending.push(readPiece(k + READS_IN_FLIGHT));
      const p = pieces[k]!;
      const skip = Math.max(0, CHECKSUM_FROM - p.fileOffset);
      if (skip < p.length) checksum = snapshotChecksum(p.into.subarray(p.at + skip, p.at + p.length), checksum);
      if (p.into === head) headChecksum = checksum;
    }
  } finally {
    // A failure leaves later reads in flight: they end before the handle closes.
    await Promise.all(pending);
  }
  return { bytes: { head, tail }, checksum, headChecksum, size };
}

/** A regular file opened for reading, and its size; or INVALID_SNAPSHOT "cannot read the snapshot". */
export async function openForReading(path: string): Promise<{ handle: FileHandle; size: number }> {
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
    return { handle, size: info.size };
  } catch (e) {
    await handle.close();
    throw e instanceof QuiverError ? e : cannotRead(path, e);
  }
}

/**
 * The header and the section table: the file's first bytes up to the table's end as the header says
 * (a table of at most `maxTableBytes`; less when the file is shorter or the header is not a snapshot's).
 */
export async function readStart(
  handle: FileHandle,
  path: string,
  size: number,
  maxTableBytes: number = MAX_TABLE_PROBE_BYTES,
): Promise<Uint8Array> {
  const header = new Uint8Array(Math.min(size, HEADER_BYTES));
  await readFully(handle, header, 0, path, size);
  const tableBytes = header.length === HEADER_BYTES ? new DataView(header.buffer).getUint32(32, true) : 0;
  const want = Math.min(size, HEADER_BYTES + Math.min(tableBytes, maxTableBytes));
  if (want <= header.length) return header;
  const start = new Uint8Array(want);
  start.set(header);
  await readFully(handle, start.subarray(header.length), header.length, path, size);
  return start;
}

/** Fills `into` from `fileOffset` on; a file that ends early shrank while being read. */
export async function readFully(
  handle: FileHandle,
  into: Uint8Array,
  fileOffset: number,
  path: string,
  size: number,
): Promise<void> {
  for (let at = 0; at < into.length; ) {
    const { bytesRead } = await handle.read(into, at, into.length - at, fileOffset + at);
    if (bytesRead === 0) throw shrank(path, fileOffset + at, size);
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

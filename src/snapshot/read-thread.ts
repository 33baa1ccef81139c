/**
 * Reading a snapshot in a worker thread
 * =====================================
 * Owns reading a snapshot file's bytes and summing them on a second thread while the opening thread
 * restores the graph from them as they arrive: `startSnapshotRead` starts the worker; the opening
 * thread's `waitFor(offset, length)` blocks (Atomics.wait) until those bytes of the file are in, and
 * `finish()` until every byte is in and summed, answering the checksum. So the three costs of an open
 * (the kernel's copy or the disk, CRC-32 at about 1.5 GB/s, the structures' restores and checks)
 * overlap instead of following one another: the open takes about the longest of them, not their sum.
 *
 * Memory: the head and the tail (file.ts) are SharedArrayBuffers both threads see; the worker reads
 * into them in pieces of `pieceBytes` with READS_IN_FLIGHT reads at once (on libuv's thread pool),
 * through the opening thread's own file descriptor (threads share the process's descriptors, so the
 * worker reads the very file opened, even if the path is renamed over meanwhile). The first bytes
 * (header and table, up to `from`) were read and checked by the opening thread already; the worker
 * reads the rest.
 *
 * Order: the opening thread gives the ranges of the file to read, in the order it will want them
 * (file.ts: structure by structure, in the order the manifest restores them, each structure's
 * sections in the tail too); pieces are read in that order, READS_IN_FLIGHT at a time. Each piece
 * is summed from 0 as it comes in, and the pieces' CRCs are put together in file order at the end
 * (crc32-combine.ts), so the order of reading costs no second pass.
 *
 * Checks: once every byte is in and summed, the worker runs the verify passes the restore defers
 * (graph-manifest's STORED_CHECKS: every entityId's hash and order, every statement row's ids and
 * position) over the same bytes, each one the opening thread has not claimed yet (a word per check,
 * taken by compare-exchange): the opening thread runs its restores first and the passes last, so
 * whichever thread is free first takes the next pass, and their verdicts come back through the
 * shared words (a failure's error in the error area).
 *
 * Shared control words (Int32Array): one per piece (1 once in), an event counter the opening thread
 * waits on (bumped and notified at every piece, at the end and at a failure), the state (RUNNING,
 * DONE, FAILED) and the two checksums. A failure's error is written as JSON into a shared byte area
 * (the opening thread, blocked in Atomics.wait, cannot take a message) and rebuilt there: the same
 * INVALID_SNAPSHOT error a read on the opening thread would throw. A worker silent for STALL_MS (it
 * died, or the disk hangs) fails the open rather than hang it.
 *
 * Cost: starting the worker (about 30 ms, before the first byte is read); the opening thread waits
 * only for bytes not in yet. This file is also the worker's entry point (it runs when loaded as a
 * worker with its workerData).
 */

import { read } from "node:fs";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { crc32 } from "node:zlib";

import { QuiverError } from "../engine/errors.js";
import type { CheckHelper } from "./container-serial.js";
import { crc32Combine } from "./crc32-combine.js";

/** workerData's kind of this file's worker. */
const KIND = "quiver.snapshot-read";
/** Reads in flight at once in the worker (each on a thread of libuv's pool). */
export const READS_IN_FLIGHT = 4;
/** Longest wait for the worker before the open fails (it died, or the disk hangs). */
const STALL_MS = 120_000;
/** Bytes of a failure's JSON the worker can hand back. */
const ERROR_BYTES = 4096;

/** Control words after the pieces' own. */
const EVENTS = 0;
const STATE = 1;
const HEAD_SUM = 2;
const SUM = 3;
const ERROR_LENGTH = 4;
/** The length of a check's failure in the error area (the reading's own failure has ERROR_LENGTH). */
const CHECK_ERROR_LENGTH = 5;
const PIECES = 6;
/** States (0: running). */
const DONE = 1;
const FAILED = 2;
/** States of a check's word (after the pieces' words): free, the worker's (running, passed, failed), the opening thread's. */
const CHECK_FREE = 0;
const CHECK_RUNNING = 1;
const CHECK_PASSED = 2;
const CHECK_FAILED = 3;
const CHECK_TAKEN = 4;

/** What the worker is told: the opening thread's options, and the shared words it reports through. */
interface ReadRequest extends SnapshotReadOptions {
  kind: typeof KIND;
  control: SharedArrayBuffer;
  error: SharedArrayBuffer;
}

/** One piece: bytes [fileOffset, fileOffset + length) of the file, at `at` of the head or tail. */
interface Piece {
  inTail: boolean;
  at: number;
  length: number;
  fileOffset: number;
}

/**
 * The pieces to read, in the order they are read: each range of `ranges` (flat [start, end) pairs
 * that together cover [from, size) once, none across `split`) cut into pieces of `pieceBytes`.
 */
function piecesOf(ranges: readonly number[], split: number, pieceBytes: number): Piece[] {
  const pieces: Piece[] = [];
  for (let r = 0; r < ranges.length; r += 2) {
    const [start, end] = [ranges[r]!, ranges[r + 1]!];
    const inTail = start >= split;
    const base = inTail ? split : 0;
    for (let at = start; at < end; at += pieceBytes)
      pieces.push({ inTail, at: at - base, length: Math.min(pieceBytes, end - at), fileOffset: at });
  }
  return pieces;
}

/** The opening thread's side of a read in progress (see the banner), and of the checks the worker runs after it. */
export interface SnapshotReading extends CheckHelper {
  /** Blocks until bytes [offset, offset + length) of the file are in; throws the read's failure. */
  waitFor(offset: number, length: number): void;
  /**
   * Blocks until every byte is in and summed: the CRC-32 of [CHECKSUM_FROM, split) (`headChecksum`)
   * and of [CHECKSUM_FROM, size) (`checksum`). Throws the read's failure. The worker is then done
   * with the file descriptor.
   */
  finish(): { checksum: number; headChecksum: number };
}

export interface SnapshotReadOptions {
  fd: number;
  path: string;
  size: number;
  head: SharedArrayBuffer;
  tail: SharedArrayBuffer;
  /** Head bytes [0, from) are in already (the header and the table). */
  from: number;
  /** CRC-32 of bytes [CHECKSUM_FROM, from), from 0. */
  fromChecksum: number;
  /**
   * The rest of the file in the order to read it: [start, end) pairs (flat) that cover [from, size)
   * exactly once, none across the head's end. The order the opening thread will want the bytes in.
   */
  ranges: number[];
  /** Names of graph-manifest's STORED_CHECKS the worker runs once every byte is in, unless claimed here first. */
  checks: string[];
  pieceBytes: number;
}

/**
 * Starts the worker reading the file into `head` and `tail`; resolves once it runs (see the
 * banner), or to undefined when no worker could be started.
 */
export async function startSnapshotRead(options: SnapshotReadOptions): Promise<SnapshotReading | undefined> {
  const split = options.head.byteLength;
  const pieces = piecesOf(options.ranges, split, options.pieceBytes);
  checkCover(pieces, options.from, split, options.size);
  const control = new Int32Array(new SharedArrayBuffer(4 * (PIECES + pieces.length + options.checks.length)));
  const CHECKS = PIECES + pieces.length;
  const error = new SharedArrayBuffer(ERROR_BYTES);
  const request: ReadRequest = { kind: KIND, ...options, control: control.buffer as SharedArrayBuffer, error };
  const worker = new Worker(new URL(import.meta.url), { workerData: request });
  // It ends by itself once every piece is in; it never keeps the process alive.
  worker.unref();
  // Started (its first message), or failed to: a worker that cannot start is seen here, not as a
  // stall in waitFor (and the caller reads on its own thread). Later, the worker reports its
  // failures through the control words (runReadWorker catches them all); an 'error' event then only
  // ends a wait early by its stall.
  const started = await new Promise<void>((resolve, reject) => {
    const settle = (how: () => void): void => {
      worker.off("message", started);
      worker.off("exit", exited);
      how();
    };
    const started = (): void => settle(resolve);
    const exited = (code: number): void =>
      settle(() => reject(new Error(`the reading thread ended (exit code ${code}) before it started`)));
    worker.once("message", started);
    worker.once("exit", exited);
    worker.on("error", (e) => settle(() => reject(e)));
  }).then(
    () => true,
    () => false,
  );
  if (!started) return undefined;
  const failure = (lengthWord = ERROR_LENGTH): never => {
    const length = Atomics.load(control, lengthWord);
    const { message, code, quiver } = JSON.parse(
      Buffer.from(new Uint8Array(error, 0, length)).toString("utf8"),
    ) as FailureRecord;
    // Each branch: the worker's own INVALID_SNAPSHOT (a file that shrank), or a system error.
    if (quiver) throw new QuiverError("INVALID_SNAPSHOT", message);
    throw Object.assign(new Error(message), code === undefined ? {} : { code });
  };
  /** Waits until `ready()` holds, the worker failing, or STALL_MS without an event. */
  const waitUntil = (ready: () => boolean): void => {
    for (;;) {
      const seen = Atomics.load(control, EVENTS);
      if (ready()) return;
      if (Atomics.load(control, STATE) === FAILED) failure();
      if (Atomics.wait(control, EVENTS, seen, STALL_MS) === "timed-out")
        throw new QuiverError(
          "INVALID_SNAPSHOT",
          `${options.path}: cannot read the snapshot: the reading thread has not answered for ${STALL_MS / 1000} s`,
        );
    }
  };
  const pieceIn = (k: number): boolean => Atomics.load(control, PIECES + k) === 1;
  return {
    waitFor(offset: number, length: number): void {
      const end = offset + length;
      for (let k = 0; k < pieces.length; k++) {
        const p = pieces[k]!;
        // Only the pieces that overlap the bytes asked for.
        if (p.fileOffset < end && p.fileOffset + p.length > offset) waitUntil(() => pieceIn(k));
      }
    },
    checks: options.checks,
    claim(k: number): boolean {
      return Atomics.compareExchange(control, CHECKS + k, CHECK_FREE, CHECK_TAKEN) === CHECK_FREE;
    },
    verdict(k: number): void {
      waitUntil(() => Atomics.load(control, CHECKS + k) >= CHECK_PASSED);
      if (Atomics.load(control, CHECKS + k) === CHECK_FAILED) failure(CHECK_ERROR_LENGTH);
    },
    finish() {
      waitUntil(() => Atomics.load(control, STATE) === DONE);
      return { headChecksum: Atomics.load(control, HEAD_SUM) >>> 0, checksum: Atomics.load(control, SUM) >>> 0 };
    },
  };
}

/** Throws (a bug of the caller's, not a damaged file) unless `pieces` cover [from, size) once, none across `split`. */
function checkCover(pieces: readonly Piece[], from: number, split: number, size: number): void {
  const sorted = [...pieces].sort((a, b) => a.fileOffset - b.fileOffset);
  let at = from;
  for (const p of sorted) {
    if (p.fileOffset !== at || p.inTail !== p.fileOffset >= split || (!p.inTail && at + p.length > split))
      throw new RangeError(`snapshot read: the ranges do not cover [${from}, ${size}) once (at ${at})`);
    at += p.length;
  }
  if (at !== size) throw new RangeError(`snapshot read: the ranges end at ${at}, not ${size}`);
}

/** A failure as the worker hands it back. */
interface FailureRecord {
  message: string;
  code?: string;
  quiver: boolean;
}

/** The worker: read every piece, mark each as it comes in, sum them, write the checksums (see the banner). */
async function runReadWorker(request: ReadRequest): Promise<void> {
  parentPort?.postMessage("started");
  const control = new Int32Array(request.control);
  const head = new Uint8Array(request.head);
  const tail = new Uint8Array(request.tail);
  const split = head.length;
  const pieces = piecesOf(request.ranges, split, request.pieceBytes);
  const CHECKS = PIECES + pieces.length;
  const bytesOf = (p: Piece): Uint8Array => (p.inTail ? tail : head).subarray(p.at, p.at + p.length);
  const event = (): void => {
    Atomics.add(control, EVENTS, 1);
    Atomics.notify(control, EVENTS);
  };
  // A read settles to its failure (or null), so that one failing while another is awaited is never
  // an unhandled rejection; the first failure in reading order is the one reported.
  const settled: Promise<unknown>[] = new Array(pieces.length);
  let launched = 0;
  const launch = (): void => {
    if (launched >= pieces.length) return;
    const k = launched++;
    settled[k] = readFully(request.fd, bytesOf(pieces[k]!), pieces[k]!.fileOffset, request.path, request.size).then(
      () => {
        Atomics.store(control, PIECES + k, 1);
        event();
        launch();
        return null;
      },
      (failure: unknown) => ({ failure }),
    );
  };
  for (let i = 0; i < READS_IN_FLIGHT; i++) launch();
  const sums = new Int32Array(pieces.length);
  try {
    for (let k = 0; k < pieces.length; k++) {
      const outcome = (await settled[k]) as { failure: unknown } | null;
      if (outcome !== null) throw outcome.failure;
      sums[k] = crc32(bytesOf(pieces[k]!));
    }
  } catch (e) {
    // Every read launched ends before the failure is told: the opening thread then closes the file.
    await Promise.all(settled.slice(0, launched));
    const record: FailureRecord =
      e instanceof QuiverError
        ? { message: e.message, quiver: true }
        : { message: e instanceof Error ? e.message : String(e), code: (e as { code?: string }).code, quiver: false };
    const bytes = Buffer.from(JSON.stringify(record), "utf8").subarray(0, ERROR_BYTES);
    new Uint8Array(request.error).set(bytes);
    Atomics.store(control, ERROR_LENGTH, bytes.length);
    Atomics.store(control, STATE, FAILED);
    event();
    return;
  }
  // The pieces' CRCs put together in file order: the head's (after what the opening thread
  // summed), the tail's, then the two.
  let headSum = request.fromChecksum;
  let tailSum = 0;
  const inFileOrder = pieces.map((_, k) => k).sort((a, b) => pieces[a]!.fileOffset - pieces[b]!.fileOffset);
  for (const k of inFileOrder) {
    const p = pieces[k]!;
    if (p.inTail) tailSum = crc32Combine(tailSum, sums[k]! >>> 0, p.length);
    else headSum = crc32Combine(headSum, sums[k]! >>> 0, p.length);
  }
  Atomics.store(control, HEAD_SUM, headSum | 0);
  Atomics.store(control, SUM, crc32Combine(headSum, tailSum, request.size - split) | 0);
  Atomics.store(control, STATE, DONE);
  event();
  await runChecks(request, control, CHECKS);
}

/**
 * The checks of STORED_CHECKS in `request.checks` the opening thread has not claimed, each over
 * the bytes just read (a reader of its own on the shared head and tail), each one's verdict stored
 * in its word; the first failure's error in the error area (the opening thread throws it).
 */
async function runChecks(request: ReadRequest, control: Int32Array, at: number): Promise<void> {
  if (request.checks.length === 0) return;
  // Loaded only now: the reads started without waiting for the engine's modules.
  const [{ openContainer }, { ContainerReader }, { STORED_CHECKS }] = await Promise.all([
    import("./container.js"),
    import("./container-serial.js"),
    import("./graph-manifest.js"),
  ]);
  const bytes = { head: new Uint8Array(request.head), tail: new Uint8Array(request.tail) };
  const sum = Atomics.load(control, SUM) >>> 0;
  let reader: InstanceType<typeof ContainerReader> | undefined;
  for (let k = 0; k < request.checks.length; k++) {
    if (Atomics.compareExchange(control, at + k, CHECK_FREE, CHECK_RUNNING) !== CHECK_FREE) continue;
    let verdict = CHECK_PASSED;
    try {
      // The file's own checksum: a file that fails it is refused by the opening thread for that.
      reader ??= new ContainerReader(openContainer(bytes, request.path, { checksum: sum }).values, {
        fileName: request.path,
      });
      STORED_CHECKS[request.checks[k]!]!(reader);
    } catch (e) {
      verdict = CHECK_FAILED;
      const record: FailureRecord =
        e instanceof QuiverError
          ? { message: e.message, quiver: true }
          : { message: e instanceof Error ? e.message : String(e), quiver: false };
      const text = Buffer.from(JSON.stringify(record), "utf8").subarray(0, ERROR_BYTES);
      new Uint8Array(request.error).set(text);
      Atomics.store(control, CHECK_ERROR_LENGTH, text.length);
    }
    Atomics.store(control, at + k, verdict);
    Atomics.add(control, EVENTS, 1);
    Atomics.notify(control, EVENTS);
    // After a failure the opening thread throws at that check: the others are not needed.
    if (verdict === CHECK_FAILED) return;
  }
}

/** Fills `into` from `fileOffset` on; a file that ends early shrank while being read. */
async function readFully(fd: number, into: Uint8Array, fileOffset: number, path: string, size: number): Promise<void> {
  for (let at = 0; at < into.length; ) {
    const bytesRead = await new Promise<number>((resolve, reject) =>
      read(fd, into, at, into.length - at, fileOffset + at, (e, n) => (e === null ? resolve(n) : reject(e))),
    );
    if (bytesRead === 0) throw shrank(path, fileOffset + at, size);
    at += bytesRead;
  }
}

/** The error of a file that ends before `at` while being read (it had `size` bytes when opened). */
export function shrank(path: string, at: number, size: number): QuiverError {
  return new QuiverError(
    "INVALID_SNAPSHOT",
    `${path}: truncated: the file shrank below ${at} bytes while being read (it had ${size})`,
  );
}

// This file runs as its worker when loaded with that workerData, else as a module.
const request = isMainThread ? undefined : (workerData as Partial<ReadRequest> | null);
if (request?.kind === KIND) void runReadWorker(request as ReadRequest);

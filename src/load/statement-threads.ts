/**
 * Statement lines, parsed in worker threads
 * =========================================
 * Owns reading a plain statements.jsonl with several threads. The file is cut into byte ranges at
 * line ends (splitRanges: a cut is moved forward to just past the next LF, so no line, and no
 * multi-byte character, is ever split), RANGES_PER_THREAD of them per thread, dealt out in turn
 * (range r to thread r mod T). Each worker thread reads its ranges in order, splits lines on
 * LF, and reads each line of the common shape (statement-line.ts) whose three entityIds it finds and
 * whose fingerprint is absent or 16 lowercase hex digits: such a line becomes a row of Uint32 columns
 * (subject, predicate, object as the builder's column indexes, dense ids once sealed; the fingerprint's halves). Every
 * other line (a blank one, another shape, an unknown entity, another fingerprint text, the file's
 * first line, which may carry a BOM) goes back as its bytes, and the main thread reads it the
 * one-thread way. A line is read from its bytes (readRow: the shape's literal keys compared byte by
 * byte, each value's bytes checked against statement-line.ts's class of plain characters, so exactly
 * the lines its regular expression matches, with the same values), and each id is found in the
 * entity id table all threads share (entity-id-table.ts): no string is made for a line.
 * The main thread adds the ranges in file order, each row through the builder's
 * checks (fingerprint duplicates and conflicts, the same statement twice): so the rows, the graph and
 * the first bad line named (file:line: reason) are what one thread gives.
 *
 *   main -> worker   workerData { kind, path, ranges, table, consumed, maxLineBytes }
 *   worker -> main   { kind: "batch", lines, flags, s, p, o, hi, lo, raw, lineCount, bytes, last }
 *                    (line numbers local to the range; `last` on a range's last batch; arrays
 *                    transferred, not copied)
 *   main -> worker   consumed[0] += 1 after each batch added (shared memory, notified)
 *   worker -> main   { kind: "too-long", line }   (a line past maxLineBytes: the range ends there)
 *   worker -> main   { kind: "done" } | { kind: "error", message }
 *
 * The entity id table's arrays are SharedArrayBuffers: every worker reads the one made on the main
 * thread, none copies it. A worker runs at most MAX_BATCHES_AHEAD batches ahead of what the main
 * thread has added of its output (a shared counter per worker, Atomics.wait / notify): the rows
 * waiting in memory are bounded (25 bytes a line, about 1.6 MB a batch) whatever the file's size,
 * and since the ranges are dealt out in turn, every thread has work while the main thread adds
 * another's. Cost: O(bytes / threads) per worker, and the builder's checks O(lines) on the main thread.
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { closeSync, openSync, readSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { derivedFingerprintHalves } from "../engine/statements/fingerprint.js";
import {
  type EntityIdTable,
  entityHashHi,
  entityHashLo,
  entityIndex,
  homeSlot,
  probeEntitySlot,
  slotEntry,
} from "./entity-id-table.js";

/** workerData's kind: the one this file answers to. */
const WORKER_KIND = "quiver.statement-parser";
/** Lines per batch message: large enough that a message's cost vanishes, small enough to start early. */
export const PARSE_BATCH_LINES = 65_536;
/** Bytes a worker reads at once. */
const READ_BYTES = 1 << 20;
/** Bytes read at once while looking for the LF after a cut. */
const SCAN_BYTES = 1 << 16;
/** Ranges per parser thread: enough that a thread's next range is under way while the main thread adds another's. */
export const RANGES_PER_THREAD = 16;
/** Batches a worker may have posted that the main thread has not yet added: bounds the rows in memory. */
const MAX_BATCHES_AHEAD = 16;
/** Most parser threads by default, whatever the cores: past this the main thread's checks are the limit. */
export const MAX_DEFAULT_THREADS = 8;
/** The longest fingerprint a worker reads itself: 16 hex digits. */
const HEX_DIGITS = 16;
const MIB = 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;

/**
 * A row's flag: no fingerprint (hi, lo: the derived one), a 16-hex fingerprint (in hi, lo) that is
 * not the derived one, one that is, or a line left to the main thread. The first three are the
 * builder's RefFingerprint values (REF_DERIVED, REF_GIVEN, REF_GIVEN_DERIVED; the loader checks they
 * agree), so a run of rows goes to the builder as it is; written here, not imported, so that a parser
 * thread does not load the builder's modules.
 */
export const ROW_DERIVED = 0;
export const ROW_HEX = 1;
export const ROW_HEX_DERIVED = 2;
export const ROW_RAW = 3;

interface Request {
  kind: typeof WORKER_KIND;
  path: string;
  /** The worker's ranges in order, as start, end pairs. A range that starts at 0 begins the file: its line 1 may carry a BOM. */
  ranges: number[];
  /** The entityIds' table (with each one's entityId hash), shared. */
  table: EntityIdTable;
  /** consumed[0]: this worker's batches the main thread has added (on a SharedArrayBuffer). */
  consumed: Int32Array;
  maxLineBytes: number;
}

/** A run of lines of one range. Line numbers are local to the range (its first line is 1). */
export interface Batch {
  kind: "batch";
  /** Per record (a line that is not blank is a record): its local line number. */
  lines: Uint32Array;
  flags: Uint8Array;
  s: Uint32Array;
  p: Uint32Array;
  o: Uint32Array;
  hi: Uint32Array;
  lo: Uint32Array;
  /** The bytes of the ROW_RAW records, in order. */
  raw: Uint8Array[];
  /** Lines of the range read so far (its last line number). */
  lineCount: number;
  /** The file offset just past the batch's last line (what is read of the file, and the lines' bytes from a range's start). */
  bytes: number;
  /** True on the range's last batch. */
  last: boolean;
}

export type ParserReply =
  | Batch
  | { kind: "too-long"; line: number; lineCount: number }
  | { kind: "done" }
  | { kind: "error"; message: string };

/**
 * Cuts bytes [0, size) of the file open as `fd` into at most `parts` ranges that begin at line starts:
 * each even cut moves to just past the LF at or after it. Returns the ranges' starts and the end.
 */
export function splitRanges(fd: number, size: number, parts: number): number[] {
  const cuts = [0];
  const buffer = Buffer.allocUnsafe(SCAN_BYTES);
  for (let k = 1; k < parts; k++) {
    let at = Math.max(Math.floor((size * k) / parts), cuts[cuts.length - 1]!);
    let cut = size;
    while (at < size) {
      const n = readSync(fd, buffer, 0, Math.min(SCAN_BYTES, size - at), at);
      if (n <= 0) break;
      const lf = buffer.subarray(0, n).indexOf(LF);
      if (lf >= 0) {
        cut = at + lf + 1;
        break;
      }
      at += n;
    }
    // A cut that lands where the last one did (long lines) or at the end makes no new range.
    if (cut > cuts[cuts.length - 1]! && cut < size) cuts.push(cut);
  }
  cuts.push(size);
  return cuts;
}

/** A parser thread's messages, in order, as an async queue; stop() ends the worker. */
export interface ParserThread {
  next(): Promise<ParserReply>;
  /** Tells the worker that one more of its batches was added: it may read on. */
  added(): void;
  stop(): void;
}

/** Starts a parser thread for `ranges` of `path` (start, end pairs, in file order). */
export function startParserThread(
  path: string,
  ranges: number[],
  table: EntityIdTable,
  maxLineBytes: number,
): ParserThread {
  const consumed = new Int32Array(new SharedArrayBuffer(4));
  const request: Request = { kind: WORKER_KIND, path, ranges, table, consumed, maxLineBytes };
  const worker = new Worker(new URL(import.meta.url), {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: Math.floor(getHeapStatistics().heap_size_limit / MIB) },
  });
  const queue: ParserReply[] = [];
  let waiting: ((reply: ParserReply) => void) | undefined;
  let ended = false;
  const put = (reply: ParserReply): void => {
    if (ended) return;
    if (reply.kind === "done" || reply.kind === "error" || reply.kind === "too-long") ended = true;
    if (waiting !== undefined) {
      const w = waiting;
      waiting = undefined;
      w(reply);
    } else queue.push(reply);
  };
  worker.on("message", put);
  worker.on("error", (e) => put({ kind: "error", message: e.message }));
  worker.on("exit", (code) => put({ kind: "error", message: `the parser thread exited with code ${code}` }));
  return {
    next: () => {
      const r = queue.shift();
      if (r !== undefined) return Promise.resolve(r);
      return new Promise((resolve) => (waiting = resolve));
    },
    added: () => {
      Atomics.add(consumed, 0, 1);
      Atomics.notify(consumed, 0);
    },
    stop: () => {
      ended = true;
      // A worker waiting for room wakes (and is ended) rather than waits on.
      Atomics.store(consumed, 0, 0x3fffffff);
      Atomics.notify(consumed, 0);
      void worker.terminate();
    },
  };
}

/** Columns of one batch being filled. */
class BatchWriter {
  lines = new Uint32Array(PARSE_BATCH_LINES);
  flags = new Uint8Array(PARSE_BATCH_LINES);
  s = new Uint32Array(PARSE_BATCH_LINES);
  p = new Uint32Array(PARSE_BATCH_LINES);
  o = new Uint32Array(PARSE_BATCH_LINES);
  hi = new Uint32Array(PARSE_BATCH_LINES);
  lo = new Uint32Array(PARSE_BATCH_LINES);
  raw: Uint8Array[] = [];
  count = 0;

  get full(): boolean {
    return this.count === PARSE_BATCH_LINES;
  }

  take(lineCount: number, bytes: number, last: boolean): [Batch, ArrayBuffer[]] {
    const n = this.count;
    const batch: Batch = {
      kind: "batch",
      lines: this.lines.slice(0, n),
      flags: this.flags.slice(0, n),
      s: this.s.slice(0, n),
      p: this.p.slice(0, n),
      o: this.o.slice(0, n),
      hi: this.hi.slice(0, n),
      lo: this.lo.slice(0, n),
      raw: this.raw,
      lineCount,
      bytes,
      last,
    };
    this.raw = [];
    this.count = 0;
    const buffers = [batch.lines, batch.flags, batch.s, batch.p, batch.o, batch.hi, batch.lo].map(
      (a) => a.buffer as ArrayBuffer,
    );
    return [batch, buffers];
  }
}

/**
 * A literal part of a statement line of the common shape (statement-line.ts): its bytes, and its
 * whole 4-byte words as little-endian numbers (compared a word at a time: a quarter of the steps).
 */
interface Literal {
  bytes: Uint8Array;
  words: Uint32Array;
}

function literal(text: string): Literal {
  const bytes = Buffer.from(text, "latin1");
  const words = new Uint32Array(bytes.length >>> 2);
  for (let w = 0; w < words.length; w++) words[w] = bytes.readUInt32LE(4 * w);
  return { bytes, words };
}

const OPEN_SUBJECT = literal('{"subjectEntityId":"');
const THEN_PREDICATE = literal('","predicateEntityId":"');
const THEN_OBJECT = literal('","objectEntityId":"');
const THEN_FINGERPRINT = literal('","statementFingerprint":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

/** Whether `literal` is at `line[at...]`, inside [0, end); `view` is a DataView of `line`'s bytes. */
function literalAt(line: Uint8Array, view: DataView, at: number, end: number, literal: Literal): boolean {
  const { bytes, words } = literal;
  if (at + bytes.length > end) return false;
  for (let w = 0; w < words.length; w++) if (view.getUint32(at + 4 * w, true) !== words[w]) return false;
  for (let k = 4 * words.length; k < bytes.length; k++) if (line[at + k] !== bytes[k]) return false;
  return true;
}

/**
 * Where the plain string value that starts at `at` ends (the index of its closing quote), or -1 when
 * a byte outside statement-line.ts's plain class (0x20-0x7E but `"` and `\`) comes first or the line ends.
 */
function plainEnd(line: Uint8Array, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const b = line[i]!;
    if (b === QUOTE) return i;
    if (b < 0x20 || b > 0x7e || b === BACKSLASH) return -1;
  }
  return -1;
}

/** The value of a lowercase hex digit, or -1. */
function hexDigit(b: number): number {
  return b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1;
}

/**
 * Lines read up to their look-ups and waiting for them (a worker's pipeline): per line, its batch row,
 * its bytes, its three ids' bytes and home slots, and what its shape gave. readShape fills it, line
 * after line, reading each home slot's first word as it goes (the reads do not wait for one another,
 * so their cache misses overlap: at 10M ids the table is far larger than the cache and nearly every
 * home slot is a miss); resolveRows then looks the ids up, in order, their slots now in the cache.
 */
class Pipeline {
  /** Lines held at once: about 3 x 64 bytes of table each, so the slots read stay in the L2 cache. */
  static readonly LINES = 256;
  count = 0;
  /** What the home slots' first words summed to: kept so that the reads are not optimized away. */
  touched = 0;
  /** The buffer each line's bytes are in, [start, lf) (its LF excluded, a CR kept): its bytes if it goes back raw. */
  readonly buffers: Uint8Array[] = new Array(Pipeline.LINES);
  readonly start = new Int32Array(Pipeline.LINES);
  readonly lf = new Int32Array(Pipeline.LINES);
  readonly at = new Int32Array(Pipeline.LINES);
  /** ROW_DERIVED, ROW_HEX, or ROW_RAW when the shape already sends it back. */
  readonly flag = new Uint8Array(Pipeline.LINES);
  /** The three ids' bytes: [ids[6k], ids[6k + 1]) the subject's, then the predicate's, the object's. */
  readonly ids = new Int32Array(6 * Pipeline.LINES);
  readonly homes = new Int32Array(3 * Pipeline.LINES);

  get full(): boolean {
    return this.count === Pipeline.LINES;
  }
}

/**
 * Reads bytes [start, end) of `line` up to its look-ups into the pipeline's next line (row `at` of
 * `batch`): the shape of a statement line of the common shape whose fingerprint is absent or 16
 * lowercase hex digits, and its three ids' home slots; ROW_RAW for any other line (the main thread
 * reads it the one-thread way). resolveRows finishes it.
 */
function readShape(
  line: Uint8Array,
  view: DataView,
  start: number,
  end: number,
  table: EntityIdTable,
  batch: BatchWriter,
  at: number,
  pipe: Pipeline,
): number {
  if (!literalAt(line, view, start, end, OPEN_SUBJECT)) return ROW_RAW;
  const s0 = start + OPEN_SUBJECT.bytes.length;
  const s1 = plainEnd(line, s0, end);
  if (s1 < 0 || !literalAt(line, view, s1, end, THEN_PREDICATE)) return ROW_RAW;
  const p0 = s1 + THEN_PREDICATE.bytes.length;
  const p1 = plainEnd(line, p0, end);
  if (p1 < 0 || !literalAt(line, view, p1, end, THEN_OBJECT)) return ROW_RAW;
  const o0 = p1 + THEN_OBJECT.bytes.length;
  const o1 = plainEnd(line, o0, end);
  if (o1 < 0) return ROW_RAW;
  // Each branch: the line ends after the object (no fingerprint), or a fingerprint follows.
  let flag: number;
  if (o1 + 2 === end && line[o1 + 1] === CLOSE_BRACE) flag = ROW_DERIVED;
  else {
    if (!literalAt(line, view, o1, end, THEN_FINGERPRINT)) return ROW_RAW;
    const f0 = o1 + THEN_FINGERPRINT.bytes.length;
    const f1 = plainEnd(line, f0, end);
    if (f1 < 0 || f1 + 2 !== end || line[f1 + 1] !== CLOSE_BRACE || f1 - f0 !== HEX_DIGITS) return ROW_RAW;
    let hi = 0;
    let lo = 0;
    for (let k = 0; k < HEX_DIGITS; k++) {
      const digit = hexDigit(line[f0 + k]!);
      if (digit < 0) return ROW_RAW;
      if (k < HEX_DIGITS / 2) hi = (hi << 4) | digit;
      else lo = (lo << 4) | digit;
    }
    batch.hi[at] = hi >>> 0;
    batch.lo[at] = lo >>> 0;
    flag = ROW_HEX;
  }
  const k = pipe.count;
  const { ids, homes } = pipe;
  ids[6 * k] = s0;
  ids[6 * k + 1] = s1;
  ids[6 * k + 2] = p0;
  ids[6 * k + 3] = p1;
  ids[6 * k + 4] = o0;
  ids[6 * k + 5] = o1;
  const sHome = homeSlot(table, line, s0, s1);
  const pHome = homeSlot(table, line, p0, p1);
  const oHome = homeSlot(table, line, o0, o1);
  homes[3 * k] = sHome;
  homes[3 * k + 1] = pHome;
  homes[3 * k + 2] = oHome;
  pipe.touched ^= slotEntry(table, sHome) ^ slotEntry(table, pHome) ^ slotEntry(table, oHome);
  return flag;
}

/** Line k's entity of `role` (0 subject, 1 predicate, 2 object) in the table, from its hashes and home slot read ahead; -1 when absent. */
function probeRole(table: EntityIdTable, line: Uint8Array, pipe: Pipeline, k: number, role: number): number {
  const home = pipe.homes[3 * k + role]!;
  return probeEntitySlot(
    table,
    line,
    pipe.ids[6 * k + 2 * role]!,
    pipe.ids[6 * k + 2 * role + 1]!,
    home,
    slotEntry(table, home),
  );
}

/**
 * Finishes the pipeline's lines in order: looks their ids up (their home slots were read by
 * readShape) and writes their rows; a line whose shape sent it back, or one with an unknown entity,
 * goes back as its bytes (in order, so batch.raw holds them as the rows flag them). Empties the pipeline.
 */
function resolveRows(table: EntityIdTable, batch: BatchWriter, pipe: Pipeline): void {
  for (let k = 0; k < pipe.count; k++) {
    const at = pipe.at[k]!;
    const line = pipe.buffers[k]!;
    let flag = pipe.flag[k]!;
    // Each branch: a line whose shape is read and whose three ids are known is a row; any other goes back.
    const s = flag === ROW_RAW ? -1 : probeRole(table, line, pipe, k, 0);
    const p = s < 0 ? -1 : probeRole(table, line, pipe, k, 1);
    const o = p < 0 ? -1 : probeRole(table, line, pipe, k, 2);
    if (o < 0) {
      // Blank lines too: the main thread skips them as one thread does.
      batch.flags[at] = ROW_RAW;
      batch.raw.push(Uint8Array.from(line.subarray(pipe.start[k]!, pipe.lf[k]!)));
      pipe.buffers[k] = EMPTY_LINE;
      continue;
    }
    // The derived fingerprint, made here rather than on the main thread, from the hashes the table's
    // slots hold beside the ids (no other array read). Each branch: it is the row's value when none was
    // given; a given one is compared with it, so the main thread knows whether to store the given one
    // (it does not when equal).
    const derived = derivedFingerprintHalves(
      entityHashHi(table, s),
      entityHashLo(table, s),
      entityHashHi(table, p),
      entityHashLo(table, p),
      entityHashHi(table, o),
      entityHashLo(table, o),
    );
    if (flag === ROW_DERIVED) {
      batch.hi[at] = derived[0];
      batch.lo[at] = derived[1];
    } else if (batch.hi[at] === derived[0] && batch.lo[at] === derived[1]) flag = ROW_HEX_DERIVED;
    batch.s[at] = entityIndex(table, s);
    batch.p[at] = entityIndex(table, p);
    batch.o[at] = entityIndex(table, o);
    batch.flags[at] = flag;
    pipe.buffers[k] = EMPTY_LINE;
  }
  pipe.count = 0;
}

/** What a finished pipeline line's buffer is set to: the read buffer is not held past its line. */
const EMPTY_LINE = new Uint8Array(0);

/** The worker's side: read the ranges in turn, post batches. */
function runWorker(request: Request): void {
  const port = parentPort!;
  const batch = new BatchWriter();
  const pipe = new Pipeline();
  const { consumed } = request;
  let posted = 0;
  let first = false;
  let lineCount = 0;
  let offset = 0;
  /** The file offset just past the last line read. */
  let lineEnd = 0;

  /**
   * One line's bytes, [start, lf) of `raw`, its LF gone (no view made for it: one less object a
   * line), into the pipeline; the pipeline's lines are finished (resolveRows) when it is full, when
   * the batch is, and before `raw` is read into again (the end of each read).
   */
  /** A DataView of the buffer lines are read from: made once a buffer (a read, or a joined line). */
  let viewed: Uint8Array | undefined;
  let view: DataView | undefined;
  const viewOf = (raw: Uint8Array): DataView => {
    if (raw !== viewed || view === undefined) {
      viewed = raw;
      view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    }
    return view;
  };

  const line = (raw: Buffer, start: number, lf: number): void => {
    const at = batch.count;
    const local = lineCount;
    let end = lf;
    if (end > start && raw[end - 1] === CR) end--;
    // Each test below leaves a line to the main thread, whose one-thread reading gives its outcome.
    const flag =
      !(first && local === 1) && end - start <= request.maxLineBytes
        ? readShape(raw, viewOf(raw), start, end, request.table, batch, at, pipe)
        : ROW_RAW;
    const k = pipe.count++;
    pipe.buffers[k] = raw;
    pipe.start[k] = start;
    pipe.lf[k] = lf;
    pipe.at[k] = at;
    pipe.flag[k] = flag;
    batch.lines[at] = local;
    batch.count++;
    if (pipe.full || batch.full) resolveRows(request.table, batch, pipe);
  };

  const flush = (last: boolean): void => {
    resolveRows(request.table, batch, pipe);
    // Room first: at most MAX_BATCHES_AHEAD batches posted and not yet added by the main thread.
    for (;;) {
      const added = Atomics.load(consumed, 0);
      if (posted - added < MAX_BATCHES_AHEAD) break;
      Atomics.wait(consumed, 0, added);
    }
    const [message, transfer] = batch.take(lineCount, lineEnd, last);
    port.postMessage(message, transfer);
    posted++;
  };

  const fd = openSync(request.path, "r");
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (let k = 0; k + 1 < request.ranges.length; k += 2) {
      const rangeEnd = request.ranges[k + 1]!;
      offset = request.ranges[k]!;
      first = offset === 0;
      lineCount = 0;
      lineEnd = offset;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      while (offset < rangeEnd) {
        const n = readSync(fd, buffer, 0, Math.min(READ_BYTES, rangeEnd - offset), offset);
        if (n <= 0) break;
        offset += n;
        const chunk = buffer.subarray(0, n);
        let start = 0;
        for (let lf = chunk.indexOf(LF, start); lf !== -1; lf = chunk.indexOf(LF, start)) {
          lineCount++;
          if (pendingBytes === 0) line(chunk, start, lf);
          else {
            pending.push(chunk.subarray(start, lf));
            const joined = Buffer.concat(pending, pendingBytes + (lf - start));
            pending = [];
            pendingBytes = 0;
            line(joined, 0, joined.length);
          }
          start = lf + 1;
          lineEnd = offset - n + start;
          if (batch.full) flush(false);
        }
        // The read buffer is read into again next: its lines are finished first.
        resolveRows(request.table, batch, pipe);
        if (start < n) {
          // The buffer is reused: a cut line's piece is copied.
          pending.push(Buffer.from(chunk.subarray(start)));
          pendingBytes += n - start;
          if (pendingBytes > request.maxLineBytes + 1) {
            flush(false);
            port.postMessage({ kind: "too-long", line: lineCount + 1, lineCount } satisfies ParserReply);
            return;
          }
        }
      }
      // A last line without LF (only the file's last range can end so) is still a line.
      if (pendingBytes > 0) {
        lineCount++;
        const joined = Buffer.concat(pending, pendingBytes);
        line(joined, 0, joined.length);
      }
      lineEnd = offset;
      flush(true);
    }
    port.postMessage({ kind: "done" } satisfies ParserReply);
  } catch (e) {
    port.postMessage({ kind: "error", message: e instanceof Error ? e.message : String(e) } satisfies ParserReply);
  } finally {
    closeSync(fd);
  }
}

if (!isMainThread && (workerData as Partial<Request> | null)?.kind === WORKER_KIND) runWorker(workerData as Request);

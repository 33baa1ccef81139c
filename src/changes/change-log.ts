/**
 * Change log
 * ==========
 * Owns a live graph's change log on disk (CONTRACT.md "Changes (live updates)"): a directory of
 * numbered batch files, one per applied batch, written by one writer, read in order by anyone
 * (a restarted server, a follower, `quiver compact`). docs/changes.md documents the format.
 *
 *   DIR/LOCK                     the writer's process id, while it holds the log
 *   DIR/0000000000000001.batch   batch 1: a header line, then the batch's JSON Lines as applied
 *   DIR/0000000000000002.batch   ...
 *
 * A batch file: `{"quiverChanges":1,"sequence":N,"bytes":B,"sha256":"<64 hex>"}\n` then exactly B
 * bytes of UTF-8, the batch's JSON Lines (what LiveGraph.prepare was given; applying it to the
 * graph as it stood gives the same result again). The name's number and the header's sequence
 * agree; the numbers run 1, 2, 3... with no gap from the log's first file.
 *
 * Durability: a batch is written to a temporary name (`.N.batch.<pid>.tmp`, never a batch name),
 * fsync'd, renamed to its number, and the directory fsync'd: only then does `append` return, and the
 * batch counts as durable (rename(2) is atomic: a reader sees the whole file or none). A crash
 * before the rename leaves a temporary file, which readers ignore and the next writer removes. A
 * flush that fails after the rename leaves the batch's file (a follower may have applied it
 * already) and stops the writer: it takes no more batches (CHANGE_LOG_UNAVAILABLE) until the log is
 * opened again, so no number is ever taken back or used twice. A
 * numbered file that fails its checks can only be a torn last write (a copy made mid-write, a file
 * system that does not keep rename order); the last file of the log is then ignored whole (the
 * writer sets it aside as `N.batch.torn`); one before the last is damage (INVALID_CHANGE_LOG).
 *
 * One writer: the writer creates LOCK exclusively with its pid; a second writer finds it and refuses
 * (CHANGE_LOG_LOCKED, naming the pid) while that process lives. A lock left by a process that is
 * gone (killed) is taken over. Liveness is `kill(pid, 0)` on this host: the log is meant for one
 * writing host (followers on other hosts only read).
 *
 * Cost: an append is one write, two fsyncs and a rename (the fsyncs dominate: milliseconds on most
 * disks), plus a SHA-256 of the batch (about 2 ms a MiB); reading is a read and a hash per file.
 * `appendAsync` (the server's) runs the two fsyncs at once, off the event loop: one disk wait.
 */

import { createHash } from "node:crypto";
import {
  close,
  closeSync,
  fsync,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

import { QuiverError } from "../engine/errors.js";
import { makeDirectory } from "../snapshot/make-directory.js";

/** The lock file's name in the log directory. */
export const LOCK_FILE = "LOCK";
/** Format version in each batch file's header. */
export const CHANGE_LOG_VERSION = 1;
/** Digits of a batch file's number (zero-padded, so names sort as numbers). */
const SEQUENCE_DIGITS = 16;
const BATCH_NAME = /^(\d{16})\.batch$/;
const BATCH_SUFFIX = ".batch";
const TEMP_NAME = /^\.\d{16}\.batch\.\d+\.tmp$/;

/** One batch as the log holds it. */
export interface LoggedBatch {
  sequence: number;
  text: string;
}

/** What a log directory holds. */
export interface ChangeLogInfo {
  /** First and last whole batch (0 and 0 when none). */
  first: number;
  last: number;
  batches: number;
  bytes: number;
  /** A torn last file, ignored (its name), if any. */
  torn: string | undefined;
  /** The pid in LOCK, if any. */
  lockedBy: number | undefined;
}

export function batchFileName(sequence: number): string {
  return `${String(sequence).padStart(SEQUENCE_DIGITS, "0")}${BATCH_SUFFIX}`;
}

function invalidLog(dir: string, what: string): QuiverError {
  return new QuiverError("INVALID_CHANGE_LOG", `${dir}: ${what}`);
}

/** A batch file's header line, newline included (all ASCII: its length is its bytes). */
function headerLine(sequence: number, bytes: number, sha256: string): string {
  return `${JSON.stringify({ quiverChanges: CHANGE_LOG_VERSION, sequence, bytes, sha256 })}\n`;
}

/** Hex digits of a SHA-256: the header's length does not depend on which. */
const SHA256_HEX_DIGITS = 64;

/**
 * The bytes of a batch file for `text`: made in one buffer, the text encoded into it once behind
 * the header's place (the header's length is known before the hash: every field but the hash is,
 * and the hash has 64 digits), hashed there (unless `sha256`, the SHA-256 of the text's UTF-8 in
 * hex, is given: a live graph's batch digest, batch-chain.ts), then the header written in front.
 * A copy of the text's bytes and a concatenation of header and body would be a second buffer of
 * the batch's size (1 MiB for 10,000 statement puts), which V8 counts as external memory and
 * answers with collections.
 */
export function encodeBatch(sequence: number, text: string, sha256?: string): Buffer {
  const bodyBytes = Buffer.byteLength(text, "utf8");
  const headerBytes = headerLine(sequence, bodyBytes, "0".repeat(SHA256_HEX_DIGITS)).length;
  const out = Buffer.allocUnsafe(headerBytes + bodyBytes);
  out.write(text, headerBytes, "utf8");
  // Each branch: the checksum the caller made of this text (a live graph's batch digest), or made here.
  const checksum = sha256 ?? createHash("sha256").update(out.subarray(headerBytes)).digest("hex");
  out.write(headerLine(sequence, bodyBytes, checksum), 0, "latin1");
  return out;
}

/** A batch file's text, or a sentence saying what is wrong with it. */
export function decodeBatch(sequence: number, bytes: Buffer): { text: string } | { fault: string } {
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) return { fault: "no header line" };
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8", 0, nl));
  } catch {
    return { fault: "the header is not JSON" };
  }
  const h = header as Record<string, unknown>;
  if (typeof header !== "object" || header === null || h["quiverChanges"] !== CHANGE_LOG_VERSION)
    return { fault: `not a Quiver change batch of format ${CHANGE_LOG_VERSION}` };
  if (h["sequence"] !== sequence) return { fault: `the header says sequence ${String(h["sequence"])}` };
  const body = bytes.subarray(nl + 1);
  if (h["bytes"] !== body.length)
    return { fault: `${body.length} bytes of changes, the header says ${String(h["bytes"])}` };
  if (createHash("sha256").update(body).digest("hex") !== h["sha256"]) return { fault: "the checksum does not match" };
  return { text: body.toString("utf8") };
}

/** The numbered batch files of `dir`, ascending (an absent directory has none). */
function listBatches(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw invalidLog(dir, `cannot read the change log directory (${(e as Error).message})`);
  }
  const out: number[] = [];
  for (const name of names) {
    const m = BATCH_NAME.exec(name);
    if (m !== null) out.push(Number(m[1]));
  }
  return out.sort((a, b) => a - b);
}

/**
 * The log's whole batches in order (numbers contiguous), and a torn last file if any. A gap, or a
 * bad file before the last, is INVALID_CHANGE_LOG.
 */
function scan(dir: string): { sequences: number[]; torn: number | undefined } {
  const sequences = listBatches(dir);
  for (let i = 1; i < sequences.length; i++) {
    if (sequences[i] !== sequences[i - 1]! + 1)
      throw invalidLog(
        dir,
        `batch ${sequences[i - 1]! + 1} is missing (the log jumps from ${sequences[i - 1]} to ${sequences[i]})`,
      );
  }
  let torn: number | undefined;
  const last = sequences.at(-1);
  // Only the last file can be torn: it is checked here; the others when read.
  if (last !== undefined && "fault" in readBatchFile(dir, last)) {
    torn = last;
    sequences.pop();
  }
  return { sequences, torn };
}

function readBatchFile(dir: string, sequence: number): { text: string } | { fault: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, batchFileName(sequence)));
  } catch (e) {
    return { fault: `cannot read it (${(e as Error).message})` };
  }
  return decodeBatch(sequence, bytes);
}

/**
 * The batches of the log at `dir` after `afterSequence`, in order; a torn last file is left out.
 * INVALID_CHANGE_LOG when batch afterSequence + 1 is not there but later ones are (the log was cut
 * ahead of the base), on a gap, or on a damaged file before the last.
 */
export function* readChangeLog(dir: string, afterSequence = 0): Generator<LoggedBatch> {
  const { sequences } = scan(dir);
  if (sequences.length === 0) return;
  const first = sequences[0]!;
  if (first > afterSequence + 1)
    throw invalidLog(dir, `the log starts at batch ${first}; batches ${afterSequence + 1} to ${first - 1} are missing`);
  for (const sequence of sequences) {
    if (sequence <= afterSequence) continue;
    const batch = readBatchFile(dir, sequence);
    if ("fault" in batch) throw invalidLog(dir, `${batchFileName(sequence)}: ${batch.fault}`);
    yield { sequence, text: batch.text };
  }
}

/** What the log at `dir` holds (for `quiver info`). */
export function changeLogInfo(dir: string): ChangeLogInfo {
  const { sequences, torn } = scan(dir);
  let bytes = 0;
  for (const s of sequences) bytes += statSync(join(dir, batchFileName(s))).size;
  return {
    first: sequences[0] ?? 0,
    last: sequences.at(-1) ?? 0,
    batches: sequences.length,
    bytes,
    torn: torn === undefined ? undefined : batchFileName(torn),
    lockedBy: readLockPid(dir),
  };
}

function readLockPid(dir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dir, LOCK_FILE), "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` lives on this host (EPERM: it does, as another user's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** fsync of a directory, so that a rename or unlink in it survives a power cut. */
function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync(2) of `fd` on libuv's thread pool: the event loop runs on while the disk flushes. */
function fsyncOff(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (e) => (e === null ? resolve() : reject(e))));
}

/** fsyncDirectory off the event loop, through `flush`. */
async function fsyncDirectoryOff(dir: string, flush: Flush): Promise<void> {
  const fd = openSync(dir, "r");
  try {
    await flush(fd);
  } finally {
    closeSync(fd);
  }
}

/** How a writer flushes a file descriptor to disk (fsync(2), settling when it returns). */
export type Flush = (fd: number) => Promise<void>;

/** Options of ChangeLogWriter.open. */
export interface ChangeLogWriterOptions {
  /**
   * @internal The flush of appendAsync (default: fsync(2) on the thread pool). A test passes one
   * that fails, to see the writer stop (a failing disk cannot be made on demand).
   */
  flush?: Flush | undefined;
}

/** The one writer of a change log directory (holds LOCK until `close`). */
export class ChangeLogWriter {
  readonly dir: string;
  #last: number;
  #closed = false;
  readonly #flush: Flush;
  /**
   * Why the writer takes no more batches: a flush failed after a batch file was named, so that
   * batch may be in the log (a follower may have applied it) or not; its number can be neither
   * taken back nor used again. Undefined while the writer is sound.
   */
  #broken: string | undefined;

  private constructor(dir: string, last: number, flush: Flush) {
    this.dir = dir;
    this.#last = last;
    this.#flush = flush;
  }

  /**
   * Opens `dir` for writing (made when missing): takes LOCK (CHANGE_LOG_LOCKED when a live process
   * holds it), removes temporary files of crashed writes, sets a torn last file aside.
   */
  static open(dir: string, options: ChangeLogWriterOptions = {}): ChangeLogWriter {
    makeDirectory(dir);
    takeLock(dir);
    try {
      for (const name of readdirSync(dir)) if (TEMP_NAME.test(name)) unlinkSync(join(dir, name));
      const { sequences, torn } = scan(dir);
      if (torn !== undefined) {
        // Never acknowledged (its write did not finish): kept aside for a person to look at, out of the log.
        const name = batchFileName(torn);
        renameSync(join(dir, name), join(dir, `${name}.torn`));
      }
      fsyncDirectory(dir);
      return new ChangeLogWriter(dir, sequences.at(-1) ?? 0, options.flush ?? fsyncOff);
    } catch (e) {
      releaseLock(dir);
      throw e;
    }
  }

  /** The last batch in the log (0: none). */
  get lastSequence(): number {
    return this.#last;
  }

  /** Why the writer takes no more batches (a flush failed after a rename), or undefined. */
  get broken(): string | undefined {
    return this.#broken;
  }

  /**
   * Writes batch `sequence` (the next number) durably: returns once it is on disk and named. A
   * failure before the rename leaves nothing in the log (the temporary file removed); the
   * directory's flush failing after it stops the writer (breakAfter); either way the error is thrown.
   * `sha256`: the text's checksum when the caller has it (encodeBatch), else made here.
   */
  append(sequence: number, text: string, sha256?: string): void {
    const { temp, final, bytes } = this.prepare(sequence, text, sha256);
    let created = false;
    let renamed = false;
    try {
      const fd = openSync(temp, "wx");
      created = true;
      try {
        let at = 0;
        while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, final);
      renamed = true;
      fsyncDirectory(this.dir);
    } catch (e) {
      // Each branch: named, the batch may be seen already (see breakAfter); else the temporary
      // file is removed, so the log is as it was (nothing removed that this write did not make).
      if (renamed) this.breakAfter(sequence, e);
      else if (created) rmSync(temp, { force: true });
      throw e;
    }
    this.#last = sequence;
  }

  /**
   * `append` with the flush off the event loop, for a server: the bytes are written to the
   * temporary name and renamed to the batch's number at once, then the file's fsync and the
   * directory's run together on the thread pool (each covers the rename, done before both began),
   * and the promise settles once both have returned: one wait for the disk instead of two in a
   * row, and requests keep being answered meanwhile. The batch is durable when it resolves, as
   * with `append`. A crash before then can leave the last file unflushed: readers take a damaged
   * last file for a torn write and ignore it (the writer sets it aside at open), so the batch is
   * absent, as one never answered must be. A failure before the rename removes the temporary
   * file and throws; a failed flush after it leaves the batch's file and stops the writer
   * (breakAfter) before it throws. One append at a time: the caller awaits each before the next
   * (LiveStore queues).
   */
  async appendAsync(sequence: number, text: string, sha256?: string): Promise<void> {
    const { temp, final, bytes } = this.prepare(sequence, text, sha256);
    let created = false;
    let renamed = false;
    let fd = -1;
    try {
      fd = openSync(temp, "wx");
      created = true;
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      renameSync(temp, final);
      renamed = true;
      await Promise.all([this.#flush(fd), fsyncDirectoryOff(this.dir, this.#flush)]);
    } catch (e) {
      // Each branch: named, the batch may be seen already (see breakAfter); else the temporary
      // file is removed, so the log is as it was.
      if (renamed) this.breakAfter(sequence, e);
      else if (created) rmSync(temp, { force: true });
      throw e;
    } finally {
      if (fd >= 0) close(fd, () => {});
    }
    this.#last = sequence;
  }

  /** What an append writes: batch `sequence`'s bytes, its temporary name and its own (throws unless it is the next). */
  private prepare(sequence: number, text: string, sha256?: string): { temp: string; final: string; bytes: Uint8Array } {
    this.checkNext(sequence);
    const name = batchFileName(sequence);
    return {
      temp: join(this.dir, `.${name}.${process.pid}.tmp`),
      final: join(this.dir, name),
      bytes: encodeBatch(sequence, text, sha256),
    };
  }

  /**
   * Stops the writer after batch `sequence`'s file was named but its flush failed (`e`). The file
   * stays: a reader (a follower, `quiver compact`) may have applied it the moment it was named, so
   * removing it, or writing another batch under its number, would make the log say two things.
   * Whether it survives a crash is unknown; a writer opened again reads the log as it finds it.
   */
  private breakAfter(sequence: number, e: unknown): void {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    this.#broken = `the flush of batch ${sequence} failed (${reason}) after it was named in the log`;
  }

  /** Throws unless `sequence` is the next batch of an open, sound log. */
  private checkNext(sequence: number): void {
    if (this.#closed) throw new Error("ChangeLogWriter.append: the log is closed");
    // A broken writer takes nothing (CHANGE_LOG_UNAVAILABLE until a restart reopens the log).
    if (this.#broken !== undefined)
      throw new QuiverError(
        "CHANGE_LOG_UNAVAILABLE",
        `The change log takes no more batches: ${this.#broken}; restart the server, which reads the log again.`,
      );
    // An empty log may start at any number (after a base that holds the batches before it).
    if (sequence !== this.#last + 1 && !(this.#last === 0 && sequence > 0))
      throw new Error(`ChangeLogWriter.append: batch ${sequence} after ${this.#last}; batches are numbered in order`);
  }

  /** Releases LOCK. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    releaseLock(this.dir);
  }
}

/** Creates LOCK with our pid; takes over one whose process is gone. */
function takeLock(dir: string): void {
  const lock = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    // The pid goes to a file of our own first, then is linked to LOCK: link(2) fails when LOCK
    // exists, so LOCK never holds a half-written pid.
    const mine = join(dir, `.LOCK.${process.pid}.tmp`);
    const fd = openSync(mine, "w");
    try {
      writeSync(fd, `${process.pid}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(mine, lock);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      unlinkSync(mine);
    }
    const holder = readLockPid(dir);
    // A live holder (this process too: one writer per directory) keeps the log.
    if (holder !== undefined && isAlive(holder))
      throw new QuiverError(
        "CHANGE_LOG_LOCKED",
        `${dir}: the change log is held by process ${holder} (its writer); stop it, or follow the log instead of writing to it`,
      );
    // The holder is gone (killed): its lock is stale. Moved aside under our name (rename is atomic:
    // of two takers, one moves it); then the link is tried again.
    const stale = join(dir, `.LOCK.stale.${process.pid}`);
    try {
      renameSync(lock, stale);
      rmSync(stale, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  throw new QuiverError("CHANGE_LOG_LOCKED", `${dir}: another writer took the change log's lock at the same moment`);
}

function releaseLock(dir: string): void {
  if (readLockPid(dir) === process.pid) rmSync(join(dir, LOCK_FILE), { force: true });
}

/**
 * JSON Lines loader
 * =================
 * Streams an `entities.jsonl` or `statements.jsonl` file (CONTRACT.md, "Input format") into a
 * GraphBuilder, and `loadGraph` reads both files and builds the Graph. Owns everything about the
 * bytes of the file: where they come from (a file, `-` for stdin, a name ending in `.gz` through
 * node:zlib), line splitting, line endings, the BOM, UTF-8 validity, JSON syntax, and the
 * `file:line: reason` form of every error. What an entity or a statement must look like is the
 * builder's business: it checks each object as it is added, so the error names the first bad line
 * of the file, whatever its kind; this file only makes sure each error names the line.
 *
 * Inputs are checked before any long work: a missing path or a directory is an UNREADABLE_INPUT
 * error naming the path, and `loadGraph` checks its options and both files before reading the first.
 *
 * Algorithm: `fs.createReadStream` with a large `highWaterMark` (piped through `zlib.createGunzip` for
 * `.gz`; stdin as it comes); each chunk is split on LF (0x0A) with `Buffer.indexOf` (a memchr), and a
 * line cut by a chunk boundary is kept as a list of pieces and joined once when its LF arrives, so a
 * line costs one copy at most and a 10 MB line is no special case. Each line then: drop a UTF-8 BOM
 * (line 1 only) and one trailing CR, skip it if it holds only JSON whitespace (it still counts for
 * line numbers), decode it with a `fatal` TextDecoder (so bad UTF-8 is an error, never a silent
 * U+FFFD), `JSON.parse`, require an object, hand it to the builder with its `{file, line}`. A
 * statement line of the common shape (statement-line.ts) skips decoding and JSON.parse: a regular
 * expression gives its four strings, which the builder checks the same way. A key
 * repeated in one object is not an error: the last value counts, as JSON.parse reads it (CONTRACT.md
 * "Input format"). `readline` is not used: it is several times slower and replaces bad UTF-8 silently.
 *
 * Cost: O(bytes) time; memory is one read chunk plus the longest line (capped by MAX_LINE_BYTES),
 * besides what the builder keeps. Every error rejects the promise; no partial result is returned.
 * Progress counts the bytes read as stored (compressed, for `.gz`) against the file's size; for
 * stdin the size is not known and `totalBytes` is undefined.
 *
 * Two cores and one sizing (`loadGraph`): once entities.jsonl is read, the entities are sealed
 * (sorted into dense ids) and their search index is built in a worker thread while statements.jsonl
 * is read (search-index-thread.ts), when SEARCH_INDEX_THREAD_MIN_ENTITIES or more and the machine has
 * a second core; and a plain statements file's size, with the lines of its first chunk, sizes the
 * builder's statement columns once instead of by doubling. Either changes the time, never the graph.
 * A plain statements file is parsed by worker threads when `threads` is above 1 (statement-threads.ts:
 * byte ranges cut at line ends, each range's rows added here in file order through the builder's
 * checks, so the graph and the first error named are one thread's); gzip and stdin are one stream and
 * are read here on one thread. A load with the search index's thread collects its garbage between
 * its phases (collect-garbage.ts): the arrays a phase leaves dead (GBs at 10M / 100M) would
 * otherwise stay resident under the next one's, where the load's memory peaks.
 *
 * References: JSON Lines, https://jsonlines.org/ ; WHATWG Encoding, "fatal" decoder flag,
 * https://encoding.spec.whatwg.org/#textdecoder ; RFC 1952 (gzip).
 */

import { closeSync, createReadStream, openSync } from "node:fs";
import { availableParallelism } from "node:os";
import { stat } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { pipeline, type Readable } from "node:stream";
import { createGunzip } from "node:zlib";

import { QuiverError, dataError, type SourcePosition } from "../engine/errors.js";
import { checkObject } from "../engine/validate.js";
import {
  GraphBuilder,
  type BetweenBuildPhases,
  type BuildPhase,
  REF_DERIVED,
  REF_GIVEN,
  REF_GIVEN_DERIVED,
} from "../engine/graph-builder.js";
import type { FoldMode } from "../engine/search/fold.js";
import type { Graph } from "../engine/graph.js";
import {
  addParsedItem,
  addStatementRefRows,
  addStatementStrings,
  buildWithScoreIndex,
  endStatements,
  reserveStatements,
  sealEntities,
  useSearchIndex,
} from "../engine/internal.js";
import { collectGarbage } from "./collect-garbage.js";
import { makeEntityIdTable } from "./entity-id-table.js";
import { type SearchIndexThread, startSearchIndexThread } from "./search-index-thread.js";
import { startTagHashThread } from "./tag-hash-thread.js";
import { readStatementLine } from "./statement-line.js";
import {
  type Batch,
  MAX_DEFAULT_THREADS,
  type ParserThread,
  RANGES_PER_THREAD,
  ROW_DERIVED,
  ROW_HEX,
  ROW_HEX_DERIVED,
  ROW_RAW,
  splitRanges,
  startParserThread,
} from "./statement-threads.js";
import { type OrderThreads, startOrderThreads } from "./order-threads.js";

/** Bytes per read from disk: large enough that per-chunk overhead vanishes, small enough to stay in cache. */
export const READ_CHUNK_BYTES = 1 << 20;
/** Longest accepted line, without its line ending. A longer line is an error, not an out-of-memory crash. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** At most one progress report per this many milliseconds (plus a final one per phase). */
export const PROGRESS_INTERVAL_MS = 250;
/**
 * Bytes of the shortest statement line: `{"subjectEntityId":"a","predicateEntityId":"b","objectEntityId":"c"}`
 * and its LF. What a file's size can hold at most, for the estimate of its statements.
 */
const MIN_STATEMENT_LINE_BYTES = 69;
/**
 * The statements reserved over the estimate from the first lines: a file whose later lines are a
 * little shorter must not outgrow the columns and the fingerprint table near its end, where a doubling
 * copies every column and rehashes every fingerprint (at 100M statements, tens of seconds and twice the
 * memory for a moment); 5% more costs 5% of what is reserved, most of it never touched.
 */
const ESTIMATE_SLACK = 1.05;
/** The path that means standard input. */
export const STDIN_PATH = "-";
/** How stdin is named in errors and progress, unless a displayName says otherwise. */
const STDIN_NAME = "stdin";
/** A path with this ending is read through gunzip. */
const GZIP_SUFFIX = ".gz";
/** zlib's smallest output chunk (node:zlib refuses less). */
const MIN_GUNZIP_CHUNK_BYTES = 64;

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const BOM_0 = 0xef;
const BOM_1 = 0xbb;
const BOM_2 = 0xbf;

// A parser thread's row flags are handed to the builder as its RefFingerprint values: they must agree.
if (ROW_DERIVED !== REF_DERIVED || ROW_HEX !== REF_GIVEN || ROW_HEX_DERIVED !== REF_GIVEN_DERIVED) {
  throw new Error("statement-threads.ts's row flags differ from the builder's RefFingerprint values");
}

/** Which file is being read: it decides whether a line goes to addEntity or addStatement. */
export type InputKind = "entities" | "statements";

/** Progress while a file is read. `bytes / totalBytes` is the fraction done; `lines / elapsedMs` the rate. */
export interface ReadProgress {
  phase: InputKind;
  /** The file as named in errors (the displayName, or the path as given; `stdin` for `-`). */
  file: string;
  /** Lines read so far, blank lines included (the number of the last line read). */
  lines: number;
  /** Objects handed to the builder so far. */
  items: number;
  /** Bytes read so far, as stored (compressed, for a `.gz` file). */
  bytes: number;
  /** The size of the file as stored; undefined for stdin, whose size is not known. */
  totalBytes: number | undefined;
  /** Milliseconds since this phase began. */
  elapsedMs: number;
  /** True on the last report of the phase. */
  finished: boolean;
}

/** Progress while the Graph is built, as the builder reports it. */
export interface BuildProgress {
  phase: BuildPhase;
  done: number;
  total: number;
  elapsedMs: number;
  finished: boolean;
}

/** What a CLI prints on stderr: tell the two apart by `phase` (`"entities"`/`"statements"` are reads). */
export type LoadProgress = ReadProgress | BuildProgress;

export interface LoadJsonLinesOptions {
  onProgress?: (progress: ReadProgress) => void;
  /** The name used in errors and progress; default the path as given (`stdin` for `-`). */
  displayName?: string;
  /** Override MAX_LINE_BYTES (tests use a small cap). */
  maxLineBytes?: number;
  /** Override READ_CHUNK_BYTES (tests use tiny chunks to exercise every boundary). */
  chunkBytes?: number;
  /** What the path `-` reads; default `process.stdin`. */
  stdin?: Readable;
  /**
   * Threads that parse a plain (not gzip, not stdin) statements file (statement-threads.ts); 1, the
   * default here, reads it on this thread. The result and the first error are the same either way.
   */
  threads?: number;
}

export interface LoadJsonLinesResult {
  /** Lines in the file, blank lines included; a last line without LF counts. */
  lines: number;
  /** Objects handed to the builder (an exact duplicate statement is counted here, kept once there). */
  items: number;
  /** Bytes read, as stored (compressed, for a `.gz` file). */
  bytes: number;
}

/**
 * Reads one JSON Lines file (`-`: stdin; a name ending in `.gz`: gzip) into `builder`. Rejects with
 * a QuiverError: UNREADABLE_INPUT naming the path, before reading, when it is missing or a
 * directory; otherwise one whose message begins `file:line: ` for the first bad line of the file.
 * After a rejection the builder must be thrown away.
 */
export function loadJsonLinesFile(
  path: string,
  kind: InputKind,
  builder: GraphBuilder,
  options: LoadJsonLinesOptions = {},
): Promise<LoadJsonLinesResult> {
  return readJsonLinesFile(path, kind, builder, options, undefined);
}

/**
 * loadJsonLinesFile; `collect` (loadGraph's: collect-garbage.ts) is called once the parser threads
 * are under way, when the strings the entity id table was made from are dead (an entityId string a
 * dense id: hundreds of MB at 10M entities, otherwise held through the whole reading).
 */
async function readJsonLinesFile(
  path: string,
  kind: InputKind,
  builder: GraphBuilder,
  options: LoadJsonLinesOptions,
  collect: (() => void) | undefined,
): Promise<LoadJsonLinesResult> {
  const file = options.displayName ?? (path === STDIN_PATH ? STDIN_NAME : path);
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const onProgress = options.onProgress;
  const itemKind = kind === "entities" ? "entity" : "statement";
  // fatal: bad UTF-8 throws instead of becoming U+FFFD. ignoreBOM: keep a BOM in the text, since
  // otherwise every decode() call (one per line) would drop one; only the file's own BOM is dropped.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

  const totalBytes = await checkInput(path);
  const startedAt = performance.now();
  let lastReportAt = startedAt;
  let lineNumber = 0;
  let items = 0;
  let bytes = 0;

  const report = (finished: boolean): void => {
    if (onProgress === undefined) return;
    const now = performance.now();
    lastReportAt = now;
    onProgress({
      phase: kind,
      file,
      lines: lineNumber,
      items,
      bytes,
      totalBytes,
      elapsedMs: now - startedAt,
      finished,
    });
  };

  const handleLine = (raw: Buffer, line: number): void => {
    let start = 0;
    let end = raw.length;
    // A BOM is only legal as the file's first bytes; anywhere else it stays and fails as JSON.
    if (line === 1 && end >= 3 && raw[0] === BOM_0 && raw[1] === BOM_1 && raw[2] === BOM_2) start = 3;
    // CRLF files: the LF ended the line, drop the CR before it.
    if (end > start && raw[end - 1] === CR) end--;
    if (end - start > maxLineBytes) {
      throw dataError("INVALID_DATA", `line is longer than ${maxLineBytes} bytes`, { file, line });
    }
    if (isJsonWhitespace(raw, start, end)) return; // blank line: skipped, but it had its number

    // A statement line of the common shape skips the decoder and JSON.parse (statement-line.ts):
    // the same strings reach the same checks. Any other line is read the general way.
    const fields = kind === "statements" ? readStatementLine(raw, start, end) : null;
    const value = fields === null ? parseObject(raw, start, end, line) : undefined;
    // A fresh position per line: the builder may keep it to name this line in a later error.
    const source: SourcePosition = { file, line };
    try {
      if (fields !== null) addStatementStrings(builder, fields[0], fields[1], fields[2], fields[3], source);
      else addParsedItem(builder, itemKind, value, source);
    } catch (e) {
      throw withPosition(e, source);
    }
    items++;
  };

  /** Bytes [start, end) of `raw` as a JSON object: fatal UTF-8, JSON.parse, one object per line. */
  const parseObject = (raw: Buffer, start: number, end: number, line: number): object => {
    let text: string;
    try {
      text = decoder.decode(raw.subarray(start, end));
    } catch {
      throw dataError("INVALID_DATA", "not valid UTF-8", { file, line });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw dataError("INVALID_DATA", `not valid JSON: ${(e as Error).message}`, { file, line });
    }
    // Arrays and null are typeof "object" too; the contract wants one object per line.
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw dataError("INVALID_DATA", `expected a JSON object, got ${describeJsonValue(value)}`, { file, line });
    }
    return value;
  };

  /**
   * A parser thread's batch (statement-threads.ts), its local line numbers after `base`, into the
   * builder: each run of rows the thread read goes in at once (its flags are the builder's
   * RefFingerprint values), each line it left is read here the one-thread way, in order.
   */
  const addBatch = (batch: Batch, base: number): void => {
    const rows = { ...batch, fingerprints: batch.flags };
    const count = batch.lines.length;
    let raw = 0;
    let from = 0;
    while (from < count) {
      let to = from;
      while (to < count && batch.flags[to] !== ROW_RAW) to++;
      // Each branch: a run of rows (a statement's own error names its line; another names the run's first), or a line left here.
      if (to > from) {
        try {
          addStatementRefRows(builder, rows, from, to, file, base);
        } catch (e) {
          throw withPosition(e, { file, line: base + batch.lines[from]! });
        }
        items += to - from;
        from = to;
        continue;
      }
      const bytes = batch.raw[raw++]!;
      handleLine(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), base + batch.lines[from]!);
      from++;
    }
  };

  /** Pieces of the line cut by chunk boundaries, joined when its LF arrives. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  // A plain statements file's size and its first chunk's lines tell about how many statements come:
  // the builder sizes its columns for them once (an estimate; more or fewer are both fine).
  let estimated = kind !== "statements" || totalBytes === undefined || path.endsWith(GZIP_SUFFIX);

  // Each branch: a plain statements file with threads is parsed by worker threads (statement-threads.ts)
  // and added here in file order; gzip and stdin come as one stream, read here on one thread.
  const threads = options.threads ?? 1;
  if (kind === "statements" && threads > 1 && totalBytes !== undefined && !path.endsWith(GZIP_SUFFIX)) {
    const fd = openSync(path, "r");
    let cuts: number[];
    try {
      cuts = splitRanges(fd, totalBytes, threads * RANGES_PER_THREAD);
    } finally {
      closeSync(fd);
    }
    // One table of the entityIds for every parser thread, in shared memory (entity-id-table.ts).
    const table = makeEntityIdTable(builder.columnEntityIds, builder.columnEntityHashes);
    // Range r goes to thread r mod T: the main thread adds them in file order, each thread in turn.
    const ranges = cuts.length - 1;
    const parsers: ParserThread[] = [];
    for (let t = 0; t < Math.min(threads, ranges); t++) {
      const own: number[] = [];
      for (let r = t; r < ranges; r += threads) own.push(cuts[r]!, cuts[r + 1]!);
      parsers.push(startParserThread(path, own, table, maxLineBytes));
    }
    collect?.();
    try {
      for (let r = 0; r < ranges; r++) {
        const parser = parsers[r % parsers.length]!;
        const base = lineNumber;
        for (;;) {
          const reply = await parser.next();
          // Each branch: rows are added in order; a too-long line fails there, as on one thread; a
          // thread that ends before its ranges do is a bug.
          if (reply.kind === "done") throw new Error("statement parser thread: it ended before its ranges");
          if (reply.kind === "error") throw new Error(`statement parser thread: ${reply.message}`);
          if (reply.kind === "too-long") {
            throw dataError("INVALID_DATA", `line is longer than ${maxLineBytes} bytes`, {
              file,
              line: base + reply.line,
            });
          }
          addBatch(reply, base);
          parser.added();
          lineNumber = base + reply.lineCount;
          bytes = reply.bytes;
          if (!estimated) {
            estimated = true;
            const most = Math.floor((totalBytes as number) / MIN_STATEMENT_LINE_BYTES);
            if (reply.bytes > 0) {
              reserveStatements(
                builder,
                Math.min(most, Math.ceil((ESTIMATE_SLACK * reply.lineCount * totalBytes) / reply.bytes)),
              );
            }
          }
          if (onProgress !== undefined && performance.now() - lastReportAt >= PROGRESS_INTERVAL_MS) report(false);
          if (reply.last) break;
        }
      }
    } finally {
      for (const parser of parsers) parser.stop();
    }
    report(true);
    return { lines: lineNumber, items, bytes };
  }

  const input = openInput(path, options);
  // `for await` pulls chunks one at a time (backpressure for free); leaving the loop by a throw
  // destroys the stream, so a bad line closes the file at once.
  try {
    for await (const chunk of input.chunks) {
      bytes = input.bytesRead(chunk.length);
      let start = 0;
      for (let lf = chunk.indexOf(LF, start); lf !== -1; lf = chunk.indexOf(LF, start)) {
        lineNumber++;
        // Whole line inside this chunk (the common case): no copy. Otherwise join the pieces once.
        if (pendingBytes === 0) {
          handleLine(chunk.subarray(start, lf), lineNumber);
        } else {
          pending.push(chunk.subarray(start, lf));
          const joined = Buffer.concat(pending, pendingBytes + (lf - start));
          pending = [];
          pendingBytes = 0;
          handleLine(joined, lineNumber);
        }
        start = lf + 1;
      }
      if (!estimated) {
        estimated = true;
        // Never more than the shortest statement line allows: blank lines at the start cannot make
        // the estimate (and what is reserved with it) larger than the file could ever hold.
        const most = Math.floor((totalBytes as number) / MIN_STATEMENT_LINE_BYTES);
        if (lineNumber > 0)
          reserveStatements(
            builder,
            Math.min(most, Math.ceil((ESTIMATE_SLACK * lineNumber * (totalBytes as number)) / start)),
          );
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        // Fail as soon as the unfinished line is certainly too long (+1 leaves room for its CR),
        // rather than buffering an unbounded line.
        if (pendingBytes > maxLineBytes + 1) {
          throw dataError("INVALID_DATA", `line is longer than ${maxLineBytes} bytes`, { file, line: lineNumber + 1 });
        }
      }
      if (onProgress !== undefined && performance.now() - lastReportAt >= PROGRESS_INTERVAL_MS) report(false);
    }
  } catch (e) {
    throw readError(e, file, lineNumber + 1);
  }
  // gunzip can hand out the last text before the file's last bytes (its trailer) are counted.
  bytes = input.bytesRead(0);
  // A last line without LF is still a line.
  if (pendingBytes > 0) {
    lineNumber++;
    handleLine(Buffer.concat(pending, pendingBytes), lineNumber);
  }
  report(true);
  return { lines: lineNumber, items, bytes };
}

export interface LoadGraphOptions {
  /** Path of entities.jsonl (`-`: stdin; a name ending in `.gz`: gzip). */
  entities: string;
  /** Path of statements.jsonl (`-`: stdin; a name ending in `.gz`: gzip). */
  statements: string;
  cursorSecret?: string | Uint8Array;
  /** What the graph's caches may hold, in bytes (GraphOptions.cacheBytes). */
  cacheBytes?: number;
  /** How search folds identifiers: "case" (the default) or "accents" (GraphBuilderOptions.fold). */
  fold?: FoldMode;
  onProgress?: (progress: LoadProgress) => void;
  /** What the path `-` reads; default `process.stdin`. */
  stdin?: Readable;
  /**
   * Build the search index in a worker thread while the statements are read (search-index-thread.ts):
   * default when the machine has more than one core and the entities are at least
   * SEARCH_INDEX_THREAD_MIN_ENTITIES; true or false forces it either way.
   */
  searchIndexThread?: boolean;
  /**
   * Threads that parse statements.jsonl (statement-threads.ts) and, with the search index's thread,
   * share the statement orders' sorts (order-threads.ts): default the available cores, at most
   * MAX_DEFAULT_THREADS, for a file of THREADS_MIN_STATEMENT_BYTES or more; 1 reads and sorts on this
   * thread. A gzip file or stdin is always read on one thread. The graph and the first error named
   * are the same for every count.
   */
  threads?: number;
}

/** The default parser thread count: the cores this process may use, at most MAX_DEFAULT_THREADS. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_THREADS));
}

/** Throws INVALID_PARAMETER unless `threads` is a whole number from 1 to 256. */
export function checkThreads(threads: unknown): number {
  if (typeof threads !== "number" || !Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new QuiverError("INVALID_PARAMETER", `threads must be a whole number from 1 to ${MAX_THREADS}.`, {
      parameter: "threads",
    });
  }
  return threads;
}

/**
 * Smallest statements file that `loadGraph` parses with several threads by default (about 100,000
 * generated lines): a thread's start and its copy of the entityIds cost tens of milliseconds.
 */
export const THREADS_MIN_STATEMENT_BYTES = 16 * 1024 * 1024;

/** Most parser threads accepted. */
export const MAX_THREADS = 256;

/**
 * Fewest entities for which `loadGraph` builds the search index in a worker thread by default: below
 * it, the thread's start and the identifiers' copy weigh more against what the overlap saves (the
 * index of 100,000 generated entities takes about a second to build).
 */
export const SEARCH_INDEX_THREAD_MIN_ENTITIES = 100_000;

/**
 * Reads entities, then statements (a statement may only name an entity already read), then builds.
 * Before reading anything it checks the options (an empty cursor secret, a bad cache budget) and
 * both inputs (missing, a directory, or stdin named twice), so such mistakes are reported at once.
 * Resolves to a complete Graph or rejects; a half-built graph is never returned.
 */
export async function loadGraph(options: LoadGraphOptions): Promise<Graph> {
  checkObject(options, "the loadGraph options ({entities, statements})", false);
  const builder = new GraphBuilder({
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
    ...(options.fold === undefined ? {} : { fold: options.fold }),
  });
  if (options.entities === STDIN_PATH && options.statements === STDIN_PATH) {
    throw new QuiverError(
      "INVALID_PARAMETER",
      "The entities and the statements cannot both be read from stdin (-): give at least one as a file.",
      { parameter: "statements" },
    );
  }
  const asked = options.threads === undefined ? undefined : checkThreads(options.threads);
  await checkInput(options.entities);
  const statementBytes = await checkInput(options.statements);
  // Each branch: a count given is used; by default a small file is read on this thread, where the
  // threads' start would cost more than they save.
  const threads = asked ?? ((statementBytes ?? 0) >= THREADS_MIN_STATEMENT_BYTES ? defaultThreads() : 1);
  const onProgress = options.onProgress;
  const readOptions: LoadJsonLinesOptions = {
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  };
  const buildProgress = onProgress === undefined ? undefined : throttledBuildProgress(onProgress);
  await readJsonLinesFile(options.entities, "entities", builder, readOptions, undefined);
  // Each branch: the search index is built beside the statements' reading on a second core (the
  // entities are all read, and it needs nothing else), or by build() after them. Gated (it waits
  // once its FM-index's suffix array is made until the parse's tables are let go) and with its
  // document array made after its counts, not beside them on a third thread: the counts' working
  // arrays and the document array's (about three words a code unit each, GBs at 10M entities) are
  // never held at once, nor on top of the parse's tables, where the load's memory would peak.
  const thread =
    (options.searchIndexThread ??
    (builder.entityCount >= SEARCH_INDEX_THREAD_MIN_ENTITIES && availableParallelism() > 1))
      ? startIndexThread(builder, buildProgress)
      : undefined;
  const buildOptions = buildProgress === undefined ? {} : { onProgress: buildProgress };
  // Each branch: a load large enough for the search index's thread collects its garbage between its
  // phases (collect-garbage.ts: dead arrays of GBs at 10M / 100M would stay under the next phase);
  // a small one leaves it to V8.
  const collect = thread === undefined ? undefined : collectGarbage();
  let sorter: OrderThreads | undefined;
  try {
    await readJsonLinesFile(options.statements, "statements", builder, { ...readOptions, threads }, collect);
    // Every statement is in: the builder's fingerprint table and its copies of the fingerprints go
    // before the wait for the search index, where the load's memory peaks: collected at once, with
    // the entity id table and the parser threads' batches.
    endStatements(builder);
    collect?.();
    // The search index's build goes on past its suffix array only now (search-index-thread.ts,
    // gated): the rest of its FM-index, its counts and its document array come after what the parse
    // held is gone, not on top of it.
    thread?.open();
    // Each branch: with the thread, the rest of the search index is waited for and the score index
    // is made there beside the statement index; without it, build() makes both here.
    if (thread === undefined) return builder.build(buildOptions);
    // What is left of the index's build is waited for as its phase, with its progress from now on.
    if (buildProgress !== undefined) thread.onProgress = (done, total) => buildProgress("search-index", done, total);
    useSearchIndex(builder, await thread.index);
    buildProgress?.("search-index", 1, 1);
    // Each branch: with more than one thread, the statement orders' sort passes are shared by
    // `threads` threads (order-threads.ts), else sorted here.
    sorter = threads > 1 ? startOrderThreads(threads, builder.entityCount) : undefined;
    const sorting = sorter;
    // Between the build's phases: the sort threads end once the statement index's last sort is done
    // (a thread holds the shared arrays it was given until it collects its own garbage), and the
    // garbage goes.
    const betweenPhases: BetweenBuildPhases = (next) => {
      // Each branch: the sort threads' last pass is done once the statement positions are made.
      if (next === "statement-positions" || next === "score-index") sorting?.stop();
      collect?.();
    };
    // Each branch: with more than one thread, the content tag is hashed on a thread of its own
    // (tag-hash-thread.ts) while this one writes its bytes, else here.
    const tagHashing = threads > 1 ? startTagHashThread : undefined;
    return await buildWithScoreIndex(
      builder,
      buildOptions,
      (scores) => thread.scoreIndex(scores),
      sorter,
      betweenPhases,
      tagHashing,
    );
  } finally {
    // A bad statement line (or a failed index) must not leave the threads running.
    thread?.stop();
    sorter?.stop();
  }
}

/**
 * The search index's thread of the builder's sealed entities (gated, its document array after its
 * counts: loadGraph). A function of its own, not an expression inside loadGraph: the sealed entities'
 * list of raw identifiers (an array and a string an entity, about 40 B an entity: 0.4 GB at 10M) is
 * a temporary here, gone with this frame. In loadGraph, an async function, the register that held it
 * was saved with the suspended frame at each await and kept it alive through the whole load (ready's
 * heap 92 against 52 MB at 1M / 10M, 815 against 424 MB at 10M / 100M, the same graph).
 */
function startIndexThread(
  builder: GraphBuilder,
  buildProgress: ((phase: BuildPhase, done: number, total: number) => void) | undefined,
): SearchIndexThread {
  return startSearchIndexThread(sealEntities(builder, buildProgress));
}

/**
 * The size of the input at `path` in bytes (undefined for stdin); a QuiverError UNREADABLE_INPUT
 * naming the path when it is missing, a directory, or cannot be looked at.
 */
async function checkInput(path: string): Promise<number | undefined> {
  if (path === STDIN_PATH) return undefined;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "there is no such file" : (e as Error).message;
    throw new QuiverError("UNREADABLE_INPUT", `Cannot read ${JSON.stringify(path)}: ${why}.`, { cause: e });
  }
  if (info.isDirectory()) {
    throw new QuiverError(
      "UNREADABLE_INPUT",
      `Cannot read ${JSON.stringify(path)}: it is a directory; give the path of a JSON Lines file.`,
    );
  }
  return info.size;
}

/** The chunks of an input, and how many of its stored bytes have been read once a chunk arrives. */
interface Input {
  chunks: AsyncIterable<Buffer>;
  bytesRead(chunkLength: number): number;
}

function openInput(path: string, options: LoadJsonLinesOptions): Input {
  const highWaterMark = options.chunkBytes ?? READ_CHUNK_BYTES;
  let counted = 0;
  const countChunks = (n: number): number => (counted += n);
  if (path === STDIN_PATH) {
    return { chunks: (options.stdin ?? process.stdin) as AsyncIterable<Buffer>, bytesRead: countChunks };
  }
  const stream = createReadStream(path, { highWaterMark });
  // Not compressed: the chunks are the file's bytes.
  if (!path.endsWith(GZIP_SUFFIX)) return { chunks: stream as AsyncIterable<Buffer>, bytesRead: countChunks };
  // Compressed: progress counts what left the disk, not the text. pipeline: an error on either side
  // destroys both and reaches the loop; leaving the loop early destroys gunzip, and with it the file.
  const text = pipeline(stream, createGunzip({ chunkSize: Math.max(MIN_GUNZIP_CHUNK_BYTES, highWaterMark) }), () => {});
  return { chunks: text as AsyncIterable<Buffer>, bytesRead: () => stream.bytesRead };
}

/**
 * An error met while reading, as the caller should see it: a QuiverError (a bad line) as it is; gzip
 * data that cannot be decompressed as INVALID_DATA at the line being read; a read that failed (a
 * system error) as UNREADABLE_INPUT; anything else is a bug and passes through.
 */
function readError(error: unknown, file: string, line: number): unknown {
  if (error instanceof QuiverError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string") return error;
  const message = (error as Error).message;
  if (code.startsWith("Z_")) return dataError("INVALID_DATA", `not valid gzip data: ${message}`, { file, line });
  return new QuiverError("UNREADABLE_INPUT", `Cannot read ${JSON.stringify(file)}: ${message}.`, { cause: error });
}

/**
 * Forwards the builder's progress at most every PROGRESS_INTERVAL_MS per phase, always its first and
 * last, and a phase's finish once (the search index's worker reports its own 100%, then the loader
 * reports the phase done once it holds the index).
 */
export function throttledBuildProgress(
  onProgress: (progress: BuildProgress) => void,
): (phase: BuildPhase, done: number, total: number) => void {
  let currentPhase: BuildPhase | undefined;
  let phaseStartedAt = 0;
  let lastReportAt = 0;
  let phaseFinished = false;
  return (phase, done, total) => {
    const now = performance.now();
    const finished = done >= total;
    // A new phase restarts the clock and is always reported, so the CLI shows each phase by name;
    // within a phase, nothing follows its finish, and steps come at most every interval.
    if (phase !== currentPhase) {
      currentPhase = phase;
      phaseStartedAt = now;
      phaseFinished = false;
    } else if (phaseFinished || (!finished && now - lastReportAt < PROGRESS_INTERVAL_MS)) {
      return;
    }
    phaseFinished = finished;
    lastReportAt = now;
    onProgress({ phase, done, total, elapsedMs: now - phaseStartedAt, finished });
  };
}

/** True when bytes [start, end) are only JSON whitespace (space, tab, CR); the LF is already gone. */
function isJsonWhitespace(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== SPACE && b !== TAB && b !== CR) return false;
  }
  return true;
}

function describeJsonValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/**
 * Makes sure an error from the builder names the line. A QuiverError that already carries a
 * position is passed through; one without gets it. Any other error is a bug in Quiver, not bad
 * input, so it stays a plain Error (the adapter answers 500 for it) but still names the line.
 */
function withPosition(error: unknown, source: SourcePosition): Error {
  if (error instanceof QuiverError) {
    if (error.source !== undefined) return error;
    return new QuiverError(error.code, `${source.file}:${source.line}: ${error.message}`, { source, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`${source.file}:${source.line}: ${message}`, { cause: error });
}

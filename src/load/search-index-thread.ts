/**
 * The search index, built in a worker thread
 * ==========================================
 * Owns building a graph's search index (engine/search/search-index.ts) off the loading thread. The index
 * depends on the entities alone, and `loadGraph` reads every entity before the first statement, so
 * once the entities are read and sealed (sorted into dense ids) the index can be built on a second
 * core while the statements are read on the first: the build's two longest phases overlap
 * (at 1M entities / 10M statements, about 14 s of search index beside about 40 s of statement lines,
 * `npm run bench -- --only build`).
 *
 *   main -> worker   workerData { kind: index, rawIdentifiers, types, fold } (structured clone: a copy)
 *   worker -> main   { kind: "progress", done, total }              (at most every PROGRESS_MS)
 *   worker -> main   { kind: "index", fields, ranks }               (the index's serial form and the
 *                                                                     ranks the score index is built
 *                                                                     from; arrays transferred)
 *   worker -> main   { kind: "error", message }                     (the build threw)
 *   then the worker ends: its whole heap (the identifiers' copy, the folded strings, the suffix array's
 *   working arrays) is given back at once, while the statements are still being read.
 *   The build is gated: it waits once its FM-index's suffix array is made until the loader opens it
 *   (open(), once the statements are in), so the rest of the FM-index, the counts and the document
 *   array's working arrays (GBs at 10M entities) never come on top of what the statements' parse
 *   holds. The counts and the document array are then made one after the other, each step's working
 *   arrays let go before the next one's are made (SearchIndex.buildWithValues, the one-thread build).
 *   main -> worker   workerData { kind: score, ranks, scores }      (a second worker, once the
 *                                                                     statements are read; the ranks
 *                                                                     transferred, the scores copied)
 *   worker -> main   { kind: "score-index", fields }                (the score index's serial form,
 *                                                                     transferred) | { kind: "error" }
 *
 * The score index (engine/search/score-index.ts) is built from the search index's ranks and the
 * scores, which count the statements: the index's worker sends what the score index takes of the
 * index (ScoreIndex.ranksOf, with the document values the build made: no decoding) beside it and
 * ends; once the loader has the scores, a second worker builds the score index from them while the
 * loading thread builds the statement index (GraphBuilder's buildWithScoreIndex): the build's two
 * last long phases overlap. Why two workers and not one that waits: a worker that waits idle keeps
 * everything its build left behind (its heap is collected only when it allocates again), about as
 * much as the index itself, through the whole reading of the statements, where the load peaks.
 *
 * The main thread restores the index from its serial form without the linear-time checks (the
 * worker made it with the engine itself; only shapes are checked). `stop()` ends the worker: the
 * loader calls it when reading the statements fails, so a bad line never leaves a thread running.
 *
 * Cost on the loading thread: cloning the raw identifiers into the worker (about 0.2 s for a
 * million), copying the scores (4 bytes an entity), starting the second worker (tens of
 * milliseconds) and restoring O(1) per array. Memory: the worker's copy of the identifiers and its
 * working arrays while it builds; then the ranks the score index
 * is built from (4 bytes a text position and 5 an entity) on the loading thread until it is built.
 * Each worker gets the loading thread's heap limit.
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { type FoldMode, folder } from "../engine/search/fold.js";
import { ScoreIndex, type ScoreRanks, Scores, SearchIndex } from "../engine/internal.js";
import { MemorySerialReader, MemorySerialWriter, type SerialField } from "../engine/serial.js";
import { collectGarbage } from "./collect-garbage.js";

/** workerData's kind of the index's worker (other workers of the package carry others). */
const INDEX_KIND = "quiver.search-index";
/** workerData's kind of the score index's worker. */
const SCORE_KIND = "quiver.score-index";
/** Shortest time between two progress messages of the worker. */
const PROGRESS_MS = 250;
const MIB = 1024 * 1024;

interface IndexRequest {
  kind: typeof INDEX_KIND;
  rawIdentifiers: string[];
  types: Uint8Array;
  fold: FoldMode;
  /**
   * Word 0 on a SharedArrayBuffer, 0 until the loading thread opens it (SearchIndexThread.open); the
   * build waits there once its FM-index's suffix array is made.
   */
  gate: Int32Array;
}

interface ScoreRequest {
  kind: typeof SCORE_KIND;
  ranks: ScoreRanks;
  /** The scores' serial form (Scores.serialize), copied: the graph keeps its scores. */
  scores: MemorySerialWriter["fields"];
  entityCount: number;
}

type Reply =
  | { kind: "progress"; done: number; total: number }
  | { kind: "index"; fields: Map<string, SerialField>; ranks: ScoreRanks }
  | { kind: "score-index"; fields: Map<string, SerialField> }
  | { kind: "error"; message: string };

/** A search index being built in a worker thread. */
export interface SearchIndexThread {
  /** Resolves with the index; rejects if the build fails or the worker dies. */
  readonly index: Promise<SearchIndex>;
  /** Where the build's progress goes from now on (none until set). */
  onProgress: ((done: number, total: number) => void) | undefined;
  /**
   * The score index of the index's entities under `scores`, built in a second worker from what the
   * first sent of the index (call once, after `index` resolved). Rejects if the build fails or the
   * worker dies.
   */
  scoreIndex(scores: Scores): Promise<ScoreIndex>;
  /**
   * Lets the build go on past its suffix array: the loader calls it once the statements are in and
   * what their parse held is let go. Does nothing again.
   */
  open(): void;
  /** Ends the worker running now, if any. */
  stop(): void;
}

/** Worker threads of this file alive now (started, not yet exited). */
let running = 0;

/** How many search index threads are alive: what a test checks after a failed load, and a diagnostic. */
export function runningSearchIndexThreads(): number {
  return running;
}

/** A worker of this file that answers once: `reply` settles with its answer, or rejects naming `what`. */
interface OneReply<T extends Reply> {
  worker: Worker;
  reply: Promise<T>;
}

/**
 * Starts a worker of this file with `request` and waits for its one answer of kind `kind`; progress
 * goes to `onProgress`. The worker ends by itself after answering: its exit then is no failure.
 */
function startWorker<K extends "index" | "score-index">(
  request: IndexRequest | ScoreRequest,
  transferList: ArrayBuffer[],
  kind: K,
  what: string,
  onProgress: (done: number, total: number) => void,
): OneReply<Extract<Reply, { kind: K }>> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: request,
    transferList,
    resourceLimits: { maxOldGenerationSizeMb: Math.floor(getHeapStatistics().heap_size_limit / MIB) },
  });
  running++;
  worker.once("exit", () => running--);
  const reply = new Promise<Extract<Reply, { kind: K }>>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(new Error(`${what}: ${error.message}`));
    };
    worker.on("message", (m: Reply) => {
      // Each branch: progress is passed on; the answer settles; an error fails the build.
      if (m.kind === "progress") onProgress(m.done, m.total);
      else if (m.kind === "error") fail(new Error(m.message));
      else if (m.kind === kind && !settled) {
        settled = true;
        resolve(m as Extract<Reply, { kind: K }>);
      }
    });
    worker.on("error", fail);
    // After the answer the worker ends by itself; before it, its end is a failure.
    worker.on("exit", (code) => fail(new Error(`the worker thread exited with code ${code}`)));
  });
  // Awaited only once the statements are read: a failure before then is not an unhandled rejection.
  reply.catch(() => undefined);
  return { worker, reply };
}

/**
 * Starts building the search index of entities with these raw identifiers and types (by dense id).
 * The build waits once its FM-index's suffix array is made until `open()` (the rest of the FM-index,
 * the counts and the document array's working arrays, GBs at 10M entities, then never come on top of
 * what the statements' parse holds, the load's peak otherwise; the parse has the core meanwhile).
 */
export function startSearchIndexThread({
  rawIdentifiers,
  types,
  fold,
}: {
  rawIdentifiers: string[];
  types: Uint8Array;
  fold: FoldMode;
}): SearchIndexThread {
  const entityCount = rawIdentifiers.length;
  let stopped = false;
  let current: Worker | undefined;
  // One word shared with the worker: 0, wait; 1, go on.
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const started = startWorker(
    { kind: INDEX_KIND, rawIdentifiers, types, fold, gate },
    [],
    "index",
    "search index build",
    (done, total) => thread.onProgress?.(done, total),
  );
  current = started.worker;
  let ranks: ScoreRanks | undefined;
  let positions = 0;
  const thread: SearchIndexThread = {
    onProgress: undefined,
    open: () => {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    },
    stop: () => {
      if (!stopped) void current?.terminate();
      stopped = true;
    },
    index: started.reply.then((m) => {
      const index = SearchIndex.deserialize(new MemorySerialReader(m.fields, { verify: false }), entityCount);
      positions = index.documents.top.length;
      ranks = m.ranks;
      return index;
    }),
    scoreIndex: (scores) => {
      if (ranks === undefined) return Promise.reject(new Error("score index build: the index is not there yet"));
      const writer = new MemorySerialWriter();
      scores.serialize(writer);
      const request: ScoreRequest = { kind: SCORE_KIND, ranks, scores: writer.fields, entityCount };
      // The ranks move to the worker (transferred: they are not needed here again); the scores are
      // copied, the graph keeps them. (The filter narrows each buffer's type: all are ArrayBuffers.)
      const transfer = [ranks.idOfRank.buffer, ranks.typeOfRank.buffer, ranks.documentValues.buffer].filter(
        (b): b is ArrayBuffer => b instanceof ArrayBuffer,
      );
      ranks = undefined;
      const second = startWorker(request, transfer, "score-index", "score index build", () => undefined);
      current = second.worker;
      if (stopped) void second.worker.terminate();
      return second.reply.then((m) =>
        ScoreIndex.deserialize(new MemorySerialReader(m.fields, { verify: false }), entityCount, positions),
      );
    },
  };
  // Awaited only once the statements are read: a failure before then is not an unhandled rejection.
  thread.index.catch(() => undefined);
  return thread;
}

/** The index's worker: build (waiting at the gate), hand the serial form and the ranks over, and end. */
function runIndexWorker(request: IndexRequest): void {
  const port = parentPort!;
  try {
    let lastReport = 0;
    // Folded in place: each raw identifier (this worker's own copy) is let go as its folded form
    // replaces it, so the two lists are never both held.
    const names = request.rawIdentifiers;
    const fold = folder(request.fold);
    for (let i = 0; i < names.length; i++) names[i] = fold(names[i]!);
    const collect = collectGarbage();
    const gate = request.gate;
    // The names are collected once they are in the FM-index's text (GBs of strings at 10M entities,
    // else resident under the suffix array's working arrays); the build waits once its suffix array
    // is made.
    const steps = {
      textMade: () => collect?.(),
      suffixArrayMade: (): void => {
        // What the suffix array's build left dead is collected first: the build waits at its least,
        // the text and the suffix array (six bytes a code unit), until the loader opens it (at once
        // when it is open already). The rest of the FM-index (its BWT, class values and their
        // matrix's partition, ten bytes a code unit more at its peak) then never meets the
        // statements' parse either. Blocking is fine: this thread has nothing else to do.
        collect?.();
        while (Atomics.load(gate, 0) === 0) Atomics.wait(gate, 0, 0);
      },
    };
    const { index, documentValues } = SearchIndex.buildWithValues(
      names,
      request.types,
      (done, total) => {
        // The names are in the FM-index's text from step 1 on: this list lets them go. After the
        // FM-index and after the counts, what the step left dead (the BWT and the class values'
        // partition; the text and the suffix array) is collected before the next step's arrays.
        if (done === 1) names.length = 0;
        if (done === 2 || done === 3) collect?.();
        const now = performance.now();
        if (now - lastReport < PROGRESS_MS) return;
        lastReport = now;
        port.postMessage({ kind: "progress", done, total } satisfies Reply);
      },
      steps,
    );
    // Read before the index's arrays leave with it.
    const ranks = ScoreIndex.ranksOf(index, documentValues);
    const writer = new MemorySerialWriter();
    index.serialize(writer);
    const transfer = [...writer.transferables()];
    for (const a of [ranks.idOfRank, ranks.typeOfRank, ranks.documentValues]) {
      // documentValues may share no buffer with the index (it is the build's own array); never list
      // one twice. (The instanceof narrows the buffer's type: all are ArrayBuffers.)
      if (a.buffer instanceof ArrayBuffer && !transfer.includes(a.buffer)) transfer.push(a.buffer);
    }
    port.postMessage({ kind: "index", fields: writer.fields, ranks } satisfies Reply, transfer);
  } catch (e) {
    postError(port, e);
  }
}

/** The score index's worker: build from the ranks and the scores, hand the serial form over, and end. */
function runScoreWorker(request: ScoreRequest): void {
  const port = parentPort!;
  try {
    const scoreIndex = ScoreIndex.fromRanks(
      request.ranks,
      Scores.deserialize(new MemorySerialReader(request.scores, { verify: false }), request.entityCount),
    );
    const writer = new MemorySerialWriter();
    scoreIndex.serialize(writer);
    port.postMessage({ kind: "score-index", fields: writer.fields } satisfies Reply, writer.transferables());
  } catch (e) {
    postError(port, e);
  }
}

function postError(port: NonNullable<typeof parentPort>, e: unknown): void {
  port.postMessage({ kind: "error", message: e instanceof Error ? e.message : String(e) } satisfies Reply);
}

// Each branch: this file runs as one of its two workers when loaded with that workerData, else as a module.
const request = isMainThread ? undefined : (workerData as Partial<IndexRequest | ScoreRequest> | null);
if (request?.kind === INDEX_KIND) runIndexWorker(request as IndexRequest);
else if (request?.kind === SCORE_KIND) runScoreWorker(request as ScoreRequest);

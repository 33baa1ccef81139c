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
 *   main -> worker   workerData { kind, rawIdentifiers, types, fold } (structured clone: a copy)
 *   worker -> main   { kind: "progress", done, total }              (at most every PROGRESS_MS)
 *   worker -> main   { kind: "index", fields }                      (the index's serial form; its
 *                                                                     arrays transferred, not copied)
 *   worker -> main   { kind: "error", message }                     (the build threw)
 *   main -> worker   { kind: "scores", values, givenAtCount }       (once the statements are read)
 *   worker -> main   { kind: "score-index", fields }                (the score index's serial form,
 *                                                                     transferred)
 *
 * The score index (engine/search/score-index.ts) is built from the search index's ranks and the
 * scores, which count the statements: before sending the index the worker keeps what the score
 * index takes of it (ScoreIndex.ranksOf, with the document values the build made: no decoding), and
 * once the loader has the scores it builds the score index here while the loading thread builds the
 * statement index (GraphBuilder's buildWithScoreIndex): the build's two last long phases overlap.
 *
 * The main thread restores the index from its serial form without the linear-time checks (the
 * worker made it with the engine itself; only shapes are checked). `stop()` ends the worker: the
 * loader calls it when reading the statements fails, so a bad line never leaves a thread running.
 *
 * Cost on the loading thread: cloning the raw identifiers into the worker (about 0.2 s for a
 * million), copying the scores (4 bytes an entity) and restoring O(1) per array. Memory: the worker's
 * copy of the identifiers and its working arrays, while the statements are read (the peak is higher
 * than building one after the other by about the search index's build space), then the ranks the
 * score index is built from (4 bytes a text position and 5 an entity) until it is built. The worker
 * gets the loading thread's heap limit.
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { type FoldMode, folder } from "../engine/search/fold.js";
import { ScoreIndex, type ScoreRanks, Scores, SearchIndex } from "../engine/internal.js";
import { MemorySerialReader, MemorySerialWriter, type SerialField } from "../engine/serial.js";

/** workerData's kind: the one this file answers to (other workers of the package carry others). */
const WORKER_KIND = "quiver.search-index";
/** Shortest time between two progress messages of the worker. */
const PROGRESS_MS = 250;
const MIB = 1024 * 1024;

interface Request {
  kind: typeof WORKER_KIND;
  rawIdentifiers: string[];
  types: Uint8Array;
  fold: FoldMode;
}

type Reply =
  | { kind: "progress"; done: number; total: number }
  | { kind: "index"; fields: Map<string, SerialField> }
  | { kind: "score-index"; fields: Map<string, SerialField> }
  | { kind: "error"; message: string };

/** The scores, sent once the statements are read (Scores' two arrays). */
interface ScoresMessage {
  kind: "scores";
  /** The scores' serial form (Scores.serialize), copied: the graph keeps its scores. */
  fields: MemorySerialWriter["fields"];
  entityCount: number;
}

/** A search index being built in a worker thread. */
export interface SearchIndexThread {
  /** Resolves with the index; rejects if the build fails or the worker dies. */
  readonly index: Promise<SearchIndex>;
  /** Where the build's progress goes from now on (none until set). */
  onProgress: ((done: number, total: number) => void) | undefined;
  /**
   * The score index of the index's entities under `scores`, built in the worker from what it kept of
   * the index (call once, after `index` resolved). Rejects if the build fails or the worker dies.
   */
  scoreIndex(scores: Scores): Promise<ScoreIndex>;
  /** Ends the worker. */
  stop(): void;
}

/** Worker threads of this file alive now (started, not yet exited). */
let running = 0;

/** How many search index threads are alive: what a test checks after a failed load, and a diagnostic. */
export function runningSearchIndexThreads(): number {
  return running;
}

/** Starts building the search index of entities with these raw identifiers and types (by dense id). */
export function startSearchIndexThread({
  rawIdentifiers,
  types,
  fold,
}: {
  rawIdentifiers: string[];
  types: Uint8Array;
  fold: FoldMode;
}): SearchIndexThread {
  const request: Request = { kind: WORKER_KIND, rawIdentifiers, types, fold };
  const worker = new Worker(new URL(import.meta.url), {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: Math.floor(getHeapStatistics().heap_size_limit / MIB) },
  });
  running++;
  worker.once("exit", () => running--);
  let stopped = false;
  /** What the next reply of the worker settles: the index, then the score index. */
  let awaited: { resolve: (fields: Map<string, SerialField>) => void; reject: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    if (stopped || failure !== undefined) return;
    failure = error;
    void worker.terminate();
    awaited?.reject(error);
    awaited = undefined;
  };
  const reply = (what: string): Promise<Map<string, SerialField>> =>
    new Promise((resolve, reject) => {
      const rejectWith = (e: Error): void => reject(new Error(`${what}: ${e.message}`));
      if (failure !== undefined) rejectWith(failure);
      else awaited = { resolve, reject: rejectWith };
    });
  worker.on("message", (m: Reply) => {
    // Each branch: progress is passed on; an index ends a step of the worker's job; an error fails it.
    if (m.kind === "progress") thread.onProgress?.(m.done, m.total);
    else if (m.kind === "error") fail(new Error(m.message));
    else {
      const waiting = awaited;
      awaited = undefined;
      waiting?.resolve(m.fields);
    }
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the worker thread exited with code ${code}`)));
  const entityCount = rawIdentifiers.length;
  let positions = 0;
  const thread: SearchIndexThread = {
    onProgress: undefined,
    stop: () => {
      if (!stopped) void worker.terminate();
      stopped = true;
    },
    index: reply("search index build").then((fields) => {
      const index = SearchIndex.deserialize(new MemorySerialReader(fields, { verify: false }), entityCount);
      positions = index.documents.top.length;
      return index;
    }),
    scoreIndex: (scores) => {
      const pending = reply("score index build");
      const writer = new MemorySerialWriter();
      scores.serialize(writer);
      const message: ScoresMessage = { kind: "scores", fields: writer.fields, entityCount };
      // A copy (no transfer list): the graph keeps its scores.
      worker.postMessage(message);
      return pending.then((fields) =>
        ScoreIndex.deserialize(new MemorySerialReader(fields, { verify: false }), entityCount, positions),
      );
    },
  };
  // Awaited only once the statements are read: a failure before then is not an unhandled rejection.
  thread.index.catch(() => undefined);
  return thread;
}

/** The worker's side: build, then hand the serial form over. */
function runWorker(request: Request): void {
  const port = parentPort!;
  try {
    let lastReport = 0;
    const { index, documentValues } = SearchIndex.buildWithValues(
      request.rawIdentifiers.map(folder(request.fold)),
      request.types,
      (done, total) => {
        const now = performance.now();
        if (now - lastReport < PROGRESS_MS) return;
        lastReport = now;
        port.postMessage({ kind: "progress", done, total } satisfies Reply);
      },
    );
    // Read before the index's arrays leave with it.
    let ranks: ScoreRanks | undefined = ScoreIndex.ranksOf(index, documentValues);
    const writer = new MemorySerialWriter();
    index.serialize(writer);
    port.postMessage({ kind: "index", fields: writer.fields } satisfies Reply, writer.transferables());
    port.on("message", (m: ScoresMessage) => {
      try {
        if (ranks === undefined) throw new Error("the scores were sent twice");
        const scoreIndex = ScoreIndex.fromRanks(
          ranks,
          Scores.deserialize(new MemorySerialReader(m.fields, { verify: false }), m.entityCount),
        );
        ranks = undefined;
        const scoreWriter = new MemorySerialWriter();
        scoreIndex.serialize(scoreWriter);
        port.postMessage(
          { kind: "score-index", fields: scoreWriter.fields } satisfies Reply,
          scoreWriter.transferables(),
        );
      } catch (e) {
        postError(port, e);
      }
    });
  } catch (e) {
    postError(port, e);
  }
}

function postError(port: NonNullable<typeof parentPort>, e: unknown): void {
  port.postMessage({ kind: "error", message: e instanceof Error ? e.message : String(e) } satisfies Reply);
}

if (!isMainThread && (workerData as Partial<Request> | null)?.kind === WORKER_KIND) runWorker(workerData as Request);

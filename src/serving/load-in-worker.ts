/**
 * Loading a graph off the serving thread
 * ======================================
 * `loadGraphInWorker(source)` resolves with the same Graph `loadGraphSource(source)` would, but
 * builds or opens it in a worker thread (graph-loader-worker.ts), so the thread that serves keeps
 * answering while a reload of millions of statements runs: its own share is the hand-over of
 * graph-transfer.ts, O(1) per typed array plus string slices of a few milliseconds, one per turn
 * of the event loop, then the graph's restore, a structure at a time (imageGraphSliced).
 * `saveSnapshotInWorker(source, path)` loads the same way and writes a snapshot (what the
 * cluster's primary does once for all its workers).
 *
 * A failure (a bad line, a damaged snapshot, the worker dying or running out of memory) rejects
 * with the loader's error (a QuiverError keeps its code), and the caller keeps its graph. The
 * worker gets the heap limit of the calling thread (V8's default for a worker is smaller than what
 * a big graph needs), and is ended once the graph is handed over.
 *
 * Peak memory during a reload: the old graph, plus the new one in the worker; the arrays change
 * thread without a copy, the strings are copied slice by slice and the worker's copies go with it.
 * A compaction's arrays are built in shared memory by the worker (engine/array-slab.ts; the few
 * others copied there: graph-transfer.ts shareGraph) and shared, so the serving thread can hand
 * them to the next compaction's worker as they are.
 */

import { getHeapStatistics } from "node:v8";
import { Worker } from "node:worker_threads";
import { QuiverError, type QuiverErrorCode } from "../engine/errors.js";
import type { Graph, GraphOptions } from "../engine/graph.js";
import type { BaseWarmth } from "../engine/live/live-graph.js";
import type { LoadProgress } from "../load/jsonl.js";
import { GraphReceiver, type SharedGraphImage, type TransferMessage } from "./graph-transfer.js";
import type { GraphSource, WorkerSource } from "./graph-source.js";

/**
 * A compaction: the source is a live graph's base holding `baseSequence`; the worker applies the
 * batches of the change log at `logDir` after it, up to `upTo`, and hands over base + those batches
 * built as one Graph (live-store.ts compactInWorker).
 */
export interface CompactRequest {
  logDir: string;
  baseSequence: number;
  upTo: number;
  /** Also write the compacted graph as a snapshot here (durably) before handing it over. */
  saveTo?: string | undefined;
}

/** What the worker is asked to do (its workerData). */
export interface LoaderRequest {
  source: WorkerSource;
  compact?: CompactRequest;
  /** Write the graph as a snapshot at this path instead of handing it over. */
  saveTo?: string;
  /**
   * Hand the graph's warmth over with it (live-compaction.ts BaseWarmth: a base to swap into a live
   * graph); a compaction's always is.
   */
  warm?: boolean;
  /** Send progress messages. */
  progress: boolean;
}

export type LoaderMessage =
  | TransferMessage
  | { kind: "progress"; progress: LoadProgress }
  | { kind: "saved"; bytes: number; entities: number; statements: number }
  | { kind: "error"; message: string; code: QuiverErrorCode | undefined };

export interface LoadInWorkerOptions extends GraphOptions {
  onProgress?: ((progress: LoadProgress) => void) | undefined;
}

export interface SavedSnapshot {
  path: string;
  bytes: number;
  entities: number;
  statements: number;
}

/** Nice value of the loader thread (Linux: per thread): the lowest priority, requests first. */
export const LOADER_NICE = 19;

const WORKER_URL = new URL("./graph-loader-worker.js", import.meta.url);
const MIB = 1024 * 1024;

function startWorker(request: LoaderRequest): Worker {
  const heapMb = Math.floor(getHeapStatistics().heap_size_limit / MIB);
  return new Worker(WORKER_URL, {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
    stdout: false,
    stderr: false,
  });
}

function loaderError(message: string, code: QuiverErrorCode | undefined): Error {
  return code === undefined ? new Error(message) : new QuiverError(code, message);
}

/**
 * Runs a worker until `onMessage` settles the promise (by returning a value other than undefined,
 * or a promise of one: settled with it) or the worker fails; the worker is ended either way.
 */
function runWorker<T>(
  request: LoaderRequest,
  onMessage: (m: LoaderMessage, worker: Worker) => T | Promise<T> | undefined,
  onProgress: ((p: LoadProgress) => void) | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = startWorker(request);
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      // Settled once the thread has ended: until then its heap holds what it opened (a compaction's
      // old base, shared with this thread), which the caller's collection after a swap is to free
      // (a collection before the exit finds it alive, and the next may come minutes later).
      worker.terminate().then(f, f);
    };
    worker.on("message", (m: LoaderMessage) => {
      if (settled) return;
      try {
        if (m.kind === "progress") {
          onProgress?.(m.progress);
          return;
        }
        if (m.kind === "error") {
          settle(() => reject(loaderError(m.message, m.code)));
          return;
        }
        const result = onMessage(m, worker);
        if (result !== undefined) settle(() => resolve(result));
      } catch (e) {
        settle(() => reject(e));
      }
    });
    worker.on("error", (e) => settle(() => reject(e)));
    worker.on("exit", (code) =>
      settle(() => reject(new Error(`the graph loader thread stopped (exit code ${code}) before it finished`))),
    );
  });
}

/** A graph handed over with its warmth (undefined unless asked for). */
export interface WarmGraph {
  graph: Graph;
  warmth: BaseWarmth | undefined;
  /**
   * A compaction's: the graph's image, every array of it in shared memory (the graph's arrays are
   * views of it), the source of the next compaction (live-store.ts).
   */
  image?: SharedGraphImage | undefined;
}

/** Loads `source` in a worker thread and hands the graph over without stalling this thread. */
export async function loadGraphInWorker(source: GraphSource, options: LoadInWorkerOptions = {}): Promise<Graph> {
  return (await handOver({ source, progress: options.onProgress !== undefined }, options)).graph;
}

/**
 * Loads `source` (a compaction a live graph will swap in as its base: LiveFollower.rebase) in a
 * worker thread, and hands it over with its warmth, made there too.
 */
export function loadBaseInWorker(source: GraphSource, options: LoadInWorkerOptions = {}): Promise<WarmGraph> {
  return handOver({ source, warm: true, progress: options.onProgress !== undefined }, options);
}

/**
 * Loads `source` (a live graph's base: a snapshot, or the image of the last compaction) in a worker
 * thread, applies the change log's batches after its sequence up to `compact.upTo` there, and hands
 * over the graph of that content with its warmth and its image: the worker puts the graph's arrays
 * in shared memory (graph-transfer.ts shareGraph), so the graph here and the image are one copy.
 */
export function compactInWorker(
  source: WorkerSource,
  compact: CompactRequest,
  options: LoadInWorkerOptions = {},
): Promise<WarmGraph> {
  return handOver({ source, compact, warm: true, progress: options.onProgress !== undefined }, options);
}

/** Runs the worker for `request` and receives the graph it hands over. */
function handOver(request: LoaderRequest, options: LoadInWorkerOptions): Promise<WarmGraph> {
  const graphOptions: GraphOptions = {};
  if (options.cursorSecret !== undefined) graphOptions.cursorSecret = options.cursorSecret;
  if (options.cacheBytes !== undefined) graphOptions.cacheBytes = options.cacheBytes;
  let receiver: GraphReceiver | undefined;
  return runWorker<WarmGraph>(
    request,
    (m, worker) => {
      const askNext = (): void => {
        // After a turn of the event loop, so requests waiting since the last slice go first.
        setImmediate(() => worker.postMessage({ kind: "next" }));
      };
      switch (m.kind) {
        case "fields":
          receiver = new GraphReceiver(m);
          askNext();
          return undefined;
        case "strings":
          receiver?.add(m);
          askNext();
          return undefined;
        case "done": {
          if (receiver === undefined) throw new Error("graph hand-over: done before the arrays");
          const { warmth } = receiver;
          const image = receiver.image();
          // The graph restored a structure at a time (finishSliced): requests are answered between
          // two, not held for the whole restore (hundreds of ms at 10M statements).
          return receiver.finishSliced(graphOptions).then((graph) => ({ graph, warmth, image }));
        }
        default:
          throw new Error(`graph hand-over: unexpected message ${m.kind}`);
      }
    },
    options.onProgress,
  );
}

/** Loads `source` in a worker thread and writes it as a snapshot at `path` (atomically). */
export function saveSnapshotInWorker(
  source: GraphSource,
  path: string,
  options: { onProgress?: ((progress: LoadProgress) => void) | undefined } = {},
): Promise<SavedSnapshot> {
  return runWorker<SavedSnapshot>(
    { source, saveTo: path, progress: options.onProgress !== undefined },
    (m) => (m.kind === "saved" ? { path, bytes: m.bytes, entities: m.entities, statements: m.statements } : undefined),
    options.onProgress,
  );
}

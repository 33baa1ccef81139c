/**
 * The statement orders, sorted on several threads
 * ===============================================
 * Owns the worker threads that share the statement index's sort passes with the loading thread
 * (engine/statements/counting-sort.ts: an OrderSorter). Each pass is cut into T chunks of
 * consecutive rows, one a thread (this thread takes chunk 0): every thread counts its chunk's keys,
 * this thread turns the T counts into each chunk's output positions, and every thread scatters its
 * chunk. The arrays are on SharedArrayBuffers, so a message carries views, never a copy; the result
 * is the one-thread sort's, row for row (test/load/order-threads.test.ts builds both ways).
 *
 *   main -> worker   { op: "count", order, key, range, lo, hi, counts }    (counts: this chunk's
 *                                                                           `range` words)
 *   main -> worker   { op: "scatter", order, key, lo, hi, counts, out }    (counts: its offsets now)
 *   main -> worker   { op: "gather", into, column, order, lo, hi }         (the statement index's
 *                                                                           gathers, chunked alike)
 *   worker -> main   { ok: true } | { ok: false, message }                 (after each message)
 *
 * Cost on the loading thread per pass: two messages a worker and O(T * range) for the offsets
 * (about 20 ms at 10M entities and 2 threads). Memory: T counts of up to `maxRange` words, and the
 * pass arrays must be shared (the builder moves its columns there: GraphBuilder).
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import {
  chunkBounds,
  chunkOffsets,
  countChunk,
  type GatherPass,
  gatherChunk,
  type OrderSorter,
  type SortPass,
  scatterChunk,
} from "../engine/statements/counting-sort.js";
import { collectGarbage } from "./collect-garbage.js";

/** workerData's kind: the one this file answers to. */
const WORKER_KIND = "quiver.order-sort";

type Request =
  | { op: "count"; order: Uint32Array | null; key: Uint32Array; lo: number; hi: number; counts: Uint32Array }
  | {
      op: "scatter";
      order: Uint32Array | null;
      key: Uint32Array;
      lo: number;
      hi: number;
      counts: Uint32Array;
      out: Uint32Array;
    }
  | { op: "gather"; into: Uint32Array; column: Uint32Array; order: Uint32Array; lo: number; hi: number };

type Reply = { ok: true } | { ok: false; message: string };

/** An OrderSorter on `threads` threads (this one and threads - 1 workers); stop() ends the workers. */
export interface OrderThreads extends OrderSorter {
  stop(): void;
}

/** Sort passes of keys below `maxRange`, on `threads` threads (at least 2). */
export function startOrderThreads(threads: number, maxRange: number): OrderThreads {
  const words = Math.max(maxRange, 1);
  const counts = new SharedArrayBuffer(4 * words * threads);
  const workers: Worker[] = [];
  /** What each worker's answer settles: one message at a time a worker. */
  const waiting: ({ resolve: () => void; reject: (e: Error) => void } | undefined)[] = [];
  let failure: Error | undefined;
  for (let t = 1; t < threads; t++) {
    const worker = new Worker(new URL(import.meta.url), { workerData: { kind: WORKER_KIND } });
    const settle = (error: Error | undefined) => {
      const w = waiting[t - 1];
      waiting[t - 1] = undefined;
      // Each branch: an answer settles what waits for it; a failure with nothing waiting is kept for the next pass.
      if (w === undefined) failure ??= error;
      else if (error === undefined) w.resolve();
      else w.reject(error);
    };
    worker.on("message", (reply: Reply) => settle(reply.ok ? undefined : new Error(reply.message)));
    worker.on("error", (e: Error) => settle(e));
    worker.on("exit", (code) => settle(new Error(`a sort thread ended (exit code ${code})`)));
    workers.push(worker);
  }

  const ask = (t: number, request: Request): Promise<void> =>
    new Promise((resolve, reject) => {
      waiting[t - 1] = { resolve, reject };
      workers[t - 1]!.postMessage(request);
    });

  return {
    shared: true,
    async sort(pass: SortPass) {
      if (failure !== undefined) throw failure;
      const { order, key, range, out } = pass;
      const m = key.length;
      const views = Array.from({ length: threads }, (_, t) => new Uint32Array(counts, 4 * words * t, range));
      const chunks = Array.from({ length: threads }, (_, t) => chunkBounds(m, t, threads));
      const all = (op: (t: number, lo: number, hi: number) => Promise<void>) =>
        Promise.all(chunks.slice(1).map(([lo, hi], i) => op(i + 1, lo, hi)));
      // Each pass: the workers' chunks are asked for first, so they run while this thread does chunk 0.
      const counted = all((t, lo, hi) => ask(t, { op: "count", order, key, lo, hi, counts: views[t]! }));
      countChunk(order, key, 0, chunks[0]![1], views[0]!);
      await counted;
      chunkOffsets(views, range);
      const scattered = all((t, lo, hi) => ask(t, { op: "scatter", order, key, lo, hi, counts: views[t]!, out }));
      scatterChunk(order, key, 0, chunks[0]![1], views[0]!, out);
      await scattered;
    },
    async gather(pass: GatherPass) {
      if (failure !== undefined) throw failure;
      const m = pass.order.length;
      // The workers' chunks asked for first, as in a sort pass, so they run while this thread gathers chunk 0.
      const gathered = Promise.all(
        Array.from({ length: threads - 1 }, (_, i) => {
          const [lo, hi] = chunkBounds(m, i + 1, threads);
          return ask(i + 1, { op: "gather", ...pass, lo, hi });
        }),
      );
      gatherChunk(pass, 0, chunkBounds(m, 0, threads)[1]);
      await gathered;
    },
    stop() {
      for (const worker of workers) {
        worker.removeAllListeners("exit");
        void worker.terminate();
      }
    },
  };
}

/** The worker: answers each request in turn. */
function runWorker(): void {
  const port = parentPort!;
  const collect = collectGarbage();
  port.on("message", (request: Request) => {
    try {
      // Each branch: the two halves of a pass, or a gather's chunk.
      if (request.op === "count") countChunk(request.order, request.key, request.lo, request.hi, request.counts);
      else if (request.op === "scatter")
        scatterChunk(request.order, request.key, request.lo, request.hi, request.counts, request.out);
      else gatherChunk(request, request.lo, request.hi);
      port.postMessage({ ok: true } satisfies Reply);
    } catch (e) {
      port.postMessage({ ok: false, message: (e as Error).message } satisfies Reply);
    }
    // The request's views of the shared arrays die with it: collected now (a heap this small
    // collects in a millisecond or two), so that an array the statement index lets go is not kept
    // alive by this thread (its allocations alone would not start a collection for long).
    if (collect !== undefined) setImmediate(collect);
  });
}

if (!isMainThread && (workerData as { kind?: unknown } | null)?.kind === WORKER_KIND) runWorker();

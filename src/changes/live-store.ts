/**
 * Live store
 * ==========
 * A LiveGraph (engine/live/live-graph.ts) with its change log (change-log.ts): `openLive(base, dir)`
 * opens the log for writing, applies the batches after the base's sequence, and from then on each
 * `apply` checks the batch against the graph (prepare), writes it to the log durably, and only then
 * makes it visible (commit). A batch refused by the graph (INVALID_CHANGE, CHANGE_CONFLICT) or by
 * the disk (the write throws) leaves both the graph and the log as they were; but a flush that
 * fails once the batch's file is named leaves that file (a follower may have applied it) and stops
 * the writer: that batch and every one after get CHANGE_LOG_UNAVAILABLE until a restart. `followLive` does the
 * reading half only, for replicas that take no writes: `catchUp()` applies what appeared since.
 *
 * Everything here is synchronous: a batch is prepared, written and committed with no other batch
 * or read in between (the event loop is held for the write's fsyncs, milliseconds).
 */

import type { Graph } from "../engine/graph.js";
import type { GraphSource, WorkerSource } from "../serving/graph-source.js";
import type { SharedGraphImage } from "../serving/graph-transfer.js";
import { type CompactRequest, compactInWorker } from "../serving/load-in-worker.js";
import { servingPause } from "../serving/serving-pause.js";
import { QuiverError, isQuiverError } from "../engine/errors.js";
import type { ChangeBatch } from "../engine/live/change-batch.js";
import { batchDigestOffThread } from "../engine/live/batch-chain.js";
import { supplyDigest } from "../engine/live/live-apply.js";
import {
  type BaseWarmth,
  type ChangeResult,
  LiveGraph,
  type LiveGraphOptions,
  type PreparedBatch,
} from "../engine/live/live-graph.js";
import { collectGarbage } from "../load/collect-garbage.js";
import { saveSnapshot } from "../snapshot/file.js";
import { ChangeLogWriter, type Flush, readChangeLog } from "./change-log.js";

export interface OpenLiveOptions extends LiveGraphOptions {
  /** @internal The log writer's flush (ChangeLogWriterOptions.flush): a test's failing disk. */
  flush?: Flush | undefined;
  /**
   * Where the base came from (a snapshot, or JSON Lines): what compactInWorker loads again in a
   * worker thread. Without it, compaction runs on the calling thread (compact()).
   */
  source?: GraphSource | undefined;
  /**
   * Runs the write path once at open on a scratch graph (LiveGraph.warmWrites), so that the first
   * batches are not the slowest: a server's writer sets it (its first 10,000-put batch took about
   * twice a later one's time without it). Default false: about two big batches' work at open.
   */
  warmWrites?: boolean | undefined;
}

/** Applies the batches of the log at `dir` after the graph's sequence, in order. */
function replay(graph: LiveGraph, dir: string): number {
  let applied = 0;
  for (const batch of readChangeLog(dir, graph.sequence)) {
    if (batch.sequence !== graph.sequence + 1)
      throw new QuiverError("INVALID_CHANGE_LOG", `${dir}: batch ${batch.sequence} follows ${graph.sequence}`);
    try {
      graph.apply(batch.text);
    } catch (e) {
      // A logged batch applied once to this very content: one that fails now means another base.
      if (isQuiverError(e))
        throw new QuiverError(
          "INVALID_CHANGE_LOG",
          `${dir}: batch ${batch.sequence} does not apply to this base (${e.message}); is the log of another graph?`,
          { cause: e },
        );
      throw e;
    }
    applied++;
  }
  return applied;
}

/** CHANGE_LOG_UNAVAILABLE for batch `sequence`, which the disk refused (full, read-only, permissions). */
function logUnavailable(log: ChangeLogWriter, sequence: number, e: unknown): QuiverError {
  // Each branch: the writer stopped already (its own error says why); this very batch stopped it
  // (its file may be in the log: the graph does not show it, a restart reads the log again); or the
  // log and the graph are as they were (append removed what it wrote), so the caller may try again.
  if (isQuiverError(e) && e.code === "CHANGE_LOG_UNAVAILABLE") return e;
  if (log.broken !== undefined)
    return new QuiverError(
      "CHANGE_LOG_UNAVAILABLE",
      `The change log cannot be written: ${log.broken}. Batch ${sequence} may or may not be in the log; this server takes no more batches until it is restarted (it then reads the log again).`,
      { cause: e },
    );
  return new QuiverError(
    "CHANGE_LOG_UNAVAILABLE",
    `The change log could not take batch ${sequence} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); nothing was applied, try again later.`,
    { cause: e },
  );
}

export class LiveStore {
  readonly graph: LiveGraph;
  readonly #log: ChangeLogWriter;
  /**
   * Where a compaction loads the base from, and the batch that base holds: the source given at open,
   * then the last compaction's image (the base itself, in shared memory), or its saved snapshot.
   */
  #source: WorkerSource | undefined;
  #sourceSequence: number;
  #compacting = false;
  /** The last task of applyAsync's queue (settled: the queue is empty), and how many are queued. */
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;

  private constructor(graph: LiveGraph, log: ChangeLogWriter, source: GraphSource | undefined) {
    this.graph = graph;
    this.#log = log;
    this.#source = source;
    this.#sourceSequence = graph.baseSequence;
  }

  /** @internal use openLive. */
  static open(base: Graph, dir: string, options: OpenLiveOptions): LiveStore {
    const log = ChangeLogWriter.open(dir, { flush: options.flush });
    try {
      const graph = new LiveGraph(base, options);
      // What the first batch would build on its way (the base's fingerprint map, its counts) is
      // built now, before the server answers: seconds at 10M statements, not a first write's wait.
      graph.warm();
      replay(graph, dir);
      if (options.warmWrites === true) graph.warmWrites();
      // Replay applied every batch of the log; a log that ends before the base's sequence (and is
      // not empty) would leave a gap at the next batch.
      if (log.lastSequence !== 0 && log.lastSequence !== graph.sequence)
        throw new QuiverError(
          "INVALID_CHANGE_LOG",
          `${dir}: the log ends at batch ${log.lastSequence} but the graph holds ${graph.sequence}`,
        );
      return new LiveStore(graph, log, options.source);
    } catch (e) {
      log.close();
      throw e;
    }
  }

  get sequence(): number {
    return this.graph.sequence;
  }

  /** Applies a batch durably: returns once it is in the log, flushed, and visible. */
  apply(batch: ChangeBatch): ChangeResult {
    // A batch of applyAsync between its prepare and its commit: this one would be prepared on content without it.
    if (this.#queued > 0) throw new Error("LiveStore.apply: an applyAsync batch is being written; await it first");
    const prepared = this.graph.prepare(batch);
    try {
      this.#log.append(prepared.sequence, prepared.text, prepared.digest);
    } catch (e) {
      throw logUnavailable(this.#log, prepared.sequence, e);
    }
    return this.graph.commit(prepared);
  }

  /**
   * `apply` for a server: the same checks, log and result, but the log's flush waits off the event
   * loop (ChangeLogWriter.appendAsync: the file's and the directory's fsync at once), so reads are
   * answered meanwhile, and see the batch only once it is durable. Batches (and a compaction's swap)
   * queue and run one at a time, in the order called: each is prepared on the content its
   * predecessors left.
   */
  applyAsync(batch: ChangeBatch): Promise<ChangeResult> {
    return this.#exclusive(async () => {
      // A batch of text (a server's) is hashed on the thread pool while it is prepared here: its
      // digest (the log's checksum, and the content tag's chain) is then not made on this thread.
      const digesting = typeof batch === "string" ? batchDigestOffThread(batch) : undefined;
      let prepared: PreparedBatch;
      try {
        prepared = this.graph.prepare(batch);
      } catch (e) {
        // Refused: the hash is not waited for (nor its failure, were there one, left unhandled).
        digesting?.catch(() => {});
        throw e;
      }
      if (digesting !== undefined) supplyDigest(prepared, await digesting);
      try {
        await this.#log.appendAsync(prepared.sequence, prepared.text, prepared.digest);
      } catch (e) {
        throw logUnavailable(this.#log, prepared.sequence, e);
      }
      return this.graph.commit(prepared);
    });
  }

  /** Runs `task` after every task queued before it has settled (the write queue of applyAsync). */
  #exclusive<T>(task: () => Promise<T> | T): Promise<T> {
    this.#queued++;
    const run = this.#tail.then(task);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.#tail = settled;
    return run.finally(() => {
      this.#queued--;
    });
  }

  /** Folds the delta into a new base on this thread (synchronously); the log is kept whole. */
  compact(): Graph {
    return this.graph.compact();
  }

  /**
   * Folds the delta into a new base built in a worker thread (the reload machinery of
   * serving/load-in-worker.ts): the worker loads the source the base came from again, applies the
   * log up to the sequence now, and hands the graph over; batches keep applying here meanwhile, and
   * are applied again over the new base before it is swapped in (LiveGraph.swapBase). Without a
   * source (openLive's options.source), the same on this thread. One compaction at a time.
   *
   * `saveTo`: the compacted graph is also written there as a snapshot (it records its sequence:
   * snapshot/graph-manifest.ts), before it is swapped in; it becomes the source of the next
   * compaction, which then replays only the batches after it. The graph returned holds `sequence`.
   */
  async compactInWorker(options: { saveTo?: string | undefined } = {}): Promise<Graph> {
    if (this.#compacting) throw new Error("LiveStore.compactInWorker: a compaction is running already");
    this.#compacting = true;
    try {
      let graph: Graph;
      let image: SharedGraphImage | undefined;
      // Each branch: no source to load again (this thread builds it), or a worker thread does.
      if (this.#source === undefined) {
        graph = this.compact();
        if (options.saveTo !== undefined) await saveSnapshot(graph, options.saveTo);
      } else {
        const upTo = this.graph.sequence;
        const request: CompactRequest = {
          logDir: this.#log.dir,
          baseSequence: this.#sourceSequence,
          upTo,
          saveTo: options.saveTo,
        };
        const built = await compactInWorker(this.#source, request);
        graph = built.graph;
        // A pause first (serving-pause.ts): the hand-over's last step (a structure's restore) and
        // the swap hold requests one after the other, not at once.
        await servingPause();
        // Between two queued batches, never between one's prepare and its commit (which names the base's ids).
        await this.#exclusive(() => {
          const after = [...readChangeLog(this.#log.dir, upTo)]
            .filter((b) => b.sequence <= this.graph.sequence)
            .map((b) => b.text);
          this.graph.swapBase(built.graph, upTo, after, built.warmth);
        });
        image = built.image;
      }
      // Each branch: the new base's arrays are in shared memory (its image: a worker's hand-over of
      // a compaction), which the next compaction's worker opens as they are (no file read, no
      // second copy: the old source goes); or a saved snapshot of it (a graph compacted on this
      // thread, in memory of its own); or neither, and the source stays (replayed from again).
      if (image !== undefined) {
        this.#source = { image };
        this.#sourceSequence = graph.sequence;
        // The old base and the old source (the snapshot the server opened, after the first
        // compaction) are garbage now: a full collection frees their memory before the next
        // compaction builds beside the new base (V8 frees a buffer only when a collection finds it
        // dead, and the serving thread allocates too little to start one soon). A pause of tens
        // of ms: the graph's bulk is in buffers, not on the heap. After a pause (serving-pause.ts),
        // so that the swap and the collection hold requests one after the other, not at once.
        await servingPause();
        collectGarbage()?.();
      } else if (options.saveTo !== undefined) {
        this.#source = { snapshot: options.saveTo };
        this.#sourceSequence = graph.sequence;
      }
      return graph;
    } finally {
      this.#compacting = false;
    }
  }

  /** Releases the log's lock. */
  close(): void {
    this.#log.close();
  }
}

/**
 * Opens `base` with the change log at `dir` (made when missing) as its one writer: the batches after
 * the base's sequence (options.baseSequence, default 0) are applied before this returns.
 */
export function openLive(base: Graph, dir: string, options: OpenLiveOptions = {}): LiveStore {
  return LiveStore.open(base, dir, options);
}

/** Options of compactedGraph: LiveGraph.feedCompaction's. */
export interface CompactedGraphOptions {
  betweenPhases?: (() => void) | undefined;
  baseShared?: boolean | undefined;
}

/**
 * The base `take()` gives (holding request.baseSequence) with the log's batches after it up to
 * request.upTo, built as one Graph: what a compaction's worker thread hands over. The base and the
 * delta are let go once the builder has them, before it builds (its peak): `take` hands the base
 * over so that the caller keeps no reference to it, and the live graph lives in a frame of its own
 * (fedCompaction) that has returned before the build starts. `options`: LiveGraph.feedCompaction's
 * (`betweenPhases`: the worker collects its garbage there; `baseShared`: the base is a snapshot
 * this thread shares with another).
 */
export function compactedGraph(take: () => Graph, request: CompactRequest, options: CompactedGraphOptions = {}): Graph {
  return fedCompaction(take, request, options).build();
}

/**
 * The builder of compactedGraph, fed. A function of its own so that nothing of this frame (the
 * live graph, a temporary holding the base) is a root of the heap while the builder builds: an
 * interpreter frame that stays on the stack under the build can keep a dead temporary, and with it
 * the whole base, alive.
 */
function fedCompaction(take: () => Graph, request: CompactRequest, options: CompactedGraphOptions): { build(): Graph } {
  const live = new LiveGraph(take(), { baseSequence: request.baseSequence });
  for (const batch of readChangeLog(request.logDir, request.baseSequence)) {
    if (batch.sequence > request.upTo) break;
    live.apply(batch.text);
  }
  if (live.sequence !== request.upTo)
    throw new QuiverError(
      "INVALID_CHANGE_LOG",
      `${request.logDir}: compaction up to batch ${request.upTo} found the log ending at ${live.sequence}`,
    );
  return live.feedCompaction({ last: true, ...options });
}

/** A reader of a change log (a follower: no lock, no writes). */
export class LiveFollower {
  readonly graph: LiveGraph;
  readonly dir: string;

  constructor(base: Graph, dir: string, options: OpenLiveOptions = {}) {
    this.graph = new LiveGraph(base, options);
    this.dir = dir;
    // A follower applies every batch the writer does: warmed as the writer is (LiveStore.open).
    this.graph.warm();
    replay(this.graph, dir);
  }

  /** Applies the batches that appeared since; returns how many. */
  catchUp(): number {
    return replay(this.graph, this.dir);
  }

  /**
   * Makes `graph`, a compaction of this log (a snapshot the writer saved, holding batch
   * `graph.sequence`), the base: the batches after it that this follower holds become the new
   * delta, swapped in at once (LiveGraph.swapBase: the content, tags and cursors stay). The
   * follower first catches up, so it never goes back; a compaction ahead of the log is refused.
   * `warmth`: the graph's (loadBaseInWorker hands it over), so no write here builds it.
   */
  rebase(graph: Graph, warmth?: BaseWarmth): void {
    this.catchUp();
    const upTo = graph.sequence;
    if (upTo > this.graph.sequence)
      throw new QuiverError(
        "INVALID_CHANGE_LOG",
        `${this.dir}: a compaction holding batch ${upTo} is ahead of the log, which ends at ${this.graph.sequence}`,
      );
    const after = [...readChangeLog(this.dir, upTo)]
      .filter((b) => b.sequence <= this.graph.sequence)
      .map((b) => b.text);
    this.graph.swapBase(graph, upTo, after, warmth);
  }
}

/**
 * Live store
 * ==========
 * A LiveGraph (engine/live/live-graph.ts) with its change log (change-log.ts): `openLive(base, dir)`
 * opens the log for writing, applies the batches after the base's sequence, and from then on each
 * `apply` checks the batch against the graph (prepare), writes it to the log durably, and only then
 * makes it visible (commit). A batch refused by the graph (INVALID_CHANGE, CHANGE_CONFLICT) or by
 * the disk (the write throws) leaves both the graph and the log as they were. `followLive` does the
 * reading half only, for replicas that take no writes: `catchUp()` applies what appeared since.
 *
 * Everything here is synchronous: a batch is prepared, written and committed with no other batch
 * or read in between (the event loop is held for the write's fsyncs, milliseconds).
 */

import type { Graph } from "../engine/graph.js";
import { QuiverError, isQuiverError } from "../engine/errors.js";
import type { ChangeBatch } from "../engine/live/change-batch.js";
import { type ChangeResult, LiveGraph, type LiveGraphOptions } from "../engine/live/live-graph.js";
import { ChangeLogWriter, readChangeLog } from "./change-log.js";

export type OpenLiveOptions = LiveGraphOptions;

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

export class LiveStore {
  readonly graph: LiveGraph;
  readonly #log: ChangeLogWriter;

  private constructor(graph: LiveGraph, log: ChangeLogWriter) {
    this.graph = graph;
    this.#log = log;
  }

  /** @internal use openLive. */
  static open(base: Graph, dir: string, options: OpenLiveOptions): LiveStore {
    const log = ChangeLogWriter.open(dir);
    try {
      const graph = new LiveGraph(base, options);
      replay(graph, dir);
      // Replay applied every batch of the log; a log that ends before the base's sequence (and is
      // not empty) would leave a gap at the next batch.
      if (log.lastSequence !== 0 && log.lastSequence !== graph.sequence)
        throw new QuiverError(
          "INVALID_CHANGE_LOG",
          `${dir}: the log ends at batch ${log.lastSequence} but the graph holds ${graph.sequence}`,
        );
      return new LiveStore(graph, log);
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
    const prepared = this.graph.prepare(batch);
    this.#log.append(prepared.sequence, prepared.text);
    return this.graph.commit(prepared);
  }

  /** Folds the delta into a new base (synchronously); the log is kept whole. */
  compact(): Graph {
    return this.graph.compact();
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

/** A reader of a change log (a follower: no lock, no writes). */
export class LiveFollower {
  readonly graph: LiveGraph;
  readonly dir: string;

  constructor(base: Graph, dir: string, options: OpenLiveOptions = {}) {
    this.graph = new LiveGraph(base, options);
    this.dir = dir;
    replay(this.graph, dir);
  }

  /** Applies the batches that appeared since; returns how many. */
  catchUp(): number {
    return replay(this.graph, this.dir);
  }
}

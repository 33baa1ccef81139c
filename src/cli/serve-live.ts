/**
 * quiver serve --changes / --follow
 * =================================
 * The live half of `quiver serve` in one process. `--changes DIR`: the server is the log's one
 * writer (openLive: the lock, then the batches after the base's sequence applied before it listens)
 * and answers POST /graph/v1/changes for the keys in QUIVER_WRITE_KEYS (one is generated and printed
 * when the variable is not set). `--follow DIR`: a replica: no changes path; every FOLLOW_POLL_MS it
 * applies the batches that appeared in the log since (LiveFollower.catchUp: in order, whole batches
 * only, a torn last file ignored until it is whole), so replicas of one log converge.
 *
 * Background compaction (the writer): once the delta holds `compactAfter` changed items (entities and
 * statements put or hidden), the base is rebuilt with the delta in a worker thread
 * (LiveStore.compactInWorker, from the source the base came from, the log replayed there) and
 * swapped in while the server keeps answering; one at a time; the content stays, the tags change once (they name the base too: live-graph.ts).
 * The compacted graph holds its sequence. With `compactDir` (the cluster's primary) it is also
 * written there as a snapshot, which the next compaction starts from (replaying only the later
 * batches) and which followers swap in as their base (LiveFollower.rebase).
 */

import { join } from "node:path";
import type { Graph } from "../engine/graph.js";
import type { BaseWarmth } from "../engine/live/live-graph.js";
import type { ReadGraph } from "../engine/read-graph.js";
import { LiveFollower, type LiveStore, openLive } from "../changes/live-store.js";
import type { ChangeWriter } from "../http/router.js";
import type { GraphSource } from "../serving/graph-source.js";
import { generateApiKey } from "./api-keys.js";
import { assertUsableKey } from "../http/auth.js";

export const WRITE_KEYS_ENV = "QUIVER_WRITE_KEYS";
/** How often a follower looks for new batches: a batch's 200 reaches replicas within about this. */
export const FOLLOW_POLL_MS = 100;
/** Changed items in the delta that start a background compaction (a QLever-like delta of 100k). */
export const DEFAULT_COMPACT_AFTER = 100_000;

export interface LiveServing {
  /** The graph to serve. */
  readonly graph: Graph | ReadGraph;
  /** The writer, with --changes. */
  readonly changes: ChangeWriter | undefined;
  readonly writeKeys: string[] | undefined;
  /** Lines for the operator (a generated write key). */
  readonly lines: string;
  /** Stops following, releases the log's lock. */
  close(): void;
  /** With --follow: applies the batches that appeared since now, not at the next poll (cluster workers). */
  catchUp?(): number;
  /** With --follow: swaps in a compaction of the log as the base (LiveFollower.rebase; cluster workers). */
  rebase?(graph: Graph, warmth?: BaseWarmth): void;
}

export interface LiveFlags {
  changes: string | undefined;
  follow: string | undefined;
  cursorSecret: string;
  cacheBytes: number | undefined;
  /** Delta items that start a background compaction (--compact-after); 0: never. */
  compactAfter: number;
  /**
   * Where a background compaction also writes its graph as a snapshot (`compacted-<sequence>.snap`),
   * for followers to swap in (the cluster's workers) and as the next compaction's base; undefined:
   * kept in memory only.
   */
  compactDir?: string | undefined;
}

/** What the serving loop learns of a background compaction. */
export interface CompactionEvents {
  /** `snapshot`: where the compacted graph was written (with compactDir). */
  compacted(ms: number, sequence: number, snapshot: string | undefined): void;
  failed(error: unknown): void;
}

/** The file a background compaction up to batch `sequence` writes in LiveFlags.compactDir. */
export function compactedSnapshotName(sequence: number): string {
  return `compacted-${String(sequence).padStart(16, "0")}.snap`;
}

/** The write keys from QUIVER_WRITE_KEYS (each checked by position), or one generated for this run. */
export function writeKeysFromEnv(value: string | undefined): { keys: string[]; generated: boolean } {
  const keys = (value ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keys.length === 0) return { keys: [generateApiKey()], generated: true };
  for (const [i, k] of keys.entries()) assertUsableKey(k, `${WRITE_KEYS_ENV}, key ${i + 1} of ${keys.length}`);
  return { keys, generated: false };
}

/**
 * Opens the log the flags name over `base` (throws QuiverError CHANGE_LOG_LOCKED naming the holder,
 * INVALID_CHANGE_LOG for a log of another base); with neither flag, the base as it is.
 */
export function openLiveServing(
  base: Graph,
  flags: LiveFlags,
  source: GraphSource,
  env: NodeJS.ProcessEnv,
  onFollowError: (error: unknown) => void,
  compaction: CompactionEvents,
): LiveServing {
  const options = { cursorSecret: flags.cursorSecret, cacheBytes: flags.cacheBytes, source };
  // Each branch: a writer, a follower, or a graph that never changes.
  if (flags.changes !== undefined) {
    const writeKeys = writeKeysFromEnv(env[WRITE_KEYS_ENV]);
    // The writer's first batches run compiled code (LiveStore's warmWrites).
    const store: LiveStore = openLive(base, flags.changes, { ...options, warmWrites: true });
    let compacting = false;
    const maybeCompact = (): void => {
      const d = store.graph.deltaSize;
      const size = d.entities + d.statements + d.hiddenEntities + d.hiddenStatements;
      // Each condition: compaction off, one already running, or a delta still small.
      if (flags.compactAfter === 0 || compacting || size < flags.compactAfter) return;
      compacting = true;
      const started = performance.now();
      const saveTo =
        flags.compactDir === undefined ? undefined : join(flags.compactDir, compactedSnapshotName(store.sequence));
      store.compactInWorker({ saveTo }).then(
        (graph) => {
          compacting = false;
          compaction.compacted(performance.now() - started, graph.sequence, saveTo);
        },
        (e: unknown) => {
          compacting = false;
          compaction.failed(e);
        },
      );
    };
    const writer: ChangeWriter = {
      graph: store.graph,
      async apply(batch) {
        // The flush waits off the event loop: requests are answered meanwhile (LiveStore.applyAsync).
        const result = await store.applyAsync(batch);
        maybeCompact();
        return result;
      },
    };
    return {
      graph: store.graph,
      changes: writer,
      writeKeys: writeKeys.keys,
      lines: writeKeys.generated
        ? `${WRITE_KEYS_ENV} is not set: this run takes changes (POST /graph/v1/changes) with one generated write key:\n  ${writeKeys.keys[0]}\n`
        : "",
      close: () => store.close(),
    };
  }
  if (flags.follow !== undefined) {
    const follower = new LiveFollower(base, flags.follow, options);
    let failing = false;
    const timer = setInterval(() => {
      try {
        follower.catchUp();
        failing = false;
      } catch (e) {
        // Reported once per run of failures, not every poll; the replica keeps serving what it has.
        if (!failing) onFollowError(e);
        failing = true;
      }
    }, FOLLOW_POLL_MS);
    timer.unref();
    return {
      graph: follower.graph,
      changes: undefined,
      writeKeys: undefined,
      lines: "",
      close: () => clearInterval(timer),
      catchUp: () => follower.catchUp(),
      rebase: (graph, warmth) => follower.rebase(graph, warmth),
    };
  }
  return { graph: base, changes: undefined, writeKeys: undefined, lines: "", close: () => {} };
}

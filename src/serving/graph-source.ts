/**
 * Where a served graph comes from
 * ===============================
 * `GraphSource` names the input of a server: JSON Lines files (`{ entities, statements }`, built
 * on load) or a snapshot (`{ snapshot }`, opened). `loadGraphSource` turns one (or a WorkerSource's
 * shared image) into a Graph on the calling thread; `loadGraphInWorker` (load-in-worker.ts) does the same off it. A reload loads the
 * same source again.
 *
 * `checkSourceReadable` is the cheap check made before the long work: every file named exists, is
 * a regular file and can be opened for reading. So a typo in a path is reported at once, naming
 * the path, and not after minutes of loading the other file.
 */

import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import type { Graph, GraphOptions } from "../engine/graph.js";
import type { FoldMode } from "../engine/search/fold.js";
import { loadGraph, type LoadProgress } from "../load/jsonl.js";
import { openSharedSnapshot, openSnapshot, type SharedSnapshot } from "../snapshot/file.js";
import { imageGraph, type SharedGraphImage } from "./graph-transfer.js";

export type GraphSource =
  /** JSON Lines, built on load; `fold` as GraphBuilderOptions.fold (default "case"). */
  | { entities: string; statements: string; fold?: FoldMode | undefined; threads?: number | undefined }
  /**
   * A snapshot: it keeps the fold mode it was built with. `shared`: this process opened it already
   * (openSnapshotShared), and another thread opens the same graph from that memory (a compaction's
   * worker: no second copy of the base); absent, the file is read.
   */
  | { snapshot: string; shared?: SharedSnapshot | undefined };

/**
 * What a worker thread loads: a GraphSource, or a graph this process holds in shared memory (a
 * compaction's result, kept by the live store as the source of the next one: graph-transfer.ts
 * SharedGraphImage), opened from that memory with no file read and no copy.
 */
export type WorkerSource = GraphSource | { image: SharedGraphImage };

export interface LoadGraphSourceOptions extends GraphOptions {
  onProgress?: ((progress: LoadProgress) => void) | undefined;
}

/** The files a source reads, with what each one is (for messages). */
export function sourceFiles(source: GraphSource): { what: string; path: string }[] {
  return "snapshot" in source
    ? [{ what: "snapshot", path: source.snapshot }]
    : [
        { what: "entities file", path: source.entities },
        { what: "statements file", path: source.statements },
      ];
}

/** Throws an Error naming the path when a file of `source` is missing, not a file, or unreadable. */
export async function checkSourceReadable(source: GraphSource): Promise<void> {
  for (const { what, path } of sourceFiles(source)) {
    let isFile: boolean;
    try {
      isFile = (await stat(path)).isFile();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(
        code === "ENOENT"
          ? `the ${what} ${path} does not exist`
          : `cannot read the ${what} ${path}: ${(e as Error).message}`,
      );
    }
    // A directory (or a device) would fail later, after the other file was loaded.
    if (!isFile) throw new Error(`the ${what} ${path} is not a file (a directory?)`);
    try {
      await access(path, constants.R_OK);
    } catch (e) {
      throw new Error(`cannot read the ${what} ${path}: ${(e as Error).message}`);
    }
  }
}

/** Loads `source` on the calling thread. */
export async function loadGraphSource(source: WorkerSource, options: LoadGraphSourceOptions = {}): Promise<Graph> {
  const graphOptions: GraphOptions = {};
  if (options.cursorSecret !== undefined) graphOptions.cursorSecret = options.cursorSecret;
  if (options.cacheBytes !== undefined) graphOptions.cacheBytes = options.cacheBytes;
  // An image: the graph's arrays are there, in memory this thread shares.
  if ("image" in source) return imageGraph(source.image, graphOptions);
  // Each branch: a snapshot holds the built graph (typed arrays straight from the file, nothing to
  // report on the way); JSON Lines are read and built, with progress.
  if ("snapshot" in source)
    // Each branch: the head this process holds already, shared; or the file, read whole.
    return source.shared === undefined
      ? openSnapshot(source.snapshot, graphOptions)
      : openSharedSnapshot(source.shared, graphOptions);
  const graph = await loadGraph({
    entities: source.entities,
    statements: source.statements,
    ...(source.fold === undefined ? {} : { fold: source.fold }),
    ...(source.threads === undefined ? {} : { threads: source.threads }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  return Object.keys(graphOptions).length === 0 ? graph : graph.withOptions(graphOptions);
}

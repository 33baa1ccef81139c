/**
 * Graph loader worker
 * ===================
 * The body of the worker thread that load-in-worker.ts starts: loads the source it is given
 * (graph-source.ts), for a compaction applies the change log's batches to it and builds the result
 * (changes/live-store.ts; written as a snapshot too when the compaction says `saveTo`), then either hands the graph to the main thread (graph-transfer.ts: the
 * engine's serial fields, arrays transferred, strings in slices the main thread pulls) or, when asked to `saveTo` a path, writes
 * it as a snapshot there and reports its counts (the cluster's primary builds once, and its
 * workers open the file). Progress and errors go to the main thread as messages; the worker never
 * writes to stdout or stderr.
 */

import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { isQuiverError } from "../engine/errors.js";
import { collectGarbage } from "../load/collect-garbage.js";
import type { Graph } from "../engine/graph.js";
import { saveSnapshot } from "../snapshot/file.js";
import { compactedGraph } from "../changes/live-store.js";
import { warmthOf } from "../engine/live/live-graph.js";
import { describeGraph } from "./graph-transfer.js";
import { loadGraphSource } from "./graph-source.js";
import { LOADER_NICE, type LoaderRequest, type LoaderMessage } from "./load-in-worker.js";

const port = parentPort;
if (port === null) throw new Error("graph-loader-worker.js runs as a worker thread only");
const request = workerData as LoaderRequest;
const post = (message: LoaderMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

// The serving thread comes first: on Linux a nice value is per thread, and pid 0 is this thread,
// so the build yields the CPU to requests on a busy machine (most of all on 2 cores). Where the
// system refuses (or applies it to the whole process), the load goes on at the usual priority.
if (process.platform === "linux") {
  try {
    setPriority(LOADER_NICE);
  } catch {}
}

/**
 * Loads the source into `holder.graph`. A function of its own, and the graph put in a holder rather
 * than returned: an awaited value stays in a register of the awaiting frame, and this module's top
 * level stays on the stack through the whole compaction, so a graph awaited here would be a root of
 * the heap and keep the whole base (one ArrayBuffer a snapshot) alive through the build's peak.
 */
async function loadInto(holder: { graph: Graph | undefined }): Promise<void> {
  holder.graph = await loadGraphSource(request.source, {
    onProgress: request.progress ? (progress) => post({ kind: "progress", progress }) : undefined,
  });
}

try {
  const loaded: { graph: Graph | undefined } = { graph: undefined };
  await loadInto(loaded);
  // A compaction: the base with the change log's batches up to the sequence asked, built as one
  // graph; the base is taken out of `loaded` so that it can go before the build's peak.
  const take = (): Graph => {
    const base = loaded.graph as Graph;
    loaded.graph = undefined;
    return base;
  };
  // A base opened from memory the main thread shares (a snapshot opened shared): its memory stays
  // when this thread lets it go, which the compaction's feed plans for (feedCompaction's baseShared).
  const baseShared = "snapshot" in request.source && request.source.shared !== undefined;
  const graph =
    request.compact === undefined
      ? take()
      : // Between the compaction's phases, a full collection of this thread's heap (collect-garbage.ts:
        // a phase's dead working arrays are freed before the next one's are made).
        compactedGraph(take, request.compact, { betweenPhases: collectGarbage(), baseShared });
  // A compaction others will open (a cluster's workers, the next compaction): on disk first.
  if (request.compact?.saveTo !== undefined) await saveSnapshot(graph, request.compact.saveTo);
  if (request.saveTo !== undefined) {
    const { bytes } = await saveSnapshot(graph, request.saveTo);
    post({ kind: "saved", bytes, entities: graph.entityCount, statements: graph.statementCount });
  } else {
    // A base to swap into a live graph: what its first write would build, built here.
    const warmth = request.warm === true ? warmthOf(graph) : undefined;
    const { head, transfer, slices: makeSlices } = describeGraph(graph, warmth);
    const slices = makeSlices();
    port.on("message", (m: { kind: string }) => {
      // Each "next" from the main thread takes one slice; the last answer is "done".
      if (m.kind !== "next") return;
      const slice = slices.next();
      post(slice.done ? { kind: "done" } : slice.value);
    });
    post(head, transfer);
  }
} catch (e) {
  post({
    kind: "error",
    message: e instanceof Error ? e.message : String(e),
    code: isQuiverError(e) ? e.code : undefined,
  });
}

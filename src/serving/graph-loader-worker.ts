/**
 * Graph loader worker
 * ===================
 * The body of the worker thread that load-in-worker.ts starts: loads the source it is given
 * (graph-source.ts), for a compaction applies the change log's batches to it and builds the result
 * (changes/live-store.ts; written as a snapshot too when the compaction says `saveTo`), then either hands the graph to the main thread (graph-transfer.ts: the
 * engine's serial fields, arrays transferred, or for a compaction built in shared memory
 * (engine/array-slab.ts) and shared, strings in slices the main thread pulls) or, when asked to `saveTo` a path, writes
 * it as a snapshot there and reports its counts (the cluster's primary builds once, and its
 * workers open the file). Progress and errors go to the main thread as messages; the worker never
 * writes to stdout or stderr.
 */

import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { ArraySlab } from "../engine/array-slab.js";
import { isQuiverError } from "../engine/errors.js";
import { collectGarbage } from "../load/collect-garbage.js";
import type { Graph } from "../engine/graph.js";
import { saveSnapshot } from "../snapshot/file.js";
import { compactedGraph } from "../changes/live-store.js";
import { type BaseWarmth, warmthOf } from "../engine/live/live-graph.js";
import { describeGraph, imageGraph, type SharedGraphImage, shareGraph } from "./graph-transfer.js";
import { mapWorkingArrays } from "./mapped-arrays.js";
import { loadGraphSource } from "./graph-source.js";
import { type CompactRequest, LOADER_NICE, type LoaderRequest, type LoaderMessage } from "./load-in-worker.js";

if (parentPort === null) throw new Error("graph-loader-worker.js runs as a worker thread only");
const port = parentPort;
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

/**
 * A compaction (request.compact): the base with the change log's batches up to the sequence asked,
 * built as one graph, saved when asked, and handed over in shared memory with its warmth: the build
 * runs in an ArraySlab, so its final arrays are made in shared memory (no copy of them, and no
 * buffer of theirs left in this thread's heap when it ends), and shareGraph copies only the few it
 * did not make there. The base is taken out of `loaded` so that it can go before the build's peak,
 * and the built graph lives in `built` only, taken by shareGraph, so that what it copies (or made
 * again for the image: the fingerprints' halves interleaved) can be freed at once (a graph held in
 * this frame would keep every original until the end). The warmth is made after, over the image.
 */
async function compaction(
  loaded: { graph: Graph | undefined },
  compact: CompactRequest,
): Promise<{ image: SharedGraphImage; warmth: BaseWarmth }> {
  const take = (): Graph => {
    const base = loaded.graph as Graph;
    loaded.graph = undefined;
    return base;
  };
  // A base opened from memory the main thread shares (a snapshot opened shared, or the last
  // compaction's image): its memory stays when this thread lets it go, which the compaction's feed
  // plans for (feedCompaction's baseShared).
  const source = request.source;
  const baseShared = "image" in source || ("snapshot" in source && source.shared !== undefined);
  const collect = collectGarbage();
  const built: { graph: Graph | undefined } = { graph: undefined };
  // The graph's final arrays are built in shared memory (array-slab.ts), handed over as they are.
  const slab = new ArraySlab();
  slab.run(() => build(built, take, compact, baseShared, collect));
  // A compaction others will open (a cluster's workers, a restart): on disk first.
  if (compact.saveTo !== undefined) await saveBuilt(built, compact.saveTo);
  const image = shareGraph(
    () => {
      const graph = built.graph as Graph;
      built.graph = undefined;
      return graph;
    },
    collect,
    slab,
  );
  collect?.();
  // What the swap's first write would build, built here, once the built graph is gone: over the
  // graph the image holds (the same memory), so the warmth and the graph's own arrays that the
  // image replaced (a few small ones, the fingerprints' halves interleaved) are never held at once.
  const warmth = warmthOfImage(image);
  collect?.();
  return { image, warmth };
}

/*
 * The steps of compaction() that touch the built graph, each in a frame of its own that has
 * returned before shareGraph copies: a temporary of compaction()'s own frame holding the graph
 * would keep every array of it alive through the copy.
 */
function build(
  built: { graph: Graph | undefined },
  take: () => Graph,
  compact: CompactRequest,
  baseShared: boolean,
  collect: (() => void) | undefined,
): void {
  // Between the compaction's phases, a full collection of this thread's heap (collect-garbage.ts:
  // a phase's dead working arrays are freed before the next one's are made).
  built.graph = compactedGraph(take, compact, { betweenPhases: collect, baseShared });
}
async function saveBuilt(built: { graph: Graph | undefined }, path: string): Promise<void> {
  await saveSnapshot(built.graph as Graph, path);
}
function warmthOfImage(image: SharedGraphImage): BaseWarmth {
  return warmthOf(imageGraph(image));
}

/** Sends `graph` (or its image) to the main thread: the head now, a slice of strings at each "next". */
function handOver(graph: Graph | SharedGraphImage, warmth: BaseWarmth | undefined): void {
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

// A compaction's working arrays (its load's, its replay's, its build's) each in a mapping of their
// own (mapped-arrays.ts): what it frees goes back to the system, not to this thread's malloc arena,
// which would keep it under the build's later steps and, once this thread ends, in the process.
if (request.compact !== undefined) mapWorkingArrays();

try {
  const loaded: { graph: Graph | undefined } = { graph: undefined };
  await loadInto(loaded);
  // Each branch: a compaction (built, handed over in shared memory); a snapshot to write; or a graph
  // to hand over as it is (a reload, a follower's base with its warmth).
  if (request.compact !== undefined) {
    const { image, warmth } = await compaction(loaded, request.compact);
    handOver(image, warmth);
  } else if (request.saveTo !== undefined) {
    const graph = loaded.graph as Graph;
    const { bytes } = await saveSnapshot(graph, request.saveTo);
    post({ kind: "saved", bytes, entities: graph.entityCount, statements: graph.statementCount });
  } else {
    const graph = loaded.graph as Graph;
    handOver(graph, request.warm === true ? warmthOf(graph) : undefined);
  }
} catch (e) {
  post({
    kind: "error",
    message: e instanceof Error ? e.message : String(e),
    code: isQuiverError(e) ? e.code : undefined,
  });
}

/**
 * Handing a graph from a worker thread to the main thread
 * =======================================================
 * A graph built (or opened) in a worker thread must reach the thread that serves without stalling
 * it. The carrier is the engine's serial protocol in memory (engine/serial.ts,
 * snapshot/graph-manifest.ts): the worker writes the graph with `writeGraph` into a
 * MemorySerialWriter, and the main thread restores it with `readGraph` from a MemorySerialReader
 * with `verify` false (the worker made these fields with the engine itself; nothing was read from
 * outside, so the linear-time checks are skipped and only shape checks run).
 *
 * Typed arrays move by transfer (the ArrayBuffer changes owner: no copy, O(1) each). String lists
 * cannot: the receiving thread has to make its own strings, and for a million entities that is a
 * stall of a large fraction of a second if done at once. So each list comes in slices of
 * STRING_SLICE_ITEMS, one message each, and the receiver asks for the next slice only after its
 * event loop has had a turn. Pull, not push: node delivers every queued message of a port in one
 * callback, so pushed slices would be taken in one go and the stall would be back.
 *
 *   worker -> main  { kind: "fields", fields, lists,     (fields without the string lists; arrays
 *                     warmth? }                          transferred; lists: names and lengths;
 *                                                         a compaction's base warmth, live-graph.ts)
 *   main -> worker  { kind: "next" }                     (after a turn of the main event loop)
 *   worker -> main  { kind: "strings", name, items }     (one slice)
 *   ...                                                   until every list is sent
 *   worker -> main  { kind: "done" }
 *
 * Cost on the main thread: O(1) per array, one slice (a few ms) per turn of its event loop, and
 * readGraph's restore (shape checks, and what each structure derives: key samples, decoded texts,
 * score runs), a structure at a time with pauses between (imageGraphSliced); the entity dictionary's hash table
 * comes made (a pass over a million entities is a stall of over 100 ms). A compaction's worker also sends the new base's warmth (its fingerprint
 * map and counts: BaseWarmth), arrays transferred too, so the swap builds neither. In the worker: one message per slice. Memory: the arrays are never in
 * two threads at once; the worker's strings go with the worker.
 */

import { ArraySlab, type FinalArrayType } from "../engine/array-slab.js";
import { type Graph, type GraphOptions, graphParts } from "../engine/graph.js";
import type { BaseWarmth } from "../engine/live/live-graph.js";
import { MemorySerialReader, MemorySerialWriter, type SerialArray, type SerialField } from "../engine/serial.js";
import { readGraph, readGraphSteps, writeGraph } from "../snapshot/graph-manifest.js";
import { servingPause } from "./serving-pause.js";

/**
 * Strings per message: a few milliseconds of structured-clone work on the receiving thread; the
 * pauses (young-generation collections of a slice's strings) grow with the slice.
 */
export const STRING_SLICE_ITEMS = 8_192;

export interface FieldsMessage {
  kind: "fields";
  /** Every field but the string lists. */
  fields: Map<string, SerialField>;
  /** The string lists, in the order their slices follow, with their lengths. */
  lists: { name: string; length: number }[];
  /** The entity dictionary's slots (engine/entities/dictionary.ts): no pass over the entities here. */
  dictionary: Uint32Array;
  /** The graph's warmth, when the worker made it (a base to swap into a live graph). */
  warmth?: BaseWarmth | undefined;
}
export interface StringsMessage {
  kind: "strings";
  name: string;
  items: string[];
}
export interface DoneMessage {
  kind: "done";
}
export type TransferMessage = FieldsMessage | StringsMessage | DoneMessage;

/**
 * A graph's serial fields with every array in shared memory (SharedArrayBuffers), the string lists
 * as they are, and its entity dictionary's slots: what a thread opens the same graph from without a
 * copy (imageGraph), posted to another thread as it is (a SharedArrayBuffer is shared, not copied).
 * A compaction's worker hands its graph over as one (shareGraph), and the serving thread keeps it as
 * the source of the next compaction (changes/live-store.ts). It holds the text stores' code units
 * too (transient fields: the graph itself holds its text as strings), so that a thread opening it
 * needs nothing of the thread that made it.
 */
export interface SharedGraphImage {
  fields: Map<string, SerialField>;
  dictionary: Uint32Array;
}

/**
 * Bytes copied into shared memory between two collections while a graph is shared (shareGraph):
 * what the hand-over holds beside the graph at most, plus the largest array.
 */
export const SHARE_COLLECT_BYTES = 32 * 1024 * 1024;

/** The serial fields of `graph` (its arrays by reference) and its dictionary's slots. */
function fieldsOf(from: Graph | (() => Graph)): SharedGraphImage {
  const graph = typeof from === "function" ? from() : from;
  const writer = new MemorySerialWriter();
  writeGraph(graph, writer);
  return { fields: writer.fields, dictionary: graphParts(graph).dictionary.slots };
}

/**
 * The image of the graph `take()` gives, in shared memory: its arrays carved from `slab` as the
 * build made them (engine/array-slab.ts: a compaction's worker builds in one) are the image's as
 * they are; any other array (small ones, or a graph built outside a slab) is copied into `slab` one
 * at a time. The serial fields are read inside the slab too (the text stores' code units, made
 * then, are carved from it). `take` hands the graph over so that the caller keeps no reference to
 * it: once its fields are read (fieldsOf, a frame that has returned), an array copied is referenced
 * by nothing, and `collect` (a full collection: collect-garbage.ts), run every SHARE_COLLECT_BYTES
 * copied, frees it; so a copy holds beside the graph SHARE_COLLECT_BYTES plus the largest array.
 * Cost: a copy of the arrays no slab holds, and a collection per SHARE_COLLECT_BYTES of them.
 */
export function shareGraph(
  take: () => Graph,
  collect?: (() => void) | undefined,
  slab: ArraySlab = new ArraySlab(),
): SharedGraphImage {
  // The graph is taken inside fieldsOf's frame: none of this frame's registers ever holds it.
  const image = slab.run(() => fieldsOf(take));
  let copied = 0;
  const place = <T extends SerialArray>(array: T): T => {
    const copy = slab.array(array.constructor as FinalArrayType<T>, array.length);
    copy.set(array as never);
    copied += array.byteLength;
    return copy;
  };
  for (const [name, value] of image.fields) {
    if (!ArrayBuffer.isView(value) || value.buffer instanceof SharedArrayBuffer) continue;
    image.fields.set(name, place(value as SerialArray));
    // Each branch: enough copied to free (the originals just replaced), or more to copy first.
    if (copied >= SHARE_COLLECT_BYTES && collect !== undefined) {
      collect();
      copied = 0;
    }
  }
  if (!(image.dictionary.buffer instanceof SharedArrayBuffer)) image.dictionary = place(image.dictionary);
  return image;
}

/** The graph an image holds, its arrays the image's own (no copy); checks shapes only (verify false). */
export function imageGraph(image: SharedGraphImage, options: GraphOptions = {}): Graph {
  return readGraph(new MemorySerialReader(image.fields, { verify: false }), options, image.dictionary);
}

/**
 * imageGraph on a thread that serves: the same graph, restored one structure at a time with a
 * pause between two (readGraphSteps, serving-pause.ts), so that a request waits for the longest
 * structure's restore, not the sum (at 1M entities / 10M statements: 120 to 330 ms whole, 10 to
 * 110 ms a structure: see readGraphSteps).
 */
export async function imageGraphSliced(image: SharedGraphImage, options: GraphOptions = {}): Promise<Graph> {
  const steps = readGraphSteps(new MemorySerialReader(image.fields, { verify: false }), options, image.dictionary);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await servingPause();
  }
}

/**
 * Worker side: the first message, its transfer list, and the string slices to send after it;
 * `warmth` (warmthOf(graph)) goes with the first message. `graph` may be an image (shareGraph):
 * its arrays are then shared with the main thread, not transferred, and the main thread keeps the
 * image (GraphReceiver.image).
 */
export function describeGraph(
  graph: Graph | SharedGraphImage,
  warmth?: BaseWarmth,
): {
  head: FieldsMessage;
  transfer: ArrayBuffer[];
  slices: () => Generator<StringsMessage>;
} {
  const image = "fields" in graph ? graph : fieldsOf(graph);
  const dictionary = image.dictionary;
  const fields = new Map<string, SerialField>();
  const lists: { name: string; list: readonly string[] }[] = [];
  const transfer = new Set<ArrayBuffer>();
  for (const [name, value] of image.fields) {
    // Each branch: a string list goes in slices; anything else (arrays, integers, short texts) at once.
    if (Array.isArray(value)) lists.push({ name, list: value as readonly string[] });
    else fields.set(name, value);
    // Only an array of this thread's own memory moves; a SharedArrayBuffer is shared, never transferred.
    if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) transfer.add(value.buffer);
  }
  if (dictionary.buffer instanceof ArrayBuffer) transfer.add(dictionary.buffer);
  return {
    head: {
      kind: "fields",
      fields,
      lists: lists.map(({ name, list }) => ({ name, length: list.length })),
      dictionary,
      warmth,
    },
    transfer: [
      ...transfer,
      ...(warmth === undefined
        ? []
        : [
            warmth.fingerprints.table.slots.buffer as ArrayBuffer,
            warmth.counts.buffer as ArrayBuffer,
            warmth.scoreRanks.buffer as ArrayBuffer,
          ]),
    ],
    *slices() {
      for (const { name, list } of lists) {
        for (let from = 0; from < list.length; from += STRING_SLICE_ITEMS)
          yield { kind: "strings", name, items: list.slice(from, from + STRING_SLICE_ITEMS) };
      }
    },
  };
}

/** Main side: gathers the slices, then restores the graph. */
export class GraphReceiver {
  private readonly head: FieldsMessage;
  private readonly lists = new Map<string, string[]>();

  constructor(head: FieldsMessage) {
    this.head = head;
    for (const { name } of head.lists) this.lists.set(name, []);
  }

  add(slice: StringsMessage): void {
    const list = this.lists.get(slice.name);
    if (list === undefined) throw new Error(`graph hand-over: a slice of an unknown list ${slice.name}`);
    for (const s of slice.items) list.push(s);
  }

  /** The warmth the worker sent with the graph, if any. */
  get warmth(): BaseWarmth | undefined {
    return this.head.warmth;
  }

  /** The graph, once every slice has arrived; throws if the worker sent less than it announced. */
  finish(options: GraphOptions): Graph {
    return imageGraph(this.fields(), options);
  }

  /** finish() a structure at a time, with pauses between (imageGraphSliced): for a thread that serves. */
  finishSliced(options: GraphOptions): Promise<Graph> {
    return imageGraphSliced(this.fields(), options);
  }

  /**
   * The graph's image (SharedGraphImage) when the worker sent one (describeGraph of shareGraph's:
   * every array in shared memory), else undefined. The graph finish() made views the same memory.
   */
  image(): SharedGraphImage | undefined {
    const image = this.fields();
    for (const value of [...image.fields.values(), image.dictionary])
      if (ArrayBuffer.isView(value) && !(value.buffer instanceof SharedArrayBuffer)) return undefined;
    return image;
  }

  /** The fields with the string lists, every slice in. */
  private fields(): SharedGraphImage {
    const fields = new Map(this.head.fields);
    for (const { name, length } of this.head.lists) {
      const list = this.lists.get(name) as string[];
      if (list.length !== length) throw new Error(`graph hand-over: ${name} has ${list.length} of ${length} strings`);
      fields.set(name, list);
    }
    return { fields, dictionary: this.head.dictionary };
  }
}

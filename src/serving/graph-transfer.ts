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
 * readGraph's shape checks; the entity dictionary's hash table comes made (a pass over a million
 * entities is a stall of over 100 ms). A compaction's worker also sends the new base's warmth (its fingerprint
 * map and counts: BaseWarmth), arrays transferred too, so the swap builds neither. In the worker: one message per slice. Memory: the arrays are never in
 * two threads at once; the worker's strings go with the worker.
 */

import { type Graph, type GraphOptions, graphParts } from "../engine/graph.js";
import type { BaseWarmth } from "../engine/live/live-graph.js";
import { MemorySerialReader, MemorySerialWriter, type SerialField } from "../engine/serial.js";
import { readGraph, writeGraph } from "../snapshot/graph-manifest.js";

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
 * Worker side: the first message, its transfer list, and the string slices to send after it;
 * `warmth` (warmthOf(graph)) goes with the first message.
 */
export function describeGraph(
  graph: Graph,
  warmth?: BaseWarmth,
): {
  head: FieldsMessage;
  transfer: ArrayBuffer[];
  slices: () => Generator<StringsMessage>;
} {
  const writer = new MemorySerialWriter();
  writeGraph(graph, writer);
  const dictionary = graphParts(graph).dictionary.slots;
  const fields = new Map<string, SerialField>();
  const lists: { name: string; list: readonly string[] }[] = [];
  for (const [name, value] of writer.fields) {
    // Each branch: a string list goes in slices; anything else (arrays, integers, short texts) at once.
    if (Array.isArray(value)) lists.push({ name, list: value as readonly string[] });
    else fields.set(name, value);
  }
  return {
    head: {
      kind: "fields",
      fields,
      lists: lists.map(({ name, list }) => ({ name, length: list.length })),
      dictionary,
      warmth,
    },
    transfer: [
      ...writer.transferables(),
      dictionary.buffer as ArrayBuffer,
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
    const fields = new Map(this.head.fields);
    for (const { name, length } of this.head.lists) {
      const list = this.lists.get(name) as string[];
      if (list.length !== length) throw new Error(`graph hand-over: ${name} has ${list.length} of ${length} strings`);
      fields.set(name, list);
    }
    return readGraph(new MemorySerialReader(fields, { verify: false }), options, this.head.dictionary);
  }
}

/**
 * Handing a graph from a worker thread to the main thread
 * =======================================================
 * A graph built (or opened) in a worker thread must reach the thread that serves without stalling
 * it. Its integer structures are typed arrays: they move by transfer (the ArrayBuffer changes
 * owner; no copy, O(1) per array). Its strings (entityIds, raw identifiers, source types, the rare
 * non-hex fingerprints) cannot move that way: the receiving thread has to make its own strings, and
 * for a million entities that is 100-250 ms of work (measured: decoding a 1M-string list, or
 * structured-cloning it, takes that long on the 2-core machine). So strings come in slices of
 * STRING_SLICE_ITEMS, each slice one message, and the receiver asks for the next slice only after
 * the event loop has had a turn (pull, not push: node delivers every queued message of a port in
 * one callback, so pushed slices would be taken in one go and the stall would be back).
 *
 * The protocol (messages on the worker's port):
 *   worker -> main  { kind: "arrays", counts, integers, arrays }       (arrays transferred)
 *   main -> worker  { kind: "next" }                                     (after a turn of the loop)
 *   worker -> main  { kind: "strings", list, items }                     (one slice)
 *   ...                                                                   until every list is sent
 *   worker -> main  { kind: "done" }
 * The main thread then assembles the engine objects from the arrays with their constructors (no
 * checks, no copies: the worker made these arrays with the engine itself, nothing was read from
 * outside) and builds the Graph. Everything on the main thread is O(1) per array and O(slice) per
 * turn.
 *
 * Cost in the worker: one message per slice. Memory: the worker's strings are garbage once sent;
 * the arrays are never in two threads at once.
 *
 * When the snapshot layer's writeGraph/readGraph (the engine structures' own serial forms) is
 * there, the arrays part can be their MemorySerialWriter's fields; the string slices stay, because
 * a whole-list decode on the serving thread is the stall this file exists to avoid.
 */

import type { Graph, GraphOptions } from "../engine/graph.js";
import { Graph as GraphClass } from "../engine/graph.js";
import { FingerprintColumn } from "../engine/fingerprint-column.js";
import { graphParts } from "../engine/internal.js";
import { SearchIndex } from "../engine/search-index.js";
import { StatementIndex } from "../engine/statement-index.js";
import { WaveletMatrix } from "../engine/wavelet-matrix.js";

/** Strings per message: about 10 ms of structured-clone work on the receiving thread. */
export const STRING_SLICE_ITEMS = 32_768;

/** The typed arrays of a graph, by name (each one the engine's own, moved as it is). */
export interface GraphArrays {
  types: Uint8Array;
  sourceTypeIndex: Uint32Array;
  text: Uint16Array;
  separators: Uint32Array;
  starts: Uint32Array;
  rankToId: Uint32Array;
  suffixArray: Uint32Array;
  typeRanks: Uint32Array;
  typeStarts: Uint32Array;
  levelBlocks: Int32Array;
  zeros: Int32Array;
  subject: Uint32Array;
  predicate: Uint32Array;
  object: Uint32Array;
  posRows: Uint32Array;
  ospRows: Uint32Array;
  fingerprintHi: Uint32Array;
  fingerprintLo: Uint32Array;
}

/** The lists of strings a graph holds, in the order they are sent. */
export const STRING_LISTS = ["entityIds", "rawIdentifiers", "sourceTypes", "fingerprintText"] as const;
export type StringList = (typeof STRING_LISTS)[number];

export interface ArraysMessage {
  kind: "arrays";
  counts: Record<StringList, number>;
  integers: { rankBits: number; waveletLength: number; waveletBits: number };
  arrays: GraphArrays;
  /** Rows of the non-hex fingerprints, in the order of the fingerprintText list. */
  fingerprintRows: Uint32Array;
}
export interface StringsMessage {
  kind: "strings";
  list: StringList;
  items: string[];
}
export interface DoneMessage {
  kind: "done";
}
export type TransferMessage = ArraysMessage | StringsMessage | DoneMessage;

/** Worker side: what to send, and the transfer list of the arrays message. */
export function describeGraph(graph: Graph): {
  arrays: ArraysMessage;
  transfer: ArrayBuffer[];
  strings: Record<StringList, readonly string[]>;
} {
  const p = graphParts(graph);
  const s = p.searchIndex;
  const st = p.statementIndex;
  const fingerprintRows = Uint32Array.from(st.fingerprints.text.keys());
  const fingerprintText = [...st.fingerprints.text.values()];
  const arrays: GraphArrays = {
    types: p.types,
    sourceTypeIndex: p.sourceTypeIndex,
    text: s.text,
    separators: s.separators,
    starts: s.starts,
    rankToId: s.rankToId,
    suffixArray: s.suffixArray,
    typeRanks: s.typeRanks,
    typeStarts: s.typeStarts,
    levelBlocks: s.documents.levelBlocks,
    zeros: s.documents.zeros,
    subject: st.subject,
    predicate: st.predicate,
    object: st.object,
    posRows: st.pos.rows as Uint32Array,
    ospRows: st.osp.rows as Uint32Array,
    fingerprintHi: st.fingerprints.hi,
    fingerprintLo: st.fingerprints.lo,
  };
  // Two arrays may share one buffer (views of one allocation): list each buffer once.
  const buffers = new Set<ArrayBuffer>();
  for (const a of [...Object.values(arrays), fingerprintRows]) buffers.add(a.buffer as ArrayBuffer);
  const strings = {
    entityIds: p.entityIds,
    rawIdentifiers: p.rawIdentifiers,
    sourceTypes: p.sourceTypes,
    fingerprintText,
  };
  return {
    arrays: {
      kind: "arrays",
      counts: {
        entityIds: strings.entityIds.length,
        rawIdentifiers: strings.rawIdentifiers.length,
        sourceTypes: strings.sourceTypes.length,
        fingerprintText: fingerprintText.length,
      },
      integers: { rankBits: s.rankBits, waveletLength: s.documents.length, waveletBits: s.documents.bits },
      arrays,
      fingerprintRows,
    },
    transfer: [...buffers],
    strings,
  };
}

/** Worker side: the string slices, in order, each at most STRING_SLICE_ITEMS long. */
export function* stringSlices(strings: Record<StringList, readonly string[]>): Generator<StringsMessage> {
  for (const list of STRING_LISTS) {
    const all = strings[list];
    for (let from = 0; from < all.length; from += STRING_SLICE_ITEMS)
      yield { kind: "strings", list, items: all.slice(from, from + STRING_SLICE_ITEMS) };
  }
}

/** Main side: gathers the slices, then assembles the graph. */
export class GraphReceiver {
  private readonly head: ArraysMessage;
  private readonly lists: Record<StringList, string[]>;

  constructor(head: ArraysMessage) {
    this.head = head;
    this.lists = { entityIds: [], rawIdentifiers: [], sourceTypes: [], fingerprintText: [] };
  }

  add(slice: StringsMessage): void {
    const list = this.lists[slice.list];
    for (const s of slice.items) list.push(s);
  }

  /** The graph, once every slice has arrived; throws if the worker sent less than it announced. */
  finish(options: GraphOptions): Graph {
    for (const list of STRING_LISTS) {
      if (this.lists[list].length !== this.head.counts[list])
        throw new Error(`graph hand-over: ${list} has ${this.lists[list].length} of ${this.head.counts[list]} items`);
    }
    const a = this.head.arrays;
    const { rankBits, waveletLength, waveletBits } = this.head.integers;
    const entityIds = this.lists.entityIds;
    const searchIndex = new SearchIndex(
      {
        text: a.text,
        separators: a.separators,
        starts: a.starts,
        rankToId: a.rankToId,
        suffixArray: a.suffixArray,
        documents: WaveletMatrix.fromArrays(waveletLength, waveletBits, a.levelBlocks, a.zeros),
        rankBits,
        typeRanks: a.typeRanks,
        typeStarts: a.typeStarts,
      },
      entityIds,
    );
    const text = new Map<number, string>();
    const rows = this.head.fingerprintRows;
    for (let i = 0; i < rows.length; i++) text.set(rows[i] as number, this.lists.fingerprintText[i] as string);
    const fingerprints = new FingerprintColumn(a.fingerprintHi, a.fingerprintLo, text);
    const statementIndex = new StatementIndex(a.subject, a.predicate, a.object, fingerprints, a.posRows, a.ospRows);
    return new GraphClass(
      {
        entityIds,
        rawIdentifiers: this.lists.rawIdentifiers,
        types: a.types,
        sourceTypeIndex: a.sourceTypeIndex,
        sourceTypes: this.lists.sourceTypes,
        searchIndex,
        statementIndex,
      },
      options,
    );
  }
}

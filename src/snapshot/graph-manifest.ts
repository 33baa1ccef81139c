/**
 * Graph manifest
 * ==============
 * Which structure of a graph is stored under which name, for any carrier of the serial protocol
 * (engine/serial.ts): a snapshot file (container-serial.ts) or memory (a worker thread handing a
 * graph to the main thread: MemorySerialWriter, transfer its buffers, MemorySerialReader with verify
 * false). Each structure writes and restores itself and checks its own invariants; this file only
 * names them, passes each what it needs of the others, and stores a summary:
 *
 *   graph.entities, graph.statements   the counts (checked against what the structures restore)
 *   graph.contentTag                   graph.stats().contentTag, so opening need not hash the content
 *   graph.builtAt                      when the snapshot was written, in ms since 1970 (UTC)
 *   graph.writer                       "quiver <version>" of the Quiver that wrote it
 *   graph.fold                         the fold mode, "case" or "accents" (fold.ts)
 *   graph.sequence                     the last change batch the graph holds (0: none)
 *   graph.originTag, graph.originSequence
 *                                      where its change log's content tags start (the
 *                                      graph's own tag and 0 when it holds no batch: not written)
 *   entities                           EntityTable: entityId, rawIdentifier, type, sourceType, hash
 *                                      per entity (the Dictionary's lookup table is rebuilt from it)
 *   search                             SearchIndex
 *   scores                             Scores: each entity's score by dense id
 *   scoreIndex                         ScoreIndex: search in order "score"
 *   statements                         StatementIndex
 *
 * Adding a field to a structure touches that structure only; adding a structure, one row in each of
 * writeGraph and readGraph (and the snapshot format version).
 *
 * Cost: writing computes graph.stats() once (the content tag; cached by the graph); reading is the
 * structures' own checks.
 */

import { Dictionary } from "../engine/entities/dictionary.js";
import { EntityTable } from "../engine/entities/entity-table.js";
import { type ChangesOrigin, Graph, type GraphOptions } from "../engine/graph.js";
import { graphParts } from "../engine/internal.js";
import { type FoldMode, isFoldMode } from "../engine/search/fold.js";
import { ScoreIndex } from "../engine/search/score-index.js";
import { Scores } from "../engine/search/scores.js";
import { SearchIndex } from "../engine/search/search-index.js";
import type { SerialReader, SerialWriter } from "../engine/serial.js";
import { StatementIndex } from "../engine/statements/statement-index.js";
import { QUIVER_VERSION } from "../version.js";

/**
 * The order readGraph restores the structures in (by their names' first segment), which a file
 * being read as it is restored (file.ts) reads them in: the entity table first (the others are
 * checked against its size) with the dictionary built from it at once, then the statement index,
 * the largest, so that its restore overlaps the reading of the rest, and the search structures,
 * whose restores are shorter, last: what is left to do after the last byte is in is small.
 */
export const RESTORE_ORDER = ["graph", "entities", "statements", "search", "scores", "scoreIndex"] as const;

/**
 * The verify passes the structures defer (SerialReader.defer), by full name, each as it runs from
 * the stored form alone: what a second thread runs over the same bytes while this one restores
 * (snapshot/read-thread.ts). The longest passes of an open: every entityId's hash and order, every
 * statement row's ids and every position of POS and OSP.
 */
export const STORED_CHECKS: Readonly<Record<string, (r: SerialReader) => void>> = {
  "entities.verify": (r) => EntityTable.verifyStored(r.child("entities")),
  "statements.verify": (r) => StatementIndex.verifyStored(r.child("statements")),
};

/** What a stored graph says of itself, readable without restoring it. */
export interface GraphSummary {
  entities: number;
  statements: number;
  /** graph.stats().contentTag of the stored graph. */
  contentTag: string;
  /** When the snapshot was written. */
  builtAt: Date;
  /** "quiver <version>" of the Quiver that wrote it. */
  writer: string;
  /** How the stored graph folds identifiers for search. */
  fold: FoldMode;
  /** The last change batch the stored graph holds (0: none). */
  sequence: number;
  /** Where the content tags of its change log start (a compacted graph's; else undefined). */
  changesOrigin: ChangesOrigin | undefined;
}

export interface WriteGraphOptions {
  /** The time to record as builtAt (default: now); a fixed one makes the bytes reproducible. */
  builtAt?: Date | undefined;
}

const CONTENT_TAG = /^[0-9a-f]{64}$/;

/** Writes `graph` to `w`: the summary, then each structure under its name. */
export function writeGraph(graph: Graph, w: SerialWriter, options: WriteGraphOptions = {}): void {
  const parts = graphParts(graph);
  const summary = w.child("graph");
  summary.integer("entities", graph.entityCount);
  summary.integer("statements", graph.statementCount);
  summary.text("contentTag", graph.contentTag);
  summary.integer("builtAt", Math.max(0, (options.builtAt ?? new Date()).getTime()));
  summary.text("writer", `quiver ${QUIVER_VERSION}`);
  summary.text("fold", parts.fold);
  summary.integer("sequence", graph.sequence);
  // Only a compacted graph has an origin apart from itself (see the banner).
  if (parts.changesOrigin !== undefined) {
    summary.text("originTag", parts.changesOrigin.contentTag);
    summary.integer("originSequence", parts.changesOrigin.sequence);
  }
  parts.entities.serialize(w.child("entities"));
  parts.searchIndex.serialize(w.child("search"));
  parts.scores.serialize(w.child("scores"));
  parts.scoreIndex.serialize(w.child("scoreIndex"));
  parts.statementIndex.serialize(w.child("statements"));
}

/** The summary alone (see the banner); `quiver info` reads only this. */
export function readGraphSummary(r: SerialReader): GraphSummary {
  const s = r.child("graph");
  const summary: GraphSummary = {
    entities: s.integer("entities"),
    statements: s.integer("statements"),
    contentTag: s.text("contentTag"),
    builtAt: new Date(s.integer("builtAt")),
    writer: s.text("writer"),
    fold: readFold(s),
    sequence: s.integer("sequence"),
    changesOrigin: readOrigin(s),
  };
  if (!CONTENT_TAG.test(summary.contentTag)) s.corrupt("contentTag is not 64 hex digits");
  return summary;
}

/** graph.originTag and graph.originSequence, both or neither (see the banner). */
function readOrigin(s: SerialReader): ChangesOrigin | undefined {
  if (!s.has("originTag")) return undefined;
  const origin = { contentTag: s.text("originTag"), sequence: s.integer("originSequence") };
  if (!CONTENT_TAG.test(origin.contentTag)) s.corrupt("originTag is not 64 hex digits");
  return origin;
}

/**
 * Restores the graph `r` holds, each structure checking itself; `options` as for any Graph.
 * `dictionary`: the entity dictionary's slots of the same graph, made in another thread
 * (serving/graph-transfer.ts), instead of a pass over the entities here.
 */
export function readGraph(r: SerialReader, options: GraphOptions = {}, dictionary?: Uint32Array): Graph {
  const steps = readGraphSteps(r, options, dictionary);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * readGraph one structure at a time: the generator pauses after each (RESTORE_ORDER) and returns
 * the graph, so a caller that must not stall (a hand-over on the serving thread:
 * serving/graph-transfer.ts imageGraphSliced) lets requests run between them. Each structure's
 * restore is O(its size) even unverified (a sample of the statement index's orders, the entity
 * texts decoded, the score index's tables): 10 to 110 ms apiece at 1M entities / 10M statements,
 * 120 to 330 ms in all (timestamps around each step on the serving thread during
 * `npm run bench:changes -- --compaction-only`). The same structures, checks and graph as readGraph.
 */
export function* readGraphSteps(
  r: SerialReader,
  options: GraphOptions = {},
  dictionary?: Uint32Array,
): Generator<void, Graph, void> {
  // In RESTORE_ORDER (see there).
  const summary = readGraphSummary(r);
  const entities = EntityTable.deserialize(r.child("entities"));
  yield;
  const lookup = new Dictionary(entities, dictionary);
  yield;
  const statementIndex = StatementIndex.deserialize(r.child("statements"), entities.size);
  yield;
  const searchIndex = SearchIndex.deserialize(r.child("search"), entities.size);
  yield;
  const scores = Scores.deserialize(r.child("scores"), entities.size);
  yield;
  const scoreIndex = ScoreIndex.deserialize(r.child("scoreIndex"), entities.size, searchIndex.documents.top.length);
  if (entities.size !== summary.entities || statementIndex.length !== summary.statements) {
    r.corrupt(
      `the summary counts ${summary.entities} entities and ${summary.statements} statements, the structures ${entities.size} and ${statementIndex.length}`,
    );
  }
  return new Graph(
    {
      entities,
      dictionary: lookup,
      searchIndex,
      statementIndex,
      scores,
      scoreIndex,
      fold: summary.fold,
      contentTag: summary.contentTag,
      sequence: summary.sequence,
      changesOrigin: summary.changesOrigin,
    },
    options,
  );
}

function readFold(r: SerialReader): FoldMode {
  const fold = r.text("fold");
  return isFoldMode(fold) ? fold : r.corrupt(`fold ${JSON.stringify(fold)} is not "case" or "accents"`);
}

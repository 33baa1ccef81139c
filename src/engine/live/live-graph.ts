/**
 * Live graph
 * ==========
 * A graph that takes changes (CONTRACT.md "Changes (live updates)"): an immutable base Graph plus a
 * delta, the entities and statements put since the base and the tombstones of base entities and
 * statements deleted or replaced. Reads are exact on base + delta; a batch applies whole or not at
 * all; compaction folds the delta into a new base. Pure engine code: no files (the change log that
 * makes batches durable is src/changes/).
 *
 * Delta (sorted-delta.ts): entities put since the base, by entityId (a Map) and by search order
 * (folded identifier, entityId); statements put since the base by fingerprint (a Map) and sorted in
 * each index order; base entities replaced or deleted (tombstones, with their folded identifier and
 * type); base statements deleted (tombstones, sorted in each order too). Statements naming a
 * replaced base entity stay base statements and show its new rawIdentifier (patched on the page).
 *
 * Reads merge two streams on the contract's key order and keep the page's first limit + 1 items:
 *  - search in order "name": the base's own pages (Graph.search, resumed at any key through a
 *    cursor this graph seals with the base's secret: the base places a key it did not issue), less
 *    the tombstoned entities, and the delta's first limit + 1 matches after the key (its entities
 *    found by their 3-grams, gram-index.ts, walked in order in a sorted posting list), by tier;
 *    in order "score", the base's score index and the delta's matches (Scores, below).
 *  - statements: the base's pages for the same filters, less the tombstoned statements, and the
 *    delta's range for the filters (every filter shape is a prefix of its order's key).
 * The base's page from the key is read first, and it is the answer as it is when no delta item
 * comes before its last item and none of its items is tombstoned (search: tombstoned items are made
 * up for by a longer read of the same page, the base's look-ahead item telling whether a visible one
 * follows; statements: one item longer, its cursor not sealed, when a tombstone may lie ahead:
 * graph.ts unsealedRead): a read then costs a base read plus O(log D) (statements: one binary search per delta
 * list from the key; search order "name": whether the delta has a match after the key and before
 * the page's last item, found in the summary of the rarest gram's sorted posting list by two binary
 * searches (the first two tiers a range of it; GramIndex.probe), and the page's dense ids
 * against the tombstone bitmap through its filter).
 * Otherwise that page is the merge's first round. When no delta statement or tombstone starts with
 * a statements query's first filter (per order, two bits per base entity mark the first key
 * components, read by the filter's dense id, which the base's read then finds in the dictionary's
 * memo; with two filters or more, a bit of each list's pair filter, pairsOf, for the first two),
 * the base's page is the answer unchecked (its names brought up to date: its ids checked
 * against a cache-sized filter of the replaced base entities, then their exact bitmap). A filtered
 * query's page is read before its marks are tested (the marks' word is fetched while the read
 * runs). When tombstones but no delta statement start with the first filter, the filtered page (a
 * run of positions of its order) is tested against the tombstones' positions (tombstone-bits.ts:
 * a bit per base position of each order, kept at each batch): none on it, it is the answer, with a
 * next page when a position after it is not tombstoned.
 * Statements read the base through its entry for checked parameters (graph.ts statementsAfterKey:
 * the tag, the resume key and the filters' dense ids, no second check) with `limit` items, not one
 * more: past the page, a next one exists when the range's base statements after it outnumber its
 * tombstones after it (graph.ts lastStatementsRest); a merge compares a base item with a delta item
 * by the dense ids the base read for it, resumes the base at its last page's position hint, and
 * gives its cursor the base's hint when its last item is of the base's page read last (on a delta
 * item, that of the base's last item before it). Unfiltered, a page whose first tombstone is
 * likely on it reads the base a few items longer at once (no second base read). Each delta
 * list's search runs in the window its fence gives (sorted-delta.ts): the first filter's, or with
 * no filter the cursor key's first entity's.
 *
 * Scores (order=score): an entity's score is the one its line gave, else its count of statements
 * now: the base's count plus what the delta's statements add and take (by dense id for base
 * entities). This graph keeps the counts and, brought up to date at a read (rescored()), each base
 * entity's place in the base's score stream: there raised by at most SCORE_RAISE_MAX, or out of it
 * (lowered or raised further: rescored, by 3-grams). The read, which merges that stream with the
 * delta's and the rescored matches, is score-search.ts. order=name, totals and look-ups ignore scores.
 *
 * Cursors carry the last item's sort key, in the base Graph's cursor shape (a search cursor: tier,
 * rawIdentifier, entityId; a statements cursor: the three entityIds and the fingerprint) with an empty
 * position hint, or the base's own when the item is a base item whose key is its base key (its base
 * page's rank, its srank in order=score), so a walk continues across batches and compactions, and a cursor of this graph
 * and one of its base (the same secret) are followable on either: an item unchanged from the first
 * page to the last of a walk is returned exactly once.
 *
 * Applying a batch (prepare, then commit): the lines are checked (change-batch.ts), then run in
 * order against an overlay of the current content (the batch's own earlier lines seen), so a
 * conflict (CHANGE_CONFLICT) is found before anything changes; commit merges the overlay into the
 * delta. The durable layer (src/changes/) writes the prepared batch to its log between the two.
 *
 * Costs: prepare O(lines) map look-ups, plus per cascading delete the statements naming the entity;
 * the first write that names a statement by fingerprint builds the base's fingerprint map
 * (base-fingerprints.ts, O(base statements); `warm()` builds it ahead, at open); commit O(b log b)
 * comparisons and O(D) moves for a delta of D items and a batch of b. A read with a delta that
 * matches it: the base page(s), one fold a base search item, the delta's candidates of the query's
 * rarest 3-gram (O(candidates)), two binary searches a list for statements; under order=score, the
 * base's matches up to the largest raise (at most SCORE_RAISE_MAX) below the page's last, and the
 * rescored candidates as high as the page's last.
 */

import { addDenseStatement, feedDenseEntities, GraphBuilder } from "../graph-builder.js";
import { indexArray } from "../entities/entity-table.js";
import { type Graph, graphAtSequence, graphParts } from "../graph.js";
import { STATEMENTS_MAX_LIMIT } from "../limits.js";
import { statementCounts } from "../search/scores.js";
import { hash64, hex64 } from "../hash64.js";
import { derivedFingerprintHalves } from "../statements/fingerprint.js";
import {
  ENTITY_TYPES,
  type Entity,
  type EntityInput,
  type Page,
  type SearchParams,
  type Statement,
  type StatementInput,
  type StatementsParams,
} from "../types.js";
import { BaseFingerprints, type BaseFingerprintsState } from "./base-fingerprints.js";
import { denseBits, hasBit, markBit } from "./dense-bits.js";
import type { ChangeBatch } from "./change-batch.js";
import type { ReadGraph } from "../read-graph.js";
import type { DeltaEntity, DeltaStatement } from "./sorted-delta.js";
import { itemOf } from "./search-items.js";
import { scoreRanksOf } from "./score-search.js";

import { type LiveGraphOptions, LiveState } from "./live-state.js";
import { LiveStatements } from "./live-statements.js";
import { LiveSearch } from "./live-search.js";
import { LiveApply, type ChangeResult, type PreparedBatch } from "./live-apply.js";
export type { ChangeResult, PreparedBatch } from "./live-apply.js";
export type { LiveGraphOptions } from "./live-state.js";

/** A compaction feed's mark of an entity with no given score (GraphBuilder's DenseEntities: counted). */
const NO_GIVEN_SCORE = -1;

/**
 * What `warm()` builds over a base, O(base statements) each, made beside the base where it was built
 * (a compaction's worker thread: `warmthOf`) and handed over with it, so that the thread that swaps
 * the base in (swapBase) does not build them on its first write or read: the fingerprint map
 * (base-fingerprints.ts), each base entity's count of statements, and each base entity's score
 * rank (score-search.ts's scoreRanksOf, for order=score cursors).
 */
export interface BaseWarmth {
  /** @internal */
  fingerprints: BaseFingerprintsState;
  /** @internal */
  counts: Uint32Array;
  /** @internal */
  scoreRanks: Uint32Array;
}

/** The warmth of `graph` (see BaseWarmth): O(statements), for the thread that built it. */
export function warmthOf(graph: Graph): BaseWarmth {
  const parts = graphParts(graph);
  const st = parts.statementIndex;
  return {
    fingerprints: new BaseFingerprints(parts).state(),
    counts: statementCounts(
      graph.entityCount,
      st.length,
      (row) => st.subjectOf(row),
      (row) => st.predicateOf(row),
      (row) => st.objectOf(row),
    ),
    scoreRanks: scoreRanksOf(parts),
  };
}

export class LiveGraph implements ReadGraph {
  /** The delta and its base (live-state.ts): what every part of this graph reads and changes. */
  readonly #s: LiveState;
  /** Batch preparation and commit (live-apply.ts). */
  readonly #batches: LiveApply;
  /** The search reads (live-search.ts). */
  readonly #searchRead: LiveSearch;
  /** The statements reads (live-statements.ts). */
  readonly #statementsRead: LiveStatements;

  constructor(base: Graph, options: LiveGraphOptions = {}) {
    this.#s = new LiveState(base, options);
    this.#batches = new LiveApply(this.#s);
    this.#searchRead = new LiveSearch(this.#s);
    this.#statementsRead = new LiveStatements(this.#s);
  }

  /** The last batch applied (0 for none). */
  get sequence(): number {
    return this.#s.sequence;
  }

  /**
   * Names the answers (read-graph.ts): the first base's tag while no batch applied, else that tag
   * with the batches' span, and, over a compacted base, that base's tag too. One base and one log
   * give the same answers up to a sequence on every process, so replicas of one log share tags. A
   * compaction keeps the content but not every byte (a cursor may carry a position hint in the
   * base that issued it), so the tag names the base as well: one tag, one set of bytes.
   */
  get contentTag(): string {
    // Each branch: no batch since the first base (its own tag), or the batches it holds on top.
    const span =
      this.#s.sequence === this.#s.originSequence
        ? this.#s.originTag
        : `${this.#s.originTag}+${this.#s.originSequence}..${this.#s.sequence}`;
    const baseTag = this.#s.base.contentTag;
    // A base of the first base's content (itself, or a compaction back to it) gives its bytes.
    return baseTag === this.#s.originTag ? span : `${span}@${baseTag}`;
  }

  /** The sequence the base holds: batches after it are in the delta. */
  get baseSequence(): number {
    return this.#s.baseSequence;
  }

  /** The base graph (sharing this live graph's cursor secret). */
  get base(): Graph {
    return this.#s.base;
  }

  /** What the delta holds: entities and statements put, base entities and statements hidden. */
  get deltaSize(): { entities: number; statements: number; hiddenEntities: number; hiddenStatements: number } {
    return {
      entities: this.#s.entities.size,
      statements: this.#s.statements.size,
      hiddenEntities: this.#s.hiddenEntities.size,
      hiddenStatements: this.#s.hiddenStatements.size,
    };
  }

  get entityCount(): number {
    return this.#s.base.entityCount - this.#s.hiddenEntities.size + this.#s.entities.size;
  }

  get statementCount(): number {
    return this.#s.base.statementCount - this.#s.hiddenStatements.size + this.#s.statements.size;
  }

  /**
   * Builds now what the first batch and the first order=score read would otherwise build on the way:
   * the base's fingerprint map (base-fingerprints.ts, O(base statements): seconds at 10M) and each
   * base entity's count of statements, and the base's scores over its score ranks (ScoreIndex
   * scoreAt's runs, O(base entities)). A server calls it once at open, before it answers; calling
   * it again costs nothing.
   */
  warm(): void {
    this.#s.baseFingerprints ??= new BaseFingerprints(this.#s.parts);
    this.#s.adjustments();
    this.#s.rescored();
    this.#s.parts.scoreIndex.scoreAt(this.#s.parts.scores, 0);
    this.#s.byScore.warm(this.#s.base);
  }

  // Changes -----------------------------------------------------------------------------------

  /** Applies a batch whole, or throws (INVALID_CHANGE, CHANGE_CONFLICT) and changes nothing. */
  apply(batch: ChangeBatch): ChangeResult {
    // No change log to write: the batch's JSON Lines (a JSON.stringify a line for an array) are not made.
    return this.commit(this.#batches.prepareChanges(batch, false));
  }

  /**
   * Checks a batch against the content as it stands and works out its effect, changing nothing:
   * throws QuiverError INVALID_CHANGE (a bad line) or CHANGE_CONFLICT (a line that cannot apply).
   */
  prepare(batch: ChangeBatch): PreparedBatch {
    return this.#batches.prepareChanges(batch, true);
  }

  /** Applies a batch prepared on this graph as it stands now (live-apply.ts). */
  commit(prepared: PreparedBatch): ChangeResult {
    return this.#batches.commit(prepared);
  }

  // Reads -------------------------------------------------------------------------------------

  getEntity(entityId: string): Entity | undefined {
    const e = this.#s.currentEntity(entityId);
    return e === undefined ? undefined : itemOf(e);
  }

  /**
   * Entities whose folded raw identifier contains the folded `q`, in the contract's order: tier,
   * then (order "score") score highest first, then folded identifier, then entityId; with `count`,
   * the page carries the whole walk's `total` (live-search.ts).
   */
  search(params: SearchParams): Page<Entity> {
    return this.#searchRead.search(params);
  }

  /** Statements matching every given filter, in the order of the index that serves the filters (live-statements.ts). */
  statements(params: StatementsParams = {}): Page<Statement> {
    return this.#statementsRead.statements(params);
  }

  // Content and compaction --------------------------------------------------------------------

  /** Every entity now, in entityId order, each with its score where one was given. */
  *exportEntities(): IterableIterator<EntityInput> {
    const delta = [...this.#s.entities.values()].sort((x, y) =>
      x.entityId < y.entityId ? -1 : x.entityId > y.entityId ? 1 : 0,
    );
    const withScore = (e: Entity): EntityInput => {
      const given = this.#s.givenScore(e.entityId);
      return given === undefined ? itemOf(e) : { ...itemOf(e), score: given };
    };
    let i = 0;
    for (const e of this.#s.base.exportEntities()) {
      while (i < delta.length && delta[i]!.entityId < e.entityId) yield withScore(delta[i++]!);
      if (!this.#s.hiddenEntities.has(e.entityId)) yield withScore(e);
    }
    while (i < delta.length) yield withScore(delta[i++]!);
  }

  /** Every statement now, in SPO order, each with its fingerprint. */
  *exportStatements(): IterableIterator<Required<StatementInput>> {
    let cursor: string | undefined;
    do {
      const page = this.statements({ limit: STATEMENTS_MAX_LIMIT, cursor });
      for (const st of page.items)
        yield {
          subjectEntityId: st.subjectEntityId,
          predicateEntityId: st.predicateEntityId,
          objectEntityId: st.objectEntityId,
          statementFingerprint: st.statementFingerprint,
        };
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /**
   * A new immutable Graph of the content now (base + delta), built here, synchronously: the graph a
   * load of the same content builds (a fingerprint is passed on only where one was given, as the
   * base's export does).
   */
  buildCompacted(): Graph {
    return this.feedCompaction().build();
  }

  /**
   * buildCompacted in two steps: a GraphBuilder fed with the content now, and what builds it. The
   * step returned holds no reference to this live graph: a caller that drops the live graph (and
   * its base) before `build()` lets them go before the builder's peak (a compaction's worker
   * thread: live-store.ts compactedGraph).
   *
   * The feed is dense (GraphBuilder's feedDenseEntities): the content is checked and ordered
   * already, so no string passes through an id Map and no fingerprint through a table. The
   * entities: the base's in dense order less the hidden ones, merged with the delta's (sorted by
   * entityId: few), O(entities) with the base's hashes reused; each base entity's new dense id is
   * noted (`newOf`). The statements: the base's rows less the tombstoned ones (found through the
   * base's fingerprint map), ids renumbered through `newOf`, fingerprints read as halves from the
   * base's column; the delta's (their ids through `newOf`, or by entityId for added entities),
   * sorted in SPO order and merged in, so that the builder's rows are in SPO order and its statement
   * index sorts nothing there (StatementIndex.buildFromSpo: two working arrays of M words fewer).
   * O(statements) plus O(d log d) for d delta statements, a few words a statement beside the
   * builder's columns, no string per base statement.
   *
   * Each entity's count of statements is counted before the feed (one pass over the base's rows,
   * through `newOf`, and the delta's), so that the builder makes the scores and the score index
   * with the search index, before the statement columns exist (DenseStatementRoom.counts).
   *
   * `options.last`: this live graph is dropped right after (a compaction's worker thread): its
   * base's fingerprint map (8 to 16 bytes a base statement) is let go before the builder's columns
   * are made, so the two are never held at once (a later write would build it again), and, unless
   * `options.baseShared` (the base's memory is another thread's too: a snapshot opened shared,
   * whose memory stays when this thread lets it go), the search index and the score index are
   * built by `build()` (DenseFeedOptions.indexesAtBuild), once the base is gone, not beside it.
   * `options.betweenPhases`: called where the working arrays of a phase of the feed or the build
   * are dead (DenseFeedOptions.betweenPhases; a worker thread collects its garbage there).
   */
  feedCompaction(
    options: { last?: boolean; betweenPhases?: (() => void) | undefined; baseShared?: boolean | undefined } = {},
  ): { build(): Graph } {
    const builder = new GraphBuilder({ cursorSecret: this.#s.secret, fold: this.#s.parts.fold });
    const base = this.#s.parts;
    const table = base.entities;
    const baseN = table.size;
    const hiddenBits = this.#s.hiddenBits;
    const counts = this.#s.baseCounts();
    const delta = [...this.#s.entities.values()].sort((x, y) =>
      x.entityId < y.entityId ? -1 : x.entityId > y.entityId ? 1 : 0,
    );
    const n = baseN - this.#s.hiddenEntities.size + delta.length;
    const entityIds = new Array<string>(n);
    const rawIdentifiers = new Array<string>(n);
    const types = new Uint8Array(n);
    const sourceTypeOf = new Uint32Array(n);
    const sourceTypes: string[] = [];
    const sourceTypeIds = new Map<string, number>();
    const hashes = new Uint32Array(2 * n);
    const scores = new Float64Array(n);
    /** Base dense id -> new dense id (-1: deleted). */
    const newOf = new Int32Array(baseN).fill(-1);
    /** entityId -> new dense id of the delta's entities not in the base. */
    const newOfAdded = new Map<string, number>();
    const hash: [number, number] = [0, 0];
    let k = 0;
    // sourceTypes are numbered by first use in entityId order, as the builder numbers added ones.
    const sourceTypeIndex = (t: string): number => {
      let i = sourceTypeIds.get(t);
      if (i === undefined) {
        i = sourceTypes.length;
        sourceTypes.push(t);
        sourceTypeIds.set(t, i);
      }
      return i;
    };
    const emitDelta = (e: DeltaEntity): void => {
      entityIds[k] = e.entityId;
      rawIdentifiers[k] = e.rawIdentifier;
      types[k] = (ENTITY_TYPES as readonly string[]).indexOf(e.type);
      sourceTypeOf[k] = sourceTypeIndex(e.sourceType);
      hash64([e.entityId], hash);
      hashes[2 * k] = hash[0];
      hashes[2 * k + 1] = hash[1];
      // A delta entity's score is given or none (counted).
      scores[k] = e.score ?? NO_GIVEN_SCORE;
      // Each branch: a replaced base entity keeps its row in newOf; an added one is found by entityId.
      if (e.baseId >= 0) newOf[e.baseId] = k;
      else newOfAdded.set(e.entityId, k);
      k++;
    };
    let i = 0;
    for (let d = 0; d < baseN; d++) {
      const id = table.entityId(d);
      while (i < delta.length && delta[i]!.entityId < id) emitDelta(delta[i++]!);
      // A base entity replaced or deleted: its delta version (if any) comes from the delta.
      if (hiddenBits !== undefined && hasBit(hiddenBits, d)) continue;
      entityIds[k] = id;
      rawIdentifiers[k] = table.rawIdentifier(d);
      types[k] = table.typeOf(d);
      sourceTypeOf[k] = sourceTypeIndex(table.sourceTypeOf(d));
      hashes[2 * k] = table.hashHi(d);
      hashes[2 * k + 1] = table.hashLo(d);
      // Each branch: a counted score is counted again; a given one is passed on.
      scores[k] = base.scores.isCounted(d, counts[d]!) ? NO_GIVEN_SCORE : base.scores.at(d);
      newOf[d] = k;
      k++;
    }
    while (i < delta.length) emitDelta(delta[i++]!);
    if (k !== n) throw new Error(`LiveGraph.feedCompaction: ${k} entities merged, ${n} expected`);
    const sourceTypeColumn = indexArray(n, sourceTypes.length - 1);
    sourceTypeColumn.set(sourceTypeOf);

    // Tombstoned base rows, by the base's fingerprint map.
    const st = base.statementIndex;
    const baseM = st.length;
    // One bit a base row (the feed's peak holds it beside the base and the builder's columns).
    let hiddenRows: Uint32Array | undefined;
    let hiddenCount = 0;
    if (this.#s.hiddenStatements.size > 0) {
      this.#s.baseFingerprints ??= new BaseFingerprints(base);
      hiddenRows = denseBits(baseM);
      for (const fp of this.#s.hiddenStatements.keys()) {
        const row = this.#s.baseFingerprints.rowOf(fp);
        // Each check: a tombstone of a base row, counted once.
        if (row >= 0 && !hasBit(hiddenRows, row)) {
          markBit(hiddenRows, row);
          hiddenCount++;
        }
      }
    }
    // Each branch: the live graph goes right after (the map is not needed again), or it stays.
    if (options.last === true) this.#s.baseFingerprints = undefined;
    options.betweenPhases?.();
    const m = baseM - hiddenCount + this.#s.statements.size;
    // The counts of statements by new dense id (statementCounts' rule: once a statement per entity).
    const newCounts = new Uint32Array(n);
    const count = (s: number, p: number, o: number): void => {
      newCounts[s]!++;
      if (p !== s) newCounts[p]!++;
      if (o !== s && o !== p) newCounts[o]!++;
    };
    for (let row = 0; row < baseM; row++) {
      if (hiddenRows !== undefined && hasBit(hiddenRows, row)) continue;
      count(newOf[st.subjectOf(row)]!, newOf[st.predicateOf(row)]!, newOf[st.objectOf(row)]!);
    }
    const newId = (baseId: number, entityId: string): number =>
      baseId >= 0 ? newOf[baseId]! : (newOfAdded.get(entityId) ?? -1);
    // The delta's statements by new dense ids, in SPO order (then by fingerprint text, as a run of
    // one triple is ordered): merged below with the base's rows, which are in SPO order already
    // (newOf keeps the order of the entities it keeps, and predicate indexes follow dense ids), so
    // the builder's rows come in SPO order and its statement index sorts nothing in SPO
    // (DenseStatementRoom.spoOrdered).
    const added: { s: number; p: number; o: number; ds: DeltaStatement }[] = [];
    for (const ds of this.#s.statements.values()) {
      const s = newId(ds.sd, ds.s);
      const p = newId(ds.pd, ds.p);
      const o = newId(ds.od, ds.o);
      if (s < 0 || p < 0 || o < 0) throw new Error(`LiveGraph.feedCompaction: statement ${ds.fp} names no entity`);
      count(s, p, o);
      added.push({ s, p, o, ds });
    }
    added.sort((x, y) => x.s - y.s || x.p - y.p || x.o - y.o || (x.ds.fp < y.ds.fp ? -1 : x.ds.fp > y.ds.fp ? 1 : 0));
    const addedCount = added.length;
    // Each branch: the live graph goes right after, and the feed holds what it needs of the delta
    // (`delta`, `added`, `hiddenRows`): its own structures go before the builder's indexes are made.
    if (options.last === true) this.#s.dropDelta();

    const fingerprints = st.fingerprints;
    // Room for the given fingerprints: at most the base's (tombstoned rows included) and every delta statement.
    feedDenseEntities(
      builder,
      { entityIds, rawIdentifiers, types, sourceTypeIndex: sourceTypeColumn, sourceTypes, hashes, scores },
      { count: m, given: fingerprints.hexCount + addedCount, counts: newCounts, spoOrdered: true },
      // Each branch: a last feed over a base of its own builds its search and score indexes at
      // build(), when this live graph and its base are gone (the indexes' peak then holds the
      // statement columns, not the base); any other first, before the statement columns exist.
      {
        betweenPhases: options.betweenPhases,
        indexesAtBuild: options.last === true && options.baseShared !== true,
      },
    );
    // (The feed emptied entityIds and rawIdentifiers: the builder holds the entities now.)
    const halves: [number, number] = [0, 0];
    let next = 0;
    const addDelta = (): void => {
      const a = added[next++]!;
      addDenseStatement(builder, a.s, a.p, a.o, a.ds.given ? a.ds.fp : undefined);
    };
    // A base row's fingerprint text (asked only when a delta statement has its triple: rare).
    const baseText = (row: number, s: number, p: number, o: number): string => {
      const given = fingerprints.given(row);
      if (given !== undefined) return given;
      const [hi, lo] = derivedFingerprintHalves(
        hashes[2 * s]!,
        hashes[2 * s + 1]!,
        hashes[2 * p]!,
        hashes[2 * p + 1]!,
        hashes[2 * o]!,
        hashes[2 * o + 1]!,
      );
      return hex64(hi, lo);
    };
    for (let row = 0; row < baseM; row++) {
      if (hiddenRows !== undefined && hasBit(hiddenRows, row)) continue;
      const s = newOf[st.subjectOf(row)]!;
      const p = newOf[st.predicateOf(row)]!;
      const o = newOf[st.objectOf(row)]!;
      // A statement naming a deleted entity was deleted with it (cascade) or the batch was refused.
      if (s < 0 || p < 0 || o < 0) throw new Error(`LiveGraph.feedCompaction: base row ${row} names a deleted entity`);
      // The delta's statements before this row in SPO order (then fingerprint text) come first.
      while (next < added.length) {
        const a = added[next]!;
        const c = a.s - s || a.p - p || a.o - o;
        if (c > 0 || (c === 0 && a.ds.fp > baseText(row, s, p, o))) break;
        addDelta();
      }
      // Each branch: a given hex fingerprint (as halves), a given text one, or none (derived).
      addDenseStatement(builder, s, p, o, fingerprints.hexHalves(row, halves) ? halves : fingerprints.given(row));
    }
    while (next < added.length) addDelta();
    // The result says which batch it holds and where this log's tags start (snapshots keep both).
    return builtAtSequence(builder, this.#s.sequence, {
      contentTag: this.#s.originTag,
      sequence: this.#s.originSequence,
    });
  }

  /**
   * Folds the delta into a new base: builds a Graph of the content now and swaps it in (the delta
   * empties, the sequence stays). Cursors issued before stay followable.
   */
  compact(): Graph {
    const graph = this.buildCompacted();
    this.swapBase(graph, this.#s.sequence);
    return graph;
  }

  /**
   * Makes `graph` the base: it holds every batch up to `sequence`, and `batchesAfter` are the
   * batches from sequence + 1 to this graph's sequence, in order (a base compacted elsewhere, in a
   * worker thread, while batches kept applying here). They are applied to a new delta over `graph`
   * first; only when that delta reaches this graph's sequence does it replace this one's, at once
   * (a read sees the old base + delta or the new, never a mix). Cursors stay followable.
   * `warmth`: `warmthOf(graph)`, made where the graph was built, so no write here builds it.
   */
  swapBase(graph: Graph, sequence: number, batchesAfter: Iterable<ChangeBatch> = [], warmth?: BaseWarmth): void {
    const next = new LiveGraph(graph, {
      cursorSecret: this.#s.secret,
      cacheBytes: this.#s.cacheBytes,
      baseSequence: sequence,
    });
    // Each branch: the new base's warmth came with it (built where the base was), or it is built
    // on the first write that needs it, on this thread.
    if (warmth !== undefined) {
      if (warmth.counts.length !== graph.entityCount)
        throw new Error(
          `LiveGraph.swapBase: the warmth counts ${warmth.counts.length} entities, the base has ${graph.entityCount}`,
        );
      next.#s.baseFingerprints = new BaseFingerprints(next.#s.parts, warmth.fingerprints);
      next.#s.builtBaseCounts = warmth.counts;
      next.#s.byScore.warm(graph, warmth.scoreRanks);
      next.warm();
    }
    for (const batch of batchesAfter) {
      if (next.#s.sequence === this.#s.sequence) break;
      next.apply(batch);
    }
    if (next.#s.sequence !== this.#s.sequence)
      throw new Error(
        `LiveGraph.swapBase: the new base with the batches given reaches sequence ${next.#s.sequence}, the graph is at ${this.#s.sequence}`,
      );
    this.#s.base = next.#s.base;
    this.#s.parts = next.#s.parts;
    this.#s.baseFingerprints = next.#s.baseFingerprints;
    this.#s.baseSequence = next.#s.baseSequence;
    this.#s.entities = next.#s.entities;
    this.#s.entityList = next.#s.entityList;
    this.#s.entityGrams = next.#s.entityGrams;
    this.#s.replaced = next.#s.replaced;
    this.#s.replacedBase = next.#s.replacedBase;
    this.#s.hiddenEntities = next.#s.hiddenEntities;
    this.#s.hiddenGrams = next.#s.hiddenGrams;
    this.#s.hiddenBits = next.#s.hiddenBits;
    this.#s.statements = next.#s.statements;
    this.#s.statementFilter = next.#s.statementFilter;
    this.#s.statementLists = next.#s.statementLists;
    this.#s.hiddenStatements = next.#s.hiddenStatements;
    this.#s.hiddenLists = next.#s.hiddenLists;
    this.#s.firstMarks = next.#s.firstMarks;
    this.#s.fold = next.#s.fold;
    this.#s.builtBaseCounts = next.#s.builtBaseCounts;
    this.#s.baseAdjust = next.#s.baseAdjust;
    this.#s.otherAdjust = next.#s.otherAdjust;
    this.#s.dirty = next.#s.dirty;
    this.#s.dirtyFlag = next.#s.dirtyFlag;
    this.#s.maxRaise = next.#s.maxRaise;
    this.#s.rescoredById = next.#s.rescoredById;
    this.#s.rescoredGrams = next.#s.rescoredGrams;
    this.#s.streamState = next.#s.streamState;
    // The read aids made over the old base go with it (they would keep it, and its memory, alive
    // until the next read that needs them).
    this.#s.aids = next.#s.aids;
    this.#s.aidsBase = next.#s.aidsBase;
    this.#s.aidsSequence = next.#s.aidsSequence;
    this.#s.replacedFilterBits = next.#s.replacedFilterBits;
    this.#s.replacedFilterMask = next.#s.replacedFilterMask;
    this.#s.replacedFilterSequence = next.#s.replacedFilterSequence;
    this.#s.replacedFilterBase = next.#s.replacedFilterBase;
    // No place made over the old base matches one over the new; nor do the tombstone bits (made
    // again from the new base's tombstones at the first read that needs them: dropped now, their
    // memory goes with the swap).
    this.#s.currentPlaceToken = {};
    this.#s.tombstones = undefined;
    // The score ranks came with the warmth; without it they are made on the first read that needs them.
    this.#s.byScore.rebase(graph, warmth?.scoreRanks);
  }
}

/** What builds a fed GraphBuilder as a graph at `sequence` (a closure over these only, not a live graph). */
function builtAtSequence(
  builder: GraphBuilder,
  sequence: number,
  origin: { contentTag: string; sequence: number },
): { build(): Graph } {
  return { build: () => graphAtSequence(builder.build(), sequence, origin) };
}

/**
 * Live graph
 * ==========
 * A graph that takes changes (CONTRACT.md "Changes (live updates)"): an immutable base Graph plus a
 * delta, the entities and statements put since the base and the tombstones of base entities and
 * statements deleted or replaced. Reads are exact on base + delta; a batch applies whole or not at
 * all; compaction folds the delta into a new base. Pure engine code: no files (the change log that
 * makes batches durable is src/changes/).
 *
 * Files: this façade (public API; the apply, compaction and swap entry points; exports and
 * content tag) holds one LiveState (live-state.ts: the base, the delta, the counts and the read
 * aids, with the look-ups every part shares) and hands it to its parts, which import it and never
 * this file: live-apply.ts (a batch's preparation and commit), live-search.ts (search reads in
 * order "name" and search totals; order "score" is score-search.ts's), live-statements.ts
 * (statements reads and totals), live-compaction.ts (the compaction feed and a base's warmth).
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
 * up for from a few more items the base's read lists past the page, else by a longer read of the
 * same page, the base's look-ahead item telling whether a visible one follows; statements: one
 * item longer, its cursor not sealed, when a tombstone may lie ahead: graph.ts unsealedRead): a
 * read then costs a base read plus O(log D) (statements: one binary search per delta list from the
 * key; search order "name": whether the delta has a match after the key and before
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

import type { Graph } from "../graph.js";
import { STATEMENTS_MAX_LIMIT } from "../limits.js";
import type { ReadGraph } from "../read-graph.js";
import type { Entity, EntityInput, Page, SearchParams, Statement, StatementInput, StatementsParams } from "../types.js";
import { BaseFingerprints } from "./base-fingerprints.js";
import type { ChangeBatch } from "./change-batch.js";
import { itemOf } from "./search-items.js";
import { type LiveGraphOptions, LiveState } from "./live-state.js";
import { LiveApply, type ChangeResult, type PreparedBatch } from "./live-apply.js";
import { LiveSearch } from "./live-search.js";
import { LiveStatements } from "./live-statements.js";
import { LiveCompaction, type BaseWarmth } from "./live-compaction.js";
import { WARM_WRITE_BATCHES, warmupBatch } from "./write-warmup.js";
import { isQuiverError } from "../errors.js";

export type { LiveGraphOptions } from "./live-state.js";
export type { ChangeResult, PreparedBatch } from "./live-apply.js";
export { type BaseWarmth, warmthOf } from "./live-compaction.js";

/** A graph that takes changes (see the banner): the façade over its state and parts. */
export class LiveGraph implements ReadGraph {
  /** The delta and its base (live-state.ts): what every part of this graph reads and changes. */
  readonly #s: LiveState;
  /** The compaction feed (live-compaction.ts). */
  readonly #compaction: LiveCompaction;
  /** Batch preparation and commit (live-apply.ts). */
  readonly #batches: LiveApply;
  /** The search reads (live-search.ts). */
  readonly #searchRead: LiveSearch;
  /** The statements reads (live-statements.ts). */
  readonly #statementsRead: LiveStatements;
  /** contentTag's last answer, and the chain, base and sequence it was made for (a batch or a swap changes one). */
  #tagMade: { chain: string; base: Graph | undefined; sequence: number; tag: string } = {
    chain: "",
    base: undefined,
    sequence: -1,
    tag: "",
  };

  constructor(base: Graph, options: LiveGraphOptions = {}) {
    this.#s = new LiveState(base, options);
    this.#compaction = new LiveCompaction(this.#s);
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
   * with the batches' span and the chain of the batches applied since the base (batch-chain.ts),
   * and, over a compacted base, that base's tag too. One base and one log give the same answers up
   * to a sequence on every process, so replicas of one log share tags; the chain keeps apart two
   * logs over one base that reach one sequence with other batches (a log started again, a second
   * writer). A compaction keeps the content but not every byte (a cursor may carry a position hint
   * in the base that issued it), so the tag names the base as well: one tag, one set of bytes.
   */
  get contentTag(): string {
    // The tag made for this batch and base (a server reads it once a request: the same string
    // object each time, so its check against the tag it seeded is a pointer comparison), or made now.
    const made = this.#tagMade;
    if (made.chain === this.#s.batchChain && made.base === this.#s.base && made.sequence === this.#s.sequence)
      return made.tag;
    // Each branch: no batch since the first base (its own tag), or the batches it holds on top.
    const span =
      this.#s.sequence === this.#s.originSequence
        ? this.#s.originTag
        : `${this.#s.originTag}+${this.#s.originSequence}..${this.#s.sequence}`;
    // Each branch: the base holds every batch (its tag and the span name them), or batches apply
    // on top of it, named by their chain.
    const held = this.#s.sequence === this.#s.baseSequence ? span : `${span}#${this.#s.batchChain}`;
    const baseTag = this.#s.base.contentTag;
    // A base of the first base's content (itself, or a compaction back to it) gives its bytes.
    const tag = baseTag === this.#s.originTag ? held : `${held}@${baseTag}`;
    this.#tagMade = { chain: this.#s.batchChain, base: this.#s.base, sequence: this.#s.sequence, tag };
    return tag;
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

  /**
   * Runs the write path (parse, prepare, commit) on batches of statement puts of base entities
   * (write-warmup.ts), on a scratch live graph over this graph's base that shares its fingerprint
   * map, so that the first batches a server takes run compiled code: about two big batches' work.
   * This graph does not change. A server's writer calls it once at open (openLive's warmWrites).
   */
  warmWrites(): void {
    if (this.#s.base.entityCount === 0) return;
    const scratch = new LiveGraph(this.#s.base);
    // The map is read only by a batch (built here first if warm() has not).
    scratch.#s.baseFingerprints = this.#s.baseFingerprints ??= new BaseFingerprints(this.#s.parts);
    for (let b = 0; b < WARM_WRITE_BATCHES; b++) {
      try {
        scratch.apply(warmupBatch(this.#s.parts.dictionary, b));
      } catch (e) {
        // A put whose derived fingerprint another triple of the base holds (a 64-bit collision)
        // refuses its batch; the warm-up then ran part of the path, which is all it is for.
        if (!isQuiverError(e)) throw e;
      }
    }
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
   * buildCompacted in two steps: a GraphBuilder fed with the content now, and what builds it, holding
   * no reference to this live graph (live-compaction.ts, which says what `options` do).
   */
  feedCompaction(
    options: { last?: boolean; betweenPhases?: (() => void) | undefined; baseShared?: boolean | undefined } = {},
  ): { build(): Graph } {
    return this.#compaction.feedCompaction(options);
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
      // Keyed by the live state's base (`graph` under this graph's cursor secret: a Graph of its
      // own), the one every read asks the ranks for: keyed by `graph`, warm() would make them
      // again here, and the first read after the swap a third time.
      next.#s.byScore.warm(next.#s.base, warmth.scoreRanks);
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
    this.#s.batchChain = next.#s.batchChain;
    this.#s.entities = next.#s.entities;
    this.#s.entityList = next.#s.entityList;
    this.#s.entityGrams = next.#s.entityGrams;
    this.#s.entityStarts = next.#s.entityStarts;
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
    // No place made over the old base matches one over the new; nor do the tombstone bits (made
    // again from the new base's tombstones at the first read that needs them: dropped now, their
    // memory goes with the swap).
    this.#s.currentPlaceToken = {};
    this.#s.tombstones = undefined;
    // The score ranks came with the warmth (for the base as this graph holds it, as above); without
    // it they are made on the first read that needs them.
    this.#s.byScore.rebase(next.#s.base, warmth?.scoreRanks);
  }
}

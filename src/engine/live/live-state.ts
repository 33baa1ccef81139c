/**
 * Live graph's state
 * ==================
 * What a LiveGraph (live-graph.ts) holds: its base (a Graph sharing the live graph's cursor
 * secret, its parts and fold), the delta over it (sorted-delta.ts: the entities and statements put
 * since the base, by id and in each order, and the tombstones of the base entities and statements
 * replaced or deleted, by id, by 3-grams and by dense id), the counts of statements the delta adds
 * to or takes from each entity (order=score's scores: score-search.ts reads them through scoreView),
 * and the read aids made over them on first need (the fingerprint map, tombstone bits, filters).
 *
 * The façade (live-graph.ts) and its parts are given this one object, which lives as long as the
 * live graph: a swap (LiveGraph.swapBase) replaces its fields, never the object. Its methods are
 * the look-ups every part shares: an entity or statement as it is now (currentEntity,
 * currentStatement, denseNow: map look-ups, O(1); baseStatement: the base's fingerprint map, built
 * on first need, O(base statements) once), the counts (O(1) each; rescored: O(entities changed
 * since the last read)), the tombstone bits (O(tombstones) after a batch) and the replaced
 * entities' filter (bits-filter.ts: made once, then kept up to date by the batches' marks).
 *
 * References: CONTRACT.md "Changes (live updates)"; live-graph.ts's banner for the reads and costs.
 */

import { type CursorCodec, toSecretBytes } from "../cursor/cursor.js";
import { randomBytes } from "node:crypto";
import { QuiverError } from "../errors.js";
import { type Graph, graphParts, type GraphParts, rawIdentifierOf, cursorCodecOf } from "../graph.js";
import { STATEMENTS_MAX_LIMIT } from "../limits.js";
import { folder } from "../search/fold.js";
import { statementCounts } from "../search/scores.js";
import type { Entity, Statement } from "../types.js";
import { BaseFingerprints } from "./base-fingerprints.js";
import { chainStart } from "./batch-chain.js";
import { filteredHas, filterOf } from "./bits-filter.js";
import { hasBit } from "./dense-bits.js";
import { StatementList } from "./statement-list.js";
import { TombstoneBits } from "./tombstone-bits.js";
import { GramIndex } from "./gram-index.js";
import { ShortSubstrings } from "./short-substrings.js";
import { StartGroups } from "./start-groups.js";
import { compareEntities, type DeltaEntity, type DeltaStatement, type Order } from "./sorted-delta.js";
import { FingerprintFilter } from "./fingerprint-filter.js";
import { DeltaStatementMap } from "./delta-statement-map.js";
import { type HiddenEntity, TIER_EXACT, typeCodeOf } from "./search-items.js";
import {
  LEFT_STREAM,
  type LiveScoreView,
  loweredState,
  type RescoredEntity,
  RescoredGrams,
  type RescoredSet,
  SCORE_RAISE_MAX,
  ScoreSearch,
  setStreamState,
  streamStatesBytes,
} from "./score-search.js";

/** What denseNow says of an entity that is not there now. */
export const GONE = -2;

/** denseNow's `known` (baseStatement's) when the caller has not looked the id (fingerprint) up in the base. */
export const UNKNOWN = -3;

export interface LiveGraphOptions {
  /**
   * Secret that seals cursors (and that the base is given, so cursors of either are followable on
   * both). Default: a random one per live graph.
   */
  cursorSecret?: string | Uint8Array | undefined;
  /** What the cursor cache may hold (as GraphOptions.cacheBytes). */
  cacheBytes?: number | undefined;
  /** The sequence of the last batch the base already holds. Default: the base's own (`base.sequence`). */
  baseSequence?: number | undefined;
}

/** A statements list's read aids (LiveStatements' aidsOf), made at its first use after a batch. */
export class ListAids {
  fence: Int32Array | undefined = undefined;
  constructor(readonly list: StatementList) {}
}

/**
 * The delta entities' short substrings (short-substrings.ts): counted by type too, with the first
 * of each in search order, placed among the base's names by the first base name rank after its key
 * (SearchIndex.rankAfter, as the base places a key from another graph's cursor: O(identifier) steps
 * of the FM-index and a binary search of the entityIds, once an entity put). In the same tier, such
 * a first comes before a base item of name rank r exactly when its place is r or less: so a read
 * compares it with a base page's last item by two numbers, no identifier read. The base is the
 * state's when the entity is added (a swap brings the gram index made over the new base).
 */
function entityShortSubstrings(state: LiveState): ShortSubstrings<DeltaEntity> {
  return new ShortSubstrings<DeltaEntity>({
    order: compareEntities,
    typeOf: typeCodeOf,
    placeOf: (e) => {
      const { dictionary, searchIndex } = state.parts;
      const entityAt = dictionary.lowerBound(e.entityId);
      const entityExact = entityAt < searchIndex.entityCount && dictionary.is(entityAt, e.entityId);
      return searchIndex.rankAfter({ tier: TIER_EXACT, folded: e.folded, entityAt, entityExact });
    },
  });
}

/** The tombstoned base entities' short substrings: counts alone, by type too (a total's tombstones). */
function hiddenShortSubstrings(): ShortSubstrings<HiddenEntity> {
  return new ShortSubstrings<HiddenEntity>({ typeOf: typeCodeOf });
}

/** An empty statement list of each order. */
function statementLists(): Record<Order, StatementList> {
  return { SPO: new StatementList("SPO"), POS: new StatementList("POS"), OSP: new StatementList("OSP") };
}

/**
 * Items a base page is asked for beyond the page's own, when tombstones lie in its range: a few
 * tombstones cost no second round, and a range full of them does not make every page a long one.
 */
export const TOMBSTONE_SLACK = 8;

/** Enters a delta statement's (or tombstone's) first key component of each order into `filters`. */
/** #firstMarks' bits: a delta statement, a tombstone. */
export const FIRST_PUT = 1;

export const FIRST_HIDDEN = 2;

/** Marks `st`'s first entity in each order with `bit` (an entity not in the base is not marked). */
export function markFirst(marks: Record<Order, Uint32Array>, st: DeltaStatement, bit: number): void {
  // Each check: the entity is in the base (it has a dense id).
  if (st.sd >= 0) marks.SPO[st.sd >>> 4]! |= bit << ((st.sd & 15) << 1);
  if (st.pd >= 0) marks.POS[st.pd >>> 4]! |= bit << ((st.pd & 15) << 1);
  if (st.od >= 0) marks.OSP[st.od >>> 4]! |= bit << ((st.od & 15) << 1);
}

/** Base entity d's two mark bits (FIRST_PUT, FIRST_HIDDEN) in one order's packed marks. */
export function firstMark(marks: Uint32Array, d: number): number {
  return (marks[d >>> 4]! >>> ((d & 15) << 1)) & 3;
}

/** A live graph's base, delta and read aids (see the banner): one object for the graph's life. */
export class LiveState {
  base: Graph;
  parts: GraphParts;
  baseFingerprints: BaseFingerprints | undefined;
  /** The base's fold (its fold mode: case, or case and accents). */
  fold: (s: string) => string;
  /** Each base entity's count of base statements (its default score), made on first need. */
  builtBaseCounts: Uint32Array | undefined;
  /**
   * What the delta's statements add to (or take from) each entity's count of statements: by dense
   * id for base entities (made on first write), by entityId for the others (few).
   */
  baseAdjust: Int32Array | undefined;
  otherAdjust = new Map<string, number>();
  /** Base entities (dense ids) whose count or tombstone changed since `rescored()` last looked, each once. */
  dirty: number[] = [];
  dirtyFlag: Uint8Array | undefined;
  /**
   * The most a base entity's counted score rose by, over those that stay in the base's stream (at
   * most SCORE_RAISE_MAX; a bound kept since the base, never lowered).
   */
  maxRaise = 0;
  /** Base entities with a counted score the delta lowered, or raised by more than SCORE_RAISE_MAX: by id and by 3-grams. */
  rescoredById = new Map<number, RescoredEntity>();
  rescoredGrams = new RescoredGrams();
  /**
   * Each base entity's place in the base's order=score stream, by its base score rank, four bits each
   * (streamStateOf; made at the first change of a count): 0 there at its base score,
   * 1..SCORE_RAISE_MAX there and raised by that much, LEFT_STREAM raised further or replaced or
   * deleted (the delta places it), above it lowered (loweredState: by how much, when a few).
   */
  streamState: Uint8Array | undefined;
  /** The order=score read (score-search.ts), over this graph through scoreView(). */
  readonly byScore = new ScoreSearch(this.scoreView());
  sequence: number;
  baseSequence: number;
  /** The batches applied since the base, chained (batch-chain.ts): which content this sequence holds. */
  batchChain: string;
  /** The first base's content tag and sequence: with `#sequence` and `batchChain` they name the content (contentTag). */
  readonly originTag: string;
  readonly originSequence: number;
  readonly secret: Uint8Array;
  readonly cacheBytes: number | undefined;
  /**
   * What seals and opens this graph's cursors: the base's codec (the same secret), so a cursor that
   * either issued is opened by the other from the codec's cache, without a second HMAC.
   */
  get cursors(): CursorCodec {
    return cursorCodecOf(this.base);
  }
  /** Entities put since the base, by entityId and in search order. */
  entities = new Map<string, DeltaEntity>();
  entityList: DeltaEntity[] = [];
  /**
   * The delta entities by the 3-grams of their folded identifiers (search's candidates), and by
   * their short substrings, of any type and of theirs, with the first of each in search order and
   * its place among the base's names (a short query's answers: entityShortSubstrings).
   */
  entityGrams = new GramIndex<DeltaEntity>(entityShortSubstrings(this));
  /** The delta entities by the first 3-gram of their folded identifiers (order "score"'s better tiers). */
  entityStarts = new StartGroups();
  /** Base entities replaced (put again, not deleted): their rawIdentifier now, for base statements naming them. */
  replaced = new Map<string, string>();
  /**
   * The same base entities by dense id, a bit each (dense-bits.ts), made at the first; a base page's
   * items are checked by it (a bit, not a byte, an entity: 8 times fewer cache lines to miss).
   */
  replacedBase: Uint32Array | undefined;
  /** Base entities replaced or deleted, by entityId and by 3-grams (and short substrings: hiddenShortSubstrings). */
  hiddenEntities = new Map<string, HiddenEntity>();
  hiddenGrams = new GramIndex<HiddenEntity>(hiddenShortSubstrings());
  /**
   * The same base entities by dense id, a bit each (dense-bits.ts), made at the first: a search
   * page's items are checked by it (a bit, not a byte, an entity: fewer cache lines to miss).
   */
  hiddenBits: Uint32Array | undefined;
  /** Statements put since the base, by fingerprint (delta-statement-map.ts) and in each order. */
  statements = new DeltaStatementMap<DeltaStatement>();
  /** Every key of `#statements` (and some removed since): a fingerprint not in it is not asked of the map. */
  statementFilter = new FingerprintFilter();
  statementLists: Record<Order, StatementList> = statementLists();
  /** Base statements deleted, by fingerprint and in each order. */
  hiddenStatements = new Map<string, DeltaStatement>();
  hiddenLists: Record<Order, StatementList> = statementLists();
  /**
   * Per order, by base dense id, whether a delta statement (FIRST_PUT) and whether a tombstone
   * (FIRST_HIDDEN) of that order has that entity first (an exact "none" for each list: a query
   * skips the binary search of a list that has nothing for it), made at the first statement put or
   * deleted. Delta statements whose first entity is not in the base are not marked: a query by
   * such an id searches the delta list (the base has nothing for it, and tombstones are the base's).
   * Two bits an entity, packed 16 to a word (firstMark): a quarter of a byte each, so that a query's
   * one look-up (a cache miss in a distinct query's stream) more often finds its line in the caches.
   */
  firstMarks: Record<Order, Uint32Array> | undefined;
  /**
   * The tombstones' base positions in each order (tombstone-bits.ts), made at the first base
   * statement deleted and kept up to date at each batch (tombstoneBits): a filtered query with
   * tombstones and no delta statement tests its base page's positions, not the tombstone list.
   */
  tombstones: TombstoneBits | undefined;
  /**
   * The statements lists' read aids (fence, pair filter, merge keys) made since the batch and base below: one
   * record a list read, found by the list's identity among the few (at most the six lists).
   */
  aids: ListAids[] = [];
  aidsSequence = -1;
  /** The token of the places this graph attaches over its base now (WalkPlace): made again at each swap. */
  currentPlaceToken: object = {};
  aidsBase: Graph | undefined;
  /** A statements merge's scratch: each base item kept's place in the base's page (a page is at most the maximum limit). */
  readonly fromBaseAt = new Int32Array(STATEMENTS_MAX_LIMIT);
  /**
   * A statements merge's scratch: the base items of the page read last that are kept (emptied at
   * each merge; its items are the base page's, returned on the merged page).
   */
  readonly fromBase: Statement[] = [];

  constructor(base: Graph, options: LiveGraphOptions = {}) {
    // A secret of our own when none is given: the base must share it, and a Graph's default is not readable.
    this.secret = options.cursorSecret === undefined ? randomBytes(32) : toSecretBytes(options.cursorSecret);
    this.cacheBytes = options.cacheBytes;
    const baseSequence = options.baseSequence ?? base.sequence;
    if (!Number.isSafeInteger(baseSequence) || baseSequence < 0)
      throw new QuiverError(
        "INVALID_PARAMETER",
        `baseSequence must be a whole number, 0 or more; got ${baseSequence}.`,
        {
          parameter: "baseSequence",
        },
      );
    this.baseSequence = baseSequence;
    this.sequence = baseSequence;
    this.batchChain = chainStart(baseSequence);
    this.base = this.withOurSecret(base);
    // A base compacted from a change log names content as the live graph it came from did (its
    // origin), so tags agree whoever compacted; any other base starts the naming itself.
    const origin = graphParts(base).changesOrigin;
    const fromOrigin = origin !== undefined && baseSequence === base.sequence;
    this.originTag = fromOrigin ? origin.contentTag : this.base.contentTag;
    this.originSequence = fromOrigin ? origin.sequence : baseSequence;
    this.parts = graphParts(this.base);
    // The fold lowers ASCII text directly (search/fold.ts): a read folds every base item it merges.
    this.fold = folder(this.parts.fold);
  }

  withOurSecret(graph: Graph): Graph {
    return graph.withOptions(
      this.cacheBytes === undefined
        ? { cursorSecret: this.secret }
        : { cursorSecret: this.secret, cacheBytes: this.cacheBytes },
    );
  }

  /** Counts `sign` (1 or -1) for each entity a statement names, each once. */
  adjustCounts(st: DeltaStatement, sign: number): void {
    this.adjustCount(st.s, st.sd, sign);
    // Each branch: a role that repeats an entity already counted for this statement is skipped.
    if (st.p !== st.s) this.adjustCount(st.p, st.pd, sign);
    if (st.o !== st.s && st.o !== st.p) this.adjustCount(st.o, st.od, sign);
  }

  /** Counts `sign` for entity `id` (base dense id `d`, or -1). */
  adjustCount(id: string, d: number, sign: number): void {
    // Each branch: a base entity by dense id (and marked for rescored()); another by id.
    if (d >= 0) {
      this.adjustments()[d]! += sign;
      this.markDirty(d);
      return;
    }
    const n = (this.otherAdjust.get(id) ?? 0) + sign;
    if (n === 0) this.otherAdjust.delete(id);
    else this.otherAdjust.set(id, n);
  }

  /** The base entities' adjustments of their counts, made on first need. */
  adjustments(): Int32Array {
    this.baseAdjust ??= new Int32Array(this.base.entityCount);
    return this.baseAdjust;
  }

  /** Marks base entity `d` for rescored() to look at again (once until it does). */
  markDirty(d: number): void {
    this.dirtyFlag ??= new Uint8Array(this.base.entityCount);
    if (this.dirtyFlag[d] === 1) return;
    this.dirtyFlag[d] = 1;
    this.dirty.push(d);
  }

  /** Each base entity's count of base statements (what its score is when the input gave none). */
  baseCounts(): Uint32Array {
    const st = this.parts.statementIndex;
    this.builtBaseCounts ??= statementCounts(
      this.base.entityCount,
      st.length,
      (row) => st.subjectOf(row),
      (row) => st.predicateOf(row),
      (row) => st.objectOf(row),
    );
    return this.builtBaseCounts;
  }

  /** How many statements name the entity now. */
  countNow(id: string, d: number): number {
    // Each branch: a base entity's count and adjustment by dense id; another's adjustment by id.
    if (d >= 0) return this.baseCounts()[d]! + this.adjustments()[d]!;
    return this.otherAdjust.get(id) ?? 0;
  }

  /** The score the input gave an entity there now, or undefined when it is counted. */
  givenScore(id: string): number | undefined {
    const mine = this.entities.get(id);
    if (mine !== undefined) return mine.score;
    const d = this.parts.dictionary.idOf(id);
    return this.parts.scores.isCounted(d, this.baseCounts()[d]!) ? undefined : this.parts.scores.at(d);
  }

  /**
   * The base entities that order "score" must take from the delta (lowered, or raised by more than
   * SCORE_RAISE_MAX), and each base entity's place in the base's stream (#streamState), brought up
   * to date first with the raise bound. O(entities marked since the last call).
   */
  rescored(): RescoredSet {
    if (this.dirty.length > 0) {
      const adjustments = this.adjustments();
      const flags = this.dirtyFlag!;
      this.streamState ??= new Uint8Array(streamStatesBytes(this.base.entityCount));
      const state = this.streamState;
      for (const d of this.dirty) {
        flags[d] = 0;
        // The states go by base score rank: the read's listing gives score ranks (no dense id read for its state).
        const srank = this.byScore.srankOf(d);
        setStreamState(state, srank, 0);
        const old = this.rescoredById.get(d);
        if (old !== undefined) {
          this.rescoredGrams.remove(old);
          this.rescoredById.delete(d);
        }
        // A replaced or deleted base entity is not the base's to place (the delta's copy, if any, is):
        // out of the stream, so a stream read tells it by the one byte it reads anyway.
        if (this.hiddenBits !== undefined && hasBit(this.hiddenBits, d)) {
          setStreamState(state, srank, LEFT_STREAM);
          continue;
        }
        const adjust = adjustments[d]!;
        // An unchanged count moves nothing; a given score does not follow the count.
        if (adjust === 0 || !this.parts.scores.isCounted(d, this.baseCounts()[d]!)) continue;
        // Each branch: a small raise stays in the base's stream (the bound grows to cover it); a
        // drop (a resumed read would have to look back for it) or a large raise leaves it.
        if (adjust > 0 && adjust <= SCORE_RAISE_MAX) {
          this.maxRaise = Math.max(this.maxRaise, adjust);
          setStreamState(state, srank, adjust);
          continue;
        }
        const entity = this.parts.entities.entity(d);
        const r: RescoredEntity = {
          entityId: entity.entityId,
          baseId: d,
          folded: this.fold(entity.rawIdentifier),
          type: entity.type,
          entity,
          score: this.parts.scores.at(d) + adjust,
          lowered: adjust < 0,
        };
        // Each branch: lowered (a listing that meets it places it: by how much, in its state), or raised past the bound.
        setStreamState(state, srank, adjust < 0 ? loweredState(-adjust) : LEFT_STREAM);
        this.rescoredById.set(d, r);
        this.rescoredGrams.add(r);
      }
      this.dirty = [];
    }
    return { byId: this.rescoredById, grams: this.rescoredGrams };
  }

  /**
   * The base dense id of the entity with this id now (-1: a delta entity not in the base), or GONE.
   * `known`: its id in the base's dictionary when the caller has it (else UNKNOWN: looked up).
   */
  denseNow(id: string, known = UNKNOWN): number {
    // A base entity whose hidden bit is clear was neither put again nor deleted (commit marks the bit
    // of each): it is there, as the base has it, and no map is asked (a hash of the id each).
    if (known >= 0 && (this.hiddenBits === undefined || !hasBit(this.hiddenBits, known))) return known;
    // Each branch: an empty map is not asked (a lookup hashes the id first; statement puts come three ids a line).
    if (this.entities.size > 0) {
      const mine = this.entities.get(id);
      if (mine !== undefined) return mine.baseId;
    }
    if (this.hiddenEntities.size > 0 && this.hiddenEntities.has(id)) return GONE;
    const d = known === UNKNOWN ? this.parts.dictionary.idOf(id) : known;
    return d >= 0 ? d : GONE;
  }

  /** The entity with this id now, or undefined. */
  currentEntity(id: string): DeltaEntity | Entity | undefined {
    const mine = this.entities.get(id);
    if (mine !== undefined) return mine;
    if (this.hiddenEntities.has(id)) return undefined;
    return this.base.getEntity(id);
  }

  /**
   * The statement with this fingerprint now, or undefined. `baseRow`: the base row that holds it
   * (-1: none) when the caller looked it up already (BaseFingerprints.rowsOf), else UNKNOWN.
   */
  currentStatement(fp: string, baseRow = UNKNOWN): DeltaStatement | undefined {
    // A fingerprint the filter never saw is not in the delta's map (no probe of a large map).
    const mine = this.statementFilter.mayHold(fp) ? this.statements.get(fp) : undefined;
    if (mine !== undefined) return mine;
    // An empty map is not asked (no hash of the fingerprint for it).
    if (this.hiddenStatements.size > 0 && this.hiddenStatements.has(fp)) return undefined;
    return this.baseStatement(fp, baseRow);
  }

  /** The base's statement with this fingerprint (hidden or not), or undefined; `known`: its row, as currentStatement's. */
  baseStatement(fp: string, known = UNKNOWN): DeltaStatement | undefined {
    // Each branch: the row looked up already, or looked up now.
    let row = known;
    if (row === UNKNOWN) {
      this.baseFingerprints ??= new BaseFingerprints(this.parts);
      row = this.baseFingerprints.rowOf(fp);
    }
    if (row < 0) return undefined;
    const st = this.parts.statementIndex;
    const dict = this.parts.dictionary;
    const sd = st.subjectOf(row);
    const pd = st.predicateOf(row);
    const od = st.objectOf(row);
    return {
      s: dict.entityId(sd),
      p: dict.entityId(pd),
      o: dict.entityId(od),
      fp,
      given: st.fingerprints.given(row) !== undefined,
      sd,
      pd,
      od,
    };
  }

  /**
   * What the order=score read (score-search.ts) sees of this graph: getters over its fields, read
   * at each call (a batch or a swap changes them), and the two methods it asks.
   */
  scoreView(): LiveScoreView {
    const live = this;
    return {
      get base() {
        return live.base;
      },
      get parts() {
        return live.parts;
      },
      get fold() {
        return live.fold;
      },
      get cursors() {
        return live.cursors;
      },
      get sequence() {
        return live.sequence;
      },
      get entities() {
        return live.entities;
      },
      get entityGrams() {
        return live.entityGrams;
      },
      get entityStarts() {
        return live.entityStarts;
      },
      get hiddenGrams() {
        return live.hiddenGrams;
      },
      get maxRaise() {
        return live.maxRaise;
      },
      get streamState() {
        return live.streamState;
      },
      get adjustments() {
        return live.baseAdjust;
      },
      countNow: (id, d) => this.countNow(id, d),
      rescored: () => this.rescored(),
    };
  }

  /**
   * This graph's token for the places it attaches over its base now (WalkPlace): an object of its
   * own, made again at each swap, so that a place names this graph and base without holding either
   * (a cursor cache that outlives them keeps a few numbers, not a delta).
   */
  placeToken(): object {
    return this.currentPlaceToken;
  }

  /**
   * Enters base statements deleted by a batch (`hidden`, just entered in #hiddenStatements) in the
   * tombstone bits: those of this base holding every earlier tombstone get these; else (none yet,
   * or made over another base) they are made again from every tombstone (tombstoneBits).
   */
  markTombstones(hidden: readonly DeltaStatement[]): void {
    const bits = this.tombstones;
    // Each branch: bits of this base that lack only these, or made whole now.
    if (
      bits !== undefined &&
      bits.token === this.placeToken() &&
      bits.count + hidden.length === this.hiddenStatements.size
    ) {
      const index = this.parts.statementIndex;
      const rows = (this.baseFingerprints ??= new BaseFingerprints(this.parts));
      for (const st of hidden) bits.mark(index, rows.rowOf(st.fp));
    } else this.tombstoneBits();
  }

  /**
   * The tombstone bits of this base and every tombstone: those kept at each batch, or (a swap made
   * a new base, or none yet) made now from #hiddenStatements (a base row each, by its fingerprint).
   */
  tombstoneBits(): TombstoneBits {
    const kept = this.tombstones;
    // Kept and whole: the batches since were entered as they came.
    if (kept !== undefined && kept.token === this.placeToken() && kept.count === this.hiddenStatements.size)
      return kept;
    const bits = new TombstoneBits(this.placeToken(), this.base.statementCount);
    const index = this.parts.statementIndex;
    const rows = (this.baseFingerprints ??= new BaseFingerprints(this.parts));
    for (const fp of this.hiddenStatements.keys()) bits.mark(index, rows.rowOf(fp));
    this.tombstones = bits;
    return bits;
  }

  /** The rawIdentifier of an entity there now (a statement's): the delta's, else the base's. */
  rawOf(id: string, d: number): string {
    const replaced = this.replacedBase;
    // Each branch: a base entity not replaced (by its dense id, the filter first: no look-up by
    // entityId), or the delta's.
    if (d >= 0 && (replaced === undefined || !filteredHas(filterOf(replaced), replaced, d)))
      return rawIdentifierOf(this.base, d);
    return this.entities.get(id)!.rawIdentifier;
  }

  /**
   * Empties the delta's structures (its maps, lists, gram indexes, filters and per-entity arrays:
   * tens of MB of heap for a delta of 100,000 statements), for a last compaction's feed, which has
   * what it needs of them already: this live graph is not used again.
   */
  dropDelta(): void {
    this.entities = new Map();
    this.entityList = [];
    this.entityGrams = new GramIndex(entityShortSubstrings(this));
    this.entityStarts = new StartGroups();
    this.replaced = new Map();
    this.hiddenEntities = new Map();
    this.hiddenGrams = new GramIndex(hiddenShortSubstrings());
    this.statements = new DeltaStatementMap();
    this.statementFilter = new FingerprintFilter();
    this.statementLists = statementLists();
    this.hiddenStatements = new Map();
    this.hiddenLists = statementLists();
    this.otherAdjust = new Map();
    this.rescoredById = new Map();
    this.rescoredGrams = new RescoredGrams();
    this.dirty = [];
    this.builtBaseCounts = undefined;
    this.baseAdjust = undefined;
    this.dirtyFlag = undefined;
    this.streamState = undefined;
    this.firstMarks = undefined;
    this.replacedBase = undefined;
    this.tombstones = undefined;
  }
}

/**
 * Live order=score search
 * =======================
 * The live graph's read of `search` in order "score" (CONTRACT.md "GET /graph/v1/search": tier,
 * score highest first, folded identifier, entityId): a merge of the base's stream, read from its
 * score index, with the delta's matches and the rescored base entities. A LiveGraph's state
 * (live-state.ts) keeps what this reads (counts, the rescored entities, the stream states:
 * rescored()) and LiveSearch (live-search.ts) dispatches to ScoreSearch.search; this file owns the read, its scratch and caches, and the
 * stream's state encoding (SCORE_RAISE_MAX, LEFT_STREAM, streamStateOf, setStreamState).
 *
 * Scores: an entity's score is the one its line gave, else its count of statements now: the base's
 * count plus what the delta's statements add and take (by dense id for base entities). A base
 * entity whose counted score the delta raised by at most SCORE_RAISE_MAX stays in the base's
 * stream: the merge lists the base's score index by score rank (sranks, no base page made) a
 * look-ahead (SCORE_READ_AHEAD) past the page, places such entities by their score now (a stream
 * item's base score read from the score runs, its state from four bits by score rank), and lists on
 * while an item not listed yet (at most the largest raise above its base score) could come first;
 * the stream's items are typed columns (score-stream.ts), and a later listing's items that come
 * after the page's last so far are dropped before their name ranks are read.
 * Nothing in the stream is lowered, so a cursor resumes the base right after its key (at its
 * hint's srank when its item is a base item at its base score; a raised one's hint bounds the
 * key's placing and gives its name rank, so no identifier is searched). Entities lowered or raised
 * further leave the stream (rescored(): 3-gram indexes, RescoredGrams). A lowered one the base's
 * listing meets before its place now: a read from the start places it from the listing (its score
 * now its base score less the drop its state holds, LOWERED_KEPT, or past that its adjustment) and
 * walks only the raised ones; a resumed read walks them all but the
 * lowered ones its listing meets (from its resume point on, found once as a score rank). A rescored
 * item's cursor hint is its base score rank plus N (moved: its key placed by its score now, by
 * name rank). The delta's and the
 * rescored candidates of the query's rarest 3-gram are kept sorted by score and weighed once, after
 * the base's first listing, walked while they can reach the page: their columns (scores, and 64-bit
 * gram signatures, gram-signature.ts) are read in order, a candidate's object only when its score
 * ties the page's last or its signature may hold the query; past the page's last only a better
 * tier can still enter (the delta's: a range of those that start with the query's first gram, in
 * search order; the rescored: a range of name ranks). The query's rarest gram of each gram index
 * is picked, and its lists kept, by a typed cache of grams per content (score-grams.ts).
 *
 * Interface: the read sees the live graph's state (LiveState, live-state.ts) through
 * LiveScoreView, a small object of getters the state makes once (its fields read at each call: a
 * batch or a swap changes them): the view names only the dozen the read takes. The helpers both
 * search reads share (tiers, the cursor's parts, itemOf, cmp) are search-items.ts: live-state.ts
 * imports this file, and this file nothing of the live graph's files.
 *
 * Costs: a read with no delta touching the query and no raised score is the base's read. Else the
 * base's matches up to the largest raise (at most SCORE_RAISE_MAX) below the page's last (a
 * listing of want + SCORE_READ_AHEAD, then listings that stop at that score, doubled while short), the delta's and rescored candidates of
 * the rarest 3-gram as high as the page's last (a gram's list sorted once per content, O(c log c)),
 * and O(log n) comparisons per match for the page's last so far (ScoreStream.nth). docs/changes.md
 * "Scores" describes the same for users.
 */

import { type CursorCodec, ENDPOINT_SEARCH } from "../cursor/cursor.js";
import {
  type Graph,
  type GraphParts,
  SEARCH_BOUNDS_BYTES,
  searchHint,
  searchHintPosition,
  searchItemOf,
} from "../graph.js";
import type { Hash64 } from "../hash64.js";
import { MAX_SCORE, SEARCH_MAX_LIMIT } from "../limits.js";
import { RankList } from "../search/rank-list.js";
import type { ScoreHits, ScoreResume } from "../search/score-index.js";
import type { SearchBounds } from "../search/search-index.js";
import type { Entity, EntityType, Page, SearchParams } from "../types.js";
import { GRAM, GramIndex } from "./gram-index.js";
import { mayContain, signatureInto, signaturesOf } from "./gram-signature.js";
import {
  cmp,
  type HiddenEntity,
  itemOf,
  SEARCH_PART,
  TIER_EXACT,
  TIER_INFIX,
  TIER_PREFIX,
  typeCodeOf,
  unknownCursorShape,
} from "./search-items.js";
import {
  FIRST_GRAM,
  LIST_ALL,
  LIST_DELTA,
  LIST_RAISED,
  PICKS,
  STARTS,
  ScoreGrams,
  type ScoreList,
} from "./score-grams.js";
import { type ScoreItem, ScoreStream } from "./score-stream.js";
import { compareEntities, type DeltaEntity } from "./sorted-delta.js";
import { START_RADIX, START_UNITS, type StartGroups, startKey } from "./start-groups.js";

/**
 * How far the delta's statements may raise a base entity's counted score while it stays in the
 * base's order=score stream, read out of place and put right by the merge's look-ahead (every base
 * match up to this many score points below the last one read); an entity raised further, or
 * lowered at all, leaves the stream and joins the delta's (its gram index). A larger bound makes
 * every read look further ahead (in the low scores' long runs of equal scores, about a run of the
 * query's matches a point); a smaller one sends more entities to the delta. At 1M entities a delta
 * of 100,000 random statements raises about 250,000 entities by 1 or 2 and 3,600 by more. At most
 * 2: the states below LEFT_STREAM are a raise (streamStateOf).
 */
export const SCORE_RAISE_MAX = 2;
/**
 * Base matches an order=score read lists beyond its page when some score in the base's stream was
 * raised, with the page at once: what the look-ahead of SCORE_RAISE_MAX points most often needs
 * (at 1M entities with 100,000 statements of delta, about half the pages need one more, most of
 * the rest a few). A page that needs more lists on in a listing that stops at a score (the page's
 * last less the largest raise: ScoreResume's `end`), so a larger look-ahead only lists what the
 * second listing would not (2 costs the least there: 6 lists about a band more than it saves).
 * The page is the listing's firm count (ScoreIndex.find's `firm`): the look-ahead decodes no score
 * band of its own (the first listing then stops short, and a page that needs more lists on with
 * its `end`, which decodes a band only when the page's last less the raise lies past band 0): at
 * 1M entities the first listing's mean 19.9 -> 17.0 us, 3% more pages list twice, and page 2's
 * p50 ratio 1.66 -> 1.50 (changes.bench --cases score, 6 interleaved runs each).
 */
const SCORE_READ_AHEAD = 2;
/** The most base matches one listing of an order=score read asks for (a page that needs more lists again, doubling up to this). */
const SCORE_LISTING_MAX = SEARCH_MAX_LIMIT * 4;
/**
 * A base entity's stream state when it left the stream and a listing that meets it leaves it out:
 * raised past SCORE_RAISE_MAX (the walk's), or replaced or deleted (the delta's).
 */
export const LEFT_STREAM = 3;
/**
 * A base entity's stream state when the delta lowered its counted score by k, 1 <= k <=
 * LOWERED_KEPT: LEFT_STREAM + k. It left the stream too (a resumed read walks it, RescoredGrams.all),
 * but a listing that meets it places it by its score now from the state alone (its base score less
 * k), no dense id read; one lowered further is LOWERED_FAR (its adjustment read by dense id). Most
 * are lowered by one or two (a cascade delete takes a statement or so of each neighbour).
 */
const LOWERED_KEPT = 11;
/** The stream state of a base entity lowered by more than LOWERED_KEPT (see LOWERED_KEPT). */
export const LOWERED_FAR = LEFT_STREAM + LOWERED_KEPT + 1;

/** The stream state of a base entity (not replaced or deleted) whose counted score the delta lowered by `drop` (> 0). */
export function loweredState(drop: number): number {
  return drop <= LOWERED_KEPT ? LEFT_STREAM + drop : LOWERED_FAR;
}

/** Bytes of stream states for `n` base entities (two to a byte: streamStateOf). */
export function streamStatesBytes(n: number): number {
  return Math.ceil(n / 2);
}

/**
 * The state of the base entity of score rank `s` in the stream states (LiveScoreView.streamState:
 * four bits, two to a byte, so that the states of 1M entities, 512 KB, stay in the CPU's caches
 * more than a byte each would): 0 at its base score, 1..SCORE_RAISE_MAX raised by that much, and
 * out of the stream LEFT_STREAM, lowered by a few (LOWERED_KEPT) or LOWERED_FAR. By score rank,
 * not dense id: a listing gives score ranks, so an item's state is one read, not after its name
 * rank and dense id.
 */
function streamStateOf(states: Uint8Array, s: number): number {
  return (states[s >>> 1]! >>> ((s & 1) << 2)) & 15;
}

/** Sets the state of the base entity of score rank `s` in the stream states (see streamStateOf). */
export function setStreamState(states: Uint8Array, s: number, state: number): void {
  const shift = (s & 1) << 2;
  states[s >>> 1] = (states[s >>> 1]! & ~(15 << shift)) | (state << shift);
}

/**
 * What a name rank asked of the rescored map costs (its dense id and the map: two cache misses)
 * against a rescored candidate's name rank read in its list's column (4 bytes read in order: a
 * line of 16 a miss at most, most of them prefetched): the better tiers' rescored entities are found
 * the cheaper way, by their ranks when the tier's ranks are few beside the candidates left.
 */
const RANK_PROBE_COST = 128;
/** A base entity whose score the delta's statements changed (a counted score): where order "score" puts it now. */
export interface RescoredEntity {
  readonly entityId: string;
  /** Its dense id in the base. */
  readonly baseId: number;
  readonly folded: string;
  readonly type: EntityType;
  readonly entity: Entity;
  /** Its score now (an entity whose count changes is made again). */
  readonly score: number;
  /**
   * Whether its score now is below its base score: the base's listing meets it before its place
   * now, so a read from the start places it from the listing (its score from byId) and only a
   * resumed read looks for those the listing left behind the resume point (in RescoredGrams.all).
   */
  readonly lowered: boolean;
}

/**
 * What a look-up of rescored entities by name rank selects, and into what (rescoredByScore's own
 * parameters, handed on to rescoredOfRanks and rescoredInRanks): of `byId` (the raised ones alone
 * for `raisedOnly`), of the type, not `skip`ped, not in `found` already, given to `select`.
 */
interface RescoredSelection {
  readonly byId: ReadonlyMap<number, RescoredEntity>;
  readonly raisedOnly: boolean;
  readonly skip: ((r: RescoredEntity) => boolean) | undefined;
  readonly typeName: EntityType | undefined;
  readonly found: readonly ScoreItem[];
  readonly select: (x: RescoredEntity, entity: Entity, score: number, d: number, rank: number) => void;
}

/**
 * The rescored entities by 3-grams, in two indexes: those raised past SCORE_RAISE_MAX, which a read
 * from the start walks (the base's listing meets them after their place now, or not at all; the
 * lowered ones it places from the listing), and all of them, which a resumed read walks (one walk:
 * the lowered ones the listing meets from its resume point on are left to it).
 */
export class RescoredGrams {
  readonly raised = new GramIndex<RescoredEntity>();
  readonly all = new GramIndex<RescoredEntity>();

  add(r: RescoredEntity): void {
    this.all.add(r);
    if (!r.lowered) this.raised.add(r);
  }

  remove(r: RescoredEntity): void {
    this.all.remove(r);
    if (!r.lowered) this.raised.remove(r);
  }
}

/** The rescored base entities (LiveState's rescored()): by dense id and by 3-grams. */
export interface RescoredSet {
  readonly byId: ReadonlyMap<number, RescoredEntity>;
  readonly grams: RescoredGrams;
}

/** What the order=score read takes of a LiveGraph, read at each call (see the banner). */
export interface LiveScoreView {
  readonly base: Graph;
  readonly parts: GraphParts;
  /** The base's fold. */
  readonly fold: (s: string) => string;
  /** The codec that seals and opens the graph's cursors. */
  readonly cursors: CursorCodec;
  readonly sequence: number;
  /** The delta's entities, by entityId and by 3-grams. */
  readonly entities: ReadonlyMap<string, DeltaEntity>;
  readonly entityGrams: GramIndex<DeltaEntity>;
  /** The delta's entities by the first gram of their folded identifiers (order "score"'s better tiers). */
  readonly entityStarts: StartGroups;
  /** Base entities replaced or deleted, by 3-grams. */
  readonly hiddenGrams: GramIndex<HiddenEntity>;
  /** The most a score in the base's stream was raised (at most SCORE_RAISE_MAX); read after rescored(). */
  readonly maxRaise: number;
  /** Each base entity's stream state (streamStateOf: by base score rank), undefined while no count changed; read after rescored(). */
  readonly streamState: Uint8Array | undefined;
  /**
   * What the delta's statements add to each base entity's count, by dense id (made with the stream
   * states: defined whenever they are): a listing reads it for an entity lowered past what its
   * state holds (LOWERED_FAR: its score now its base score plus it).
   */
  readonly adjustments: Int32Array | undefined;
  /** An entity's count of statements now (its score when its line gave none). */
  countNow(id: string, d: number): number;
  /** The rescored entities, brought up to date with the delta (and the stream states with them). */
  rescored(): RescoredSet;
}

/** The parts of an order "score" search cursor (SEARCH_PART: raw, entityId, hint, score). */
const SEARCH_SCORE_PARTS = 4;

/** The order=score read of one LiveGraph, with its scratch and its sorted lists (a read is synchronous). */
export class ScoreSearch {
  readonly #live: LiveScoreView;

  constructor(live: LiveScoreView) {
    this.#live = live;
  }

  /** The score index's listing scratch for order=score reads (a read is synchronous). */
  readonly #scoreHits: ScoreHits<RankList> = {
    sranks: new RankList(SCORE_LISTING_MAX),
    tiers: new RankList(SCORE_LISTING_MAX),
    bounds: null,
  };
  /**
   * Per 3-gram, for the content as it is (a batch or a swap since empties it): its posting sizes in
   * the delta's and the rescored gram indexes, and the postings sorted by score now (highest first,
   * then search order) with their columns, made on first need (score-grams.ts).
   */
  readonly #grams = new ScoreGrams();
  /** A read's rarest gram of its query in each of #grams' indexes (-1: none holds every gram; a read is synchronous). */
  readonly #picked = new Int32Array(PICKS);
  /** The rescored set a read took (rescored()), for #gramSizes. */
  #rescoredNow: RescoredSet | undefined;
  /**
   * A gram's posting sizes, and how many delta entities start with it, asked of the indexes once
   * per content (ScoreGrams.rarest).
   */
  readonly #gramSizes = (text: string, data: Float64Array, at: number): void => {
    const grams = this.#rescoredNow!.grams;
    data[at + LIST_DELTA] = this.#live.entityGrams.rarest(text)?.items.size ?? 0;
    data[at + LIST_RAISED] = grams.raised.rarest(text)?.items.size ?? 0;
    data[at + LIST_ALL] = grams.all.rarest(text)?.items.size ?? 0;
    // Each branch: no delta entity, no group to make.
    data[at + STARTS] = this.#live.entityStarts.sizeOf(text);
  };
  /**
   * A stream item (base name rank `rank`) against an object of no name rank of this base, by name:
   * folded identifiers (the object's kept on it once folded), then entityIds.
   */
  readonly #byName = (rank: number, y: ScoreItem): number => {
    const entities = this.#live.parts.entities;
    const d = this.#live.parts.searchIndex.idAt(rank);
    if (y.folded === "") y.folded = this.#live.fold(y.entity?.rawIdentifier ?? entities.rawIdentifier(y.d));
    return (
      cmp(this.#live.fold(entities.rawIdentifier(d)), y.folded) ||
      cmp(entities.entityId(d), y.entity?.entityId ?? entities.entityId(y.d))
    );
  };
  /** The base's stream items of a read, in columns (score-stream.ts; a read is synchronous). */
  readonly #stream = new ScoreStream(this.#byName, (rank) => this.#live.parts.searchIndex.idAt(rank));
  /** A page's picks of the two streams, and its stream items' dense ids (a read is synchronous). */
  readonly #pagePicks = new Int32Array(SEARCH_MAX_LIMIT + 1);
  readonly #pageIds = new Uint32Array(SEARCH_MAX_LIMIT + 1);
  /** The order=score stream's stages (name ranks, base scores, stream states of a listing), grown as needed. */
  #streamRanks = new Int32Array(64);
  #streamScores = new Float64Array(64);
  #streamMoved = new Uint8Array(64);
  /** A listing's items that can be on the page: their places in the listing, and their scores now. */
  #streamKept = new Int32Array(64);
  #streamNow = new Float64Array(64);
  /** A listing's adjustments of its items lowered past what a state holds (by place in the listing; LOWERED_FAR). */
  #streamAdjusts = new Float64Array(64);
  /**
   * The base's score rank of each dense id (the inverse of the score index's rank to dense id), for
   * the hint of a cursor whose last item is a rescored entity and for a resumed read's walk (which
   * lowered entities its listing meets): scoreRanksOf, 4 bytes an entity, taken from a swapped-in
   * base's warmth or made by warm() (or at the first need) over a base, let go at a swap.
   */
  #srankOfId: Uint32Array | undefined;
  #srankOfIdBase: Graph | undefined;
  /** A read's query's gram signature (gram-signature.ts; a read is synchronous). */
  readonly #querySignature = new Int32Array(2);
  /** Rescored entities by their score now, highest first (the order of their gram index's sorted lists). */
  readonly #byScoreNow = (x: RescoredEntity, y: RescoredEntity): number =>
    y.score - x.score || cmp(x.folded, y.folded) || cmp(x.entityId, y.entityId);

  /**
   * Order "score": the delta's entities that can enter the page, selected into `found`. The query's
   * candidates (its rarest 3-gram's, sorted by score now, highest first, for the content as it is:
   * made again after a batch) are walked while not after the page's last item so far in that order
   * (or the page not full); past it only a better tier can still enter: the delta's entities whose identifiers
   * start with the query (a range of those that start with its first gram, in search order:
   * start-groups.ts). A query shorter than a gram weighs every delta entity.
   */
  private deltaByScore(
    fq: string,
    typeName: EntityType | undefined,
    stream: ScoreStream,
    found: readonly ScoreItem[],
    want: number,
    after: ScoreItem | undefined,
    compare: (x: ScoreItem, y: ScoreItem) => number,
    select: (x: DeltaEntity, entity: Entity, score: number, d: number) => void,
  ): void {
    if (this.#live.entities.size === 0) return;
    const scoreOf = (x: DeltaEntity): number => x.score ?? this.#live.countNow(x.entityId, x.baseId);
    if (fq.length < GRAM) {
      for (const x of this.#live.entities.values()) if (matches(x, true, fq, typeName)) select(x, x, scoreOf(x), -1);
      return;
    }
    // The query's rarest gram among the delta's (pickGrams), none when some gram of it is no delta entity's.
    const g = this.#picked[LIST_DELTA]!;
    if (g < 0) return;
    /** The page's last item so far (undefined: the page is not full), told again after each match. */
    let last = stream.nth(found, want);
    // A page whose last is of the exact tier takes only exact matches: the delta entities whose
    // identifiers are the query (a range of the start group, most often none), no walk by score.
    if (last?.tier === TIER_EXACT) {
      this.deltaStarting(fq, typeName, true, found, select, scoreOf);
      return;
    }
    // Each branch: the list's top score (NaN until it is made) below the page's last: no candidate
    // reaches the page by score, the walk would stop at its first (passed, the list not read);
    // else walked.
    if (last === undefined || !(this.#grams.topOf(LIST_DELTA, g) < last.score)) {
      const { items, scores, signatures } = this.#grams.listOf(LIST_DELTA, g, (text): ScoreList<DeltaEntity> => {
        const byScore = [...this.#live.entityGrams.rarest(text)!.items].map((e) => ({ e, score: scoreOf(e) }));
        byScore.sort((x, y) => y.score - x.score || compareEntities(x.e, y.e));
        const list = byScore.map((x) => x.e);
        return { items: list, scores: Float64Array.from(byScore, (x) => x.score), signatures: signaturesOf(list) };
      });
      const check = fq.length !== GRAM;
      const query = this.#querySignature;
      signatureInto(fq, query, 0);
      let i = walkStart(items, scores, after, compare);
      for (; i < items.length; i++) {
        // The columns first (read in order): the candidate's object only when its score ties the
        // last's or its signature may hold the query.
        const score = scores[i]!;
        if (last !== undefined && score <= last.score && pastLast(items[i]!, score, last, compare)) break;
        if (check && !mayContain(signatures, i, query)) continue;
        const x = items[i]!;
        // Each branch: no match; of a worse tier than the page's last (after it, whatever its score:
        // not selected, so neither compared nor kept); else selected.
        if (!matches(x, check, fq, typeName)) continue;
        if (last !== undefined && last.tier !== TIER_INFIX && matchTier(x.folded, fq) > last.tier) continue;
        select(x, x, score, -1);
        last = stream.nth(found, want);
      }
      // All walked: no better tier left.
      if (i === items.length) return;
    }
    // Each branch: nothing past the exact tier is better; a resumed page's last of the key's tier
    // (a better tier comes before the key: the page before's); else the better tiers' entities: of
    // the exact tier alone past a page's last of the prefix tier, else of both.
    if (last === undefined || last.tier === TIER_EXACT || after?.tier === last.tier) return;
    this.deltaStarting(fq, typeName, last.tier === TIER_PREFIX, found, select, scoreOf);
  }

  /**
   * The delta entities whose identifiers start with `fq` (at least GRAM code units), or only those
   * equal to it (`exactOnly`), selected (those in `found` already left out): a range of the ones
   * that start with its first gram, in search order (start-groups.ts startingWith), found by binary searches
   * of their start keys; the equal ones the range's first keys (a string sorts before its extensions).
   */
  private deltaStarting(
    fq: string,
    typeName: EntityType | undefined,
    exactOnly: boolean,
    found: readonly ScoreItem[],
    select: (x: DeltaEntity, entity: Entity, score: number, d: number) => void,
    scoreOf: (x: DeltaEntity) => number,
  ): void {
    // No delta entity starts with the query's first gram (its record's starts), so none with the query.
    if (this.#grams.startsOf(this.#picked[FIRST_GRAM]!) === 0) return;
    const group = this.#live.entityStarts.startingWith(fq);
    if (group === undefined) return;
    const { entities: starts, keys } = group;
    // The range of keys whose code units past the first gram are the query's (those it has, up to
    // START_UNITS of them): every entity that starts with the query, and only such when the query
    // has no more units than that. Each branch: the equal ones' keys are the query's own (and, for
    // a query of more units than a key holds, its extensions' too: checked); else the whole range.
    const fixed = Math.min(fq.length - GRAM, START_UNITS);
    const from = startKey(fq);
    const lo = keysFrom(keys, from);
    const hi = exactOnly ? keysFrom(keys, from + 1) : keysFrom(keys, from + START_RADIX ** (START_UNITS - fixed));
    const check = fq.length > GRAM + START_UNITS;
    for (let k = lo; k < hi; k++) {
      const x = starts[k]!;
      if (exactOnly ? x.folded !== fq : check && !x.folded.startsWith(fq)) continue;
      if (typeName !== undefined && x.type !== typeName) continue;
      // One walked already may be on the page: not selected twice.
      if (found.some((y) => y.entity === x)) continue;
      select(x, x, scoreOf(x), -1);
    }
  }

  /**
   * Order "score": the rescored entities (base entities out of the base's stream) that can enter
   * the page, selected into `found`. The query's candidates (its rarest 3-gram's, kept sorted by
   * score now, then name) are walked while not after the page's last item so far in that order (or
   * the page not full); past it only a better tier can still enter: found by rank (the tiers are
   * ranges of name ranks) when they are few beside the candidates left, else by the walk going on
   * for them alone. `skip` (a resumed read's: the lowered entities its listing meets) with
   * `resumeAt`, the first score rank that listing takes in the key's tier: a lowered candidate at or
   * past it is the listing's, or of a better tier than the key's (before it): left out by its base
   * score rank, a column of the list, before its object is read.
   */
  private rescoredByScore(
    grams: GramIndex<RescoredEntity>,
    byId: ReadonlyMap<number, RescoredEntity>,
    raisedOnly: boolean,
    skip: ((r: RescoredEntity) => boolean) | undefined,
    resumeAt: number,
    fq: string,
    typeName: EntityType | undefined,
    bounds: SearchBounds | null,
    stream: ScoreStream,
    found: readonly ScoreItem[],
    want: number,
    after: ScoreItem | undefined,
    compare: (x: ScoreItem, y: ScoreItem) => number,
    select: (x: RescoredEntity, entity: Entity, score: number, d: number, rank: number) => void,
  ): void {
    // Each branch: a query shorter than a gram has no sorted list (every rescored entity, checked).
    if (fq.length < GRAM) {
      const all = grams.candidates(fq);
      for (const r of all.items)
        if (matches(r, all.check, fq, typeName) && skip?.(r) !== true) select(r, r.entity, r.score, r.baseId, -1);
      return;
    }
    // The query's rarest gram among this index's (pickGrams), none when some gram of it is no entity's here.
    const k = raisedOnly ? LIST_RAISED : LIST_ALL;
    const g = this.#picked[k]!;
    if (g < 0) return;
    /** The page's last item so far (undefined: the page is not full), told again after each match. */
    let last = stream.nth(found, want);
    // The list's top score (NaN until it is made) below the page's last: no candidate reaches the
    // page by score (the walk would stop at its first), and with no base entity in the better
    // tiers (an empty range of name ranks: a rescored entity's name is its base name) none enters
    // by tier: passed, the list not read.
    const better =
      bounds === null || last === undefined ? 0 : (last.tier === TIER_PREFIX ? bounds.e : bounds.b) - bounds.a;
    if (last !== undefined && this.#grams.topOf(k, g) < last.score && (last.tier === TIER_EXACT || better === 0))
      return;
    const columns = this.#grams.listOf(k, g, (text): ScoreList<RescoredEntity> => {
      const list = grams.sortedList(text, this.#byScoreNow);
      const scores = Float64Array.from(list, (r) => r.score);
      // Every one's base name rank (its tier for a query, by the base's bounds); each branch: the
      // raised ones' list (a read from the start: no listing to leave to), or all, with the lowered
      // ones' base score ranks (-1: a raised one).
      const index = this.#live.parts.scoreIndex;
      const ranks = Int32Array.from(list, (r) => index.rankAt(this.srankOf(r.baseId)));
      if (raisedOnly) return { items: list, scores, signatures: signaturesOf(list), ranks };
      const sranks = Int32Array.from(list, (r) => (r.lowered ? this.srankOf(r.baseId) : -1));
      return { items: list, scores, signatures: signaturesOf(list), sranks, ranks };
    });
    const { items: list, scores, signatures, sranks, ranks } = columns;
    // A resumed read tells a candidate's tier by its name rank (a rescored entity's name is its
    // base name: the base's tiers are ranges of name ranks), no object read: -1 when it cannot.
    const keyTier =
      skip !== undefined && after !== undefined && bounds !== null && ranks !== undefined ? after.tier : -1;
    /** Whether a candidate may not hold the query (it holds its rarest gram): a query of one gram needs no check. */
    const check = fq.length !== GRAM;
    const query = this.#querySignature;
    signatureInto(fq, query, 0);
    let i = walkStart(list, scores, after, compare, ranks);
    // A page whose last is of the exact tier takes only exact matches: a range of name ranks,
    // asked of the rescored map when few beside the candidates (most often none), else found in
    // the ranks column (no walk by score, no object read but theirs). `i` is 0 here: a key of the
    // infix tier comes after every exact item, so the page's last would not be exact.
    if (last?.tier === TIER_EXACT && bounds !== null) {
      this.rescoredOfRanks(bounds.a, bounds.e, list, ranks!, scores, i, {
        byId,
        raisedOnly,
        skip,
        typeName,
        found,
        select,
      });
      return;
    }
    for (; i < list.length; i++) {
      // The columns first (read in order): the candidate's object only when its score ties the
      // last's or its signature may hold the query.
      const score = scores[i]!;
      if (last !== undefined && score <= last.score && pastLast(list[i]!, score, last, compare, ranks![i]!)) break;
      if (keyTier >= 0) {
        const rank = ranks![i]!;
        const tier = rank < bounds!.a || rank >= bounds!.b ? TIER_INFIX : rank < bounds!.e ? TIER_EXACT : TIER_PREFIX;
        // Each branch: of a better tier than the key's (before it); lowered, of a worse tier (the
        // listing's: it lists every worse tier whole) or at or past the listing's resume point.
        if (tier < keyTier) continue;
        if (sranks![i]! >= 0 && (tier > keyTier || sranks![i]! >= resumeAt)) continue;
      }
      if (check && !mayContain(signatures, i, query)) continue;
      // A lowered candidate at or past the listing's resume point: the listing's, or before the key.
      if (skip !== undefined && sranks !== undefined && sranks[i]! >= resumeAt) continue;
      const r = list[i]!;
      // Each branch: no match, or the listing's (told by the columns above when the key's tier is
      // known: `skip` asks again by the object, its base score rank a look-up); of a worse tier
      // than the page's last (after it, whatever its score: not selected, so neither compared nor
      // kept); else selected, with its base name rank (its name's place: compared by it, no fold).
      if (!matches(r, check, fq, typeName) || (keyTier < 0 && skip?.(r) === true)) continue;
      if (last !== undefined && last.tier !== TIER_INFIX && matchTier(r.folded, fq) > last.tier) continue;
      select(r, r.entity, score, r.baseId, ranks![i]!);
      last = stream.nth(found, want);
    }
    // Each branch: all walked; nothing past the exact tier is better; a resumed page's last of the
    // key's tier (a better tier comes before the key: the page before's); else the better tiers'
    // (exact, or exact and prefix: a range of name ranks, from the key's tier on) among the
    // candidates left.
    if (i === list.length || last === undefined || last.tier === TIER_EXACT || bounds === null) return;
    if (after?.tier === last.tier) return;
    const lo = after?.tier === TIER_PREFIX ? bounds.e : bounds.a;
    const hi = last.tier === TIER_PREFIX ? bounds.e : bounds.b;
    this.rescoredOfRanks(lo, hi, list, ranks!, scores, i, { byId, raisedOnly, skip, typeName, found, select });
  }

  /**
   * The rescored entities of name ranks [lo, hi) (a tier's range: a rescored entity's name is its
   * base name, so it matches) among a list's candidates from `from` on, selected (of the type, not
   * `skip`ped, not in `found` already). Each branch: the tier's ranks asked of the rescored map when
   * few beside the candidates (rescoredInRanks; most often none), else the candidates' ranks column
   * read in order, a candidate's object only when its rank is in the range.
   */
  private rescoredOfRanks(
    lo: number,
    hi: number,
    list: readonly RescoredEntity[],
    ranks: Int32Array,
    scores: Float64Array,
    from: number,
    selection: RescoredSelection,
  ): void {
    if ((hi - lo) * RANK_PROBE_COST <= list.length - from) {
      this.rescoredInRanks(lo, hi, selection);
      return;
    }
    const { skip, typeName, select } = selection;
    for (let i = from; i < list.length; i++) {
      const rank = ranks[i]!;
      if (rank < lo || rank >= hi) continue;
      const r = list[i]!;
      // One walked already (before `from`) is not met here: every candidate from `from` on is new.
      if ((typeName !== undefined && r.type !== typeName) || skip?.(r) === true) continue;
      select(r, r.entity, scores[i]!, r.baseId, rank);
    }
  }

  /**
   * The rescored entities of name ranks [lo, hi) (a tier's range: a rescored entity's name is its
   * base name), selected: of the index walked (the raised ones alone for `raisedOnly`), of the type,
   * not `skip`ped, not in `found` already. One dense id and one probe of `byId` a rank.
   */
  private rescoredInRanks(lo: number, hi: number, selection: RescoredSelection): void {
    const { byId, raisedOnly, skip, typeName, found, select } = selection;
    const search = this.#live.parts.searchIndex;
    for (let rank = lo; rank < hi; rank++) {
      const r = byId.get(search.idAt(rank));
      // Only this index's entities; one walked already may be on the page: not selected twice.
      if (r === undefined || (raisedOnly && r.lowered) || (typeName !== undefined && r.type !== typeName)) continue;
      if (skip?.(r) === true || found.some((x) => x.entity === r.entity)) continue;
      select(r, r.entity, r.score, r.baseId, rank);
    }
  }

  /**
   * Each index's rarest gram of `fq` (at least GRAM code units) into #picked, from #grams (made
   * again for a new content; the delta's first grams are the live state's, kept by the batches:
   * start-groups.ts).
   */
  private pickGrams(fq: string, rescored: RescoredSet): void {
    this.#grams.forContent(this.#live.sequence, this.#live.base);
    this.#rescoredNow = rescored;
    this.#grams.rarest(fq, this.#gramSizes, this.#picked);
    this.#rescoredNow = undefined;
  }

  /**
   * Takes `ranks` (scoreRanksOf(base), made where the base was built: a compaction's worker) as
   * the base's score ranks, or makes them now when not given and not made yet for `base`.
   */
  warm(base: Graph, ranks?: Uint32Array): void {
    if (ranks !== undefined) {
      this.#srankOfId = ranks;
      this.#srankOfIdBase = base;
    } else if (this.#srankOfIdBase !== base || this.#srankOfId === undefined) {
      this.#srankOfId = scoreRanksOf(this.#live.parts);
      this.#srankOfIdBase = base;
    }
  }

  /**
   * A new base swapped in (LiveGraph.swapBase): what was made for the old one goes now, so that
   * nothing here keeps the old base, or its delta's lists, alive until the next order=score read;
   * `ranks` as warm's.
   */
  rebase(base: Graph, ranks?: Uint32Array): void {
    this.#grams.forget();
    this.#srankOfId = undefined;
    this.#srankOfIdBase = undefined;
    if (ranks !== undefined) this.warm(base, ranks);
  }

  /** Base entity `d`'s score rank in the base (see #srankOfId; the stream states go by it, live-state.ts). */
  srankOf(d: number): number {
    if (this.#srankOfIdBase !== this.#live.base || this.#srankOfId === undefined) this.warm(this.#live.base);
    return this.#srankOfId![d]!;
  }

  /**
   * A page in order "score" (LiveGraph.search() with order "score"): the delta's matches after the key (its
   * entities, and the base entities whose scores left the base's stream: rescored()) merged with
   * the base's stream, read from the base's score index by score rank (no base page made), less
   * the tombstoned entities. Base entities raised by at most SCORE_RAISE_MAX stay in the stream at
   * their base score rank and are placed by their score now: the stream is read until its last
   * item, raised by the largest raise, comes after the page. No entity in the stream was lowered,
   * so a cursor resumes the base right after its key: at the score rank its hint names (an item
   * whose key is its base key), else where the key's place is (the score index's binary searches:
   * below the hint's score rank, the name rank known, when the item was a raised stream item).
   * Two stream items tie on score by name rank, so an identifier is folded only to meet a delta item.
   */
  search(
    params: SearchParams,
    fq: string,
    type: number,
    limit: number,
    cursor: string | undefined,
    count: boolean,
    tag: Hash64,
  ): Page<Entity> {
    const typeName = params.type;
    const parts = this.#live.parts;
    const entities = parts.entities;
    const search = parts.searchIndex;
    const scores = parts.scores;
    const index = parts.scoreIndex;
    const want = limit + 1;
    /** The name of an item: its folded identifier and entityId, read from the base on first need. */
    const foldOf = (x: ScoreItem): string => {
      if (x.folded === "") x.folded = this.#live.fold(x.entity?.rawIdentifier ?? entities.rawIdentifier(x.d));
      return x.folded;
    };
    const idOf = (x: ScoreItem): string => x.entity?.entityId ?? entities.entityId(x.d);
    const compare = (x: ScoreItem, y: ScoreItem): number =>
      x.tier - y.tier ||
      y.score - x.score ||
      (x.rank >= 0 && y.rank >= 0 ? x.rank - y.rank : cmp(foldOf(x), foldOf(y)) || cmp(idOf(x), idOf(y)));
    // The cursor's key, and where it resumes the base: right after a score rank (its hint), or a key to place.
    let after: ScoreItem | undefined;
    let resume: ScoreResume = null;
    /** With a cursor, the first score rank the base's listing takes in the key's tier (after.tier). */
    let resumeAt = 0;
    /** A key placed by its name: the query's bounds in the base (null: no match), asked before it is placed. */
    let keyBounds: SearchBounds | null = null;
    if (cursor !== undefined) {
      const content = this.#live.cursors.decode(cursor, ENDPOINT_SEARCH, tag);
      if (content.count !== SEARCH_SCORE_PARTS || content.extra > TIER_INFIX) throw unknownCursorShape();
      const raw = content.part(SEARCH_PART.raw);
      const entityId = content.part(SEARCH_PART.entityId);
      const tier = content.extra;
      const score = parseScore(content.part(SEARCH_PART.score));
      // Its identifier folded when a comparison needs it (foldOf: a key of a hint of this base
      // meets the stream's items by name rank, so mostly none does).
      after = {
        tier,
        score,
        folded: "",
        entity: { entityId, rawIdentifier: raw, type: "0", sourceType: "" },
        d: -1,
        rank: -1,
        srank: -1,
      };
      const position = searchHintPosition(this.#live.base, content.part(SEARCH_PART.hint));
      const N = index.entityCount;
      // Each branch: a hint of this base names the key's entity's base score rank: a stream item's
      // (below N: its base key, resume right after it, or raised, its key placed before it) or a
      // rescored entity's (N past it: its key placed by its score now, no name looked up); else the
      // key is placed by its name.
      if (position >= 0 && position < 2 * N) {
        const bounds = content.attachment as SearchBounds | undefined;
        const moved = position >= N;
        const srank = moved ? position - N : position;
        // The key is that base entity's (its name unchanged): a stream item of the key's tier and
        // score is placed against it by name rank, no identifier folded.
        after.rank = index.rankAt(srank);
        resume =
          moved || score > index.scoreAt(scores, srank) ? { tier, at: srank, score, bounds } : { tier, srank, bounds };
      } else {
        // The key placed by its name (a search of its identifier in the base) only when the base
        // has a match: the query's bounds asked first, and kept for the listing. Each branch: no
        // match (a page deep in the delta's own matches: nothing of the base to resume, and no
        // rescored entity matches, its name being its base name), or the key placed.
        keyBounds = search.bounds(fq);
        if (keyBounds === null) resume = { tier, srank: -1, bounds: undefined };
        else {
          const entityAt = parts.dictionary.lowerBound(entityId);
          const entityExact = entityAt < this.#live.base.entityCount && parts.dictionary.is(entityAt, entityId);
          resume = { tier, score, folded: foldOf(after), entityAt, entityExact };
        }
      }
      // The first score rank the base's listing takes in the key's tier, found once here (the
      // lowered rescored entities before it are the walk's, those from it on the listing's).
      resumeAt =
        "srank" in resume
          ? resume.srank + 1
          : "at" in resume
            ? index.srankAfterMoved(scores, resume.at, resume.score)
            : index.srankAfter(search, scores, resume);
      resume = { tier, srank: resumeAt - 1, bounds: "bounds" in resume ? resume.bounds : (keyBounds ?? undefined) };
    }
    // The delta's matches after the key, the first `want` kept in order: its entities, and the base
    // entities that left the base's stream (rescored), each counted.
    const found: ScoreItem[] = [];
    // A rescored base entity's `rank` is its base name rank when the walk has it (its name is its
    // base name: it meets the stream's items and a key of this base by rank, no identifier folded).
    const select = (x: { folded: string; type: EntityType }, entity: Entity, score: number, d: number, rank = -1) => {
      const item: ScoreItem = {
        tier: matchTier(x.folded, fq),
        score,
        folded: x.folded,
        entity,
        d,
        rank,
        srank: -1,
      };
      if (after !== undefined && compare(item, after) <= 0) return;
      // Each branch: the page is full and this is not better than its last (left out), or it is kept.
      if (found.length === want) {
        if (compare(item, found[want - 1]!) >= 0) return;
        found.pop();
      }
      insertSorted(found, item, compare);
    };
    // The delta's entities that match: counted only for a total (the page takes them by score, below).
    const deltaMatches = count ? countMatches(this.#live.entityGrams, fq, typeName) : 0;
    const rescored = this.#live.rescored();
    const rescoredById = rescored.byId;
    const raise = this.#live.maxRaise;
    // No score in the stream moved and no delta entity matches: the base's page may be the answer.
    const quiet = raise === 0 && (count ? deltaMatches === 0 : !anyMatch(this.#live.entityGrams, fq, typeName));
    // The tombstoned base entities that match: counted for a total, and (with the rescored ones)
    // to tell whether the base's page is the answer as it is.
    const hiddenMatches = count || quiet ? countMatches(this.#live.hiddenGrams, fq, typeName) : 0;
    // Nothing of the delta touches this query and no score in the stream moved: the base's page is
    // the answer (its total too).
    if (
      quiet &&
      hiddenMatches === 0 &&
      (rescoredById.size === 0 || countMatches(rescored.grams.all, fq, typeName) === 0)
    )
      return this.#live.base.search(params);
    // The base's stream, by score rank from the resume point: its items after the key (tombstoned
    // and rescored entities left out) in `stream`, in order now.
    const hits = this.#scoreHits;
    const matchesRank = (rank: number): boolean => {
      const d = search.idAt(rank);
      return (type < 0 || entities.typeOf(d) === type) && this.#live.fold(entities.rawIdentifier(d)).includes(fq);
    };
    const stream = this.#stream;
    stream.clear();
    /** Every base item not listed yet comes after it: the last one listed, at its base score plus `raise`. */
    let bound: ScoreItem | undefined;
    let bounds: SearchBounds | null = null;
    const state = this.#live.streamState;
    const adjustments = this.#live.adjustments;
    // The look-ahead a raise needs, asked with the page at once (tombstones in the way ask a second round).
    let chunk = want + (raise > 0 ? SCORE_READ_AHEAD : 0);
    let sided = false;
    /** Where the next listing stops (a score rank: ScoreResume's `end`), -1: nowhere. */
    let end = -1;
    /** The page's last so far when the next listing starts (undefined: none yet, or the page not full). */
    let cut: ScoreItem | undefined;
    for (;;) {
      // The first listing's look-ahead past the page decodes no band of its own (firm: the page).
      index.find(search, scores, fq, type, resume, chunk, matchesRank, hits, sided ? chunk : want);
      bounds ??= hits.bounds;
      // A listing that stops at a score may give a few past its end: dropped (they come after the
      // page), and then the listing is done.
      const listed = hits.sranks.values;
      const listedTiers = hits.tiers.values;
      let n = hits.sranks.length;
      if (end >= 0) while (n > 0 && listed[n - 1]! >= end) n--;
      // Every base match listed: fewer than asked, and not stopped short at the page (hits.short).
      const listedAll = n < chunk && hits.short !== true;
      // In stages, each a loop of independent reads (their cache misses overlap): score ranks to
      // base scores and stream states (by score rank: no dense id read, a page's items' ids are
      // read as the base's page reads them); then, for the items that can be on the page, their
      // name ranks; then the items.
      if (this.#streamRanks.length < n) {
        this.#streamRanks = new Int32Array(2 * n);
        this.#streamScores = new Float64Array(2 * n);
        this.#streamMoved = new Uint8Array(2 * n);
        this.#streamKept = new Int32Array(2 * n);
        this.#streamNow = new Float64Array(2 * n);
        this.#streamAdjusts = new Float64Array(2 * n);
      }
      const ranks = this.#streamRanks;
      const baseScores = this.#streamScores;
      const states = this.#streamMoved;
      const keptAt = this.#streamKept;
      const now = this.#streamNow;
      const adjusts = this.#streamAdjusts;
      index.scoresAt(scores, listed, n, baseScores);
      // Each branch: no base entity changed yet (all at their base scores), or each one's state.
      if (state === undefined) states.fill(0, 0, n);
      else for (let i = 0; i < n; i++) states[i] = streamStateOf(state, listed[i]!);
      // The items lowered past what a state holds (LOWERED_FAR: few; most of the items out of the
      // stream, about a fifth of a listing at 1M entities with 100,000 statements of delta, the
      // best-scored entities that lost a statement or two to a cascade delete, are placed by their
      // state alone): their adjustments, by score rank to name rank to dense id, each step a loop
      // over them all (the three dependent misses of one overlap with the others').
      let left = 0;
      for (let i = 0; i < n; i++) if (states[i] === LOWERED_FAR) keptAt[left++] = i;
      for (let j = 0; j < left; j++) now[j] = index.rankAt(listed[keptAt[j]!]!);
      for (let j = 0; j < left; j++) now[j] = search.idAt(now[j]!);
      for (let j = 0; j < left; j++) now[j] = adjustments![now[j]!]!;
      for (let j = 0; j < left; j++) adjusts[keptAt[j]!] = now[j]!;
      let kept = 0;
      for (let i = 0; i < n; i++) {
        // Each branch: one in the stream, at its base score raised by its state; out of the stream,
        // a replaced, deleted or raised one (the delta's or the walk's, if any: left out), or a
        // lowered rescored entity (placed here by its score now, the listing meets it before its
        // place: its base score less what its state says, or, lowered further, plus its adjustment).
        const moved = states[i]!;
        let score: number;
        if (moved < LEFT_STREAM) score = baseScores[i]! + moved;
        else if (moved === LEFT_STREAM) continue;
        else if (moved < LOWERED_FAR) score = baseScores[i]! - (moved - LEFT_STREAM);
        else score = baseScores[i]! + adjusts[i]!;
        // An item of a worse tier or a lower score than the page's last so far (a later listing's)
        // is never on the page (its last only moves earlier as items come): left out, its name
        // rank not read (most of a listing that stops at a score, of the scores the raise reaches).
        const tier = listedTiers[i]!;
        if (cut !== undefined && (tier > cut.tier || (tier === cut.tier && score < cut.score))) continue;
        keptAt[kept] = i;
        now[kept++] = score;
      }
      for (let k = 0; k < kept; k++) ranks[k] = index.rankAt(listed[keptAt[k]!]!);
      stream.reserve(kept);
      for (let k = 0; k < kept; k++) {
        const i = keptAt[k]!;
        stream.write(listedTiers[i]!, now[k]!, ranks[k]!, listed[i]!);
        if (after !== undefined && stream.compareSlot(after) <= 0) continue;
        stream.add();
      }
      // The delta's side, once, after the first listing: its walks stop at the page's last so far
      // (a later listing only moves that last earlier), and its matches then count in the stop
      // below, so a page that takes delta or rescored entities lists fewer base items.
      if (!sided) {
        sided = true;
        // Each branch: a query of a gram or more picks its walks' lists by its rarest grams; a shorter one has none.
        if (fq.length >= GRAM) this.pickGrams(fq, rescored);
        this.deltaByScore(fq, typeName, stream, found, want, after, compare, select);
        // Each branch: a read from the start walks the raised entities (its listing places every
        // lowered one that can be on its page); a resumed one walks all, but the lowered ones its
        // listing meets (from its resume point on in the key's tier, all of a worse tier).
        if (rescoredById.size > 0) {
          const key = after;
          const listed =
            key === undefined
              ? undefined
              : (r: RescoredEntity): boolean => {
                  if (!r.lowered) return false;
                  const tier = matchTier(r.folded, fq);
                  return tier > key.tier || (tier === key.tier && this.srankOf(r.baseId) >= resumeAt);
                };
          this.rescoredByScore(
            key === undefined ? rescored.grams.raised : rescored.grams.all,
            rescoredById,
            key === undefined,
            listed,
            resumeAt,
            fq,
            typeName,
            bounds,
            stream,
            found,
            want,
            after,
            compare,
            select,
          );
        }
      }
      // Each branch: the base's stream ends here, or the page is known once its first `want` items
      // (the stream's and the delta's) come before every base item not listed yet.
      if (listedAll) break;
      const srank = listed[n - 1]!;
      const tier = listedTiers[n - 1]!;
      const rank = index.rankAt(srank);
      const d = search.idAt(rank);
      bound = { tier, score: baseScores[n - 1]! + raise, folded: "", entity: undefined, d, rank, srank };
      const last = stream.nth(found, want);
      cut = last;
      if (last !== undefined && compare(last, bound) <= 0) break;
      // Each branch: a full page whose last is of the listing's tier needs no base item of a score
      // below its score less the largest raise (now at most its score less 1: after it), nor a
      // worse tier: the next listing stops there; else it goes on by count.
      end = last !== undefined && last.tier === tier ? index.srankBelow(scores, last.score - raise) : -1;
      resume =
        end >= 0 ? { tier, srank, bounds: bounds ?? undefined, end } : { tier, srank, bounds: bounds ?? undefined };
      chunk = Math.min(SCORE_LISTING_MAX, chunk * 2);
    }
    // The page: the first `want` of the two streams, as picks (a stream item's number, or -1 - a
    // delta item's index in `found`).
    const picks = this.#pagePicks;
    const order = stream.order;
    let taken = 0;
    for (let p = 0, m = 0; taken < want && (p < stream.length || m < found.length); taken++) {
      // Each branch: the smaller head (no entity is in both: the delta's base copies are left out of the stream).
      if (m === found.length || (p < stream.length && stream.compareTo(order[p]!, found[m]!) < 0))
        picks[taken] = order[p++]!;
      else picks[taken] = -1 - m++;
    }
    const n = Math.min(limit, taken);
    const items: Entity[] = new Array(n);
    // The stream items' records read together first (their cache misses overlap), as a base page's.
    const ids = this.#pageIds;
    let bases = 0;
    for (let i = 0; i < n; i++) if (picks[i]! >= 0) ids[bases++] = search.idAt(stream.ranks[picks[i]!]!);
    if (bases > 0) entities.touch(ids, bases);
    // Each branch: a stream item made from the base (its names from the base's cache); a delta's
    // (or a rescored base entity's shared record) copied.
    for (let i = 0, b = 0; i < n; i++) {
      const pick = picks[i]!;
      items[i] = pick >= 0 ? searchItemOf(this.#live.base, ids[b++]!) : itemOf(found[-1 - pick]!.entity!);
    }
    let nextCursor: string | null = null;
    if (taken > limit) {
      const pick = picks[n - 1]!;
      const last = pick >= 0 ? stream.item(pick) : found[-1 - pick]!;
      const e = items[n - 1]!;
      // A stream item's score rank resumes the base: right after it (its base key), or, raised, past
      // the base's items of higher score or of its score and a name before it (see the cursor's
      // decoding). Each branch: a stream item's score rank; a rescored base entity's, N past it (its
      // score moved either way: a base that reads the cursor places its key by name, as it must a
      // lowered one); a delta entity has none.
      const hint =
        last.srank >= 0
          ? searchHint(
              this.#live.base,
              last.srank + (last.score < index.scoreAt(scores, last.srank) ? index.entityCount : 0),
            )
          : last.d >= 0
            ? searchHint(this.#live.base, index.entityCount + this.srankOf(last.d))
            : "";
      nextCursor = this.#live.cursors.encode(
        ENDPOINT_SEARCH,
        tag,
        last.tier,
        [e.rawIdentifier, e.entityId, hint, String(last.score)],
        bounds ?? undefined,
        SEARCH_BOUNDS_BYTES,
      );
    }
    if (!count) return { items, nextCursor };
    // The walk's total: the base's, less its tombstoned matches, plus the delta's entities that match.
    return { items, nextCursor, total: search.count(fq, type, bounds) - hiddenMatches + deltaMatches };
  }
}

/**
 * The shortest run of the key's score that walkStart searches by name (a comparison with the key
 * folds its identifier once, then O(log run) string comparisons): a shorter one is walked, as
 * cheap as its few candidates' columns.
 */
const WALK_SEARCH_RUN = 16;

/**
 * Where a walk of candidates sorted by score (highest first, then folded identifier and entityId)
 * starts after the key `after`: when the key is of the infix tier (every candidate is of its tier
 * or a better one, so one of a higher score comes before the key), past those of a higher score
 * and, among those of the key's score, past those whose name is not after the key's (of its tier
 * they come before it, of a better one too: a run of a score sorted by name, so a binary search,
 * O(log n) comparisons, where a walk would weigh each of a long run, as a page deep in the delta's
 * entities of one score); else at the first (a candidate of a worse tier than the key's comes
 * after it whatever its score). `ranks`: the candidates' base name ranks (a list of rescored
 * entities': a key of this base is met by rank, no fold), if any.
 */
function walkStart(
  items: readonly { folded: string; entityId: string }[],
  scores: Float64Array,
  after: ScoreItem | undefined,
  compare: (x: ScoreItem, y: ScoreItem) => number,
  ranks?: Int32Array,
): number {
  if (after === undefined || after.tier !== TIER_INFIX) return 0;
  let lo = 0;
  let hi = scores.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (scores[mid]! > after.score) lo = mid + 1;
    else hi = mid;
  }
  // The run of the key's score: [lo, end).
  let end = lo;
  hi = scores.length;
  while (end < hi) {
    const mid = (end + hi) >>> 1;
    if (scores[mid]! >= after.score) end = mid + 1;
    else hi = mid;
  }
  // Each branch: a short run walked (its candidates weighed as they come: most often none reaches
  // the comparison with the key, whose identifier is then not folded); else searched.
  if (end - lo < WALK_SEARCH_RUN) return lo;
  while (lo < end) {
    const mid = (lo + end) >>> 1;
    if (compare(probeOf(items[mid]!, after.score, TIER_INFIX, ranks?.[mid] ?? -1), after) <= 0) lo = mid + 1;
    else end = mid;
  }
  return lo;
}

/**
 * A ScoreItem to compare a list's candidate `x` by: its name, at `score` in `tier`; `rank` its base
 * name rank (a rescored entity's, whose name is its base name: compared by it with an item of this
 * base, no fold), else -1.
 */
function probeOf(x: { folded: string; entityId: string }, score: number, tier: number, rank: number): ScoreItem {
  return {
    tier,
    score,
    folded: x.folded,
    entity: { entityId: x.entityId, rawIdentifier: "", type: "0", sourceType: "" },
    d: -1,
    rank,
    srank: -1,
  };
}

/** The first index of ascending `keys` whose key is at least `key`. */
function keysFrom(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Puts `item` into `list` (ascending in `compare`), after its equals; the common case, at the end, costs one comparison. */
function insertSorted<T>(list: T[], item: T, compare: (x: T, y: T) => number): void {
  let lo = 0;
  let hi = list.length;
  if (hi === 0 || compare(list[hi - 1]!, item) <= 0) {
    list.push(item);
    return;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(list[mid]!, item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}

/**
 * Whether a candidate of a list sorted by (score descending, folded identifier, entityId), of
 * this score, comes after `last` in that order (its tier taken as `last`'s): then so does every
 * candidate after it in the list, unless of a better tier. `rank`: its base name rank (a rescored
 * candidate's: compared by it with an item of this base), else -1.
 */
function pastLast(
  x: { folded: string; entityId: string },
  score: number,
  last: ScoreItem,
  compare: (x: ScoreItem, y: ScoreItem) => number,
  rank = -1,
): boolean {
  if (score !== last.score) return score < last.score;
  return compare(probeOf(x, score, last.tier, rank), last) > 0;
}

/** tierOf for a `folded` known to contain `fq`. */
function matchTier(folded: string, fq: string): number {
  return folded.length === fq.length ? TIER_EXACT : folded.startsWith(fq) ? TIER_PREFIX : TIER_INFIX;
}

/** A cursor's score part: decimal digits of a score (sealed by this service: damage is a bug). */
function parseScore(text: string): number {
  const score = Number(text);
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text) || score > MAX_SCORE) throw unknownCursorShape();
  return score;
}

/** Whether `x` (a gram index's candidate, checked already unless `check`) matches the folded query and the type. */
function matches(x: { folded: string; type: EntityType }, check: boolean, fq: string, type: EntityType | undefined) {
  return (type === undefined || x.type === type) && (!check || x.folded.includes(fq));
}

/**
 * Whether some item of `index` holds `fq` with type `type` (any: undefined): its short substrings'
 * count when they tell it (a short query), else its candidates (GramIndex.candidates),
 * stopping at the first match.
 */
function anyMatch<T extends { folded: string; type: EntityType }>(
  index: GramIndex<T>,
  fq: string,
  type: EntityType | undefined,
): boolean {
  const short = index.short?.count(fq, type === undefined ? -1 : typeCodeOf({ type })) ?? -1;
  if (short >= 0) return short > 0;
  const candidates = index.candidates(fq);
  for (const x of candidates.items) if (matches(x, candidates.check, fq, type)) return true;
  return false;
}

/**
 * How many items of `index` hold `fq` with type `type`: as GramIndex.countHolding tells it (its
 * short substrings' slot, or its rarest gram's posting: its size for a query of one gram and no
 * type, or its count text), else one check a candidate (see `matches`).
 */
function countMatches<T extends { folded: string; type: EntityType }>(
  index: GramIndex<T>,
  fq: string,
  type: EntityType | undefined,
): number {
  const told = index.countHolding(fq, type === undefined ? -1 : typeCodeOf({ type }), typeCodeOf);
  if (told >= 0) return told;
  const { items, check } = index.candidates(fq);
  let n = 0;
  for (const x of items) if (matches(x, check, fq, type)) n++;
  return n;
}

/**
 * The base's score rank of each dense id: the inverse of the score index's rank to dense id, two
 * sequential reads an entity (about 20 ms at 1M entities), for ScoreSearch.warm.
 */
export function scoreRanksOf(parts: GraphParts): Uint32Array {
  const search = parts.searchIndex;
  const index = parts.scoreIndex;
  const ranks = new Uint32Array(index.entityCount);
  for (let rank = 0; rank < ranks.length; rank++) ranks[search.idAt(rank)] = index.srankOfRank.get(rank);
  return ranks;
}

/**
 * Score index
 * ===========
 * Owns search in order "score" (CONTRACT.md "GET /graph/v1/search", order=score): the matches of a
 * query by tier, then score highest first, then folded identifier, then entityId, a page at a time
 * from any resume point, at a cost that does not grow with the number of matches or the page.
 *
 * Entities get a score rank ("srank"): their position in (score descending, name rank ascending)
 * order, name rank being the search index's (folded identifier, entityId) rank. Inside a tier the
 * contract's order is srank order. Structures:
 *  - `rankOfSrank`, `srankOfRank`: the two directions between the orders (IntVectors, R bits each);
 *  - `names`: a document array (document-array.ts) with one position per name rank and the value
 *    type * 2^R + srank. The exact and prefix tiers are name-rank ranges [a, e) and [e, b), so the
 *    next k of a tier by score, of a type or of all, is a listing of the k smallest sranks >= the
 *    resume point among positions [a, e): the document array's walk (range successors, level by
 *    level), not a scan;
 *  - `infix`: the search index's document array with each value's name rank replaced by its srank:
 *    the infix tier's entities in srank order from any resume point. The prefix tier's entities
 *    (name ranks in [a, b)) have suffixes in the interval too and are skipped as they come; when
 *    they would be most of what is read (the infix tier small beside the prefix tier: its size is
 *    known exactly from the document counts), the infix tier is listed whole by name instead
 *    (the search index's listing, two rank segments) and sorted by srank: a hybrid that reads at
 *    most min(k * (infix + prefix) / infix, infix) entities.
 *
 * Resuming after a key: (tier, score, folded identifier, entityId), from a cursor of other content
 * or from a merge layer over a live delta, is placed as the srank after it: the entities of higher
 * score, then those of equal score whose name rank is below the key's (binary searches over sranks).
 * A cursor of this content carries its srank and skips that.
 *
 * Cost of a page of k: the search index's bounds (|q| LF steps, or none when kept), then per tier a
 * listing of k (document-array.ts: about (levels) x (k + types) rank operations in as many rounds).
 * Space: 2 N R bits for the two directions, a document array over N positions, and one over the
 * text's n positions (about (3 + R - P) * 1.125 + P bits each). Measured at 1M generated entities
 * (15.5M code units of identifiers; graph.stats().bytes): scoreRanks 0.32, scoreNames 0.20 and
 * scoreInfix 3.25 B per code unit. The infix array is the bulk, over the 1.5 B budget for
 * scores, order=score and totals together: an exact structure of less space is open (sampling the
 * array for the best-scored entities, the rest listed by name, bounds only the first pages).
 * Build: 17 s at 1M entities on a loaded 2-core machine (`npm run bench:stream`, score-index phase).
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { IntVector } from "../succinct/int-vector.js";
import { ANY_TYPE, DocumentArray } from "./document-array.js";
import type { Scores } from "./scores.js";
import { type SearchBounds, type SearchIndex, TIER_EXACT, TIER_INFIX, TIER_PREFIX } from "./search-index.js";

/** Where a page in order "score" resumes. */
export type ScoreResume =
  | null
  /** An srank of this graph (a cursor of this content), with the query's bounds when kept. */
  | { tier: number; srank: number; bounds: SearchBounds | undefined }
  /**
   * A key: the last item's tier, score, folded identifier, and where its entityId sits among this
   * graph's (the first dense id >= it, and whether it is there exactly).
   */
  | { tier: number; score: number; folded: string; entityAt: number; entityExact: boolean };

/** Sranks and tiers of a page's items (plus the look-ahead), and the query's bounds. */
export interface ScoreHits {
  sranks: number[];
  tiers: number[];
  bounds: SearchBounds | null;
}

/** What the index takes from the search index (ScoreIndex.ranksOf), by name rank. */
export interface ScoreRanks {
  /** The dense id at each name rank. */
  idOfRank: Uint32Array;
  typeOfRank: Uint8Array;
  /** The search index's document array, decoded: type * 2^R + name rank at each text position. */
  documentValues: Uint32Array;
}

/** Sranks listed at least per round of the filtered infix listing (prefix-tier entities skipped). */
const INFIX_BATCH_MIN = 32;
/**
 * Ranks per listing call when a whole tier is listed: a document array's walk keeps a frontier of
 * about k nodes and sorts it by insertion, so one call for thousands costs their square.
 */
const LIST_CHUNK = 128;

/** Every rank in [lo, hi) of `documents`' positions [l, r) (type -1: any), appended in order, LIST_CHUNK at a time. */
function listAll(documents: DocumentArray, l: number, r: number, lo: number, hi: number, type: number, out: number[]) {
  while (lo < hi) {
    const before = out.length;
    const got = documents.list(l, r, lo, hi, type, LIST_CHUNK, out);
    if (got < LIST_CHUNK) return;
    lo = out[before + got - 1]! + 1;
  }
}

export class ScoreIndex {
  readonly rankOfSrank: IntVector;
  readonly srankOfRank: IntVector;
  readonly names: DocumentArray;
  readonly infix: DocumentArray;
  /** Scratch of one listing (search is synchronous). */
  private readonly batch: number[] = [];

  private constructor(rankOfSrank: IntVector, srankOfRank: IntVector, names: DocumentArray, infix: DocumentArray) {
    this.rankOfSrank = rankOfSrank;
    this.srankOfRank = srankOfRank;
    this.names = names;
    this.infix = infix;
  }

  get entityCount(): number {
    return this.rankOfSrank.length;
  }

  /** The index of `search`'s entities with these scores (by dense id). */
  static build(search: SearchIndex, scores: Scores): ScoreIndex {
    return ScoreIndex.fromRanks(ScoreIndex.ranksOf(search), scores);
  }

  /**
   * What the index takes from the search index, whatever the scores: the part of the build that can
   * run before the scores are known (the loader does it in the search index's thread while the
   * statements are read, load/search-index-thread.ts). Cost: one decoding of the document array,
   * unless the values the search index was built from (SearchIndex.buildWithValues) are given.
   */
  static ranksOf(search: SearchIndex, documentValues?: Uint32Array): ScoreRanks {
    const N = search.entityCount;
    const idOfRank = new Uint32Array(N);
    for (let r = 0; r < N; r++) idOfRank[r] = search.idAt(r);
    // Types by rank, from the type groups.
    const typeOfRank = new Uint8Array(N);
    for (let t = 0; t + 1 < search.typeStarts.length; t++) {
      for (let i = search.typeStarts[t]!; i < search.typeStarts[t + 1]!; i++) typeOfRank[search.typeRanks.get(i)] = t;
    }
    return { idOfRank, typeOfRank, documentValues: documentValues ?? search.documents.values() };
  }

  /** The index from the search index's ranks (ranksOf) and the scores; `ranks.documentValues` is overwritten. */
  static fromRanks(ranks: ScoreRanks, scores: Scores): ScoreIndex {
    const { idOfRank, typeOfRank } = ranks;
    const N = idOfRank.length;
    const scoreOfRank = new Float64Array(N);
    for (let r = 0; r < N; r++) scoreOfRank[r] = scores.at(idOfRank[r]!);
    const order = Array.from({ length: N }, (_, r) => r).sort((x, y) => scoreOfRank[y]! - scoreOfRank[x]! || x - y);
    const R = DocumentArray.rankBitsFor(N);
    const rankOfSrank = IntVector.from(order, IntVector.widthFor(Math.max(0, N - 1)));
    const srankOf = new Uint32Array(N);
    for (let s = 0; s < N; s++) srankOf[order[s]!] = s;
    const srankOfRank = IntVector.from(srankOf, IntVector.widthFor(Math.max(0, N - 1)));
    const nameValues = new Uint32Array(N);
    for (let r = 0; r < N; r++) nameValues[r] = ((typeOfRank[r]! << R) | srankOf[r]!) >>> 0;
    const names = DocumentArray.fromValues(nameValues, R);
    // The search index's document array, name ranks replaced by sranks.
    const values = ranks.documentValues;
    const mask = (1 << R) - 1;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const rank = v & mask;
      values[i] = (((v >>> R) << R) | (rank < N ? srankOf[rank]! : 0)) >>> 0;
    }
    const infix = DocumentArray.fromValues(values, R);
    return new ScoreIndex(rankOfSrank, srankOfRank, names, infix);
  }

  /** The name rank of the entity at `srank`. */
  rankAt(srank: number): number {
    return this.rankOfSrank.get(srank);
  }

  /**
   * Up to `count` matches of the folded query `pattern` (type -1: any) strictly after `after` in
   * order "score" (null: from the start), as sranks and tiers.
   */
  find(
    search: SearchIndex,
    scores: Scores,
    pattern: string,
    type: number,
    after: ScoreResume,
    count: number,
  ): ScoreHits {
    const hits: ScoreHits = { sranks: [], tiers: [], bounds: null };
    const kept = after !== null && "srank" in after ? after.bounds : undefined;
    const bounds = kept !== undefined && search.fits(kept) ? kept : search.bounds(pattern);
    if (bounds === null || count <= 0) return hits;
    hits.bounds = bounds;
    const { a, b, e } = bounds;
    const N = this.entityCount;
    // The first srank to list in the resume point's tier (an absent one: every tier from its start).
    const from = after === null ? 0 : "srank" in after ? after.srank + 1 : this.srankAfter(search, scores, after);
    const fromTier = after === null ? TIER_EXACT : after.tier;
    const docType = type < 0 ? ANY_TYPE : type;
    if (fromTier <= TIER_EXACT)
      this.listTier(a, e, fromTier === TIER_EXACT ? from : 0, docType, TIER_EXACT, count, hits);
    if (fromTier <= TIER_PREFIX && hits.sranks.length < count)
      this.listTier(e, b, fromTier === TIER_PREFIX ? from : 0, docType, TIER_PREFIX, count, hits);
    // An empty pattern's matches are all in tiers 0 and 1 ([a, b) is every rank).
    if (hits.sranks.length < count && pattern.length > 0 && !(a === 0 && b === N))
      this.listInfix(search, pattern, bounds, fromTier === TIER_INFIX ? from : 0, type, count, hits);
    return hits;
  }

  /** Tier 0 or 1: the sranks >= lo of positions [x, y) (name ranks), by srank. */
  private listTier(x: number, y: number, lo: number, type: number, tier: number, count: number, hits: ScoreHits) {
    if (x >= y) return;
    const before = hits.sranks.length;
    this.names.list(x, y, lo, this.entityCount, type, count - before, hits.sranks);
    for (let i = before; i < hits.sranks.length; i++) hits.tiers.push(tier);
  }

  /** Tier 2: entities with a suffix in [l, r) whose name rank is outside [a, b), sranks >= lo, by srank. */
  private listInfix(
    search: SearchIndex,
    pattern: string,
    bounds: SearchBounds,
    lo: number,
    type: number,
    count: number,
    hits: ScoreHits,
  ) {
    const { l, r, a, b } = bounds;
    const N = this.entityCount;
    const need = count - hits.sranks.length;
    const docType = type < 0 ? ANY_TYPE : type;
    const prefix = search.countRanks(a, b, type);
    const before = hits.sranks.length;
    if (prefix === 0) {
      // No prefix-tier entity to skip: the listing is the tier.
      this.infix.list(l, r, lo, N, docType, need, hits.sranks);
    } else {
      const infix = search.count(pattern, type, bounds) - prefix;
      if (infix <= 0) return;
      // Each branch: skipping the prefix tier's entities reads about need * (infix + prefix) / infix
      // of them; listing the infix tier whole by name reads `infix`. The cheaper one.
      if (need * (infix + prefix) <= infix * infix) this.listInfixSkipping(l, r, a, b, lo, docType, need, hits.sranks);
      else this.listInfixWhole(search, bounds, lo, type, need, hits.sranks);
    }
    for (let i = before; i < hits.sranks.length; i++) hits.tiers.push(TIER_INFIX);
  }

  /** The infix listing in srank order, prefix-tier entities (name ranks in [a, b)) dropped, until `need`. */
  private listInfixSkipping(
    l: number,
    r: number,
    a: number,
    b: number,
    lo: number,
    type: number,
    need: number,
    out: number[],
  ): void {
    const N = this.entityCount;
    const batch = this.batch;
    let found = 0;
    while (found < need && lo < N) {
      batch.length = 0;
      const want = Math.max(INFIX_BATCH_MIN, 2 * (need - found));
      const got = this.infix.list(l, r, lo, N, type, want, batch);
      for (let i = 0; i < got && found < need; i++) {
        const srank = batch[i]!;
        const rank = this.rankOfSrank.get(srank);
        if (rank >= a && rank < b) continue;
        out.push(srank);
        found++;
      }
      if (got < want) return;
      lo = batch[got - 1]! + 1;
    }
  }

  /** The infix tier listed whole by name (both rank segments), then sorted by srank: for a small tier. */
  private listInfixWhole(
    search: SearchIndex,
    bounds: SearchBounds,
    lo: number,
    type: number,
    need: number,
    out: number[],
  ) {
    const { l, r, a, b } = bounds;
    const docType = type < 0 ? ANY_TYPE : type;
    const ranks: number[] = [];
    listAll(search.documents, l, r, 0, a, docType, ranks);
    listAll(search.documents, l, r, b, this.entityCount, docType, ranks);
    const sranks: number[] = [];
    for (const rank of ranks) {
      const s = this.srankOfRank.get(rank);
      if (s >= lo) sranks.push(s);
    }
    sranks.sort((x, y) => x - y);
    for (let i = 0; i < sranks.length && i < need; i++) out.push(sranks[i]!);
  }

  /**
   * The first srank after a key (tier aside): entities of higher score, then those of the key's
   * score whose name rank is below the first rank after the key's (folded identifier, entityId).
   * The entry point of a merge layer that resumes the base after a key of its own.
   */
  srankAfter(
    search: SearchIndex,
    scores: Scores,
    key: { tier: number; score: number; folded: string; entityAt: number; entityExact: boolean },
  ): number {
    const x = search.rankAfter({
      tier: key.tier,
      folded: key.folded,
      entityAt: key.entityAt,
      entityExact: key.entityExact,
    });
    const scoreAt = (srank: number): number => scores.at(search.idAt(this.rankOfSrank.get(srank)));
    const N = this.entityCount;
    // The sranks of the key's score: [lo, hi) (scores descend along sranks).
    let lo = 0;
    let hi = N;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (scoreAt(mid) > key.score) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    hi = N;
    while (end < hi) {
      const mid = (end + hi) >>> 1;
      if (scoreAt(mid) >= key.score) end = mid + 1;
      else hi = mid;
    }
    // Inside the group, name ranks ascend: the first at or after x.
    hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rankOfSrank.get(mid) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get byteLength(): number {
    return this.rankOfSrank.byteLength + this.srankOfRank.byteLength + this.names.byteLength + this.infix.byteLength;
  }

  /** Bytes per part, for memory reports. */
  get bytesByPart(): Record<string, number> {
    return {
      scoreRanks: this.rankOfSrank.byteLength + this.srankOfRank.byteLength,
      scoreNames: this.names.byteLength,
      scoreInfix: this.infix.byteLength,
    };
  }

  serialize(w: SerialWriter): void {
    this.rankOfSrank.serialize(w.child("rankOfSrank"));
    this.srankOfRank.serialize(w.child("srankOfRank"));
    this.names.serialize(w.child("names"));
    this.infix.serialize(w.child("infix"));
  }

  /**
   * Restores the index of `entityCount` entities over a text of `positions` positions: every part
   * as long as the counts say, and with `verify` both directions below the count and inverse of
   * each other (one pass), so no listing reads past an entity.
   */
  static deserialize(r: SerialReader, entityCount: number, positions: number): ScoreIndex {
    const rankOfSrank = IntVector.deserialize(r.child("rankOfSrank"));
    const srankOfRank = IntVector.deserialize(r.child("srankOfRank"));
    const names = DocumentArray.deserialize(r.child("names"));
    const infix = DocumentArray.deserialize(r.child("infix"));
    if (rankOfSrank.length !== entityCount || srankOfRank.length !== entityCount)
      r.corrupt("the score ranks are not one per entity");
    if (names.top.length !== entityCount) r.corrupt("the score names array is not one per entity");
    if (infix.top.length !== positions) r.corrupt("the score infix array is not one per text position");
    const R = DocumentArray.rankBitsFor(entityCount);
    if (names.rankBits !== R || infix.rankBits !== R) r.corrupt("the score arrays' rank widths are not this graph's");
    if (r.verify) {
      for (let s = 0; s < entityCount; s++) {
        const rank = rankOfSrank.get(s);
        if (rank >= entityCount || srankOfRank.get(rank) !== s) r.corrupt(`score rank ${s} names no entity`);
      }
    }
    return new ScoreIndex(rankOfSrank, srankOfRank, names, infix);
  }
}

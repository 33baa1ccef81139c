/**
 * Search index
 * ============
 * Substring search over folded raw identifiers, listing each matching entity once, in the contract's
 * order (tier, folded identifier, entityId), from any resume point, at a cost that does not grow with
 * the number of matches or the page number.
 *
 * Entities are ranked by (folded identifier, entityId): rank order is the contract's order inside a
 * tier. Structures (each in its own file):
 *  - fm-index.ts: the suffixes of the folded identifiers that start with the folded query, as one
 *    interval [l, r) (the infix tier's candidates), and with one more step the identifiers that start
 *    with it (the prefix tier, a rank range [a, b)), found by backward search without the text;
 *  - `lengths`: each rank's folded length, so the exact tier [a, e), the head of [a, b) whose
 *    identifiers have the query's length, is a binary search;
 *  - document-array.ts: the ranks of the entities in [l, r), listed in order from a resume point;
 *  - `typeRanks`: ranks grouped by type, ascending, so a type filter walks only its own ranks in the
 *    exact and prefix tiers (and counts them by two binary searches). Every TYPE_SAMPLE-th of them
 *    is also kept in a plain array (`typeSample`, derived when the index is made or opened, 1/8 of
 *    a bit an entity at 32-bit samples): a binary search first searches the samples, an array small
 *    enough to stay in the cache, then TYPE_SAMPLE entries of typeRanks (a cache line or two),
 *    where a search of typeRanks alone took a dependent miss a probe once it outgrew the cache
 *    (30 MB at 10M entities);
 *  - document-counts.ts: how many distinct entities (of a type) have a suffix in [l, r), the total
 *    of a query in every tier at once.
 * Tier 2 is every entity of [l, r) whose rank lies outside [a, b): two rank segments, [x, a) and
 * [max(x, b), N), listed by one walk of the document array with [a, b) as its gap. An empty folded
 * query (combining marks alone, under accent folding) is in every identifier: [a, b) is then every
 * rank, the empty identifiers tier 0 and no tier 2.
 *
 * Resuming after a key: a key (tier, folded identifier, entityId) from a cursor is placed by the
 * FM-index's lower bound (identifiers below it, then the group equal to it, then the entityId by
 * binary search in that group), which also works on a rebuilt graph where the key's entity is gone;
 * a cursor issued by this same graph carries the key's rank and skips all that, and one issued by
 * this same graph object and still in its cache brings back the query's bounds (below), so the next
 * page skips the backward search too.
 *
 * Cost of a page of k: O(|q|) LF steps for the intervals, a binary search for the exact tier, then
 * about (k + types) x (levels above a bucket) rank operations in as many rounds (document-array.ts).
 */

import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";
import { ANY_TYPE, DocumentArray, TYPE_COUNT } from "./document-array.js";
import { DocumentCounts } from "./document-counts.js";
import { type FMBuild, type FMBuildSteps, FMIndex, SEPARATOR, type SuffixInterval } from "./fm-index.js";
import { IntVector } from "../succinct/int-vector.js";
import type { RankSink } from "./rank-list.js";

export { TYPE_COUNT };

/** Match tiers, in the contract's order. */
export const TIER_EXACT = 0;
export const TIER_PREFIX = 1;
export const TIER_INFIX = 2;

/** Entries of typeRanks per sample in `typeSample` (see the banner). */
export const TYPE_SAMPLE = 32;

/** Steps of the build its progress counts: rank order, FM-index, counts, document array, type groups. */
const BUILD_STEPS = 5;

/** What the build's first steps made (buildFront), for its last ones. */
interface BuildFront {
  fm: FMIndex;
  /** The FM-index's text, suffix array and starts, until the counts are made from them. */
  built: FMBuild | undefined;
  rankToId: IntVector;
  /** Bits of a rank in rankToId and typeRanks. */
  rankBits: number;
  lengths: Uint16Array | Uint32Array;
  typeOfRank: Uint8Array;
  documentValues: Uint32Array;
}

/** SA positions before the `$id` suffixes: `#` and `$#`. */
const SEPARATOR_BLOCK_OFFSET = 2;

/**
 * Where a query's matches lie: the suffix interval [l, r), the prefix tier's ranks [a, b) and the
 * exact tier's end e (a <= e <= b). `find` computes them by backward search, |q| + 1 LF steps of
 * two rank operations each, every one a likely cache miss; the graph keeps them with the cursor it
 * issues (cursor.ts: the issued cursor's cache entry), so a next page asked of the same graph skips
 * that search.
 */
export interface SearchBounds {
  readonly l: number;
  readonly r: number;
  readonly a: number;
  readonly b: number;
  readonly e: number;
}

/** Where a page resumes. */
export type SearchResume =
  | null
  /** A rank of this graph: the last item's, from a cursor this graph issued, with the query's bounds when they were kept. */
  | { tier: number; rank: number; bounds: SearchBounds | undefined }
  /**
   * A key: the last item's folded identifier, and where its entityId sits among this graph's
   * (the first dense id >= it, and whether it is there exactly).
   */
  | { tier: number; folded: string; entityAt: number; entityExact: boolean };

/**
 * Ranks and tiers of the items of a page (plus the look-ahead item): in plain arrays, or in the
 * caller's reused lists (rank-list.ts).
 */
export interface SearchHits<L extends RankSink = number[]> {
  ranks: L;
  tiers: L;
  /** The query's bounds (null when nothing matches it), for the cursor of the next page. */
  bounds: SearchBounds | null;
}

export class SearchIndex {
  readonly fm: FMIndex;
  readonly documents: DocumentArray;
  /** Distinct entities of an interval, per type (document-counts.ts): the totals. */
  readonly counts: DocumentCounts;
  /** Rank -> dense id. */
  readonly rankToId: IntVector;
  /** Folded length per rank. */
  readonly lengths: Uint16Array | Uint32Array;
  /** Ranks grouped by type, ascending in each group. */
  readonly typeRanks: IntVector;
  /** typeStarts[t] = first index of type t in typeRanks (TYPE_COUNT + 1 entries). */
  readonly typeStarts: Uint32Array;
  /** typeSample[j] = typeRanks.get(j * TYPE_SAMPLE). */
  private readonly typeSample: Uint32Array;
  private readonly interval: SuffixInterval = { sp: 0, ep: 0 };
  private readonly prefix: SuffixInterval = { sp: 0, ep: 0 };

  private constructor(
    fm: FMIndex,
    documents: DocumentArray,
    counts: DocumentCounts,
    rankToId: IntVector,
    lengths: Uint16Array | Uint32Array,
    typeRanks: IntVector,
    typeStarts: Uint32Array,
  ) {
    this.fm = fm;
    this.documents = documents;
    this.counts = counts;
    this.rankToId = rankToId;
    this.lengths = lengths;
    this.typeRanks = typeRanks;
    this.typeStarts = typeStarts;
    this.typeSample = new Uint32Array(Math.ceil(typeRanks.length / TYPE_SAMPLE));
    for (let j = 0; j < this.typeSample.length; j++) this.typeSample[j] = typeRanks.get(j * TYPE_SAMPLE);
  }

  get entityCount(): number {
    return this.rankToId.length;
  }

  /**
   * Builds the index. `folded[d]` and `types[d]` belong to dense id d (dense ids follow entityId
   * order, which breaks ties between equal folded identifiers).
   */
  static build(
    folded: readonly string[],
    types: Uint8Array,
    onProgress?: (done: number, total: number) => void,
  ): SearchIndex {
    return SearchIndex.buildWithValues(folded, types, onProgress).index;
  }

  /**
   * `build`, also returning the document array's values (DocumentArray.valuesOf) that the build
   * makes anyway: what the score index is built from (ScoreIndex.ranksOf), without decoding them again.
   * `steps`: called between the FM-index's steps (FMBuildSteps), once this build's hold on the
   * identifiers' strings is let go: at `textMade` the strings are garbage (when the caller let its
   * own list go at step 1); at `suffixArrayMade` the build is at its least from there to its end,
   * where a caller may wait (load/search-index-thread.ts).
   */
  static buildWithValues(
    folded: readonly string[],
    types: Uint8Array,
    onProgress?: (done: number, total: number) => void,
    steps: FMBuildSteps = {},
  ): { index: SearchIndex; documentValues: Uint32Array } {
    const front = SearchIndex.buildFront(folded, types, onProgress, steps);
    // The counts before the document array: the suffix array and the text (about six bytes a code
    // unit) are read for the last time there, and go before the document array's build makes its
    // working arrays (three words a code unit), so the two are never held at once.
    const counts = SearchIndex.buildCounts(front);
    onProgress?.(3, BUILD_STEPS);
    const documents = DocumentArray.fromValues(
      front.documentValues,
      DocumentArray.rankBitsFor(front.typeOfRank.length),
    );
    onProgress?.(4, BUILD_STEPS);
    return SearchIndex.buildBack(front, documents, counts, onProgress);
  }

  /**
   * The build's first steps: the rank order (folded identifier, dense id), the FM-index of the
   * identifiers in it, and the document array's values.
   */
  private static buildFront(
    folded: readonly string[],
    types: Uint8Array,
    onProgress: ((done: number, total: number) => void) | undefined,
    steps: FMBuildSteps,
  ): BuildFront {
    const n = folded.length;
    const byRank = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      const a = folded[x]!;
      const b = folded[y]!;
      return a < b ? -1 : a > b ? 1 : x - y;
    });
    const rankBits = IntVector.widthFor(n - 1);
    const rankToId = IntVector.from(byRank, rankBits);
    let longest = 0;
    for (const s of folded) if (s.length > longest) longest = s.length;
    const lengths = longest < 0x10000 ? new Uint16Array(n) : new Uint32Array(n);
    const typeOfRank = new Uint8Array(n);
    const inRankOrder = byRank.map((d, r) => {
      lengths[r] = folded[d]!.length;
      typeOfRank[r] = types[d]!;
      return folded[d]!;
    });
    // The rank order is in rankToId and inRankOrder now: its array (a word an entity) goes.
    byRank.length = 0;
    onProgress?.(1, BUILD_STEPS);
    const built = FMIndex.build(inRankOrder, {
      // The names are in the text now: this list's hold on them goes before the suffix array is
      // made (a caller that let its own go at step 1, a compaction's feed, then has them collected
      // before the suffix array's working arrays, or by its own steps.textMade).
      textMade: () => {
        inRankOrder.length = 0;
        steps.textMade?.();
      },
      ...(steps.suffixArrayMade === undefined ? {} : { suffixArrayMade: steps.suffixArrayMade }),
    });
    onProgress?.(2, BUILD_STEPS);
    const documentValues = DocumentArray.valuesOf(built.suffixArray, built.starts, typeOfRank);
    return { fm: built.index, built, rankToId, rankBits, lengths, typeOfRank, documentValues };
  }

  /** The document counts of the front's text; lets the text and the suffix array go (read for the last time). */
  private static buildCounts(front: BuildFront): DocumentCounts {
    const built = front.built!;
    front.built = undefined;
    return DocumentCounts.build(built.text, built.suffixArray, built.starts, front.documentValues);
  }

  /** The build's last step, the type groups, and the index of all its parts. */
  private static buildBack(
    front: BuildFront,
    documents: DocumentArray,
    counts: DocumentCounts,
    onProgress: ((done: number, total: number) => void) | undefined,
  ): { index: SearchIndex; documentValues: Uint32Array } {
    const { typeOfRank, rankBits } = front;
    const n = typeOfRank.length;
    const typeStarts = new Uint32Array(TYPE_COUNT + 1);
    for (let r = 0; r < n; r++) typeStarts[typeOfRank[r]! + 1]!++;
    for (let t = 1; t <= TYPE_COUNT; t++) typeStarts[t] = typeStarts[t]! + typeStarts[t - 1]!;
    const fill = typeStarts.slice(0, TYPE_COUNT);
    const typeRanks = new IntVector(n, rankBits);
    for (let r = 0; r < n; r++) typeRanks.set(fill[typeOfRank[r]!]!++, r);
    onProgress?.(5, BUILD_STEPS);
    const index = new SearchIndex(front.fm, documents, counts, front.rankToId, front.lengths, typeRanks, typeStarts);
    return { index, documentValues: front.documentValues };
  }

  /** The dense id of the entity at `rank`. */
  idAt(rank: number): number {
    return this.rankToId.get(rank);
  }

  /**
   * Up to `count` matches of the folded query `pattern`, of type `type` (-1: any), strictly after
   * `after` in the contract's order (null: from the start). `idAt` ranks compare by entityId through
   * dense ids, which follow entityId order.
   */
  find(pattern: string, type: number, after: SearchResume, count: number): SearchHits;
  /** find, into `into` (its lists emptied first): a caller that lists page after page allocates nothing. */
  find<L extends RankSink>(
    pattern: string,
    type: number,
    after: SearchResume,
    count: number,
    into: SearchHits<L>,
  ): SearchHits<L>;
  find(
    pattern: string,
    type: number,
    after: SearchResume,
    count: number,
    into?: SearchHits<RankSink>,
  ): SearchHits<RankSink> {
    const hits: SearchHits<RankSink> = into ?? { ranks: [], tiers: [], bounds: null };
    hits.ranks.length = 0;
    hits.tiers.length = 0;
    hits.bounds = null;
    // The bounds kept with the cursor when this graph issued it and still has them, else searched.
    const kept = after !== null && "rank" in after ? after.bounds : undefined;
    const bounds = kept !== undefined && this.fits(kept) ? kept : this.bounds(pattern);
    if (bounds === null || count <= 0) return hits;
    hits.bounds = bounds;
    const { l, r, a, b, e } = bounds;
    // The first rank after the key (an absent key: every tier from its beginning).
    const x = after === null ? 0 : this.rankAfter(after);
    const fromTier = after === null ? TIER_EXACT : after.tier;
    if (fromTier <= TIER_EXACT) this.listRanks(a, e, fromTier === TIER_EXACT ? x : a, type, TIER_EXACT, count, hits);
    if (fromTier <= TIER_PREFIX) this.listRanks(e, b, fromTier === TIER_PREFIX ? x : e, type, TIER_PREFIX, count, hits);
    const from = fromTier === TIER_INFIX ? x : 0;
    const docType = type < 0 ? ANY_TYPE : type;
    // Tier 2 ranks lie in two segments: below the prefix range [a, b), and above it. Each branch:
    // from below a, both segments in one walk with [a, b) as its gap; else the one above.
    if (hits.ranks.length < count) {
      if (from < a) this.listInfix(l, r, from, this.entityCount, a, b, docType, count, hits);
      else this.listInfix(l, r, Math.max(from, b), this.entityCount, 0, 0, docType, count, hits);
    }
    return hits;
  }

  /**
   * How many entities of type `type` (-1: any) match the folded query `pattern`: the exact total
   * of a walk, in every tier. Cost: the backward search (or `kept` bounds of this query), then the
   * document counts (document-counts.ts), whatever the number of matches.
   */
  count(pattern: string, type: number, kept?: SearchBounds | null): number {
    const bounds = kept !== undefined && kept !== null && this.fits(kept) ? kept : this.bounds(pattern);
    if (bounds === null) return 0;
    // Each branch: an empty pattern matches every entity (of the type); else every match has a
    // suffix in [l, r).
    if (pattern.length === 0) return type < 0 ? this.entityCount : this.typeStarts[type + 1]! - this.typeStarts[type]!;
    return this.counts.count(this.documents, bounds.l, bounds.r, type);
  }

  /** Entities of type `type` (-1: any) whose ranks lie in [lo, hi): the count of a prefix or exact tier. */
  countRanks(lo: number, hi: number, type: number): number {
    if (type < 0) return hi - lo;
    return this.lowerBoundInType(type, hi) - this.lowerBoundInType(type, lo);
  }

  /** The query's bounds by backward search; null when no suffix starts with it. */
  bounds(pattern: string): SearchBounds | null {
    if (pattern.length === 0) {
      // An empty folded query (a query of combining marks alone, under accent folding) is in every
      // identifier: the empty ones are tier 0 (they sort first), every other is tier 1, none tier 2.
      const n = this.entityCount;
      if (n === 0) return null;
      return { l: 0, r: this.fm.length, a: 0, b: n, e: this.exactEnd(0, n, 0) };
    }
    const iv = this.fm.interval(pattern, this.interval);
    const l = iv.sp;
    const r = iv.ep;
    if (l >= r) return null;
    // The identifiers that start with the pattern: one more step, with the separator (a table
    // probe for a short pattern).
    const pre = this.fm.headed(pattern, l, r, this.prefix);
    const a = pre.sp - SEPARATOR_BLOCK_OFFSET;
    const b = pre.ep - SEPARATOR_BLOCK_OFFSET;
    return { l, r, a, b, e: this.exactEnd(a, b, pattern.length) };
  }

  /** Whether kept bounds fit this index (they come from this graph: a check against a broken invariant, not an attack). */
  fits(bounds: SearchBounds): boolean {
    const { l, r, a, b, e } = bounds;
    return 0 <= l && l < r && r <= this.fm.length && 0 <= a && a <= e && e <= b && b <= this.entityCount;
  }

  private listInfix(
    l: number,
    r: number,
    lo: number,
    hi: number,
    gapLo: number,
    gapHi: number,
    type: number,
    count: number,
    hits: SearchHits<RankSink>,
  ): void {
    const before = hits.ranks.length;
    this.documents.list(l, r, lo, hi, type, count - before, hits.ranks, gapLo, gapHi);
    for (let i = before; i < hits.ranks.length; i++) hits.tiers.push(TIER_INFIX);
  }

  /** Tiers 0 and 1: ranks in [lo, hi) from `from` on, of the given type, appended to `hits`. */
  private listRanks(
    lo: number,
    hi: number,
    from: number,
    type: number,
    tier: number,
    count: number,
    hits: SearchHits<RankSink>,
  ): void {
    const start = Math.max(lo, Math.min(from, hi));
    // An empty tier, or one resumed past its end (most queries' exact tier): no search of typeRanks.
    if (start >= hi) return;
    if (type < 0) {
      // No type filter: the tier is a contiguous rank range.
      for (let rank = start; rank < hi && hits.ranks.length < count; rank++) {
        hits.ranks.push(rank);
        hits.tiers.push(tier);
      }
      return;
    }
    // Type filter: walk the type's own sorted ranks, so other types are never skipped over.
    const end = this.typeStarts[type + 1]!;
    for (let i = this.lowerBoundInType(type, start); i < end && hits.ranks.length < count; i++) {
      const rank = this.typeRanks.get(i);
      if (rank >= hi) break;
      hits.ranks.push(rank);
      hits.tiers.push(tier);
    }
  }

  /** The first index of type `type`'s group in typeRanks whose rank is at least `rank` (the group's end when none). */
  lowerBoundInType(type: number, rank: number): number {
    let lo = this.typeStarts[type]!;
    let hi = this.typeStarts[type + 1]!;
    // The samples inside the group, [j0, j1): the first one at or above `rank` bounds the answer
    // from above, the one before it (below `rank`) from below.
    const sample = this.typeSample;
    const j0 = Math.ceil(lo / TYPE_SAMPLE);
    let j = j0;
    let j1 = Math.ceil(hi / TYPE_SAMPLE);
    while (j < j1) {
      const mid = (j + j1) >>> 1;
      if (sample[mid]! < rank) j = mid + 1;
      else j1 = mid;
    }
    // Each branch: a sample below `rank` before j puts the answer after it; a sample at j inside
    // the group puts it at or before j's position.
    if (j > j0) lo = (j - 1) * TYPE_SAMPLE + 1;
    if (j * TYPE_SAMPLE < hi) hi = j * TYPE_SAMPLE;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.typeRanks.get(mid) < rank) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * End of tier 0 within [a, b): identifiers of exactly `length` code units sort first there. By
   * galloping from a (probes a, a + 1, a + 3, a + 7, ...), then a binary search inside the last
   * step: the exact tier is most often empty or a few identifiers at the head of a prefix range of
   * thousands, and each probe of `lengths` is a dependent cache miss, so this takes one or a few
   * instead of log2(b - a).
   */
  private exactEnd(a: number, b: number, length: number): number {
    let lo = a;
    let hi = b;
    // Invariants: ranks in [a, lo) have the length; ranks in [hi, b) do not.
    for (let step = 1; lo < hi; step *= 2) {
      const probe = lo + step - 1;
      if (probe >= hi) break;
      if (this.lengths[probe] !== length) {
        hi = probe;
        break;
      }
      lo = probe + 1;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lengths[mid] === length) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first rank after a resume point. */
  rankAfter(after: NonNullable<SearchResume>): number {
    // A rank of this very graph: the next one.
    if ("rank" in after) return after.rank + 1;
    // Identifiers below the key, then those equal to it ordered by entityId.
    const equal = this.fm.bounds(SEPARATOR, after.folded, SEPARATOR, this.interval);
    let lo = equal.sp - SEPARATOR_BLOCK_OFFSET;
    let hi = equal.ep - SEPARATOR_BLOCK_OFFSET;
    // Inside the group, dense ids ascend; the first one after the key's entityId.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const id = this.rankToId.get(mid);
      const afterKey = after.entityExact ? id > after.entityAt : id >= after.entityAt;
      if (afterKey) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  get byteLength(): number {
    return (
      this.fm.byteLength +
      this.documents.byteLength +
      this.counts.byteLength +
      this.rankToId.byteLength +
      this.lengths.byteLength +
      this.typeRanks.byteLength +
      this.typeStarts.byteLength
    );
  }

  serialize(w: SerialWriter): void {
    this.fm.serialize(w.child("fm"));
    this.documents.serialize(w.child("documents"));
    this.counts.serialize(w.child("counts"));
    this.rankToId.serialize(w.child("rankToId"));
    w.integer("lengthBytes", this.lengths.BYTES_PER_ELEMENT);
    w.array("lengths", this.lengths);
    this.typeRanks.serialize(w.child("typeRanks"));
    w.array("typeStarts", this.typeStarts);
  }

  /**
   * Restores the index of a graph of `entityCount` entities: every part as long as the counts say,
   * the type groups ascending to the count, and with `verify` every rank-to-id and type-rank value
   * below the count (one pass each), so no search can read past an entity.
   */
  static deserialize(r: SerialReader, entityCount: number): SearchIndex {
    const fm = FMIndex.deserialize(r.child("fm"));
    const documents = DocumentArray.deserialize(r.child("documents"));
    const counts = DocumentCounts.deserialize(r.child("counts"), documents.top.length);
    const rankToId = IntVector.deserialize(r.child("rankToId"));
    const lengthBytes = r.integer("lengthBytes");
    const lengths =
      lengthBytes === 2
        ? r.uint16("lengths")
        : lengthBytes === 4
          ? r.uint32("lengths")
          : r.corrupt("lengthBytes is not 2 or 4");
    const typeRanks = IntVector.deserialize(r.child("typeRanks"));
    const typeStarts = r.uint32("typeStarts");
    if (fm.count !== entityCount || documents.top.length !== fm.length)
      r.corrupt("the search index is not of this graph's size");
    checkLength(r, "rankToId", { length: rankToId.length }, entityCount, "one per entity");
    checkLength(r, "lengths", lengths, entityCount, "one per entity");
    checkLength(r, "typeRanks", { length: typeRanks.length }, entityCount, "one per entity");
    checkLength(r, "typeStarts", typeStarts, TYPE_COUNT + 1, "one per type, and the end");
    if (typeStarts[0] !== 0 || typeStarts[TYPE_COUNT] !== entityCount) r.corrupt("typeStarts do not span the entities");
    for (let t = 1; t <= TYPE_COUNT; t++)
      if (typeStarts[t]! < typeStarts[t - 1]!) r.corrupt("typeStarts are not ascending");
    // A scan of each vector's packed words (allBelow); only when one fails is it walked value by
    // value, to name the first bad rank.
    if (r.verify && !(rankToId.allBelow(entityCount) && typeRanks.allBelow(entityCount))) {
      for (let i = 0; i < entityCount; i++) {
        if (rankToId.get(i) >= entityCount || typeRanks.get(i) >= entityCount) r.corrupt(`rank ${i} names no entity`);
      }
    }
    return new SearchIndex(fm, documents, counts, rankToId, lengths, typeRanks, typeStarts);
  }
}

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
 *    level), not a scan; a tier of at most TIER_READ_MAX ranks is read in a row instead (its
 *    sranks over consecutive ranks are a few cache lines; the walk, a dependent miss a level);
 *  - `bands`: for each suffix-array position, 2 bits: the band of the entity the suffix lies in.
 *    Entities in srank order fill band 0 while their suffixes stay within BAND_ENDS[0] of the
 *    text's positions (a tenth), then bands 1 and 2 up to the next shares (two and four tenths),
 *    band 3 the rest. A count of band-0 positions every 256 positions (derived on load) ranks
 *    band 0 in a block's 16 words;
 *  - `infix`: the document array (document-array.ts) of band 0's positions only, in suffix-array
 *    order, valued type * 2^R' + srank (R' the bits of band 0's sranks): positions [l, r) of the
 *    suffix array are positions [rank0(l), rank0(r)) of it, so it lists the infix tier's
 *    best-scored entities in srank order from any resume point, as a full array would. The prefix
 *    tier's entities (name ranks in [a, b)) have suffixes in the interval too and are skipped as
 *    they come; when they would be most of what is read (the infix tier small beside the prefix
 *    tier: its size is known exactly from the document counts), the tier is listed whole by name
 *    instead (the search index's listing, two rank segments) and sorted by srank.
 *
 * Past band 0 (its entities gave fewer than the page, or the resume point is past them), band 1,
 * then 2, then 3, each until the page is full: the band's positions in [l, r) are found in the band
 * words (16 a word, compared at once), their entities read from the search index's document array
 * (an access, level by level over all of them at once so the loads overlap; with a type filter
 * the other types' positions are dropped after the 3 type levels), those outside the prefix tier
 * mapped to sranks, sorted and deduplicated; the bands after it that band 0's density on the page
 * says the page needs are decoded in the same pass (a decode costs its levels' rounds of cache
 * misses more than its positions), kept together. Why bands: a query whose band
 * 0 gave fewer than k entities holds few matches among the best-scored tenth, so the next band of
 * about the same size holds about as few positions in [l, r): at 1M generated entities a decoded
 * band is about a dozen positions on average over the distinct queries, rarely more than 64. A
 * band expected to hold more than BAND_POSITIONS_PER_ENTITY positions per entity of the tier (a
 * dense query past band 0, or an interval mostly the prefix tier's) is not decoded: the rest of the
 * tier is listed by name and sorted, as above; unless the tier is dense (a query walked past its
 * best-scored tenth: deep pages of q="e"), where checking the sranks one by one from the resume
 * point is cheapest: the caller's `matches(rank)` (of the type, the folded query in the folded
 * identifier) for about need * N / infix of them, the tier's size known exactly from the document
 * counts; a scan stops after SCAN_SLACK times that and the choice is made again from where it
 * stopped, with the checks it made and the matches it found counted into the density (a sparse
 * stretch or the tier's tail, where few matches are left, turns to the band or the tier by name
 * instead of checking on to the last entity). A band decoded or a tier listed whole is kept (all
 * its sranks, ascending, in the scratch it was made in) with its query's interval, prefix tier and
 * type: the walk's next pages, which ask for the same band, read it by a binary search, so a deep
 * walk decodes each band at most once. Sranks of equal score are a run along which name ranks
 * ascend (the low scores' tail of a generated or real graph: most entities have few statements),
 * so the rest of a run is also listed by name: the search index's document array lists the tier's
 * name ranks in [l, r) over the run's name ranks and keeps the run's, about need * (the run's name
 * ranks) / (its sranks left) of them, whatever the density of the stretch. Exact on every path:
 * a band's entities are all read, a scan goes in srank order, a run is listed in name order, and
 * what is kept is a query's whole band or tier, keyed by all that decides it.
 *
 * Bound: a page costs a listing of k from band 0, then per band decoded the positions the band has
 * in [l, r): about k / (density of the tier in band 0) for the usual query; past band 0, the
 * cheapest of a decode, a scan of about k * N / infix sranks, a run listed by name, or the tier
 * by name; a walk's page whose band or tier an earlier page kept, a binary search and k copies.
 * The worst is the page of
 * a deep walk that decodes a band or lists the tier (milliseconds at 1M entities for a tier of
 * middling density), once per band. Pages 1 and 2 of the distinct queries stay in microseconds.
 *
 * Resuming after a key: (tier, score, folded identifier, entityId), from a cursor of other content
 * or from a merge layer over a live delta, is placed as the srank after it: the entities of higher
 * score, then those of equal score whose name rank is below the key's. The scores over the sranks
 * are runs, one per distinct score (scoreAt: made once per Scores, O(N), a few hundred numbers that
 * stay in cache), so the key's score group is a binary search of the runs, and its name rank a
 * binary search inside the group. A cursor of this content carries its srank and skips that.
 * A merge layer that knows its page needs nothing below some score (a live graph's look-ahead past
 * its page's last) lists on from an srank with an `end` (srankBelow: the end of a run, from the
 * same runs): that tier alone, band 0's listing bounded by it and no band from it on decoded. Its
 * first listing, its page and a look-ahead past it, is firm for the page alone (find's `firm`): the
 * look-ahead is taken from what is listed without a band decoded for it (ScoreHits.short: stopped
 * there), so a look-ahead costs a band decode only when the merge needs one anyway.
 *
 * Cost of a page of k: the search index's bounds (|q| LF steps, or none when kept), then per tier a
 * listing of k (document-array.ts: about (levels) x (k + types) rank operations in as many rounds),
 * and per band decoded its positions in [l, r) x (3 + R - P) rank operations, overlapped.
 * Space: 2 N R bits for the two directions, a document array over N positions, 2.125 bits per text
 * position for the bands and their counts, and band 0's array over a tenth of the text's positions
 * (about (3 + R' - P') * 1.125 + P' bits each). Measured at 1M generated entities (15.5M code units
 * of identifiers; graph.stats().bytes): scoreRanks 0.32, scoreNames 0.20, scoreInfix 0.56 B per
 * code unit (with scores 0.08 and searchCounts 0.30: 1.46 together, the issue's budget 1.5); the
 * full infix array it replaces was 3.25.
 * Build: 17 s at 1M entities on a loaded 2-core machine (`npm run bench:stream`, score-index phase).
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { IntVector } from "../succinct/int-vector.js";
import { popcount32 } from "../succinct/bit-vector.js";
import { ANY_TYPE, DocumentArray, PLAIN_BITS } from "./document-array.js";
import type { RankSink } from "./rank-list.js";
import type { Scores } from "./scores.js";
import { type SearchBounds, type SearchIndex, TIER_EXACT, TIER_INFIX, TIER_PREFIX } from "./search-index.js";

/**
 * Scores over sranks: run i (one per distinct score, highest first) holds score `scores[i]` and
 * ends before srank `ends[i]`; `blocks[b]` is the run that holds srank b * 2^RUN_BLOCK_SHIFT (the
 * last run past the last block), so the run of an srank lies between its block's and the next
 * block's: most often the same one (the low scores' long runs), else a binary search of the few
 * between (the top scores, a run an entity or so).
 */
interface SrankRuns {
  readonly ends: Uint32Array;
  readonly scores: Float64Array;
  readonly blocks: Uint32Array;
}

/**
 * Sranks a block of SrankRuns.blocks spans, as a shift: 256, so that a block table is 16 KB at 1M
 * entities (it stays in the CPU's caches beside the runs) and a block of the top scores spans at
 * most 256 runs (8 steps of a binary search, the most; ScoreIndex.scoresAt).
 */
const RUN_BLOCK_SHIFT = 8;

/** The runs of `scores` over the sranks of its `n` entities (SrankRuns): each distinct score counted, O(n). */
function srankRuns(scores: Scores, n: number): SrankRuns {
  const distinct = scores.distinct;
  const counts = new Uint32Array(distinct.length);
  for (let d = 0; d < n; d++) counts[scores.indexes.get(d)]!++;
  const kept: number[] = [];
  for (let k = distinct.length - 1; k >= 0; k--) if (counts[k]! > 0) kept.push(k);
  const ends = new Uint32Array(kept.length);
  const values = new Float64Array(kept.length);
  let end = 0;
  kept.forEach((k, i) => {
    end += counts[k]!;
    ends[i] = end;
    values[i] = distinct[k]!;
  });
  const blocks = new Uint32Array((n >>> RUN_BLOCK_SHIFT) + 2);
  let run = 0;
  for (let b = 0; b < blocks.length; b++) {
    const first = b << RUN_BLOCK_SHIFT;
    while (run < ends.length - 1 && ends[run]! <= first) run++;
    blocks[b] = run;
  }
  return { ends, scores: values, blocks };
}

/** Where a page in order "score" resumes. */
export type ScoreResume =
  | null
  /**
   * An srank of this graph (a cursor of this content), with the query's bounds when kept; with
   * `end`, a listing that stops at a score: only this tier, no srank from `end` on (a merge layer
   * that knows its page needs nothing below a score: srankBelow), though a few past it may come
   * (the caller drops them).
   */
  | { tier: number; srank: number; bounds: SearchBounds | undefined; end?: number }
  /**
   * A key: the last item's tier, score, folded identifier, and where its entityId sits among this
   * graph's (the first dense id >= it, and whether it is there exactly).
   */
  | { tier: number; score: number; folded: string; entityAt: number; entityExact: boolean }
  /**
   * A key of this graph's entity at srank `at` whose score a merge layer moved to `score` (raised:
   * placed among the sranks before `at`; lowered: after it), its name rank known (a cursor of this
   * content), with the query's bounds when kept.
   */
  | { tier: number; at: number; score: number; bounds: SearchBounds | undefined };

/** Sranks and tiers of a page's items (plus the look-ahead), and the query's bounds. */
export interface ScoreHits<L extends RankSink = number[]> {
  sranks: L;
  tiers: L;
  bounds: SearchBounds | null;
  /**
   * Whether the listing stopped short of its count at its firm count (find's `firm`), before a
   * band it would have decoded: fewer than the count, and more may follow (list on from the last).
   */
  short?: boolean;
}

/**
 * Where the score bands end, as shares of the text's positions (cumulative): band 0, the kept
 * entities (the infix array's), the best-scored entities while their suffixes stay within the
 * first share; bands 1 and 2 the next ones up to the second and third shares; band 3 the rest.
 * A page past band 0 decodes its band's positions in the interval, so a band's size is the cost of
 * the page that needs it: a tenth of the text beside the kept tenth makes the first band past them
 * about as dense in matches as band 0 was (see the banner). Band 0's share is most of the memory:
 * each tenth of the text costs about 0.28 B per code unit of identifiers.
 */
export const BAND_ENDS: readonly number[] = [1 / 10, 2 / 10, 4 / 10];
/**
 * Rank levels of band 0's array at least. Its buckets are as wide in sranks as the search index's
 * in name ranks (PLAIN_BITS): band 0 holds a tenth of the positions and about a tenth of the
 * entities, so a bucket holds about as many positions as one of the search index's, and a page is
 * found in as few nodes (the document array's default, MIN_RANK_LEVELS, would make them 8 times
 * narrower at 1M entities: about three times the nodes a page expands, and 3 levels more).
 */
const KEPT_RANK_LEVELS = 5;
/** Bits of a position's band: 4 bands. */
const BAND_BITS = 2;
const BAND_COUNT = 1 << BAND_BITS;
/** Positions per sampled count of band-0 positions (a 32-bit count per 256 positions: 1/8 bit each). */
const BAND_SAMPLE_SHIFT = 8;
/** Band fields (2 bits) per 32-bit word. */
const BANDS_PER_WORD = 32 / BAND_BITS;
/** Words per sampled count. */
const WORDS_PER_SAMPLE = (1 << BAND_SAMPLE_SHIFT) / BANDS_PER_WORD;
/** The low bit of every 2-bit field of a word. */
const FIELD_LOW_BITS = 0x55555555;
/**
 * A band is decoded (its positions in the interval, one access each) when it holds at most this
 * many positions per infix-tier entity left to list; else the rest of the tier is listed by name
 * and sorted (one walk step per entity). Both read about as many cache lines per item.
 */
const BAND_POSITIONS_PER_ENTITY = 2;
/**
 * Expected positions of a band in the interval up to which it is decoded without asking the tier's
 * size: decoding this many costs about what the document count does.
 */
const BAND_DECODE_ALWAYS = 256;
/**
 * An interval of at most this many positions counts its band-0 positions on from its start's count
 * (the words of one or two cache lines, mostly loaded already) instead of a second sampled count.
 */
const KEPT_COUNT_ON = 128;
/**
 * Bands after a decoded one are decoded with it while band 0's density on the page says the page
 * needs them: while the entities expected of the bands so far are under this many times the need.
 */
const BAND_MERGE_MARGIN = 2;
/** A rank listed by name over a run of equal scores (a walk step, then its srank read) against a position decoded. */
const RUN_COST = 2;
/** A srank checked by `matches` (an identifier read and searched) against a position decoded. */
const SCAN_COST = 2;
/** A scan stops after this many times the checks its density predicts, and the bands go on. */
const SCAN_SLACK = 4;

/** How a score index is built: the band ends (tests and tuning), and which fallback to force. */
export interface ScoreIndexOptions {
  bandEnds?: readonly number[];
  /**
   * "auto" (default): by cost; "bands", "names", "scan" or "runs": always that one past band 0
   * (tests reach every path; "scan" a few sranks at a time, so it alternates with the bands).
   */
  fallback?: "auto" | "bands" | "names" | "scan" | "runs";
  /** Tiers of at most this many name ranks are read in a row (default TIER_READ_MAX; 0: always walked). */
  tierReadMax?: number;
}

/** What the index takes from the search index (ScoreIndex.ranksOf), by name rank. */
export interface ScoreRanks {
  /** The dense id at each name rank. */
  idOfRank: Uint32Array;
  typeOfRank: Uint8Array;
  /** The search index's document array, decoded: type * 2^R + name rank at each text position. */
  documentValues: Uint32Array;
}

/** The memo's part when it holds the whole infix tier (bands are 0..BAND_COUNT - 1). */
const MEMO_WHOLE = BAND_COUNT;
/**
 * A tier of at most this many name ranks is read in a row (its sranks, a few cache lines, the
 * smallest kept) rather than walked in the names array (a dependent cache miss or more for each of
 * its levels): at 1M entities 256 ranks are 640 bytes of sranks.
 */
const TIER_READ_MAX = 256;
/** Sranks whose ranks a restore reads together before checking them (see deserialize). */
const VERIFY_CHUNK = 4096;
/** Sranks listed at least per round of the filtered infix listing (prefix-tier entities skipped). */
const INFIX_BATCH_MIN = 32;
/**
 * Ranks per listing call when a whole tier is listed: a document array's walk keeps a frontier of
 * about k nodes and sorts it by insertion, so one call for thousands costs their square.
 */
const LIST_CHUNK = 128;

function ascending(x: number, y: number): number {
  return x - y;
}

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
  /** By suffix-array position, the band (0..3) of the entity its suffix lies in. */
  readonly bands: IntVector;
  /** The first srank of each band, then N: band v is sranks [bandStarts[v], bandStarts[v + 1]). */
  readonly bandStarts: Uint32Array;
  /** The document array of band 0's positions, in suffix-array order: values type * 2^R' + srank. */
  readonly infix: DocumentArray;
  /** Band-0 positions before each block of 2^BAND_SAMPLE_SHIFT positions (derived from `bands`). */
  private readonly keptBefore: Uint32Array;
  /** Each band's share of the text's positions (derived), for the fallback's cost. */
  private readonly bandShares: Float64Array;
  private readonly fallback: "auto" | "bands" | "names" | "scan" | "runs";
  private readonly tierReadMax: number;
  /** Scratch of one listing (search is synchronous). */
  private readonly batch: number[] = [];
  private readonly wholeRanks: number[] = [];
  /** The smallest sranks of a short tier read in a row (readTier). */
  private tierTop = new Int32Array(64);
  private readonly wholeSranks: number[] = [];
  private positions = new Int32Array(256);
  private decoded = new Int32Array(256);
  /**
   * The last band decoded or tier listed whole, kept for the pages after it (a walk asks for the
   * same band page after page): its query's interval, prefix tier and type, which part (a band, or
   * WHOLE), and its distinct sranks ascending, all of them (not only those past the page's resume
   * point), in `memoSranks` (the decoding's scratch or the whole listing's, reused).
   */
  private memoL = -1;
  private memoR = -1;
  private memoA = -1;
  private memoB = -1;
  private memoType = -2;
  private memoPart = -1;
  /** The last band the memo holds (bands memoPart..memoLast, decoded together), or MEMO_WHOLE. */
  private memoLast = -1;
  /** The scores over the sranks as runs (scoreAt), for `runsOf`: made on first need. */
  private runs: SrankRuns | undefined;
  private runsOf: Scores | undefined;
  private memoSranks: ArrayLike<number> = [];
  private memoLength = 0;

  private constructor(
    rankOfSrank: IntVector,
    srankOfRank: IntVector,
    names: DocumentArray,
    bands: IntVector,
    bandStarts: Uint32Array,
    infix: DocumentArray,
    fallback: "auto" | "bands" | "names" | "scan" | "runs" = "auto",
    tierReadMax = TIER_READ_MAX,
  ) {
    this.rankOfSrank = rankOfSrank;
    this.srankOfRank = srankOfRank;
    this.names = names;
    this.bands = bands;
    this.bandStarts = bandStarts;
    this.infix = infix;
    this.fallback = fallback;
    this.tierReadMax = tierReadMax;
    // One pass over the band words: the sampled band-0 counts and every band's size.
    const n = bands.length;
    const words = bands.words;
    const wordCount = Math.ceil(n / BANDS_PER_WORD);
    const samples = new Uint32Array((n >>> BAND_SAMPLE_SHIFT) + 1);
    const sizes = new Float64Array(BAND_COUNT);
    for (let w = 0; w < wordCount; w++) {
      if (w % WORDS_PER_SAMPLE === 0) samples[w / WORDS_PER_SAMPLE] = sizes[0]!;
      // The last word's fields past n are left out (they would read as band 0).
      const fields = lowFields(Math.min(BANDS_PER_WORD, n - w * BANDS_PER_WORD));
      for (let v = 0; v < BAND_COUNT; v++) sizes[v]! += popcount32(fieldsEqual(words[w]!, v) & fields);
    }
    if (wordCount % WORDS_PER_SAMPLE === 0 && wordCount / WORDS_PER_SAMPLE < samples.length)
      samples[wordCount / WORDS_PER_SAMPLE] = sizes[0]!;
    this.keptBefore = samples;
    for (let v = 0; v < BAND_COUNT; v++) sizes[v] = n === 0 ? 0 : sizes[v]! / n;
    this.bandShares = sizes;
  }

  get entityCount(): number {
    return this.rankOfSrank.length;
  }

  /** Entities of band 0, sranks [0, keptEntities): the infix array's. */
  get keptEntities(): number {
    return this.bandStarts[1]!;
  }

  /** The index of `search`'s entities with these scores (by dense id). */
  static build(search: SearchIndex, scores: Scores, options: ScoreIndexOptions = {}): ScoreIndex {
    return ScoreIndex.fromRanks(ScoreIndex.ranksOf(search), scores, options);
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
  static fromRanks(ranks: ScoreRanks, scores: Scores, options: ScoreIndexOptions = {}): ScoreIndex {
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
    // Positions per srank (a position past the last text counts for rank 0, as in the search
    // index's array), then the bands: each ends after the last srank whose positions fit its share.
    const values = ranks.documentValues;
    const n = values.length;
    const mask = (1 << R) - 1;
    const positionsOfSrank = new Uint32Array(N);
    if (N > 0) for (let i = 0; i < n; i++) positionsOfSrank[srankOf[values[i]! & mask]!]!++;
    const ends = options.bandEnds ?? BAND_ENDS;
    const bandStarts = new Uint32Array(BAND_COUNT + 1);
    let s = 0;
    let used = 0;
    for (let v = 0; v + 1 < BAND_COUNT; v++) {
      const budget = Math.floor(n * ends[v]!);
      while (s < N && used + positionsOfSrank[s]! <= budget) used += positionsOfSrank[s++]!;
      bandStarts[v + 1] = s;
    }
    bandStarts[BAND_COUNT] = N;
    const keptR = DocumentArray.rankBitsFor(bandStarts[1]!);
    const bands = new IntVector(n, BAND_BITS);
    let m = 0;
    for (let i = 0; i < n; i++) {
      // No entity (the empty graph's text): the last band, which no listing reaches.
      if (N === 0) {
        bands.set(i, BAND_COUNT - 1);
        continue;
      }
      const v = values[i]!;
      const srank = srankOf[v & mask]!;
      let band = 0;
      while (srank >= bandStarts[band + 1]!) band++;
      bands.set(i, band);
      // Band 0's positions go to the kept array, name ranks replaced by sranks.
      if (band === 0) values[m++] = (((v >>> R) << keptR) | srank) >>> 0;
    }
    const infix = DocumentArray.fromValues(
      values.subarray(0, m),
      keptR,
      Math.max(1, Math.min(PLAIN_BITS, keptR - KEPT_RANK_LEVELS)),
    );
    return new ScoreIndex(
      rankOfSrank,
      srankOfRank,
      names,
      bands,
      bandStarts,
      infix,
      options.fallback,
      options.tierReadMax,
    );
  }

  /** The first srank whose score (of `scores`, the index's own) is below `score` (entityCount: none), from the runs. */
  srankBelow(scores: Scores, score: number): number {
    const runs = this.runsFor(scores);
    // The first run of a lower score (they descend), then where it starts.
    let lo = 0;
    let hi = runs.scores.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (runs.scores[mid]! >= score) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : runs.ends[lo - 1]!;
  }

  /** The name rank of the entity at `srank`. */
  rankAt(srank: number): number {
    return this.rankOfSrank.get(srank);
  }

  /**
   * The score (of `scores`, the index's own) of the entity at `srank`: sranks go by score, highest
   * first, so the scores over them are runs, one per distinct score, and the run is found by a
   * binary search of a few hundred numbers that stay in cache, where the entity's own score is
   * three reads at random (its name rank, dense id and score).
   */
  scoreAt(scores: Scores, srank: number): number {
    const runs = this.runsFor(scores);
    return runs.scores[this.runAt(runs, srank)]!;
  }

  /**
   * scoreAt for `n` sranks into `out`: each one's run found between its block's and the next
   * block's (SrankRuns.blocks: one read of a table in cache, most often the run itself), where a
   * search of all the runs costs about ten unpredictable steps an srank (a listing's sranks lie far
   * apart: a search from the previous one's run passes many).
   */
  scoresAt(scores: Scores, sranks: ArrayLike<number>, n: number, out: Float64Array): void {
    const runs = this.runsFor(scores);
    const ends = runs.ends;
    const blocks = runs.blocks;
    for (let i = 0; i < n; i++) {
      const srank = sranks[i]!;
      const b = srank >>> RUN_BLOCK_SHIFT;
      let lo = blocks[b]!;
      let hi = blocks[b + 1]!;
      // Each branch: the block within one run (no search), or the runs between searched.
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ends[mid]! <= srank) lo = mid + 1;
        else hi = mid;
      }
      out[i] = runs.scores[lo]!;
    }
  }

  /** The runs of `scores` over the sranks (SrankRuns), made at the first call for them: O(N) once. */
  private runsFor(scores: Scores): SrankRuns {
    // Each branch: the runs made already for these scores, or made now.
    if (this.runs !== undefined && this.runsOf === scores) return this.runs;
    this.runs = srankRuns(scores, this.entityCount);
    this.runsOf = scores;
    return this.runs;
  }

  /** The run that holds `srank`: the first whose end is past it, between its block's and the next block's. */
  private runAt(runs: SrankRuns, srank: number): number {
    const ends = runs.ends;
    const b = srank >>> RUN_BLOCK_SHIFT;
    let lo = runs.blocks[b]!;
    let hi = runs.blocks[b + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ends[mid]! <= srank) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Band-0 positions among suffix-array positions [0, i): the sampled count, then at most a block's words. */
  keptRank(i: number): number {
    const words = this.bands.words;
    const block = i >>> BAND_SAMPLE_SHIFT;
    let count = this.keptBefore[block]!;
    const last = Math.floor(i / BANDS_PER_WORD);
    for (let w = block * WORDS_PER_SAMPLE; w < last; w++) {
      const word = words[w]!;
      count += popcount32(~(word | (word >>> 1)) & FIELD_LOW_BITS);
    }
    const partial = i - last * BANDS_PER_WORD;
    // A partial word counts its first fields only.
    if (partial > 0) count += popcount32(fieldsEqual(words[last]!, 0) & lowFields(partial));
    return count;
  }

  /** Band-0 positions among suffix-array positions [l, r), word by word. */
  keptBetween(l: number, r: number): number {
    const words = this.bands.words;
    let count = 0;
    for (let w = Math.floor(l / BANDS_PER_WORD), base = w * BANDS_PER_WORD; base < r; w++, base += BANDS_PER_WORD) {
      let hits = fieldsEqual(words[w]!, 0);
      // The first and last words: only the fields inside [l, r).
      if (base < l) hits &= ~lowFields(l - base);
      if (base + BANDS_PER_WORD > r) hits &= lowFields(r - base);
      count += popcount32(hits);
    }
    return count;
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
    matches?: (rank: number) => boolean,
  ): ScoreHits;
  /** find, into `into` (its lists emptied first): a caller that lists page after page allocates nothing. */
  find<L extends RankSink>(
    search: SearchIndex,
    scores: Scores,
    pattern: string,
    type: number,
    after: ScoreResume,
    count: number,
    matches: ((rank: number) => boolean) | undefined,
    into: ScoreHits<L>,
    firm?: number,
  ): ScoreHits<L>;
  /**
   * `firm` (at most `count`, the default): past this many, the listing takes only what it lists
   * without decoding another band (the infix tier's band 0, the better tiers); it stops short
   * (ScoreHits.short) where the next would need a band. A merge layer asks its page firm and a
   * look-ahead past it: the look-ahead costs no band decode of its own.
   */
  find(
    search: SearchIndex,
    scores: Scores,
    pattern: string,
    type: number,
    after: ScoreResume,
    count: number,
    matches?: (rank: number) => boolean,
    into?: ScoreHits<RankSink>,
    firm = count,
  ): ScoreHits<RankSink> {
    const hits: ScoreHits<RankSink> = into ?? { sranks: [], tiers: [], bounds: null };
    hits.sranks.length = 0;
    hits.tiers.length = 0;
    hits.bounds = null;
    hits.short = false;
    const kept = after !== null && "bounds" in after ? after.bounds : undefined;
    const bounds = kept !== undefined && search.fits(kept) ? kept : search.bounds(pattern);
    if (bounds === null || count <= 0) return hits;
    hits.bounds = bounds;
    const { a, b, e } = bounds;
    const N = this.entityCount;
    // The first srank to list in the resume point's tier (an absent one: every tier from its start).
    // Each branch: from the start; right after an srank; after a raised key of a known srank; after a key.
    const from =
      after === null
        ? 0
        : "srank" in after
          ? after.srank + 1
          : "at" in after
            ? this.srankAfterMoved(scores, after.at, after.score)
            : this.srankAfter(search, scores, after);
    const fromTier = after === null ? TIER_EXACT : after.tier;
    const docType = type < 0 ? ANY_TYPE : type;
    // A listing that stops at a score: the resume point's tier alone, up to `end`.
    const end = after !== null && "end" in after && after.end !== undefined ? after.end : -1;
    if (end >= 0) {
      if (from >= end) return hits;
      if (fromTier === TIER_EXACT) this.listTier(search, a, e, from, docType, TIER_EXACT, count, hits);
      else if (fromTier === TIER_PREFIX) this.listTier(search, e, b, from, docType, TIER_PREFIX, count, hits);
      else if (pattern.length > 0 && !(a === 0 && b === N))
        this.listInfix(search, scores, pattern, bounds, from, type, count, hits, matches, end, firm);
      return hits;
    }
    if (fromTier <= TIER_EXACT)
      this.listTier(search, a, e, fromTier === TIER_EXACT ? from : 0, docType, TIER_EXACT, count, hits);
    if (fromTier <= TIER_PREFIX && hits.sranks.length < count)
      this.listTier(search, e, b, fromTier === TIER_PREFIX ? from : 0, docType, TIER_PREFIX, count, hits);
    // An empty pattern's matches are all in tiers 0 and 1 ([a, b) is every rank).
    if (hits.sranks.length < count && pattern.length > 0 && !(a === 0 && b === N))
      this.listInfix(
        search,
        scores,
        pattern,
        bounds,
        fromTier === TIER_INFIX ? from : 0,
        type,
        count,
        hits,
        matches,
        N,
        firm,
      );
    return hits;
  }

  /** Tier 0 or 1: the sranks >= lo of positions [x, y) (name ranks), by srank. */
  private listTier(
    search: SearchIndex,
    x: number,
    y: number,
    lo: number,
    type: number,
    tier: number,
    count: number,
    hits: ScoreHits<RankSink>,
  ) {
    if (x >= y) return;
    const before = hits.sranks.length;
    // Each branch: a short tier's sranks read in a row (a few cache lines) and the smallest kept,
    // else the names array's walk (a dependent miss or more per level).
    if (y - x <= this.tierReadMax) this.readTier(search, x, y, lo, type, count - before, hits.sranks);
    else this.names.list(x, y, lo, this.entityCount, type, count - before, hits.sranks);
    for (let i = before; i < hits.sranks.length; i++) hits.tiers.push(tier);
  }

  /**
   * The `need` smallest sranks >= lo of name ranks [x, y) (of the type; ANY_TYPE: all), appended
   * ascending: each rank's srank read in rank order (a typed tier's ranks from the search index's
   * ranks by type), kept in a sorted buffer of at most `need`.
   */
  private readTier(search: SearchIndex, x: number, y: number, lo: number, type: number, need: number, out: RankSink) {
    if (need <= 0) return;
    const top = this.tierTop.length >= need ? this.tierTop : (this.tierTop = new Int32Array(need));
    let size = 0;
    // Each branch: all ranks of [x, y), or the type's (ascending in typeRanks).
    const typed = type !== ANY_TYPE;
    const i0 = typed ? search.lowerBoundInType(type, x) : x;
    const i1 = typed ? search.lowerBoundInType(type, y) : y;
    for (let i = i0; i < i1; i++) {
      const s = this.srankOfRank.get(typed ? search.typeRanks.get(i) : i);
      if (s < lo || (size === need && s >= top[size - 1]!)) continue;
      // Insertion into the sorted buffer (the last one drops out when it is full).
      let j = size < need ? size++ : size - 1;
      while (j > 0 && top[j - 1]! > s) {
        top[j] = top[j - 1]!;
        j--;
      }
      top[j] = s;
    }
    for (let i = 0; i < size; i++) out.push(top[i]!);
  }

  /**
   * Tier 2: entities with a suffix in [l, r) whose name rank is outside [a, b), sranks >= lo, by
   * srank: band 0's from the kept array, then band after band decoded, until the page is full; or,
   * from the first band whose listing would cost more than the tier, the rest listed by name.
   */
  private listInfix(
    search: SearchIndex,
    scores: Scores,
    pattern: string,
    bounds: SearchBounds,
    lo: number,
    type: number,
    count: number,
    hits: ScoreHits<RankSink>,
    matches: ((rank: number) => boolean) | undefined,
    end = this.entityCount,
    firm = count,
  ) {
    const { l, r, a, b } = bounds;
    const docType = type < 0 ? ANY_TYPE : type;
    // Each branch: no prefix tier (most queries) needs no count (a typed count is two binary searches).
    const prefix = a < b ? search.countRanks(a, b, type) : 0;
    const out = hits.sranks;
    const before = out.length;
    const K = this.keptEntities;
    // The tier's size, from the document counts: only counted when a choice needs it (a query
    // whose kept entities fill the page, without a prefix tier, never does).
    let infix = -1;
    // `next`: the first srank not listed yet; `whole`: the rest of the tier goes by name.
    let next = lo;
    let whole = false;
    // The infix-tier entities band 0 gave this page (-1: the page resumed past band 0).
    let found0 = -1;
    if (next < K) {
      // Each branch: band 0 from the kept array; with a prefix tier, skipping its entities reads
      // about need * (infix + prefix) / infix of them, and the whole tier by name reads `infix`:
      // the cheaper.
      const need = count - out.length;
      if (prefix > 0) infix = search.count(pattern, type, bounds) - prefix;
      if (prefix === 0 || this.fallback === "bands" || need * (infix + prefix) <= infix * infix) {
        const kl = this.keptRank(l);
        // Each branch: an interval within a few words counts on from l (the words kl read), else
        // r's own count.
        const kr = r - l <= KEPT_COUNT_ON ? kl + this.keptBetween(l, r) : this.keptRank(r);
        // Each branch: no prefix tier, nothing to skip: the kept listing is the tier's band 0.
        if (prefix === 0) this.infix.list(kl, kr, next, Math.min(K, end), docType, need, out);
        else this.listInfixSkipping(kl, kr, a, b, next, docType, need, out);
        found0 = out.length - before;
        next = K;
      } else whole = true;
    }
    const N = this.entityCount;
    // Sranks this page checked one by one, and the matches among them.
    let scanChecks = 0;
    let scanHits = 0;
    // Bands decoded while fewer than `firm` (the look-ahead past it only from what is listed already).
    while (!whole && out.length < firm && next < end) {
      let v = 1;
      while (next >= this.bandStarts[v + 1]!) v++;
      const end = this.bandStarts[v + 1]!;
      // Each branch: what an earlier page of the query decoded or listed is read again, at the
      // cost of a binary search.
      if (this.memoHolds(bounds, type, MEMO_WHOLE)) {
        whole = true;
        break;
      }
      if (this.memoHolds(bounds, type, v)) {
        this.listMemo(next, count - out.length, out);
        next = this.bandStarts[this.memoLast + 1]!;
        continue;
      }
      // A band of few positions is decoded without counting the tier (the count costs more).
      const positions = (r - l) * this.bandShares[v]!;
      if (this.fallback === "bands" || (this.fallback === "auto" && positions <= BAND_DECODE_ALWAYS)) {
        let last = this.fallback === "auto" ? this.lastBandWith(v, r - l, found0, firm - out.length) : v;
        // No band that starts at or past the end (a listing that stops at a score) is decoded.
        while (last > v && this.bandStarts[last]! >= end) last--;
        this.listBand(search, bounds, v, last, next, type, count - out.length, out);
        next = this.bandStarts[last + 1]!;
        continue;
      }
      if (infix < 0) infix = search.count(pattern, type, bounds) - prefix;
      const need = count - out.length;
      // Entities checked one by one in srank order to find `need` of the tier: N / infix per match
      // before any check, then with what this page's checks found counted in (a sparse stretch,
      // the tier's tail, raises it until the band or the tier by name is cheaper).
      const checks = (need * (N / Math.max(1, infix) + scanChecks)) / (1 + scanHits);
      // The run of sranks of next's score (name ranks ascend along it): listing the tier's entities
      // by name over the run's name ranks reads about need * (its name ranks) / (its sranks left).
      const runEnd = this.runEnd(search, scores, next);
      const runSpan = this.rankOfSrank.get(runEnd - 1) + 1 - this.rankOfSrank.get(next);
      const listed = (need * runSpan) / (runEnd - next);
      // Each branch, by cost: the run listed by name (a long run of equal scores: the low scores'
      // tail, where the one-by-one check meets sparse stretches), the sranks checked in order (a
      // dense tier: few checks a match), the band decoded (its positions few per entity of the
      // tier), else the rest of the tier by name.
      if (
        this.fallback === "runs" ||
        (this.fallback === "auto" && listed * RUN_COST <= Math.min(positions, infix, checks * SCAN_COST))
      ) {
        next = this.listRun(search, bounds, next, runEnd, type, need, out);
      } else if (
        matches !== undefined &&
        (this.fallback === "scan" || (this.fallback === "auto" && checks * SCAN_COST <= Math.min(positions, infix)))
      ) {
        const limit = this.fallback === "scan" ? 2 * need : Math.ceil(SCAN_SLACK * checks);
        const had = out.length;
        const stop = this.scan(a, b, next, need, limit, matches, out);
        scanChecks += stop - next;
        scanHits += out.length - had;
        next = stop;
      } else if (this.fallback === "auto" && positions <= BAND_POSITIONS_PER_ENTITY * infix) {
        this.listBand(search, bounds, v, v, next, type, need, out);
        next = end;
      } else whole = true;
    }
    if (whole && out.length < count) this.listInfixWhole(search, bounds, next, type, count - out.length, out);
    // Stopped at `firm` where a band would come next: more may follow.
    else if (out.length < count && next < end) hits.short = true;
    for (let i = before; i < out.length; i++) hits.tiers.push(TIER_INFIX);
  }

  /** The first srank after `from` of a lower score (sranks of equal score are a run). */
  private runEnd(search: SearchIndex, scores: Scores, from: number): number {
    const N = this.entityCount;
    const score = scores.at(search.idAt(this.rankOfSrank.get(from)));
    // A galloping search from `from` (runs are often short), then a binary search.
    let step = 1;
    let lo = from + 1;
    let hi = lo;
    while (hi < N && scores.at(search.idAt(this.rankOfSrank.get(hi))) >= score) {
      lo = hi + 1;
      hi = Math.min(N, from + (step *= 2));
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (scores.at(search.idAt(this.rankOfSrank.get(mid))) >= score) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Sranks [from, end) of one score (a run, whose name ranks ascend with them) of the infix tier
   * (type -1: any), the first `need`: the search index's document array lists the tier's name ranks
   * in [l, r) over the run's name ranks outside [a, b), in order, and those of the run are kept.
   * Returns the first srank not listed (`end` when the run is done).
   */
  private listRun(
    search: SearchIndex,
    bounds: SearchBounds,
    from: number,
    end: number,
    type: number,
    need: number,
    out: RankSink,
  ): number {
    const { l, r, a, b } = bounds;
    const docType = type < 0 ? ANY_TYPE : type;
    const x = this.rankOfSrank.get(from);
    const y = this.rankOfSrank.get(end - 1) + 1;
    const batch = this.batch;
    // The run's name ranks outside the prefix tier: [x, min(y, a)), then [max(x, b), y).
    for (const [lo0, hi] of [
      [x, Math.min(y, a)],
      [Math.max(x, b), y],
    ] as const) {
      let lo = lo0;
      while (lo < hi) {
        batch.length = 0;
        const got = search.documents.list(l, r, lo, hi, docType, LIST_CHUNK, batch);
        for (let i = 0; i < got; i++) {
          const srank = this.srankOfRank.get(batch[i]!);
          if (srank < from || srank >= end) continue;
          out.push(srank);
          if (--need === 0) return srank + 1;
        }
        if (got < LIST_CHUNK) break;
        lo = batch[got - 1]! + 1;
      }
    }
    return end;
  }

  /**
   * Sranks from `from` on, one by one, up to `limit` of them: those outside the prefix tier whose
   * entity `matches` (the pattern is in its folded identifier, of the type) are appended until
   * `need`. Returns the first srank not checked. In srank order, so exact whatever it stops at.
   */
  private scan(
    a: number,
    b: number,
    from: number,
    need: number,
    limit: number,
    matches: (rank: number) => boolean,
    out: RankSink,
  ): number {
    const end = Math.min(this.entityCount, from + limit);
    let s = from;
    for (; s < end && need > 0; s++) {
      const rank = this.rankOfSrank.get(s);
      if (rank >= a && rank < b) continue;
      if (!matches(rank)) continue;
      out.push(s);
      need--;
    }
    return s;
  }

  /**
   * The last band to decode with band v (v..last in one pass: one access level by level over all
   * their positions instead of one per band, the cost of a decode being its levels' rounds of
   * cache misses more than its positions): the bands after v while the page is expected to need
   * them (band 0 gave `found0` entities for its share of the text: a band is expected to give as
   * many per share; -1, unknown: v alone), up to BAND_DECODE_ALWAYS positions expected in all.
   */
  private lastBandWith(v: number, positions: number, found0: number, need: number): number {
    if (found0 < 0) return v;
    const shares = this.bandShares;
    const density = shares[0]! > 0 ? found0 / shares[0]! : 0;
    let share = shares[v]!;
    let last = v;
    while (
      last + 1 < BAND_COUNT &&
      density * share < BAND_MERGE_MARGIN * need &&
      positions * (share + shares[last + 1]!) <= BAND_DECODE_ALWAYS
    )
      share += shares[++last]!;
    return last;
  }

  /**
   * Bands v..last's infix-tier entities (type -1: any) with sranks >= lo, the `need` first by
   * srank: their positions in [l, r) found in the band words (16 a word), their values read from
   * the search index's document array (level by level over all of them), deduplicated and sorted.
   */
  private listBand(
    search: SearchIndex,
    bounds: SearchBounds,
    v: number,
    last: number,
    lo: number,
    type: number,
    need: number,
    out: RankSink,
  ) {
    // Each branch: the bands kept from an earlier page of the query, else decoded (and kept).
    if (!this.memoHolds(bounds, type, v)) this.decodeBand(search, bounds, v, last, type);
    this.listMemo(lo, need, out);
  }

  /**
   * Bands v..last's infix-tier entities (type -1: any), all of them: their sranks distinct and
   * ascending (the bands are consecutive srank ranges), kept as the memo.
   */
  private decodeBand(search: SearchIndex, bounds: SearchBounds, v: number, last: number, type: number) {
    const { l, r, a, b } = bounds;
    // The scratch is the memo's: it is overwritten here.
    this.memoPart = -1;
    this.memoLast = -1;
    const words = this.bands.words;
    let n = 0;
    for (let w = Math.floor(l / BANDS_PER_WORD), base = w * BANDS_PER_WORD; base < r; w++, base += BANDS_PER_WORD) {
      let hits = fieldsEqual(words[w]!, v);
      for (let u = v + 1; u <= last; u++) hits |= fieldsEqual(words[w]!, u);
      // The first and last words: only the fields inside [l, r).
      if (base < l) hits &= ~lowFields(l - base);
      if (base + BANDS_PER_WORD > r) hits &= lowFields(r - base);
      while (hits !== 0) {
        const bit = 31 - Math.clz32(hits & -hits);
        hits &= hits - 1;
        if (n === this.positions.length) this.grow(2 * n);
        this.positions[n++] = base + (bit >>> 1);
      }
    }
    const values = this.decoded;
    if (n > 0) n = search.documents.valuesAt(this.positions, n, type < 0 ? ANY_TYPE : type, values);
    const R = search.documents.rankBits;
    const mask = (1 << R) - 1;
    // The band's entities of the type, outside the prefix tier: reuse `positions` for sranks.
    const sranks = this.positions;
    let m = 0;
    for (let j = 0; j < n; j++) {
      const rank = values[j]! & mask;
      if (rank >= a && rank < b) continue;
      sranks[m++] = this.srankOfRank.get(rank);
    }
    sranks.subarray(0, m).sort();
    let distinct = 0;
    for (let j = 0; j < m; j++)
      if (distinct === 0 || sranks[j]! !== sranks[distinct - 1]!) sranks[distinct++] = sranks[j]!;
    this.keepMemo(bounds, type, v, last, sranks, distinct);
  }

  /** Whether the memo holds `part` (a band, or MEMO_WHOLE) of this query's tier of this type. */
  private memoHolds(bounds: SearchBounds, type: number, part: number): boolean {
    return (
      this.memoPart <= part &&
      part <= this.memoLast &&
      this.memoL === bounds.l &&
      this.memoR === bounds.r &&
      this.memoA === bounds.a &&
      this.memoB === bounds.b &&
      this.memoType === type
    );
  }

  private keepMemo(
    bounds: SearchBounds,
    type: number,
    part: number,
    last: number,
    sranks: ArrayLike<number>,
    length: number,
  ) {
    this.memoL = bounds.l;
    this.memoR = bounds.r;
    this.memoA = bounds.a;
    this.memoB = bounds.b;
    this.memoType = type;
    this.memoPart = part;
    this.memoLast = last;
    this.memoSranks = sranks;
    this.memoLength = length;
  }

  /** The memo's first `need` sranks >= lo, appended (a binary search, then a copy). */
  private listMemo(lo: number, need: number, out: RankSink) {
    const sranks = this.memoSranks;
    let i = 0;
    let hi = this.memoLength;
    while (i < hi) {
      const mid = (i + hi) >>> 1;
      if (sranks[mid]! < lo) i = mid + 1;
      else hi = mid;
    }
    for (const end = Math.min(this.memoLength, i + need); i < end; i++) out.push(sranks[i]!);
  }

  /** Grows the positions and decoded scratch to `size`. */
  private grow(size: number) {
    const positions = new Int32Array(size);
    positions.set(this.positions);
    this.positions = positions;
    this.decoded = new Int32Array(size);
  }

  /**
   * The infix listing in srank order over the kept positions [l, r) (sranks >= lo, below
   * keptEntities), prefix-tier entities (name ranks in [a, b)) dropped, until `need`.
   */
  private listInfixSkipping(
    l: number,
    r: number,
    a: number,
    b: number,
    lo: number,
    type: number,
    need: number,
    out: RankSink,
  ): void {
    const K = this.keptEntities;
    const batch = this.batch;
    let found = 0;
    while (found < need && lo < K) {
      batch.length = 0;
      const want = Math.max(INFIX_BATCH_MIN, 2 * (need - found));
      const got = this.infix.list(l, r, lo, K, type, want, batch);
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

  /**
   * The infix tier listed whole by name (both rank segments), sranks >= lo kept, sorted by srank:
   * for a small tier beside its interval (the prefix tier's suffixes most of it).
   */
  private listInfixWhole(
    search: SearchIndex,
    bounds: SearchBounds,
    lo: number,
    type: number,
    need: number,
    out: RankSink,
  ) {
    // Each branch: the tier kept from an earlier page of the query, else listed (and kept).
    if (!this.memoHolds(bounds, type, MEMO_WHOLE)) {
      const { l, r, a, b } = bounds;
      const docType = type < 0 ? ANY_TYPE : type;
      const ranks = this.wholeRanks;
      const sranks = this.wholeSranks;
      ranks.length = 0;
      sranks.length = 0;
      listAll(search.documents, l, r, 0, a, docType, ranks);
      listAll(search.documents, l, r, b, this.entityCount, docType, ranks);
      for (const rank of ranks) sranks.push(this.srankOfRank.get(rank));
      sranks.sort(ascending);
      this.keepMemo(bounds, type, MEMO_WHOLE, MEMO_WHOLE, sranks, sranks.length);
    }
    this.listMemo(lo, need, out);
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
    return this.srankAfterAt(scores, key.score, x, this.entityCount);
  }

  /**
   * srankAfter for the key of the entity at srank `at` with its score moved to `score`: its name
   * rank is known (the first rank after the key's is the next one), so no identifier is searched.
   * Each branch: raised above its score here, every srank of `score` or more lies before `at`
   * (scores descend along sranks: the searches stay below it); else anywhere from `at` on.
   */
  srankAfterMoved(scores: Scores, at: number, score: number): number {
    const limit = score > this.scoreAt(scores, at) ? at : this.entityCount;
    return this.srankAfterAt(scores, score, this.rankOfSrank.get(at) + 1, limit);
  }

  /**
   * The first srank among [0, limit) after the entities of score above `score` and those of
   * `score` whose name rank is below `x` (every srank from `limit` on scores below `score`).
   */
  private srankAfterAt(scores: Scores, score: number, x: number, limit: number): number {
    // The sranks of the key's score: [lo, end) (scores descend along sranks), from the runs: the
    // first run of `score` or less starts at lo, and ends at end when of `score` (else none is).
    const runs = this.runsFor(scores);
    const values = runs.scores;
    let k = 0;
    let top = values.length;
    while (k < top) {
      const mid = (k + top) >>> 1;
      if (values[mid]! > score) k = mid + 1;
      else top = mid;
    }
    let lo = Math.min(limit, k === 0 ? 0 : runs.ends[k - 1]!);
    // Each branch: the run holds the key's score (its sranks), or no entity has it (an empty group).
    const end = k < values.length && values[k] === score ? Math.min(limit, runs.ends[k]!) : lo;
    // Inside the group, name ranks ascend: the first at or after x.
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rankOfSrank.get(mid) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get byteLength(): number {
    return (
      this.rankOfSrank.byteLength +
      this.srankOfRank.byteLength +
      this.names.byteLength +
      this.bands.byteLength +
      this.keptBefore.byteLength +
      this.infix.byteLength
    );
  }

  /** Bytes per part, for memory reports. */
  get bytesByPart(): Record<string, number> {
    return {
      scoreRanks: this.rankOfSrank.byteLength + this.srankOfRank.byteLength,
      scoreNames: this.names.byteLength,
      scoreInfix: this.bands.byteLength + this.keptBefore.byteLength + this.infix.byteLength,
    };
  }

  serialize(w: SerialWriter): void {
    this.rankOfSrank.serialize(w.child("rankOfSrank"));
    this.srankOfRank.serialize(w.child("srankOfRank"));
    this.names.serialize(w.child("names"));
    w.array("bandStarts", this.bandStarts);
    this.bands.serialize(w.child("bands"));
    this.infix.serialize(w.child("infix"));
  }

  /**
   * Restores the index of `entityCount` entities over a text of `positions` positions: every part
   * as long as the counts say, the band starts ascending up to the count, the kept array one value
   * per band-0 position, and with `verify` both directions below the count and inverse of each
   * other (one pass), so no listing reads past an entity.
   */
  static deserialize(r: SerialReader, entityCount: number, positions: number): ScoreIndex {
    const rankOfSrank = IntVector.deserialize(r.child("rankOfSrank"));
    const srankOfRank = IntVector.deserialize(r.child("srankOfRank"));
    const names = DocumentArray.deserialize(r.child("names"));
    const bandStarts = r.uint32("bandStarts");
    const bands = IntVector.deserialize(r.child("bands"));
    const infix = DocumentArray.deserialize(r.child("infix"));
    if (rankOfSrank.length !== entityCount || srankOfRank.length !== entityCount)
      r.corrupt("the score ranks are not one per entity");
    if (names.top.length !== entityCount) r.corrupt("the score names array is not one per entity");
    if (bandStarts.length !== BAND_COUNT + 1 || bandStarts[0] !== 0 || bandStarts[BAND_COUNT] !== entityCount)
      r.corrupt("the score bands do not start at 0 and end at the entity count");
    for (let v = 1; v <= BAND_COUNT; v++)
      if (bandStarts[v]! < bandStarts[v - 1]!) r.corrupt("the score bands' starts are not ascending");
    if (bands.length !== positions || bands.width !== BAND_BITS)
      r.corrupt("the score bands are not one per text position");
    const index = new ScoreIndex(rankOfSrank, srankOfRank, names, bands, bandStarts, infix);
    if (infix.top.length !== index.keptRank(positions)) r.corrupt("the score infix array is not one per kept position");
    if (
      names.rankBits !== DocumentArray.rankBitsFor(entityCount) ||
      infix.rankBits !== DocumentArray.rankBitsFor(index.keptEntities)
    )
      r.corrupt("the score arrays' rank widths are not this graph's");
    if (r.verify) {
      // The two ranks inverse of each other, a chunk at a time: the chunk's ranks in one sequential
      // loop, then one read of srankOfRank each in a loop of independent reads (each a cache miss
      // in a large graph), which the CPU keeps many of in flight at once.
      const ranks = new Uint32Array(Math.min(entityCount, VERIFY_CHUNK));
      for (let from = 0; from < entityCount; from += VERIFY_CHUNK) {
        const count = Math.min(VERIFY_CHUNK, entityCount - from);
        for (let j = 0; j < count; j++) ranks[j] = rankOfSrank.get(from + j);
        for (let j = 0; j < count; j++) {
          const rank = ranks[j]!;
          if (rank >= entityCount || srankOfRank.get(rank) !== from + j)
            r.corrupt(`score rank ${from + j} names no entity`);
        }
      }
    }
    return index;
  }
}

/** A word whose low field bits mark the 2-bit fields of `word` equal to `v`. */
function fieldsEqual(word: number, v: number): number {
  const x = word ^ (v * FIELD_LOW_BITS);
  return ~(x | (x >>> 1)) & FIELD_LOW_BITS;
}

/** The low bits of the first `fields` 2-bit fields (0..16). */
function lowFields(fields: number): number {
  return fields >= BANDS_PER_WORD ? FIELD_LOW_BITS : FIELD_LOW_BITS & ((1 << (2 * fields)) - 1);
}

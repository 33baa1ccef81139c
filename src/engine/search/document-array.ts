/**
 * Document array
 * ==============
 * Owns "which entities have a suffix in this suffix-array interval", listed in rank order from any
 * resume point, a page at a time: document listing (Muthukrishnan, SODA 2002) in the contract's
 * order, for the infix tier of search.
 *
 * For each suffix-array position i, the value type * 2^R + rank of the entity that suffix lies in
 * (R = bits of a rank). The k smallest distinct ranks >= lo among positions [l, r) are a walk of
 * the wavelet matrix of these values, pruned below lo (Gagie, Navarro, Puglisi, "New algorithms on
 * wavelet trees and applications to information retrieval", TCS 2012; Välimäki and Mäkinen, CPM
 * 2007). Two departures from a plain wavelet matrix, both for the number of cache misses a
 * reported entity costs (every miss is a few hundred ns on this kind of machine, and a classic walk
 * takes one per level per entity):
 *
 *  - Truncated at the bottom. Only the top 3 + R - P bits form wavelet-matrix levels; the low P bits
 *    of each value are kept plain (an IntVector) in the order of the last level. A node there is a
 *    bucket of 2^P consecutive ranks of one type, its positions contiguous: read them, keep those
 *    >= lo, mark them in a 2^P-bit set, and they come out sorted and distinct. So a reported entity
 *    costs the levels above its bucket, not all R + 3, and a dense query reads one bucket
 *    sequentially instead of walking a subtree.
 *  - Level by level. The walk keeps a frontier: every node of the current level that can still hold
 *    one of the k smallest ranks, in rank order (nodes of different types with the same rank range
 *    side by side). Each level expands the whole frontier, then keeps its first nodes: k of them
 *    (each non-empty node holds at least one entity) plus the types in play (a node straddling lo
 *    may hold nothing >= lo), ties of equal rank range kept together; or fewer, once the nodes
 *    wholly inside [lo, hi) hold DENSE_POSITIONS_PER_RANK * k positions (a dense query: a handful
 *    of nodes holds the page, and the rest need not be walked down). The rank operations of one
 *    level are independent loads, so their misses overlap instead of queueing one after another:
 *    a touch pass (touchRanks) first reads the words every node's ranks will read, in a loop of
 *    loads alone, so the whole level's misses are in flight at once (the ranks' popcounts between
 *    loads would keep only a node or two in flight); the buckets' first words likewise.
 *    If the kept buckets give fewer than k ranks, the walk starts again above the last kept range.
 *    With no type filter the 8 type bands are walked together in this one frontier: the work of a
 *    page does not grow with the number of types beyond the few nodes of the first levels.
 *
 * Cost of a page of k: about (3 + R - P) levels x (k + types) nodes x 2 rank operations (far
 * fewer nodes for a dense query: q="i" page 1,000 at 1M entities expands 78 nodes, not 190), in
 * (3 + R - P) rounds of independent loads, plus the buckets read (at most k + types, each at most
 * its positions in [l, r)). Space: (3 + R - P) * 1.125 + P bits per text position.
 */

import type { RankSink } from "./rank-list.js";
import { BitVector, bitAt, rank1At, touchRanks } from "../succinct/bit-vector.js";
import { IntVector } from "../succinct/int-vector.js";
import type { SerialReader, SerialWriter } from "../serial.js";
import { WaveletMatrix } from "../succinct/wavelet-matrix.js";

/** Type bits on top of every value: the 8 entity types. */
export const TYPE_BITS = 3;
export const TYPE_COUNT = 1 << TYPE_BITS;
/**
 * Low rank bits kept plain: a bucket holds 2^PLAIN_BITS ranks at most. Fewer levels for a sparse
 * query against longer bucket scans for a dense one; at 1M entities (`npm run bench:stream` and
 * `npm run bench:full`): 10 bits, sparse p50 35 us and q="e"
 * 19-25 us; 12 bits, 23 and 20-34 us; 14 bits, 14 and 65-124 us. 12 keeps both within a few times
 * of each other.
 *
 * Fixed, not growing with R: a bucket's work is the query's positions in it, its occurrences x
 * 2^(P - R), and the same query has about 10 times the occurrences in a graph 10 times larger; a
 * fixed P keeps that work per query about constant and pays log2(10) more levels, while P = R - 8
 * (the same share of the rank space at any size) keeps the levels and multiplies the scans. At 10M
 * generated entities (R = 24, 165M text positions), infix listings of 20 ranks, p50 / p99 in µs
 * over 2,000 distinct substring queries (medians of 3 runs of `npm run bench:plain-bits --
 * --snapshot FILE --entities FILE --plain 12,13,16`): P = 12, page 1 12.6 / 31.7, deep 16.8 /
 * 37.6, the 66 letters and common pairs 17.7 / 44.4; P = 13, 11.3 / 45.5, 16.1 / 48.4, 15.7 /
 * 41.9; P = 16, 12.0 / 182.7, 18.2 / 216.0, 74.4 / 471.2. P = 16 helps only the sparsest (10^3
 * to 10^4 occurrences: p50 14.5 -> 8.7) and is 2.5 to 14 times slower from 10^5 on, which is most
 * of the stream at that size. The score index's names array (its prefix tiers over TIER_READ_MAX
 * ranks, `--queries 4000 --only names`): P = 13, 6.4 / 13.4 against P = 12's 7.3 / 15.7, its
 * dense p99 23 against 17.5; not enough to give it a width of its own.
 */
export const PLAIN_BITS = 12;
/**
 * Rank bits kept as wavelet levels at least: a smaller graph gets smaller buckets (2^(R - 8) ranks,
 * 1/256 of a type's rank space), so a dense query scans about the same share of it at any size (at
 * 123k YAGO names, 2^14-rank buckets made q="e" page 1,000 cost 136 us, `npm run bench:yago`).
 */
export const MIN_RANK_LEVELS = 8;
/**
 * A walk keeps frontier nodes until those wholly inside the rank range asked for hold this many
 * positions per rank wanted (or k + types nodes, whichever comes first). Positions are occurrences,
 * not entities: a node of n positions holds at least one entity, most often about n (an identifier
 * rarely holds a short pattern more than twice). Too few, and a page needs a second round; too
 * many, and a dense page walks nodes it never reads.
 */
export const DENSE_POSITIONS_PER_RANK = 4;
/** Up to this many words, a bucket's marked words are sorted by insertion. */
const INSERTION_SORT_MAX = 32;
/** Type argument meaning "any type". */
export const ANY_TYPE = -1;

export class DocumentArray {
  /** Bits of a rank (R). */
  readonly rankBits: number;
  /** Low bits kept plain (P). */
  readonly plainBits: number;
  /** Wavelet matrix over the top 3 + R - P bits. */
  readonly top: WaveletMatrix;
  /** The low P bits, in the order of the top matrix's last level. */
  readonly low: IntVector;
  private readonly stride: number;
  /** The walk's frontier at the current level and the next one's, reused: search is synchronous. */
  private readonly frontiers = [new Frontier(), new Frontier()] as const;
  /** A bucket's ranks as a bit set (all zero between buckets), and the words of it in use. */
  private readonly seen: Int32Array;
  private readonly touched: Int32Array;
  /** What touchRanks read, kept so that its loads are not optimized away. */
  touchSink = 0;

  constructor(rankBits: number, plainBits: number, top: WaveletMatrix, low: IntVector) {
    this.rankBits = rankBits;
    this.plainBits = plainBits;
    this.top = top;
    this.low = low;
    this.stride = BitVector.blocksLength(top.length);
    this.seen = new Int32Array(Math.max(1, (1 << plainBits) >>> 5));
    this.touched = new Int32Array(this.seen.length);
  }

  /**
   * The document array of a suffix array: `starts[r]` is where entity rank r's text begins (its
   * separator), `typeOfRank[r]` its type; positions at or past starts[N] belong to no entity and
   * get rank 0 (no pattern the search index lists can reach them).
   */
  static build(
    suffixArray: Uint32Array,
    starts: Uint32Array,
    typeOfRank: Uint8Array,
    plainBitsWanted?: number,
  ): DocumentArray {
    const values = DocumentArray.valuesOf(suffixArray, starts, typeOfRank);
    return DocumentArray.fromValues(values, DocumentArray.rankBitsFor(typeOfRank.length), plainBitsWanted);
  }

  /**
   * The values `build` makes its array of (what `values()` decodes again): type * 2^R + rank per
   * position.
   */
  static valuesOf(suffixArray: Uint32Array, starts: Uint32Array, typeOfRank: Uint8Array): Uint32Array {
    const N = typeOfRank.length;
    const n = suffixArray.length;
    const rankBits = DocumentArray.rankBitsFor(N);
    // The rank of every text position, then the value of every suffix-array position.
    const rankAt = new Uint32Array(n);
    for (let r = 0; r < N; r++) rankAt.fill(r, starts[r]!, starts[r + 1]!);
    const values = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const r = rankAt[suffixArray[i]!]!;
      values[i] = (typeOfRank[r]! << rankBits) | r;
    }
    return values;
  }

  /** Bits of a rank (R) for `entities` ranks: at least 1. */
  static rankBitsFor(entities: number): number {
    return Math.max(1, Math.ceil(Math.log2(Math.max(entities, 2))));
  }

  /**
   * The array of any sequence of values type * 2^rankBits + rank (the search index's text
   * positions, or one position per entity for the score index): the same structure and listing.
   */
  static fromValues(values: Uint32Array, rankBits: number, plainBitsWanted?: number): DocumentArray {
    const n = values.length;
    // Each branch: a width asked for (tests, tuning) is taken as it is, within [1, R]; else the
    // default keeps at least MIN_RANK_LEVELS rank levels and buckets of at most 2^PLAIN_BITS ranks.
    const plainBits = Math.max(
      1,
      Math.min(rankBits, plainBitsWanted ?? Math.min(rankBits - MIN_RANK_LEVELS, PLAIN_BITS)),
    );
    const topBits = TYPE_BITS + rankBits - plainBits;
    // The matrix of the values' top bits, made on a copy of the values themselves, so their low
    // bits arrive in its last level's order with them (one set of partitions, read and written in
    // sequence: no array of positions to gather through, which misses the cache at each read).
    const { matrix: top, order } = WaveletMatrix.buildAbove(values.slice(), topBits, plainBits);
    const low = new IntVector(n, plainBits);
    const lowMask = (1 << plainBits) - 1;
    for (let i = 0; i < n; i++) low.set(i, order[i]! & lowMask);
    return new DocumentArray(rankBits, plainBits, top, low);
  }

  /** Every position's value (type * 2^R + rank), decoded level by level: O(n x levels), for builds. */
  values(): Uint32Array {
    const n = this.top.length;
    const topBits = this.top.bits;
    const { levelBlocks } = this.top;
    const stride = this.stride;
    const high = new Uint32Array(n);
    let order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    let next = new Uint32Array(n);
    for (let d = 0; d < topBits; d++) {
      const off = d * stride;
      const zeros = this.top.zeros[d]!;
      let zi = 0;
      let oi = zeros;
      for (let j = 0; j < n; j++) {
        const p = order[j]!;
        const bit = bitAt(levelBlocks, off, j);
        high[p] = (high[p]! << 1) | bit;
        if (bit === 1) next[oi++] = p;
        else next[zi++] = p;
      }
      [order, next] = [next, order];
    }
    const P = this.plainBits;
    const values = new Uint32Array(n);
    for (let j = 0; j < n; j++) {
      const p = order[j]!;
      values[p] = ((high[p]! << P) | this.low.get(j)) >>> 0;
    }
    return values;
  }

  /**
   * The values (type * 2^R + rank) at the first `n` of `positions`, into `out`, those of type
   * `type` only (ANY_TYPE: all), compacted to the front; returns how many. An access per position,
   * done level by level over all of them so that the rank operations of one level are independent
   * loads (their cache misses overlap) rather than one chain per position; a type filter drops the
   * other types' positions after the type levels, so their rank levels are not walked. `positions`
   * is overwritten (each kept one ends at its place in the last level).
   */
  valuesAt(positions: Int32Array, n: number, type: number, out: Int32Array): number {
    const { levelBlocks, zeros } = this.top;
    const stride = this.stride;
    const topBits = this.top.bits;
    out.fill(0, 0, n);
    for (let d = 0, off = 0; d < topBits; d++, off += stride) {
      const z = zeros[d]!;
      // Each branch: several positions first touch the lines their ranks will read.
      if (n > 1) this.touchSink = touchRanks(levelBlocks, off, positions, positions, n);
      for (let j = 0; j < n; j++) {
        const p = positions[j]!;
        const ones = rank1At(levelBlocks, off, p);
        const bit = bitAt(levelBlocks, off, p);
        positions[j] = bit === 1 ? z + ones : p - ones;
        out[j] = (out[j]! << 1) | bit;
      }
      // After the type levels, only the filter's type goes on.
      if (d === TYPE_BITS - 1 && type !== ANY_TYPE) {
        let kept = 0;
        for (let j = 0; j < n; j++) {
          if (out[j] !== type) continue;
          positions[kept] = positions[j]!;
          out[kept++] = out[j]!;
        }
        n = kept;
      }
    }
    const P = this.plainBits;
    for (let j = 0; j < n; j++) out[j] = (out[j]! << P) | this.low.get(positions[j]!);
    return n;
  }

  /**
   * Maps positions [l, r) through the type levels: for each type t, writes into starts[t], ends[t]
   * the range of its positions at the level below the type bits (positions of type t in [l, r),
   * in order; ends[t] - starts[t] of them). 14 nodes, two rank operations each.
   */
  typeRanges(l: number, r: number, starts: Int32Array, ends: Int32Array): void {
    const { levelBlocks, zeros } = this.top;
    const stride = this.stride;
    starts[0] = l;
    ends[0] = r;
    let width = 1;
    for (let d = 0; d < TYPE_BITS; d++) {
      const off = d * stride;
      const z = zeros[d]!;
      // Several nodes: their words first, all in flight together (see touchRanks).
      if (width > 1) this.touchSink = touchRanks(levelBlocks, off, starts, ends, width);
      // Children written from the right end, so a node is read before its slots are reused.
      for (let i = width - 1; i >= 0; i--) {
        const s = starts[i]!;
        const e = ends[i]!;
        const os = rank1At(levelBlocks, off, s);
        const oe = rank1At(levelBlocks, off, e);
        starts[2 * i] = s - os;
        ends[2 * i] = e - oe;
        starts[2 * i + 1] = z + os;
        ends[2 * i + 1] = z + oe;
      }
      width *= 2;
    }
  }

  /** typeRanges for one type alone: its range at the level below the type bits, into out[0], out[1]. */
  typeRange(l: number, r: number, type: number, out: Int32Array): void {
    const { levelBlocks, zeros } = this.top;
    const stride = this.stride;
    let s = l;
    let e = r;
    for (let d = 0; d < TYPE_BITS; d++) {
      const off = d * stride;
      const os = rank1At(levelBlocks, off, s);
      const oe = rank1At(levelBlocks, off, e);
      // Each branch: the child of the type's bit at this level.
      if ((type >>> (TYPE_BITS - 1 - d)) & 1) {
        s = zeros[d]! + os;
        e = zeros[d]! + oe;
      } else {
        s -= os;
        e -= oe;
      }
    }
    out[0] = s;
    out[1] = e;
  }

  get byteLength(): number {
    return this.top.byteLength + this.low.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.integer("rankBits", this.rankBits);
    w.integer("plainBits", this.plainBits);
    this.top.serialize(w.child("top"));
    this.low.serialize(w.child("low"));
  }

  /**
   * Restores the array, checking its shape: the widths agree, the low bits are one per position.
   * Values are not checked one by one: a listing never reports a rank outside the [lo, hi) it is
   * asked for, which the search index bounds by its entity count.
   */
  static deserialize(r: SerialReader): DocumentArray {
    const rankBits = r.integer("rankBits");
    const plainBits = r.integer("plainBits");
    const top = WaveletMatrix.deserialize(r.child("top"));
    const low = IntVector.deserialize(r.child("low"));
    if (rankBits < 1 || rankBits > 28 || plainBits > rankBits || plainBits > 30) r.corrupt("bad document array widths");
    if (top.bits !== TYPE_BITS + rankBits - plainBits || low.width !== plainBits || low.length !== top.length) {
      r.corrupt("the document array's levels and low bits do not agree");
    }
    return new DocumentArray(rankBits, plainBits, top, low);
  }

  /**
   * Appends to `out` up to `k` ranks, ascending and distinct, of the entities of type `type`
   * (ANY_TYPE: all) that have a suffix among positions [l, r) and whose rank lies in [lo, hi) but
   * not in the gap [gapLo, gapHi) (none when empty). The gap lets the search index list its infix
   * tier, the ranks on both sides of the prefix tier, in one walk: two walks one after the other
   * would pay the levels' chain of dependent cache misses twice. Returns how many were appended.
   */
  list(
    l: number,
    r: number,
    lo: number,
    hi: number,
    type: number,
    k: number,
    out: RankSink,
    gapLo = 0,
    gapHi = 0,
  ): number {
    const maxRank = 1 << this.rankBits;
    if (hi > maxRank) hi = maxRank;
    // An empty gap excludes nothing: one that never matches a node or a rank.
    if (gapLo >= gapHi) gapLo = gapHi = 0;
    const before = out.length;
    while (out.length - before < k && lo < hi && l < r) {
      // Resuming inside the gap: its first rank after it is the next candidate.
      if (lo >= gapLo && lo < gapHi) lo = gapHi;
      if (lo >= hi) break;
      const resume = this.listRound(l, r, lo, hi, gapLo, gapHi, type, k - (out.length - before), out);
      // The round kept every node that could matter: what it found is all there is. (A resume point
      // that does not move forward only comes from damaged arrays: stop rather than loop.)
      if (resume <= lo) break;
      lo = resume;
    }
    return out.length - before;
  }

  /**
   * One level-by-level walk. Appends what its kept buckets hold (at most `k`); returns the rank to
   * start again from when it kept only part of a level and may have missed entities, else -1.
   */
  private listRound(
    l: number,
    r: number,
    lo: number,
    hi: number,
    gapLo: number,
    gapHi: number,
    type: number,
    k: number,
    out: RankSink,
  ): number {
    const topBits = this.top.bits;
    const R = this.rankBits;
    // Types in play: one band, or all eight side by side.
    const keep = k + (type === ANY_TYPE ? TYPE_COUNT : 1);
    const enough = k * DENSE_POSITIONS_PER_RANK;
    let current = this.frontiers[0];
    let next = this.frontiers[1];
    current.reserve(2 * keep + 2 * TYPE_COUNT);
    next.reserve(2 * keep + 2 * TYPE_COUNT);
    current.starts[0] = l;
    current.ends[0] = r;
    current.paths[0] = 0;
    let size = 1;
    let resume = -1;
    for (let d = 0; d < topBits; d++) {
      let count = this.expandLevel(d, current, size, next, lo, hi, gapLo, gapHi, type);
      // Type levels keep every node; rank levels keep the first ones in rank order, and remember
      // where the dropped part starts.
      if (d >= TYPE_BITS && count > 1) {
        const kept = this.keepFirst(d, next, count, lo, hi, gapLo, gapHi, k, keep, enough);
        if (kept < count) {
          const known = d + 1 - TYPE_BITS;
          const firstDropped = (next.paths[kept]! & ((1 << known) - 1)) << (R - known);
          if (resume < 0 || firstDropped < resume) resume = firstDropped;
          count = kept;
        }
      }
      const done = current;
      current = next;
      next = done;
      size = count;
      if (size === 0) break;
    }
    const appended = this.readBuckets(current, size, lo, hi, gapLo, gapHi, k, out);
    // Buckets kept but not read (the page filled up) need no restart; only dropped nodes do.
    return appended < k ? resume : -1;
  }

  /**
   * Expands the first `size` nodes of `current` (level `d`) into their children, written to `next`,
   * and returns how many: empty children, children of other types than `type`'s, and children whose
   * rank range lies wholly outside [lo, hi) or wholly inside the gap [gapLo, gapHi) are left out. On
   * a rank level the children come out in rank order.
   */
  private expandLevel(
    d: number,
    current: Frontier,
    size: number,
    next: Frontier,
    lo: number,
    hi: number,
    gapLo: number,
    gapHi: number,
    type: number,
  ): number {
    const { levelBlocks, zeros } = this.top;
    const R = this.rankBits;
    const off = d * this.stride;
    const z = zeros[d]!;
    const { starts, ends, paths } = current;
    const { starts: nextStarts, ends: nextEnds, paths: nextPaths } = next;
    // Each branch: a frontier of several nodes first touches the lines its ranks will read.
    if (size > 1) this.touchSink = touchRanks(levelBlocks, off, starts, ends, size);
    let count = 0;
    for (let i = 0; i < size; i++) {
      const s = starts[i]!;
      const e = ends[i]!;
      const p = paths[i]!;
      const os = rank1At(levelBlocks, off, s);
      // Each branch: a node of one position (most nodes of a sparse query's last levels) has its
      // end's count in the same word as its start's; a wider one pays a second rank.
      const oe = e - s === 1 ? os + bitAt(levelBlocks, off, s) : rank1At(levelBlocks, off, e);
      for (let bit = 0; bit < 2; bit++) {
        const cs = bit === 0 ? s - os : z + os;
        const ce = bit === 0 ? e - oe : z + oe;
        if (cs >= ce) continue; // empty child
        const cp = (p << 1) | bit;
        if (d < TYPE_BITS) {
          // A type bit: follow only the filter's type (when there is one).
          if (type !== ANY_TYPE && ((type >>> (TYPE_BITS - 1 - d)) & 1) !== bit) continue;
        } else {
          // A rank bit: drop children wholly outside [lo, hi), or wholly inside the gap.
          // Shifts, not 2 ** x: a variable power is a call to Math.pow, and this runs for every
          // child of every node. R <= 28: no overflow.
          const rankBitsKnown = d + 1 - TYPE_BITS;
          const rp = cp & ((1 << rankBitsKnown) - 1);
          const first = rp << (R - rankBitsKnown);
          const last = first + (1 << (R - rankBitsKnown));
          if (last <= lo || first >= hi || (first >= gapLo && last <= gapHi)) continue;
        }
        nextStarts[count] = cs;
        nextEnds[count] = ce;
        nextPaths[count] = cp;
        count++;
      }
    }
    // A rank level: the children in rank order, by the rank bits known so far (insertion sort: the
    // frontier is short).
    if (d < TYPE_BITS) return count;
    const mask = (1 << (d + 1 - TYPE_BITS)) - 1;
    for (let i = 1; i < count; i++) {
      const s = nextStarts[i]!;
      const e = nextEnds[i]!;
      const p = nextPaths[i]!;
      const key = p & mask;
      let j = i - 1;
      while (j >= 0 && (nextPaths[j]! & mask) > key) {
        nextStarts[j + 1] = nextStarts[j]!;
        nextEnds[j + 1] = nextEnds[j]!;
        nextPaths[j + 1] = nextPaths[j]!;
        j--;
      }
      nextStarts[j + 1] = s;
      nextEnds[j + 1] = e;
      nextPaths[j + 1] = p;
    }
    return count;
  }

  /**
   * How many of the first `count` nodes of `frontier` (rank level `d`, in rank order) to keep: the
   * first groups of equal rank range (the types side by side) until `keep` nodes, or until the
   * groups wholly inside [lo, hi) and clear of the gap [gapLo, gapHi) are k nodes or hold `enough`
   * positions. A
   * dense query's nodes each hold many entities, and walking `keep` of them down every level would
   * be most of a deep unfiltered page (q="i" page 1,000).
   */
  private keepFirst(
    d: number,
    frontier: Frontier,
    count: number,
    lo: number,
    hi: number,
    gapLo: number,
    gapHi: number,
    k: number,
    keep: number,
    enough: number,
  ): number {
    const R = this.rankBits;
    const { starts, ends, paths } = frontier;
    const known = d + 1 - TYPE_BITS;
    const mask = (1 << known) - 1;
    const width = 1 << (R - known);
    let cut = 0;
    let inside = 0;
    // Nodes wholly inside [lo, hi) and clear of the gap: each holds at least one entity of the
    // page, and no two the same one (other ranks or another type), so k of them hold the page and
    // the rest need not be walked down (without a type filter, up to 8 nodes fewer a level).
    let wholeNodes = 0;
    while (cut < count && cut < keep && inside < enough && wholeNodes < k) {
      const key = paths[cut]! & mask;
      const first = key << (R - known);
      // Positions of a node that reaches into the gap may all be the gap's: not counted.
      const whole = first >= lo && first + width <= hi && (first + width <= gapLo || first >= gapHi);
      for (; cut < count && (paths[cut]! & mask) === key; cut++) {
        if (!whole) continue;
        inside += ends[cut]! - starts[cut]!;
        wholeNodes++;
      }
    }
    return cut;
  }

  /**
   * Reads the buckets of the first `size` nodes of `frontier` (the last level), in order: the low bits of each group of
   * equal rank range (different types) marked in one bit set, then emitted ascending, those in
   * [lo, hi) and outside the gap [gapLo, gapHi), at most `k` in all. Returns how many were appended
   * to `out`.
   */
  private readBuckets(
    frontier: Frontier,
    size: number,
    lo: number,
    hi: number,
    gapLo: number,
    gapHi: number,
    k: number,
    out: RankSink,
  ): number {
    const P = this.plainBits;
    const rankMask = (1 << (this.rankBits - P)) - 1;
    const lowMask = (1 << P) - 1;
    const lowWords = this.low.words;
    const seen = this.seen;
    const touched = this.touched;
    const { starts, ends, paths } = frontier;
    // Each branch: several buckets first touch the word each starts in (see touchRanks).
    if (size > 1) this.touchSink = touchWords(lowWords, starts, size, P);
    let appended = 0;
    let i = 0;
    while (i < size && appended < k) {
      const bucket = paths[i]! & rankMask;
      const base = bucket << P;
      const from = Math.max(lo - base, 0);
      const to = Math.min(hi - base, 1 << P);
      // The gap in the bucket's low bits (empty, or outside [0, 2^P), when it misses the bucket).
      const gapFrom = gapLo - base;
      const gapTo = gapHi - base;
      // Mark the bucket's ranks in `seen`, noting each word marked first: only those are read
      // and cleared again (a bucket of a sparse query marks a few words of the 2^P / 32).
      let marked = 0;
      let j = i;
      for (; j < size && (paths[j]! & rankMask) === bucket; j++) {
        // The node's low bits are contiguous: unpack them word by word (a dense query's buckets
        // hold tens of thousands of positions; a get() per position costs twice as much).
        const e = ends[j]!;
        const first = starts[j]! * P;
        let lowWord = Math.floor(first / 32);
        let shift = first - lowWord * 32;
        let word = lowWords[lowWord]!;
        for (let q = starts[j]!; q < e; q++) {
          let v = word >>> shift;
          shift += P;
          if (shift >= 32) {
            word = lowWords[++lowWord]!;
            shift -= 32;
            if (shift > 0) v |= word << (P - shift);
          }
          v &= lowMask;
          if (v >= from && v < to && (v < gapFrom || v >= gapTo)) {
            const seenWord = v >>> 5;
            if (seen[seenWord] === 0) touched[marked++] = seenWord;
            seen[seenWord]! |= 1 << (v & 31);
          }
        }
      }
      sortWords(touched, marked);
      for (let t = 0; t < marked; t++) {
        const seenWord = touched[t]!;
        let word = seen[seenWord]!;
        seen[seenWord] = 0;
        while (word !== 0 && appended < k) {
          const bit = 31 - Math.clz32(word & -word);
          word &= word - 1;
          out.push(base + seenWord * 32 + bit);
          appended++;
        }
      }
      i = j;
    }
    return appended;
  }
}

/**
 * One level of the walk: node i is the interval [starts[i], ends[i]) of the level's positions and
 * paths[i], the bits that lead to it from the root (types, then the rank bits known so far).
 */
class Frontier {
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  paths = new Int32Array(64);

  /** Grows the buffers to hold `n` nodes (what they held is dropped). */
  reserve(n: number): void {
    if (this.starts.length >= n) return;
    const size = Math.max(n, 2 * this.starts.length);
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    this.paths = new Int32Array(size);
  }
}

/**
 * Reads the word of `words` (packed fields of `width` bits) that holds field starts[i], for each
 * of the first `n` nodes, and returns them combined: the buckets' first cache misses all in flight
 * before they are read one after another (touchRanks does the same for the levels).
 */
function touchWords(words: Uint32Array, starts: Int32Array, n: number, width: number): number {
  let sink = 0;
  for (let i = 0; i < n; i++) sink ^= words[Math.floor((starts[i]! * width) / 32)]!;
  return sink;
}

/** Sorts words[0, n) ascending: insertion sort for the few words of a sparse bucket. */
function sortWords(words: Int32Array, n: number): void {
  if (n > INSERTION_SORT_MAX) {
    words.subarray(0, n).sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const w = words[i]!;
    let j = i - 1;
    while (j >= 0 && words[j]! > w) {
      words[j + 1] = words[j]!;
      j--;
    }
    words[j + 1] = w;
  }
}

/**
 * Document counts
 * ===============
 * Owns "how many distinct entities have a suffix in the suffix-array interval [l, r)", with or
 * without a type filter, exactly and in time independent of the interval's size: the `total` of a
 * search (every match has a suffix in the query's interval, so the total is this count).
 *
 * Algorithm: Sadakane's document counting ("Succinct data structures for flexible text retrieval
 * systems", JDA 5(1), 2007). For each two consecutive suffix-array positions i < j of one entity,
 * one mark goes at the position k in (i, j] of the minimum LCP between them (the suffix tree's
 * lowest common ancestor of the two leaves). For the interval [l, r) of any pattern, LCP[l] and
 * LCP[r] are below the pattern's length and every LCP strictly inside is not, so a pair lies wholly
 * inside [l, r) exactly when its mark lies in (l, r): distinct(l, r) = (r - l) - marks in (l, r).
 *
 * Per type. An entity's positions all have its type, so the pairs of one entity are consecutive
 * positions of the type's own subsequence too. The marks are kept in type-subsequence coordinates:
 * a mark at SA position k for an entity of type t sits at k_t = (positions of type t before k);
 * then for [l, r), with l_t and r_t its bounds in the subsequence, a pair lies inside exactly when
 * l_t < k_t < r_t (the same argument, each position of type t counted once). The subsequences are
 * laid side by side as the document array's wavelet matrix lays them below its three type levels
 * (document-array.ts typeRange), so one structure serves all types: a type's [l_t, r_t) is three
 * rank steps on the document array, and the unfiltered count is the sum over the eight types.
 * The marks per coordinate are kept in unary (unary-sums.ts): 2n + o(n) bits in all.
 *
 * Build: the LCP array, permuted (PLCP by Kärkkäinen, Manzini and Puglisi's Phi, CPM 2009: one
 * n-word array where Kasai et al.'s takes two); for each position j, the previous position of its
 * entity, and the minimum LCP between them from a stack of increasing LCPs (the leftmost stack
 * entry after the previous position); then per type its marks sorted and merged with its positions
 * for their k_t, in the room of the counts (countMarks: native sorts and one walk, where a binary
 * search of each mark in the positions would miss the cache at each step). Each position's rank and
 * type are read from the document array's values (the search index's build holds them anyway), not
 * from arrays of their own. O(n log n) time; two n-word arrays of its own at the peak (PLCP, the
 * marks; the positions by type are made in the PLCP's room once it is read), besides the text,
 * suffix array and values.
 *
 * Cost of a count: with a type, 3 levels x 2 ranks + 2 selects; without, 14 nodes x 2 ranks +
 * 16 selects (two or three cache misses each at a million entities, all of them at ten million).
 * Without a type, each level's nodes and then the selects are first touched in one pass of plain
 * loads (bit-vector.ts touchRanks, UnarySums.touch), so that their misses overlap instead of
 * following one another. What count=true adds to a page 1 of the distinct-query stream at 1M
 * entities: p50 about 1.5-3 µs (`npm run bench:stream`, "search count=true page 1" less "search
 * page 1"). Space: (n + marks) * 1.125 bits, marks < n:
 * 0.30 B per code unit of identifiers at 1M generated entities. Serial form: `marks` (UnarySums).
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { UnarySums } from "../succinct/unary-sums.js";
import { DocumentArray, TYPE_BITS, TYPE_COUNT } from "./document-array.js";
import type { SymbolText } from "./fm-index.js";

export class DocumentCounts {
  /** Marks per type-subsequence coordinate (document-array.ts's order below the type levels). */
  readonly marks: UnarySums;
  private readonly starts = new Int32Array(TYPE_COUNT);
  private readonly ends = new Int32Array(TYPE_COUNT);
  private readonly range = new Int32Array(2);
  /** What the touch pass read, kept so that its loads are not optimized away. */
  touchSink = 0;

  constructor(marks: UnarySums) {
    this.marks = marks;
  }

  /**
   * The counts of a text whose suffix array is `suffixArray`, entity rank r owning text positions
   * [starts[r], starts[r + 1]) (later positions belong to none), `values` the document array's values
   * by suffix-array position (DocumentArray.valuesOf: type * 2^R + rank; the two positions past the
   * last entity read rank 0 there). Built before the document array of those values (the search
   * index's build then lets the suffix array and text go before that one's working arrays exist).
   */
  static build(text: SymbolText, suffixArray: Uint32Array, starts: Uint32Array, values: Uint32Array): DocumentCounts {
    const n = suffixArray.length;
    const N = starts.length - 1;
    const rankBits = DocumentArray.rankBitsFor(N);
    const rankMask = 2 ** rankBits - 1;
    const end = starts[N]!;
    const lcp = permutedLcp(text, suffixArray);
    // Coordinates: where each type's subsequence starts below the type levels, and the SA position
    // at each coordinate (ascending within a type). Positions of no entity take rank 0's type, as
    // the document array gives them (and `values` holds).
    const offsets = typeOffsets(values, rankBits);
    // Until the counts are made from them, `counts` holds each type's marks as SA positions, in the
    // type's own coordinates' room (a type has fewer marks than positions: one a position that has
    // an earlier one of its entity).
    const counts = new Uint32Array(n);
    const markFill = offsets.slice();
    const previous = new Int32Array(N).fill(-1);
    // Stack of positions with strictly increasing LCP, bottom to top, each with its LCP (so that
    // popping reads no LCP at a random place); it grows by doubling (it is as deep as the longest
    // common prefix, short unless identifiers repeat).
    let stack = new Int32Array(STACK_START);
    let stackLcp = new Int32Array(STACK_START);
    let top = 0;
    for (let j = 0; j < n; j++) {
      const p = suffixArray[j]!;
      if (j > 0) {
        const v = lcp[p]!;
        while (top > 0 && stackLcp[top - 1]! >= v) top--;
        // A full stack: twice the room, its entries kept.
        if (top === stack.length) {
          stack = grown(stack);
          stackLcp = grown(stackLcp);
        }
        stack[top] = j;
        stackLcp[top++] = v;
      }
      // Each branch: the two positions past the last entity belong to none.
      if (p >= end) continue;
      const r = values[j]! & rankMask;
      const i = previous[r]!;
      previous[r] = j;
      if (i < 0) continue;
      // The minimum LCP in (i, j]: the first stack entry after i.
      let lo = 0;
      let hi = top;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (stack[mid]! > i) hi = mid;
        else lo = mid + 1;
      }
      const t = values[j]! >>> rankBits;
      counts[markFill[t]!++] = stack[lo]!;
    }
    // The SA position at each coordinate, in the room of the PLCP (read for the last time above):
    // the step holds four n-word arrays at once (suffix array, values, PLCP, marks), not five.
    const fill = offsets.slice();
    const positionAt = lcp;
    for (let i = 0; i < n; i++) positionAt[fill[values[i]! >>> rankBits]!++] = i;
    for (let t = 0; t < TYPE_COUNT; t++) countMarks(counts, positionAt, offsets[t]!, markFill[t]!, fill[t]!);
    return new DocumentCounts(UnarySums.from(counts));
  }

  /**
   * Distinct entities of type `type` (-1: any) with a suffix in [l, r) of the document array
   * `documents` (the one this was built with), for an interval [l, r) of some pattern.
   */
  count(documents: DocumentArray, l: number, r: number, type: number): number {
    if (l >= r) return 0;
    if (type >= 0) {
      documents.typeRange(l, r, type, this.range);
      return this.distinctIn(this.range[0]!, this.range[1]!);
    }
    documents.typeRanges(l, r, this.starts, this.ends);
    // The sixteen sums' first reads, all in flight together before the selects read them in turn.
    let sink = 0;
    for (let t = 0; t < TYPE_COUNT; t++) {
      if (this.ends[t]! - this.starts[t]! >= 2)
        sink ^= this.marks.touch(this.starts[t]! + 1) ^ this.marks.touch(this.ends[t]!);
    }
    this.touchSink = sink;
    let total = 0;
    for (let t = 0; t < TYPE_COUNT; t++) total += this.distinctIn(this.starts[t]!, this.ends[t]!);
    return total;
  }

  /** Distinct entities among coordinates [s, e) of one type: positions less the marks in (s, e). */
  private distinctIn(s: number, e: number): number {
    // Each branch: fewer than two positions hold no pair.
    if (e - s < 2) return e - s;
    return e - s - (this.marks.sumBefore(e) - this.marks.sumBefore(s + 1));
  }

  get byteLength(): number {
    return this.marks.byteLength;
  }

  serialize(w: SerialWriter): void {
    this.marks.serialize(w.child("marks"));
  }

  /** Restores the counts of a document array of `positions` positions. */
  static deserialize(r: SerialReader, positions: number): DocumentCounts {
    const marks = UnarySums.deserialize(r.child("marks"));
    if (marks.length !== positions) r.corrupt("the document counts are not of the document array's length");
    if (marks.bits.ones >= Math.max(1, positions)) r.corrupt("more marks than positions");
    return new DocumentCounts(marks);
  }
}

/**
 * Where each type's subsequence starts below the document array's type levels (what its
 * typeRange(0, n, t) gives): the wavelet matrix puts zeros first at each level, stably, from the
 * type's top bit down, so the subsequences lie in the order of their types' bits reversed.
 */
function typeOffsets(values: Uint32Array, rankBits: number): Int32Array {
  const perType = new Int32Array(TYPE_COUNT);
  for (let i = 0; i < values.length; i++) perType[values[i]! >>> rankBits]!++;
  const reversed = (t: number): number => {
    let r = 0;
    for (let b = 0; b < TYPE_BITS; b++) r |= ((t >>> b) & 1) << (TYPE_BITS - 1 - b);
    return r;
  };
  const offsets = new Int32Array(TYPE_COUNT);
  for (let t = 0; t < TYPE_COUNT; t++) {
    for (let u = 0; u < TYPE_COUNT; u++) if (reversed(u) < reversed(t)) offsets[t]! += perType[u]!;
  }
  return offsets;
}

/**
 * One type's marks into counts per coordinate, in place: `counts[s, m)` holds the type's marks as SA
 * positions (in any order), `positionAt[s, e)` the type's SA positions ascending; afterwards
 * `counts[s, e)` holds the marks per coordinate, a mark at SA position k counted at s + (the type's
 * positions before k). The marks are sorted, then walked from the last down beside the positions (a
 * merge: no binary search, no random read). In place because the mark of rank x (from 0) lands at a
 * coordinate above s + x: the x + 1 marks up to it each come from a pair (i, j) of their own whose
 * earlier position i lies before it, so the type has x + 1 positions or more before it; walking
 * down, every slot written or cleared was already read.
 *
 * Cost: O((m - s) log(m - s) + (e - s)).
 */
function countMarks(counts: Uint32Array, positionAt: Int32Array, s: number, m: number, e: number): void {
  counts.subarray(s, m).sort();
  // Slots [w, e) hold their final counts; p is where the positions at or after the current mark begin.
  let w = e;
  let p = e;
  for (let x = m - 1; x >= s; x--) {
    const k = counts[x]!;
    while (p > s && positionAt[p - 1]! >= k) p--;
    // Each branch: the mark's coordinate p is below the slots done (those between are cleared), or
    // is the lowest of them (one more mark there).
    if (p < w) {
      counts.fill(0, p + 1, w);
      counts[p] = 1;
      w = p;
    } else counts[p]!++;
  }
  counts.fill(0, s, w);
}

/** The stack's first size (it doubles when full). */
const STACK_START = 1024;

/** A copy of `a` in an array twice as long. */
function grown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(2 * a.length);
  b.set(a);
  return b;
}

/**
 * The permuted LCP array: PLCP[p] = longest common prefix of the suffix at text position p and the
 * one before it in suffix-array order (0 for the first), so LCP[i] = PLCP[SA[i]]. Kärkkäinen,
 * Manzini and Puglisi's Phi algorithm ("Permuted Longest-Common-Prefix Array", CPM 2009): Phi[p] =
 * SA[SA^-1[p] - 1], then Kasai's argument in text order (PLCP[p + 1] >= PLCP[p] - 1), each Phi
 * entry overwritten by its PLCP once read. One n-word array, where Kasai's needs two (the inverse
 * suffix array and LCP); the counts' pass reads it at SA[j], a position it reads anyway.
 */
function permutedLcp(text: SymbolText, suffixArray: Uint32Array): Int32Array {
  const n = suffixArray.length;
  const plcp = new Int32Array(n);
  if (n === 0) return plcp;
  plcp[suffixArray[0]!] = -1;
  for (let i = 1; i < n; i++) plcp[suffixArray[i]!] = suffixArray[i - 1]!;
  let h = 0;
  for (let p = 0; p < n; p++) {
    const q = plcp[p]!;
    // The first suffix in SA order has none before it.
    if (q < 0) {
      h = 0;
      plcp[p] = 0;
      continue;
    }
    while (p + h < n && q + h < n && text[p + h] === text[q + h]) h++;
    plcp[p] = h;
    if (h > 0) h--;
  }
  return plcp;
}

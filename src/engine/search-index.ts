/**
 * Search index
 * ============
 * Substring search over folded raw identifiers, listing each matching entity once, in the contract's
 * order (tier, folded identifier, entityId), from any resume point, at a cost that does not grow with
 * the number of matches.
 *
 * Structures, over the entities sorted by (folded identifier, entityId): that position is the
 * entity's *rank*, and rank order is the contract's order within a tier.
 *  - `text`: the folded identifiers in rank order, each followed by a separator (UTF-16 code units;
 *    a bitset marks separators, so an identifier may itself contain U+0000).
 *  - `suffixArray`: built by SA-IS in linear time over `text` (separator = 0, code unit c = c + 1).
 *    The suffixes that start with the folded query form one interval [l, r), found by two binary
 *    searches: O(|q| log n).
 *  - `documents`: a wavelet matrix over the document array (for suffix i, the entity it lies in),
 *    storing type * 2^B + rank. One pruned depth-first walk (`rangeDistinct`) lists the k smallest
 *    distinct values of a band in [l, r) without touching the other matches: Muthukrishnan's
 *    document listing, answered with a wavelet structure (Gagie, Navarro, Puglisi 2012; Välimäki and
 *    Mäkinen 2007). A type filter is one band; no filter walks the 8 bands in rounds, each asked
 *    for a fair share of what the page still needs.
 *  - Tiers 0 and 1 (equal to / starting with the query) are a contiguous rank range [a, b), found by
 *    binary search: tier 0 is its head [a, e) whose identifiers have the query's length. With a type
 *    filter, `typeRanks` (ranks grouped by type, ascending) gives the same range per type.
 *    Tier 2 is every entity of the interval whose rank lies outside [a, b).
 *
 * A page of k items costs O(|q| log n + (k + 8) log N) node visits whatever the number of matches or the page
 * number. Memory: 2 (text) + 4 (suffix array) + about (B + 3) * 1.13 / 8 (wavelet matrix) bytes per
 * character, plus 12 bytes per entity (starts, rankToId, typeRanks).
 *
 * Serial form (engine/serial.ts): the arrays above by name, `rankBits`, and the wavelet matrix under
 * `documents`. `deserialize` checks every length and width, that no stored value of the document
 * array lies beyond the last rank of its band (a few range-successor walks); with `verify` also that
 * starts ascend and end on a separator, that the suffix array stays inside the text, that rankToId
 * is a permutation, and that typeRanks lists, per type, ascending ranks of entities of that type.
 * Not checked (it would cost a sort): that the suffix array is the sorted one, and the ranks' order.
 */

import { checkBelow, checkLength, type SerialReader, type SerialWriter } from "./serial.js";
import { buildSuffixArray } from "./suffix-array.js";
import { MAX_WAVELET_BITS, WaveletMatrix } from "./wavelet-matrix.js";

/** Number of entity type bands (types "0".."7"). */
export const TYPE_COUNT = 8;
const SEPARATOR_SYMBOL = 0;
/** UTF-16 code units shifted by one to leave room for the separator. */
const ALPHABET_SIZE = 0x10000 + 1;

/** Match tiers, in the contract's order. */
export const TIER_EXACT = 0;
export const TIER_PREFIX = 1;
export const TIER_INFIX = 2;

/** Where a page resumes: the last item's (tier, folded identifier, entityId). */
export interface SearchKey {
  tier: number;
  folded: string;
  entityId: string;
}

/**
 * Each band's share of a round of the unfiltered listing: twice its even part of what is still
 * needed, plus two. Bands rarely hold exactly their even part, and every extra round repeats each
 * band's descent (about 40 rank operations); with this share one round settles most pages
 * (YAGO3-10, q="e" deep page: 22 walks -> 8).
 */
const SHARE_FACTOR = 2;
const SHARE_SLACK = 2;

/** The `limit` smallest of two ascending lists of distinct numbers (ranks of different bands), ascending. */
function mergeSmallest(x: number[], y: number[], limit: number): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < x.length || j < y.length)) {
    if (j >= y.length || (i < x.length && (x[i] as number) < (y[j] as number))) out.push(x[i++] as number);
    else out.push(y[j++] as number);
  }
  return out;
}

/** Code units per String.fromCharCode call: bounded, so a multi-megabyte identifier cannot overflow the stack. */
const DECODE_CHUNK = 8192;

/** UTF-16 code units to a string, lone surrogates kept as they are (TextDecoder would replace them). */
function codeUnitsToString(units: Uint16Array): string {
  if (units.length <= DECODE_CHUNK) return String.fromCharCode.apply(null, units as unknown as number[]);
  let s = "";
  for (let i = 0; i < units.length; i += DECODE_CHUNK) {
    s += String.fromCharCode.apply(null, units.subarray(i, i + DECODE_CHUNK) as unknown as number[]);
  }
  return s;
}

/** Ranks and tiers of the items of a page (plus the look-ahead item). */
export interface SearchHits {
  ranks: number[];
  tiers: number[];
}

/** Everything a search index is made of: built once, or read back from a snapshot. */
export interface SearchIndexParts {
  text: Uint16Array;
  separators: Uint32Array;
  starts: Uint32Array;
  rankToId: Uint32Array;
  suffixArray: Uint32Array;
  documents: WaveletMatrix;
  rankBits: number;
  typeRanks: Uint32Array;
  typeStarts: Uint32Array;
}

export class SearchIndex {
  readonly text: Uint16Array;
  readonly separators: Uint32Array;
  readonly starts: Uint32Array;
  readonly rankToId: Uint32Array;
  readonly suffixArray: Uint32Array;
  readonly documents: WaveletMatrix;
  readonly rankBits: number;
  readonly typeRanks: Uint32Array;
  readonly typeStarts: Uint32Array;
  /** The entityIds in dense-id order (owned by the graph's dictionary). */
  private readonly ids: readonly string[];
  private readonly bandWidth: number;
  private distinctOut = new Int32Array(0);
  /** Per type band: the next rank to fetch from, while a page is being listed. */
  private readonly bandStart = new Float64Array(TYPE_COUNT);

  constructor(parts: SearchIndexParts, ids: readonly string[]) {
    this.text = parts.text;
    this.separators = parts.separators;
    this.starts = parts.starts;
    this.rankToId = parts.rankToId;
    this.suffixArray = parts.suffixArray;
    this.documents = parts.documents;
    this.rankBits = parts.rankBits;
    this.typeRanks = parts.typeRanks;
    this.typeStarts = parts.typeStarts;
    this.ids = ids;
    this.bandWidth = 2 ** parts.rankBits;
  }

  get entityCount(): number {
    return this.rankToId.length;
  }

  /**
   * Builds the index. `folded[d]` and `types[d]` belong to dense id d; `ids` are the entityIds by
   * dense id (ascending), used to break ties between equal folded identifiers.
   */
  static build(
    folded: readonly string[],
    types: Uint8Array,
    ids: readonly string[],
    onProgress?: (done: number, total: number) => void,
  ): SearchIndex {
    const n = folded.length;
    const total = 4;
    // Rank order: (folded identifier, entityId); dense ids already follow entityId order.
    const byRank = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      const a = folded[x] as string;
      const b = folded[y] as string;
      return a < b ? -1 : a > b ? 1 : x - y;
    });
    const rankToId = Uint32Array.from(byRank);
    onProgress?.(1, total);

    const starts = new Uint32Array(n + 1);
    let length = 0;
    for (let r = 0; r < n; r++) {
      starts[r] = length;
      length += (folded[rankToId[r] as number] as string).length + 1;
    }
    starts[n] = length;
    const text = new Uint16Array(length);
    const separators = new Uint32Array(Math.ceil(length / 32));
    const symbols = new Int32Array(length);
    for (let r = 0; r < n; r++) {
      const s = folded[rankToId[r] as number] as string;
      const at = starts[r] as number;
      for (let k = 0; k < s.length; k++) {
        const c = s.charCodeAt(k);
        text[at + k] = c;
        symbols[at + k] = c + 1;
      }
      const sep = at + s.length;
      symbols[sep] = SEPARATOR_SYMBOL;
      separators[sep >>> 5] = (separators[sep >>> 5] as number) | (1 << (sep & 31));
    }
    const suffixArray = buildSuffixArray(symbols, ALPHABET_SIZE);
    onProgress?.(2, total);

    // Document array: for each suffix, type band * 2^B + rank of the entity it starts in.
    const rankBits = Math.max(1, Math.ceil(Math.log2(Math.max(n, 2))));
    const band = 2 ** rankBits;
    const docOfPosition = symbols; // reuse: the symbols are no longer needed
    for (let r = 0; r < n; r++) docOfPosition.fill(r, starts[r] as number, starts[r + 1] as number);
    const values = new Uint32Array(length);
    for (let i = 0; i < length; i++) {
      const r = docOfPosition[suffixArray[i] as number] as number;
      values[i] = (types[rankToId[r] as number] as number) * band + r;
    }
    const documents = WaveletMatrix.build(values, rankBits + 3);
    onProgress?.(3, total);

    // Ranks grouped by type, ascending within each type.
    const typeStarts = new Uint32Array(TYPE_COUNT + 1);
    for (let r = 0; r < n; r++) (typeStarts[(types[rankToId[r] as number] as number) + 1] as number)++;
    for (let t = 1; t <= TYPE_COUNT; t++) typeStarts[t] = (typeStarts[t] as number) + (typeStarts[t - 1] as number);
    const fill = typeStarts.slice(0, TYPE_COUNT);
    const typeRanks = new Uint32Array(n);
    for (let r = 0; r < n; r++) {
      const t = types[rankToId[r] as number] as number;
      typeRanks[fill[t] as number] = r;
      fill[t] = (fill[t] as number) + 1;
    }
    onProgress?.(4, total);
    return new SearchIndex(
      { text, separators, starts, rankToId, suffixArray, documents, rankBits, typeRanks, typeStarts },
      ids,
    );
  }

  /** Writes the serial form (see the banner). */
  serialize(w: SerialWriter): void {
    w.array("text", this.text);
    w.array("separators", this.separators);
    w.array("starts", this.starts);
    w.array("rankToId", this.rankToId);
    w.array("suffixArray", this.suffixArray);
    w.integer("rankBits", this.rankBits);
    w.array("typeRanks", this.typeRanks);
    w.array("typeStarts", this.typeStarts);
    this.documents.serialize(w.child("documents"));
  }

  /**
   * Restores an index from its serial form, for the entities whose entityIds (ascending, by dense id)
   * and types are given, checking it (see the banner).
   */
  static deserialize(r: SerialReader, entities: { ids: readonly string[]; types: Uint8Array }): SearchIndex {
    const { ids, types } = entities;
    const n = ids.length;
    const text = r.uint16("text");
    const length = text.length;
    const separators = r.uint32("separators");
    const starts = r.uint32("starts");
    const rankToId = r.uint32("rankToId");
    const suffixArray = r.uint32("suffixArray");
    const rankBits = r.integer("rankBits");
    const typeRanks = r.uint32("typeRanks");
    const typeStarts = r.uint32("typeStarts");
    checkLength(r, "separators", separators, Math.ceil(length / 32), "one bit per code unit of the text");
    checkLength(r, "starts", starts, n + 1, "one per entity, plus the end");
    checkLength(r, "rankToId", rankToId, n, "one per entity");
    checkLength(r, "suffixArray", suffixArray, length, "one per code unit of the text");
    checkLength(r, "typeRanks", typeRanks, n, "one per entity");
    checkLength(r, "typeStarts", typeStarts, TYPE_COUNT + 1, "one per type, plus the end");
    if (starts[0] !== 0 || starts[n] !== length) r.corrupt("starts do not span the text");
    if (typeStarts[0] !== 0 || typeStarts[TYPE_COUNT] !== n) r.corrupt("typeStarts do not span the entities");
    for (let t = 0; t < TYPE_COUNT; t++) {
      if (typeStarts[t + 1]! < typeStarts[t]!) r.corrupt(`typeStarts ${t} and ${t + 1} are out of order`);
    }
    // Ranks are stored in a band of 2^rankBits values per type, 8 bands in all, within 31 bits.
    if (!(rankBits >= 1 && rankBits + 3 <= MAX_WAVELET_BITS && 2 ** rankBits >= n))
      r.corrupt(`rankBits ${rankBits} cannot hold ${n} entities`);
    const documents = WaveletMatrix.deserialize(r.child("documents"));
    if (documents.length !== length || documents.bits !== rankBits + 3)
      r.corrupt(
        `documents hold ${documents.length} values of ${documents.bits} bits, expected ${length} of ${rankBits + 3}`,
      );
    if (r.verify) {
      for (let rank = 0; rank < n; rank++) {
        const end = starts[rank + 1]!;
        // Every identifier is followed by its separator, so consecutive starts differ by at least one.
        if (end <= starts[rank]!) r.corrupt(`start ${rank + 1} does not follow start ${rank}`);
        const sep = end - 1;
        if (((separators[sep >>> 5]! >>> (sep & 31)) & 1) === 0)
          r.corrupt(`the text lacks the separator after rank ${rank}`);
      }
      checkBelow(r, "suffixArray", suffixArray, length, "positions in the text");
      const seen = new Uint8Array(n);
      for (let rank = 0; rank < n; rank++) {
        const id = rankToId[rank]!;
        if (id >= n || seen[id] === 1) r.corrupt("rankToId is not a permutation");
        seen[id] = 1;
      }
      for (let t = 0; t < TYPE_COUNT; t++) {
        for (let i = typeStarts[t]!; i < typeStarts[t + 1]!; i++) {
          const rank = typeRanks[i]!;
          // Ranks of one type ascend (the index binary-searches them) and are of that type.
          if (rank >= n || (i > typeStarts[t]! && rank <= typeRanks[i - 1]!))
            r.corrupt(`typeRanks of type ${t} are out of range or order`);
          if (types[rankToId[rank]!] !== t) r.corrupt(`typeRanks of type ${t} list an entity of another type`);
        }
      }
    }
    // With true counts, range successor is exact: no value may lie past the last rank of its band.
    const band = 2 ** rankBits;
    for (let t = 0; t < TYPE_COUNT; t++) {
      if (documents.rangeSuccessor(0, length, t * band + n, (t + 1) * band) >= 0)
        r.corrupt(`documents hold a rank of type ${t} beyond the ${n} entities`);
    }
    return new SearchIndex(
      { text, separators, starts, rankToId, suffixArray, documents, rankBits, typeRanks, typeStarts },
      ids,
    );
  }

  /** The dense id of the entity at `rank`. */
  idAt(rank: number): number {
    return this.rankToId[rank] as number;
  }

  /** The folded identifier of the entity at `rank`. */
  foldedAt(rank: number): string {
    return codeUnitsToString(this.text.subarray(this.starts[rank] as number, (this.starts[rank + 1] as number) - 1));
  }

  /**
   * Up to `count` matches of the folded query `pattern`, of type `type` (-1: any), strictly after
   * `after` in the contract's order (null: from the start).
   */
  find(pattern: string, type: number, after: SearchKey | null, count: number): SearchHits {
    const hits: SearchHits = { ranks: [], tiers: [] };
    const [l, r] = this.suffixInterval(pattern);
    if (l >= r || count <= 0) return hits;
    const [a, b] = this.prefixRankRange(pattern);
    const e = this.exactEnd(a, b, pattern.length);
    // Resume point: the first rank after the key; an absent key starts every tier at its beginning.
    const x = after === null ? 0 : this.rankAfter(after.folded, after.entityId);
    const fromTier = after === null ? TIER_EXACT : after.tier;
    if (fromTier <= TIER_EXACT)
      this.listRanks(a, e, fromTier === TIER_EXACT && after !== null ? x : a, type, TIER_EXACT, count, hits);
    if (fromTier <= TIER_PREFIX) this.listRanks(e, b, fromTier === TIER_PREFIX ? x : e, type, TIER_PREFIX, count, hits);
    this.listInfix(l, r, a, b, fromTier === TIER_INFIX ? x : 0, type, count, hits);
    return hits;
  }

  /** Tiers 0 and 1: ranks in [lo, hi) from `from` on, of the given type, appended to `hits`. */
  private listRanks(
    lo: number,
    hi: number,
    from: number,
    type: number,
    tier: number,
    count: number,
    hits: SearchHits,
  ): void {
    const start = Math.max(lo, Math.min(from, hi));
    if (type < 0) {
      // No type filter: the tier is a contiguous rank range.
      for (let rank = start; rank < hi && hits.ranks.length < count; rank++) {
        hits.ranks.push(rank);
        hits.tiers.push(tier);
      }
      return;
    }
    // Type filter: walk the type's own sorted ranks, so other types are never skipped over.
    const end = this.typeStarts[type + 1] as number;
    for (let i = this.lowerBoundInType(type, start); i < end && hits.ranks.length < count; i++) {
      const rank = this.typeRanks[i] as number;
      if (rank >= hi) break;
      hits.ranks.push(rank);
      hits.tiers.push(tier);
    }
  }

  /** Tier 2: distinct entities of suffix interval [l, r), ranks >= from, outside [a, b). */
  private listInfix(
    l: number,
    r: number,
    a: number,
    b: number,
    from: number,
    type: number,
    count: number,
    hits: SearchHits,
  ): void {
    const need = count - hits.ranks.length;
    if (need <= 0) return;
    if (type >= 0) {
      // One type: its band's first `need` ranks, in one walk per segment.
      for (const rank of this.bandRanks(l, r, a, b, type, from, need)) this.pushInfix(rank, hits);
      return;
    }
    // Any type: the 8 bands are fetched in rounds, each band a share of what is still needed.
    // After a round, every band not yet exhausted has shown all its ranks up to its last one, so
    // every rank seen up to the smallest of those "last ones" is final, in order. Rounds cost a walk
    // per band each, so the share is generous (SHARE_FACTOR); asking each band for a whole page
    // would fetch up to 8 pages.
    const start = this.bandStart;
    const open: number[] = [];
    for (let t = 0; t < TYPE_COUNT; t++) {
      // A type with no entities at all can never supply a match: leave its band out.
      if (this.typeStarts[t] !== this.typeStarts[t + 1]) {
        open.push(t);
        start[t] = from;
      }
    }
    let pool: number[] = [];
    let remaining = need;
    while (remaining > 0 && open.length > 0) {
      const share = Math.ceil((SHARE_FACTOR * remaining) / open.length) + SHARE_SLACK;
      let settled = this.entityCount; // every pooled rank below this is final
      for (let i = open.length - 1; i >= 0; i--) {
        const t = open[i] as number;
        const found = this.bandRanks(l, r, a, b, t, start[t] as number, share);
        if (found.length > 0) pool = mergeSmallest(pool, found, Infinity);
        if (found.length < share)
          open.splice(i, 1); // exhausted: all its ranks are in the pool
        else {
          const last = found[found.length - 1] as number;
          start[t] = last + 1;
          if (last + 1 < settled) settled = last + 1;
        }
      }
      let k = 0;
      while (k < pool.length && k < remaining && (pool[k] as number) < settled)
        this.pushInfix(pool[k++] as number, hits);
      pool = pool.slice(k);
      remaining -= k;
    }
  }

  private pushInfix(rank: number, hits: SearchHits): void {
    hits.ranks.push(rank);
    hits.tiers.push(TIER_INFIX);
  }

  /** Up to `need` ascending ranks >= from of band `type` in documents [l, r), outside [a, b). */
  private bandRanks(l: number, r: number, a: number, b: number, type: number, from: number, need: number): number[] {
    const base = type * this.bandWidth;
    const out = this.scratch(need);
    let n = 0;
    // Tier 2 ranks lie in two segments: below the prefix range [a, b), and above it.
    if (from < a) n = this.documents.rangeDistinct(l, r, base + from, base + a, out, need);
    const highStart = Math.max(from, b);
    if (n < need && highStart < this.entityCount) {
      n += this.documents.rangeDistinct(l, r, base + highStart, base + this.entityCount, out.subarray(n), need - n);
    }
    const ranks = new Array<number>(n);
    for (let i = 0; i < n; i++) ranks[i] = (out[i] as number) - base;
    return ranks;
  }

  /** A reusable output buffer for rangeDistinct, grown on demand (search is synchronous). */
  private scratch(size: number): Int32Array {
    if (this.distinctOut.length < size) this.distinctOut = new Int32Array(size);
    return this.distinctOut;
  }

  private lowerBoundInType(type: number, rank: number): number {
    let lo = this.typeStarts[type] as number;
    let hi = this.typeStarts[type + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.typeRanks[mid] as number) < rank) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Suffix-array interval of the suffixes that start with `pattern`. */
  private suffixInterval(pattern: string): [number, number] {
    const n = this.suffixArray.length;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareSuffix(this.suffixArray[mid] as number, pattern) < 0) lo = mid + 1;
      else hi = mid;
    }
    const l = lo;
    hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareSuffix(this.suffixArray[mid] as number, pattern) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return [l, lo];
  }

  /** Compares the suffix at text position `at`, cut to |pattern|, with the pattern (0 = prefix match). */
  private compareSuffix(at: number, pattern: string): number {
    const text = this.text;
    const n = text.length;
    for (let k = 0; k < pattern.length; k++) {
      const j = at + k;
      if (j >= n) return -1;
      const sep = ((this.separators[j >>> 5] as number) >>> (j & 31)) & 1;
      const c = sep === 1 ? SEPARATOR_SYMBOL : (text[j] as number) + 1;
      const d = c - (pattern.charCodeAt(k) + 1);
      if (d !== 0) return d;
    }
    return 0;
  }

  /** Ranks [a, b) whose folded identifier starts with `pattern`. */
  private prefixRankRange(pattern: string): [number, number] {
    const n = this.entityCount;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareSuffix(this.starts[mid] as number, pattern) < 0) lo = mid + 1;
      else hi = mid;
    }
    const a = lo;
    hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareSuffix(this.starts[mid] as number, pattern) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return [a, lo];
  }

  /** End of tier 0 within [a, b): identifiers of exactly `length` code units sort first there. */
  private exactEnd(a: number, b: number, length: number): number {
    let lo = a;
    let hi = b;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.starts[mid + 1] as number) - (this.starts[mid] as number) - 1 === length) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first rank whose (folded identifier, entityId) is greater than the given key. */
  private rankAfter(folded: string, entityId: string): number {
    let lo = 0;
    let hi = this.entityCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareRankToKey(mid, folded, entityId) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private compareRankToKey(rank: number, folded: string, entityId: string): number {
    const text = this.text;
    const at = this.starts[rank] as number;
    const len = (this.starts[rank + 1] as number) - at - 1;
    const m = Math.min(len, folded.length);
    for (let k = 0; k < m; k++) {
      const d = (text[at + k] as number) - folded.charCodeAt(k);
      if (d !== 0) return d;
    }
    if (len !== folded.length) return len - folded.length;
    const id = this.ids[this.rankToId[rank] as number] as string;
    return id < entityId ? -1 : id > entityId ? 1 : 0;
  }

  get byteLength(): number {
    return (
      this.text.byteLength +
      this.separators.byteLength +
      this.starts.byteLength +
      this.rankToId.byteLength +
      this.suffixArray.byteLength +
      this.documents.byteLength +
      this.typeRanks.byteLength +
      this.typeStarts.byteLength
    );
  }
}

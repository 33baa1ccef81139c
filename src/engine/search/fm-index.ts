/**
 * FM-index over the folded identifiers
 * ====================================
 * Owns the question "which suffixes of the identifier text start with this string?", answered
 * without the suffix array and without the text: backward search over the Burrows-Wheeler transform
 * (Ferragina and Manzini, "Opportunistic data structures with applications", FOCS 2000).
 *
 * Text. The folded identifiers in rank order (the search index's order), each preceded by a
 * separator `$`, then a final `$` and a unique terminator `#`:
 *
 *     T = $ id_0 $ id_1 ... $ id_{N-1} $ #        symbols: # = 0, $ = 1, code unit u = 2 + dense(u)
 *
 * where dense() numbers the code units that occur, in code-unit order, so symbol order is the
 * contract's (UTF-16 code unit) order. With `#` unique and smallest, sorting suffixes is sorting
 * rotations and the LF property holds everywhere. Suffix-array position 0 is `#`, 1 is `$#`, and
 * positions 2 .. N+1 are the suffixes `$ id_r ...` in identifier order: so the suffixes starting
 * with `$q` are the identifiers starting with q, and `lowerBound($q) - 2` counts the identifiers
 * below q. The search index reads its tiers off these counts.
 *
 * Backward search: the suffixes starting with cP form the interval C[c] + rank_c(BWT, [sp, ep)) of
 * those starting with P; `lowerBound` is the same recurrence for a string that may not occur (the
 * number of suffixes below it), which places a cursor's key on a rebuilt graph.
 *
 * rank_c on the BWT: alphabet partitioning (Barbay, Claude, Gagie, Navarro, Nekrich, "Efficient
 * fully-compressed sequence representations", Algorithmica 69, 2014). The 2^h - 1 most frequent
 * symbols are classes of their own; the rest share one "rare" class. The class of every position is
 * held as blocked symbol ranks (succinct/symbol-ranks.ts: each block's counts of every class beside
 * its h bit-planes, so a rank's reads all follow from the position: one round of cache misses, where
 * a wavelet matrix of h levels chains h of them, which at 10M entities no longer fit the cache),
 * or, for a class code wider than MAX_SYMBOL_BITS, a wavelet matrix of h levels; a second matrix
 * holds the rare symbols of the rare positions only. h is chosen at build to minimize the bits. In
 * a matrix, rank_c(i) is the bottom position of i along c's path minus the bottom start of c
 * (precomputed), so a pair of ranks (sp and ep) costs one rank per level each, and the two are
 * independent loads. A snapshot of formats 5 to 7 stored the classes as a wavelet matrix: it is
 * turned into the blocked ranks at open (SymbolRanks.fromWavelet, n x h bit reads).
 *
 * A k-gram table: the suffix-array interval of every K_GRAM-symbol string that starts a suffix
 * (separators included, so "$ab" is there too), in an open-addressing hash table, so backward search
 * starts from the interval of the pattern's last K_GRAM code units and walks only the rest. Names
 * have few distinct trigrams (24k in 1M generated names); on text with very many, the table keeps
 * the most frequent, up to MAX_K_GRAMS, and a pattern that ends with another one walks from scratch.
 * The table also holds, derived from its trigrams by one LF step each (when the index is made or
 * opened, so a table saved without them gets them too), the intervals of the 2-grams of code units
 * and of "$" + each trigram of code units (identifiers that start with it): a query of 2 or 3 code
 * units, and the prefix tier of one, then costs table probes and no LF step (so does the empty
 * prefix tier of a longer query whose first three no identifier starts with), where a step costs a
 * round of cache misses for the classes and one per level of the rare matrix for a rare symbol.
 * Keys of different lengths never meet: a key of K symbols lies in [sigma^(K-1), sigma^K), its last
 * symbol being at least the separator.
 *
 * Cost: a pattern of m code units takes m - K_GRAM LF steps after one table probe (m steps when its
 * last K_GRAM are not in the table; none for m = 2), each two class ranks (rare symbols: + the
 * rare matrix's levels); its identifiers' interval, one step more (a probe for m <= K_GRAM).
 * Space: about h + 2^h / 16 (the blocked classes) + rare share * h2 * 1.125 bits per text symbol,
 * plus 4 bytes per alphabet symbol (C) and a 256 KB code-unit map. Build: SA-IS (linear), the BWT (one pass),
 * the blocked classes and the rare matrix.
 */

import { BitVector, rank1At } from "../succinct/bit-vector.js";
import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";
import { buildSuffixArray } from "../succinct/suffix-array.js";
import { SymbolRanks, symbolBitsFit } from "../succinct/symbol-ranks.js";
import { WaveletMatrix } from "../succinct/wavelet-matrix.js";

export const TERMINATOR = 0;
export const SEPARATOR = 1;
const FIRST_UNIT_SYMBOL = 2;
/** Code units: 2^16. */
const UNITS = 0x10000;
/** Widest class code tried for the frequent symbols. */
const MAX_CLASS_BITS = 12;
/** Symbols per k-gram of the table (see the banner). */
export const K_GRAM = 3;
/** Most k-grams kept, whatever the text: 2^18 (4 MiB of table at most). */
export const MAX_K_GRAMS = 1 << 18;
/** Keys are exact in a double up to 2^53: the derived 4-symbol keys ("$" + a trigram) need sigma^4 below it. */
const MAX_EXACT_KEY = 2 ** 53;

/** A half-open interval [sp, ep) of suffix-array positions. */
export interface SuffixInterval {
  sp: number;
  ep: number;
}

/** What FMIndex.build produces besides the index: what the document array is built from. */
export interface FMBuild {
  index: FMIndex;
  /** The suffix array of T (the document array needs it once; then it is dropped). */
  suffixArray: Uint32Array;
  /** starts[r] = position in T of the `$` before id_r; starts[N] = position of the final `$`. */
  starts: Uint32Array;
  /** T as symbols (document counting reads it once for the LCP array; then it is dropped). */
  text: SymbolText;
}

/**
 * Calls FMIndex.build makes between its steps, each optional: what a caller that owns the input and
 * watches its memory (load/search-index-thread.ts) does there.
 */
export interface FMBuildSteps {
  /** The text is made: the identifiers are not read again (their strings may go). */
  textMade?: () => void;
  /**
   * The suffix array is made: the build holds the text and the suffix array (six bytes a position),
   * its least from here to its end; what comes next (the BWT, the class values and their matrix's
   * partition) holds ten bytes a position more at its peak.
   */
  suffixArrayMade?: () => void;
}

/**
 * Symbols of a text under construction: two bytes each when the alphabet fits (every text but one
 * using nearly all 65,536 code units), four otherwise. Halves the build's largest arrays but the
 * suffix array (text and BWT: 4 of the about 35 bytes a text position the search index's build
 * holds at its peak).
 */
export type SymbolText = Uint16Array | Int32Array;

/** Largest alphabet whose symbols fit a Uint16Array. */
const UINT16_SYMBOLS = 0x10000;

/** `length` zeroed symbols for an alphabet of `sigma`, as narrow as it allows. */
function symbolArray(length: number, sigma: number): SymbolText {
  // Each branch: two bytes a symbol when every symbol fits them, else four.
  return sigma <= UINT16_SYMBOLS ? new Uint16Array(length) : new Int32Array(length);
}

/** Rank of one symbol at two positions: what a backward-search step asks of a sequence. */
interface PairRanks {
  readonly bits: number;
  readonly length: number;
  readonly byteLength: number;
  /** rank_v(i) and rank_v(j), written to out[0], out[1]. */
  rankPair(v: number, i: number, j: number, out: Int32Array): void;
}

/** One wavelet matrix plus the bottom start of each value's node (rank by final position). */
class RankedMatrix implements PairRanks {
  readonly wm: WaveletMatrix;
  readonly stride: number;
  /** bottom[v] = start of value v's range at the bottom level. */
  readonly bottom: Int32Array;

  constructor(wm: WaveletMatrix) {
    this.wm = wm;
    this.stride = BitVector.blocksLength(wm.length);
    const values = 2 ** wm.bits;
    this.bottom = new Int32Array(values);
    for (let v = 0; v < values; v++) this.bottom[v] = this.descend(v, 0);
  }

  /** Where position i goes at the bottom when following value v's bits. */
  descend(v: number, i: number): number {
    const { levelBlocks, zeros, bits } = this.wm;
    for (let d = 0, off = 0; d < bits; d++, off += this.stride) {
      const ones = rank1At(levelBlocks, off, i);
      i = (v >>> (bits - 1 - d)) & 1 ? zeros[d]! + ones : i - ones;
    }
    return i;
  }

  /** rank_v(i) and rank_v(j), written to out[0], out[1]; the two walks interleave level by level. */
  rankPair(v: number, i: number, j: number, out: Int32Array): void {
    const { levelBlocks, zeros, bits } = this.wm;
    for (let d = 0, off = 0; d < bits; d++, off += this.stride) {
      const oi = rank1At(levelBlocks, off, i);
      const oj = rank1At(levelBlocks, off, j);
      if ((v >>> (bits - 1 - d)) & 1) {
        const z = zeros[d]!;
        i = z + oi;
        j = z + oj;
      } else {
        i -= oi;
        j -= oj;
      }
    }
    const base = this.bottom[v]!;
    out[0] = i - base;
    out[1] = j - base;
  }

  get bits(): number {
    return this.wm.bits;
  }

  get length(): number {
    return this.wm.length;
  }

  get byteLength(): number {
    return this.wm.byteLength + this.bottom.byteLength;
  }
}

export class FMIndex {
  /** Length of T. */
  readonly length: number;
  /** Number of identifiers. */
  readonly count: number;
  /** C[s] = occurrences in T of symbols below s; C has sigma + 1 entries. */
  readonly C: Uint32Array;
  /** unitOf[s - 2] = the code unit of symbol s. */
  readonly unitOf: Uint16Array;
  /** For each code unit u: the symbol of the smallest code unit >= u that occurs (sigma when none). */
  private readonly symbolAtOrAbove: Int32Array;
  /** Class code per symbol; `rareClass` marks the symbols of the rare matrix. */
  private readonly classOf: Int32Array;
  /** Code in the rare matrix per symbol (-1 for frequent ones). */
  private readonly rareOf: Int32Array;
  private readonly rareClass: number;
  /** The class of every position: SymbolRanks for up to MAX_SYMBOL_BITS bits, a wavelet matrix above. */
  private readonly classes: SymbolRanks | RankedMatrix;
  private readonly rare: RankedMatrix | null;
  private readonly grams: KGramTable;
  private readonly pair = new Int32Array(2);

  private constructor(parts: {
    length: number;
    count: number;
    C: Uint32Array;
    unitOf: Uint16Array;
    classOf: Int32Array;
    rareOf: Int32Array;
    rareClass: number;
    classes: SymbolRanks | WaveletMatrix;
    rare: WaveletMatrix | null;
    grams: KGramTable;
  }) {
    this.length = parts.length;
    this.count = parts.count;
    this.C = parts.C;
    this.unitOf = parts.unitOf;
    this.classOf = parts.classOf;
    this.rareOf = parts.rareOf;
    this.rareClass = parts.rareClass;
    this.classes = parts.classes instanceof SymbolRanks ? parts.classes : new RankedMatrix(parts.classes);
    this.rare = parts.rare === null ? null : new RankedMatrix(parts.rare);
    const sigma = parts.C.length - 1;
    this.symbolAtOrAbove = new Int32Array(UNITS);
    let next = sigma;
    for (let u = UNITS - 1, s = sigma - 1; u >= 0; u--) {
      while (s >= FIRST_UNIT_SYMBOL && parts.unitOf[s - FIRST_UNIT_SYMBOL]! >= u) next = s--;
      this.symbolAtOrAbove[u] = next;
    }
    this.grams = parts.grams.widened(sigma, (sp, ep, s, out) => this.extendLeft(sp, ep, s, out), parts.C);
  }

  /** Number of symbols (# and $ included). */
  get sigma(): number {
    return this.C.length - 1;
  }

  /**
   * Builds the index of `folded` (identifiers in rank order). Also returns the suffix array and the
   * identifier starts, which the document array needs once. `steps`: called between the build's
   * steps (FMBuildSteps).
   */
  static build(folded: readonly string[], steps: FMBuildSteps = {}): FMBuild {
    const N = folded.length;
    // The alphabet: code units that occur, in code-unit order.
    const seen = new Uint8Array(UNITS);
    let length = 2;
    for (const s of folded) {
      length += s.length + 1;
      for (let k = 0; k < s.length; k++) seen[s.charCodeAt(k)] = 1;
    }
    const symbolOfUnit = new Int32Array(UNITS).fill(-1);
    const units: number[] = [];
    for (let u = 0; u < UNITS; u++) {
      if (seen[u] === 0) continue;
      symbolOfUnit[u] = FIRST_UNIT_SYMBOL + units.length;
      units.push(u);
    }
    const sigma = FIRST_UNIT_SYMBOL + units.length;

    const text = symbolArray(length, sigma);
    const starts = new Uint32Array(N + 1);
    let at = 0;
    for (let r = 0; r < N; r++) {
      starts[r] = at;
      text[at++] = SEPARATOR;
      const s = folded[r]!;
      for (let k = 0; k < s.length; k++) text[at++] = symbolOfUnit[s.charCodeAt(k)]!;
    }
    starts[N] = at;
    text[at++] = SEPARATOR;
    text[at++] = TERMINATOR;
    steps.textMade?.();

    const suffixArray = buildSuffixArray(text, sigma);
    steps.suffixArrayMade?.();
    let bwt = symbolArray(length, sigma);
    const counts = new Float64Array(sigma);
    for (let i = 0; i < length; i++) {
      const p = suffixArray[i]!;
      const c = p === 0 ? text[length - 1]! : text[p - 1]!;
      bwt[i] = c;
      counts[c]!++;
    }
    const C = new Uint32Array(sigma + 1);
    for (let s = 0; s < sigma; s++) C[s + 1] = C[s]! + counts[s]!;

    // Alphabet partitioning: choose the class width h that minimizes the bits of both matrices.
    const byFrequency = Array.from({ length: sigma }, (_, s) => s).sort((a, b) => counts[b]! - counts[a]! || a - b);
    let bestH = 1;
    let bestBits = Number.POSITIVE_INFINITY;
    for (let h = 1; h <= MAX_CLASS_BITS; h++) {
      const frequent = Math.min(sigma, 2 ** h);
      // Everything fits: no rare class needed.
      const allFit = sigma <= 2 ** h;
      let rareCount = 0;
      if (!allFit) for (let k = 2 ** h - 1; k < sigma; k++) rareCount += counts[byFrequency[k]!]!;
      const rareSymbols = allFit ? 0 : sigma - (frequent - 1);
      const bits = length * h + rareCount * Math.max(1, Math.ceil(Math.log2(Math.max(2, rareSymbols))));
      if (bits < bestBits) {
        bestBits = bits;
        bestH = h;
      }
      if (allFit) break;
    }
    const h = bestH;
    const allFit = sigma <= 2 ** h;
    const rareClass = allFit ? -1 : 2 ** h - 1;
    const classOf = new Int32Array(sigma);
    const rareOf = new Int32Array(sigma).fill(-1);
    let rareSymbols = 0;
    byFrequency.forEach((s, k) => {
      if (allFit || k < 2 ** h - 1) classOf[s] = k;
      else {
        classOf[s] = rareClass;
        rareOf[s] = rareSymbols++;
      }
    });
    const classValues = new Uint32Array(length);
    let rareCount = 0;
    for (let i = 0; i < length; i++) {
      const c = classOf[bwt[i]!]!;
      classValues[i] = c;
      if (c === rareClass) rareCount++;
    }
    let rare: WaveletMatrix | null = null;
    if (!allFit) {
      const rareValues = new Uint32Array(rareCount);
      for (let i = 0, j = 0; i < length; i++) if (classValues[i] === rareClass) rareValues[j++] = rareOf[bwt[i]!]!;
      rare = WaveletMatrix.build(rareValues, Math.max(1, Math.ceil(Math.log2(Math.max(2, rareSymbols)))), true);
    }
    // The rare symbols first: the class values are then read for the last time by their matrix's
    // build, which reorders them in place instead of in a copy (four bytes a code unit less), and
    // the BWT, read for the last time above, goes before it.
    bwt = symbolArray(0, sigma);
    // Each branch: blocked ranks (one round of cache misses a rank) for a class code that fits
    // them, else a wavelet matrix (h levels a rank).
    const classes = symbolBitsFit(h) ? SymbolRanks.build(classValues, h) : WaveletMatrix.build(classValues, h, true);
    const index = new FMIndex({
      length,
      count: N,
      C,
      unitOf: Uint16Array.from(units),
      classOf,
      rareOf,
      rareClass,
      classes,
      rare,
      grams: KGramTable.build(text, suffixArray, sigma),
    });
    return { index, suffixArray, starts, text };
  }

  /** The symbol of code unit u, or -1 when u does not occur in the text. */
  symbolOf(u: number): number {
    const s = this.symbolAtOrAbove[u]!;
    return s < this.sigma && this.unitOf[s - FIRST_UNIT_SYMBOL] === u ? s : -1;
  }

  /** One LF step: the interval of cP from the interval of P; symbol s must occur. */
  extendLeft(sp: number, ep: number, s: number, out: SuffixInterval): SuffixInterval {
    this.rankPair(s, sp, ep);
    const base = this.C[s]!;
    out.sp = base + this.pair[0]!;
    out.ep = base + this.pair[1]!;
    return out;
  }

  /**
   * The interval of the suffixes starting with head + pattern + tail (`pattern` in code units; head
   * and tail symbols, -1 for none: SEPARATOR on both sides means "identifiers equal to pattern");
   * empty (sp === ep) when none.
   */
  interval(pattern: string, out: SuffixInterval = { sp: 0, ep: 0 }, head = -1, tail = -1): SuffixInterval {
    out.sp = 0;
    out.ep = this.length;
    // A tail symbol starts the search: the suffixes starting with it.
    if (tail >= 0) {
      out.sp = this.C[tail]!;
      out.ep = this.C[tail + 1]!;
    }
    let k = pattern.length - 1;
    // The last K_GRAM code units (or the whole pattern of K_GRAM - 1) from the table, when there is
    // no tail and the table has them.
    const tabled = Math.min(pattern.length, K_GRAM);
    if (tail < 0 && tabled >= K_GRAM - 1) {
      const key = this.gramKey(pattern, pattern.length - tabled, tabled);
      if (key >= 0 && this.grams.find(key, out)) k = pattern.length - tabled - 1;
    }
    for (; k >= 0; k--) {
      const s = this.symbolOf(pattern.charCodeAt(k));
      if (s < 0) {
        out.ep = out.sp;
        return out;
      }
      this.extendLeft(out.sp, out.ep, s, out);
      if (out.sp >= out.ep) return out;
    }
    if (head >= 0 && out.sp < out.ep) this.extendLeft(out.sp, out.ep, head, out);
    return out;
  }

  /**
   * The interval of the suffixes that start with SEPARATOR + `pattern` (the identifiers that start
   * with it), from [sp, ep), the interval of `pattern` (non-empty): a table probe for a pattern of
   * K_GRAM - 1 or K_GRAM code units when the table has it; for a longer one whose first K_GRAM no
   * identifier starts with, that trigram's empty interval, which is the pattern's too (no suffix
   * lies between "$" + the trigram and "$" + the pattern, so both insert at the same place); else
   * one LF step.
   */
  headed(pattern: string, sp: number, ep: number, out: SuffixInterval): SuffixInterval {
    const m = pattern.length;
    // Each branch: a pattern of 2 or 3 code units is probed; a longer one probes its first
    // K_GRAM, answered only when empty; one the table lacks, or a longer one whose first K_GRAM
    // start identifiers, takes the step.
    if (m >= K_GRAM - 1) {
      const key = this.gramKey(pattern, 0, Math.min(m, K_GRAM));
      if (key >= 0 && this.grams.find(key * this.sigma + SEPARATOR, out) && (m <= K_GRAM || out.sp === out.ep))
        return out;
    }
    return this.extendLeft(sp, ep, SEPARATOR, out);
  }

  /** The table key of the `length` code units of `pattern` from `at` on; -1 when one does not occur. */
  private gramKey(pattern: string, at: number, length: number): number {
    let key = 0;
    for (let k = at + length - 1; k >= at; k--) {
      const s = this.symbolOf(pattern.charCodeAt(k));
      if (s < 0) return -1;
      key = key * this.sigma + s;
    }
    return key;
  }

  /**
   * For any string X = head + pattern + tail (head and tail symbols, -1 for none), occurring or not:
   * out.sp = the suffixes of T below X (its insertion point in suffix order), out.ep - out.sp = the
   * suffixes starting with X. One backward pass keeps both: lb(cY) = C[c] + rank_c(lb(Y)) and the
   * same for ub(Y) = lb(Y) + |suffixes starting with Y|; a code unit that does not occur puts both
   * at C[the next symbol above it] (every suffix starting with a smaller symbol is below).
   */
  bounds(head: number, pattern: string, tail: number, out: SuffixInterval = { sp: 0, ep: 0 }): SuffixInterval {
    out.sp = 0;
    out.ep = this.length;
    if (tail >= 0) this.extendLeft(out.sp, out.ep, tail, out);
    for (let k = pattern.length - 1; k >= 0; k--) {
      const u = pattern.charCodeAt(k);
      const s = this.symbolOf(u);
      if (s >= 0) this.extendLeft(out.sp, out.ep, s, out);
      else out.sp = out.ep = this.C[this.symbolAtOrAbove[u]!]!;
    }
    if (head >= 0) this.extendLeft(out.sp, out.ep, head, out);
    return out;
  }

  /** The number of suffixes of T below head + pattern + tail (see `bounds`). */
  lowerBound(head: number, pattern: string, tail: number): number {
    return this.bounds(head, pattern, tail).sp;
  }

  /** rank_s(BWT, i): occurrences of symbol s in BWT[0, i). */
  rank(s: number, i: number): number {
    this.rankPair(s, i, i);
    return this.pair[0]!;
  }

  /** rank_s at i and j into this.pair. */
  private rankPair(s: number, i: number, j: number): void {
    const c = this.classOf[s]!;
    this.classes.rankPair(c, i, j, this.pair);
    // A rare symbol: its rank among the rare positions below i and j.
    if (c === this.rareClass && this.rare !== null)
      this.rare.rankPair(this.rareOf[s]!, this.pair[0]!, this.pair[1]!, this.pair);
  }

  get byteLength(): number {
    return (
      this.C.byteLength +
      this.unitOf.byteLength +
      this.symbolAtOrAbove.byteLength +
      this.classOf.byteLength +
      this.rareOf.byteLength +
      this.classes.byteLength +
      (this.rare?.byteLength ?? 0) +
      this.grams.byteLength
    );
  }

  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("count", this.count);
    w.array("C", this.C);
    w.array("unitOf", this.unitOf);
    w.array("classOf", this.classOf);
    w.array("rareOf", this.rareOf);
    // -1 (no rare class) stored as 0: integers are non-negative.
    w.integer("rareClassPlusOne", this.rareClass + 1);
    // Each branch: the class sequence's own serial form, under its own name.
    if (this.classes instanceof SymbolRanks) this.classes.serialize(w.child("classRanks"));
    else this.classes.wm.serialize(w.child("classes"));
    if (this.rare !== null) this.rare.wm.serialize(w.child("rare"));
    this.grams.serialize(w.child("grams"));
  }

  /**
   * Restores the index, checking what its reads rely on: the alphabet tables' sizes and ranges (a
   * symbol's class must be a value of the class matrix), C ascending to the text length, the rare
   * matrix as long as the rare class is frequent, the k-gram intervals inside the suffix array. With
   * `verify` the matrices recount their blocks (WaveletMatrix.deserialize).
   */
  static deserialize(r: SerialReader): FMIndex {
    const length = r.integer("length");
    const count = r.integer("count");
    const C = r.uint32("C");
    const unitOf = r.uint16("unitOf");
    const classOf = r.int32("classOf");
    const rareOf = r.int32("rareOf");
    const rareClass = r.integer("rareClassPlusOne") - 1;
    // Each branch: blocked ranks as stored (format 8 on); a wavelet matrix of classes (formats 5 to 7,
    // or a class code too wide for the blocks), turned into blocked ranks when its code fits them.
    let classes: SymbolRanks | WaveletMatrix;
    if (r.has("classRanks.length")) classes = SymbolRanks.deserialize(r.child("classRanks"));
    else {
      const matrix = WaveletMatrix.deserialize(r.child("classes"));
      classes = symbolBitsFit(matrix.bits) ? SymbolRanks.fromWavelet(matrix) : matrix;
    }
    const rare = rareClass < 0 ? null : WaveletMatrix.deserialize(r.child("rare"));
    const sigma = C.length - 1;
    checkLength(r, "unitOf", unitOf, sigma - FIRST_UNIT_SYMBOL, "one code unit per symbol but # and $");
    checkLength(r, "classOf", classOf, sigma, "one class per symbol");
    checkLength(r, "rareOf", rareOf, sigma, "one rare code per symbol");
    if (sigma < FIRST_UNIT_SYMBOL || C[0] !== 0 || C[sigma] !== length) r.corrupt("C does not count the text");
    for (let s = 1; s <= sigma; s++) if (C[s]! < C[s - 1]!) r.corrupt("C is not ascending");
    for (let k = 1; k < unitOf.length; k++) if (unitOf[k]! <= unitOf[k - 1]!) r.corrupt("unitOf is not ascending");
    if (classes.length !== length) r.corrupt(`the class matrix holds ${classes.length} symbols, the text ${length}`);
    const classValues = 2 ** classes.bits;
    const rareValues = rare === null ? 0 : 2 ** rare.bits;
    for (let s = 0; s < sigma; s++) {
      const c = classOf[s]!;
      if (!(c >= 0 && c < classValues)) r.corrupt(`symbol ${s} has class ${c}, not a value of the class matrix`);
      const isRare = c === rareClass;
      if (isRare !== rareOf[s]! >= 0 || (isRare && rareOf[s]! >= rareValues))
        r.corrupt(`symbol ${s} has a bad rare code`);
    }
    const index = new FMIndex({
      length,
      count,
      C,
      unitOf,
      classOf,
      rareOf,
      rareClass,
      classes,
      rare,
      grams: KGramTable.deserialize(r.child("grams"), length),
    });
    index.classes.rankPair(Math.max(0, rareClass), length, length, index.pair);
    if (rare !== null && rare.length !== index.pair[0]) {
      r.corrupt("the rare matrix's length is not the rare class's count");
    }
    return index;
  }

  /** Levels of the class matrix and of the rare one (for reports). */
  get shape(): { classBits: number; rareBits: number; rareShare: number } {
    return {
      classBits: this.classes.bits,
      rareBits: this.rare?.wm.bits ?? 0,
      rareShare: (this.rare?.wm.length ?? 0) / this.length,
    };
  }
}

/**
 * The k-gram table: key = sum of symbol_j * sigma^(K_GRAM - 1 - j) over the k-gram read backwards
 * (exact in a double), open addressing with linear probing, at most half full; each slot holds the
 * key and the interval [sp, ep).
 */
class KGramTable {
  private readonly keys: Float64Array;
  private readonly intervals: Uint32Array;
  private readonly mask: number;

  constructor(keys: Float64Array, intervals: Uint32Array) {
    this.keys = keys;
    this.intervals = intervals;
    this.mask = keys.length - 1;
  }

  /** The table of the K_GRAM-symbol prefixes of the suffixes of `text` (most frequent MAX_K_GRAMS). */
  static build(text: SymbolText, suffixArray: Uint32Array, sigma: number): KGramTable {
    const n = text.length;
    // Groups of suffixes sharing their first K_GRAM symbols are runs of the suffix array.
    const groups: [key: number, sp: number, ep: number][] = [];
    let current = -1;
    let start = 0;
    for (let i = 0; i <= n; i++) {
      let key = -1;
      if (i < n) {
        const p = suffixArray[i]!;
        if (p + K_GRAM <= n) {
          key = 0;
          for (let j = K_GRAM - 1; j >= 0; j--) {
            const s = text[p + j]!;
            // The terminator ends the text: no k-gram runs across it.
            if (s === TERMINATOR) {
              key = -1;
              break;
            }
            key = key * sigma + s;
          }
        }
      }
      if (key !== current) {
        if (current >= 0) groups.push([current, start, i]);
        current = key;
        start = i;
      }
    }
    if (groups.length > MAX_K_GRAMS) {
      groups.sort((a, b) => b[2] - b[1] - (a[2] - a[1]));
      groups.length = MAX_K_GRAMS;
    }
    let size = 2;
    while (size < 2 * groups.length) size *= 2;
    const keys = new Float64Array(size).fill(-1);
    const intervals = new Uint32Array(2 * size);
    const table = new KGramTable(keys, intervals);
    for (const [key, sp, ep] of groups) table.insert(key, sp, ep);
    return table;
  }

  /**
   * This table with the derived short keys (see FMIndex's banner) added where missing: for each
   * trigram of code units, the 2-gram of its last two and "$" + the trigram (when non-empty and
   * its key exact), each one `extend` step (an LF step: the suffixes starting with symbol s + the
   * interval's string) from the intervals the table holds or C gives. No more entries than
   * MAX_K_GRAMS in all (on a text with that many trigrams, the first ones in slot order get them).
   * Returns this table when nothing is missing (a table saved with them, or one with no trigram of
   * code units), else a new one: the old entries in slot order, then the new ones, so that the same
   * table gives the same slots however it was made.
   */
  widened(
    sigma: number,
    extend: (sp: number, ep: number, s: number, out: SuffixInterval) => SuffixInterval,
    C: Uint32Array,
  ): KGramTable {
    const sigma2 = sigma * sigma;
    const sigma3 = sigma2 * sigma;
    const headedKeys = sigma3 * sigma <= MAX_EXACT_KEY;
    const added: number[] = [];
    const intervals: number[] = [];
    const adding = new Set<number>();
    let entries = 0;
    for (const key of this.keys) if (key !== -1) entries++;
    const iv: SuffixInterval = { sp: 0, ep: 0 };
    const add = (key: number, sp: number, ep: number) => {
      added.push(key);
      intervals.push(sp, ep);
      adding.add(key);
    };
    for (let slot = 0; slot < this.keys.length && entries + added.length + 3 <= MAX_K_GRAMS; slot++) {
      const key = this.keys[slot]!;
      // Trigrams only, and of code units where a key is derived: no query holds a separator.
      if (!(key >= sigma2 && key < sigma3)) continue;
      const first = key % sigma;
      const second = Math.floor(key / sigma) % sigma;
      const third = Math.floor(key / sigma2);
      if (second < FIRST_UNIT_SYMBOL || third < FIRST_UNIT_SYMBOL) continue;
      // The 2-gram of its last two (whatever precedes them: every code unit follows some symbol),
      // and "$" + that 2-gram (a trigram: the table has it when some identifier starts with it).
      const pair = third * sigma + second;
      if (!adding.has(pair) && !this.find(pair, iv)) {
        extend(C[third]!, C[third + 1]!, second, iv);
        const { sp, ep } = iv;
        add(pair, sp, ep);
        const headedPair = pair * sigma + SEPARATOR;
        if (!this.find(headedPair, iv)) {
          extend(sp, ep, SEPARATOR, iv);
          add(headedPair, iv.sp, iv.ep);
        }
      }
      // "$" + the trigram, when it is three code units. Empty intervals too: most queries' prefix
      // tier is empty, and a key the table lacks costs the step.
      const headed = key * sigma + SEPARATOR;
      if (first >= FIRST_UNIT_SYMBOL && headedKeys && !adding.has(headed) && !this.find(headed, iv)) {
        extend(this.intervals[2 * slot]!, this.intervals[2 * slot + 1]!, SEPARATOR, iv);
        add(headed, iv.sp, iv.ep);
      }
    }
    if (added.length === 0) return this;
    let size = 2;
    while (size < 2 * (entries + added.length)) size *= 2;
    const table = new KGramTable(new Float64Array(size).fill(-1), new Uint32Array(2 * size));
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot]!;
      if (key !== -1) table.insert(key, this.intervals[2 * slot]!, this.intervals[2 * slot + 1]!);
    }
    for (let i = 0; i < added.length; i++) table.insert(added[i]!, intervals[2 * i]!, intervals[2 * i + 1]!);
    return table;
  }

  private slotOf(key: number): number {
    // Mix the key's two halves (keys can pass 2^32).
    const lo = key >>> 0;
    const hi = Math.floor(key / 4294967296);
    return Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0;
  }

  private insert(key: number, sp: number, ep: number): void {
    let slot = this.slotOf(key) & this.mask;
    while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask;
    this.keys[slot] = key;
    this.intervals[2 * slot] = sp;
    this.intervals[2 * slot + 1] = ep;
  }

  /** Writes the interval of `key` into `out` and returns true, or returns false when absent. */
  find(key: number, out: SuffixInterval): boolean {
    for (let slot = this.slotOf(key) & this.mask; ; slot = (slot + 1) & this.mask) {
      const k = this.keys[slot]!;
      if (k === -1) return false;
      if (k === key) {
        out.sp = this.intervals[2 * slot]!;
        out.ep = this.intervals[2 * slot + 1]!;
        return true;
      }
    }
  }

  get byteLength(): number {
    return this.keys.byteLength + this.intervals.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.array("keys", this.keys);
    w.array("intervals", this.intervals);
  }

  /** Restores the table; every interval must lie in [0, textLength] (a probe reads nothing else). */
  static deserialize(r: SerialReader, textLength: number): KGramTable {
    const keys = r.float64("keys");
    const intervals = r.uint32("intervals");
    if (keys.length < 2 || (keys.length & (keys.length - 1)) !== 0)
      r.corrupt("the k-gram table size is not a power of two");
    checkLength(r, "intervals", intervals, 2 * keys.length, "two per slot");
    let used = 0;
    for (let slot = 0; slot < keys.length; slot++) {
      if (keys[slot] === -1) continue;
      used++;
      const sp = intervals[2 * slot]!;
      const ep = intervals[2 * slot + 1]!;
      if (!(Number.isSafeInteger(keys[slot]!) && keys[slot]! >= 0) || sp > ep || ep > textLength) {
        r.corrupt(`k-gram slot ${slot} is not a key with an interval of the text`);
      }
    }
    // A full table would make a probe for an absent key loop forever.
    if (used >= keys.length) r.corrupt("the k-gram table has no empty slot");
    return new KGramTable(keys, intervals);
  }
}

/**
 * Fingerprint column
 * ==================
 * The fingerprints the input gave, per statement row (SPO order). A row without one has the derived
 * fingerprint (fingerprint.ts), computed when a page is written from the entity hashes the
 * dictionary keeps: so a graph whose input gives no fingerprints stores nothing here.
 *
 * Layouts, chosen at build by what the input gave:
 *  - none given: nothing;
 *  - every row given 16 lowercase hex digits: two Uint32Arrays, high and low half per row (8 bytes a
 *    statement; for 16 hex digits numeric order is string order, so comparisons stay the contract's);
 *  - a mix: a bit vector of the rows with a hex fingerprint and one of the rows with any other text,
 *    each ranked, so the hex halves and the texts (a TextList) are stored for their rows only.
 *
 * Cost: `given(row)` O(1) (a rank for the mixed layout). Serial form: the layout and its arrays.
 */

import { BitVector } from "../succinct/bit-vector.js";
import { hex64, type Hash64 } from "../hash64.js";
import type { SerialReader, SerialWriter } from "../serial.js";
import { TextList } from "../entities/text-list.js";
import { finalArray } from "../array-slab.js";

const NONE = 0;
const ALL_HEX = 1;
const MIXED = 2;

/** Row h's halves: hi[stride * h] and lo[stride * h + loAt] (FingerprintColumn.touchHalves). */
export interface TouchHalves {
  hi: Uint32Array;
  lo: Uint32Array;
  stride: number;
  loAt: number;
}

/**
 * What the builder gives per row: undefined (derive), hex halves, or text. The halves object may be
 * reused by the next call (the builder answers millions of rows with one): read it at once.
 */
export type GivenFingerprint = undefined | { hi: number; lo: number } | string;

export class FingerprintColumn {
  private readonly layout: number;
  readonly length: number;
  /**
   * Where the h-th hex row's halves are: the high one at hiWords[stride * h], the low one at
   * loWords[stride * h + loAt]. Interleaved (one array, stride 2, loAt 1: both halves in one cache
   * line, one miss a row) as build and gathered make them and a format 7 snapshot keeps them; or two
   * arrays (stride 1, loAt 0) as fromHexBits is given them and a format 5 or 6 snapshot keeps them,
   * used as they are rather than copied (serialize interleaves them). One expression reads either:
   * no branch per read.
   */
  private readonly hiWords: Uint32Array;
  private readonly loWords: Uint32Array;
  private readonly stride: number;
  private readonly loAt: number;
  private readonly hexRows: BitVector | null;
  private readonly textRows: BitVector | null;
  private readonly texts: TextList | null;

  private constructor(
    layout: number,
    length: number,
    halves: Halves,
    hexRows: BitVector | null,
    textRows: BitVector | null,
    texts: TextList | null,
  ) {
    this.layout = layout;
    this.length = length;
    this.hiWords = halves.hi;
    this.loWords = halves.lo;
    this.stride = halves.stride;
    this.loAt = halves.loAt;
    this.hexRows = hexRows;
    this.textRows = textRows;
    this.texts = texts;
  }

  /** The column for `length` rows, `given(row)` saying what the input gave for each. */
  static build(length: number, given: (row: number) => GivenFingerprint): FingerprintColumn {
    let hex = 0;
    let text = 0;
    for (let row = 0; row < length; row++) {
      const g = given(row);
      if (typeof g === "string") text++;
      else if (g !== undefined) hex++;
    }
    // Nothing given: derive every fingerprint, store none.
    if (hex === 0 && text === 0) return new FingerprintColumn(NONE, length, NO_HALVES, null, null, null);
    const halves = new Uint32Array(2 * hex);
    // Every row hex: no bit vectors, the halves indexed by row.
    if (hex === length) {
      for (let row = 0; row < length; row++) {
        const g = given(row) as { hi: number; lo: number };
        halves[2 * row] = g.hi;
        halves[2 * row + 1] = g.lo;
      }
      return new FingerprintColumn(ALL_HEX, length, interleaved(halves), null, null, null);
    }
    const hexRows = new BitVector(length);
    const textRows = new BitVector(length);
    const textList: string[] = [];
    for (let row = 0, h = 0; row < length; row++) {
      const g = given(row);
      if (typeof g === "string") {
        textRows.set(row);
        textList.push(g);
      } else if (g !== undefined) {
        hexRows.set(row);
        halves[2 * h] = g.hi;
        halves[2 * h + 1] = g.lo;
        h++;
      }
    }
    return new FingerprintColumn(
      MIXED,
      length,
      interleaved(halves),
      hexRows.seal(),
      textRows.seal(),
      TextList.from(textList, textList.length),
    );
  }

  /**
   * The column build() makes when the input gave hex fingerprints only (no text), its row j the
   * input row order[j]: `given[r]` 1 when input row r gave one, its halves `hi[r]`, `lo[r]`. The
   * same column, word for word, as build() asked row by row, for less: the rows with one counted in
   * one pass in input order, then one gather of the halves (plus the flags for a mix) in `order`,
   * where build() asks every row twice through a callback. Cost: O(M), M random reads of each column.
   */
  static gathered(order: Uint32Array, given: Uint8Array, hi: Uint32Array, lo: Uint32Array): FingerprintColumn {
    const length = order.length;
    let hex = 0;
    for (let row = 0; row < length; row++) hex += given[row]!;
    // Each branch as in build: nothing given, every row hex, or some (a bit vector of which rows).
    if (hex === 0) return new FingerprintColumn(NONE, length, NO_HALVES, null, null, null);
    const out = new Uint32Array(2 * hex);
    if (hex === length) {
      for (let j = 0; j < length; j++) {
        const row = order[j]!;
        out[2 * j] = hi[row]!;
        out[2 * j + 1] = lo[row]!;
      }
      return new FingerprintColumn(ALL_HEX, length, interleaved(out), null, null, null);
    }
    const hexRows = new BitVector(length);
    for (let j = 0, h = 0; j < length; j++) {
      const row = order[j]!;
      if (given[row] !== 1) continue;
      hexRows.set(j);
      out[2 * h] = hi[row]!;
      out[2 * h + 1] = lo[row]!;
      h++;
    }
    return new FingerprintColumn(
      MIXED,
      length,
      interleaved(out),
      hexRows.seal(),
      new BitVector(length).seal(),
      TextList.from([], 0),
    );
  }

  /**
   * The column build() makes when the input gave hex fingerprints only (no text), from them in row
   * order: `hexRows` (sealed) the rows with one, `hi` and `lo` their halves (in row order), all kept
   * as they are (no copy). For rows whose given fingerprints are kept sparse by row (a compaction's
   * feed in SPO order): neither the halves nor the rows are copied once more beside the builder's.
   */
  static fromHexBits(length: number, hexRows: BitVector, hi: Uint32Array, lo: Uint32Array): FingerprintColumn {
    const hex = hexRows.ones;
    if (hexRows.length !== length || hi.length !== hex || lo.length !== hex)
      throw new Error(
        `FingerprintColumn.fromHexBits: ${hex} hex rows of ${hexRows.length}, ${hi.length} halves, ${length} rows`,
      );
    // Each branch as in build: nothing given, every row hex, or some (the bit vector of which rows).
    if (hex === 0) return new FingerprintColumn(NONE, length, NO_HALVES, null, null, null);
    const halves = { hi, lo, stride: 1, loAt: 0 };
    if (hex === length) return new FingerprintColumn(ALL_HEX, length, halves, null, null, null);
    return new FingerprintColumn(MIXED, length, halves, hexRows, new BitVector(length).seal(), TextList.from([], 0));
  }

  /** The fingerprint the input gave for `row`, or undefined when it is derived. */
  given(row: number): string | undefined {
    switch (this.layout) {
      case NONE:
        return undefined;
      case ALL_HEX:
        return hex64(this.hiWords[this.stride * row]!, this.loWords[this.stride * row + this.loAt]!);
      default: {
        if (this.hexRows!.get(row) === 1) {
          const h = this.hexRows!.rank1(row);
          return hex64(this.hiWords[this.stride * h]!, this.loWords[this.stride * h + this.loAt]!);
        }
        if (this.textRows!.get(row) === 1) return this.texts!.get(this.textRows!.rank1(row));
        return undefined;
      }
    }
  }

  /**
   * When the input gave `row` a fingerprint of 16 lowercase hex digits: writes its value's halves
   * into `out` and returns true (its text is hex64 of them). False for a derived or a text one.
   */
  hexHalves(row: number, out: Hash64): boolean {
    let at = row;
    // Each branch: where the row's halves are, if it has any (every row; the rows of hexRows; none).
    if (this.layout === NONE) return false;
    if (this.layout === MIXED) {
      if (this.hexRows!.get(row) !== 1) return false;
      at = this.hexRows!.rank1(row);
    }
    const i = this.stride * at;
    out[0] = this.hiWords[i]!;
    out[1] = this.loWords[i + this.loAt]!;
    return true;
  }

  /**
   * Where each row's halves lie (every-row-hex layout; null for the others), for a page that reads
   * them ahead of writing their digits, in one loop with its rows (StatementIndex.touchRows), so
   * that a page's misses overlap instead of coming one row at a time inside the loop that writes
   * the digits. The mixed layout's rows are few (a file that gives some fingerprints and not
   * others) and are read where their digits are written.
   */
  get touchHalves(): TouchHalves | null {
    return this.layout === ALL_HEX
      ? { hi: this.hiWords, lo: this.loWords, stride: this.stride, loAt: this.loAt }
      : null;
  }

  /** Whether any row has a given fingerprint. */
  get anyGiven(): boolean {
    return this.layout !== NONE;
  }

  /** How many rows have a given fingerprint of 16 hex digits (the halves kept), text ones not counted. */
  get hexCount(): number {
    return this.loWords.length / this.stride;
  }

  get byteLength(): number {
    return (
      this.hiWords.byteLength +
      (this.loWords === this.hiWords ? 0 : this.loWords.byteLength) +
      (this.hexRows?.byteLength ?? 0) +
      (this.textRows?.byteLength ?? 0) +
      (this.texts?.byteLength ?? 0)
    );
  }

  serialize(w: SerialWriter): void {
    w.integer("layout", this.layout);
    w.integer("length", this.length);
    if (this.layout === NONE) return;
    // Each branch: the interleaved array as it is, or the two arrays' halves interleaved now (a copy
    // while saving; the file then opens with one miss a row).
    if (this.stride === 2) w.array("halves", this.hiWords);
    else {
      const hex = this.loWords.length;
      // Kept by the image a compaction hands over (array-slab.ts), else written and dropped.
      const words = finalArray(Uint32Array, 2 * hex);
      for (let h = 0; h < hex; h++) {
        words[2 * h] = this.hiWords[h]!;
        words[2 * h + 1] = this.loWords[h]!;
      }
      w.array("halves", words);
    }
    if (this.layout !== MIXED) return;
    this.hexRows!.serialize(w.child("hexRows"));
    this.textRows!.serialize(w.child("textRows"));
    this.texts!.serialize(w.child("texts"));
  }

  static deserialize(r: SerialReader): FingerprintColumn {
    const layout = r.integer("layout");
    const length = r.integer("length");
    if (layout === NONE) return new FingerprintColumn(NONE, length, NO_HALVES, null, null, null);
    // Each branch: interleaved halves (format 7), or the two arrays of a format 5 or 6 file, kept
    // as they lie in it (interleaving them would copy 8 bytes a statement beside the file's).
    let halves: Halves;
    if (r.has("halves")) {
      const words = r.uint32("halves");
      if (words.length % 2 !== 0) r.corrupt("an odd count of fingerprint halves");
      halves = interleaved(words);
    } else {
      const hi = r.uint32("hi");
      const lo = r.uint32("lo");
      if (hi.length !== lo.length) r.corrupt("fingerprint halves of different lengths");
      halves = { hi, lo, stride: 1, loAt: 0 };
    }
    const hex = halves.lo.length / halves.stride;
    if (layout === ALL_HEX) {
      if (hex !== length) r.corrupt(`${hex} fingerprints for ${length} statements`);
      return new FingerprintColumn(ALL_HEX, length, halves, null, null, null);
    }
    if (layout !== MIXED) r.corrupt(`unknown fingerprint layout ${layout}`);
    const hexRows = BitVector.deserialize(r.child("hexRows"));
    const textRows = BitVector.deserialize(r.child("textRows"));
    if (hexRows.length !== length || textRows.length !== length) r.corrupt("fingerprint row sets of the wrong size");
    const texts = TextList.deserialize(r.child("texts"));
    if (hexRows.ones !== hex || textRows.ones !== texts.length)
      r.corrupt("fingerprint counts disagree with their rows");
    return new FingerprintColumn(MIXED, length, halves, hexRows, textRows, texts);
  }
}

/** Where a column's hex halves are (see FingerprintColumn.hiWords). */
interface Halves {
  hi: Uint32Array;
  lo: Uint32Array;
  stride: number;
  loAt: number;
}

/** The halves of a column without hex rows. */
const NO_HALVES: Halves = { hi: new Uint32Array(0), lo: new Uint32Array(0), stride: 1, loAt: 0 };

/** Interleaved halves: the h-th row's high half at 2h, its low half at 2h + 1. */
function interleaved(words: Uint32Array): Halves {
  return { hi: words, lo: words, stride: 2, loAt: 1 };
}

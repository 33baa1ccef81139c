/**
 * Given rows
 * ==========
 * Owns the statements whose fingerprint a builder must keep (GraphBuilder: one the input gave that
 * is not the one derived from the triple, or a text one), while rows are added and once they are
 * all in: which rows (a bit a row) and their fingerprints' halves in row order. Every other row's
 * fingerprint is derived again from its triple when asked, so a builder keeps no fingerprint column
 * (8 bytes a statement, 0.8 GB at 100M) for the common input, whose fingerprints are all derived.
 *
 * Algorithm: rows come in ascending order. The bits are words grown as rows come, and a running
 * count is kept at the start of each block of BLOCK_ROWS rows (512: 16 words, one 64-byte line),
 * so that a row's index among the given ones (its rank) is one block count and at most 16 word
 * popcounts, in any state: the fingerprint table asks it for a key while rows are still added.
 * `seal` hands the rows over as a ranked BitVector and the halves as arrays of their exact length.
 *
 * Cost: `add` O(1) amortized; `indexOf` O(1) (at most 16 popcounts). Memory: a bit a row (up to the
 * last given row), 4 bytes a block of 512 rows, 8 bytes a given row.
 *
 * Reference: G. Jacobson, "Space-efficient static trees and graphs" (FOCS 1989): rank by block counts.
 */

import { Uint32Vector } from "mnemonist";
import { BitVector, popcount32 } from "../succinct/bit-vector.js";

/** log2 of the rows a block count covers: 512 rows, 16 words of bits. */
const BLOCK_SHIFT = 9;
/** log2 of the words a block holds (BLOCK_SHIFT - 5). */
const BLOCK_WORD_SHIFT = BLOCK_SHIFT - 5;
/** Capacity of a new table's vectors when not told. */
const INITIAL_CAPACITY = 1024;

/** The given rows once every row is in: a bit a row, ranked, and the halves by rank. */
export interface SealedGivenRows {
  rows: BitVector;
  hi: Uint32Array;
  lo: Uint32Array;
}

export class GivenRows {
  /** Bit r of the words: row r is given. Grown up to the last given row only. */
  private readonly words = new Uint32Vector(INITIAL_CAPACITY);
  /** blockRanks[b]: given rows before row b * 2^BLOCK_SHIFT (for every block up to the last given row's). */
  private readonly blockRanks = new Uint32Vector(INITIAL_CAPACITY);
  private readonly his: Uint32Vector;
  private readonly los: Uint32Vector;
  /** The last row added, -1 before any. */
  private lastRow = -1;

  /** `capacity`: the given rows expected (their halves' arrays are made at that size). */
  constructor(capacity = INITIAL_CAPACITY) {
    this.his = new Uint32Vector(capacity);
    this.los = new Uint32Vector(capacity);
  }

  /**
   * Makes room for `rows` rows in all, every one given, at once (the loader's estimate of its
   * statements): no vector is copied while growing. Room not used is never written, so it costs
   * address space, not memory.
   */
  reserve(rows: number): void {
    const room: [Uint32Vector, number][] = [
      [this.words, Math.ceil(rows / 32)],
      [this.blockRanks, (rows >>> BLOCK_SHIFT) + 1],
      [this.his, rows],
      [this.los, rows],
    ];
    for (const [vector, capacity] of room) if (vector.capacity < capacity) vector.reallocate(capacity);
  }

  /** Given rows added. */
  get count(): number {
    return this.his.length;
  }

  /** Row `row`, above every row added so far, has the fingerprint (hi, lo). */
  add(row: number, hi: number, lo: number): void {
    if (row <= this.lastRow) throw new Error(`GivenRows: row ${row} after row ${this.lastRow}`);
    this.lastRow = row;
    const w = row >>> 5;
    while (this.words.length <= w) this.words.push(0);
    // Every block up to this row's gets its count now: no given row lies between its start and this one.
    const block = row >>> BLOCK_SHIFT;
    while (this.blockRanks.length <= block) this.blockRanks.push(this.his.length);
    this.words.set(w, (this.words.get(w) | (1 << (row & 31))) >>> 0);
    this.his.push(hi);
    this.los.push(lo);
  }

  /** The index of `row` among the given rows (hiAt / loAt), or -1 when it is not one. */
  indexOf(row: number): number {
    const w = row >>> 5;
    // Each branch: a row past the last word has no bit; else its bit, then its rank.
    if (w >= this.words.length) return -1;
    const word = this.words.get(w);
    if (((word >>> (row & 31)) & 1) === 0) return -1;
    let rank = this.blockRanks.get(row >>> BLOCK_SHIFT);
    for (let k = (row >>> BLOCK_SHIFT) << BLOCK_WORD_SHIFT; k < w; k++) rank += popcount32(this.words.get(k));
    return rank + popcount32(word & ~(-1 << (row & 31)));
  }

  /** The high half of the given fingerprint of index i. */
  hiAt(i: number): number {
    return this.his.get(i) as number;
  }

  /** The low half of the given fingerprint of index i. */
  loAt(i: number): number {
    return this.los.get(i) as number;
  }

  /** The rows, among `rowCount` in all, as a ranked BitVector and the halves in arrays of their length. */
  seal(rowCount: number): SealedGivenRows {
    const rows = new BitVector(rowCount);
    const words = this.words;
    for (let w = 0; w < words.length; w++) {
      const word = words.get(w) as number;
      if (word !== 0) rows.setWord(w, word | 0);
    }
    return { rows: rows.seal(), hi: exactRows(this.his), lo: exactRows(this.los) };
  }
}

/**
 * A vector's values as one array of their length, without a copy (the vector's own array, which
 * mnemonist's TypedVector keeps in `array`, cut to its length): a copy would double them for a
 * moment (0.8 GB at 100M given rows).
 */
function exactRows(vector: Uint32Vector): Uint32Array {
  return (vector as unknown as { array: Uint32Array }).array.subarray(0, vector.length);
}

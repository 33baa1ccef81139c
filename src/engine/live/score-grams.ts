/**
 * Score grams
 * ===========
 * The order=score read's cache of 3-grams (score-search.ts), for one content of the live graph (a
 * batch or a swap empties it): for each gram a query asked since, its posting sizes in the gram
 * indexes the read walks (the delta's entities, the rescored entities raised out of the stream,
 * all rescored entities: LISTS of them), how many delta entities start with it, and, made on first
 * need, each posting sorted by score now with its columns (ScoreList) and its top score. A read
 * picks each index's rarest gram of its query from the sizes here and walks that gram's list; it
 * passes a list by its top score, and the delta's better tiers by the starts of its query's first
 * gram, read from the same record (no list, no map touched: a read whose page the delta cannot
 * enter pays no cache miss beyond the query's records).
 *
 * Why: the gram indexes (gram-index.ts) are Maps of posting objects, and the rarest gram of a query
 * is a probe of every gram of it in each index: a Map's bucket, its entry and the posting object,
 * about three cache misses a gram an index, the most of what the delta's and the rescored walks
 * cost a read (their lists stop after a candidate or two). Here a gram is one probe of a typed hash
 * table (its slot) and one line of a typed array (its key, its three sizes, its starts and its lists' top
 * scores together): about two misses a gram for the three indexes at once.
 *
 * Algorithm: open addressing, linear probing, over a power-of-two table of slot numbers (0 empty)
 * at most half full; a gram's key is its three UTF-16 code units packed in 48 bits (exact in a
 * double: no collision, no string made). A gram not held yet is asked of the indexes once (the
 * caller's `sizes`) and added. The table holds at most GRAMS_MAX grams: a query whose grams would
 * pass that (queries of many distinct grams between two batches) starts it empty again before its
 * first gram, so its memory stays bounded and a pick never names a gram of before the restart.
 *
 * Cost: a read O(grams of the query) probes; a gram's first ask its probes of the indexes and, for a
 * list walked, its sort (O(P log P) for P items); an emptying O(table) once per content.
 */

import type { Graph } from "../graph.js";
import { GRAM } from "./gram-index.js";

/**
 * A gram's candidates sorted by score now (highest first, then search order), with columns read in
 * order by a walk: their scores, and their gram signatures (gram-signature.ts) that rule most
 * non-matches out without reading an item.
 */
export interface ScoreList<T> {
  readonly items: readonly T[];
  readonly scores: Float64Array;
  readonly signatures: Int32Array;
  /** A list of all rescored entities': each lowered one's base score rank (-1: a raised one), read by a resumed walk. */
  readonly sranks?: Int32Array;
  /** A list of rescored entities': each one's base name rank (its tier for a query, by the base's bounds), read by a resumed walk and for the better tiers. */
  readonly ranks?: Int32Array;
}

/** The gram indexes a read walks, by number: the delta's entities, the raised rescored ones, all rescored ones. */
export const LIST_DELTA = 0;
export const LIST_RAISED = 1;
export const LIST_ALL = 2;
const LISTS = 3;
/**
 * Where the sizes callback puts, past its `at`, how many delta entities' folded identifiers start
 * with the gram (after the three sizes).
 */
export const STARTS = LISTS;
/** rarest's `out`: past the LISTS picks, the number of the query's first gram (for startsOf). */
export const FIRST_GRAM = LISTS;
/** The length of rarest's `out`. */
export const PICKS = LISTS + 1;
/** Where a gram's top score in each index is, past its key: after its sizes and its starts. */
const TOPS = LISTS + 1;
/**
 * Doubles a gram takes in the data: its key, its size in each index, its starts, its list's top
 * score in each index (eight: a 64-byte line).
 */
const STRIDE = 1 + TOPS + LISTS;
/** The most grams held for one content (about 40 bytes each, and their lists): past it, the table starts empty again. */
export const GRAMS_MAX = 1 << 16;
/** The table's first size (slots), grown by doubling to stay at most half full. */
const INITIAL_SLOTS = 1 << 10;

/** The key of the gram of `s` at `i` (i + GRAM <= s.length): its three code units, 16 bits each. */
function keyAt(s: string, i: number): number {
  return (s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1)) * 65536 + s.charCodeAt(i + 2);
}

/** The table position the gram of `s` at `i` hashes to (three code units mixed). */
function hashAt(s: string, i: number, mask: number): number {
  let h = Math.imul(s.charCodeAt(i), 0x9e3779b1) ^ Math.imul(s.charCodeAt(i + 1), 0x85ebca77);
  h ^= Math.imul(s.charCodeAt(i + 2), 0xc2b2ae3d);
  return (h ^ (h >>> 15)) & mask;
}

/** Per 3-gram, for one content: its sizes in the three indexes, its text, and its sorted lists (see the banner). */
export class ScoreGrams {
  /** Table position to gram number + 1 (0: empty). */
  #table = new Int32Array(INITIAL_SLOTS);
  /** By gram number: its key, then its size in each index (STRIDE doubles). */
  #data = new Float64Array(INITIAL_SLOTS * STRIDE);
  /** By gram number: its text. */
  readonly #texts: string[] = [];
  /** By index, by gram number: its sorted list, once made. */
  readonly #lists: (ScoreList<unknown> | undefined)[][] = [[], [], []];
  #sequence = -1;
  #base: Graph | undefined;
  /** rarest's scratch: the smallest size so far in each index. */
  readonly #least = new Float64Array(LISTS);

  /** Starts empty when the content is not the one held (a batch or a swap since); true when it did. */
  forContent(sequence: number, base: Graph): boolean {
    if (sequence === this.#sequence && base === this.#base) return false;
    this.#sequence = sequence;
    this.#base = base;
    this.clear();
    return true;
  }

  /** Holds no content (a swap: the old base and its delta's lists are let go now, not at the next read). */
  forget(): void {
    this.#sequence = -1;
    this.#base = undefined;
    this.clear();
  }

  private clear(): void {
    // Each branch: a table grown past its first size is let go (a content's grams are not the next one's); else emptied.
    if (this.#table.length > INITIAL_SLOTS) {
      this.#table = new Int32Array(INITIAL_SLOTS);
      this.#data = new Float64Array(INITIAL_SLOTS * STRIDE);
    } else this.#table.fill(0);
    this.#texts.length = 0;
    for (const lists of this.#lists) lists.length = 0;
  }

  /**
   * Into `out` (PICKS numbers): for each index, the number of the rarest gram of `fq` (at least
   * GRAM code units), or -1 when some gram of it has no item there (no candidate); at FIRST_GRAM,
   * the number of its first gram. A gram not held yet is asked of `sizes` (its text, the data to
   * fill at `at`: one size an index, then its starts at `at + STARTS`) and added.
   */
  rarest(fq: string, sizes: (text: string, data: Float64Array, at: number) => void, out: Int32Array): void {
    out.fill(-1);
    const least = this.#least;
    least.fill(Infinity);
    // A cache without room for every gram of the query starts again now, not between two of its
    // grams: a gram number picked before the restart would name another gram after it.
    if (this.#texts.length + Math.max(0, fq.length - GRAM + 1) > GRAMS_MAX) this.clear();
    for (let i = 0; i + GRAM <= fq.length; i++) {
      const g = this.gramOf(fq, i, sizes);
      if (i === 0) out[FIRST_GRAM] = g;
      const data = this.#data;
      for (let k = 0; k < LISTS; k++) {
        const size = data[g * STRIDE + 1 + k]!;
        // Each branch: an index already without candidates stays so; a smaller posting is the rarest so far.
        if (least[k] === 0) continue;
        if (size < least[k]!) {
          least[k] = size;
          out[k] = size === 0 ? -1 : g;
        }
      }
    }
  }

  /** The text of gram number `g`. */
  textOf(g: number): string {
    return this.#texts[g]!;
  }

  /** Gram `g`'s sorted list in index `k`, made by `make` on first need (its top score kept for topOf). */
  listOf<T>(k: number, g: number, make: (text: string) => ScoreList<T>): ScoreList<T> {
    const lists = this.#lists[k]!;
    let list = lists[g] as ScoreList<T> | undefined;
    if (list === undefined) {
      list = make(this.#texts[g]!);
      lists[g] = list;
      // Each branch: an empty list's top is below every score.
      this.#data[g * STRIDE + 1 + TOPS + k] = list.scores.length > 0 ? list.scores[0]! : -1;
    }
    return list;
  }

  /**
   * The highest score of gram `g`'s list in index `k` (-1: empty), NaN until listOf made it: a
   * read whose page's last scores above it passes the list without reading it.
   */
  topOf(k: number, g: number): number {
    return this.#data[g * STRIDE + 1 + TOPS + k]!;
  }

  /** How many delta entities' folded identifiers start with gram `g` (the sizes callback's, at STARTS). */
  startsOf(g: number): number {
    return this.#data[g * STRIDE + 1 + STARTS]!;
  }

  /** The number of the gram of `s` at `i`, found, or added with its sizes. */
  private gramOf(s: string, i: number, sizes: (text: string, data: Float64Array, at: number) => void): number {
    const key = keyAt(s, i);
    let mask = this.#table.length - 1;
    let at = hashAt(s, i, mask);
    for (;;) {
      const g = this.#table[at]! - 1;
      // Each branch: an empty position (the gram is not held: added there), the gram, or another's (the next position).
      if (g < 0) break;
      if (this.#data[g * STRIDE] === key) return g;
      at = (at + 1) & mask;
    }
    // A table half full doubles first (rarest made room for the query's grams: never past GRAMS_MAX).
    if (2 * (this.#texts.length + 1) > this.#table.length) {
      this.grow();
      mask = this.#table.length - 1;
      at = hashAt(s, i, mask);
      while (this.#table[at] !== 0) at = (at + 1) & mask;
    }
    const g = this.#texts.length;
    const text = s.slice(i, i + GRAM);
    this.#texts.push(text);
    if ((g + 1) * STRIDE > this.#data.length) {
      const data = new Float64Array(this.#data.length * 2);
      data.set(this.#data);
      this.#data = data;
    }
    // A record of an earlier content is filled anew: no starts, and no list made yet (NaN tops).
    this.#data[g * STRIDE] = key;
    this.#data[g * STRIDE + 1 + STARTS] = 0;
    this.#data.fill(Number.NaN, g * STRIDE + 1 + TOPS, (g + 1) * STRIDE);
    sizes(text, this.#data, g * STRIDE + 1);
    this.#table[at] = g + 1;
    return g;
  }

  /** Doubles the table and places every gram again. */
  private grow(): void {
    const table = new Int32Array(this.#table.length * 2);
    const mask = table.length - 1;
    for (let g = 0; g < this.#texts.length; g++) {
      let at = hashAt(this.#texts[g]!, 0, mask);
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = g + 1;
    }
    this.#table = table;
  }
}

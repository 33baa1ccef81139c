/**
 * Gram index
 * ==========
 * Substring search over a small, changing set of items by their folded identifiers: the live
 * graph's delta entities and its tombstoned base entities (live-graph.ts). A built SearchIndex
 * cannot take items one at a time, and building one costs about 20 ms at 100 items and 270 ms at
 * 10,000 (scratch loop over SearchIndex.build), far too much to redo per batch; a scan of every
 * item is O(items) includes() a query (about 0.8 ms at 9,000 items, bench:changes).
 *
 * Algorithm: a posting set per 3-gram (three UTF-16 code units) of the folded identifiers. A query
 * of at least GRAM code units can only be inside an item that has every gram of the query: the
 * items of its rarest gram are the candidates, each checked with includes(). A shorter query gets
 * every item (the caller's scan). Adding or removing an item touches its distinct grams.
 *
 * For a walk in order (search order "name" needs only a page's worth after a key), a posting set is
 * also kept as an array sorted by the caller's order, made on the first query that asks after the
 * set changed (sortedCandidates) and kept in the gram's posting object beside the set and its size:
 * a read then binary-searches to its key and stops after a page. A count of a query's matches in
 * such a list searches its identifiers joined in one text (joinedOf) and reads the prefix each item
 * shares with the one before (sharedPrefixes). These arrays (and summaryOf's) are kept in the posting
 * object too, so a read that asks them of the list sortedList just returned reads a field, no map.
 *
 * A gram of three code units below GRAM_UNIT_LIMIT is keyed by the number that packs them (a small
 * integer: a Map probe without a string made and hashed per gram of the query); any other by its
 * text. Reads probe every gram of the query: most of what a read adds to the base's when the delta holds
 * no match (its first gram that no item has ends the probe).
 *
 * Cost: a query O(grams of q + candidates), or O(grams of q + log candidates + what it walks) in
 * order (plus O(P log P) once for a posting set of P items changed since it was last sorted);
 * memory a Set entry per distinct gram per item (about 25 for a 25-character identifier) and an
 * array entry per sorted one, so it is for deltas (thousands to a few hundred thousand items), not
 * for a base.
 *
 * Reference: E. Ukkonen, "Approximate string-matching with q-grams and maximal matches", TCS 1992
 * (q-gram filtering).
 */

import { signatureInto } from "./gram-signature.js";

/** Code units per gram. */
export const GRAM = 3;

/** Code units below this (ten bits each) make a gram keyed by a number: three fit a small integer. */
const GRAM_UNIT_LIMIT = 1 << 10;

/** A gram's key: its three code units packed into a number, or its text when one is GRAM_UNIT_LIMIT or above. */
export type GramKey = number | string;

/** The key of the gram of `s` at `i` (i + GRAM <= s.length). */
function gramAt(s: string, i: number): GramKey {
  const a = s.charCodeAt(i);
  const b = s.charCodeAt(i + 1);
  const c = s.charCodeAt(i + 2);
  // Each branch: three units of ten bits packed (no string made), or the gram's text.
  if ((a | b | c) < GRAM_UNIT_LIMIT) return (a << 20) | (b << 10) | c;
  return s.slice(i, i + GRAM);
}

/**
 * A gram's posting set with what a read asks of it beside its items, in one object (one Map probe a
 * gram, one object read): its size, and the set sorted by sortedList's order (until the set changes).
 */
interface Posting<T> {
  readonly gram: GramKey;
  readonly items: Set<T>;
  size: number;
  sorted: T[] | undefined;
  /** `sorted`'s summaryOf, joinedOf and sharedPrefixes, made at their first call (let go with it). */
  summary: Int32Array | undefined;
  joined: JoinedList | undefined;
  prefixes: Int32Array | undefined;
}

export class GramIndex<T extends { readonly folded: string }> {
  private readonly postings = new Map<GramKey, Posting<T>>();
  /**
   * The posting whose sorted list sortedList returned last: summaryOf, joinedOf and sharedPrefixes of
   * that list (the one a read asks them of, right after) read its fields, no map probed.
   */
  private last: Posting<T> | undefined;
  /** sharedPrefixes' arrays of any other list, by the list they describe (let go with it). */
  private readonly prefixes = new WeakMap<readonly T[], Int32Array>();
  /** summaryOf's arrays of any other list, likewise. */
  private readonly summaries = new WeakMap<readonly T[], Int32Array>();
  /** joinedOf's texts of any other list, likewise. */
  private readonly joined = new WeakMap<readonly T[], JoinedList>();
  readonly items = new Set<T>();
  /** `items` as an array (list()), until an item comes or goes. */
  private listed: T[] | undefined;

  get size(): number {
    return this.items.size;
  }

  add(item: T): void {
    this.items.add(item);
    this.listed = undefined;
    for (const g of grams(item.folded)) {
      let posting = this.postings.get(g);
      if (posting === undefined) {
        posting = {
          gram: g,
          items: new Set(),
          size: 0,
          sorted: undefined,
          summary: undefined,
          joined: undefined,
          prefixes: undefined,
        };
        this.postings.set(g, posting);
      }
      posting.items.add(item);
      posting.size = posting.items.size;
      unsort(posting);
    }
  }

  remove(item: T): void {
    if (!this.items.delete(item)) return;
    this.listed = undefined;
    for (const g of grams(item.folded)) {
      const posting = this.postings.get(g);
      if (posting === undefined) continue;
      posting.items.delete(item);
      posting.size = posting.items.size;
      unsort(posting);
      if (posting.size === 0) this.postings.delete(g);
    }
  }

  /**
   * What a query must look at, without a copy: `items` holds every item whose folded identifier
   * contains `fq` (the rarest gram's posting set, or every item for a query shorter than a gram),
   * and `check` says whether an item of it must still be checked with includes() (false when `fq` is
   * one gram: every item of its posting set contains it).
   */
  candidates(fq: string): { items: Iterable<T>; check: boolean } {
    // Each branch: too short to filter (every item, checked); a gram no item has (nothing); the rarest gram's set.
    if (fq.length < GRAM) return { items: this.items, check: true };
    const rarest = this.rarestPosting(fq);
    if (rarest === undefined) return { items: NONE, check: false };
    return { items: rarest.items, check: fq.length !== GRAM };
  }

  /**
   * The rarest of the grams of `fq` (at least GRAM code units) and its posting set, or undefined when
   * one of its grams is in no item (nothing matches).
   */
  rarest(fq: string): { gram: GramKey; items: ReadonlySet<T> } | undefined {
    const rarest = this.rarestPosting(fq);
    return rarest === undefined ? undefined : { gram: rarest.gram, items: rarest.items };
  }

  /**
   * The posting of the rarest gram of `fq` (at least GRAM code units: a shorter one has none), or
   * undefined when one of its grams is in no item (nothing matches): the one probe of the query's
   * grams that every read above shares.
   */
  private rarestPosting(fq: string): Posting<T> | undefined {
    let rarest: Posting<T> | undefined;
    for (let i = 0; i + GRAM <= fq.length; i++) {
      const posting = this.postings.get(gramAt(fq, i));
      if (posting === undefined) return undefined;
      if (rarest === undefined || posting.size < rarest.size) rarest = posting;
    }
    return rarest;
  }

  /**
   * As candidates, for a query of at least GRAM code units, with the rarest gram's posting set as an
   * array sorted by `compare` (the same order on every call: it is kept until the set changes).
   */
  sortedCandidates(fq: string, compare: (x: T, y: T) => number): { items: readonly T[]; check: boolean } {
    const items = this.sortedList(fq, compare);
    return { items, check: items !== NONE && fq.length !== GRAM };
  }

  /**
   * sortedCandidates' items alone (no object made): the caller checks each with includes() when
   * `fq` is longer than a gram. An empty list when some gram of `fq` is in no item.
   */
  sortedList(fq: string, compare: (x: T, y: T) => number): readonly T[] {
    const rarest = this.rarestPosting(fq);
    // A gram no item has: nothing can match.
    if (rarest === undefined) return NONE;
    rarest.sorted ??= [...rarest.items].sort(compare);
    this.last = rarest;
    return rarest.sorted;
  }

  /**
   * For a list sortedList returned: at i, how many code units item i's folded identifier shares as a
   * prefix with item i - 1's (0 at 0). Made at the first call for that list (O(the prefixes
   * shared)) and kept with it: a list is never changed, a set that changes gets a new one. A
   * count of a query's matches skips the check of an item whose shared prefix holds the
   * previous item's first occurrence of the query (runs of names that differ only in their ends,
   * such as numbered ones, cost an integer comparison an item).
   */
  sharedPrefixes(list: readonly T[]): Int32Array {
    const posting = this.postingOf(list);
    // Each branch: the list of the posting sortedList returned last (its field), or any other (the map).
    let shared = posting !== undefined ? posting.prefixes : this.prefixes.get(list);
    if (shared === undefined) {
      shared = new Int32Array(list.length);
      for (let i = 1; i < list.length; i++) {
        const a = list[i - 1]!.folded;
        const b = list[i]!.folded;
        const n = Math.min(a.length, b.length);
        let k = 0;
        while (k < n && a.charCodeAt(k) === b.charCodeAt(k)) k++;
        shared[i] = k;
      }
      if (posting !== undefined) posting.prefixes = shared;
      else this.prefixes.set(list, shared);
    }
    return shared;
  }

  /**
   * For a list sortedList returned in an order by folded identifier first: item i's head, type and
   * gram signature in SUMMARY_WORDS words from i * SUMMARY_WORDS (SUMMARY_HEAD: summaryHead of its
   * folded identifier's first two code units; SUMMARY_TAIL: its third code unit << 8 | `typeOf(item)`
   * (0 to 255); SUMMARY_SIGNATURE, two words: gram-signature.ts signatureInto). A walk of the list
   * reads this one array in order and reads an item (its object and string) only when the words do
   * not decide: the heads order items as their identifiers do where they differ, the type and the
   * signature rule out most items that cannot match. Made at the first call for that list, kept with it.
   */
  summaryOf(list: readonly T[], typeOf: (item: T) => number): Int32Array {
    const posting = this.postingOf(list);
    // Each branch: as sharedPrefixes.
    let summary = posting !== undefined ? posting.summary : this.summaries.get(list);
    if (summary === undefined) {
      summary = new Int32Array(SUMMARY_WORDS * list.length);
      for (let i = 0; i < list.length; i++) {
        const item = list[i]!;
        const at = SUMMARY_WORDS * i;
        const s = item.folded;
        summary[at + SUMMARY_HEAD] = summaryHead(s);
        summary[at + SUMMARY_TAIL] = (summaryThird(s) << 8) | typeOf(item);
        signatureInto(s, summary, (at + SUMMARY_SIGNATURE) / 2);
      }
      if (posting !== undefined) posting.summary = summary;
      else this.summaries.set(list, summary);
    }
    return summary;
  }

  /**
   * For a list sortedList returned: its items' folded identifiers in one string, each followed by
   * JOIN_SEPARATOR, and where each starts (`starts[i]`; `starts[length]` the text's length). A count
   * of a query's matches then searches one string from match to match (indexOf) instead of reading
   * every item and its string at random. Made at the first call for that list, kept with it.
   */
  joinedOf(list: readonly T[]): JoinedList {
    const posting = this.postingOf(list);
    // Each branch: as sharedPrefixes.
    let joined = posting !== undefined ? posting.joined : this.joined.get(list);
    if (joined === undefined) {
      const starts = new Int32Array(list.length + 1);
      const parts: string[] = [];
      let at = 0;
      for (let i = 0; i < list.length; i++) {
        starts[i] = at;
        parts.push(list[i]!.folded);
        at += list[i]!.folded.length + 1;
      }
      starts[list.length] = at;
      parts.push("");
      joined = { text: parts.join(JOIN_SEPARATOR), starts };
      if (posting !== undefined) posting.joined = joined;
      else this.joined.set(list, joined);
    }
    return joined;
  }

  /**
   * The posting whose current sorted list is `list`, when it is the one sortedList returned last
   * (a list of a set changed since is no posting's: its arrays go to the maps, and go with it).
   */
  private postingOf(list: readonly T[]): Posting<T> | undefined {
    const last = this.last;
    return last !== undefined && last.sorted === list ? last : undefined;
  }

  /** Every item, as an array (made at the first call after an item came or went; no order). */
  list(): readonly T[] {
    this.listed ??= [...this.items];
    return this.listed;
  }

  /**
   * The items whose folded identifier contains `fq`, or undefined when `fq` is shorter than a gram
   * (no filter: the caller scans every item).
   */
  matching(fq: string): T[] | undefined {
    if (fq.length < GRAM) return undefined;
    const rarest = this.rarestPosting(fq);
    // A gram no item has: nothing can match.
    if (rarest === undefined) return [];
    // Each branch: a query of one gram is in every item of its posting set; a longer one is checked.
    if (fq.length === GRAM) return [...rarest.items];
    const out: T[] = [];
    for (const item of rarest.items) if (item.folded.includes(fq)) out.push(item);
    return out;
  }
}

/**
 * The first three code units of `s` packed into one number (16 bits each, exact in a double; a
 * missing unit counts 0): two strings whose heads differ compare as their heads do.
 */
export function packedHead(s: string): number {
  const a = s.length > 0 ? s.charCodeAt(0) : 0;
  const b = s.length > 1 ? s.charCodeAt(1) : 0;
  const c = s.length > 2 ? s.charCodeAt(2) : 0;
  return (a * 65536 + b) * 65536 + c;
}

/** Words of a sorted list's summary (GramIndex.summaryOf) per item, and where each field is among them. */
export const SUMMARY_WORDS = 4;
export const SUMMARY_HEAD = 0;
export const SUMMARY_TAIL = 1;
/** Two words (even: signatureInto writes pairs). */
export const SUMMARY_SIGNATURE = 2;

/**
 * A summary's head word of `s`: its first two code units (a missing one 0), the first in the high
 * half; compared as unsigned (>>> 0), two heads order as the strings' first two units do.
 */
export function summaryHead(s: string): number {
  const a = s.length > 0 ? s.charCodeAt(0) : 0;
  const b = s.length > 1 ? s.charCodeAt(1) : 0;
  return (a << 16) | b;
}

/** The third code unit of `s` (0 when it has none): a summary's tail word's high part. */
export function summaryThird(s: string): number {
  return s.length > 2 ? s.charCodeAt(2) : 0;
}

/**
 * What follows each folded identifier in a joined list's text (joinedOf): a match that spans it is
 * no item's (its reader checks that a match ends inside its item).
 */
export const JOIN_SEPARATOR = "\u0000";

/** A sorted list's folded identifiers in one text (joinedOf). */
export interface JoinedList {
  readonly text: string;
  /** Where item i's identifier starts in `text`; the last entry, the text's length. */
  readonly starts: Int32Array;
}

/** An empty candidate list (a query with a gram that no item has). */
const NONE: readonly never[] = [];

/** A posting's set changed: its sorted list and what describes it are made again when next asked. */
function unsort<T>(posting: Posting<T>): void {
  posting.sorted = undefined;
  posting.summary = undefined;
  posting.joined = undefined;
  posting.prefixes = undefined;
}

/** The distinct grams of `s`, by key. */
function grams(s: string): Set<GramKey> {
  const out = new Set<GramKey>();
  for (let i = 0; i + GRAM <= s.length; i++) out.add(gramAt(s, i));
  return out;
}

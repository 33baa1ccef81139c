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
 * also kept as an array sorted by the caller's order, made on the first query that asks for it
 * (sortedCandidates) and kept in the gram's posting object beside the set and its size: a read then
 * binary-searches to its key and stops after a page. The items added to the set and removed from it
 * since the list was made are kept beside it and merged into a new list at the next read that asks
 * (mergeChanges), and the list's summaries likewise (mergeWords: the words of the items kept copied,
 * the new ones summarized): after a batch, the first read of a common gram's list of thousands pays
 * for the batch's few changes, not a sort and a summary of every item again, which took milliseconds
 * (bench:changes, "search right after a batch of 1 entity put"). A count of a query's matches in
 * such a list searches its identifiers joined in one text (joinedOf) and reads the prefix each item
 * shares with the one before (sharedPrefixes). These arrays (and summaryOf's) are kept in the posting
 * object too, so a read that asks them of the list sortedList just returned reads a field, no map.
 * A short posting set is counted without its list (countHolding): its items' identifiers and types
 * in one string of its own (no order), so a count reads the posting and that string, not the list,
 * its joined text, starts and shared prefixes (each an object of its own: a cache miss each).
 *
 * A gram of three code units below GRAM_UNIT_LIMIT is keyed by the number that packs them (a small
 * integer: no string made and hashed per gram of the query); any other by its text. Reads probe
 * every gram of the query for its posting's size (its first gram that no item has ends the probe):
 * a numeric gram in a table of its own (GramTable: open addressing with linear probing in one
 * Int32Array, a slot holding the gram, its posting's size, the posting's number and where its
 * sorted list's summary lies in one array shared by all, the arena), so a probe reads one slot,
 * most often one cache line, where the Map reads its bucket, its entry and the posting object; and
 * probe() hands on the rarest gram's summary without reading its posting or its list (summaries
 * made in the arena on demand; a full arena starts again, each made again when next asked). The
 * Map keeps every posting (a text gram is probed there).
 *
 * A GramIndex given a ShortSubstrings (short-substrings.ts) keeps it beside its grams (add, remove):
 * what a query of at most SHORT_MAX code units asks (whether any item holds it, how many, the first)
 * is then one slot read there, where the grams' answers walk a list.
 *
 * Cost: a query O(grams of q + candidates), or O(grams of q + log candidates + what it walks) in
 * order (plus, once for a posting set of P items, O(P log P) to sort it first, and after c changes
 * O(P + c log P) to merge them);
 * memory a Set entry per distinct gram per item (about 25 for a 25-character identifier) and an
 * array entry per sorted one, 16 bytes a numeric gram in the table (at most half full) and 16
 * bytes an item of a probed list in the summaries' arena (at most twice every posting's), so it
 * is for deltas (thousands to a few hundred thousand items), not for a base.
 *
 * Reference: E. Ukkonen, "Approximate string-matching with q-grams and maximal matches", TCS 1992
 * (q-gram filtering).
 */

import { signatureInto } from "./gram-signature.js";
import type { ShortSubstrings } from "./short-substrings.js";

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
  /** Its number in the gram table (GramTable's posting column, byNumber): -1 for a text gram. */
  readonly number: number;
  readonly items: Set<T>;
  size: number;
  /**
   * The set sorted by sortedList's order, as it was when sorted: the items added since (`adds`) and
   * removed since (`drops`, which it holds) are merged into a new list at the next read (sortedOf).
   */
  sorted: T[] | undefined;
  adds: Set<T> | undefined;
  drops: Set<T> | undefined;
  /** The order `sorted` was sorted in (mergeWords walks an older list and a newer one by it). */
  order: ((x: T, y: T) => number) | undefined;
  /**
   * summaryOf's words of the list `summaryList` (the sorted list, or an older one of this set: a
   * newer list's words are merged from them, mergeWords); probe()'s, in the arena at `arenaFrom`,
   * of `arenaList`, while the arena is at generation `arenaGen`.
   */
  summary: Int32Array | undefined;
  summaryList: readonly T[] | undefined;
  arenaList: readonly T[] | undefined;
  arenaFrom: number;
  arenaGen: number;
  /** `sorted`'s joinedOf and sharedPrefixes, made at their first call (let go when the set changes). */
  joined: JoinedList | undefined;
  prefixes: Int32Array | undefined;
  /** countTextOf's text of `items` (no order), made at the first count that reads it; null when an item holds COUNT_END. */
  counted: string | null | undefined;
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
  /** The numeric grams' sizes and posting numbers (seekRarest's look-ups). */
  private readonly table = new GramTable();
  /** The numeric grams' postings by number (the table's posting column), and the numbers free. */
  private readonly byNumber: (Posting<T> | undefined)[] = [];
  private readonly freeNumbers: number[] = [];
  /**
   * The summaries (summaryOf's words) of numeric grams' sorted lists that probe() made, one after
   * another, each where its gram's slot says (SLOT_SUMMARY); a list that changes leaves its words
   * behind, and a full array starts again (every slot's summary forgotten, made again when asked).
   */
  private arena = new Int32Array(ARENA_MIN_WORDS);
  private arenaUsed = 0;
  /** How many times the arena started again (a posting's words from an earlier one are gone). */
  private arenaGen = 0;
  /** Items in all posting sets together (what every summary would take: the arena's ceiling). */
  private entries = 0;
  /** seekRarest's answer: the rarest gram's size, and its slot (numeric) or posting (text). */
  private readonly sought: { size: number; slot: number; posting: Posting<T> | undefined } = {
    size: -1,
    slot: -1,
    posting: undefined,
  };
  /** probe()'s answer, filled again at each call. */
  private readonly probed: GramProbe<T> = { size: 0, words: EMPTY_WORDS, from: 0, number: -1, posting: undefined };

  /**
   * @param short the items' short substrings (short-substrings.ts), kept beside the grams when
   *   given: what a short query asks is then one slot read.
   */
  constructor(readonly short?: ShortSubstrings<T>) {}

  get size(): number {
    return this.items.size;
  }

  add(item: T): void {
    if (this.items.has(item)) return;
    this.items.add(item);
    this.short?.add(item);
    this.listed = undefined;
    for (const g of grams(item.folded)) {
      let posting = this.postings.get(g);
      if (posting === undefined) {
        // Each branch: a numeric gram gets a number (a free one first) and a slot; a text gram neither.
        let number = -1;
        if (typeof g === "number") {
          number = this.freeNumbers.pop() ?? this.byNumber.length;
          this.table.insert(g, number);
        }
        posting = {
          gram: g,
          number,
          items: new Set(),
          size: 0,
          sorted: undefined,
          adds: undefined,
          drops: undefined,
          order: undefined,
          summary: undefined,
          summaryList: undefined,
          arenaList: undefined,
          arenaFrom: -1,
          arenaGen: -1,
          joined: undefined,
          prefixes: undefined,
          counted: undefined,
        };
        this.postings.set(g, posting);
      }
      posting.items.add(item);
      if (posting.items.size === posting.size) continue;
      this.entries++;
      posting.size = posting.items.size;
      if (posting.number >= 0) {
        this.byNumber[posting.number] = posting;
        this.table.setSize(g as number, posting.size);
      }
      changed(posting, item, true);
    }
  }

  remove(item: T): void {
    if (!this.items.delete(item)) return;
    this.short?.remove(item);
    this.listed = undefined;
    for (const g of grams(item.folded)) {
      const posting = this.postings.get(g);
      if (posting === undefined) continue;
      if (!posting.items.delete(item)) continue;
      this.entries--;
      posting.size = posting.items.size;
      changed(posting, item, false);
      // Each branch: the last item gone (the gram leaves the map, and the table with its number), or
      // the table's size brought up to date.
      if (posting.size === 0) {
        this.postings.delete(g);
        if (posting.number >= 0) {
          this.table.remove(g as number);
          this.byNumber[posting.number] = undefined;
          this.freeNumbers.push(posting.number);
        }
      } else if (posting.number >= 0) this.table.setSize(g as number, posting.size);
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
    if (!this.seekRarest(fq)) return undefined;
    const sought = this.sought;
    return sought.posting ?? this.byNumber[this.table.numberAt(sought.slot)];
  }

  /**
   * The one walk of the grams of `fq` (at least GRAM code units) that rarestPosting and probe share:
   * false when one of them is in no item (nothing matches); else true, with the rarest in `sought`
   * (its size, and its slot for a numeric gram, read from the table without its posting, or its
   * posting for a text gram). Cost: a slot or a map entry a gram.
   */
  private seekRarest(fq: string): boolean {
    const table = this.table;
    const sought = this.sought;
    sought.size = -1;
    sought.slot = -1;
    sought.posting = undefined;
    for (let i = 0; i + GRAM <= fq.length; i++) {
      const g = gramAt(fq, i);
      // Each branch: a numeric gram's size from its slot (no posting read); a text gram's posting
      // from the map.
      if (typeof g === "number") {
        const slot = table.find(g);
        if (slot < 0) return false;
        const n = table.sizeAt(slot);
        if (sought.size < 0 || n < sought.size) {
          sought.size = n;
          sought.slot = slot;
          sought.posting = undefined;
        }
      } else {
        const posting = this.postings.get(g);
        if (posting === undefined) return false;
        if (sought.size < 0 || posting.size < sought.size) {
          sought.size = posting.size;
          sought.slot = -1;
          sought.posting = posting;
        }
      }
    }
    return sought.size >= 0;
  }

  /**
   * How many items hold `fq` and have type code `want` (by `typeOf`, 0 to 254; -1 for any), when
   * the short substrings' slot (a query they keep), or for a query of at least GRAM code units the
   * rarest gram's slot and posting, tell it at little cost; else -1 (the caller counts the sorted
   * list: countCandidates in live-search.ts). Each branch after the short substrings: a gram no
   * item has, none; a query of one gram and any type, the posting's size (every item holds it); a
   * posting of at most COUNT_TEXT_ITEMS items, searched in its count text (countTextOf) from match
   * to match; a longer one, -1 (its sorted list's shared prefixes pass runs of like names without a
   * search). A count's cost is mostly cache misses (a read of a total comes after a base read that
   * has taken the caches): the count text is one string reached from the posting, where the sorted
   * list's count reads the list, its joined text, its starts and its shared prefixes, each an
   * object of its own. Measured by bench/changes.bench.ts (--cases search, "search count=true").
   */
  countHolding(fq: string, want: number, typeOf: (item: T) => number): number {
    // A query the short substrings keep (any length up to SHORT_MAX): its slot's count.
    const short = this.short?.count(fq, want) ?? -1;
    if (short >= 0) return short;
    if (fq.length < GRAM) return -1;
    if (!this.seekRarest(fq)) return 0;
    const sought = this.sought;
    if (fq.length === GRAM && want < 0) return sought.size;
    if (sought.size > COUNT_TEXT_ITEMS) return -1;
    const posting = sought.posting ?? this.byNumber[this.table.numberAt(sought.slot)]!;
    if (posting.counted === undefined) posting.counted = countTextOf(posting.items, typeOf);
    return posting.counted === null ? -1 : countInText(posting.counted, fq, want);
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
    return this.sortedOf(rarest, compare);
  }

  /**
   * The summary of the sorted list (by `compare`, the order sortedList is always asked in) of the
   * rarest gram of `fq` (at least GRAM code units): how many items it has (`size`, 0 when some gram
   * of fq is in no item), and its summaryOf words (by `typeOf`) at `from` of `words`, read without
   * the list or its posting: for a numeric gram from its slot and the arena (made there at the
   * first probe after the set changed), for a text gram from summaryOf. The list itself, when its
   * items must be read, is probeList's. The answer is one object, filled again by the next call.
   * Cost: a slot a gram (most often a cache line each), then the summary's own lines.
   */
  probe(fq: string, compare: (x: T, y: T) => number, typeOf: (item: T) => number): Readonly<GramProbe<T>> {
    const out = this.probed;
    const table = this.table;
    out.size = 0;
    out.posting = undefined;
    out.number = -1;
    if (!this.seekRarest(fq)) return out;
    const { size, slot } = this.sought;
    out.size = size;
    out.posting = this.sought.posting;
    // Each branch: a text gram's summary, its own array; a numeric one's, from the arena (made there
    // first if it is not).
    if (out.posting !== undefined) {
      out.words = this.summaryOf(this.sortedOf(out.posting, compare), typeOf);
      out.from = 0;
      return out;
    }
    out.number = table.numberAt(slot);
    let from = table.summaryAt(slot);
    if (from < 0) {
      const posting = this.byNumber[out.number]!;
      const list = this.sortedOf(posting, compare);
      from = this.arenaRoom(SUMMARY_WORDS * list.length);
      // Each branch: merged from the words of an older list of the set, still in the arena (the
      // items kept copied, those added since summarized: a batch's few changes to a long list cost
      // it a copy, not a summary of every item again); else every item summarized.
      if (posting.arenaList !== undefined && posting.arenaGen === this.arenaGen)
        mergeWords(posting.arenaList, this.arena, posting.arenaFrom, list, this.arena, from, typeOf, compare);
      else summaryInto(list, typeOf, this.arena, from);
      posting.arenaList = list;
      posting.arenaFrom = from;
      posting.arenaGen = this.arenaGen;
      table.setSummary(slot, from);
    }
    out.words = this.arena;
    out.from = from;
    return out;
  }

  /** The sorted list whose summary `probe` (probe()'s last answer) holds: its items, in the summary's order. */
  probeList(probe: Readonly<GramProbe<T>>, compare: (x: T, y: T) => number): readonly T[] {
    return this.sortedOf(probe.posting ?? this.byNumber[probe.number]!, compare);
  }

  /**
   * `posting`'s sorted list (sortedList's), made if need be; the last one returned (postingOf). Each
   * branch: none kept, the set sorted (O(P log P) comparisons); the items added and removed since the
   * list was made, merged into a new one (mergeChanges: O(P) copies and a binary search a change,
   * where a common gram's list of thousands took milliseconds to sort again after each batch); or
   * the list as it is.
   */
  private sortedOf(posting: Posting<T>, compare: (x: T, y: T) => number): T[] {
    let sorted = posting.sorted;
    if (sorted === undefined) sorted = [...posting.items].sort(compare);
    else if (posting.adds !== undefined || posting.drops !== undefined)
      sorted = mergeChanges(sorted, posting.adds, posting.drops, compare);
    // A new list: what described the old one's order (its joined text and shared prefixes) goes.
    if (sorted !== posting.sorted) {
      posting.joined = undefined;
      posting.prefixes = undefined;
    }
    posting.sorted = sorted;
    posting.adds = undefined;
    posting.drops = undefined;
    posting.order = compare;
    this.last = posting;
    return sorted;
  }

  /**
   * Where `words` words start in the arena, taken now: after the last summary, or (the arena full)
   * from 0 of an arena started again, every slot's summary forgotten; twice as large while it is
   * under twice what every posting's summary would take together.
   */
  private arenaRoom(words: number): number {
    if (this.arenaUsed + words > this.arena.length) {
      let length = this.arena.length;
      // Each branch: grown (the arena may be too small for what is asked of it), or the same size.
      while (length < words || length < 2 * SUMMARY_WORDS * this.entries) length *= 2;
      if (length !== this.arena.length) this.arena = new Int32Array(length);
      this.arenaUsed = 0;
      this.arenaGen++;
      this.table.forgetSummaries();
    }
    const from = this.arenaUsed;
    this.arenaUsed += words;
    return from;
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
    // Each branch: the last sorted list's, kept in its posting (merged from an older list's words
    // when the set changed since they were made, as probe merges its arena's); any other list's, by the list.
    if (posting !== undefined) {
      const old = posting.summary;
      if (old !== undefined && posting.summaryList === list) return old;
      const summary = new Int32Array(SUMMARY_WORDS * list.length);
      if (old !== undefined && posting.summaryList !== undefined && posting.order !== undefined)
        mergeWords(posting.summaryList, old, 0, list, summary, 0, typeOf, posting.order);
      else summaryInto(list, typeOf, summary, 0);
      posting.summary = summary;
      posting.summaryList = list;
      return summary;
    }
    let summary = this.summaries.get(list);
    if (summary === undefined) {
      summary = new Int32Array(SUMMARY_WORDS * list.length);
      summaryInto(list, typeOf, summary, 0);
      this.summaries.set(list, summary);
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

/**
 * Items of a posting at most, for its count text (GramIndex.countHolding): a longer list is counted
 * in its sorted list's joined text, whose shared prefixes pass runs of like names (numbered ones)
 * with an integer comparison an item, where the count text searches each item once.
 */
export const COUNT_TEXT_ITEMS = 64;

/** What ends each item in a count text (countTextOf), after its type code's unit. */
const COUNT_END = "\u0000";

/**
 * The count text of `items`: each one's folded identifier, then one code unit for its type code
 * (`typeOf` + 1, so never COUNT_END), then COUNT_END; null when an identifier holds COUNT_END (its
 * item could not be told apart). O(total length), made once per posting set.
 */
function countTextOf<T extends { readonly folded: string }>(
  items: Iterable<T>,
  typeOf: (item: T) => number,
): string | null {
  const parts: string[] = [];
  for (const item of items) {
    if (item.folded.includes(COUNT_END)) return null;
    parts.push(item.folded, String.fromCharCode(typeOf(item) + 1), COUNT_END);
  }
  return parts.join("");
}

/**
 * How many items of count text `text` (countTextOf) hold `fq` (not empty) and have type code `want`
 * (-1: any): from each match to its item's end (COUNT_END), the match counted when it ends inside
 * the identifier (before the type's unit); any later match in that item would end past it too, so
 * the search goes on at the next item either way.
 */
export function countInText(text: string, fq: string, want: number): number {
  const len = fq.length;
  let n = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(fq, from);
    if (at < 0) return n;
    const end = text.indexOf(COUNT_END, at);
    // The match ends inside the identifier (not on its type's unit nor past its end), of the type asked.
    if (at + len < end && (want < 0 || text.charCodeAt(end - 1) === want + 1)) n++;
    from = end + 1;
  }
}

/** A sorted list's folded identifiers in one text (joinedOf). */
export interface JoinedList {
  readonly text: string;
  /** Where item i's identifier starts in `text`; the last entry, the text's length. */
  readonly starts: Int32Array;
}

/** summaryOf's words of `list`, written into `out` from word `from` (a multiple of SUMMARY_WORDS). */
function summaryInto<T extends { readonly folded: string }>(
  list: readonly T[],
  typeOf: (item: T) => number,
  out: Int32Array,
  from: number,
): void {
  for (let i = 0; i < list.length; i++) summaryItemInto(list[i]!, typeOf, out, from + SUMMARY_WORDS * i);
}

/** summaryOf's words of one item, written into `out` from word `at` (a multiple of SUMMARY_WORDS). */
function summaryItemInto<T extends { readonly folded: string }>(
  item: T,
  typeOf: (item: T) => number,
  out: Int32Array,
  at: number,
): void {
  const s = item.folded;
  out[at + SUMMARY_HEAD] = summaryHead(s);
  out[at + SUMMARY_TAIL] = (summaryThird(s) << 8) | typeOf(item);
  signatureInto(s, out, (at + SUMMARY_SIGNATURE) / 2);
}

/**
 * GramIndex.probe's answer: the rarest gram's sorted list's size and summary (`words` from `from`),
 * and which list it is (`posting`, a text gram's; else `number`, a numeric gram's posting number).
 */
export interface GramProbe<T> {
  size: number;
  words: Int32Array;
  from: number;
  number: number;
  posting: Posting<T> | undefined;
}

/** Words of an empty arena (a power of two, a multiple of SUMMARY_WORDS). */
const ARENA_MIN_WORDS = 1024;

const EMPTY_WORDS = new Int32Array(0);

/** An empty candidate list (a query with a gram that no item has). */
const NONE: readonly never[] = [];

/** A posting's set changed: its sorted list and what describes it are made again when next asked. */
/**
 * `item` came into `posting`'s set (`added`) or left it: what describes the set's items goes (its
 * joined text, shared prefixes and count text, made again when next asked); its sorted list stays,
 * with the change kept to merge into it at the next read (sortedOf), unless the changes outnumber
 * its items (sorting the set again then costs about what the merge would). Its summaries stay too,
 * for mergeWords, as they describe the list they were made of.
 */
function changed<T>(posting: Posting<T>, item: T, added: boolean): void {
  posting.joined = undefined;
  posting.prefixes = undefined;
  posting.counted = undefined;
  const sorted = posting.sorted;
  if (sorted === undefined) return;
  // Each branch: a change that undoes one kept (an item added since and removed, or removed and
  // back), forgotten; else kept.
  if (added) {
    if (posting.drops?.delete(item) !== true) (posting.adds ??= new Set()).add(item);
  } else if (posting.adds?.delete(item) !== true) (posting.drops ??= new Set()).add(item);
  if ((posting.adds?.size ?? 0) + (posting.drops?.size ?? 0) > sorted.length) {
    posting.sorted = undefined;
    posting.adds = undefined;
    posting.drops = undefined;
  }
}

/** The first index of `list` (sorted by `compare`) whose item is not before `x`. */
function lowerBound<T>(list: readonly T[], x: T, compare: (x: T, y: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(list[mid]!, x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A new list: `sorted` (by `compare`) less `drops` (items it holds) plus `adds` (items it does not),
 * in the same order. Each change is placed by a binary search (its index among the old items), then
 * one pass copies the old items with the added ones at their places. O(P + c log P) for c changes
 * to a list of P, where sorting the set again compares O(P log P) pairs of identifiers.
 */
function mergeChanges<T>(
  sorted: readonly T[],
  adds: ReadonlySet<T> | undefined,
  drops: ReadonlySet<T> | undefined,
  compare: (x: T, y: T) => number,
): T[] {
  const added = adds === undefined ? [] : [...adds].sort(compare);
  /** Where each added item goes: before the old item at that index (ascending: `added` is sorted). */
  const at = added.map((x) => lowerBound(sorted, x, compare));
  const gone: number[] = [];
  if (drops !== undefined)
    for (const x of drops) {
      // Its index: from the first not before it, past any that tie with it (another item of the same key).
      let i = lowerBound(sorted, x, compare);
      while (i < sorted.length && sorted[i] !== x) i++;
      if (i === sorted.length) throw new Error("GramIndex: a removed item is not in its posting's sorted list");
      gone.push(i);
    }
  gone.sort((a, b) => a - b);
  const out: T[] = [];
  let j = 0;
  let k = 0;
  for (let i = 0; i <= sorted.length; i++) {
    while (j < added.length && at[j] === i) out.push(added[j++]!);
    if (i === sorted.length) break;
    if (k < gone.length && gone[k] === i) {
      k++;
      continue;
    }
    out.push(sorted[i]!);
  }
  return out;
}

/**
 * summaryOf's words of `list` into `out` from word `from`, merged from those of an older list of the
 * same set (`old`, its words in `words` from `at`): an item of both (the same object: items do not
 * change while in the index) has its words copied, a run of them at once, and any other is
 * summarized (summaryItemInto). The two lists are walked together in their order (`compare`),
 * which is compared only where they differ: O(P) identity checks and words copied, and a
 * comparison and a summary an item changed, where summaryInto hashes the grams of every item.
 * Correct whatever the lists hold: an item is copied only from its own words.
 */
function mergeWords<T extends { readonly folded: string }>(
  old: readonly T[],
  words: Int32Array,
  at: number,
  list: readonly T[],
  out: Int32Array,
  from: number,
  typeOf: (item: T) => number,
  compare: (x: T, y: T) => number,
): void {
  let i = 0;
  let j = 0;
  while (j < list.length) {
    const x = list[j]!;
    // The old items before x that are gone.
    while (i < old.length && old[i] !== x && compare(old[i]!, x) < 0) i++;
    // Each branch: a run of items of both lists (their words copied at once), or one new since (summarized).
    if (i < old.length && old[i] === x) {
      let run = 1;
      while (j + run < list.length && i + run < old.length && list[j + run] === old[i + run]) run++;
      const src = at + SUMMARY_WORDS * i;
      const end = src + SUMMARY_WORDS * run;
      // Each branch: within one array (the arena: the new words lie past the old), or between two.
      if (out === words) out.copyWithin(from + SUMMARY_WORDS * j, src, end);
      else out.set(words.subarray(src, end), from + SUMMARY_WORDS * j);
      i += run;
      j += run;
    } else {
      summaryItemInto(x, typeOf, out, from + SUMMARY_WORDS * j);
      j++;
    }
  }
}

/** Words of a gram table slot, and where each field is among them. */
const SLOT_WORDS = 4;
/** The gram's packed units + 1 (0: an empty slot). */
const SLOT_KEY = 0;
const SLOT_SIZE = 1;
const SLOT_NUMBER = 2;
/** Where the gram's sorted list's summary starts in its GramIndex's arena, or -1 for none made since it changed. */
const SLOT_SUMMARY = 3;
/** Slots of an empty table (a power of two); a table grows to keep at most half its slots full. */
const TABLE_MIN_SLOTS = 64;

/**
 * The numeric grams of a GramIndex: gram -> (its posting's size, its posting's number), by open
 * addressing with linear probing in one Int32Array (SLOT_WORDS words a slot; 16 bytes: four slots a
 * cache line), at most half full; a removal shifts back the slots after it that probed past it
 * (Knuth's algorithm R), so no slot is ever marked deleted. Cost: O(1) expected a probe, insert or
 * removal; O(slots) to grow.
 * Reference: D. E. Knuth, TAOCP vol. 3, 6.4 (linear probing, deletion by algorithm R).
 */
class GramTable {
  private words = new Int32Array(SLOT_WORDS * TABLE_MIN_SLOTS);
  /** 32 - log2(slots): a key's home is the top bits of its hash (slotOf). */
  private shift = 32 - Math.log2(TABLE_MIN_SLOTS);
  private used = 0;

  /** The slot of gram `g`, or -1 when it has none. */
  find(g: number): number {
    const words = this.words;
    const mask = words.length / SLOT_WORDS - 1;
    const key = g + 1;
    for (let slot = slotOf(key, this.shift); ; slot = (slot + 1) & mask) {
      const k = words[slot * SLOT_WORDS + SLOT_KEY]!;
      if (k === key) return slot;
      if (k === 0) return -1;
    }
  }

  sizeAt(slot: number): number {
    return this.words[slot * SLOT_WORDS + SLOT_SIZE]!;
  }

  numberAt(slot: number): number {
    return this.words[slot * SLOT_WORDS + SLOT_NUMBER]!;
  }

  /** Gram `g` (not in the table) with posting number `number` and size 0. */
  insert(g: number, number: number): void {
    if (2 * (this.used + 1) > this.words.length / SLOT_WORDS) this.grow();
    this.place(g + 1, 0, number, -1);
    this.used++;
  }

  summaryAt(slot: number): number {
    return this.words[slot * SLOT_WORDS + SLOT_SUMMARY]!;
  }

  setSummary(slot: number, from: number): void {
    this.words[slot * SLOT_WORDS + SLOT_SUMMARY] = from;
  }

  /** Gram `g`'s size (it is in the table), its summary forgotten (its set changed). */
  setSize(g: number, size: number): void {
    const at = this.find(g) * SLOT_WORDS;
    this.words[at + SLOT_SIZE] = size;
    this.words[at + SLOT_SUMMARY] = -1;
  }

  /** Every slot's summary forgotten (the arena starts again). */
  forgetSummaries(): void {
    const words = this.words;
    for (let at = 0; at < words.length; at += SLOT_WORDS) words[at + SLOT_SUMMARY] = -1;
  }

  /** Gram `g` out of the table (it is in it). */
  remove(g: number): void {
    const words = this.words;
    const mask = words.length / SLOT_WORDS - 1;
    let hole = this.find(g);
    // Algorithm R: each later slot of the run whose home is not cyclically in (hole, slot] moves into the hole.
    for (let slot = (hole + 1) & mask; ; slot = (slot + 1) & mask) {
      const at = slot * SLOT_WORDS;
      const key = words[at + SLOT_KEY]!;
      if (key === 0) break;
      const home = slotOf(key, this.shift);
      // Each branch: the run wraps past the table's end between the hole and this slot, or not.
      const stays = hole <= slot ? hole < home && home <= slot : hole < home || home <= slot;
      if (stays) continue;
      words.copyWithin(hole * SLOT_WORDS, at, at + SLOT_WORDS);
      hole = slot;
    }
    words.fill(0, hole * SLOT_WORDS, (hole + 1) * SLOT_WORDS);
    this.used--;
  }

  /** Twice the slots, every gram placed again. */
  private grow(): void {
    const old = this.words;
    this.words = new Int32Array(old.length * 2);
    this.shift--;
    for (let at = 0; at < old.length; at += SLOT_WORDS)
      if (old[at + SLOT_KEY] !== 0)
        this.place(old[at + SLOT_KEY]!, old[at + SLOT_SIZE]!, old[at + SLOT_NUMBER]!, old[at + SLOT_SUMMARY]!);
  }

  /** A slot for `key` (not in the table), the first free one from its home. */
  private place(key: number, size: number, number: number, summary: number): void {
    const words = this.words;
    const mask = words.length / SLOT_WORDS - 1;
    let slot = slotOf(key, this.shift);
    while (words[slot * SLOT_WORDS + SLOT_KEY] !== 0) slot = (slot + 1) & mask;
    const at = slot * SLOT_WORDS;
    words[at + SLOT_KEY] = key;
    words[at + SLOT_SIZE] = size;
    words[at + SLOT_NUMBER] = number;
    words[at + SLOT_SUMMARY] = summary;
  }
}

/** The home slot of table key `key` (a gram's packed units + 1) in a table of 2 ** (32 - shift) slots: Fibonacci hashing (its top bits). */
function slotOf(key: number, shift: number): number {
  return Math.imul(key, 0x9e3779b1) >>> shift;
}

/** The distinct grams of `s`, by key. */
function grams(s: string): Set<GramKey> {
  const out = new Set<GramKey>();
  for (let i = 0; i + GRAM <= s.length; i++) out.add(gramAt(s, i));
  return out;
}

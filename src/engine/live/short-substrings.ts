/**
 * Short substrings
 * ================
 * For every substring of at most SHORT_MAX code units of a changing set of items' folded
 * identifiers (a GramIndex's items: the live graph's delta entities, or its tombstoned base
 * entities): how many items hold it, and, when asked to keep them, the first item that starts with
 * it and the first that holds it only further in, by the caller's order. A search query is most
 * often that short (a person types a few characters), and what the live graph's read asks of the
 * delta for it is then one slot read: whether any delta entity matches at all, how many do (a
 * total), and whether the first of them comes before a base page's last item (live-search.ts
 * deltaAhead; the first of the better tier is the first match: every exact or prefix match comes
 * before every infix one). Without it those answers walk the query's rarest 3-gram's list
 * (gram-index.ts), which for a short query is long: about half of what a page the delta leaves
 * unchanged paid over the base's read (bench:changes --reads-only --cases search, beside the same
 * run with deltaAhead switched off), and most of what a total paid.
 *
 * Algorithm: open addressing with linear probing in one Int32Array, SLOT_WORDS words a slot, at most
 * half full. A substring is its key, exactly: its code units' codes (ten bits each, given to the
 * distinct units in the order the items bring them, CODE_MAX at most: a substring holding a unit
 * that came after they ran out is not kept), three packed in each of two words; a query's unit
 * that no item brought tells that no item holds the query. Adding an item walks its substrings
 * from each position (at most SHORT_MAX each), counting each distinct one once: a slot remembers
 * the last add or remove that counted it (its stamp), so a substring the item holds twice is
 * counted once, and an item's first occurrence of a substring is at 0 exactly when the item starts
 * with it. A table given the items' types keeps each substring a second time with the item's type
 * (its code plus one, a tag of four bits in the key's spare top bits): a query with a type reads
 * its own slot. The first items are kept as item numbers, compared with the newcomer by their
 * places (placeOf, ascending with the order) and, where those tie, by the caller's order; each
 * item's place and identifier length are kept by number in arrays of their own, so a reader
 * compares a slot's first with an item of its own by numbers (firstTier, firstPlace), no item
 * read. A removed item that was a slot's first leaves it unknown (no walk of the other items to
 * find the next), and the slot answers "unknown" until its count falls to 0 (the caller asks its
 * other structures). Slots are never removed: an empty one stays with count 0, and the table is
 * let go with the delta (a compaction starts a new one).
 *
 * Bounded: a table that would pass SHORT_TABLE_MAX_BYTES is dropped and every later query answers
 * NOT_KEPT (the caller's other structures answer it, as for a longer query), until a new delta.
 *
 * Cost: an add or a remove O(L * SHORT_MAX) slot probes for an identifier of L code units (part of
 * bench:changes' "batch of 10,000 entity changes"); a query O(1): one slot, most often one cache
 * line; memory SLOT_WORDS * 4 bytes a slot, two slots a distinct substring at most (9,000 names
 * of bench:changes' graph, typed, hold about 163,000: a table of 12 MB; 300,000 names 650,000, 48
 * MB; scratch count), and a map entry and 12 bytes an item when firsts are kept.
 *
 * References: D. E. Knuth, TAOCP vol. 3, 6.4 (linear probing); live-search.ts and score-search.ts
 * (the reads); gram-index.ts (the owner).
 */

/** The longest substring kept, in code units: longer queries are told by the 3-gram lists. */
export const SHORT_MAX = 6;

/**
 * Distinct code units a table keeps: each gets a code of ten bits (1 to CODE_MAX; 0 marks no unit)
 * in the order the items bring them; a substring holding a unit that came after the codes ran out
 * is not kept.
 */
const CODE_MAX = 1023;

/** The most a table may take; one that would pass it is dropped (NOT_KEPT) until the next delta. */
export const SHORT_TABLE_MAX_BYTES = 64 * 1024 * 1024;

/** seek()'s answer for a query the table does not keep (too long, a unit past the codes, or the table dropped). */
export const NOT_KEPT = -2;
/** seek()'s answer for a query no item holds. */
export const ABSENT = -1;

/** Type tags a key can hold (four bits: 0 for any type, a type code plus 1 for one). */
const TYPE_TAGS = 16;

const SLOT_WORDS = 6;
const KEY_A = 0;
const KEY_B = 1;
const COUNT = 2;
const STAMP = 3;
const START_FIRST = 4;
const INFIX_FIRST = 5;
/** A first-item word: no such item, or one removed (the next one not known). */
const NONE = -1;
const UNKNOWN = -2;
const MIN_SLOTS = 1024;
/** Item numbers the per-item arrays hold at first (they double as numbers come). */
const MIN_ITEMS = 256;
/** Stamps run to this, then every slot's stamp is cleared and they start again at 1. */
const STAMP_MAX = 0x7fffffff;

/** What a ShortSubstrings keeps beside its counts. */
export interface ShortSubstringsOptions<T> {
  /** The order of the first items kept (the caller's search order of items); none: counts alone. */
  readonly order?: (x: T, y: T) => number;
  /** An item's type code (0 to TYPE_TAGS - 2), when substrings are kept by type too. */
  readonly typeOf?: (x: T) => number;
  /**
   * An item's place in an order the caller compares with its own (the live graph's: the first base
   * name rank after the delta entity's key), kept with the first items (an order given): firstPlace.
   * It must not descend where `order` ascends (two items' places decide between them where they
   * differ, no item read).
   */
  readonly placeOf?: (x: T) => number;
  /** The most the table may take (tests give less to see it dropped). */
  readonly maxBytes?: number;
}

export class ShortSubstrings<T extends { readonly folded: string }> {
  private words: Int32Array | undefined = new Int32Array(MIN_SLOTS * SLOT_WORDS);
  /** 32 - log2(slots): a key's home is the top bits of its hash. */
  private shift = 32 - Math.log2(MIN_SLOTS);
  private used = 0;
  private stamp = 0;
  /** Items by number, and numbers by item (kept only with an order: first items kept). */
  private readonly byNumber: (T | undefined)[] = [];
  private readonly numbers = new Map<T, number>();
  private readonly freeNumbers: number[] = [];
  /**
   * By item number: its place (placeOf) and its identifier's length, in arrays of their own (a few
   * bytes an item: they stay in the cache), so that firstPlace and firstTier read no item.
   */
  private places = new Float64Array(MIN_ITEMS);
  private lengths = new Int32Array(MIN_ITEMS);
  private readonly order: ((x: T, y: T) => number) | undefined;
  private readonly typeOf: ((x: T) => number) | undefined;
  private readonly placeOf: ((x: T) => number) | undefined;
  private readonly maxBytes: number;
  /** Each UTF-16 code unit's code (CODE_MAX at most), 0 for a unit no item brought yet. */
  private readonly codes = new Uint16Array(65536);
  private nextCode = 1;
  /** Some unit went without a code (they ran out): a query's unit with none proves nothing. */
  private codesOut = false;

  constructor(options: ShortSubstringsOptions<T> = {}) {
    this.order = options.order;
    this.typeOf = options.typeOf;
    this.placeOf = options.placeOf;
    this.maxBytes = options.maxBytes ?? SHORT_TABLE_MAX_BYTES;
  }

  /** Whether the table still answers (not dropped past its budget). */
  get kept(): boolean {
    return this.words !== undefined;
  }

  /** The bytes the table takes now. */
  get bytes(): number {
    return this.words === undefined ? 0 : this.words.byteLength;
  }

  /** `item` (not in the set yet) counted in each distinct substring it holds, with and without its type. */
  add(item: T): void {
    if (this.words === undefined) return;
    const number = this.order === undefined ? NONE : this.numberOf(item);
    const stamp = this.nextStamp();
    const tag = this.tagOf(item);
    // Each key: any type; the item's type (none: not kept). False (the walk stops): the table dropped.
    this.walkSubstrings(
      item.folded,
      true,
      (a, b, starts) =>
        this.addTo(a, b, stamp, item, number, starts) &&
        (tag === 0 || this.addTo(a | tagA(tag), b | tagB(tag), stamp, item, number, starts)),
    );
  }

  /** `item` (in the set) no longer counted; a slot whose first item it was is left unknown. */
  remove(item: T): void {
    if (this.words === undefined) return;
    const number = this.order === undefined ? NONE : (this.numbers.get(item) ?? NONE);
    const stamp = this.nextStamp();
    const tag = this.tagOf(item);
    this.walkSubstrings(item.folded, false, (a, b) => {
      this.removeFrom(a, b, stamp, number);
      if (tag !== 0) this.removeFrom(a | tagA(tag), b | tagB(tag), stamp, number);
      return true;
    });
    if (number !== NONE) {
      this.numbers.delete(item);
      this.byNumber[number] = undefined;
      this.freeNumbers.push(number);
    }
  }

  /**
   * The slot of `fq` (a folded query) of items of type code `type` (-1: any) when some item holds
   * it; ABSENT when none does; NOT_KEPT when the table cannot tell (longer than SHORT_MAX, empty, a
   * code unit with no code after the codes ran out, a type with no tag, or the table dropped).
   */
  seek(fq: string, type = -1): number {
    if (this.words === undefined || fq.length === 0 || fq.length > SHORT_MAX) return NOT_KEPT;
    let a = 0;
    let b = 0;
    for (let l = 1; l <= fq.length; l++) {
      const u = this.codes[fq.charCodeAt(l - 1)]!;
      // A unit no item brought: no item holds fq (unless the codes ran out: then not told).
      if (u === 0) return this.codesOut ? NOT_KEPT : ABSENT;
      if (l <= 3) a = (a << 10) | u;
      else b = (b << 10) | u;
    }
    // Each branch: any type (the plain key); a type, its tag in the key's top bits.
    if (type >= 0) {
      if (this.typeOf === undefined || type >= TYPE_TAGS - 1) return NOT_KEPT;
      a |= tagA(type + 1);
      b |= tagB(type + 1);
    }
    const at = this.find(a, b);
    return at < 0 || this.words[at + COUNT] === 0 ? ABSENT : at;
  }

  /** How many items of type code `type` (-1: any) hold `fq`, or -1 when the table cannot tell (seek's NOT_KEPT). */
  count(fq: string, type = -1): number {
    const at = this.seek(fq, type);
    // Each branch: not kept; no item holds it; its slot's count.
    if (at === NOT_KEPT) return -1;
    return at === ABSENT ? 0 : this.countAt(at);
  }

  /** How many items hold the substring of slot `at` (seek's answer, at least 0). */
  countAt(at: number): number {
    return this.words![at + COUNT]!;
  }

  /**
   * The first item by the order that holds the substring of slot `at` (seek's answer) at its
   * start, else the first that holds it further in; undefined when not known (a first removed, or
   * no order kept).
   */
  firstAt(at: number): T | undefined {
    const number = this.firstNumber(at);
    return number < 0 ? undefined : this.byNumber[number];
  }

  /**
   * The tier of firstAt's item for a query of `length` code units: 0 (its identifier is the query),
   * 1 (it starts with the query), 2 (it holds it further in); -1 when the first is not known.
   */
  firstTier(at: number, length: number): number {
    const words = this.words!;
    const start = words[at + START_FIRST]!;
    // Each branch: the first that starts with it, exact when no longer (unknown: -1); else the others' first.
    if (start !== NONE) return start === UNKNOWN ? -1 : this.lengths[start] === length ? 0 : 1;
    return words[at + INFIX_FIRST]! < 0 ? -1 : 2;
  }

  /** The place (placeOf) of firstAt's item, read without the item; NaN when not known or none kept. */
  firstPlace(at: number): number {
    const number = this.firstNumber(at);
    return number < 0 ? Number.NaN : this.places[number]!;
  }

  /**
   * `item` (number `number`, NONE: no firsts kept) counted at key (a, b) unless stamp `stamp` (this
   * add's) counted it there already, and made the first of its kind (`starts`: it starts with the
   * substring) when it comes first; false when the table was dropped past its budget.
   */
  private addTo(a: number, b: number, stamp: number, item: T, number: number, starts: boolean): boolean {
    const at = this.slotOrNew(a, b);
    if (at < 0) return false;
    const words = this.words!;
    if (words[at + STAMP] === stamp) return true;
    words[at + STAMP] = stamp;
    const count = words[at + COUNT]!;
    words[at + COUNT] = count + 1;
    // The first item of an empty slot: no first of either kind before it.
    if (count === 0) {
      words[at + START_FIRST] = NONE;
      words[at + INFIX_FIRST] = NONE;
    }
    if (number !== NONE) this.placeFirst(at + (starts ? START_FIRST : INFIX_FIRST), item, number);
    return true;
  }

  /** An item (number `number`) no longer counted at key (a, b), unless stamp `stamp` (this remove's) did it already. */
  private removeFrom(a: number, b: number, stamp: number, number: number): void {
    const words = this.words!;
    const at = this.find(a, b);
    if (at < 0 || words[at + STAMP] === stamp) return;
    words[at + STAMP] = stamp;
    const count = words[at + COUNT]! - 1;
    words[at + COUNT] = count;
    // Each branch: the last item gone (nothing first of either kind), or the item's place as a first forgotten.
    if (count === 0) {
      words[at + START_FIRST] = NONE;
      words[at + INFIX_FIRST] = NONE;
    } else if (number !== NONE) {
      if (words[at + START_FIRST] === number) words[at + START_FIRST] = UNKNOWN;
      if (words[at + INFIX_FIRST] === number) words[at + INFIX_FIRST] = UNKNOWN;
    }
  }

  /** `item`'s type tag: its type code plus 1, or 0 (not kept by type: no typeOf, or a code with no tag). */
  private tagOf(item: T): number {
    if (this.typeOf === undefined) return 0;
    const t = this.typeOf(item);
    return t >= 0 && t < TYPE_TAGS - 1 ? t + 1 : 0;
  }

  /**
   * The number of the first item of slot `at` (as firstAt), or -1 when not known. Each branch: the
   * first that starts with it (unknown: one may exist); none starts with it, the first of the others.
   */
  private firstNumber(at: number): number {
    const words = this.words!;
    const start = words[at + START_FIRST]!;
    if (start !== NONE) return start === UNKNOWN ? -1 : start;
    const infix = words[at + INFIX_FIRST]!;
    return infix < 0 ? -1 : infix;
  }

  /** The slot of key (a, b), or -1. */
  private find(a: number, b: number): number {
    const words = this.words!;
    const mask = words.length / SLOT_WORDS - 1;
    for (let slot = slotOf(a, b, this.shift); ; slot = (slot + 1) & mask) {
      const at = slot * SLOT_WORDS;
      const k = words[at + KEY_A]!;
      if (k === a && words[at + KEY_B] === b) return at;
      if (k === 0) return -1;
    }
  }

  /** The slot of key (a, b), made (count 0) when it has none; -1 when the table was dropped past its budget. */
  private slotOrNew(a: number, b: number): number {
    const found = this.find(a, b);
    if (found >= 0) return found;
    if (2 * (this.used + 1) > this.words!.length / SLOT_WORDS && !this.grow()) return -1;
    const words = this.words!;
    const at = freeSlot(words, a, b, this.shift);
    words[at + KEY_A] = a;
    words[at + KEY_B] = b;
    words[at + START_FIRST] = NONE;
    words[at + INFIX_FIRST] = NONE;
    this.used++;
    return at;
  }

  /** Twice the slots, every slot placed again; false (the table dropped) past the budget. */
  private grow(): boolean {
    const old = this.words!;
    if (old.byteLength * 2 > this.maxBytes) {
      this.words = undefined;
      this.numbers.clear();
      this.byNumber.length = 0;
      this.freeNumbers.length = 0;
      return false;
    }
    const words = new Int32Array(old.length * 2);
    this.shift--;
    for (let from = 0; from < old.length; from += SLOT_WORDS) {
      if (old[from + KEY_A] === 0) continue;
      // Word by word: a subarray a slot would be an object made per slot moved.
      const to = freeSlot(words, old[from + KEY_A]!, old[from + KEY_B]!, this.shift);
      for (let w = 0; w < SLOT_WORDS; w++) words[to + w] = old[from + w]!;
    }
    this.words = words;
    return true;
  }

  /** Item `item` (number `number`) made the first of its kind at word `at` when it comes before the one there. */
  private placeFirst(at: number, item: T, number: number): void {
    const words = this.words!;
    const first = words[at]!;
    // Each branch: none yet (it is the first); one removed (the first is not known: still not known
    // with this one); or their places decide (placeOf ascends with the order: no item read), or
    // where they tie (or are not kept: NaN), the order.
    if (first === NONE) words[at] = number;
    else if (first !== UNKNOWN) {
      const places = this.places;
      const d = places[number]! - places[first]!;
      if (d < 0 || (!(d > 0) && this.order!(item, this.byNumber[first]!) < 0)) words[at] = number;
    }
  }

  /**
   * Calls `visit` with the key (a, b) of each substring of `f` of at most SHORT_MAX code units, all
   * with codes, from each position by length, left to right: `starts` says the substring is at 0
   * (an item's first occurrence of a substring is at 0 exactly when the item starts with it). A
   * unit with no code gets the next (`assign`, while they last), or ends the substrings through
   * it. Stops when `visit` returns false.
   */
  private walkSubstrings(f: string, assign: boolean, visit: (a: number, b: number, starts: boolean) => boolean): void {
    const codes = this.codes;
    for (let i = 0; i < f.length; i++) {
      let a = 0;
      let b = 0;
      for (let l = 1; l <= SHORT_MAX && i + l <= f.length; l++) {
        const unit = f.charCodeAt(i + l - 1);
        let u = codes[unit]!;
        if (u === 0) {
          if (!assign) break;
          if (this.nextCode > CODE_MAX) {
            this.codesOut = true;
            break;
          }
          u = this.nextCode++;
          codes[unit] = u;
        }
        // Each branch: the unit goes in the first word (the first three), or in the second.
        if (l <= 3) a = (a << 10) | u;
        else b = (b << 10) | u;
        if (!visit(a, b, i === 0)) return;
      }
    }
  }

  /** A number for `item` (a free one first), with its place and length recorded. */
  private numberOf(item: T): number {
    const number = this.freeNumbers.pop() ?? this.byNumber.length;
    this.byNumber[number] = item;
    this.numbers.set(item, number);
    if (number >= this.lengths.length) {
      const places = new Float64Array(this.lengths.length * 2);
      places.set(this.places);
      this.places = places;
      const lengths = new Int32Array(this.lengths.length * 2);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.places[number] = this.placeOf === undefined ? Number.NaN : this.placeOf(item);
    this.lengths[number] = item.folded.length;
    return number;
  }

  /** A stamp no slot holds: the next, or 1 after every slot's is cleared (once in 2^31 adds and removes). */
  private nextStamp(): number {
    if (this.stamp === STAMP_MAX) {
      const words = this.words!;
      for (let at = 0; at < words.length; at += SLOT_WORDS) words[at + STAMP] = 0;
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/** A type tag's part in a key's first word (its low two bits, above the three units' 30) and in its second (its high two). */
function tagA(tag: number): number {
  return (tag & 3) << 30;
}

function tagB(tag: number): number {
  return (tag >> 2) << 30;
}

/** The first word of the first free slot from key (a, b)'s home in `words` (linear probing). */
function freeSlot(words: Int32Array, a: number, b: number, shift: number): number {
  const mask = words.length / SLOT_WORDS - 1;
  let slot = slotOf(a, b, shift);
  while (words[slot * SLOT_WORDS + KEY_A] !== 0) slot = (slot + 1) & mask;
  return slot * SLOT_WORDS;
}

/** The home slot of key (a, b) in a table of 2 ** (32 - shift) slots: Fibonacci hashing of the two words mixed. */
function slotOf(a: number, b: number, shift: number): number {
  return Math.imul(a ^ Math.imul(b, 0x85ebca6b), 0x9e3779b1) >>> shift;
}

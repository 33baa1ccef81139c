/**
 * Statement list
 * ==============
 * One sorted list of the live graph's delta statements (or tombstones) in one order of CONTRACT.md's
 * table (sorted-delta.ts compareStatements), as the reads search and walk it (`length` and `at(i)`,
 * as an array's) and as each batch merges into it (merge).
 *
 * Layout: the items themselves sit in a pool, each at a slot it keeps while in the list (a slot a
 * removal frees is reused by a later put); the order is an Int32Array of slots, `slots[i]` the slot
 * of the list's item i, with beside it a Float64Array of the items' merge keys (sorted-delta.ts
 * mergeKey), `keys[i]` item i's, that the merges and the reads' binary searches compare instead of
 * items. at(i) is pool[slots[i]].
 *
 * Why slots, not an array of the items in order: a batch of b puts spread over a delta of D items
 * moves every item after its first insertion point, about D a batch, in each of the three lists.
 * In a JavaScript array each move is a store of a reference (16 bytes an item with its key) through
 * the collector's write barrier; in typed arrays it is 12 bytes an item and no barrier. Over 60
 * batches of 10,000 puts on the 1M entities / 10M statements base (the delta growing to 600,000),
 * paired with the array version in one process, a batch's commit CPU p50 went from about 17 ms to
 * 14 (the row "engine: batch of 10,000 statement puts, CPU" of npm run bench:changes measures the
 * commit). The moves stay O(D) a batch, bound by memory bandwidth. The cost: an item read reads its
 * slot first (one more load; a walk reads the slots in order).
 *
 * Merge (a batch): a few changes (SPLICE_MAX_CHANGES) each by a binary search on the keys and a
 * copyWithin; many puts and nothing removed, in place from the back, the old items walked down and
 * moved as their keys are compared (#mergeInPlace says why a walk and not a search per put); puts
 * with removals, by one pass into new arrays over the keys, the removed items' positions found
 * first (by a binary search each while they are few: REMOVAL_SEARCH_SPAN). O(D + b log b + r log D)
 * for b puts and r removals in D items.
 *
 * References: sorted-delta.ts's banner (orders, merge keys); live-apply.ts commit (the caller).
 */

import {
  compareStatements,
  type DeltaStatement,
  mergeKey,
  type Order,
  SPLICE_MAX_CHANGES,
  type StatementRows,
} from "./sorted-delta.js";
import { addItemPair, PAIR_FILTER_BITS, pairFilterOf } from "./pair-filter.js";

/**
 * A merge with removals finds the removed items by a binary search each (O(r log D), reading keys)
 * while they number at most one in this many of the list's items; past that, by one pass that reads
 * every item's fingerprint (O(D) loads from the item pool, scattered over the heap, and set
 * look-ups), which costs about as much as this many probes of the keys an item.
 */
const REMOVAL_SEARCH_SPAN = 16;
/** Slots and keys a new list holds before it first grows. */
const INITIAL_CAPACITY = 16;
/** How much a list's slots and keys grow when full (amortized O(1) an item, at most this much spare). */
const CAPACITY_GROWTH = 1.5;

export class StatementList implements StatementRows {
  /** The items by slot; a slot freed by a removal holds undefined until a put reuses it. */
  #pool: (DeltaStatement | undefined)[] = [];
  /** Slots freed by removals (reused first). */
  #free: number[] = [];
  /** slots[i]: the pool slot of the list's item i, for its first `length` entries. */
  #slots = new Int32Array(INITIAL_CAPACITY);
  /** keys[i]: mergeKey of the list's item i over a base of `#bound` entities, for its first `length`. */
  #keys = new Float64Array(INITIAL_CAPACITY);
  /** The base entity count the keys were made for (-1: none made yet). */
  #bound = -1;
  /**
   * The list's pair filter (pair-filter.ts), made at the first read that asks and kept up to date
   * by the merges (undefined: none made, or the list outgrew it), and the base entity count it was
   * made for.
   */
  #pairs: Uint32Array | undefined;
  #pairsBound = -1;
  /** Items in the list. */
  length = 0;

  constructor(readonly order: Order) {}

  /** A list of `order` holding `items` (any order; sorted here). */
  static of(order: Order, items: readonly DeltaStatement[], idBound: number): StatementList {
    const list = new StatementList(order);
    list.merge(new Set(), [], items.slice(), idBound);
    return list;
  }

  /** Item i in the list's order (undefined past its end, as an array's). */
  at(i: number): DeltaStatement | undefined {
    return i < this.length ? this.#pool[this.#slots[i]!] : undefined;
  }

  /** The items in order, in a new array. */
  toArray(): DeltaStatement[] {
    const out: DeltaStatement[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.#pool[this.#slots[i]!]!;
    return out;
  }

  /**
   * The merge keys of the items over a base of `idBound` entities (made again, O(D), when the list's
   * were made for another). Read them right after: the next merge may move them to a new array.
   */
  mergeKeys(idBound: number): Float64Array {
    // Each branch: keys of this base are current (merge keeps them); others are made again.
    if (this.#bound !== idBound) {
      for (let i = 0; i < this.length; i++) this.#keys[i] = mergeKey(this.order, this.#pool[this.#slots[i]!]!, idBound);
      this.#bound = idBound;
    }
    return this.#keys;
  }

  /**
   * The list less `removedItems` (their fingerprints `removed`; an item not in the list is passed
   * over), with `added` merged in (none of them in the list after the removals; sorted here unless
   * `addedSorted`), over a base of `idBound` entities: sorted-delta.ts mergeSorted's result, in place.
   */
  merge(
    removed: ReadonlySet<string>,
    removedItems: readonly DeltaStatement[],
    added: DeltaStatement[],
    idBound: number,
    addedSorted = false,
  ): void {
    this.#mergeItems(removed, removedItems, added, idBound, addedSorted);
    const pairs = this.#pairs;
    // Each branch: no pair filter kept; one the list has outgrown (made again, larger, at the next
    // read); else the added items' pairs set in it (a removed item's bit stays: a filter may pass
    // more pairs than the list holds).
    if (pairs === undefined) return;
    if (this.length * PAIR_FILTER_BITS > pairs.length * 32 || this.#pairsBound !== idBound) this.#pairs = undefined;
    else for (const item of added) addItemPair(pairs, this.order, item);
  }

  /**
   * The list's pair filter over a base of `idBound` entities (pair-filter.ts pairFilterOf, from the
   * merge keys), made now when none is kept for that base.
   */
  pairFilter(idBound: number): Uint32Array {
    if (this.#pairs === undefined || this.#pairsBound !== idBound) {
      this.#pairs = pairFilterOf(this, this.order, this.mergeKeys(idBound), idBound);
      this.#pairsBound = idBound;
    }
    return this.#pairs;
  }

  /** merge()'s items and keys (the pair filter aside). */
  #mergeItems(
    removed: ReadonlySet<string>,
    removedItems: readonly DeltaStatement[],
    added: DeltaStatement[],
    idBound: number,
    addedSorted: boolean,
  ): void {
    const order = this.order;
    const compare = compareStatements(order);
    this.mergeKeys(idBound);
    // Each branch: a few changes, each found by a binary search and moved by a copyWithin; many
    // puts alone, merged in place; puts with removals, merged into new arrays.
    if (removedItems.length + added.length <= SPLICE_MAX_CHANGES) {
      // The removed items' positions, taken out last first (an earlier one does not move).
      const gone = this.#positionsBySearch(removedItems, idBound, compare);
      for (let k = gone.length - 1; k >= 0; k--) {
        const at = gone[k]!;
        this.#release(this.#slots[at]!);
        this.#slots.copyWithin(at, at + 1, this.length);
        this.#keys.copyWithin(at, at + 1, this.length);
        this.length--;
      }
      for (const item of added) {
        const key = mergeKey(order, item, idBound);
        const at = this.#lowerBound(item, key, compare);
        this.#reserve(this.length + 1);
        this.#slots.copyWithin(at + 1, at, this.length);
        this.#keys.copyWithin(at + 1, at, this.length);
        this.#slots[at] = this.#take(item);
        this.#keys[at] = key;
        this.length++;
      }
      return;
    }
    if (!addedSorted) added.sort(compare);
    const addedKeys = new Float64Array(added.length);
    for (let j = 0; j < added.length; j++) addedKeys[j] = mergeKey(order, added[j]!, idBound);
    if (removedItems.length === 0) this.#mergeInPlace(added, addedKeys, compare);
    else {
      // Each branch: few removals against the list, each found by a search; else by a pass.
      const gone =
        removedItems.length * REMOVAL_SEARCH_SPAN <= this.length
          ? this.#positionsBySearch(removedItems, idBound, compare)
          : this.#positionsByPass(removed);
      this.#mergeRemoving(gone, added, addedKeys, compare);
    }
  }

  /**
   * The positions of those of `removedItems` that are in the list, ascending, each once: a binary
   * search each on the keys, its fingerprint checked there (the splice path's removals, and a
   * merge's while they are few).
   */
  #positionsBySearch(
    removedItems: readonly DeltaStatement[],
    idBound: number,
    compare: (x: DeltaStatement, y: DeltaStatement) => number,
  ): Int32Array {
    const at = new Int32Array(removedItems.length);
    let n = 0;
    for (const item of removedItems) {
      const i = this.#lowerBound(item, mergeKey(this.order, item, idBound), compare);
      if (i < this.length && this.#pool[this.#slots[i]!]!.fp === item.fp) at[n++] = i;
    }
    const sorted = at.subarray(0, n).sort();
    // An item named twice is removed once.
    let unique = 0;
    for (let k = 0; k < n; k++) if (unique === 0 || sorted[k] !== sorted[unique - 1]) sorted[unique++] = sorted[k]!;
    return sorted.subarray(0, unique);
  }

  /** The positions of the list's items whose fingerprints are in `removed`, ascending: one pass reading every item's. */
  #positionsByPass(removed: ReadonlySet<string>): Int32Array {
    const at: number[] = [];
    for (let i = 0; i < this.length; i++) if (removed.has(this.#pool[this.#slots[i]!]!.fp)) at.push(i);
    return Int32Array.from(at);
  }

  /**
   * `added` (sorted, keys `addedKeys`) merged in place from the back: the arrays grow by b, then for
   * each added item, last first, the old items after it move up. Those whose keys say so move as
   * they are read (a walk down both typed arrays, a stream the CPU prefetches: the items move
   * anyway). Where the keys cannot tell (a NaN: an entity new to the base; or an equal key), the
   * rest of the run after the item is found by an exponential then a binary search back comparing
   * items, then moved by copyWithin. Old before added on a tie. Not a search per put and a
   * copyWithin per run: tried, it was slower (three lists grown by 10,000 random keys a batch, at
   * 500,000 items: about 8.5 ms a batch against 6 for the walk; the moves are bound by memory
   * bandwidth either way, and the searches add calls and jumps).
   */
  #mergeInPlace(
    added: readonly DeltaStatement[],
    addedKeys: Float64Array,
    compare: (x: DeltaStatement, y: DeltaStatement) => number,
  ): void {
    const d = this.length;
    const b = added.length;
    this.#reserve(d + b);
    const slots = this.#slots;
    const keys = this.#keys;
    const pool = this.#pool;
    // Whether old item `at` goes after the added item (key `key`): old before added on a tie.
    const after = (at: number, item: DeltaStatement, key: number): boolean => {
      const k = keys[at]!;
      return k > key || (!(k < key) && compare(pool[slots[at]!]!, item) > 0);
    };
    let i = d - 1;
    let w = d + b - 1;
    for (let j = b - 1; j >= 0; j--) {
      const item = added[j]!;
      const key = addedKeys[j]!;
      // Old items keyed after the item move up as they are read.
      for (; i >= 0 && keys[i]! > key; i--, w--) {
        slots[w] = slots[i]!;
        keys[w] = keys[i]!;
      }
      // Each branch: a key below the item's ends its run; an undecided one (NaN, or equal) searches it.
      if (i >= 0 && !(keys[i]! < key)) {
        let hi = i + 1;
        let step = 1;
        while (hi - step >= 0 && after(hi - step, item, key)) {
          hi -= step;
          step *= 2;
        }
        let lo = Math.max(0, hi - step + 1);
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (after(mid, item, key)) hi = mid;
          else lo = mid + 1;
        }
        // Old items [lo, i] move up past the item (w > i throughout: nothing unread is overwritten).
        if (lo <= i) {
          slots.copyWithin(lo + w - i, lo, i + 1);
          keys.copyWithin(lo + w - i, lo, i + 1);
          w -= i + 1 - lo;
          i = lo - 1;
        }
      }
      slots[w] = this.#take(item);
      keys[w--] = key;
    }
    this.length = d + b;
  }

  /**
   * The list less its items at positions `gone` (ascending, each once), with `added` (sorted, keys
   * `addedKeys`) merged in, by one pass into new arrays that reads the keys, and two items only where
   * their keys cannot tell. (Reading every old item's fingerprint here instead, as the pass did
   * before the positions were found apart, was a third of the CPU of batches of 1,000 entity
   * changes with cascading deletes over a delta of 100,000 statements: every item loaded from the
   * pool, scattered over the heap, and looked up in a set, in each of the three lists.)
   */
  #mergeRemoving(
    gone: Int32Array,
    added: readonly DeltaStatement[],
    addedKeys: Float64Array,
    compare: (x: DeltaStatement, y: DeltaStatement) => number,
  ): void {
    const d = this.length;
    const b = added.length;
    const capacity = Math.max(INITIAL_CAPACITY, d + b);
    const outSlots = new Int32Array(capacity);
    const outKeys = new Float64Array(capacity);
    const slots = this.#slots;
    const keys = this.#keys;
    const pool = this.#pool;
    let w = 0;
    let i = 0;
    let j = 0;
    let g = 0;
    while (i < d || j < b) {
      if (g < gone.length && i === gone[g]) {
        this.#release(slots[i]!);
        i++;
        g++;
        continue;
      }
      const takeOld =
        j >= b ||
        (i < d &&
          (keys[i]! < addedKeys[j]! || (!(keys[i]! > addedKeys[j]!) && compare(pool[slots[i]!]!, added[j]!) <= 0)));
      // Each branch: the smaller head goes first (old before added on a tie: no two share a key).
      if (takeOld) {
        outSlots[w] = slots[i]!;
        outKeys[w++] = keys[i++]!;
      } else {
        outSlots[w] = this.#take(added[j]!);
        outKeys[w++] = addedKeys[j++]!;
      }
    }
    this.#slots = outSlots;
    this.#keys = outKeys;
    this.length = w;
  }

  /** The first index whose item is at or after `item` (merge key `key`): the keys decide where they differ. */
  #lowerBound(item: DeltaStatement, key: number, compare: (x: DeltaStatement, y: DeltaStatement) => number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.#keys[mid]!;
      // Each branch: the keys decide (a NaN compares neither way), else the items.
      const c = k < key ? -1 : k > key ? 1 : compare(this.#pool[this.#slots[mid]!]!, item);
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A slot holding `item`: one a removal freed, else a new one at the pool's end (it stays packed). */
  #take(item: DeltaStatement): number {
    const slot = this.#free.pop();
    if (slot !== undefined) {
      this.#pool[slot] = item;
      return slot;
    }
    this.#pool.push(item);
    return this.#pool.length - 1;
  }

  /** Frees `slot` (its item left the list). */
  #release(slot: number): void {
    this.#pool[slot] = undefined;
    this.#free.push(slot);
  }

  /** Makes room for `need` slots and keys (grown by CAPACITY_GROWTH, the first `length` kept). */
  #reserve(need: number): void {
    if (this.#slots.length >= need) return;
    const capacity = Math.max(need, Math.ceil(this.#slots.length * CAPACITY_GROWTH));
    const slots = new Int32Array(capacity);
    slots.set(this.#slots.subarray(0, this.length));
    const keys = new Float64Array(capacity);
    keys.set(this.#keys.subarray(0, this.length));
    this.#slots = slots;
    this.#keys = keys;
  }
}

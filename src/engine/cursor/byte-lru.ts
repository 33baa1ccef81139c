/**
 * Byte-weighted LRU cache
 * =======================
 * A least-recently-used cache bounded by the bytes its entries hold, not by their number: each entry
 * is stored with the size its owner charges for it, and the total never passes the budget. An entry
 * larger than `maxEntryBytes` is not stored at all (it would push out many small ones for one saving).
 *
 * Algorithm: entries live in slots (parallel arrays: key, value, bytes) linked in recency order by
 * two Int32Arrays (prev, next; the classic intrusive list, as mnemonist's LRUMap, but growing, since
 * a byte budget fixes no count); a Map finds a key's slot. A hit unlinks its slot and links it at
 * the head; a set that goes over the budget evicts from the tail. Freed slots are reused (a free
 * list), and the arrays double when every slot is in use.
 *
 * Two ways a V8 Map (an ordered hash table whose deletions leave holes until it rehashes) turns slow,
 * both avoided here: the Map is never iterated (evicting by iterating it from the front walks past
 * the hole of every earlier eviction, so once the cache is full each set of a new key pays for all
 * the evictions before it), and a key is never deleted and added again to move it (each copy stays
 * in that key's hash chain as a hole until the rehash, so every later miss on that chain walks them
 * all: the case of one cursor, a page asked over and over); byte-lru.test.ts checks that neither
 * happens. A server's cursor cache is full after about 100,000 pages at the default 64 MiB.
 *
 * Cost: O(1) expected per get, set and delete (each entry is evicted at most once). Memory: the
 * charged bytes, at most `budgetBytes`, plus 20 bytes of arrays a slot; what each entry really takes
 * is for the owner to charge (cursor.ts charges strings, objects and the Map's own slot).
 */

/** No slot: the end of the list. */
const NONE = -1;
/** Slots made up front; the arrays double from there. */
const INITIAL_SLOTS = 16;

export class ByteLru<K, V> {
  private readonly slots = new Map<K, number>();
  private keys: (K | undefined)[] = [];
  private values: (V | undefined)[] = [];
  private charged = new Float64Array(INITIAL_SLOTS);
  private prev = new Int32Array(INITIAL_SLOTS);
  private next = new Int32Array(INITIAL_SLOTS);
  /** Most recently used slot, least recently used slot. */
  private head = NONE;
  private tail = NONE;
  /** Slots in use or freed so far (the arrays' used length); freed ones wait in `free`. */
  private made = 0;
  private readonly free: number[] = [];
  private total = 0;
  readonly budgetBytes: number;
  readonly maxEntryBytes: number;

  /** `budgetBytes` may be 0 (nothing is kept); `maxEntryBytes` defaults to the budget. */
  constructor(budgetBytes: number, maxEntryBytes = budgetBytes) {
    if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 0)
      throw new RangeError(`ByteLru: the budget must be a whole number of bytes >= 0, got ${budgetBytes}`);
    this.budgetBytes = budgetBytes;
    this.maxEntryBytes = Math.min(maxEntryBytes, budgetBytes);
  }

  /** Entries held. */
  get size(): number {
    return this.slots.size;
  }

  /** Bytes charged for the entries held (at most `budgetBytes`). */
  get bytes(): number {
    return this.total;
  }

  /** The value for `key`, which becomes the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.head) {
      this.unlink(slot);
      this.linkAtHead(slot);
    }
    return this.values[slot];
  }

  has(key: K): boolean {
    return this.slots.has(key);
  }

  /**
   * Stores `value` under `key`, charged `bytes`, as the most recently used entry; evicts the least
   * recently used ones until the total fits. Returns false, storing nothing, when `bytes` is over
   * `maxEntryBytes` (an older entry under `key` is then dropped, so a stale value never stays).
   */
  set(key: K, value: V, bytes: number): boolean {
    const held = this.slots.get(key);
    if (!(bytes <= this.maxEntryBytes)) {
      if (held !== undefined) this.delete(key);
      return false;
    }
    if (held !== undefined) {
      // A key already held keeps its slot and its Map entry: only its value, charge and place
      // change (see the banner: a Map that deletes and adds one key again and again slows down).
      this.values[held] = value;
      this.total += bytes - this.charged[held]!;
      this.charged[held] = bytes;
      if (held !== this.head) {
        this.unlink(held);
        this.linkAtHead(held);
      }
    } else {
      const slot = this.allocate();
      this.keys[slot] = key;
      this.values[slot] = value;
      this.charged[slot] = bytes;
      this.slots.set(key, slot);
      this.linkAtHead(slot);
      this.total += bytes;
    }
    // The entry just set is at the head and fits the budget alone: eviction stops before it.
    while (this.total > this.budgetBytes) this.delete(this.keys[this.tail] as K);
    return true;
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.slots.delete(key);
    this.unlink(slot);
    this.total -= this.charged[slot]!;
    // Let the key and value go now, not when the slot is reused.
    this.keys[slot] = undefined;
    this.values[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.keys = [];
    this.values = [];
    this.head = NONE;
    this.tail = NONE;
    this.made = 0;
    this.free.length = 0;
    this.total = 0;
  }

  /** A slot to fill: a freed one, else the next never used, growing the arrays when they are full. */
  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if (this.made === this.prev.length) {
      const size = 2 * this.prev.length;
      this.prev = grown(this.prev, new Int32Array(size));
      this.next = grown(this.next, new Int32Array(size));
      this.charged = grown(this.charged, new Float64Array(size));
    }
    return this.made++;
  }

  private linkAtHead(slot: number): void {
    this.prev[slot] = NONE;
    this.next[slot] = this.head;
    if (this.head !== NONE) this.prev[this.head] = slot;
    else this.tail = slot;
    this.head = slot;
  }

  private unlink(slot: number): void {
    const before = this.prev[slot]!;
    const after = this.next[slot]!;
    if (before !== NONE) this.next[before] = after;
    else this.head = after;
    if (after !== NONE) this.prev[after] = before;
    else this.tail = before;
  }
}

/** `into` with `from` copied to its start. */
function grown<T extends Int32Array | Float64Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

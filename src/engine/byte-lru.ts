/**
 * Byte-weighted LRU cache
 * =======================
 * A least-recently-used cache bounded by the bytes its entries hold, not by their number: each entry
 * is stored with the size its owner charges for it, and the total never passes the budget. An entry
 * larger than `maxEntryBytes` is not stored at all (it would push out many small ones for one saving).
 *
 * Algorithm: a JavaScript Map keeps insertion order, so its first key is the least recently used one
 * as long as every hit moves its entry to the end (delete, then set again). Setting an entry evicts
 * from the front until the new total fits the budget.
 *
 * Cost: O(1) expected per get and set (eviction is amortized: each entry is evicted at most once).
 * Memory: the charged bytes, at most `budgetBytes`; what each entry really takes is for the owner to
 * charge (cursor.ts charges strings, objects and the Map's own slot).
 */

interface Slot<V> {
  value: V;
  bytes: number;
}

export class ByteLru<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
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
    return this.entries.size;
  }

  /** Bytes charged for the entries held (at most `budgetBytes`). */
  get bytes(): number {
    return this.total;
  }

  /** The value for `key`, which becomes the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, slot);
    return slot.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Stores `value` under `key`, charged `bytes`, as the most recently used entry; evicts the least
   * recently used ones until the total fits. Returns false, storing nothing, when `bytes` is over
   * `maxEntryBytes` (an older entry under `key` is then dropped, so a stale value never stays).
   */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (!(bytes <= this.maxEntryBytes)) return false;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, slot] of this.entries) {
      if (this.total <= this.budgetBytes) break;
      this.entries.delete(oldest);
      this.total -= slot.bytes;
    }
    return true;
  }

  delete(key: K): boolean {
    const slot = this.entries.get(key);
    if (slot === undefined) return false;
    this.entries.delete(key);
    this.total -= slot.bytes;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}

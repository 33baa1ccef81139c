/**
 * Key filter
 * ==========
 * Whether a string may be among those added: the live graph's quick "no" for a statements query
 * whose first key component (its order's first filter) no delta statement and no tombstone of that
 * order starts with (live-graph.ts), so that such a query goes straight to the base without the two
 * binary searches of each delta list (each probe a cache miss in a list of up to a few hundred
 * thousand items).
 *
 * Algorithm: a bitmap of 2^BITS bits and one hash a string (FNV-1a over its UTF-16 code units,
 * then murmur3's fmix32): add sets the string's bit, mayHave reads it. Never a false "no"; a false
 * "maybe" (the caller then searches as before) with chance about (strings added) / 2^BITS. Bits are
 * never cleared: a filter lives as long as its delta (a compaction starts a new one).
 *
 * Cost: O(length) a call; 2^BITS / 8 bytes (512 KiB).
 *
 * Reference: B. H. Bloom, "Space/time trade-offs in hash coding with allowable errors", CACM 1970
 * (here with one hash function).
 */

import { fmix32 } from "../hash64.js";

/** Bits of the map, as a power of two: 2^22 bits keep false "maybe"s near 2.5% at 100,000 keys. */
const BITS = 22;
const MASK = (1 << BITS) - 1;

export class KeyFilter {
  private readonly bits = new Uint32Array((1 << BITS) >>> 5);

  add(key: string): void {
    const h = hashOf(key);
    this.bits[h >>> 5]! |= 1 << (h & 31);
  }

  /** False when `key` was never added; true when it was (or, rarely, was not). */
  mayHave(key: string): boolean {
    const h = hashOf(key);
    return (this.bits[h >>> 5]! & (1 << (h & 31))) !== 0;
  }
}

function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return fmix32(h) & MASK;
}

/**
 * Pair filter
 * ===========
 * A filter of a statements list's pairs of first two key components (sorted-delta.ts orders): bit
 * pairHash(first, second) & mask set for each item whose first two components are base entities
 * (an item naming another entity there is never in the range of a query by two base entities),
 * PAIR_FILTER_BITS bits per item (at least PAIR_FILTER_MIN_BITS): a statements query by two filters
 * or more reads one bit, not the list's binary search, to know that it has nothing (about 1 in
 * PAIR_FILTER_BITS of the pairs a list lacks pass).
 *
 * A list (statement-list.ts) makes its filter at the first read that asks (pairFilterOf: its merge
 * keys read in order, an item only where they do not pack the pair) and keeps it across batches:
 * each merge sets the bits of the items it adds (addPair), and the bits of removed items stay (a
 * filter may pass more pairs than the list holds, never fewer); a list grown past the filter's size
 * drops it, and the next read makes it again, twice as large (amortized O(1) an item). Made again
 * after every batch, it cost the first two-filter read after each one about 0.9 ms over a list of
 * 100,000 (bench:changes, "statements S+P right after a batch of 1 statement put").
 *
 * Cost: pairMayHold O(1); addPair O(1); pairFilterOf O(list); memory PAIR_FILTER_BITS bits an item.
 */

import { keyFirst, keySecond, type Order, type StatementRows } from "./sorted-delta.js";

/** Bits of a pair filter per item. 100,000 delta statements: 256 KB an order. */
export const PAIR_FILTER_BITS = 16;

/** The smallest pair filter, in bits. */
const PAIR_FILTER_MIN_BITS = 1024;

/** A pair of base dense ids mixed into 32 bits (the pair filter's hash). */
function pairHash(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ b;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca77);
  return (h ^ (h >>> 13)) >>> 0;
}

/**
 * The pair filter of `list` (in `order`), its first two components read from its merge keys over a
 * base of `idBound` entities (`keys`, in order: no item read) when they pack the pair, else from the
 * items. Its size: PAIR_FILTER_BITS bits an item rounded up to a power of two (the rounding's room
 * takes the items merges add until the list outgrows it).
 */
export function pairFilterOf(list: StatementRows, order: Order, keys: Float64Array, idBound: number): Uint32Array {
  let size = PAIR_FILTER_MIN_BITS;
  while (size < list.length * PAIR_FILTER_BITS) size *= 2;
  const bits = new Uint32Array(size / 32);
  const packed = keySecond(0, idBound) === 0;
  for (let i = 0; i < list.length; i++) {
    // Each branch: a key that packs the pair (NaN: one of them not in the base, no pair to enter);
    // else the order's first two components, from the item.
    if (packed) {
      const key = keys[i]!;
      if (Number.isNaN(key)) continue;
      const a = keyFirst(key, idBound);
      addPair(bits, a, key - a * idBound);
    } else addItemPair(bits, order, list.at(i)!);
  }
  return bits;
}

/** Sets the bit of item `st`'s first two components in `order` in filter `bits`, when both are base entities. */
export function addItemPair(bits: Uint32Array, order: Order, st: { sd: number; pd: number; od: number }): void {
  const a = order === "SPO" ? st.sd : order === "POS" ? st.pd : st.od;
  const b = order === "SPO" ? st.pd : order === "POS" ? st.od : st.sd;
  addPair(bits, a, b);
}

/** Sets the bit of pair (`a`, `b`) in filter `bits`, when both are base entities (>= 0). */
function addPair(bits: Uint32Array, a: number, b: number): void {
  if (a < 0 || b < 0) return;
  const h = pairHash(a, b) & (bits.length * 32 - 1);
  bits[h >>> 5]! |= 1 << (h & 31);
}

/** Whether pair filter `bits` may hold an item whose first two components are base entities `a` and `b`. */
export function pairMayHold(bits: Uint32Array, a: number, b: number): boolean {
  const h = pairHash(a, b) & (bits.length * 32 - 1);
  return (bits[h >>> 5]! & (1 << (h & 31))) !== 0;
}

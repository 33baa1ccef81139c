/**
 * Dense bits
 * ==========
 * A set of a base's dense entity ids as one bit an id (a Uint32Array of ceil(n / 32) words): the
 * live graph's tombstoned base entities and its replaced ones (live-graph.ts).
 * A page of the base's items is checked against it, item by item at ids spread over the whole
 * base: a bit, not a byte, an id makes the array 8 times smaller (128 KiB at a million entities,
 * where a byte an id takes 1 MiB), so those look-ups find it in the CPU's caches.
 *
 * Cost: O(1) a mark or a look-up, O(n) for a page of n ids; memory n / 8 bytes.
 */

/** A set of dense ids below `n`, empty: one bit an id. */
export function denseBits(n: number): Uint32Array {
  return new Uint32Array(Math.ceil(n / 32));
}

/** Puts `d` in `bits`. */
export function markBit(bits: Uint32Array, d: number): void {
  bits[d >>> 5]! |= 1 << (d & 31);
}

/** Takes `d` out of `bits`. */
export function clearBit(bits: Uint32Array, d: number): void {
  bits[d >>> 5]! &= ~(1 << (d & 31));
}

/** How many bits of `word` are set. */
export function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Whether `d` is in `bits`. */
export function hasBit(bits: Uint32Array, d: number): boolean {
  return (bits[d >>> 5]! & (1 << (d & 31))) !== 0;
}

/** How many of the first `n` dense ids of `ids` are in `bits`. */
export function countBits(bits: Uint32Array, ids: ArrayLike<number>, n: number): number {
  let marked = 0;
  for (let i = 0; i < n; i++) {
    const d = ids[i]!;
    marked += (bits[d >>> 5]! >>> (d & 31)) & 1;
  }
  return marked;
}

/** Removes from `items` (item i of dense id `ids[i]`) those whose id is in `bits`, in place. */
export function dropBits<T>(items: T[], bits: Uint32Array, ids: ArrayLike<number>): void {
  let kept = 0;
  for (let i = 0; i < items.length; i++) if (!hasBit(bits, ids[i]!)) items[kept++] = items[i]!;
  items.length = kept;
}

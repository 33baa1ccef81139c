/**
 * Gram signature
 * ==============
 * A 64-bit summary of the 3-grams of a folded identifier: two 32-bit words, one bit set per gram,
 * the bit chosen by a hash of the gram's three code units. Search order "score" walks a gram
 * index's candidates (score-search.ts: the delta's and the rescored entities holding the query's
 * rarest gram, sorted by score) and checks each with includes(); the candidates' objects and
 * strings lie anywhere in the heap, so each check costs cache misses. A column of signatures beside
 * the sorted list (read in order) tells most candidates that cannot contain the query without
 * reading them: an identifier that contains the query has every gram of it, so its signature holds
 * every bit of the query's (no match is ever dropped); one that lacks some gram of the query still
 * passes when the query's bits happen to be set in its signature (a 15-code-unit identifier sets
 * about 12 of the 64 bits: each gram of the query beyond the list's own lets about one in five
 * through) and is checked with includes() as before.
 *
 * Cost: O(length) to make one (once per item per sorted list); a check is two ANDs.
 * Reference: B. H. Bloom, "Space/time trade-offs in hash coding with allowable errors", CACM 1970
 * (a one-hash Bloom filter per item).
 */

import { GRAM } from "./gram-index.js";

/** The bit (0 to 63) of the gram of `s` at `i` (i + GRAM <= s.length). */
function gramBit(s: string, i: number): number {
  let h =
    (Math.imul(s.charCodeAt(i), 0x9e3779b1) +
      Math.imul(s.charCodeAt(i + 1), 0x85ebca77) +
      Math.imul(s.charCodeAt(i + 2), 0xc2b2ae3d)) |
    0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h >>> 26;
}

/** Writes the signature of `s` (its grams' bits) at words 2 * at (bits 0-31) and 2 * at + 1 (bits 32-63) of `out`. */
export function signatureInto(s: string, out: Int32Array, at: number): void {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i + GRAM <= s.length; i++) {
    const bit = gramBit(s, i);
    // Each branch: the bit in the low word, or in the high one.
    if (bit < 32) lo |= 1 << bit;
    else hi |= 1 << (bit - 32);
  }
  out[2 * at] = lo;
  out[2 * at + 1] = hi;
}

/** The signatures of `items`' folded identifiers, in order (two words each). */
export function signaturesOf(items: readonly { readonly folded: string }[]): Int32Array {
  const out = new Int32Array(2 * items.length);
  for (let i = 0; i < items.length; i++) signatureInto(items[i]!.folded, out, i);
  return out;
}

/** Whether item `i` of `signatures` may contain the query of signature `query` (signatureInto at 0): every bit of it set. */
export function mayContain(signatures: Int32Array, i: number, query: Int32Array): boolean {
  const lo = query[0]!;
  const hi = query[1]!;
  return (signatures[2 * i]! & lo) === lo && (signatures[2 * i + 1]! & hi) === hi;
}

/**
 * Fingerprint filter
 * ==================
 * A bit set that holds at least every fingerprint of the delta's statement map (LiveGraph's
 * `#statements`): a clear bit says a fingerprint is not a key of that map, so a look-up of a
 * fingerprint the delta lacks (every statement put new to the delta: most of a big batch) skips
 * the map's probe, which on a delta of hundreds of thousands of statements is a cache miss or two
 * and the larger part of the look-up. A set bit says nothing (the map is asked).
 *
 * Algorithm: one bit per FILTER_BITS_LOG2-bit hash of the text's last HASHED_CHARS characters (a
 * fingerprint's trailing hex digits are uniform; any other text still hashes to some bit). Bits are
 * only set (a key removed from the map keeps its bit: a false positive, never a false negative);
 * a new delta (a compaction's swap) comes with its own filter.
 *
 * Cost: FILTER_BITS / 8 bytes (512 KiB, L2-sized), O(1) a call (at most HASHED_CHARS characters).
 * With n keys, the chance that an absent key finds its bit set is about 1 - e^(-n / FILTER_BITS):
 * 2% at 100,000 keys, 21% at 1,000,000.
 */

/** Log2 of the filter's bits (2^22 bits, 512 KiB). */
const FILTER_BITS_LOG2 = 22;
/** Characters of a fingerprint's end that choose its bit (16 hex digits a derived one: the last 8 give 32 bits). */
const HASHED_CHARS = 8;

export class FingerprintFilter {
  readonly #words = new Int32Array(1 << (FILTER_BITS_LOG2 - 5));

  /** Records `fp` (after this, `mayHold(fp)` is true). */
  add(fp: string): void {
    const bit = bitOf(fp);
    this.#words[bit >>> 5]! |= 1 << (bit & 31);
  }

  /** False when `fp` was never added; true when it was, or (rarely) when another shares its bit. */
  mayHold(fp: string): boolean {
    const bit = bitOf(fp);
    return (this.#words[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }
}

/** The bit of `fp`: a multiplicative hash of its last HASHED_CHARS characters, its top FILTER_BITS_LOG2 bits. */
function bitOf(fp: string): number {
  let h = 0;
  for (let i = Math.max(0, fp.length - HASHED_CHARS); i < fp.length; i++)
    h = Math.imul(h ^ fp.charCodeAt(i), 0x9e3779b1);
  // The top bits: a product's high bits depend on all of its inputs' bits, its low ones only on their low ones.
  return Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> (32 - FILTER_BITS_LOG2);
}

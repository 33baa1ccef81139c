/**
 * 64-bit FNV-1a over strings
 * ==========================
 * The non-cryptographic hash behind derived statement fingerprints and cursor query tags, and
 * MurmurHash3's 32-bit finalizer for the fingerprint table's slots.
 *
 * Algorithm: FNV-1a 64 (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3),
 * fed, for each string in order, its length as a 32-bit little-endian integer and then its UTF-16
 * code units as 16-bit little-endian integers. The length prefix makes ("a\0b", "c") and ("a", "b\0c")
 * hash apart. The 64-bit state is kept as two uint32 halves so no BigInt runs in the loop.
 *
 * The hash families of the project, in one place:
 *
 * | hash                 | where                                  | serves                                     |
 * |----------------------|----------------------------------------|--------------------------------------------|
 * | FNV-1a 64            | here; kernels/page-hasher.ts (wasm)    | derived fingerprints, query tags, the      |
 * |                      |                                        | dictionary's entityId lookups (a)          |
 * | fmix32 (MurmurHash3) | here                                   | fingerprint-table.ts's slots, seeded (b);  |
 * |                      |                                        | live/delta-statement-map.ts's, seeded (b); |
 * |                      |                                        | the dictionary's slots, from the FNV key   |
 * | FNV-1a 32 + fmix32   | load/entity-id-table.ts                | the parser threads' entityId look-ups,     |
 * |                      |                                        | over UTF-8 bytes, seeded (b)               |
 * | cyrb53, two lanes    | http/caching.ts                        | the per-request part of an ETag (c)        |
 * | SHA-256, HMAC-SHA256 | node:crypto: content-tag.ts,           | the content tag, ETag seeds, the cursor    |
 * |                      | http/caching.ts, cursor/hmac.ts        | MAC (d)                                    |
 *
 * Why each and not another:
 *  (a) A persisted format: the contract's derived fingerprint is 16 hex digits of it, kept in
 *      snapshots and cursors, so it cannot change; a few lines, written twice (JavaScript here,
 *      WebAssembly for a page of fingerprints, where JavaScript lacks a 64-bit multiply) and tested
 *      against a BigInt reference. No strength needed: the cursor MAC covers the tag, and a
 *      fingerprint conflict is reported at load.
 *  (b) A key is a hash already: it only needs mixing with a random per-table seed (so a file cannot
 *      pile its keys onto one run of slots), two multiplies, not a pass over bytes.
 *  (c) Under 1 µs a request in JavaScript, less than a SHA-256 call; 106 bits make an accidental
 *      collision between two answers of one URL negligible, and an ETag needs no strength
 *      (caching.ts's banner).
 *  (d) Where strength or a standard matters: cursors are tamper-evident under a secret, and a content
 *      tag names content across builds and replicas. Computed by OpenSSL, not by Quiver's own code.
 *
 * Cost: O(total length), no allocation (the result is written into a caller-owned pair): one step
 * (an xor and a 64-bit multiply made of 32-bit ones) a code unit below 256, two for any other, and
 * for hash64String of a string under LENGTH_STATES units no steps for the length prefix (its state
 * kept). A byte 0's step is a multiply alone, so a unit's high byte 0 and the low byte before it
 * are one multiply by the prime's square; the value is FNV-1a 64's, byte for byte.
 * A mixed key is mapped onto a table of any size (not only a power of two) by `fastRange`.
 *
 * Reference: http://www.isthe.com/chongo/tech/comp/fnv/; A. Appleby, MurmurHash3 (fmix32); D.
 * Lemire, "A fast alternative to the modulo reduction" (2016) (fastRange).
 */

const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
/** The low part of the FNV-64 prime 2^40 + 0x1b3. */
const PRIME_LO = 0x1b3;
/**
 * The prime's square mod 2^64, 0x366 x 2^40 + 0x2e329 (0x1b3^2 = 0x2e329, 2 x 0x1b3 = 0x366): its low
 * word, and its 2^40 term as a multiplier of the low word into the high one (0x366 << 8). A byte 0
 * is a step that multiplies alone (xor with 0 changes nothing), so a code unit below 256 (its high
 * byte 0) is its low byte's xor and one multiply by the square: one step where there were two.
 */
const PRIME2_LO = 0x2e329;
const PRIME2_SHIFTED = 0x36600;
/** 2^-32, exactly: a product's high word by a multiply (hiTimesPrime2). */
const TWO_POW_MINUS_32 = 2 ** -32;
/**
 * Lengths below which hash64String starts from the state the offset basis and the length prefix
 * leave (kept, 8 bytes a length): the prefix is 4 of the 11 steps of a 7-unit Latin-1 entityId.
 */
const LENGTH_STATES = 1024;

/** A 64-bit hash as its two 32-bit halves, `[hi, lo]`, both uint32 (what `hash64` and `hash64Words` write). */
export type Hash64 = [hi: number, lo: number];

/** Continues the hash whose halves `h` holds with a part's length `n`, 4 bytes little-endian. */
function mixLength(n: number, h: Hash64): void {
  let hi = h[0];
  let lo = h[1];
  for (let k = 0; k < 4; k++) {
    lo ^= (n >>> (8 * k)) & 0xff;
    hi = hiTimesPrime(hi, lo);
    lo = Math.imul(lo, PRIME_LO) >>> 0;
  }
  h[0] = hi;
  h[1] = lo;
}

/**
 * Continues the hash whose halves `h` holds ([hi, lo] as the loop leaves them) with one part: its
 * length, 4 bytes little-endian, then each code unit's two bytes. hash64 and hash64String are the
 * offset basis, a call a part, and the halves made uint32.
 */
function mixPart(s: string, h: Hash64): void {
  mixLength(s.length, h);
  mixUnits(s, h);
}

/** Continues the hash whose halves `h` holds with each code unit of `s`, two bytes each (mixPart's loop). */
function mixUnits(s: string, h: Hash64): void {
  const n = s.length;
  let hi = h[0];
  let lo = h[1];
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    lo ^= c & 0xff;
    // Each branch: a high byte 0 (both bytes' multiplies as one, by the square: PRIME2_LO's
    // comment), or the high byte's own step.
    if (c < 0x100) {
      hi = hiTimesPrime2(hi, lo);
      lo = Math.imul(lo, PRIME2_LO) >>> 0;
    } else {
      hi = hiTimesPrime(hi, lo);
      lo = Math.imul(lo, PRIME_LO) >>> 0;
      lo ^= c >>> 8;
      hi = hiTimesPrime(hi, lo);
      lo = Math.imul(lo, PRIME_LO) >>> 0;
    }
  }
  h[0] = hi;
  h[1] = lo;
}

/** The state after the offset basis and the length prefix of each length below LENGTH_STATES: hi at 2n, lo at 2n + 1. */
const lengthStates = ((): Uint32Array => {
  const states = new Uint32Array(2 * LENGTH_STATES);
  const h: Hash64 = [0, 0];
  for (let n = 0; n < LENGTH_STATES; n++) {
    h[0] = OFFSET_HI;
    h[1] = OFFSET_LO;
    mixLength(n, h);
    states[2 * n] = h[0];
    states[2 * n + 1] = h[1];
  }
  return states;
})();

/**
 * hash64([s], out): one string hashed with no array made around it. A batch's look-ups hash 30,000
 * entityIds (Dictionary.idsOf), and the one-element array a call of hash64 takes was a third of
 * their allocation (node:inspector's sampling heap profiler, garbage included, over 10,000-put batches).
 */
export function hash64String(s: string, out: Hash64): Hash64 {
  const n = s.length;
  // Each branch: a length whose prefix's state is kept (every entityId: their limit is 512 bytes), or the prefix mixed.
  if (n < LENGTH_STATES) {
    out[0] = lengthStates[2 * n]!;
    out[1] = lengthStates[2 * n + 1]!;
  } else {
    out[0] = OFFSET_HI;
    out[1] = OFFSET_LO;
    mixLength(n, out);
  }
  mixUnits(s, out);
  out[0] >>>= 0;
  out[1] >>>= 0;
  return out;
}

/** Hashes `parts` into `out` (and returns it). */
export function hash64(parts: readonly string[], out: Hash64 = [0, 0]): Hash64 {
  out[0] = OFFSET_HI;
  out[1] = OFFSET_LO;
  for (const s of parts) mixPart(s, out);
  out[0] >>>= 0;
  out[1] >>>= 0;
  return out;
}

/**
 * hash64([s]) where `s` is the `length` code units of `units` from `from` on (a Latin-1 store's
 * bytes or a UTF-16 store's units): the same value, without making the string, for a restore that
 * checks stored hashes against stored text. A Latin-1 unit's high byte is 0, and xor with 0 changes
 * nothing: its second step is the multiply alone.
 */
export function hash64Units(units: Uint8Array | Uint16Array, from: number, length: number, out: Hash64): Hash64 {
  out[0] = OFFSET_HI;
  out[1] = OFFSET_LO;
  mixLength(length, out);
  let hi = out[0];
  let lo = out[1];
  const end = from + length;
  // Each branch: one loop per array type, so each loop's loads see one kind of array.
  if (units instanceof Uint8Array) {
    // A Latin-1 unit's two steps as one (its high byte is 0: PRIME2_LO's comment).
    for (let i = from; i < end; i++) {
      lo ^= units[i]!;
      hi = hiTimesPrime2(hi, lo);
      lo = Math.imul(lo, PRIME2_LO) >>> 0;
    }
  } else {
    for (let i = from; i < end; i++) {
      const c = units[i]!;
      lo ^= c & 0xff;
      hi = hiTimesPrime(hi, lo);
      lo = Math.imul(lo, PRIME_LO) >>> 0;
      lo ^= c >>> 8;
      hi = hiTimesPrime(hi, lo);
      lo = Math.imul(lo, PRIME_LO) >>> 0;
    }
  }
  out[0] = hi >>> 0;
  out[1] = lo >>> 0;
  return out;
}

/**
 * The high word of (hi, lo) x (2^40 + 0x1b3) mod 2^64: hi x 0x1b3, lo shifted up 40 bits, and the
 * carry out of lo x 0x1b3, found from lo's two 16-bit halves in integer arithmetic (no floating-point
 * product and division: queryTag and the dictionary's lookups run it on every request).
 */
function hiTimesPrime(hi: number, lo: number): number {
  const low = (lo & 0xffff) * PRIME_LO;
  const high = (lo >>> 16) * PRIME_LO;
  return (Math.imul(hi, PRIME_LO) + (lo << 8) + ((high + (low >>> 16)) >>> 16)) >>> 0;
}

/**
 * The high word of (hi, lo) x the prime's square mod 2^64: hi x 0x2e329, lo x 0x366 shifted up 40
 * bits, and the carry out of lo x 0x2e329 (below 2^50: exact in a double; its high word, below
 * 2^18, by a multiply by 2^-32 and a truncation, `| 0`, which is a floor for a positive number and
 * was faster than Math.floor here).
 */
function hiTimesPrime2(hi: number, lo: number): number {
  const carry = ((lo >>> 0) * PRIME2_LO * TWO_POW_MINUS_32) | 0;
  return (Math.imul(hi, PRIME2_LO) + Math.imul(lo, PRIME2_SHIFTED) + carry) >>> 0;
}

/** The character code of hex digit `n` (0 to 15), lowercase. */
export function hexDigit(n: number): number {
  return n + (n < 10 ? 0x30 : 0x57);
}

/**
 * 16 lowercase hex digits of a 64-bit value. A fingerprint is written for every statement of every
 * page: one String.fromCharCode of the 16 digit codes makes one flat string, cheaper than four
 * reads of a 65,536-entry table of 4-digit strings (1.5 MB, so reads that miss the cache) joined by
 * `+` (which makes a rope the serializer must flatten), and than toString(16) + padStart.
 */
export function hex64(hi: number, lo: number): string {
  return String.fromCharCode(
    hexDigit(hi >>> 28),
    hexDigit((hi >>> 24) & 15),
    hexDigit((hi >>> 20) & 15),
    hexDigit((hi >>> 16) & 15),
    hexDigit((hi >>> 12) & 15),
    hexDigit((hi >>> 8) & 15),
    hexDigit((hi >>> 4) & 15),
    hexDigit(hi & 15),
    hexDigit(lo >>> 28),
    hexDigit((lo >>> 24) & 15),
    hexDigit((lo >>> 20) & 15),
    hexDigit((lo >>> 16) & 15),
    hexDigit((lo >>> 12) & 15),
    hexDigit((lo >>> 8) & 15),
    hexDigit((lo >>> 4) & 15),
    hexDigit(lo & 15),
  );
}

/**
 * FNV-1a 64 over 32-bit words, each fed as 4 bytes, most significant first: the hash of hashes that
 * derived fingerprints are made of (fingerprint.ts). Writes into `out` and returns it.
 */
export function hash64Words(words: ArrayLike<number>, out: Hash64 = [0, 0]): Hash64 {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  for (let w = 0; w < words.length; w++) {
    const word = words[w]!;
    for (let shift = 24; shift >= 0; shift -= 8) {
      lo = (lo ^ ((word >>> shift) & 0xff)) >>> 0;
      // lo * PRIME_LO in 16-bit halves, integers only (no float product, no division): this runs
      // 24 times per derived fingerprint, for every statement of every page. Same value as hash64's.
      const a = (lo & 0xffff) * PRIME_LO;
      const b = (lo >>> 16) * PRIME_LO + (a >>> 16);
      hi = (Math.imul(hi, PRIME_LO) + (lo << 8) + (b >>> 16)) >>> 0;
      lo = ((b << 16) | (a & 0xffff)) >>> 0;
    }
  }
  out[0] = hi >>> 0;
  out[1] = lo >>> 0;
  return out;
}

/** MurmurHash3's 32-bit finalizer: a bijection of 32-bit integers; every input bit flips each output bit with probability about 1/2. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * floor(mix * size / 2^32) for a uint32 `mix` and a size below 2^32: a well-mixed key's slot in a
 * table of `size` slots, any size (Lemire's multiply-shift, instead of a mask that needs a power of
 * two). In two exact 16-bit steps: the product in one double could round up to `size`.
 */
export function fastRange(mix: number, size: number): number {
  return Math.floor(((mix >>> 16) * size + Math.floor(((mix & 0xffff) * size) / 0x10000)) / 0x10000);
}

/**
 * Statement fingerprints
 * ======================
 * What CONTRACT.md asks of `statementFingerprint`: a non-empty string, unique in the graph; derived
 * from (subject, predicate, object) when the input leaves it out, the same triple always giving the
 * same 16 lowercase hex digits.
 *
 * Derivation: each entityId has its FNV-1a 64 (hash64.ts: its length, then its UTF-16 code units);
 * the fingerprint is the FNV-1a 64 of those three hashes (hash64Words: subject, predicate, object,
 * each as 8 bytes, high half first), as 16 hex digits. Hashing the hashes, not the strings, is what
 * lets a graph derive a page's fingerprints from 8 bytes kept per entity (dictionary.ts) instead of
 * storing 8 bytes per statement or reading every entityId's characters per page.
 *
 * Cost: three string hashes for `deriveFingerprint`; from kept entity hashes, one 24-byte hash. A page
 * writes its derived fingerprints through HexPage (one string decode for the page).
 */

import { hash64, hash64Words, hexDigit, hex64, type Hash64 } from "../hash64.js";

/** Digits of a fingerprint that fits 64 bits. */
const HEX_DIGITS = 16;
const words = new Uint32Array(6);
const scratch: Hash64 = [0, 0];
const halvesOut: Hash64 = [0, 0];
const s: Hash64 = [0, 0];
const p: Hash64 = [0, 0];
const o: Hash64 = [0, 0];

/** The fingerprint Quiver gives a statement whose input has none. */
export function deriveFingerprint(subjectEntityId: string, predicateEntityId: string, objectEntityId: string): string {
  deriveFingerprintValue(subjectEntityId, predicateEntityId, objectEntityId, scratch);
  return hex64(scratch[0], scratch[1]);
}

/** The derived fingerprint as its 64-bit value `[hi, lo]`, written into `out` (no string is made). */
export function deriveFingerprintValue(
  subjectEntityId: string,
  predicateEntityId: string,
  objectEntityId: string,
  out: Hash64,
): Hash64 {
  hash64([subjectEntityId], s);
  hash64([predicateEntityId], p);
  hash64([objectEntityId], o);
  const halves = derivedFingerprintHalves(s[0], s[1], p[0], p[1], o[0], o[1]);
  out[0] = halves[0];
  out[1] = halves[1];
  return out;
}

/** The derived fingerprint's two 32-bit halves, from the three entityIds' hashes (hi, lo each). */
export function derivedFingerprintHalves(
  sHi: number,
  sLo: number,
  pHi: number,
  pLo: number,
  oHi: number,
  oLo: number,
): Hash64 {
  words[0] = sHi;
  words[1] = sLo;
  words[2] = pHi;
  words[3] = pLo;
  words[4] = oHi;
  words[5] = oLo;
  return hash64Words(words, halvesOut);
}

/**
 * The derived fingerprints of one page, made strings together: each value's 16 digit codes are
 * written side by side into one buffer, one Latin-1 decode makes them one string, and each
 * fingerprint is a 16-character slice of it (V8 makes a slice of 13 or more code units a view on
 * the string, no copy). One String.fromCharCode of 16 codes per statement (hex64) costs more than
 * the digits themselves.
 */
export class HexPage {
  private readonly bytes: Buffer;
  /** The same memory two digit codes at a time. */
  private readonly pairs: Uint16Array;
  private text = "";

  /** A page of at most `capacity` values. */
  constructor(capacity: number) {
    this.bytes = Buffer.alloc(HEX_DIGITS * capacity);
    this.pairs = new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length / 2);
  }

  /** Writes value k (hi, lo) as 16 lowercase hex digits: one table read and store per byte. */
  set(k: number, hi: number, lo: number): void {
    const at = (HEX_DIGITS / 2) * k;
    const pairs = this.pairs;
    pairs[at] = HEX_PAIRS[hi >>> 24]!;
    pairs[at + 1] = HEX_PAIRS[(hi >>> 16) & 0xff]!;
    pairs[at + 2] = HEX_PAIRS[(hi >>> 8) & 0xff]!;
    pairs[at + 3] = HEX_PAIRS[hi & 0xff]!;
    pairs[at + 4] = HEX_PAIRS[lo >>> 24]!;
    pairs[at + 5] = HEX_PAIRS[(lo >>> 16) & 0xff]!;
    pairs[at + 6] = HEX_PAIRS[(lo >>> 8) & 0xff]!;
    pairs[at + 7] = HEX_PAIRS[lo & 0xff]!;
  }

  /** Makes the string of values 0 to n - 1, once they are all set; `get` reads it. */
  seal(n: number): void {
    this.text = this.bytes.toString("latin1", 0, HEX_DIGITS * n);
  }

  /** Value k's 16 digits (k < the n of the last seal). */
  get(k: number): string {
    return this.text.slice(HEX_DIGITS * k, HEX_DIGITS * (k + 1));
  }
}

/**
 * The two digit codes of each byte value as one 16-bit unit, in this machine's byte order (the
 * first digit at the lower address): 512 bytes, always in cache. Writing a value this way is eight
 * table reads and 16-bit stores, against 16 digit computations and byte stores (or `hex64`'s string).
 */
const HEX_PAIRS = (() => {
  const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
  const table = new Uint16Array(256);
  for (let b = 0; b < 256; b++) {
    const first = hexDigit(b >>> 4);
    const second = hexDigit(b & 15);
    table[b] = littleEndian ? first | (second << 8) : (first << 8) | second;
  }
  return table;
})();

/**
 * When `fp` is 16 lowercase hex digits (it can live in two uint32 halves): its halves, hi and lo,
 * into `out`, and true. Otherwise false, `out` unchanged. One pass over the code units, for every
 * statement line that gives a fingerprint (a regular expression and two parseInt calls cost three).
 */
export function readHexFingerprint(fp: string, out: Hash64): boolean {
  if (fp.length !== HEX_DIGITS) return false;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < HEX_DIGITS; i++) {
    const c = fp.charCodeAt(i);
    // 0-9, then a-f; anything else (capitals included) is not a hex fingerprint.
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (digit < 0) return false;
    if (i < HEX_DIGITS / 2) hi = (hi << 4) | digit;
    else lo = (lo << 4) | digit;
  }
  out[0] = hi >>> 0;
  out[1] = lo >>> 0;
  return true;
}

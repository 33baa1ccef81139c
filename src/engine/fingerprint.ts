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
 * Cost: three string hashes for `deriveFingerprint`; from kept entity hashes, one 24-byte hash.
 */

import { hash64, hash64Words, hex64, type Hash64 } from "./hash64.js";

const HEX16 = /^[0-9a-f]{16}$/;
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

/** True when `fp` is 16 lowercase hex digits: it can live in two uint32 halves. */
export function isHexFingerprint(fp: string): boolean {
  return HEX16.test(fp);
}

export function hexFingerprintHi(fp: string): number {
  return Number.parseInt(fp.slice(0, 8), 16) >>> 0;
}

export function hexFingerprintLo(fp: string): number {
  return Number.parseInt(fp.slice(8, 16), 16) >>> 0;
}

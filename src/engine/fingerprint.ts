/**
 * Statement fingerprints
 * ======================
 * What CONTRACT.md asks of `statementFingerprint`: a non-empty string, unique in the graph; derived
 * from (subject, predicate, object) when the input leaves it out, the same triple always giving the
 * same 16 lowercase hex digits.
 *
 * Derivation: `hex64(FNV-1a-64(subjectEntityId, predicateEntityId, objectEntityId))`, see hash64.ts
 * for the exact byte feed. Storage: a fingerprint of exactly 16 lowercase hex digits (every derived
 * one, and most given ones) is kept as two uint32 columns, 8 bytes a statement; any other given text
 * is kept as a string in a side table. For such 16-digit values numeric order is string order, so
 * the sort key stays the contract's (fingerprint compared as a string).
 */

import { hash64, hex64, type Hash64 } from "./hash64.js";

const HEX16 = /^[0-9a-f]{16}$/;
const scratch: Hash64 = [0, 0];

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
  return hash64([subjectEntityId, predicateEntityId, objectEntityId], out);
}

/** True when `fp` can live in the two uint32 columns. */
export function isHexFingerprint(fp: string): boolean {
  return HEX16.test(fp);
}

export function hexFingerprintHi(fp: string): number {
  return parseInt(fp.slice(0, 8), 16) >>> 0;
}

export function hexFingerprintLo(fp: string): number {
  return parseInt(fp.slice(8, 16), 16) >>> 0;
}

/**
 * CRC-32 of two pieces put together
 * =================================
 * Owns `crc32Combine(crcA, crcB, lengthB)`: the CRC-32 (zlib's, ISO-HDLC, as node:zlib's crc32) of
 * the bytes A then B, from the CRC of A, the CRC of B (each from 0) and the length of B, without
 * reading a byte. What lets a snapshot be summed in the order its pieces arrive, not in file order
 * (snapshot/read-thread.ts reads the transient tail first, the part an open needs first).
 *
 * Algorithm: zlib's crc32_combine (Mark Adler, zlib 1.2.12's crc32.c). Appending n zero bytes to
 * A multiplies its CRC by x^(8n) modulo the CRC polynomial (reflected bit order); B's CRC is then
 * xored in. x^(8n) is the product of the powers x^(2^k) for the bits k of 8n, taken from a table of
 * 32 squarings (they cycle, since x^(2^32) is a power x^(2^k) of the field's multiplicative group).
 *
 * Cost: O(log n) multiplications of 32 bits each, a microsecond; no memory.
 */

/** The CRC-32 polynomial, reflected (zlib's). */
const POLY = 0xedb88320;

/** a * b modulo the polynomial, both reflected (x^0 in bit 31). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      // No bit of a below m is left: the product is complete.
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the polynomial; x^1 is bit 30. */
const X2N: Uint32Array = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000;
  table[0] = p;
  for (let k = 1; k < 32; k++) table[k] = p = multiplyModP(p, p);
  return table;
})();

/** x^(n * 2^k) modulo the polynomial (n a non-negative safe integer). */
function xPowerModP(n: number, k: number): number {
  let p = 0x80000000;
  while (n > 0) {
    if (n % 2 === 1) p = multiplyModP(X2N[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A then B, from crc32(A), crc32(B) and B's length in bytes (see the banner). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModP(xPowerModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}

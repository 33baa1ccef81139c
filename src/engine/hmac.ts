/**
 * HMAC-SHA256 with a fixed key
 * ============================
 * Owns the MAC that seals cursors: HMAC-SHA256 (RFC 2104) of a message under one key,
 * SHA-256((K ^ opad) || SHA-256((K ^ ipad) || m)), the same bytes as `createHmac("sha256", K)`.
 *
 * Algorithm: SHA-256 (FIPS 180-4) in JavaScript, 32-bit words in plain numbers, with the key's two
 * padded blocks compressed once, at construction: the "midstates" after K ^ ipad and after K ^ opad.
 * A MAC then costs the compressions of the message itself: ceil((|m| + 9) / 64) blocks for the
 * inner hash (the message, the 0x80 byte and the 64-bit length of 64 + |m| bytes), and one block for
 * the outer hash (the 32-byte inner digest, padded). A cursor body of 56 to 119 bytes is three
 * compressions in all, where two calls of node's one-shot `crypto.hash` compressed five (each key
 * block again) and paid two crossings into C++ and two result buffers: 1.3 us against 2.2 us for
 * a 70-byte body, 1.5 against 1.8 for 110 bytes (Node 20, this 2-core VM; a scratch loop of 50,000
 * of each, best of 7, agreeing with createHmac on every length 0..299). `macInto` writes the first
 * bytes of the MAC straight where the caller wants them, with no buffer made per message.
 *
 * Cost: 64 rounds a block, |m| + 9 bytes rounded up to blocks, plus one; no allocation in `macInto`.
 * Synchronous and not shared across threads, so the scratch state is reused. References: RFC 2104;
 * FIPS 180-4 (SHA-256: constants, message schedule, padding); RFC 4231 (test vectors, in
 * test/engine/hmac.test.ts).
 */

import { createHash } from "node:crypto";

/** SHA-256's block size: keys are padded (or first hashed) to this length. */
const BLOCK_BYTES = 64;
export const DIGEST_BYTES = 32;
const IPAD = 0x36;
const OPAD = 0x5c;
/** The padding's first byte, after the message. */
const PAD_START = 0x80;
/** Bytes at the end of the last block that hold the message length in bits (big-endian). */
const LENGTH_BYTES = 8;

/** Longest message: its bit length (with the key block) fits the 32 low bits of the length field. */
const MAX_MESSAGE_BYTES = 2 ** 28;

/** FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** FIPS 180-4 section 5.3.3: the initial hash value. */
const INITIAL_STATE = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** The message schedule, shared: compress is synchronous. */
const W = new Int32Array(64);

/** SHA-256's compression of the 64 bytes of `block` at `at` into `state` (FIPS 180-4 section 6.2.2). */
function compress(state: Int32Array, block: Uint8Array, at: number): void {
  const w = W;
  for (let i = 0; i < 16; i++, at += 4) {
    w[i] = (block[at]! << 24) | (block[at + 1]! << 16) | (block[at + 2]! << 8) | block[at + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const choose = (e & f) ^ (~e & g);
    const t1 = (h + s1 + choose + K[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const majority = (a & b) ^ (a & c) ^ (b & c);
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + s0 + majority) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

/** Writes the 8 state words, big-endian, into `out` at `at`. */
function writeState(state: Int32Array, out: Uint8Array, at: number): void {
  for (let i = 0; i < 8; i++, at += 4) {
    const v = state[i]!;
    out[at] = v >>> 24;
    out[at + 1] = v >>> 16;
    out[at + 2] = v >>> 8;
    out[at + 3] = v;
  }
}

/** The state after compressing one block: the key (hashed first when longer than a block) XOR `pad`. */
function midstate(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(BLOCK_BYTES);
  for (let i = 0; i < BLOCK_BYTES; i++) block[i] = (i < key.length ? key[i]! : 0) ^ pad;
  const state = INITIAL_STATE.slice();
  compress(state, block, 0);
  return state;
}

export class HmacSha256 {
  /** The states after K ^ ipad and after K ^ opad. */
  private readonly innerStart: Int32Array;
  private readonly outerStart: Int32Array;
  private readonly state = new Int32Array(8);
  /** The last one or two blocks of the inner hash (the message's tail and padding), then the outer block. */
  private readonly tail = new Uint8Array(2 * BLOCK_BYTES);

  constructor(key: Uint8Array) {
    // A key longer than a block is replaced by its digest (RFC 2104, section 2); made once.
    const k = key.length > BLOCK_BYTES ? createHash("sha256").update(key).digest() : key;
    this.innerStart = midstate(k, IPAD);
    this.outerStart = midstate(k, OPAD);
  }

  /** The 32-byte MAC of `message` (a fresh buffer). */
  mac(message: Uint8Array): Buffer {
    const out = Buffer.allocUnsafe(DIGEST_BYTES);
    this.macInto(message, message.length, out, 0, DIGEST_BYTES);
    return out;
  }

  /**
   * Writes the first `bytes` (at most DIGEST_BYTES) of the MAC of message[0, length) into `out` at
   * `at`. `out` may be the message's own buffer, past `length` (the message is read in full first).
   */
  macInto(message: Uint8Array, length: number, out: Uint8Array, at: number, bytes: number): void {
    if (length > MAX_MESSAGE_BYTES) throw new RangeError(`HMAC of ${length} bytes: at most ${MAX_MESSAGE_BYTES}`);
    const state = this.state;
    state.set(this.innerStart);
    let from = 0;
    for (; from + BLOCK_BYTES <= length; from += BLOCK_BYTES) compress(state, message, from);
    // The rest of the message, 0x80, zeros, and the bit length of the key block and the message:
    // one block when the rest leaves room for the 9 bytes, else two.
    const tail = this.tail;
    const rest = length - from;
    for (let i = 0; i < rest; i++) tail[i] = message[from + i]!;
    tail[rest] = PAD_START;
    const end = rest + 1 + LENGTH_BYTES <= BLOCK_BYTES ? BLOCK_BYTES : 2 * BLOCK_BYTES;
    tail.fill(0, rest + 1, end - 4);
    writeBitLength(tail, end, BLOCK_BYTES + length);
    compress(state, tail, 0);
    if (end > BLOCK_BYTES) compress(state, tail, BLOCK_BYTES);
    // Outer: the inner digest, padded, after the opad block (always one block: 32 + 9 <= 64).
    writeState(state, tail, 0);
    tail[DIGEST_BYTES] = PAD_START;
    tail.fill(0, DIGEST_BYTES + 1, BLOCK_BYTES - 4);
    writeBitLength(tail, BLOCK_BYTES, BLOCK_BYTES + DIGEST_BYTES);
    state.set(this.outerStart);
    compress(state, tail, 0);
    writeState(state, tail, 0);
    for (let i = 0; i < bytes; i++) out[at + i] = tail[i]!;
  }
}

/**
 * The length field of the padding: `byteLength` x 8 as a 64-bit big-endian integer ending at `end`.
 * Messages are at most MAX_MESSAGE_BYTES, so the top 32 bits are zero (written by the caller's fill).
 */
function writeBitLength(block: Uint8Array, end: number, byteLength: number): void {
  const bits = byteLength * 8;
  block[end - 4] = bits >>> 24;
  block[end - 3] = bits >>> 16;
  block[end - 2] = bits >>> 8;
  block[end - 1] = bits;
}

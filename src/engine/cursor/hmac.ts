/**
 * HMAC-SHA256 with a fixed key
 * ============================
 * Owns the MAC that seals cursors: HMAC-SHA256 (RFC 2104) of a message under one key,
 * SHA-256((K ^ opad) || SHA-256((K ^ ipad) || m)), the same bytes as `createHmac("sha256", K)`.
 *
 * Algorithm: SHA-256 (FIPS 180-4) with the key's two padded blocks compressed once, at
 * construction: the "midstates" after K ^ ipad and after K ^ opad. A MAC then costs the compressions
 * of the message itself: ceil((|m| + 9) / 64) blocks for the inner hash (the message, the 0x80 byte
 * and the 64-bit length of 64 + |m| bytes), and one block for the outer hash (the 32-byte inner
 * digest, padded). A cursor body of 56 to 119 bytes is three compressions in all, where two calls of
 * node's one-shot `crypto.hash` compressed five (each key block again) and paid two crossings into
 * C++ and two result buffers. The compressions run in a WebAssembly kernel (assembled below from its
 * instructions, wasm-assembler.ts: one call a MAC, the message copied into its memory), or, without
 * WebAssembly, on a big-endian machine or for a message past its memory, in JavaScript (32-bit words
 * in plain numbers). For a 70-byte body: 2.15 us with `crypto.hash`, 1.27-1.33 in JavaScript, 0.94
 * in WebAssembly (Node 20, this 2-core VM; scratch loops of 20,000 to 50,000, best of 7; every length
 * 0..300 agreeing with createHmac, in the tests). `macInto` writes the first bytes of the MAC
 * straight where the caller wants them, with no buffer made per message.
 *
 * Cost: 64 rounds a block, |m| + 9 bytes rounded up to blocks, plus one; no allocation in `macInto`.
 * Synchronous and not shared across threads, so the scratch state is reused. References: RFC 2104;
 * FIPS 180-4 (SHA-256: constants, message schedule, padding); RFC 4231 (test vectors, in
 * test/engine/cursor/hmac.test.ts).
 */

import { createHash } from "node:crypto";
import { canRunWasm, I32, i32, instantiate, memarg, op, type WasmSpec } from "../kernels/wasm-assembler.js";

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
  /** The WebAssembly instance's memory as bytes, and its `mac` export; null: JavaScript only. */
  private readonly memory: Uint8Array | null = null;
  private readonly runMac: ((blocks: number) => void) | null = null;
  /** Whether the WebAssembly kernel runs (for messages up to WASM_MAX_MESSAGE_BYTES). */
  readonly native: boolean;

  /** `native` false keeps to the JavaScript compression (for tests that compare the two). */
  constructor(key: Uint8Array, native = canRunWasm()) {
    // A key longer than a block is replaced by its digest (RFC 2104, section 2); made once.
    const k = key.length > BLOCK_BYTES ? createHash("sha256").update(key).digest() : key;
    this.innerStart = midstate(k, IPAD);
    this.outerStart = midstate(k, OPAD);
    this.native = native;
    if (native) {
      const exports = instantiate(SHA256_MODULE);
      const buffer = (exports["memory"] as { buffer: ArrayBuffer }).buffer;
      const words = new Int32Array(buffer);
      words.set(K, K_AT / 4);
      words.set(this.innerStart, INNER_AT / 4);
      words.set(this.outerStart, OUTER_AT / 4);
      const bytes = new Uint8Array(buffer);
      // The outer block's padding never changes: after the 32-byte digest, 0x80, zeros, 96 x 8 bits.
      pad(bytes, OUTER_BLOCK_AT, DIGEST_BYTES, BLOCK_BYTES + DIGEST_BYTES);
      this.memory = bytes;
      this.runMac = exports["mac"] as (blocks: number) => void;
    }
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
    const memory = this.memory;
    // Each branch: the WebAssembly kernel when there is one and the message fits its memory, else
    // the same steps in JavaScript.
    if (memory !== null && length <= WASM_MAX_MESSAGE_BYTES) {
      memory.set(length === message.length ? message : message.subarray(0, length), BLOCKS_AT);
      this.runMac!(pad(memory, BLOCKS_AT, length, BLOCK_BYTES + length) / BLOCK_BYTES);
      for (let i = 0; i < bytes; i++) out[at + i] = memory[OUTPUT_AT + i]!;
      return;
    }
    const state = this.state;
    state.set(this.innerStart);
    let from = 0;
    for (; from + BLOCK_BYTES <= length; from += BLOCK_BYTES) compress(state, message, from);
    // The rest of the message and the padding (the hashed length counts the key block too).
    const tail = this.tail;
    const rest = length - from;
    for (let i = 0; i < rest; i++) tail[i] = message[from + i]!;
    const end = pad(tail, 0, rest, BLOCK_BYTES + length);
    compress(state, tail, 0);
    if (end > BLOCK_BYTES) compress(state, tail, BLOCK_BYTES);
    // Outer: the inner digest, padded, after the opad block (always one block: 32 + 9 <= 64).
    writeState(state, tail, 0);
    pad(tail, 0, DIGEST_BYTES, BLOCK_BYTES + DIGEST_BYTES);
    state.set(this.outerStart);
    compress(state, tail, 0);
    writeState(state, tail, 0);
    for (let i = 0; i < bytes; i++) out[at + i] = tail[i]!;
  }
}

/**
 * SHA-256's padding (FIPS 180-4 section 5.1.1) after the `used` bytes at `base` of `buf`: 0x80,
 * zeros, and the bit length of all `hashed` bytes as a 64-bit big-endian integer ending a block
 * (messages are at most MAX_MESSAGE_BYTES, so its top 32 bits are zero). Returns the padded byte
 * count from `base`: one block more than the whole blocks of `used`, or two when the 9 bytes do not fit.
 */
function pad(buf: Uint8Array, base: number, used: number, hashed: number): number {
  const end = Math.ceil((used + 1 + LENGTH_BYTES) / BLOCK_BYTES) * BLOCK_BYTES;
  buf[base + used] = PAD_START;
  buf.fill(0, base + used + 1, base + end - 4);
  const bits = hashed * 8;
  buf[base + end - 4] = bits >>> 24;
  buf[base + end - 3] = bits >>> 16;
  buf[base + end - 2] = bits >>> 8;
  buf[base + end - 1] = bits;
  return end;
}

// ---------------------------------------------------------------------------------------------
// The WebAssembly kernel (wasm-assembler.ts)
//
// Memory (one 64 KiB page): the round constants K, the message schedule W, the state, the two
// midstates, the output (the MAC, big-endian), the outer block (the inner digest, then its fixed
// padding), and from BLOCKS_AT the message with its padding. Words are loaded little-endian and
// byte-swapped where SHA-256 wants big-endian (the message, the digests).
//
//   (func $compress (param $b i32)   ;; one block at $b into the state
//     W[0..15] = bswap(load($b + 4i)); W[16..63] = W[i-16] + s0(W[i-15]) + W[i-7] + s1(W[i-2])
//     a..h = state; 64 rounds; state += a..h)
//   (func $mac (export "mac") (param $n i32)
//     state = inner midstate; $compress each of the $n blocks at BLOCKS_AT;
//     outer block[0..31] = bswap(state); state = outer midstate; $compress(outer block);
//     output = bswap(state))

const K_AT = 0;
const W_AT = 256;
const STATE_AT = 512;
const INNER_AT = 544;
const OUTER_AT = 576;
const OUTPUT_AT = 608;
const OUTER_BLOCK_AT = 640;
const BLOCKS_AT = 1024;
/** Longest message the kernel takes (with its padding it fills the rest of the page); longer: JavaScript. */
const WASM_MAX_MESSAGE_BYTES = 65536 - BLOCKS_AT - 2 * BLOCK_BYTES;

const { loop, void: VOID, brIf, call, localGet: get, localSet: set, localTee: tee, i32Load, i32Store } = op;
const { i32Add, i32Sub, i32And, i32Or, i32Xor, i32ShrU, i32Rotl, i32Rotr, i32LtU, i32Ne } = op;

// $compress's locals: 0 = $b (the parameter), then a..h, t1, q (a byte index), tmp.
const B = 0;
const [A, Bx, C, D, E, F, G, H, T1, Q, TMP] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] as const;
const STATE = [A, Bx, C, D, E, F, G, H];

const load = (offset: number) => [i32Load, ...memarg(2, offset)];
const store = (offset: number) => [i32Store, ...memarg(2, offset)];
const rotr = (local: number, n: number) => [get, local, ...i32(n), i32Rotr];
/** The value of local `local` with its four bytes reversed. */
const bswap = (local: number) =>
  // biome-ignore format: one operation a line
  [
    get, local, ...i32(8), i32Rotl, ...i32(0x00ff00ff), i32And,
    get, local, ...i32(8), i32Rotr, ...i32(0xff00ff00), i32And,
    i32Or,
  ];
/** Three rotations (or two and a shift, for the schedule's sigmas) of a local, XOR-ed. */
const sigma = (local: number, r1: number, r2: number, last: number, shift: boolean) => [
  ...rotr(local, r1),
  ...rotr(local, r2),
  i32Xor,
  ...(shift ? [get, local, ...i32(last), i32ShrU] : rotr(local, last)),
  i32Xor,
];

// biome-ignore format: one step a line
const COMPRESS: number[] = [
  // W[0..15]: the block's words, big-endian.
  ...i32(0), set, Q,
  loop, VOID,
  get, Q,
  get, B, get, Q, i32Add, ...load(0), set, TMP, ...bswap(TMP),
  ...store(W_AT),
  get, Q, ...i32(4), i32Add, tee, Q, ...i32(64), i32LtU, brIf, 0,
  op.end,
  // W[16..63], at byte q + 64: W[q] + s0(W[q + 4]) + W[q + 36] + s1(W[q + 56]).
  ...i32(0), set, Q,
  loop, VOID,
  get, Q,
  get, Q, ...load(W_AT),
  get, Q, ...load(W_AT + 4), set, TMP, ...sigma(TMP, 7, 18, 3, true), i32Add,
  get, Q, ...load(W_AT + 36), i32Add,
  get, Q, ...load(W_AT + 56), set, TMP, ...sigma(TMP, 17, 19, 10, true), i32Add,
  ...store(W_AT + 64),
  get, Q, ...i32(4), i32Add, tee, Q, ...i32(192), i32LtU, brIf, 0,
  op.end,
  // a..h from the state.
  ...STATE.flatMap((local, k) => [...i32(0), ...load(STATE_AT + 4 * k), set, local]),
  // 64 rounds, q = 4 x round.
  ...i32(0), set, Q,
  loop, VOID,
  // t1 = h + S1(e) + ch(e, f, g) + K[round] + W[round]; ch = g ^ (e & (f ^ g))
  get, H,
  ...sigma(E, 6, 11, 25, false), i32Add,
  get, G, get, E, get, F, get, G, i32Xor, i32And, i32Xor, i32Add,
  get, Q, ...load(K_AT), i32Add,
  get, Q, ...load(W_AT), i32Add,
  set, T1,
  // tmp = S0(a) + maj(a, b, c); maj = (a & (b | c)) | (b & c)
  ...sigma(A, 2, 13, 22, false),
  get, A, get, Bx, get, C, i32Or, i32And, get, Bx, get, C, i32And, i32Or,
  i32Add, set, TMP,
  get, G, set, H,
  get, F, set, G,
  get, E, set, F,
  get, D, get, T1, i32Add, set, E,
  get, C, set, D,
  get, Bx, set, C,
  get, A, set, Bx,
  get, T1, get, TMP, i32Add, set, A,
  get, Q, ...i32(4), i32Add, tee, Q, ...i32(256), i32LtU, brIf, 0,
  op.end,
  // state += a..h
  ...STATE.flatMap((local, k) => [...i32(0), ...i32(0), ...load(STATE_AT + 4 * k), get, local, i32Add, ...store(STATE_AT + 4 * k)]),
];

// $mac's locals: 0 = $n (the parameter), 1 = p, 2 = tmp.
const N = 0;
const P = 1;
const MAC_TMP = 2;
/** Copies 8 words from one place in memory to another. */
const copyState = (from: number, to: number) =>
  [0, 1, 2, 3, 4, 5, 6, 7].flatMap((k) => [...i32(0), ...i32(0), ...load(from + 4 * k), ...store(to + 4 * k)]);
/** Writes the state's 8 words, byte-swapped (big-endian), at `to`. */
const stateOut = (to: number) =>
  [0, 1, 2, 3, 4, 5, 6, 7].flatMap((k) => [
    ...i32(0),
    ...i32(0),
    ...load(STATE_AT + 4 * k),
    set,
    MAC_TMP,
    ...bswap(MAC_TMP),
    ...store(to + 4 * k),
  ]);

// biome-ignore format: one step a line
const MAC: number[] = [
  ...copyState(INNER_AT, STATE_AT),
  ...i32(BLOCKS_AT), set, P,
  loop, VOID,
  get, P, call, 0,
  get, P, ...i32(BLOCK_BYTES), i32Add, set, P,
  get, N, ...i32(1), i32Sub, tee, N, ...i32(0), i32Ne, brIf, 0,
  op.end,
  ...stateOut(OUTER_BLOCK_AT),
  ...copyState(OUTER_AT, STATE_AT),
  ...i32(OUTER_BLOCK_AT), call, 0,
  ...stateOut(OUTPUT_AT),
];

const SHA256_MODULE: WasmSpec = {
  memoryPages: 1,
  functions: [
    { params: [I32], locals: Array(11).fill(I32), body: COMPRESS },
    { export: "mac", params: [I32], locals: [I32, I32], body: MAC },
  ],
};

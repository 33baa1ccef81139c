/**
 * HMAC-SHA256 with a fixed key
 * ============================
 * Owns the MAC that seals cursors: HMAC-SHA256 (RFC 2104) of a message under one key, with every
 * SHA-256 computed by node:crypto (OpenSSL), so no cryptography of Quiver's own stands behind the
 * cursor's promise of tamper evidence. `verify` compares with `timingSafeEqual`, whose time does not
 * depend on where two MACs differ.
 *
 * Algorithm: the definition, SHA-256((K ^ opad) || SHA-256((K ^ ipad) || m)), with the two padded
 * key blocks made once: per message, two one-shot `crypto.hash` calls, the message copied behind
 * K ^ ipad and the inner digest behind K ^ opad in buffers kept for the next call. The digests come
 * back as latin1 strings (one byte a character), not Buffers: a Buffer is an ArrayBuffer outside the
 * JavaScript heap, and making two of them a MAC cost more than the two hashes (median 0.66 against
 * 1.27-1.42 µs for a 70-byte cursor body; `createHmac("sha256", key)` 1.47-1.60, and its object
 * per message; a scratch loop of the four forms under tinybench; `npm run bench:cursor-mac` times the
 * one used). Where `crypto.hash` is missing (Node 20 before 20.12) each MAC is one `createHmac`.
 * The tests compare both paths with `createHmac` and RFC 4231's vectors.
 *
 * Cost: SHA-256 over 64 + |m| and over 96 bytes, two calls into C++, one copy of m and two
 * 32-character strings. Synchronous and not shared across threads, so the buffers are reused. A MAC
 * runs once per page that has a next page, and once per presented cursor that the codec's cache of
 * issued cursors does not hold (cursor.ts). References: RFC 2104 (HMAC); RFC 4231 (test vectors, in
 * test/engine/cursor/hmac.test.ts).
 */

import * as crypto from "node:crypto";

/** SHA-256's block size: keys are padded (or first hashed) to this length. */
const BLOCK_BYTES = 64;
export const DIGEST_BYTES = 32;
const IPAD = 0x36;
const OPAD = 0x5c;
/** Room for a message behind the inner key block, to start with (grown for a longer one). */
const INITIAL_MESSAGE_BYTES = 2048;

/** Whether this runtime has the one-shot `crypto.hash` (Node 20.12+, 21.7+). */
export const HAS_ONE_SHOT_HASH = typeof crypto.hash === "function";

export class HmacSha256 {
  private readonly key: crypto.KeyObject;
  private readonly oneShot: boolean;
  /** K ^ ipad, then the message. */
  private inner: Buffer;
  /** K ^ opad, then the inner digest. */
  private readonly outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
  /** The MAC `verify` computes, as bytes for timingSafeEqual. */
  private readonly expected = Buffer.alloc(DIGEST_BYTES);

  /** `oneShot` false keeps to `createHmac` (for the tests, which compare the two paths). */
  constructor(key: Uint8Array, oneShot = HAS_ONE_SHOT_HASH) {
    this.key = crypto.createSecretKey(key);
    this.oneShot = oneShot;
    // A key longer than a block is replaced by its digest (RFC 2104, section 2).
    const k = key.length > BLOCK_BYTES ? crypto.createHash("sha256").update(key).digest() : key;
    this.inner = Buffer.alloc(BLOCK_BYTES + INITIAL_MESSAGE_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i++) {
      const byte = i < k.length ? k[i]! : 0;
      this.inner[i] = byte ^ IPAD;
      this.outer[i] = byte ^ OPAD;
    }
  }

  /** The 32-byte MAC of `message` (a fresh buffer). */
  mac(message: Uint8Array): Buffer {
    return Buffer.from(this.digest(message, message.length), "latin1");
  }

  /**
   * Writes the first `bytes` (at most DIGEST_BYTES) of the MAC of message[0, length) into `out` at
   * `at`. `out` may be the message's own buffer, past `length` (the message is read in full first).
   */
  macInto(message: Uint8Array, length: number, out: Uint8Array, at: number, bytes: number): void {
    const digest = this.digest(message, length);
    for (let i = 0; i < bytes; i++) out[at + i] = digest.charCodeAt(i);
  }

  /**
   * Whether `mac[macAt, macAt + bytes)` is the first `bytes` of the MAC of message[0, length),
   * compared in constant time.
   */
  verify(message: Uint8Array, length: number, mac: Uint8Array, macAt: number, bytes: number): boolean {
    if (bytes > DIGEST_BYTES || macAt + bytes > mac.length) return false;
    this.expected.write(this.digest(message, length), 0, DIGEST_BYTES, "latin1");
    return crypto.timingSafeEqual(this.expected.subarray(0, bytes), mac.subarray(macAt, macAt + bytes));
  }

  /** The MAC of message[0, length) as 32 latin1 characters, one a byte ("binary" is node's name for latin1). */
  private digest(message: Uint8Array, length: number): string {
    const body = length === message.length ? message : message.subarray(0, length);
    // Each branch: the two one-shot hashes where the runtime has them, else createHmac.
    if (!this.oneShot) return crypto.createHmac("sha256", this.key).update(body).digest("binary");
    if (BLOCK_BYTES + length > this.inner.length) {
      const grown = Buffer.alloc(Math.max(BLOCK_BYTES + length, 2 * this.inner.length));
      this.inner.copy(grown, 0, 0, BLOCK_BYTES);
      this.inner = grown;
    }
    this.inner.set(body, BLOCK_BYTES);
    const innerDigest = crypto.hash("sha256", this.inner.subarray(0, BLOCK_BYTES + length), "binary");
    this.outer.write(innerDigest, BLOCK_BYTES, DIGEST_BYTES, "latin1");
    return crypto.hash("sha256", this.outer, "binary");
  }
}

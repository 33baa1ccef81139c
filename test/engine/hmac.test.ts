/**
 * HMAC-SHA256 tests
 * =================
 * src/engine/hmac.ts against RFC 4231's test vectors (short key, a key longer than a block, data
 * longer than a block) and against node:crypto's createHmac on seeded random keys and messages of
 * every length around the block size and past the scratch buffer's first size.
 */

import { createHmac } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { HmacSha256 } from "../../src/engine/hmac.js";
import { mulberry32 } from "../../tools/prng.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test("RFC 4231 test cases 1, 2, 6 and 7", () => {
  const big = Buffer.alloc(131, 0xaa);
  const cases: [Buffer, string, string][] = [
    [Buffer.alloc(20, 0x0b), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"],
    [
      Buffer.from("Jefe"),
      "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    [
      big,
      "Test Using Larger Than Block-Size Key - Hash Key First",
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
    [
      big,
      "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ],
  ];
  for (const [key, data, expected] of cases) assert.is(hex(new HmacSha256(key).mac(Buffer.from(data))), expected);
});

test("the same bytes as createHmac for random keys and messages, one instance reused", () => {
  const rand = mulberry32(4231);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  for (const keyLength of [1, 16, 32, 63, 64, 65, 128, 200]) {
    const key = bytes(keyLength);
    const hmac = new HmacSha256(key);
    // Lengths up and down, so a grown scratch buffer is then used for shorter messages too.
    for (const length of [0, 1, 55, 56, 64, 70, 191, 192, 300, 1000, 3, 70]) {
      const message = bytes(length);
      assert.is(
        hex(hmac.mac(message)),
        createHmac("sha256", key).update(message).digest("hex"),
        `${keyLength}/${length}`,
      );
    }
  }
});

test("each MAC is a fresh buffer: a later call does not change an earlier result", () => {
  const hmac = new HmacSha256(Buffer.from("k"));
  const first = hmac.mac(Buffer.from("one"));
  const copy = hex(first);
  hmac.mac(Buffer.from("two"));
  assert.is(hex(first), copy);
});

test.run();

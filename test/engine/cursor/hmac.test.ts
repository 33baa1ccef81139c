/**
 * HMAC-SHA256 tests
 * =================
 * src/engine/cursor/hmac.ts against RFC 4231's test vectors (short key, a key longer than a block, data
 * longer than a block) and against node:crypto's createHmac with a plain key on seeded random keys and
 * messages of every length from 0 to 300 (one and two padding blocks, every block boundary) and a few
 * longer (past the buffer the message is copied into at first); macInto's prefix, offset and output
 * inside the message's own buffer; verify's answer for the right MAC, every single-bit change of it,
 * and a MAC out of range. Each for both paths: two one-shot crypto.hash calls, and createHmac.
 */

import { createHmac } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { HAS_ONE_SHOT_HASH, HmacSha256 } from "../../../src/engine/cursor/hmac.js";
import { mulberry32 } from "../../../tools/prng.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Both paths where the runtime has crypto.hash, else createHmac alone. */
const PATHS = HAS_ONE_SHOT_HASH ? [true, false] : [false];
const pathName = (oneShot: boolean) => (oneShot ? "two crypto.hash calls" : "createHmac");

test("the one-shot path runs on this machine (else only the createHmac one is tested)", () => {
  assert.ok(HAS_ONE_SHOT_HASH);
});

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
  for (const oneShot of PATHS)
    for (const [key, data, expected] of cases)
      assert.is(hex(new HmacSha256(key, oneShot).mac(Buffer.from(data))), expected, `one-shot ${oneShot}`);
});

for (const oneShot of PATHS) {
  test(`the same bytes as createHmac for random keys and messages, one instance reused (${pathName(oneShot)})`, () => {
    const rand = mulberry32(4231);
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
    for (const keyLength of [0, 1, 16, 32, 63, 64, 65, 128, 200]) {
      const key = bytes(keyLength);
      const hmac = new HmacSha256(key, oneShot);
      // Every length around the padding's one- and two-block cases, then longer ones and back.
      const lengths = [...Array.from({ length: 301 }, (_, n) => n), 1000, 4096, 3, 70];
      for (const length of lengths) {
        const message = bytes(length);
        assert.is(
          hex(hmac.mac(message)),
          createHmac("sha256", key).update(message).digest("hex"),
          `${keyLength}/${length}`,
        );
      }
    }
    const long = bytes(70_000);
    assert.is(
      hex(new HmacSha256(Buffer.from("key"), oneShot).mac(long)),
      createHmac("sha256", "key").update(long).digest("hex"),
    );
  });
}

test("each MAC is a fresh buffer: a later call does not change an earlier result", () => {
  const hmac = new HmacSha256(Buffer.from("k"));
  const first = hmac.mac(Buffer.from("one"));
  const copy = hex(first);
  hmac.mac(Buffer.from("two"));
  assert.is(hex(first), copy);
});

for (const oneShot of PATHS) {
  test(`macInto writes a prefix of the MAC at an offset, also into the message's own buffer past it (${pathName(oneShot)})`, () => {
    const key = Buffer.from("secret");
    const hmac = new HmacSha256(key, oneShot);
    const rand = mulberry32(2104);
    for (const length of [0, 20, 55, 56, 63, 64, 70, 119, 120, 200]) {
      const buf = Buffer.from(Array.from({ length: length + 40 }, () => Math.floor(rand() * 256)));
      const expected = createHmac("sha256", key).update(buf.subarray(0, length)).digest();
      const out = Buffer.alloc(40, 0xee);
      hmac.macInto(buf, length, out, 3, 16);
      assert.is(hex(out.subarray(3, 19)), hex(expected.subarray(0, 16)), `prefix ${length}`);
      assert.ok(out[2] === 0xee && out[19] === 0xee, "nothing written outside the prefix");
      // The cursor codec's use: the MAC of buf[0, length) written at buf[length].
      hmac.macInto(buf, length, buf, length, 32);
      assert.is(hex(buf.subarray(length, length + 32)), hex(expected), `in place ${length}`);
    }
  });
}

for (const oneShot of PATHS) {
  test(`verify: true for the MAC's prefix, false for every single-bit change of it and for a MAC out of range (${pathName(oneShot)})`, () => {
    const hmac = new HmacSha256(Buffer.from("secret"), oneShot);
    const message = Buffer.from("a cursor body of some length");
    const buf = Buffer.concat([message, hmac.mac(message).subarray(0, 16)]);
    assert.ok(hmac.verify(buf, message.length, buf, message.length, 16));
    for (let bit = 0; bit < 128; bit++) {
      const at = message.length + (bit >> 3);
      buf[at] = buf[at]! ^ (1 << (bit & 7));
      assert.not.ok(hmac.verify(buf, message.length, buf, message.length, 16), `bit ${bit}`);
      buf[at] = buf[at]! ^ (1 << (bit & 7));
    }
    // A MAC cut short by the end of its buffer, or asked longer than a digest: false, never a throw.
    assert.not.ok(hmac.verify(buf, message.length, buf, message.length + 1, 16));
    assert.not.ok(hmac.verify(buf, message.length, Buffer.alloc(40), 0, 33));
  });
}

test.run();

/**
 * Base64url reading against Node's encoder: every byte string's encoding decodes to it, and a text
 * is refused exactly when it is not what Buffer#toString("base64url") writes for some bytes (the
 * alphabet, the length, the last character's spare bits).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBase64Url, NOT_BASE64URL, NOT_CANONICAL } from "../../../src/engine/cursor/base64url.js";
import { Rng } from "../../support/oracle.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** What the decoder should answer: the bytes, or which refusal (by Node's encoder as the oracle). */
function expected(text: string): Buffer | "alphabet" | "canonical" {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return "alphabet";
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : "canonical";
}

function check(text: string, out: Uint8Array = new Uint8Array(text.length)): void {
  const n = decodeBase64Url(text, out);
  const want = expected(text);
  if (want === "alphabet") assert.is(n, NOT_BASE64URL, JSON.stringify(text));
  else if (want === "canonical") assert.is(n, NOT_CANONICAL, JSON.stringify(text));
  else assert.equal(Buffer.from(out.subarray(0, n)), want, JSON.stringify(text));
}

test("every byte string of length 0..40 round-trips", () => {
  const rng = new Rng(11);
  for (let len = 0; len <= 40; len++)
    for (let k = 0; k < 50; k++) {
      const bytes = Buffer.from(Array.from({ length: len }, () => rng.int(256)));
      const out = new Uint8Array(len);
      const n = decodeBase64Url(bytes.toString("base64url"), out);
      assert.is(n, len);
      assert.equal(Buffer.from(out), bytes);
    }
});

test("random texts are refused exactly when Node would not write them", () => {
  const rng = new Rng(12);
  const odd = [..."=+/ \n.\u00e9\u0141\u0080\u00ff\u0100\u0000", "\ud83d\ude00"];
  for (let k = 0; k < 20000; k++) {
    const len = rng.int(14);
    let text = "";
    for (let i = 0; i < len; i++) text += rng.chance(0.05) ? odd[rng.int(odd.length)]! : ALPHABET[rng.int(64)]!;
    check(text);
  }
});

test("every last character after 1 and 2 bytes: only zero spare bits are canonical", () => {
  for (const head of ["A", "QU", "QUJ", "QUJDR", "QUJDRE"]) for (const c of ALPHABET) check(head + c);
});

test("a buffer too short is refused, not overrun", () => {
  const out = new Uint8Array(2);
  assert.is(decodeBase64Url("QUJD", out), NOT_CANONICAL);
  assert.is(decodeBase64Url("QUI", out), 2);
});

test.run();

/**
 * The API key check: accepted keys, the prefix rule, a function instead of a list, configuration
 * mistakes refused at start, the two codes of a 401, and the constant-time comparison of keys of
 * one length.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { createKeyVerifier } from "../../src/http/auth.js";

test("a configured key passes; anything else fails with a sentence", () => {
  const verify = createKeyVerifier(["sk_alpha", "sk_beta"]);
  assert.is(verify("sk_alpha"), null);
  assert.is(verify("sk_beta"), null);
  for (const bad of [
    undefined,
    "",
    "sk_",
    "sk_alph",
    "sk_alphaa",
    "SK_alpha",
    "alpha",
    " sk_alpha",
    "sk_alpha, sk_alpha",
    ["sk_alpha"],
  ]) {
    const failure = verify(bad as string | undefined);
    assert.ok(failure !== null, String(bad));
    assert.not.ok(failure!.message.includes("alpha"), "the key is never echoed");
    assert.is(failure!.code, bad === undefined || bad === "" ? "API_KEY_MISSING" : "API_KEY_REJECTED", String(bad));
  }
  assert.match(verify(undefined)!.message, /X-API-Key/);
});

test("keys of several lengths: each is accepted, and a key is compared only with keys of its length", () => {
  const keys = [
    "sk_a",
    "sk_bb",
    "sk_ccc",
    "sk_0123456789abcdefghijklmnopqrstuv",
    "sk_1123456789abcdefghijklmnopqrstuv",
  ];
  const verify = createKeyVerifier(keys);
  for (const k of keys) assert.is(verify(k), null, k);
  // Every character position of a long key matters (no early exit can make a prefix pass).
  const long = keys[3]!;
  for (let i = 3; i < long.length; i++) {
    const altered = long.slice(0, i) + (long[i] === "x" ? "y" : "x") + long.slice(i + 1);
    assert.ok(verify(altered) !== null, altered);
  }
  assert.ok(verify("sk_aa") !== null && verify("sk_b") !== null);
  // A character outside Latin-1 never matches by accident of the arithmetic.
  assert.ok(verify("sk_\u0161") !== null && verify(`sk_${String.fromCharCode(0x161)}`) !== null);
});

test("a function decides, but only on keys that start with sk_", () => {
  const seen: string[] = [];
  const verify = createKeyVerifier((k) => {
    seen.push(k);
    return k === "sk_fn";
  });
  assert.is(verify("sk_fn"), null);
  assert.is(verify("sk_other")?.code, "API_KEY_REJECTED");
  assert.is(verify("pk_fn")?.code, "API_KEY_REJECTED");
  assert.equal(seen, ["sk_fn", "sk_other"]);
});

test("configuration mistakes are refused when the handler is made", () => {
  assert.throws(() => createKeyVerifier([]), /at least one/);
  assert.throws(() => createKeyVerifier(["pk_live"]), /sk_/);
  assert.throws(() => createKeyVerifier(["sk_"]), /characters after/);
  assert.throws(() => createKeyVerifier(["sk_has space"]), /printable ASCII/);
  assert.throws(() => createKeyVerifier(["sk_ok", "sk_é"]), /apiKeys\[1\]/);
});

test.run();

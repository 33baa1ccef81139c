/**
 * The API key check: accepted keys, the prefix rule, a function instead of a list, configuration
 * mistakes refused at start.
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
    assert.type(failure, "string", String(bad));
    assert.not.ok(failure!.includes("alpha"), "the key is never echoed");
  }
  assert.match(verify(undefined)!, /X-API-Key/);
});

test("a function decides, but only on keys that start with sk_", () => {
  const seen: string[] = [];
  const verify = createKeyVerifier((k) => {
    seen.push(k);
    return k === "sk_fn";
  });
  assert.is(verify("sk_fn"), null);
  assert.type(verify("sk_other"), "string");
  assert.type(verify("pk_fn"), "string");
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

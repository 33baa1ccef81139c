/**
 * API key check
 * =============
 * The `X-API-Key` rule of CONTRACT.md "Authentication": the key must begin with `sk_` and be one of
 * the configured keys (or pass the embedder's own check); otherwise 401.
 *
 * Constant time: the presented key and every configured key are hashed with SHA-256, and the 32-byte
 * digests are compared with `crypto.timingSafeEqual`, against every configured key without stopping
 * at a match. Comparing digests (not the keys) keeps the compared lengths equal, so neither the
 * length of a key nor the position of its first wrong character shows in the timing. Cost: one
 * SHA-256 of a short string (about 1.5 us) plus one 32-byte compare per configured key.
 *
 * Keys are never logged or echoed; error sentences say what was wrong without repeating the key.
 */

import * as crypto from "node:crypto";

export const API_KEY_HEADER = "x-api-key";
export const API_KEY_PREFIX = "sk_";

/** A function that decides on one presented key (already known to start with `sk_`). */
export type ApiKeyCheck = (key: string) => boolean;

/** What the handler is given: the accepted keys, or a function that checks one. */
export type ApiKeys = readonly string[] | ApiKeyCheck;

/** The outcome of checking a request's key: null when accepted, else the sentence for the 401. */
export type AuthFailure = string | null;

/** Printable ASCII without space: what an HTTP header value can carry unchanged. */
const KEY_CHARACTERS = /^[\x21-\x7e]+$/;

/** Throws a plain Error (a configuration mistake, not a request error) for a key that can never match. */
export function assertUsableKey(key: string, where: string): void {
  if (!key.startsWith(API_KEY_PREFIX) || key.length === API_KEY_PREFIX.length) {
    throw new Error(`${where}: an API key must start with "${API_KEY_PREFIX}" and have characters after it.`);
  }
  if (!KEY_CHARACTERS.test(key)) {
    throw new Error(`${where}: an API key may only hold printable ASCII characters without spaces.`);
  }
}

/**
 * One-shot `crypto.hash` where node has it (20.12+): about 1.5 us here, against 2.4 us for
 * createHash().update().digest(), which older node 20 releases fall back to.
 */
const sha256: (s: string) => Buffer =
  typeof crypto.hash === "function"
    ? (s) => crypto.hash("sha256", s, "buffer")
    : (s) => crypto.createHash("sha256").update(s, "utf8").digest();

/** Builds the per-request check once, from the handler's options. */
export function createKeyVerifier(keys: ApiKeys): (presented: string | string[] | undefined) => AuthFailure {
  let accepts: ApiKeyCheck;
  if (typeof keys === "function") {
    accepts = keys;
  } else {
    if (keys.length === 0) throw new Error("apiKeys: give at least one API key (or a function that checks one).");
    for (const [i, k] of keys.entries()) assertUsableKey(k, `apiKeys[${i}]`);
    const digests = keys.map(sha256);
    accepts = (key) => {
      const presented = sha256(key);
      let match = false;
      // No early exit: every configured key is compared whatever the outcome.
      for (const d of digests) match = crypto.timingSafeEqual(presented, d) || match;
      return match;
    };
  }
  return (presented) => {
    // node joins repeated unknown headers with ", " into one string; a string[] only comes from an embedder.
    if (presented === undefined || presented === "") {
      return `This endpoint needs an API key: send it in the X-API-Key header (X-API-Key: ${API_KEY_PREFIX}...).`;
    }
    if (typeof presented !== "string" || !presented.startsWith(API_KEY_PREFIX) || !accepts(presented)) {
      return "The API key in the X-API-Key header is not accepted; check that it is one of the server's configured keys.";
    }
    return null;
  };
}

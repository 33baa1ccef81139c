/**
 * API key check
 * =============
 * The `X-API-Key` rule of CONTRACT.md "Authentication": the key must begin with `sk_` and be one of
 * the configured keys (or pass the embedder's own check); otherwise 401, with code API_KEY_MISSING
 * when no key came and API_KEY_REJECTED when one came that is not accepted.
 *
 * Constant time, without hashing each request: the configured keys are grouped by length once. A
 * presented key is compared, character by character with no early exit (the differences OR-ed into
 * one accumulator), with every configured key of its own length, and never with keys of other
 * lengths. So the time taken does not depend on which characters match, on where the first wrong
 * one is, or on which configured key (if any) matched; it does depend on whether some configured key
 * has the presented key's length. That is the trade-off (SECURITY.md): the length of the accepted
 * keys can be learnt from timing, never their content. Keys `quiver serve` generates all have one
 * public length (`sk_` and 32 characters), so nothing is learnt there. Cost: one pass over the
 * presented key per configured key of its length, no hashing (`npm run bench:http` shows the handler
 * layer as a whole).
 *
 * Keys are never logged or echoed; error sentences say what was wrong without repeating the key.
 */

import { QuiverError } from "../engine/errors.js";
import { describeValue } from "../engine/quote.js";

export const API_KEY_HEADER = "x-api-key";
export const API_KEY_PREFIX = "sk_";

/** A function that decides on one presented key (already known to start with `sk_`). */
export type ApiKeyCheck = (key: string) => boolean;

/** What the handler is given: the accepted keys, or a function that checks one. */
export type ApiKeys = readonly string[] | ApiKeyCheck;

/** The outcome of checking a request's key: null when accepted, else what to answer with 401. */
export type AuthFailure = { code: "API_KEY_MISSING" | "API_KEY_REJECTED"; message: string } | null;

const MISSING: AuthFailure = {
  code: "API_KEY_MISSING",
  message: `This endpoint needs an API key: send it in the X-API-Key header (X-API-Key: ${API_KEY_PREFIX}...).`,
};
const REJECTED: AuthFailure = {
  code: "API_KEY_REJECTED",
  message: "The API key in the X-API-Key header is not accepted; check that it is one of the server's configured keys.",
};

/** Printable ASCII without space: what an HTTP header value can carry unchanged. */
const KEY_CHARACTERS = /^[\x21-\x7e]+$/;

/** Throws a plain Error (a configuration mistake, not a request error) for a key that can never match. */
export function assertUsableKey(key: string, where: string): void {
  if (typeof key !== "string")
    throw new QuiverError("INVALID_PARAMETER", `${where}: an API key must be a string; got ${describeValue(key)}.`, {
      parameter: "apiKeys",
    });
  if (!key.startsWith(API_KEY_PREFIX) || key.length === API_KEY_PREFIX.length) {
    throw new QuiverError(
      "INVALID_PARAMETER",
      `${where}: an API key must start with "${API_KEY_PREFIX}" and have characters after it.`,
      { parameter: "apiKeys" },
    );
  }
  if (!KEY_CHARACTERS.test(key)) {
    throw new QuiverError(
      "INVALID_PARAMETER",
      `${where}: an API key may only hold printable ASCII characters without spaces.`,
      { parameter: "apiKeys" },
    );
  }
}

/** True when `presented` equals one of `keys` (all of its length); every key is compared in full. */
function equalsOneOf(presented: string, keys: readonly string[]): boolean {
  let matched = 0;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    let difference = 0;
    for (let i = 0; i < key.length; i++) difference |= key.charCodeAt(i) ^ presented.charCodeAt(i);
    // No branch on the outcome: 1 when this key matched, folded into the result arithmetically.
    matched |= ((difference - 1) >>> 31) & 1;
  }
  return matched === 1;
}

/** Builds the per-request check once, from the handler's options. */
export function createKeyVerifier(keys: ApiKeys): (presented: string | readonly string[] | undefined) => AuthFailure {
  let accepts: ApiKeyCheck;
  // Each branch: a function that checks a key, an array of keys, or anything else (a call from plain
  // JavaScript that forgot apiKeys, or gave one string).
  if (typeof keys === "function") {
    accepts = keys;
  } else if (!Array.isArray(keys)) {
    throw new QuiverError(
      "INVALID_PARAMETER",
      `apiKeys must be an array of keys (["sk_..."]) or a function that checks one; got ${describeValue(keys)}.`,
      { parameter: "apiKeys" },
    );
  } else {
    if (keys.length === 0)
      throw new QuiverError(
        "INVALID_PARAMETER",
        "apiKeys: give at least one API key (or a function that checks one).",
        {
          parameter: "apiKeys",
        },
      );
    for (const [i, k] of keys.entries()) assertUsableKey(k, `apiKeys[${i}]`);
    // Index = length; most servers have one or two keys of one length, so this array stays short.
    const byLength: (string[] | undefined)[] = [];
    for (const k of keys) (byLength[k.length] ??= []).push(k);
    accepts = (key) => {
      const sameLength = byLength[key.length];
      return sameLength !== undefined && equalsOneOf(key, sameLength);
    };
  }
  return (presented) => {
    // node joins repeated unknown headers with ", " into one string; a string[] only comes from an embedder.
    if (presented === undefined || presented === "") return MISSING;
    if (typeof presented !== "string" || !presented.startsWith(API_KEY_PREFIX) || !accepts(presented)) return REJECTED;
    return null;
  };
}

/**
 * API keys of the micro-server
 * ============================
 * `QUIVER_API_KEYS` (comma-separated) sets the accepted keys; with none, one random key is made for
 * this run and printed (CONTRACT.md "Server"). A bad key is reported by its position, never by its
 * text: whatever was pasted there may be a secret of another system.
 */

import { randomBytes } from "node:crypto";
import { API_KEY_PREFIX, assertUsableKey } from "../http/auth.js";

export const API_KEYS_ENV = "QUIVER_API_KEYS";
/** Random bytes in a generated key (base64url: 32 characters after `sk_`). */
const GENERATED_KEY_BYTES = 24;

export interface ApiKeySetup {
  keys: string[];
  /** True when the key was made for this run (and should be shown to the user). */
  generated: boolean;
  /** True when the variable was set but held only blanks and commas (a templating mistake). */
  blank: boolean;
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(GENERATED_KEY_BYTES).toString("base64url");
}

/** Throws an Error naming the position of a bad key. */
export function apiKeysFromEnv(value: string | undefined): ApiKeySetup {
  const keys = (value ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keys.length === 0)
    return { keys: [generateApiKey()], generated: true, blank: value !== undefined && value !== "" };
  for (const [i, k] of keys.entries()) assertUsableKey(k, `${API_KEYS_ENV}, key ${i + 1} of ${keys.length}`);
  return { keys, generated: false, blank: false };
}

/**
 * CORS
 * ====
 * Off unless the handler's `cors` option names the origins a browser page may call from (the Fetch
 * standard's CORS protocol, https://fetch.spec.whatwg.org/#http-cors-protocol). With it:
 *
 * - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) on a known path, from
 *   an allowed origin, is answered 204 before the key is looked at: a browser never sends
 *   credentials or custom headers (X-API-Key) on a preflight, so checking the key there would make
 *   every call from a page fail. The answer allows GET and HEAD and the request headers the API
 *   reads (CORS_ALLOWED_HEADERS), and lets the browser keep it CORS_MAX_AGE_SECONDS;
 * - every other answer to an allowed origin (errors included, so a page can read the sentence)
 *   carries `Access-Control-Allow-Origin` and exposes `ETag` and `X-Request-Id` to the page's script;
 * - when the option lists origins (not "*"), answers say `Vary: Origin`, since they differ by origin.
 *
 * A preflight from an origin not allowed, or any OPTIONS without CORS on, is an ordinary request:
 * 401 without a key on the data endpoints, else 405. No credentials mode: the key travels in a
 * header the page sets, never in a cookie, so `Access-Control-Allow-Credentials` is never sent.
 */

import { QuiverError } from "../engine/errors.js";
import { describeValue } from "../engine/quote.js";

/** What the `cors` option takes: "*" for any origin, or the allowed origins (`https://app.example`). */
export type CorsOrigins = string | readonly string[];

export const CORS_ALLOWED_METHODS = "GET, HEAD";
export const CORS_ALLOWED_HEADERS = "X-API-Key, If-None-Match, X-Request-Id";
export const CORS_EXPOSED_HEADERS = "ETag, X-Request-Id, X-Quiver-Sequence";
/** A preflight of POST /graph/v1/changes: its method, and the Content-Type its body needs. */
export const CORS_CHANGES_METHODS = "POST";
export const CORS_CHANGES_HEADERS = "X-API-Key, Content-Type, X-Request-Id";
export const CORS_MAX_AGE_SECONDS = 600;

export interface CorsPolicy {
  /** The `Access-Control-Allow-Origin` value for a request's `Origin`, or null when not allowed. */
  allow(origin: string | readonly string[] | undefined): string | null;
  /** True when answers differ by origin (a list, not "*"): they then say `Vary: Origin`. */
  readonly varyOrigin: boolean;
}

/** An origin as browsers serialize it: scheme, host, optional port; no path, no trailing slash. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/\s?#]+$/;

/** The policy for the option, or null when CORS is off; throws on an origin that can never match. */
export function corsPolicy(option: CorsOrigins | undefined): CorsPolicy | null {
  if (option === undefined) return null;
  // A call from plain JavaScript may pass anything: one origin, or an array of origins, only.
  if (typeof option !== "string" && !(Array.isArray(option) && option.every((o) => typeof o === "string")))
    throw new QuiverError(
      "INVALID_PARAMETER",
      `cors must be "*", an origin or an array of origins (https://app.example); got ${describeValue(option)}.`,
      { parameter: "cors" },
    );
  const origins = typeof option === "string" ? [option] : [...option];
  if (origins.length === 0) throw new Error('cors: give "*" or at least one origin (https://app.example).');
  if (origins.includes("*")) {
    if (origins.length > 1) throw new Error('cors: "*" allows every origin; give it alone.');
    return { allow: (origin) => (typeof origin === "string" ? "*" : null), varyOrigin: false };
  }
  const allowed = new Set<string>();
  for (const [i, o] of origins.entries()) {
    const origin = o.toLowerCase();
    if (!ORIGIN.test(origin))
      throw new Error(`cors[${i}]: ${JSON.stringify(o)} is not an origin such as https://app.example (no path).`);
    allowed.add(origin);
  }
  return {
    // Browsers send the origin lower-cased; the exact string is echoed back, as the protocol asks.
    allow: (origin) => (typeof origin === "string" && allowed.has(origin) ? origin : null),
    varyOrigin: true,
  };
}

/**
 * HTTP statuses
 * =============
 * The one table that turns a `QuiverError` code into an HTTP status: the engine's codes (400 for the
 * caller's parameters, 404 for an entity the lookup does not find) and the codes only the HTTP layer
 * raises (401, 404, 405, 408, 414, 431, 500).
 * CONTRACT.md "Errors" is the source; 200, 204 and 304 are the answers that are not errors.
 *
 * The table is a `Record` over the closed code list, so adding a code to `ERROR_CODES` does not
 * compile until it has a status here (the Fastify habit: one table, no status decided inline).
 * Codes that only loading or snapshot reading can raise map to 500: if one ever reaches a request,
 * it is a bug of ours, not the caller's fault.
 */

import type { QuiverErrorCode } from "../engine/errors.js";

export const STATUS_OK = 200;
export const STATUS_NO_CONTENT = 204;
export const STATUS_NOT_MODIFIED = 304;
export const STATUS_BAD_REQUEST = 400;
export const STATUS_UNAUTHORIZED = 401;
export const STATUS_NOT_FOUND = 404;
export const STATUS_METHOD_NOT_ALLOWED = 405;
export const STATUS_FORBIDDEN = 403;
export const STATUS_CONFLICT = 409;
export const STATUS_CONTENT_TOO_LARGE = 413;
export const STATUS_SERVICE_UNAVAILABLE = 503;
export const STATUS_REQUEST_TIMEOUT = 408;
export const STATUS_URI_TOO_LONG = 414;
export const STATUS_HEADERS_TOO_LARGE = 431;
export const STATUS_INTERNAL_ERROR = 500;

export const STATUS_BY_CODE: Readonly<Record<QuiverErrorCode, number>> = {
  MISSING_PARAMETER: STATUS_BAD_REQUEST,
  EMPTY_PARAMETER: STATUS_BAD_REQUEST,
  REPEATED_PARAMETER: STATUS_BAD_REQUEST,
  UNKNOWN_PARAMETER: STATUS_BAD_REQUEST,
  INVALID_PARAMETER: STATUS_BAD_REQUEST,
  INVALID_LIMIT: STATUS_BAD_REQUEST,
  INVALID_TYPE: STATUS_BAD_REQUEST,
  QUERY_TOO_LONG: STATUS_BAD_REQUEST,
  INVALID_ENCODING: STATUS_BAD_REQUEST,
  INVALID_CURSOR: STATUS_BAD_REQUEST,
  CURSOR_ENDPOINT_MISMATCH: STATUS_BAD_REQUEST,
  CURSOR_QUERY_MISMATCH: STATUS_BAD_REQUEST,
  ENTITY_NOT_FOUND: STATUS_NOT_FOUND,
  // Loading and snapshots never run inside a request: reaching one here is our bug.
  INVALID_DATA: STATUS_INTERNAL_ERROR,
  DUPLICATE_ENTITY: STATUS_INTERNAL_ERROR,
  UNKNOWN_ENTITY: STATUS_INTERNAL_ERROR,
  FINGERPRINT_CONFLICT: STATUS_INTERNAL_ERROR,
  UNREADABLE_INPUT: STATUS_INTERNAL_ERROR,
  INVALID_SNAPSHOT: STATUS_INTERNAL_ERROR,
  INVALID_CHANGE: STATUS_BAD_REQUEST,
  CHANGE_CONFLICT: STATUS_CONFLICT,
  // The change log is opened when a server starts, never inside a request: reaching one here is our bug.
  INVALID_CHANGE_LOG: STATUS_INTERNAL_ERROR,
  CHANGE_LOG_LOCKED: STATUS_INTERNAL_ERROR,
  CHANGE_LOG_UNAVAILABLE: STATUS_SERVICE_UNAVAILABLE,
  WRITE_FORBIDDEN: STATUS_FORBIDDEN,
  CHANGES_TOO_LARGE: STATUS_CONTENT_TOO_LARGE,
  INVALID_CONTENT_TYPE: STATUS_BAD_REQUEST,
  API_KEY_MISSING: STATUS_UNAUTHORIZED,
  API_KEY_REJECTED: STATUS_UNAUTHORIZED,
  NOT_FOUND: STATUS_NOT_FOUND,
  METHOD_NOT_ALLOWED: STATUS_METHOD_NOT_ALLOWED,
  TARGET_TOO_LONG: STATUS_URI_TOO_LONG,
  HEADERS_TOO_LARGE: STATUS_HEADERS_TOO_LARGE,
  REQUEST_TIMEOUT: STATUS_REQUEST_TIMEOUT,
  MALFORMED_REQUEST: STATUS_BAD_REQUEST,
  UNKNOWN_METHOD: STATUS_BAD_REQUEST,
  INVALID_TARGET: STATUS_BAD_REQUEST,
  INVALID_HOST: STATUS_BAD_REQUEST,
  INTERNAL_ERROR: STATUS_INTERNAL_ERROR,
};

export function statusForCode(code: QuiverErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** The codes an HTTP client can see: every code whose status is not 500, and INTERNAL_ERROR itself. */
export const CLIENT_ERROR_CODES: readonly QuiverErrorCode[] = (Object.keys(STATUS_BY_CODE) as QuiverErrorCode[]).filter(
  (code) => STATUS_BY_CODE[code] !== STATUS_INTERNAL_ERROR || code === "INTERNAL_ERROR",
);

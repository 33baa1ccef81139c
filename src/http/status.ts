/**
 * HTTP statuses
 * =============
 * The one table that turns a `QuiverError` code into an HTTP status, and the statuses the adapter
 * answers on its own (401, 404, 405, 408, 414, 431, 500). CONTRACT.md "Errors" is the source.
 *
 * The table is a `Record` over the closed code list, so adding a code to `ERROR_CODES` does not
 * compile until it has a status here (the Fastify habit: one table, no status decided inline).
 * Codes that only loading or snapshot reading can raise map to 500: if one ever reaches a request,
 * it is a bug of ours, not the caller's fault.
 */

import type { QuiverErrorCode } from "../engine/errors.js";

export const STATUS_OK = 200;
export const STATUS_BAD_REQUEST = 400;
export const STATUS_UNAUTHORIZED = 401;
export const STATUS_NOT_FOUND = 404;
export const STATUS_METHOD_NOT_ALLOWED = 405;
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
  INVALID_ENCODING: STATUS_BAD_REQUEST,
  INVALID_CURSOR: STATUS_BAD_REQUEST,
  CURSOR_ENDPOINT_MISMATCH: STATUS_BAD_REQUEST,
  CURSOR_QUERY_MISMATCH: STATUS_BAD_REQUEST,
  // Loading and snapshots never run inside a request: reaching one here is our bug.
  INVALID_DATA: STATUS_INTERNAL_ERROR,
  DUPLICATE_ENTITY: STATUS_INTERNAL_ERROR,
  UNKNOWN_ENTITY: STATUS_INTERNAL_ERROR,
  FINGERPRINT_CONFLICT: STATUS_INTERNAL_ERROR,
  UNREADABLE_INPUT: STATUS_INTERNAL_ERROR,
  INVALID_SNAPSHOT: STATUS_INTERNAL_ERROR,
};

export function statusForCode(code: QuiverErrorCode): number {
  return STATUS_BY_CODE[code];
}

/**
 * Query parameter validation
 * ==========================
 * The engine's half of CONTRACT.md's parameter rules, for callers that pass JavaScript values
 * (embedders, and the HTTP adapter after it has parsed the query string). Every failure is a
 * QuiverError naming the parameter, with a sentence that says what is allowed.
 *
 * `limit` has one rule and one sentence for both callers: `checkLimit` for a number (the embedded
 * API), `limitFromText` for the digits of a query string (the HTTP adapter), both failing through
 * `invalidLimit`. Over HTTP the text is checked here once; the number it gives then passes
 * `checkLimit` by construction.
 */

import { QuiverError } from "./errors.js";
import { describeValue } from "./quote.js";
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  STATEMENTS_DEFAULT_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "./limits.js";
import { ENTITY_TYPES, type SearchOrder, type SearchParams, type StatementsParams } from "./types.js";

/** The one sentence for a bad limit, whether it came as a number or as query-string text. */
export function invalidLimit(got: unknown, max: number): QuiverError {
  return new QuiverError(
    "INVALID_LIMIT",
    `limit must be a whole number from 1 to ${max}, in plain digits (no sign, point, exponent or leading zero); ` +
      `got ${describeValue(got)}.`,
    { parameter: "limit" },
  );
}

export function checkLimit(value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) throw invalidLimit(value, max);
  return value;
}

/** `1`..`max` in plain decimal digits: one spelling per number (`20`, never `020`, `+20` or `2e1`). */
const DECIMAL_INTEGER = /^[1-9][0-9]{0,15}$/;

/** The limit a query string gives as text, as a number; the text itself is quoted when it is refused. */
export function limitFromText(text: string, max: number): number {
  // 16 digits at most: past 2^53 a number would be rounded before the range check.
  if (!DECIMAL_INTEGER.test(text)) throw invalidLimit(text, max);
  const limit = Number(text);
  if (limit > max) throw invalidLimit(text, max);
  return limit;
}

export function checkQuery(value: unknown, maxLength: number): string {
  if (value === undefined)
    throw new QuiverError("MISSING_PARAMETER", "q is required: give the text to search for in entity identifiers.", {
      parameter: "q",
    });
  if (typeof value !== "string")
    throw new QuiverError("INVALID_PARAMETER", `q must be a string; got ${describeValue(value)}.`, { parameter: "q" });
  if (value.length === 0)
    throw new QuiverError("EMPTY_PARAMETER", "q must not be empty: give at least one character to search for.", {
      parameter: "q",
    });
  if (value.length > maxLength) {
    throw new QuiverError(
      "QUERY_TOO_LONG",
      `q is ${value.length} characters long; it may be at most ${maxLength} (UTF-16 code units).`,
      { parameter: "q" },
    );
  }
  return value;
}

/** The type filter as a band number 0..7, or -1 when absent. */
export function checkType(value: unknown): number {
  if (value === undefined) return -1;
  if (value === "")
    throw new QuiverError("EMPTY_PARAMETER", 'type must not be empty: give one of "0" to "7", or leave it out.', {
      parameter: "type",
    });
  const i = typeof value === "string" ? (ENTITY_TYPES as readonly string[]).indexOf(value) : -1;
  if (i < 0)
    throw new QuiverError("INVALID_TYPE", `type must be one of "0" to "7"; got ${describeValue(value)}.`, {
      parameter: "type",
    });
  return i;
}

/**
 * An options or parameters object: a plain object, or undefined when `optional` (a call from plain
 * JavaScript may pass null, a string, an array). Throws INVALID_PARAMETER naming it.
 */
export function checkObject(value: unknown, name: string, optional: boolean): void {
  if (value === undefined && optional) return;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new QuiverError("INVALID_PARAMETER", `${name} must be an object; got ${describeValue(value)}.`, {
      parameter: name,
    });
}

/** A required string argument. Throws INVALID_PARAMETER naming it. */
export function checkString(value: unknown, name: string): string {
  if (typeof value !== "string")
    throw new QuiverError("INVALID_PARAMETER", `${name} must be a string; got ${describeValue(value)}.`, {
      parameter: name,
    });
  return value;
}

/** An optional non-empty string parameter (statement filters, cursors). */
export function checkOptionalText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string")
    throw new QuiverError("INVALID_PARAMETER", `${name} must be a string; got ${describeValue(value)}.`, {
      parameter: name,
    });
  if (value.length === 0)
    throw new QuiverError("EMPTY_PARAMETER", `${name} must not be empty; leave it out instead.`, { parameter: name });
  return value;
}

/** The search order: "name" (the default) or "score". */
export function checkOrder(value: unknown): SearchOrder {
  if (value === undefined) return "name";
  if (value === "name" || value === "score") return value;
  if (value === "")
    throw new QuiverError("EMPTY_PARAMETER", 'order must not be empty: give "name" or "score", or leave it out.', {
      parameter: "order",
    });
  throw new QuiverError("INVALID_PARAMETER", `order must be "name" or "score"; got ${describeValue(value)}.`, {
    parameter: "order",
  });
}

/** Whether a page must carry its total: a boolean, false when absent. */
export function checkCount(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value === "boolean") return value;
  throw new QuiverError("INVALID_PARAMETER", `count must be true or false; got ${describeValue(value)}.`, {
    parameter: "count",
  });
}

/** A search's parameters, checked: the type as its number (-1 for any). */
export interface CheckedSearch {
  q: string;
  type: number;
  limit: number;
  cursor: string | undefined;
  order: SearchOrder;
  count: boolean;
}

/**
 * Checks a search's parameters in one order (q, type, limit, cursor, order, count), so every kind of
 * graph (Graph, LiveGraph) refuses the same request with the same error.
 */
export function checkSearchParams(params: SearchParams): CheckedSearch {
  return {
    q: checkQuery(params?.q, SEARCH_MAX_QUERY_LENGTH),
    type: checkType(params.type),
    limit: checkLimit(params.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT),
    cursor: checkOptionalText(params.cursor, "cursor"),
    order: checkOrder(params.order),
    count: checkCount(params.count),
  };
}

/** A statements query's parameters, checked (an absent filter is undefined). */
export interface CheckedStatements {
  s: string | undefined;
  p: string | undefined;
  o: string | undefined;
  limit: number;
  cursor: string | undefined;
  count: boolean;
}

/** Checks a statements query's parameters in one order, for every kind of graph (as checkSearchParams). */
export function checkStatementsParams(params: StatementsParams): CheckedStatements {
  checkObject(params, "the statements parameters", false);
  return {
    s: checkOptionalText(params.subjectEntityId, "subjectEntityId"),
    p: checkOptionalText(params.predicateEntityId, "predicateEntityId"),
    o: checkOptionalText(params.objectEntityId, "objectEntityId"),
    limit: checkLimit(params.limit, STATEMENTS_DEFAULT_LIMIT, STATEMENTS_MAX_LIMIT),
    cursor: checkOptionalText(params.cursor, "cursor"),
    count: checkCount(params.count),
  };
}

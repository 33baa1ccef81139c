/**
 * Request limits
 * ==============
 * Every tunable bound on a query, named once. The numbers are CONTRACT.md's.
 */

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
/** Longest q, in UTF-16 code units after URL decoding. */
export const SEARCH_MAX_QUERY_LENGTH = 256;

export const STATEMENTS_DEFAULT_LIMIT = 50;
export const STATEMENTS_MAX_LIMIT = 200;

/**
 * Limits
 * ======
 * Every tunable bound on a query and on an input item, named once. The numbers are CONTRACT.md's.
 */

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
/** Longest q, in UTF-16 code units after URL decoding. */
export const SEARCH_MAX_QUERY_LENGTH = 256;

export const STATEMENTS_DEFAULT_LIMIT = 50;
export const STATEMENTS_MAX_LIMIT = 200;

// Input fields, in bytes of UTF-8 (CONTRACT.md "Data model"). They keep every cursor short: a cursor
// carries at most three entityIds and a fingerprint, or a rawIdentifier and an entityId.

/** entityId: 1 to 512 bytes. */
export const ENTITY_ID_MAX_BYTES = 512;
/** rawIdentifier: 0 to 1,024 bytes. */
export const RAW_IDENTIFIER_MAX_BYTES = 1024;
/** sourceType: 0 to 256 bytes. */
export const SOURCE_TYPE_MAX_BYTES = 256;
/** statementFingerprint, when given: 1 to 128 bytes. */
export const STATEMENT_FINGERPRINT_MAX_BYTES = 128;

/**
 * Longest nextCursor, in characters, for data within the limits above (CONTRACT.md "Paging"). The
 * longest the engine can issue is a statements cursor, 2,302 characters (cursor.ts says how); a
 * longer string is refused before its MAC is computed.
 */
export const CURSOR_MAX_LENGTH = 4096;

/** An entity's score: a whole number from 0 to 4,294,967,295 (2^32 - 1). */
export const MAX_SCORE = 0xffff_ffff;

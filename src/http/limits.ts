/**
 * Adapter limits
 * ==============
 * Every tunable bound of the HTTP adapter and server, named once. The request-target limit is
 * CONTRACT.md's (414); the timeouts guard against slow clients (slowloris) without cutting off a
 * real one on a bad network.
 */

/** Longest request target (path and query string), in bytes; longer answers 414. */
export const MAX_REQUEST_TARGET_BYTES = 8192;

/**
 * node's bound on the request line plus all headers (its own default). Past it node's parser stops;
 * server.ts answers 414 when the request line alone is what overflowed, 431 otherwise.
 */
export const MAX_HEADER_BYTES = 16384;

/** A client must send its complete headers within this time. */
export const HEADERS_TIMEOUT_MS = 10_000;

/** A client must send its complete request within this time (GET requests carry no body). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** How often node checks connections against the two timeouts above (its default, 30 s, is too lax). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** An idle keep-alive connection is closed after this time. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** On SIGTERM, requests still in flight after this time are cut off so the process can exit. */
export const DRAIN_TIMEOUT_MS = 10_000;

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

/**
 * After an answer to a request node's parser refused (400, 408, 414, 431), the client has this long
 * to close its side; then the connection is cut. Without it a client that never closes (or never
 * reads) would hold a half-closed socket, and its file descriptor, forever.
 */
export const CLIENT_ERROR_LINGER_MS = 1_000;

/**
 * Connections the kernel may queue before the server accepts them (capped by net.core.somaxconn).
 * node's default, 511, overflows under a burst of connections: a SYN past it is dropped and the
 * client retries after a second, so even /healthz would wait that long.
 */
export const LISTEN_BACKLOG = 4096;

/** On SIGTERM, requests still in flight after this time are cut off so the process can exit. */
export const DRAIN_TIMEOUT_MS = 10_000;

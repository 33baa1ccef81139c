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
 * The contract's bound on a request head (request line and headers): over it, 414 when the target
 * alone passes MAX_REQUEST_TARGET_BYTES, else 431, before the key is looked at (router.ts).
 */
export const MAX_HEAD_BYTES = 16384;

/**
 * node's own bound, set higher than the contract's so that node reads heads up to this size whole,
 * in however many TCP segments they come, and the router classifies them with the request line in
 * hand (of a head node cannot read, the adapter sees only the read in which node gave up). Below
 * the 64 KB node reads at a time, so a head that arrives at once, whatever its size, overflows in
 * its first read, which holds the request line. What a slow client can make a connection hold is
 * bounded by it (SECURITY.md).
 */
export const PARSER_MAX_HEADER_BYTES = 60 * 1024;

/** A client must send its complete headers within this time. */
export const HEADERS_TIMEOUT_MS = 10_000;

/** A client must send its complete request within this time (GET requests carry no body). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** How often node checks connections against the two timeouts above (its default, 30 s, is too lax). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** An idle keep-alive connection is closed after this time. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * A request node's parser refused for its method alone (a method HTTP registers that node does not
 * know, such as UPDATE) is read on by the adapter until its head is complete, for at most this long.
 */
export const UNREAD_HEAD_TIMEOUT_MS = 10_000;

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

/**
 * Largest body of a change batch (POST /graph/v1/changes): 16 MiB, about 100,000 statement lines.
 * A larger body gets 413 without being held: a Content-Length over it is refused before a byte is
 * read, a chunked body as soon as it passes it.
 */
export const MAX_CHANGE_BODY_BYTES = 16 * 1024 * 1024;

/** `Retry-After` of a 503 when the change log cannot take a batch (full disk, read-only log). */
export const CHANGE_RETRY_AFTER_SECONDS = 5;

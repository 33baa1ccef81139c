/**
 * Quiver errors
 * =============
 * One error class, `QuiverError`, for every input error (a bad request parameter, a bad cursor, a bad
 * data line, a bad snapshot file), with a closed table of codes. The HTTP adapter maps each code to a
 * status in one table (`src/http/status.ts`); the engine never knows about statuses. The same codes
 * reach HTTP clients beside the sentence (`{"error": "...", "code": "INVALID_LIMIT"}`), so a program
 * can branch on the code while a person reads the sentence; the table also holds the codes only the
 * HTTP layer raises (a missing key, an unknown path, a request node's parser cannot read), so that
 * one closed list names every answer a client can get.
 *
 * A broken invariant inside Quiver (a bug, not bad input) stays a plain `Error`, so it is never
 * mistaken for the caller's fault and the adapter answers 500 for it.
 */

/** Every input-error code, with what it means. Closed: add a row here before throwing a new code. */
export const ERROR_CODES = {
  // request parameters (engine and adapter)
  MISSING_PARAMETER: "a required parameter is absent",
  EMPTY_PARAMETER: "a parameter is present but empty",
  REPEATED_PARAMETER: "a parameter is given more than once",
  UNKNOWN_PARAMETER: "a parameter the endpoint does not define",
  INVALID_PARAMETER: "a parameter or option of the wrong kind or value, where no finer code applies",
  INVALID_LIMIT: "limit is not a whole number in range (1 to 100 for search, 1 to 200 for statements)",
  INVALID_TYPE: 'type is not one of "0" to "7"',
  QUERY_TOO_LONG: "q is longer than 256 UTF-16 code units",
  INVALID_ENCODING: "the query string is not valid percent-encoded UTF-8",
  // cursors
  INVALID_CURSOR: "a cursor that is malformed, truncated or altered",
  CURSOR_ENDPOINT_MISMATCH: "a cursor issued by the other endpoint",
  CURSOR_QUERY_MISMATCH: "a cursor issued for other parameters",
  // lookups
  ENTITY_NOT_FOUND: "a lookup by an entityId the graph does not have",
  // data loading
  INVALID_DATA: "a data line or object that breaks the input format",
  DUPLICATE_ENTITY: "an entityId given twice",
  UNKNOWN_ENTITY: "a statement naming an entity that is not in the graph",
  FINGERPRINT_CONFLICT: "two different statements with one fingerprint",
  UNREADABLE_INPUT: "an input file that is missing, a directory, or cannot be read",
  // snapshots
  INVALID_SNAPSHOT: "a snapshot file that is truncated, corrupted, foreign or of another version",
  // live changes (CONTRACT.md "Changes")
  INVALID_CHANGE: "a change line that is not one of the four kinds, or breaks a rule of the input format",
  CHANGE_CONFLICT:
    "a change batch that cannot apply to the graph as it stands (a statement naming an unknown or removed entity, a fingerprint used by another statement)",
  INVALID_CHANGE_LOG: "a change log directory whose batch files are missing, out of order, corrupted or foreign",
  CHANGE_LOG_LOCKED: "a change log directory that another live writer holds",
  CHANGE_LOG_UNAVAILABLE:
    "a change batch the change log could not take (the disk is full or the log not writable); nothing was applied",
  // the HTTP layer: the request as a whole, before or instead of its parameters
  API_KEY_MISSING: "no X-API-Key header on a data endpoint",
  API_KEY_REJECTED: "an X-API-Key that is not one of the accepted keys",
  NOT_FOUND: "a path the API does not have",
  METHOD_NOT_ALLOWED: "a method other than GET or HEAD (or a CORS preflight) on a known path",
  TARGET_TOO_LONG: "a request target longer than 8,192 bytes",
  HEADERS_TOO_LARGE: "a request head over 16 KB whose target is not what made it long",
  REQUEST_TIMEOUT: "the request head or body did not arrive in time",
  MALFORMED_REQUEST: "bytes that are not an HTTP/1.x request (a bad request line, header or framing)",
  UNKNOWN_METHOD: "a method name that HTTP does not register",
  INVALID_TARGET: "a request target with a byte that must be percent-encoded",
  INVALID_HOST: "an HTTP/1.1 request without exactly one Host header",
  WRITE_FORBIDDEN: "an accepted X-API-Key without the right to write, on POST /graph/v1/changes",
  CHANGES_TOO_LARGE: "a change batch body over the server's limit",
  INVALID_CONTENT_TYPE: "a change batch whose Content-Type is not application/x-ndjson",
  INTERNAL_ERROR: "an unexpected fault of the server; the sentence is fixed and says nothing of it",
} as const;

/** A code of {@link ERROR_CODES}: what kind of input was wrong. */
export type QuiverErrorCode = keyof typeof ERROR_CODES;

/** Where in an input file a bad item came from. */
export interface SourcePosition {
  file: string;
  line: number;
}

/**
 * The one error Quiver throws for bad input: a request parameter, a cursor, a data line, a snapshot
 * file. `message` is a sentence a person can act on; `code` is from the closed table
 * {@link ERROR_CODES}, the same code an HTTP client gets in `{"error", "code"}`.
 */
export class QuiverError extends Error {
  override readonly name = "QuiverError";
  /** What kind of input was wrong, for a program to branch on. */
  readonly code: QuiverErrorCode;
  /** The request parameter at fault, when there is one (the adapter names it in its answer). */
  readonly parameter: string | undefined;
  /** The file and line at fault, for data errors. */
  readonly source: SourcePosition | undefined;

  constructor(
    code: QuiverErrorCode,
    message: string,
    details: { parameter?: string; source?: SourcePosition; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.parameter = details.parameter;
    this.source = details.source;
  }
}

/** A data error that names its file and line in the message, as `file:line: reason`. */
export function dataError(code: QuiverErrorCode, reason: string, source?: SourcePosition): QuiverError {
  const where = source === undefined ? "" : `${source.file}:${source.line}: `;
  return new QuiverError(code, `${where}${reason}`, source === undefined ? {} : { source });
}

/** Whether `e` is a {@link QuiverError} (bad input), as opposed to any other error. */
export function isQuiverError(e: unknown): e is QuiverError {
  return e instanceof QuiverError;
}

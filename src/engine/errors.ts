/**
 * Quiver errors
 * =============
 * One error class, `QuiverError`, for every input error (a bad request parameter, a bad cursor, a bad
 * data line, a bad snapshot file), with a closed table of codes. The HTTP adapter maps each code to a
 * status in one table (`src/http/status.ts`); the engine never knows about statuses.
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
  INVALID_PARAMETER: "a parameter is malformed or out of range",
  INVALID_ENCODING: "the query string is not valid percent-encoded UTF-8",
  // cursors
  INVALID_CURSOR: "a cursor that is malformed, truncated or altered",
  CURSOR_ENDPOINT_MISMATCH: "a cursor issued by the other endpoint",
  CURSOR_QUERY_MISMATCH: "a cursor issued for other parameters",
  // data loading
  INVALID_DATA: "a data line or object that breaks the input format",
  DUPLICATE_ENTITY: "an entityId given twice",
  UNKNOWN_ENTITY: "a statement naming an entity that is not in the graph",
  FINGERPRINT_CONFLICT: "two different statements with one fingerprint",
  UNREADABLE_INPUT: "an input file that is missing, a directory, or cannot be read",
  // snapshots
  INVALID_SNAPSHOT: "a snapshot file that is truncated, corrupted, foreign or of another version",
} as const;

export type QuiverErrorCode = keyof typeof ERROR_CODES;

/** Where in an input file a bad item came from. */
export interface SourcePosition {
  file: string;
  line: number;
}

export class QuiverError extends Error {
  override readonly name = "QuiverError";
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

export function isQuiverError(e: unknown): e is QuiverError {
  return e instanceof QuiverError;
}

/**
 * Request ids
 * ===========
 * Every answer carries `X-Request-Id`, and the request log and the error reporter name it, so a
 * client's complaint, a log line and a stack trace can be matched. A client's own id (or a proxy's)
 * is passed through when it is short and printable (MAX_REQUEST_ID_CHARS characters of visible
 * ASCII, no space: safe in a header, a log line and a terminal); anything else is replaced by one of
 * ours. Ours are a random prefix per process and a decimal counter (`k3Jd9xQa-1042`): unique across
 * processes and restarts with overwhelming odds, and cheap to make (no random bytes per request;
 * a decimal string of a small integer is V8's cheapest number-to-string).
 */

import { randomBytes } from "node:crypto";

export const REQUEST_ID_HEADER = "x-request-id";
/** Longest client id passed through; longer ones are replaced. */
export const MAX_REQUEST_ID_CHARS = 128;

const PRINTABLE = /^[\x21-\x7e]+$/;
const PREFIX = `${randomBytes(6).toString("base64url")}-`;
let counter = 0;

/** The id of a request: the client's when usable, else a new one. */
export function requestIdOf(header: string | readonly string[] | undefined): string {
  if (typeof header === "string" && header.length <= MAX_REQUEST_ID_CHARS && PRINTABLE.test(header)) return header;
  return newRequestId();
}

/** A new id, for requests that carry none we can use (or that could not be read at all). */
export function newRequestId(): string {
  counter = counter === Number.MAX_SAFE_INTEGER ? 1 : counter + 1;
  return PREFIX + counter;
}

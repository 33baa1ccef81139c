/**
 * Reading a request head from bytes
 * =================================
 * For the one kind of request the node adapter must read itself: a method that HTTP registers but
 * node's parser (llhttp) does not know (BASELINE-CONTROL, CHECKIN, LABEL, MKREDIRECTREF, MKWORKSPACE,
 * ORDERPATCH, UNCHECKOUT, UPDATE, UPDATEREDIRECTREF, VERSION-CONTROL, and PRI outside the HTTP/2
 * preface). node gives up at the method; the contract still wants 401 first on the data endpoints
 * and 405 elsewhere, so the head is read here and handed to the router like any other.
 *
 * Strict, RFC 9112 section 2 to 5: a request line `method SP target SP HTTP/1.0|1.1`, lines ended
 * by CRLF, header lines `name ":" OWS value OWS` with a token name and a value of visible ASCII,
 * space, tab or obs-text; no obs-fold, no bare LF or CR. Anything else is malformed (400). Header
 * names are lower-cased and repeats joined with ", " (as node does for headers it does not know).
 * Cost: one pass over at most PARSER_MAX_HEADER_BYTES; this path is rare by construction.
 */

const CRLF_CRLF = Buffer.from("\r\n\r\n");
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TARGET = /^[\x21-\x7e]+$/;
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface RawHead {
  method: string;
  target: string;
  /** Minor version of HTTP/1.x. */
  minor: 0 | 1;
  /** Lower-case names; repeats joined with ", ". */
  headers: Record<string, string>;
  /** How many Host headers the head holds (the Host rule needs the count, not the joined value). */
  hosts: number;
  /** Bytes of the head, the final CRLF included. */
  bytes: number;
}

/** Where the head in `bytes` ends (after its CRLF CRLF), or -1 while it is incomplete. */
export function headEnd(bytes: Buffer): number {
  const at = bytes.indexOf(CRLF_CRLF);
  return at === -1 ? -1 : at + 4;
}

/** The head at the start of `bytes`, or null when it is not a well-formed HTTP/1.x request head. */
export function parseRawHead(bytes: Buffer): RawHead | null {
  const end = headEnd(bytes);
  if (end === -1) return null;
  // latin1: one character per byte, so obs-text survives and lengths are byte counts.
  const lines = bytes
    .subarray(0, end - 4)
    .toString("latin1")
    .split("\r\n");
  const line = /^([^ ]+) ([^ ]+) HTTP\/1\.([01])$/.exec(lines[0] ?? "");
  if (line === null || !TOKEN.test(line[1] as string) || !TARGET.test(line[2] as string)) return null;
  const headers: Record<string, string> = Object.create(null);
  let hosts = 0;
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i] as string;
    const colon = text.indexOf(":");
    if (colon <= 0 || text.includes("\r") || text.includes("\n")) return null;
    const name = text.slice(0, colon);
    const value = text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!TOKEN.test(name) || !VALUE.test(value)) return null;
    const key = name.toLowerCase();
    if (key === "host") hosts++;
    const previous = headers[key];
    headers[key] = previous === undefined ? value : `${previous}, ${value}`;
  }
  return {
    method: line[1] as string,
    target: line[2] as string,
    minor: line[3] === "0" ? 0 : 1,
    headers,
    hosts,
    bytes: end,
  };
}

/** Longest method name waited for; every registered one is shorter (VERSION-CONTROL, 15). */
const MAX_METHOD_CHARS = 32;

/** What the first bytes of a request say of its method. */
export type LeadingToken = { kind: "token"; token: string } | { kind: "incomplete" } | { kind: "bad" };

/** The method token `bytes` starts with (up to its first space), or whether more bytes could still make one. */
export function leadingToken(bytes: Buffer): LeadingToken {
  const limit = Math.min(bytes.length, MAX_METHOD_CHARS + 1);
  for (let i = 0; i < limit; i++) {
    const c = bytes[i] as number;
    if (c === 0x20) return i === 0 ? { kind: "bad" } : { kind: "token", token: bytes.toString("latin1", 0, i) };
    if (!IS_TCHAR[c]) return { kind: "bad" };
  }
  return bytes.length > MAX_METHOD_CHARS ? { kind: "bad" } : { kind: "incomplete" };
}

/** tchar (RFC 9110 section 5.6.2) by byte value. */
const IS_TCHAR: readonly boolean[] = Array.from({ length: 256 }, (_, c) => TOKEN.test(String.fromCharCode(c)));

/** True when `bytes` starts like a request line: a method, a space, then a target's first character. */
export function startsRequestLine(bytes: Buffer): boolean {
  const lead = leadingToken(bytes);
  if (lead.kind !== "token") return false;
  const next = bytes[lead.token.length + 1];
  // origin-form "/", absolute-form (a scheme's first letter), asterisk-form "*".
  return next === 0x2f || next === 0x2a || (next !== undefined && (next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a);
}

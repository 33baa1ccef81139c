/**
 * Keyset cursors
 * ==============
 * A cursor carries the sort key of the last item of a page (never an offset), the endpoint it
 * belongs to and a tag of the query it was issued for, sealed with an HMAC so it cannot be altered.
 * Because it holds keys (strings), it resumes at the right place on a rebuilt graph, a graph where
 * items were added or removed, or a replica that shares the secret.
 *
 * Layout, then base64url (RFC 4648 section 5, no padding; only [A-Za-z0-9_-]):
 *
 *   version u8 | endpoint u8 | extra u8 | query tag 8 bytes | parts... | HMAC-SHA256 truncated to 16 bytes
 *
 * where each part is a string as (varint byte length, UTF-16LE code units: UTF-8 would turn a lone
 * surrogate, which JSON input may carry, into U+FFFD and resume at the wrong place) and `extra` is a small integer
 * (the search tier). The query tag is FNV-1a 64 of the query's parameters (not of `limit`); it needs
 * no cryptographic strength because the HMAC covers it. Decoding checks, in order: the alphabet and
 * canonical base64url, the length, the MAC (altered, truncated or foreign cursors end here:
 * INVALID_CURSOR), the version, then the endpoint (CURSOR_ENDPOINT_MISMATCH) and the tag
 * (CURSOR_QUERY_MISMATCH), so each failure gets its own code.
 *
 * Cost: one HMAC (about 2 us here) per encode and per decode, linear in the cursor's length. The
 * codec remembers the cursors it issued lately (an LRU of ISSUED_CURSOR_CACHE_SIZE): the request for
 * the next page hands one back, and a string equal to one this codec sealed is authentic, so its
 * HMAC is not computed again; anything else, altered cursors included, takes the full check. The
 * length grows only with the item's identifiers, and is not capped here: every cursor the engine
 * issues must open again. (The HTTP adapter's 8,192-byte request-target limit caps what arrives.) Reference: RFC 2104 (HMAC), RFC 4648 (base64url).
 */

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { LRUCache } from "mnemonist";
import { QuiverError } from "./errors.js";
import { hash64, type Hash64 } from "./hash64.js";

const VERSION = 1;
const HEADER_BYTES = 11;
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Cursors remembered per codec (a few hundred bytes each), so a walk's next page skips one HMAC. */
const ISSUED_CURSOR_CACHE_SIZE = 4096;

export const ENDPOINT_SEARCH = 1;
export const ENDPOINT_STATEMENTS = 2;
export type Endpoint = typeof ENDPOINT_SEARCH | typeof ENDPOINT_STATEMENTS;

/** The endpoint kinds as error sentences name them (the engine knows kinds, never paths). */
const ENDPOINT_NAMES: Record<Endpoint, string> = {
  [ENDPOINT_SEARCH]: "the search endpoint",
  [ENDPOINT_STATEMENTS]: "the statements endpoint",
};

/** What a cursor carries once it has been checked. */
export interface CursorContent {
  readonly extra: number;
  readonly parts: readonly string[];
}

/** An issued cursor as the cache keeps it: its binding and its content. */
interface IssuedCursor {
  endpoint: Endpoint;
  tagHi: number;
  tagLo: number;
  content: CursorContent;
}

/** A per-process secret for embedders that pass none: cursors then live as long as the process. */
let processSecret: Uint8Array | undefined;

export function defaultCursorSecret(): Uint8Array {
  processSecret ??= randomBytes(32);
  return processSecret;
}

export function toSecretBytes(secret: string | Uint8Array | undefined): Uint8Array {
  if (secret === undefined) return defaultCursorSecret();
  const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  if (bytes.length === 0)
    throw new QuiverError("INVALID_PARAMETER", "The cursor secret must not be empty.", { parameter: "cursorSecret" });
  return bytes;
}

/** The tag that binds a cursor to its query's parameters. */
export function queryTag(parts: readonly string[]): Hash64 {
  return hash64(parts);
}

export class CursorCodec {
  private readonly secret: Uint8Array;
  private readonly issued = new LRUCache<string, IssuedCursor>(ISSUED_CURSOR_CACHE_SIZE);

  constructor(secret: Uint8Array) {
    this.secret = secret;
  }

  encode(endpoint: Endpoint, tag: Hash64, extra: number, parts: readonly string[]): string {
    const encoded = parts.map((p) => Buffer.from(p, "utf16le"));
    let size = HEADER_BYTES + MAC_BYTES;
    for (const b of encoded) size += varintLength(b.length) + b.length;
    const buf = Buffer.allocUnsafe(size);
    buf[0] = VERSION;
    buf[1] = endpoint;
    buf[2] = extra;
    buf.writeUInt32BE(tag[0], 3);
    buf.writeUInt32BE(tag[1], 7);
    let at = HEADER_BYTES;
    for (const b of encoded) {
      at = writeVarint(buf, at, b.length);
      b.copy(buf, at);
      at += b.length;
    }
    this.mac(buf.subarray(0, at)).copy(buf, at, 0, MAC_BYTES);
    const cursor = buf.toString("base64url");
    const content: CursorContent = Object.freeze({ extra, parts: Object.freeze(parts.slice()) });
    this.issued.set(cursor, { endpoint, tagHi: tag[0], tagLo: tag[1], content });
    return cursor;
  }

  /** Checks and opens a cursor issued for `endpoint` and the query `tag`. Throws QuiverError. */
  decode(cursor: string, endpoint: Endpoint, tag: Hash64): CursorContent {
    const issued = this.issued.get(cursor);
    if (issued !== undefined) {
      // Sealed by this codec: authentic without a second HMAC; its binding is still checked.
      checkBinding(issued.endpoint, issued.tagHi, issued.tagLo, endpoint, tag);
      return issued.content;
    }
    const bad = (why: string): QuiverError =>
      new QuiverError(
        "INVALID_CURSOR",
        `The cursor is not valid (${why}); pass the nextCursor of an earlier response unchanged, or leave cursor out to start from the first page.`,
        { parameter: "cursor" },
      );
    if (!BASE64URL.test(cursor)) throw bad("it is not a cursor this service issued");
    const buf = Buffer.from(cursor, "base64url");
    if (buf.toString("base64url") !== cursor || buf.length < HEADER_BYTES + MAC_BYTES)
      throw bad("it is truncated or malformed");
    const body = buf.subarray(0, buf.length - MAC_BYTES);
    const mac = buf.subarray(buf.length - MAC_BYTES);
    if (!timingSafeEqual(this.mac(body).subarray(0, MAC_BYTES), mac))
      throw bad("it was altered, truncated, or issued with another secret");
    if (buf[0] !== VERSION) throw bad("it comes from another version of this service");
    checkBinding(buf[1] as Endpoint, buf.readUInt32BE(3), buf.readUInt32BE(7), endpoint, tag);
    const parts: string[] = [];
    let at = HEADER_BYTES;
    while (at < body.length) {
      let len = 0;
      let shift = 0;
      for (;;) {
        // The MAC already vouches for the bytes, so a bad varint here is a broken invariant.
        const b = body[at++];
        if (b === undefined || shift > 28) throw new Error("cursor: corrupt part length behind a valid MAC");
        len += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (b < 0x80) break;
      }
      if (at + len > body.length || len % 2 !== 0) throw new Error("cursor: part overruns the body behind a valid MAC");
      parts.push(body.toString("utf16le", at, at + len));
      at += len;
    }
    return { extra: buf[2] as number, parts };
  }

  private mac(body: Uint8Array): Buffer {
    return createHmac("sha256", this.secret).update(body).digest();
  }
}

/** Throws unless a cursor sealed for (issuedFor, tagHi, tagLo) is used with `endpoint` and `tag`. */
function checkBinding(issuedFor: Endpoint, tagHi: number, tagLo: number, endpoint: Endpoint, tag: Hash64): void {
  if (issuedFor !== endpoint) {
    const name = ENDPOINT_NAMES[issuedFor] ?? "another endpoint";
    throw new QuiverError(
      "CURSOR_ENDPOINT_MISMATCH",
      `The cursor was issued by ${name}, not by ${ENDPOINT_NAMES[endpoint]}; use it only with the endpoint that returned it.`,
      { parameter: "cursor" },
    );
  }
  if (tagHi !== tag[0] || tagLo !== tag[1]) {
    throw new QuiverError(
      "CURSOR_QUERY_MISMATCH",
      "The cursor was issued for other parameters; repeat the query with the same parameters as the page that returned it (only limit may change).",
      { parameter: "cursor" },
    );
  }
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[at++] = n;
  return at;
}

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
 * where `extra` is a small integer (the search tier) and each part is a string as a varint header
 * (byte length x 2, plus 1 when the part is UTF-16LE) and its bytes: UTF-8, since every string of a
 * graph is well-formed Unicode (GraphBuilder refuses a lone surrogate); UTF-16LE only for a part that
 * is not, so even such a string would resume at its exact place rather than at U+FFFD's. The query
 * tag is FNV-1a 64 of the query's parameters (not of `limit`); it needs no cryptographic strength
 * because the HMAC covers it. Decoding checks, in order: the length (at most CURSOR_MAX_LENGTH), the
 * alphabet and canonical base64url, the MAC (altered, truncated or foreign cursors end here:
 * INVALID_CURSOR), the version, then the endpoint (CURSOR_ENDPOINT_MISMATCH) and the tag
 * (CURSOR_QUERY_MISMATCH), so each failure gets its own code.
 *
 * Length: the parts are what graph.ts puts in: a search cursor holds the last item's rawIdentifier
 * (at most 1,024 bytes), entityId (512) and position hint (25), a statements cursor three entityIds,
 * the fingerprint and the hint (3 x 512 + 128 + 25). With 11 header bytes, 16 of MAC and at most a
 * 2-byte header per part, the longest body is 1,726 bytes: 2,302 characters of base64url, under CURSOR_MAX_LENGTH (4,096) for any data within
 * the limits of limits.ts, so the request that sends it back fits an 8,192-byte target.
 *
 * Cost: one HMAC-SHA256 (hmac.ts, node:crypto) per encode and per decode, linear in the cursor's
 * length but mostly its fixed cost for cursors this short (about 1.5 µs, `npm run bench:cursor-mac`). Decoding reads the text once
 * (base64url.ts: alphabet, canonical form and bytes in one pass) and makes a part a string only when
 * the graph asks for it. The codec remembers the cursors it issued lately in a byte-weighted LRU
 * (byte-lru.ts) whose budget is the graph's `cacheBytes`: the request for the next page hands one
 * back, and a string equal to one this codec sealed is authentic, so its HMAC is not computed again;
 * anything else, altered cursors included, takes the full check. Each entry is charged the bytes it
 * holds (the cursor string, its parts as if the cache owned them, though they are usually the graph's
 * own strings, and ENTRY_OVERHEAD_BYTES of objects): an upper bound, so the budget bounds the memory.
 * Cursors whose entry would be over CACHED_CURSOR_MAX_BYTES are not remembered: a hit saves the same
 * one HMAC whatever the length, so a long entry buys the least per byte held.
 *
 * References: RFC 2104 (HMAC), RFC 4648 (base64url).
 */

import { randomBytes } from "node:crypto";
import { decodeBase64Url, decodedBytes, NOT_BASE64URL } from "./base64url.js";
import { ByteLru } from "./byte-lru.js";
import { QuiverError } from "../errors.js";
import { hash64, type Hash64 } from "../hash64.js";
import { HmacSha256 } from "./hmac.js";
import { CURSOR_MAX_LENGTH } from "../limits.js";
import type { FoldMode } from "../search/fold.js";
import type { SearchOrder } from "../types.js";
import { isWellFormed } from "../utf8.js";

const VERSION = 2;
const HEADER_BYTES = 11;
const MAC_BYTES = 16;
/** Low bit of a part's header: the part is UTF-16LE, not UTF-8. */
const UTF16_FLAG = 1;
/**
 * What one remembered cursor costs beyond its strings: the Map's slot, the LRU's slot object, the
 * IssuedCursor and CursorContent objects and the parts array. Measured on Node 20, x64: 60,000
 * cursors of 95 characters kept 432 bytes each, about 290 of them objects (`npm run build && node
 * --expose-gc dist/test/support/cursor-memory.js
 * '{"statements":60000,"idBytes":8,"rawBytes":8,"cacheBytes":1073741824}'`: growthBytes / pages).
 */
const ENTRY_OVERHEAD_BYTES = 320;
/** A string's own header in V8's heap, charged once per string. */
const STRING_HEADER_BYTES = 16;
/** The encoder's scratch buffer to start with: room for any cursor of data within limits.ts. */
const SCRATCH_BYTES = 8192;
/** A part's varint header, at most (lengths below 2^34). */
const MAX_HEADER_BYTES = 5;
/** Largest remembered entry: about a 1,000-character key. Longer cursors are checked by HMAC again. */
export const CACHED_CURSOR_MAX_BYTES = 4096;

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
  /** How many parts it carries. */
  readonly count: number;
  /** Part i, 0 <= i < count. */
  part(i: number): string;
  /** Every part, in order. */
  readonly parts: readonly string[];
  /**
   * What the issuer attached to the cursor when it sealed it (`encode`'s `attachment`), when this
   * codec issued it and still remembers it; else undefined. Never in the cursor's text.
   */
  readonly attachment: object | undefined;
}

/** An issued cursor's content, as the cache keeps it: the parts it was sealed with, and the attachment. */
class IssuedContent implements CursorContent {
  readonly count: number;
  constructor(
    readonly extra: number,
    readonly parts: readonly string[],
    readonly attachment: object | undefined,
  ) {
    this.count = parts.length;
  }

  part(i: number): string {
    return this.parts[i]!;
  }
}

/**
 * A presented cursor's content: its checked bytes, each part made a string only when asked. A page
 * that resumes at its position hint reads one part of five (the graph reads the others only to
 * place the key on other content), and each string made is an allocation and a UTF-8 decode.
 */
class PresentedContent implements CursorContent {
  constructor(
    readonly extra: number,
    private readonly bytes: Buffer,
    /** Per part: where its bytes start and end, and 1 when UTF-16LE (else UTF-8). */
    private readonly bounds: readonly number[],
  ) {}

  get count(): number {
    return this.bounds.length / 3;
  }

  part(i: number): string {
    const b = this.bounds;
    return this.bytes.toString(b[3 * i + 2] === 1 ? "utf16le" : "utf8", b[3 * i]!, b[3 * i + 1]!);
  }

  get parts(): readonly string[] {
    return Array.from({ length: this.count }, (_, i) => this.part(i));
  }

  /** A presented cursor brings only its text. */
  get attachment(): undefined {
    return undefined;
  }
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

/** Throws QuiverError INVALID_PARAMETER unless `bytes` is absent or a whole number of bytes >= 0. */
export function checkCacheBytes(bytes: number | undefined): void {
  if (bytes === undefined) return;
  if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 0)
    throw new QuiverError(
      "INVALID_PARAMETER",
      `The cache budget must be a whole number of bytes, 0 or more; got ${String(bytes)}.`,
      { parameter: "cacheBytes" },
    );
}

/** The tag that binds a cursor to its query's parameters. */
export function queryTag(parts: readonly string[]): Hash64 {
  return hash64(parts);
}

/**
 * The tag of a search: its query, its type (-1: none), its order and the graph's folding. The
 * defaults (order "name", fold "case") add no part, so those cursors keep the tag they always had;
 * another folding adds one, so a cursor of one folding never matches a graph of the other
 * (CONTRACT.md "Case and Unicode").
 */
export function searchQueryTag(q: string, type: number, order: SearchOrder, fold: FoldMode): Hash64 {
  const parts = ["search", q, type < 0 ? "" : String(type)];
  if (order !== "name") parts.push(`order=${order}`);
  if (fold !== "case") parts.push(`fold=${fold}`);
  return hash64(parts);
}

/**
 * The tag of a statements query: its filters (absent ones as "": a given filter is never empty, so
 * the two cannot be confused) and, as for search, the graph's folding when it is not "case" (the
 * contract binds every cursor to its folding, though the statements' order does not depend on it).
 */
export function statementsQueryTag(
  s: string | undefined,
  p: string | undefined,
  o: string | undefined,
  fold: FoldMode,
): Hash64 {
  const parts = ["statements", s ?? "", p ?? "", o ?? ""];
  if (fold !== "case") parts.push(`fold=${fold}`);
  return hash64(parts);
}

export class CursorCodec {
  private readonly hmac: HmacSha256;
  private readonly issued: ByteLru<string, IssuedCursor>;
  /** Where encode writes a cursor's bytes (grown for a longer one; reused: encode is synchronous). */
  private scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

  /** `cacheBytes`: what the cache of issued cursors may hold (0: no cache). */
  constructor(secret: Uint8Array, cacheBytes: number) {
    this.hmac = new HmacSha256(secret);
    this.issued = new ByteLru(cacheBytes, Math.min(CACHED_CURSOR_MAX_BYTES, cacheBytes));
  }

  /** Bytes charged for the cursors remembered now (at most the budget). */
  get cachedBytes(): number {
    return this.issued.bytes;
  }

  /**
   * Seals a cursor. `attachment` (with the bytes it holds, `attachmentBytes`) is kept with the
   * cursor in the cache of issued cursors, never in its text: the issuer gets it back from `decode`
   * when the same cursor comes back while the cache still holds it (search keeps the query's bounds
   * there, graph.ts), and must do without it otherwise.
   */
  encode(
    endpoint: Endpoint,
    tag: Hash64,
    extra: number,
    parts: readonly string[],
    attachment?: object,
    attachmentBytes = 0,
  ): string {
    // Written in place into one scratch buffer (no buffer per part): the header, each part behind
    // its varint header, then the MAC; then one base64url encoding of the whole.
    let buf = this.scratch;
    let need = HEADER_BYTES + MAC_BYTES;
    // At most 3 bytes of UTF-8 (or 2 of UTF-16LE) a code unit, and MAX_HEADER_BYTES a part.
    for (const p of parts) need += 3 * p.length + MAX_HEADER_BYTES;
    if (need > buf.length) buf = this.scratch = Buffer.allocUnsafe(2 * need);
    buf[0] = VERSION;
    buf[1] = endpoint;
    buf[2] = extra;
    buf.writeUInt32BE(tag[0], 3);
    buf.writeUInt32BE(tag[1], 7);
    let at = HEADER_BYTES;
    for (const part of parts) at = writePart(buf, at, part);
    const macAt = at;
    this.hmac.macInto(buf, macAt, buf, macAt, MAC_BYTES);
    const cursor = buf.toString("base64url", 0, macAt + MAC_BYTES);
    // Shared by every decode of this cursor: read-only by type, not frozen (freezing would cost every
    // encode two more calls for a guarantee the types already give).
    const content: CursorContent = new IssuedContent(extra, parts.slice(), attachment);
    let bytes = ENTRY_OVERHEAD_BYTES + STRING_HEADER_BYTES + cursor.length + attachmentBytes;
    // Charged as two bytes a code unit, as if the codec owned them (they are usually the graph's own).
    for (const p of parts) bytes += STRING_HEADER_BYTES + 2 * p.length;
    this.issued.set(cursor, { endpoint, tagHi: tag[0], tagLo: tag[1], content }, bytes);
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
    // Longer than any cursor issued for data within the limits: refused before any decoding or MAC.
    if (cursor.length > CURSOR_MAX_LENGTH) throw bad(`it is longer than ${CURSOR_MAX_LENGTH} characters`);
    if (cursor.length === 0) throw bad("it is not a cursor this service issued");
    // Decoded with the alphabet and canonical form checked in one pass, into a buffer the content
    // keeps (its parts are read from it later).
    const buf = Buffer.allocUnsafe(decodedBytes(cursor.length));
    const length = decodeBase64Url(cursor, buf);
    if (length === NOT_BASE64URL) throw bad("it is not a cursor this service issued");
    if (length < HEADER_BYTES + MAC_BYTES) throw bad("it is truncated or malformed");
    const bodyLength = length - MAC_BYTES;
    if (!this.hmac.verify(buf, bodyLength, buf, bodyLength, MAC_BYTES))
      throw bad("it was altered, truncated, or issued with another secret");
    if (buf[0] !== VERSION) throw bad("it comes from another version of this service");
    checkBinding(buf[1] as Endpoint, buf.readUInt32BE(3), buf.readUInt32BE(7), endpoint, tag);
    const bounds: number[] = [];
    let at = HEADER_BYTES;
    while (at < bodyLength) {
      let header = 0;
      let shift = 0;
      for (;;) {
        // A bad varint behind a valid MAC: a body made by whoever holds the secret (a weak secret
        // can be guessed from one cursor), never by this codec. A bad cursor, not a fault.
        const b = at < bodyLength ? buf[at++]! : undefined;
        if (b === undefined || shift > 28) throw bad("it is malformed");
        header += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (b < 0x80) break;
      }
      const utf16 = (header & UTF16_FLAG) !== 0;
      const len = Math.floor(header / 2);
      if (at + len > bodyLength || (utf16 && len % 2 !== 0)) throw bad("it is malformed");
      bounds.push(at, at + len, utf16 ? 1 : 0);
      at += len;
    }
    return new PresentedContent(buf[2] as number, buf, bounds);
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
      "The cursor was issued for other parameters; repeat the query with the same parameters as the page that returned it (only limit and count may change).",
      { parameter: "cursor" },
    );
  }
}

/**
 * Writes `part` at `at` behind its varint header (byte length x 2, plus UTF16_FLAG for UTF-16LE);
 * returns where the next part goes. `buf` has room for MAX_HEADER_BYTES and 3 bytes a code unit.
 */
function writePart(buf: Buffer, at: number, part: string): number {
  // UTF-8 for a well-formed part (every string of a graph); UTF-16LE keeps any other one exact.
  const utf16 = !isWellFormed(part);
  const encoding = utf16 ? "utf16le" : "utf8";
  // The header's length depends on the byte length, known only once written: room is left for the
  // longest header the part can need, and the bytes moved back when it needs less.
  const most = (utf16 ? 2 : 3) * part.length;
  const room = varintLength(2 * most + UTF16_FLAG);
  const written = buf.write(part, at + room, encoding);
  const header = 2 * written + (utf16 ? UTF16_FLAG : 0);
  const used = varintLength(header);
  if (used < room) buf.copyWithin(at + used, at + room, at + room + written);
  writeVarint(buf, at, header);
  return at + used + written;
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

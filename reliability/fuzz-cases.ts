/**
 * Fuzz cases and the reference oracle
 * ===================================
 * `makeCase(context, seed, index)` turns (seed, index) into one request, as raw bytes, and what the
 * contract says must come back. A case depends on nothing but its seed, its index and a context
 * fixed before the run (words, ids and a book of real cursors), so any case can be replayed alone.
 *
 * Generators (weighted; each a function of a seeded PRNG, mulberry32): valid searches and
 * statements, the same with 1 to 3 mutations (parameters dropped, repeated, emptied, renamed,
 * huge, odd types), bad percent-encoding and bad UTF-8, encoded control characters and Unicode
 * edge cases, cursors (real, bit-flipped, truncated, extended, of another query or endpoint,
 * random), API keys right and wrong, odd methods, paths, headers and HTTP versions, targets and
 * headers up to and past the limits, raw control and non-ASCII bytes, and mutated or garbage bytes.
 *
 * The oracle is a second, deliberately independent reading of CONTRACT.md: it parses the query
 * string with `split` and `decodeURIComponent` (whose UTF-8 decoding rejects exactly what the
 * contract calls malformed: truncated, overlong and surrogate sequences), not with src/http/params.ts,
 * and knows a cursor is valid only when it is one the book recorded for the same endpoint and the
 * same q/type or filters. For a well-formed request it names the one status the server must give,
 * in the contract's order: what comes before any key (a head over 16 KB: 414 when the target alone
 * passes 8,192 bytes, 431 otherwise; a method name HTTP does not register: 400; not one Host in
 * HTTP/1.1: 400), then on the data endpoints the key (401), the target length (414), the path
 * (404; an absolute-form target is its path), the method (405, registered methods node's parser
 * does not know included), the parameters (400), then `If-None-Match: *` (304), else 200 with the
 * engine call whose page must come back byte for byte. For bytes whose fate depends on node's
 * parser (mutated requests, garbage) it names the set of acceptable statuses, and whether closing
 * without an answer is acceptable.
 */

import http from "node:http";
import type { EntityType } from "../src/engine/types.js";
import { mulberry32 } from "../tools/prng.js";

// ---- seeded randomness -------------------------------------------------------------------------

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: a tiny, fast, well-mixed 32-bit generator; enough for test inputs, not for secrets. */
export function rng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    pick: <T>(items: readonly T[]) => items[int(items.length)] as T,
    chance: (p) => next() < p,
  };
}

/** The PRNG of case `index` in run `seed`: independent of every other case. */
export function caseRng(seed: number, index: number): Rng {
  const r = rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  r.next(); // discard the first output, which correlates with the seed mixing
  return r;
}

// ---- the contract, as the oracle reads it -------------------------------------------------------

export const SEARCH_PATH = "/graph/v1/search";
export const STATEMENTS_PATH = "/graph/v1/statements";
export const HEALTH_PATH = "/healthz";
export const OPENAPI_PATH = "/graph/v1/openapi.json";
const KNOWN_PATHS = new Set([SEARCH_PATH, STATEMENTS_PATH, HEALTH_PATH, OPENAPI_PATH]);
const SEARCH_NAMES = ["q", "type", "limit", "cursor"] as const;
const STATEMENT_NAMES = ["subjectEntityId", "predicateEntityId", "objectEntityId", "limit", "cursor"] as const;
const FILTERS = ["subjectEntityId", "predicateEntityId", "objectEntityId"] as const;
export const MAX_TARGET_BYTES = 8192;
export const MAX_Q_UNITS = 256;
export const SEARCH_MAX_LIMIT = 100;
export const STATEMENTS_MAX_LIMIT = 200;
/** The contract's bound on a request head (request line and headers). */
export const MAX_HEAD_BYTES = 16384;
/** node's own limit in the server (60 KB): past it, a head that arrived in pieces may lose its 414 (a known edge). */
export const PARSER_HEAD_BYTES = 61440;
/** Around MAX_HEAD_BYTES the exact count (whitespace around header values) decides; the oracle accepts either side. */
const HEAD_SLACK = 64;

/** Every status the contract's table (and the server's HTTP-level answers) allows. 500 is not here: never a 5xx. */
export const CONTRACT_STATUSES: readonly number[] = [200, 304, 400, 401, 404, 405, 408, 414, 431];

/**
 * The IANA HTTP Method Registry (RFC 9110, RFC 7237 and later), copied here rather than imported:
 * a registered method gets 405 (401 first on the data endpoints) even where node's parser does not
 * know it; a method that is neither registered nor known to node gets 400.
 */
export const IANA_METHODS: readonly string[] = [
  "ACL",
  "BASELINE-CONTROL",
  "BIND",
  "CHECKIN",
  "CHECKOUT",
  "CONNECT",
  "COPY",
  "DELETE",
  "GET",
  "HEAD",
  "LABEL",
  "LINK",
  "LOCK",
  "MERGE",
  "MKACTIVITY",
  "MKCALENDAR",
  "MKCOL",
  "MKREDIRECTREF",
  "MKWORKSPACE",
  "MOVE",
  "OPTIONS",
  "ORDERPATCH",
  "PATCH",
  "POST",
  "PRI",
  "PROPFIND",
  "PROPPATCH",
  "PUT",
  "QUERY",
  "REBIND",
  "REPORT",
  "SEARCH",
  "TRACE",
  "UNBIND",
  "UNCHECKOUT",
  "UNLINK",
  "UNLOCK",
  "UPDATE",
  "UPDATEREDIRECTREF",
  "VERSION-CONTROL",
];

/** The registered methods node's parser refuses (the server reads them itself). */
export const UNREAD_METHODS: readonly string[] = IANA_METHODS.filter((m) => !http.METHODS.includes(m));

/** The path of a target: origin-form as it is, absolute-form without scheme and authority (RFC 9112 section 3.2.2). */
export function pathOf(target: string): string {
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  const rest = absolute === null ? target : target.slice(absolute[0].length);
  const path = rest.split("?")[0] as string;
  return absolute !== null && !path.startsWith("/") ? "/" : path;
}

export type Endpoint = "search" | "statements";

/** The engine call a 200 must be the page of. */
export type EngineCall =
  | { endpoint: "search"; params: { q: string; type?: EntityType; limit?: number; cursor?: string } }
  | {
      endpoint: "statements";
      params: {
        subjectEntityId?: string;
        predicateEntityId?: string;
        objectEntityId?: string;
        limit?: number;
        cursor?: string;
      };
    };

export type Expectation =
  /** Exactly this status; for a 200 of a data endpoint, the page of `call`; of a public path, its body. */
  | { kind: "exact"; status: number; call?: EngineCall; publicPath?: string }
  /** One of these statuses, or (when `mayClose`) the connection closed without an answer. */
  | { kind: "oneOf"; statuses: readonly number[]; mayClose: boolean };

export interface CursorEntry {
  cursor: string;
  endpoint: Endpoint;
  /** The decoded parameters that bind it (q and type, or the filters); limit is not among them. */
  params: Record<string, string>;
}

/** Real cursors, recorded with the query that issued them. */
export class CursorBook {
  readonly entries: CursorEntry[] = [];
  private readonly byCursor = new Map<string, CursorEntry>();

  add(entry: CursorEntry): void {
    if (this.byCursor.has(entry.cursor)) return;
    this.byCursor.set(entry.cursor, entry);
    this.entries.push(entry);
  }

  /** True when `cursor` was issued for this endpoint and these binding parameters. */
  accepts(cursor: string, endpoint: Endpoint, params: Record<string, string>): boolean {
    const e = this.byCursor.get(cursor);
    return e !== undefined && e.endpoint === endpoint && identity(endpoint, e.params) === identity(endpoint, params);
  }

  get size(): number {
    return this.entries.length;
  }
}

/** What binds a cursor: the endpoint and its parameters other than limit and cursor. */
export function identity(endpoint: Endpoint, params: Record<string, string | undefined>): string {
  const names = endpoint === "search" ? ["q", "type"] : FILTERS;
  return [endpoint, ...names.map((n) => (params[n] === undefined ? "\u0000absent" : `=${params[n]}`))].join("\u0001");
}

/** Everything a case may draw on, fixed before the run. */
export interface FuzzContext {
  keys: readonly string[];
  /** Words and phrases to search for (from the graph's identifiers and the nasty corpus). */
  words: readonly string[];
  subjects: readonly string[];
  predicates: readonly string[];
  objects: readonly string[];
  book: CursorBook;
}

/** One request as the fuzzer builds it before it becomes bytes. */
export interface RequestSpec {
  method: string;
  target: string;
  version: string;
  /** Header lines in order; names and values as latin1 text (a char per byte). */
  headers: [string, string][];
  body?: string;
}

export interface FuzzCase {
  index: number;
  kind: string;
  bytes: Buffer;
  expect: Expectation;
  /** True when the request is HEAD (its answer has no body). */
  head: boolean;
  /** A GET /healthz pipelined behind the request on the same connection, to be answered if the connection stays open. */
  followUp: boolean;
  /** Half-close after writing, so node's parser sees the end of the stream. */
  endAfterWrite: boolean;
  /** Write the request in pieces of these sizes (as a real network's segments would bring it); empty: one write. */
  pieces: number[];
}

/**
 * The reference reading of a well-formed request. `fragmented`: the request arrives in several
 * reads. Past node's header limit the server tells a long request line (414) from long headers
 * (431) by the bytes of the read that overflowed, and node hands over only that last read: when the
 * request line came in several pieces, a too-long line can only be answered 431. (The contract's 414
 * for a long target holds whenever the request fits node's limit, which the handler checks itself.)
 */
export function oracle(spec: RequestSpec, ctx: Pick<FuzzContext, "keys" | "book">, fragmented = false): Expectation {
  // Before any key: a method name nobody registers (node cannot read it either).
  if (!IANA_METHODS.includes(spec.method) && !http.METHODS.includes(spec.method)) return { kind: "exact", status: 400 };
  // Then the head's size: over 16 KB, 414 when the target alone passes 8,192 bytes, else 431.
  const requestLine = `${spec.method} ${spec.target} ${spec.version}`;
  const headBytes =
    requestLine.length + 2 + spec.headers.reduce((n, [k, v]) => n + k.length + v.trim().length + 4, 0) + 2;
  const overflow = Buffer.byteLength(spec.target, "latin1") > MAX_TARGET_BYTES ? 414 : 431;
  if (headBytes > MAX_HEAD_BYTES + HEAD_SLACK) {
    // Past node's own limit, a head in pieces may be read from its last piece alone (README "Known edges").
    if (fragmented && headBytes > PARSER_HEAD_BYTES - HEAD_SLACK)
      return { kind: "oneOf", statuses: [414, 431], mayClose: false };
    return { kind: "exact", status: overflow };
  }
  const inner = handlerOracle(spec, ctx);
  if (headBytes > MAX_HEAD_BYTES - HEAD_SLACK) {
    const statuses = new Set<number>([overflow]);
    if (inner.kind === "exact") statuses.add(inner.status);
    else for (const s of inner.statuses) statuses.add(s);
    return { kind: "oneOf", statuses: [...statuses], mayClose: false };
  }
  return inner;
}

function handlerOracle(spec: RequestSpec, ctx: Pick<FuzzContext, "keys" | "book">): Expectation {
  const hosts = spec.headers.filter(([n]) => n.toLowerCase() === "host").length;
  // RFC 9112 section 3.2: exactly one Host in HTTP/1.1, never two in any version.
  if (spec.version === "HTTP/1.1" ? hosts !== 1 : hosts > 1) return { kind: "exact", status: 400 };
  // A raw "#" (a fragment never reaches a server): 400 INVALID_TARGET, before the key.
  if (spec.target.includes("#")) return { kind: "exact", status: 400 };
  const target = spec.target;
  const path = pathOf(target);
  const mark = target.indexOf("?");
  const data = path === SEARCH_PATH || path === STATEMENTS_PATH;
  if (data && !keyAccepted(spec.headers, ctx.keys)) return { kind: "exact", status: 401 };
  if (Buffer.byteLength(target, "latin1") > MAX_TARGET_BYTES) return { kind: "exact", status: 414 };
  if (!KNOWN_PATHS.has(path)) return { kind: "exact", status: 404 };
  if (spec.method !== "GET" && spec.method !== "HEAD") return { kind: "exact", status: 405 };
  // If-None-Match: * names any current representation: 304 once the answer would be a 200 with a tag.
  const anyTag = spec.headers.some(
    ([n, v]) => n.toLowerCase() === "if-none-match" && v.split(",").some((t) => t.trim() === "*"),
  );
  if (!data)
    return path === OPENAPI_PATH && anyTag
      ? { kind: "exact", status: 304 }
      : { kind: "exact", status: 200, publicPath: path };
  const endpoint: Endpoint = path === SEARCH_PATH ? "search" : "statements";
  const call = referenceParams(mark === -1 ? "" : target.slice(mark + 1), endpoint, ctx.book);
  if (call === null) return { kind: "exact", status: 400 };
  return anyTag ? { kind: "exact", status: 304 } : { kind: "exact", status: 200, call };
}

/** Exactly one X-API-Key header (node joins repeats into one unusable value), equal after trimming. */
function keyAccepted(headers: readonly [string, string][], keys: readonly string[]): boolean {
  const values = headers
    .filter(([n]) => n.toLowerCase() === "x-api-key")
    .map(([, v]) => v.replace(/^[ \t]+|[ \t]+$/g, ""));
  return values.length === 1 && keys.includes(values[0]!);
}

/** The contract's parameter rules, read independently of src/http/params.ts. null means 400. */
export function referenceParams(query: string, endpoint: Endpoint, book: CursorBook): EngineCall | null {
  const allowed: readonly string[] = endpoint === "search" ? SEARCH_NAMES : STATEMENT_NAMES;
  const values: Record<string, string> = {};
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = strictDecode(eq === -1 ? pair : pair.slice(0, eq));
    if (name === null || !allowed.includes(name) || name in values) return null;
    const value = strictDecode(eq === -1 ? "" : pair.slice(eq + 1));
    if (value === null || value === "") return null;
    values[name] = value;
  }
  let limit: number | undefined;
  if (values["limit"] !== undefined) {
    if (!/^(?:0|[1-9][0-9]*)$/.test(values["limit"])) return null;
    limit = Number(values["limit"]);
    if (limit < 1 || limit > (endpoint === "search" ? SEARCH_MAX_LIMIT : STATEMENTS_MAX_LIMIT)) return null;
  }
  const cursor = values["cursor"];
  if (endpoint === "search") {
    const q = values["q"];
    if (q === undefined || q.length > MAX_Q_UNITS) return null;
    const type = values["type"] as EntityType | undefined;
    if (type !== undefined && !/^[0-7]$/.test(type)) return null;
    if (cursor !== undefined && !book.accepts(cursor, "search", values)) return null;
    return {
      endpoint,
      params: {
        q,
        ...(type === undefined ? {} : { type }),
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
      },
    };
  }
  if (cursor !== undefined && !book.accepts(cursor, "statements", values)) return null;
  const params: Record<string, string | number> = {};
  for (const f of FILTERS) if (values[f] !== undefined) params[f] = values[f];
  if (limit !== undefined) params["limit"] = limit;
  if (cursor !== undefined) params["cursor"] = cursor;
  return { endpoint, params } as EngineCall;
}

/** `+` is a space; then strict percent-decoding of UTF-8 (URIError on anything malformed). */
function strictDecode(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

// ---- building requests -------------------------------------------------------------------------

export function serialize(spec: RequestSpec): Buffer {
  let head = `${spec.method} ${spec.target} ${spec.version}\r\n`;
  for (const [name, value] of spec.headers) head += `${name}: ${value}\r\n`;
  head += "\r\n";
  return Buffer.from(head + (spec.body ?? ""), "latin1");
}

/** A query string as an ordered list of raw (still encoded) pairs; `value: null` is a pair without "=". */
interface Pair {
  name: string;
  value: string | null;
}

const joinPairs = (pairs: readonly Pair[]): string =>
  pairs.map((p) => (p.value === null ? p.name : `${p.name}=${p.value}`)).join("&");

/** Percent-encodes text the ways a client may: `+` or %20 for a space, either hex case, letters over-encoded. */
function encode(r: Rng, text: string): string {
  let s = encodeURIComponent(text);
  if (r.chance(0.3)) s = s.replace(/%20/g, "+");
  if (r.chance(0.2)) s = s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  if (r.chance(0.1))
    s = s.replace(/[a-z]/g, (c) => (r.chance(0.3) ? "%" + c.charCodeAt(0).toString(16).toUpperCase() : c));
  return s;
}

function baseHeaders(r: Rng, ctx: FuzzContext, withKey = true): [string, string][] {
  const headers: [string, string][] = [["Host", r.chance(0.8) ? "127.0.0.1" : "quiver.test:8080"]];
  if (withKey) headers.push([r.pick(["X-API-Key", "x-api-key", "X-Api-Key", "X-API-KEY"]), r.pick(ctx.keys)]);
  if (r.chance(0.1))
    headers.push(["Accept", r.pick(["*/*", "text/html", "application/xml", "application/json;q=0.1"])]);
  if (r.chance(0.05)) headers.push(["Accept-Encoding", "gzip, br"]);
  if (r.chance(0.05)) headers.push(["User-Agent", "quiver-fuzz/1 \u00e9\u00ff"]);
  return shuffle(r, headers);
}

function shuffle<T>(r: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function get(r: Rng, ctx: FuzzContext, target: string): RequestSpec {
  return { method: r.chance(0.1) ? "HEAD" : "GET", target, version: "HTTP/1.1", headers: baseHeaders(r, ctx) };
}

// ---- value pools -------------------------------------------------------------------------------

/** Characters a random string is drawn from, by block: ASCII, Latin-1, Greek, CJK, astral, marks, specials. */
const BLOCKS: readonly (readonly [number, number])[] = [
  [0x20, 0x7e],
  [0x20, 0x7e],
  [0xa0, 0xff],
  [0x370, 0x3ff],
  [0x4e00, 0x4e80],
  [0x1f600, 0x1f64f],
  [0x1d400, 0x1d4ff],
  [0x300, 0x36f],
  [0x0, 0x1f],
  [0x7f, 0x9f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0xfe00, 0xfe0f],
  [0xfff0, 0xffff],
  [0x10fff0, 0x10ffff],
];

function randomText(r: Rng, length: number): string {
  let s = "";
  while (s.length < length) {
    const [lo, hi] = r.pick(BLOCKS);
    s += String.fromCodePoint(r.range(lo, hi));
  }
  return s;
}

/** A string of exactly `units` UTF-16 code units, astral characters included when `units` allows. */
function textOfUnits(r: Rng, units: number): string {
  let s = "";
  while (s.length < units) {
    const astral = units - s.length >= 2 && r.chance(0.3);
    s += astral ? String.fromCodePoint(r.range(0x1f600, 0x1f64f)) : String.fromCharCode(r.range(0x61, 0x7a));
  }
  return s;
}

/** Unicode edge cases, percent-encoded correctly: all valid, all must be served. */
const EDGE_TEXT: readonly string[] = [
  "\u0000",
  "\u0001",
  "\n",
  "\r\n",
  "\u007f",
  "\u0085",
  "\ufeff",
  "\ufeffmarked",
  "\u200d",
  "\u202e",
  "\u2028",
  "\u2029",
  "\uffff",
  "\ufffe",
  "\ufffd",
  "\u{10ffff}",
  "😀",
  "🏳️‍🌈",
  "e\u0301",
  "Z̵̡̢a̸",
  "ß",
  "STRASSE",
  "İ",
  "ı",
  "ΟΔΟΣ",
  "ς",
  "ﬁ",
  "ＦＵＬＬ",
  "ǅ",
  "ﷺ",
  "ẞ",
  "ŉ",
  "ΐ",
  "ĳ",
  "%41",
  "%",
  "+",
  "&",
  "=",
  "?",
  "#",
  " ",
  "  ",
  "\t",
  "<script>",
  "\"'\\",
  "sk_",
];

/** Bad encodings: every one must be refused with 400. */
const BAD_ENCODINGS: readonly string[] = [
  "%",
  "%4",
  "%G1",
  "%%41",
  "abc%",
  "%2",
  "%-1",
  "%+1",
  "%C3",
  "%FF",
  "%FE",
  "%80",
  "%BF",
  "%C0%AF",
  "%C1%81",
  "%E0%80%AF",
  "%ED%A0%80",
  "%ED%BF%BF",
  "%ED%A0%BD%ED%B8%80",
  "%F4%90%80%80",
  "%F5%80%80%80",
  "%F8%88%80%80%80",
  "%C3%28",
  "%E2%82",
  "%E2%28%A1",
  "%F0%9F%98",
  "%F0%28%8C%28",
  "%C2",
  "%E0%A0",
];

const ODD_LIMITS: readonly string[] = [
  "0",
  "-1",
  "-0",
  "101",
  "201",
  "1.5",
  "1.0",
  "1e2",
  "0x10",
  "%201",
  "1%20",
  "+1",
  "%2B1",
  "01",
  "007",
  "%D9%A1",
  "%EF%BC%92",
  "NaN",
  "Infinity",
  "true",
  "null",
  "[]",
  "{}",
  "1,2",
  "1;2",
  "99999999999999999999",
  "9007199254740993",
  "4294967297",
  "%00",
  "1%00",
];

/** Values as sent (already percent-encoded): Arabic-Indic and full-width digits are %D9%A0 and %EF%BC%90. */
const ODD_TYPES: readonly string[] = [
  "8",
  "9",
  "00",
  "01",
  "a",
  "-1",
  "%D9%A0",
  "%200",
  "0%20",
  "0.0",
  "%00",
  "null",
  "%EF%BC%90",
];

const UNKNOWN_NAMES: readonly string[] = [
  "Q",
  "query",
  "qq",
  "q%00",
  "q%20",
  "q+",
  "%20q",
  "LIMIT",
  "Limit",
  "cursor[]",
  "q[]",
  "type[0]",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "%",
  "%ZZ",
  "%C3",
  "",
  "subject",
  "s",
  "p",
  "o",
];

// ---- generators --------------------------------------------------------------------------------

interface Draft {
  kind: string;
  spec?: RequestSpec;
  /** Raw bytes instead of a spec (mutated or garbage requests), with the acceptable outcomes. */
  raw?: { bytes: Buffer; expect: Expectation; head?: boolean };
  followUp?: boolean;
  endAfterWrite?: boolean;
}

type Generator = (r: Rng, ctx: FuzzContext) => Draft;

function searchPairs(r: Rng, ctx: FuzzContext): Pair[] {
  // A third of the time: a query a real cursor was issued for, with that cursor.
  const entries = ctx.book.entries.filter((e) => e.endpoint === "search");
  if (entries.length > 0 && r.chance(0.3)) {
    const e = r.pick(entries);
    const pairs: Pair[] = [
      { name: "q", value: encode(r, e.params["q"]!) },
      { name: "cursor", value: e.cursor },
    ];
    if (e.params["type"] !== undefined) pairs.push({ name: "type", value: e.params["type"] });
    if (r.chance(0.6)) pairs.push({ name: "limit", value: String(r.pick([1, 2, 3, 5, 20, 100, r.range(1, 100)])) });
    return shuffle(r, pairs);
  }
  const q = r.chance(0.6)
    ? r.pick(ctx.words)
    : r.chance(0.5)
      ? randomText(r, r.range(1, 12))
      : r.chance(0.5)
        ? r.pick(EDGE_TEXT)
        : textOfUnits(r, r.pick([1, 2, 255, 256]));
  const pairs: Pair[] = [{ name: "q", value: encode(r, q.length > MAX_Q_UNITS ? q.slice(0, MAX_Q_UNITS) : q) }];
  if (r.chance(0.3)) pairs.push({ name: "type", value: String(r.int(8)) });
  if (r.chance(0.5)) pairs.push({ name: "limit", value: String(r.pick([1, 100, r.range(1, 100)])) });
  return shuffle(r, pairs);
}

function statementPairs(r: Rng, ctx: FuzzContext): Pair[] {
  const entries = ctx.book.entries.filter((e) => e.endpoint === "statements");
  if (entries.length > 0 && r.chance(0.3)) {
    const e = r.pick(entries);
    const pairs: Pair[] = [{ name: "cursor", value: e.cursor }];
    for (const f of FILTERS) if (e.params[f] !== undefined) pairs.push({ name: f, value: encode(r, e.params[f]) });
    if (r.chance(0.6)) pairs.push({ name: "limit", value: String(r.pick([1, 2, 7, 50, 200, r.range(1, 200)])) });
    return shuffle(r, pairs);
  }
  const pairs: Pair[] = [];
  const pools = { subjectEntityId: ctx.subjects, predicateEntityId: ctx.predicates, objectEntityId: ctx.objects };
  for (const f of FILTERS) {
    if (!r.chance(0.35)) continue;
    const id = r.chance(0.9) ? r.pick(pools[f]) : r.chance(0.5) ? randomText(r, r.range(1, 10)) : r.pick(EDGE_TEXT);
    pairs.push({ name: f, value: encode(r, id) });
  }
  if (r.chance(0.5)) pairs.push({ name: "limit", value: String(r.pick([1, 200, r.range(1, 200)])) });
  return shuffle(r, pairs);
}

function target(path: string, pairs: readonly Pair[], r: Rng): string {
  const query = joinPairs(pairs);
  if (query === "") return r.chance(0.2) ? `${path}?` : path;
  return `${path}?${query}`;
}

const validSearch: Generator = (r, ctx) => ({
  kind: "search",
  spec: get(r, ctx, target(SEARCH_PATH, searchPairs(r, ctx), r)),
  followUp: r.chance(0.3),
});

const validStatements: Generator = (r, ctx) => ({
  kind: "statements",
  spec: get(r, ctx, target(STATEMENTS_PATH, statementPairs(r, ctx), r)),
  followUp: r.chance(0.3),
});

/** One change to a list of pairs: what a careless or hostile client sends. */
function mutatePairs(r: Rng, pairs: Pair[], endpoint: Endpoint): void {
  const names = endpoint === "search" ? SEARCH_NAMES : STATEMENT_NAMES;
  const other = endpoint === "search" ? STATEMENT_NAMES : SEARCH_NAMES;
  const at = () => r.int(Math.max(1, pairs.length));
  switch (r.int(12)) {
    case 0: // drop one
      if (pairs.length > 0) pairs.splice(at(), 1);
      break;
    case 1: {
      // repeat one, same or other value
      const p = pairs[at()];
      if (p !== undefined)
        pairs.splice(r.int(pairs.length + 1), 0, {
          name: r.chance(0.3) ? p.name.toUpperCase() : p.name,
          value: r.chance(0.5) ? p.value : "x",
        });
      break;
    }
    case 2: {
      // empty value, or no "=" at all
      const p = pairs[at()];
      if (p !== undefined) p.value = r.chance(0.5) ? "" : null;
      break;
    }
    case 3: {
      // rename: unknown, other endpoint's, other case, encoded (which is still the same name)
      const p = pairs[at()];
      if (p === undefined) break;
      const choice = r.int(4);
      if (choice === 0) p.name = r.pick(UNKNOWN_NAMES);
      else if (choice === 1) p.name = r.pick(other);
      else if (choice === 2) p.name = p.name.toUpperCase();
      else p.name = p.name.replace(/[a-z]/, (c) => "%" + c.charCodeAt(0).toString(16));
      break;
    }
    case 4: // huge q or filter: around and far past the 256-unit bound, and past the target limit
      pairs.push({
        name: endpoint === "search" ? "q" : r.pick(FILTERS),
        value: encode(r, textOfUnits(r, r.pick([255, 256, 257, 300, 1000, 3000]))),
      });
      break;
    case 5:
      pairs.push({ name: "limit", value: r.pick(ODD_LIMITS) });
      break;
    case 6:
      pairs.push({ name: "type", value: r.pick(ODD_TYPES) });
      break;
    case 7: // empty pairs, leading and trailing "&"
      pairs.splice(r.int(pairs.length + 1), 0, { name: "", value: null });
      break;
    case 8: {
      // "=" or "#" or "?" inside a value
      const p = pairs[at()];
      if (p !== undefined) p.value = (p.value ?? "") + r.pick(["=", "==x", "#frag", "?x=1", "%3D", ";"]);
      break;
    }
    case 9: // an empty name
      pairs.push({ name: "", value: "x" });
      break;
    case 10: // a parameter the endpoint does know, with a value out of range
      pairs.push({ name: r.pick(names), value: r.pick([...ODD_LIMITS, ...ODD_TYPES]) });
      break;
    default: {
      // swap two
      if (pairs.length > 1) {
        const i = at();
        const j = at();
        [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
      }
    }
  }
}

const mutatedSearch: Generator = (r, ctx) => {
  const pairs = searchPairs(r, ctx);
  for (let n = r.range(1, 3); n > 0; n--) mutatePairs(r, pairs, "search");
  return { kind: "search-mutated", spec: get(r, ctx, target(SEARCH_PATH, pairs, r)), followUp: r.chance(0.3) };
};

const mutatedStatements: Generator = (r, ctx) => {
  const pairs = statementPairs(r, ctx);
  for (let n = r.range(1, 3); n > 0; n--) mutatePairs(r, pairs, "statements");
  return { kind: "statements-mutated", spec: get(r, ctx, target(STATEMENTS_PATH, pairs, r)), followUp: r.chance(0.3) };
};

/** Bad percent-encoding or UTF-8 in a name or value; or valid encodings of control and edge characters. */
const encodings: Generator = (r, ctx) => {
  const searching = r.chance(0.6);
  const pairs = searching ? searchPairs(r, ctx) : statementPairs(r, ctx);
  const bad = r.chance(0.7);
  const piece = bad ? r.pick(BAD_ENCODINGS) : encodeURIComponent(r.pick(EDGE_TEXT));
  const where = r.int(3);
  const name = searching ? "q" : r.pick(FILTERS);
  const existing = pairs.find((p) => p.name === name);
  if (where === 2 && bad) pairs.push({ name: r.chance(0.5) ? name + piece : piece, value: "x" });
  else if (existing !== undefined)
    existing.value = where === 0 ? piece + (existing.value ?? "") : (existing.value ?? "") + piece;
  else pairs.push({ name, value: piece });
  return {
    kind: bad ? "encoding-bad" : "encoding-edge",
    spec: get(r, ctx, target(searching ? SEARCH_PATH : STATEMENTS_PATH, pairs, r)),
    followUp: r.chance(0.3),
  };
};

/** Cursors: real ones on their own query, altered ones, and ones of other queries and endpoints. */
const cursors: Generator = (r, ctx) => {
  if (ctx.book.size === 0) return validSearch(r, ctx);
  const entry = r.pick(ctx.book.entries);
  const other = r.pick(ctx.book.entries);
  let cursor = entry.cursor;
  let how: string;
  const bytes = Buffer.from(cursor, "base64url");
  switch (r.int(12)) {
    case 0: {
      const i = r.int(bytes.length);
      bytes[i] = bytes[i]! ^ (1 << r.int(8));
      cursor = bytes.toString("base64url");
      how = "bit-flip";
      break;
    }
    case 1: {
      const i = r.int(cursor.length);
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      cursor = cursor.slice(0, i) + alphabet[r.int(alphabet.length)] + cursor.slice(i + 1);
      how = "char";
      break;
    }
    case 2:
      cursor = cursor.slice(0, r.int(cursor.length));
      how = "truncated";
      break;
    case 3:
      cursor = cursor + r.pick(["A", "AA", "AAAA", "=", "%3D", cursor]);
      how = "extended";
      break;
    case 4:
      cursor = other.cursor;
      how = "other-query";
      break;
    case 5: {
      const n = r.pick([0, 1, 2, 3, 4, 11, 27, 28, 40, 100, 400]);
      let s = "";
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      for (let i = 0; i < n; i++) s += alphabet[r.int(alphabet.length)];
      cursor = s === "" ? "A" : s;
      how = "random";
      break;
    }
    case 6:
      cursor = cursor.replace(/[a-zA-Z]/, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
      how = "case";
      break;
    case 7: // every character percent-encoded: decodes to the same cursor
      cursor = [...cursor].map((c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")).join("");
      how = "over-encoded";
      break;
    case 8: // standard base64 instead of base64url
      cursor = encodeURIComponent(bytes.toString("base64"));
      how = "base64";
      break;
    case 9:
      cursor = r.pick(BAD_ENCODINGS) + cursor;
      how = "bad-encoding";
      break;
    default:
      how = "real";
  }
  // Sent with the query it was issued for (or, a quarter of the time, with another query of its endpoint).
  const base = r.chance(0.75) ? entry : other;
  const pairs: Pair[] = [{ name: "cursor", value: cursor }];
  for (const [k, v] of Object.entries(base.params)) pairs.push({ name: k, value: encode(r, v) });
  if (r.chance(0.5)) pairs.push({ name: "limit", value: String(r.range(1, base.endpoint === "search" ? 100 : 200)) });
  const path = r.chance(0.9)
    ? base.endpoint === "search"
      ? SEARCH_PATH
      : STATEMENTS_PATH
    : r.pick([SEARCH_PATH, STATEMENTS_PATH]);
  return { kind: `cursor-${how}`, spec: get(r, ctx, target(path, shuffle(r, pairs), r)), followUp: r.chance(0.3) };
};

/** API keys right and wrong, in every place a header can go wrong. */
const keys: Generator = (r, ctx) => {
  const good = r.pick(ctx.keys);
  const variants: [string, string][][] = [
    [],
    [["X-API-Key", ""]],
    [["X-API-Key", "sk_"]],
    [["X-API-Key", "sk_wrong_key_000"]],
    [["X-API-Key", good.slice(0, -1)]],
    [["X-API-Key", good + "x"]],
    [["X-API-Key", good.toUpperCase()]],
    [["X-API-Key", good.slice(3)]],
    [["X-API-Key", `Bearer ${good}`]],
    [["X-API-Key", `  ${good}\t`]],
    [["X-API-Key", `${good}, ${good}`]],
    [
      ["X-API-Key", good],
      ["X-API-Key", good],
    ],
    [
      ["X-API-Key", good],
      ["x-api-key", "sk_wrong"],
    ],
    [["X-API-Key", "sk_" + "k".repeat(r.pick([100, 5000]))]],
    [["X-API-Key", "sk_\u00e9\u00ff\u0080"]],
    [["X-API-Key", `sk_${"\t"}tab`]],
    [["X_API_Key", good]],
    [["X-API-Keys", good]],
    [["Authorization", `Bearer ${good}`]],
    [["X-API-Key", good]],
  ];
  const chosen = r.pick(variants);
  const spec = get(
    r,
    ctx,
    target(
      r.chance(0.5) ? SEARCH_PATH : STATEMENTS_PATH,
      r.chance(0.5) ? searchPairs(r, ctx) : statementPairs(r, ctx),
      r,
    ),
  );
  spec.headers = shuffle(r, [...spec.headers.filter(([n]) => n.toLowerCase() !== "x-api-key"), ...chosen]);
  return { kind: "keys", spec, followUp: r.chance(0.3) };
};

/**
 * Every method node's parser knows, CONNECT included; the registered ones it does not know (read
 * by the server itself: 401 first on the data endpoints, 405 elsewhere); and names nobody registers
 * (400), well-formed tokens or not.
 */
const methods: Generator = (r, ctx) => {
  const path = r.pick([
    SEARCH_PATH + "?q=a",
    STATEMENTS_PATH,
    HEALTH_PATH,
    OPENAPI_PATH,
    "/nowhere",
    SEARCH_PATH + "?q=",
  ]);
  const withKey = r.chance(0.7);
  const known = http.METHODS.filter((m) => m !== "PRI");
  if (r.chance(0.15)) {
    const method = r.pick(["get", "Get", "FOO", "G3T", "GE", "GETGETGETGETGETGET", "M_SEARCH", "UPDATE-X"]);
    return { kind: "method-unregistered", spec: { ...get(r, ctx, path), method } };
  }
  if (r.chance(0.15)) {
    const spec: RequestSpec = {
      method: r.pick(UNREAD_METHODS),
      target: path,
      version: "HTTP/1.1",
      headers: baseHeaders(r, ctx, withKey),
    };
    return { kind: "method-unread", spec };
  }
  if (r.chance(0.05)) {
    // Not a token at all: whatever the server makes of it, a 400 (or a close once it gives up).
    const method = r.pick(["GET\u0000", "\u00c9T", "G T", "[GET]"]);
    return {
      kind: "method-malformed",
      raw: {
        bytes: serialize({ ...get(r, ctx, path), method }),
        expect: { kind: "oneOf", statuses: [400], mayClose: false },
      },
    };
  }
  const method = r.pick(known);
  const spec: RequestSpec = { method, target: path, version: "HTTP/1.1", headers: baseHeaders(r, ctx, withKey) };
  if (method !== "GET" && method !== "HEAD" && method !== "CONNECT" && r.chance(0.5)) {
    spec.body = '{"q":"x"}';
    spec.headers.push(["Content-Type", "application/json"], ["Content-Length", String(spec.body.length)]);
  }
  // After CONNECT the connection belongs to the tunnel; nothing may be pipelined behind it.
  return {
    kind: method === "CONNECT" ? "method-connect" : "method",
    spec,
    followUp: method !== "CONNECT" && r.chance(0.3),
  };
};

const PATHS: readonly string[] = [
  "/",
  "/graph",
  "/graph/",
  "/graph/v1",
  "/graph/v1/",
  "/graph/v1/search/",
  "/graph/v1/Search",
  "/GRAPH/V1/SEARCH",
  "//graph/v1/search",
  "/graph//v1/search",
  "/graph/v1/./search",
  "/graph/v1/x/../search",
  "/graph/v1/search/..",
  "/graph/v1/%73earch",
  "/graph%2Fv1%2Fsearch",
  "/graph/v1/search;q=a",
  "/graph/v1/search%3Fq=a",
  "/graph/v2/search",
  "/graph/v1/statement",
  "/graph/v1/statementss",
  "/healthz/",
  "/HEALTHZ",
  "/healthz;",
  "/openapi.json",
  "/graph/v1/openapi",
  "/graph/v1/openapi.json/",
  "*",
  "http://127.0.0.1/graph/v1/search",
  "http://127.0.0.1/healthz",
  "http://quiver.test:8080/graph/v1/statements",
  "HTTPS://127.0.0.1/graph/v1/search",
  "http://127.0.0.1",
  "/%00",
  "/%ZZ",
  "/%",
  "/\u007e",
  "/favicon.ico",
  "/.env",
  "/../../etc/passwd",
  "/graph/v1/search#x",
];

const paths: Generator = (r, ctx) => {
  let path = r.pick(PATHS);
  if (r.chance(0.2)) {
    const printable = "!\"$%&'()*+,-./0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    path = "/";
    for (let n = r.range(0, 30); n > 0; n--) path += printable[r.int(printable.length)];
  }
  const query = r.chance(0.5) ? "" : "?" + joinPairs(r.chance(0.5) ? searchPairs(r, ctx) : statementPairs(r, ctx));
  return { kind: "paths", spec: get(r, ctx, path + query), followUp: r.chance(0.3) };
};

/** Headers odd but well-formed: Host rules, Expect, Upgrade, Connection, bodies on GET, many or long headers. */
const headers: Generator = (r, ctx) => {
  const spec = get(
    r,
    ctx,
    target(r.pick([SEARCH_PATH, STATEMENTS_PATH, HEALTH_PATH, OPENAPI_PATH]), searchPairs(r, ctx), r),
  );
  if (spec.target.startsWith(STATEMENTS_PATH)) spec.target = target(STATEMENTS_PATH, statementPairs(r, ctx), r);
  let followUp = r.chance(0.3);
  let how: string;
  switch (r.int(15)) {
    case 0:
      spec.headers = spec.headers.filter(([n]) => n !== "Host");
      how = "no-host";
      break;
    case 1:
      spec.headers.push(["Host", "other.test"]);
      how = "two-hosts";
      break;
    case 2:
      spec.headers.push(["Expect", r.pick(["100-continue", "200-ok", "foo", ""])]);
      how = "expect";
      break;
    case 3:
      spec.headers.push(["Connection", "Upgrade"], ["Upgrade", r.pick(["websocket", "h2c", "foo/1"])]);
      followUp = false; // whether node keeps parsing after an unanswered upgrade is node's business
      how = "upgrade";
      break;
    case 4:
      spec.headers.push(["Connection", r.pick(["close", "keep-alive", "Keep-Alive, x-foo", "TE"])]);
      how = "connection";
      break;
    case 5:
      spec.body = "hello";
      spec.headers.push(["Content-Length", "5"]);
      how = "body";
      break;
    case 6:
      spec.body = "5\r\nhello\r\n0\r\n\r\n";
      spec.headers.push(["Transfer-Encoding", "chunked"]);
      how = "chunked";
      break;
    case 7:
      for (let n = r.pick([50, 300, 1000]); n > 0; n--) spec.headers.push([`X-F${n}`, "v"]);
      how = "many";
      break;
    case 8:
      spec.headers.push(["X-Long", "v".repeat(r.pick([1000, 8000, 12000]))]);
      how = "long";
      break;
    case 9:
      spec.headers.push([r.pick(["X-Latin", "Cookie", "Referer"]), "caf\u00e9 \u00ff\u0080\t"]);
      how = "obs-text";
      break;
    case 10:
      spec.headers.push(
        ["Content-Type", r.pick(["text/plain", "multipart/form-data; boundary=x", "\u00e9"])],
        ["Range", "bytes=0-1"],
      );
      how = "ignored";
      break;
    case 12:
      // Conditional: "*" names any current representation (304 for a 200 with a tag); others name nothing here.
      spec.headers.push(["If-None-Match", r.pick(["*", '"no-such-tag"', 'W/"x", "y"', ""])]);
      how = "if-none-match";
      break;
    case 13:
      spec.headers.push([
        "Accept-Encoding",
        r.pick(["gzip", "br", "gzip, deflate, br", "br;q=0.5, gzip", "*", "identity", "gzip;q=0", "x-gzip"]),
      ]);
      how = "accept-encoding";
      break;
    case 14:
      spec.headers.push(["X-Request-Id", r.pick(["req-1", "x".repeat(200), "has space", "\u00e9t\u00e9", 'a"b'])]);
      how = "request-id";
      break;
    default:
      spec.headers.push(["X-Empty", ""]);
      how = "empty-value";
  }
  return { kind: `headers-${how}`, spec, followUp };
};

/** Targets and headers at, just past, and far past the limits. */
const huge: Generator = (r, ctx) => {
  const spec = get(r, ctx, SEARCH_PATH);
  if (r.chance(0.7)) {
    const size = r.pick([8191, 8192, 8193, 9000, 12000, 16000, 17000, 20000, 65000]);
    const path = r.pick([SEARCH_PATH, STATEMENTS_PATH, "/nowhere", HEALTH_PATH]);
    const prefix =
      path === STATEMENTS_PATH
        ? `${path}?subjectEntityId=`
        : path === SEARCH_PATH
          ? `${path}?q=a&cursor=`
          : `${path}?x=`;
    spec.target = prefix + "b".repeat(Math.max(0, size - prefix.length));
    if (r.chance(0.3)) spec.headers = spec.headers.filter(([n]) => n.toLowerCase() !== "x-api-key");
    return { kind: "huge-target", spec, followUp: r.chance(0.3) };
  }
  spec.target = target(SEARCH_PATH, searchPairs(r, ctx), r);
  spec.headers.push(["X-Big", "b".repeat(r.pick([15000, 16500, 20000, 70000]))]);
  return { kind: "huge-header", spec, followUp: r.chance(0.3) };
};

/** Raw bytes node's parser must refuse in a target: controls, space, DEL, non-ASCII. */
const rawTarget: Generator = (r, ctx) => {
  const byte = r.chance(0.5) ? r.range(0x80, 0xff) : r.pick([0x00, 0x01, 0x09, 0x0b, 0x0c, 0x1b, 0x1f, 0x20, 0x7f]);
  const t = target(r.chance(0.5) ? SEARCH_PATH : STATEMENTS_PATH, searchPairs(r, ctx), r);
  // Strictly inside the target: a space just before the version is taken for the separator.
  const at = r.range(1, t.length - 1);
  const bytes = serialize({ ...get(r, ctx, t.slice(0, at) + String.fromCharCode(byte) + t.slice(at)), method: "GET" });
  return { kind: "raw-target", raw: { bytes, expect: { kind: "oneOf", statuses: [400], mayClose: false } } };
};

/** Bytes of a valid request, mutated; or garbage. Whatever node makes of them, the answer must be clean. */
const malformed: Generator = (r, ctx) => {
  const choice = r.int(10);
  if (choice < 6) {
    const bytes = Buffer.from(serialize(validSearch(r, ctx).spec!));
    let out: Buffer = bytes;
    for (let n = r.range(1, 4); n > 0; n--) {
      const i = r.int(out.length);
      const op = r.int(5);
      if (op === 0) out = Buffer.concat([out.subarray(0, i), out.subarray(i + 1)]);
      else if (op === 1) out = Buffer.concat([out.subarray(0, i), Buffer.from([r.int(256)]), out.subarray(i)]);
      else if (op === 2) out[i] = r.int(256);
      else if (op === 3)
        out = Buffer.from(out.toString("latin1").replace("\r\n", r.pick(["\n", "\r", "\r\r\n", "\n\r"])), "latin1");
      else out = out.subarray(0, i);
    }
    // Whatever this is now, any status of the table will do, or a close once node gives up on it.
    return {
      kind: "bytes-mutated",
      raw: {
        bytes: out,
        expect: { kind: "oneOf", statuses: CONTRACT_STATUSES, mayClose: true },
        head: out.subarray(0, 5).toString("latin1") === "HEAD ",
      },
      endAfterWrite: true,
    };
  }
  const garbage: Buffer[] = [
    Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    Buffer.from([
      0x16,
      0x03,
      0x01,
      0x02,
      0x00,
      0x01,
      0x00,
      0x01,
      0xfc,
      0x03,
      0x03,
      ...Array.from({ length: 40 }, () => r.int(256)),
    ]),
    Buffer.from("SSH-2.0-OpenSSH_9.6\r\n"),
    Buffer.from(Array.from({ length: r.range(1, 300) }, () => r.int(256))),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nX-API-Key sk_no_colon\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
    Buffer.from("GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n"),
    Buffer.from("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Ctl: a\u0001b\r\n\r\n", "latin1"),
    Buffer.from("\r\n\r\n\r\n"),
    Buffer.from(""),
  ];
  const bytes = r.pick(garbage);
  // A complete head before the bad bytes (a bad chunk after the headers) is answered before they are read.
  const statuses = bytes.includes("\r\n\r\n") && bytes.subarray(0, 4).toString() === "GET " ? [200, 400] : [400];
  return { kind: "garbage", raw: { bytes, expect: { kind: "oneOf", statuses, mayClose: true } }, endAfterWrite: true };
};

/** HTTP/1.0 (no Host needed, the connection closes), and versions node answers as best it can. */
const versions: Generator = (r, ctx) => {
  const spec = get(r, ctx, target(SEARCH_PATH, searchPairs(r, ctx), r));
  if (r.chance(0.7)) {
    spec.version = "HTTP/1.0";
    if (r.chance(0.5)) spec.headers = spec.headers.filter(([n]) => n !== "Host");
    return { kind: "http-1.0", spec };
  }
  const version = r.pick(["HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.0", "http/1.1", "HTTP/1.1 ", "HTTP/11"]);
  return {
    kind: "http-odd-version",
    raw: {
      bytes: serialize({ ...spec, version }),
      expect: { kind: "oneOf", statuses: CONTRACT_STATUSES, mayClose: true },
    },
    endAfterWrite: true,
  };
};

const GENERATORS: readonly [Generator, number][] = [
  [validSearch, 14],
  [validStatements, 10],
  [mutatedSearch, 12],
  [mutatedStatements, 8],
  [encodings, 10],
  [cursors, 12],
  [keys, 7],
  [methods, 6],
  [paths, 6],
  [headers, 7],
  [huge, 3],
  [rawTarget, 3],
  [malformed, 3],
  [versions, 2],
];
const TOTAL_WEIGHT = GENERATORS.reduce((n, [, w]) => n + w, 0);

/** Case `index` of run `seed`. */
export function makeCase(ctx: FuzzContext, seed: number, index: number): FuzzCase {
  const r = caseRng(seed, index);
  let roll = r.int(TOTAL_WEIGHT);
  let generator = GENERATORS[0]![0];
  for (const [g, w] of GENERATORS) {
    if (roll < w) {
      generator = g;
      break;
    }
    roll -= w;
  }
  const draft = generator(r, ctx);
  const endAfterWrite = draft.endAfterWrite === true;
  // A fifth of the requests arrive in pieces (1 to 1,460 bytes, at most 64 of them), to exercise the parser across reads.
  const pieces = r.chance(0.2) ? Array.from({ length: r.range(1, 64) }, () => r.range(1, 1460)) : [];
  if (draft.raw !== undefined) {
    return {
      index,
      kind: draft.kind,
      bytes: draft.raw.bytes,
      expect: draft.raw.expect,
      head: draft.raw.head === true,
      followUp: false,
      endAfterWrite,
      pieces,
    };
  }
  const spec = draft.spec!;
  // A generator bug, not a finding: a well-formed request's target is printable ASCII.
  if (!/^[\x21-\x7e]+$/.test(spec.target))
    throw new Error(
      `fuzz case ${index} (${draft.kind}): target is not printable ASCII: ${JSON.stringify(spec.target.slice(0, 80))}`,
    );
  // HTTP/1.0 closes after one answer; a pipelined request behind it would go unanswered by design.
  const followUp = draft.followUp === true && spec.version === "HTTP/1.1";
  const request = serialize(spec);
  const bytes = followUp
    ? Buffer.concat([request, Buffer.from(`GET ${HEALTH_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)])
    : request;
  return {
    index,
    kind: draft.kind,
    bytes,
    expect: oracle(spec, ctx, pieces.length > 0),
    head: spec.method === "HEAD",
    followUp,
    endAfterWrite,
    pieces,
  };
}

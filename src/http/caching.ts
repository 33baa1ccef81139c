/**
 * Entity tags
 * ===========
 * CONTRACT.md "Caching": a 200 of any data endpoint (search, statements, the entity lookup) carries a strong `ETag` (two answers with one
 * tag have the same bytes, whatever graph or replica served them) and `Cache-Control: private`; a
 * request whose `If-None-Match` names the tag gets 304, after authentication.
 *
 * The tag is derived, not hashed from the body: the bytes of a 200 are a function of (the graph's
 * content, the cursor secret that seals its nextCursor, the endpoint, the canonical parameters, the
 * wire format of this code), so a digest of exactly those names exactly those bytes. Per graph the
 * first three are folded once into a seed (`graph.stats().contentTag`, a content digest: equal
 * content, equal tag; a SHA-256 of the cursor secret, or a random nonce when the secret is the
 * graph's own and cannot be known; WIRE_FORMAT_VERSION), SHA-256 over all of it. Per request the
 * canonical parameters are hashed on from that seed by two lanes of cyrb53 (bryc's public-domain
 * 53-bit string hash, each lane seeded with the graph's seed absorbed once): 106 bits, under 1 us
 * for a query (`searchDigest` and `statementsDigest` feed the lanes the key's pieces as it spells
 * them, so no key string is made a request), where a SHA-256 per request cost 1 to 5 us and hashing
 * the 4 KB body more still, and could not answer 304 before the engine runs (`npm run bench:http`
 * prints both). No cryptographic
 * strength is needed: a client sends back the tag it stored for the same URL, and the seed changes
 * whenever content, secret or format do, so only an accidental 106-bit collision between two
 * versions of one URL's answer could mislead a cache. A tag that matches
 * proves that an earlier request with the same inputs got a 200, so the 304 is sent without
 * running the query at all. `limit` is canonical (its default spelled out), so `?q=a` and
 * `?q=a&limit=20` share a tag, as they share their bytes.
 *
 * Per content encoding the tag is strong too (RFC 9110 section 8.8.3: a gzip body is other bytes):
 * `"<digest>"` for identity, `"<digest>-gz"` and `"<digest>-br"` for gzip and brotli. `If-None-Match`
 * is compared weakly (section 13.1.2: `W/"x"` matches `"x"`), against the tag of the representation
 * this request would get; `*` matches any current representation, so it answers 304 only once the
 * query has run and succeeded.
 *
 * WIRE_FORMAT_VERSION must change whenever the same inputs could give other bytes: the serializer,
 * the order of results, the cursor layout.
 */

import * as crypto from "node:crypto";
import type { SearchParams, StatementsParams } from "../engine/types.js";
import type { ContentEncoding } from "./compression.js";

export const WIRE_FORMAT_VERSION = 1;

/** What `Cache-Control` says on a 200 or 304 of a data endpoint: the answer depends on the key. */
export const DATA_CACHE_CONTROL = "private";

/** Base64url characters of a fixed body's digest (the OpenAPI document): 22 characters, 132 bits. */
const TAG_DIGEST_CHARS = 22;

/** SHA-256 as base64url: node's one-shot `crypto.hash` (20.12+) where it exists, about twice as fast on short input. */
const sha256Base64url: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "base64url")
    : (text) => crypto.createHash("sha256").update(text, "utf8").digest("base64url");

/** A digest of a cursor secret, so replicas that share the secret share tags; never the secret itself. */
export function secretTag(secret: string | Uint8Array | undefined): string {
  // Unknown secret (the graph's own, or a random one): a nonce keeps this graph's tags to itself.
  if (secret === undefined) return `nonce:${crypto.randomBytes(16).toString("base64url")}`;
  const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  return `secret:${crypto.createHash("sha256").update(bytes).digest("base64url")}`;
}

/** The state of the two hash lanes once a graph's seed has been absorbed (four uint32). */
export interface TagSeed {
  readonly a1: number;
  readonly a2: number;
  readonly b1: number;
  readonly b2: number;
}

/** Everything a graph adds to its tags, folded once: content, secret, wire format. */
export function tagSeed(contentTag: string, secret: string): TagSeed {
  const digest = sha256Base64url(`quiver-etag\u0000${WIRE_FORMAT_VERSION}\u0000${contentTag}\u0000${secret}`);
  // Two lanes with different starting states, each then fed the whole digest.
  const a = absorb(0xdeadbeef, 0x41c6ce57, digest);
  const b = absorb(0x9e3779b9, 0x85ebca6b, digest);
  return { a1: a[0], a2: a[1], b1: b[0], b2: b[1] };
}

/** cyrb53's absorption: each UTF-16 code unit mixed into two 32-bit halves. */
function absorb(h1: number, h2: number, text: string): [number, number] {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  return [h1, h2];
}

/** The base64url alphabet's character codes, by six-bit value. */
const BASE64URL_CODES = Uint8Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", (c) =>
  c.charCodeAt(0),
);
/** Characters of one lane's digest (53 bits). */
const LANE_CHARS = 10;
/** The character codes of the digest being made (two lanes): tagDigest is synchronous, so one is reused. */
const digestCodes = new Uint8Array(2 * LANE_CHARS);

/**
 * cyrb53's finalization: 53 bits out of the two halves, as LANE_CHARS base64url characters written
 * into digestCodes from `at`. By table, six bits at a time: `Number.prototype.toString(36)` costs
 * about a microsecond; the codes become one string at the end (tagDigest), not a string a character:
 * joining characters one by one made 20 intermediate strings, about 540 bytes a request.
 */
function finishInto(h1: number, h2: number, at: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const lo = h1 >>> 0;
  const hi = h2 & 0x1fffff;
  const out = digestCodes;
  // 21 high bits in four characters, 32 low bits in six (the first of them holds two bits).
  out[at] = BASE64URL_CODES[hi >>> 18]!;
  out[at + 1] = BASE64URL_CODES[(hi >>> 12) & 63]!;
  out[at + 2] = BASE64URL_CODES[(hi >>> 6) & 63]!;
  out[at + 3] = BASE64URL_CODES[hi & 63]!;
  out[at + 4] = BASE64URL_CODES[lo >>> 30]!;
  out[at + 5] = BASE64URL_CODES[(lo >>> 24) & 63]!;
  out[at + 6] = BASE64URL_CODES[(lo >>> 18) & 63]!;
  out[at + 7] = BASE64URL_CODES[(lo >>> 12) & 63]!;
  out[at + 8] = BASE64URL_CODES[(lo >>> 6) & 63]!;
  out[at + 9] = BASE64URL_CODES[lo & 63]!;
}

/** A string field with its length in front, so no two parameter lists spell one canonical string. */
const field = (value: string | undefined): string => (value === undefined ? "-" : `${value.length}:${value}`);

/**
 * The parameters added after the first version (`order`, `count`), as a suffix present only when
 * they change the bytes: a request without them keeps the key, and so the tag, it always had
 * (CONTRACT.md: such a client gets the same answer as before), and `order=name` or `count=false`
 * spelt out share the tag of the request that leaves them out, as they share its bytes. The
 * suffix follows the length-prefixed fields, so no two parameter lists spell one key.
 */
const scoreOrder = (order: SearchParams["order"]): string => (order === "score" ? "|order:score" : "");
const withTotal = (count: boolean | undefined): string => (count === true ? "|count" : "");

/** The canonical parameters of a search: q, type, limit (default spelled out), cursor, order, count. */
export function searchKey(params: SearchParams, defaultLimit: number): string {
  return (
    `search|${field(params.q)}|${field(params.type)}|${params.limit ?? defaultLimit}|${field(params.cursor)}` +
    `${scoreOrder(params.order)}${withTotal(params.count)}`
  );
}

/** The canonical parameters of a statements query: the three filters, limit, cursor, count. */
export function statementsKey(params: StatementsParams, defaultLimit: number): string {
  return (
    `statements|${field(params.subjectEntityId)}|${field(params.predicateEntityId)}|${field(params.objectEntityId)}|` +
    `${params.limit ?? defaultLimit}|${field(params.cursor)}${withTotal(params.count)}`
  );
}

/** The canonical parameter of a lookup: the entityId. */
export function entityKey(entityId: string): string {
  return `entity|${field(entityId)}`;
}

/** The digest part of a tag: the canonical parameters hashed on from the graph's seed, 20 characters. */
export function tagDigest(seed: TagSeed, key: string): string {
  startDigest(seed);
  absorbText(key);
  return endDigest();
}

/** The digest's characters in digestCodes as one string. */
function digestString(): string {
  const c = digestCodes;
  return String.fromCharCode(
    c[0]!,
    c[1]!,
    c[2]!,
    c[3]!,
    c[4]!,
    c[5]!,
    c[6]!,
    c[7]!,
    c[8]!,
    c[9]!,
    c[10]!,
    c[11]!,
    c[12]!,
    c[13]!,
    c[14]!,
    c[15]!,
    c[16]!,
    c[17]!,
    c[18]!,
    c[19]!,
  );
}

/**
 * The lanes of one digest being made from parts, for the digests of the canonical parameters below:
 * the same characters in the same order as `tagDigest(seed, searchKey(...))` and its siblings, so the
 * same tags, without making the key (its pieces, then the flat copy the hash loop reads). One is
 * reused: a digest is made synchronously, start to end.
 */
const lanes = { a1: 0, a2: 0, b1: 0, b2: 0 };

function absorbText(text: string): void {
  let { a1, a2, b1, b2 } = lanes;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a1 = Math.imul(a1 ^ c, 2654435761);
    a2 = Math.imul(a2 ^ c, 1597334677);
    b1 = Math.imul(b1 ^ c, 2246822519);
    b2 = Math.imul(b2 ^ c, 3266489917);
  }
  lanes.a1 = a1;
  lanes.a2 = a2;
  lanes.b1 = b1;
  lanes.b2 = b2;
}

/** `field(value)` absorbed: "-", or the length, ":" and the value. */
function absorbField(value: string | undefined): void {
  if (value === undefined) absorbText("-");
  else {
    absorbText(String(value.length));
    absorbText(":");
    absorbText(value);
  }
}

function startDigest(seed: TagSeed): void {
  lanes.a1 = seed.a1;
  lanes.a2 = seed.a2;
  lanes.b1 = seed.b1;
  lanes.b2 = seed.b2;
}

function endDigest(): string {
  finishInto(lanes.a1, lanes.a2, 0);
  finishInto(lanes.b1, lanes.b2, LANE_CHARS);
  return digestString();
}

/** `tagDigest(seed, searchKey(params, defaultLimit))`, the key never made. */
export function searchDigest(seed: TagSeed, params: SearchParams, defaultLimit: number): string {
  startDigest(seed);
  absorbText("search|");
  absorbField(params.q);
  absorbText("|");
  absorbField(params.type);
  absorbText("|");
  absorbText(String(params.limit ?? defaultLimit));
  absorbText("|");
  absorbField(params.cursor);
  absorbText(scoreOrder(params.order));
  absorbText(withTotal(params.count));
  return endDigest();
}

/** `tagDigest(seed, statementsKey(params, defaultLimit))`, the key never made. */
export function statementsDigest(seed: TagSeed, params: StatementsParams, defaultLimit: number): string {
  startDigest(seed);
  absorbText("statements|");
  absorbField(params.subjectEntityId);
  absorbText("|");
  absorbField(params.predicateEntityId);
  absorbText("|");
  absorbField(params.objectEntityId);
  absorbText("|");
  absorbText(String(params.limit ?? defaultLimit));
  absorbText("|");
  absorbField(params.cursor);
  absorbText(withTotal(params.count));
  return endDigest();
}

/** The digest of fixed bytes (the OpenAPI document). */
export function bytesDigest(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("base64url").slice(0, TAG_DIGEST_CHARS);
}

/** The quoted, strong tag of one representation. */
export function entityTag(digest: string, encoding: ContentEncoding): string {
  return encoding === "identity" ? `"${digest}"` : encoding === "gzip" ? `"${digest}-gz"` : `"${digest}-br"`;
}

/** The entity-tags an `If-None-Match` value lists (comma-separated; commas never occur inside ours). */
function listedTags(header: string | readonly string[]): string[] {
  return (typeof header === "string" ? header : header.join(",")).split(",").map((t) => t.trim());
}

/** True when an `If-None-Match` value names `tag`, compared weakly (`W/"x"` names `"x"`). */
export function ifNoneMatchNames(header: string | readonly string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  // Fast path: the client sends back exactly the tag it got.
  if (header === tag) return true;
  for (const t of listedTags(header)) if (t === tag || (t.startsWith("W/") && t.slice(2) === tag)) return true;
  return false;
}

/** True when an `If-None-Match` value is `*`: any current representation (known only once the query ran). */
export function ifNoneMatchAny(header: string | readonly string[] | undefined): boolean {
  return header !== undefined && listedTags(header).includes("*");
}

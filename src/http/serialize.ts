/**
 * Response serializers
 * ====================
 * Turns an engine page into the JSON body of CONTRACT.md ("Paging": `{"items": [...], "nextCursor":
 * "..." | null}`, and `"total": N` third when the query asked for a count), one entity into the
 * lookup's body (the item as it stands in a page), and an error into `{"error": "<sentence>",
 * "code": "<CODE>"}`, each as one buffer of the exact size.
 *
 * A page is written field by field, as UTF-8, straight into one reused byte buffer (json-bytes.ts):
 * byte for byte `Buffer.from(JSON.stringify(page))`, which is what the contract's examples and the
 * fuzzer's oracle compute, with the fields in the order of the OpenAPI item schemas (types.ts
 * declares the engine's objects in that order, the engine builds each item as one literal, and
 * test/http/serialize.test.ts checks the bytes against JSON.stringify of the engine's pages and of
 * seeded random text). Each field's characters are read once, not three times, no page-sized
 * string is made, and each field of each item type has its own copy of the string writer, generated
 * into string-writers.generated.ts and imported here by name (json-bytes.ts: a field's strings are
 * all of one kind, and a loop fed one kind runs faster).
 * Measured on distinct pages fresh from the engine, searches and statements interleaved, the
 * engine's own time taken off: about half of `Buffer.from(JSON.stringify(page))` (4.2-4.5 against
 * 9.8-10.2 µs a page at 50k entities / 250k statements, `npm run bench:serializer`; at the bench:http
 * mix's size, the serializer row of `npm run bench:http`).
 *
 * Nothing that grows with the data served is kept between requests: one scratch buffer (up to
 * 1 MiB, json-bytes.ts) and no per-item cache: on distinct queries a cache of written items costs
 * more than it saves, and its bytes grow with what is served (test/http/memory.test.ts walks pages
 * of long identifiers and checks they leave no memory behind).
 */

import type { Entity, Page, Statement } from "../engine/types.js";
import { JsonBytes, jsonLiteral, stringBound } from "./json-bytes.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "./openapi.js";
import {
  writeEntityEntityId,
  writeEntityRawIdentifier,
  writeEntitySourceType,
  writeEntityType,
  writeStatementObjectEntityId,
  writeStatementObjectRawIdentifier,
  writeStatementPredicateEntityId,
  writeStatementPredicateRawIdentifier,
  writeStatementStatementFingerprint,
  writeStatementSubjectEntityId,
  writeStatementSubjectRawIdentifier,
} from "./string-writers.generated.js";

/**
 * The body of a page with no items and no next page, made once: the answer to every search that
 * matches nothing (the adapter's floor in `npm run bench:http`). Shared and never written to: a body
 * is only ever sent.
 */
const EMPTY_PAGE = Buffer.from(JSON.stringify({ items: [], nextCursor: null }), "utf8");

/**
 * An item type's fields, compiled once from its OpenAPI schema (so the wire order is the
 * document's): each field's key with the punctuation before it (`{"entityId":`, `,"type":`...),
 * and the bytes of all of them plus the item's comma and closing brace.
 */
interface ItemFields {
  keys: Uint8Array[];
  keyBytes: number;
}

function itemFields(names: readonly string[]): ItemFields {
  const keys = names.map((name, i) => jsonLiteral(`${i === 0 ? "{" : ","}${JSON.stringify(name)}:`));
  return { keys, keyBytes: keys.reduce((n, key) => n + key.length, 2) };
}

const ENTITY_FIELDS = itemFields(ENTITY_SCHEMA.required);
const STATEMENT_FIELDS = itemFields(STATEMENT_SCHEMA.required);
/** The keys by name, for the writers below (a mismatch with the schema's order fails the tests' JSON.stringify comparison). */
type Four<T> = [T, T, T, T];
type Seven<T> = [...Four<T>, T, T, T];
const [E_ID, E_RAW, E_TYPE, E_SOURCE] = ENTITY_FIELDS.keys as Four<Uint8Array>;
const [S_FP, S_SUBJECT, S_SUBJECT_RAW, S_PREDICATE, S_PREDICATE_RAW, S_OBJECT, S_OBJECT_RAW] =
  STATEMENT_FIELDS.keys as Seven<Uint8Array>;

/**
 * Each type's item, written: the one place it names its fields, in its schema's order (plain
 * property reads, unrolled: a loop over the schema's names reading `item[name]` costs a keyed lookup
 * per field, and a loop over a values array more CPU a page than this).
 * One bound is reserved for the whole item and its comma, so the writes need no check of their own.
 */
function writeEntity(e: Entity, comma: boolean): void {
  out.reserve(
    ENTITY_FIELDS.keyBytes +
      stringBound(e.entityId) +
      stringBound(e.rawIdentifier) +
      stringBound(e.type) +
      stringBound(e.sourceType),
  );
  if (comma) out.byte(COMMA);
  out.literal(E_ID);
  writeEntityEntityId(out, e.entityId);
  out.literal(E_RAW);
  writeEntityRawIdentifier(out, e.rawIdentifier);
  out.literal(E_TYPE);
  writeEntityType(out, e.type);
  out.literal(E_SOURCE);
  writeEntitySourceType(out, e.sourceType);
  out.byte(CLOSE_BRACE);
}

function writeStatement(s: Statement, comma: boolean): void {
  out.reserve(
    STATEMENT_FIELDS.keyBytes +
      stringBound(s.statementFingerprint) +
      stringBound(s.subjectEntityId) +
      stringBound(s.subjectRawIdentifier) +
      stringBound(s.predicateEntityId) +
      stringBound(s.predicateRawIdentifier) +
      stringBound(s.objectEntityId) +
      stringBound(s.objectRawIdentifier),
  );
  if (comma) out.byte(COMMA);
  out.literal(S_FP);
  writeStatementStatementFingerprint(out, s.statementFingerprint);
  out.literal(S_SUBJECT);
  writeStatementSubjectEntityId(out, s.subjectEntityId);
  out.literal(S_SUBJECT_RAW);
  writeStatementSubjectRawIdentifier(out, s.subjectRawIdentifier);
  out.literal(S_PREDICATE);
  writeStatementPredicateEntityId(out, s.predicateEntityId);
  out.literal(S_PREDICATE_RAW);
  writeStatementPredicateRawIdentifier(out, s.predicateRawIdentifier);
  out.literal(S_OBJECT);
  writeStatementObjectEntityId(out, s.objectEntityId);
  out.literal(S_OBJECT_RAW);
  writeStatementObjectRawIdentifier(out, s.objectRawIdentifier);
  out.byte(CLOSE_BRACE);
}

const PAGE_OPEN = jsonLiteral('{"items":[');
const NEXT_CURSOR = jsonLiteral('],"nextCursor":');
const NULL = jsonLiteral("null");
const TOTAL = jsonLiteral(',"total":');
/** Digits of the largest total a page can carry (Number.MAX_SAFE_INTEGER has 16). */
const MAX_TOTAL_DIGITS = 16;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

/** The one writer: serialization is synchronous, so requests never share it at once. */
const out = new JsonBytes();

/**
 * `{"items":[...],"nextCursor":...}`, each item written by `writeItem` (after a comma but the
 * first), and `,"total":N` before the closing brace when the page carries a total.
 */
function pageBody<T>(page: Page<T>, writeItem: (item: T, comma: boolean) => void): Buffer {
  const { items, nextCursor, total } = page;
  if (items.length === 0 && nextCursor === null && total === undefined) return EMPTY_PAGE;
  out.begin();
  out.reserve(PAGE_OPEN.length);
  out.literal(PAGE_OPEN);
  for (let i = 0; i < items.length; i++) {
    writeItem(items[i] as T, i > 0);
  }
  out.reserve(
    NEXT_CURSOR.length +
      (nextCursor === null ? NULL.length : stringBound(nextCursor)) +
      TOTAL.length +
      MAX_TOTAL_DIGITS +
      1,
  );
  out.literal(NEXT_CURSOR);
  if (nextCursor === null) out.literal(NULL);
  else out.string(nextCursor);
  // A whole number, written as JSON.stringify writes it (the engine counts: never negative or fractional).
  if (total !== undefined) {
    out.literal(TOTAL);
    const digits = String(total);
    for (let i = 0; i < digits.length; i++) out.byte(digits.charCodeAt(i));
  }
  out.byte(CLOSE_BRACE);
  return out.take();
}

/** The body of a page of entities. */
export function entityPage(page: Page<Entity>): Buffer {
  return pageBody(page, writeEntity);
}

/** The body of a page of statements. */
export function statementPage(page: Page<Statement>): Buffer {
  return pageBody(page, writeStatement);
}

/** The lookup's body: the entity as one object, its fields in the schema's order. */
export function entityBody(entity: Entity): Buffer {
  out.begin();
  writeEntity(entity, false);
  return out.take();
}

/** `{"error":"...","code":"..."}`: the sentence for a person, the code for a program. */
export function errorBody(message: string, code: string): Buffer {
  return Buffer.from(JSON.stringify({ error: message, code }), "utf8");
}

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
 * string is made, and each field of each item type has its own copy of the string writer
 * (json-bytes.ts: a field's strings are all of one kind, and a loop fed one kind runs faster).
 * Measured in a stream of the bench:http mix's distinct queries, searches and statements
 * interleaved, each page fresh from the engine (the engine's own time taken off; the serializer row
 * of `npm run bench:http`, and a scratch loop of the same, 200k entities / 1M statements, twice
 * each): 7.9 to 8.1 µs a page, against 14.8 to 15.9 with one shared string writer and 17.2 to 18.7
 * for `Buffer.from(JSON.stringify(page))`. One page serialized again and again: 4.2 against 10.3 µs
 * for 20 entities (1.9 kB), 26 to 29 against 47 to 52 for 50 statements (13 kB).
 * (A concatenation per field into a string, before that, cost about 20% more than JSON.stringify.)
 *
 * Nothing that grows with the data served is kept between requests: one scratch buffer (up to
 * 1 MiB, json-bytes.ts) and no per-item cache (issue 9; the review of 8221c12 measured the LRU fragment cache this replaces at 17 us per request
 * on distinct queries, more than it saved, and unbounded in bytes: test/http/memory.test.ts).
 */

import type { Entity, Page, Statement } from "../engine/types.js";
import { JsonBytes, jsonLiteral, type StringWriter, stringBound, stringWriter } from "./json-bytes.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "./openapi.js";

/**
 * The body of a page with no items and no next page, made once: the answer to every search that
 * matches nothing (the adapter's floor in `npm run bench:http`, where serializing it afresh was
 * about 0.5 µs of the 22 a request). Shared and never written to: a body is only ever sent.
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
  /** Each field's own copy of the string writer (json-bytes.ts: why one per field). */
  writers: StringWriter[];
}

function itemFields(item: string, names: readonly string[]): ItemFields {
  const keys = names.map((name, i) => jsonLiteral(`${i === 0 ? "{" : ","}${JSON.stringify(name)}:`));
  const writers = names.map((name) => stringWriter(`${item}.${name}`));
  return { keys, keyBytes: keys.reduce((n, key) => n + key.length, 2), writers };
}

const ENTITY_FIELDS = itemFields("entity", ENTITY_SCHEMA.required);
const STATEMENT_FIELDS = itemFields("statement", STATEMENT_SCHEMA.required);
/** The keys and writers by name, for the writers below (a mismatch with the schema's order fails the tests' JSON.stringify comparison). */
type Four<T> = [T, T, T, T];
type Seven<T> = [...Four<T>, T, T, T];
const [E_ID, E_RAW, E_TYPE, E_SOURCE] = ENTITY_FIELDS.keys as Four<Uint8Array>;
const [S_FP, S_SUBJECT, S_SUBJECT_RAW, S_PREDICATE, S_PREDICATE_RAW, S_OBJECT, S_OBJECT_RAW] =
  STATEMENT_FIELDS.keys as Seven<Uint8Array>;
const [entityIdW, rawIdentifierW, typeW, sourceTypeW] = ENTITY_FIELDS.writers as Four<StringWriter>;
const [fingerprintW, subjectIdW, subjectRawW, predicateIdW, predicateRawW, objectIdW, objectRawW] =
  STATEMENT_FIELDS.writers as Seven<StringWriter>;

/**
 * Each type's item, written: the one place it names its fields, in its schema's order (plain
 * property reads, unrolled: a loop over the schema's names reading `item[name]` cost a keyed lookup
 * per field, and a loop over a values array 4 to 10% more CPU a page than this, in scratch loops).
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
  entityIdW(out, e.entityId);
  out.literal(E_RAW);
  rawIdentifierW(out, e.rawIdentifier);
  out.literal(E_TYPE);
  typeW(out, e.type);
  out.literal(E_SOURCE);
  sourceTypeW(out, e.sourceType);
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
  fingerprintW(out, s.statementFingerprint);
  out.literal(S_SUBJECT);
  subjectIdW(out, s.subjectEntityId);
  out.literal(S_SUBJECT_RAW);
  subjectRawW(out, s.subjectRawIdentifier);
  out.literal(S_PREDICATE);
  predicateIdW(out, s.predicateEntityId);
  out.literal(S_PREDICATE_RAW);
  predicateRawW(out, s.predicateRawIdentifier);
  out.literal(S_OBJECT);
  objectIdW(out, s.objectEntityId);
  out.literal(S_OBJECT_RAW);
  objectRawW(out, s.objectRawIdentifier);
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

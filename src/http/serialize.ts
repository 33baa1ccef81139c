/**
 * Response serializers
 * ====================
 * Turns an engine page into the JSON body of CONTRACT.md ("Paging": `{"items": [...], "nextCursor":
 * "..." | null}`) and an error into `{"error": "<sentence>", "code": "<CODE>"}`, each as one buffer of
 * the exact size.
 *
 * A page is written field by field, as UTF-8, straight into one reused byte buffer (json-bytes.ts):
 * byte for byte `Buffer.from(JSON.stringify(page))`, which is what the contract's examples and the
 * fuzzer's oracle compute, with the fields in the order of the OpenAPI item schemas (types.ts
 * declares the engine's objects in that order, the engine builds each item as one literal, and
 * test/http/serialize.test.ts checks the bytes against JSON.stringify of the engine's pages and of
 * seeded random text). Each field's characters are read once, not three times, and no page-sized
 * string is made. Measured (scratch loops, Node 20, this 2-core VM): one page serialized again and
 * again, 4.1 against 10.3 µs for 20 entities (1.9 kB), 26.5 against 46.9 for 50 statements (13 kB);
 * but in a stream of the bench:http mix's distinct queries, each page fresh from the engine, 15.0
 * against 16.8 µs a page (the engine's own part, 12.3 µs, subtracted). Why the stream narrows the
 * gap is not pinned down: reading every field's length and one character first costs only 0.3 to
 * 1.6 µs a page there, so it is not cold text alone.
 * (A concatenation per field into a string, before that, cost about 20% more than JSON.stringify.)
 *
 * Nothing that grows with the data served is kept between requests: one scratch buffer (up to
 * 1 MiB, json-bytes.ts) and no per-item cache (issue 9; the review of 8221c12 measured the LRU fragment cache this replaces at 17 us per request
 * on distinct queries, more than it saved, and unbounded in bytes: test/http/memory.test.ts).
 */

import type { Entity, Page, Statement } from "../engine/types.js";
import { JsonBytes, jsonLiteral, stringBound } from "./json-bytes.js";

/**
 * The body of a page with no items and no next page, made once: the answer to every search that
 * matches nothing (the adapter's floor in `npm run bench:http`, where serializing it afresh was
 * about 0.5 µs of the 22 a request). Shared and never written to: a body is only ever sent.
 */
const EMPTY_PAGE = Buffer.from(JSON.stringify({ items: [], nextCursor: null }), "utf8");

/** Keys and punctuation with the key of the field that follows, in the schemas' order. */
const PAGE_OPEN = jsonLiteral('{"items":[');
const ENTITY_KEYS = {
  entityId: jsonLiteral('{"entityId":'),
  rawIdentifier: jsonLiteral(',"rawIdentifier":'),
  type: jsonLiteral(',"type":'),
  sourceType: jsonLiteral(',"sourceType":'),
};
const STATEMENT_KEYS = {
  statementFingerprint: jsonLiteral('{"statementFingerprint":'),
  subjectEntityId: jsonLiteral(',"subjectEntityId":'),
  subjectRawIdentifier: jsonLiteral(',"subjectRawIdentifier":'),
  predicateEntityId: jsonLiteral(',"predicateEntityId":'),
  predicateRawIdentifier: jsonLiteral(',"predicateRawIdentifier":'),
  objectEntityId: jsonLiteral(',"objectEntityId":'),
  objectRawIdentifier: jsonLiteral(',"objectRawIdentifier":'),
};
/** Bytes of an item's keys and punctuation: its keys, the comma before it and its closing brace. */
const keyBytes = (keys: Record<string, Uint8Array>): number =>
  Object.values(keys).reduce((n, key) => n + key.length, 2);
const ENTITY_KEY_BYTES = keyBytes(ENTITY_KEYS);
const STATEMENT_KEY_BYTES = keyBytes(STATEMENT_KEYS);
const NEXT_CURSOR = jsonLiteral('],"nextCursor":');
const NULL_END = jsonLiteral("null}");
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

/** The one writer: serialization is synchronous, so requests never share it at once. */
const out = new JsonBytes();

function open(): void {
  out.begin();
  out.reserve(PAGE_OPEN.length);
  out.literal(PAGE_OPEN);
}

/** `],"nextCursor":...}` and the exact-size body. */
function close(nextCursor: string | null): Buffer {
  out.reserve(NEXT_CURSOR.length + NULL_END.length + (nextCursor === null ? 0 : stringBound(nextCursor)));
  out.literal(NEXT_CURSOR);
  if (nextCursor === null) out.literal(NULL_END);
  else {
    out.string(nextCursor);
    out.byte(CLOSE_BRACE);
  }
  return out.take();
}

/** The body of a page of entities. */
export function entityPage(page: Page<Entity>): Buffer {
  const items = page.items;
  if (items.length === 0 && page.nextCursor === null) return EMPTY_PAGE;
  open();
  for (let i = 0; i < items.length; i++) {
    const e = items[i] as Entity;
    out.reserve(
      ENTITY_KEY_BYTES +
        stringBound(e.entityId) +
        stringBound(e.rawIdentifier) +
        stringBound(e.type) +
        stringBound(e.sourceType),
    );
    if (i > 0) out.byte(COMMA);
    out.literal(ENTITY_KEYS.entityId);
    out.string(e.entityId);
    out.literal(ENTITY_KEYS.rawIdentifier);
    out.string(e.rawIdentifier);
    out.literal(ENTITY_KEYS.type);
    out.string(e.type);
    out.literal(ENTITY_KEYS.sourceType);
    out.string(e.sourceType);
    out.byte(CLOSE_BRACE);
  }
  return close(page.nextCursor);
}

/** The body of a page of statements. */
export function statementPage(page: Page<Statement>): Buffer {
  const items = page.items;
  if (items.length === 0 && page.nextCursor === null) return EMPTY_PAGE;
  open();
  for (let i = 0; i < items.length; i++) {
    const s = items[i] as Statement;
    out.reserve(
      STATEMENT_KEY_BYTES +
        stringBound(s.statementFingerprint) +
        stringBound(s.subjectEntityId) +
        stringBound(s.subjectRawIdentifier) +
        stringBound(s.predicateEntityId) +
        stringBound(s.predicateRawIdentifier) +
        stringBound(s.objectEntityId) +
        stringBound(s.objectRawIdentifier),
    );
    if (i > 0) out.byte(COMMA);
    out.literal(STATEMENT_KEYS.statementFingerprint);
    out.string(s.statementFingerprint);
    out.literal(STATEMENT_KEYS.subjectEntityId);
    out.string(s.subjectEntityId);
    out.literal(STATEMENT_KEYS.subjectRawIdentifier);
    out.string(s.subjectRawIdentifier);
    out.literal(STATEMENT_KEYS.predicateEntityId);
    out.string(s.predicateEntityId);
    out.literal(STATEMENT_KEYS.predicateRawIdentifier);
    out.string(s.predicateRawIdentifier);
    out.literal(STATEMENT_KEYS.objectEntityId);
    out.string(s.objectEntityId);
    out.literal(STATEMENT_KEYS.objectRawIdentifier);
    out.string(s.objectRawIdentifier);
    out.byte(CLOSE_BRACE);
  }
  return close(page.nextCursor);
}

/** `{"error":"...","code":"..."}`: the sentence for a person, the code for a program. */
export function errorBody(message: string, code: string): Buffer {
  return Buffer.from(JSON.stringify({ error: message, code }), "utf8");
}

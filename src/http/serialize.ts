/**
 * Response serializers
 * ====================
 * Turns an engine page into the JSON body of CONTRACT.md ("Paging": `{"items": [...], "nextCursor":
 * "..." | null}`) and an error into `{"error": "<sentence>", "code": "<CODE>"}`, each as one buffer of
 * the exact size.
 *
 * A page is `JSON.stringify` of the engine's `Page` object, encoded once: byte for byte what the
 * contract's examples and the fuzzer's oracle compute, with the fields in the order of the engine's
 * objects, which is the order of the OpenAPI item schemas (types.ts declares them so; the engine
 * builds each item as one literal; test/http/serialize.test.ts checks the two orders agree). V8's
 * own serializer escapes and writes faster than any per-field concatenation in JavaScript: the
 * serializer rows of `npm run bench:http` measure both (a concatenation per field in schema order,
 * which this replaced, cost about 20% more CPU per page of the mix).
 *
 * Nothing is kept between requests: no per-item cache, so memory does not grow with the data served
 * (issue 9; the review of 8221c12 measured the LRU fragment cache this replaces at 17 us per request
 * on distinct queries, more than it saved, and unbounded in bytes: test/http/memory.test.ts).
 */

import type { Entity, Page, Statement } from "../engine/types.js";

/**
 * The body of a page with no items and no next page, made once: the answer to every search that
 * matches nothing (the adapter's floor in `npm run bench:http`, where serializing it afresh was
 * about 0.5 µs of the 22 a request). Shared and never written to: a body is only ever sent.
 */
const EMPTY_PAGE = Buffer.from(JSON.stringify({ items: [], nextCursor: null }), "utf8");

/** The body of a page of either endpoint. */
function pageBody(page: Page<Entity> | Page<Statement>): Buffer {
  if (page.items.length === 0 && page.nextCursor === null) return EMPTY_PAGE;
  return Buffer.from(JSON.stringify(page), "utf8");
}

/** The body of a page of entities. */
export const entityPage: (page: Page<Entity>) => Buffer = pageBody;

/** The body of a page of statements. */
export const statementPage: (page: Page<Statement>) => Buffer = pageBody;

/** `{"error":"...","code":"..."}`: the sentence for a person, the code for a program. */
export function errorBody(message: string, code: string): Buffer {
  return Buffer.from(JSON.stringify({ error: message, code }), "utf8");
}

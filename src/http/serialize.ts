/**
 * Response serializers
 * ====================
 * Turns an engine page into the JSON body of CONTRACT.md ("Paging": `{"items": [...], "nextCursor":
 * "..." | null}`), byte for byte what `JSON.stringify` gives for the same fields in schema order, and
 * an error into `{"error": "<sentence>", "code": "<CODE>"}`.
 *
 * A page is written straight from the engine's `Page` objects: one string built field by field in
 * the order of the OpenAPI item schemas (openapi.ts, so the document and the wire agree whatever
 * order the engine's objects have), a string needing no escape written as it is between quotes, any
 * other through `JSON.stringify`; then encoded once into one buffer of the exact size. Nothing is
 * kept between requests: no per-item cache, so memory does not grow with the data served (issue 9;
 * the review of 8221c12 measured the LRU fragment cache it replaces at 17 us per request on distinct
 * queries, more than it saved, and unbounded in bytes). The alternatives measured beside it (the
 * serializer rows of `npm run bench:http`): `JSON.stringify` of the page, and a two-pass writer that
 * sizes every field then writes each into the buffer.
 */

import type { Entity, Page, Statement } from "../engine/types.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "./openapi.js";

/** Characters that JSON.stringify escapes: controls, quote, backslash, and (lone) surrogates. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A JSON string literal; the common case (nothing to escape) is two concatenations. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** Writes the items of a page, each a flat object of string fields in the given order. */
function pageSerializer<T>(fields: readonly (keyof T & string)[]): (page: Page<T>) => Buffer {
  const prefixes = fields.map((f, i) => (i === 0 ? "{" : ",") + JSON.stringify(f) + ":");
  const count = fields.length;
  return (page) => {
    const items = page.items;
    let out = '{"items":[';
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      if (i > 0) out += ",";
      for (let k = 0; k < count; k++) {
        const value: unknown = item[fields[k] as keyof T];
        // The engine's contract says every field is a string; anything else is a bug of ours (500).
        if (typeof value !== "string")
          throw new Error(`serializer: field ${fields[k]} is ${typeof value}, not a string`);
        out += (prefixes[k] as string) + jsonString(value);
      }
      out += "}";
    }
    const cursor = page.nextCursor;
    out += cursor === null ? '],"nextCursor":null}' : `],"nextCursor":${jsonString(cursor)}}`;
    return Buffer.from(out, "utf8");
  };
}

/** The body of a page of entities. */
export const entityPage: (page: Page<Entity>) => Buffer = pageSerializer<Entity>(ENTITY_SCHEMA.required);

/** The body of a page of statements. */
export const statementPage: (page: Page<Statement>) => Buffer = pageSerializer<Statement>(STATEMENT_SCHEMA.required);

/** `{"error":"...","code":"..."}`: the sentence for a person, the code for a program. */
export function errorBody(message: string, code: string): Buffer {
  return Buffer.from(`{"error":${jsonString(message)},"code":${jsonString(code)}}`, "utf8");
}

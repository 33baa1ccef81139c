/**
 * Response serializers
 * ====================
 * Turns an engine page into the JSON body of CONTRACT.md ("Paging": `{"items": [...], "nextCursor":
 * "..." | null}`), byte for byte what `JSON.stringify` would give for the same fields in schema order.
 *
 * Measured (bench/http.bench.ts, "serializers"; a page of 100 YAGO3-10 entities, 11 KB, and of 200
 * statements, 59 KB): fast-json-stringify was the slowest of the four, `JSON.stringify` next, a
 * hand-written concatenation with a one-regex escape check faster, and joining per-item fragments
 * escaped once and cached was fastest by a wide margin (see the README for the figures). So each item
 * is escaped once per graph, on first use, and a page is the join of its items' fragments.
 *
 * Fragments are kept as UTF-8 bytes and a page is one copy of them into a buffer of the exact size:
 * joining strings instead builds a rope that node must flatten, measure (Content-Length) and encode
 * on every response, three times the cost for a page of statements; `Buffer.concat` of the parts
 * with comma buffers between them cost half as much again as this loop.
 *
 * The caches are per graph (the handler makes a new `PageSerializer` when it is pointed at a new
 * graph, and the old one goes with the old graph): a graph is immutable, so a fragment never goes
 * stale. Each cache is an LRU map of bounded size, so memory stays bounded on graphs of any size.
 * Fields are taken from the OpenAPI item schemas (openapi.ts), so the document and the wire agree.
 */

import { LRUMap } from "mnemonist";
import type { Entity, Page, Statement } from "../engine/types.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "./openapi.js";

/** Entity fragments kept per graph (about 100 bytes each). */
export const ENTITY_FRAGMENT_CACHE_SIZE = 100_000;
/** Statement fragments kept per graph (about 250 bytes each). */
export const STATEMENT_FRAGMENT_CACHE_SIZE = 100_000;

/** Characters that JSON.stringify escapes: controls, quote, backslash, and (lone) surrogates. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A JSON string literal; the common case (nothing to escape) is two concatenations. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** A serializer for one flat object of string fields, in the given order. Runs once per item per graph. */
function objectSerializer<T>(fields: readonly (keyof T & string)[]): (item: T) => string {
  const prefixes = fields.map((f, i) => (i === 0 ? "{" : ",") + JSON.stringify(f) + ":");
  return (item) => {
    let out = "";
    for (let i = 0; i < fields.length; i++) {
      const value: unknown = item[fields[i]!];
      // The engine's contract says every field is a string; anything else is a bug of ours (500).
      if (typeof value !== "string") throw new Error(`serializer: field ${fields[i]} is ${typeof value}, not a string`);
      out += prefixes[i] + jsonString(value);
    }
    return out + "}";
  };
}

const entityObject = objectSerializer<Entity>(ENTITY_SCHEMA.required);
const statementObject = objectSerializer<Statement>(STATEMENT_SCHEMA.required);

/** `{"error":"..."}` */
export function errorBody(message: string): string {
  return `{"error":${jsonString(message)}}`;
}

const PAGE_OPEN = Buffer.from('{"items":[');
const COMMA = 0x2c;

/** Serializes pages of one graph into response bodies, caching each item's fragment as UTF-8 bytes. */
export class PageSerializer {
  private readonly entityFragments = new LRUMap<string, Buffer>(ENTITY_FRAGMENT_CACHE_SIZE);
  private readonly statementFragments = new LRUMap<string, Buffer>(STATEMENT_FRAGMENT_CACHE_SIZE);

  entities(page: Page<Entity>): Buffer {
    const items = page.items;
    const fragments: Buffer[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const e = items[i]!;
      // entityId is unique within a graph, so it keys the whole fragment.
      let fragment = this.entityFragments.get(e.entityId);
      if (fragment === undefined) {
        fragment = Buffer.from(entityObject(e), "utf8");
        this.entityFragments.set(e.entityId, fragment);
      }
      fragments[i] = fragment;
    }
    return joinPage(fragments, page.nextCursor);
  }

  statements(page: Page<Statement>): Buffer {
    const items = page.items;
    const fragments: Buffer[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const s = items[i]!;
      // statementFingerprint is unique within a graph, so it keys the whole fragment.
      let fragment = this.statementFragments.get(s.statementFingerprint);
      if (fragment === undefined) {
        fragment = Buffer.from(statementObject(s), "utf8");
        this.statementFragments.set(s.statementFingerprint, fragment);
      }
      fragments[i] = fragment;
    }
    return joinPage(fragments, page.nextCursor);
  }
}

/** `{"items":[` fragments joined by commas `],"nextCursor":...}`, copied once into a buffer of the exact size. */
function joinPage(fragments: readonly Buffer[], cursor: string | null): Buffer {
  const tail = '],"nextCursor":' + (cursor === null ? "null" : jsonString(cursor)) + "}";
  const tailBytes = Buffer.byteLength(tail, "utf8");
  let length = PAGE_OPEN.length + tailBytes + (fragments.length > 0 ? fragments.length - 1 : 0);
  for (let i = 0; i < fragments.length; i++) length += fragments[i]!.length;
  const body = Buffer.allocUnsafe(length);
  let at = PAGE_OPEN.copy(body, 0);
  for (let i = 0; i < fragments.length; i++) {
    if (i > 0) body[at++] = COMMA;
    at += fragments[i]!.copy(body, at);
  }
  // A cursor is ASCII ([A-Za-z0-9_-]), and then latin1 is the same bytes, written faster than utf8.
  body.write(tail, at, tailBytes === tail.length ? "latin1" : "utf8");
  return body;
}

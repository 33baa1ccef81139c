/**
 * The serializers write exactly what JSON.stringify writes for the schema's fields, including every
 * character JSON must escape, in the schema's order whatever the order of the engine's objects, and
 * keep nothing between calls (issue 9: no per-item cache that grows with the data served).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Entity, Statement } from "../../src/engine/types.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "../../src/http/openapi.js";
import { entityPage, errorBody, jsonString, statementPage } from "../../src/http/serialize.js";
import { buildSmallGraph } from "../support/http.js";

const TRICKY = [
  "plain",
  "",
  'quote " and \\ backslash',
  "\u0000\u0001\u001f\u007f",
  "tab\tnew\nline\r",
  "\u2028\u2029",
  "\uD800 lone",
  "lone \uDFFF",
  "\u{1F600} pair",
  "é ß İ ς",
  "</script>",
];

test("lone surrogates come out as JSON escapes, so the UTF-8 body is well-formed", () => {
  const body = entityPage({
    items: [{ entityId: "e", rawIdentifier: "\uD800", type: "0", sourceType: "" }],
    nextCursor: null,
  });
  assert.ok(body.toString("latin1").includes("\\ud800"));
  assert.is(new TextDecoder("utf-8", { fatal: true }).decode(body), body.toString("utf8"));
});

test("jsonString equals JSON.stringify for every kind of character", () => {
  for (const s of TRICKY) assert.is(jsonString(s), JSON.stringify(s), JSON.stringify(s));
  for (let c = 0; c < 0x10000; c++) {
    const s = String.fromCharCode(c);
    if (jsonString(s) !== JSON.stringify(s)) assert.unreachable(`U+${c.toString(16)}`);
  }
});

test("entity and statement pages equal JSON.stringify of the same fields, as exact-size buffers", () => {
  const entities: Entity[] = TRICKY.map((s, i) => ({
    entityId: `e${i}${s}`,
    rawIdentifier: s,
    type: "0",
    sourceType: s,
  }));
  const statements: Statement[] = TRICKY.map((s, i) => ({
    statementFingerprint: `f${i}${s}`,
    subjectEntityId: `s${s}`,
    subjectRawIdentifier: s,
    predicateEntityId: "p",
    predicateRawIdentifier: s,
    objectEntityId: `o${s}`,
    objectRawIdentifier: s,
  }));
  for (const nextCursor of [null, "AbC_-"]) {
    const e = entityPage({ items: entities, nextCursor });
    const s = statementPage({ items: statements, nextCursor });
    assert.is(e.toString("utf8"), JSON.stringify({ items: entities, nextCursor }));
    assert.is(s.toString("utf8"), JSON.stringify({ items: statements, nextCursor }));
    assert.is(e.length, Buffer.byteLength(JSON.stringify({ items: entities, nextCursor })));
  }
  assert.is(entityPage({ items: [], nextCursor: null }).toString(), '{"items":[],"nextCursor":null}');
});

test("the engine's pages serialize exactly as JSON.stringify of them (the bytes of every 200)", () => {
  const graph = buildSmallGraph({ items: true });
  for (const q of ["item", "strasse", "he said", "c++", "\uFEFF"]) {
    const page = graph.search({ q, limit: 100 });
    assert.is(entityPage(page).toString("utf8"), JSON.stringify(page), q);
  }
  const page = graph.statements({ limit: 200 });
  assert.is(statementPage(page).toString("utf8"), JSON.stringify(page));
  // The engine's objects hold the schema's fields in the schema's order: the wire order is the schema's.
  assert.equal(Object.keys(graph.search({ q: "item" }).items[0]!), [...ENTITY_SCHEMA.required]);
  assert.equal(Object.keys(page.items[0]!), [...STATEMENT_SCHEMA.required]);
});

test("fields are written in schema order, and only the schema's fields", () => {
  const odd = { sourceType: "s", type: "1", extra: "no", rawIdentifier: "r", entityId: "e" } as unknown as Entity;
  assert.is(
    entityPage({ items: [odd], nextCursor: null }).toString(),
    '{"items":[{"entityId":"e","rawIdentifier":"r","type":"1","sourceType":"s"}],"nextCursor":null}',
  );
});

test("a field that is not a string is a bug, not silent output", () => {
  const broken = { entityId: "e", rawIdentifier: undefined, type: "0", sourceType: "" } as unknown as Entity;
  assert.throws(() => entityPage({ items: [broken], nextCursor: null }), /rawIdentifier/);
});

test("nothing is kept between calls: the same entityId with new content is written anew", () => {
  entityPage({ items: [{ entityId: "e", rawIdentifier: "old", type: "0", sourceType: "" }], nextCursor: null });
  const body = entityPage({
    items: [{ entityId: "e", rawIdentifier: "new", type: "0", sourceType: "" }],
    nextCursor: null,
  });
  assert.match(body.toString(), /"new"/);
});

test("errorBody: the sentence, then the code", () => {
  assert.is(errorBody('bad "q".', "INVALID_LIMIT").toString(), '{"error":"bad \\"q\\".","code":"INVALID_LIMIT"}');
});

test.run();

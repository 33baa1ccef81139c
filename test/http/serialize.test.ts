/**
 * The serializers write exactly what JSON.stringify writes, including every character JSON must
 * escape, as well-formed UTF-8 of the exact size; the engine's items hold the OpenAPI schema's fields
 * in the schema's order (so the wire order is the document's); nothing is kept between calls (issue
 * 9: no per-item cache that grows with the data served).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Entity, Statement } from "../../src/engine/types.js";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "../../src/http/openapi.js";
import { entityBody, entityPage, errorBody, statementPage } from "../../src/http/serialize.js";
import { buildSmallGraph } from "../support/http.js";
import { randomIdentifier, Rng, TYPES } from "../support/oracle.js";

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

test("a page with a total: JSON.stringify's bytes, total the third key; without one, the bytes of before", () => {
  const entities: Entity[] = TRICKY.map((s, i) => ({ entityId: `e${i}`, rawIdentifier: s, type: "3", sourceType: s }));
  const statements: Statement[] = TRICKY.slice(0, 3).map((s, i) => ({
    statementFingerprint: `f${i}`,
    subjectEntityId: s,
    subjectRawIdentifier: s,
    predicateEntityId: "p",
    predicateRawIdentifier: "",
    objectEntityId: "o",
    objectRawIdentifier: s,
  }));
  for (const total of [0, 1, 9, 10, 12345, 2 ** 31, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
    for (const nextCursor of [null, "AbC_-9"]) {
      for (const items of [[], entities.slice(0, 1), entities]) {
        const page = { items, nextCursor, total };
        const body = entityPage(page);
        assert.is(body.toString("utf8"), JSON.stringify(page), `${total} ${nextCursor} ${items.length}`);
        assert.is(body.length, Buffer.byteLength(JSON.stringify(page)));
      }
      const page = { items: statements, nextCursor, total };
      assert.is(statementPage(page).toString("utf8"), JSON.stringify(page));
    }
  }
  assert.is(
    entityPage({ items: [], nextCursor: null, total: 0 }).toString(),
    '{"items":[],"nextCursor":null,"total":0}',
  );
  // No total: exactly the two-key body, the empty page's shared buffer included.
  assert.is(entityPage({ items: [], nextCursor: null }).toString(), '{"items":[],"nextCursor":null}');
  assert.is(
    entityPage({ items: entities, nextCursor: "c" }).toString(),
    JSON.stringify({ items: entities, nextCursor: "c" }),
  );
});

test("the lookup's body: JSON.stringify of the entity, on tricky and seeded random text", () => {
  for (const s of TRICKY) {
    const entity: Entity = { entityId: `id ${s}`, rawIdentifier: s, type: "7", sourceType: s };
    assert.is(entityBody(entity).toString("utf8"), JSON.stringify(entity), JSON.stringify(s));
  }
  const rng = new Rng(26);
  const earlier: string[] = [];
  for (let i = 0; i < 500; i++) {
    const entity: Entity = {
      entityId: randomIdentifier(rng, earlier, true) || "x",
      rawIdentifier: randomIdentifier(rng, earlier, true),
      type: rng.pick(TYPES),
      sourceType: randomIdentifier(rng, earlier, true),
    };
    earlier.push(entity.rawIdentifier);
    const body = entityBody(entity);
    assert.is(body.toString("utf8"), JSON.stringify(entity));
    assert.is(body.length, Buffer.byteLength(JSON.stringify(entity)));
  }
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

test("every item of every engine page has exactly the schema's fields, in its order, all strings", () => {
  const graph = buildSmallGraph({ items: true });
  const search = graph.search({ q: "e", limit: 100 }).items;
  const statements = graph.statements({ limit: 200 }).items;
  for (const [items, schema] of [
    [search, ENTITY_SCHEMA],
    [statements, STATEMENT_SCHEMA],
  ] as const) {
    assert.ok(items.length > 5);
    for (const item of items) {
      assert.equal(Object.keys(item), [...schema.required]);
      assert.ok(Object.values(item).every((v) => typeof v === "string"));
    }
  }
});

test("nothing is kept between calls: the same entityId with new content is written anew", () => {
  entityPage({ items: [{ entityId: "e", rawIdentifier: "old", type: "0", sourceType: "" }], nextCursor: null });
  const body = entityPage({
    items: [{ entityId: "e", rawIdentifier: "new", type: "0", sourceType: "" }],
    nextCursor: null,
  });
  assert.match(body.toString(), /"new"/);
});

test("an empty last page is the same bytes every time; an empty page with a cursor is written out", () => {
  const want = JSON.stringify({ items: [], nextCursor: null });
  for (let i = 0; i < 3; i++) {
    assert.is(entityPage({ items: [], nextCursor: null }).toString("utf8"), want);
    assert.is(statementPage({ items: [], nextCursor: null }).toString("utf8"), want);
  }
  // Not the constant: the cursor is part of the bytes.
  assert.is(entityPage({ items: [], nextCursor: "abc" }).toString("utf8"), '{"items":[],"nextCursor":"abc"}');
});

test("seeded random pages of either kind, long and short, equal JSON.stringify of them", () => {
  const rng = new Rng(424242);
  const text = (): string =>
    rng.chance(0.05) ? 'x\u0000"\\'.repeat(rng.range(1, 3000)) : randomIdentifier(rng, [], rng.chance(0.2));
  for (let round = 0; round < 300; round++) {
    const nextCursor = rng.chance(0.5) ? null : text();
    const count = rng.range(0, 60);
    const entities: Entity[] = Array.from({ length: count }, () => ({
      entityId: text(),
      rawIdentifier: text(),
      type: rng.pick(TYPES),
      sourceType: text(),
    }));
    const statements: Statement[] = Array.from({ length: count }, () => ({
      statementFingerprint: text(),
      subjectEntityId: text(),
      subjectRawIdentifier: text(),
      predicateEntityId: text(),
      predicateRawIdentifier: text(),
      objectEntityId: text(),
      objectRawIdentifier: text(),
    }));
    assert.equal(
      entityPage({ items: entities, nextCursor }),
      Buffer.from(JSON.stringify({ items: entities, nextCursor })),
    );
    assert.equal(
      statementPage({ items: statements, nextCursor }),
      Buffer.from(JSON.stringify({ items: statements, nextCursor })),
    );
  }
});

test("errorBody: the sentence, then the code", () => {
  assert.is(errorBody('bad "q".', "INVALID_LIMIT").toString(), '{"error":"bad \\"q\\".","code":"INVALID_LIMIT"}');
  assert.is(errorBody("\u2028\ud800", "X").toString(), '{"error":"\u2028\\ud800","code":"X"}');
});

test.run();

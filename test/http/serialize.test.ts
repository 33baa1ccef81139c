/**
 * The serializers write exactly what JSON.stringify writes for the schema's fields, including every
 * character JSON must escape, and a cached fragment never outlives its graph.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Entity, Statement } from "../../src/engine/types.js";
import { errorBody, jsonString, PageSerializer } from "../../src/http/serialize.js";

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
  const body = new PageSerializer().entities({
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

test("entity and statement pages equal JSON.stringify of the same fields", () => {
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
  const ser = new PageSerializer();
  for (const nextCursor of [null, "AbC_-"]) {
    for (let round = 0; round < 2; round++) {
      // round 1 is served from the fragment cache
      assert.is(
        ser.entities({ items: entities, nextCursor }).toString("utf8"),
        JSON.stringify({ items: entities, nextCursor }),
      );
      assert.is(
        ser.statements({ items: statements, nextCursor }).toString("utf8"),
        JSON.stringify({ items: statements, nextCursor }),
      );
    }
  }
  assert.is(ser.entities({ items: [], nextCursor: null }).toString(), '{"items":[],"nextCursor":null}');
});

test("fields are written in schema order, and only the schema's fields", () => {
  const odd = { sourceType: "s", type: "1", extra: "no", rawIdentifier: "r", entityId: "e" } as unknown as Entity;
  assert.is(
    new PageSerializer().entities({ items: [odd], nextCursor: null }).toString(),
    '{"items":[{"entityId":"e","rawIdentifier":"r","type":"1","sourceType":"s"}],"nextCursor":null}',
  );
});

test("a field that is not a string is a bug, not silent output", () => {
  const broken = { entityId: "e", rawIdentifier: undefined, type: "0", sourceType: "" } as unknown as Entity;
  assert.throws(() => new PageSerializer().entities({ items: [broken], nextCursor: null }), /rawIdentifier/);
});

test("a new serializer (a new graph) does not reuse the old fragments", () => {
  const a = new PageSerializer();
  a.entities({ items: [{ entityId: "e", rawIdentifier: "old", type: "0", sourceType: "" }], nextCursor: null });
  const b = new PageSerializer();
  assert.match(
    b
      .entities({ items: [{ entityId: "e", rawIdentifier: "new", type: "0", sourceType: "" }], nextCursor: null })
      .toString(),
    /"new"/,
  );
});

test("errorBody", () => {
  assert.is(errorBody('bad "q".'), '{"error":"bad \\"q\\"."}');
});

test.run();

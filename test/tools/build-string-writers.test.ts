/**
 * The generated string writers are current
 * ========================================
 * tools/build-string-writers.ts regenerates src/http/string-writers.generated.ts from json-bytes.ts's
 * `writeString` and the item schemas: the checked-in file must be exactly what it writes now (as
 * Fastify's `test:validator:integrity` diffs its generated serializer), so a change to the writer or
 * to a schema that was not regenerated fails here, naming the first line that differs. Also: one
 * writer per schema field, named as serialize.ts imports them, and a template the tool cannot find
 * is an error, not an empty file.
 */

import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ENTITY_SCHEMA, STATEMENT_SCHEMA } from "../../src/http/openapi.js";
import * as generated from "../../src/http/string-writers.generated.js";
import { GENERATED_PATH, stringWritersSource, TEMPLATE_PATH, writerName } from "../../tools/build-string-writers.js";

test("the checked-in string-writers.generated.ts is what the tool writes now (else: npm run build:string-writers)", () => {
  const expected = stringWritersSource(readFileSync(TEMPLATE_PATH, "utf8")).split("\n");
  const actual = readFileSync(GENERATED_PATH, "utf8").split("\n");
  const first = expected.findIndex((line, i) => actual[i] !== line);
  assert.is(
    first === -1 && actual.length === expected.length
      ? "current"
      : `line ${first + 1}: ${JSON.stringify(actual[first])}`,
    "current",
    "string-writers.generated.ts is stale: run `npm run build:string-writers`",
  );
});

test("one writer per field of each item schema, named as serialize.ts imports them", () => {
  const names = [
    ...ENTITY_SCHEMA.required.map((f) => writerName("entity", f)),
    ...STATEMENT_SCHEMA.required.map((f) => writerName("statement", f)),
  ];
  assert.equal(Object.keys(generated).sort(), names.slice().sort());
  assert.ok(names.includes("writeStatementPredicateRawIdentifier"));
});

test("a template without writeString's signature or its closing line is refused", () => {
  assert.throws(() => stringWritersSource("const x = 1;\n"), /no line/);
  assert.throws(
    () => stringWritersSource("\nfunction writeString(out: JsonBytes, s: string): void {\n  x;\n"),
    /closing/,
  );
});

test.run();

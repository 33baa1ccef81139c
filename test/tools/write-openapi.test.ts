/**
 * docs/openapi.json is the served document
 * ========================================
 * The checked-in docs/openapi.json must be exactly what tools/write-openapi.ts writes from
 * src/http/openapi.ts: a change to the API that is not regenerated (`npm run docs:openapi`) fails here.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { OPENAPI_FILE, openapiText } from "../../tools/write-openapi.js";

test("docs/openapi.json equals the document the server serves (npm run docs:openapi writes it)", () => {
  const checkedIn = readFileSync(join(process.cwd(), OPENAPI_FILE), "utf8");
  assert.ok(checkedIn === openapiText(), `${OPENAPI_FILE} is out of date: run npm run docs:openapi`);
});

test("the file parses as the OpenAPI 3.1 document of the API", () => {
  const doc = JSON.parse(readFileSync(join(process.cwd(), OPENAPI_FILE), "utf8"));
  assert.match(doc.openapi, /^3\.1\./);
  assert.ok("/graph/v1/search" in doc.paths);
  assert.ok("/graph/v1/statements" in doc.paths);
});

test.run();

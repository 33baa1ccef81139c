/**
 * The OpenAPI 3.1 document: its shape, and live responses checked against it with a real JSON Schema
 * 2020-12 validator (ajv), including every error status. The bounds the document states are tried
 * against the server, so the document cannot claim what the server does not do.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openLive } from "../../src/changes/live-store.js";
import { OPENAPI_DOCUMENT } from "../../src/http/openapi.js";
import { STATUS_BY_CODE, STATUS_INTERNAL_ERROR } from "../../src/http/status.js";
import { buildSmallGraph, getJson, post, rawRequest, request, startServer, KEY, SECRET } from "../support/http.js";

const DOC_ID = "https://quiver.test/openapi.json";
const ajv = new Ajv2020({ strict: true, allErrors: true });
// The document's own keys are not JSON Schema keywords: declare them so strict mode accepts the root.
ajv.addVocabulary(["openapi", "info", "paths", "components"]);
ajv.addSchema({ $id: DOC_ID, ...JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)) });

function schema(name: string): ValidateFunction {
  const v = ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
  if (v === undefined) throw new Error(`no schema ${name}`);
  return v;
}

function assertValid(name: string, value: unknown): void {
  const v = schema(name);
  assert.ok(v(value), `${name}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(value).slice(0, 200)}`);
}

/** A response header's value against the schema of components.headers[name]. */
function assertHeaderValid(name: string, value: unknown): void {
  const v = ajv.getSchema(`${DOC_ID}#/components/headers/${name}/schema`);
  if (v === undefined) throw new Error(`no header ${name}`);
  assert.ok(v(value), `header ${name}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(value)}`);
}

const doc = OPENAPI_DOCUMENT as any;

test("document: OpenAPI 3.1, the six paths, the key scheme", () => {
  assert.is(doc.openapi, "3.1.0");
  assert.equal(Object.keys(doc.paths).sort(), [
    "/graph/v1/changes",
    "/graph/v1/entities/{entityId}",
    "/graph/v1/openapi.json",
    "/graph/v1/search",
    "/graph/v1/statements",
    "/healthz",
  ]);
  assert.equal(doc.components.securitySchemes.apiKeyAuth, {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: doc.components.securitySchemes.apiKeyAuth.description,
  });
  assert.match(doc.components.securitySchemes.apiKeyAuth.description, /QUIVER_WRITE_KEYS/);
});

test("document: both endpoints list every status and every parameter with its bounds", () => {
  for (const path of ["/graph/v1/search", "/graph/v1/statements"]) {
    for (const method of ["get", "head"]) {
      const op = doc.paths[path][method];
      assert.equal(
        Object.keys(op.responses).sort(),
        ["200", "304", "400", "401", "405", "414", "500"],
        `${method} ${path}`,
      );
      assert.equal(op.security, [{ apiKeyAuth: [] }]);
    }
  }
  const inQuery = (path: string) => doc.paths[path].get.parameters.filter((p: any) => p.in === "query");
  const search = Object.fromEntries(inQuery("/graph/v1/search").map((p: any) => [p.name, p]));
  assert.equal(Object.keys(search), ["q", "type", "limit", "cursor", "order", "count"]);
  assert.equal(search.order.schema, { type: "string", enum: ["name", "score"], default: "name" });
  assert.equal(search.count.schema, { type: "boolean", default: false });
  assert.equal(search.q.schema, { type: "string", minLength: 1, maxLength: 256 });
  assert.is(search.q.required, true);
  assert.equal(search.type.schema.enum, ["0", "1", "2", "3", "4", "5", "6", "7"]);
  assert.equal(search.limit.schema, { type: "integer", minimum: 1, maximum: 100, default: 20 });
  const statements = Object.fromEntries(inQuery("/graph/v1/statements").map((p: any) => [p.name, p]));
  assert.equal(Object.keys(statements), [
    "subjectEntityId",
    "predicateEntityId",
    "objectEntityId",
    "limit",
    "cursor",
    "count",
  ]);
  assert.equal(statements.count.schema, { type: "boolean", default: false });
  assert.equal(statements.limit.schema, { type: "integer", minimum: 1, maximum: 200, default: 50 });
  for (const p of Object.values(statements) as any[]) assert.is(p.required, false);
  assert.equal(doc.components.schemas.EntityPage.properties.nextCursor.type, ["string", "null"]);
  assert.equal(doc.components.schemas.StatementPage.required, ["items", "nextCursor"]);
  for (const page of ["EntityPage", "StatementPage"])
    assert.equal(doc.components.schemas[page].properties.total.type, "integer", `${page}: total, not required`);
});

test("document: the entity lookup, its path parameter, its statuses (404 ENTITY_NOT_FOUND)", () => {
  for (const method of ["get", "head"]) {
    const op = doc.paths["/graph/v1/entities/{entityId}"][method];
    assert.equal(Object.keys(op.responses).sort(), ["200", "304", "400", "401", "404", "405", "414", "500"], method);
    assert.equal(op.security, [{ apiKeyAuth: [] }]);
    const [id] = op.parameters;
    assert.equal([id.name, id.in, id.required], ["entityId", "path", true]);
    assert.not.ok(
      op.parameters.some((p: any) => p.in === "query"),
      "no query parameter",
    );
  }
  const get = doc.paths["/graph/v1/entities/{entityId}"].get;
  assert.equal(get.responses["200"].content["application/json"].schema, { $ref: "#/components/schemas/Entity" });
  assert.match(get.responses["404"].description, /ENTITY_NOT_FOUND/);
  assert.ok(doc.components.schemas.Error.properties.code.enum.includes("ENTITY_NOT_FOUND"));
});

test("document: every error status the server can answer has a response of the Error schema", () => {
  const { NotModified, ...responses } = doc.components.responses;
  assert.equal(Object.keys(NotModified.headers), ["ETag", "Cache-Control", "Vary", "X-Request-Id"]);
  assert.equal(Object.keys(responses), [
    "BadRequest",
    "Unauthorized",
    "NotFound",
    "MethodNotAllowed",
    "UriTooLong",
    "RequestTimeout",
    "HeadersTooLarge",
    "InternalError",
  ]);
  for (const r of Object.values(responses) as any[])
    assert.equal(r.content["application/json"].schema, { $ref: "#/components/schemas/Error" });
  assert.equal(responses.MethodNotAllowed.headers.Allow.schema.const, "GET, HEAD");
});

test("document: error codes, caching, compression and request ids are documented (regression: none were)", () => {
  const codes = doc.components.schemas.Error.properties.code.enum as string[];
  assert.equal(doc.components.schemas.Error.required, ["error", "code"]);
  for (const code of [
    "INVALID_LIMIT",
    "API_KEY_MISSING",
    "NOT_FOUND",
    "TARGET_TOO_LONG",
    "HEADERS_TOO_LARGE",
    "INTERNAL_ERROR",
  ])
    assert.ok(codes.includes(code), code);
  for (const code of ["INVALID_DATA", "INVALID_SNAPSHOT"])
    assert.not.ok(codes.includes(code), `${code} never reaches a client`);
  for (const path of ["/graph/v1/search", "/graph/v1/statements"]) {
    const op = doc.paths[path].get;
    assert.equal(Object.keys(op.responses["200"].headers), [
      "ETag",
      "Cache-Control",
      "Vary",
      "Content-Encoding",
      "X-Request-Id",
      "X-Quiver-Sequence",
    ]);
    assert.ok(op.parameters.some((p: any) => p.$ref === "#/components/parameters/IfNoneMatch"));
    assert.ok(op.parameters.some((p: any) => p.$ref === "#/components/parameters/XRequestId"));
  }
  assert.ok("304" in doc.paths["/graph/v1/openapi.json"].get.responses);
  assert.equal(doc.components.headers.CacheControlPrivate.schema.const, "private");
});

test("document: X-Quiver-Sequence on every answer of the data endpoints, a 401's too (regression: undocumented)", () => {
  const seq = { $ref: "#/components/headers/XQuiverSequence" };
  for (const path of ["/graph/v1/search", "/graph/v1/statements", "/graph/v1/entities/{entityId}"]) {
    const { responses } = doc.paths[path].get;
    for (const [status, r] of Object.entries(responses) as [string, any][])
      assert.equal(r.headers["X-Quiver-Sequence"], seq, `${path} ${status}`);
  }
  // The changes path too, refusals included (regression: only its 200 documented and carried it).
  for (const [status, r] of Object.entries(doc.paths["/graph/v1/changes"].post.responses) as [string, any][])
    assert.equal(r.headers["X-Quiver-Sequence"], seq, `changes ${status}`);
  assert.equal(doc.components.headers.XQuiverSequence.schema.pattern, "^(0|[1-9][0-9]*)$");
});

test("document: POST /graph/v1/changes, its body, its result and every status (regression: undocumented)", () => {
  assert.equal(Object.keys(doc.paths["/graph/v1/changes"]), ["post"]);
  const op = doc.paths["/graph/v1/changes"].post;
  assert.match(op.description, /--changes DIR/);
  assert.match(op.description, /404/);
  assert.equal(op.security, [{ apiKeyAuth: [] }]);
  assert.equal(Object.keys(op.responses).sort(), [
    "200",
    "400",
    "401",
    "403",
    "405",
    "409",
    "413",
    "414",
    "500",
    "503",
  ]);
  assert.is(op.requestBody.required, true);
  assert.equal(Object.keys(op.requestBody.content), ["application/x-ndjson"]);
  assert.equal(op.responses["200"].content["application/json"].schema, { $ref: "#/components/schemas/ChangeResult" });
  for (const status of ["400", "403", "405", "409", "413", "503"])
    assert.equal(op.responses[status].content["application/json"].schema, { $ref: "#/components/schemas/Error" });
  assert.equal(op.responses["405"].headers.Allow.schema.const, "POST");
  assert.equal(op.responses["503"].headers["Retry-After"], { $ref: "#/components/headers/RetryAfter" });
  const codes = doc.components.schemas.Error.properties.code.enum as string[];
  for (const [code, text] of [
    ["WRITE_FORBIDDEN", "403"],
    ["CHANGES_TOO_LARGE", "413"],
    ["CHANGE_LOG_UNAVAILABLE", "503"],
    ["INVALID_CONTENT_TYPE", "400"],
    ["INVALID_CHANGE", "400"],
    ["CHANGE_CONFLICT", "409"],
  ] as const) {
    assert.ok(codes.includes(code), code);
    assert.match(op.responses[text].description, code);
  }
});

test("document: the error-code enum is every code the HTTP layer can send", () => {
  const sent = Object.entries(STATUS_BY_CODE)
    .filter(([code, status]) => status !== STATUS_INTERNAL_ERROR || code === "INTERNAL_ERROR")
    .map(([code]) => code)
    .sort();
  assert.equal([...doc.components.schemas.Error.properties.code.enum].sort(), sent);
});

test("validator: ChangeLine takes the four kinds and refuses a line that is two", () => {
  const entity = { entityId: "q:x", rawIdentifier: "X", type: "4", sourceType: "" };
  const statement = { subjectEntityId: "a", predicateEntityId: "b", objectEntityId: "c" };
  assertValid("ChangeLine", { op: "put", entity });
  assertValid("ChangeLine", { op: "put", entity: { ...entity, score: 7 }, note: "ignored" });
  assertValid("ChangeLine", { op: "delete", entityId: "q:x", cascade: true });
  assertValid("ChangeLine", { op: "put", statement });
  assertValid("ChangeLine", { op: "put", statement: { ...statement, statementFingerprint: "f" } });
  assertValid("ChangeLine", { op: "delete", statementFingerprint: "0123456789abcdef" });
  const reject = (value: unknown) => assert.not.ok(schema("ChangeLine")(value), JSON.stringify(value));
  reject({ op: "put", entity, statement });
  reject({ op: "delete", entityId: "q:x", statementFingerprint: "f" });
  reject({ op: "put", entity: { ...entity, type: "9" } });
  reject({ op: "put", entity: { ...entity, score: -1 } });
  reject({ op: "delete", entityId: "" });
  reject({ op: "replace", entity });
  reject({ op: "put" });
  assertValid("ChangeResult", { sequence: 1, entities: { put: 1, deleted: 0 }, statements: { put: 0, deleted: 0 } });
  assert.not.ok(
    schema("ChangeResult")({ sequence: 0, entities: { put: 1, deleted: 0 }, statements: { put: 0, deleted: 0 } }),
  );
  assert.not.ok(schema("ChangeResult")({ sequence: 1, entities: { put: 1 }, statements: { put: 0, deleted: 0 } }));
});

test("document: every $ref resolves, every component schema compiles in strict mode", () => {
  const refs: string[] = [];
  (function collect(node: unknown): void {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref") refs.push(v as string);
        else collect(v);
      }
    }
  })(doc);
  assert.ok(refs.length > 10);
  for (const ref of refs) {
    const target = ref
      .slice(2)
      .split("/")
      .reduce((n: any, part) => n?.[part], doc);
    assert.ok(target !== undefined, `${ref} resolves`);
  }
  for (const name of Object.keys(doc.components.schemas)) assert.type(schema(name), "function");
});

test("validator: the schemas reject what the contract rules out", () => {
  const entity = { entityId: "e", rawIdentifier: "", type: "0", sourceType: "" };
  assertValid("EntityPage", { items: [entity], nextCursor: null });
  const reject = (name: string, value: unknown) =>
    assert.not.ok(schema(name)(value), `${name} rejects ${JSON.stringify(value)}`);
  reject("EntityPage", { items: [entity] });
  reject("EntityPage", { items: [entity], nextCursor: "not a cursor!" });
  reject("EntityPage", { items: [{ ...entity, type: "8" }], nextCursor: null });
  reject("EntityPage", { items: [{ ...entity, extra: 1 }], nextCursor: null });
  reject("EntityPage", { items: [{ ...entity, entityId: "" }], nextCursor: null });
  reject("StatementPage", { items: [entity], nextCursor: null });
  reject("Error", { error: "", code: "NOT_FOUND" });
  reject("Error", { error: "x", code: "NOT_FOUND", stack: "y" });
  reject("Error", { error: "x" });
  reject("Error", { error: "x", code: "NOT_A_CODE" });
  assertValid("EntityPage", { items: [], nextCursor: null, total: 0 });
  reject("EntityPage", { items: [], nextCursor: null, total: -1 });
  reject("EntityPage", { items: [], nextCursor: null, total: 1.5 });
  reject("StatementPage", { items: [], nextCursor: null, total: "3" });
  assertValid("Entity", entity);
  assertValid("Error", { error: "x", code: "INVALID_LIMIT" });
});

type Running = Awaited<ReturnType<typeof startServer>>;
let server: Running;

test.before(async () => {
  const graph = buildSmallGraph({ items: true });
  const search = graph.search.bind(graph);
  graph.search = (p) => {
    if (p.q === "fault") throw new Error("test fault");
    return search(p);
  };
  server = await startServer(graph, { onError: () => {} });
});
test.after(async () => {
  await server.close();
});

test("live: pages of both endpoints validate, first, middle, last and empty", async () => {
  const paths = [
    "/graph/v1/search?q=item&limit=100",
    "/graph/v1/search?q=he+said",
    "/graph/v1/search?q=nothing-matches-this",
    "/graph/v1/statements?limit=200",
    "/graph/v1/statements?subjectEntityId=q:quote",
    "/graph/v1/statements?objectEntityId=unknown",
  ];
  for (const path of paths) {
    const { status, body } = await getJson(server.port, path);
    assert.is(status, 200);
    assertValid(path.includes("search") ? "EntityPage" : "StatementPage", body);
  }
  const first = (await getJson(server.port, "/graph/v1/search?q=item&limit=100")).body;
  const middle = (await getJson(server.port, `/graph/v1/search?q=item&limit=100&cursor=${first.nextCursor}`)).body;
  assertValid("EntityPage", middle);
  const last = (await getJson(server.port, `/graph/v1/search?q=item&limit=100&cursor=${middle.nextCursor}`)).body;
  assert.is(last.nextCursor, null);
  assertValid("EntityPage", last);
});

test("live: totals, score order and lookups validate", async () => {
  const paths: [string, string][] = [
    ["/graph/v1/search?q=item&limit=100&count=true", "EntityPage"],
    ["/graph/v1/search?q=item&order=score&count=true&type=3", "EntityPage"],
    ["/graph/v1/search?q=nothing-matches-this&count=true", "EntityPage"],
    ["/graph/v1/statements?count=true", "StatementPage"],
    ["/graph/v1/statements?objectEntityId=unknown&count=true", "StatementPage"],
    ["/graph/v1/entities/q:berlin", "Entity"],
    ["/graph/v1/entities/q:quote", "Entity"],
  ];
  for (const [path, schemaName] of paths) {
    const { status, body } = await getJson(server.port, path);
    assert.is(status, 200, path);
    assertValid(schemaName, body);
    if (path.includes("count=true")) assert.type(body.total, "number", path);
  }
});

test("live: every error status validates against the Error schema", async () => {
  const cases: [number, Promise<{ status: number; body: string }>][] = [
    [400, request(server.port, "/graph/v1/search?q=")],
    [400, request(server.port, "/graph/v1/statements?limit=500")],
    [401, request(server.port, "/graph/v1/search?q=a", { key: null })],
    [404, request(server.port, "/missing")],
    [404, request(server.port, "/graph/v1/entities/no-such-entity")],
    [404, request(server.port, "/graph/v1/entities/")],
    [400, request(server.port, "/graph/v1/entities/q:berlin?x=1")],
    [400, request(server.port, "/graph/v1/search?q=a&order=rank")],
    [400, request(server.port, "/graph/v1/statements?count=1")],
    [401, request(server.port, "/graph/v1/entities/q:berlin", { key: null })],
    [405, request(server.port, "/graph/v1/entities/q:berlin", { method: "POST" })],
    [405, request(server.port, "/graph/v1/statements", { method: "DELETE" })],
    [414, request(server.port, `/graph/v1/search?q=${"x".repeat(9000)}`)],
    [
      414,
      rawRequest(
        server.port,
        `GET /graph/v1/search?q=${"x".repeat(20000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`,
      ),
    ],
    [500, request(server.port, "/graph/v1/search?q=fault")],
  ];
  for (const [status, pending] of cases) {
    const r = await pending;
    assert.is(r.status, status);
    assertValid("Error", JSON.parse(r.body));
  }
  assertValid("Health", (await getJson(server.port, "/healthz", null)).body);
});

test("live: the bounds the document states are the bounds the server enforces", async () => {
  for (const path of ["/graph/v1/search", "/graph/v1/statements"]) {
    const limit = doc.paths[path].get.parameters.find((p: any) => p.name === "limit").schema;
    const base = path.endsWith("search") ? `${path}?q=item&` : `${path}?`;
    assert.is((await request(server.port, `${base}limit=${limit.minimum}`)).status, 200);
    assert.is((await request(server.port, `${base}limit=${limit.maximum}`)).status, 200);
    assert.is((await request(server.port, `${base}limit=${limit.minimum - 1}`)).status, 400);
    assert.is((await request(server.port, `${base}limit=${limit.maximum + 1}`)).status, 400);
    const page = (await getJson(server.port, base.slice(0, -1))).body;
    assert.is(page.items.length, limit.default, "default limit");
  }
  const q = doc.paths["/graph/v1/search"].get.parameters.find((p: any) => p.name === "q").schema;
  assert.is((await request(server.port, `/graph/v1/search?q=${"a".repeat(q.maxLength)}`)).status, 200);
  assert.is((await request(server.port, `/graph/v1/search?q=${"a".repeat(q.maxLength + 1)}`)).status, 400);
  for (const t of doc.paths["/graph/v1/search"].get.parameters.find((p: any) => p.name === "type").schema.enum) {
    assert.is((await request(server.port, `/graph/v1/search?q=a&type=${t}`)).status, 200);
  }
});

test("live: X-Quiver-Sequence on the data endpoints' 200, 304 and errors validates, a 401's too", async () => {
  const ok = await request(server.port, "/graph/v1/search?q=item");
  const cases = [
    ok,
    await request(server.port, "/graph/v1/statements?limit=1"),
    await request(server.port, "/graph/v1/entities/q:berlin"),
    await request(server.port, "/graph/v1/search?q=item", { headers: { "If-None-Match": ok.headers.etag as string } }),
    await request(server.port, "/graph/v1/search?q="),
    await request(server.port, "/graph/v1/entities/no-such-entity"),
    await request(server.port, "/graph/v1/statements", { method: "DELETE" }),
    await request(server.port, "/graph/v1/search?q=fault"),
  ];
  assert.equal(
    cases.map((r) => r.status),
    [200, 200, 200, 304, 400, 404, 405, 500],
  );
  for (const r of cases) {
    assert.is(r.headers["x-quiver-sequence"], "0", String(r.status));
    assertHeaderValid("XQuiverSequence", r.headers["x-quiver-sequence"]);
  }
  const unauthorized = await request(server.port, "/graph/v1/search?q=a", { key: null });
  assert.is(unauthorized.status, 401);
  assert.is(unauthorized.headers["x-quiver-sequence"], "0");
  assertHeaderValid("XQuiverSequence", unauthorized.headers["x-quiver-sequence"]);
  for (const path of ["/graph/v1/search", "/graph/v1/statements", "/graph/v1/entities/{entityId}"])
    assert.ok("X-Quiver-Sequence" in doc.paths[path].get.responses["401"].headers, `${path}: 401 documents it`);
});

test("live: every answer of POST /graph/v1/changes validates against the document", async () => {
  const WRITE_KEY = "sk_write_openapi_0123";
  const CHANGES = "/graph/v1/changes";
  const op = doc.paths[CHANGES].post;
  const putX = '{"op":"put","entity":{"entityId":"q:x","rawIdentifier":"Berlinale","type":"4","sourceType":"t"}}';
  const putXs =
    '{"op":"put","statement":{"subjectEntityId":"q:x","predicateEntityId":"q:located","objectEntityId":"q:berlin"}}';
  const dir = mkdtempSync(join(tmpdir(), "quiver-openapi-changes-"));
  const store = openLive(buildSmallGraph(), dir, { cursorSecret: SECRET });
  const live = await startServer(store.graph as never, {
    changes: store,
    writeKeys: [WRITE_KEY],
    cursorSecret: SECRET,
    maxChangeBytes: 1000,
  });
  try {
    // The lines sent are ChangeLines of the document.
    for (const line of [putX, putXs]) assertValid("ChangeLine", JSON.parse(line));
    const cases: [number, string, Awaited<ReturnType<typeof post>>][] = [
      [403, "WRITE_FORBIDDEN", await post(live.port, CHANGES, putX, { key: KEY })],
      [401, "API_KEY_MISSING", await post(live.port, CHANGES, putX, { key: null })],
      [405, "METHOD_NOT_ALLOWED", await request(live.port, CHANGES, { method: "GET", key: WRITE_KEY })],
      [
        400,
        "INVALID_CONTENT_TYPE",
        await post(live.port, CHANGES, putX, { key: WRITE_KEY, contentType: "application/json" }),
      ],
      [400, "INVALID_CHANGE", await post(live.port, CHANGES, '{"op":"put","entity":{}}', { key: WRITE_KEY })],
      [409, "CHANGE_CONFLICT", await post(live.port, CHANGES, putXs, { key: WRITE_KEY })],
      [413, "CHANGES_TOO_LARGE", await post(live.port, CHANGES, `${putX}\n`.repeat(20), { key: WRITE_KEY })],
    ];
    for (const [status, code, r] of cases) {
      assert.is(r.status, status, code);
      assert.ok(String(status) in op.responses, `${status} documented`);
      const body = JSON.parse(r.body);
      assertValid("Error", body);
      assert.is(body.code, code);
      // Every answer names the graph's last batch (none yet), a 401's too.
      assert.is(r.headers["x-quiver-sequence"], "0", code);
      assertHeaderValid("XQuiverSequence", r.headers["x-quiver-sequence"]);
      assert.ok("X-Quiver-Sequence" in op.responses[String(status)].headers, `${status} documents it`);
    }
    assert.is(cases[2]![2].headers["allow"], op.responses["405"].headers.Allow.schema.const);
    const ok = await post(live.port, CHANGES, `${putX}\n${putXs}\n`, { key: WRITE_KEY });
    assert.is(ok.status, 200);
    assertValid("ChangeResult", JSON.parse(ok.body));
    assert.is(ok.headers["x-quiver-sequence"], "1");
    assertHeaderValid("XQuiverSequence", ok.headers["x-quiver-sequence"]);
    assertHeaderValid("CacheControlNoStore", ok.headers["cache-control"]);
    assertHeaderValid("XRequestId", ok.headers["x-request-id"]);
    const after = await request(live.port, "/graph/v1/entities/q:x");
    assert.is(after.status, 200);
    assertValid("Entity", JSON.parse(after.body));
    assertHeaderValid("XQuiverSequence", after.headers["x-quiver-sequence"]);
    assert.is(after.headers["x-quiver-sequence"], "1");
    // The log's directory gone: the write fails as on a full or read-only disk.
    rmSync(dir, { recursive: true, force: true });
    const unavailable = await post(live.port, CHANGES, putX, { key: WRITE_KEY });
    assert.is(unavailable.status, 503);
    assertValid("Error", JSON.parse(unavailable.body));
    assert.is(JSON.parse(unavailable.body).code, "CHANGE_LOG_UNAVAILABLE");
    assertHeaderValid("RetryAfter", unavailable.headers["retry-after"]);
  } finally {
    await live.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("served: /graph/v1/openapi.json is exactly the document", async () => {
  const r = await request(server.port, "/graph/v1/openapi.json", { key: null });
  assert.equal(JSON.parse(r.body), JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
});

test.run();

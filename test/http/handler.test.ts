/**
 * The contract's tables over a real server: every status row, the error body, auth before
 * parameters, HEAD, 404/405/414, /healthz, the OpenAPI path, and each 400 naming its parameter.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { isQuiverError } from "../../src/engine/errors.js";
import { createHandler } from "../../src/http/handler.js";
import {
  ITEM_COUNT,
  KEY,
  buildSmallGraph,
  getJson,
  rawRequest,
  request,
  startServer,
  walk,
  type Reply,
} from "../support/http.js";

type Running = Awaited<ReturnType<typeof startServer>>;
let server: Running;
let port = 0;

test.before(async () => {
  server = await startServer(buildSmallGraph({ items: true }));
  port = server.port;
});
test.after(async () => {
  await server.close();
});

/** An error answer: the status, JSON content type, exactly one "error" key holding a sentence. */
function assertError(reply: Reply, status: number, mentions?: string): string {
  assert.is(reply.status, status, `status for ${reply.body}`);
  assert.is(reply.headers["content-type"], "application/json");
  const body = JSON.parse(reply.body);
  assert.equal(Object.keys(body), ["error"]);
  assert.type(body.error, "string");
  assert.ok(body.error.length > 20 && /[.]$/.test(body.error), `a sentence: ${body.error}`);
  assert.not.match(body.error, /\n\s+at /, "no stack trace");
  if (mentions !== undefined)
    assert.ok(body.error.includes(mentions), `${JSON.stringify(body.error)} mentions ${mentions}`);
  return body.error;
}

// ---- 200 --------------------------------------------------------------------------------------

test("search: a page with items and nextCursor, both keys always present", async () => {
  const { status, body, reply } = await getJson(port, "/graph/v1/search?q=STRASSE");
  assert.is(status, 200);
  assert.is(reply.headers["content-type"], "application/json");
  assert.is(Number(reply.headers["content-length"]), Buffer.byteLength(reply.body));
  assert.equal(body, {
    items: [
      { entityId: "q:strasse", rawIdentifier: "Straße", type: "0", sourceType: "test" },
      { entityId: "q:berliner-strasse", rawIdentifier: "Berliner Straße", type: "3", sourceType: "test" },
    ],
    nextCursor: null,
  });
});

test("search: folding through HTTP (istanbul finds İstanbul), type filter", async () => {
  assert.equal(
    (await getJson(port, "/graph/v1/search?q=istanbul")).body.items.map((e: any) => e.entityId),
    ["q:istanbul"],
  );
  assert.equal(
    (await getJson(port, "/graph/v1/search?q=stra%C3%9Fe&type=3")).body.items.map((e: any) => e.entityId),
    ["q:berliner-strasse"],
  );
});

test("search: JSON escaping of quotes, backslash, controls, U+2028 and tab round-trips", async () => {
  const { body } = await getJson(port, "/graph/v1/search?q=he+said");
  assert.equal(body.items, [
    {
      entityId: "q:quote",
      rawIdentifier: 'He said "hi" \\ then \u0001 left\u2028',
      type: "5",
      sourceType: "tab\there",
    },
  ]);
});

test("search: '+' is a space, %2B a plus, a leading BOM (%EF%BB%BF) is kept", async () => {
  assert.equal((await getJson(port, "/graph/v1/search?q=Berliner+Stra%C3%9Fe")).body.items.length, 1);
  assert.equal(
    (await getJson(port, "/graph/v1/search?q=c%2B%2B")).body.items.map((e: any) => e.entityId),
    ["q:plus"],
  );
  assert.equal(
    (await getJson(port, "/graph/v1/search?q=a%2Bb")).body.items.map((e: any) => e.entityId),
    ["q:plus"],
  );
  assert.equal(
    (await getJson(port, "/graph/v1/search?q=%EF%BB%BFmark")).body.items.map((e: any) => e.entityId),
    ["q:bom"],
  );
});

test("search: limit bounds 1 and 100 are accepted; q of 256 code units is accepted", async () => {
  assert.is((await getJson(port, "/graph/v1/search?q=item&limit=1")).body.items.length, 1);
  assert.is((await getJson(port, "/graph/v1/search?q=item&limit=100")).body.items.length, 100);
  assert.is((await getJson(port, "/graph/v1/search?q=item")).body.items.length, 20, "default 20");
  const emoji128 = "%F0%9F%98%80".repeat(128); // 128 x U+1F600 = 256 UTF-16 code units
  assert.is((await getJson(port, `/graph/v1/search?q=${emoji128}`)).status, 200);
});

test("statements: filters combine with AND; an unknown id gives an empty page; default limit 50", async () => {
  const { body } = await getJson(port, "/graph/v1/statements?predicateEntityId=q:located&objectEntityId=q:berlin");
  assert.equal(
    body.items.map((s: any) => s.subjectEntityId),
    ["q:berliner-strasse", "q:strasse"],
  );
  assert.equal(body.items[0], {
    statementFingerprint: body.items[0].statementFingerprint,
    subjectEntityId: "q:berliner-strasse",
    subjectRawIdentifier: "Berliner Straße",
    predicateEntityId: "q:located",
    predicateRawIdentifier: "isLocatedIn",
    objectEntityId: "q:berlin",
    objectRawIdentifier: "Berlin",
  });
  assert.match(body.items[0].statementFingerprint, /^[0-9a-f]{16}$/);
  assert.equal(await getJson(port, "/graph/v1/statements?subjectEntityId=nobody").then((r) => r.body), {
    items: [],
    nextCursor: null,
  });
  assert.is((await getJson(port, "/graph/v1/statements")).body.items.length, 50);
  assert.is((await getJson(port, "/graph/v1/statements?limit=200")).body.items.length, 200);
});

test("statements: a given fingerprint with a quote survives serialization", async () => {
  const { body } = await getJson(port, "/graph/v1/statements?subjectEntityId=q%3Aquote");
  assert.is(body.items[0].statementFingerprint, 'fp "odd"');
});

// ---- 400 --------------------------------------------------------------------------------------

const BAD_SEARCH: [string, string, string][] = [
  // [query, parameter named, what it shows]
  ["", "q", "missing q"],
  ["type=0", "q", "missing q with another parameter"],
  ["q=", "q", "empty q"],
  ["q", "q", "q without ="],
  ["q=a&q=b", "q", "repeated q"],
  ["q=a&limit=5&limit=5", "limit", "repeated limit, even with the same value"],
  ["q=a&foo=1", "foo", "unknown parameter"],
  ["q=a&Q=1", "Q", "names are case-sensitive"],
  ["q=a&subjectEntityId=x", "subjectEntityId", "a parameter of the other endpoint"],
  ["q=a&=1", '""', "an empty name is unknown"],
  ["q=a&limit=", "limit", "empty limit"],
  ["q=a&type=", "type", "empty type"],
  ["q=a&cursor=", "cursor", "empty cursor"],
  ["q=a&limit=1.5", "limit", "fraction"],
  ["q=a&limit=abc", "limit", "letters"],
  ["q=a&limit=%2B3", "limit", "sign +"],
  ["q=a&limit=-1", "limit", "sign -"],
  ["q=a&limit=+3", "limit", "'+' is a space, so ' 3'"],
  ["q=a&limit=%203", "limit", "leading space"],
  ["q=a&limit=3%20", "limit", "trailing space"],
  ["q=a&limit=1e2", "limit", "exponent"],
  ["q=a&limit=0x10", "limit", "hex"],
  ["q=a&limit=007", "limit", "leading zeros"],
  ["q=a&limit=0", "limit", "below range"],
  ["q=a&limit=101", "limit", "above range"],
  ["q=a&limit=99999999999999999999999", "limit", "far above range"],
  ["q=a&type=8", "type", "type outside 0..7"],
  ["q=a&type=00", "type", "type of two characters"],
  ["q=a&type=x", "type", "type letter"],
  [`q=${"a".repeat(257)}`, "q", "q of 257 code units"],
  [`q=${"%F0%9F%98%80".repeat(128)}a`, "q", "q of 257 code units counted in UTF-16"],
  ["q=%", "q", "lone %"],
  ["q=%4", "q", "% with one digit"],
  ["q=%G1", "q", "% with a non-hex digit"],
  ["q=%C3", "q", "truncated UTF-8"],
  ["q=%FF", "q", "byte that is never UTF-8"],
  ["q=%C0%AF", "q", "overlong UTF-8"],
  ["q=%ED%A0%80", "q", "an encoded surrogate"],
  ["q%ZZ=a", "q%ZZ", "bad encoding in a name"],
  ["q=a&cursor=not*a*cursor", "cursor", "malformed cursor"],
  ["q=a&cursor=AQEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "cursor", "forged cursor"],
];

for (const [query, parameter, what] of BAD_SEARCH) {
  test(`400 search ${what}: ?${query.slice(0, 40)}`, async () => {
    assertError(await request(port, `/graph/v1/search?${query}`), 400, parameter);
  });
}

const BAD_STATEMENTS: [string, string, string][] = [
  ["subjectEntityId=", "subjectEntityId", "empty filter"],
  ["predicateEntityId=", "predicateEntityId", "empty filter"],
  ["objectEntityId=", "objectEntityId", "empty filter"],
  ["objectEntityId=a&objectEntityId=b", "objectEntityId", "repeated filter"],
  ["q=berlin", "q", "a parameter of the other endpoint"],
  ["limit=201", "limit", "above range"],
  ["limit=0", "limit", "below range"],
  ["limit=20.0", "limit", "fraction"],
  ["subjectEntityId=%E2%82", "subjectEntityId", "truncated UTF-8"],
  ["cursor=AAAA", "cursor", "malformed cursor"],
];

for (const [query, parameter, what] of BAD_STATEMENTS) {
  test(`400 statements ${what}: ?${query}`, async () => {
    assertError(await request(port, `/graph/v1/statements?${query}`), 400, parameter);
  });
}

test("400: a raw non-ASCII byte in the target is refused by node's parser, as JSON", async () => {
  const target = Buffer.concat([
    Buffer.from("GET /graph/v1/search?q="),
    Buffer.from([0xc3, 0xa9]),
    Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
  ]);
  const r = await rawRequest(port, target);
  assert.is(r.status, 400);
  assert.match(r.head, /content-type: application\/json/i);
  assert.ok(JSON.parse(r.body).error.includes("percent-encoded"));
});

test("400 cursors: altered, from the other endpoint, from another q, another type, other filters", async () => {
  const first = (await getJson(port, "/graph/v1/search?q=item&limit=2")).body.nextCursor as string;
  const flip = first.slice(0, 20) + (first[20] === "A" ? "B" : "A") + first.slice(21);
  assertError(await request(port, `/graph/v1/search?q=item&cursor=${flip}`), 400, "cursor");
  assertError(await request(port, `/graph/v1/search?q=item&cursor=${first.slice(0, -2)}`), 400, "cursor");
  assertError(await request(port, `/graph/v1/statements?cursor=${first}`), 400, "cursor");
  assertError(await request(port, `/graph/v1/search?q=ite&cursor=${first}`), 400, "cursor");
  assertError(await request(port, `/graph/v1/search?q=item&type=1&cursor=${first}`), 400, "cursor");
  const st = (await getJson(port, "/graph/v1/statements?predicateEntityId=q:located&limit=2")).body
    .nextCursor as string;
  assertError(await request(port, `/graph/v1/statements?cursor=${st}`), 400, "cursor");
  assertError(await request(port, `/graph/v1/search?q=item&cursor=${st}`), 400, "cursor");
  // limit may change between pages
  assert.is((await getJson(port, `/graph/v1/search?q=item&limit=5&cursor=${first}`)).status, 200);
});

// ---- 401: before anything else on the two endpoints --------------------------------------------

for (const path of ["/graph/v1/search?q=berlin", "/graph/v1/statements"]) {
  test(`401 ${path}: missing, empty, wrong, wrong prefix, near miss`, async () => {
    assertError(await request(port, path, { key: null }), 401, "X-API-Key");
    assertError(await request(port, path, { key: "" }), 401, "X-API-Key");
    assertError(await request(port, path, { key: "sk_wrong" }), 401, "X-API-Key");
    assertError(await request(port, path, { key: KEY.slice(3) }), 401);
    assertError(await request(port, path, { key: KEY + "x" }), 401);
    assertError(await request(port, path, { key: KEY.toUpperCase() }), 401);
  });
}

test("401 body never echoes the presented key", async () => {
  const r = await request(port, "/graph/v1/search?q=a", { key: "sk_secret_guess" });
  assert.not.ok(r.body.includes("sk_secret_guess"));
});

test("401 before 400, 405 and 414: parameters, method and length are not looked at without a key", async () => {
  assertError(await request(port, "/graph/v1/search", { key: null }), 401);
  assertError(await request(port, "/graph/v1/search?q=&limit=abc&foo=1", { key: "sk_nope" }), 401);
  assertError(await request(port, "/graph/v1/statements?limit=1000", { key: null }), 401);
  assertError(await request(port, "/graph/v1/search?q=a", { key: null, method: "POST" }), 401);
  assertError(await request(port, `/graph/v1/search?q=${"a".repeat(9000)}`, { key: null }), 401);
});

test("X-API-Key header name is case-insensitive; either configured key works", async () => {
  const r = await rawRequest(
    port,
    `GET /graph/v1/search?q=berlin HTTP/1.1\r\nHost: x\r\nx-API-kEy: ${KEY}\r\nConnection: close\r\n\r\n`,
  );
  assert.is(r.status, 200);
  assert.is((await request(port, "/graph/v1/search?q=berlin", { key: "sk_other_key" })).status, 200);
});

test("two X-API-Key headers are one unusable value: 401", async () => {
  const r = await rawRequest(
    port,
    `GET /graph/v1/search?q=a HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nX-API-Key: ${KEY}\r\nConnection: close\r\n\r\n`,
  );
  assert.is(r.status, 401);
});

// ---- 404, 405, HEAD ---------------------------------------------------------------------------

for (const path of [
  "/",
  "/graph",
  "/graph/v1",
  "/graph/v1/search/",
  "/graph/v1/Search",
  "/graph/v1/%73earch",
  "/graph/v2/search",
  "/healthz/",
  "/openapi.json",
  "/graph/v1/search;x",
]) {
  test(`404 ${path}`, async () => {
    assertError(await request(port, path), 404, "/graph/v1/search");
    assertError(await request(port, path, { key: null, method: "POST" }), 404);
  });
}

for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
  test(`405 ${method} on every known path, with Allow: GET, HEAD`, async () => {
    for (const path of ["/graph/v1/search?q=a", "/graph/v1/statements", "/healthz", "/graph/v1/openapi.json"]) {
      const r = await request(port, path, { method });
      assertError(r, 405, method);
      assert.is(r.headers["allow"], "GET, HEAD");
    }
  });
}

test("HEAD: the same status and headers as GET, no body; for successes and errors", async () => {
  for (const [path, status] of [
    ["/graph/v1/search?q=berlin", 200],
    ["/graph/v1/statements?limit=3", 200],
    ["/graph/v1/search?q=", 400],
    ["/healthz", 200],
    ["/graph/v1/openapi.json", 200],
    ["/nowhere", 404],
  ] as const) {
    const get = await request(port, path);
    const head = await request(port, path, { method: "HEAD" });
    assert.is(head.status, status, path);
    assert.is(get.status, status, path);
    assert.is(head.body, "");
    assert.is(head.headers["content-length"], get.headers["content-length"], path);
    assert.is(head.headers["content-type"], "application/json");
  }
  assert.is((await request(port, "/graph/v1/search?q=a", { method: "HEAD", key: null })).status, 401);
});

// ---- 414 --------------------------------------------------------------------------------------

test("414: a target of 8,193 bytes; 8,192 is served", async () => {
  const base = "/graph/v1/search?q=";
  const at = base + "a".repeat(256) + "&cursor=" + "b".repeat(8192 - base.length - 256 - 8);
  assert.is(Buffer.byteLength(at), 8192);
  assert.is((await request(port, at)).status, 400, "8,192 bytes reaches the parameters (a bad cursor)");
  assertError(await request(port, at + "b"), 414, "8192");
  assertError(await request(port, "/nowhere/" + "x".repeat(9000), { key: null }), 414);
});

test("414 past node's header limit: the request line alone overflowing still answers 414 as JSON", async () => {
  const r = await rawRequest(
    port,
    `GET /graph/v1/search?q=${"a".repeat(20000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`,
  );
  assert.is(r.status, 414);
  assert.ok(JSON.parse(r.body).error.includes("8192"));
});

test("431: headers over the limit, with a short target", async () => {
  const r = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20000)}\r\n\r\n`);
  assert.is(r.status, 431);
  assert.ok(JSON.parse(r.body).error.length > 0);
});

// ---- public paths -----------------------------------------------------------------------------

test("healthz: 200 {status: ok} without a key", async () => {
  const { status, body } = await getJson(port, "/healthz", null);
  assert.is(status, 200);
  assert.equal(body, { status: "ok" });
});

test("openapi.json: the OpenAPI 3.1 document without a key; query strings on public paths are ignored", async () => {
  const { status, body } = await getJson(port, "/graph/v1/openapi.json", null);
  assert.is(status, 200);
  assert.is(body.openapi, "3.1.0");
  assert.is((await request(port, "/healthz?probe=1", { key: null })).status, 200);
});

// ---- options forwarded to the graph ----------------------------------------------------------

test("cacheBytes is forwarded to every served graph: a bad budget is refused, 0 still pages", async () => {
  const graph = buildSmallGraph({ items: true });
  let refused: unknown;
  try {
    createHandler(graph, { apiKeys: [KEY], cacheBytes: -1 });
  } catch (e) {
    refused = e;
  }
  assert.ok(isQuiverError(refused) && refused.parameter === "cacheBytes", String(refused));
  const uncached = await startServer(graph, { cacheBytes: 0 });
  try {
    const { items, pages } = await walk(uncached.port, "/graph/v1/search?q=item", 30);
    assert.is(items.length, ITEM_COUNT);
    assert.is(pages, Math.ceil(ITEM_COUNT / 30));
  } finally {
    await uncached.close();
  }
});

test.run();

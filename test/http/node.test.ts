/**
 * The node:http adapter over a real server and raw sockets: every status row with its error body and
 * code, each 400 naming its parameter, auth before parameters, HEAD, 404/405/414 with targets `fetch`
 * would normalize; then what only node's side sees: absolute-form targets, methods node's parser
 * refuses, heads over 16 KB (whole or in pieces), and `createHandler` on a plain `http.createServer`
 * with `handler.attach(server)`. (What every adapter shares is in the contract suite.)
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { exchange, header } from "../../reliability/raw-http.js";
import { isQuiverError } from "../../src/engine/errors.js";
import { MAX_HEAD_BYTES, PARSER_MAX_HEADER_BYTES } from "../../src/http/limits.js";
import { createHandler } from "../../src/http/node.js";
import { REGISTERED_METHODS } from "../../src/http/router.js";
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

/** An error answer: the status, JSON content type, exactly "error" (a sentence) and "code". */
function assertError(reply: Reply, status: number, mentions?: string): string {
  assert.is(reply.status, status, `status for ${reply.body}`);
  assert.is(reply.headers["content-type"], "application/json");
  const body = JSON.parse(reply.body);
  assert.equal(Object.keys(body), ["error", "code"]);
  assert.type(body.code, "string");
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

// ---- absolute-form (RFC 9112 section 3.2.2) ---------------------------------------------------

test("absolute-form targets are served as their path, the key first as ever", async () => {
  const line = (target: string, key = true) =>
    `GET ${target} HTTP/1.1\r\nHost: x\r\n${key ? `X-API-Key: ${KEY}\r\n` : ""}Connection: close\r\n\r\n`;
  const page = await rawRequest(port, line("http://x/graph/v1/search?q=berlin"));
  assert.is(page.status, 200);
  assert.is(page.body, (await request(port, "/graph/v1/search?q=berlin")).body);
  assert.is((await rawRequest(port, line("HTTP://quiver.test:8080/graph/v1/statements?limit=1"))).status, 200);
  assert.is((await rawRequest(port, line("http://x/graph/v1/search?q=berlin", false))).status, 401);
  assert.is((await rawRequest(port, line("http://x/healthz", false))).status, 200);
  assert.is((await rawRequest(port, line("http://x", false))).status, 404, "an empty path is /");
  assert.is((await rawRequest(port, line("http://x/nowhere", false))).status, 404);
  const entity = await rawRequest(port, line("http://x/graph/v1/entities/q%3Aberlin"));
  assert.is(entity.status, 200);
  assert.is(entity.body, (await request(port, "/graph/v1/entities/q:berlin")).body);
  assert.is((await rawRequest(port, line("http://x/graph/v1/entities/q:berlin", false))).status, 401);
});

test("lookup on the raw socket: raw non-ASCII in the path is refused by node's parser (400, before the key); CONNECT and unread methods: 401 first, then 405", async () => {
  const raw = await rawRequest(
    port,
    Buffer.from("GET /graph/v1/entities/Z\u00fcrich HTTP/1.1\r\nHost: x\r\n\r\n", "utf8"),
  );
  assert.is(raw.status, 400);
  assert.is(JSON.parse(raw.body).code, "INVALID_TARGET");
  for (const method of ["UPDATE", "CONNECT"]) {
    const target = "/graph/v1/entities/q:berlin";
    const unauthorized = await rawRequest(port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.is(unauthorized.status, 401, method);
    const known = await rawRequest(port, `${method} ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`);
    assert.is(known.status, 405, method);
    assert.match(known.head, /allow: GET, HEAD/i);
  }
});

// ---- methods node's parser refuses --------------------------------------------------------------

/** The registered methods llhttp does not know (node refuses them before any handler runs). */
const UNREAD_METHODS = [...REGISTERED_METHODS].filter((m) => !http.METHODS.includes(m));

test("registered methods node does not know (UPDATE, CHECKIN, ...): 401 first on the data endpoints, else 405", async () => {
  assert.equal(UNREAD_METHODS.sort(), [
    "BASELINE-CONTROL",
    "CHECKIN",
    "LABEL",
    "MKREDIRECTREF",
    "MKWORKSPACE",
    "ORDERPATCH",
    "PRI",
    "UNCHECKOUT",
    "UPDATE",
    "UPDATEREDIRECTREF",
    "VERSION-CONTROL",
  ]);
  for (const method of UNREAD_METHODS) {
    const unauthorized = await rawRequest(port, `${method} /graph/v1/search?q=a HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.is(unauthorized.status, 401, method);
    assert.is(JSON.parse(unauthorized.body).code, "API_KEY_MISSING");
    const known = await rawRequest(
      port,
      `${method} /graph/v1/statements HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`,
    );
    assert.is(known.status, 405, method);
    assert.match(known.head, /allow: GET, HEAD/i);
    assert.is(JSON.parse(known.body).code, "METHOD_NOT_ALLOWED");
    assert.is((await rawRequest(port, `${method} /healthz HTTP/1.1\r\nHost: x\r\n\r\n`)).status, 405, method);
    assert.is((await rawRequest(port, `${method} /nowhere HTTP/1.1\r\nHost: x\r\n\r\n`)).status, 404, method);
  }
});

test("a registered method node does not know, whose head arrives in pieces: read whole, then answered", async () => {
  const ex = await exchange(port, `UPDATE /graph/v1/search?q=a HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`, {
    timeoutMs: 5000,
    pieces: [3, 20, 10, 5],
  });
  assert.is(ex.responses[0]?.status, 405);
  assert.is(header(ex.responses[0]!, "connection"), "close");
  const bad = await rawRequest(port, "UPDATE /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n");
  assert.is(bad.status, 400);
  assert.is(JSON.parse(bad.body).code, "MALFORMED_REQUEST");
});

test("method names HTTP does not register: 400 UNKNOWN_METHOD (names are case-sensitive); garbage: MALFORMED_REQUEST", async () => {
  for (const method of ["FOO", "get", "Get", "G3T"]) {
    const r = await rawRequest(port, `${method} /graph/v1/search?q=a HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.is(r.status, 400, method);
    assert.is(JSON.parse(r.body).code, "UNKNOWN_METHOD", method);
  }
  const r = await rawRequest(port, "G\u00c9T / HTTP/1.1\r\nHost: x\r\n\r\n");
  assert.is(JSON.parse(r.body).code, "MALFORMED_REQUEST");
});

// ---- heads over 16 KB, whole or in pieces --------------------------------------------------------

const longTarget = (n: number) => `/graph/v1/search?q=${"a".repeat(n)}`;

test("a head over 16 KB: 414 when the target alone passes 8,192 bytes, 431 otherwise; before the key", async () => {
  const cases: [string, number][] = [
    [`GET ${longTarget(9000)} HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(9000)}\r\n\r\n`, 414],
    [`GET ${longTarget(8000)} HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(9000)}\r\n\r\n`, 431],
    [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(17000)}\r\n\r\n`, 431],
    [`GET ${longTarget(17000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    [`GET ${longTarget(70000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(70000)}\r\n\r\n`, 431],
  ];
  for (const [bytes, status] of cases) {
    for (const pieces of [[], Array.from({ length: 40 }, () => 1460)]) {
      // Past node's own limit (60 KB), a head in pieces shows only the piece node gave up in: the known edge.
      if (pieces.length > 0 && bytes.length > PARSER_MAX_HEADER_BYTES) continue;
      const ex = await exchange(port, bytes, { timeoutMs: 5000, pieces, responses: 1 });
      const r = ex.responses[0];
      assert.is(r?.status, status, `${bytes.slice(0, 40)}... ${bytes.length} bytes in ${pieces.length || 1} piece(s)`);
      assert.is(JSON.parse(r!.body.toString()).code, status === 414 ? "TARGET_TOO_LONG" : "HEADERS_TOO_LARGE");
    }
  }
});

test("the 16 KB head limit counts every byte through the blank line: 16,384 bytes pass, 16,385 answer 431", async () => {
  // Regression: the request line was counted one byte short, so a head of 16,385 bytes was served.
  const head = (bytes: number) => {
    const bare = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \r\n\r\n";
    return bare.replace("X-Pad: ", `X-Pad: ${"p".repeat(bytes - bare.length)}`);
  };
  for (const [bytes, status] of [
    [16_383, 200],
    [MAX_HEAD_BYTES, 200],
    [MAX_HEAD_BYTES + 1, 431],
  ] as const) {
    assert.is(head(bytes).length, bytes);
    for (const pieces of [[], Array.from({ length: 12 }, () => 1460)]) {
      const r = (await exchange(port, head(bytes), { timeoutMs: 5000, pieces, responses: 1 })).responses[0];
      assert.is(r?.status, status, `${bytes} bytes in ${pieces.length || 1} piece(s)`);
    }
  }
});

// ---- createHandler on a plain http.createServer ----------------------------------------------------

test("createHandler on a plain http.createServer with handler.attach: JSON for what node would answer itself", async () => {
  const handler = createHandler(buildSmallGraph(), { apiKeys: [KEY] });
  const server = http.createServer(handler);
  handler.attach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const plain = (server.address() as AddressInfo).port;
  try {
    const cases: [string, number, string][] = [
      [`GET ${longTarget(20000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`, 414, "TARGET_TOO_LONG"],
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20000)}\r\n\r\n`, 431, "HEADERS_TOO_LARGE"],
      ["GET /healthz HTTP/1.1\r\n\r\n", 400, "INVALID_HOST"],
      ["FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "UNKNOWN_METHOD"],
      ["UPDATE /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["CONNECT /graph/v1/search HTTP/1.1\r\nHost: x\r\n\r\n", 401, "API_KEY_MISSING"],
    ];
    for (const [bytes, status, code] of cases) {
      const r = await rawRequest(plain, bytes);
      assert.is(r.status, status, bytes.slice(0, 30));
      assert.match(r.head, /content-type: application\/json/i);
      assert.is(JSON.parse(r.body).code, code);
    }
    const expect = await rawRequest(plain, "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n");
    assert.is(expect.status, 200, "an Expect node does not support is ignored, not a bare 417");
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test("attach leaves a header limit the embedder set, and raises node's default", () => {
  const handler = createHandler(buildSmallGraph(), { apiKeys: [KEY] });
  const own = http.createServer({ maxHeaderSize: 4096 }, handler);
  handler.attach(own);
  assert.is((own as unknown as { maxHeaderSize: number }).maxHeaderSize, 4096);
  const plain = http.createServer(handler);
  handler.attach(plain);
  assert.is((plain as unknown as { maxHeaderSize: number }).maxHeaderSize, PARSER_MAX_HEADER_BYTES);
});

test("every answer, parser-level ones included, carries an X-Request-Id", async () => {
  for (const bytes of [
    "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    "FOO / HTTP/1.1\r\nHost: x\r\n\r\n",
    `GET ${longTarget(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-1\r\n\r\n",
  ]) {
    const r = await rawRequest(port, bytes);
    assert.match(r.head, /x-request-id: [\x21-\x7e]+/i, bytes.slice(0, 20));
  }
  assert.match(
    (await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-1\r\n\r\n")).head,
    /x-request-id: mine-1/i,
  );
});

test.run();

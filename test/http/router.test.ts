/**
 * The router by itself: plain data in, plain data out, no socket. The order of the contract's
 * checks, absolute-form targets, HEAD, the 500 and its reporter, ETags (equal for equal content and
 * secret, a 304 answered before the query runs), compression, CORS, request ids, and the answers to
 * requests an adapter's parser could not read.
 */

import { gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Graph } from "../../src/engine/graph.js";
import {
  answerProblem,
  compileOptions,
  route,
  serveGraph,
  type ErrorContext,
  type Reply,
  type RouterOptions,
  type RouterRequest,
  type Served,
} from "../../src/http/router.js";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import { routeLabel } from "../../src/serving/metrics.js";
import { KEY, SECRET, buildSmallGraph } from "../support/http.js";

const served = (graph: Graph = buildSmallGraph({ items: true }), options: Partial<RouterOptions> = {}) =>
  serveGraph(graph, compileOptions({ apiKeys: [KEY], cursorSecret: SECRET, ...options }));

const request = (target: string, more: Partial<RouterRequest> = {}): RouterRequest => ({
  method: "GET",
  target,
  headers: { "x-api-key": KEY },
  ...more,
});

/** A reply's header by name (the flat array holds lower-case names). */
function header(reply: Reply, name: string): string | undefined {
  for (let i = 0; i < reply.headers.length; i += 2) if (reply.headers[i] === name) return reply.headers[i + 1];
  return undefined;
}

const code = (reply: Reply) => JSON.parse((reply.body as Buffer).toString()).code as string;

test("a reply is plain data: status, a flat header array, one Buffer body", () => {
  const reply = route(served(), request("/graph/v1/search?q=berlin"));
  assert.is(reply.status, 200);
  assert.ok(Array.isArray(reply.headers) && reply.headers.length % 2 === 0);
  assert.ok(reply.headers.every((h) => typeof h === "string"));
  assert.ok(Buffer.isBuffer(reply.body));
  assert.is(header(reply, "content-length"), String(reply.body!.length));
  assert.is(reply.path, "/graph/v1/search");
  assert.is(header(reply, "x-request-id"), reply.requestId);
});

test("the order of checks: head size, Host, preflight, key, target length, path, method, parameters", () => {
  const s = served(buildSmallGraph(), { cors: ["https://app.example"] });
  const noKey = { headers: {} };
  const long = `/graph/v1/search?q=${"a".repeat(9000)}`;
  // A head over 16 KB, before the key: 414 when the target alone is too long, else 431.
  assert.is(route(s, request(long, { ...noKey, headBytes: 20_000 })).status, 414);
  assert.is(route(s, request("/graph/v1/search?q=a", { ...noKey, headBytes: 20_000 })).status, 431);
  // The Host rule, before the key.
  assert.is(code(route(s, request("/graph/v1/search?q=", { ...noKey, badHost: true }))), "INVALID_HOST");
  // A preflight from an allowed origin, before the key.
  const preflight = {
    method: "OPTIONS",
    headers: { origin: "https://app.example", "access-control-request-method": "GET" },
  };
  assert.is(route(s, request("/graph/v1/search?q=a", preflight)).status, 204);
  // The key before the target length, the path's method and the parameters.
  assert.is(code(route(s, request(long, { ...noKey, method: "POST" }))), "API_KEY_MISSING");
  assert.is(code(route(s, request(long, { method: "POST" }))), "TARGET_TOO_LONG");
  assert.is(code(route(s, request("/nowhere?q=", { method: "POST" }))), "NOT_FOUND");
  assert.is(code(route(s, request("/graph/v1/search?q=", { method: "POST" }))), "METHOD_NOT_ALLOWED");
  assert.is(code(route(s, request("/graph/v1/search?q="))), "EMPTY_PARAMETER");
});

test("absolute-form targets are served as their path (regression: 404 at 1d9af4c)", () => {
  const s = served();
  const origin = route(s, request("/graph/v1/search?q=berlin"));
  for (const target of ["http://x/graph/v1/search?q=berlin", "HTTPS://quiver.test:8443/graph/v1/search?q=berlin"]) {
    const reply = route(s, request(target));
    assert.is(reply.status, 200, target);
    assert.ok(reply.body!.equals(origin.body!));
    assert.is(reply.path, "/graph/v1/search");
  }
  assert.is(route(s, request("http://x/graph/v1/search?q=berlin", { headers: {} })).status, 401, "the key still first");
  assert.is(route(s, request("http://x/healthz", { headers: {} })).status, 200);
  assert.is(route(s, request("http://x", { headers: {} })).path, "/");
  assert.is(route(s, request("*")).status, 404);
});

test("HEAD: the headers of GET, Content-Length included, and no body", () => {
  const s = served();
  for (const target of ["/graph/v1/search?q=berlin", "/graph/v1/search?q=", "/healthz", "/graph/v1/openapi.json"]) {
    const get = route(s, request(target));
    const head = route(s, request(target, { method: "HEAD" }));
    assert.is(head.status, get.status);
    assert.is(head.body, null);
    assert.is(header(head, "content-length"), header(get, "content-length"));
    assert.is(header(head, "etag"), header(get, "etag"));
  }
});

test("500: a fixed sentence; the error and the request's method, path and id go to onError, never to the client", () => {
  const graph = buildSmallGraph();
  graph.search = () => {
    throw new TypeError("secret internals");
  };
  const seen: [unknown, ErrorContext][] = [];
  const s = serveGraph(graph, compileOptions({ apiKeys: [KEY], onError: (e, c) => seen.push([e, c]) }));
  const reply = route(
    s,
    request("/graph/v1/search?q=a&limit=3", { headers: { "x-api-key": KEY, "x-request-id": "r-1" } }),
  );
  assert.is(reply.status, 500);
  assert.is(code(reply), "INTERNAL_ERROR");
  assert.not.ok(reply.body!.toString().includes("secret"));
  assert.is(seen.length, 1);
  assert.equal(seen[0]![1], { method: "GET", path: "/graph/v1/search", requestId: "r-1" });
});

test("ETag: a tag that matches is answered 304 before the query runs", () => {
  const graph = buildSmallGraph({ items: true });
  let queries = 0;
  const search = graph.search.bind(graph);
  graph.search = (p) => {
    queries++;
    return search(p);
  };
  const s = serveGraph(graph, compileOptions({ apiKeys: [KEY] }));
  const first = route(s, request("/graph/v1/search?q=item&limit=5"));
  const tag = header(first, "etag") as string;
  assert.is(queries, 1);
  const again = route(
    s,
    request("/graph/v1/search?q=item&limit=5", { headers: { "x-api-key": KEY, "if-none-match": tag } }),
  );
  assert.is(again.status, 304);
  assert.is(again.body, null);
  assert.is(queries, 1, "no query for a 304");
  const star = route(
    s,
    request("/graph/v1/search?q=item&limit=5", { headers: { "x-api-key": KEY, "if-none-match": "*" } }),
  );
  assert.is(star.status, 304);
  assert.is(queries, 2, "* is known to match only once the query succeeded");
});

test("ETag: equal content and secret, equal tags (two graphs, two handlers); another secret or no secret, other tags", () => {
  const target = "/graph/v1/statements?limit=5";
  const tagOf = (graph: Graph, options: Partial<RouterOptions>) =>
    header(route(serveGraph(graph, compileOptions({ apiKeys: [KEY], ...options })), request(target)), "etag");
  const a = tagOf(buildSmallGraph({ items: true }), { cursorSecret: "shared" });
  assert.is(tagOf(buildSmallGraph({ items: true, secret: "own" }), { cursorSecret: "shared" }), a);
  assert.is.not(tagOf(buildSmallGraph({ items: true }), { cursorSecret: "other" }), a);
  assert.is.not(tagOf(buildSmallGraph(), { cursorSecret: "shared" }), a);
  const graph = buildSmallGraph({ items: true });
  // The graph's own secret cannot be known: each served graph then keeps its tags to itself.
  assert.is.not(tagOf(graph, {}), tagOf(graph, {}));
});

test("compression: negotiated, above the threshold only, tagged per coding; the threshold is an option", () => {
  const s = served();
  const target = "/graph/v1/search?q=item&limit=100";
  const plain = route(s, request(target));
  const gz = route(s, request(target, { headers: { "x-api-key": KEY, "accept-encoding": "gzip" } }));
  assert.is(header(gz, "content-encoding"), "gzip");
  assert.ok(gunzipSync(gz.body!).equals(plain.body!));
  assert.is(header(gz, "etag"), `${header(plain, "etag")!.slice(0, -1)}-gz"`);
  const small = served(buildSmallGraph({ items: true }), { compression: { thresholdBytes: 100_000 } });
  assert.is(
    header(
      route(small, request(target, { headers: { "x-api-key": KEY, "accept-encoding": "gzip" } })),
      "content-encoding",
    ),
    undefined,
  );
});

test("request ids: a usable one passes through, anything else is replaced", () => {
  const s = served();
  const idOf = (value: string | undefined) =>
    route(s, request("/healthz", { headers: value === undefined ? {} : { "x-request-id": value } })).requestId;
  assert.is(idOf("abc"), "abc");
  assert.is(idOf("x".repeat(128)), "x".repeat(128));
  for (const bad of ["x".repeat(129), "a b", "é", ""]) assert.is.not(idOf(bad), bad);
  assert.is.not(idOf(undefined), idOf(undefined));
});

test("answerProblem: what a parser could not read, before any key", () => {
  const config = compileOptions({ apiKeys: [KEY] });
  const cases: [Parameters<typeof answerProblem>[1], number, string][] = [
    [{ kind: "head-too-large", targetTooLong: true }, 414, "TARGET_TOO_LONG"],
    [{ kind: "head-too-large", targetTooLong: false }, 431, "HEADERS_TOO_LARGE"],
    [{ kind: "malformed" }, 400, "MALFORMED_REQUEST"],
    [{ kind: "unknown-method", method: "FOO" }, 400, "UNKNOWN_METHOD"],
    [{ kind: "invalid-target" }, 400, "INVALID_TARGET"],
    [{ kind: "host" }, 400, "INVALID_HOST"],
    [{ kind: "timeout" }, 408, "REQUEST_TIMEOUT"],
  ];
  for (const [problem, status, errorCode] of cases) {
    const reply = answerProblem(config, problem);
    assert.is(reply.status, status);
    assert.is(code(reply), errorCode);
    assert.ok(reply.requestId.length > 0);
    assert.is(answerProblem(config, problem, { head: true }).body, null, "no body to a HEAD");
  }
});

test("lookup: absolute-form, the key first, raw non-ASCII from an embedder refused, a 304 before the lookup runs, the request log's path", () => {
  const graph = buildSmallGraph({ items: true, lookups: true });
  let lookups = 0;
  const getEntity = graph.getEntity.bind(graph);
  graph.getEntity = (id) => {
    lookups++;
    return getEntity(id);
  };
  const s = serveGraph(graph, compileOptions({ apiKeys: [KEY] }));
  const origin = route(s, request("/graph/v1/entities/q%3Aberlin"));
  assert.is(origin.status, 200);
  assert.is(origin.body!.toString(), JSON.stringify(getEntity("q:berlin")));
  assert.is(origin.path, "/graph/v1/entities/q%3Aberlin");
  const absolute = route(s, request("http://x:1/graph/v1/entities/q:berlin"));
  assert.ok(absolute.body!.equals(origin.body!));
  assert.is(header(absolute, "etag"), header(origin, "etag"), "one id, one tag, however it is spelt");
  assert.is(route(s, request("http://x/graph/v1/entities/q:berlin", { headers: {} })).status, 401);
  // node's parser never lets raw non-ASCII through; an embedder calling route() might.
  const raw = route(s, request("/graph/v1/entities/Zürich"));
  assert.equal([raw.status, code(raw)], [400, "INVALID_ENCODING"]);
  // 414 after the key, for a lookup as for any data path.
  const long = `/graph/v1/entities/${"x".repeat(9000)}`;
  assert.is(route(s, request(long, { headers: {} })).status, 401);
  assert.is(route(s, request(long)).status, 414);
  const before = lookups;
  const tag = header(origin, "etag") as string;
  const again = route(
    s,
    request("/graph/v1/entities/q:berlin", { headers: { "x-api-key": KEY, "if-none-match": tag } }),
  );
  assert.equal([again.status, again.body, lookups], [304, null, before], "no lookup for a 304");
  const missing = route(s, request("/graph/v1/entities/nobody"));
  assert.equal([missing.status, code(missing)], [404, "ENTITY_NOT_FOUND"]);
  const notFound = route(s, request("/graph/v1/entities/"));
  assert.equal([notFound.status, code(notFound)], [404, "NOT_FOUND"]);
  assert.match(
    JSON.parse(notFound.body!.toString()).error,
    /the paths are \/graph\/v1\/search, \/graph\/v1\/statements, \/graph\/v1\/entities\/\{entityId\}, \/healthz, \/graph\/v1\/openapi\.json\./,
  );
});

test("fold: graphs of one content and secret but another fold never share a tag or a cursor", () => {
  const build = (fold: "case" | "accents") => {
    const b = new GraphBuilder({ cursorSecret: SECRET, fold });
    for (const [id, raw] of [
      ["z", "Zürich"],
      ["y", "Zurich"],
      ["x", "Zug"],
    ])
      b.addEntity({ entityId: id!, rawIdentifier: raw!, type: "0", sourceType: "" });
    return b.build();
  };
  const kept = served(build("case"));
  const folded = served(build("accents"));
  for (const target of ["/graph/v1/search?q=zu&limit=1", "/graph/v1/entities/z", "/graph/v1/statements"]) {
    const a = route(kept, request(target));
    const b = route(folded, request(target));
    assert.is(a.status, 200, target);
    assert.is.not(header(a, "etag"), header(b, "etag"), target);
    const again = route(
      folded,
      request(target, { headers: { "x-api-key": KEY, "if-none-match": header(a, "etag")! } }),
    );
    assert.is(again.status, 200, `${target}: the other fold's tag is not current`);
  }
  const cursor = JSON.parse(route(kept, request("/graph/v1/search?q=zu&limit=1")).body!.toString()).nextCursor;
  const other = route(folded, request(`/graph/v1/search?q=zu&limit=1&cursor=${cursor}`));
  assert.equal([other.status, code(other)], [400, "CURSOR_QUERY_MISMATCH"]);
  const names = (s: Served) =>
    JSON.parse(route(s, request("/graph/v1/search?q=zurich")).body!.toString()).items.map((e: any) => e.rawIdentifier);
  assert.equal(names(kept), ["Zurich"]);
  assert.equal(names(folded), ["Zurich", "Zürich"], "both exact under accent folding; then by entityId");
});

test("metrics: a lookup is labelled by its template, whatever the id; unknown paths are other", () => {
  assert.is(routeLabel("/graph/v1/entities/Q42"), "/graph/v1/entities/{entityId}");
  assert.is(routeLabel("/graph/v1/entities/a%2Fb"), "/graph/v1/entities/{entityId}");
  assert.is(routeLabel("/graph/v1/entities/"), "other");
  assert.is(routeLabel("/graph/v1/entities/a/b"), "other");
  assert.is(routeLabel("/graph/v1/search"), "/graph/v1/search");
  assert.is(routeLabel("/metrics"), "/metrics");
  assert.is(routeLabel("/nowhere"), "other");
});

test("graphs are served through graph.withOptions with the options given, and only those", () => {
  const seen: unknown[] = [];
  const spied = () => {
    const graph = buildSmallGraph();
    const withOptions = graph.withOptions.bind(graph);
    graph.withOptions = (o) => {
      seen.push(o);
      return withOptions(o);
    };
    return graph;
  };
  const plain = spied();
  assert.is(serveGraph(plain, compileOptions({ apiKeys: [KEY] })).graph, plain, "no option: the graph itself");
  serveGraph(spied(), compileOptions({ apiKeys: [KEY], cacheBytes: 1234 }));
  serveGraph(spied(), compileOptions({ apiKeys: [KEY], cursorSecret: "s", cacheBytes: 99 }));
  assert.equal(seen, [{ cacheBytes: 1234 }, { cursorSecret: "s", cacheBytes: 99 }]);
});

test.run();

/**
 * The contract suite: one set of tests, run against every adapter
 * ===============================================================
 * Hono's habit (`router/common.case.test.ts`): the behaviour is written once and each adapter's test
 * file only says how to start a server with it (`contractSuite(name, start)`). Everything here goes
 * through `fetch` against a real server on 127.0.0.1 port 0, so it checks what a client sees: every
 * status of CONTRACT.md's table with its `{"error","code"}` body, the key before anything else,
 * HEAD, 404/405/414, pages byte for byte equal to `JSON.stringify` of the engine's page, paging
 * walks, ETag and 304, compression, CORS, X-Request-Id, the 500 and the request log.
 *
 * What `fetch` cannot send (raw bytes, absolute-form targets, methods node's parser refuses) is
 * tested per adapter with raw sockets (test/http/node.test.ts).
 */

import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Graph } from "../../src/engine/graph.js";
import type { HandlerOptions, RequestLogEntry } from "../../src/http/adapter-kit.js";
import type { ErrorContext } from "../../src/http/router.js";
import { randomQuery } from "./graph-walks.js";
import { ITEM_COUNT, KEY, LOOKUP_ENTITIES, OTHER_KEY, SECRET, buildSmallGraph } from "./http.js";
import { Oracle, Rng, TYPES, buildGraph, generateGraph, randomFilters, show, withScores } from "./oracle.js";

/** A running server with the adapter under test, serving the API at `url` (perhaps under a prefix). */
export interface AdapterUnderTest {
  url: string;
  setGraph(graph: Graph): void;
  close(): Promise<void>;
}

export interface AdapterSpec {
  start(graph: Graph, options: HandlerOptions): Promise<AdapterUnderTest>;
  /**
   * False for a middleware mounted in an app: a path it does not own goes on to the app, which
   * answers `unownedStatus` (its own 404, say) rather than the contract's JSON 404.
   */
  ownsEveryPath: boolean;
  unownedStatus?: number;
}

interface Answer {
  status: number;
  headers: Headers;
  /** The body as received (decoded by fetch when it was compressed and asked for). */
  text: string;
  bytes: Buffer;
}

type AskOptions = { method?: string; key?: string | null; headers?: Record<string, string> };

async function ask(base: string, path: string, options: AskOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { "accept-encoding": "identity", ...options.headers };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers["x-api-key"] = key;
  const response = await fetch(base + path, { method: options.method ?? "GET", headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: bytes.toString("utf8"), bytes };
}

/** An error answer: status, JSON, exactly `error` (a sentence) and `code`, an X-Request-Id. */
function assertError(a: Answer, status: number, code: string, mentions?: string): void {
  assert.is(a.status, status, `status for ${a.text}`);
  assert.is(a.headers.get("content-type"), "application/json");
  const body = JSON.parse(a.text);
  assert.equal(Object.keys(body), ["error", "code"], a.text);
  assert.is(body.code, code, a.text);
  assert.ok(body.error.length > 20 && /[.]$/.test(body.error), `a sentence: ${body.error}`);
  assert.not.match(body.error, /\n\s+at /, "no stack trace");
  if (mentions !== undefined) assert.ok(body.error.includes(mentions), `${body.error} mentions ${mentions}`);
  assert.ok((a.headers.get("x-request-id") ?? "").length > 0, "an X-Request-Id");
}

/** A test graph whose search throws on q=fault, as a bug would; so do the copies the handler serves. */
function faulty(graph: Graph): Graph {
  const search = graph.search.bind(graph);
  graph.search = (p) => {
    if (p.q === "fault") throw new TypeError("secret internals at Graph.search (graph.js:1:1)");
    return search(p);
  };
  const withOptions = graph.withOptions.bind(graph);
  graph.withOptions = (o) => faulty(withOptions(o));
  return graph;
}

/** Every page of a walk, through the engine: the items a walk over HTTP must give. */
function engineWalk(next: (cursor: string | undefined) => { items: unknown[]; nextCursor: string | null }): number {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = next(cursor);
    count += page.items.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return count;
}

/** Registers and runs the whole suite for one adapter. */
export function contractSuite(name: string, spec: AdapterSpec): void {
  const test = suite(`contract: ${name}`);
  const graph = faulty(buildSmallGraph({ items: true, lookups: true }));
  const faults: [unknown, ErrorContext][] = [];
  const logged: RequestLogEntry[] = [];
  let server: AdapterUnderTest;
  let base = "";
  const get = (path: string, options?: AskOptions) => ask(base, path, options);

  test.before(async () => {
    server = await spec.start(graph, {
      apiKeys: [KEY, OTHER_KEY],
      cursorSecret: SECRET,
      onError: (e, context) => faults.push([e, context]),
      log: (entry) => logged.push(entry),
    });
    base = server.url;
  });
  test.after(async () => {
    await server.close();
  });

  // ---- 200: pages, byte for byte ----------------------------------------------------------------

  test("search: 200, the engine's page byte for byte, with its headers", async () => {
    for (const query of [
      "q=STRASSE",
      "q=item&limit=7",
      "q=he+said",
      "q=nothing-matches",
      "q=item&type=3&limit=2",
      "q=item&count=true",
      "q=item&count=false",
      "q=e&order=score&count=true&type=3",
      "q=item&order=score&limit=7",
      "q=item&order=name",
      "q=nothing-matches&count=true",
    ]) {
      const a = await get(`/graph/v1/search?${query}`);
      const params = Object.fromEntries(new URLSearchParams(query));
      const page = graph.search({
        ...params,
        q: params["q"] as string,
        limit: params["limit"] === undefined ? undefined : Number(params["limit"]),
        order: params["order"] as "name" | "score" | undefined,
        count: params["count"] === undefined ? undefined : params["count"] === "true",
      });
      // A total exactly when asked for, as the third key.
      assert.equal(
        Object.keys(JSON.parse(a.text)),
        params["count"] === "true" ? ["items", "nextCursor", "total"] : ["items", "nextCursor"],
        query,
      );
      assert.is(a.status, 200, query);
      assert.is(a.text, JSON.stringify(page), query);
      assert.is(a.headers.get("content-type"), "application/json");
      assert.is(Number(a.headers.get("content-length")), a.bytes.length);
      assert.match(a.headers.get("etag") ?? "", /^"[A-Za-z0-9_-]{20,22}"$/);
      assert.is(a.headers.get("cache-control"), "private");
      assert.is(a.headers.get("vary"), "Accept-Encoding");
    }
  });

  test("statements: 200, the engine's page byte for byte; filters combine; unknown ids give an empty page", async () => {
    for (const query of [
      "",
      "limit=200",
      "predicateEntityId=q:located&objectEntityId=q:berlin",
      "subjectEntityId=q%3Aquote",
      "subjectEntityId=nobody",
      "count=true",
      "count=true&limit=3",
      "predicateEntityId=q:located&count=true",
      "subjectEntityId=nobody&count=true",
      "objectEntityId=q:germany&count=false",
    ]) {
      const a = await get(`/graph/v1/statements${query === "" ? "" : "?"}${query}`);
      const params = Object.fromEntries(new URLSearchParams(query));
      const page = graph.statements({
        ...params,
        limit: params["limit"] === undefined ? undefined : Number(params["limit"]),
        count: params["count"] === undefined ? undefined : params["count"] === "true",
      });
      assert.is(a.status, 200, query);
      assert.is(a.text, JSON.stringify(page), query);
      assert.is(a.headers.get("cache-control"), "private");
    }
  });

  test("paging: following every nextCursor gives each item once, in order, for both endpoints", async () => {
    for (const [path, total] of [
      ["/graph/v1/search?q=item", ITEM_COUNT],
      [
        "/graph/v1/statements?predicateEntityId=q:located",
        engineWalk((cursor) => graph.statements({ predicateEntityId: "q:located", limit: 200, cursor })),
      ],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const a = await get(`${path}&limit=37${cursor === null ? "" : `&cursor=${cursor}`}`);
        assert.is(a.status, 200, `${path}: ${a.text}`);
        const body = JSON.parse(a.text);
        for (const item of body.items) seen.push(item.entityId ?? item.statementFingerprint);
        cursor = body.nextCursor;
      } while (cursor !== null);
      assert.is(seen.length, total, path);
      assert.is(new Set(seen).size, total, path);
    }
  });

  // ---- order=score and count=true against the brute-force oracle ---------------------------------

  /**
   * Follows every nextCursor of `path` (a query string without limit, cursor or count) and checks
   * each page against `expected`: its items in order, `total` equal to the whole walk exactly on the
   * pages that ask for it (`count` drawn per page: the cursor does not depend on it) and absent on
   * the others, nextCursor null exactly at the end, never an empty page after a cursor.
   */
  async function walkAgainst(
    url: string,
    path: string,
    expected: readonly unknown[],
    rng: Rng,
    maxLimit: number,
    countEveryPage: boolean,
  ): Promise<void> {
    let at = 0;
    let cursor: string | null = null;
    let pages = 0;
    do {
      const limit = rng.chance(0.2) ? undefined : rng.chance(0.5) ? rng.range(1, 4) : rng.range(1, maxLimit);
      const count = countEveryPage || rng.chance(0.5);
      const target =
        path +
        (limit === undefined ? "" : `&limit=${limit}`) +
        (count ? "&count=true" : rng.chance(0.3) ? "&count=false" : "") +
        (cursor === null ? "" : `&cursor=${cursor}`);
      const a = await ask(url, target);
      assert.is(a.status, 200, `${target}: ${a.text}`);
      const body = JSON.parse(a.text);
      const want = expected.slice(at, at + (limit ?? (path.includes("/search") ? 20 : 50)));
      assert.equal(body.items, want, `${target}: page ${pages} at ${at} of ${expected.length}`);
      if (count) assert.is(body.total, expected.length, `${target}: total`);
      else assert.not.ok("total" in body, `${target}: a total not asked for`);
      at += body.items.length;
      pages++;
      cursor = body.nextCursor;
      assert.is(cursor === null, at === expected.length, `${target}: nextCursor ${show(cursor)} at ${at}`);
      if (cursor !== null) assert.ok(body.items.length > 0, "a cursor never leads to an empty page");
    } while (cursor !== null);
  }

  test("oracle: search walks, order name and score, with and without type, totals on every page or some", async () => {
    const rng = new Rng(20261126);
    const data = withScores(rng, generateGraph(rng, { entities: 300, statements: 900 }), 0.4);
    const oracle = new Oracle(data);
    const other = await spec.start(buildGraph(data, SECRET), { apiKeys: [KEY], cursorSecret: SECRET });
    try {
      for (let round = 0; round < 36; round++) {
        let q = rng.chance(0.15) ? rng.pick(["a", "b", "e", "A", "s"]) : randomQuery(rng, oracle);
        // A query cut inside a surrogate pair has no UTF-8 form, so no URL can carry it: another one.
        while (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(q))
          q = randomQuery(rng, oracle);
        const type = rng.chance(0.4) ? rng.pick(TYPES) : undefined;
        const order = (["name", "score", undefined] as const)[round % 3];
        const expected = oracle.search(q, type, order ?? "name");
        const path =
          `/graph/v1/search?q=${encodeURIComponent(q)}` +
          (type === undefined ? "" : `&type=${type}`) +
          (order === undefined ? "" : `&order=${order}`);
        await walkAgainst(other.url, path, expected, rng, 100, round % 2 === 0);
      }
    } finally {
      await other.close();
    }
  });

  test("oracle: statements walks of every filter shape with totals", async () => {
    const rng = new Rng(26_2611);
    const data = generateGraph(rng, { entities: 120, statements: 700 });
    const oracle = new Oracle(data);
    const other = await spec.start(buildGraph(data, SECRET), { apiKeys: [KEY], cursorSecret: SECRET });
    try {
      for (let round = 0; round < 24; round++) {
        const mask = round % 8;
        const filters = randomFilters(rng, mask, oracle);
        const expected = oracle.statementsFor(filters);
        const query = Object.entries(filters)
          .map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`)
          .join("&");
        await walkAgainst(other.url, `/graph/v1/statements?${query}`, expected, rng, 200, round % 2 === 0);
      }
    } finally {
      await other.close();
    }
  });

  test("order and count: a cursor belongs to its order; count may change between pages; the 400s", async () => {
    const byScore = JSON.parse((await get("/graph/v1/search?q=item&order=score&limit=2")).text).nextCursor as string;
    const byName = JSON.parse((await get("/graph/v1/search?q=item&limit=2&count=true")).text).nextCursor as string;
    assertError(await get(`/graph/v1/search?q=item&cursor=${byScore}`), 400, "CURSOR_QUERY_MISMATCH", "cursor");
    assertError(await get(`/graph/v1/search?q=item&order=name&cursor=${byScore}`), 400, "CURSOR_QUERY_MISMATCH");
    assertError(await get(`/graph/v1/search?q=item&order=score&cursor=${byName}`), 400, "CURSOR_QUERY_MISMATCH");
    assert.is((await get(`/graph/v1/search?q=item&order=score&count=true&cursor=${byScore}`)).status, 200);
    assert.is((await get(`/graph/v1/search?q=item&order=name&cursor=${byName}`)).status, 200, "name is the default");
    const total = JSON.parse((await get(`/graph/v1/search?q=item&count=true&cursor=${byName}`)).text).total;
    assert.is(total, ITEM_COUNT, "the whole walk's total, from a later page too");
    for (const [path, code, parameter] of [
      ["/graph/v1/search?q=a&order=", "EMPTY_PARAMETER", "order"],
      ["/graph/v1/search?q=a&order=score&order=score", "REPEATED_PARAMETER", "order"],
      ["/graph/v1/search?q=a&order=rank", "INVALID_PARAMETER", "order"],
      ["/graph/v1/search?q=a&order=SCORE", "INVALID_PARAMETER", "order"],
      ["/graph/v1/search?q=a&count=", "EMPTY_PARAMETER", "count"],
      ["/graph/v1/search?q=a&count=true&count=true", "REPEATED_PARAMETER", "count"],
      ["/graph/v1/search?q=a&count=1", "INVALID_PARAMETER", "count"],
      ["/graph/v1/search?q=a&count=%FF", "INVALID_ENCODING", "count"],
      ["/graph/v1/search?count=true", "MISSING_PARAMETER", "q"],
      ["/graph/v1/statements?count=", "EMPTY_PARAMETER", "count"],
      ["/graph/v1/statements?count=yes", "INVALID_PARAMETER", "count"],
      ["/graph/v1/statements?count=false&count=false", "REPEATED_PARAMETER", "count"],
      ["/graph/v1/statements?order=score", "UNKNOWN_PARAMETER", "order"],
    ] as const) {
      assertError(await get(path), 400, code, parameter);
      assertError(await get(path, { key: null }), 401, "API_KEY_MISSING");
    }
  });

  test("ETag: count=true and order=score have tags of their own; the defaults spelt out share the plain one", async () => {
    const tagOf = async (path: string) => (await get(path)).headers.get("etag") as string;
    const plain = await tagOf("/graph/v1/search?q=item&limit=5");
    assert.is(await tagOf("/graph/v1/search?q=item&limit=5&count=false&order=name"), plain);
    const tags = [
      plain,
      await tagOf("/graph/v1/search?q=item&limit=5&count=true"),
      await tagOf("/graph/v1/search?q=item&limit=5&order=score"),
      await tagOf("/graph/v1/search?q=item&limit=5&order=score&count=true"),
    ];
    assert.is(new Set(tags).size, 4, tags.join(" "));
    const statements = await tagOf("/graph/v1/statements?limit=5");
    assert.is(await tagOf("/graph/v1/statements?limit=5&count=false"), statements);
    const counted = await tagOf("/graph/v1/statements?limit=5&count=true");
    assert.is.not(counted, statements);
    const again = await get("/graph/v1/statements?limit=5&count=true", { headers: { "if-none-match": counted } });
    assert.is(again.status, 304);
    assert.is((await get("/graph/v1/statements?limit=5", { headers: { "if-none-match": counted } })).status, 200);
  });

  // ---- the entity lookup ------------------------------------------------------------------------

  test("lookup: 200, the entity's four fields byte for byte, ETag and Cache-Control: private", async () => {
    const ids = ["q:berlin", "q:quote", "q:bom", "item:7", ...LOOKUP_ENTITIES.map((e) => e.entityId)];
    const tags = new Set<string>();
    for (const id of ids) {
      const a = await get(`/graph/v1/entities/${encodeURIComponent(id)}`);
      assert.is(a.status, 200, `${id}: ${a.text}`);
      assert.is(a.text, JSON.stringify(graph.getEntity(id)), id);
      assert.equal(Object.keys(JSON.parse(a.text)), ["entityId", "rawIdentifier", "type", "sourceType"]);
      assert.is(a.headers.get("content-type"), "application/json");
      assert.is(Number(a.headers.get("content-length")), a.bytes.length);
      assert.match(a.headers.get("etag") ?? "", /^"[A-Za-z0-9_-]{20,22}"$/);
      assert.is(a.headers.get("cache-control"), "private");
      tags.add(a.headers.get("etag") as string);
    }
    assert.is(tags.size, ids.length, "a tag per entity");
  });

  test("lookup: the id's segment percent-decoded as UTF-8: %2F is a slash inside it, '+' is a plus, either hex case", async () => {
    for (const [segment, id] of [
      ["path%2Fwith%2Fslashes", "path/with/slashes"],
      ["path%2fwith%2fslashes", "path/with/slashes"],
      ["a+b%20c", "a+b c"],
      ["100%25%3F%23x", "100%?#x"],
      ["Z%C3%BCrich", "Zürich"],
      ["Z%c3%bcrich", "Zürich"],
      ["%E6%9D%B1%E4%BA%AC%2F%F0%9F%98%80", "東京/\u{1F600}"],
    ] as const) {
      const a = await get(`/graph/v1/entities/${segment}`);
      assert.is(a.status, 200, `${segment}: ${a.text}`);
      assert.is(JSON.parse(a.text).entityId, id, segment);
    }
    // Not the decoded form's twin: "Zurich" and "zürich" are other ids.
    for (const segment of ["Zurich", "z%C3%BCrich", "a%2Bb%2Bc", "a+b+c", "path%2Fwith"])
      assertError(await get(`/graph/v1/entities/${segment}`), 404, "ENTITY_NOT_FOUND");
  });

  test("lookup: 404 ENTITY_NOT_FOUND for an unknown id (with a sentence naming it); an empty or extra segment is an unknown path", async () => {
    assertError(await get("/graph/v1/entities/no-such-entity"), 404, "ENTITY_NOT_FOUND", '"no-such-entity"');
    assertError(await get("/graph/v1/entities/Q%2F1"), 404, "ENTITY_NOT_FOUND", '"Q/1"');
    assertError(await get(`/graph/v1/entities/${"x".repeat(600)}`), 404, "ENTITY_NOT_FOUND");
    for (const path of [
      "/graph/v1/entities",
      "/graph/v1/entities/",
      "/graph/v1/entities//",
      "/graph/v1/entities/path/with/slashes",
      "/graph/v1/entities/q:berlin/",
      "/graph/v1/entities/q:berlin/statements",
      "/graph/v1/entity/q:berlin",
    ]) {
      for (const key of [KEY, null]) {
        const a = await get(path, { key });
        if (spec.ownsEveryPath) assertError(a, 404, "NOT_FOUND", "/graph/v1/entities/{entityId}");
        else assert.is(a.status, spec.unownedStatus, path);
      }
    }
  });

  test("lookup: any query parameter is 400; a segment that is not percent-encoded UTF-8 is 400 INVALID_ENCODING", async () => {
    assertError(await get("/graph/v1/entities/q:berlin?x=1"), 400, "UNKNOWN_PARAMETER", "takes no parameters");
    assertError(await get("/graph/v1/entities/q:berlin?entityId=q:berlin"), 400, "UNKNOWN_PARAMETER");
    assertError(await get("/graph/v1/entities/no-such?limit=1"), 400, "UNKNOWN_PARAMETER", "limit");
    assertError(await get("/graph/v1/entities/q:berlin?count"), 400, "UNKNOWN_PARAMETER", "count");
    assertError(await get("/graph/v1/entities/Z%C3"), 400, "INVALID_ENCODING", "entityId");
    assertError(await get("/graph/v1/entities/%ED%A0%80"), 400, "INVALID_ENCODING", "entityId");
    assertError(await get("/graph/v1/entities/a%2"), 400, "INVALID_ENCODING", "entityId");
    // An empty query string holds no parameter.
    assert.is((await get("/graph/v1/entities/q:berlin?")).status, 200);
  });

  test("lookup: 401 before anything else (unknown id, parameters, method, If-None-Match)", async () => {
    const tag = (await get("/graph/v1/entities/q:berlin")).headers.get("etag") as string;
    for (const [path, method, headers] of [
      ["/graph/v1/entities/q:berlin", "GET", {}],
      ["/graph/v1/entities/no-such-entity", "GET", {}],
      ["/graph/v1/entities/q:berlin?x=1", "GET", {}],
      ["/graph/v1/entities/Z%C3", "GET", {}],
      ["/graph/v1/entities/q:berlin", "DELETE", {}],
      ["/graph/v1/entities/q:berlin", "GET", { "if-none-match": tag }],
    ] as const) {
      assertError(await get(path, { key: null, method, headers }), 401, "API_KEY_MISSING");
      assertError(await get(path, { key: "sk_wrong", method, headers }), 401, "API_KEY_REJECTED");
    }
    const head = await get("/graph/v1/entities/q:berlin", { key: null, method: "HEAD" });
    assert.is(head.status, 401);
    assert.is(head.bytes.length, 0);
  });

  test("lookup: If-None-Match naming the tag is 304 with no body; HEAD is GET without a body; other methods 405", async () => {
    const path = `/graph/v1/entities/${encodeURIComponent("Zürich")}`;
    const first = await get(path);
    const tag = first.headers.get("etag") as string;
    for (const inm of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
      const a = await get(path, { headers: { "if-none-match": inm } });
      assert.is(a.status, 304, inm);
      assert.is(a.bytes.length, 0);
      assert.is(a.headers.get("etag"), tag);
      assert.is(a.headers.get("cache-control"), "private");
    }
    assert.is((await get(path, { headers: { "if-none-match": '"other"' } })).status, 200);
    // "*" matches a current representation only: an unknown id stays 404.
    assertError(
      await get("/graph/v1/entities/no-such", { headers: { "if-none-match": "*" } }),
      404,
      "ENTITY_NOT_FOUND",
    );
    for (const p of [path, "/graph/v1/entities/no-such", "/graph/v1/entities/q:berlin?x=1"]) {
      const g = await get(p);
      const head = await get(p, { method: "HEAD" });
      assert.is(head.status, g.status, p);
      assert.is(head.bytes.length, 0);
      assert.is(head.headers.get("content-length"), g.headers.get("content-length"), p);
      assert.is(head.headers.get("etag"), g.headers.get("etag"), p);
    }
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const a = await get(path, { method });
      assertError(a, 405, "METHOD_NOT_ALLOWED", method);
      assert.is(a.headers.get("allow"), "GET, HEAD");
    }
  });

  // ---- 400, with codes --------------------------------------------------------------------------

  const BAD: [string, string, string][] = [
    ["/graph/v1/search", "MISSING_PARAMETER", "q"],
    ["/graph/v1/search?q=", "EMPTY_PARAMETER", "q"],
    ["/graph/v1/search?q=a&q=b", "REPEATED_PARAMETER", "q"],
    ["/graph/v1/search?q=a&query=b", "UNKNOWN_PARAMETER", "query"],
    ["/graph/v1/search?q=a&limit=0", "INVALID_LIMIT", "limit"],
    ["/graph/v1/search?q=a&limit=101", "INVALID_LIMIT", "limit"],
    ["/graph/v1/search?q=a&limit=007", "INVALID_LIMIT", "limit"],
    ["/graph/v1/search?q=a&limit=1e2", "INVALID_LIMIT", "limit"],
    ["/graph/v1/statements?limit=201", "INVALID_LIMIT", "limit"],
    ["/graph/v1/search?q=a&type=8", "INVALID_TYPE", "type"],
    [`/graph/v1/search?q=${"a".repeat(257)}`, "QUERY_TOO_LONG", "q"],
    ["/graph/v1/search?q=%C3", "INVALID_ENCODING", "q"],
    ["/graph/v1/search?q=a&cursor=AAAA", "INVALID_CURSOR", "cursor"],
    ["/graph/v1/statements?subjectEntityId=", "EMPTY_PARAMETER", "subjectEntityId"],
  ];
  for (const [path, code, parameter] of BAD) {
    test(`400 ${code}: ${path.slice(0, 60)}`, async () => {
      assertError(await get(path), 400, code, parameter);
    });
  }

  test("400: limit has one sentence whatever is wrong with it", async () => {
    const sentences = new Set<string>();
    for (const limit of ["0", "101", "abc", "007", "-1", "99999999999999999999"]) {
      const body = JSON.parse((await get(`/graph/v1/search?q=a&limit=${limit}`)).text);
      sentences.add(body.error.replace(/got .*$/, ""));
    }
    assert.is(sentences.size, 1, [...sentences].join(" | "));
  });

  test("400 cursors: from another query or the other endpoint; limit may change between pages", async () => {
    const first = JSON.parse((await get("/graph/v1/search?q=item&limit=2")).text).nextCursor as string;
    assertError(await get(`/graph/v1/search?q=ite&cursor=${first}`), 400, "CURSOR_QUERY_MISMATCH", "cursor");
    assertError(await get(`/graph/v1/statements?cursor=${first}`), 400, "CURSOR_ENDPOINT_MISMATCH", "cursor");
    assert.is((await get(`/graph/v1/search?q=item&limit=5&cursor=${first}`)).status, 200);
  });

  // ---- 401 first --------------------------------------------------------------------------------

  test("401 on both data endpoints: missing key API_KEY_MISSING, wrong key API_KEY_REJECTED, never echoed", async () => {
    for (const path of ["/graph/v1/search?q=berlin", "/graph/v1/statements"]) {
      assertError(await get(path, { key: null }), 401, "API_KEY_MISSING", "X-API-Key");
      for (const key of ["sk_wrong", KEY.slice(3), `${KEY}x`, KEY.slice(0, -1), KEY.toUpperCase()]) {
        const a = await get(path, { key });
        assertError(a, 401, "API_KEY_REJECTED");
        assert.not.ok(a.text.includes(key));
      }
      assert.is((await get(path, { key: OTHER_KEY })).status, 200);
    }
  });

  test("401 before 400, 405, 414 and 304: nothing else is looked at without a key", async () => {
    assertError(await get("/graph/v1/search?q=&limit=abc&foo=1", { key: "sk_nope" }), 401, "API_KEY_REJECTED");
    assertError(await get("/graph/v1/search?q=a", { key: null, method: "POST" }), 401, "API_KEY_MISSING");
    assertError(await get(`/graph/v1/search?q=${"a".repeat(9000)}`, { key: null }), 401, "API_KEY_MISSING");
    const tag = (await get("/graph/v1/search?q=berlin")).headers.get("etag") as string;
    assertError(
      await get("/graph/v1/search?q=berlin", { key: null, headers: { "if-none-match": tag } }),
      401,
      "API_KEY_MISSING",
    );
  });

  // ---- 404, 405, HEAD, 414 -----------------------------------------------------------------------

  test("404 for any other path (or, for a mounted middleware, the app's own answer)", async () => {
    for (const path of ["/", "/graph/v1", "/graph/v1/search/", "/graph/v1/Search", "/graph/v2/search", "/healthz/x"]) {
      const a = await get(path, { key: null });
      if (spec.ownsEveryPath) assertError(a, 404, "NOT_FOUND", "/graph/v1/search");
      else assert.is(a.status, spec.unownedStatus, path);
    }
  });

  test("405 with Allow: GET, HEAD for other methods on every known path", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      for (const path of ["/graph/v1/search?q=a", "/graph/v1/statements", "/healthz", "/graph/v1/openapi.json"]) {
        const a = await get(path, { method });
        assertError(a, 405, "METHOD_NOT_ALLOWED", method);
        assert.is(a.headers.get("allow"), "GET, HEAD");
      }
    }
  });

  test("HEAD: the status and headers of GET (Content-Length, ETag included), no body", async () => {
    for (const [path, status] of [
      ["/graph/v1/search?q=berlin", 200],
      ["/graph/v1/statements?limit=3", 200],
      ["/graph/v1/search?q=", 400],
      ["/healthz", 200],
      ["/graph/v1/openapi.json", 200],
    ] as const) {
      const getAnswer = await get(path);
      const head = await get(path, { method: "HEAD" });
      assert.is(head.status, status, path);
      assert.is(head.bytes.length, 0);
      assert.is(head.headers.get("content-length"), getAnswer.headers.get("content-length"), path);
      assert.is(head.headers.get("etag"), getAnswer.headers.get("etag"), path);
    }
    const unauthorized = await get("/graph/v1/search?q=a", { method: "HEAD", key: null });
    assert.is(unauthorized.status, 401);
    assert.is(unauthorized.bytes.length, 0);
  });

  test("414 TARGET_TOO_LONG: a target of 8,193 bytes; 8,192 reaches the parameters", async () => {
    const start = "/graph/v1/search?q=";
    const at = `${start}${"a".repeat(256)}&cursor=${"b".repeat(8192 - start.length - 256 - 8)}`;
    const prefix = new URL(base).pathname.replace(/\/$/, "");
    // A prefix is the app's part of the target: the adapter measures what it is handed.
    assert.is(Buffer.byteLength(at), 8192);
    assert.is((await get(at)).status, 400, `8,192 bytes (${prefix.length} of prefix aside) reaches the parameters`);
    assertError(await get(`${at}b`), 414, "TARGET_TOO_LONG", "8192");
  });

  // ---- public paths -----------------------------------------------------------------------------

  test("healthz and openapi.json need no key; the document carries an ETag and answers 304", async () => {
    const health = await get("/healthz", { key: null });
    assert.is(health.status, 200);
    assert.is(health.text, '{"status":"ok"}');
    const doc = await get("/graph/v1/openapi.json", { key: null });
    assert.is(doc.status, 200);
    assert.is(JSON.parse(doc.text).openapi, "3.1.0");
    const tag = doc.headers.get("etag") as string;
    assert.match(tag, /^"[A-Za-z0-9_-]{20,22}"$/);
    const again = await get("/graph/v1/openapi.json", { key: null, headers: { "if-none-match": tag } });
    assert.is(again.status, 304);
    assert.is(again.bytes.length, 0);
    assert.is(again.headers.get("etag"), tag);
  });

  // ---- caching ----------------------------------------------------------------------------------

  test("ETag: If-None-Match naming it gets 304 with no body; W/ and lists match; others do not", async () => {
    const path = "/graph/v1/search?q=item&limit=5";
    const first = await get(path);
    const tag = first.headers.get("etag") as string;
    for (const inm of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
      const a = await get(path, { headers: { "if-none-match": inm } });
      assert.is(a.status, 304, inm);
      assert.is(a.bytes.length, 0);
      assert.is(a.headers.get("etag"), tag);
      assert.is(a.headers.get("cache-control"), "private");
      assert.ok((a.headers.get("x-request-id") ?? "").length > 0);
    }
    assert.is((await get(path, { headers: { "if-none-match": '"other"' } })).status, 200);
    // Another query, another tag; the same bytes, the same tag (limit spelled out or not).
    assert.is.not((await get("/graph/v1/search?q=item&limit=6")).headers.get("etag"), tag);
    const byDefault = await get("/graph/v1/search?q=item");
    assert.is((await get("/graph/v1/search?q=item&limit=20")).headers.get("etag"), byDefault.headers.get("etag"));
    // A bad request stays a 400 whatever it names.
    assertError(
      await get("/graph/v1/search?q=item&limit=0", { headers: { "if-none-match": "*" } }),
      400,
      "INVALID_LIMIT",
    );
  });

  test("ETag: equal content and secret give equal tags across graphs; other content, other tags", async () => {
    const path = "/graph/v1/statements?limit=3";
    const before = await get(path);
    server.setGraph(buildSmallGraph({ items: true, lookups: true, secret: "the graph's own secret, overridden" }));
    const same = await get(path);
    assert.is(same.text, before.text);
    assert.is(same.headers.get("etag"), before.headers.get("etag"));
    assert.is((await get(path, { headers: { "if-none-match": before.headers.get("etag") as string } })).status, 304);
    server.setGraph(buildSmallGraph());
    const other = await get(path);
    assert.is.not(other.headers.get("etag"), before.headers.get("etag"));
    server.setGraph(graph);
  });

  // ---- compression ------------------------------------------------------------------------------

  test("compression: br or gzip as negotiated, above 1 KB only, a tag per coding, the same bytes once decoded", async () => {
    const path = "/graph/v1/search?q=item&limit=100";
    const plain = await get(path);
    assert.ok(plain.bytes.length > 1024);
    const tag = plain.headers.get("etag") as string;
    for (const [accept, coding, decode] of [
      ["gzip", "gzip", gunzipSync],
      ["gzip;q=1, br;q=0.5", "gzip", gunzipSync],
      ["br", "br", brotliDecompressSync],
      ["gzip, deflate, br", "br", brotliDecompressSync],
      ["*", "br", brotliDecompressSync],
    ] as const) {
      const raw = await fetchRaw(base + path, { "accept-encoding": accept, "x-api-key": KEY });
      assert.is(raw.status, 200);
      assert.is(raw.headers["content-encoding"], coding, accept);
      assert.is(raw.headers["vary"], "Accept-Encoding");
      assert.is(raw.headers["etag"], `${tag.slice(0, -1)}-${coding === "gzip" ? "gz" : "br"}"`);
      assert.is(Number(raw.headers["content-length"]), raw.body.length);
      assert.ok(decode(raw.body).equals(plain.bytes), accept);
      const again = await fetchRaw(base + path, {
        "accept-encoding": accept,
        "x-api-key": KEY,
        "if-none-match": raw.headers["etag"] as string,
      });
      assert.is(again.status, 304);
    }
    for (const accept of ["identity", "gzip;q=0, br;q=0", "compress", ""]) {
      const raw = await fetchRaw(base + path, { "accept-encoding": accept, "x-api-key": KEY });
      assert.is(raw.headers["content-encoding"], undefined, accept);
      assert.is(raw.headers["etag"], tag);
    }
    const small = await fetchRaw(`${base}/graph/v1/search?q=berlin`, {
      "accept-encoding": "gzip, br",
      "x-api-key": KEY,
    });
    assert.is(small.headers["content-encoding"], undefined, "under 1 KB: sent as it is");
  });

  // ---- X-Request-Id, 500, the log -----------------------------------------------------------------

  test("X-Request-Id: a usable one is echoed, on errors too; a long or unprintable one is replaced", async () => {
    assert.is(
      (await get("/healthz", { headers: { "x-request-id": "abc-123" } })).headers.get("x-request-id"),
      "abc-123",
    );
    assert.is(
      (await get("/nowhere", { headers: { "x-request-id": "err-1" } })).headers.get("x-request-id"),
      spec.ownsEveryPath ? "err-1" : null,
    );
    assert.is(
      (await get("/graph/v1/search?q=a", { key: null, headers: { "x-request-id": "e2" } })).headers.get("x-request-id"),
      "e2",
    );
    for (const bad of ["x".repeat(129), "has space", "tab\tinside"]) {
      const id = (await get("/healthz", { headers: { "x-request-id": bad } })).headers.get("x-request-id");
      assert.ok(id !== null && id !== bad && /^[\x21-\x7e]{1,128}$/.test(id), String(id));
    }
    const a = (await get("/healthz")).headers.get("x-request-id");
    const b = (await get("/healthz")).headers.get("x-request-id");
    assert.ok(a !== null && b !== null && a !== b, "generated ids differ");
  });

  test("500: a fixed sentence with INTERNAL_ERROR; the fault and the request's id go to onError; the server lives on", async () => {
    faults.length = 0;
    const a = await get("/graph/v1/search?q=fault", { headers: { "x-request-id": "boom-1" } });
    assertError(a, 500, "INTERNAL_ERROR");
    assert.not.ok(/secret|graph\.js|TypeError/.test(a.text));
    assert.is(faults.length, 1);
    assert.equal(faults[0]![1], { method: "GET", path: "/graph/v1/search", requestId: "boom-1" });
    assert.is((await get("/healthz")).status, 200);
  });

  test("request log: one entry per request with id, method, path, status; never the query or the key", async () => {
    logged.length = 0;
    await get("/graph/v1/search?q=berlin", { headers: { "x-request-id": "log-1" } });
    await get("/graph/v1/search?q=berlin", { key: "sk_guess_me" });
    await get("/healthz", { method: "HEAD" });
    assert.equal(
      logged.map(({ method, path, status }) => [method, path, status]),
      [
        ["GET", "/graph/v1/search", 200],
        ["GET", "/graph/v1/search", 401],
        ["HEAD", "/healthz", 200],
      ],
    );
    assert.is(logged[0]!.requestId, "log-1");
    assert.ok(logged.every((e) => e.durationMs >= 0));
    assert.not.ok(JSON.stringify(logged).includes("sk_") || JSON.stringify(logged).includes("berlin"));
  });

  test.run();

  // ---- options: CORS, compression off (each on a server of its own) -------------------------------

  const options = suite(`contract: ${name}, options`);
  options("cors off (the default): no Access-Control-* header, OPTIONS is 405", async () => {
    const other = await spec.start(buildSmallGraph(), { apiKeys: [KEY] });
    try {
      const a = await ask(other.url, "/graph/v1/search?q=a", { headers: { origin: "https://app.example" } });
      assert.is(a.headers.get("access-control-allow-origin"), null);
      const pre = await ask(other.url, "/graph/v1/statements", {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "GET" },
      });
      assertError(pre, 405, "METHOD_NOT_ALLOWED");
    } finally {
      await other.close();
    }
  });

  options("cors on: the preflight is 204 before the key; answers to an allowed origin carry its headers", async () => {
    const other = await spec.start(buildSmallGraph(), { apiKeys: [KEY], cors: ["https://app.example"] });
    try {
      const pre = await ask(other.url, "/graph/v1/search?q=a", {
        method: "OPTIONS",
        key: null,
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "x-api-key",
        },
      });
      assert.is(pre.status, 204);
      assert.is(pre.bytes.length, 0);
      assert.is(pre.headers.get("access-control-allow-origin"), "https://app.example");
      assert.is(pre.headers.get("access-control-allow-methods"), "GET, HEAD");
      assert.match(pre.headers.get("access-control-allow-headers") ?? "", /X-API-Key/);
      assert.is(pre.headers.get("access-control-max-age"), "600");
      for (const [key, status] of [
        [KEY, 200],
        [null, 401],
      ] as const) {
        const a = await ask(other.url, "/graph/v1/search?q=berlin", {
          key,
          headers: { origin: "https://app.example" },
        });
        assert.is(a.status, status);
        assert.is(a.headers.get("access-control-allow-origin"), "https://app.example");
        assert.is(a.headers.get("access-control-expose-headers"), "ETag, X-Request-Id, X-Quiver-Sequence");
        assert.match(a.headers.get("vary") ?? "", /Origin/);
      }
      // Another origin: no CORS headers, and its preflight is an ordinary OPTIONS (401 without a key).
      const stranger = await ask(other.url, "/graph/v1/search?q=a", {
        method: "OPTIONS",
        key: null,
        headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
      });
      assertError(stranger, 401, "API_KEY_MISSING");
      assert.is(stranger.headers.get("access-control-allow-origin"), null);
    } finally {
      await other.close();
    }
  });

  options('cors "*": any origin, no Vary: Origin', async () => {
    const other = await spec.start(buildSmallGraph(), { apiKeys: [KEY], cors: "*" });
    try {
      const a = await ask(other.url, "/healthz", { headers: { origin: "https://any.example" } });
      assert.is(a.headers.get("access-control-allow-origin"), "*");
      assert.is(a.headers.get("vary"), null);
    } finally {
      await other.close();
    }
  });

  options("compression: false sends every body as it is", async () => {
    const other = await spec.start(buildSmallGraph({ items: true }), { apiKeys: [KEY], compression: false });
    try {
      const raw = await fetchRaw(`${other.url}/graph/v1/search?q=item&limit=100`, {
        "accept-encoding": "gzip, br",
        "x-api-key": KEY,
      });
      assert.is(raw.status, 200);
      assert.is(raw.headers["content-encoding"], undefined);
      assert.is(raw.headers["vary"], undefined);
    } finally {
      await other.close();
    }
  });

  options.run();
}

/** A GET through node:http, so the body comes back exactly as sent (fetch would decode it). */
async function fetchRaw(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers as Record<string, string | undefined>,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

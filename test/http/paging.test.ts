/**
 * Paging walks through HTTP, concurrent requests, fault isolation, the graph swap and the request log.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { RequestLogEntry } from "../../src/http/adapter-kit.js";
import { ITEM_COUNT, KEY, buildSmallGraph, getJson, request, startServer, walk } from "../support/http.js";

test("search walk: every matching item exactly once, in the engine's order, for several limits", async () => {
  const graph = buildSmallGraph({ items: true });
  const server = await startServer(graph);
  try {
    const expected = graph.search({ q: "item", limit: 100 }).items.map((e) => e.entityId);
    for (let p = graph.search({ q: "item", limit: 100 }); p.nextCursor !== null; ) {
      p = graph.search({ q: "item", limit: 100, cursor: p.nextCursor });
      expected.push(...p.items.map((e) => e.entityId));
    }
    assert.is(expected.length, ITEM_COUNT);
    for (const limit of [1, 7, 20, 100]) {
      const { items, pages } = await walk(server.port, "/graph/v1/search?q=item", limit);
      assert.equal(
        items.map((e) => e.entityId),
        expected,
        `limit ${limit}`,
      );
      assert.is(pages, Math.ceil(ITEM_COUNT / limit), "nextCursor is null exactly on the last page");
    }
    const typed = await walk(server.port, "/graph/v1/search?q=item&type=3", 6);
    assert.ok(typed.items.length > 0 && typed.items.every((e) => e.type === "3"));
  } finally {
    await server.close();
  }
});

test("statements walk: every statement once, for no filter, S, P, O and P+O", async () => {
  const graph = buildSmallGraph({ items: true });
  const server = await startServer(graph);
  try {
    const total = graph.statementCount;
    const all = await walk(server.port, "/graph/v1/statements", 200);
    assert.is(all.items.length, total);
    assert.is(new Set(all.items.map((s) => s.statementFingerprint)).size, total);
    const small = await walk(server.port, "/graph/v1/statements", 13);
    assert.equal(small.items, all.items, "the same sequence whatever the page size");
    for (const filter of [
      "subjectEntityId=item:7",
      "predicateEntityId=q:located",
      "objectEntityId=q:germany",
      "predicateEntityId=q:located&objectEntityId=q:berlin",
    ]) {
      const { items } = await walk(server.port, `/graph/v1/statements?${filter}`, 9);
      const [k, v] = filter.split("&")[0]!.split("=") as [string, string];
      assert.ok(items.length > 0 && items.every((s) => s[k] === v), filter);
      assert.is(new Set(items.map((s) => s.statementFingerprint)).size, items.length);
    }
  } finally {
    await server.close();
  }
});

test("concurrent requests: 300 in flight at once, mixed endpoints and errors, each gets its own answer", async () => {
  const server = await startServer(buildSmallGraph({ items: true }));
  try {
    const jobs = Array.from({ length: 300 }, (_, i) => {
      const kind = i % 4;
      if (kind === 0)
        return getJson(server.port, `/graph/v1/search?q=item%20${String(i % 250).padStart(3, "0")}`).then((r) => {
          assert.is(r.status, 200);
          assert.is(r.body.items[0].entityId, `item:${i % 250}`);
        });
      if (kind === 1)
        return getJson(server.port, `/graph/v1/statements?subjectEntityId=item:${i % 250}`).then((r) => {
          assert.is(r.status, 200);
          assert.is(r.body.items.length, 2);
        });
      if (kind === 2)
        return getJson(server.port, `/graph/v1/search?q=a&limit=${i}`).then((r) =>
          assert.is(r.status, i <= 100 ? 200 : 400),
        );
      return getJson(server.port, "/graph/v1/search?q=a", null).then((r) => assert.is(r.status, 401));
    });
    await Promise.all(jobs);
  } finally {
    await server.close();
  }
});

test("500: a fault inside one request answers a fixed sentence, no stack, and does not touch the others", async () => {
  const graph = buildSmallGraph();
  const search = graph.search.bind(graph);
  // Test-only: make the real graph fail on one query, as a bug would.
  graph.search = (p) => {
    if (p.q === "boom") throw new TypeError("secret internals at Graph.search (graph.js:1:1)");
    return search(p);
  };
  const faults: unknown[] = [];
  const server = await startServer(graph, { onError: (e) => faults.push(e) });
  try {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(server.port, i % 2 === 0 ? "/graph/v1/search?q=boom" : "/graph/v1/search?q=berlin"),
      ),
    );
    results.forEach((r, i) => {
      if (i % 2 === 1) {
        assert.is(r.status, 200);
        return;
      }
      assert.is(r.status, 500);
      assert.is(r.headers["content-type"], "application/json");
      const body = JSON.parse(r.body);
      assert.equal(body.code, "INTERNAL_ERROR");
      assert.not.ok(r.body.includes("secret") || r.body.includes("graph.js") || r.body.includes("TypeError"));
    });
    assert.is(faults.length, 20);
    assert.is((await getJson(server.port, "/healthz")).status, 200, "the server lives on");
  } finally {
    await server.close();
  }
});

test("a throwing logger or error reporter does not take the server down", async () => {
  const graph = buildSmallGraph();
  graph.search = () => {
    throw new Error("test fault");
  };
  const stderrWrite = process.stderr.write;
  const written: string[] = [];
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as unknown as typeof process.stderr.write;
  const server = await startServer(graph, {
    log: () => {
      throw new Error("logger fault");
    },
    onError: () => {
      throw new Error("reporter fault");
    },
  });
  try {
    assert.is((await request(server.port, "/graph/v1/search?q=a")).status, 500);
    assert.is((await request(server.port, "/healthz")).status, 200);
  } finally {
    process.stderr.write = stderrWrite;
    await server.close();
  }
  assert.ok(written.some((w) => w.includes("reporter fault")) && written.some((w) => w.includes("test fault")));
});

test("setGraph: new requests see the new graph; cursors survive a rebuild with the same secret", async () => {
  const server = await startServer(buildSmallGraph({ items: true }));
  try {
    const first = (await getJson(server.port, "/graph/v1/search?q=item&limit=10")).body;
    server.handler.setGraph(buildSmallGraph({ items: true }));
    const next = await getJson(server.port, `/graph/v1/search?q=item&limit=10&cursor=${first.nextCursor}`);
    assert.is(next.status, 200);
    assert.is(next.body.items[0].entityId, "item:10");
    server.handler.setGraph(buildSmallGraph());
    assert.equal((await getJson(server.port, "/graph/v1/search?q=item")).body, { items: [], nextCursor: null });
    assert.is(server.handler.graph.entityCount, 10);
    server.handler.setGraph(buildSmallGraph({ items: true, secret: "another secret" }));
    assert.is(
      (await request(server.port, `/graph/v1/search?q=item&cursor=${first.nextCursor}`)).status,
      400,
      "another secret: 400",
    );
  } finally {
    await server.close();
  }
});

test("cursorSecret option: replicas built with other secrets accept each other's cursors", async () => {
  const a = await startServer(buildSmallGraph({ items: true, secret: "one" }), { cursorSecret: "shared" });
  const b = await startServer(buildSmallGraph({ items: true, secret: "two" }), { cursorSecret: "shared" });
  try {
    const first = (await getJson(a.port, "/graph/v1/search?q=item&limit=3")).body;
    const next = await getJson(b.port, `/graph/v1/search?q=item&limit=3&cursor=${first.nextCursor}`);
    assert.is(next.status, 200);
    assert.is(next.body.items[0].entityId, "item:3");
    b.handler.setGraph(buildSmallGraph({ items: true, secret: "three" }));
    assert.is(
      (await getJson(b.port, `/graph/v1/search?q=item&limit=3&cursor=${first.nextCursor}`)).status,
      200,
      "setGraph keeps the secret",
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("request log: one entry per request with method, path, status, duration; never the query or the key", async () => {
  const entries: RequestLogEntry[] = [];
  const server = await startServer(buildSmallGraph(), { log: (e) => entries.push(e) });
  try {
    await request(server.port, "/graph/v1/search?q=berlin");
    await request(server.port, "/graph/v1/search?q=berlin", { key: "sk_guess_me" });
    await request(server.port, "/graph/v1/statements?limit=x");
    await request(server.port, "/healthz", { method: "HEAD" });
    await request(server.port, "/nowhere?apiKey=sk_in_the_query");
    assert.equal(
      entries.map(({ method, path, status }) => [method, path, status]),
      [
        ["GET", "/graph/v1/search", 200],
        ["GET", "/graph/v1/search", 401],
        ["GET", "/graph/v1/statements", 400],
        ["HEAD", "/healthz", 200],
        ["GET", "/nowhere", 404],
      ],
    );
    assert.ok(entries.every((e) => e.durationMs >= 0 && e.durationMs < 1000));
    const text = JSON.stringify(entries);
    assert.not.ok(text.includes("sk_") || text.includes(KEY) || text.includes("berlin"));
  } finally {
    await server.close();
  }
});

test.run();

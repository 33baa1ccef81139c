/**
 * Changes over HTTP
 * =================
 * CONTRACT.md "Changes (live updates)" on the node adapter and the fetch adapter: every status and
 * code of POST /graph/v1/changes (401 first, 403 WRITE_FORBIDDEN, 405 with Allow: POST, 400
 * INVALID_CONTENT_TYPE and INVALID_CHANGE naming the line, 409 CHANGE_CONFLICT, 413 CHANGES_TOO_LARGE
 * by Content-Length and by a chunked body, 503 CHANGE_LOG_UNAVAILABLE with Retry-After and the graph
 * and log unchanged, 200 with the result), the path's 404 without a log, X-Quiver-Sequence on the
 * data endpoints, and ETags that change with a batch and agree between two servers of one base + log.
 */

import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openLive } from "../../src/changes/live-store.js";
import { createFetchHandler } from "../../src/http/fetch.js";
import { buildSmallGraph, KEY, post, request, SECRET, startServer } from "../support/http.js";

const WRITE_KEY = "sk_write_0123456789";
const CHANGES = "/graph/v1/changes";
const PUT_X = '{"op":"put","entity":{"entityId":"q:x","rawIdentifier":"Berlinale","type":"4","sourceType":"t"}}';
const PUT_XS =
  '{"op":"put","statement":{"subjectEntityId":"q:x","predicateEntityId":"q:located","objectEntityId":"q:berlin"}}';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "quiver-http-changes-"));
}

async function liveServer(dir: string, maxChangeBytes?: number) {
  const store = openLive(buildSmallGraph(), dir, { cursorSecret: SECRET });
  const server = await startServer(store.graph as never, {
    changes: store,
    writeKeys: [WRITE_KEY],
    cursorSecret: SECRET,
    ...(maxChangeBytes === undefined ? {} : { maxChangeBytes }),
  });
  return {
    store,
    server,
    close: async () => {
      await server.close();
      store.close();
    },
  };
}

function codeOf(body: string): string {
  return (JSON.parse(body) as { code: string }).code;
}

test("no change log: POST /graph/v1/changes is 404 like any unknown path; data answers carry X-Quiver-Sequence: 0", async () => {
  const server = await startServer(buildSmallGraph());
  try {
    const r = await post(server.port, CHANGES, PUT_X, { key: KEY });
    assert.is(r.status, 404);
    assert.is(codeOf(r.body), "NOT_FOUND");
    // Says why, for the newcomer who forgot --changes (regression: only "There is nothing at ...").
    assert.match(r.body, /this server takes no changes \(quiver serve --changes DIR takes them/);
    const s = await request(server.port, "/graph/v1/search?q=berlin");
    assert.is(s.status, 200);
    assert.is(s.headers["x-quiver-sequence"], "0");
    const st = await request(server.port, "/graph/v1/statements?limit=1");
    assert.is(st.headers["x-quiver-sequence"], "0");
    const e = await request(server.port, "/graph/v1/entities/q%3Aberlin");
    assert.is(e.headers["x-quiver-sequence"], "0");
    const bad = await request(server.port, "/graph/v1/search?q=");
    assert.is(bad.status, 400);
    assert.is(bad.headers["x-quiver-sequence"], "0");
  } finally {
    await server.close();
  }
});

test("the key first: 401 without one or with an unknown one, 403 WRITE_FORBIDDEN for a read key", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    const none = await post(live.server.port, CHANGES, "not json", { key: null, contentType: "text/plain" });
    assert.is(none.status, 401);
    assert.is(codeOf(none.body), "API_KEY_MISSING");
    const unknown = await post(live.server.port, CHANGES, PUT_X, { key: "sk_nobody_at_all" });
    assert.is(unknown.status, 401);
    assert.is(codeOf(unknown.body), "API_KEY_REJECTED");
    const read = await post(live.server.port, CHANGES, PUT_X, { key: KEY });
    assert.is(read.status, 403);
    assert.is(codeOf(read.body), "WRITE_FORBIDDEN");
    assert.is(live.store.sequence, 0);
    // A write key reads too.
    const s = await request(live.server.port, "/graph/v1/search?q=berlin", { key: WRITE_KEY });
    assert.is(s.status, 200);
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a read key with a method other than POST gets 405 with Allow: POST, not 403 (403 is POST's answer)", async () => {
  // CONTRACT.md "Errors": 403 is "an accepted key without the right to write, on POST /graph/v1/changes";
  // 405 is "a method other than GET or HEAD on a known path (... Allow: POST on /graph/v1/changes)".
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    for (const method of ["GET", "HEAD", "PUT", "DELETE"]) {
      const r = await request(live.server.port, CHANGES, { method, key: KEY });
      assert.is(r.status, 405, method);
      assert.is(r.headers["allow"], "POST", method);
      assert.is(r.headers["x-quiver-sequence"], "0", method);
      if (method !== "HEAD") assert.is(codeOf(r.body), "METHOD_NOT_ALLOWED");
    }
    // The key still comes first: no key, or an unknown one, is 401 whatever the method.
    const none = await request(live.server.port, CHANGES, { method: "GET", key: null });
    assert.is(none.status, 401);
    const unknown = await request(live.server.port, CHANGES, { method: "PUT", key: "sk_nobody_at_all" });
    assert.is(unknown.status, 401);
    assert.is(live.store.sequence, 0);
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("405 with Allow: POST; 400 INVALID_CONTENT_TYPE; 400 INVALID_CHANGE naming the line; 409 CHANGE_CONFLICT", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    for (const method of ["GET", "HEAD", "PUT", "DELETE"]) {
      const r = await request(live.server.port, CHANGES, { method, key: WRITE_KEY });
      assert.is(r.status, 405, method);
      assert.is(r.headers["allow"], "POST");
      if (method !== "HEAD") assert.is(codeOf(r.body), "METHOD_NOT_ALLOWED");
    }
    const type = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY, contentType: "application/json" });
    assert.is(type.status, 400);
    assert.is(codeOf(type.body), "INVALID_CONTENT_TYPE");
    const noType = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY, contentType: null });
    assert.is(codeOf(noType.body), "INVALID_CONTENT_TYPE");
    const bad = await post(live.server.port, CHANGES, `${PUT_X}\n{"op":"put","entity":{"entityId":"q:y"}}\n`, {
      key: WRITE_KEY,
    });
    assert.is(bad.status, 400);
    assert.is(codeOf(bad.body), "INVALID_CHANGE");
    assert.match(JSON.parse(bad.body).error, /line 2/);
    const conflict = await post(
      live.server.port,
      CHANGES,
      '{"op":"put","statement":{"subjectEntityId":"q:nobody","predicateEntityId":"q:located","objectEntityId":"q:berlin"}}',
      { key: WRITE_KEY },
    );
    assert.is(conflict.status, 409);
    assert.is(codeOf(conflict.body), "CHANGE_CONFLICT");
    assert.is(live.store.sequence, 0);
    assert.equal(
      readdirSync(dir).filter((n) => n.endsWith(".batch")),
      [],
    );
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Sends a POST's head (no body) asking for 100 Continue, and gives the first answer's status; on a
 * 100, sends `body` and gives the final status too.
 */
function postExpectingContinue(
  port: number,
  key: string,
  body: string,
  length = Buffer.byteLength(body),
): Promise<{ first: number; final: number | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(
        `POST ${CHANGES} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/x-ndjson\r\n` +
          `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
      ),
    );
    let text = "";
    let first: number | undefined;
    socket.on("error", reject);
    socket.on("data", (d: Buffer) => {
      text += d.toString("utf8");
      const statuses = [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
      if (first === undefined && statuses.length > 0) {
        first = statuses[0]!;
        // Each branch: told to go on (the body, then the final answer), or answered without it.
        if (first === 100) socket.write(body);
        else {
          socket.destroy();
          resolve({ first, final: undefined });
          return;
        }
      }
      if (first === 100 && statuses.length > 1) {
        socket.destroy();
        resolve({ first, final: statuses[1] });
      }
    });
  });
}

test("Expect: 100-continue: a refused batch (403, 413 by its length) is answered before its body is asked for; an accepted one gets 100, then 200 (regression: node sent 100 at once)", async () => {
  const dir = tempDir();
  const live = await liveServer(dir, 64 * 1024);
  try {
    assert.equal(await postExpectingContinue(live.server.port, KEY, PUT_X), { first: 403, final: undefined });
    assert.equal(await postExpectingContinue(live.server.port, WRITE_KEY, PUT_X, 128 * 1024), {
      first: 413,
      final: undefined,
    });
    assert.equal(await postExpectingContinue(live.server.port, WRITE_KEY, PUT_X), { first: 100, final: 200 });
    assert.is(live.store.graph.sequence, 1, "only the accepted batch applied");
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("413 CHANGES_TOO_LARGE by Content-Length and by a chunked body; nothing applied, the server serving", async () => {
  const dir = tempDir();
  const live = await liveServer(dir, 1000);
  try {
    const big = `${PUT_X}\n`.repeat(20);
    const declared = await post(live.server.port, CHANGES, big, { key: WRITE_KEY });
    assert.is(declared.status, 413);
    assert.is(codeOf(declared.body), "CHANGES_TOO_LARGE");
    const chunked = await post(
      live.server.port,
      CHANGES,
      Array.from({ length: 20 }, () => `${PUT_X}\n`),
      {
        key: WRITE_KEY,
      },
    );
    assert.is(chunked.status, 413);
    assert.is(codeOf(chunked.body), "CHANGES_TOO_LARGE");
    assert.is(live.store.sequence, 0);
    const ok = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY });
    assert.is(ok.status, 200);
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("200 once durable and visible: the result, X-Quiver-Sequence, ETags that follow the content and agree across servers", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    const query = "/graph/v1/search?q=berlin&limit=10";
    const before = await request(live.server.port, query);
    assert.is(before.headers["x-quiver-sequence"], "0");
    const r = await post(live.server.port, CHANGES, `${PUT_X}\n${PUT_XS}\n`, { key: WRITE_KEY });
    assert.is(r.status, 200);
    assert.is(r.body, '{"sequence":1,"entities":{"put":1,"deleted":0},"statements":{"put":1,"deleted":0}}');
    assert.ok(readdirSync(dir).includes("0000000000000001.batch"));
    const after = await request(live.server.port, query);
    assert.is(after.headers["x-quiver-sequence"], "1");
    assert.ok(JSON.parse(after.body).items.some((e: { entityId: string }) => e.entityId === "q:x"));
    assert.is.not(after.headers.etag, before.headers.etag);
    // The old tag is not current: a 200, not a 304.
    const stale = await request(live.server.port, query, {
      headers: { "If-None-Match": before.headers.etag as string },
    });
    assert.is(stale.status, 200);
    const fresh = await request(live.server.port, query, {
      headers: { "If-None-Match": after.headers.etag as string },
    });
    assert.is(fresh.status, 304);
    assert.is(fresh.headers["x-quiver-sequence"], "1");
    // A second server over the same base and a copy of the log: same tag, same bytes.
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    rmSync(join(copy, "LOCK"), { force: true });
    const other = await liveServer(copy);
    try {
      const there = await request(other.server.port, query);
      assert.is(there.headers["x-quiver-sequence"], "1");
      assert.is(there.headers.etag, after.headers.etag);
      assert.is(there.body, after.body);
    } finally {
      await other.close();
      rmSync(copy, { recursive: true, force: true });
    }
    // A delete of what was put: sequence 2, the entity gone.
    const del = await post(live.server.port, CHANGES, '{"op":"delete","entityId":"q:x","cascade":true}', {
      key: WRITE_KEY,
    });
    assert.is(del.body, '{"sequence":2,"entities":{"put":0,"deleted":1},"statements":{"put":0,"deleted":1}}');
    const gone = await request(live.server.port, "/graph/v1/entities/q%3Ax");
    assert.is(gone.status, 404);
    assert.is(gone.headers["x-quiver-sequence"], "2");
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("two servers on one base with different batches at one sequence give different ETags for different bytes (regression: the tag named base + sequence only, so the second server's 200 had the first's tag and a cache kept its bytes)", async () => {
  const dirs = [tempDir(), tempDir()];
  const servers = [await liveServer(dirs[0]!), await liveServer(dirs[1]!)];
  try {
    const query = "/graph/v1/search?q=berlinale&limit=10";
    const names = ["Berlinale one", "Berlinale two"];
    const answers = [];
    for (const [i, live] of servers.entries()) {
      const put = `{"op":"put","entity":{"entityId":"q:x","rawIdentifier":"${names[i]}","type":"4","sourceType":"t"}}`;
      assert.is((await post(live.server.port, CHANGES, put, { key: WRITE_KEY })).status, 200);
      answers.push(await request(live.server.port, query));
    }
    const [one, two] = answers;
    assert.is(one!.headers["x-quiver-sequence"], "1");
    assert.is(two!.headers["x-quiver-sequence"], "1");
    assert.is.not(one!.body, two!.body);
    assert.is.not(one!.headers.etag, two!.headers.etag);
    // The first server's tag does not make the second one answer 304.
    const cross = await request(servers[1]!.server.port, query, {
      headers: { "If-None-Match": one!.headers.etag as string },
    });
    assert.is(cross.status, 200);
    // The entity lookup too: one id, one sequence, other bytes.
    const lookups = await Promise.all(servers.map((l) => request(l.server.port, "/graph/v1/entities/q%3Ax")));
    assert.is.not(lookups[0]!.headers.etag, lookups[1]!.headers.etag);
  } finally {
    for (const live of servers) await live.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});

test("503 CHANGE_LOG_UNAVAILABLE with Retry-After when the log cannot be written: graph unchanged, server serving", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    // The log's directory gone: the write fails as on a full or read-only disk (root ignores modes).
    rmSync(dir, { recursive: true, force: true });
    const r = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY });
    assert.is(r.status, 503);
    assert.is(codeOf(r.body), "CHANGE_LOG_UNAVAILABLE");
    assert.is(r.headers["retry-after"], "5");
    assert.is(live.store.sequence, 0);
    const s = await request(live.server.port, "/graph/v1/entities/q%3Ax");
    assert.is(s.status, 404);
    assert.is(s.headers["x-quiver-sequence"], "0");
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("POST /graph/v1/changes takes no query parameter: 400 naming it, nothing applied (regression: ?x=1 was ignored and the batch applied)", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    const unknown = await post(live.server.port, `${CHANGES}?dryRun=true`, PUT_X, { key: WRITE_KEY });
    assert.is(unknown.status, 400);
    assert.is(codeOf(unknown.body), "UNKNOWN_PARAMETER");
    assert.match(JSON.parse(unknown.body).error, /"dryRun"/);
    const encoding = await post(live.server.port, `${CHANGES}?%zz`, PUT_X, { key: WRITE_KEY });
    assert.is(encoding.status, 400);
    assert.is(codeOf(encoding.body), "INVALID_ENCODING");
    assert.is(live.store.sequence, 0);
    assert.equal(
      readdirSync(dir).filter((n) => n.endsWith(".batch")),
      [],
    );
    // An empty query string holds no parameter (as on the entity lookup): the batch applies.
    const bare = await post(live.server.port, `${CHANGES}?`, PUT_X, { key: WRITE_KEY });
    assert.is(bare.status, 200);
    // The key still comes first: a read key is 403 whatever the query string holds.
    const read = await post(live.server.port, `${CHANGES}?dryRun=true`, PUT_X, { key: KEY });
    assert.is(read.status, 403);
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("X-Quiver-Sequence on every answer of POST /graph/v1/changes, refusals too, a 401 among them (regression: only the 200 carried it)", async () => {
  const dir = tempDir();
  const live = await liveServer(dir, 1000);
  try {
    const ok = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY });
    assert.is(ok.status, 200);
    assert.is(ok.headers["x-quiver-sequence"], "1");
    const refusals: [number, Awaited<ReturnType<typeof post>>][] = [
      [403, await post(live.server.port, CHANGES, PUT_X, { key: KEY })],
      [405, await request(live.server.port, CHANGES, { method: "GET", key: WRITE_KEY })],
      [400, await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY, contentType: "text/plain" })],
      [400, await post(live.server.port, CHANGES, "not json", { key: WRITE_KEY })],
      [400, await post(live.server.port, `${CHANGES}?x=1`, PUT_X, { key: WRITE_KEY })],
      [409, await post(live.server.port, CHANGES, PUT_XS.replace("q:berlin", "q:nobody"), { key: WRITE_KEY })],
      [413, await post(live.server.port, CHANGES, `${PUT_X}\n`.repeat(20), { key: WRITE_KEY })],
    ];
    for (const [status, r] of refusals) {
      assert.is(r.status, status);
      assert.is(r.headers["x-quiver-sequence"], "1", String(status));
    }
    const none = await post(live.server.port, CHANGES, PUT_X, { key: null });
    assert.is(none.status, 401);
    assert.is(none.headers["x-quiver-sequence"], "1");
    // The log gone: the 503 names the sequence the graph still holds.
    rmSync(dir, { recursive: true, force: true });
    const unavailable = await post(live.server.port, CHANGES, PUT_X, { key: WRITE_KEY });
    assert.is(unavailable.status, 503);
    assert.is(unavailable.headers["x-quiver-sequence"], "1");
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a batch that is not valid UTF-8: 400 INVALID_CHANGE naming the line, nothing applied (regression: the bytes became U+FFFD and the batch applied)", async () => {
  const dir = tempDir();
  const live = await liveServer(dir);
  try {
    const bytes = Buffer.concat([
      Buffer.from(`${PUT_X}\n{"op":"put","entity":{"entityId":"q:u","rawIdentifier":"a`),
      Buffer.from([0xff]),
      Buffer.from(`b","type":"4","sourceType":"t"}}\n`),
    ]);
    const r = await post(live.server.port, CHANGES, bytes, { key: WRITE_KEY });
    assert.is(r.status, 400);
    assert.is(codeOf(r.body), "INVALID_CHANGE");
    assert.match(JSON.parse(r.body).error, /^line 2: not valid UTF-8/);
    assert.is(live.store.sequence, 0);
    assert.is((await request(live.server.port, "/graph/v1/entities/q%3Au")).status, 404);
    // A truncated sequence at the very end (a body cut inside a character) too, on its own line.
    const cut = await post(
      live.server.port,
      CHANGES,
      Buffer.concat([Buffer.from(`${PUT_X}\n\n`), Buffer.from([0xc3])]),
      {
        key: WRITE_KEY,
      },
    );
    assert.is(cut.status, 400);
    assert.match(JSON.parse(cut.body).error, /^line 3: not valid UTF-8/);
    // Well-formed UTF-8 of every length goes through as before.
    const ok = await post(
      live.server.port,
      CHANGES,
      Buffer.from('{"op":"put","entity":{"entityId":"q:u","rawIdentifier":"é€😀","type":"4","sourceType":"t"}}\n'),
      { key: WRITE_KEY },
    );
    assert.is(ok.status, 200);
    assert.is(JSON.parse((await request(live.server.port, "/graph/v1/entities/q%3Au")).body).rawIdentifier, "é€😀");
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("CORS: a preflight of the changes path allows POST and Content-Type; X-Quiver-Sequence is exposed", async () => {
  const dir = tempDir();
  const store = openLive(buildSmallGraph(), dir, { cursorSecret: SECRET });
  const server = await startServer(store.graph as never, {
    changes: store,
    writeKeys: [WRITE_KEY],
    cursorSecret: SECRET,
    cors: "*",
  });
  try {
    const pre = await request(server.port, CHANGES, {
      method: "OPTIONS",
      key: null,
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "POST" },
    });
    assert.is(pre.status, 204);
    assert.is(pre.headers["access-control-allow-methods"], "POST");
    assert.match(pre.headers["access-control-allow-headers"] as string, /Content-Type/);
    const s = await request(server.port, "/graph/v1/search?q=berlin", { headers: { Origin: "https://app.example" } });
    assert.match(s.headers["access-control-expose-headers"] as string, /X-Quiver-Sequence/);
  } finally {
    await server.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("fetch adapter: 200 with the result, 403 (405 for a read key's GET), 413 by a streamed body, X-Quiver-Sequence", async () => {
  const dir = tempDir();
  const store = openLive(buildSmallGraph(), dir, { cursorSecret: SECRET });
  try {
    const handler = createFetchHandler(store.graph, {
      apiKeys: [KEY],
      writeKeys: [WRITE_KEY],
      cursorSecret: SECRET,
      changes: store,
      maxChangeBytes: 1000,
    });
    const url = `http://quiver.test${CHANGES}`;
    const headers = { "x-api-key": WRITE_KEY, "content-type": "application/x-ndjson" };
    const read = await handler(
      new Request(url, { method: "POST", headers: { ...headers, "x-api-key": KEY }, body: PUT_X }),
    );
    assert.is(read.status, 403);
    assert.is(((await read.json()) as { code: string }).code, "WRITE_FORBIDDEN");
    // 403 is POST's answer; another method with a read key is 405 with Allow: POST.
    const readGet = await handler(new Request(url, { headers: { "x-api-key": KEY } }));
    assert.is(readGet.status, 405);
    assert.is(readGet.headers.get("allow"), "POST");
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(`${PUT_X}\n`));
      },
    });
    const big = await handler(
      new Request(url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit),
    );
    assert.is(big.status, 413);
    const ok = await handler(new Request(url, { method: "POST", headers, body: PUT_X }));
    assert.is(ok.status, 200);
    assert.is(await ok.text(), '{"sequence":1,"entities":{"put":1,"deleted":0},"statements":{"put":0,"deleted":0}}');
    const s = await handler(
      new Request("http://quiver.test/graph/v1/entities/q%3Ax", { headers: { "x-api-key": KEY } }),
    );
    assert.is(s.status, 200);
    assert.is(s.headers.get("x-quiver-sequence"), "1");
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

/**
 * HTTP corners the fuzzer found where node answered on its own, outside the contract, and the fixes
 * in src/http/server.ts that route them through the contract's answers (one test each, so the fixes
 * cannot regress behind a lucky seed):
 * - CONNECT: node closed the connection without a word; now the handler answers (401 first on the
 *   data endpoints, 405 with Allow on the others, 404 elsewhere) and the connection is closed;
 * - `Expect` other than 100-continue: node answered 417 with an empty body; now it is ignored;
 * - no Host header in HTTP/1.1, or two: node answered 400 with an empty body, or served two Hosts;
 *   now 400 with the contract's JSON error (RFC 9112 section 3.2); HTTP/1.0 needs none;
 * - an HTTP-level error answered to HEAD (431 here) carries no body.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildFuzzGraph } from "../../reliability/fuzz.js";
import { exchange, header, LOOPBACK, type RawResponse } from "../../reliability/raw-http.js";
import { serve, type RunningServer } from "../../src/http/server.js";

const KEY = "sk_protocol_test_key";
let running: RunningServer;
let port: number;

test.before(async () => {
  running = await serve({ graph: await buildFuzzGraph(), apiKeys: [KEY], host: LOOPBACK, port: 0 });
  port = Number(new URL(running.url).port);
});

test.after(async () => {
  await running.close();
});

async function one(bytes: string, head = false): Promise<{ r: RawResponse; end: string }> {
  const ex = await exchange(port, bytes, { timeoutMs: 3000, responses: 1, head: [head] });
  assert.ok(ex.responses[0] !== undefined, `no answer (${ex.end}) to ${JSON.stringify(bytes.slice(0, 60))}`);
  return { r: ex.responses[0]!, end: ex.end };
}

function assertJsonError(r: RawResponse, status: number): void {
  assert.is(r.status, status);
  assert.is(header(r, "content-type"), "application/json");
  const body = JSON.parse(r.body.toString("utf8"));
  assert.equal(Object.keys(body), ["error", "code"]);
  assert.ok(body.error.length > 0);
}

test("CONNECT is answered by the contract, then the connection is closed", async () => {
  assertJsonError((await one("CONNECT /graph/v1/search HTTP/1.1\r\nHost: x\r\n\r\n")).r, 401);
  const known = (await one(`CONNECT /graph/v1/statements HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`)).r;
  assertJsonError(known, 405);
  assert.is(header(known, "allow"), "GET, HEAD");
  assertJsonError((await one("CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n")).r, 404);
  const closed = await exchange(port, "CONNECT /healthz HTTP/1.1\r\nHost: x\r\n\r\n", { timeoutMs: 3000 });
  assert.is(closed.end, "closed", "the connection is closed after the answer");
  assert.is(header(closed.responses[0]!, "connection"), "close");
});

test("Expect other than 100-continue is ignored: the request is served (never a bare 417)", async () => {
  for (const expect of ["foo", "200-ok", ""]) {
    const { r } = await one(
      `GET /graph/v1/search?q=united&limit=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nExpect: ${expect}\r\n\r\n`,
    );
    assert.is(r.status, 200, expect);
    assert.is(JSON.parse(r.body.toString()).items.length, 1);
  }
  const ex = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n", {
    timeoutMs: 3000,
    responses: 1,
  });
  // No 100: a GET has no body to ask for, and the final answer is the one a waiting client needs
  // (RFC 9110 section 10.1.1; a POST's 100 comes when the router asks for its body: test/http/changes.test.ts).
  assert.equal(ex.interim, []);
  assert.is(ex.responses[0]?.status, 200);
});

test("Host: none or two in HTTP/1.1 get 400 as JSON; HTTP/1.0 needs none", async () => {
  assertJsonError((await one("GET /healthz HTTP/1.1\r\n\r\n")).r, 400);
  assertJsonError(
    (await one(`GET /graph/v1/search?q=a HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-API-Key: ${KEY}\r\n\r\n`)).r,
    400,
  );
  const head = (await one("HEAD /healthz HTTP/1.1\r\n\r\n", true)).r;
  assert.is(head.status, 400);
  assert.is(head.body.length, 0);
  assert.is((await one("GET /healthz HTTP/1.0\r\n\r\n")).r.status, 200);
  assertJsonError((await one("GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n")).r, 400);
});

test("an HTTP-level error answered to HEAD has its Content-Length but no body", async () => {
  const ex = await exchange(port, `HEAD /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`, {
    timeoutMs: 3000,
    head: [true],
  });
  const r = ex.responses[0]!;
  assert.is(r.status, 431);
  assert.ok(Number(header(r, "content-length")) > 0);
  assert.is(r.body.length, 0);
  assert.is(ex.garbage.length, 0, `bytes after the head: ${ex.garbage.toString()}`);
});

test.run();

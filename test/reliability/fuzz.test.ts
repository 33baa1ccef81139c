/**
 * The request fuzzer as part of `npm test`: a seeded run of a few thousand random and mutated
 * requests against the real server must show no violation of the contract, and must reach every
 * status of its table. Then the fuzzer itself is checked: its reference oracle against hand-picked
 * answers of the contract, its cases against replay, and its checks against a server with planted
 * faults (an auth bypass, a stack trace, a 500, a malformed page), each of which it must report.
 * The long run is `npm run fuzz -- --requests 100000` (figures in the README).
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { CursorBook, makeCase, oracle, referenceParams } from "../../reliability/fuzz-cases.js";
import { buildFuzzGraph, FUZZ_KEYS, fuzzContext, runFuzz, type FuzzReport } from "../../reliability/fuzz.js";
import { createHandler } from "../../src/http/node.js";

const SEED = 5;
const REQUESTS = 5000;

const describe = (r: FuzzReport) =>
  r.violations
    .map((v) => `case ${v.index} (${v.kind}): ${v.reason}\n  request:  ${v.request}\n  response: ${v.response}`)
    .join("\n");

test(`seeded fuzz: ${REQUESTS} requests, no violation, every status of the table reached`, async () => {
  const report = await runFuzz({ seed: SEED, requests: REQUESTS, seconds: 45 });
  assert.is(report.violationCount, 0, `${report.violationCount} violations:\n${describe(report)}`);
  assert.is(report.requests, REQUESTS, "every case was sent within the time bound");
  for (const status of ["200", "400", "401", "404", "405", "414", "431"]) {
    assert.ok((report.byStatus[status] ?? 0) > 0, `no ${status} in ${JSON.stringify(report.byStatus)}`);
  }
  assert.is(report.serverFaults, 0);
  assert.ok(report.followUps > 0 && report.healthChecks > 1);
  assert.ok(report.durationMs < 45_000);
});

test("oracle: the contract's answers for hand-picked query strings", () => {
  const book = new CursorBook();
  book.add({ cursor: "AAAA_real", endpoint: "search", params: { q: "a b" } });
  const ok = (q: string, endpoint: "search" | "statements" = "search") => referenceParams(q, endpoint, book) !== null;
  for (const q of [
    "q=a",
    "q=a+b",
    "q=%61",
    "%71=a",
    "q=a&&limit=1",
    "q=a&limit=100",
    "q=%C3%A9",
    "q=%00",
    "q=%EF%BB%BF",
    "q=a=b",
    "q=a%20b&cursor=AAAA_real",
    "q=a+b&cursor=AAAA_real&limit=3",
  ]) {
    assert.ok(ok(q), q);
  }
  for (const q of [
    "",
    "q=",
    "q",
    "q=a&q=a",
    "q=a&Q=a",
    "q=a&limit=0",
    "q=a&limit=101",
    "q=a&limit=01",
    "q=a&limit=+1",
    "q=a&type=8",
    "q=%",
    "q=%C3",
    "q=%C0%AF",
    "q=%ED%A0%80",
    "q=a&cursor=AAAA_real",
    "q=a+b&type=1&cursor=AAAA_real",
    "q=a&x=1",
    `q=${"a".repeat(257)}`,
  ]) {
    assert.not.ok(ok(q), q);
  }
  assert.ok(ok(`q=${"%F0%9F%98%80".repeat(128)}`), "256 code units of astral characters");
  assert.not.ok(ok(`q=${"%F0%9F%98%80".repeat(128)}a`), "257 code units");
  assert.ok(ok("limit=200&subjectEntityId=x", "statements"));
  assert.not.ok(ok("limit=201", "statements"));
  assert.not.ok(ok("cursor=AAAA_real", "statements"), "a search cursor on statements");
  // The order of checks: key before length before path before method before parameters.
  const keys = ["sk_k"];
  const spec = (method: string, target: string, headers: [string, string][]) =>
    oracle({ method, target, version: "HTTP/1.1", headers: [["Host", "x"], ...headers] }, { keys, book });
  assert.equal(spec("POST", `/graph/v1/search?q=${"a".repeat(9000)}`, []), { kind: "exact", status: 401 });
  assert.equal(spec("POST", `/graph/v1/search?q=${"a".repeat(9000)}`, [["X-API-Key", "sk_k"]]), {
    kind: "exact",
    status: 414,
  });
  assert.equal(spec("POST", "/graph/v1/search?q=", [["X-API-Key", "sk_k"]]), { kind: "exact", status: 405 });
  assert.equal(spec("GET", "/graph/v1/search?q=", [["X-API-Key", " sk_k "]]), { kind: "exact", status: 400 });
  assert.equal(
    spec("GET", "/graph/v1/search?q=a", [
      ["X-API-Key", "sk_k"],
      ["x-api-key", "sk_k"],
    ]),
    { kind: "exact", status: 401 },
  );
  assert.equal(spec("GET", "/elsewhere", [["X-API-Key", "sk_k"]]), { kind: "exact", status: 404 });
  assert.equal(oracle({ method: "GET", target: "/healthz", version: "HTTP/1.1", headers: [] }, { keys, book }), {
    kind: "exact",
    status: 400,
  });
  // Methods: nobody registers FOO or get (400, before the key); UPDATE is registered (node does not know it).
  assert.equal(spec("FOO", "/graph/v1/search?q=a", []), { kind: "exact", status: 400 });
  assert.equal(spec("get", "/healthz", []), { kind: "exact", status: 400 });
  assert.equal(spec("UPDATE", "/graph/v1/search?q=a", []), { kind: "exact", status: 401 });
  assert.equal(spec("UPDATE", "/healthz", []), { kind: "exact", status: 405 });
  // Absolute-form is its path.
  assert.equal(spec("GET", "http://x/graph/v1/search?q=a", []), { kind: "exact", status: 401 });
  assert.equal(spec("GET", "http://x/healthz", []), { kind: "exact", status: 200, publicPath: "/healthz" });
  // A head over 16 KB: 414 when the target alone passes 8,192 bytes, else 431; before the key.
  const big: [string, string] = ["X-Big", "b".repeat(9000)];
  assert.equal(spec("GET", `/graph/v1/search?q=${"a".repeat(9000)}`, [big]), { kind: "exact", status: 414 });
  assert.equal(spec("GET", `/graph/v1/search?q=${"a".repeat(8000)}`, [big]), { kind: "exact", status: 431 });
  // If-None-Match: * is a 304 once the request would be a 200; never before the key or the parameters.
  const star: [string, string] = ["If-None-Match", "*"];
  assert.equal(spec("GET", "/graph/v1/search?q=a", [["X-API-Key", "sk_k"], star]), { kind: "exact", status: 304 });
  assert.equal(spec("GET", "/graph/v1/search?q=", [["X-API-Key", "sk_k"], star]), { kind: "exact", status: 400 });
  assert.equal(spec("GET", "/graph/v1/search?q=a", [star]), { kind: "exact", status: 401 });
});

test("cases are a function of (seed, index) alone: a replay sends the same bytes", async () => {
  const graph = await buildFuzzGraph();
  const a = fuzzContext(graph, FUZZ_KEYS);
  const b = fuzzContext(graph, FUZZ_KEYS);
  assert.ok(a.book.size > 50, `only ${a.book.size} cursors in the book`);
  for (const i of [0, 1, 17, 999, 123456])
    assert.ok(makeCase(a, SEED, i).bytes.equals(makeCase(b, SEED, i).bytes), `case ${i}`);
  assert.not.ok(makeCase(a, SEED, 1).bytes.equals(makeCase(a, SEED + 1, 1).bytes));
});

test("the checks bite: a server with planted faults is caught on each of them", async () => {
  const key = "sk_mutant_key";
  const inner = createHandler(await buildFuzzGraph(), { apiKeys: [key], onError: () => {} });
  const json = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const mutant = http.createServer((req, res) => {
    const url = req.url ?? "";
    // An auth bypass on statements, a stack trace in 404s, a 500 on emoji, a malformed page on limit=1.
    if (url.startsWith("/graph/v1/statements") && req.headers["x-api-key"] === undefined)
      return json(res, 200, '{"items":[],"nextCursor":null}');
    if (url.startsWith("/nowhere"))
      return json(
        res,
        404,
        JSON.stringify({ error: "Error: no route\n    at route (/srv/app/router.js:12:7)", code: "NOT_FOUND" }),
      );
    if (url.startsWith("/graph/v1/search") && url.includes("%F0%9F"))
      return json(res, 500, '{"error":"internal","code":"INTERNAL_ERROR"}');
    // A 404 whose code is not the 404's.
    if (url.startsWith("/favicon.ico")) return json(res, 404, '{"error":"There is nothing here.","code":"NOT_A_CODE"}');
    if (url.startsWith("/graph/v1/search") && /[?&]limit=1(&|$)/.test(url) && req.headers["x-api-key"] === key)
      return json(
        res,
        200,
        '{"items":[{"entityId":"x","rawIdentifier":null,"type":"0","sourceType":"t"}],"nextCursor":null}',
      );
    inner(req, res);
  });
  await new Promise<void>((r) => mutant.listen(0, "127.0.0.1", r));
  try {
    const report = await runFuzz({
      baseUrl: `http://127.0.0.1:${(mutant.address() as AddressInfo).port}`,
      keys: [key],
      seed: SEED,
      requests: 1500,
      keepViolations: 100_000,
    });
    const reasons = report.violations.map((v) => v.reason);
    const found = (pattern: RegExp) => reasons.some((r) => pattern.test(r));
    assert.ok(found(/^status 200, the contract says 401$/), "the auth bypass");
    assert.ok(found(/stack trace/), "the stack trace");
    assert.ok(found(/never a 5xx/), "the 500");
    assert.ok(found(/item field rawIdentifier is null/), "the null field");
    assert.ok(found(/^a 404 with code NOT_A_CODE$/), "the wrong code");
    assert.ok(found(/no usable X-Request-Id/), "the answers without a request id");
  } finally {
    mutant.closeAllConnections();
    await new Promise((r) => mutant.close(r));
  }
});

test.run();

/**
 * The request log: one JSON line per request with level, time, pid, request id, method, path
 * (never the query string), status and ms; lines batched per turn of the event loop; the timestamp
 * reused within a millisecond; strings escaped when they must be.
 */

import { PassThrough } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createRequestLog, REQUEST_LOG_FLUSH_MS } from "../../src/cli/request-log.js";

function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  return { out, text: () => text };
}

const lines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

/** Waits past the log's batching interval. */
const afterFlush = () => new Promise((r) => setTimeout(r, REQUEST_LOG_FLUSH_MS + 20));

test("one JSON line per request with every field, written in batches", async () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  log.write({ requestId: "abc-1", method: "GET", path: "/graph/v1/search", status: 200, durationMs: 0.123456 });
  log.write({ requestId: "abc-2", method: "HEAD", path: "/x".repeat(2000), status: 404, durationMs: 1 });
  log.write({ requestId: "abc-3", method: "GET", path: "/graph/v1/search", status: 500, durationMs: 2 });
  assert.is(text(), "", "nothing written synchronously");
  await afterFlush();
  const [first, second, third] = lines(text());
  assert.equal(Object.keys(first), ["level", "time", "pid", "id", "method", "path", "status", "ms"]);
  assert.equal(
    [first.level, first.pid, first.id, first.method, first.path, first.status, first.ms],
    ["info", process.pid, "abc-1", "GET", "/graph/v1/search", 200, 0.123],
  );
  assert.ok(Math.abs(Date.parse(first.time) - Date.now()) < 60_000);
  assert.match(first.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is(second.path.length, 1024, "long paths are cut");
  assert.is(third.level, "error", "a 5xx is logged at level error");
});

test("what JSON must escape is escaped: a path with quotes, backslashes, controls and non-ASCII", async () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  const path = '/a"b\\c\u0001d\u00e9\u2028';
  log.write({ requestId: 'id"\\', method: "GET", path, status: 404, durationMs: 0 });
  await afterFlush();
  const [line] = lines(text());
  assert.is(line.path, path);
  assert.is(line.id, 'id"\\');
});

test("the timestamp is made once per millisecond and is current", async () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  for (let i = 0; i < 1000; i++)
    log.write({ requestId: `r${i}`, method: "GET", path: "/healthz", status: 200, durationMs: 0 });
  await new Promise((r) => setTimeout(r, 5));
  log.write({ requestId: "late", method: "GET", path: "/healthz", status: 200, durationMs: 0 });
  await afterFlush();
  const all = lines(text());
  assert.is(all.length, 1001);
  const times = all.map((l) => Date.parse(l.time));
  for (let i = 1; i < times.length; i++) assert.ok(times[i]! >= times[i - 1]!, "never goes back");
  assert.ok(times[1000]! > times[0]!, "a later request gets a later time");
});

test("a batch is written within REQUEST_LOG_FLUSH_MS, and at once when it is large", async () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  log.write({ requestId: "r", method: "GET", path: "/healthz", status: 200, durationMs: 0 });
  await new Promise((r) => setImmediate(r));
  assert.is(text(), "", "not written per turn of the event loop");
  await afterFlush();
  assert.is(lines(text()).length, 1);
  const big = "/p".repeat(500);
  for (let i = 0; i < 100; i++) log.write({ requestId: `r${i}`, method: "GET", path: big, status: 404, durationMs: 0 });
  assert.ok(lines(text()).length > 1, "64 KiB pending are written without waiting");
});

test("lines across many batches arrive whole and in order, non-ASCII paths of every UTF-8 length", async () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  const paths = ["/a", "/\u00e9".repeat(300), "/\u4e2d".repeat(500), "/\ud83d\ude00".repeat(250), "/\u2028x"];
  for (let i = 0; i < 3000; i++)
    log.write({ requestId: `r${i}`, method: "GET", path: paths[i % paths.length]!, status: 200, durationMs: 0 });
  log.flush();
  const all = lines(text());
  assert.is(all.length, 3000);
  all.forEach((line, i) => {
    assert.is(line.id, `r${i}`);
    assert.is(line.path, paths[i % paths.length]!.slice(0, 1024));
  });
});

test("flush writes what is pending at once", () => {
  const { out, text } = capture();
  const log = createRequestLog(out);
  log.write({ requestId: "r", method: "GET", path: "/healthz", status: 200, durationMs: 0 });
  log.flush();
  assert.is(lines(text()).length, 1);
});

test.run();

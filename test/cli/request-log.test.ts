/**
 * The request log: one JSON line per request with level, time, pid, request id, method, path
 * (never the query string), status and ms; lines batched per turn of the event loop; the timestamp
 * reused within a millisecond; strings escaped when they must be.
 */

import { PassThrough, Writable } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  createRequestLog,
  PIPE_BUF,
  REQUEST_LOG_FLUSH_MS,
  REQUEST_LOG_MAX_QUEUED_BYTES,
} from "../../src/cli/request-log.js";

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
  for (let i = 0; i < 3000; i++) {
    log.write({ requestId: `r${i}`, method: "GET", path: paths[i % paths.length]!, status: 200, durationMs: 0 });
    // A server's event loop turns between requests: the writer keeps up (4.5 MB in one turn would be dropped).
    if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  await log.close();
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

/** A stdout whose reader takes nothing until `release()`: every write stays pending till then. */
function stalledReader(): { out: Writable; writes: Buffer[]; release(): void; held(): number } {
  const writes: Buffer[] = [];
  const waiting: (() => void)[] = [];
  let released = false;
  const out = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      writes.push(Buffer.from(chunk));
      if (released) done();
      else waiting.push(done);
    },
  });
  return {
    out,
    writes,
    release() {
      released = true;
      for (const done of waiting.splice(0)) done();
    },
    // Bytes the stream holds for its reader: what a slow stdout costs the server's memory.
    held: () => out.writableLength,
  };
}

test("a reader that takes nothing (M1): the log holds at most its bound, drops whole batches and counts them; when the reader catches up, the kept lines arrive whole, then a request-log-dropped line", async () => {
  const reader = stalledReader();
  let reported = 0;
  const log = createRequestLog(reader.out, { onDrop: (n) => (reported += n) });
  const path = "/graph/v1/search";
  const total = 60_000; // about 9 MB of lines
  let maxHeld = 0;
  for (let i = 0; i < total; i++) {
    log.write({ requestId: `r${i}`, method: "GET", path, status: 200, durationMs: 0.5 });
    if (i % 1000 === 0) {
      log.flush();
      maxHeld = Math.max(maxHeld, reader.held());
    }
  }
  log.flush();
  assert.ok(maxHeld <= PIPE_BUF, `the stream held ${maxHeld} bytes (one piece at most)`);
  assert.ok(log.dropped > 0, "batches were dropped");
  assert.is(reported, log.dropped, "every dropped line is reported to the metrics");
  reader.release();
  await log.close();
  const text = Buffer.concat(reader.writes).toString();
  const all = lines(text);
  const requests = all.filter((l) => l.id !== undefined);
  const note = all.filter((l) => l.event === "request-log-dropped");
  assert.is(requests.length + log.dropped, total, "every line is written or counted as dropped");
  assert.ok(Buffer.byteLength(text) <= REQUEST_LOG_MAX_QUEUED_BYTES + 64 * 1024 + PIPE_BUF, "the queue stayed bounded");
  assert.equal(
    note.map((l) => [l.lines, l.total]),
    [[log.dropped, log.dropped]],
  );
  // The kept lines are in order.
  const ids = requests.map((l) => Number(String(l.id).slice(1)));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!);
});

test("every write is whole lines of at most PIPE_BUF bytes, so processes sharing a pipe never cut into each other's lines (M1)", async () => {
  const reader = stalledReader();
  reader.release();
  const log = createRequestLog(reader.out);
  // Long paths, and one of control characters that escape to six times their length.
  const paths = ["/x".repeat(600), "/\u0001".repeat(1024), "/\ud83d\ude00".repeat(400), "/a"];
  for (let i = 0; i < 4000; i++) {
    log.write({ requestId: `r${i}`, method: "GET", path: paths[i % paths.length]!, status: 200, durationMs: 0 });
    // A server's event loop turns between requests: the writer keeps up.
    if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  await log.close();
  assert.is(log.dropped, 0);
  assert.ok(reader.writes.length > 1);
  for (const w of reader.writes) {
    assert.ok(w.length <= PIPE_BUF, `a write of ${w.length} bytes`);
    assert.is(w[w.length - 1], 0x0a, "ends at a line's end");
  }
  const all = lines(Buffer.concat(reader.writes).toString());
  assert.is(all.length, 4000);
  assert.ok(all[1].path.startsWith("/\u0001"), "the long escaped path is cut, the line kept");
});

test("close waits for a slow reader: nothing queued is lost at a clean stop (M1)", async () => {
  const reader = stalledReader();
  const log = createRequestLog(reader.out);
  for (let i = 0; i < 5000; i++)
    log.write({ requestId: `r${i}`, method: "GET", path: "/healthz", status: 200, durationMs: 0 });
  const closed = log.close();
  setTimeout(() => reader.release(), 50);
  await closed;
  assert.is(lines(Buffer.concat(reader.writes).toString()).length, 5000);
});

test.run();

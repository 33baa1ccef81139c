/**
 * What the micro-server prints: progress lines, the request log lines, generated keys.
 */

import { PassThrough } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { apiKeysFromEnv, generateApiKey } from "../../src/cli/api-keys.js";
import { describeProgress } from "../../src/cli/progress.js";
import { createRequestLog } from "../../src/cli/request-log.js";

test("progress: a read line with lines, bytes of the total, percent and rate; a build line", () => {
  assert.is(
    describeProgress({
      phase: "entities",
      file: "e.jsonl",
      lines: 1_234_567,
      items: 1_234_560,
      bytes: 45_200_000,
      totalBytes: 120_000_000,
      elapsedMs: 2000,
      finished: false,
    }),
    "reading entities e.jsonl: 1,234,567 lines, 45.2 of 120.0 MB (37%), 617,284 lines/s",
  );
  assert.is(
    describeProgress({ phase: "search-index", done: 2, total: 5, elapsedMs: 1500, finished: false }),
    "building search-index: 40% (1.5 s)",
  );
  assert.match(
    describeProgress({ phase: "statement-index", done: 5, total: 5, elapsedMs: 10, finished: true }),
    /100% .*done$/,
  );
});

test("request log: one JSON line per request, batched per turn of the event loop", async () => {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  const log = createRequestLog(out);
  log.write({ method: "GET", path: "/graph/v1/search", status: 200, durationMs: 0.123456 });
  log.write({ method: "HEAD", path: "/x".repeat(2000), status: 404, durationMs: 1 });
  assert.is(text, "", "nothing written synchronously");
  await new Promise((r) => setImmediate(r));
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.is(lines.length, 2);
  assert.equal(Object.keys(lines[0]), ["time", "method", "path", "status", "ms"]);
  assert.equal([lines[0].method, lines[0].path, lines[0].status, lines[0].ms], ["GET", "/graph/v1/search", 200, 0.123]);
  assert.is(lines[1].path.length, 1024, "long paths are cut");
});

test("api keys: generated ones are sk_ and 32 base64url characters; QUIVER_API_KEYS is split and trimmed", () => {
  assert.match(generateApiKey(), /^sk_[A-Za-z0-9_-]{32}$/);
  assert.is.not(generateApiKey(), generateApiKey());
  assert.equal(apiKeysFromEnv(" sk_a , sk_b ,"), { keys: ["sk_a", "sk_b"], generated: false });
  assert.is(apiKeysFromEnv("").generated, true);
  assert.is(apiKeysFromEnv(undefined).generated, true);
  assert.throws(
    () => apiKeysFromEnv("sk_a,secret"),
    (e: Error) => /key 2 of 2/.test(e.message) && !e.message.includes("secret"),
  );
});

test.run();

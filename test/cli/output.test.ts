/**
 * What the micro-server prints: progress lines and generated keys (the request log: request-log.test.ts).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { apiKeysFromEnv, generateApiKey } from "../../src/cli/api-keys.js";
import { describeProgress } from "../../src/cli/progress.js";

test("progress: a read line with lines, bytes of the total, percent, rate and time left; a build line", () => {
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
    // 74.8 MB left at 22.6 MB/s: 3.3 s, rounded up.
    "reading entities e.jsonl: 1,234,567 lines, 45.2 of 120.0 MB (37%), 617,284 lines/s, about 4 s left",
  );
  assert.is(
    describeProgress({ phase: "search-index", done: 2, total: 5, elapsedMs: 1500, finished: false }),
    "building search-index: 40% (1.5 s, about 3 s left)",
  );
  // stdin: no total, so no estimate.
  assert.not.match(
    describeProgress({
      phase: "statements",
      file: "stdin",
      lines: 10,
      items: 10,
      bytes: 1000,
      totalBytes: undefined,
      elapsedMs: 1000,
      finished: false,
    }),
    /left/,
  );
  assert.match(
    describeProgress({ phase: "statement-index", done: 5, total: 5, elapsedMs: 10, finished: true }),
    /100% .*done$/,
  );
});

test("api keys: generated ones are sk_ and 32 base64url characters; QUIVER_API_KEYS is split and trimmed", () => {
  assert.match(generateApiKey(), /^sk_[A-Za-z0-9_-]{32}$/);
  assert.is.not(generateApiKey(), generateApiKey());
  assert.equal(apiKeysFromEnv(" sk_a , sk_b ,"), { keys: ["sk_a", "sk_b"], generated: false, blank: false });
  assert.is(apiKeysFromEnv("").generated, true);
  assert.is(apiKeysFromEnv(undefined).generated, true);
  assert.throws(
    () => apiKeysFromEnv("sk_a,secret"),
    (e: Error) => /key 2 of 2/.test(e.message) && !e.message.includes("secret"),
  );
});

test.run();

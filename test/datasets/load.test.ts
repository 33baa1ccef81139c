/**
 * The load test's short form, run by `npm test`: `quiver serve` over YAGO3-10 (a child process),
 * 5 s at 64 keep-alive connections with the realistic mix of bench/load.ts after a 5 s warm-up.
 * Every request must succeed (no error, timeout or non-2xx), and the server's resident memory at
 * the end must be within 10% of its level after the warm-up. The warm-up is long enough for the
 * heap and the byte-budgeted caches to settle: after 2 s the resident set was still rising 7-12%
 * over the next 5 s on a server that does not grow (after 5 s: -10% to -4%, same tree). The long
 * form is `npm run load`
 * (60 s at 256 connections; figures in the README).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatLoadReport, runLoad, RSS_TOLERANCE } from "../../reliability/load.js";

test("load: 5 s at 64 keep-alive connections, realistic mix: every request answered 2xx, no memory growth", async () => {
  const report = await runLoad({ seconds: 5, warmupSeconds: 5, connections: 64 });
  const text = formatLoadReport(report);
  assert.equal(report.failures, [], text);
  assert.is(report.errors + report.timeouts + report.non2xx, 0, text);
  assert.ok(report.requests > 5000, `only ${report.requests} requests: ${text}`);
  assert.ok(Number.isFinite(report.rssMb.afterWarmup) && Number.isFinite(report.rssMb.end), "resident memory was read");
  assert.ok(report.rssChange <= RSS_TOLERANCE, text);
});

test.run();

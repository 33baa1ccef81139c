/**
 * The /metrics pre-route inside the contract's edge (L5 of the 97427d8 review): an absolute-form
 * scrape is a scrape; a scrape without Host, with a raw "#" or with a head past the bound gets the
 * answer every other path gets (400, 400, 431), not the metrics.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServerMetrics } from "../../src/serving/metrics.js";
import { startServing } from "../../src/serving/listen.js";
import { buildSmallGraph, KEY, rawRequest } from "../support/http.js";

test("/metrics answers absolute-form, and refuses what the edge refuses on every path (L5)", async () => {
  const running = await startServing({
    graph: buildSmallGraph(),
    apiKeys: [KEY],
    cursorSecret: undefined,
    cacheBytes: undefined,
    cors: undefined,
    host: "127.0.0.1",
    port: 0,
    log: undefined,
    metrics: createServerMetrics({ processMetrics: false }),
    events: { info() {}, warn() {}, error() {} },
    explorer: undefined,
  });
  try {
    const port = running.port;
    const absolute = await rawRequest(port, "GET http://x/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.is(absolute.status, 200, absolute.body);
    assert.match(absolute.body, /quiver_http_requests_total/);
    for (const [bytes, status, code] of [
      ["GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n", 400, "INVALID_HOST"],
      ["GET /metrics#x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400, "INVALID_TARGET"],
      [
        `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: ${"p".repeat(20_000)}\r\nConnection: close\r\n\r\n`,
        431,
        "HEADERS_TOO_LARGE",
      ],
    ] as const) {
      const reply = await rawRequest(port, bytes);
      assert.is(reply.status, status, `${bytes.slice(0, 40)}: ${reply.body}`);
      assert.is(JSON.parse(reply.body).code, code);
    }
  } finally {
    await running.close();
  }
});

test.run();

/**
 * Nothing the HTTP layer keeps grows with the data it serves (finding 3 of the review of
 * 8221c12: the serializer's per-item cache held 51 MB after one walk over 5,000 statements that name
 * one 10 KB identifier, and up to about 1 GB at its entry cap). Measured as the Buffer memory still
 * held after a garbage collection. Identifiers are at most 1,024 bytes now (CONTRACT.md), so the
 * walk names one of that size.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import { createHandler } from "../../src/http/node.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

test("a walk over 5,000 statements naming a 1 KB identifier (the limit) leaves no memory behind", async () => {
  const b = new GraphBuilder();
  b.addEntity({ entityId: "BIG", rawIdentifier: "x".repeat(1024), type: "0", sourceType: "" });
  b.addEntity({ entityId: "P", rawIdentifier: "p", type: "1", sourceType: "" });
  for (let i = 0; i < 5000; i++) {
    b.addEntity({ entityId: `S${i}`, rawIdentifier: `s${i}`, type: "0", sourceType: "" });
    b.addStatement({ subjectEntityId: `S${i}`, predicateEntityId: "P", objectEntityId: "BIG" });
  }
  const server = http.createServer(createHandler(b.build(), { apiKeys: ["sk_t"], compression: false }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const walk = async (filter: string) => {
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await fetch(`${base}/graph/v1/statements?${filter}&limit=200${cursor ? `&cursor=${cursor}` : ""}`, {
          headers: { "x-api-key": "sk_t" },
        });
        cursor = ((await r.json()) as { nextCursor: string | null }).nextCursor;
        pages++;
      } while (cursor !== null);
      return pages;
    };
    // Warm up what is made lazily (the engine's, undici's) on statements that do not name BIG.
    assert.is(await walk("predicateEntityId=S0"), 1);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    assert.is(await walk("objectEntityId=BIG"), 25);
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const held = process.memoryUsage().arrayBuffers - before;
    // The per-item cache this replaced would hold about 5 MB here (5,000 fragments of 1 KB).
    assert.ok(held < 2_000_000, `${(held / 1e6).toFixed(1)} MB of Buffers held after the walk`);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test.run();

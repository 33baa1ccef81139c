/**
 * The contract suite against the Express-style middleware, mounted under a prefix in an Express app
 * beside routes of its own, as the README shows: it answers its four paths and passes the rest on.
 */

import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMiddleware } from "../../src/http/node.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { contractSuite } from "../support/contract-suite.js";
import { buildSmallGraph, KEY, rawRequest } from "../support/http.js";

contractSuite("createMiddleware in Express", {
  ownsEveryPath: false,
  unownedStatus: 418,
  async start(graph, options) {
    const quiver = createMiddleware(graph, options);
    const app = express();
    app.use("/api", quiver);
    // Whatever the middleware passes on reaches the app's own handlers.
    app.use((_req, res) => {
      res.status(418).send("the app's own answer");
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    quiver.attach(server);
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/api`,
      setGraph: (g) => quiver.setGraph(g),
      close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
    };
  },
});

test("attach on an Express app (L2): Quiver's paths under the mount take an unsupported Expect as absent; the app's own requests keep node's 417 and Host check", async () => {
  const quiver = createMiddleware(buildSmallGraph(), { apiKeys: [KEY] });
  const app = express();
  app.use("/api", quiver);
  app.get("/health", (_req, res) => {
    res.send("app ok");
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  quiver.attach(server);
  const { port } = server.address() as AddressInfo;
  try {
    const ask = (target: string, headers: string) =>
      rawRequest(port, `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
    assert.is((await ask("/health", "Host: x\r\nExpect: x-foo\r\n")).status, 417, "the app's path: node's 417");
    assert.is(
      (await ask("/api/version", "Host: x\r\nExpect: x-foo\r\n")).status,
      417,
      "not Quiver's path under the mount",
    );
    const ours = await ask("/api/graph/v1/search?q=a", `Host: x\r\nExpect: x-foo\r\nX-API-Key: ${KEY}\r\n`);
    assert.is(ours.status, 200, ours.body);
    // The entity lookup (a template, the id in the path) and /healthz are Quiver's under the mount too.
    const lookup = await ask("/api/graph/v1/entities/q:berlin", `Host: x\r\nExpect: x-foo\r\nX-API-Key: ${KEY}\r\n`);
    assert.is(lookup.status, 200, lookup.body);
    assert.ok(lookup.body.includes('"entityId":"q:berlin"'), lookup.body);
    assert.is((await ask("/api/healthz", "Host: x\r\nExpect: x-foo\r\n")).status, 200);
    assert.is((await ask("/health", "")).status, 400, "the app keeps node's Host check");
    assert.is((await ask("/health", "Host: x\r\n")).body, "app ok");
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
  }
});
test.run();

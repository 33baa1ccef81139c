/**
 * Connection-level behaviour of createServer/serve: keep-alive, the slow-client timeouts, and the
 * graceful close (stop accepting, finish what is in flight, close idle connections).
 */

import net from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { KEY, buildSmallGraph, startServer } from "../support/http.js";
import { serve } from "../../src/http/server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function connect(port: number): Promise<net.Socket & { received: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    const ended = new Promise<void>((r) => socket.on("close", () => r()));
    socket.on("error", () => {});
    socket.once("connect", () => resolve(Object.assign(socket, { received: () => text, ended })));
    socket.once("error", reject);
  });
}

test("keep-alive: two requests on one connection", async () => {
  const server = await startServer(buildSmallGraph());
  try {
    const s = await connect(server.port);
    s.write(
      `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /graph/v1/search?q=berlin HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`,
    );
    await sleep(200);
    const text = s.received();
    assert.is(text.match(/HTTP\/1\.1 200 OK/g)?.length, 2);
    assert.match(text, /Connection: keep-alive/i);
    s.destroy();
  } finally {
    await server.close();
  }
});

test("headers timeout: a client that never finishes its headers gets 408 and is closed", async () => {
  const running = await serve({
    graph: buildSmallGraph(),
    apiKeys: [KEY],
    port: 0,
    headersTimeoutMs: 300,
    requestTimeoutMs: 400,
    connectionsCheckIntervalMs: 100,
  });
  try {
    const s = await connect(Number(new URL(running.url).port));
    s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    await s.ended;
    assert.match(s.received(), /^HTTP\/1\.1 408 /);
    assert.ok(JSON.parse(s.received().split("\r\n\r\n")[1]!).error.length > 0);
  } finally {
    await running.close();
  }
});

test("close: stops accepting, finishes the request in flight with Connection: close, closes idle ones", async () => {
  const server = await startServer(buildSmallGraph());
  const idle = await connect(server.port);
  idle.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  await sleep(50);
  const inFlight = await connect(server.port);
  inFlight.write("GET /graph/v1/search?q=berlin HTTP/1.1\r\nHost: x\r\n");
  await sleep(50);
  let closed = false;
  const closing = server.close().then(() => (closed = true));
  await idle.ended;
  assert.not.ok(closed, "still draining while a request is in flight");
  const refused = await new Promise<boolean>((r) =>
    net
      .connect(server.port, "127.0.0.1")
      .on("error", () => r(true))
      .on("connect", () => r(false)),
  );
  assert.ok(refused, "no new connections");
  inFlight.write(`X-API-Key: ${KEY}\r\n\r\n`);
  await inFlight.ended;
  assert.match(inFlight.received(), /^HTTP\/1\.1 200 OK/);
  assert.match(inFlight.received(), /Connection: close/i);
  assert.match(inFlight.received(), /"Berlin"/);
  await closing;
  assert.ok(closed);
});

test("close: a client that never finishes is cut off after the drain timeout", async () => {
  const running = await serve({ graph: buildSmallGraph(), apiKeys: [KEY], port: 0, drainTimeoutMs: 200 });
  const s = await connect(Number(new URL(running.url).port));
  s.write("GET /healthz HTTP/1.1\r\n");
  await sleep(50);
  const started = performance.now();
  await running.close();
  await s.ended;
  assert.ok(performance.now() - started < 2000);
});

test("serve: a port in use rejects", async () => {
  const server = await startServer(buildSmallGraph());
  try {
    await serve({ graph: buildSmallGraph(), apiKeys: [KEY], port: server.port }).then(
      () => assert.unreachable("should reject"),
      (e: NodeJS.ErrnoException) => assert.is(e.code, "EADDRINUSE"),
    );
  } finally {
    await server.close();
  }
});

test.run();

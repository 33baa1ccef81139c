/**
 * The contract suite against the node:http adapter on a plain `http.createServer`, attached as the
 * README shows (`handler.attach(server)`), and against `serve()`.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHandler } from "../../src/http/node.js";
import { serve } from "../../src/http/server.js";
import { contractSuite } from "../support/contract-suite.js";

contractSuite("createHandler on http.createServer", {
  ownsEveryPath: true,
  async start(graph, options) {
    const handler = createHandler(graph, options);
    const server = http.createServer(handler);
    handler.attach(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      setGraph: (g) => handler.setGraph(g),
      close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
    };
  },
});

contractSuite("serve()", {
  ownsEveryPath: true,
  async start(graph, options) {
    const running = await serve({ ...options, graph, port: 0 });
    return { url: running.url, setGraph: (g) => running.handler.setGraph(g), close: () => running.close() };
  },
});

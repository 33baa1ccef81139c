/**
 * The contract suite against the fetch adapter, mounted in a Hono app under a prefix and served by
 * @hono/node-server, as the README shows.
 */

import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { createFetchHandler } from "../../src/http/fetch.js";
import { contractSuite } from "../support/contract-suite.js";

contractSuite("createFetchHandler in Hono (@hono/node-server)", {
  ownsEveryPath: true,
  async start(graph, options) {
    const quiver = createFetchHandler(graph, options);
    const app = new Hono();
    app.get("/", (c) => c.text("the app's own page"));
    app.mount("/quiver", quiver);
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/quiver`,
      setGraph: (g) => quiver.setGraph(g),
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    };
  },
});

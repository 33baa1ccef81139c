/**
 * The contract suite against the Express-style middleware, mounted under a prefix in an Express app
 * beside routes of its own, as the README shows: it answers its four paths and passes the rest on.
 */

import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMiddleware } from "../../src/http/node.js";
import { contractSuite } from "../support/contract-suite.js";

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

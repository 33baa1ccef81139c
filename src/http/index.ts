/**
 * HTTP adapter: public surface
 * ============================
 * Re-exports only. `createHandler` (node:http), `createMiddleware` (Express-style), `createFetchHandler`
 * (fetch-style servers) and `createServer`/`serve` for a ready server; `route` for a server of another
 * kind (README "Adapters"); `loadExplorer` for the explorer page, which a handler serves at "/" only
 * when given it (`explorer: loadExplorer()`): a host app owns its "/".
 */

export { createHandler, createMiddleware, writeReply } from "./node.js";
export type { QuiverHandler, QuiverMiddleware, NextFunction } from "./node.js";
export { createFetchHandler } from "./fetch.js";
export type { FetchHandlerOptions, QuiverFetchHandler } from "./fetch.js";
export { logReply } from "./adapter-kit.js";
export type { HandlerOptions, RequestLogEntry } from "./adapter-kit.js";
export { route, answerProblem, compileOptions, serveGraph, ROUTER_HEADERS, REGISTERED_METHODS } from "./router.js";
export type {
  Reply,
  RouterRequest,
  RouterOptions,
  RouterConfig,
  Served,
  RequestHeaders,
  RequestProblem,
  ErrorContext,
} from "./router.js";
export { ROUTES } from "./routes.js";
export { createServer, serve, DEFAULT_HOST, DEFAULT_PORT } from "./server.js";
export type { QuiverServer, RunningServer, ServeOptions, ServerLimits } from "./server.js";
export type { ApiKeys, ApiKeyCheck } from "./auth.js";
export type { CorsOrigins } from "./cors.js";
export { OPENAPI_DOCUMENT } from "./openapi.js";
export { loadExplorer, EXPLORER_ASSETS_DIR } from "./explorer.js";
export type { Explorer } from "./explorer.js";

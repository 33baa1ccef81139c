/**
 * HTTP adapter: public surface
 * ============================
 * Re-exports only. `createHandler` for any node:http server, `createServer`/`serve` for a ready one.
 */

export { createHandler, SEARCH_PATH, STATEMENTS_PATH, HEALTH_PATH, OPENAPI_PATH } from "./handler.js";
export type { HandlerOptions, QuiverHandler, RequestLogEntry } from "./handler.js";
export { createServer, serve, DEFAULT_HOST, DEFAULT_PORT } from "./server.js";
export type { QuiverServer, RunningServer, ServeOptions, ServerLimits } from "./server.js";
export type { ApiKeys, ApiKeyCheck } from "./auth.js";
export { OPENAPI_DOCUMENT } from "./openapi.js";

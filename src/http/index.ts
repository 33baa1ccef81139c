/**
 * `quiver-kg/http`: the adapter kit
 * =================================
 * Re-exports only. What someone writing an adapter for another kind of server needs (docs/embedding.md,
 * "Writing an adapter"): `route`, the pure function that holds the whole HTTP contract, with the
 * option compiler, the served-graph maker, the reply writer for node:http, the request-log call, and
 * the names the router reads. The user API (`createHandler`, `createMiddleware`, `createFetchHandler`,
 * `createServer`, `serve`, and `loadExplorer` for the explorer page, which a handler serves at "/"
 * only when given it) is exported from the package's root, src/index.ts.
 *
 * @packageDocumentation
 */

export { writeReply } from "./node.js";
export { compileOptions, logReply } from "./adapter-kit.js";
export { REGISTERED_METHODS } from "./methods.js";
export {
  route,
  answerProblem,
  serveGraph,
  ROUTER_HEADERS,
  NEEDS_BODY,
  BODY_TOO_LARGE,
  SEQUENCE_HEADER,
} from "./router.js";
export type {
  Reply,
  RouterRequest,
  RouterOptions,
  RouterConfig,
  Served,
  RequestHeaders,
  RequestProblem,
  ErrorContext,
  HeaderValue,
  ErrorReporter,
  ChangeWriter,
} from "./router.js";
export { ROUTES } from "./routes.js";
export type { AuthFailure } from "./auth.js";
export type { CorsPolicy } from "./cors.js";
export type { TagSeed } from "./caching.js";

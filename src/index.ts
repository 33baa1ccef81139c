/**
 * Quiver: the user API
 * ====================
 * Re-exports only: graphs (`GraphBuilder`, `Graph`), loading JSON Lines, snapshots, errors and
 * limits, and the HTTP API for your own server (`createHandler`, `createMiddleware`,
 * `createFetchHandler`, `serve`). The pieces for writing an adapter to another kind of server are
 * exported apart, from `quiver-kg/http` (src/http/index.ts).
 *
 * @packageDocumentation
 */
export { Graph, DEFAULT_CACHE_BYTES, type GraphOptions, type GraphStats, type EntityCount } from "./engine/graph.js";
export { GraphBuilder, type GraphBuilderOptions, type BuildOptions, type BuildPhase } from "./engine/graph-builder.js";
export { QuiverError, ERROR_CODES, isQuiverError, type QuiverErrorCode, type SourcePosition } from "./engine/errors.js";
export { fold, foldAccents, foldWith, type FoldMode } from "./engine/search/fold.js";
export {
  LiveGraph,
  type LiveGraphOptions,
  type ChangeResult,
  type PreparedBatch,
  type BaseWarmth,
} from "./engine/live/live-graph.js";
export {
  parseChangeBatch,
  type Change,
  type ChangeBatch,
  type LiveEntityInput,
  type LiveStatementInput,
  type ParsedChange,
} from "./engine/live/change-batch.js";
export { deriveFingerprint } from "./engine/statements/fingerprint.js";
export * from "./engine/limits.js";
export type {
  Entity,
  EntityInput,
  EntityType,
  Statement,
  StatementInput,
  Page,
  SearchOrder,
  SearchParams,
  StatementsParams,
} from "./engine/types.js";
export { ENTITY_TYPES } from "./engine/types.js";
export {
  loadGraph,
  loadJsonLinesFile,
  type LoadGraphOptions,
  type LoadJsonLinesOptions,
  type LoadJsonLinesResult,
  type LoadProgress,
  type ReadProgress,
  type BuildProgress,
  type InputKind,
  SEARCH_INDEX_THREAD_MIN_ENTITIES,
  STDIN_PATH,
} from "./load/jsonl.js";
export {
  saveSnapshot,
  openSnapshot,
  openSnapshotShared,
  openSharedSnapshot,
  type SharedSnapshot,
  type SaveSnapshotOptions,
  type SaveSnapshotResult,
  type SaveProgress,
  type OpenSnapshotOptions,
} from "./snapshot/file.js";
export { FORMAT_VERSION as SNAPSHOT_FORMAT_VERSION } from "./snapshot/container.js";
export type { ArrayKind, SectionKind } from "./snapshot/container.js";
export {
  readSnapshotInfo,
  type SnapshotInfo,
  type SnapshotSectionInfo,
  type ReadSnapshotInfoOptions,
} from "./snapshot/info.js";
export { openLive, LiveStore, LiveFollower, type OpenLiveOptions } from "./changes/live-store.js";
export type { ReadGraph } from "./engine/read-graph.js";
export {
  readChangeLog,
  changeLogInfo,
  type LoggedBatch,
  type ChangeLogInfo,
  LOCK_FILE as CHANGE_LOG_LOCK_FILE,
} from "./changes/change-log.js";
export { loadGraphInWorker, type LoadInWorkerOptions } from "./serving/load-in-worker.js";
export type { GraphSource } from "./serving/graph-source.js";
export { createHandler, createMiddleware } from "./http/node.js";
export type { QuiverHandler, QuiverMiddleware, NextFunction } from "./http/node.js";
export { createFetchHandler } from "./http/fetch.js";
export type { FetchHandlerOptions, QuiverFetchHandler } from "./http/fetch.js";
export type { HandlerOptions, RequestLogEntry } from "./http/adapter-kit.js";
export type { ErrorContext } from "./http/router.js";
export { createServer, serve, DEFAULT_HOST, DEFAULT_PORT } from "./http/server.js";
export type { QuiverServer, RunningServer, ServeOptions, ServerLimits } from "./http/server.js";
export type { ApiKeys, ApiKeyCheck } from "./http/auth.js";
export type { CorsOrigins } from "./http/cors.js";
export { OPENAPI_DOCUMENT } from "./http/openapi.js";
export { loadExplorer, EXPLORER_ASSETS_DIR, type Explorer, type ExplorerAsset } from "./http/explorer.js";
export type { ContentEncoding } from "./http/compression.js";

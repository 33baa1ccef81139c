/**
 * Quiver: the public surface. Re-exports only.
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
  type SaveSnapshotOptions,
  type SaveSnapshotResult,
  type SaveProgress,
  type OpenSnapshotOptions,
} from "./snapshot/file.js";
export { FORMAT_VERSION as SNAPSHOT_FORMAT_VERSION } from "./snapshot/container.js";
export {
  readSnapshotInfo,
  type SnapshotInfo,
  type SnapshotSectionInfo,
  type ReadSnapshotInfoOptions,
} from "./snapshot/info.js";
export { openLive, LiveStore, LiveFollower, type OpenLiveOptions } from "./changes/live-store.js";
export {
  readChangeLog,
  changeLogInfo,
  type LoggedBatch,
  type ChangeLogInfo,
  LOCK_FILE as CHANGE_LOG_LOCK_FILE,
} from "./changes/change-log.js";
export { loadGraphInWorker, type LoadInWorkerOptions } from "./serving/load-in-worker.js";
export type { GraphSource } from "./serving/graph-source.js";
export * from "./http/index.js";

/**
 * Engine internals
 * ================
 * What the package's own layers may use of the engine beyond its public API: a Graph's parts (the
 * snapshot writes them) and a GraphBuilder's entries for parsed JSON of unknown shape (the loader hands
 * it each line's value; the builder checks it like any item) and for the field strings of a statement
 * line the loader read without JSON.parse (checked the same way); and the loader's means of using two
 * cores and sizing once: sealing a builder's entities early so their SearchIndex can be built in a
 * worker thread and handed back (load/search-index-thread.ts), and reserving room for the statements
 * a file's size promises. Not re-exported from index.ts: no type
 * that carries dense ids leaves the package, and benchmarks, tools and tests that measure or check the
 * engine from outside use `graph.stats()`.
 */

export {
  type ChangesOrigin,
  graphAtSequence,
  graphParts,
  type GraphParts,
  lastSearchPage,
  lastStatementsPage,
  lastStatementsHint,
  lastStatementsRest,
  lastStatementsStart,
  rawIdentifierOf,
  type SearchPageKeys,
  SEARCH_BOUNDS_BYTES,
  searchByNameChecked,
  searchHint,
  type StatementsKey,
  statementsAfterKey,
  UNSEALED_MORE,
  unsealedRead,
  cursorCodecOf,
} from "./graph.js";
export {
  addDenseStatement,
  addParsedItem,
  addStatementRefRows,
  addStatementStrings,
  buildWithScoreIndex,
  type DenseEntities,
  endStatements,
  feedDenseEntities,
  reserveStatements,
  sealEntities,
  useSearchIndex,
} from "./graph-builder.js";
export { SearchIndex } from "./search/search-index.js";
export { ScoreIndex, type ScoreRanks } from "./search/score-index.js";
export { Scores } from "./search/scores.js";

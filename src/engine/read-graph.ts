/**
 * Read graph
 * ==========
 * What a server reads: the three queries, the content's tag and the last change batch applied.
 * Implemented by `Graph` (a built graph: sequence 0, the tag of its content; a compacted one, the
 * batch it holds) and by `LiveGraph` (base + delta: the tag of its first base, the sequence, a digest
 * chained over the batches since its base, and the tag of a compacted base, which together name the
 * answers, since one base with one log's batches up to one sequence gives the same bytes on every
 * process, and another log's batches other bytes). The HTTP
 * router reads this interface only, so it serves either without knowing which.
 */

import type { Entity, Page, SearchParams, Statement, StatementsParams } from "./types.js";

export interface ReadGraph {
  /** Names the content: two graphs with one tag answer every query with the same bytes. */
  readonly contentTag: string;
  /** The last change batch the graph holds (0 for none). */
  readonly sequence: number;
  readonly entityCount: number;
  readonly statementCount: number;
  search(params: SearchParams): Page<Entity>;
  statements(params?: StatementsParams): Page<Statement>;
  getEntity(entityId: string): Entity | undefined;
}

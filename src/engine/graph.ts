/**
 * Graph
 * =====
 * One immutable snapshot of entities and statements, and the two queries of CONTRACT.md:
 * `search` (substring search of raw identifiers) and `statements` (filtered list), both keyset
 * paginated with sealed cursors. Built by GraphBuilder, or opened from a snapshot file.
 *
 * Entities are held by dense id (= position in entityId order, see dictionary.ts) in parallel
 * columns: entityId and rawIdentifier strings, the type as a byte, the sourceType as an index into a
 * table of distinct values. The indexes (search-index.ts, statement-index.ts) work on integers only;
 * strings are read here, for the items of the page and the cursor of its last item.
 *
 * Cost of a page: see SearchIndex.find and StatementIndex; on top, one HMAC to open a cursor and
 * one to seal the next one.
 */

import { CursorCodec, ENDPOINT_SEARCH, ENDPOINT_STATEMENTS, queryTag, toSecretBytes } from "./cursor.js";
import { Dictionary } from "./dictionary.js";
import type { FingerprintColumn } from "./fingerprint-column.js";
import { fold } from "./fold.js";
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  STATEMENTS_DEFAULT_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "./limits.js";
import { TIER_INFIX, type SearchIndex, type SearchKey } from "./search-index.js";
import type { StatementIndex } from "./statement-index.js";
import type { IndexOrder, SeekKey } from "./triple-index.js";
import {
  ENTITY_TYPES,
  type Entity,
  type Page,
  type SearchParams,
  type Statement,
  type StatementsParams,
} from "./types.js";
import { checkLimit, checkOptionalText, checkQuery, checkType } from "./validate.js";

/** Everything a graph is made of: what GraphBuilder produces and a snapshot stores. */
export interface GraphParts {
  /** entityIds ascending; index = dense id. */
  entityIds: readonly string[];
  rawIdentifiers: readonly string[];
  /** Type 0..7 per dense id. */
  types: Uint8Array;
  /** Index into `sourceTypes` per dense id. */
  sourceTypeIndex: Uint32Array;
  sourceTypes: readonly string[];
  searchIndex: SearchIndex;
  statementIndex: StatementIndex;
}

export interface GraphOptions {
  /** Secret that seals cursors. Replicas that share it accept each other's cursors. Default: random per process. */
  cursorSecret?: string | Uint8Array | undefined;
}

/** Bytes held by the graph's structures, for memory reports. */
export interface GraphMemory {
  /** Code units of all raw identifiers (the search index's text is their folded form). */
  identifierCodeUnits: number;
  searchIndexBytes: number;
  statementIndexBytes: number;
  fingerprintBytes: number;
}

const EMPTY_PAGE_CURSOR = null;

export class Graph {
  readonly parts: GraphParts;
  private readonly dictionary: Dictionary;
  private readonly cursors: CursorCodec;
  private readonly searchIndex: SearchIndex;
  private readonly statementIndex: StatementIndex;
  private readonly fingerprints: FingerprintColumn;

  constructor(parts: GraphParts, options: GraphOptions = {}) {
    this.parts = parts;
    this.dictionary = new Dictionary(parts.entityIds);
    this.cursors = new CursorCodec(toSecretBytes(options.cursorSecret));
    this.searchIndex = parts.searchIndex;
    this.statementIndex = parts.statementIndex;
    this.fingerprints = parts.statementIndex.fingerprints;
  }

  get entityCount(): number {
    return this.parts.entityIds.length;
  }

  get statementCount(): number {
    return this.statementIndex.length;
  }

  /** The same graph, sealing and opening cursors with another secret. */
  withCursorSecret(secret: string | Uint8Array): Graph {
    return new Graph(this.parts, { cursorSecret: secret });
  }

  getEntity(entityId: string): Entity | undefined {
    const id = this.dictionary.idOf(entityId);
    return id < 0 ? undefined : this.entityAt(id);
  }

  /** Entities whose folded raw identifier contains the folded `q`, in the contract's order. */
  search(params: SearchParams): Page<Entity> {
    const q = checkQuery(params.q, SEARCH_MAX_QUERY_LENGTH);
    const type = checkType(params.type);
    const limit = checkLimit(params.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
    const cursor = checkOptionalText(params.cursor, "cursor");
    const tag = queryTag(["search", q, type < 0 ? "" : String(type)]);
    let after: SearchKey | null = null;
    if (cursor !== undefined) {
      const { extra, parts } = this.cursors.decode(cursor, ENDPOINT_SEARCH, tag);
      if (parts.length !== 2 || extra > TIER_INFIX)
        throw new Error("search cursor with a valid MAC has an unknown shape");
      after = { tier: extra, folded: parts[0] as string, entityId: parts[1] as string };
    }
    // One look-ahead item tells whether a next page exists, so nextCursor is null exactly at the end.
    const hits = this.searchIndex.find(fold(q), type, after, limit + 1);
    const n = Math.min(limit, hits.ranks.length);
    const items: Entity[] = new Array(n);
    for (let i = 0; i < n; i++) items[i] = this.entityAt(this.searchIndex.idAt(hits.ranks[i] as number));
    let nextCursor: string | null = EMPTY_PAGE_CURSOR;
    if (hits.ranks.length > limit) {
      const lastRank = hits.ranks[n - 1] as number;
      const last = items[n - 1] as Entity;
      nextCursor = this.cursors.encode(ENDPOINT_SEARCH, tag, hits.tiers[n - 1] as number, [
        this.searchIndex.foldedAt(lastRank),
        last.entityId,
      ]);
    }
    return { items, nextCursor };
  }

  /** Statements matching every given filter, in the order of the index that serves the filters. */
  statements(params: StatementsParams): Page<Statement> {
    const s = checkOptionalText(params.subjectEntityId, "subjectEntityId");
    const p = checkOptionalText(params.predicateEntityId, "predicateEntityId");
    const o = checkOptionalText(params.objectEntityId, "objectEntityId");
    const limit = checkLimit(params.limit, STATEMENTS_DEFAULT_LIMIT, STATEMENTS_MAX_LIMIT);
    const cursor = checkOptionalText(params.cursor, "cursor");
    // Absent filters hash as "": a given filter is never empty, so the two cannot be confused.
    const tag = queryTag(["statements", s ?? "", p ?? "", o ?? ""]);
    let after: readonly string[] | null = null;
    if (cursor !== undefined) {
      const { parts } = this.cursors.decode(cursor, ENDPOINT_STATEMENTS, tag);
      if (parts.length !== 4) throw new Error("statements cursor with a valid MAC has an unknown shape");
      after = parts;
    }
    const subject = this.resolve(s);
    const predicate = this.resolve(p);
    const object = this.resolve(o);
    // An id that names no entity is not an error: nothing can match it.
    if (subject === -1 || predicate === -1 || object === -1) return { items: [], nextCursor: null };
    const { index, bound } = this.statementIndex.plan({ subject, predicate, object });
    const [lo, hi] = index.range(bound);
    const start = after === null ? lo : index.seekAfter(lo, hi, this.seekKey(after, index.order));
    const end = Math.min(hi, start + limit);
    const items: Statement[] = new Array(end - start);
    for (let pos = start; pos < end; pos++) items[pos - start] = this.statementAt(index.rowAt(pos));
    let nextCursor: string | null = null;
    if (end < hi) {
      const last = items[items.length - 1] as Statement;
      nextCursor = this.cursors.encode(ENDPOINT_STATEMENTS, tag, 0, [
        last.subjectEntityId,
        last.predicateEntityId,
        last.objectEntityId,
        last.statementFingerprint,
      ]);
    }
    return { items, nextCursor };
  }

  memory(): GraphMemory {
    let identifierCodeUnits = 0;
    for (const r of this.parts.rawIdentifiers) identifierCodeUnits += r.length;
    return {
      identifierCodeUnits,
      searchIndexBytes: this.searchIndex.byteLength,
      statementIndexBytes: this.statementIndex.byteLength,
      fingerprintBytes: this.fingerprints.byteLength,
    };
  }

  /** Dense id of a filter's entityId: undefined when not filtered, -1 when no such entity. */
  private resolve(entityId: string | undefined): number | undefined {
    return entityId === undefined ? undefined : this.dictionary.idOf(entityId);
  }

  /** A statements cursor's (s, p, o, fingerprint) in the component order of `order`, placed in the dictionary. */
  private seekKey(after: readonly string[], order: IndexOrder): SeekKey {
    const [s, p, o, fingerprint] = after as [string, string, string, string];
    const components = order === "SPO" ? [s, p, o] : order === "POS" ? [p, o, s] : [o, s, p];
    const ids: [number, number, number] = [0, 0, 0];
    const exact: [boolean, boolean, boolean] = [false, false, false];
    for (let k = 0; k < 3; k++) {
      const id = components[k] as string;
      const at = this.dictionary.lowerBound(id);
      ids[k] = at;
      exact[k] = this.dictionary.ids[at] === id;
    }
    return { ids, exact, fingerprint };
  }

  private entityAt(id: number): Entity {
    const parts = this.parts;
    return {
      entityId: parts.entityIds[id] as string,
      rawIdentifier: parts.rawIdentifiers[id] as string,
      type: ENTITY_TYPES[parts.types[id] as number] as Entity["type"],
      sourceType: parts.sourceTypes[parts.sourceTypeIndex[id] as number] as string,
    };
  }

  private statementAt(row: number): Statement {
    const { entityIds, rawIdentifiers } = this.parts;
    const st = this.statementIndex;
    const s = st.subject[row] as number;
    const p = st.predicate[row] as number;
    const o = st.object[row] as number;
    return {
      statementFingerprint: this.fingerprints.get(row),
      subjectEntityId: entityIds[s] as string,
      subjectRawIdentifier: rawIdentifiers[s] as string,
      predicateEntityId: entityIds[p] as string,
      predicateRawIdentifier: rawIdentifiers[p] as string,
      objectEntityId: entityIds[o] as string,
      objectRawIdentifier: rawIdentifiers[o] as string,
    };
  }
}

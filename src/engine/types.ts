/**
 * Public types of the engine
 * ==========================
 * The shapes that cross the engine's boundary: what goes into a GraphBuilder, what comes out of a
 * Graph query. They are exactly the items and page envelope of CONTRACT.md, so the HTTP adapter only
 * serializes them. Integer ids never appear here.
 */

/** The eight entity type characters the contract allows. */
export const ENTITY_TYPES = ["0", "1", "2", "3", "4", "5", "6", "7"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface Entity {
  entityId: string;
  rawIdentifier: string;
  type: EntityType;
  sourceType: string;
}

/**
 * An entity as the input gives it (CONTRACT.md "Data model"): entityId 1 to 512 bytes of UTF-8,
 * rawIdentifier 0 to 1,024, sourceType 0 to 256 (limits.ts), each well-formed Unicode.
 */
export interface EntityInput {
  entityId: string;
  rawIdentifier: string;
  type: EntityType;
  sourceType: string;
  /**
   * Ranks the entity inside its search tier under `order: "score"`, highest first: a whole number
   * 0 to 4,294,967,295 (MAX_SCORE). Left out, it is the number of statements that name the entity
   * as subject, predicate or object (a statement naming it twice counts once). Never in responses.
   */
  score?: number | undefined;
}

/**
 * A statement as the input gives it: each id names an entity already added; the fingerprint, 1 to
 * 128 bytes of UTF-8 when given, is derived when left out.
 */
export interface StatementInput {
  subjectEntityId: string;
  predicateEntityId: string;
  objectEntityId: string;
  statementFingerprint?: string;
}

export interface Statement {
  statementFingerprint: string;
  subjectEntityId: string;
  subjectRawIdentifier: string;
  predicateEntityId: string;
  predicateRawIdentifier: string;
  objectEntityId: string;
  objectRawIdentifier: string;
}

/** One page of results: `nextCursor` is null exactly when no item follows. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /**
   * Present exactly when the query asked for `count: true`: the exact number of items that
   * following every cursor from the first page returns (the whole walk, whichever page this is).
   */
  total?: number;
}

/** The orders of search results: `name` (the default) or `score` (CONTRACT.md "GET /graph/v1/search"). */
export type SearchOrder = "name" | "score";

export interface SearchParams {
  /** Substring of the raw identifier, 1..256 UTF-16 code units. */
  q: string;
  /** Only entities of this type. */
  type?: EntityType | undefined;
  /** 1..100, default 20. */
  limit?: number | undefined;
  /** The nextCursor of an earlier page of the same q, type and order. */
  cursor?: string | undefined;
  /**
   * Inside each tier: `name` (the default), by folded identifier then entityId; `score`, by score
   * highest first, then folded identifier, then entityId.
   */
  order?: SearchOrder | undefined;
  /** true: the page carries `total`, the exact number of matches of the whole walk. */
  count?: boolean | undefined;
}

export interface StatementsParams {
  subjectEntityId?: string | undefined;
  predicateEntityId?: string | undefined;
  objectEntityId?: string | undefined;
  /** 1..200, default 50. */
  limit?: number | undefined;
  /** The nextCursor of an earlier page of the same filters. */
  cursor?: string | undefined;
  /** true: the page carries `total`, the exact number of statements of the whole walk. */
  count?: boolean | undefined;
}

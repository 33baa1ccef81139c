/**
 * Public types of the engine
 * ==========================
 * The shapes that cross the engine's boundary: what goes into a GraphBuilder, what comes out of a
 * Graph query. They are exactly the items and page envelope of CONTRACT.md, so the HTTP adapter only
 * serializes them. Integer ids never appear here.
 */

/** The eight entity type characters the contract allows. */
export const ENTITY_TYPES = ["0", "1", "2", "3", "4", "5", "6", "7"] as const;
/** An entity's type: one character, `"0"` to `"7"`, whose meaning is the data's. */
export type EntityType = (typeof ENTITY_TYPES)[number];

/** An entity as a query returns it: a search item, or {@link Graph.getEntity}'s answer. */
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

/** A statement as a query returns it: the three entities' ids and raw identifiers, and its fingerprint. */
export interface Statement {
  /** The input's fingerprint, or 16 lowercase hex digits derived from the three ids. */
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
}

/** The parameters of {@link Graph.search}, as the search endpoint takes them. */
export interface SearchParams {
  /** Substring of the raw identifier, 1..256 UTF-16 code units. */
  q: string;
  /** Only entities of this type. */
  type?: EntityType | undefined;
  /** 1..100, default 20. */
  limit?: number | undefined;
  /** The nextCursor of an earlier page of the same q and type. */
  cursor?: string | undefined;
}

/** The parameters of {@link Graph.statements}: any mix of the three filters, combined with AND. */
export interface StatementsParams {
  subjectEntityId?: string | undefined;
  predicateEntityId?: string | undefined;
  objectEntityId?: string | undefined;
  /** 1..200, default 50. */
  limit?: number | undefined;
  /** The nextCursor of an earlier page of the same filters. */
  cursor?: string | undefined;
}

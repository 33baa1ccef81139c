/**
 * Graph
 * =====
 * One immutable snapshot of entities and statements, and the two queries of CONTRACT.md:
 * `search` (substring search of raw identifiers) and `statements` (filtered list), both keyset
 * paginated with sealed cursors. Built by GraphBuilder, or opened from a snapshot file.
 *
 * Entities are held by dense id (= position in entityId order, see dictionary.ts) in one record
 * each (entity-table.ts: an entity read is one cache miss, plus its characters). The indexes
 * (search-index.ts, statement-index.ts) work on integers only; strings are read here, for the items
 * of the page and the cursor of its last item.
 *
 * Search has two orders: "name" (search-index.ts lists it) and "score" (score-index.ts), each
 * entity's score kept in scores.ts; a cursor carries the last item's key (raw identifier, entityId,
 * tier, and the score under "score") and a position hint (its rank, or srank), and is bound to q,
 * type, the order and the graph's fold mode. `count` adds the exact total: the search index's
 * document counts (document-counts.ts) for a search, the index range's length for statements.
 *
 * Cost of a page: see SearchIndex.find, ScoreIndex.find and StatementIndex; on top, one HMAC to open
 * a cursor and one to seal the next one; a total adds a few microseconds (DocumentCounts.count) to a
 * search and nothing measurable to statements.
 */

import { contentTag, localTagHashing, type TagHashing } from "./content-tag.js";
import { QuiverError } from "./errors.js";
import {
  checkCacheBytes,
  CursorCodec,
  type CursorContent,
  ENDPOINT_SEARCH,
  ENDPOINT_STATEMENTS,
  searchQueryTag,
  statementsQueryTag,
  toSecretBytes,
} from "./cursor/cursor.js";
import type { Dictionary } from "./entities/dictionary.js";
import { derivedFingerprintHalves, HexPage } from "./statements/fingerprint.js";
import { PageHasher } from "./kernels/page-hasher.js";
import { type FoldMode, folder, FOLD_MODES } from "./search/fold.js";
import { RankList } from "./search/rank-list.js";
import type { ScoreHits, ScoreResume, ScoreIndex } from "./search/score-index.js";
import { type Scores, statementCounts } from "./search/scores.js";
import { hex64, type Hash64 } from "./hash64.js";
import { SEARCH_MAX_LIMIT, STATEMENTS_MAX_LIMIT } from "./limits.js";
import { NameCache } from "./entities/name-cache.js";
import {
  type SearchBounds,
  type SearchHits,
  TIER_INFIX,
  type SearchIndex,
  type SearchResume,
} from "./search/search-index.js";
import {
  OBJECT,
  PREDICATE,
  SUBJECT,
  type IndexOrder,
  type QueryPlan,
  type SeekKey,
  type StatementIndex,
} from "./statements/statement-index.js";
import type { EntityTable } from "./entities/entity-table.js";
import {
  ENTITY_TYPES,
  type Entity,
  type EntityInput,
  type EntityType,
  type Page,
  type SearchParams,
  type Statement,
  type StatementInput,
  type StatementsParams,
} from "./types.js";
import { checkSearchParams, checkStatementsParams, checkString } from "./validate.js";

/** Everything a graph is made of: what GraphBuilder produces and a snapshot stores. */
export interface GraphParts {
  /** entityId, rawIdentifier, type, sourceType and entityId hash per dense id (entityIds ascending). */
  entities: EntityTable;
  /** entityId -> dense id, over `entities` (made from it; not stored). */
  dictionary: Dictionary;
  searchIndex: SearchIndex;
  statementIndex: StatementIndex;
  /** Each entity's score (given, or its count of statements), by dense id. */
  scores: Scores;
  /** Search in order "score" (score-index.ts). */
  scoreIndex: ScoreIndex;
  /** How identifiers and queries are folded for search. */
  fold: FoldMode;
  /** The content tag (content-tag.ts), when known already (a snapshot stores it); else computed at construction. */
  contentTag?: string | undefined;
  /**
   * The last change batch the content holds (a graph compacted from a base and a change log; 0 or
   * absent: none). A live graph over it applies the log's batches after this one.
   */
  sequence?: number | undefined;
  /**
   * For a graph compacted from a base and a change log: the first base's content tag and sequence,
   * from which a live graph names its content (live-graph.ts contentTag), so a live graph over the
   * compacted graph gives the tags the one over the first base gives at the same sequence.
   */
  changesOrigin?: ChangesOrigin | undefined;
}

/** Where the content tags of a change log's live graphs start (GraphParts.changesOrigin). */
export interface ChangesOrigin {
  contentTag: string;
  sequence: number;
}

/** Options of a graph, given to {@link GraphBuilder}, {@link loadGraph} or {@link openSnapshot}. */
export interface GraphOptions {
  /** Secret that seals cursors. Replicas that share it accept each other's cursors. Default: random per process. */
  cursorSecret?: string | Uint8Array | undefined;
  /**
   * Bytes that everything the graph keeps between queries (the cache of cursors it issued lately)
   * may hold in all; 0 keeps nothing. Default DEFAULT_CACHE_BYTES.
   */
  cacheBytes?: number | undefined;
}

/** What the caches of one graph may hold in all, unless `cacheBytes` says otherwise: 64 MiB. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/** What `graph.stats()` reports: counts, the heaviest groups, and bytes per structure. */
export interface GraphStats {
  entities: number;
  statements: number;
  /** Entities per type character. */
  entitiesByType: Record<EntityType, number>;
  /** How search folds identifiers and queries: "case" or "accents". */
  fold: FoldMode;
  /** UTF-16 code units of all raw identifiers (what "bytes per code unit" figures divide by). */
  identifierCodeUnits: number;
  /**
   * Bytes held per structure (typed arrays' byteLength, plus string bytes where strings are kept):
   * entities (the entity table: entityIds, rawIdentifiers, types, sourceTypes, hashes), entityLookup
   * (the dictionary's hash table), search (the search index without its counts), searchCounts (its
   * document counts: totals), scores, scoreRanks, scoreNames and scoreInfix (the score index:
   * order=score), statements (the three orders) and fingerprints (given ones; 0 when all are derived).
   */
  bytes: Record<string, number>;
  /** The entities that head the most statements as subject, predicate and object, most first. */
  heaviest: { subjects: EntityCount[]; predicates: EntityCount[]; objects: EntityCount[] };
  /** A digest of the graph's content: two graphs with equal content have equal tags. */
  contentTag: string;
}

/** An entity and how many statements it heads in one role (for {@link GraphStats}). */
export interface EntityCount {
  entityId: string;
  statements: number;
}

/** Hex digits of the content tag a cursor records with a position (64 bits: collisions negligible). */
const HINT_ID_DIGITS = 16;
/** Hex digits of a position in a cursor's hint: positions (ranks, statement positions) are < 2^32. */
const HINT_POSITION_DIGITS = 8;
/**
 * What a search cursor's kept bounds (SearchBounds: an object of five small integers) are charged in
 * the cursor cache: its header and five fields, rounded up.
 */
export const SEARCH_BOUNDS_BYTES = 64;

/**
 * The parts of a search cursor, by index: the last item's raw identifier and entityId (its key on
 * any graph), the position hint (its rank on a graph of this content), and under order "score" its
 * score. The cursor's `extra` byte is the item's tier.
 */
const SEARCH_PART = { raw: 0, entityId: 1, hint: 2, score: 3 } as const;
/** How many parts a search cursor of each order carries. */
const SEARCH_NAME_PARTS = 3;
const SEARCH_SCORE_PARTS = 4;

/** How many entities `stats().heaviest` lists per role. */
export const HEAVIEST_LISTED = 10;

/** Reads a graph's parts: for the package's own layers only (engine/internal.ts), never re-exported. */
let readParts: (graph: Graph) => GraphParts;
/** The same graph (its structures shared, its options kept) with some parts replaced. */
let replaceParts: (graph: Graph, parts: Partial<GraphParts>) => Graph;
let readSearchPage: (graph: Graph) => SearchPageKeys;
let readStatementsPage: (graph: Graph) => ArrayLike<number>;
let readStatementsRest: (graph: Graph) => number;
let readStatementsHint: (graph: Graph, item: number) => string;
let readStatementsStart: (graph: Graph) => number;
let readRawIdentifier: (graph: Graph, d: number) => string;
let readSearchHint: (graph: Graph, rank: number) => string;
let readHintPosition: (graph: Graph, hint: string) => number;
let readSearchItem: (graph: Graph, d: number) => Entity;
let readUnsealed: <T>(graph: Graph, read: () => T) => T;
let readStatementsAfter: (
  graph: Graph,
  tag: Hash64,
  after: StatementsKey | null,
  subject: number | undefined,
  predicate: number | undefined,
  object: number | undefined,
  limit: number,
  count: boolean,
  seal: boolean,
) => Page<Statement>;
let readSearchByName: (
  graph: Graph,
  folded: string,
  type: number,
  limit: number,
  content: CursorContent | undefined,
  count: boolean,
  tag: Hash64,
  lookAheads: number,
) => Page<Entity>;
let readCursors: (graph: Graph) => CursorCodec;

/** What an unsealed read (unsealedRead) gives as nextCursor when a next page exists. */
export const UNSEALED_MORE = "";

/**
 * An immutable graph of entities and statements, answering the two queries of the HTTP API.
 *
 * Made by {@link GraphBuilder.build}, {@link loadGraph} or {@link openSnapshot}; never changed after.
 * To change a graph, build a new one (from {@link Graph.exportEntities} and
 * {@link Graph.exportStatements} plus the change) and swap it in. Every query method checks its
 * parameters as the HTTP API does and throws {@link QuiverError} with the same codes.
 */
export class Graph {
  readonly #parts: GraphParts;
  readonly #options: GraphOptions;
  private readonly dictionary: Dictionary;
  private readonly entities: EntityTable;
  private readonly cursors: CursorCodec;
  private readonly searchIndex: SearchIndex;
  private readonly statementIndex: StatementIndex;
  /** The bounds the search page being made found (null: nothing matches), for its count. */
  private pageBounds: SearchBounds | null | undefined;
  /** The graph's fold function (fold.ts), for queries and cursor keys. */
  private readonly foldText: (s: string) => string;
  /** The names of the entities written into items lately (engine/entities/name-cache.ts). */
  private readonly names: NameCache;
  /** Scratch of one page (a query runs to its end before the next starts): SPO rows, dense ids. */
  private readonly pageRows = new Uint32Array(STATEMENTS_MAX_LIMIT);
  private readonly pageIds = new Uint32Array(3 * Math.max(STATEMENTS_MAX_LIMIT, SEARCH_MAX_LIMIT));
  /** How many of the filters' statements follow the last statements page (its range's rest). */
  private pageRest = 0;
  /** The position of the last statements page's first item in its index. */
  private pageStart = 0;
  /**
   * The last statements read's plan and the filters' dense ids it is for: a read of the same
   * filters again (a walk's next page; a live graph's merge reading on) takes it, not a search.
   */
  private lastPlan: QueryPlan | null = null;
  private lastPlanFilters = [-1, -1, -1];
  /** Name ranks of a search page in order "score" (reused). */
  private readonly pageRanks = new Uint32Array(SEARCH_MAX_LIMIT);
  /** The match tiers of the last search page's items (the search index's list, valid until the next search). */
  private pageTiers: ArrayLike<number> = [];
  /** The last order "name" read's bounds (lastSearchPage: a live graph's cursors carry them too). */
  private nameBounds: SearchBounds | null | undefined;
  /** The search index ranks of the last order "name" search page's items (what its cursors' hints record). */
  private pageNameRanks: ArrayLike<number> = [];
  /** Whether a page's nextCursor is sealed (false only inside unsealedRead: UNSEALED_MORE instead). */
  private sealCursors = true;
  /** How many ranks the last order "name" read listed: its items, then the look-aheads found. */
  private pageListed = 0;
  /** What a search page's listing appends to (rank-list.ts: reused, so a listing allocates nothing). */
  private readonly nameHits: SearchHits<RankList> = {
    ranks: new RankList(SEARCH_MAX_LIMIT + 1),
    tiers: new RankList(SEARCH_MAX_LIMIT + 1),
    bounds: null,
  };
  private readonly scoreHits: ScoreHits<RankList> = {
    sranks: new RankList(SEARCH_MAX_LIMIT + 1),
    tiers: new RankList(SEARCH_MAX_LIMIT + 1),
    bounds: null,
  };
  /** The type (-1: any) and folded query of the order "score" page being listed, read by scoreMatch. */
  private matchType = -1;
  private matchFolded = "";
  /**
   * Whether the entity of a name rank is in the page's result (the score index checks sranks one by
   * one past its kept band when the tier is dense): of the type, the folded query in its identifier.
   * One function made once (not a closure a page), reading the page's query from the two fields.
   */
  private readonly scoreMatch = (rank: number): boolean => {
    const id = this.searchIndex.idAt(rank);
    return (
      (this.matchType < 0 || this.entities.typeOf(id) === this.matchType) &&
      this.foldText(this.entities.rawIdentifier(id)).includes(this.matchFolded)
    );
  };
  /** The page's fingerprints given as text (undefined: 16 hex digits, given or derived, in pageHex). */
  private readonly pageGiven: (string | undefined)[] = new Array(STATEMENTS_MAX_LIMIT).fill(undefined);
  /** Per row of the page: 1 when its fingerprint is derived (hashed by pageHasher), else 0. */
  private readonly pageDerived = new Uint8Array(STATEMENTS_MAX_LIMIT);
  /** A given hex fingerprint's halves, read for the page (reused). */
  private readonly givenHalves: Hash64 = [0, 0];
  private readonly pageHex = new HexPage(STATEMENTS_MAX_LIMIT);
  /** FNV-1a 64 of the page's derived fingerprints, in WebAssembly (page-hasher.ts). */
  private readonly pageHasher = new PageHasher();
  #stats: GraphStats | undefined;
  readonly #contentTag: string;
  /** What a cursor records with its position: the content tag's first HINT_ID_DIGITS digits. */
  readonly #hintId: string;

  static {
    readParts = (graph) => graph.#parts;
    replaceParts = (graph, parts) => new Graph({ ...graph.#parts, ...parts }, graph.#options);
    readSearchPage = (graph) => ({
      ids: graph.pageIds,
      tiers: graph.pageTiers,
      ranks: graph.pageNameRanks,
      listed: graph.pageListed,
      bounds: graph.nameBounds,
    });
    readSearchHint = (graph, rank) => graph.hint(rank);
    readHintPosition = (graph, hint) => graph.positionHint(hint);
    readSearchItem = (graph, d) => graph.searchItem(d);
    readStatementsPage = (graph) => graph.pageIds;
    readStatementsRest = (graph) => graph.pageRest;
    readStatementsHint = (graph, item) => graph.hint(graph.pageStart + item);
    readStatementsStart = (graph) => graph.pageStart;
    readRawIdentifier = (graph, d) => graph.names.raw(d);
    readStatementsAfter = (graph, tag, after, subject, predicate, object, limit, count, seal) =>
      graph.statementsAfter(tag, after, subject, predicate, object, limit, count, seal);
    readCursors = (graph) => graph.cursors;
    readSearchByName = (graph, folded, type, limit, content, count, tag, lookAheads) =>
      graph.searchByNameCounted(folded, type, limit, content, count, tag, lookAheads);
    readUnsealed = (graph, read) => {
      graph.sealCursors = false;
      try {
        return read();
      } finally {
        graph.sealCursors = true;
      }
    };
  }

  /**
   * @internal Graphs come from GraphBuilder.build(), loadGraph() or openSnapshot(). `made`, what a
   * builder hands over for the content tag: `scoreOverrides`, the entities whose score is not their
   * count of statements, as the tag lists them, when the builder knows them already (it counts the
   * statements for the scores; the tag then skips its own pass over the statements to find them);
   * `tagHashing`, where the tag's bytes are hashed (content-tag.ts; default on this thread).
   */
  constructor(
    parts: GraphParts,
    options: GraphOptions = {},
    made: { scoreOverrides?: [number, number][] | undefined; tagHashing?: (() => TagHashing) | undefined } = {},
  ) {
    this.#parts = parts;
    this.#options = options;
    this.dictionary = parts.dictionary;
    this.entities = parts.entities;
    checkCacheBytes(options.cacheBytes);
    // The cursor cache is the only cache a graph keeps between queries that grows with traffic: it
    // gets the whole budget (the name cache is fixed, under 0.5 MiB: engine/entities/name-cache.ts).
    this.cursors = new CursorCodec(toSecretBytes(options.cursorSecret), options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.searchIndex = parts.searchIndex;
    this.statementIndex = parts.statementIndex;
    this.names = new NameCache(this.entities);
    this.foldText = folder(parts.fold);
    // Once per built graph (a snapshot brings its own; withOptions shares the parts that hold it).
    parts.contentTag ??= this.computeContentTag(made.scoreOverrides, made.tagHashing);
    this.#contentTag = parts.contentTag;
    this.#hintId = parts.contentTag.slice(0, HINT_ID_DIGITS);
  }

  private computeContentTag(scoreOverrides = this.scoreOverrides(), tagHashing?: () => TagHashing): string {
    const entities = this.entities;
    const st = this.statementIndex;
    return contentTag(
      {
        entityCount: this.entityCount,
        entityStrings: (id) => [entities.entityId(id), entities.rawIdentifier(id), entities.sourceTypeOf(id)],
        typeOf: (id) => entities.typeOf(id),
        statementCount: st.length,
        statementIds: (row, out) => {
          out[0] = st.subjectOf(row);
          out[1] = st.predicateOf(row);
          out[2] = st.objectOf(row);
        },
        fingerprintTextOr: (row, halves) => {
          // Each branch: a given hex fingerprint is its halves; a given text is itself; else derived.
          if (st.fingerprints.hexHalves(row, halves)) return undefined;
          const given = st.fingerprints.given(row);
          if (given !== undefined) return given;
          const fp = this.derivedHalves(st.subjectOf(row), st.predicateOf(row), st.objectOf(row));
          halves[0] = fp[0];
          halves[1] = fp[1];
          return undefined;
        },
        scoreOverrides,
        foldCode: FOLD_MODES.indexOf(this.#parts.fold),
      },
      // Each branch: the builder's hashing (another thread), or this thread's.
      tagHashing?.() ?? localTagHashing(),
    );
  }

  /** Each entity's count of statements naming it (its default score), by dense id: one pass. */
  private statementCountsById(): ArrayLike<number> {
    const st = this.statementIndex;
    return statementCounts(
      this.entityCount,
      st.length,
      (row) => st.subjectOf(row),
      (row) => st.predicateOf(row),
      (row) => st.objectOf(row),
    );
  }

  /** The entities whose score is not their count of statements, as (dense id, score). */
  private scoreOverrides(): [number, number][] {
    const counts = this.statementCountsById();
    const scores = this.#parts.scores;
    const out: [number, number][] = [];
    for (let id = 0; id < this.entityCount; id++) if (scores.at(id) !== counts[id]) out.push([id, scores.at(id)]);
    return out;
  }

  /** How many entities the graph holds. */
  get entityCount(): number {
    return this.dictionary.size;
  }

  /** How many statements the graph holds (a statement given twice in the input counts once). */
  get statementCount(): number {
    return this.statementIndex.length;
  }

  /**
   * stats().contentTag, without the rest of stats() when the tag is already known (a graph read
   * from a snapshot or handed over by a worker thread carries it): swapping in a reloaded graph then
   * costs no pass over its statements on the serving thread.
   */
  get contentTag(): string {
    return this.#parts.contentTag ?? this.stats().contentTag;
  }

  /**
   * The last change batch the graph holds: 0 for a graph built from input, the compaction's batch
   * for one compacted from a base and a change log (a live graph over it holds later batches).
   */
  get sequence(): number {
    return this.#parts.sequence ?? 0;
  }

  /** The same graph, sealing and opening cursors with another secret. */
  withCursorSecret(secret: string | Uint8Array): Graph {
    return this.withOptions({ cursorSecret: secret });
  }

  /** The same graph (sharing its structures) with some options replaced; its caches start empty. */
  withOptions(options: GraphOptions): Graph {
    return new Graph(this.#parts, { ...this.#options, ...options });
  }

  /**
   * Every entity, in entityId order (JavaScript `<`), as input lines: `score` is there only when the
   * input gave it, so loading the export gives back the same graph (the input of `quiver dump`).
   */
  *exportEntities(): IterableIterator<EntityInput> {
    // One pass over the statements tells counted scores from given ones.
    const scores = this.#parts.scores;
    const counts = this.statementCountsById();
    for (let id = 0; id < this.entityCount; id++) {
      const entity = this.entityAt(id);
      yield scores.isCounted(id, counts[id]!) ? entity : { ...entity, score: scores.at(id) };
    }
  }

  /**
   * Every statement in SPO order, as input lines: `statementFingerprint` is there only when the
   * input gave it, so loading the export gives back the same graph.
   */
  *exportStatements(): IterableIterator<StatementInput> {
    const st = this.statementIndex;
    for (let row = 0; row < this.statementCount; row++) {
      const input: StatementInput = {
        subjectEntityId: this.dictionary.entityId(st.subjectOf(row)),
        predicateEntityId: this.dictionary.entityId(st.predicateOf(row)),
        objectEntityId: this.dictionary.entityId(st.objectOf(row)),
      };
      const given = st.fingerprints.given(row);
      if (given !== undefined) input.statementFingerprint = given;
      yield input;
    }
  }

  /**
   * The entity with this `entityId`, or `undefined` when the graph has none (the lookup endpoint's
   * answer). One hash-table probe (entities/dictionary.ts) and one record read: O(|entityId|).
   *
   * @param entityId - compared exactly (no folding)
   */
  getEntity(entityId: string): Entity | undefined {
    const id = this.dictionary.idOf(checkString(entityId, "entityId"));
    return id < 0 ? undefined : this.entityAt(id);
  }

  /** How this graph folds identifiers and queries for search ("case" or "accents"). */
  get fold(): FoldMode {
    return this.#parts.fold;
  }

  /**
   * A page of the entities whose folded `rawIdentifier` contains the folded `q` ({@link fold}):
   * exact matches first, then prefixes, then the rest; inside each tier by folded name then
   * `entityId` (`order: "name"`, the default), or by score highest first, then folded name, then
   * `entityId` (`order: "score"`). With `count: true` the page carries `total`, the exact number of
   * matches of the whole walk. Pass the page's `nextCursor` back as `cursor` (with the same `q`,
   * `type` and `order`) for the next page; it is `null` on the last one.
   *
   * @throws {@link QuiverError} with `MISSING_PARAMETER`, `QUERY_TOO_LONG`, `INVALID_TYPE`,
   *   `INVALID_LIMIT`, `INVALID_CURSOR`, `CURSOR_ENDPOINT_MISMATCH` or `CURSOR_QUERY_MISMATCH`, and
   *   the `parameter` at fault
   */
  search(params: SearchParams): Page<Entity> {
    const { q, type, limit, cursor, order, count } = checkSearchParams(params);
    const tag = searchQueryTag(q, type, order, this.#parts.fold);
    const folded = this.foldText(q);
    const content = cursor === undefined ? undefined : this.cursors.decode(cursor, ENDPOINT_SEARCH, tag);
    if (order !== "score") return this.searchByNameCounted(folded, type, limit, content, count, tag);
    const page = this.searchByScore(folded, type, limit, content, tag);
    // The page's bounds, when it found them, spare the count its backward search.
    if (count) page.total = this.searchIndex.count(folded, type, this.pageBounds);
    this.pageBounds = undefined;
    return page;
  }

  /**
   * search's order "name" from its checked parameters: the page, and its total when counted;
   * `lookAheads`, the ranks listed past the page (searchByName).
   */
  private searchByNameCounted(
    folded: string,
    type: number,
    limit: number,
    content: CursorContent | undefined,
    count: boolean,
    tag: Hash64,
    lookAheads = 1,
  ): Page<Entity> {
    const page = this.searchByName(folded, type, limit, content, tag, lookAheads);
    // The page's bounds, when it found them, spare the count its backward search.
    if (count) page.total = this.searchIndex.count(folded, type, this.pageBounds);
    this.nameBounds = this.pageBounds;
    this.pageBounds = undefined;
    return page;
  }

  /**
   * What binds a search cursor to its query: q and type, and (only when not the defaults, so a
   * default query's cursors keep their bytes) the order and the graph's fold mode.
   */
  /** Where a cursor's entityId falls among this graph's (ids in entityId order), and whether it is there. */
  private placeEntityId(entityId: string): { entityAt: number; entityExact: boolean } {
    const entityAt = this.dictionary.lowerBound(entityId);
    return { entityAt, entityExact: entityAt < this.entityCount && this.dictionary.is(entityAt, entityId) };
  }

  /**
   * A page of order "name": the search index lists it from the cursor's key, and `lookAheads` ranks
   * past it (one tells whether a next page exists; a live graph asks for more, to make up its
   * tombstoned items from them).
   */
  private searchByName(
    folded: string,
    type: number,
    limit: number,
    content: CursorContent | undefined,
    tag: Hash64,
    lookAheads: number,
  ): Page<Entity> {
    let after: SearchResume = null;
    if (content !== undefined) {
      const tier = content.extra;
      if (content.count !== SEARCH_NAME_PARTS || tier > TIER_INFIX) throw unknownCursorShape();
      const rank = this.positionHint(content.part(SEARCH_PART.hint));
      if (rank >= 0 && rank < this.entityCount) {
        // Issued by a graph of this content: resume at the next rank. Issued by this very graph and
        // still in its cursor cache: the query's bounds come back with it (only search attaches
        // them, and the codec checked this cursor is a search cursor), so the backward search is skipped.
        after = { tier, rank, bounds: content.attachment as SearchBounds | undefined };
      } else {
        // Other content (a changed graph): place the key among this graph's entities.
        const { entityAt, entityExact } = this.placeEntityId(content.part(SEARCH_PART.entityId));
        // The cursor carries the raw identifier (shorter than its fold when NFKC expands it): fold it again.
        after = { tier, folded: this.foldText(content.part(SEARCH_PART.raw)), entityAt, entityExact };
      }
    }
    // One look-ahead item tells whether a next page exists, so nextCursor is null exactly at the end
    // (a live graph's read may ask for a few more: searchByNameChecked's lookAheads).
    const hits = this.searchIndex.find(folded, type, after, limit + lookAheads, this.nameHits);
    this.pageBounds = hits.bounds;
    this.pageTiers = hits.tiers.values;
    this.pageNameRanks = hits.ranks.values;
    this.pageListed = hits.ranks.length;
    const ranks = hits.ranks.values;
    const n = Math.min(limit, hits.ranks.length);
    const items = this.searchItems(ranks, n);
    let nextCursor: string | null = null;
    // Each branch: a next page and a caller that reads the cursor (sealed), or only needs to know of one.
    if (hits.ranks.length > limit && !this.sealCursors) nextCursor = UNSEALED_MORE;
    else if (hits.ranks.length > limit) {
      const last = items[n - 1]!;
      nextCursor = this.cursors.encode(
        ENDPOINT_SEARCH,
        tag,
        hits.tiers.values[n - 1]!,
        [last.rawIdentifier, last.entityId, this.hint(ranks[n - 1]!)],
        hits.bounds ?? undefined,
        SEARCH_BOUNDS_BYTES,
      );
    }
    return { items, nextCursor };
  }

  /** A page of order "score": the score index lists it from the cursor's key (score-index.ts). */
  private searchByScore(
    folded: string,
    type: number,
    limit: number,
    content: CursorContent | undefined,
    tag: Hash64,
  ): Page<Entity> {
    const scores = this.#parts.scores;
    const index = this.#parts.scoreIndex;
    let after: ScoreResume = null;
    if (content !== undefined) {
      const tier = content.extra;
      if (content.count !== SEARCH_SCORE_PARTS || tier > TIER_INFIX) throw unknownCursorShape();
      const srank = this.positionHint(content.part(SEARCH_PART.hint));
      if (srank >= 0 && srank < this.entityCount) {
        // Issued over a graph of this content: each branch: the key is its entity's key here (resume
        // at the next srank), or a live graph over this one raised its score (the key placed before
        // it); the bounds go along, when still cached.
        const bounds = content.attachment as SearchBounds | undefined;
        const score = parseScore(content.part(SEARCH_PART.score));
        after =
          score > scores.at(this.searchIndex.idAt(index.rankAt(srank)))
            ? { tier, at: srank, score, bounds }
            : { tier, srank, bounds };
      } else {
        // Other content: place the key (tier, score, folded identifier, entityId) among this graph's.
        const score = parseScore(content.part(SEARCH_PART.score));
        const { entityAt, entityExact } = this.placeEntityId(content.part(SEARCH_PART.entityId));
        after = { tier, score, folded: this.foldText(content.part(SEARCH_PART.raw)), entityAt, entityExact };
      }
    }
    // One look-ahead item tells whether a next page exists, so nextCursor is null exactly at the end.
    this.matchType = type;
    this.matchFolded = folded;
    const hits = index.find(this.searchIndex, scores, folded, type, after, limit + 1, this.scoreMatch, this.scoreHits);
    this.pageBounds = hits.bounds;
    this.pageTiers = hits.tiers.values;
    const sranks = hits.sranks.values;
    const n = Math.min(limit, hits.sranks.length);
    const ranks = this.pageRanks;
    for (let i = 0; i < n; i++) ranks[i] = index.rankAt(sranks[i]!);
    const items = this.searchItems(ranks, n);
    let nextCursor: string | null = null;
    if (hits.sranks.length > limit) {
      const last = items[n - 1]!;
      nextCursor = this.cursors.encode(
        ENDPOINT_SEARCH,
        tag,
        hits.tiers.values[n - 1]!,
        [last.rawIdentifier, last.entityId, this.hint(sranks[n - 1]!), String(scores.at(this.pageIds[n - 1]!))],
        hits.bounds ?? undefined,
        SEARCH_BOUNDS_BYTES,
      );
    }
    return { items, nextCursor };
  }

  /** The items of the first `n` of `ranks`. */
  private searchItems(ranks: ArrayLike<number>, n: number): Entity[] {
    // In stages, as a statements page: ranks to dense ids, the entities' records and text, the items.
    const ids = this.pageIds;
    for (let i = 0; i < n; i++) ids[i] = this.searchIndex.idAt(ranks[i]!);
    // Every entity's record is read (type, sourceType) even when its names are cached: all touched.
    this.entities.touch(ids, n);
    const items: Entity[] = new Array(n);
    for (let i = 0; i < n; i++) items[i] = this.searchItem(ids[i]!);
    return items;
  }

  /**
   * A page of the statements matching every given filter (subject, predicate, object; none lists
   * them all), in the order of the index that serves the filters: SPO for none, S, S+P and S+P+O;
   * POS for P and P+O; OSP for O and O+S. An id that names no entity gives an empty page, not an
   * error. Paging as {@link Graph.search}.
   *
   * @throws {@link QuiverError} with `EMPTY_PARAMETER`, `INVALID_LIMIT` or a cursor code, and the
   *   `parameter` at fault
   */
  statements(params: StatementsParams = {}): Page<Statement> {
    const { s, p, o, limit, cursor, count } = checkStatementsParams(params);
    const tag = statementsQueryTag(s, p, o, this.#parts.fold);
    let after: StatementsKey | null = null;
    if (cursor !== undefined) {
      const content = this.cursors.decode(cursor, ENDPOINT_STATEMENTS, tag);
      if (content.count !== 5) throw unknownCursorShape();
      after = statementsKeyOf(content);
    }
    const sealed = this.sealCursors;
    // Each branch: a subject and an object filter are read ahead together (their look-ups' misses
    // overlap); else each is looked up as it is. A predicate is not: a graph's predicates are few
    // and in every statement, so their records stay in the cache (read ahead, measured at 10M / 100M,
    // S+P pages took 5-8% longer, O+S and S+P+O 3-15% less).
    if (s !== undefined && o !== undefined) this.dictionary.touchKeys(s, o);
    return this.statementsAfter(tag, after, this.resolve(s), this.resolve(p), this.resolve(o), limit, count, sealed);
  }

  /**
   * statements() once its parameters are checked (the live graph's entry, which has checked them
   * and resolved the filters already: statementsAfterKey): `tag` the query's, `after` the key to
   * resume after (null: the first page), the filters' dense ids (undefined: not given; -1: no such
   * entity), `seal`: whether a next page's cursor is sealed (else UNSEALED_MORE).
   */
  private statementsAfter(
    tag: Hash64,
    after: StatementsKey | null,
    subject: number | undefined,
    predicate: number | undefined,
    object: number | undefined,
    limit: number,
    count: boolean,
    seal: boolean,
  ): Page<Statement> {
    // An id that names no entity is not an error: nothing can match it.
    if (subject === -1 || predicate === -1 || object === -1) {
      this.pageRest = 0;
      return count ? { items: [], nextCursor: null, total: 0 } : { items: [], nextCursor: null };
    }
    const index = this.statementIndex;
    // Filters as dense ids, -2 for none (a filter's id is >= 0 here).
    const fs = subject ?? -2;
    const fp = predicate ?? -2;
    const fo = object ?? -2;
    const kept = this.lastPlanFilters;
    // Each branch: the same filters as the last read's (its plan), or a plan made now and kept.
    let plan = this.lastPlan;
    if (plan === null || kept[0] !== fs || kept[1] !== fp || kept[2] !== fo) {
      plan = index.plan({ subject, predicate, object });
      this.lastPlan = plan;
      kept[0] = fs;
      kept[1] = fp;
      kept[2] = fo;
    }
    const { order, lo, hi } = plan;
    let start = lo;
    if (after !== null) {
      const at = this.positionHint(after[4]);
      // Issued by a graph of this content for this filter: the next position. Else place the key.
      start =
        at >= lo && at < hi
          ? at + 1
          : index.seekAfter(order, lo, hi, this.seekKey(after), (row) => this.fingerprintOf(row));
    }
    const end = Math.min(hi, start + limit);
    const n = end - start;
    this.pageRest = hi - end;
    this.pageStart = start;
    // The page is read in stages, each a small loop of independent reads (see EntityTable.touch):
    // positions to rows, the rows and their fingerprints (one loop: StatementIndex.touchRows), rows
    // to the three dense ids, the entities' records and text; then the items.
    const rows = this.pageRows;
    const ids = this.pageIds;
    for (let k = 0; k < n; k++) rows[k] = index.rowAt(order, start + k);
    index.touchRows(rows, n);
    for (let k = 0; k < n; k++) {
      const row = rows[k]!;
      ids[3 * k] = index.subjectOf(row);
      ids[3 * k + 1] = index.predicateOf(row);
      ids[3 * k + 2] = index.objectOf(row);
    }
    this.names.touchMissing(ids, 3 * n);
    this.pageFingerprints(n);
    const items: Statement[] = new Array(n);
    for (let k = 0; k < n; k++) items[k] = this.statementAt(k, ids[3 * k]!, ids[3 * k + 1]!, ids[3 * k + 2]!);
    let nextCursor: string | null = null;
    // Each branch: a next page and a caller that reads the cursor (sealed), or only needs to know of one.
    if (end < hi && !seal) nextCursor = UNSEALED_MORE;
    else if (end < hi) {
      const last = items[items.length - 1]!;
      nextCursor = this.cursors.encode(ENDPOINT_STATEMENTS, tag, 0, [
        last.subjectEntityId,
        last.predicateEntityId,
        last.objectEntityId,
        last.statementFingerprint,
        this.hint(end - 1),
      ]);
    }
    // The filters' rows are one range of their index: the whole walk is its length.
    return count ? { items, nextCursor, total: hi - lo } : { items, nextCursor };
  }

  /**
   * Counts, entities per type, the heaviest subjects, predicates and objects, bytes per structure,
   * and the content tag. Computed once per graph (a pass over the statements), then kept.
   */
  stats(): GraphStats {
    this.#stats ??= this.computeStats();
    return this.#stats;
  }

  private computeStats(): GraphStats {
    const entitiesByType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, 0])) as Record<EntityType, number>;
    for (let id = 0; id < this.entityCount; id++) entitiesByType[ENTITY_TYPES[this.entities.typeOf(id)]!]++;
    const st = this.statementIndex;
    const subjects = new Uint32Array(this.entityCount);
    const predicates = new Uint32Array(this.entityCount);
    const objects = new Uint32Array(this.entityCount);
    for (let row = 0; row < st.length; row++) {
      subjects[st.subjectOf(row)]!++;
      predicates[st.predicateOf(row)]!++;
      objects[st.objectOf(row)]!++;
    }
    return {
      entities: this.entityCount,
      statements: this.statementCount,
      entitiesByType,
      fold: this.#parts.fold,
      identifierCodeUnits: this.entities.rawCodeUnits,
      bytes: {
        entities: this.entities.byteLength,
        entityLookup: this.dictionary.byteLength,
        search: this.searchIndex.byteLength - this.searchIndex.counts.byteLength,
        scores: this.#parts.scores.byteLength,
        ...this.#parts.scoreIndex.bytesByPart,
        searchCounts: this.searchIndex.counts.byteLength,
        statements: st.byteLength,
        fingerprints: st.fingerprints.byteLength,
      },
      heaviest: {
        subjects: this.heaviestOf(subjects),
        predicates: this.heaviestOf(predicates),
        objects: this.heaviestOf(objects),
      },
      contentTag: this.#contentTag,
    };
  }

  /** The HEAVIEST_LISTED entities with the highest counts, most first (ties: entityId order). */
  private heaviestOf(counts: Uint32Array): EntityCount[] {
    const top: number[] = [];
    for (let id = 0; id < counts.length; id++) {
      if (counts[id] === 0) continue;
      // Keep `top` sorted by count, most first, at most HEAVIEST_LISTED long.
      let at = top.length;
      while (at > 0 && counts[top[at - 1]!]! < counts[id]!) at--;
      if (at < HEAVIEST_LISTED) {
        top.splice(at, 0, id);
        if (top.length > HEAVIEST_LISTED) top.pop();
      }
    }
    return top.map((id) => ({ entityId: this.dictionary.entityId(id), statements: counts[id]! }));
  }

  /**
   * A cursor's record of where its last item is: "<hint id>.<position as 8 hex digits>" (fixed
   * width, so a cursor's length does not change with the page number). The hint id is a prefix of
   * the content tag: any graph with the same content (a replica, a rebuild) has the same positions.
   */
  private hint(position: number): string {
    return `${this.#hintId}.${position.toString(16).padStart(HINT_POSITION_DIGITS, "0")}`;
  }

  /** The position a cursor recorded, when it was issued by a graph of this content; else -1. */
  private positionHint(hint: string): number {
    const id = this.#hintId;
    if (hint.length <= id.length + 1 || !hint.startsWith(id) || hint.charCodeAt(id.length) !== 0x2e) return -1;
    const digits = hint.slice(id.length + 1);
    if (digits.length !== HINT_POSITION_DIGITS) return -1;
    const position = Number.parseInt(digits, 16);
    return Number.isSafeInteger(position) ? position : -1;
  }

  /** Dense id of a filter's entityId: undefined when not filtered, -1 when no such entity. */
  private resolve(entityId: string | undefined): number | undefined {
    return entityId === undefined ? undefined : this.dictionary.idOf(entityId);
  }

  /** A statements cursor's (s, p, o, fingerprint), placed among this graph's ids. */
  private seekKey(after: StatementsKey): SeekKey {
    const [s, p, o, fingerprint] = after;
    const at: [number, number, number] = [0, 0, 0];
    const exact: [boolean, boolean, boolean] = [false, false, false];
    for (const [component, id] of [
      [SUBJECT, s],
      [OBJECT, o],
      [PREDICATE, p],
    ] as const) {
      const d = this.dictionary.lowerBound(id);
      const there = d < this.entityCount && this.dictionary.is(d, id);
      if (component === PREDICATE) {
        // Predicates compare by their index among the graph's predicates.
        const pi = this.statementIndex.predicateLowerBound(d);
        at[component] = pi;
        exact[component] = there && this.statementIndex.predicates[pi] === d;
      } else {
        at[component] = d;
        exact[component] = there;
      }
    }
    return { at, exact, fingerprint };
  }

  private entityAt(id: number): Entity {
    return this.entities.entity(id);
  }

  /** Dense id d as a search item: entityAt's entity, its names from the name cache. */
  private searchItem(d: number): Entity {
    const names = this.names;
    const slot = names.slot(d);
    return this.entities.entityNamed(d, names.entityIds[slot]!, names.raws[slot]!);
  }

  /** A row's fingerprint: the given one, or the one derived from its entities' hashes. */
  private fingerprintOf(row: number): string {
    const st = this.statementIndex;
    return this.fingerprintOfIds(row, st.subjectOf(row), st.predicateOf(row), st.objectOf(row));
  }

  /** fingerprintOf for a caller that has already read the row's dense ids `sId`, `pId`, `oId`. */
  private fingerprintOfIds(row: number, sId: number, pId: number, oId: number): string {
    const given = this.statementIndex.fingerprints.given(row);
    if (given !== undefined) return given;
    const fp = this.derivedHalves(sId, pId, oId);
    return hex64(fp[0], fp[1]);
  }

  /** The derived fingerprint of dense ids s, p, o, from their entity hashes (a shared pair: read at once). */
  private derivedHalves(s: number, p: number, o: number): Hash64 {
    const e = this.entities;
    return derivedFingerprintHalves(e.hashHi(s), e.hashLo(s), e.hashHi(p), e.hashLo(p), e.hashHi(o), e.hashLo(o));
  }

  /**
   * The fingerprints of the page in pageRows / pageIds (n rows): those given as text in pageGiven;
   * the derived ones hashed together (PageHasher: one call a page) and written into pageHex with the
   * given ones of 16 hex digits, which makes them strings together (HexPage).
   */
  private pageFingerprints(n: number): void {
    const column = this.statementIndex.fingerprints;
    const rows = this.pageRows;
    const ids = this.pageIds;
    const e = this.entities;
    const hasher = this.pageHasher;
    const halves = this.givenHalves;
    let derived = 0;
    let hex = 0;
    for (let k = 0; k < n; k++) {
      const row = rows[k]!;
      this.pageDerived[k] = 0;
      this.pageGiven[k] = undefined;
      // Each branch: a given value of 16 hex digits is written with the derived ones (no string of
      // its own: hex64 costs about 75 ns, the page's digits about 20 a value); a given text is
      // itself; else the row is derived, its input for the hasher written.
      if (column.hexHalves(row, halves)) {
        this.pageHex.set(k, halves[0], halves[1]);
        hex++;
        continue;
      }
      const given = column.given(row);
      this.pageGiven[k] = given;
      if (given !== undefined) continue;
      const s = ids[3 * k]!;
      const p = ids[3 * k + 1]!;
      const o = ids[3 * k + 2]!;
      hasher.setInput(k, e.hashHi(s), e.hashLo(s), e.hashHi(p), e.hashLo(p), e.hashHi(o), e.hashLo(o));
      this.pageDerived[k] = 1;
      derived++;
    }
    // Every row is hashed, given ones too (their input is stale, their output never read): one call;
    // none when the page has no derived row (a graph whose input gave every fingerprint).
    if (derived > 0) {
      hasher.hash(n);
      for (let k = 0; k < n; k++) if (this.pageDerived[k] === 1) this.pageHex.set(k, hasher.hi(k), hasher.lo(k));
    }
    if (derived + hex > 0) this.pageHex.seal(n);
  }

  /** Item k of the page being made (pageFingerprints done), whose dense ids are `s`, `p`, `o`. */
  private statementAt(k: number, s: number, p: number, o: number): Statement {
    const names = this.names;
    const { entityIds, raws } = names;
    // Each role's strings are read right after its slot is found: the next role may take the slot.
    let slot = names.slot(s);
    const subjectEntityId = entityIds[slot]!;
    const subjectRawIdentifier = raws[slot]!;
    slot = names.slot(p);
    const predicateEntityId = entityIds[slot]!;
    const predicateRawIdentifier = raws[slot]!;
    slot = names.slot(o);
    return {
      statementFingerprint: this.pageGiven[k] ?? this.pageHex.get(k),
      subjectEntityId,
      subjectRawIdentifier,
      predicateEntityId,
      predicateRawIdentifier,
      objectEntityId: entityIds[slot]!,
      objectRawIdentifier: raws[slot]!,
    };
  }
}

/** A cursor's score part: decimal digits of a score (it was sealed by this service: damage is a bug). */
function parseScore(text: string): number {
  const score = Number(text);
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text) || score > 0xffff_ffff) throw unknownCursorShape();
  return score;
}

/** A cursor with a valid MAC but a shape this version does not write: one from another Quiver version. */
function unknownCursorShape(): QuiverError {
  return new QuiverError(
    "INVALID_CURSOR",
    "The cursor was issued by another version of this service; start again from the first page (leave cursor out).",
    { parameter: "cursor" },
  );
}

/** A graph's parts, for the package's own layers (snapshot files); see engine/internal.ts. */
export function graphParts(graph: Graph): GraphParts {
  return readParts(graph);
}

/** The keys of a search page's items, by position on the page: dense ids and match tiers. */
export interface SearchPageKeys {
  readonly ids: ArrayLike<number>;
  readonly tiers: ArrayLike<number>;
  /** Under order "name": the items' search index ranks (what searchHint takes). */
  readonly ranks: ArrayLike<number>;
  /**
   * Under order "name": how many ranks (and tiers) the read listed: its items, then the look-aheads
   * it found past them (one, or searchByNameChecked's lookAheads; fewer at the end of the query's matches).
   * `ids` holds the items' alone.
   */
  readonly listed: number;
  /**
   * Under order "name": the query's bounds as the read found them (null: no match), what a cursor
   * this graph's codec seals for a rank of the same query may carry as its attachment (with
   * SEARCH_BOUNDS_BYTES), so that the read it resumes skips the backward search.
   */
  readonly bounds: object | null | undefined;
}

/**
 * The position hint that `graph`'s order "name" cursors record for the item of search index rank
 * `rank` (package-internal: engine/internal.ts): a cursor of that key with it resumes this graph's
 * walk at the next rank, without placing the key.
 */
export function searchHint(graph: Graph, rank: number): string {
  return readSearchHint(graph, rank);
}

/**
 * The position a cursor's hint records when a graph of `graph`'s content wrote it (searchHint), else
 * -1 (package-internal: engine/internal.ts; the live graph resumes its base's score order by it).
 */
export function searchHintPosition(graph: Graph, hint: string): number {
  return readHintPosition(graph, hint);
}

/** Entity of dense id `d` as `graph`'s pages give it, its names from the graph's cache (package-internal). */
export function searchItemOf(graph: Graph, d: number): Entity {
  return readSearchItem(graph, d);
}

/**
 * The dense ids and match tiers of the items of `graph`'s last search page, item i at index i
 * (package-internal: engine/internal.ts; the live graph merges base pages by them). Read it right
 * after the search: the graph's next read writes over both.
 */
export function lastSearchPage(graph: Graph): SearchPageKeys {
  return readSearchPage(graph);
}

/**
 * The dense ids of the entities of `graph`'s last statements page: item i's subject, predicate and
 * object at 3i, 3i + 1 and 3i + 2 (package-internal: engine/internal.ts). Read it right after the
 * read: the graph's next read writes over it.
 */
export function lastStatementsPage(graph: Graph): ArrayLike<number> {
  return readStatementsPage(graph);
}

/**
 * How many statements of its filters follow `graph`'s last statements page (package-internal:
 * engine/internal.ts; the live graph tells from it whether base items are left that are not
 * tombstoned). Read it right after the read, as lastStatementsPage.
 */
export function lastStatementsRest(graph: Graph): number {
  return readStatementsRest(graph);
}

/**
 * The position in its order's index of the first item of `graph`'s last statements page (its
 * items are the positions from there on; package-internal: engine/internal.ts; the live graph
 * tests them against its tombstones' positions). Read it right after the read, as
 * lastStatementsPage.
 */
export function lastStatementsStart(graph: Graph): number {
  return readStatementsStart(graph);
}

/**
 * The position hint of item `item` of `graph`'s last statements page
 * (package-internal: engine/internal.ts): what the graph's own cursor after that item carries, so
 * that a live graph that seals the cursor of a page whose last item is a base item issues the
 * cursor the base would. Read it right after the read (of a page with items), as
 * lastStatementsPage.
 */
export function lastStatementsHint(graph: Graph, item: number): string {
  return readStatementsHint(graph, item);
}

/**
 * The rawIdentifier of `graph`'s entity of dense id `d` (package-internal: engine/internal.ts), from
 * the graph's name cache when it holds it (a predicate, an entity of pages read lately), else made
 * from the entity table: a live graph's delta items name base entities too.
 */
export function rawIdentifierOf(graph: Graph, d: number): string {
  return readRawIdentifier(graph, d);
}

/**
 * A statements page's resume key: the last item's subject, predicate and object entityIds and
 * fingerprint, and a position hint ("" for none: the key is placed by a binary search).
 */
export type StatementsKey = readonly [string, string, string, string, string];

function statementsKeyOf(content: CursorContent): StatementsKey {
  return [content.part(0), content.part(1), content.part(2), content.part(3), content.part(4)];
}

/**
 * `graph`'s statements page after its checks (package-internal: engine/internal.ts; the live graph,
 * which checked the parameters, made the query's tag and resolved the filters itself): the page of
 * `limit` items after `after` (null: the first) for the filters' dense ids (undefined: not given;
 * -1: no such entity), its nextCursor sealed when `seal` (else UNSEALED_MORE when a next page
 * exists), with `total` when `count`. Reads and names as Graph.statements.
 */
export function statementsAfterKey(
  graph: Graph,
  tag: Hash64,
  after: StatementsKey | null,
  subject: number | undefined,
  predicate: number | undefined,
  object: number | undefined,
  limit: number,
  count: boolean,
  seal: boolean,
): Page<Statement> {
  return readStatementsAfter(graph, tag, after, subject, predicate, object, limit, count, seal);
}

/**
 * `graph.search` under order "name" from parameters its caller checked already (package-internal:
 * engine/internal.ts; the live graph, which checks, folds and tags the query and opens the cursor
 * for its own merge, spares the base doing it all again): `folded` the query folded with the
 * graph's fold, `type` a type number or -1 for none, `content` the cursor opened by the graph's own
 * codec (cursorCodecOf) for the query's `tag`, as search opens it; `lookAheads`, the ranks listed
 * past the page into lastSearchPage's keys (default one, whether a next page exists: a live graph
 * asks for a few more and makes up the page's tombstoned items from them).
 */
export function searchByNameChecked(
  graph: Graph,
  folded: string,
  type: number,
  limit: number,
  content: CursorContent | undefined,
  count: boolean,
  tag: Hash64,
  lookAheads = 1,
): Page<Entity> {
  return readSearchByName(graph, folded, type, limit, content, count, tag, lookAheads);
}

/**
 * `read` (a read of `graph`) with its page's nextCursor not sealed: UNSEALED_MORE when a next
 * page exists, else null (package-internal: engine/internal.ts; the live graph, which seals its own
 * cursor after merging, spares the base's HMAC).
 */
export function unsealedRead<T>(graph: Graph, read: () => T): T {
  return readUnsealed(graph, read);
}

/**
 * The codec that seals and opens `graph`'s cursors, with its cache of the cursors it issued
 * (package-internal: engine/internal.ts; a live graph seals its cursors with its base's codec, so
 * that a cursor either issues is opened by the other from the cache, without a second HMAC).
 */
export function cursorCodecOf(graph: Graph): CursorCodec {
  return readCursors(graph);
}

/**
 * `graph` (its structures shared) as the compaction of a change log up to batch `sequence`, whose
 * live graphs name their content from `origin` (package-internal: engine/internal.ts).
 */
export function graphAtSequence(graph: Graph, sequence: number, origin: ChangesOrigin): Graph {
  return replaceParts(graph, { sequence, changesOrigin: origin });
}

/** The order name a plan used (for tests and reports). */
export type { IndexOrder };

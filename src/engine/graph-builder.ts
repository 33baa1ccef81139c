/**
 * Graph builder
 * =============
 * Collects entities and statements (objects in the contract's input format), validates each as it
 * arrives, and builds the immutable Graph once. Every rejected item is a QuiverError whose message
 * starts with `file:line: ` when the caller says where the item came from; nothing half-built is
 * ever returned.
 *
 * Every check of CONTRACT.md's "Input format" is made when the item is added, so the first bad item
 * is the one reported, whatever its kind: a missing or mistyped field, a type outside "0".."7", a
 * string over its byte limit (limits.ts) or not well-formed Unicode (utf8.ts), a duplicate entityId
 * (a Map of the ids), a statement naming an unknown entity (entities come first), and two different
 * statements with one fingerprint. For that last one, a fingerprint of 16 lowercase hex digits (every
 * derived one) is looked up in a FingerprintTable (open addressing over typed arrays, 8 to 16 bytes a
 * statement while loading) and any other text in a Map: the same triple again is an exact duplicate,
 * kept once (k copies cost O(k)); a different triple is FINGERPRINT_CONFLICT naming this line and the
 * line that used the fingerprint first. The options (cursor secret, cache budget) are checked in the
 * constructor, before any item.
 *
 * Growing columns are mnemonist typed vectors, so a statement costs a few words while loading.
 * The statement columns hold insertion indexes until the entities are sorted (dense ids: the
 * dictionary), and dense ids from then on: the sort remaps the rows already added in place, and every
 * later row is added with dense ids (the loader seals the entities before the first statement, so
 * nothing is remapped there). build(): sort the entityIds (unless sealed), fold identifiers and build
 * the search index, and build the statement index on the columns themselves (its working space: no
 * copy); only the fingerprints the input gave are kept (derived ones are made again when a page is
 * written). Cost O(n log n) for the entities, linear passes for the statements.
 */

import { Uint32Vector, Uint8Vector } from "mnemonist";
import { checkCacheBytes, toSecretBytes } from "./cursor/cursor.js";
import { checkObject } from "./validate.js";
import { dataError, QuiverError, type QuiverErrorCode, type SourcePosition } from "./errors.js";
import { Dictionary } from "./entities/dictionary.js";
import { type EntityColumnsInput, EntityTable, indexArray } from "./entities/entity-table.js";
import { FingerprintColumn, type GivenFingerprint } from "./statements/fingerprint-column.js";
import { derivedFingerprintHalves, readHexFingerprint } from "./statements/fingerprint.js";
import { FingerprintTable } from "./statements/fingerprint-table.js";
import { type FoldMode, folder, isFoldMode } from "./search/fold.js";
import { ScoreIndex } from "./search/score-index.js";
import { BitVector } from "./succinct/bit-vector.js";
import { Scores, statementCounts } from "./search/scores.js";
import { hash64, hex64, type Hash64 } from "./hash64.js";
import { describeValue, quote } from "./quote.js";
import { Graph, type GraphOptions } from "./graph.js";
import {
  ENTITY_ID_MAX_BYTES,
  MAX_SCORE,
  RAW_IDENTIFIER_MAX_BYTES,
  SOURCE_TYPE_MAX_BYTES,
  STATEMENT_FINGERPRINT_MAX_BYTES,
} from "./limits.js";
import { SearchIndex } from "./search/search-index.js";
import type { TagHashing } from "./content-tag.js";
import type { OrderSorter } from "./statements/counting-sort.js";
import { StatementIndex, type StatementRows } from "./statements/statement-index.js";
import { ENTITY_TYPES, type EntityInput, type StatementInput } from "./types.js";
import { fitsUtf8Bytes, loneSurrogateAt, utf8ByteLength } from "./utf8.js";

export interface GraphBuilderOptions extends GraphOptions {
  /**
   * How search folds identifiers and queries (CONTRACT.md "Case and Unicode"): "case" (the default)
   * keeps accents, "accents" removes combining marks too ("durer" finds "Dürer"). Kept with the graph
   * (snapshots included): every query of the graph folds this way.
   */
  fold?: FoldMode | undefined;
}

export type BuildPhase = "sort-entities" | "search-index" | "statement-index" | "score-index" | "content-tag";

export interface BuildOptions {
  onProgress?: (phase: BuildPhase, done: number, total: number) => void;
}

/** What a search index is built from: raw identifiers and types by dense id, and the fold mode. */
export interface SealedEntities {
  rawIdentifiers: string[];
  types: Uint8Array;
  fold: FoldMode;
}

const NO_FILE = 0xffff;
/** The score column's mark of an entity whose input gave no score (scores are below 2^32). */
const NO_SCORE = -1;
/** Room for runs of source positions reserved up front (SourceColumn: they grow by doubling past it). */
const RUN_CAPACITY = 16;
/** Room reserved up front in the statement columns (they grow by half past it: mnemonist's policy). */
const INITIAL_CAPACITY = 1024;
/** What BuildParts' dense rows become once the statement index has consumed them. */
const EMPTY_ROWS = new Uint32Array(0);
/**
 * Rows whose fingerprint slots are read at once (FingerprintTable.touch) before they are added: enough
 * misses in flight to overlap, few enough that their cache lines (64 bytes each) stay in the L2 cache.
 */
const TOUCH_ROWS = 1024;

/** What a build has made before the statement and score indexes (GraphBuilder.buildStart). */
interface BuildParts {
  progress: BuildOptions["onProgress"];
  entityCount: number;
  entities: EntityTable;
  dictionary: Dictionary;
  searchIndex: SearchIndex;
  /** Dense ids by input row. */
  subject: Uint32Array;
  predicate: Uint32Array;
  object: Uint32Array;
  scores: Scores;
}

/** The entities in dense-id order and what is made of them. */
interface SortedEntities {
  /** Insertion index -> dense id. */
  denseOf: Uint32Array;
  /** Types by dense id (the search index is built from them and the raw identifiers). */
  types: Uint8Array;
  entities: EntityTable;
  dictionary: Dictionary;
}

/** Sorts a builder's entities early and returns what their search index is built from: see engine/internal.ts. */
let seal: (builder: GraphBuilder, onProgress: BuildOptions["onProgress"]) => SealedEntities;
/** Sizes a builder's statement columns for an expected count: see engine/internal.ts. */
let reserve: (builder: GraphBuilder, statements: number) => void;
/** Says that a builder's statements are all added (its fingerprint table goes): see engine/internal.ts. */
let endAdding: (builder: GraphBuilder) => void;
/** Builds with the score index made elsewhere from the scores: see engine/internal.ts. */
let buildWith: (
  builder: GraphBuilder,
  options: BuildOptions,
  makeScoreIndex: (scores: Scores) => Promise<ScoreIndex>,
  sorter: OrderSorter | undefined,
  betweenPhases: BetweenBuildPhases | undefined,
  tagHashing: (() => TagHashing) | undefined,
) => Promise<Graph>;

/**
 * Called by buildWithScoreIndex where the working arrays of what came before are dead: `next` is
 * "statement-index" once the dense rows are where the sort passes read them (the builder's own
 * arrays copied to shared memory and let go), "score-index" once the statement index is built (its
 * working arrays, several words a statement, let go). The loader collects its garbage there (and
 * ends its sort threads before the second), so that the next phase does not come on top of dead
 * arrays that a collection would have freed.
 */
export type BetweenBuildPhases = (
  next: "statement-index" | "statement-rows" | "statement-positions" | "score-index",
) => void;
/** Gives a builder the search index of its sealed entities: see engine/internal.ts. */
let useIndex: (builder: GraphBuilder, index: SearchIndex) => void;

/**
 * A graph's entities already checked, distinct and in entityId order (a live graph's compaction:
 * live-compaction.ts, through LiveGraph.feedCompaction), by dense id: what the builder would otherwise sort out of added
 * entities. `scores`: the score the content gives each entity, or -1 when none (counted).
 */
export interface DenseEntities extends EntityColumnsInput {
  /** Emptied by the feed (the builder's entity table holds them then). */
  entityIds: string[];
  /** Emptied by the feed (after its search index is built from them). */
  rawIdentifiers: string[];
  hashes: Uint32Array;
  scores: Float64Array;
}

/**
 * Room a dense feed makes for its statements: exactly `count` rows, at most `given` of them with a
 * given 64-bit fingerprint stored.
 */
export interface DenseStatementRoom {
  count: number;
  given: number;
  /**
   * Each entity's count of statements over the rows the feed will add (statementCounts' rule: an
   * entity is counted once a statement), by dense id: the scores are then known with the entities,
   * so the score index is built right after the search index, before any statement column exists.
   */
  counts: Uint32Array;
  /**
   * The statements will be added in SPO order (subject, predicate, object by dense id, then a run
   * of one triple by fingerprint text): the statement index then takes the rows as they are
   * (StatementIndex.buildFromSpo), with no SPO sort and its working arrays.
   */
  spoOrdered?: boolean | undefined;
}

/** Options of a dense feed (feedDenseEntities). */
export interface DenseFeedOptions {
  /**
   * Called between the feed's phases and the build's (after the search index, after the score
   * index, before and after the statement index), when the working arrays of the one before are
   * dead: a compaction's worker thread collects its garbage there, so that the next phase's arrays
   * do not come on top of dead ones a collection would have freed.
   */
  betweenPhases?: (() => void) | undefined;
  /**
   * The search index and the score index are built at `build()`, before the statement index, and
   * not by the feed: the statement columns then exist beside their working arrays (12 bytes a
   * statement), but whatever the statements were read from does not, when the caller lets it go
   * before `build()` (a compaction's worker: the old base, most of a graph, gone before the
   * indexes' peak). Unset: the indexes are built by the feed, before any statement column exists.
   */
  indexesAtBuild?: boolean | undefined;
}

/** Feeds a builder dense entities and room for its statements: see engine/internal.ts. */
let feedDense: (
  builder: GraphBuilder,
  entities: DenseEntities,
  statements: DenseStatementRoom,
  options: DenseFeedOptions,
) => Dictionary;
/** Adds a statement of a dense feed: see engine/internal.ts. */
let addDense: (builder: GraphBuilder, s: number, p: number, o: number, given: string | Hash64 | undefined) => void;

/**
 * What a parser thread tells of a statement's fingerprint (hi, lo: its 64-bit value in every case):
 * none was given (the value is the derived one the thread made from the entities' hashes,
 * GraphBuilder.columnEntityHashes), 16 hex digits were given that differ from the derived one, or
 * were given and equal it.
 */
export const REF_DERIVED = 0;
export const REF_GIVEN = 1;
export const REF_GIVEN_DERIVED = 2;
export type RefFingerprint = typeof REF_DERIVED | typeof REF_GIVEN | typeof REF_GIVEN_DERIVED;

/** Adds parsed JSON (anything) to a builder: for the package's own loader, see engine/internal.ts. */
let addValue: (builder: GraphBuilder, kind: "entity" | "statement", value: unknown, source: SourcePosition) => void;
/** Adds a statement line's field strings (the loader's fast path): see engine/internal.ts. */
type AddStatementStrings = (
  builder: GraphBuilder,
  subjectId: string,
  predicateId: string,
  objectId: string,
  given: string | undefined,
  source: SourcePosition,
) => void;
let addStrings: AddStatementStrings;
/**
 * Statements whose entities a parser thread looked up (column indexes) and whose fingerprints it read
 * or derived, as columns: row i is entities s[i], p[i], o[i], fingerprint (hi[i], lo[i]) of the kind
 * fingerprints[i] (a RefFingerprint), from line `lines[i]` after a base.
 */
export interface StatementRefRows {
  lines: Uint32Array;
  fingerprints: Uint8Array;
  s: Uint32Array;
  p: Uint32Array;
  o: Uint32Array;
  hi: Uint32Array;
  lo: Uint32Array;
}
/** Adds rows [from, to) of StatementRefRows: see engine/internal.ts. */
type AddStatementRefRows = (
  builder: GraphBuilder,
  rows: StatementRefRows,
  from: number,
  to: number,
  file: string,
  base: number,
) => void;
let addRefRows: AddStatementRefRows;

/**
 * Makes a {@link Graph}: add the entities, then the statements that name them, then call
 * {@link GraphBuilder.build} once. Every item is checked as it is added, so a bad one throws
 * {@link QuiverError} at once and names its `source` when given.
 */
export class GraphBuilder {
  private readonly options: GraphBuilderOptions;
  /** entityId -> insertion index, and the strings by insertion index: emptied once the entities are sorted. */
  private readonly entityIndex = new Map<string, number>();
  private entityIds: string[] = [];
  private rawIdentifiers: string[] = [];
  private entityTotal = 0;
  private readonly types = new Uint8Vector(INITIAL_CAPACITY);
  /** The score the input gave each entity, NO_SCORE when none (a double: 2^32 - 1 and the mark fit). */
  private readonly scores: number[] = [];
  private readonly foldMode: FoldMode;
  private readonly sourceTypeIndex = new Uint32Vector(INITIAL_CAPACITY);
  /** Each entity's entityId hash (hi, lo), made once here: derived fingerprints are built from them. */
  private readonly entityHashes = new Uint32Vector(2 * INITIAL_CAPACITY);
  private readonly entityHash: Hash64 = [0, 0];
  private readonly sourceTypes: string[] = [];
  private readonly sourceTypeIds = new Map<string, number>();
  private readonly entitySource = new SourceColumn();

  private readonly subject = new Uint32Vector(INITIAL_CAPACITY);
  private readonly predicate = new Uint32Vector(INITIAL_CAPACITY);
  private readonly object = new Uint32Vector(INITIAL_CAPACITY);
  private readonly fpHi = new Uint32Vector(INITIAL_CAPACITY);
  private readonly fpLo = new Uint32Vector(INITIAL_CAPACITY);
  /** 1 when the input gave the row's fingerprint, 0 when it was derived (only given ones are stored). */
  private readonly fpGiven = new Uint8Vector(INITIAL_CAPACITY);
  /** Rows whose fpGiven is 1. */
  private givenRows = 0;
  /**
   * The stored fingerprints once the statements are ended (endStatements), when at most half the
   * rows have one: which rows (a bit each, ranked) and their halves in row order. fpHi, fpLo and
   * fpGiven (9 bytes a statement) are let go then: the keys of the fingerprint table are needed no
   * more, and most inputs store none (no fingerprint given, or each given one the derived one).
   */
  private compactGiven: { rows: BitVector; hi: Uint32Array; lo: Uint32Array } | undefined;
  /** 64-bit fingerprint -> the row that used it first (rows with a text fingerprint are not in it). */
  private readonly fingerprintRows = new FingerprintTable(this.fpHi, this.fpLo);
  /**
   * A dense feed's given fingerprints, sparse (which rows have one, a bit a row, and their halves
   * in row order; the bits' rank is a given row's index in the halves): most statements of a graph
   * have none, and a dense feed needs no column of derived ones (no fingerprint table),
   * so fpHi/fpLo/fpGiven stay empty there (9 bytes a statement saved through the build's peak).
   */
  private denseGiven: { rows: BitVector; hi: Uint32Vector; lo: Uint32Vector } | undefined;
  /** Fingerprints that are not 16 lowercase hex digits: row -> text, and text -> row. */
  private readonly fpText = new Map<number, string>();
  private readonly fpTextRows = new Map<string, number>();
  /** A given 16-hex fingerprint's halves, read once per statement (reused: no array per line). */
  private readonly givenHalves: Hash64 = [0, 0];
  private readonly statementSource = new SourceColumn();
  /** True once endStatements was called: no statement may be added after (the fingerprint table is gone). */
  private statementsEnded = false;
  /** The entities in dense order, once sorted (sealEntities or build): no entity may be added after. */
  private sorted: SortedEntities | undefined;
  /** The entities whose given score is not their count, (dense id, score) ascending, once scoresOf counted them. */
  private scoreOverrides: [number, number][] | undefined;
  /** A search index made elsewhere for the sorted entities (useSearchIndex): build() does not make one. */
  private readyIndex: SearchIndex | undefined;
  /** A dense feed's scores and score index, made with its search index (feedDenseEntities). */
  private readyScores: { scores: Scores; scoreIndex: ScoreIndex } | undefined;
  /** A dense feed's DenseStatementRoom.spoOrdered. */
  private spoOrdered = false;
  /** A dense feed's DenseFeedOptions.betweenPhases. */
  private betweenPhases: (() => void) | undefined;
  /** A dense feed's indexes still to build (DenseFeedOptions.indexesAtBuild): what they are built from. */
  private denseIndexes: { types: Uint8Array; counts: Uint32Array; denseOf: Uint32Array } | undefined;
  private built = false;

  static {
    seal = (builder, onProgress) => builder.sealEntities(onProgress);
    reserve = (builder, statements) => builder.reserveStatements(statements);
    endAdding = (builder) => builder.endStatements();
    useIndex = (builder, index) => builder.useSearchIndex(index);
    feedDense = (builder, entities, statements, options) => builder.feedDenseEntities(entities, statements, options);
    addDense = (builder, s, p, o, given) => builder.addDenseStatement(s, p, o, given);
    buildWith = (builder, options, makeScoreIndex, sorter, betweenPhases, tagHashing) =>
      builder.buildWithScoreIndex(options, makeScoreIndex, sorter, betweenPhases, tagHashing);
    addValue = (builder, kind, value, source) =>
      kind === "entity" ? builder.addEntityValue(value, source) : builder.addStatementValue(value, source);
    addStrings = (builder, s, p, o, given, source) => builder.addStatementStrings(s, p, o, given, source);
    addRefRows = (builder, rows, from, to, file, base) => builder.addStatementRefRows(rows, from, to, file, base);
  }

  /**
   * The entityIds by the index the statement columns hold for them (insertion order before the
   * entities are sorted, dense-id order after): for the loader's parser threads.
   */
  get columnEntityIds(): readonly string[] {
    // Each branch: once sorted, the builder keeps no strings of its own; they are read from the entity table.
    const sorted = this.sorted;
    if (sorted === undefined) return this.entityIds;
    return Array.from({ length: sorted.entities.size }, (_, d) => sorted.entities.entityId(d));
  }

  /**
   * Each entity's entityId hash (hi, lo) by the index the statement columns hold for it, as
   * columnEntityIds lists them (a view of the builder's column, not a copy: read it before adding
   * anything): the loader's entity id table keeps them for the parser threads, which derive
   * fingerprints from them (REF_DERIVED), as the builder itself does.
   */
  get columnEntityHashes(): Uint32Array {
    return (this.entityHashes as unknown as { array: Uint32Array }).array.subarray(0, this.entityHashes.length);
  }

  /**
   * Throws QuiverError INVALID_PARAMETER for an empty cursor secret, a bad cache budget or an unknown
   * fold mode, before any item.
   */
  constructor(options: GraphBuilderOptions = {}) {
    checkObject(options, "the GraphBuilder options", true);
    toSecretBytes(options.cursorSecret);
    checkCacheBytes(options.cacheBytes);
    if (options.fold !== undefined && !isFoldMode(options.fold)) {
      throw new QuiverError(
        "INVALID_PARAMETER",
        `fold must be "case" or "accents"; got ${describeValue(options.fold)}.`,
        {
          parameter: "fold",
        },
      );
    }
    this.foldMode = options.fold ?? "case";
    this.options = options;
  }

  /** How this builder's graph folds identifiers and queries. */
  get fold(): FoldMode {
    return this.foldMode;
  }

  /** Entities added so far. */
  get entityCount(): number {
    return this.entityTotal;
  }

  /** Statements kept so far: an exact duplicate of one already added is not counted again. */
  get statementCount(): number {
    return this.subject.length;
  }

  /**
   * Adds one entity. The fields are checked at run time too (JavaScript callers, parsed JSON):
   * throws QuiverError INVALID_DATA or DUPLICATE_ENTITY, naming `source` when given.
   */
  addEntity(entity: EntityInput, source?: SourcePosition): void {
    this.addEntityValue(entity, source);
  }

  /**
   * Adds one statement; its entities must have been added. Checked at run time too: throws
   * QuiverError INVALID_DATA, UNKNOWN_ENTITY or FINGERPRINT_CONFLICT, naming `source` when given.
   * The same statement (triple and fingerprint) given again is kept once.
   */
  addStatement(statement: StatementInput, source?: SourcePosition): void {
    this.addStatementValue(statement, source);
  }

  private addEntityValue(entity: unknown, source: SourcePosition | undefined): void {
    this.checkOpen();
    if (this.sorted !== undefined) {
      throw new Error(
        "GraphBuilder: the entities were sealed (their search index is being built); add every entity first",
      );
    }
    const e = asObject(entity, source);
    const entityId = textField(e, "entityId", ENTITY_ID_MAX_BYTES, true, source);
    const rawIdentifier = textField(e, "rawIdentifier", RAW_IDENTIFIER_MAX_BYTES, false, source);
    const type = field(e, "type", false, source);
    const sourceType = textField(e, "sourceType", SOURCE_TYPE_MAX_BYTES, false, source);
    const t = (ENTITY_TYPES as readonly string[]).indexOf(type);
    if (t < 0) throw dataError("INVALID_DATA", `field "type" must be one of "0" to "7", got ${quote(type)}`, source);
    const score = scoreField(e, source);
    const previous = this.entityIndex.get(entityId);
    if (previous !== undefined) {
      throw dataError(
        "DUPLICATE_ENTITY",
        `entityId ${quote(entityId)} is already defined${this.entitySource.describe(previous, " at ")}`,
        source,
      );
    }
    let st = this.sourceTypeIds.get(sourceType);
    if (st === undefined) {
      st = this.sourceTypes.length;
      this.sourceTypes.push(sourceType);
      this.sourceTypeIds.set(sourceType, st);
    }
    this.entityIndex.set(entityId, this.entityIds.length);
    this.entityIds.push(entityId);
    this.entityTotal++;
    hash64([entityId], this.entityHash);
    this.entityHashes.push(this.entityHash[0]);
    this.entityHashes.push(this.entityHash[1]);
    this.rawIdentifiers.push(rawIdentifier);
    this.types.push(t);
    this.scores.push(score);
    this.sourceTypeIndex.push(st);
    this.entitySource.push(source);
  }

  private addStatementValue(statement: unknown, source: SourcePosition | undefined): void {
    this.checkOpen();
    const st = asObject(statement, source);
    const subjectId = field(st, "subjectEntityId", true, source);
    const predicateId = field(st, "predicateEntityId", true, source);
    const objectId = field(st, "objectEntityId", true, source);
    // The fingerprint's own checks come before the entity look-ups, so a line with both faults
    // reports the same one whatever the graph holds.
    const given =
      st["statementFingerprint"] === undefined
        ? undefined
        : textField(st, "statementFingerprint", STATEMENT_FINGERPRINT_MAX_BYTES, true, source);
    this.addStatementFields(subjectId, predicateId, objectId, given, source);
  }

  /**
   * A statement line's four fields as strings, unchecked (the loader's fast path for the common
   * line shape, load/statement-line.ts): the same checks, in the same order, as addStatementValue
   * makes once it has the strings, so either path gives the same result and the same first error.
   */
  private addStatementStrings(
    subjectId: string,
    predicateId: string,
    objectId: string,
    given: string | undefined,
    source: SourcePosition,
  ): void {
    this.checkOpen();
    checkNonEmpty(subjectId, "subjectEntityId", source);
    checkNonEmpty(predicateId, "predicateEntityId", source);
    checkNonEmpty(objectId, "objectEntityId", source);
    if (given !== undefined) {
      checkNonEmpty(given, "statementFingerprint", source);
      checkText(given, "statementFingerprint", STATEMENT_FINGERPRINT_MAX_BYTES, source);
    }
    this.addStatementFields(subjectId, predicateId, objectId, given, source);
  }

  /** The rest of adding a statement, once its fields are checked strings. */
  private addStatementFields(
    subjectId: string,
    predicateId: string,
    objectId: string,
    given: string | undefined,
    source: SourcePosition | undefined,
  ): void {
    const s = this.entityRef(subjectId, "subjectEntityId", source);
    const p = this.entityRef(predicateId, "predicateEntityId", source);
    const o = this.entityRef(objectId, "objectEntityId", source);
    this.addStatementResolved(s, p, o, given, source);
  }

  /**
   * Statements whose fields a parser thread checked and looked up (load/statement-threads.ts), rows
   * [from, to) of `rows`, line base + rows.lines[i] of `file`: their entities as column indexes
   * (columnEntityIds), and their fingerprints' 64-bit values, derived by the thread or given as 16
   * lowercase hex digits and compared there with the derived one (rows.fingerprints says which). Each
   * row gets what addStatementResolved does with a fingerprint's halves (the same table, the same
   * duplicate, conflict and storing rules), so the outcome is the same; a run of rows costs no object
   * a row (the position is made only for an error).
   */
  private addStatementRefRows(rows: StatementRefRows, from: number, to: number, file: string, base: number): void {
    this.checkOpen();
    this.checkStatementsOpen();
    const { fingerprints, s, p, o, hi, lo, lines } = rows;
    const table = this.fingerprintRows;
    for (let i = from; i < to; i++) {
      // Each block's first slots are read at once (their misses overlap) before its rows are added.
      if ((i - from) % TOUCH_ROWS === 0) table.touch(hi, lo, i, Math.min(to, i + TOUCH_ROWS));
      const row = this.subject.length;
      const first = table.findOrAdd(hi[i]!, lo[i]!, row);
      if (first >= 0) {
        // The table has not entered `row`: nothing was added for this line.
        if (this.sameTriple(first, s[i]!, p[i]!, o[i]!)) continue; // the same statement again: kept once
        const source = { file, line: base + lines[i]! };
        throw this.conflict(hex64(hi[i]!, lo[i]!), first, source, fingerprints[i] === REF_DERIVED);
      }
      // Stored only when given and not the derived one (as addStatementResolved decides).
      this.pushRow(s[i]!, p[i]!, o[i]!, hi[i]!, lo[i]!, fingerprints[i] === REF_GIVEN);
      this.statementSource.pushAt(file, base + lines[i]!);
    }
  }

  /**
   * Adds the statement of entities s, p, o with its given fingerprint text (or none).
   */
  private addStatementResolved(
    s: number,
    p: number,
    o: number,
    given: string | undefined,
    source: SourcePosition | undefined,
  ): void {
    this.checkStatementsOpen();
    const row = this.subject.length;
    let hi: number;
    let lo: number;
    // Stored only when the input gave a fingerprint other than the one derived from the triple: a
    // given one equal to it is written the same way on output, so it costs nothing to forget.
    let stored = false;
    const derived = given === undefined;
    if (derived) {
      // Derived: the 64-bit value straight from the entities' hashes, no hex string made.
      [hi, lo] = this.derive(s, p, o);
    } else if (readHexFingerprint(given, this.givenHalves)) {
      [hi, lo] = this.givenHalves;
      const [dhi, dlo] = this.derive(s, p, o);
      stored = hi !== dhi || lo !== dlo;
    } else {
      // Rare: any other fingerprint text is looked up in a Map; it can never equal a 16-hex one.
      const first = this.fpTextRows.get(given);
      if (first !== undefined) {
        if (this.sameTriple(first, s, p, o)) return; // the same statement again: kept once
        throw this.conflict(given, first, source);
      }
      this.fpText.set(row, given);
      this.fpTextRows.set(given, row);
      this.pushStatement(s, p, o, 0, 0, true, source);
      return;
    }
    const first = this.fingerprintRows.findOrAdd(hi, lo, row);
    if (first >= 0) {
      // The table has not entered `row`: nothing was added for this line.
      if (this.sameTriple(first, s, p, o)) return; // the same statement again: kept once
      throw this.conflict(given ?? hex64(hi, lo), first, source, derived);
    }
    this.pushStatement(s, p, o, hi, lo, stored, source);
  }

  /** The derived fingerprint of builder entities s, p, o (fingerprint.ts), from their hashes. */
  private derive(s: number, p: number, o: number): Hash64 {
    const h = this.entityHashes;
    return derivedFingerprintHalves(
      h.get(2 * s),
      h.get(2 * s + 1),
      h.get(2 * p),
      h.get(2 * p + 1),
      h.get(2 * o),
      h.get(2 * o + 1),
    );
  }

  private pushStatement(
    s: number,
    p: number,
    o: number,
    hi: number,
    lo: number,
    given: boolean,
    source?: SourcePosition,
  ): void {
    this.pushRow(s, p, o, hi, lo, given);
    this.statementSource.push(source);
  }

  /** A statement's row in the columns (its position is pushed by the caller). */
  private pushRow(s: number, p: number, o: number, hi: number, lo: number, given: boolean): void {
    this.subject.push(s);
    this.predicate.push(p);
    this.object.push(o);
    const sparse = this.denseGiven;
    // Each branch: a dense feed keeps the given fingerprints only, sparse; any other feed every row's.
    if (sparse !== undefined) {
      if (given) {
        sparse.rows.set(this.subject.length - 1);
        sparse.hi.push(hi);
        sparse.lo.push(lo);
      }
      return;
    }
    this.fpHi.push(hi);
    this.fpLo.push(lo);
    this.fpGiven.push(given ? 1 : 0);
    if (given) this.givenRows++;
  }

  /**
   * The index in denseGiven of `row`'s given fingerprint, or -1: the rank of its bit (O(1); the
   * rows' bit vector is sealed by statementInput before any look-up).
   */
  private denseGivenAt(row: number): number {
    const rows = (this.denseGiven as { rows: BitVector }).rows;
    return rows.get(row) === 1 ? rows.rank1(row) : -1;
  }

  /** Builds the graph. The builder cannot be used afterwards. */
  build(options: BuildOptions = {}): Graph {
    const parts = this.buildStart(options);
    this.betweenPhases?.();
    const statementIndex = this.buildStatementIndex(parts);
    this.betweenPhases?.();
    parts.progress?.("score-index", 0, 1);
    // Each branch: a dense feed made its score index with its search index; any other build makes it now.
    const scoreIndex = this.readyScores?.scoreIndex ?? ScoreIndex.build(parts.searchIndex, parts.scores);
    this.readyScores = undefined;
    parts.progress?.("score-index", 1, 1);
    return this.buildEnd(parts, statementIndex, scoreIndex);
  }

  /**
   * build(), the score index made by `makeScoreIndex` from the scores (in a worker thread: the
   * loader's, load/search-index-thread.ts) while this thread builds the statement index: the two
   * phases overlap on two cores. The statement index's sort passes are run by `sorter` when given
   * (on several threads), else here; the content tag's bytes hashed by `tagHashing`'s when given (on
   * another thread). The graph is the one build() makes.
   */
  private async buildWithScoreIndex(
    options: BuildOptions,
    makeScoreIndex: (scores: Scores) => Promise<ScoreIndex>,
    sorter: OrderSorter | undefined,
    betweenPhases: BetweenBuildPhases | undefined,
    tagHashing?: () => TagHashing,
  ): Promise<Graph> {
    const parts = this.buildStart(options);
    const pending = makeScoreIndex(parts.scores);
    // Awaited once the statement index is built: a failure before then is not an unhandled rejection.
    pending.catch(() => undefined);
    // Each branch: the passes on the sorter's threads, or all on this one.
    const statementIndex =
      sorter === undefined
        ? this.buildStatementIndex(parts, betweenPhases)
        : await this.buildStatementIndexSorted(parts, sorter, betweenPhases);
    betweenPhases?.("score-index");
    parts.progress?.("score-index", 0, 1);
    const scoreIndex = await pending;
    parts.progress?.("score-index", 1, 1);
    return this.buildEnd(parts, statementIndex, scoreIndex, tagHashing);
  }

  /** What every build does before the statement and score indexes: entities, search index, dense rows, scores. */
  private buildStart(options: BuildOptions): BuildParts {
    this.checkOpen();
    this.built = true;
    // Needed only while adding: freed before the build's own arrays are made.
    this.fingerprintRows.release();
    // A dense feed that left its indexes to the build (DenseFeedOptions.indexesAtBuild): made first.
    if (this.denseIndexes !== undefined) {
      // What the statements were fed from may be dead by now: it goes before the indexes' working arrays come.
      this.betweenPhases?.();
      const entities = (this.sorted as SortedEntities).entities;
      const folded = rawIdentifiersOf(entities);
      const fold = folder(this.foldMode);
      for (let d = 0; d < folded.length; d++) folded[d] = fold(folded[d]!);
      this.buildDenseIndexes({ folded, ...this.denseIndexes });
    }
    const progress = options.onProgress;
    const { denseOf, types, entities, dictionary } = this.sorted ?? this.sortEntities(progress);
    const n = denseOf.length;

    // A search index made beside the reading (useSearchIndex) is for these very entities; else made here.
    const searchIndex =
      this.readyIndex ??
      SearchIndex.build(rawIdentifiersOf(entities).map(folder(this.foldMode)), types, (done, total) =>
        progress?.("search-index", done, total),
      );
    this.readyIndex = undefined;

    // Duplicates and conflicts were settled at add time: every row is kept. The columns hold dense ids
    // (sortEntities) and are handed over as they are: the statement index works in them (the builder
    // is closed, nothing reads them again).
    const m = this.subject.length;
    const subject = columnRows(this.subject);
    const predicate = columnRows(this.predicate);
    const object = columnRows(this.object);
    // Each branch: a dense feed's scores were made with its search index; else counted here.
    const scores =
      this.readyScores?.scores ??
      this.scoresOf(
        statementCounts(
          n,
          m,
          (row) => subject[row]!,
          (row) => predicate[row]!,
          (row) => object[row]!,
        ),
        denseOf,
      );
    return { progress, entityCount: n, entities, dictionary, searchIndex, subject, predicate, object, scores };
  }

  /**
   * The scores: the given ones, else each entity's count of statements (`counts`, by dense id,
   * overwritten). `denseOf`: insertion index -> dense id.
   */
  private scoresOf(counts: Uint32Array, denseOf: Uint32Array): Scores {
    const givenAtCount: number[] = [];
    const overrides: [number, number][] = [];
    for (let i = 0; i < denseOf.length; i++) {
      const given = this.scores[i]!;
      if (given === NO_SCORE) continue;
      // A given score equal to the count is kept apart: it stays when the statements change (live
      // graph); one that differs is what the content tag lists (handed to the Graph in buildEnd).
      if (counts[denseOf[i]!] === given) givenAtCount.push(denseOf[i]!);
      else overrides.push([denseOf[i]!, given]);
      counts[denseOf[i]!] = given;
    }
    this.scoreOverrides = overrides.sort((a, b) => a[0] - b[0]);
    return Scores.from(counts, Uint32Array.from(givenAtCount.sort((a, b) => a - b)));
  }

  /** The statement index of the dense rows, with the fingerprints the input gave. */
  private buildStatementIndex(parts: BuildParts, betweenPhases?: BetweenBuildPhases): StatementIndex {
    betweenPhases?.("statement-index");
    const { input, fingerprintOf, onProgress } = this.statementInput(parts, betweenPhases);
    // Each branch: rows a dense feed added in SPO order are taken as they are; any others are sorted.
    const index = this.spoOrdered
      ? StatementIndex.buildFromSpo(input, parts.entityCount, fingerprintOf, onProgress)
      : StatementIndex.build(input, parts.entityCount, fingerprintOf, onProgress);
    this.releaseStatementRows(parts);
    return index;
  }

  /**
   * buildStatementIndex with the sort passes run by `sorter` (several threads: load/order-threads.ts).
   * A sorter that wants shared arrays gets the dense rows moved to SharedArrayBuffers first, one
   * column at a time, each column's own array let go as soon as it is copied (one column's worth of
   * memory more, for a moment, not three). The index is the one buildStatementIndex makes.
   */
  private async buildStatementIndexSorted(
    parts: BuildParts,
    sorter: OrderSorter,
    betweenPhases: BetweenBuildPhases | undefined,
  ): Promise<StatementIndex> {
    if (sorter.shared) {
      parts.subject = sharedCopy(this.subject);
      parts.predicate = sharedCopy(this.predicate);
      parts.object = sharedCopy(this.object);
    }
    betweenPhases?.("statement-index");
    const { input, fingerprintOf, onProgress } = this.statementInput(parts, betweenPhases);
    const index = await StatementIndex.buildSorted(input, parts.entityCount, fingerprintOf, sorter, onProgress);
    this.releaseStatementRows(parts);
    return index;
  }

  /** What the statement index is built from: the dense rows, what each row gave, and the fingerprint texts. */
  private statementInput(
    parts: BuildParts,
    betweenPhases: BetweenBuildPhases | undefined,
  ): {
    input: StatementRows;
    fingerprintOf: (row: number, s: number, p: number, o: number) => string;
    onProgress: (done: number, total: number) => void;
  } {
    const { subject, predicate, object, progress } = parts;
    // One object for every hex answer (GivenFingerprint: read before the next call), and the Map of
    // text fingerprints asked only when there are any: this runs twice for every statement.
    const halves = { hi: 0, lo: 0 };
    const anyText = this.fpText.size > 0;
    const sparse = this.denseGiven;
    const compact = this.compactGiven;
    const noneStored = compact !== undefined && compact.hi.length === 0;
    // No row comes after this: the given rows' counts are made for denseGivenAt's ranks.
    sparse?.rows.seal();
    const given = (row: number): GivenFingerprint => {
      const text = anyText ? this.fpText.get(row) : undefined;
      if (text !== undefined) return text;
      // Only what the input gave is stored: derived fingerprints are made again on output.
      // Each branch: the loader's compacted ones (endStatements), a dense feed's sparse given ones,
      // or every row's column.
      if (compact !== undefined) {
        // None stored (the usual case: no fingerprint given, or each given one the derived one):
        // no bit read, a random one a row otherwise.
        if (noneStored || compact.rows.get(row) !== 1) return undefined;
        const at = compact.rows.rank1(row);
        halves.hi = compact.hi[at]!;
        halves.lo = compact.lo[at]!;
        return halves;
      }
      if (sparse !== undefined) {
        const at = this.denseGivenAt(row);
        if (at < 0) return undefined;
        halves.hi = sparse.hi.get(at)!;
        halves.lo = sparse.lo.get(at)!;
        return halves;
      }
      if (this.fpGiven.get(row) !== 1) return undefined;
      halves.hi = this.fpHi.get(row);
      halves.lo = this.fpLo.get(row);
      return halves;
    };
    // A row's fingerprint text (asked for runs of one triple only). A dense feed's derived ones are
    // made again from the triple (its builder ids are the dense ids).
    const fingerprintOf = (row: number, s: number, p: number, o: number): string => {
      const text = this.fpText.get(row);
      if (text !== undefined) return text;
      // Each branch: the loader's compacted ones (a row without one: derived from its triple), or
      // every row's column, or a dense feed's sparse ones (below).
      if (compact !== undefined) {
        if (compact.rows.get(row) === 1) {
          const at = compact.rows.rank1(row);
          return hex64(compact.hi[at]!, compact.lo[at]!);
        }
        const [hi, lo] = this.derive(s, p, o);
        return hex64(hi, lo);
      }
      if (sparse === undefined) return hex64(this.fpHi.get(row), this.fpLo.get(row));
      const at = this.denseGivenAt(row);
      if (at >= 0) return hex64(sparse.hi.get(at)!, sparse.lo.get(at)!);
      const [hi, lo] = this.derive(s, p, o);
      return hex64(hi, lo);
    };
    // A dense feed in SPO order with no text fingerprint (its sparse rows then are the hex ones):
    // its sparse given fingerprints are the column, as they are. Each branch: that, or row by row.
    const spoFingerprints =
      sparse !== undefined && this.spoOrdered && !anyText
        ? () => FingerprintColumn.fromHexBits(subject.length, sparse.rows, columnRows(sparse.hi), columnRows(sparse.lo))
        : undefined;
    // Rows kept by row with no text fingerprint: the builder's own columns, as they are (no copy).
    // Each branch: those, or `given` row by row (a dense feed's sparse rows, or texts in the Map).
    const givenColumns =
      sparse === undefined && compact === undefined && !anyText
        ? () => ({
            given: byteColumnRows(this.fpGiven),
            hi: columnRows(this.fpHi),
            lo: columnRows(this.fpLo),
          })
        : undefined;
    return {
      input: {
        subject,
        predicate,
        object,
        given,
        releaseGiven: () => this.releaseFingerprints(),
        spoFingerprints,
        givenColumns,
        // The dense rows die as the statement index packs its rows and positions: the builder's
        // references go, and the garbage. Each branch: the loader's hook (its sort threads stop
        // after the last sort), or a dense feed's own (a compaction's worker), or none (V8 frees
        // them when it collects).
        releaseRows: (last) => {
          this.releaseStatementRows(parts);
          if (betweenPhases !== undefined) betweenPhases(last ? "statement-positions" : "statement-rows");
          else this.betweenPhases?.();
        },
      },
      fingerprintOf,
      onProgress: (done, total) => progress?.("statement-index", done, total),
    };
  }

  /**
   * The dense rows were the statement index's working space and the fingerprints are in it now:
   * their memory goes before the score index and the content tag, not with the builder.
   */
  private releaseStatementRows(parts: BuildParts): void {
    this.releaseFingerprints();
    parts.subject = parts.predicate = parts.object = EMPTY_ROWS;
    for (const column of [this.subject, this.predicate, this.object]) column.reallocate(0);
  }

  /**
   * The statement index has read every row's given fingerprint into its own column: the builder's
   * (8 to 12 bytes a statement) go before the index makes its last arrays, not after it.
   */
  private releaseFingerprints(): void {
    // The sparse columns' arrays themselves: the build's closures over them (given, fingerprintOf)
    // live as long as the statement index's build does.
    // (The rows' bit vector may be the column's now: it goes with the reference.)
    for (const column of [this.denseGiven?.hi, this.denseGiven?.lo]) column?.reallocate(0);
    this.denseGiven = undefined;
    this.compactGiven = undefined;
    this.fpText.clear();
    for (const column of [this.fpHi, this.fpLo, this.fpGiven]) column.reallocate(0);
  }

  /** The graph of the parts and both indexes. */
  private buildEnd(
    parts: BuildParts,
    statementIndex: StatementIndex,
    scoreIndex: ScoreIndex,
    tagHashing?: () => TagHashing,
  ): Graph {
    const { progress, entities, dictionary, searchIndex, scores } = parts;
    // The Graph computes its content tag (content-tag.ts) as it is made: one pass over everything.
    progress?.("content-tag", 0, 1);
    const { fold: _fold, ...graphOptions } = this.options;
    const graph = new Graph(
      {
        entities,
        dictionary,
        searchIndex,
        statementIndex,
        scores,
        scoreIndex,
        fold: this.foldMode,
      },
      graphOptions,
      { scoreOverrides: this.scoreOverrides, tagHashing },
    );
    progress?.("content-tag", 1, 1);
    return graph;
  }

  /**
   * Makes room for about `statements` statements in all, at once: the columns and the fingerprint
   * table are sized now instead of doubling as lines come (a doubling of the table reads every key
   * again, a cache miss each). An estimate: more or fewer statements than reserved are both fine.
   */
  /**
   * No statement comes after this: the fingerprint table (8 to 16 bytes a statement, needed only to
   * check each one as it is added) goes now rather than at build, so that it is not held while the
   * loader waits for the search index's thread, where a load's memory peaks.
   */
  private endStatements(): void {
    this.statementsEnded = true;
    this.fingerprintRows.release();
    this.compactFingerprints();
  }

  /**
   * The stored fingerprints into compactGiven, and fpHi, fpLo, fpGiven let go, when at most half
   * the rows store one (else the columns stay: the compact form would save little, and the
   * statement index reads the columns as they are). One pass over the rows; the compact arrays are
   * 8 bytes a stored fingerprint and a bit a row.
   */
  private compactFingerprints(): void {
    const m = this.subject.length;
    const count = this.givenRows;
    // Each branch: a dense feed keeps its own sparse ones, and a builder whose columns are mostly
    // stored fingerprints keeps them as they are.
    if (this.denseGiven !== undefined || 2 * count > m) return;
    const rows = new BitVector(m);
    const hi = new Uint32Array(count);
    const lo = new Uint32Array(count);
    const given = byteColumnRows(this.fpGiven);
    const fpHi = columnRows(this.fpHi);
    const fpLo = columnRows(this.fpLo);
    for (let row = 0, at = 0; row < m; row++) {
      if (given[row] !== 1) continue;
      rows.set(row);
      hi[at] = fpHi[row]!;
      lo[at] = fpLo[row]!;
      at++;
    }
    this.compactGiven = { rows: rows.seal(), hi, lo };
    for (const column of [this.fpHi, this.fpLo, this.fpGiven]) column.reallocate(0);
  }

  private checkStatementsOpen(): void {
    if (this.statementsEnded) throw new Error("GraphBuilder: the statements were ended; add every statement first");
  }

  private reserveStatements(statements: number): void {
    for (const column of [this.subject, this.predicate, this.object, this.fpHi, this.fpLo, this.fpGiven]) {
      if (column.capacity < statements) column.reallocate(statements);
    }
    this.fingerprintRows.reserve(statements);
  }

  /**
   * The dense feed (a compaction's: the content comes from a graph and its checked delta, already
   * in dense-id order): the entities as they are, no Map of ids, no sort; the statement columns sized
   * to exactly `statements.count` rows and the given fingerprints' to `statements.given` (no growth
   * by half, no copy while growing); no fingerprint table (the content has no duplicate and no
   * conflict, so there is nothing to look up). `input` is consumed: its lists of entityIds and raw
   * identifiers are emptied. The search index is built here, before those columns
   * exist: its build's working arrays (the suffix array and its companions, several words a code unit
   * of identifiers) and the statement columns (12 to 24 bytes a statement) are then never held at
   * once, which is a compaction's peak of memory otherwise. The scores (from `statements.counts`)
   * and the score index follow, for the same reason (the score index's working arrays are a few
   * words a code unit too). The statements follow with addDenseStatement (in SPO order when
   * `statements.spoOrdered`). Returns the entities' dictionary (entityId -> dense id) for statements
   * that name them by entityId.
   */
  private feedDenseEntities(
    input: DenseEntities,
    statements: DenseStatementRoom,
    options: DenseFeedOptions = {},
  ): Dictionary {
    this.checkOpen();
    if (this.entityTotal > 0 || this.subject.length > 0)
      throw new Error("GraphBuilder: a dense feed starts on an empty builder");
    const n = input.entityIds.length;
    const entities = EntityTable.from(input);
    const dictionary = new Dictionary(entities);
    const denseOf = new Uint32Array(n);
    for (let d = 0; d < n; d++) denseOf[d] = d;
    const types = Uint8Array.from(input.types);
    this.entityHashes.reallocate(2 * n);
    for (let k = 0; k < 2 * n; k++) this.entityHashes.push(input.hashes[k]!);
    for (let d = 0; d < n; d++) this.scores.push(input.scores[d]!);
    for (const t of input.sourceTypes) {
      this.sourceTypeIds.set(t, this.sourceTypes.length);
      this.sourceTypes.push(t);
    }
    this.entityTotal = n;
    this.sorted = { denseOf, types, entities, dictionary };
    // The entity table holds the strings now: the input's lists are emptied (the entityIds go, and
    // the raw identifiers are folded in place, or go too when the indexes wait for build(), which
    // reads them from the entity table then), so the search index is built beside one list of a
    // million strings, not three, and the statements are fed beside none.
    const folded = input.rawIdentifiers;
    input.entityIds.length = 0;
    this.betweenPhases = options.betweenPhases;
    this.spoOrdered = statements.spoOrdered === true;
    const pending = { types, counts: statements.counts, denseOf };
    // Each branch: the indexes at build() (indexesAtBuild), or now, before the statement columns exist.
    if (options.indexesAtBuild === true) {
      folded.length = 0;
      this.denseIndexes = pending;
    } else {
      const fold = folder(this.foldMode);
      for (let d = 0; d < n; d++) folded[d] = fold(folded[d]!);
      this.buildDenseIndexes({ folded, ...pending });
    }
    for (const column of [this.subject, this.predicate, this.object]) column.reallocate(statements.count);
    const given = statements.given;
    // Which rows have one: a bit a row (exactly `statements.count` rows), not a word a given one.
    this.denseGiven = {
      rows: new BitVector(statements.count),
      hi: new Uint32Vector(given),
      lo: new Uint32Vector(given),
    };
    return dictionary;
  }

  /**
   * A dense feed's search index and score index, from its folded names (emptied here), types and
   * counts of statements. The search index's steps (the sort of the names, the FM-index, the
   * counts, the document array) each leave working arrays dead: the phases' hook runs after each.
   * The folded names are read by the first step only: the list lets them go then (the FM-index's
   * text holds them). The scores are known (the counts): the score index is built right after,
   * from the values the search index was built from, so that its working arrays (a few words a
   * code unit of identifiers) never come on top of the statement index's.
   */
  private buildDenseIndexes(pending: {
    folded: string[];
    types: Uint8Array;
    counts: Uint32Array;
    denseOf: Uint32Array;
  }): void {
    this.denseIndexes = undefined;
    const between = this.betweenPhases;
    const { folded, types, counts, denseOf } = pending;
    const { index, documentValues } = SearchIndex.buildWithValues(folded, types, (done) => {
      if (done === 1) folded.length = 0;
      between?.();
    });
    this.readyIndex = index;
    between?.();
    const scores = this.scoresOf(counts, denseOf);
    // The given scores are in `scores` now: the builder's list of them (a double an entity) goes.
    this.scores.length = 0;
    const scoreIndex = ScoreIndex.fromRanks(ScoreIndex.ranksOf(index, documentValues), scores);
    this.readyScores = { scores, scoreIndex };
    between?.();
  }

  /**
   * A statement of dense ids s, p, o (the dense feed's), with the fingerprint its content gives:
   * text, the halves of 16 lowercase hex digits, or none (derived). Stored as addStatementResolved
   * stores it, without the duplicate and conflict look-up (the feed's content has neither).
   */
  private addDenseStatement(s: number, p: number, o: number, given: string | Hash64 | undefined): void {
    // Each branch: a text fingerprint other than 16 hex digits (kept as text), or a 64-bit one
    // (hex given or derived), stored only when it differs from the derived one.
    if (typeof given === "string" && !readHexFingerprint(given, this.givenHalves)) {
      this.fpText.set(this.subject.length, given);
      this.pushStatement(s, p, o, 0, 0, true);
      return;
    }
    const [dhi, dlo] = this.derive(s, p, o);
    if (given === undefined) {
      this.pushStatement(s, p, o, dhi, dlo, false);
      return;
    }
    const [hi, lo] = typeof given === "string" ? this.givenHalves : given;
    this.pushStatement(s, p, o, hi, lo, hi !== dhi || lo !== dlo);
  }

  /**
   * Sorts the entities into dense-id order now (the sort-entities phase), so that their search index
   * can be built while statements are still being added: what it is built from is returned. Adding
   * an entity afterwards is an error. For the package's loader (engine/internal.ts).
   */
  private sealEntities(onProgress: BuildOptions["onProgress"]): SealedEntities {
    this.checkOpen();
    const sorted = this.sorted ?? this.sortEntities(onProgress);
    return { rawIdentifiers: rawIdentifiersOf(sorted.entities), types: sorted.types, fold: this.foldMode };
  }

  /** Hands over the search index of the sealed entities (built from what sealEntities returned). */
  private useSearchIndex(index: SearchIndex): void {
    this.checkOpen();
    if (this.sorted === undefined || index.entityCount !== this.sorted.denseOf.length) {
      throw new Error("GraphBuilder: a search index must be built from the sealed entities");
    }
    this.readyIndex = index;
  }

  /**
   * Dense ids: entities in entityId order (JavaScript `<`, UTF-16 code units); kept in `sorted`. The
   * entity table holds every string from then on: the builder's own (the entityIds, their Map, the
   * raw identifiers: tens of bytes an entity of heap) are let go.
   */
  private sortEntities(progress: BuildOptions["onProgress"]): SortedEntities {
    const n = this.entityIds.length;
    progress?.("sort-entities", 0, 1);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const x = this.entityIds[a] as string;
      const y = this.entityIds[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const denseOf = new Uint32Array(n);
    for (let d = 0; d < n; d++) denseOf[order[d]!] = d;
    const entityIds = order.map((i) => this.entityIds[i]!);
    const rawList = order.map((i) => this.rawIdentifiers[i]!);
    const types = new Uint8Array(n);
    const sourceTypeIndex = indexArray(n, this.sourceTypes.length - 1);
    for (let d = 0; d < n; d++) {
      const i = order[d]!;
      types[d] = this.types.get(i);
      sourceTypeIndex[d] = this.sourceTypeIndex.get(i);
    }
    // The hashes made at addEntity, in dense order: the dictionary need not hash every entityId again.
    const sortedHashes = new Uint32Array(2 * n);
    for (let d = 0; d < n; d++) {
      sortedHashes[2 * d] = this.entityHashes.get(2 * order[d]!);
      sortedHashes[2 * d + 1] = this.entityHashes.get(2 * order[d]! + 1);
    }
    const entities = EntityTable.from({
      entityIds,
      rawIdentifiers: rawList,
      types,
      sourceTypeIndex,
      sourceTypes: this.sourceTypes,
      hashes: sortedHashes,
    });
    const dictionary = new Dictionary(entities);
    this.entityIndex.clear();
    this.entityIds = [];
    this.rawIdentifiers = [];
    // From now on the columns hold dense ids: the rows already added are remapped in place, and the
    // hashes are put in dense order for derive().
    for (const column of [this.subject, this.predicate, this.object]) {
      for (let row = 0; row < column.length; row++) column.set(row, denseOf[column.get(row)]!);
    }
    for (let k = 0; k < 2 * n; k++) this.entityHashes.set(k, sortedHashes[k]!);
    progress?.("sort-entities", 1, 1);
    this.sorted = { denseOf, types, entities, dictionary };
    return this.sorted;
  }

  private sameTriple(row: number, s: number, p: number, o: number): boolean {
    return this.subject.get(row) === s && this.predicate.get(row) === p && this.object.get(row) === o;
  }

  /** FINGERPRINT_CONFLICT at `source`, naming the row `other` that used the fingerprint first. */
  private conflict(fingerprint: string, other: number, source: SourcePosition | undefined, derived = false) {
    const which = derived ? "the statementFingerprint derived from this triple," : "statementFingerprint";
    return dataError(
      "FINGERPRINT_CONFLICT",
      `${which} ${quote(fingerprint)} is already used by a different statement${this.statementSource.describe(other, " at ")}`,
      source,
    );
  }

  private entityRef(entityId: string, name: string, source: SourcePosition | undefined): number {
    // Each branch: before the sort the Map answers; after it, the dictionary (the Map is emptied then).
    const sorted = this.sorted;
    const d = sorted === undefined ? -1 : sorted.dictionary.idOf(entityId);
    const i = sorted === undefined ? this.entityIndex.get(entityId) : d < 0 ? undefined : d;
    if (i === undefined) {
      // No entity can have an id that breaks the entityId rules: say what is wrong with it instead.
      checkText(entityId, name, ENTITY_ID_MAX_BYTES, source);
      throw dataError(
        "UNKNOWN_ENTITY",
        `${name} ${quote(entityId)} names no entity; load the entities before the statements that name them`,
        source,
      );
    }
    return i;
  }

  private checkOpen(): void {
    if (this.built) throw new Error("GraphBuilder: build() was already called; make a new builder");
  }
}

/**
 * Where each item came from (a file-table index and a line number), as runs: items added one after
 * the other from consecutive lines of one file (nearly every item of a JSON Lines file) share one run
 * of three numbers (first item, file, first line), so a file without blank lines, duplicates or
 * items from elsewhere costs one run, not 8 bytes an item. Worst case (every run one item long) 12
 * bytes an item. An item's position is a binary search over the runs: asked only for an error.
 */
class SourceColumn {
  private readonly files: string[] = [];
  private readonly fileIds = new Map<string, number>();
  /** Per run: its first item, its file (NO_FILE: no position) and its first item's line. */
  private readonly runItem = new Uint32Vector(RUN_CAPACITY);
  private readonly runFile = new Uint32Vector(RUN_CAPACITY);
  private readonly runLine = new Uint32Vector(RUN_CAPACITY);
  private items = 0;
  private lastFile = NO_FILE;
  /** The name of the last item's file, undefined when it had none. */
  private lastName: string | undefined;
  private lastLine = 0;

  push(source: SourcePosition | undefined): void {
    // Each branch: an item without a position, or with one.
    if (source === undefined) {
      this.lastName = undefined;
      this.pushFile(NO_FILE, 0);
    } else this.pushAt(source.file, source.line);
  }

  /** An item from `line` of `file`. */
  pushAt(file: string, line: number): void {
    // Each branch: the same file as the last item's needs no look-up (a file's items come in a row).
    if (file === this.lastName) {
      this.pushFile(this.lastFile, line);
      return;
    }
    let f = this.fileIds.get(file);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(file);
      this.fileIds.set(file, f);
    }
    this.lastName = file;
    this.pushFile(f, line);
  }

  /** An item of file f (NO_FILE: no position). */
  private pushFile(f: number, line: number): void {
    // Each branch: the item extends the last run (the same file, the next line; or no position after
    // none), or starts a run of its own.
    const continues = this.items > 0 && f === this.lastFile && (f === NO_FILE || line === this.lastLine + 1);
    if (!continues) {
      this.runItem.push(this.items);
      this.runFile.push(f);
      this.runLine.push(line);
    }
    this.lastFile = f;
    this.lastLine = line;
    this.items++;
  }

  position(i: number): SourcePosition | undefined {
    // The last run that starts at or before item i.
    let lo = 0;
    let hi = this.runItem.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (this.runItem.get(mid) <= i) lo = mid;
      else hi = mid;
    }
    const f = this.runFile.get(lo);
    return f === NO_FILE
      ? undefined
      : { file: this.files[f] as string, line: this.runLine.get(lo) + (i - this.runItem.get(lo)) };
  }

  describe(i: number, prefix: string): string {
    const p = this.position(i);
    return p === undefined ? "" : `${prefix}${p.file}:${p.line}`;
  }
}

function asObject(value: unknown, source: SourcePosition | undefined): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw dataError(
      "INVALID_DATA",
      `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
      source,
    );
  }
  return value as Record<string, unknown>;
}

/** A string field, present and (when `nonEmpty`) not empty. */
function field(
  obj: Record<string, unknown>,
  name: string,
  nonEmpty: boolean,
  source: SourcePosition | undefined,
): string {
  const v = obj[name];
  const code: QuiverErrorCode = "INVALID_DATA";
  if (v === undefined) throw dataError(code, `missing field "${name}"`, source);
  if (typeof v !== "string")
    throw dataError(code, `field "${name}" must be a string, got ${v === null ? "null" : typeof v}`, source);
  if (nonEmpty) checkNonEmpty(v, name, source);
  return v;
}

/** The optional "score" field: absent gives NO_SCORE; else a whole number 0..MAX_SCORE. */
function scoreField(obj: Record<string, unknown>, source: SourcePosition | undefined): number {
  const v = obj["score"];
  if (v === undefined) return NO_SCORE;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_SCORE) {
    throw dataError(
      "INVALID_DATA",
      `field "score" must be a whole number from 0 to ${MAX_SCORE}, got ${describeValue(v)}`,
      source,
    );
  }
  return v;
}

function checkNonEmpty(v: string, name: string, source: SourcePosition | undefined): void {
  if (v.length === 0) throw dataError("INVALID_DATA", `field "${name}" must not be empty`, source);
}

/** A string field that must also be well-formed Unicode of at most `maxBytes` bytes of UTF-8. */
function textField(
  obj: Record<string, unknown>,
  name: string,
  maxBytes: number,
  nonEmpty: boolean,
  source: SourcePosition | undefined,
): string {
  const v = field(obj, name, nonEmpty, source);
  checkText(v, name, maxBytes, source);
  return v;
}

function checkText(v: string, name: string, maxBytes: number, source: SourcePosition | undefined): void {
  const lone = loneSurrogateAt(v);
  if (lone >= 0) {
    const unit = v.charCodeAt(lone).toString(16).toUpperCase();
    throw dataError(
      "INVALID_DATA",
      `field "${name}" is not well-formed Unicode: a lone surrogate (U+${unit}) at code unit ${lone}`,
      source,
    );
  }
  if (!fitsUtf8Bytes(v, maxBytes)) {
    throw dataError(
      "INVALID_DATA",
      `field "${name}" is ${utf8ByteLength(v)} bytes long in UTF-8; the limit is ${maxBytes}`,
      source,
    );
  }
}

/**
 * A column's rows copied to a SharedArrayBuffer (for a sorter's threads), the column's own array let
 * go at once (reallocated to nothing).
 */
function sharedCopy(column: Uint32Vector): Uint32Array {
  const copy = new Uint32Array(new SharedArrayBuffer(4 * column.length));
  copy.set(columnRows(column));
  column.reallocate(0);
  return copy;
}

/**
 * A column's rows as one array, without a copy: the vector's own array (mnemonist's TypedVector keeps
 * it in `array`, which its typings leave out), cut to its length.
 */
function columnRows(column: Uint32Vector): Uint32Array {
  return (column as unknown as { array: Uint32Array }).array.subarray(0, column.length);
}

/** A byte column's rows as one array, without a copy (as columnRows). */
function byteColumnRows(column: Uint8Vector): Uint8Array {
  return (column as unknown as { array: Uint8Array }).array.subarray(0, column.length);
}

/** The raw identifiers of `entities` by dense id (what a search index is built from). */
function rawIdentifiersOf(entities: EntityTable): string[] {
  return Array.from({ length: entities.size }, (_, d) => entities.rawIdentifier(d));
}

/** Adds parsed JSON of unknown shape, checked like any item: for the package's own loader. */
export function addParsedItem(
  builder: GraphBuilder,
  kind: "entity" | "statement",
  value: unknown,
  source: SourcePosition,
): void {
  addValue(builder, kind, value, source);
}

/**
 * Adds a statement whose fields the loader read as strings from a line of the common shape, checked
 * like any statement: for the package's own loader.
 */
export const addStatementStrings: AddStatementStrings = (builder, subjectId, predicateId, objectId, given, source) =>
  addStrings(builder, subjectId, predicateId, objectId, given, source);

/**
 * Adds rows [from, to) of statements whose entities a parser thread looked up (column indexes, as
 * GraphBuilder.columnEntityIds lists them: dense ids once the entities are sealed) and whose
 * fingerprints' values it read or derived (RefFingerprint), from lines base + rows.lines[i] of
 * `file`, each checked for duplicates and conflicts like any statement: for the package's loader.
 */
export const addStatementRefRows: AddStatementRefRows = (builder, rows, from, to, file, base) =>
  addRefRows(builder, rows, from, to, file, base);

/**
 * Sorts the entities of `builder` into dense-id order now and returns the raw identifiers and types
 * (by dense id) that their search index is built from: the loader builds it in a worker thread while
 * the statements are read (load/search-index-thread.ts). No entity may be added afterwards.
 */
export function sealEntities(builder: GraphBuilder, onProgress?: BuildOptions["onProgress"]): SealedEntities {
  return seal(builder, onProgress);
}

/**
 * Builds `builder`'s graph as build() does, the score index made by `makeScoreIndex` from the scores
 * while the statement index is built here (the loader makes it in the search index's worker thread),
 * its sort passes run by `sorter` when given (the loader's sort threads, load/order-threads.ts), the
 * content tag's bytes hashed by `tagHashing`'s when given (the loader's hashing thread,
 * load/tag-hash-thread.ts).
 */
export function buildWithScoreIndex(
  builder: GraphBuilder,
  options: BuildOptions,
  makeScoreIndex: (scores: Scores) => Promise<ScoreIndex>,
  sorter?: OrderSorter,
  betweenPhases?: BetweenBuildPhases,
  tagHashing?: () => TagHashing,
): Promise<Graph> {
  return buildWith(builder, options, makeScoreIndex, sorter, betweenPhases, tagHashing);
}

/** Gives `builder` the search index built from what sealEntities returned; build() then uses it. */
export function useSearchIndex(builder: GraphBuilder, index: SearchIndex): void {
  useIndex(builder, index);
}

/**
 * Sizes the statement columns and the fingerprint table of `builder` for about `statements`
 * statements in all (an estimate from the input's size): fewer doublings while loading.
 */
export function reserveStatements(builder: GraphBuilder, statements: number): void {
  reserve(builder, statements);
}

/** Ends the statements of `builder` (none may be added after): its fingerprint table goes before build. */
export function endStatements(builder: GraphBuilder): void {
  endAdding(builder);
}

/**
 * Starts a dense feed of `builder` (empty): its entities as given (checked, distinct, in entityId
 * order), their search index, and room for exactly `statements.count` statements (at most
 * `statements.given` of them with a stored fingerprint), added next with addDenseStatement; returns
 * the entities' dictionary. For a live graph's compaction (live-compaction.ts, through LiveGraph.feedCompaction), whose
 * content is checked already: no id Map, no sort, no fingerprint table.
 */
export function feedDenseEntities(
  builder: GraphBuilder,
  entities: DenseEntities,
  statements: DenseStatementRoom,
  options: DenseFeedOptions = {},
): Dictionary {
  return feedDense(builder, entities, statements, options);
}

/** Adds a statement of dense ids to a dense feed (feedDenseEntities), with its given fingerprint or none. */
export function addDenseStatement(
  builder: GraphBuilder,
  s: number,
  p: number,
  o: number,
  given: string | Hash64 | undefined,
): void {
  addDense(builder, s, p, o, given);
}

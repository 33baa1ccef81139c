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

import { createHash } from "node:crypto";
import {
  checkCacheBytes,
  CursorCodec,
  ENDPOINT_SEARCH,
  ENDPOINT_STATEMENTS,
  queryTag,
  toSecretBytes,
} from "./cursor.js";
import type { Dictionary } from "./dictionary.js";
import type { EntityColumns } from "./entity-columns.js";
import { deriveFingerprint } from "./fingerprint.js";
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
  type EntityType,
  type Page,
  type SearchParams,
  type Statement,
  type StatementInput,
  type StatementsParams,
} from "./types.js";
import { checkLimit, checkOptionalText, checkQuery, checkType } from "./validate.js";

/**
 * Everything a graph is made of: what GraphBuilder produces and a snapshot stores, each structure
 * with its own serial form (engine/serial.ts).
 */
export interface GraphParts {
  /** entityIds ascending; index = dense id. */
  dictionary: Dictionary;
  /** rawIdentifier, type and sourceType per dense id. */
  entities: EntityColumns;
  searchIndex: SearchIndex;
  statementIndex: StatementIndex;
  /** The content tag when it is already known (a snapshot stores it), so stats() need not hash again. */
  contentTag?: string | undefined;
}

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
  /** UTF-16 code units of all raw identifiers (what "bytes per code unit" figures divide by). */
  identifierCodeUnits: number;
  /** Bytes held per structure (typed arrays' byteLength, plus string bytes where strings are kept). */
  bytes: Record<string, number>;
  /** The entities that head the most statements as subject, predicate and object, most first. */
  heaviest: { subjects: EntityCount[]; predicates: EntityCount[]; objects: EntityCount[] };
  /** A digest of the graph's content: two graphs with equal content have equal tags. */
  contentTag: string;
}

export interface EntityCount {
  entityId: string;
  statements: number;
}

/** Bytes hashed per update call while computing the content tag. */
const CONTENT_TAG_BUFFER_BYTES = 64 * 1024;
/** The UTF-16 code units of "0123456789abcdef". */
const HEX_DIGIT_CODES = Uint16Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

/** How many entities `stats().heaviest` lists per role. */
export const HEAVIEST_LISTED = 10;

/** Reads a graph's parts: for the package's own layers only (engine/internal.ts), never re-exported. */
let readParts: (graph: Graph) => GraphParts;

export class Graph {
  readonly #parts: GraphParts;
  readonly #options: GraphOptions;
  private readonly dictionary: Dictionary;
  private readonly cursors: CursorCodec;
  private readonly searchIndex: SearchIndex;
  private readonly statementIndex: StatementIndex;
  private readonly fingerprints: FingerprintColumn;
  #stats: GraphStats | undefined;

  static {
    readParts = (graph) => graph.#parts;
  }

  /** @internal Graphs come from GraphBuilder.build(), loadGraph() or openSnapshot(). */
  constructor(parts: GraphParts, options: GraphOptions = {}) {
    this.#parts = parts;
    this.#options = options;
    this.dictionary = parts.dictionary;
    checkCacheBytes(options.cacheBytes);
    // The cursor cache is the only cache a graph keeps between queries: it gets the whole budget.
    this.cursors = new CursorCodec(toSecretBytes(options.cursorSecret), options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.searchIndex = parts.searchIndex;
    this.statementIndex = parts.statementIndex;
    this.fingerprints = parts.statementIndex.fingerprints;
  }

  get entityCount(): number {
    return this.dictionary.size;
  }

  get statementCount(): number {
    return this.statementIndex.length;
  }

  /** The same graph, sealing and opening cursors with another secret. */
  withCursorSecret(secret: string | Uint8Array): Graph {
    return this.withOptions({ cursorSecret: secret });
  }

  /** The same graph (sharing its structures) with some options replaced; its caches start empty. */
  withOptions(options: GraphOptions): Graph {
    return new Graph(this.#parts, { ...this.#options, ...options });
  }

  /** Every entity, in entityId order (JavaScript `<`): the input of `quiver dump`. */
  *exportEntities(): IterableIterator<Entity> {
    for (let id = 0; id < this.entityCount; id++) yield this.entityAt(id);
  }

  /**
   * Every statement in SPO order, as input lines: `statementFingerprint` is there only when it is
   * not the one Quiver would derive, so loading the export gives back the same graph.
   */
  *exportStatements(): IterableIterator<StatementInput> {
    for (let row = 0; row < this.statementCount; row++) {
      const st = this.statementAt(row);
      const input: StatementInput = {
        subjectEntityId: st.subjectEntityId,
        predicateEntityId: st.predicateEntityId,
        objectEntityId: st.objectEntityId,
      };
      if (
        st.statementFingerprint !==
        deriveFingerprint(input.subjectEntityId, input.predicateEntityId, input.objectEntityId)
      ) {
        input.statementFingerprint = st.statementFingerprint;
      }
      yield input;
    }
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
      // The cursor carries the raw identifier (shorter than its fold when NFKC expands it): fold it again.
      after = { tier: extra, folded: fold(parts[0] as string), entityId: parts[1] as string };
    }
    // One look-ahead item tells whether a next page exists, so nextCursor is null exactly at the end.
    const hits = this.searchIndex.find(fold(q), type, after, limit + 1);
    const n = Math.min(limit, hits.ranks.length);
    const items: Entity[] = new Array(n);
    for (let i = 0; i < n; i++) items[i] = this.entityAt(this.searchIndex.idAt(hits.ranks[i] as number));
    let nextCursor: string | null = null;
    if (hits.ranks.length > limit) {
      const last = items[n - 1] as Entity;
      nextCursor = this.cursors.encode(ENDPOINT_SEARCH, tag, hits.tiers[n - 1] as number, [
        last.rawIdentifier,
        last.entityId,
      ]);
    }
    return { items, nextCursor };
  }

  /** Statements matching every given filter, in the order of the index that serves the filters. */
  statements(params: StatementsParams = {}): Page<Statement> {
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

  /** Counts, the heaviest groups and bytes per structure; computed once per graph. */
  stats(): GraphStats {
    this.#stats ??= this.computeStats();
    return this.#stats;
  }

  private computeStats(): GraphStats {
    const entities = this.#parts.entities;
    let identifierCodeUnits = 0;
    let stringBytes = 0;
    for (const r of entities.rawIdentifiers) identifierCodeUnits += r.length;
    for (const id of this.dictionary.ids) stringBytes += 2 * id.length;
    const entitiesByType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, 0])) as Record<EntityType, number>;
    for (const t of entities.types) entitiesByType[ENTITY_TYPES[t]!]++;
    const st = this.statementIndex;
    return {
      entities: this.entityCount,
      statements: this.statementCount,
      entitiesByType,
      identifierCodeUnits,
      bytes: {
        strings: stringBytes + 2 * identifierCodeUnits,
        entityColumns: entities.byteLength,
        search: this.searchIndex.byteLength,
        statements: st.byteLength,
        fingerprints: this.fingerprints.byteLength,
      },
      heaviest: {
        subjects: this.heaviestOf(st.subject),
        predicates: this.heaviestOf(st.predicate),
        objects: this.heaviestOf(st.object),
      },
      contentTag: this.#parts.contentTag ?? this.contentTag(),
    };
  }

  /** The HEAVIEST_LISTED entities that occur most often in a statement column, most first. */
  private heaviestOf(column: Uint32Array): EntityCount[] {
    const counts = new Uint32Array(this.entityCount);
    for (let i = 0; i < column.length; i++) counts[column[i]!]!++;
    const top: number[] = [];
    for (let id = 0; id < counts.length; id++) {
      if (counts[id] === 0) continue;
      // Keep `top` sorted by count, most first (ties: smaller id first), at most HEAVIEST_LISTED long.
      let at = top.length;
      while (at > 0 && counts[top[at - 1]!]! < counts[id]!) at--;
      if (at < HEAVIEST_LISTED) {
        top.splice(at, 0, id);
        if (top.length > HEAVIEST_LISTED) top.pop();
      }
    }
    return top.map((id) => ({ entityId: this.dictionary.ids[id]!, statements: counts[id]! }));
  }

  /**
   * SHA-256 over the content in a canonical order: entities by entityId, statements in SPO order;
   * each string as its length (u32) and its UTF-16LE code units. The small pieces are written into
   * one buffer, hashed when full (one update call per CONTENT_TAG_BUFFER_BYTES instead of two per
   * string), and hex fingerprints as their 16 digits straight from the two words, with no string
   * made: at 200k entities / 2M statements 2.3 s -> 0.3 s (a snapshot stores the tag, so `npm run
   * bench:snapshot -- --entities 200000 --statements 2000000`'s save pays it). The digest is the same.
   */
  private contentTag(): string {
    const entities = this.#parts.entities;
    const hash = createHash("sha256");
    const bytes = new Uint8Array(CONTENT_TAG_BUFFER_BYTES);
    // Code units at even offsets (every piece is a whole number of them), in the host's (little-endian) order.
    const units = new Uint16Array(bytes.buffer);
    let at = 0;
    const flush = () => {
      hash.update(bytes.subarray(0, 2 * at));
      at = 0;
    };
    const word = (n: number) => {
      if (at + 2 > units.length) flush();
      units[at++] = n & 0xffff;
      units[at++] = n >>> 16;
    };
    const text = (s: string) => {
      word(s.length);
      if (at + s.length > units.length) flush();
      // A string longer than the buffer is hashed on its own.
      if (s.length > units.length) hash.update(s, "utf16le");
      else for (let k = 0; k < s.length; k++) units[at++] = s.charCodeAt(k);
    };
    word(this.entityCount);
    for (let id = 0; id < this.entityCount; id++) {
      text(this.dictionary.ids[id]!);
      text(entities.rawIdentifiers[id]!);
      text(entities.sourceTypeOf(id));
      word(entities.types[id]!);
    }
    const st = this.statementIndex;
    word(st.length);
    flush();
    hash.update(st.subject).update(st.predicate).update(st.object);
    const { hi, lo, text: fingerprintText } = this.fingerprints;
    for (let row = 0; row < st.length; row++) {
      const given = fingerprintText.size === 0 ? undefined : fingerprintText.get(row);
      // Each branch: a text fingerprint as it is; a hex one as FingerprintColumn.get spells it.
      if (given !== undefined) text(given);
      else {
        word(16);
        if (at + 16 > units.length) flush();
        for (const w of [hi[row]!, lo[row]!]) {
          for (let shift = 28; shift >= 0; shift -= 4) units[at++] = HEX_DIGIT_CODES[(w >>> shift) & 15]!;
        }
      }
    }
    flush();
    return hash.digest("hex");
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
    const entities = this.#parts.entities;
    return {
      entityId: this.dictionary.ids[id] as string,
      rawIdentifier: entities.rawIdentifiers[id] as string,
      type: ENTITY_TYPES[entities.types[id] as number] as Entity["type"],
      sourceType: entities.sourceTypeOf(id),
    };
  }

  private statementAt(row: number): Statement {
    const entityIds = this.dictionary.ids;
    const rawIdentifiers = this.#parts.entities.rawIdentifiers;
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

/** A graph's parts, for the package's own layers (snapshot files); see engine/internal.ts. */
export function graphParts(graph: Graph): GraphParts {
  return readParts(graph);
}

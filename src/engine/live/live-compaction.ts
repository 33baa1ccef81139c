/**
 * Live compaction feed and warmth
 * ===============================
 * What folds a live graph's content (base + delta, the state of live-state.ts) into a new base
 * (LiveGraph.feedCompaction and buildCompacted delegate here; LiveGraph.swapBase swaps the result
 * in), and what a base's warmth is (BaseWarmth, warmthOf: the O(base statements) structures a new
 * base needs, built beside it where it was built so the thread that swaps it in does not).
 *
 * Algorithm: a GraphBuilder fed densely (GraphBuilder's feedDenseEntities) with the content now:
 * the base's entities in dense order less the hidden ones, merged with the delta's (sorted by
 * entityId); the base's statement rows less the tombstoned ones, ids renumbered, merged with the
 * delta's sorted in SPO order; each entity's count of statements counted before the feed (the
 * scores and score index are made with the search index). See feedCompaction's comment.
 *
 * Cost: O(statements) plus O(d log d) for d delta statements, a few words a statement beside the
 * builder's columns, no string per base statement. warmthOf: O(statements).
 *
 * References: CONTRACT.md "Changes (live updates)" (compaction); docs/changes.md; graph-builder.ts
 * (DenseFeedOptions); src/changes/live-store.ts (the worker-thread compaction).
 */

import { addDenseStatement, feedDenseEntities, GraphBuilder } from "../graph-builder.js";
import { indexArray } from "../entities/entity-table.js";
import { type Graph, graphAtSequence, graphParts } from "../graph.js";
import { statementCounts } from "../search/scores.js";
import { hash64, hex64 } from "../hash64.js";
import { derivedFingerprintHalves } from "../statements/fingerprint.js";
import { ENTITY_TYPES } from "../types.js";
import { BaseFingerprints, type BaseFingerprintsState } from "./base-fingerprints.js";
import { denseBits, hasBit, markBit } from "./dense-bits.js";
import type { DeltaEntity, DeltaStatement } from "./sorted-delta.js";
import { scoreRanksOf } from "./score-search.js";

import type { LiveState } from "./live-state.js";

/** A compaction feed's mark of an entity with no given score (GraphBuilder's DenseEntities: counted). */
const NO_GIVEN_SCORE = -1;

/**
 * What `warm()` builds over a base, O(base statements) each, made beside the base where it was built
 * (a compaction's worker thread: `warmthOf`) and handed over with it, so that the thread that swaps
 * the base in (swapBase) does not build them on its first write or read: the fingerprint map
 * (base-fingerprints.ts), each base entity's count of statements, and each base entity's score
 * rank (score-search.ts's scoreRanksOf, for order=score cursors).
 */
export interface BaseWarmth {
  /** @internal */
  fingerprints: BaseFingerprintsState;
  /** @internal */
  counts: Uint32Array;
  /** @internal */
  scoreRanks: Uint32Array;
}

/** The warmth of `graph` (see BaseWarmth): O(statements), for the thread that built it. */
export function warmthOf(graph: Graph): BaseWarmth {
  const parts = graphParts(graph);
  const st = parts.statementIndex;
  return {
    fingerprints: new BaseFingerprints(parts).state(),
    counts: statementCounts(
      graph.entityCount,
      st.length,
      (row) => st.subjectOf(row),
      (row) => st.predicateOf(row),
      (row) => st.objectOf(row),
    ),
    scoreRanks: scoreRanksOf(parts),
  };
}

/** What builds a fed GraphBuilder as a graph at `sequence` (a closure over these only, not a live graph). */
function builtAtSequence(
  builder: GraphBuilder,
  sequence: number,
  origin: { contentTag: string; sequence: number },
): { build(): Graph } {
  return { build: () => graphAtSequence(builder.build(), sequence, origin) };
}

/** A live graph's compaction feed (see the banner), over its state. */
export class LiveCompaction {
  readonly #s: LiveState;

  constructor(s: LiveState) {
    this.#s = s;
  }

  /**
   * buildCompacted in two steps: a GraphBuilder fed with the content now, and what builds it. The
   * step returned holds no reference to this live graph: a caller that drops the live graph (and
   * its base) before `build()` lets them go before the builder's peak (a compaction's worker
   * thread: live-store.ts compactedGraph).
   *
   * The feed is dense (GraphBuilder's feedDenseEntities): the content is checked and ordered
   * already, so no string passes through an id Map and no fingerprint through a table. The
   * entities: the base's in dense order less the hidden ones, merged with the delta's (sorted by
   * entityId: few), O(entities) with the base's hashes reused; each base entity's new dense id is
   * noted (`newOf`). The statements: the base's rows less the tombstoned ones (found through the
   * base's fingerprint map), ids renumbered through `newOf`, fingerprints read as halves from the
   * base's column; the delta's (their ids through `newOf`, or by entityId for added entities),
   * sorted in SPO order and merged in, so that the builder's rows are in SPO order and its statement
   * index sorts nothing there (StatementIndex.buildFromSpo: two working arrays of M words fewer).
   * O(statements) plus O(d log d) for d delta statements, a few words a statement beside the
   * builder's columns, no string per base statement.
   *
   * Each entity's count of statements is counted before the feed (one pass over the base's rows,
   * through `newOf`, and the delta's), so that the builder makes the scores and the score index
   * with the search index, before the statement columns exist (DenseStatementRoom.counts).
   *
   * `options.last`: this live graph is dropped right after (a compaction's worker thread): its
   * base's fingerprint map (8 to 16 bytes a base statement) is let go before the builder's columns
   * are made, so the two are never held at once (a later write would build it again), and, unless
   * `options.baseShared` (the base's memory is another thread's too: a snapshot opened shared,
   * whose memory stays when this thread lets it go), the search index and the score index are
   * built by `build()` (DenseFeedOptions.indexesAtBuild), once the base is gone, not beside it.
   * `options.betweenPhases`: called where the working arrays of a phase of the feed or the build
   * are dead (DenseFeedOptions.betweenPhases; a worker thread collects its garbage there).
   */
  feedCompaction(
    options: { last?: boolean; betweenPhases?: (() => void) | undefined; baseShared?: boolean | undefined } = {},
  ): { build(): Graph } {
    const builder = new GraphBuilder({ cursorSecret: this.#s.secret, fold: this.#s.parts.fold });
    const base = this.#s.parts;
    const table = base.entities;
    const baseN = table.size;
    const hiddenBits = this.#s.hiddenBits;
    const counts = this.#s.baseCounts();
    const delta = [...this.#s.entities.values()].sort((x, y) =>
      x.entityId < y.entityId ? -1 : x.entityId > y.entityId ? 1 : 0,
    );
    const n = baseN - this.#s.hiddenEntities.size + delta.length;
    const entityIds = new Array<string>(n);
    const rawIdentifiers = new Array<string>(n);
    const types = new Uint8Array(n);
    const sourceTypeOf = new Uint32Array(n);
    const sourceTypes: string[] = [];
    const sourceTypeIds = new Map<string, number>();
    const hashes = new Uint32Array(2 * n);
    const scores = new Float64Array(n);
    /** Base dense id -> new dense id (-1: deleted). */
    const newOf = new Int32Array(baseN).fill(-1);
    /** entityId -> new dense id of the delta's entities not in the base. */
    const newOfAdded = new Map<string, number>();
    const hash: [number, number] = [0, 0];
    let k = 0;
    // sourceTypes are numbered by first use in entityId order, as the builder numbers added ones.
    const sourceTypeIndex = (t: string): number => {
      let i = sourceTypeIds.get(t);
      if (i === undefined) {
        i = sourceTypes.length;
        sourceTypes.push(t);
        sourceTypeIds.set(t, i);
      }
      return i;
    };
    const emitDelta = (e: DeltaEntity): void => {
      entityIds[k] = e.entityId;
      rawIdentifiers[k] = e.rawIdentifier;
      types[k] = (ENTITY_TYPES as readonly string[]).indexOf(e.type);
      sourceTypeOf[k] = sourceTypeIndex(e.sourceType);
      hash64([e.entityId], hash);
      hashes[2 * k] = hash[0];
      hashes[2 * k + 1] = hash[1];
      // A delta entity's score is given or none (counted).
      scores[k] = e.score ?? NO_GIVEN_SCORE;
      // Each branch: a replaced base entity keeps its row in newOf; an added one is found by entityId.
      if (e.baseId >= 0) newOf[e.baseId] = k;
      else newOfAdded.set(e.entityId, k);
      k++;
    };
    let i = 0;
    for (let d = 0; d < baseN; d++) {
      const id = table.entityId(d);
      while (i < delta.length && delta[i]!.entityId < id) emitDelta(delta[i++]!);
      // A base entity replaced or deleted: its delta version (if any) comes from the delta.
      if (hiddenBits !== undefined && hasBit(hiddenBits, d)) continue;
      entityIds[k] = id;
      rawIdentifiers[k] = table.rawIdentifier(d);
      types[k] = table.typeOf(d);
      sourceTypeOf[k] = sourceTypeIndex(table.sourceTypeOf(d));
      hashes[2 * k] = table.hashHi(d);
      hashes[2 * k + 1] = table.hashLo(d);
      // Each branch: a counted score is counted again; a given one is passed on.
      scores[k] = base.scores.isCounted(d, counts[d]!) ? NO_GIVEN_SCORE : base.scores.at(d);
      newOf[d] = k;
      k++;
    }
    while (i < delta.length) emitDelta(delta[i++]!);
    if (k !== n) throw new Error(`LiveGraph.feedCompaction: ${k} entities merged, ${n} expected`);
    const sourceTypeColumn = indexArray(n, sourceTypes.length - 1);
    sourceTypeColumn.set(sourceTypeOf);

    // Tombstoned base rows, by the base's fingerprint map.
    const st = base.statementIndex;
    const baseM = st.length;
    // One bit a base row (the feed's peak holds it beside the base and the builder's columns).
    let hiddenRows: Uint32Array | undefined;
    let hiddenCount = 0;
    if (this.#s.hiddenStatements.size > 0) {
      this.#s.baseFingerprints ??= new BaseFingerprints(base);
      hiddenRows = denseBits(baseM);
      for (const fp of this.#s.hiddenStatements.keys()) {
        const row = this.#s.baseFingerprints.rowOf(fp);
        // Each check: a tombstone of a base row, counted once.
        if (row >= 0 && !hasBit(hiddenRows, row)) {
          markBit(hiddenRows, row);
          hiddenCount++;
        }
      }
    }
    // Each branch: the live graph goes right after (the map is not needed again), or it stays.
    if (options.last === true) this.#s.baseFingerprints = undefined;
    options.betweenPhases?.();
    const m = baseM - hiddenCount + this.#s.statements.size;
    // The counts of statements by new dense id (statementCounts' rule: once a statement per entity).
    const newCounts = new Uint32Array(n);
    const count = (s: number, p: number, o: number): void => {
      newCounts[s]!++;
      if (p !== s) newCounts[p]!++;
      if (o !== s && o !== p) newCounts[o]!++;
    };
    for (let row = 0; row < baseM; row++) {
      if (hiddenRows !== undefined && hasBit(hiddenRows, row)) continue;
      count(newOf[st.subjectOf(row)]!, newOf[st.predicateOf(row)]!, newOf[st.objectOf(row)]!);
    }
    const newId = (baseId: number, entityId: string): number =>
      baseId >= 0 ? newOf[baseId]! : (newOfAdded.get(entityId) ?? -1);
    // The delta's statements by new dense ids, in SPO order (then by fingerprint text, as a run of
    // one triple is ordered): merged below with the base's rows, which are in SPO order already
    // (newOf keeps the order of the entities it keeps, and predicate indexes follow dense ids), so
    // the builder's rows come in SPO order and its statement index sorts nothing in SPO
    // (DenseStatementRoom.spoOrdered).
    const added: { s: number; p: number; o: number; ds: DeltaStatement }[] = [];
    for (const ds of this.#s.statements.values()) {
      const s = newId(ds.sd, ds.s);
      const p = newId(ds.pd, ds.p);
      const o = newId(ds.od, ds.o);
      if (s < 0 || p < 0 || o < 0) throw new Error(`LiveGraph.feedCompaction: statement ${ds.fp} names no entity`);
      count(s, p, o);
      added.push({ s, p, o, ds });
    }
    added.sort((x, y) => x.s - y.s || x.p - y.p || x.o - y.o || (x.ds.fp < y.ds.fp ? -1 : x.ds.fp > y.ds.fp ? 1 : 0));
    const addedCount = added.length;
    // Each branch: the live graph goes right after, and the feed holds what it needs of the delta
    // (`delta`, `added`, `hiddenRows`): its own structures go before the builder's indexes are made.
    if (options.last === true) this.#s.dropDelta();

    const fingerprints = st.fingerprints;
    // Room for the given fingerprints: at most the base's (tombstoned rows included) and every delta statement.
    feedDenseEntities(
      builder,
      { entityIds, rawIdentifiers, types, sourceTypeIndex: sourceTypeColumn, sourceTypes, hashes, scores },
      { count: m, given: fingerprints.hexCount + addedCount, counts: newCounts, spoOrdered: true },
      // Each branch: a last feed over a base of its own builds its search and score indexes at
      // build(), when this live graph and its base are gone (the indexes' peak then holds the
      // statement columns, not the base); any other first, before the statement columns exist.
      {
        betweenPhases: options.betweenPhases,
        indexesAtBuild: options.last === true && options.baseShared !== true,
      },
    );
    // (The feed emptied entityIds and rawIdentifiers: the builder holds the entities now.)
    const halves: [number, number] = [0, 0];
    let next = 0;
    const addDelta = (): void => {
      const a = added[next++]!;
      addDenseStatement(builder, a.s, a.p, a.o, a.ds.given ? a.ds.fp : undefined);
    };
    // A base row's fingerprint text (asked only when a delta statement has its triple: rare).
    const baseText = (row: number, s: number, p: number, o: number): string => {
      const given = fingerprints.given(row);
      if (given !== undefined) return given;
      const [hi, lo] = derivedFingerprintHalves(
        hashes[2 * s]!,
        hashes[2 * s + 1]!,
        hashes[2 * p]!,
        hashes[2 * p + 1]!,
        hashes[2 * o]!,
        hashes[2 * o + 1]!,
      );
      return hex64(hi, lo);
    };
    for (let row = 0; row < baseM; row++) {
      if (hiddenRows !== undefined && hasBit(hiddenRows, row)) continue;
      const s = newOf[st.subjectOf(row)]!;
      const p = newOf[st.predicateOf(row)]!;
      const o = newOf[st.objectOf(row)]!;
      // A statement naming a deleted entity was deleted with it (cascade) or the batch was refused.
      if (s < 0 || p < 0 || o < 0) throw new Error(`LiveGraph.feedCompaction: base row ${row} names a deleted entity`);
      // The delta's statements before this row in SPO order (then fingerprint text) come first.
      while (next < added.length) {
        const a = added[next]!;
        const c = a.s - s || a.p - p || a.o - o;
        if (c > 0 || (c === 0 && a.ds.fp > baseText(row, s, p, o))) break;
        addDelta();
      }
      // Each branch: a given hex fingerprint (as halves), a given text one, or none (derived).
      addDenseStatement(builder, s, p, o, fingerprints.hexHalves(row, halves) ? halves : fingerprints.given(row));
    }
    while (next < added.length) addDelta();
    // The result says which batch it holds and where this log's tags start (snapshots keep both).
    return builtAtSequence(builder, this.#s.sequence, {
      contentTag: this.#s.originTag,
      sequence: this.#s.originSequence,
    });
  }
}

/**
 * Live batch application
 * ======================
 * A batch's preparation and commit (LiveGraph.prepare, apply and commit delegate here), over the
 * state of live-state.ts: CONTRACT.md "Changes (live updates)".
 *
 * Algorithm: prepare checks the lines (change-batch.ts), then runs them in order against an
 * overlay of the current content (the batch's own earlier lines seen: the state's currentEntity,
 * currentStatement, denseNow), so a conflict (CHANGE_CONFLICT) is found before anything changes; a
 * delete of an entity cascades to the statements naming it; a statement without a fingerprint
 * gets the derived one (its entities' base rows hashed at once: basePutIds, basePutRows). commit
 * merges the overlay into the delta: entities and tombstones into their maps, 3-gram indexes and
 * sorted lists; statements and tombstones into their maps and each order's sorted list (spliced
 * when few, else merged: sorted-delta.ts); the counts (order=score), the first-component marks,
 * the replaced and hidden bitmaps and the tombstone positions kept up to date; the batch's digest
 * chained onto the graph's (batch-chain.ts: with the sequence it names the content). The durable layer
 * (src/changes/) writes the prepared batch to its log between the two.
 *
 * Cost: prepare O(lines) map look-ups, plus per cascading delete the statements naming the entity;
 * the first write that names a statement by fingerprint builds the base's fingerprint map
 * (base-fingerprints.ts, O(base statements); LiveGraph.warm builds it ahead). commit O(b log b)
 * comparisons and O(D) moves for a delta of D items and a batch of b.
 *
 * References: CONTRACT.md "Changes (live updates)"; live-graph.ts's banner.
 */

import { QuiverError } from "../errors.js";
import { STATEMENTS_MAX_LIMIT } from "../limits.js";
import { quote } from "../quote.js";
import { hex64 } from "../hash64.js";
import { derivedFingerprintHalves } from "../statements/fingerprint.js";
import { BaseFingerprints, type FingerprintKeys } from "./base-fingerprints.js";
import { batchDigest, chainNext, changesDigest } from "./batch-chain.js";
import { markFiltered } from "./bits-filter.js";
import { clearBit, denseBits } from "./dense-bits.js";
import { type ChangeBatch, type LiveEntityInput, type ParsedChange, parseChangeBatch } from "./change-batch.js";
import {
  compareEntities,
  type DeltaEntity,
  type DeltaStatement,
  mergeSorted,
  mergeStatements,
  ORDERS,
  prefixRange,
  SPLICE_MAX_CHANGES,
  sortStatements,
} from "./sorted-delta.js";

import { GONE, UNKNOWN, FIRST_PUT, FIRST_HIDDEN, markFirst, type LiveState } from "./live-state.js";

/** An empty set of fingerprints (a tombstone list's merge removes nothing). */
const NO_KEYS: ReadonlySet<string> = new Set();

/** What a batch did: CONTRACT.md's 200 body. */
export interface ChangeResult {
  sequence: number;
  entities: { put: number; deleted: number };
  statements: { put: number; deleted: number };
}

/** A checked batch, ready to commit to the graph it was prepared on (and nothing else). */
export interface PreparedBatch {
  /** The sequence the batch gets when committed. */
  readonly sequence: number;
  readonly result: ChangeResult;
  /** The batch as JSON Lines (what a change log stores; applying it again gives the same result). */
  readonly text: string;
  /** @internal */
  readonly entities: ReadonlyMap<string, DeltaEntity | null>;
  /** @internal */
  readonly statements: ReadonlyMap<string, DeltaStatement | null>;
  /**
   * @internal The fingerprints of `statements` whose first line in the batch deleted a statement of
   * the delta or the base. Every other one was first put, in neither the delta nor the base (commit
   * looks no further): the usual case, so this set is the small one (a batch of puts leaves it empty).
   */
  readonly existing: ReadonlySet<string>;
  /**
   * @internal The SHA-256 of the batch's text (batch-chain.ts, in 64 hex digits): commit chains it
   * onto the graph's, which names its content; a change log takes it as its checksum of `text`.
   * Made when first read, unless given first (supplyDigest).
   */
  readonly digest: string;
}

/**
 * A prepared batch whose digest is made when first read (its commit, or a change log's append), so
 * that a caller that hashed the batch's text already, off its thread, gives it instead
 * (supplyDigest) and the hash is not made twice.
 */
class Prepared implements PreparedBatch {
  #digest: string | undefined;
  /** What makes the digest when none was given (let go once made: it holds the batch's changes). */
  #make: (() => string) | undefined;

  constructor(
    readonly sequence: number,
    readonly result: ChangeResult,
    readonly text: string,
    readonly entities: ReadonlyMap<string, DeltaEntity | null>,
    readonly statements: ReadonlyMap<string, DeltaStatement | null>,
    readonly existing: ReadonlySet<string>,
    make: () => string,
  ) {
    this.#make = make;
  }

  get digest(): string {
    if (this.#digest === undefined) {
      this.#digest = this.#make!();
      this.#make = undefined;
    }
    return this.#digest;
  }

  /** Takes `digest` as the digest, unless one was made or given already. */
  supply(digest: string): void {
    if (this.#digest !== undefined) return;
    this.#digest = digest;
    this.#make = undefined;
  }
}

/**
 * @internal Gives `prepared` (LiveGraph.prepare's, of a batch given as text) its digest: the
 * SHA-256 of that text in 64 hex digits, as batch-chain.ts batchDigest (or batchDigestOffThread)
 * makes it. Before the digest is first read; after, nothing changes.
 */
export function supplyDigest(prepared: PreparedBatch, digest: string): void {
  if (prepared instanceof Prepared) prepared.supply(digest);
}

/** A statement as a cascade or a conflict message needs it: its triple and fingerprint. */
type StatementTriple = Pick<DeltaStatement, "s" | "p" | "o" | "fp">;

function deltaEntity(e: LiveEntityInput, foldText: (s: string) => string, baseId: number): DeltaEntity {
  return {
    entityId: e.entityId,
    baseId,
    rawIdentifier: e.rawIdentifier,
    type: e.type,
    sourceType: e.sourceType,
    score: e.score,
    folded: foldText(e.rawIdentifier),
  };
}

function describe(st: StatementTriple): string {
  return `${quote(st.fp)}: ${quote(st.s)} ${quote(st.p)} ${quote(st.o)}`;
}

function missingEntity(line: number, role: string, id: string): QuiverError {
  return conflict(line, `${role} ${quote(id)} names no entity of the graph (put the entity first)`);
}

function addNaming(byEntity: Map<string, DeltaStatement[]>, id: string, st: DeltaStatement): void {
  const list = byEntity.get(id);
  if (list === undefined) byEntity.set(id, [st]);
  else list.push(st);
}

function conflict(line: number, reason: string): QuiverError {
  return new QuiverError("CHANGE_CONFLICT", `line ${line}: ${reason}`, { source: { file: "batch", line } });
}

/** The batch as JSON Lines: its text as given, or its objects one a line. */
function batchText(batch: ChangeBatch): string {
  if (typeof batch === "string") return batch;
  return batch.map((c) => JSON.stringify(c)).join("\n");
}

/** A live graph's batch preparation and commit (see the banner), over its state. */
export class LiveApply {
  readonly #s: LiveState;

  constructor(s: LiveState) {
    this.#s = s;
  }

  /** prepare; `withText` false leaves the prepared batch's `text` empty (apply: no log to write it to). */
  prepareChanges(batch: ChangeBatch, withText: boolean): PreparedBatch {
    const changes = parseChangeBatch(batch);
    const entities = new Map<string, DeltaEntity | null>();
    const statements = new Map<string, DeltaStatement | null>();
    const result: ChangeResult = {
      sequence: this.#s.sequence + 1,
      entities: { put: 0, deleted: 0 },
      statements: { put: 0, deleted: 0 },
    };
    // Existence and base dense id only (no entity object made: a statement put asks it three
    // times). `known`: the id's base dense id when found already (putIds), else UNKNOWN.
    const entityAt = (id: string, known = UNKNOWN): number => {
      // A batch that puts or deletes no entity has none to ask (a batch of statement puts asks three times a line).
      if (entities.size === 0) return this.#s.denseNow(id, known);
      const o = entities.get(id);
      if (o === null) return GONE;
      return o !== undefined ? o.baseId : this.#s.denseNow(id, known);
    };
    // The base dense ids of the statement puts' entities, three a put in line order, looked up all
    // at once (Dictionary.idsOf: their cache misses overlap); the base does not change meanwhile.
    const { ids: putIds, hashes: putHashes } = this.basePutIds(changes);
    let put3 = 0;
    // Their fingerprints (a derived one names the same triple whatever the entities' state), and
    // the base rows that hold them, looked up all at once too (BaseFingerprints.rowsOf).
    const { fingerprints: putFingerprints, rows: putRows } = this.basePutRows(changes, putHashes);
    const entityThere = (id: string): boolean => entityAt(id) !== GONE;
    const existing = new Set<string>();
    // A delete of `fp`: existing when the batch had not touched it yet (then it was the delta's or the base's).
    const deleteStatement = (fp: string): void => {
      if (!statements.has(fp)) existing.add(fp);
      statements.set(fp, null);
    };
    const statementNow = (fp: string): DeltaStatement | undefined => {
      const o = statements.get(fp);
      return o === null ? undefined : (o ?? this.#s.currentStatement(fp));
    };
    /**
     * The batch's statement puts by each entity they name (what a cascade or the last check looks
     * up): kept only when the batch deletes an entity, the one case that asks.
     */
    const putsNaming = new Map<string, DeltaStatement[]>();
    let keepPutsNaming = false;
    for (let i = 0; i < changes.length && !keepPutsNaming; i++) keepPutsNaming = changes[i]!.kind === "deleteEntity";
    /** Entities this batch deleted without cascade, with the line: checked at the end. */
    const removed = new Map<string, number>();
    // Indexed loops over the lines here and below, not for...of: until V8 has optimized these functions
    // (the first batches of a process), for...of makes an iterator result a line.
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      switch (c.kind) {
        case "putEntity":
          entities.set(
            c.entity.entityId,
            deltaEntity(c.entity, this.#s.fold, this.#s.parts.dictionary.idOf(c.entity.entityId)),
          );
          result.entities.put++;
          break;
        case "deleteEntity": {
          // Deleting an entity that is not there changes nothing (as an unknown fingerprint).
          if (!entityThere(c.entityId)) break;
          entities.set(c.entityId, null);
          result.entities.deleted++;
          if (!c.cascade) {
            removed.set(c.entityId, c.line);
            break;
          }
          for (const st of this.statementsNaming(c.entityId, statements, putsNaming)) {
            deleteStatement(st.fp);
            result.statements.deleted++;
          }
          break;
        }
        case "putStatement": {
          const st = c.statement;
          // This put's place among the batch's puts (putIds holds three ids a put, putRows one row).
          const putAt = put3 / 3;
          const sd = entityAt(st.subjectEntityId, putIds[put3]);
          if (sd === GONE) throw missingEntity(c.line, "subjectEntityId", st.subjectEntityId);
          const pd = entityAt(st.predicateEntityId, putIds[put3 + 1]);
          if (pd === GONE) throw missingEntity(c.line, "predicateEntityId", st.predicateEntityId);
          const od = entityAt(st.objectEntityId, putIds[put3 + 2]);
          put3 += 3;
          if (od === GONE) throw missingEntity(c.line, "objectEntityId", st.objectEntityId);
          const given = st.statementFingerprint;
          const fp = putFingerprints[putAt]!;
          // statementNow's look-ups, the batch's map asked once (its answer also says whether the batch knows fp).
          const inBatch = statements.get(fp);
          const there = inBatch === null ? undefined : (inBatch ?? this.#s.currentStatement(fp, putRows[putAt]));
          // Neither the batch, the delta nor the base knows the fingerprint when inBatch and there are
          // both undefined: it stays out of `existing` (commit has no statement to replace or hide).
          if (there !== undefined) {
            // The same statement again is a no-op; another statement with its fingerprint is a conflict.
            if (there.s === st.subjectEntityId && there.p === st.predicateEntityId && there.o === st.objectEntityId)
              break;
            throw conflict(
              c.line,
              `statementFingerprint ${quote(fp)}${given === undefined ? " (derived from this triple)" : ""} is already used by another statement (${describe(there)})`,
            );
          }
          const put: DeltaStatement = {
            s: st.subjectEntityId,
            p: st.predicateEntityId,
            o: st.objectEntityId,
            fp,
            given: given !== undefined,
            sd,
            pd,
            od,
          };
          statements.set(fp, put);
          if (keepPutsNaming) {
            addNaming(putsNaming, put.s, put);
            if (put.p !== put.s) addNaming(putsNaming, put.p, put);
            if (put.o !== put.s && put.o !== put.p) addNaming(putsNaming, put.o, put);
          }
          result.statements.put++;
          break;
        }
        case "deleteStatement":
          // An unknown fingerprint is a no-op (CONTRACT.md).
          if (statementNow(c.fingerprint) === undefined) break;
          deleteStatement(c.fingerprint);
          result.statements.deleted++;
          break;
      }
    }
    // A delete without cascade must not leave a statement naming the entity (unless put back since).
    for (const [id, line] of removed) {
      if (entityThere(id)) continue;
      for (const st of this.statementsNaming(id, statements, putsNaming)) {
        throw conflict(
          line,
          `entity ${quote(id)} is deleted, but statement ${describe(st)} still names it; delete that statement in the batch too, or give "cascade":true`,
        );
      }
    }
    // What names the batch in the content tag's chain (batch-chain.ts). Each branch: its text (what
    // a change log holds and its readers apply again), or, objects with no log to write, its changes.
    const byText = withText || typeof batch === "string";
    const text = byText ? batchText(batch) : "";
    return new Prepared(result.sequence, result, withText ? text : "", entities, statements, existing, () =>
      byText ? batchDigest(text) : changesDigest(changes),
    );
  }

  /**
   * The base dense ids of `changes`' statement puts' subject, predicate and object, in order (-1: not
   * in the base), and each of those entityIds' hash64 (hi, lo: 2 words an id).
   */
  private basePutIds(changes: readonly ParsedChange[]): { ids: Int32Array; hashes: Uint32Array } {
    let puts = 0;
    for (let i = 0; i < changes.length; i++) if (changes[i]!.kind === "putStatement") puts++;
    // Sized at once (30,000 ids for 10,000 puts): no copies of a growing array.
    const ids: string[] = new Array<string>(3 * puts);
    let at = 0;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      if (c.kind !== "putStatement") continue;
      ids[at++] = c.statement.subjectEntityId;
      ids[at++] = c.statement.predicateEntityId;
      ids[at++] = c.statement.objectEntityId;
    }
    const out = new Int32Array(ids.length);
    const hashes = new Uint32Array(2 * ids.length);
    this.#s.parts.dictionary.idsOf(ids, out, hashes);
    return { ids: out, hashes };
  }

  /**
   * The fingerprints of `changes`' statement puts, in order (given, or derived from `hashes`, their
   * entityIds' hash64 as basePutIds gives them: no entity's record or characters read again), and
   * the base row that holds each (-1: none), a derived one looked up by the halves it was made of.
   */
  private basePutRows(
    changes: readonly ParsedChange[],
    hashes: Uint32Array,
  ): { fingerprints: string[]; rows: Int32Array } {
    // One a put, sized at once (hashes holds 6 words a put).
    const fingerprints: string[] = new Array<string>(hashes.length / 6);
    // The derived fingerprints' halves, kept for the look-up (no hex to read back): at most one a put.
    const keys: FingerprintKeys = {
      his: new Uint32Array(hashes.length / 6),
      los: new Uint32Array(hashes.length / 6),
      known: new Uint8Array(hashes.length / 6),
    };
    let k = 0;
    for (let j = 0; j < changes.length; j++) {
      const c = changes[j]!;
      if (c.kind !== "putStatement") continue;
      const given = c.statement.statementFingerprint;
      const i = k / 6;
      // Each branch: a given fingerprint as it is; else the one derived from the three ids' hashes.
      if (given !== undefined) fingerprints[i] = given;
      else {
        const h = derivedFingerprintHalves(
          hashes[k]!,
          hashes[k + 1]!,
          hashes[k + 2]!,
          hashes[k + 3]!,
          hashes[k + 4]!,
          hashes[k + 5]!,
        );
        keys.his[i] = h[0];
        keys.los[i] = h[1];
        keys.known[i] = 1;
        fingerprints[i] = hex64(h[0], h[1]);
      }
      k += 6;
    }
    const rows = new Int32Array(fingerprints.length);
    this.#s.baseFingerprints ??= new BaseFingerprints(this.#s.parts);
    this.#s.baseFingerprints.rowsOf(fingerprints, rows, keys);
    return { fingerprints, rows };
  }

  /** Applies a batch prepared on this graph as it stands now. */
  commit(prepared: PreparedBatch): ChangeResult {
    if (prepared.sequence !== this.#s.sequence + 1)
      throw new Error(
        `LiveGraph.commit: the batch was prepared for sequence ${prepared.sequence}, the graph is at ${this.#s.sequence}`,
      );
    const removedEntities = new Set<string>();
    const removedEntityItems: DeltaEntity[] = [];
    const addedEntities: DeltaEntity[] = [];
    for (const [id, entity] of prepared.entities) {
      const mine = this.#s.entities.get(id);
      if (mine !== undefined) {
        removedEntities.add(id);
        removedEntityItems.push(mine);
        this.#s.entityGrams.remove(mine);
        this.#s.entityStarts.remove(mine);
      }
      const d = entity === null ? this.#s.parts.dictionary.idOf(id) : entity.baseId;
      if (d >= 0) this.#s.markDirty(d);
      // A base entity replaced or deleted: its base version is hidden from now on.
      if (d >= 0 && !this.#s.hiddenEntities.has(id)) {
        const e = this.#s.parts.entities;
        const hidden = { entityId: id, folded: this.#s.fold(e.rawIdentifier(d)), type: e.entity(d).type };
        this.#s.hiddenEntities.set(id, hidden);
        this.#s.hiddenGrams.add(hidden);
        this.#s.hiddenBits ??= denseBits(this.#s.base.entityCount);
        markFiltered(this.#s.hiddenBits, d);
      }
      // Each branch: a base entity put again shows its new name on base statements; deleted, none name it.
      if (d >= 0 && entity !== null) {
        this.#s.replaced.set(id, entity.rawIdentifier);
        this.#s.replacedBase ??= denseBits(this.#s.base.entityCount);
        markFiltered(this.#s.replacedBase, d);
      } else if (d >= 0) {
        this.#s.replaced.delete(id);
        if (this.#s.replacedBase !== undefined) clearBit(this.#s.replacedBase, d);
      }
      if (entity === null) this.#s.entities.delete(id);
      else {
        this.#s.entities.set(id, entity);
        this.#s.entityGrams.add(entity);
        this.#s.entityStarts.add(entity);
        addedEntities.push(entity);
      }
    }
    this.#s.entityList = mergeSorted(
      this.#s.entityList,
      removedEntities,
      removedEntityItems,
      (e) => e.entityId,
      addedEntities,
      compareEntities,
    );
    const removedStatements = new Set<string>();
    const removedStatementItems: DeltaStatement[] = [];
    const addedStatements: DeltaStatement[] = [];
    const hidden: DeltaStatement[] = [];
    // forEach, not for...of: no [fingerprint, statement] pair made an entry (10,000 a big batch).
    prepared.statements.forEach((st, fp) => {
      // A fingerprint new to the delta and the base (prepare knows) is not looked for in either.
      const fresh = prepared.existing.size === 0 || !prepared.existing.has(fp);
      const mine = fresh || !this.#s.statementFilter.mayHold(fp) ? undefined : this.#s.statements.get(fp);
      if (mine !== undefined) {
        removedStatements.add(fp);
        removedStatementItems.push(mine);
        this.#s.statements.delete(fp);
        this.#s.adjustCounts(mine, -1);
      } else if (!fresh && !this.#s.hiddenStatements.has(fp)) {
        // Not in the delta: a base statement the batch deleted (and perhaps put again with another
        // triple), hidden from now on; or a fingerprint new to both (nothing to hide).
        const base = this.#s.baseStatement(fp);
        if (base !== undefined) {
          this.#s.hiddenStatements.set(fp, base);
          hidden.push(base);
          this.#s.adjustCounts(base, -1);
        }
      }
      if (st !== null) {
        this.#s.statements.set(fp, st);
        this.#s.statementFilter.add(fp);
        addedStatements.push(st);
        this.#s.adjustCounts(st, 1);
      }
    });
    if (hidden.length > 0) this.#s.markTombstones(hidden);
    if (addedStatements.length + hidden.length > 0) {
      const n = this.#s.base.entityCount;
      const words = Math.ceil(n / 16);
      this.#s.firstMarks ??= { SPO: new Uint32Array(words), POS: new Uint32Array(words), OSP: new Uint32Array(words) };
      for (let i = 0; i < addedStatements.length; i++) markFirst(this.#s.firstMarks, addedStatements[i]!, FIRST_PUT);
      for (let i = 0; i < hidden.length; i++) markFirst(this.#s.firstMarks, hidden[i]!, FIRST_HIDDEN);
    }
    // Each list's new items sorted on their own (sortStatements: by dense ids), then merged in.
    const idBound = this.#s.base.entityCount;
    const few = removedStatementItems.length + addedStatements.length <= SPLICE_MAX_CHANGES;
    for (const order of ORDERS) {
      mergeStatements(
        this.#s.statementLists[order],
        removedStatements,
        removedStatementItems,
        few ? addedStatements.slice() : sortStatements(order, addedStatements.slice(), idBound),
        idBound,
        !few,
      );
      if (hidden.length > 0)
        mergeStatements(
          this.#s.hiddenLists[order],
          NO_KEYS,
          [],
          hidden.length <= SPLICE_MAX_CHANGES ? hidden.slice() : sortStatements(order, hidden.slice(), idBound),
          idBound,
          hidden.length > SPLICE_MAX_CHANGES,
        );
    }
    this.#s.sequence = prepared.sequence;
    this.#s.batchChain = chainNext(this.#s.batchChain, prepared.digest);
    return prepared.result;
  }

  /**
   * The statements that name entity `id` in any role now, seen through a batch's `overlay` (its
   * deletes hidden, its puts included: `putsNaming` holds them by the entities they name); each once.
   */
  private *statementsNaming(
    id: string,
    overlay: ReadonlyMap<string, DeltaStatement | null>,
    putsNaming: ReadonlyMap<string, readonly DeltaStatement[]>,
  ): Generator<StatementTriple> {
    const seen = new Set<string>();
    const visible = (fp: string) => !seen.has(fp) && overlay.get(fp) !== null;
    for (const filter of [{ subjectEntityId: id }, { predicateEntityId: id }, { objectEntityId: id }]) {
      // The base's statements: paged through the base itself, less the tombstones.
      if (this.#s.parts.dictionary.idOf(id) >= 0) {
        let cursor: string | undefined;
        do {
          const page = this.#s.base.statements({ ...filter, limit: STATEMENTS_MAX_LIMIT, cursor });
          for (const item of page.items) {
            const fp = item.statementFingerprint;
            if (this.#s.hiddenStatements.has(fp) || !visible(fp)) continue;
            seen.add(fp);
            yield { s: item.subjectEntityId, p: item.predicateEntityId, o: item.objectEntityId, fp };
          }
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
      }
    }
    // The delta's: each role's range in the order whose key starts with it.
    for (const [order, prefix] of [
      ["SPO", [id]],
      ["POS", [id]],
      ["OSP", [id]],
    ] as const) {
      const list = this.#s.statementLists[order];
      const [lo, hi] = prefixRange(list, order, prefix);
      for (let i = lo; i < hi; i++) {
        const st = list.at(i)!;
        if (!visible(st.fp)) continue;
        seen.add(st.fp);
        yield st;
      }
    }
    // The batch's own puts so far that name it (and are not deleted or replaced since).
    for (const st of putsNaming.get(id) ?? []) {
      if (seen.has(st.fp) || overlay.get(st.fp) !== st) continue;
      seen.add(st.fp);
      yield st;
    }
  }
}

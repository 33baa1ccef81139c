/**
 * Live oracle
 * ===========
 * The brute-force reading of CONTRACT.md "Changes (live updates)" for the live graph's tests: the
 * content as two Maps (entities by entityId, statements by fingerprint), a batch applied line by
 * line on copies (kept only when the whole batch applies: atomic), and the content handed to
 * oracle.ts's Oracle for the read checks. Written from the contract text, not the engine: the only
 * engine function used is the public deriveFingerprint (as oracle.ts).
 *
 * `randomBatch` draws seeded batches of puts (new entities, replacements that change the raw
 * identifier, type and sourceType), deletes with and without cascade, statement puts (derived,
 * given, the same statement again, another triple on a used fingerprint) and statement deletes
 * (known and unknown fingerprints), with a share of lines meant to conflict.
 */

import { type Change, deriveFingerprint, type EntityType, type StatementInput } from "../../src/index.js";
import {
  type EntityData,
  type FoldMode,
  generateGraph,
  type GraphData,
  Oracle,
  randomEntityId,
  randomFingerprint,
  randomIdentifier,
  Rng,
  TYPES,
} from "./oracle.js";

export interface OracleStatement {
  subjectEntityId: string;
  predicateEntityId: string;
  objectEntityId: string;
  statementFingerprint: string;
}

export interface OracleResult {
  entities: { put: number; deleted: number };
  statements: { put: number; deleted: number };
}

/** What the oracle says a batch gets: its counts, or the code of its error and the line at fault. */
export type OracleOutcome = { ok: true; result: OracleResult } | { ok: false; code: string; line: number };

export class LiveOracle {
  entities = new Map<string, EntityData>();
  statements = new Map<string, OracleStatement>();
  readonly foldMode: FoldMode;

  constructor(data: GraphData, foldMode: FoldMode = "case") {
    this.foldMode = foldMode;
    for (const e of data.entities) this.entities.set(e.entityId, { ...e });
    for (const st of data.statements) {
      const fp =
        st.statementFingerprint ?? deriveFingerprint(st.subjectEntityId, st.predicateEntityId, st.objectEntityId);
      this.statements.set(fp, { ...st, statementFingerprint: fp });
    }
  }

  /** Applies `changes` whole (returning the counts), or leaves everything as it was and says why not. */
  apply(changes: readonly Change[]): OracleOutcome {
    const entities = new Map(this.entities);
    const statements = new Map(this.statements);
    const result: OracleResult = { entities: { put: 0, deleted: 0 }, statements: { put: 0, deleted: 0 } };
    const deletedPlain = new Map<string, number>();
    const naming = (id: string) =>
      [...statements.values()].filter(
        (s) => s.subjectEntityId === id || s.predicateEntityId === id || s.objectEntityId === id,
      );
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i] as Change;
      const line = i + 1;
      if ("entity" in c) {
        entities.set(c.entity.entityId, { ...c.entity });
        result.entities.put++;
      } else if ("entityId" in c) {
        if (!entities.has(c.entityId)) continue;
        entities.delete(c.entityId);
        result.entities.deleted++;
        if (c.cascade === true) {
          for (const s of naming(c.entityId)) {
            statements.delete(s.statementFingerprint);
            result.statements.deleted++;
          }
        } else deletedPlain.set(c.entityId, line);
      } else if ("statement" in c) {
        const s = c.statement;
        if (![s.subjectEntityId, s.predicateEntityId, s.objectEntityId].every((id) => entities.has(id)))
          return { ok: false, code: "CHANGE_CONFLICT", line };
        const fp =
          s.statementFingerprint ?? deriveFingerprint(s.subjectEntityId, s.predicateEntityId, s.objectEntityId);
        const there = statements.get(fp);
        if (there !== undefined) {
          if (
            there.subjectEntityId === s.subjectEntityId &&
            there.predicateEntityId === s.predicateEntityId &&
            there.objectEntityId === s.objectEntityId
          )
            continue;
          return { ok: false, code: "CHANGE_CONFLICT", line };
        }
        statements.set(fp, {
          subjectEntityId: s.subjectEntityId,
          predicateEntityId: s.predicateEntityId,
          objectEntityId: s.objectEntityId,
          statementFingerprint: fp,
        });
        result.statements.put++;
      } else {
        if (!statements.has(c.statementFingerprint)) continue;
        statements.delete(c.statementFingerprint);
        result.statements.deleted++;
      }
    }
    for (const [id, line] of deletedPlain) {
      if (entities.has(id)) continue;
      if (naming(id).length > 0) return { ok: false, code: "CHANGE_CONFLICT", line };
    }
    this.entities = entities;
    this.statements = statements;
    return { ok: true, result };
  }

  /** The content now, as input data (every fingerprint given). */
  data(): GraphData {
    return {
      entities: [...this.entities.values()].map((e) => ({ ...e })),
      statements: [...this.statements.values()].map((s) => ({ ...s })),
    };
  }

  /** oracle.ts's Oracle over the content now. */
  oracle(): Oracle {
    return new Oracle(this.data(), this.foldMode);
  }
}

/** Options of randomBatch: how many lines, and the share of lines meant to conflict. */
export interface BatchOptions {
  lines: number;
  conflicts?: number;
}

/**
 * A random batch against the oracle's content now (not applied): the lines see the batch's own
 * earlier lines only loosely (a later line may name an entity an earlier one deleted: a conflict).
 */
export function randomBatch(rng: Rng, oracle: LiveOracle, options: BatchOptions): Change[] {
  const out: Change[] = [];
  const ids = [...oracle.entities.keys()];
  const raws = [...oracle.entities.values()].map((e) => e.rawIdentifier);
  const taken = new Set(ids);
  const statements = [...oracle.statements.values()];
  const conflicts = options.conflicts ?? 0;
  const fresh = new Set<string>();
  const anyId = (): string => (ids.length === 0 || rng.chance(0.1) ? rng.pick([...fresh, "x"]) : rng.pick(ids));
  for (let k = 0; k < options.lines; k++) {
    const r = rng.float();
    if (r < 0.2 || ids.length < 3) {
      // a new entity
      const entityId = randomEntityId(rng, taken, ids);
      taken.add(entityId);
      ids.push(entityId);
      fresh.add(entityId);
      out.push({ op: "put", entity: randomEntity(rng, entityId, raws) });
    } else if (r < 0.32) {
      // a replacement: same id, new fields
      out.push({ op: "put", entity: randomEntity(rng, rng.pick(ids), raws) });
    } else if (r < 0.4) {
      // a delete, mostly with cascade; without it, a conflict when statements remain
      const entityId = rng.pick(ids);
      const plain = rng.chance(conflicts) || ![...oracle.statements.values()].some((s) => names(s, entityId));
      out.push(plain ? { op: "delete", entityId } : { op: "delete", entityId, cascade: true });
    } else if (r < 0.75) {
      // a statement put: derived or given, sometimes a repeat of one there, sometimes a conflict
      const rr = rng.float();
      if (rr < 0.1 && statements.length > 0) {
        const s = rng.pick(statements);
        out.push({ op: "put", statement: { ...s } });
      } else if (rr < 0.1 + conflicts && statements.length > 0) {
        const s = rng.pick(statements);
        out.push({
          op: "put",
          statement: {
            subjectEntityId: rng.pick(ids),
            predicateEntityId: rng.pick(ids),
            objectEntityId: rng.pick(ids),
            statementFingerprint: s.statementFingerprint,
          },
        });
      } else {
        const statement: StatementInput = {
          subjectEntityId: anyId(),
          predicateEntityId:
            rng.chance(0.6) && statements.length > 0 ? rng.pick(statements).predicateEntityId : anyId(),
          objectEntityId: anyId(),
        };
        if (rng.chance(0.3)) statement.statementFingerprint = randomFingerprint(rng);
        out.push({ op: "put", statement });
      }
    } else {
      // a statement delete: mostly a known fingerprint
      const fp =
        statements.length > 0 && rng.chance(0.85) ? rng.pick(statements).statementFingerprint : randomFingerprint(rng);
      out.push({ op: "delete", statementFingerprint: fp });
    }
  }
  return out;
}

function names(s: OracleStatement, id: string): boolean {
  return s.subjectEntityId === id || s.predicateEntityId === id || s.objectEntityId === id;
}

function randomEntity(rng: Rng, entityId: string, raws: string[]): EntityData {
  const rawIdentifier = randomIdentifier(rng, raws);
  raws.push(rawIdentifier);
  const entity: EntityData = {
    entityId,
    rawIdentifier,
    type: rng.pick(TYPES) as EntityType,
    sourceType: rng.pick(["wikidata", "", "dbpedia", "ß"]),
  };
  // Sometimes a score: small ones tie with each other and with counts.
  if (rng.chance(0.3)) entity.score = rng.chance(0.8) ? rng.int(5) : rng.int(2 ** 32);
  return entity;
}

/**
 * A seeded stream of batches that apply (the oracle's verdict), from a seeded random base: what the
 * crash test's writer applies and what the test replays to know the content after any number of
 * batches. `next()` returns the next batch and applies it to `oracle`.
 */
export class BatchStream {
  readonly data: GraphData;
  readonly oracle: LiveOracle;
  private readonly rng: Rng;
  private readonly maxLines: number;

  constructor(seed: number, maxLines = 40) {
    this.rng = new Rng(seed);
    this.data = generateGraph(this.rng, { entities: 60, statements: 150 });
    this.oracle = new LiveOracle(this.data);
    this.maxLines = maxLines;
  }

  next(): Change[] {
    for (;;) {
      const changes = randomBatch(this.rng, this.oracle, { lines: this.rng.range(1, this.maxLines) });
      if (this.oracle.apply(changes).ok) return changes;
    }
  }
}

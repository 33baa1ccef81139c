/**
 * Walks that compare graphs
 * =========================
 * Helpers for tests that hold two graphs which must answer alike (a graph and its snapshot, a graph
 * handed through memory) or that follow cursors from one graph to another (a rebuild, a swap):
 * random queries likely to match, every query walked on both graphs page by page (and alternating
 * between them, so a cursor of either continues on the other), a graph's data evolved into the next
 * version, and the oracle's items after a key.
 */

import * as assert from "uvu/assert";

import {
  deriveFingerprint,
  type Entity,
  type EntityType,
  type Graph,
  type Statement,
  type StatementInput,
} from "../../src/index.js";
import {
  compareKeys,
  fold,
  generateGraph,
  limitPolicy,
  type GraphData,
  type Oracle,
  randomFilters,
  randomStatements,
  type Rng,
  show,
  TINY_FRAGMENTS,
  UNICODE_FRAGMENTS,
  walkPages,
} from "./oracle.js";

function substring(rng: Rng, s: string): string {
  if (s.length === 0) return "";
  const a = rng.int(s.length);
  return s.slice(a, rng.range(a + 1, Math.min(s.length, a + 1 + rng.range(0, 10))));
}

/** A query likely to match: a piece of an identifier, a whole one, a folded prefix, or a Unicode case. */
export function randomQuery(rng: Rng, oracle: Oracle): string {
  const withRaw = oracle.entities.filter((e) => e.rawIdentifier.length > 0);
  const raw = (): string => (withRaw.length === 0 ? "a" : rng.pick(withRaw).rawIdentifier);
  let q: string;
  switch (rng.int(6)) {
    case 0:
      q = substring(rng, raw());
      break;
    case 1:
      q = raw();
      break;
    case 2: {
      const f = fold(raw());
      q = f.slice(0, rng.range(1, Math.max(1, f.length)));
      break;
    }
    case 3:
      q = rng.pick(UNICODE_FRAGMENTS);
      break;
    case 4:
      q = rng.pick(TINY_FRAGMENTS) + (rng.chance(0.5) ? rng.pick(TINY_FRAGMENTS) : "");
      break;
    default:
      q = substring(rng, raw()).toUpperCase();
  }
  return (q.length === 0 ? "a" : q).slice(0, 256);
}

export interface Tally {
  walks: number;
  pages: number;
}

/**
 * Every query asked of both graphs, page by page: the pages must be identical (items and cursors),
 * and their concatenation the oracle's list. Then the same walk again, alternating between the two
 * graphs page by page: a cursor of either continues on the other. Stats and getEntity agree too.
 */
export function compareGraphs(
  a: Graph,
  b: Graph,
  oracle: Oracle,
  rng: Rng,
  ctx: string,
  searches: number,
  filtersPerMask: number,
  tally: Tally = { walks: 0, pages: 0 },
): void {
  assert.is(b.entityCount, a.entityCount, ctx);
  assert.is(b.statementCount, a.statementCount, ctx);
  assert.equal(b.stats(), a.stats(), ctx);
  for (const e of oracle.entities) assert.equal(b.getEntity(e.entityId), a.getEntity(e.entityId), `${ctx} getEntity`);
  assert.is(b.getEntity("no such entity\u0001"), undefined);

  const both = <T>(fa: () => T, fb: () => T, where: string): T => {
    const pa = fa();
    const pb = fb();
    assert.equal(pb, pa, where);
    return pa;
  };
  for (let k = 0; k < searches; k++) {
    const q = randomQuery(rng, oracle);
    const type = rng.chance(0.35) ? (String(rng.int(8)) as EntityType) : undefined;
    const expected = oracle.search(q, type);
    const where = `${ctx} search q=${show(q)} type=${show(type)}`;
    tally.pages += walkPages<Entity>({
      fetch: (limit, cursor) =>
        both(
          () => a.search({ q, type, limit, cursor }),
          () => b.search({ q, type, limit, cursor }),
          where,
        ),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: where,
    });
    let turn = 0;
    tally.pages += walkPages<Entity>({
      fetch: (limit, cursor) => ((turn++ & 1) === 0 ? a : b).search({ q, type, limit, cursor }),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: `${where} (alternating graphs)`,
    });
    tally.walks += 2;
  }
  for (let mask = 0; mask < 8; mask++) {
    for (let k = 0; k < filtersPerMask; k++) {
      const f = randomFilters(rng, mask, oracle);
      const expected = oracle.statementsFor(f);
      const where = `${ctx} statements ${show(f)}`;
      tally.pages += walkPages<Statement>({
        fetch: (limit, cursor) =>
          both(
            () => a.statements({ ...f, limit, cursor }),
            () => b.statements({ ...f, limit, cursor }),
            where,
          ),
        expected,
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        ctx: where,
      });
      let turn = 1;
      tally.pages += walkPages<Statement>({
        fetch: (limit, cursor) => ((turn++ & 1) === 0 ? a : b).statements({ ...f, limit, cursor }),
        expected,
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        ctx: `${where} (alternating graphs)`,
      });
      tally.walks += 2;
    }
  }
}

/** `data` with about a fifth of its entities (and their statements) removed and new ones added. */
export function evolve(rng: Rng, data: GraphData): GraphData {
  const removed = new Set(data.entities.filter(() => rng.chance(0.2)).map((e) => e.entityId));
  const kept = data.entities.filter((e) => !removed.has(e.entityId));
  const taken = new Set(kept.map((e) => e.entityId));
  const extra = generateGraph(rng, { entities: Math.ceil(data.entities.length / 4), statements: 0 }).entities.filter(
    (e) => !removed.has(e.entityId) && !taken.has(e.entityId),
  );
  const entities = [...kept, ...extra];
  const statements = data.statements.filter(
    (s) =>
      !removed.has(s.subjectEntityId) &&
      !removed.has(s.predicateEntityId) &&
      !removed.has(s.objectEntityId) &&
      rng.chance(0.85),
  );
  // Fingerprints already in use stay with their triples.
  const owners = new Map<string, string>();
  for (const s of data.statements) {
    owners.set(
      s.statementFingerprint ?? deriveFingerprint(s.subjectEntityId, s.predicateEntityId, s.objectEntityId),
      JSON.stringify([s.subjectEntityId, s.predicateEntityId, s.objectEntityId]),
    );
  }
  const added: StatementInput[] = randomStatements(rng, entities, Math.ceil(data.statements.length / 3), owners);
  return { entities, statements: [...statements, ...added] };
}

/** The items of `list` strictly after `key` in the contract's order. */
export function after<T>(list: readonly T[], keyOf: (x: T) => (string | number)[], key: (string | number)[]): T[] {
  return list.filter((x) => compareKeys(keyOf(x), key) > 0);
}

/**
 * Live graph tests
 * ================
 * The property test of the live graph: seeded random base graphs, then seeded random batches of
 * puts, replacements and deletes of entities and statements (live-oracle.ts), each applied to the
 * LiveGraph and to the brute-force LiveOracle; after every batch, every search tier, type filter and
 * cursor walk, all eight statement filter shapes and getEntity compared with the oracle over the
 * content now. Batches that conflict or carry a bad line must get the oracle's error and change
 * nothing. Compactions happen on the way. Then walks interleaved with batches: every item unchanged
 * from the walk's first page to its last is returned exactly once, in order.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  type Change,
  type Entity,
  type EntityType,
  isQuiverError,
  LiveGraph,
  openSnapshot,
  saveSnapshot,
  type Statement,
} from "../../../src/index.js";
import { signatureInto } from "../../../src/engine/live/gram-signature.js";
import { warmthOf } from "../../../src/engine/live/live-graph.js";
import { collectGarbage } from "../../../src/load/collect-garbage.js";
import { randomQuery } from "../../support/graph-walks.js";
import { LiveOracle, randomBatch } from "../../support/live-oracle.js";
import {
  buildGraph,
  compareKeys,
  type EntityData,
  type FoldMode,
  type GraphData,
  withScores,
  fold,
  generateGraph,
  limitPolicy,
  type Oracle,
  randomFilters,
  Rng,
  show,
  statementKey,
  orderFor,
  tier,
  walkPages,
  type Filters,
} from "../../support/oracle.js";

/**
 * Compacts `live`: by compact() at an even sequence, else by a swap of the compacted base with its
 * warmth (warmthOf: what a compaction's worker hands over beside the graph).
 */
function compactNow(live: LiveGraph): void {
  if (live.sequence % 2 === 0) {
    live.compact();
    return;
  }
  const graph = live.buildCompacted();
  live.swapBase(graph, live.sequence, [], warmthOf(graph));
}

/**
 * Every read of `live` against `oracle`: counts, getEntity, search walks in both orders, the eight
 * filter shapes, totals asked on random pages.
 */
/**
 * Walks every page of `live`'s order=name search for each query, type and limit (one limit a walk),
 * against the oracle `now`; `countPolicy` says which pages ask for the total. `ctx` leads each
 * walk's message, which then names the query, type and limit.
 */
function walkNameSearches(
  live: LiveGraph,
  now: Oracle,
  queries: readonly string[],
  types: readonly (EntityType | undefined)[],
  limits: readonly number[],
  countPolicy: () => boolean,
  ctx: string,
): void {
  for (const q of queries)
    for (const type of types)
      for (const limit of limits)
        walkPages<Entity>({
          fetch: (l, cursor, count) => live.search({ q, type, limit: l, cursor, ...(count ? { count } : {}) }),
          expected: now.search(q, type),
          nextLimit: () => limit,
          defaultLimit: 20,
          countPolicy,
          ctx: `${ctx} q=${show(q)} type=${show(type)} limit ${limit}`,
        });
}

function compareAll(live: LiveGraph, oracle: Oracle, rng: Rng, ctx: string, searches = 6, perMask = 2): void {
  assert.is(live.entityCount, oracle.entities.length, `${ctx} entityCount`);
  assert.is(live.statementCount, oracle.statements.length, `${ctx} statementCount`);
  for (const e of oracle.entities) assert.equal(live.getEntity(e.entityId), e, `${ctx} getEntity`);
  for (let k = 0; k < searches; k++) {
    const q = randomQuery(rng, oracle);
    const type = rng.chance(0.35) ? (String(rng.int(8)) as EntityType) : undefined;
    const order = rng.chance(0.5) ? ("score" as const) : undefined;
    const where = `${ctx} search q=${show(q)} type=${show(type)} order=${show(order)}`;
    walkPages<Entity>({
      fetch: (limit, cursor, count) => live.search({ q, type, limit, cursor, order, ...(count ? { count } : {}) }),
      expected: oracle.search(q, type, order),
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      countPolicy: () => rng.chance(0.3),
      ctx: where,
    });
  }
  for (let mask = 0; mask < 8; mask++) {
    for (let k = 0; k < perMask; k++) {
      const f = randomFilters(rng, mask, oracle);
      const where = `${ctx} statements ${show(f)}`;
      walkPages<Statement>({
        fetch: (limit, cursor, count) => live.statements({ ...f, limit, cursor, ...(count ? { count } : {}) }),
        expected: oracle.statementsFor(f),
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: where,
      });
    }
  }
}

/** A bad line of one of the kinds the parser refuses, and the text of the batch with it. */
function badLine(rng: Rng): string {
  return rng.pick([
    "not json",
    "[]",
    '{"op":"upsert","entity":{}}',
    '{"op":"put"}',
    '{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","type":"9","sourceType":""}}',
    '{"op":"put","entity":{"entityId":"","rawIdentifier":"y","type":"1","sourceType":""}}',
    '{"op":"put","entity":{"entityId":"x","rawIdentifier":"\\ud800","type":"1","sourceType":""}}',
    '{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","type":"1","sourceType":"","score":-1}}',
    '{"op":"put","statement":{"subjectEntityId":"a","predicateEntityId":"b"}}',
    '{"op":"delete","entityId":"a","cascade":"yes"}',
    '{"op":"delete"}',
    '{"op":"delete","statementFingerprint":""}',
  ]);
}

for (const seed of [1, 2, 3, 4]) {
  // Half the seeds fold accents too; every base has some given scores.
  const foldMode: FoldMode = seed % 2 === 0 ? "accents" : "case";
  test(`live graph equals the oracle after every batch (seed ${seed}, fold ${foldMode})`, () => {
    const rng = new Rng(seed);
    const data = withScores(
      rng,
      generateGraph(rng, { entities: rng.range(20, 70), statements: rng.range(30, 160) }),
      0.3,
    );
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "live-test" });
    const oracle = new LiveOracle(data, foldMode);
    compareAll(live, oracle.oracle(), rng, `seed ${seed} base`);
    let applied = 0;
    let conflicts = 0;
    for (let batch = 0; batch < 30; batch++) {
      const ctx = `seed ${seed} batch ${batch}`;
      const before = live.sequence;
      if (rng.chance(0.1)) {
        // A bad line somewhere in an otherwise good batch: refused whole, naming its line.
        const lines = randomBatch(rng, oracle, { lines: rng.range(0, 4) }).map((c) => JSON.stringify(c));
        const at = rng.int(lines.length + 1);
        lines.splice(at, 0, badLine(rng));
        try {
          live.apply(lines.join("\n"));
          assert.unreachable(`${ctx}: a bad line was accepted`);
        } catch (e) {
          if (!isQuiverError(e)) throw e;
          assert.is(e.code, "INVALID_CHANGE", `${ctx}: ${e.message}`);
          assert.is(e.source?.line, at + 1, `${ctx}: ${e.message}`);
        }
        assert.is(live.sequence, before, ctx);
      } else {
        const changes = randomBatch(rng, oracle, { lines: rng.range(1, 12), conflicts: 0.08 });
        const want = oracle.apply(changes);
        let got: unknown;
        try {
          got = live.apply(rng.chance(0.5) ? changes : changes.map((c) => JSON.stringify(c)).join("\n"));
        } catch (e) {
          if (!isQuiverError(e) || want.ok) throw e;
          assert.is(e.code, want.code, `${ctx}: ${e.message}`);
          assert.is(e.source?.line, want.line, `${ctx}: ${e.message}`);
        }
        if (want.ok) {
          applied++;
          assert.equal(got, { sequence: before + 1, ...want.result }, `${ctx} ${show(changes)}`);
        } else {
          conflicts++;
          assert.is(live.sequence, before, ctx);
        }
      }
      if (rng.chance(0.1)) compactNow(live);
      compareAll(live, oracle.oracle(), rng, ctx);
    }
    assert.ok(applied > 10, `seed ${seed}: only ${applied} batches applied`);
    assert.ok(conflicts > 0, `seed ${seed}: no batch conflicted`);
    // The content equals a graph built from scratch from it: the same content tag.
    const scratch = buildGraph(oracle.data(), undefined, foldMode);
    assert.is(live.buildCompacted().contentTag, scratch.contentTag, `seed ${seed} content tag`);
  });
}

test("warmWrites changes nothing: a warmed graph and one not, given the same batches, give the same results, tags and answers (oracle); an empty base skips it", () => {
  for (const seed of [5, 6, 7]) {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 50, statements: 140 });
    const warmed = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
    const plain = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
    const oracle = new LiveOracle(data);
    warmed.warmWrites();
    assert.is(warmed.sequence, 0);
    assert.equal(warmed.deltaSize, plain.deltaSize);
    assert.is(warmed.contentTag, plain.contentTag);
    compareAll(warmed, oracle.oracle(), rng, `seed ${seed} warmed, no batch`);
    for (let batch = 0; batch < 6; batch++) {
      const changes = randomBatch(rng, oracle, { lines: rng.range(4, 30), conflicts: 0.05 });
      const want = oracle.apply(changes);
      const text = changes.map((c) => JSON.stringify(c)).join("\n");
      const outcome = (g: LiveGraph): unknown => {
        try {
          return g.apply(text);
        } catch (e) {
          return isQuiverError(e) ? `${e.code}: ${e.message}` : e;
        }
      };
      const got = outcome(warmed);
      assert.equal(got, outcome(plain), `seed ${seed} batch ${batch}`);
      assert.is(typeof got === "object" && got !== null && "sequence" in got, want.ok, `seed ${seed} batch ${batch}`);
      assert.is(warmed.contentTag, plain.contentTag, `seed ${seed} batch ${batch} tag`);
      compareAll(warmed, oracle.oracle(), rng, `seed ${seed} warmed, batch ${batch}`);
    }
  }
  const empty = new LiveGraph(buildGraph({ entities: [], statements: [] }));
  empty.warmWrites();
  assert.is(empty.sequence, 0);
});

test("two live graphs over one base with other batches at one sequence have other tags; one batch given again gives one tag, respelled another (regression: the tag named base + sequence only)", () => {
  const rng = new Rng(41);
  const data = generateGraph(rng, { entities: 40, statements: 90 });
  const base = buildGraph(data);
  const graphs = [0, 1, 2, 3].map(() => new LiveGraph(base, { cursorSecret: "live-test" }));
  const [a, b, c, d] = graphs as [LiveGraph, LiveGraph, LiveGraph, LiveGraph];
  const put = (raw: string): Change => ({
    op: "put",
    entity: { entityId: "tag:x", rawIdentifier: raw, type: "3" as EntityType, sourceType: "t" },
  });
  a.apply([put("tag one")]);
  b.apply([put("tag two")]);
  assert.is(a.sequence, b.sequence);
  assert.is.not(a.contentTag, b.contentTag);
  // The same change again as objects (no change log: named by its checked changes): one tag. As
  // JSON Lines, respelled (keys in another order, an ignored field, a blank line): the same content
  // under another tag, which the contract allows (one tag must mean one content, not the converse).
  c.apply([put("tag one")]);
  d.apply(
    '\n{"entity":{"sourceType":"t","type":"3","rawIdentifier":"tag one","entityId":"tag:x","note":1},"op":"put"}\n',
  );
  assert.is(c.contentTag, a.contentTag);
  assert.is.not(d.contentTag, a.contentTag);
  assert.equal(d.search({ q: "tag one" }), a.search({ q: "tag one" }));
  // A deletion and a put back: the content of graph a again at sequence 3, but by other batches.
  b.apply([{ op: "delete", entityId: "tag:x" }]);
  b.apply([put("tag one")]);
  a.apply([put("tag one")]);
  a.apply([put("tag one")]);
  assert.is(a.sequence, b.sequence);
  assert.is.not(a.contentTag, b.contentTag, "two histories: two tags (allowed: one tag is what must mean one content)");
  // Compacted, each holds the content alone: the tags name it (and the first base), equal again.
  a.compact();
  b.compact();
  assert.is(a.contentTag, b.contentTag);
});

test("big batches of statement puts over base entities (sorted into the delta by dense ids) equal the oracle", () => {
  const rng = new Rng(21);
  const data = generateGraph(rng, { entities: 60, statements: 150 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
  const oracle = new LiveOracle(data);
  const ids = data.entities.map((e) => e.entityId);
  const there = () => [...oracle.statements.values()];
  for (let batch = 0; batch < 6; batch++) {
    const changes: Change[] = [];
    for (let k = rng.range(300, 600); k > 0; k--) {
      const r = rng.float();
      // Each branch: a derived put (some repeat a triple), a given fingerprint on a triple, a delete.
      if (r < 0.7)
        changes.push({
          op: "put",
          statement: {
            subjectEntityId: rng.pick(ids),
            predicateEntityId: rng.pick(ids),
            objectEntityId: rng.pick(ids),
          },
        });
      else if (r < 0.9)
        changes.push({
          op: "put",
          statement: {
            subjectEntityId: rng.pick(ids),
            predicateEntityId: rng.pick(ids),
            objectEntityId: rng.pick(ids),
            statementFingerprint: `given-${batch}-${k}`,
          },
        });
      else if (there().length > 0)
        changes.push({ op: "delete", statementFingerprint: rng.pick(there()).statementFingerprint });
    }
    const want = oracle.apply(changes);
    assert.ok(want.ok, `batch ${batch}`);
    const got = live.apply(changes.map((c) => JSON.stringify(c)).join("\n"));
    assert.equal(got, { sequence: batch + 1, ...(want.ok ? want.result : {}) }, `batch ${batch}`);
    compareAll(live, oracle.oracle(), rng, `big batch ${batch}`);
  }
  assert.is(live.buildCompacted().contentTag, buildGraph(oracle.data()).contentTag);
});

test("batches that name a few entities many times, with cascades, fresh puts deleted and put again, and repeats, equal the oracle", () => {
  // Commit finds the fingerprints new to the delta and the base by their places in the batch's map
  // (PreparedBatch.freshPlaces): a cascade's deletes ahead of the puts shift those places; a fresh
  // put deleted and put again in the batch keeps its first place; a repeat, a put of a statement the
  // delta or the base holds, and a delete of an unknown fingerprint take no place.
  const rng = new Rng(33);
  const data = generateGraph(rng, { entities: 40, statements: 200 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
  const oracle = new LiveOracle(data);
  let next = 0;
  for (let batch = 0; batch < 12; batch++) {
    const ids = [...oracle.entities.keys()];
    // A few entities, named by most lines: the same subject, predicate and object over and over.
    const few = Array.from({ length: 3 }, () => rng.pick(ids));
    const name = () => (rng.chance(0.8) ? rng.pick(few) : rng.pick(ids));
    const changes: Change[] = [];
    // Each branch: a cascade first (its deletes go into the batch's map before every put), or none.
    if (rng.chance(0.6)) {
      const gone = rng.pick(ids.filter((id) => !few.includes(id)));
      changes.push({ op: "delete", entityId: gone, cascade: true });
    }
    const puts: Change[] = [];
    for (let k = rng.range(20, 120); k > 0; k--) {
      const r = rng.float();
      const held = [...oracle.statements.values()];
      const gone = (changes[0] as { entityId?: string } | undefined)?.entityId;
      const ok = (id: string) => id !== gone;
      const s = name();
      const p = name();
      const o = name();
      if (!ok(s) || !ok(p) || !ok(o)) continue;
      // Each branch: a derived put (repeats come from the few names); a put given a fingerprint of
      // its own; one put, deleted, then put again; a put of a held statement again; an unknown delete.
      if (r < 0.5) puts.push({ op: "put", statement: { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } });
      else if (r < 0.65)
        puts.push({
          op: "put",
          statement: {
            subjectEntityId: s,
            predicateEntityId: p,
            objectEntityId: o,
            statementFingerprint: `f${next++}`,
          },
        });
      else if (r < 0.8) {
        const fp = `again${next++}`;
        const st = { subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint: fp };
        puts.push({ op: "put", statement: st }, { op: "delete", statementFingerprint: fp });
        if (rng.chance(0.7)) puts.push({ op: "put", statement: st });
      } else if (r < 0.9 && held.length > 0) {
        const st = rng.pick(held);
        if (ok(st.subjectEntityId) && ok(st.predicateEntityId) && ok(st.objectEntityId))
          puts.push({ op: "put", statement: st });
      } else puts.push({ op: "delete", statementFingerprint: `unknown${next++}` });
    }
    changes.push(...puts);
    const want = oracle.apply(changes);
    assert.ok(want.ok, `batch ${batch}: ${JSON.stringify(want)}`);
    const got = live.apply(changes.map((c) => JSON.stringify(c)).join("\n"));
    assert.equal(got, { sequence: batch + 1, ...(want.ok ? want.result : {}) }, `batch ${batch}`);
    compareAll(live, oracle.oracle(), rng, `batch ${batch}`);
  }
  assert.is(live.buildCompacted().contentTag, buildGraph(oracle.data()).contentTag);
});

test("statements by every entity ever there (base, put since, deleted) as first filter, in each order, equal the oracle", () => {
  // The delta's first-component marks are by base dense id: an entity put since the base (no
  // dense id) and a deleted base entity (marked by its tombstones) must each find their statements.
  const rng = new Rng(71);
  const data = generateGraph(rng, { entities: 40, statements: 120 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
  const oracle = new LiveOracle(data);
  const seen = new Set(data.entities.map((e) => e.entityId));
  for (let batch = 0; batch < 12; batch++) {
    const changes = randomBatch(rng, oracle, { lines: rng.range(4, 16) });
    if (!oracle.apply(changes).ok) continue;
    live.apply(changes);
    const now = oracle.oracle();
    for (const e of now.entities) seen.add(e.entityId);
    for (const id of seen)
      for (const f of [
        { subjectEntityId: id },
        { predicateEntityId: id },
        { objectEntityId: id },
        { subjectEntityId: id, predicateEntityId: rng.pick([...seen]) },
        { objectEntityId: id, subjectEntityId: rng.pick([...seen]) },
      ])
        walkPages<Statement>({
          fetch: (limit, cursor, count) => live.statements({ ...f, limit, cursor, ...(count ? { count } : {}) }),
          expected: now.statementsFor(f),
          nextLimit: limitPolicy(rng, 5),
          defaultLimit: 50,
          countPolicy: () => rng.chance(0.3),
          ctx: `batch ${batch} statements ${show(f)}`,
        });
  }
});

test("unfiltered statements pages after a cursor (searched from the key's own entity; a merged page's cursor with the base's position hint) equal the oracle, across batches", () => {
  // Delta lists longer than a few fence strides, new entities ranking between base ones, and
  // tombstones: every page of every walk, then each cursor issued before a batch followed after it.
  const rng = new Rng(79);
  const data = generateGraph(rng, { entities: 60, statements: 700 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "unfiltered-test" });
  const oracle = new LiveOracle(data);
  let issued: { cursor: string; last: string[] }[] = [];
  for (let batch = 0; batch < 8; batch++) {
    const changes = randomBatch(rng, oracle, { lines: rng.range(30, 90) });
    if (!oracle.apply(changes).ok) continue;
    live.apply(changes);
    const expected = oracle.oracle().statementsFor({});
    for (const { cursor, last } of issued) {
      const want = expected.filter((st) => compareKeys(statementKey("SPO", st), last) > 0).slice(0, 7);
      assert.equal(live.statements({ limit: 7, cursor }).items, want, `batch ${batch}: a cursor after ${show(last)}`);
    }
    issued = [];
    for (const limit of [1, 3, 16, 50, 200]) {
      let cursor: string | undefined;
      walkPages<Statement>({
        fetch: (l, c, count) => {
          const page = live.statements({ limit: l, cursor: c, ...(count ? { count } : {}) });
          cursor = page.nextCursor ?? undefined;
          if (cursor !== undefined && rng.chance(0.2))
            issued.push({ cursor, last: statementKey("SPO", page.items[page.items.length - 1]!) });
          return page;
        },
        expected,
        nextLimit: () => limit,
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: `batch ${batch} unfiltered, limit ${limit}`,
      });
    }
  }
});

/** The oracle's sort key of an item for a query (search) or filters (statements). */
function searchKey(q: string, e: Entity): (string | number)[] {
  const f = fold(e.rawIdentifier);
  return [tier(f, fold(q)), f, e.entityId];
}

for (const seed of [11, 12, 13]) {
  test(`walks across batches and compactions return every unchanged item exactly once (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 80, statements: 200 });
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "walk-test" });
    const oracle = new LiveOracle(data);
    for (let walk = 0; walk < 24; walk++) {
      const isSearch = walk % 2 === 0;
      const o0 = oracle.oracle();
      const q = randomQuery(rng, o0);
      const type = rng.chance(0.3) ? (String(rng.int(8)) as EntityType) : undefined;
      const f: Filters = randomFilters(rng, rng.int(8), o0);
      const list = (o: Oracle): object[] => (isSearch ? o.search(q, type) : o.statementsFor(f));
      const keyOf = (x: object): (string | number)[] =>
        isSearch ? searchKey(q, x as Entity) : statementKey(orderFor(f), x as Statement);
      // Items present (with the same fields) at every step of the walk.
      let stable = new Set(list(o0).map((x) => JSON.stringify(x)));
      const got: object[] = [];
      let cursor: string | undefined;
      const ctx = `seed ${seed} walk ${walk} ${isSearch ? `search ${show(q)} ${show(type)}` : `statements ${show(f)}`}`;
      for (let page = 0; page < 500; page++) {
        const limit = rng.range(1, 4);
        const p = isSearch ? live.search({ q, type, limit, cursor }) : live.statements({ ...f, limit, cursor });
        const now = new Set(list(oracle.oracle()).map((x) => JSON.stringify(x)));
        for (const item of p.items) {
          assert.ok(now.has(JSON.stringify(item)), `${ctx}: page ${page} item ${show(item)} is not in the content`);
          got.push(item);
        }
        if (p.nextCursor === null) break;
        cursor = p.nextCursor;
        // Between pages: a batch (or a bad one, or a compaction).
        const changes = randomBatch(rng, oracle, { lines: rng.range(1, 5), conflicts: 0.05 });
        if (oracle.apply(changes).ok) live.apply(changes);
        else assert.throws(() => live.apply(changes));
        if (rng.chance(0.1)) live.compact();
        const after = new Set(list(oracle.oracle()).map((x) => JSON.stringify(x)));
        stable = new Set([...stable].filter((x) => after.has(x)));
      }
      const seen = new Map<string, number>();
      for (const item of got) seen.set(JSON.stringify(item), (seen.get(JSON.stringify(item)) ?? 0) + 1);
      for (const item of stable)
        assert.is(seen.get(item), 1, `${ctx}: unchanged item ${item} returned ${seen.get(item) ?? 0} times`);
      // Keyset order: every item after the one before it.
      for (let i = 1; i < got.length; i++)
        assert.ok(compareKeys(keyOf(got[i - 1]!), keyOf(got[i]!)) < 0, `${ctx}: items ${i - 1} and ${i} out of order`);
    }
  });
}

/**
 * Every page of `q` in order "score" on `live` (pages of `nextLimit` items, a total asked on about
 * a fifth of them) equals the oracle's whole walk.
 */
function walkScoreSearch(
  live: LiveGraph,
  o: Oracle,
  rng: Rng,
  q: string,
  type: EntityType | undefined,
  nextLimit: () => number,
  ctx: string,
): void {
  walkPages<Entity>({
    fetch: (limit, cursor, count) =>
      live.search({ q, type, limit, cursor, order: "score", ...(count ? { count } : {}) }),
    expected: o.search(q, type, "score"),
    nextLimit,
    defaultLimit: 20,
    countPolicy: () => rng.chance(0.2),
    ctx: `${ctx} search q=${show(q)} type=${show(type)}`,
  });
}
/**
 * A graph for score-only changes: entities named from a few syllables (queries match many, names
 * repeat: ties on score and on name), some with given scores, statements among them.
 */
function scoreGraph(rng: Rng, entities: number, statements: number): GraphData {
  const syllables = ["ka", "ri", "no", "ka ri", "mo"];
  const list: EntityData[] = [];
  for (let i = 0; i < entities; i++) {
    const raw = `${rng.pick(syllables)}${rng.pick(syllables)}${rng.chance(0.3) ? "" : ` ${rng.int(4)}`}`;
    const entity: EntityData = {
      entityId: `e${String(i).padStart(3, "0")}`,
      rawIdentifier: raw,
      type: "0",
      sourceType: "",
    };
    if (rng.chance(0.15)) entity.score = rng.int(12);
    list.push(entity);
  }
  const triples: GraphData["statements"] = [];
  const seen = new Set<string>();
  while (triples.length < statements) {
    const t = [rng.pick(list).entityId, rng.pick(list).entityId, rng.pick(list).entityId] as const;
    if (seen.has(t.join(" "))) continue;
    seen.add(t.join(" "));
    triples.push({ subjectEntityId: t[0], predicateEntityId: t[1], objectEntityId: t[2] });
  }
  return { entities: list, statements: triples };
}

/**
 * A batch of entity changes over syllable names (queries match many, in every tier): new entities,
 * replacements (a new name, maybe another type) and deletes with cascade, some of them of the base
 * entities whose names are exactly a query or start with one (tier boundaries).
 */
function entityBatch(rng: Rng, oracle: LiveOracle, next: () => number): Change[] {
  const syllables = ["ka", "ri", "no", "ka ri", "mo"];
  const name = () => `${rng.pick(syllables)}${rng.chance(0.4) ? "" : rng.pick(syllables)}`;
  const ids = [...oracle.entities.keys()];
  const out: Change[] = [];
  for (let k = rng.range(1, 8); k > 0; k--) {
    const r = rng.int(10);
    const type = String(rng.int(2)) as EntityType;
    if (r < 4) out.push({ op: "put", entity: { entityId: `n${next()}`, rawIdentifier: name(), type, sourceType: "" } });
    else if (r < 7)
      out.push({ op: "put", entity: { entityId: rng.pick(ids), rawIdentifier: name(), type, sourceType: "" } });
    else out.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
  }
  return out;
}

for (const seed of [41, 42]) {
  test(`order=name over entity churn: small pages equal the oracle, tombstones and delta entities at page and tier boundaries (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = scoreGraph(rng, 80, 120);
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "name-test" });
    const oracle = new LiveOracle(data);
    let n = 0;
    const queries = ["ka", "ri", "a", "ka ri", "o", "kari", "mo", "nok"];
    for (let batch = 0; batch < 30; batch++) {
      const changes = entityBatch(rng, oracle, () => n++);
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      const o = oracle.oracle();
      const ctx = `seed ${seed} batch ${batch}`;
      for (const q of queries) {
        const type = rng.chance(0.3) ? ("0" as EntityType) : undefined;
        walkPages<Entity>({
          fetch: (limit, cursor, count) => live.search({ q, type, limit, cursor, ...(count ? { count } : {}) }),
          expected: o.search(q, type),
          nextLimit: () => rng.range(1, 4),
          defaultLimit: 20,
          countPolicy: () => rng.chance(0.3),
          ctx: `${ctx} search q=${show(q)} type=${show(type)}`,
        });
      }
      // Statements naming the churned entities (their tombstones in the ranges), in small pages.
      for (let mask = 0; mask < 8; mask++) {
        const f = randomFilters(rng, mask, o);
        walkPages<Statement>({
          fetch: (limit, cursor, count) => live.statements({ ...f, limit, cursor, ...(count ? { count } : {}) }),
          expected: o.statementsFor(f),
          nextLimit: () => rng.range(1, 4),
          defaultLimit: 50,
          countPolicy: () => rng.chance(0.3),
          ctx: `${ctx} statements ${show(f)}`,
        });
      }
    }
  });
}

for (const [seed, foldMode] of [
  [43, "case"],
  [44, "accents"],
] as const) {
  test(`order=name over names whose fold is not their lower case (accents, ligatures, İ, ß, marks after ASCII letters): pages equal the oracle (seed ${seed}, fold ${foldMode})`, () => {
    // Base and delta names share ASCII prefixes in mixed case and differ at, or right before, a
    // character that folds with what follows, so the merge and the delta's check compare a delta
    // name with a base name's raw identifier where its ASCII characters do not decide.
    const rng = new Rng(seed);
    const syllables = ["Ka", "ka", "KA", "kä", "ka\u0301", "ﬁ", "Fi", "ß", "SS", "İ", "i", "ri", "Ri ", "é", "e\u0301"];
    const name = () =>
      Array.from({ length: rng.range(1, 4) }, () => rng.pick(syllables)).join(rng.chance(0.3) ? " " : "");
    const entities = Array.from({ length: 120 }, (_, i) => ({
      entityId: `e${String(i).padStart(3, "0")}`,
      rawIdentifier: name(),
      type: String(rng.int(2)) as EntityType,
      sourceType: "",
    }));
    const data = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "fold-test" });
    const oracle = new LiveOracle(data, foldMode);
    const queries = ["ka", "kä", "fi", "ss", "i", "ri", "a ", "é", "kak", "ka ri", "ssi", "fika"];
    let n = 0;
    for (let batch = 0; batch < 12; batch++) {
      const ids = [...oracle.entities.keys()];
      const changes: Change[] = [];
      for (let k = rng.range(1, 10); k > 0; k--) {
        const r = rng.int(10);
        const type = String(rng.int(2)) as EntityType;
        if (r < 5)
          changes.push({ op: "put", entity: { entityId: `n${n++}`, rawIdentifier: name(), type, sourceType: "" } });
        else if (r < 8)
          changes.push({ op: "put", entity: { entityId: rng.pick(ids), rawIdentifier: name(), type, sourceType: "" } });
        else changes.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      const o = oracle.oracle();
      for (const q of queries) {
        const type = rng.chance(0.3) ? ("1" as EntityType) : undefined;
        walkPages<Entity>({
          fetch: (limit, cursor, count) => live.search({ q, type, limit, cursor, ...(count ? { count } : {}) }),
          expected: o.search(q, type),
          nextLimit: () => rng.range(1, 6),
          defaultLimit: 20,
          countPolicy: () => rng.chance(0.3),
          ctx: `seed ${seed} batch ${batch} search q=${show(q)} type=${show(type)}`,
        });
      }
    }
  });
}

test("order=name: a page the base's page answers as it is carries the cursor the base alone seals (same bytes), with tombstones on it too", () => {
  const entities = Array.from({ length: 30 }, (_, i) => ({
    entityId: `e${String(i).padStart(2, "0")}`,
    rawIdentifier: `Item ${String(i).padStart(2, "0")}`,
    type: "0" as EntityType,
    sourceType: "",
  }));
  const base = buildGraph({ entities, statements: [] }, "same-secret");
  const live = new LiveGraph(base, { cursorSecret: "same-secret" });
  // Delta entities that do not match "item"; a tombstone past the first pages.
  live.apply([
    { op: "put", entity: { entityId: "x1", rawIdentifier: "other", type: "0", sourceType: "" } },
    { op: "delete", entityId: "e22" },
  ]);
  let liveCursor: string | undefined;
  let baseCursor: string | undefined;
  for (let page = 0; page < 4; page++) {
    const l = live.search({ q: "item", limit: 5, cursor: liveCursor });
    const b = base.search({ q: "item", limit: 5, cursor: baseCursor });
    assert.equal(l.items, b.items, `page ${page}`);
    assert.is(l.nextCursor, b.nextCursor, `page ${page}: the base's cursor`);
    liveCursor = l.nextCursor ?? undefined;
    baseCursor = b.nextCursor ?? undefined;
  }
  // The page with the tombstone: read one longer, its cursor the longer base page's (as the base seals it).
  const l = live.search({ q: "item", limit: 5, cursor: liveCursor });
  const b = base.search({ q: "item", limit: 6, cursor: baseCursor });
  assert.equal(
    l.items,
    b.items.filter((e) => e.entityId !== "e22"),
  );
  assert.is(l.nextCursor, b.nextCursor);
});

test("order=name walks resume after a key whose fourth character folds into its third (its head is not its first characters' lower case)", () => {
  // Every item is a cursor's key at limit 1: base and delta names that start with three ASCII
  // letters and then a combining mark (NFKC makes "e" + U+0301 one "é"), beside names of heads near theirs.
  const names = [
    "abe\u0301",
    "abex",
    "ab\u00e9",
    "abf",
    "abe",
    "ABE\u0301z",
    "abd",
    "abe\u0301a",
    "Abe\u0301b",
    "abé c",
  ];
  for (const foldMode of ["case", "accents"] as const) {
    const entities = names.map((rawIdentifier, i) => ({
      entityId: `b${i}`,
      rawIdentifier: `${rawIdentifier} zz`,
      type: "0" as EntityType,
      sourceType: "",
    }));
    const data = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "head-test" });
    const oracle = new LiveOracle(data, foldMode);
    const changes: Change[] = names.map((rawIdentifier, i) => ({
      op: "put",
      entity: {
        entityId: `d${i}`,
        rawIdentifier: `${rawIdentifier}${i % 2 === 0 ? "" : " x"} zz`,
        type: "0",
        sourceType: "",
      },
    }));
    assert.ok(oracle.apply(changes).ok);
    live.apply(changes);
    const o = oracle.oracle();
    // Queries of a gram or more hold every name in one posting list (its binary searches read heads).
    for (const q of ["ab", "be", "abe", "b", " zz", "z"])
      for (let limit = 1; limit <= 4; limit++) {
        const got: Entity[] = [];
        let cursor: string | undefined;
        do {
          const page = live.search({ q, limit, cursor });
          got.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.equal(got, o.search(q, undefined), `${foldMode} q ${show(q)} limit ${limit}`);
      }
  }
});

test("order=name merges that place runs of base items around delta items (at a page's start, middle and end, and past the base page read) equal the oracle at every limit", () => {
  const entities = Array.from({ length: 60 }, (_, i) => ({
    entityId: `e${String(i).padStart(2, "0")}`,
    rawIdentifier: `${i % 3 === 0 ? "Item" : "item"} ${String(i).padStart(2, "0")}`,
    type: String(i % 2) as EntityType,
    sourceType: "",
  }));
  const data = { entities, statements: [] };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "runs-test" });
  const oracle = new LiveOracle(data);
  // Delta names between base ones, alone and in runs, a prefix-tier one and an infix-tier one, and tombstones.
  const changes: Change[] = [
    ...["00a", "04a", "04b", "04c", "17a", "39a", "59a", "59b"].map((n, i) => ({
      op: "put" as const,
      entity: { entityId: `d${i}`, rawIdentifier: `ITEM ${n}`, type: String(i % 2) as EntityType, sourceType: "" },
    })),
    { op: "put", entity: { entityId: "d9", rawIdentifier: "an item", type: "0", sourceType: "" } },
    { op: "put", entity: { entityId: "d10", rawIdentifier: "item", type: "1", sourceType: "" } },
    { op: "delete", entityId: "e05" },
    { op: "delete", entityId: "e18" },
    { op: "delete", entityId: "e40" },
  ];
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const o = oracle.oracle();
  for (const q of ["item", "item 0", "tem", "m 5"])
    for (const type of [undefined, "0" as EntityType])
      for (let limit = 1; limit <= 25; limit++) {
        const got: Entity[] = [];
        let cursor: string | undefined;
        do {
          const page = live.search({ q, type, limit, cursor });
          got.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.equal(got, o.search(q, type), `q ${show(q)} type ${show(type)} limit ${limit}`);
      }
});

test("order=name totals over names holding U+0000 (the joined list's separator): a match across two names is no name's", () => {
  const live = new LiveGraph(
    buildGraph({ entities: [{ entityId: "a", rawIdentifier: "base", type: "0", sourceType: "" }], statements: [] }),
    { cursorSecret: "nul-test" },
  );
  const names = ["zzab", "czz", "qab\u0000cq", "zzab\u0000c", "ab", "cab\u0000\u0000c", "\u0000cab"];
  live.apply(
    names.map((rawIdentifier, i) => ({
      op: "put" as const,
      entity: { entityId: `d${i}`, rawIdentifier, type: String(i % 2) as EntityType, sourceType: "" },
    })),
  );
  for (const q of ["ab\u0000c", "zab\u0000", "b\u0000cq", "\u0000\u0000c", "b\u0000\u0000", "zzab", "\u0000cab"])
    for (const type of [undefined, "0" as EntityType, "1" as EntityType]) {
      const expected = names.filter((n, i) => n.includes(q) && (type === undefined || String(i % 2) === type));
      const page = live.search({ q, type, count: true });
      assert.is(page.total, expected.length, `q=${show(q)} type=${show(type)}`);
      assert.is(page.items.length, expected.length, `q=${show(q)} type=${show(type)} items`);
    }
});

/**
 * A batch of statement puts and deletes only (scores move, nothing else): most name any entity,
 * some name one of a few hubs (their counts move far), so both small and large moves occur.
 */
function scoreBatch(rng: Rng, oracle: LiveOracle, hubs: readonly string[]): Change[] {
  const ids = [...oracle.entities.keys()];
  const pick = () => (rng.chance(0.3) ? rng.pick(hubs) : rng.pick(ids));
  const out: Change[] = [];
  for (let k = rng.range(1, 10); k > 0; k--) {
    const existing = [...oracle.statements.values()];
    if (rng.chance(0.35) && existing.length > 0)
      out.push({ op: "delete", statementFingerprint: rng.pick(existing).statementFingerprint });
    else
      out.push({
        op: "put",
        statement: { subjectEntityId: pick(), predicateEntityId: pick(), objectEntityId: pick() },
      });
  }
  return out;
}

for (const seed of [21, 22, 23]) {
  test(`order=score over score-only changes: walks equal the oracle, and cursors resume exactly across batches (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = scoreGraph(rng, 70, 120);
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "score-test" });
    const oracle = new LiveOracle(data);
    const hubs = data.entities.slice(0, 4).map((e) => e.entityId);
    const queries = ["ka", "ri", "a", "ka ri", "o", "no 1", "mo"];
    /** The key of `e` for `q` in order "score" (tier, score negated, fold, entityId), by the oracle `o`. */
    const keyOf = (o: Oracle, q: string, e: Entity): (string | number)[] => {
      const i = o.entities.findIndex((x) => x.entityId === e.entityId);
      return [tier(fold(e.rawIdentifier), fold(q)), -o.scores[i]!, fold(e.rawIdentifier), e.entityId];
    };
    for (let batch = 0; batch < 40; batch++) {
      const changes = scoreBatch(rng, oracle, hubs);
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      if (rng.chance(0.05)) live.compact();
      const o = oracle.oracle();
      const ctx = `seed ${seed} batch ${batch}`;
      // Whole walks in small pages: rescored entities cross page boundaries.
      for (const q of queries) {
        const type = rng.chance(0.2) ? ("0" as EntityType) : undefined;
        walkScoreSearch(live, o, rng, q, type, () => rng.range(1, 4), ctx);
      }
      // A cursor issued now, followed after the next batch: the page is what follows its key now.
      const q = rng.pick(queries);
      const first = live.search({ q, order: "score", limit: rng.range(1, 6) });
      if (first.nextCursor === null) continue;
      const last = keyOf(o, q, first.items[first.items.length - 1]!);
      const next = scoreBatch(rng, oracle, hubs);
      if (!oracle.apply(next).ok) continue;
      live.apply(next);
      const now = oracle.oracle();
      const limit = rng.range(1, 6);
      const want = now
        .search(q, undefined, "score")
        .filter((e) => compareKeys(keyOf(now, q, e), last) > 0)
        .slice(0, limit);
      const got = live.search({ q, order: "score", limit, cursor: first.nextCursor });
      assert.equal(got.items, want, `${ctx} q=${show(q)}: the page after a cursor of the batch before`);
    }
  });
}

/**
 * A batch that moves scores every way order=score's merge tells apart: statement puts and deletes
 * (raises of 1 or 2 stay in the base's stream, larger raises and every drop leave it), some naming
 * hubs (far moves); entity puts with and without a given score (new, or replacing a counted or a
 * given one), and deletes with cascade (an entity that left the stream deleted).
 */
function churnBatch(rng: Rng, oracle: LiveOracle, hubs: readonly string[], next: () => number): Change[] {
  const syllables = ["ka", "ri", "no", "ka ri", "mo"];
  const name = () => `${rng.pick(syllables)}${rng.chance(0.4) ? "" : rng.pick(syllables)}`;
  const ids = [...oracle.entities.keys()];
  const out: Change[] = [];
  for (let k = rng.range(1, 12); k > 0; k--) {
    const r = rng.int(20);
    const score = rng.chance(0.5) ? { score: rng.int(14) } : {};
    if (r < 2)
      out.push({
        op: "put",
        entity: { entityId: `n${next()}`, rawIdentifier: name(), type: "0", sourceType: "", ...score },
      });
    else if (r < 4) {
      const e = oracle.entities.get(rng.pick(ids))!;
      // Its name kept or not: a replacement moves it out of the base either way.
      const raw = rng.chance(0.5) ? e.rawIdentifier : name();
      out.push({
        op: "put",
        entity: { entityId: e.entityId, rawIdentifier: raw, type: e.type, sourceType: "", ...score },
      });
    } else if (r < 5) out.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
    else out.push(...scoreBatch(rng, oracle, hubs).slice(0, 1));
  }
  return out;
}

for (const seed of [31, 32]) {
  test(`order=score over churn: scores raised and lowered across the stream's bound, given scores replaced, entities deleted; walks equal the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    // Enough entities that a prefix tier ("ka", "ri") is long beside the query's rescored candidates.
    const data = scoreGraph(rng, 240, 300);
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "churn-test" });
    const oracle = new LiveOracle(data);
    const hubs = data.entities.slice(0, 4).map((e) => e.entityId);
    let n = 0;
    const queries = ["ka", "ri", "a", "ka ri", "kari", "no 1", "mo", "rika", "k"];
    for (let batch = 0; batch < 25; batch++) {
      const changes = churnBatch(rng, oracle, hubs, () => n++);
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      if (rng.chance(0.04)) live.compact();
      const o = oracle.oracle();
      const ctx = `seed ${seed} batch ${batch}`;
      for (const q of queries) {
        const type = rng.chance(0.2) ? ("0" as EntityType) : undefined;
        // Small pages, and large ones that pass a whole prefix tier into the infix tier.
        walkScoreSearch(live, o, rng, q, type, () => (rng.chance(0.3) ? rng.range(60, 100) : rng.range(1, 12)), ctx);
      }
    }
  });
}

for (const seed of [41, 42]) {
  test(`order=score: base entities lowered by a few (placed from the listing by their stream state) and by more than a state holds (by their adjustment), walked from the start and resumed, across batches and compactions, equal the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = scoreGraph(rng, 160, 200);
    // Hubs of many statements (counted scores), so that deletes lower them by one to dozens.
    const hubs = data.entities.slice(0, 6).map((e) => e.entityId);
    for (const e of data.entities.slice(0, 6)) delete e.score;
    const seen = new Set(data.statements.map((t) => `${t.subjectEntityId} ${t.predicateEntityId} ${t.objectEntityId}`));
    for (const [h, hub] of hubs.entries())
      for (let k = 0; k < 12 + 8 * h; ) {
        const t = {
          subjectEntityId: hub,
          predicateEntityId: rng.pick(data.entities).entityId,
          objectEntityId: rng.pick(data.entities).entityId,
        };
        const key = `${t.subjectEntityId} ${t.predicateEntityId} ${t.objectEntityId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        data.statements.push(t);
        k++;
      }
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "lowered-test" });
    const oracle = new LiveOracle(data);
    const queries = ["ka", "ri", "a", "ka ri", "no 1", "mo", "k"];
    const baseScores = new Map(oracle.oracle().entities.map((e, i) => [e.entityId, oracle.oracle().scores[i]!]));
    let far = 0;
    let near = 0;
    for (let batch = 0; batch < 24; batch++) {
      // Deletes, most of a hub's statements (its count falls far), some puts (raises in and past the bound).
      const changes: Change[] = [];
      const existing = [...oracle.statements.values()];
      for (let k = rng.range(1, 8); k > 0; k--) {
        const hubbed = existing.filter((t) => hubs.includes(t.subjectEntityId));
        if (rng.chance(0.7) && hubbed.length > 0)
          changes.push({ op: "delete", statementFingerprint: rng.pick(hubbed).statementFingerprint });
        else changes.push(...scoreBatch(rng, oracle, hubs).slice(0, 1));
      }
      const unique = [...new Map(changes.map((c) => [JSON.stringify(c), c])).values()];
      if (!oracle.apply(unique).ok) continue;
      live.apply(unique);
      if (rng.chance(0.08)) {
        live.compact();
        const o = oracle.oracle();
        baseScores.clear();
        for (const [i, e] of o.entities.entries()) baseScores.set(e.entityId, o.scores[i]!);
      }
      const o = oracle.oracle();
      o.entities.forEach((e, i) => {
        const drop = (baseScores.get(e.entityId) ?? 0) - o.scores[i]!;
        if (drop > 11) far++;
        else if (drop > 0) near++;
      });
      const ctx = `seed ${seed} batch ${batch}`;
      for (const q of queries) {
        const type = rng.chance(0.2) ? ("0" as EntityType) : undefined;
        walkScoreSearch(live, o, rng, q, type, () => (rng.chance(0.2) ? rng.range(20, 60) : rng.range(1, 6)), ctx);
      }
    }
    // Both kinds of drop were walked (a state's few, and past it).
    assert.ok(far > 0 && near > 0, `seed ${seed}: drops past a state's ${far}, within ${near}`);
  });
}

/**
 * A name over many letters (the query's other grams often missing: gram signatures rule most
 * candidates out) around a few shared stems (queries of a stem match in every tier).
 */
function wordName(rng: Rng): string {
  const stems = ["kar", "rin", "nok", "mol", "tes", "vax", "quo", "zel"];
  let s = rng.pick(stems);
  for (let k = rng.range(0, 3); k > 0; k--)
    s += rng.chance(0.3) ? ` ${rng.pick(stems)}` : String.fromCharCode(97 + rng.int(26));
  return s;
}

for (const seed of [51, 52]) {
  test(`order=score over varied names: the delta's and the rescored walks by their score and signature columns, a better tier's delta entities among many candidates; every page equals the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = scoreGraph(rng, 200, 320);
    for (const e of data.entities) e.rawIdentifier = wordName(rng);
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "words-test" });
    const oracle = new LiveOracle(data);
    const hubs = data.entities.slice(0, 4).map((e) => e.entityId);
    let n = 0;
    for (let batch = 0; batch < 14; batch++) {
      const ids = [...oracle.entities.keys()];
      const changes: Change[] = [];
      // Many new entities of a stem (more than the few candidates checked one by one), names
      // replaced, deletes with cascade, and statements that raise and lower scores.
      for (let k = rng.range(10, 30); k > 0; k--) {
        const r = rng.int(10);
        const score = rng.chance(0.3) ? { score: rng.int(14) } : {};
        if (r < 4)
          changes.push({
            op: "put",
            entity: { entityId: `w${n++}`, rawIdentifier: wordName(rng), type: "0", sourceType: "", ...score },
          });
        else if (r < 5) {
          const e = oracle.entities.get(rng.pick(ids))!;
          changes.push({ op: "put", entity: { ...e, rawIdentifier: wordName(rng), ...score } });
        } else if (r < 6) changes.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
        else changes.push(...scoreBatch(rng, oracle, hubs).slice(0, 1));
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      const o = oracle.oracle();
      const names = [...oracle.entities.values()].map((e) => e.rawIdentifier);
      // Stems (every tier, a single gram), and cuts of current names of 3 to 7 code units.
      const queries = ["kar", "quo", rng.pick(names).slice(0, 4)];
      for (let k = 0; k < 4; k++) {
        const name = rng.pick(names);
        const at = rng.int(Math.max(1, name.length - 3));
        queries.push(name.slice(at, at + rng.range(3, 7)));
      }
      for (const q of queries) {
        walkScoreSearch(
          live,
          o,
          rng,
          q,
          undefined,
          () => (rng.chance(0.3) ? rng.range(20, 40) : rng.range(1, 6)),
          `seed ${seed} batch ${batch}`,
        );
      }
    }
  });
}

for (const seed of [71, 72]) {
  test(`order=score: the better tiers' rescored entities among many candidates of the query's gram (by their ranks column, or by the tier's few ranks asked of the rescored map); every page equals the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    // Many names that hold "qqq" inside (the infix tier, one list of candidates), a few that start
    // with it or are it (the better tiers: few name ranks beside the candidates), others.
    const entities: EntityData[] = [];
    for (let i = 0; i < 320; i++)
      entities.push({ entityId: `i${i}`, rawIdentifier: `n${i} qqq ${rng.int(50)}`, type: "0", sourceType: "" });
    const better = ["qqq", ...(seed === 72 ? ["qqq a", "qqqb"] : [])];
    for (const [k, raw] of better.entries())
      entities.push({ entityId: `b${k}`, rawIdentifier: raw, type: String(k % 2) as "0" | "1", sourceType: "" });
    for (let i = 0; i < 40; i++)
      entities.push({ entityId: `o${i}`, rawIdentifier: `other ${i}`, type: "0", sourceType: "" });
    const pick = () => rng.pick(entities).entityId;
    const statements: GraphData["statements"] = [];
    const seen = new Set<string>();
    while (statements.length < 600) {
      const t = [pick(), pick(), pick()];
      if (seen.has(t.join(" "))) continue;
      seen.add(t.join(" "));
      statements.push({ subjectEntityId: t[0]!, predicateEntityId: t[1]!, objectEntityId: t[2]! });
    }
    const data: GraphData = { entities, statements };
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "ranks-test" });
    const oracle = new LiveOracle(data);
    for (let batch = 0; batch < 6; batch++) {
      // Most infix entities raised past the stream's bound (rescored: the query's long list), the
      // better tiers' raised far or a little (the rescored map has them or not), some lowered.
      const changes: Change[] = [];
      for (let k = 0; k <= 6; k++)
        changes.push({
          op: "put",
          entity: { entityId: `o${batch}-${k}`, rawIdentifier: `x${batch}-${k}`, type: "0", sourceType: "" },
        });
      const others = entities.filter((e) => e.entityId.startsWith("o")).map((e) => e.entityId);
      for (const e of entities) {
        const far = e.entityId.startsWith("i") ? rng.chance(0.8) : e.entityId.startsWith("b") ? rng.chance(0.6) : false;
        for (let k = far ? rng.range(3, 6) : 0; k > 0; k--)
          changes.push({
            op: "put",
            statement: {
              subjectEntityId: e.entityId,
              predicateEntityId: rng.pick(others),
              objectEntityId: `o${batch}-${k}`,
            },
          });
      }
      const existing = [...oracle.statements.values()];
      const deletes = new Set<string>();
      while (deletes.size < 20) deletes.add(rng.pick(existing).statementFingerprint);
      for (const statementFingerprint of deletes) changes.push({ op: "delete", statementFingerprint });
      const applied = oracle.apply(changes);
      assert.ok(applied.ok, `seed ${seed} batch ${batch} applies: ${JSON.stringify(applied).slice(0, 300)}`);
      live.apply(changes);
      const o = oracle.oracle();
      for (const q of ["qqq", "qq", "qqq ", "n1"]) {
        for (const type of [undefined, "1" as const]) {
          walkScoreSearch(
            live,
            o,
            rng,
            q,
            type,
            () => (rng.chance(0.5) ? rng.range(1, 4) : rng.range(5, 25)),
            `seed ${seed} batch ${batch}`,
          );
        }
      }
    }
  });
}

for (const seed of [61, 62]) {
  test(`order=score: lists passed by their top score (below the page's last) and the delta's better tiers by its first gram's starts; pages asked twice a content, across swaps, equal the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    const data = scoreGraph(rng, 220, 360);
    for (const e of data.entities) {
      e.rawIdentifier = wordName(rng);
      e.type = rng.chance(0.3) ? "1" : "0";
    }
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "tops-test" });
    const oracle = new LiveOracle(data);
    // Hubs: base entities whose scores climb far above the rest (their matches fill the pages' tops).
    const hubs = data.entities.slice(0, 6).map((e) => e.entityId);
    let n = 0;
    for (let batch = 0; batch < 16; batch++) {
      const ids = [...oracle.entities.keys()];
      const changes: Change[] = [];
      // Delta entities with low scores whose names start with a stem (a better tier than the
      // hubs' infix matches), names replaced, deletes with cascade, statements raising and
      // lowering counts.
      for (let k = rng.range(8, 24); k > 0; k--) {
        const r = rng.int(10);
        const type: EntityType = rng.chance(0.3) ? "1" : "0";
        if (r < 3)
          changes.push({
            op: "put",
            entity: { entityId: `t${n++}`, rawIdentifier: wordName(rng), type, sourceType: "", score: rng.int(3) },
          });
        else if (r < 4) {
          const e = oracle.entities.get(rng.pick(ids))!;
          changes.push({ op: "put", entity: { ...e, rawIdentifier: wordName(rng), type } });
        } else if (r < 5) changes.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
        else changes.push(...scoreBatch(rng, oracle, hubs).slice(0, 1));
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      // A swap now and then: the gram records and their tops are the new base's.
      if (rng.chance(0.2)) live.compact();
      const o = oracle.oracle();
      const names = [...oracle.entities.values()].map((e) => e.rawIdentifier);
      const queries = ["kar", "rin", "zel", "kar ", rng.pick(names).slice(0, 5)];
      for (let k = 0; k < 4; k++) {
        const name = rng.pick(names);
        const at = rng.int(Math.max(1, name.length - 3));
        queries.push(name.slice(at, at + rng.range(3, 6)));
      }
      // Starts longer than the delta's start keys hold (7 to 9 units), and the same with the last
      // unit changed: names sharing a start key that do not start with the query.
      for (let k = 0; k < 3; k++) {
        const long = names.filter((x) => x.length >= 7);
        if (long.length === 0) break;
        const start = rng.pick(long).slice(0, rng.range(7, 10));
        queries.push(start, `${start.slice(0, -1)}${String.fromCharCode(97 + rng.int(26))}`);
      }
      // Each query walked twice in this content (the second reads the tops the first made).
      for (const round of [1, 2])
        for (const q of queries) {
          const type = rng.chance(0.25) ? ("1" as EntityType) : undefined;
          walkScoreSearch(
            live,
            o,
            rng,
            q,
            type,
            () => (rng.chance(0.3) ? rng.range(10, 30) : rng.range(1, 5)),
            `seed ${seed} batch ${batch} round ${round}`,
          );
        }
    }
  });
}

for (const seed of [71, 72]) {
  test(`order=score: pages whose last is of the exact or the prefix tier take the delta's and the rescored better matches by range (start keys, name ranks), skipping worse tiers in the walks; every page equals the oracle (seed ${seed})`, () => {
    const rng = new Rng(seed);
    // Names that are a query exactly (many: a page of them ends in the exact tier), that start
    // with it (the prefix tier) and that hold it (the infix tier: the rescored and the delta's
    // candidates of its grams, many beside the exact ones); "kar rin" holds more units than a
    // start key (its extensions share its key).
    const exact = ["kar", "kar rin", "rin"];
    // `exactShare` of 20 exact: few in the base beside the candidates (their ranks are probed
    // rather than the candidates walked), more in the delta.
    const name = (exactShare = 6): string => {
      const r = rng.int(20);
      const base = rng.pick(exact);
      if (r < exactShare) return base;
      if (r < 10) return `${base}${rng.pick(["", " ", "x", "q"])}${rng.int(9)}`;
      return `${rng.pick(["zo", "mek ", "x"])}${base}${rng.chance(0.5) ? "" : ` ${rng.int(9)}`}`;
    };
    const data = scoreGraph(rng, 300, 700);
    for (const e of data.entities) {
      e.rawIdentifier = name(1);
      e.type = rng.chance(0.3) ? "1" : "0";
    }
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "exact-test" });
    const oracle = new LiveOracle(data);
    const hubs = data.entities.slice(0, 5).map((e) => e.entityId);
    let n = 0;
    for (let batch = 0; batch < 12; batch++) {
      const ids = [...oracle.entities.keys()];
      const changes: Change[] = [];
      // Delta entities of each tier's names (some given scores), names replaced, deletes with
      // cascade, and many statements: scores raised past the stream's bound and lowered.
      for (let k = rng.range(20, 40); k > 0; k--) {
        const r = rng.int(10);
        const type: EntityType = rng.chance(0.3) ? "1" : "0";
        const score = rng.chance(0.4) ? { score: rng.int(12) } : {};
        if (r < 2)
          changes.push({
            op: "put",
            entity: { entityId: `x${n++}`, rawIdentifier: name(), type, sourceType: "", ...score },
          });
        else if (r < 3) {
          const e = oracle.entities.get(rng.pick(ids))!;
          changes.push({ op: "put", entity: { ...e, rawIdentifier: name(), type } });
        } else if (r < 4) changes.push({ op: "delete", entityId: rng.pick(ids), cascade: true });
        else changes.push(...scoreBatch(rng, oracle, hubs));
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      if (rng.chance(0.15)) live.compact();
      const o = oracle.oracle();
      for (const q of ["kar", "kar rin", "rin", "ar r", "kar r"]) {
        const type = rng.chance(0.25) ? ("1" as EntityType) : undefined;
        walkScoreSearch(
          live,
          o,
          rng,
          q,
          type,
          () => (rng.chance(0.3) ? rng.range(10, 30) : rng.range(1, 6)),
          `seed ${seed} batch ${batch}`,
        );
      }
    }
  });
}

test("order=score: a delta entity sharing a query's first units past its start key (7 and more) but not the query is not taken for a better tier", () => {
  // Base: "zz karabcd N" (given scores 5..): the infix tier of "karabcd", a full page. Delta:
  // "karabcx" and "karabcdx"-like names with high given scores (the same start key as the query,
  // only the second starts with it), and "xbcd" (score 0: every gram of the query is some delta
  // entity's, and the walk of the rarest gram's list stops at once).
  const entities: EntityData[] = [];
  for (let i = 0; i < 30; i++)
    entities.push({
      entityId: `b${String(i).padStart(2, "0")}`,
      rawIdentifier: `zz karabcd ${i}`,
      type: "0",
      sourceType: "",
      score: 5 + i,
    });
  const data: GraphData = { entities, statements: [] };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "start-keys" });
  const oracle = new LiveOracle(data);
  const changes: Change[] = [
    { op: "put", entity: { entityId: "d0", rawIdentifier: "karabcx", type: "0", sourceType: "", score: 90 } },
    { op: "put", entity: { entityId: "d1", rawIdentifier: "karabcxd", type: "0", sourceType: "", score: 80 } },
    { op: "put", entity: { entityId: "d2", rawIdentifier: "karabcdy", type: "0", sourceType: "", score: 1 } },
    {
      op: "put",
      entity: { entityId: "d3", rawIdentifier: "xbcd kar ara rab abc", type: "0", sourceType: "", score: 0 },
    },
  ];
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const o = oracle.oracle();
  for (const q of ["karabcd", "karabc", "karab", "kara"])
    for (const limit of [1, 3, 10, 40]) {
      const got = live.search({ q, order: "score", limit }).items.map((e) => e.entityId);
      const want = o
        .search(q, undefined, "score")
        .slice(0, limit)
        .map((e) => e.entityId);
      assert.equal(got, want, `q=${show(q)} limit ${limit}`);
    }
});

test("order=score: a cursor whose last item is a raised stream item resumes before its base score rank, on the live graph and on its base", () => {
  // Ten "ka N" of one counted score; "ka 5" raised by one statement (it stays in the base's stream)
  // comes first. Its cursor's hint names its base score rank: the items of its base score named
  // before it come after its key too, on the live graph and on the base (the same secret).
  const entities: EntityData[] = [];
  for (let i = 0; i < 10; i++)
    entities.push({ entityId: `k${i}`, rawIdentifier: `ka ${i}`, type: "0", sourceType: "" });
  for (const id of ["zz", "o1", "o2", "o3"])
    entities.push({ entityId: id, rawIdentifier: id, type: "1", sourceType: "", score: 0 });
  const statements = [];
  for (let i = 0; i < 10; i++)
    for (const o of ["o1", "o2"])
      statements.push({ subjectEntityId: `k${i}`, predicateEntityId: "zz", objectEntityId: o });
  const data: GraphData = { entities, statements };
  const base = buildGraph(data, "raise-test");
  const live = new LiveGraph(base, { cursorSecret: "raise-test" });
  const baseOracle = new LiveOracle(data).oracle();
  const oracle = new LiveOracle(data);
  const changes: Change[] = [
    { op: "put", statement: { subjectEntityId: "k5", predicateEntityId: "zz", objectEntityId: "o3" } },
  ];
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const expected = oracle.oracle().search("ka", undefined, "score");
  assert.is(expected[0]!.entityId, "k5");
  const first = live.search({ q: "ka", order: "score", limit: 1 });
  assert.equal(first.items, expected.slice(0, 1));
  assert.ok(first.nextCursor !== null);
  const onLive = live.search({ q: "ka", order: "score", limit: 100, cursor: first.nextCursor });
  assert.equal(onLive.items, expected.slice(1), "the rest on the live graph");
  // On the base "ka 5" has the others' score: every item comes after the raised key, itself too.
  const onBase = base.search({ q: "ka", order: "score", limit: 100, cursor: first.nextCursor });
  assert.equal(onBase.items, baseOracle.search("ka", undefined, "score"), "the rest on the base");
});

/**
 * A walk of pages of one over rescored entities (see the two tests below), on a live graph whose
 * base came by a swap with its warmth (warmthOf: the score ranks made where the base was) when
 * `warmed`, else with the score ranks made at the first read that needs them.
 */
function rescoredCursorWalk(warmed: boolean): void {
  // Ten "ka N" of counted score 2; "ka 5" lowered to 1 and "ka 7" raised to 6 (both leave the
  // base's stream: rescored). A walk of pages of one ends a page on each: its cursor's hint names
  // the entity's base score rank past N, which the live graph resumes by and the base reads as a
  // key of other content (placed by its score and name).
  const entities: EntityData[] = [];
  for (let i = 0; i < 10; i++)
    entities.push({ entityId: `k${i}`, rawIdentifier: `ka ${i}`, type: "0", sourceType: "" });
  for (const id of ["zz", "o1", "o2", "o3", "o4", "o5", "o6"])
    entities.push({ entityId: id, rawIdentifier: id, type: "1", sourceType: "", score: 0 });
  // An infix item after the prefix tier, so that a page can end on the last "ka N".
  entities.push({ entityId: "zk", rawIdentifier: "z ka", type: "1", sourceType: "", score: 0 });
  const statements = [];
  for (let i = 0; i < 10; i++)
    for (const o of ["o1", "o2"])
      statements.push({ subjectEntityId: `k${i}`, predicateEntityId: "zz", objectEntityId: o });
  const data: GraphData = { entities, statements };
  const base = buildGraph(data, "rescored-test");
  const live = new LiveGraph(base, { cursorSecret: "rescored-test" });
  if (warmed) live.swapBase(base, 0, [], warmthOf(base));
  const baseOracle = new LiveOracle(data).oracle();
  const oracle = new LiveOracle(data);
  const lowered = [...oracle.statements.values()].find((x) => x.subjectEntityId === "k5")!;
  const changes: Change[] = [{ op: "delete", statementFingerprint: lowered.statementFingerprint }];
  for (const o of ["o3", "o4", "o5", "o6"])
    changes.push({ op: "put", statement: { subjectEntityId: "k7", predicateEntityId: "zz", objectEntityId: o } });
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const expected = oracle.oracle().search("ka", undefined, "score");
  assert.equal(
    [expected[0]!.entityId, expected[9]!.entityId, expected[10]!.entityId],
    ["k7", "k5", "zk"],
    "k7 raised first, k5 lowered last of the prefix tier",
  );
  const cursors = new Map<string, string>();
  let cursor: string | undefined;
  const walked: Entity[] = [];
  for (;;) {
    const page = live.search({ q: "ka", order: "score", limit: 1, cursor });
    walked.push(...page.items);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
    cursors.set(page.items[0]!.entityId, cursor);
  }
  assert.equal(walked, expected, "the walk in pages of one");
  for (const [id, at] of [
    ["k7", 1],
    ["k5", 10],
  ] as const)
    assert.equal(
      live.search({ q: "ka", order: "score", limit: 100, cursor: cursors.get(id)! }).items,
      expected.slice(at),
      `after ${id} on the live graph`,
    );
  // On the base every "ka N" scores 2: after the raised key (score 6) all of them, after the
  // lowered one's (score 1) only the infix tier's.
  const onBase = baseOracle.search("ka", undefined, "score");
  const afterRaised = base.search({ q: "ka", order: "score", limit: 100, cursor: cursors.get("k7")! });
  assert.equal(afterRaised.items, onBase, "after k7 on the base");
  const afterLowered = base.search({ q: "ka", order: "score", limit: 100, cursor: cursors.get("k5")! });
  assert.equal(afterLowered.items, onBase.slice(10), "after k5 on the base");
  // A page from the start that ends on k5: the base's listing met it (no walk), its hint all the same.
  const ten = live.search({ q: "ka", order: "score", limit: 10 });
  assert.equal(ten.items, expected.slice(0, 10));
  const tenCursor = ten.nextCursor ?? undefined;
  assert.equal(live.search({ q: "ka", order: "score", limit: 100, cursor: tenCursor }).items, expected.slice(10));
  assert.equal(
    base.search({ q: "ka", order: "score", limit: 100, cursor: tenCursor }).items,
    onBase.slice(10),
    "after k5 (listed) on the base",
  );
}

test("order=score: a cursor whose last item is a rescored entity (lowered: walked or listed; or raised past the stream's bound) resumes exactly, on the live graph and on its base", () => {
  rescoredCursorWalk(false);
});

test("order=score: the same walk over a base swapped in with its warmth (the score ranks a compaction's worker made)", () => {
  rescoredCursorWalk(true);
});

test("swapBase with its warmth: the score ranks a swap is given are the ones the reads use (none made again on this thread)", () => {
  // The base as a live graph holds it is the given one under the live graph's cursor secret (a Graph
  // of its own): ranks keyed by the given one were made again by warm() and by the first read.
  const rng = new Rng(2517);
  const data = withScores(rng, generateGraph(rng, { entities: 60, statements: 240 }), 0.3);
  const base = buildGraph(data, "warm-ranks");
  const live = new LiveGraph(base, { cursorSecret: "another-secret" });
  const warmth = warmthOf(base);
  let reads = 0;
  const ranks = warmth.scoreRanks;
  // Counts the reads of the ranks given (a typed array's reads go through the proxy's get).
  warmth.scoreRanks = new Proxy(ranks, {
    get(target, key) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const oracle = new LiveOracle(data);
  live.swapBase(base, 0, [], warmth);
  // Batches that change counted scores (entities rescored: their stream states go by score rank).
  let applied = 0;
  while (applied < 4) {
    const changes = randomBatch(rng, oracle, { lines: 12, conflicts: 0 });
    // A batch whose later line names what an earlier one deleted conflicts: drawn again.
    if (!oracle.apply(changes).ok) continue;
    live.apply(changes);
    applied++;
  }
  for (const q of ["a", "b", "e", "ab"])
    assert.equal(
      live.search({ q, order: "score", limit: 100 }).items,
      oracle.oracle().search(q, undefined, "score").slice(0, 100),
      q,
    );
  assert.ok(reads > 0, "the reads used the score ranks the swap was given");
});

test("order=score: an entity of a long prefix tier whose score fell below the page's last (an infix item) is still on the page", () => {
  // 80 entities "ka NN" (the prefix tier of "ka ", a query of one 3-gram: too many ranks to ask the rescored map by), 30
  // "x ka NN" (infix) with higher given scores; p05 and i03 have counted scores, both lowered.
  const entities: EntityData[] = [];
  for (let i = 0; i < 80; i++)
    entities.push({
      entityId: `p${String(i).padStart(2, "0")}`,
      rawIdentifier: `ka ${i}`,
      type: "0",
      sourceType: "",
      ...(i === 5 ? {} : { score: 3 }),
    });
  for (let i = 0; i < 30; i++)
    entities.push({
      entityId: `i${String(i).padStart(2, "0")}`,
      rawIdentifier: `x ka ${i}`,
      type: "0",
      sourceType: "",
      ...(i === 3 ? {} : { score: 5 + (i % 5) }),
    });
  for (const id of ["zz", "o1", "o2", "o3", "o4", "o5"])
    entities.push({ entityId: id, rawIdentifier: id, type: "1", sourceType: "", score: 0 });
  const statements = [
    { subjectEntityId: "p05", predicateEntityId: "zz", objectEntityId: "o1" },
    { subjectEntityId: "p05", predicateEntityId: "zz", objectEntityId: "o2" },
    ...["o1", "o2", "o3", "o4", "o5"].map((o) => ({
      subjectEntityId: "i03",
      predicateEntityId: "zz",
      objectEntityId: o,
    })),
  ];
  const data: GraphData = { entities, statements };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "tier-test" });
  const oracle = new LiveOracle(data);
  const fp = (s: string, o: string) =>
    live.statements({ subjectEntityId: s, objectEntityId: o }).items[0]!.statementFingerprint;
  const changes: Change[] = [
    { op: "delete", statementFingerprint: fp("p05", "o1") },
    { op: "delete", statementFingerprint: fp("i03", "o1") },
  ];
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const o = oracle.oracle();
  walkPages<Entity>({
    fetch: (limit, cursor) => live.search({ q: "ka ", limit, cursor, order: "score" }),
    expected: o.search("ka ", undefined, "score"),
    nextLimit: () => 100,
    defaultLimit: 100,
    countPolicy: () => false,
    ctx: "q=ka ",
  });
});

test("order=score: an entity of a short prefix tier whose score fell below the page's last is found by rank among many rescored candidates", () => {
  // "ka 0" (counted, lowered) and "ka 1" (counted, raised far: rescored, walked before the others
  // and on the page) make the prefix tier of "ka "; 40 "x ka NN" (counted, each lowered: rescored
  // candidates of the query) and 30 "y ka NN" (given, higher) the infix tier.
  const entities: EntityData[] = [
    { entityId: "p0", rawIdentifier: "ka 0", type: "0", sourceType: "" },
    { entityId: "p1", rawIdentifier: "ka 1", type: "0", sourceType: "" },
  ];
  for (let i = 0; i < 40; i++)
    entities.push({
      entityId: `x${String(i).padStart(2, "0")}`,
      rawIdentifier: `x ka ${i}`,
      type: "0",
      sourceType: "",
    });
  for (let i = 0; i < 30; i++)
    entities.push({
      entityId: `y${String(i).padStart(2, "0")}`,
      rawIdentifier: `y ka ${i}`,
      type: "0",
      sourceType: "",
      score: 6 + (i % 4),
    });
  const objects = ["o1", "o2", "o3", "o4", "o5", "o6"];
  for (const id of ["zz", ...objects])
    entities.push({ entityId: id, rawIdentifier: id, type: "1", sourceType: "", score: 0 });
  const statements = [
    { subjectEntityId: "p0", predicateEntityId: "zz", objectEntityId: "o1" },
    { subjectEntityId: "p0", predicateEntityId: "zz", objectEntityId: "o2" },
  ];
  for (let i = 0; i < 40; i++)
    for (const o of objects)
      statements.push({
        subjectEntityId: `x${String(i).padStart(2, "0")}`,
        predicateEntityId: "zz",
        objectEntityId: o,
      });
  const data: GraphData = { entities, statements };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "tier-test" });
  const oracle = new LiveOracle(data);
  const fp = (s: string, o: string) =>
    live.statements({ subjectEntityId: s, objectEntityId: o }).items[0]!.statementFingerprint;
  const changes: Change[] = ["p0", ...entities.filter((e) => e.entityId.startsWith("x")).map((e) => e.entityId)].map(
    (id) => ({ op: "delete", statementFingerprint: fp(id, "o1") }),
  );
  for (let k = 0; k < 12; k++)
    changes.push({
      op: "put",
      statement: {
        subjectEntityId: "p1",
        predicateEntityId: objects[k % 6]!,
        objectEntityId: objects[(k + 1 + (k >> 1)) % 6]!,
      },
    });
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const o = oracle.oracle();
  for (const limit of [5, 10, 30])
    walkPages<Entity>({
      fetch: (n, cursor) => live.search({ q: "ka ", limit: n, cursor, order: "score" }),
      expected: o.search("ka ", undefined, "score"),
      nextLimit: () => limit,
      defaultLimit: limit,
      countPolicy: () => false,
      ctx: `q=ka limit ${limit}`,
    });
});

test("order=score: a delta entity of a better tier scored below the page's last is on the page, found among the few candidates left or by the search-order list", () => {
  // The base: "y ka NN" (infix of "ka ", given scores). The delta: `infix` entities "x ka NN" of
  // high given scores (walked first, filling the page), and prefix entities "ka N" of low scores
  // (past the page's last by score, before it by tier), of two types: few candidates left after
  // the walk (checked one by one) or many (the prefix found by a binary search).
  for (const infix of [6, 40]) {
    const entities: EntityData[] = [];
    for (let i = 0; i < 20; i++)
      entities.push({
        entityId: `y${String(i).padStart(2, "0")}`,
        rawIdentifier: `y ka ${i}`,
        type: "0",
        sourceType: "",
        score: 4 + (i % 3),
      });
    const data: GraphData = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "tier-test" });
    const oracle = new LiveOracle(data);
    const changes: Change[] = [];
    for (let i = 0; i < infix; i++)
      changes.push({
        op: "put",
        entity: {
          entityId: `x${String(i).padStart(2, "0")}`,
          rawIdentifier: `x ka ${i}`,
          type: "0",
          sourceType: "",
          score: 10 + (i % 4),
        },
      });
    for (let i = 0; i < 4; i++)
      changes.push({
        op: "put",
        entity: {
          entityId: `p${i}`,
          rawIdentifier: `ka ${i}`,
          type: i % 2 === 0 ? "0" : "1",
          sourceType: "",
          score: i,
        },
      });
    assert.ok(oracle.apply(changes).ok);
    live.apply(changes);
    const o = oracle.oracle();
    for (const type of [undefined, "0", "1"] as const)
      for (const limit of [3, 5, 30])
        walkPages<Entity>({
          fetch: (n, cursor) =>
            live.search({ q: "ka ", limit: n, cursor, order: "score", ...(type === undefined ? {} : { type }) }),
          expected: o.search("ka ", type, "score"),
          nextLimit: () => limit,
          defaultLimit: limit,
          countPolicy: () => false,
          ctx: `${infix} infix, type ${type}, limit ${limit}`,
        });
  }
});

test("order=name pages of the largest limit walk on past a tombstone after the page (the base's page has no extra item then)", () => {
  // 150 matches of "item"; the last is deleted, so the base has a tombstone, but none in the first page.
  const entities = Array.from({ length: 150 }, (_, i) => ({
    entityId: `e${String(i).padStart(3, "0")}`,
    rawIdentifier: `item ${String(i).padStart(3, "0")}`,
    type: "0" as EntityType,
    sourceType: "",
  }));
  const live = new LiveGraph(buildGraph({ entities, statements: [] }), { cursorSecret: "limit-test" });
  live.apply([{ op: "delete", entityId: "e149" }]);
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = live.search({ q: "item", limit: 100, cursor });
    ids.push(...page.items.map((e) => e.entityId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  assert.equal(
    ids,
    entities.slice(0, 149).map((e) => e.entityId),
  );
  // With a tombstone among the matches of the first page too, and one in the delta after it.
  live.apply([
    { op: "delete", entityId: "e010" },
    { op: "put", entity: { entityId: "z", rawIdentifier: "item 120b", type: "0", sourceType: "" } },
  ]);
  const first = live.search({ q: "item", limit: 100, count: true });
  assert.is(first.total, 149);
  assert.is(first.items.length, 100);
  const second = live.search({ q: "item", limit: 100, cursor: first.nextCursor! });
  assert.is(second.items.length, 49);
  assert.is(second.nextCursor, null);
});

test("statements pages with tombstones just past the page, or every base item after it tombstoned, equal the oracle", () => {
  // A hub heads many statements in each role; each round deletes the hub's statements (in one
  // filter's order) from some position on, or just the one right after a page's end, sometimes
  // puts one after them: the base's page is then the answer, whose next page exists only if a base
  // item after it is not tombstoned (or a delta item follows).
  const rng = new Rng(73);
  const name = (i: number) => `e${String(i).padStart(2, "0")}`;
  const entities = Array.from({ length: 40 }, (_, i) => ({
    entityId: name(i),
    rawIdentifier: `entity ${i}`,
    type: "0" as EntityType,
    sourceType: "",
  }));
  const hub = name(7);
  const statements = [];
  for (let i = 0; i < 40; i++)
    for (let j = 0; j < 3; j++) {
      const other = name((i * 3 + j) % 40);
      statements.push({ subjectEntityId: hub, predicateEntityId: name(i), objectEntityId: other });
      statements.push({ subjectEntityId: name(i), predicateEntityId: hub, objectEntityId: other });
      statements.push({ subjectEntityId: other, predicateEntityId: name(i), objectEntityId: hub });
    }
  const data: GraphData = { entities, statements };
  const shapes: Filters[] = [
    { subjectEntityId: hub },
    { predicateEntityId: hub },
    { objectEntityId: hub },
    { subjectEntityId: hub, predicateEntityId: name(3) },
    { objectEntityId: hub, subjectEntityId: name(5) },
  ];
  for (let round = 0; round < 24; round++) {
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "tombstone-test" });
    const oracle = new LiveOracle(data);
    const f = rng.pick(shapes.slice(0, 3));
    const limit = rng.pick([1, 2, 5, 10, 30]);
    const before = oracle.oracle().statementsFor(f);
    // Each branch: every item from a page's end on, or from a random place on, or the one item
    // right after a page's end.
    const from = rng.chance(0.4) ? limit * rng.range(1, 3) : rng.int(before.length);
    const to = rng.chance(0.3) ? Math.min(before.length, from + 1) : before.length;
    const changes: Change[] = before
      .slice(from, to)
      .map((st) => ({ op: "delete" as const, statementFingerprint: st.statementFingerprint }));
    // Sometimes a statement of the hub put after them (a delta item after the tombstones).
    if (rng.chance(0.3))
      changes.push({
        op: "put",
        statement: { subjectEntityId: hub, predicateEntityId: name(39), objectEntityId: hub },
      });
    if (changes.length === 0) continue;
    assert.ok(oracle.apply(changes).ok);
    live.apply(changes);
    const now = oracle.oracle();
    for (const g of shapes)
      walkPages<Statement>({
        fetch: (l, cursor, count) => live.statements({ ...g, limit: l, cursor, ...(count ? { count } : {}) }),
        expected: now.statementsFor(g),
        nextLimit: () => limit,
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: `round ${round} deleted ${from}..${to} of ${show(f)}, limit ${limit}: statements ${show(g)}`,
      });
  }
});

test("order=name pages with tombstones on them, in the pages read longer to make up for them, and after the last visible item, equal the oracle", () => {
  // 40 matches of "item"; runs of deletes inside pages, in the longer reads, and every item after
  // the 30th: the page before the gone tail must end its walk (its look-ahead is a tombstone).
  const entities = Array.from({ length: 40 }, (_, i) => ({
    entityId: `e${String(i).padStart(2, "0")}`,
    rawIdentifier: `item ${String(i).padStart(2, "0")}`,
    type: String(i % 2) as EntityType,
    sourceType: "",
  }));
  const live = new LiveGraph(buildGraph({ entities, statements: [] }), { cursorSecret: "refill-test" });
  const gone = [1, 2, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17, 22, ...Array.from({ length: 10 }, (_, i) => 30 + i)];
  live.apply(gone.map((i) => ({ op: "delete" as const, entityId: entities[i]!.entityId })));
  const left = entities.filter((_, i) => !gone.includes(i));
  for (const type of [undefined, "0" as EntityType, "1" as EntityType])
    for (let limit = 1; limit <= 8; limit++) {
      const expected = left.filter((e) => type === undefined || e.type === type);
      const got: Entity[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = live.search({ q: "item", type, limit, cursor, count: true });
        assert.is(page.total, expected.length, `type ${show(type)} limit ${limit} total`);
        assert.ok(
          page.items.length > 0 || pages === 0,
          `type ${show(type)} limit ${limit}: an empty page after a cursor`,
        );
        got.push(...page.items);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
      assert.equal(got, expected, `type ${show(type)} limit ${limit}`);
    }
  // The cursor of a page read longer (past e01 and e02, tombstoned) resumes after its last item
  // once a tombstoned entity before it is put back, and after a compaction.
  const first = live.search({ q: "item", limit: 2 });
  assert.equal(
    first.items.map((e) => e.entityId),
    ["e00", "e03"],
  );
  live.apply([{ op: "put", entity: entities[2]! }]);
  live.compact();
  const rest: string[] = [];
  let cursor = first.nextCursor ?? undefined;
  while (cursor !== undefined) {
    const page = live.search({ q: "item", limit: 3, cursor });
    rest.push(...page.items.map((e) => e.entityId));
    cursor = page.nextCursor ?? undefined;
  }
  assert.equal(
    rest,
    left.slice(2).map((e) => e.entityId),
  );
});

test("deletes and renames after reads made the tombstone and replaced filters (a base past the filters' smallest size: a filter, not the bitmap) are hidden at the next read (the filters are kept across batches: each mark must reach them)", () => {
  // 3,000 entities "item NNNN", each the subject of a statement; each round reads (so the filters
  // are made), then deletes and renames a few of the entities the next reads show. At most 30
  // marks: each filter stays a filter (1,024 bits) in front of a bitmap of 3,000.
  const n = 3000;
  const name = (i: number) => `item ${String(i).padStart(4, "0")}`;
  const entities = Array.from({ length: n }, (_, i) => ({
    entityId: `e${String(i).padStart(4, "0")}`,
    rawIdentifier: name(i),
    type: "0" as EntityType,
    sourceType: "",
  }));
  entities.push({ entityId: "p", rawIdentifier: "links to", type: "1", sourceType: "" });
  const statements = Array.from({ length: n }, (_, i) => ({
    subjectEntityId: entities[i]!.entityId,
    predicateEntityId: "p",
    objectEntityId: entities[(i + 1) % n]!.entityId,
  }));
  const live = new LiveGraph(buildGraph({ entities, statements }), { cursorSecret: "filters-test" });
  const names = new Map(entities.map((e) => [e.entityId, e.rawIdentifier]));
  const rng = new Rng(4431);
  let checked = 0;
  for (let round = 0; round < 10; round++) {
    // The reads that make the filters (and keep them: no batch since).
    const shown = live.search({ q: "item", limit: 20 }).items;
    for (const e of shown.slice(0, 3)) live.statements({ subjectEntityId: e.entityId });
    // A delete and a rename among the entities shown, and one elsewhere.
    const batch: Change[] = [];
    const picked = new Set<string>();
    for (const e of [rng.pick(shown), rng.pick(shown), entities[rng.int(n)]!])
      if (names.get(e.entityId)?.startsWith("item") === true && !picked.has(e.entityId)) picked.add(e.entityId);
    let k = 0;
    for (const id of picked) {
      if (k++ % 2 === 0) {
        batch.push({ op: "delete", entityId: id, cascade: true });
        names.delete(id);
      } else {
        const rawIdentifier = `renamed ${id}`;
        batch.push({ op: "put", entity: { entityId: id, rawIdentifier, type: "0", sourceType: "" } });
        names.set(id, rawIdentifier);
      }
    }
    live.apply(batch);
    // Every page of "item" against the names now; each renamed subject's statements show its new name.
    const expected = [...names]
      .filter(([, raw]) => raw.startsWith("item"))
      .map(([id]) => id)
      .sort((a, b) => (names.get(a)! < names.get(b)! ? -1 : 1));
    const got: string[] = [];
    let cursor: string | undefined;
    do {
      const page = live.search({ q: "item", limit: 20, cursor });
      got.push(...page.items.map((e) => e.entityId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    assert.equal(got, expected, `round ${round}: search "item"`);
    for (const [id, raw] of names)
      if (raw.startsWith("renamed"))
        // Its statement, unless a cascade took it (its object deleted).
        for (const st of live.statements({ subjectEntityId: id }).items) {
          assert.is(st.subjectRawIdentifier, raw, `round ${round}: ${id}'s statements`);
          checked++;
        }
  }
  assert.ok(checked > 10, `${checked} statements of renamed subjects checked`);
});

test("order=name pages made up past their tombstones by reads from the page's last item (several rounds, across the tiers' bounds, delta matches past the page first read) equal the oracle", () => {
  // Matches of "ab" in every tier (exact ones under several entityIds, prefix, infix), some of each
  // type; batches delete runs of them at the tiers' bounds and at random (a page's tombstones, those
  // of the items read on after it, a look-ahead item), and put names that sort among them, before
  // and past a page's last item, or whose first units are above fq's and every base item's.
  const rng = new Rng(4417);
  const names = [
    ...Array.from({ length: 6 }, () => "ab"),
    ...Array.from({ length: 30 }, (_, i) => `ab ${String(i).padStart(2, "0")}`),
    ...Array.from({ length: 30 }, (_, i) => `${String.fromCharCode(99 + (i % 20))}x ab ${i}`),
    "zz",
    "b a",
    "a b",
  ];
  const entities: EntityData[] = names.map((rawIdentifier, i) => ({
    entityId: `b${String(i).padStart(2, "0")}`,
    rawIdentifier,
    type: String(rng.int(2)) as EntityType,
    sourceType: "",
  }));
  const data: GraphData = { entities, statements: [] };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "made-up-test" });
  const oracle = new LiveOracle(data);
  /** A run of base entities from `at` (clamped), `n` long. */
  const run = (at: number, n: number) =>
    Array.from({ length: n }, (_, k) => entities[Math.min(entities.length - 1, Math.max(0, at + k))]!.entityId);
  for (let batch = 0; batch < 6; batch++) {
    const gone = new Set<string>([
      ...run(4 + rng.int(4), 1 + rng.int(4)),
      ...run(34 + rng.int(4), 1 + rng.int(5)),
      ...run(rng.int(entities.length), 1 + rng.int(6)),
    ]);
    const changes: Change[] = [...gone].map((entityId) => ({ op: "delete" as const, entityId }));
    for (let k = 0; k < 3; k++) {
      // Each kind: a name among the prefix tier's, one among the infix tier's, one above them all.
      const raw = rng.pick([`ab ${rng.int(40)}z`, `${String.fromCharCode(99 + rng.int(20))}x ab q`, `zzz ab ${k}`]);
      changes.push({
        op: "put",
        entity: {
          entityId: `n${batch}-${k}`,
          rawIdentifier: raw,
          type: String(rng.int(2)) as EntityType,
          sourceType: "",
        },
      });
    }
    const want = oracle.apply(changes);
    if (!want.ok) continue;
    live.apply(changes);
    const now = oracle.oracle();
    walkNameSearches(
      live,
      now,
      ["ab", "ab 1", "x ab", "b"],
      [undefined, "0", "1"],
      [1, 2, 3, 5, 8, 20],
      () => rng.chance(0.3),
      `batch ${batch}`,
    );
  }
});

test("order=name pages where a replaced entity's new name sorts next to its tombstoned base one (the merge from the page first read) equal the oracle", () => {
  const entities = Array.from({ length: 30 }, (_, i) => ({
    entityId: `e${String(i).padStart(2, "0")}`,
    rawIdentifier: `item ${String(i).padStart(2, "0")}`,
    type: String(i % 2) as EntityType,
    sourceType: "",
  }));
  const live = new LiveGraph(buildGraph({ entities, statements: [] }), { cursorSecret: "renamed-test" });
  // Renamed in place ("item 03" -> "item 03 (renamed)"), some in runs, one deleted beside them.
  const renamed = [0, 3, 4, 9, 10, 11, 17, 29].map((i) => ({
    ...entities[i]!,
    rawIdentifier: `${entities[i]!.rawIdentifier} (renamed)`,
  }));
  live.apply([
    ...renamed.map((entity) => ({ op: "put" as const, entity })),
    { op: "delete" as const, entityId: "e12" },
  ]);
  const byId = new Map(renamed.map((e) => [e.entityId, e]));
  const content = entities.filter((e) => e.entityId !== "e12").map((e) => byId.get(e.entityId) ?? e);
  for (const q of ["item", "tem 1", "item 0"])
    for (const type of [undefined, "0" as EntityType, "1" as EntityType])
      for (let limit = 1; limit <= 8; limit++) {
        const expected = content.filter((e) => e.rawIdentifier.includes(q) && (type === undefined || e.type === type));
        const got: Entity[] = [];
        let cursor: string | undefined;
        do {
          const page = live.search({ q, type, limit, cursor, count: true });
          assert.is(page.total, expected.length, `q=${show(q)} type=${show(type)} limit ${limit} total`);
          got.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.equal(got, expected, `q=${show(q)} type=${show(type)} limit ${limit}`);
      }
});

test("order=name totals of queries of a gram and longer over names sharing long prefixes (numbered, renamed, deleted) equal a count by includes()", () => {
  // Base "item NN" and "gem item NN"; the delta puts "new entity N" (runs that share all but their
  // last digits), renames some base entities "... (renamed)" and deletes others: the delta's and
  // the tombstones' gram lists hold runs whose shared prefixes do and do not hold the query.
  const base = Array.from({ length: 80 }, (_, i) => ({
    entityId: `b${String(i).padStart(2, "0")}`,
    rawIdentifier: `${i % 2 === 0 ? "" : "gem "}item ${String(i >> 1).padStart(2, "0")}`,
    type: String(i % 3) as EntityType,
    sourceType: "",
  }));
  const live = new LiveGraph(buildGraph({ entities: base, statements: [] }), { cursorSecret: "shared-test" });
  const puts = Array.from({ length: 150 }, (_, i) => ({
    entityId: `n${i}`,
    rawIdentifier: `New entity ${i}${i % 7 === 0 ? " item" : ""}`,
    type: String(i % 3) as EntityType,
    sourceType: "",
  }));
  const renamed = base
    .filter((_, i) => i % 5 === 1 || i % 5 === 2)
    .map((e) => ({ ...e, rawIdentifier: `${e.rawIdentifier} (renamed)` }));
  const deleted = base.filter((_, i) => i % 5 === 3).map((e) => e.entityId);
  live.apply([
    ...puts.map((entity) => ({ op: "put" as const, entity })),
    ...renamed.map((entity) => ({ op: "put" as const, entity })),
    ...deleted.map((entityId) => ({ op: "delete" as const, entityId })),
  ]);
  const gone = new Set([...deleted, ...renamed.map((e) => e.entityId)]);
  const content = [...base.filter((e) => !gone.has(e.entityId)), ...puts, ...renamed];
  const names = ["new entity 140 item", "gem item 07 (renamed)", "item 13", "new entity 99", "gem item 21"];
  const queries = new Set(["ntity 1", "y 1", "tem 0", "m 1", "(renamed)", "item 1", "em item", "entity", "ty 14"]);
  for (const name of names)
    for (let len = 3; len <= 7; len++)
      for (let at = 0; at + len <= name.length; at++) queries.add(name.slice(at, at + len));
  for (const q of queries)
    for (const type of [undefined, "0" as EntityType, "2" as EntityType]) {
      const expected = content.filter(
        (e) => e.rawIdentifier.toLowerCase().includes(q) && (type === undefined || e.type === type),
      ).length;
      const first = live.search({ q, type, limit: 3, count: true });
      assert.is(first.total, expected, `q=${show(q)} type=${show(type)} page 1`);
      // A later page's total too (read from the cursor's key: the merge, or the base's page as it is).
      if (first.nextCursor !== null) {
        const next = live.search({ q, type, limit: 3, count: true, cursor: first.nextCursor });
        assert.is(next.total, expected, `q=${show(q)} type=${show(type)} page 2`);
      }
    }
});

for (const seed of [61, 62, 63]) {
  test(`order=name totals on every page of walks to the end, over batches that put, replace and delete entities (gram lists short and past COUNT_TEXT_ITEMS, names holding the count text's type units), equal the oracle (seed ${seed})`, () => {
    // Names from a few stems, some holding U+0001 to U+0008 (the units a count text writes for a
    // type, GramIndex.countHolding) or digits right where a query ends; "shared " names grow the
    // rarest gram's list of a query past COUNT_TEXT_ITEMS and back below it as batches put and
    // delete them, in the delta and among the tombstones (base names renamed or deleted).
    const rng = new Rng(seed);
    const stems = [
      "shared ",
      "Shared x",
      "ab\u0001",
      "ab\u0003c",
      "cab",
      "q7 ",
      "Émile ",
      "zz\u0008",
      "tle",
      "ab\u0001 xcab",
      "ab\u0004 tab",
    ];
    const tail = () =>
      Array.from({ length: rng.int(3) }, () =>
        rng.pick(["ab", "c", "\u0001", "\u0002x", "0", "7", "é", " tle", String(rng.int(40))]),
      ).join("");
    const name = () => `${rng.pick(stems)}${tail()}`;
    const type = () => String(rng.int(8)) as EntityType;
    const entities: EntityData[] = [];
    for (let i = 0; i < 160; i++)
      entities.push({ entityId: `b${i}`, rawIdentifier: name(), type: type(), sourceType: "" });
    for (let i = 0; i < 70; i++)
      entities.push({ entityId: `s${i}`, rawIdentifier: `shared ${i}`, type: type(), sourceType: "" });
    const data: GraphData = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "count-text-test" });
    const oracle = new LiveOracle(data);
    const ids = entities.map((e) => e.entityId);
    const queries = [
      "shared",
      "ared ",
      "sha",
      "red 1",
      "ab\u0001",
      "b\u0001",
      "ab",
      "cab",
      "abc",
      "\u0003c",
      "q7 ",
      "7 t",
      "tle",
      "émi",
      "zz\u0008",
      "x0",
      "d x",
      "cab\u0001",
      "tab\u0004",
      "xcab",
    ];
    for (let batch = 0; batch < 6; batch++) {
      const changes: Change[] = [];
      for (let k = 0; k < 50; k++) {
        const r = rng.int(10);
        const id = rng.pick(ids);
        // Each kind: a new entity (often a "shared" one), a replace (new name or type), or a delete.
        if (r < 4) {
          const fresh = `n${batch}-${k}`;
          ids.push(fresh);
          const raw = rng.chance(0.5) ? `shared ${batch}${k}` : name();
          changes.push({ op: "put", entity: { entityId: fresh, rawIdentifier: raw, type: type(), sourceType: "" } });
        } else if (r < 8)
          changes.push({ op: "put", entity: { entityId: id, rawIdentifier: name(), type: type(), sourceType: "" } });
        else changes.push({ op: "delete", entityId: id, cascade: true });
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      const now = oracle.oracle();
      walkNameSearches(
        live,
        now,
        queries,
        [undefined, "0", "3"],
        [1, 4, 30],
        () => true,
        `seed ${seed} batch ${batch}`,
      );
      if (batch === 3) compactNow(live);
    }
  });
}

test("conflicts name the line and the statement; the same statement again is a no-op", () => {
  const data = {
    entities: [
      { entityId: "a", rawIdentifier: "Alpha", type: "0" as const, sourceType: "" },
      { entityId: "b", rawIdentifier: "Beta", type: "1" as const, sourceType: "" },
      { entityId: "p", rawIdentifier: "knows", type: "2" as const, sourceType: "" },
    ],
    statements: [{ subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b", statementFingerprint: "f1" }],
  };
  const live = new LiveGraph(buildGraph(data));
  const code = (batch: Change[] | string): string => {
    try {
      live.apply(batch);
    } catch (e) {
      if (isQuiverError(e)) return `${e.code} ${e.message}`;
      throw e;
    }
    return "ok";
  };
  assert.is(
    code([{ op: "delete", entityId: "b" }]),
    'CHANGE_CONFLICT line 1: entity "b" is deleted, but statement "f1": "a" "p" "b" still names it; delete that statement in the batch too, or give "cascade":true',
  );
  assert.is(
    code([{ op: "put", statement: { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "zz" } }]),
    'CHANGE_CONFLICT line 1: objectEntityId "zz" names no entity of the graph (put the entity first)',
  );
  assert.is(
    code([
      { op: "delete", statementFingerprint: "nope" },
      {
        op: "put",
        statement: { subjectEntityId: "b", predicateEntityId: "p", objectEntityId: "a", statementFingerprint: "f1" },
      },
    ]),
    'CHANGE_CONFLICT line 2: statementFingerprint "f1" is already used by another statement ("f1": "a" "p" "b")',
  );
  assert.is(live.sequence, 0);
  assert.equal(
    live.apply([
      {
        op: "put",
        statement: { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b", statementFingerprint: "f1" },
      },
      { op: "delete", statementFingerprint: "unknown" },
      { op: "put", entity: { entityId: "b", rawIdentifier: "Bravo", type: "1", sourceType: "x", score: 7 } },
    ]),
    { sequence: 1, entities: { put: 1, deleted: 0 }, statements: { put: 0, deleted: 0 } },
  );
  // The statement naming the replaced entity shows its new rawIdentifier.
  assert.is(live.statements({ subjectEntityId: "a" }).items[0]?.objectRawIdentifier, "Bravo");
  assert.equal(live.apply('{"op":"delete","entityId":"b"}\n\n{"op":"delete","statementFingerprint":"f1"}'), {
    sequence: 2,
    entities: { put: 0, deleted: 1 },
    statements: { put: 0, deleted: 1 },
  });
  assert.equal(live.apply([{ op: "delete", entityId: "p", cascade: true }]), {
    sequence: 3,
    entities: { put: 0, deleted: 1 },
    statements: { put: 0, deleted: 0 },
  });
  assert.is(live.getEntity("b"), undefined);
  assert.equal(live.statements({}).items, []);
  assert.equal(
    live.search({ q: "a" }).items.map((e) => e.entityId),
    ["a"],
  );
});

test("a given score equal to the entity's count stays when its statements change; a counted one follows them", async () => {
  // x was given 1 and has 1 statement; y has 1 statement and no score: both score 1 in the base.
  const data = {
    entities: [
      { entityId: "p", rawIdentifier: "rel", type: "1" as const, sourceType: "", score: 0 },
      { entityId: "x", rawIdentifier: "node x", type: "0" as const, sourceType: "", score: 1 },
      { entityId: "y", rawIdentifier: "node y", type: "0" as const, sourceType: "" },
      { entityId: "z", rawIdentifier: "node z", type: "0" as const, sourceType: "", score: 2 },
    ],
    statements: [
      { subjectEntityId: "x", predicateEntityId: "p", objectEntityId: "z" },
      { subjectEntityId: "y", predicateEntityId: "p", objectEntityId: "z" },
    ],
  };
  const order = (g: { search: LiveGraph["search"] }) =>
    g.search({ q: "node", order: "score" }).items.map((e) => e.entityId);
  // Through a snapshot too: the base keeps which scores were given.
  const dir = mkdtempSync(join(tmpdir(), "quiver-live-scores-"));
  try {
    await saveSnapshot(buildGraph(data), join(dir, "g.qvr"));
    for (const base of [buildGraph(data), await openSnapshot(join(dir, "g.qvr"))]) {
      const live = new LiveGraph(base);
      assert.equal(order(live), ["z", "x", "y"]);
      // Two more statements name x and y each: y's count becomes 3 and passes z's 2; x stays at 1.
      live.apply([
        { op: "put", statement: { subjectEntityId: "x", predicateEntityId: "p", objectEntityId: "y" } },
        { op: "put", statement: { subjectEntityId: "y", predicateEntityId: "p", objectEntityId: "y" } },
      ]);
      assert.equal(order(live), ["y", "z", "x"]);
      const scratch = buildGraph({ entities: data.entities, statements: [...live.exportStatements()] });
      assert.equal(order(scratch), ["y", "z", "x"]);
      live.compact();
      assert.equal(order(live), ["y", "z", "x"]);
      live.apply([
        {
          op: "delete",
          statementFingerprint: live.statements({ subjectEntityId: "y" }).items[0]!.statementFingerprint,
        },
      ]);
      live.apply([{ op: "delete", entityId: "y", cascade: true }]);
      assert.equal(order(live), ["z", "x"]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bad lines: INVALID_CHANGE naming the line and the reason", () => {
  const live = new LiveGraph(buildGraph({ entities: [], statements: [] }));
  const message = (batch: string): string => {
    try {
      live.apply(batch);
    } catch (e) {
      if (isQuiverError(e)) return `${e.code} ${e.message}`;
      throw e;
    }
    return "ok";
  };
  assert.ok(message("\n\nnope").startsWith("INVALID_CHANGE line 3: not JSON ("));
  assert.is(
    message('{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","type":"8","sourceType":""}}'),
    'INVALID_CHANGE line 1: field "entity.type" must be one of "0" to "7", got "8"',
  );
  assert.is(
    message('{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","sourceType":""}}'),
    'INVALID_CHANGE line 1: missing field "entity.type"',
  );
  assert.is(
    message('{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","type":"1","sourceType":"","score":1.5}}'),
    'INVALID_CHANGE line 1: field "entity.score" must be a whole number from 0 to 4294967295, got 1.5',
  );
  assert.is(
    message(`{"op":"put","entity":{"entityId":"${"x".repeat(513)}","rawIdentifier":"y","type":"1","sourceType":""}}`),
    'INVALID_CHANGE line 1: field "entity.entityId" is 513 bytes long in UTF-8; the limit is 512',
  );
  assert.is(
    message('{"op":"put","statement":{"subjectEntityId":"a","predicateEntityId":"b","objectEntityId":7}}'),
    'INVALID_CHANGE line 1: field "statement.objectEntityId" must be a string, got 7',
  );
  assert.is(
    message('{"op":"put","entity":{},"statement":{}}'),
    'INVALID_CHANGE line 1: a put names both "entity" and "statement"; give one',
  );
  assert.is(
    message('{"op":"delete","entityId":"a","statementFingerprint":"b"}'),
    'INVALID_CHANGE line 1: a delete names both "entityId" and "statementFingerprint"; give one',
  );
  assert.is(
    message('{"op":"delete","entityId":"a","cascade":1}'),
    'INVALID_CHANGE line 1: field "cascade" must be true or false, got 1',
  );
  assert.is(message('{"entityId":"a"}'), 'INVALID_CHANGE line 1: field "op" must be "put" or "delete", got nothing');
  assert.is(message("7"), "INVALID_CHANGE line 1: the line must be a JSON object, got 7");
  // A valid score, and no line at all, are fine.
  assert.is(
    message('{"op":"put","entity":{"entityId":"x","rawIdentifier":"y","type":"1","sourceType":"","score":4294967295}}'),
    "ok",
  );
  assert.is(message(""), "ok");
  assert.is(live.sequence, 2);
});

test("search order name, with delta names beside the base's (shared first units, case, accents, types), equals the oracle on every page", () => {
  // Names that share their first units, fold alike or not (case, accents, a non-ASCII unit in the
  // first four), hold a query as prefix, exactly or inside: the delta's candidates' heads tie with
  // the base page's last item's, and its tombstones lie on the base's pages.
  const stems = [
    "abc",
    "Abc",
    "ABD",
    "ábc",
    "abc\u0301",
    "ǅab",
    "x abc",
    "xyabcz",
    "ab",
    "abcabc",
    "Ab C",
    "zabc",
    "ßab",
  ];
  const rng = new Rng(77);
  const name = () =>
    `${rng.pick(stems)}${rng.pick(["", " ", "d", "D", "é", " 1", "abc", "xy"])}${rng.pick(["", "q", "Z"])}`;
  const entities: EntityData[] = [];
  for (let i = 0; i < 120; i++)
    entities.push({ entityId: `b${i}`, rawIdentifier: name(), type: String(i % 3) as EntityType, sourceType: "" });
  for (const foldMode of ["case", "accents"] as const) {
    const data: GraphData = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "live-test" });
    const oracle = new LiveOracle(data, foldMode);
    for (let batch = 0; batch < 4; batch++) {
      const changes: Change[] = [];
      for (let k = 0; k < 25; k++) {
        const r = rng.int(3);
        const id = rng.chance(0.5) ? `b${rng.int(120)}` : `n${batch}-${k}`;
        // Each kind: a new entity, a base one renamed (its tombstone beside its new name), or a delete.
        if (r < 2 || id.startsWith("n"))
          changes.push({
            op: "put",
            entity: { entityId: id, rawIdentifier: name(), type: String(rng.int(3)) as EntityType, sourceType: "" },
          });
        else changes.push({ op: "delete", entityId: id, cascade: true });
      }
      const want = oracle.apply(changes);
      if (!want.ok) continue;
      live.apply(changes);
      const now = oracle.oracle();
      const queries = ["abc", "ABC", "ab", "bc", "abcd", "abc ", "b c", "ábc", "xab", "yab", "abcabc", "c1", "ssa"];
      walkNameSearches(
        live,
        now,
        queries,
        [undefined, "0", "1"],
        [1, 2, 5, 20],
        () => rng.chance(0.3),
        `fold ${foldMode} batch ${batch}`,
      );
    }
  }
});

test("order=name first pages, walks and totals over delta candidate lists short and long (ties with the base page's last head, renamed names beside their tombstones, many grams coming and going) equal the oracle, across swaps", () => {
  // Names built from a few stems so that a query's rarest gram lists from a few delta entities to
  // more than a first page's walk takes in one pass (SHORT_LIST_WALK), their heads often tying with
  // the base page's last item's; renames add " (renamed)" (the new name sorts right after its
  // tombstoned base one), and random suffixes bring grams into the gram table and take them out.
  const stems = ["Battle of ", "battle ", "Bat", "New entity ", "Émile ", "Tle", "Zürich ", "a", "ab"];
  const rng = new Rng(4242);
  const suffix = () =>
    Array.from({ length: rng.int(3) }, () =>
      rng.pick(["tle", "ab", "x", "é", "q7", "zz", " tle", String(rng.int(99))]),
    ).join("");
  const name = () => `${rng.pick(stems)}${suffix()}`;
  const entities: EntityData[] = [];
  for (let i = 0; i < 300; i++)
    entities.push({ entityId: `b${i}`, rawIdentifier: name(), type: String(i % 3) as EntityType, sourceType: "" });
  // A query ("abcz") whose head is its pages' last item's: infix matches "abca abcz …" fill the
  // base's first page; the delta's first batch brings a tie after that item ("abcb abcz") and, after
  // it in the list, a prefix match ("abczz") that must still lead the page.
  for (let i = 0; i < 30; i++)
    entities.push({ entityId: `t${i}`, rawIdentifier: `abca abcz ${i}`, type: "0", sourceType: "" });
  const data: GraphData = { entities, statements: [] };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "live-test" });
  const oracle = new LiveOracle(data);
  const ties: Change[] = [
    { op: "put", entity: { entityId: "tie", rawIdentifier: "abcb abcz", type: "0", sourceType: "" } },
    { op: "put", entity: { entityId: "pre", rawIdentifier: "abczz", type: "0", sourceType: "" } },
  ];
  assert.ok(oracle.apply(ties).ok);
  live.apply(ties);
  for (const limit of [5, 20])
    walkPages<Entity>({
      fetch: (l, cursor, count) => live.search({ q: "abcz", limit: l, cursor, ...(count ? { count } : {}) }),
      expected: oracle.oracle().search("abcz", undefined),
      nextLimit: () => limit,
      defaultLimit: 20,
      countPolicy: () => rng.chance(0.4),
      ctx: `ties limit ${limit}`,
    });
  // Totals over candidates that the gram signature lets through though they lack the query ("mnop":
  // names holding its rarest gram "nop" and not it, whose other grams set the bits of "mno"), in the
  // delta and among the tombstones (base names so built, renamed).
  const qSignature = new Int32Array(2);
  const one = new Int32Array(2);
  signatureInto("mnop", qSignature, 0);
  const passing: string[] = [];
  while (passing.length < 6) {
    const candidate = `nop${Array.from({ length: 12 }, () => String.fromCharCode(97 + rng.int(26))).join("")}`;
    signatureInto(candidate, one, 0);
    if (candidate.includes("mnop")) continue;
    if ((one[0]! & qSignature[0]!) === qSignature[0] && (one[1]! & qSignature[1]!) === qSignature[1])
      passing.push(candidate);
  }
  const lures: Change[] = [
    ...passing.map(
      (n, i): Change => ({ op: "put", entity: { entityId: `lure${i}`, rawIdentifier: n, type: "0", sourceType: "" } }),
    ),
    { op: "put", entity: { entityId: "real", rawIdentifier: "xmnopx", type: "0", sourceType: "" } },
    ...Array.from(
      { length: 12 },
      (_, i): Change => ({
        op: "put",
        entity: { entityId: `mno${i}`, rawIdentifier: `mno ${i}`, type: "0", sourceType: "" },
      }),
    ),
  ];
  assert.ok(oracle.apply(lures).ok);
  live.apply(lures);
  compactNow(live);
  const renames: Change[] = [
    ...passing.map(
      (n, i): Change => ({
        op: "put",
        entity: { entityId: `lure${i}`, rawIdentifier: `re ${n}`, type: "1", sourceType: "" },
      }),
    ),
    { op: "put", entity: { entityId: "real", rawIdentifier: "ymnopy", type: "0", sourceType: "" } },
    // The "mno" lists (delta and tombstones) kept longer than the "nop" ones: "nop" the rarest.
    ...Array.from(
      { length: 12 },
      (_, i): Change => ({
        op: "put",
        entity: { entityId: `mno${i}`, rawIdentifier: `mno ${i} again`, type: "0", sourceType: "" },
      }),
    ),
  ];
  assert.ok(oracle.apply(renames).ok);
  live.apply(renames);
  for (const type of [undefined, "0", "1"] as (EntityType | undefined)[])
    walkPages<Entity>({
      fetch: (l, cursor, count) => live.search({ q: "mnop", type, limit: l, cursor, ...(count ? { count } : {}) }),
      expected: oracle.oracle().search("mnop", type),
      nextLimit: () => 2,
      defaultLimit: 20,
      countPolicy: () => true,
      ctx: `lures type ${show(type)}`,
    });
  const names = new Map(entities.map((e) => [e.entityId, e.rawIdentifier]));
  for (let batch = 0; batch < 8; batch++) {
    const changes: Change[] = [];
    for (let k = 0; k < 60; k++) {
      const r = rng.int(10);
      const base = `b${rng.int(300)}`;
      // Each kind: a new entity, a base one renamed beside its old name, another name, or a delete.
      if (r < 4) {
        const id = `n${batch}-${k}`;
        changes.push({
          op: "put",
          entity: { entityId: id, rawIdentifier: name(), type: String(rng.int(3)) as EntityType, sourceType: "" },
        });
      } else if (r < 7 && names.has(base))
        changes.push({
          op: "put",
          entity: {
            entityId: base,
            rawIdentifier: `${names.get(base)} (renamed)`,
            type: String(rng.int(3)) as EntityType,
            sourceType: "",
          },
        });
      else if (r < 9)
        changes.push({ op: "put", entity: { entityId: base, rawIdentifier: name(), type: "1", sourceType: "" } });
      else changes.push({ op: "delete", entityId: base, cascade: true });
    }
    const want = oracle.apply(changes);
    if (!want.ok) continue;
    live.apply(changes);
    for (const c of changes) if (c.op === "put" && "entity" in c) names.set(c.entity.entityId, c.entity.rawIdentifier);
    const now = oracle.oracle();
    const ctx = `batch ${batch}`;
    for (const q of [
      "tle",
      "bat",
      "Battle",
      "attle o",
      "ne",
      "new e",
      "ntity",
      "named",
      "(ren",
      "ab",
      "tleab",
      "émi",
      "zz",
      "q7",
      "rich",
      "abx",
    ])
      for (const type of [undefined, "0", "1"] as (EntityType | undefined)[])
        for (const limit of [1, 3, 20])
          walkPages<Entity>({
            fetch: (l, cursor, count) => live.search({ q, type, limit: l, cursor, ...(count ? { count } : {}) }),
            expected: now.search(q, type),
            nextLimit: () => limit,
            defaultLimit: 20,
            countPolicy: () => rng.chance(0.4),
            ctx: `${ctx} q=${show(q)} type=${show(type)} limit ${limit}`,
          });
    if (batch % 3 === 2) compactNow(live);
  }
});

test("a swap lets the old base go at once: after order=score, order=name and statements pages, nothing of the live graph keeps it until the next read", async () => {
  const gc = collectGarbage();
  assert.ok(gc !== undefined, "a full collection is needed");
  for (const withWarmth of [true, false]) {
    const data = generateGraph(new Rng(77), { entities: 60, statements: 300 });
    const live = new LiveGraph(buildGraph(data), { cursorSecret: "swap-test" });
    // The old base is read inside a frame of its own: only the live graph can keep it.
    const old = ((): WeakRef<object> => {
      const base = live.base;
      // New entities, base entities renamed with new scores, one deleted, statements among the base's.
      const ids = data.entities.map((e) => e.entityId);
      live.apply([
        ...Array.from(
          { length: 20 },
          (_, i): Change => ({
            op: "put",
            entity: { entityId: `new${i}`, rawIdentifier: `abc new ${i}`, type: "0", sourceType: "", score: i },
          }),
        ),
        ...data.entities.slice(0, 10).map(
          (e, i): Change => ({
            op: "put",
            entity: { ...e, rawIdentifier: `${e.rawIdentifier} abc`, score: 1000 + i },
          }),
        ),
        { op: "delete", entityId: ids[20]!, cascade: true },
        ...Array.from(
          { length: 30 },
          (_, i): Change => ({
            op: "put",
            statement: {
              subjectEntityId: ids[30 + (i % 20)]!,
              predicateEntityId: ids[i % 7]!,
              objectEntityId: `new${i % 20}`,
            },
          }),
        ),
      ]);
      for (const q of ["a", "ab", "abc", "e c"]) {
        live.search({ q, order: "score", limit: 3 });
        live.search({ q, limit: 3, count: true });
      }
      const page = live.statements({ limit: 2 });
      if (page.nextCursor) live.statements({ limit: 2, cursor: page.nextCursor });
      return new WeakRef(base);
    })();
    const graph = live.buildCompacted();
    live.swapBase(graph, live.sequence, [], withWarmth ? warmthOf(graph) : undefined);
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.is(old.deref(), undefined, `the old base is still held (warmth ${withWarmth})`);
    // And the graph still reads: the new base's pages.
    assert.ok(live.statements({ limit: 5 }).items.length > 0);
  }
});

test("order=name pages and totals over names that tie with the base page's last or the cursor's key in their first 3 to 12 units (lengths about 9, equal names, U+0000, folds in place or not) equal the oracle, in both fold modes", () => {
  // Names from one stem and a tail: they share the stem's units (3, 5, 8, 9 or 10 of them) and
  // differ at the units a gram summary holds (3 to 8), right after them (9 and on), or only in their
  // length (one a prefix of another, about 9 units long); a tail's character may fold with the one
  // before it (a combining mark, "İ", "ß", fullwidth letters, upper case) or be U+0000, so a base
  // item's raw identifier is read in place up to a unit that is not plain ASCII and folded after it.
  const stems = ["Bat", "batTL", "battle o", "battle of", "battle of ", "Ｂａｔ", "ba\u0000tt"];
  const tails = ["", "a", "b", "ab", "abc", "e\u0301", "İ", "ß", "\u0000", "Z", "zz", " of", "x1", "é", "ｂ"];
  const rng = new Rng(4545);
  const name = () => `${rng.pick(stems)}${rng.pick(tails)}${rng.pick(tails)}`;
  const entities: EntityData[] = [];
  for (let i = 0; i < 160; i++)
    entities.push({ entityId: `b${i}`, rawIdentifier: name(), type: String(i % 3) as EntityType, sourceType: "" });
  // Equal names under other entityIds: ties the units cannot decide.
  for (let i = 0; i < 6; i++)
    entities.push({ entityId: `e${i}`, rawIdentifier: "battle of a", type: "0", sourceType: "" });
  for (const foldMode of ["case", "accents"] as const) {
    const data: GraphData = { entities, statements: [] };
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "live-test" });
    const oracle = new LiveOracle(data, foldMode);
    for (let batch = 0; batch < 4; batch++) {
      const changes: Change[] = [];
      for (let k = 0; k < 30; k++) {
        const r = rng.int(4);
        const id = rng.chance(0.5) ? `b${rng.int(160)}` : rng.chance(0.2) ? `e${rng.int(6)}` : `n${batch}-${k}`;
        // Each kind: a new entity or a base one renamed (its name or a tail added: beside its
        // tombstone), or a delete.
        if (r < 3 || id.startsWith("n"))
          changes.push({
            op: "put",
            entity: {
              entityId: id,
              rawIdentifier: rng.chance(0.3) ? `battle of a${rng.pick(tails)}` : name(),
              type: String(rng.int(3)) as EntityType,
              sourceType: "",
            },
          });
        else changes.push({ op: "delete", entityId: id, cascade: true });
      }
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      const now = oracle.oracle();
      const queries = ["bat", "att", "tle", "ttle o", "battle of", "battle of a", "le of ab", "battle of ab", "e of a"];
      walkNameSearches(
        live,
        now,
        queries,
        [undefined, "0"],
        [1, 3, 20],
        () => rng.chance(0.3),
        `fold ${foldMode} batch ${batch}`,
      );
    }
  }
});

test.run();

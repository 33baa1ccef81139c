/**
 * Live statements reads on a larger base
 * ======================================
 * The live graph's statements paths that a base of a few dozen entities never takes: a base of
 * thousands of entities with some replaced (names checked through the replaced entities' filter,
 * not only its exact bitmap), delta items and tombstones dense in a few ranges (hub entities), so
 * that merged pages end on delta items (their cursors carry the base's position before that item)
 * and take in tombstones; every filter shape walked to the end against the brute-force oracle after
 * each batch, and cursors issued before a batch followed after it.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { type Change, LiveGraph, type Statement } from "../../../src/index.js";
import { LiveOracle, randomBatch } from "../../support/live-oracle.js";
import {
  buildGraph,
  compareKeys,
  type Filters,
  generateGraph,
  limitPolicy,
  orderFor,
  randomFilters,
  Rng,
  show,
  statementKey,
  walkPages,
} from "../../support/oracle.js";

/** A put of a statement naming `hub` as subject (role 0), predicate (1) or object (2), `a` and `b` in the other roles. */
function hubStatementPut(hub: string, role: number, a: string, b: string): Change {
  const statement =
    role === 0
      ? { subjectEntityId: hub, predicateEntityId: a, objectEntityId: b }
      : role === 1
        ? { subjectEntityId: a, predicateEntityId: hub, objectEntityId: b }
        : { subjectEntityId: a, predicateEntityId: b, objectEntityId: hub };
  return { op: "put", statement };
}

/** A batch of statement puts and deletes around a few hub entities, and replacements of some entities. */
function hubBatch(rng: Rng, oracle: LiveOracle, hubs: readonly string[]): Change[] {
  const ids = [...oracle.entities.keys()];
  const live = hubs.filter((h) => oracle.entities.has(h));
  const out: Change[] = [];
  if (live.length === 0 || ids.length === 0) return out;
  for (let k = 0; k < 60; k++) {
    const hub = rng.pick(live);
    const [a, b] = [rng.pick(ids), rng.pick(ids)];
    // Each branch: the hub as subject, predicate or object.
    const r = rng.int(3);
    out.push(hubStatementPut(hub, r, a, b));
  }
  const naming = [...oracle.statements.values()].filter((st) =>
    live.some((h) => st.subjectEntityId === h || st.predicateEntityId === h || st.objectEntityId === h),
  );
  for (let k = 0; k < 25 && naming.length > 0; k++)
    out.push({ op: "delete", statementFingerprint: rng.pick(naming).statementFingerprint });
  for (let k = 0; k < 5; k++) {
    const e = oracle.entities.get(rng.pick(ids))!;
    out.push({ op: "put", entity: { ...e, rawIdentifier: `${e.rawIdentifier} v${k}` } });
  }
  return out;
}

test("statements of a base of 3,000 entities with dense delta ranges equal the oracle after every batch: every filter shape walked to the end, cursors issued before a batch followed after it", () => {
  const rng = new Rng(2501);
  const data = generateGraph(rng, { entities: 3000, statements: 9000 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "live-statements-test" });
  const oracle = new LiveOracle(data);
  const hubs = Array.from({ length: 4 }, () => rng.pick(data.entities).entityId);
  let issued: { filters: Filters; cursor: string; last: string[] }[] = [];
  for (let batch = 0; batch < 8; batch++) {
    const changes =
      batch % 2 === 0 ? randomBatch(rng, oracle, { lines: rng.range(60, 160) }) : hubBatch(rng, oracle, hubs);
    if (!oracle.apply(changes).ok) continue;
    live.apply(changes);
    const now = oracle.oracle();
    // Cursors of the last batch's walks, followed now: the items after their key, as the content is now.
    for (const { filters, cursor, last } of issued) {
      const order = orderFor(filters);
      const want = now
        .statementsFor(filters)
        .filter((st) => compareKeys(statementKey(order, st), last) > 0)
        .slice(0, 9);
      assert.equal(
        live.statements({ ...filters, limit: 9, cursor }).items,
        want,
        `batch ${batch}: ${show(filters)} after ${show(last)}`,
      );
    }
    issued = [];
    const shapes: Filters[] = [{}];
    for (const hub of hubs) shapes.push({ subjectEntityId: hub }, { predicateEntityId: hub }, { objectEntityId: hub });
    for (let mask = 1; mask < 8; mask++) for (let k = 0; k < 3; k++) shapes.push(randomFilters(rng, mask, now));
    for (const filters of shapes) {
      const order = orderFor(filters);
      walkPages<Statement>({
        fetch: (limit, cursor, count) => {
          const page = live.statements({ ...filters, limit, cursor, ...(count ? { count } : {}) });
          if (page.nextCursor !== null && rng.chance(0.1))
            issued.push({
              filters,
              cursor: page.nextCursor,
              last: statementKey(order, page.items[page.items.length - 1]!),
            });
          return page;
        },
        expected: now.statementsFor(filters),
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: `batch ${batch} statements ${show(filters)}`,
      });
    }
  }
});

test("a merged page that ends on a delta item: its cursor resumes the live graph and its base right after that item", () => {
  // The hub's statements as subject: base items, with delta items put between them and some of
  // the base items deleted; every limit, every page; each cursor also followed by the base alone
  // (the same secret), which must give its own items after the key.
  const name = (i: number) => `e${String(i).padStart(3, "0")}`;
  const entities = Array.from({ length: 200 }, (_, i) => ({
    entityId: name(i),
    rawIdentifier: `entity ${i}`,
    type: "0" as const,
    sourceType: "",
  }));
  const hub = name(100);
  const statements = [];
  for (let i = 0; i < 200; i += 2)
    statements.push({ subjectEntityId: hub, predicateEntityId: name(i), objectEntityId: name(i) });
  const data = { entities, statements };
  const base = buildGraph(data, "merge-hint-test");
  const live = new LiveGraph(base, { cursorSecret: "merge-hint-test" });
  const oracle = new LiveOracle(data);
  const rng = new Rng(25);
  const changes: Change[] = [];
  for (let i = 1; i < 200; i += 2)
    if (rng.chance(0.5))
      changes.push({
        op: "put",
        statement: { subjectEntityId: hub, predicateEntityId: name(i), objectEntityId: name(i) },
      });
  const baseItems = base.statements({ subjectEntityId: hub, limit: 200 }).items;
  for (const st of baseItems)
    if (rng.chance(0.2)) changes.push({ op: "delete", statementFingerprint: st.statementFingerprint });
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const expected = oracle.oracle().statementsFor({ subjectEntityId: hub });
  for (let limit = 1; limit <= 12; limit++) {
    let cursor: string | undefined;
    let at = 0;
    do {
      const page = live.statements({ subjectEntityId: hub, limit, cursor });
      assert.equal(page.items, expected.slice(at, at + limit), `limit ${limit} at ${at}`);
      at += page.items.length;
      cursor = page.nextCursor ?? undefined;
      if (cursor !== undefined) {
        const last = statementKey("SPO", page.items[page.items.length - 1]!);
        const want = baseItems.filter((st) => compareKeys(statementKey("SPO", st), last) > 0).slice(0, 5);
        assert.equal(
          base.statements({ subjectEntityId: hub, limit: 5, cursor }).items,
          want,
          `base after ${show(last)}`,
        );
      }
    } while (cursor !== undefined);
    assert.is(at, expected.length, `limit ${limit}: the whole walk`);
  }
});

test("an unfiltered walk followed page by page (each cursor carries its place in the delta): equal to the oracle at every limit, with deleted base statements put back, and a cursor of another live graph over the same base placed by its key", () => {
  const rng = new Rng(3801);
  const data = generateGraph(rng, { entities: 300, statements: 900 });
  const base = buildGraph(data, "walk-place-test");
  const live = new LiveGraph(base, { cursorSecret: "walk-place-test" });
  const other = new LiveGraph(base, { cursorSecret: "walk-place-test" });
  const oracle = new LiveOracle(data);
  const ids = data.entities.map((e) => e.entityId);
  const deleted = oracle
    .oracle()
    .statementsFor({})
    .filter(() => rng.chance(0.15));
  const first: Change[] = deleted.map((st) => ({ op: "delete", statementFingerprint: st.statementFingerprint }));
  for (let k = 0; k < 120; k++)
    first.push({
      op: "put",
      statement: { subjectEntityId: rng.pick(ids), predicateEntityId: rng.pick(ids), objectEntityId: rng.pick(ids) },
    });
  // Then half of the deleted put back (the same triples: the same derived fingerprints).
  const second: Change[] = deleted
    .filter(() => rng.chance(0.5))
    .map((st) => ({
      op: "put",
      statement: {
        subjectEntityId: st.subjectEntityId,
        predicateEntityId: st.predicateEntityId,
        objectEntityId: st.objectEntityId,
      },
    }));
  for (const changes of [first, second]) {
    assert.ok(oracle.apply(changes).ok);
    live.apply(changes);
  }
  // The other graph: a delta of its own (other cursors' places must not be taken for its own).
  const own: Change[] = [];
  for (let k = 0; k < 60; k++)
    own.push({
      op: "put",
      statement: { subjectEntityId: rng.pick(ids), predicateEntityId: rng.pick(ids), objectEntityId: rng.pick(ids) },
    });
  other.apply(own);
  const otherOracle = new LiveOracle(data);
  assert.ok(otherOracle.apply(own).ok);
  const expected = oracle.oracle().statementsFor({});
  const otherExpected = otherOracle.oracle().statementsFor({});
  for (let limit = 1; limit <= 13; limit += 3) {
    let cursor: string | undefined;
    let at = 0;
    do {
      const page = live.statements({ limit, cursor });
      assert.equal(page.items, expected.slice(at, at + limit), `limit ${limit} at ${at}`);
      at += page.items.length;
      cursor = page.nextCursor ?? undefined;
      if (cursor !== undefined && rng.chance(0.2)) {
        const last = statementKey("SPO", page.items[page.items.length - 1]!);
        const want = otherExpected.filter((st) => compareKeys(statementKey("SPO", st), last) > 0).slice(0, 7);
        assert.equal(other.statements({ limit: 7, cursor }).items, want, `the other graph after ${show(last)}`);
      }
    } while (cursor !== undefined);
    assert.is(at, expected.length, `limit ${limit}: the whole walk`);
  }
});

/**
 * A batch that deletes base statements (tombstones) and puts few: statement deletes by fingerprint
 * (some of a hub entity's, so that runs of a page are tombstoned), a statement replaced (deleted,
 * then its fingerprint put again with another triple), an entity deleted with cascade, and now and
 * then one statement put.
 */
function tombstoneBatch(rng: Rng, oracle: LiveOracle, hubs: readonly string[]): Change[] {
  const all = [...oracle.statements.values()];
  const ids = [...oracle.entities.keys()];
  const out: Change[] = [];
  const gone = new Set<string>();
  const drop = (fp: string) => {
    if (gone.has(fp)) return;
    gone.add(fp);
    out.push({ op: "delete", statementFingerprint: fp });
  };
  for (let k = 0; k < 40 && all.length > 0; k++) drop(rng.pick(all).statementFingerprint);
  const hub = rng.pick(hubs);
  for (const st of all)
    if ((st.subjectEntityId === hub || st.objectEntityId === hub || st.predicateEntityId === hub) && rng.chance(0.5))
      drop(st.statementFingerprint);
  // The last few of a hub's range in one order (its base statements): a page that ends before them ends the walk.
  const filters = rng.pick<Filters>([{ subjectEntityId: hub }, { predicateEntityId: hub }, { objectEntityId: hub }]);
  for (const st of oracle.oracle().statementsFor(filters).slice(-3)) drop(st.statementFingerprint);
  const kept = all.filter((st) => !gone.has(st.statementFingerprint));
  for (let k = 0; k < 3 && kept.length > 0; k++) {
    const st = rng.pick(kept);
    if (gone.has(st.statementFingerprint)) continue;
    drop(st.statementFingerprint);
    out.push({
      op: "put",
      statement: {
        subjectEntityId: rng.pick(ids),
        predicateEntityId: st.predicateEntityId,
        objectEntityId: rng.pick(ids),
        statementFingerprint: st.statementFingerprint,
      },
    });
  }
  const victim = rng.pick(ids);
  if (!hubs.includes(victim)) out.push({ op: "delete", entityId: victim, cascade: true });
  if (rng.chance(0.5))
    out.push({
      op: "put",
      statement: { subjectEntityId: rng.pick(ids), predicateEntityId: rng.pick(ids), objectEntityId: rng.pick(ids) },
    });
  return out;
}

test("statements over tombstones with few delta statements (a filtered base page tested against the tombstones' positions in its order) equal the oracle after every batch: seeded deletes and replacements, every filter shape walked to the end, through a compaction's swap and a swap with batches after it", () => {
  const rng = new Rng(4417);
  const data = generateGraph(rng, { entities: 1500, statements: 7000 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "tombstone-bits-test" });
  const oracle = new LiveOracle(data);
  const hubs = Array.from({ length: 3 }, () => rng.pick(data.entities).entityId);
  /** Batches applied since `built` was compacted (a swap with batches after it), or undefined. */
  let pending: { built: ReturnType<LiveGraph["buildCompacted"]>; at: number; batches: Change[][] } | undefined;
  for (let batch = 0; batch < 9; batch++) {
    // Each branch: a compaction swapped in at once (batch 3); one built now and swapped in with
    // the batches after it (built at 5, swapped at 7).
    if (batch === 3) live.compact();
    if (batch === 5) pending = { built: live.buildCompacted(), at: live.sequence, batches: [] };
    if (batch === 7 && pending !== undefined) {
      live.swapBase(pending.built, pending.at, pending.batches);
      pending = undefined;
    }
    const changes = tombstoneBatch(rng, oracle, hubs);
    if (!oracle.apply(changes).ok) continue;
    live.apply(changes);
    pending?.batches.push(changes);
    const now = oracle.oracle();
    const present = now.statements;
    const shapes: Filters[] = [{}];
    for (const hub of hubs) shapes.push({ subjectEntityId: hub }, { predicateEntityId: hub }, { objectEntityId: hub });
    // Filters of every shape drawn from the base's statements (a deleted one's among them: its
    // ranges hold tombstones) and from the content now.
    for (let mask = 1; mask < 8; mask++)
      for (let k = 0; k < 4; k++) {
        const st = rng.chance(0.6) ? rng.pick(data.statements) : rng.pick(present);
        if (st === undefined) continue;
        const f: Filters = {};
        if (mask & 1) f.subjectEntityId = st.subjectEntityId;
        if (mask & 2) f.predicateEntityId = st.predicateEntityId;
        if (mask & 4) f.objectEntityId = st.objectEntityId;
        shapes.push(f, randomFilters(rng, mask, now));
      }
    for (const [i, filters] of shapes.entries())
      walkPages<Statement>({
        fetch: (limit, cursor, count) => live.statements({ ...filters, limit, cursor, ...(count ? { count } : {}) }),
        expected: now.statementsFor(filters),
        // Each branch: the hubs' walks a page an item (every page end meets the tombstones' runs), the others at random limits.
        nextLimit: i > 0 && i <= 3 * hubs.length ? () => 1 : limitPolicy(rng, 40),
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: `batch ${batch} statements ${show(filters)}`,
      });
  }
});

test("a delta statement's names, kept at its first read, follow every rename after it (a batch, a compaction's swap) and a page's items are copies: a change to one shows in no later page", () => {
  const name = (i: number) => `e${String(i).padStart(3, "0")}`;
  const entities = Array.from({ length: 40 }, (_, i) => ({
    entityId: name(i),
    rawIdentifier: `entity ${i}`,
    type: "0" as const,
    sourceType: "",
  }));
  const statements = [];
  for (let i = 0; i < 40; i += 3)
    statements.push({ subjectEntityId: name(i), predicateEntityId: name((i + 1) % 40), objectEntityId: name(i) });
  const data = { entities, statements };
  const live = new LiveGraph(buildGraph(data, "names-kept-test"), { cursorSecret: "names-kept-test" });
  const oracle = new LiveOracle(data);
  const rng = new Rng(77);
  const check = (ctx: string) => {
    const now = oracle.oracle();
    for (const filters of [
      {},
      { subjectEntityId: name(4) },
      { objectEntityId: name(5) },
      { predicateEntityId: name(7) },
    ])
      for (const limit of [1, 3, 50]) {
        const expected = now.statementsFor(filters);
        let cursor: string | undefined;
        let at = 0;
        do {
          const page = live.statements({ ...filters, limit, cursor });
          assert.equal(page.items, expected.slice(at, at + limit), `${ctx} ${show(filters)} limit ${limit} at ${at}`);
          // A page's items are the caller's: changing them changes no later page.
          for (const item of page.items) {
            item.subjectRawIdentifier = "changed";
            item.objectRawIdentifier = "changed";
          }
          at += page.items.length;
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.is(at, expected.length, `${ctx} ${show(filters)} limit ${limit}: the whole walk`);
      }
  };
  const apply = (changes: Change[]) => {
    assert.ok(oracle.apply(changes).ok);
    live.apply(changes);
  };
  // Delta statements naming base entities (and a new one), read before and after each rename.
  const puts: Change[] = [
    { op: "put", entity: { entityId: "new", rawIdentifier: "new one", type: "0", sourceType: "" } },
  ];
  for (let i = 0; i < 40; i++)
    puts.push({
      op: "put",
      statement: {
        subjectEntityId: name(i),
        predicateEntityId: name(7),
        objectEntityId: i % 4 === 0 ? "new" : name(5),
      },
    });
  apply(puts);
  check("puts");
  for (let round = 0; round < 6; round++) {
    // Each branch: a compaction swapped in before the rename (rounds 2 and 4), else a batch alone.
    if (round === 2 || round === 4) live.compact();
    const renames: Change[] = [];
    for (const id of [name(4), name(5), name(7), "new", name(rng.int(40))])
      renames.push({
        op: "put",
        entity: { entityId: id, rawIdentifier: `${id} renamed ${round}`, type: "0", sourceType: "" },
      });
    apply(renames);
    check(`round ${round}`);
  }
});

test("a filtered walk over runs of tombstones longer than a page and its slack (the base read on after each read, no delta statement): equal to the oracle at every limit, for each filter of the hub", () => {
  const name = (i: number) => `e${String(i).padStart(3, "0")}`;
  const entities = Array.from({ length: 120 }, (_, i) => ({
    entityId: name(i),
    rawIdentifier: `entity ${i}`,
    type: "0" as const,
    sourceType: "",
  }));
  const hub = name(60);
  const statements = [];
  for (let i = 0; i < 120; i++) {
    statements.push({ subjectEntityId: name(i), predicateEntityId: name(i), objectEntityId: hub });
    statements.push({ subjectEntityId: hub, predicateEntityId: name(i), objectEntityId: name(i) });
  }
  const data = { entities, statements };
  const base = buildGraph(data, "read-on-test");
  const live = new LiveGraph(base, { cursorSecret: "read-on-test" });
  const oracle = new LiveOracle(data);
  const rng = new Rng(31);
  // Runs of 0-40 deleted statements between runs of 0-3 kept ones, in each of the hub's ranges.
  const changes: Change[] = [];
  for (const filters of [{ objectEntityId: hub }, { subjectEntityId: hub }]) {
    const items = base.statements({ ...filters, limit: 200 }).items;
    for (let at = rng.int(4); at < items.length; at += rng.int(4)) {
      const run = rng.int(41);
      for (let j = at; j < Math.min(items.length, at + run); j++)
        changes.push({ op: "delete", statementFingerprint: items[j]!.statementFingerprint });
      at += run;
    }
  }
  assert.ok(oracle.apply(changes).ok);
  live.apply(changes);
  const now = oracle.oracle();
  for (const filters of [{ objectEntityId: hub }, { subjectEntityId: hub }])
    for (let limit = 1; limit <= 12; limit++) {
      const expected = now.statementsFor(filters);
      let cursor: string | undefined;
      let at = 0;
      do {
        const page = live.statements({ ...filters, limit, cursor });
        assert.equal(page.items, expected.slice(at, at + limit), `${show(filters)} limit ${limit} at ${at}`);
        at += page.items.length;
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      assert.is(at, expected.length, `${show(filters)} limit ${limit}: the whole walk`);
    }
});

test("merged pages whose delta items and base items name replaced entities in every role (a few replaced: the filter in front of the bitmap; many: the bitmap alone) and entities new to the base equal the oracle: every filter shape walked to the end at every limit", () => {
  const rng = new Rng(2519);
  const data = generateGraph(rng, { entities: 2000, statements: 8000 });
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "merge-names-test" });
  const oracle = new LiveOracle(data);
  const hubs = Array.from({ length: 3 }, () => rng.pick(data.entities).entityId);
  // Each batch: new entities, statements of the hubs naming base entities and new ones in every
  // role, and replacements (60 base entities in the first batches: fewer than the bitmap's bits
  // over 16, so the filter is asked first; then 400 more: the bitmap alone).
  for (let batch = 0; batch < 6; batch++) {
    const ids = [...oracle.entities.keys()];
    const changes: Change[] = [];
    const fresh = Array.from({ length: 20 }, (_, k) => `new-${batch}-${k}`);
    for (const entityId of fresh)
      changes.push({
        op: "put",
        entity: { entityId, rawIdentifier: `New ${entityId}`, type: "0", sourceType: "test" },
      });
    const pickAny = () => (rng.chance(0.2) ? rng.pick(fresh) : rng.pick(ids));
    for (let k = 0; k < 150; k++) {
      const hub = rng.pick(hubs);
      const r = rng.int(3);
      const [a, b] = [pickAny(), pickAny()];
      changes.push(hubStatementPut(hub, r, a, b));
    }
    const replacements = batch < 3 ? 20 : 140;
    for (let k = 0; k < replacements; k++) {
      const e = oracle.entities.get(rng.pick(data.entities).entityId);
      if (e !== undefined) changes.push({ op: "put", entity: { ...e, rawIdentifier: `${e.rawIdentifier} r${batch}` } });
    }
    assert.ok(oracle.apply(changes).ok, `batch ${batch} applies`);
    live.apply(changes);
    const now = oracle.oracle();
    const shapes: Filters[] = [{}];
    for (const hub of hubs) shapes.push({ subjectEntityId: hub }, { predicateEntityId: hub }, { objectEntityId: hub });
    // Every shape from statements of the content now (a hub's among them: ranges dense in delta items).
    for (let mask = 1; mask < 8; mask++)
      for (let k = 0; k < 4; k++) {
        const st = rng.pick(now.statements);
        const f: Filters = {};
        if (mask & 1) f.subjectEntityId = st.subjectEntityId;
        if (mask & 2) f.predicateEntityId = st.predicateEntityId;
        if (mask & 4) f.objectEntityId = st.objectEntityId;
        shapes.push(f);
      }
    for (const filters of shapes)
      walkPages<Statement>({
        fetch: (limit, cursor, count) => live.statements({ ...filters, limit, cursor, ...(count ? { count } : {}) }),
        expected: now.statementsFor(filters),
        nextLimit: limitPolicy(rng, 120),
        defaultLimit: 50,
        countPolicy: () => rng.chance(0.3),
        ctx: `batch ${batch} statements ${show(filters)}`,
      });
  }
});

test.run();

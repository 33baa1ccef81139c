/**
 * Search order, totals and folding
 * ================================
 * CONTRACT.md's order=score, count=true and accent folding, against the brute-force oracle
 * (test/support/oracle.ts): hand-checked literals first, then seeded random graphs (many duplicate
 * names, names that are prefixes of one another, every tier, every type, scores with many ties)
 * walked page by page to the end, with and without count, with order name and score, limits from
 * 1 up; statement totals for all eight filter shapes.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  foldAccents as engineFoldAccents,
  foldWith,
  GraphBuilder,
  LiveGraph,
  isQuiverError,
  type Entity,
  type EntityInput,
  type EntityType,
  type Graph,
  type Statement,
  type StatementInput,
} from "../../src/index.js";
import {
  buildGraph,
  fold,
  foldAccents,
  generateGraph,
  limitPolicy,
  Oracle,
  randomFilters,
  Rng,
  show,
  TINY_FRAGMENTS,
  TYPES,
  walkPages,
  withScores,
  type FoldMode,
  type GraphData,
  type SearchOrder,
} from "../support/oracle.js";

function graphOf(entities: EntityInput[], statements: StatementInput[] = [], foldMode?: FoldMode): Graph {
  const b = new GraphBuilder({ cursorSecret: "order-test", ...(foldMode === undefined ? {} : { fold: foldMode }) });
  for (const e of entities) b.addEntity(e);
  for (const st of statements) b.addStatement(st);
  return b.build();
}

const entity = (entityId: string, rawIdentifier: string, score?: number, type: EntityType = "0"): EntityInput => ({
  entityId,
  rawIdentifier,
  type,
  sourceType: "t",
  ...(score === undefined ? {} : { score }),
});

/** Every page of one search, concatenated; checks that `total` (asked on each page) never changes. */
function searchAll(g: Graph, q: string, order: "name" | "score", limit = 2, type?: EntityType): string[] {
  const out: string[] = [];
  let cursor: string | undefined;
  let total: number | undefined;
  for (;;) {
    const page = g.search({ q, order, limit, cursor, count: true, type });
    if (total === undefined) total = page.total;
    assert.is(page.total, total, "total differs between pages");
    out.push(...page.items.map((e) => e.entityId));
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  assert.is(total, out.length, "total is the length of the walk");
  return out;
}

test("order=score: tier first, then score highest first, then folded name, then entityId", () => {
  const g = graphOf([
    entity("a", "Paris", 5),
    entity("b", "paris", 9),
    entity("c", "Paris, Texas", 100),
    entity("d", "Paris Hilton", 100),
    entity("e", "Gare de Paris", 1000),
    entity("f", "Parisian", 7),
    entity("g", "Parisian", 7),
    entity("h", "Champs de Paris", 1000),
  ]);
  // tier 0: b (9), a (5); tier 1: "paris hilton" < "paris, texas" at 100 (space < comma), then f, g
  // at 7 by entityId; tier 2: "champs de paris" < "gare de paris" at 1000.
  assert.equal(searchAll(g, "PARIS", "score", 1), ["b", "a", "d", "c", "f", "g", "h", "e"]);
  assert.equal(searchAll(g, "paris", "name", 3), ["a", "b", "d", "c", "f", "g", "h", "e"]);
});

test("score: left out, the count of statements naming the entity, a statement naming it twice counted once", () => {
  const g = graphOf(
    [entity("x", "node one"), entity("y", "node two"), entity("z", "node three"), entity("p", "link")],
    [
      { subjectEntityId: "x", predicateEntityId: "p", objectEntityId: "x" }, // x once
      { subjectEntityId: "y", predicateEntityId: "p", objectEntityId: "x" },
      { subjectEntityId: "y", predicateEntityId: "p", objectEntityId: "z" },
      { subjectEntityId: "y", predicateEntityId: "y", objectEntityId: "y" }, // y once
    ],
  );
  // x: 2, y: 3, z: 1
  assert.equal(searchAll(g, "node", "score"), ["y", "x", "z"]);
});

test("score: 0 and 2^32 - 1 accepted; anything else refused naming the field and the line", () => {
  const g = graphOf([entity("a", "n", 0), entity("b", "n", 0xffff_ffff), entity("c", "n", 1)]);
  assert.equal(searchAll(g, "n", "score"), ["b", "c", "a"]);
  for (const bad of [-1, 1.5, 2 ** 32, Number.NaN, "3", null, true]) {
    const b = new GraphBuilder();
    try {
      b.addEntity({ ...entity("a", "n"), score: bad as number }, { file: "entities.jsonl", line: 7 });
      assert.unreachable(`score ${show(bad)} was accepted`);
    } catch (e) {
      assert.ok(isQuiverError(e), String(e));
      assert.is(e.code, "INVALID_DATA");
      assert.match(e.message, /^entities\.jsonl:7: /);
      assert.match(e.message, /field "score" must be a whole number from 0 to 4294967295/);
    }
  }
});

test("scores never appear in items", () => {
  const g = graphOf([entity("a", "n", 3)]);
  assert.equal(Object.keys(g.search({ q: "n", order: "score" }).items[0]!).sort(), [
    "entityId",
    "rawIdentifier",
    "sourceType",
    "type",
  ]);
  assert.equal(Object.keys(g.getEntity("a")!).sort(), ["entityId", "rawIdentifier", "sourceType", "type"]);
});

test("order and count: bad values refused with the parameter named", () => {
  const g = graphOf([entity("a", "n")]);
  for (const [params, parameter] of [
    [{ q: "n", order: "rank" }, "order"],
    [{ q: "n", order: "" }, "order"],
    [{ q: "n", count: "true" }, "count"],
    [{ q: "n", count: 1 }, "count"],
  ] as const) {
    try {
      g.search(params as never);
      assert.unreachable(show(params));
    } catch (e) {
      assert.ok(isQuiverError(e));
      assert.is(e.parameter, parameter);
    }
  }
  try {
    g.statements({ count: "yes" as never });
    assert.unreachable("statements count");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.is(e.parameter, "count");
  }
});

test("cursors are bound to order (and not to count or limit)", () => {
  const g = graphOf([entity("a", "n", 1), entity("b", "n", 2), entity("c", "n", 3), entity("d", "nn", 4)]);
  const byName = g.search({ q: "n", limit: 1 });
  const byScore = g.search({ q: "n", limit: 1, order: "score" });
  for (const [cursor, order] of [
    [byName.nextCursor!, "score"],
    [byScore.nextCursor!, "name"],
    [byScore.nextCursor!, undefined],
  ] as const) {
    try {
      g.search({ q: "n", cursor, ...(order === undefined ? {} : { order }) });
      assert.unreachable(`a cursor of another order was accepted (${String(order)})`);
    } catch (e) {
      assert.ok(isQuiverError(e));
      assert.is(e.code, "CURSOR_QUERY_MISMATCH");
    }
  }
  const next = g.search({ q: "n", limit: 3, order: "score", count: true, cursor: byScore.nextCursor! });
  assert.equal(
    next.items.map((e) => e.entityId),
    ["b", "a", "d"],
  );
  assert.is(next.total, 4);
});

test("total: present exactly when count is true, on search and statements, on empty pages too", () => {
  const g = graphOf(
    [entity("a", "n"), entity("p", "p")],
    [{ subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "a" }],
  );
  assert.not.ok("total" in g.search({ q: "n" }));
  assert.not.ok("total" in g.search({ q: "n", count: false }));
  assert.is(g.search({ q: "n", count: true }).total, 1);
  assert.is(g.search({ q: "zzz", count: true }).total, 0);
  assert.is(g.search({ q: "zzz", count: true, order: "score" }).total, 0);
  assert.not.ok("total" in g.statements({}));
  assert.is(g.statements({ count: true }).total, 1);
  assert.is(g.statements({ subjectEntityId: "nobody", count: true }).total, 0);
  assert.is(g.statements({ subjectEntityId: "p", count: true }).total, 0);
});

// ---------------------------------------------------------------------------------------------
// Accent folding

test("fold: the engine's two modes are the contract's formulas", () => {
  for (const s of [
    "Dürer",
    "Zürich",
    "Malmö",
    "İstanbul",
    "Straße",
    "ＡＢＣ",
    "e\u0301",
    "ΟΔΟΣ",
    "ﬁnance",
    "Ångström",
  ]) {
    assert.is(foldWith(s, "case"), fold(s), s);
    assert.is(foldWith(s, "accents"), foldAccents(s), s);
    assert.is(engineFoldAccents(s), foldAccents(s), s);
  }
});

test("accent folding: the contract's examples, and accents kept by default", () => {
  const data: EntityInput[] = [
    entity("d", "Dürer"),
    entity("z", "Zürich"),
    entity("m", "Malmö"),
    entity("s", "Straße"),
  ];
  const folded = graphOf(data, [], "accents");
  const kept = graphOf(data);
  assert.is(folded.fold, "accents");
  assert.is(kept.fold, "case");
  assert.is(folded.stats().fold, "accents");
  for (const [q, id] of [
    ["durer", "d"],
    ["zurich", "z"],
    ["malmo", "m"],
    ["MALMÖ", "m"],
    ["STRASSE", "s"],
  ] as const) {
    assert.equal(
      folded.search({ q }).items.map((e) => e.entityId),
      [id],
      q,
    );
  }
  assert.equal(kept.search({ q: "durer" }).items, []);
  assert.equal(
    kept.search({ q: "dürer" }).items.map((e) => e.entityId),
    ["d"],
  );
  // Tier 0 uses the folded form: "zurich" is exact for "Zürich".
  const z = graphOf([entity("a", "Zürich Airport"), entity("b", "Zürich"), entity("c", "Zurich")], [], "accents");
  assert.equal(searchAll(z, "ZURICH", "name"), ["b", "c", "a"]);
});

test("accent folding: a cursor or content tag of one folding never matches a graph with the other", () => {
  const data: EntityInput[] = [entity("a", "ab"), entity("b", "abc"), entity("c", "xab")];
  const kept = graphOf(data);
  const folded = graphOf(data, [], "accents");
  assert.is.not(kept.contentTag, folded.contentTag);
  const cursor = kept.search({ q: "ab", limit: 1 }).nextCursor!;
  try {
    folded.search({ q: "ab", limit: 1, cursor });
    assert.unreachable("a cursor of a case-folded graph was accepted by an accent-folded one");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.is(e.code, "CURSOR_QUERY_MISMATCH");
  }
});

test("accent folding: a statements cursor of one folding never matches a graph with the other (Graph and LiveGraph)", () => {
  const data: EntityInput[] = [entity("a", "ab"), entity("b", "abc"), entity("c", "xab")];
  const statements: StatementInput[] = [
    { subjectEntityId: "a", predicateEntityId: "b", objectEntityId: "c" },
    { subjectEntityId: "a", predicateEntityId: "b", objectEntityId: "a" },
  ];
  const graphs = (fold: FoldMode): [Graph, LiveGraph] => [
    graphOf(data, statements, fold),
    new LiveGraph(graphOf(data, statements, fold), { cursorSecret: "order-test" }),
  ];
  const [kept, keptLive] = graphs("case");
  const [folded, foldedLive] = graphs("accents");
  const refused = (read: () => unknown, what: string): void => {
    try {
      read();
      assert.unreachable(what);
    } catch (e) {
      assert.ok(isQuiverError(e), what);
      assert.is(e.code, "CURSOR_QUERY_MISMATCH", what);
    }
  };
  for (const params of [{}, { subjectEntityId: "a" }, { predicateEntityId: "b" }]) {
    for (const [from, to] of [
      [kept, folded],
      [keptLive, foldedLive],
      [folded, kept],
      [foldedLive, keptLive],
      [kept, foldedLive],
      [foldedLive, kept],
    ] as const) {
      const cursor = from.statements({ ...params, limit: 1 }).nextCursor!;
      refused(
        () => to.statements({ ...params, limit: 1, cursor }),
        `${JSON.stringify(params)}: accepted across foldings`,
      );
    }
    // The same folding, base or live: the cursor is followed.
    assert.is(
      foldedLive.statements({ ...params, limit: 1, cursor: folded.statements({ ...params, limit: 1 }).nextCursor! })
        .items.length,
      1,
    );
    assert.is(
      keptLive.statements({ ...params, limit: 1, cursor: kept.statements({ ...params, limit: 1 }).nextCursor! }).items
        .length,
      1,
    );
  }
});

test("content tag: scores that differ from the default change it; the default keeps the tag of a graph without scores", () => {
  const statements = [{ subjectEntityId: "a", predicateEntityId: "a", objectEntityId: "b" }];
  const plain = graphOf([entity("a", "x"), entity("b", "y")], statements);
  const sameAsDefault = graphOf([entity("a", "x", 1), entity("b", "y", 1)], statements);
  const other = graphOf([entity("a", "x", 2), entity("b", "y")], statements);
  assert.is(plain.contentTag, sameAsDefault.contentTag);
  assert.is.not(plain.contentTag, other.contentTag);
});

test("fold option: an unknown mode is refused before any item", () => {
  try {
    new GraphBuilder({ fold: "diacritics" as never });
    assert.unreachable("accepted");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.is(e.parameter, "fold");
  }
});

// ---------------------------------------------------------------------------------------------
// Property: walks against the oracle

/** One-character queries: dense ones (many matches) and the Unicode cases of the contract. */
const SINGLE_QUERY_CHARS = ["e", "a", "s", "b", "i", "σ", "ß", "é", "\u0301", "\u0308", "ü", "中", " ", "\u0000"];

function randomQuery(rng: Rng, oracle: Oracle): string {
  const withRaw = oracle.entities.filter((e) => e.rawIdentifier.length > 0);
  const raw = (): string => (withRaw.length === 0 ? "a" : rng.pick(withRaw).rawIdentifier);
  let q: string;
  switch (rng.int(7)) {
    case 0: {
      const s = raw();
      const a = rng.int(s.length);
      q = s.slice(a, a + rng.range(1, 6));
      break;
    }
    case 1:
      q = raw(); // tier 0
      break;
    case 2: {
      const f = oracle.fold(raw());
      q = f.slice(0, rng.range(1, Math.max(1, f.length))); // tier 1
      break;
    }
    case 3:
      q = rng.pick(SINGLE_QUERY_CHARS);
      break;
    case 4:
      q = rng.pick(TINY_FRAGMENTS) + (rng.chance(0.5) ? rng.pick(TINY_FRAGMENTS) : "");
      break;
    case 5:
      q = rng.pick(["u", "ü", "u\u0308", "é", "e", "\u0301", "dürer", "durer", "ö"]);
      break;
    default:
      q = raw().toUpperCase().slice(0, rng.range(1, 4));
  }
  if (q.length === 0) q = "a";
  return q.slice(0, 256);
}

interface Sizes {
  entities: number;
  statements: number;
  searches: number;
  filtersPerMask: number;
}

function checkSeed(seed: number, sizes: Sizes, foldMode: FoldMode): number {
  const rng = new Rng(seed);
  const data: GraphData = withScores(rng, generateGraph(rng, sizes), rng.pick([0, 0.3, 0.9]));
  const graph = buildGraph(data, `secret-${seed}`, foldMode);
  const oracle = new Oracle(data, foldMode);
  let pages = 0;
  for (let k = 0; k < sizes.searches; k++) {
    const q = randomQuery(rng, oracle);
    const type = rng.chance(0.4) ? rng.pick(TYPES) : undefined;
    const order: SearchOrder = rng.chance(0.6) ? "score" : "name";
    const countShare = rng.pick([0, 0.5, 1]);
    pages += walkPages<Entity>({
      fetch: (limit, cursor, count) => graph.search({ q, type, limit, cursor, order, ...(count ? { count } : {}) }),
      expected: oracle.search(q, type, order),
      nextLimit: limitPolicy(rng, 100),
      countPolicy: () => rng.chance(countShare),
      defaultLimit: 20,
      ctx: `seed ${seed} fold ${foldMode} search q=${show(q)} type=${show(type)} order=${order}`,
    });
  }
  for (let mask = 0; mask < 8; mask++) {
    for (let k = 0; k < sizes.filtersPerMask; k++) {
      const f = randomFilters(rng, mask, oracle);
      pages += walkPages<Statement>({
        fetch: (limit, cursor, count) => graph.statements({ ...f, limit, cursor, count }),
        expected: oracle.statementsFor(f),
        nextLimit: limitPolicy(rng, 200),
        countPolicy: () => rng.chance(0.6),
        defaultLimit: 50,
        ctx: `seed ${seed} statements ${show(f)}`,
      });
    }
  }
  return pages;
}

/** Oracle key of entity `e` (by index `i` of the oracle's entities) for q in order "score". */
function scoreKey(oracle: Oracle, q: string, e: Entity): (string | number)[] {
  const i = oracle.entities.indexOf(e);
  const f = oracle.fold(e.rawIdentifier);
  const fq = oracle.fold(q);
  return [f === fq ? 0 : f.startsWith(fq) ? 1 : 2, -(oracle.scores[i] as number), f, e.entityId];
}

function compare(x: readonly (string | number)[], y: readonly (string | number)[]): number {
  for (let i = 0; i < x.length; i++) {
    if (x[i]! < y[i]!) return -1;
    if (x[i]! > y[i]!) return 1;
  }
  return 0;
}

test("property: a cursor of one graph resumes on a changed graph after its key (order=score)", () => {
  for (let seed = 7001; seed <= 7060; seed++) {
    const rng = new Rng(seed);
    const foldMode: FoldMode = seed % 2 === 0 ? "accents" : "case";
    const before = withScores(rng, generateGraph(rng, { entities: 60 + (seed % 50), statements: 150 }), 0.6);
    // The changed graph: some entities dropped (with their statements), others rescored.
    const dropped = new Set(before.entities.filter(() => rng.chance(0.2)).map((e) => e.entityId));
    const after: GraphData = {
      entities: before.entities
        .filter((e) => !dropped.has(e.entityId))
        .map((e) => (rng.chance(0.2) ? { ...e, score: rng.int(5) } : e)),
      statements: before.statements.filter(
        (st) =>
          !dropped.has(st.subjectEntityId) && !dropped.has(st.predicateEntityId) && !dropped.has(st.objectEntityId),
      ),
    };
    const g1 = buildGraph(before, "shared", foldMode);
    const g2 = buildGraph(after, "shared", foldMode);
    const o1 = new Oracle(before, foldMode);
    const o2 = new Oracle(after, foldMode);
    for (let k = 0; k < 8; k++) {
      const q = randomQuery(rng, o1);
      const type = rng.chance(0.3) ? rng.pick(TYPES) : undefined;
      const list1 = o1.search(q, type, "score");
      if (list1.length < 2) continue;
      const at = rng.range(1, list1.length - 1);
      const page = g1.search({ q, type, order: "score", limit: at });
      assert.ok(page.nextCursor !== null, "a cursor before the end");
      const key = scoreKey(o1, q, list1[at - 1]!);
      const expected = o2.search(q, type, "score").filter((e) => compare(scoreKey(o2, q, e), key) > 0);
      walkPages<Entity>({
        fetch: (limit, cursor, count) => g2.search({ q, type, limit, cursor, order: "score", count }),
        cursor: page.nextCursor!,
        expected,
        nextLimit: limitPolicy(rng, 20),
        defaultLimit: 20,
        ctx: `seed ${seed} q=${show(q)} type=${show(type)} resumed after ${show(key)}`,
      });
    }
  }
});

test("property: order=score and name, with and without count, small graphs (many seeds), both foldings", () => {
  for (let seed = 1; seed <= 600; seed++) {
    checkSeed(
      seed,
      { entities: 3 + (seed % 40), statements: seed % 60, searches: 10, filtersPerMask: 1 },
      seed % 3 === 0 ? "accents" : "case",
    );
  }
});

test("property: order=score and name, with and without count, medium graphs", () => {
  for (let seed = 5001; seed <= 5040; seed++) {
    checkSeed(
      seed,
      { entities: 500, statements: 1500, searches: 40, filtersPerMask: 3 },
      seed % 2 === 0 ? "accents" : "case",
    );
  }
});

test("property: larger graphs (long runs of ties, dense one-letter queries)", () => {
  for (let seed = 9001; seed <= 9003; seed++) {
    checkSeed(
      seed,
      { entities: 2000, statements: 4000, searches: 6, filtersPerMask: 2 },
      seed % 2 === 0 ? "accents" : "case",
    );
  }
});

test.run();

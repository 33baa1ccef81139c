/**
 * Graph tests
 * ===========
 * Hand-checked literals first (search tiers and order worked out by hand, each Unicode case of
 * CONTRACT.md "Case and Unicode", the three statement orders), then the property test: for many
 * seeded random graphs and many queries, walk every page of search and statements to the end with
 * random (and changing) limits and compare with the brute-force oracle of oracle.ts.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  GraphBuilder,
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
  CURSOR_PATTERN,
  fold,
  generateGraph,
  limitPolicy,
  Oracle,
  randomFilters,
  Rng,
  show,
  TINY_FRAGMENTS,
  TYPES,
  UNICODE_FRAGMENTS,
  walkPages,
  type Filters,
  type GraphData,
} from "../support/oracle.js";

/** A graph of `[entityId, rawIdentifier, type]` entities (types are checked by the builder at run time). */
function graphOf(entities: [id: string, raw: string, type: string][], statements: StatementInput[] = []): Graph {
  const b = new GraphBuilder({ cursorSecret: "graph-test" });
  for (const [entityId, rawIdentifier, type] of entities)
    b.addEntity({ entityId, rawIdentifier, type: type as EntityType, sourceType: "t" });
  for (const st of statements) b.addStatement(st);
  return b.build();
}

const ids = (items: readonly Entity[]): string[] => items.map((e) => e.entityId);

/** All pages of a search, concatenated, checking nextCursor along the way. */
function searchAll(g: Graph, q: string, type?: EntityType, limit?: number): string[] {
  const out: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = g.search({ q, type, limit, cursor });
    out.push(...ids(page.items));
    if (page.nextCursor === null) return out;
    assert.ok(page.items.length > 0, "a non-null cursor after an empty page");
    cursor = page.nextCursor;
  }
}

// ---------------------------------------------------------------------------------------------
// Search: hand-checked literals

// Inserted in reverse id order, so insertion order is not entityId order.
const STREETS: [string, string, string][] = [
  ["f", "ＳＴＲＡＳＳＥ", "3"], // full-width: NFKC -> STRASSE -> strasse
  ["e", "Strasbourg", "0"], // strasbourg
  ["d", "Hauptstraße", "2"], // hauptstrasse
  ["c", "STRASSENBAHN", "0"], // strassenbahn
  ["b", "Straße", "1"], // strasse
  ["a", "strasse", "0"], // strasse
];

test("search: tier 0 exact, tier 1 prefix, tier 2 infix; ties by entityId", () => {
  const g = graphOf(STREETS);
  // tier 0: a, b, f (all fold to "strasse", by entityId); tier 1: c; tier 2: d. Not e.
  assert.equal(searchAll(g, "STRASSE"), ["a", "b", "f", "c", "d"]);
  assert.equal(searchAll(g, "Straße"), ["a", "b", "f", "c", "d"]);
  assert.equal(searchAll(g, "ＳＴＲＡＳＳＥ"), ["a", "b", "f", "c", "d"]);
  // no tier 0; tier 1 by folded: "strasbourg" < "strasse" (a, b, f) < "strassenbahn"; tier 2: d
  assert.equal(searchAll(g, "stras"), ["e", "a", "b", "f", "c", "d"]);
  assert.equal(searchAll(g, "stras", "0"), ["e", "a", "c"]);
  assert.equal(searchAll(g, "stras", "2"), ["d"]);
  assert.equal(searchAll(g, "stras", "5"), []);
  // all tier 2, by folded: "hauptstrasse" < "strasse" x3 < "strassenbahn"
  assert.equal(searchAll(g, "ss"), ["d", "a", "b", "f", "c"]);
  assert.equal(searchAll(g, "ß"), ["d", "a", "b", "f", "c"]);
  assert.equal(searchAll(g, "e"), ["d", "a", "b", "f", "c"]);
  assert.equal(searchAll(g, "haupt"), ["d"]);
  assert.equal(searchAll(g, "hauptstrasse"), ["d"]);
  assert.equal(searchAll(g, "x"), []);
  // a query longer than every identifier, and one that would straddle two identifiers
  assert.equal(searchAll(g, "strassenbahnx"), []);
  assert.equal(searchAll(g, "strassestrasse"), []);
  assert.equal(searchAll(g, "bahnhauptstrasse"), []);
});

test("search: pages of the hand-checked order, with a changing limit", () => {
  const g = graphOf(STREETS);
  const p1 = g.search({ q: "stras", limit: 2 });
  assert.equal(ids(p1.items), ["e", "a"]);
  assert.type(p1.nextCursor, "string");
  const p2 = g.search({ q: "stras", limit: 3, cursor: p1.nextCursor ?? undefined });
  assert.equal(ids(p2.items), ["b", "f", "c"]);
  assert.type(p2.nextCursor, "string");
  const p3 = g.search({ q: "stras", limit: 1, cursor: p2.nextCursor ?? undefined });
  assert.equal(ids(p3.items), ["d"]);
  assert.is(p3.nextCursor, null);
  // exactly filling the last page: nextCursor is null, not a cursor to an empty page
  const full = g.search({ q: "stras", limit: 6 });
  assert.equal(ids(full.items), ["e", "a", "b", "f", "c", "d"]);
  assert.is(full.nextCursor, null);
  const q3 = g.search({ q: "stras", limit: 3 });
  const q3b = g.search({ q: "stras", limit: 3, cursor: q3.nextCursor ?? undefined });
  assert.equal(ids(q3b.items), ["f", "c", "d"]);
  assert.is(q3b.nextCursor, null);
  // items carry every field
  assert.equal(g.search({ q: "Hauptstraße" }).items, [
    { entityId: "d", rawIdentifier: "Hauptstraße", type: "2", sourceType: "t" },
  ]);
});

const UNICODE: [string, string, string][] = [
  ["i1", "İstanbul", "0"], // fold: i̇stanbul -> istanbul
  ["i2", "istanbul", "0"],
  ["i3", "ISTANBUL", "1"],
  ["f1", "finance", "0"],
  ["f2", "ﬁnance report", "0"], // "ﬁ" ligature -> fi
  ["g1", "ΟΔΟΣΟ", "0"], // οδοσο
  ["g2", "οδος", "0"], // final sigma -> οδοσ
  ["d1", "Dürer", "0"],
  ["d2", "Durer", "0"],
  ["d3", "Du\u0308rer", "0"], // combining diaeresis: NFKC composes to ü
  ["w1", "ＡＢＣ", "0"], // full-width -> abc
  ["x1", "😀 party", "0"],
  ["x2", "日本語", "0"],
  ["n1", "a\u0000b", "0"],
  ["e1", "e\u0301", "0"], // -> é
  ["e2", "é", "0"],
  ["e3", "e", "0"],
];

test("search: Case and Unicode, each case of the contract", () => {
  const g = graphOf(UNICODE);
  assert.equal(searchAll(g, "istanbul"), ["i1", "i2", "i3"]);
  assert.equal(searchAll(g, "İSTANBUL"), ["i1", "i2", "i3"]);
  assert.equal(searchAll(g, "İstanbul"), ["i1", "i2", "i3"]);
  assert.equal(searchAll(g, "stanbul"), ["i1", "i2", "i3"]);
  assert.equal(searchAll(g, "ﬁnance"), ["f1", "f2"]); // tier 0 then tier 1
  assert.equal(searchAll(g, "FINANCE"), ["f1", "f2"]);
  assert.equal(searchAll(g, "ΟΔΟΣ"), ["g2", "g1"]); // "οδοσ" tier 0, "οδοσο" tier 1
  assert.equal(searchAll(g, "οδος"), ["g2", "g1"]);
  assert.equal(searchAll(g, "ς"), ["g2", "g1"]); // both tier 2, "οδοσ" < "οδοσο"
  assert.equal(searchAll(g, "dürer"), ["d1", "d3"]);
  assert.equal(searchAll(g, "DU\u0308RER"), ["d1", "d3"]);
  assert.equal(searchAll(g, "durer"), ["d2"]);
  assert.equal(searchAll(g, "abc"), ["w1"]);
  assert.equal(searchAll(g, "ＡＢＣ"), ["w1"]);
  assert.equal(searchAll(g, "ｂｃ"), ["w1"]);
  assert.equal(searchAll(g, "😀"), ["x1"]);
  assert.equal(searchAll(g, "\uD83D"), ["x1"]); // a lone high surrogate is a code unit of "😀"
  assert.equal(searchAll(g, "\uDE00 p"), ["x1"]);
  assert.equal(searchAll(g, "本"), ["x2"]);
  assert.equal(searchAll(g, "a\u0000b"), ["n1"]);
  assert.equal(searchAll(g, "\u0000"), ["n1"]);
  assert.equal(searchAll(g, "\u0000b"), ["n1"]);
  assert.equal(searchAll(g, "c\u0000"), []);
  assert.equal(searchAll(g, "ab"), ["w1"]); // not "a\0b"
  // "é" and "e\u0301" are one text; "e" is found in neither, and "\u0301" in nothing (composed away)
  assert.equal(searchAll(g, "é"), ["e1", "e2"]);
  assert.equal(searchAll(g, "e\u0301"), ["e1", "e2"]);
  assert.equal(searchAll(g, "\u0301"), []);
  // "e": tier 0 is e3 ("e"; e1 and e2 fold to the single code unit "é"). Tier 2, by folded:
  // d2 "durer" < d1, d3 "dürer" (u 0x75 < ü 0xFC; then by id) < f1 "finance" < f2 "finance report".
  assert.equal(searchAll(g, "e"), ["e3", "d2", "d1", "d3", "f1", "f2"]);
});

// ---------------------------------------------------------------------------------------------
// Statements: hand-checked literals

const LETTERS: [string, string, string][] = [
  ["P", "is a", "1"],
  ["Q", "knows", "1"],
  ["C", "Charlie", "0"],
  ["B", "Bob", "0"],
  ["A", "Alice", "0"],
];

function statementGraph(): { g: Graph; st: Record<string, Statement> } {
  const inputs: StatementInput[] = [
    { subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "A", statementFingerprint: "f1" },
    { subjectEntityId: "A", predicateEntityId: "Q", objectEntityId: "C", statementFingerprint: "f2" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C", statementFingerprint: "f3" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" },
    { subjectEntityId: "C", predicateEntityId: "P", objectEntityId: "A", statementFingerprint: "f5" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C", statementFingerprint: "f0" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C", statementFingerprint: "f3" }, // exact duplicate
    { subjectEntityId: "A", predicateEntityId: "Q", objectEntityId: "A", statementFingerprint: "f9" },
  ];
  const g = graphOf(LETTERS, inputs);
  const raw: Record<string, string> = { A: "Alice", B: "Bob", C: "Charlie", P: "is a", Q: "knows" };
  const mk = (s: string, p: string, o: string, fp: string): Statement => ({
    statementFingerprint: fp,
    subjectEntityId: s,
    subjectRawIdentifier: raw[s] as string,
    predicateEntityId: p,
    predicateRawIdentifier: raw[p] as string,
    objectEntityId: o,
    objectRawIdentifier: raw[o] as string,
  });
  const all = g.statements({}).items;
  const derived = all.find((x) => x.subjectEntityId === "A" && x.objectEntityId === "B");
  assert.ok(derived !== undefined, "the statement without a fingerprint is listed");
  assert.match(derived.statementFingerprint, /^[0-9a-f]{16}$/);
  return {
    g,
    st: {
      s1: mk("B", "P", "A", "f1"),
      s2: mk("A", "Q", "C", "f2"),
      s3: mk("A", "P", "C", "f3"),
      s4: mk("A", "P", "B", derived.statementFingerprint),
      s5: mk("C", "P", "A", "f5"),
      s6: mk("A", "P", "C", "f0"),
      s7: mk("A", "Q", "A", "f9"),
    },
  };
}

test("statements: each filter set in the order of its index (SPO, POS, OSP), fingerprint last", () => {
  const { g, st } = statementGraph();
  const want = (...names: string[]): Statement[] => names.map((n) => st[n] as Statement);
  const all = (f: Filters, limit?: number): Statement[] => {
    const out: Statement[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = g.statements({ ...f, limit, cursor });
      out.push(...page.items);
      if (page.nextCursor === null) return out;
      cursor = page.nextCursor;
    }
  };
  for (const limit of [undefined, 1, 2, 3]) {
    // SPO
    assert.equal(all({}, limit), want("s4", "s6", "s3", "s7", "s2", "s1", "s5"));
    assert.equal(all({ subjectEntityId: "A" }, limit), want("s4", "s6", "s3", "s7", "s2"));
    assert.equal(all({ subjectEntityId: "A", predicateEntityId: "Q" }, limit), want("s7", "s2"));
    assert.equal(all({ subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C" }, limit), want("s6", "s3"));
    // POS: by object, then subject
    assert.equal(all({ predicateEntityId: "P" }, limit), want("s1", "s5", "s4", "s6", "s3"));
    assert.equal(all({ predicateEntityId: "Q" }, limit), want("s7", "s2"));
    assert.equal(all({ predicateEntityId: "P", objectEntityId: "A" }, limit), want("s1", "s5"));
    // OSP: by subject, then predicate
    assert.equal(all({ objectEntityId: "A" }, limit), want("s7", "s1", "s5"));
    assert.equal(all({ objectEntityId: "C", subjectEntityId: "A" }, limit), want("s6", "s3", "s2"));
    assert.equal(all({ objectEntityId: "C" }, limit), want("s6", "s3", "s2"));
    assert.equal(all({ subjectEntityId: "A", objectEntityId: "A" }, limit), want("s7"));
    assert.equal(all({ subjectEntityId: "A", predicateEntityId: "Q", objectEntityId: "A" }, limit), want("s7"));
    // no match
    assert.equal(all({ subjectEntityId: "B", objectEntityId: "C" }, limit), []);
    assert.equal(all({ predicateEntityId: "A" }, limit), []);
  }
});

test("statements: an id that names no entity is an empty page, not an error", () => {
  const { g } = statementGraph();
  for (const f of [
    { subjectEntityId: "Z" },
    { predicateEntityId: "Z" },
    { objectEntityId: "Z" },
    { subjectEntityId: "A", predicateEntityId: "Z" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "Z" },
    { subjectEntityId: "a" }, // case matters for ids
    { subjectEntityId: "A\u0000" },
    { subjectEntityId: "Alice" }, // a raw identifier is not an id
  ] as Filters[]) {
    const page = g.statements(f);
    assert.equal(page, { items: [], nextCursor: null }, show(f));
  }
});

test("statements: fingerprints of one triple compared as strings, hex or not", () => {
  // Expected order worked out by hand, by UTF-16 code unit: '0' < 'A' < 'Z' < 'f' < 'é' < '😀' (D83D) < U+E000.
  const fps = [
    "0123",
    "0123456789abcdef",
    "0123456789abcdeg",
    "ABCDEF0123456789",
    "Z",
    "ffffffffffffffff",
    "fffffffffffffffff",
    "é",
    "😀",
    "\uE000",
  ];
  const shuffled = [5, 9, 0, 7, 2, 8, 4, 1, 6, 3].map((i) => fps[i] as string);
  const g = graphOf(
    LETTERS,
    shuffled.map((fp) => ({
      subjectEntityId: "A",
      predicateEntityId: "P",
      objectEntityId: "B",
      statementFingerprint: fp,
    })),
  );
  for (const f of [
    {},
    { subjectEntityId: "A" },
    { predicateEntityId: "P" },
    { objectEntityId: "B" },
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" },
  ] as Filters[]) {
    for (const limit of [undefined, 1, 3]) {
      const got: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = g.statements({ ...f, limit, cursor });
        got.push(...page.items.map((s) => s.statementFingerprint));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      assert.equal(got, fps, `${show(f)} limit ${limit}`);
    }
  }
});

test("default limits: 20 for search, 50 for statements", () => {
  const b = new GraphBuilder();
  for (let i = 0; i < 130; i++)
    b.addEntity({ entityId: `e${String(i).padStart(3, "0")}`, rawIdentifier: `item ${i}`, type: "0", sourceType: "" });
  for (let i = 0; i < 130; i++)
    b.addStatement({
      subjectEntityId: "e000",
      predicateEntityId: "e001",
      objectEntityId: `e${String(i).padStart(3, "0")}`,
    });
  const g = b.build();
  const s1 = g.search({ q: "item" });
  assert.is(s1.items.length, 20);
  assert.type(s1.nextCursor, "string");
  const s2 = g.search({ q: "item", cursor: s1.nextCursor ?? undefined });
  assert.is(s2.items.length, 20);
  assert.is(g.search({ q: "item", limit: 100 }).items.length, 100);
  const t1 = g.statements({});
  assert.is(t1.items.length, 50);
  assert.type(t1.nextCursor, "string");
  assert.is(g.statements({ cursor: t1.nextCursor ?? undefined }).items.length, 50);
  assert.is(g.statements({ limit: 200 }).items.length, 130);
  assert.is(g.statements({ limit: 200 }).nextCursor, null);
  assert.is(g.statements({ subjectEntityId: "e000", limit: 130 }).nextCursor, null);
  assert.is(g.statements({ subjectEntityId: "e000", limit: 129 }).items.length, 129);
});

test("items are copies: changing what a query returned changes nothing in the graph", () => {
  const g = graphOf(STREETS);
  const page = g.search({ q: "stras" });
  for (const e of page.items) {
    e.rawIdentifier = "changed";
    e.entityId = "zz";
  }
  const one = g.getEntity("a");
  assert.ok(one !== undefined);
  one.rawIdentifier = "changed";
  assert.equal(searchAll(g, "stras"), ["e", "a", "b", "f", "c", "d"]);
  assert.is(g.getEntity("a")?.rawIdentifier, "strasse");
  const { g: sg } = statementGraph();
  const st = sg.statements({}).items;
  for (const x of st) x.subjectEntityId = "zz";
  assert.is(sg.statements({ subjectEntityId: "A" }).items.length, 5);
  assert.is(sg.statements({}).items[0]?.subjectEntityId, "A");
});

test("getEntity: every entity by id, and undefined for ids that name none", () => {
  const g = graphOf(UNICODE);
  for (const [entityId, rawIdentifier, type] of UNICODE)
    assert.equal(g.getEntity(entityId), { entityId, rawIdentifier, type, sourceType: "t" });
  for (const id of ["", "i", "i1\u0000", "I1", "zz"]) assert.is(g.getEntity(id), undefined);
});

// ---------------------------------------------------------------------------------------------
// Property test against the oracle

const SINGLE_CHARS = [
  "e",
  "a",
  "s",
  "i",
  "b",
  "\u0000",
  "\uD83D",
  "\uDE00",
  "σ",
  "ς",
  "ß",
  "İ",
  "é",
  "\u0301",
  "\u0307",
  "中",
  "ｅ",
  " ",
  "\uFFFF",
  "\uE000",
];

function substring(rng: Rng, s: string): string {
  if (s.length === 0) return "";
  const a = rng.int(s.length);
  const b = rng.range(a + 1, Math.min(s.length, a + 1 + rng.range(0, 12)));
  return s.slice(a, b);
}

function randomQuery(rng: Rng, oracle: Oracle, sortedFolded: readonly string[]): string {
  const withRaw = oracle.entities.filter((e) => e.rawIdentifier.length > 0);
  const raw = (): string => (withRaw.length === 0 ? "a" : rng.pick(withRaw).rawIdentifier);
  let q: string;
  switch (rng.int(12)) {
    case 0:
      q = substring(rng, raw());
      break;
    case 1:
      q = substring(rng, fold(raw()));
      break;
    case 2:
      q = raw(); // whole identifier: exercises tier 0
      break;
    case 3: {
      const f = fold(raw());
      q = f.slice(0, rng.range(1, Math.max(1, f.length))); // a prefix: tier 1
      break;
    }
    case 4:
      q = rng.pick(UNICODE_FRAGMENTS);
      break;
    case 5:
      q = rng.pick(SINGLE_CHARS);
      break;
    case 6: {
      q = "";
      const n = rng.range(1, 3);
      for (let i = 0; i < n; i++) q += rng.pick(TINY_FRAGMENTS);
      break;
    }
    case 7:
      q = substring(rng, raw()).toUpperCase();
      break;
    case 8: {
      // the end of one identifier and the start of the next in folded order: must not match across them
      if (sortedFolded.length < 2) {
        q = "ab";
        break;
      }
      const i = rng.int(sortedFolded.length - 1);
      const x = sortedFolded[i] as string;
      const y = sortedFolded[i + 1] as string;
      q = x.slice(Math.max(0, x.length - rng.range(1, 3))) + y.slice(0, rng.range(0, 3));
      break;
    }
    case 9: {
      const long = withRaw.filter((e) => e.rawIdentifier.length >= 256);
      q =
        long.length > 0 && rng.chance(0.7)
          ? rng.pick(long).rawIdentifier.slice(0, rng.pick([255, 256]))
          : "a".repeat(rng.range(200, 256));
      break;
    }
    case 10:
      q = rng.pick(SINGLE_CHARS) + rng.pick(SINGLE_CHARS);
      break;
    default:
      q = substring(rng, raw()) + (rng.chance(0.5) ? rng.pick(TINY_FRAGMENTS) : "");
  }
  if (q.length === 0) q = rng.pick(SINGLE_CHARS);
  return q.slice(0, 256);
}

interface Sizes {
  entities: number;
  statements: number;
  searches: number;
  filtersPerMask: number;
  edgeFingerprints?: boolean;
}

function checkSeed(seed: number, sizes: Sizes): { pages: number; items: number } {
  const rng = new Rng(seed);
  const data: GraphData = generateGraph(rng, {
    entities: sizes.entities,
    statements: sizes.statements,
    edgeFingerprints: sizes.edgeFingerprints ?? false,
  });
  let graph: Graph;
  try {
    graph = buildGraph(data, `secret-${seed}`);
  } catch (e) {
    throw new Error(
      `seed ${seed} (${show(sizes)}): the valid generated input failed to build: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const oracle = new Oracle(data);
  const sortedFolded = oracle.folded.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let pages = 0;
  let items = 0;

  for (const e of oracle.entities) {
    const got = graph.getEntity(e.entityId);
    if (
      got === undefined ||
      got.rawIdentifier !== e.rawIdentifier ||
      got.type !== e.type ||
      got.sourceType !== e.sourceType
    ) {
      assert.unreachable(`seed ${seed}: getEntity(${show(e.entityId)}) = ${show(got)}, want ${show(e)}`);
    }
  }

  for (let k = 0; k < sizes.searches; k++) {
    const q = randomQuery(rng, oracle, sortedFolded);
    const type = rng.chance(0.35) ? rng.pick(TYPES) : undefined;
    const expected = oracle.search(q, type);
    items += expected.length;
    pages += walkPages<Entity>({
      fetch: (limit, cursor) => graph.search({ q, type, limit, cursor }),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: `seed ${seed} search q=${show(q)} type=${show(type)}`,
    });
  }

  for (let mask = 0; mask < 8; mask++) {
    for (let k = 0; k < sizes.filtersPerMask; k++) {
      const f = randomFilters(rng, mask, oracle);
      const expected = oracle.statementsFor(f);
      items += expected.length;
      pages += walkPages<Statement>({
        fetch: (limit, cursor) => graph.statements({ ...f, limit, cursor }),
        expected,
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        ctx: `seed ${seed} statements ${show(f)}`,
      });
    }
  }
  return { pages, items };
}

test("property: search and statements walk to the oracle's lists, small graphs (many seeds)", () => {
  for (let seed = 1; seed <= 2000; seed++) {
    checkSeed(seed, { entities: 3 + (seed % 40), statements: seed % 60, searches: 12, filtersPerMask: 2 });
  }
});

test("property: search and statements walk to the oracle's lists, medium graphs", () => {
  for (let seed = 1001; seed <= 1200; seed++) {
    checkSeed(seed, { entities: 400, statements: 1200, searches: 60, filtersPerMask: 4 });
  }
});

test("property: larger graphs (long runs of ties over the tiny alphabet)", () => {
  for (let seed = 5001; seed <= 5008; seed++) {
    checkSeed(seed, { entities: 5000, statements: 12000, searches: 50, filtersPerMask: 4 });
  }
});

test("property: entity counts around powers of two (index widths)", () => {
  let seed = 7000;
  for (const n of [
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024,
    1025,
  ]) {
    checkSeed(seed++, { entities: n, statements: n * 2, searches: 8, filtersPerMask: 1 });
  }
  for (const n of [65535, 65537]) checkSeed(seed++, { entities: n, statements: 70000, searches: 6, filtersPerMask: 1 });
});

test("property: explicit fingerprints 0000000000000000 (and other edge values) beside text fingerprints", () => {
  for (let seed = 8001; seed <= 8500; seed++) {
    checkSeed(seed, {
      entities: 5 + (seed % 30),
      statements: 20 + (seed % 80),
      searches: 2,
      filtersPerMask: 2,
      edgeFingerprints: true,
    });
  }
});

test("lone surrogates (JSON \\ud800 escapes) are refused when added: CONTRACT.md wants well-formed Unicode", () => {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  let refused = 0;
  for (let seed = 9001; seed <= 9100; seed++) {
    const data = generateGraph(new Rng(seed), { entities: 5 + (seed % 40), statements: 0, loneSurrogates: true });
    const bad = data.entities.some((e) => lone.test(e.entityId) || lone.test(e.rawIdentifier));
    try {
      buildGraph(data);
      assert.not.ok(bad, `seed ${seed}: a lone surrogate was accepted`);
    } catch (e) {
      assert.ok(bad && isQuiverError(e) && e.code === "INVALID_DATA", `seed ${seed}: ${String(e)}`);
      refused++;
    }
  }
  assert.ok(refused > 20, `only ${refused} seeds had a lone surrogate`);
});

test("property: cursors issued along the way are URL-safe", () => {
  const rng = new Rng(77);
  const data = generateGraph(rng, { entities: 200, statements: 500 });
  const g = buildGraph(data, "s");
  let seen = 0;
  for (const q of ["a", "e", "\u0000", "😀", "中", "ß"]) {
    let cursor: string | undefined;
    for (;;) {
      const page = g.search({ q, limit: 1, cursor });
      if (page.nextCursor === null) break;
      assert.match(page.nextCursor, CURSOR_PATTERN);
      seen++;
      cursor = page.nextCursor;
    }
  }
  let cursor: string | undefined;
  for (;;) {
    const page = g.statements({ limit: 3, cursor });
    if (page.nextCursor === null) break;
    assert.match(page.nextCursor, CURSOR_PATTERN);
    seen++;
    cursor = page.nextCursor;
  }
  assert.ok(seen > 100, `only ${seen} cursors seen`);
});

test("statements() with no argument lists every statement (no TypeError)", () => {
  const g = graphOf(
    [
      ["a", "A", "0"],
      ["p", "P", "1"],
    ],
    [{ subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "a" }],
  );
  assert.is(g.statements().items.length, 1);
});

test("stats(): counts per type, heaviest groups, code units, a content tag equal for equal content", () => {
  const entities: [string, string, string][] = [
    ["a", "Alpha", "0"],
    ["b", "Beta", "2"],
    ["p", "knows", "1"],
  ];
  const statements = [
    { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b" },
    { subjectEntityId: "b", predicateEntityId: "p", objectEntityId: "b" },
  ];
  const g = graphOf(entities, statements);
  const s = g.stats();
  assert.is(s.entities, 3);
  assert.is(s.statements, 2);
  assert.equal(s.entitiesByType, { "0": 1, "1": 1, "2": 1, "3": 0, "4": 0, "5": 0, "6": 0, "7": 0 });
  assert.is(s.identifierCodeUnits, "AlphaBetaknows".length);
  assert.equal(s.heaviest.predicates, [{ entityId: "p", statements: 2 }]);
  assert.equal(s.heaviest.objects, [{ entityId: "b", statements: 2 }]);
  assert.equal(s.heaviest.subjects, [
    { entityId: "a", statements: 1 },
    { entityId: "b", statements: 1 },
  ]);
  // Equal content in another input order: the same tag; other content: another tag.
  assert.is(graphOf([...entities].reverse(), [...statements].reverse()).stats().contentTag, s.contentTag);
  assert.is.not(graphOf(entities, statements.slice(1)).stats().contentTag, s.contentTag);
});

test("exportEntities / exportStatements give the input back: loading them builds an equal graph", () => {
  const rng = new Rng(7);
  for (let round = 0; round < 20; round++) {
    const data = generateGraph(rng, { entities: 40, statements: 80, edgeFingerprints: round % 2 === 0 });
    const g = buildGraph(data);
    const b = new GraphBuilder();
    for (const e of g.exportEntities()) b.addEntity(e);
    for (const st of g.exportStatements()) b.addStatement(st);
    const again = b.build();
    assert.is(again.stats().contentTag, g.stats().contentTag, `round ${round}`);
    const derivedOnly = [...g.exportStatements()].every((st) => st.statementFingerprint === undefined);
    if (data.statements.every((st) => st.statementFingerprint === undefined)) assert.ok(derivedOnly, `round ${round}`);
  }
});

test("exportEntities carries the scores the input gave (one equal to its count too), so the export builds the same graph", () => {
  const build = (entities: Iterable<EntityInput>, statements: Iterable<StatementInput>) => {
    const b = new GraphBuilder();
    for (const e of entities) b.addEntity(e);
    for (const s of statements) b.addStatement(s);
    return b.build();
  };
  const entities: EntityInput[] = [
    { entityId: "a", rawIdentifier: "Alpha", type: "0", sourceType: "t", score: 5 },
    { entityId: "b", rawIdentifier: "Beta", type: "0", sourceType: "t" },
    { entityId: "c", rawIdentifier: "Gamma", type: "1", sourceType: "t", score: 1 },
    { entityId: "p", rawIdentifier: "knows", type: "2", sourceType: "t" },
  ];
  const statements: StatementInput[] = [
    { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b" },
    { subjectEntityId: "c", predicateEntityId: "p", objectEntityId: "b" },
  ];
  const graph = build(entities, statements);
  const exported = [...graph.exportEntities()];
  // "a" and "c" were given scores ("c"'s equals its count of statements, 1); "b" and "p" were counted.
  assert.equal(
    exported.map((e) => e.score),
    [5, undefined, 1, undefined],
  );
  const again = build(exported, graph.exportStatements());
  assert.is(again.stats().contentTag, graph.stats().contentTag);
  assert.equal(
    again.search({ q: "a", order: "score" }).items.map((e) => e.entityId),
    graph.search({ q: "a", order: "score" }).items.map((e) => e.entityId),
  );
});

test.run();

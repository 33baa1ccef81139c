/**
 * Cursor tests, through the Graph API
 * ===================================
 * CONTRACT.md "Paging": a cursor is opaque, URL-safe, bound to its endpoint and query (not to its
 * limit), tamper-evident, sealed with a secret that replicas share, and carries the last item's sort
 * key, so it resumes at the right place on a rebuilt graph and on a graph where items were added or
 * removed. Every check here compares against the oracle of oracle.ts. Parameter errors of both
 * endpoints are checked at the end.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { CursorCodec, ENDPOINT_STATEMENTS, queryTag } from "../../../src/engine/cursor/cursor.js";
import { graphParts } from "../../../src/engine/internal.js";
import type { SearchBounds, SearchHits, SearchResume } from "../../../src/engine/search/search-index.js";
import type { RankSink } from "../../../src/engine/search/rank-list.js";
import {
  CURSOR_MAX_LENGTH,
  DEFAULT_CACHE_BYTES,
  deriveFingerprint,
  ENTITY_ID_MAX_BYTES,
  GraphBuilder,
  RAW_IDENTIFIER_MAX_BYTES,
  isQuiverError,
  type Entity,
  type EntityType,
  type Graph,
  type Statement,
  type StatementInput,
} from "../../../src/index.js";
import {
  buildGraph,
  compareKeys,
  CURSOR_PATTERN,
  expectCode,
  fold,
  generateGraph,
  limitPolicy,
  Oracle,
  orderFor,
  randomEntityId,
  randomIdentifier,
  randomStatements,
  Rng,
  show,
  statementKey,
  TYPES,
  walkPages,
  type Filters,
  type GraphData,
} from "../../support/oracle.js";

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A fixed graph with non-ASCII keys, astral characters and ties, built with secret "one". */
function baseData(): GraphData {
  return generateGraph(new Rng(4242), { entities: 300, statements: 900 });
}

interface SearchQuery {
  q: string;
  type?: EntityType | undefined;
}

/** The nextCursor after `pages` pages of `limit` (null when the list ends first). */
function searchCursorAfter(
  g: Graph,
  query: SearchQuery,
  limit: number,
  pages = 1,
): { cursor: string; last: Entity } | null {
  let cursor: string | undefined;
  let last: Entity | undefined;
  for (let i = 0; i < pages; i++) {
    const page = g.search({ ...query, limit, cursor });
    if (page.nextCursor === null) return null;
    cursor = page.nextCursor;
    last = page.items[page.items.length - 1];
  }
  return cursor === undefined || last === undefined ? null : { cursor, last };
}

function statementsCursorAfter(
  g: Graph,
  f: Filters,
  limit: number,
  pages = 1,
): { cursor: string; last: Statement } | null {
  let cursor: string | undefined;
  let last: Statement | undefined;
  for (let i = 0; i < pages; i++) {
    const page = g.statements({ ...f, limit, cursor });
    if (page.nextCursor === null) return null;
    cursor = page.nextCursor;
    last = page.items[page.items.length - 1];
  }
  return cursor === undefined || last === undefined ? null : { cursor, last };
}

/** A handful of real cursors of both endpoints, with the query each belongs to. */
function sampleCursors(
  g: Graph,
  oracle: Oracle,
): { search: { query: SearchQuery; cursor: string }[]; statements: { f: Filters; cursor: string }[] } {
  const search: { query: SearchQuery; cursor: string }[] = [];
  for (const [query, limit, pages] of [
    [{ q: "a" }, 1, 1],
    [{ q: "e", type: "0" }, 3, 2],
    [{ q: "\u0000" }, 1, 1],
    [{ q: "😀" }, 1, 1],
    [{ q: "s" }, 7, 3],
  ] as [SearchQuery, number, number][]) {
    const c = searchCursorAfter(g, query, limit, pages);
    if (c !== null) search.push({ query, cursor: c.cursor });
  }
  // the cursor whose last item has the longest, most non-ASCII key
  const nonAscii = oracle.entities.filter((e) => /[^\x00-\x7f]/.test(e.entityId) && fold(e.rawIdentifier).length > 0);
  for (const e of nonAscii.slice(0, 3)) {
    const q = fold(e.rawIdentifier).slice(0, 1);
    const all = oracle.search(q);
    const at = all.findIndex((x) => x.entityId === e.entityId);
    if (at >= 0 && at < all.length - 1) {
      const c = searchCursorAfter(g, { q }, at + 1);
      if (c !== null) search.push({ query: { q }, cursor: c.cursor });
    }
  }
  const statements: { f: Filters; cursor: string }[] = [];
  const st = oracle.statements[0] as Statement;
  for (const [f, limit, pages] of [
    [{}, 1, 1],
    [{}, 13, 5],
    [{ subjectEntityId: st.subjectEntityId }, 1, 1],
    [{ predicateEntityId: st.predicateEntityId }, 2, 2],
    [{ objectEntityId: st.objectEntityId }, 1, 1],
  ] as [Filters, number, number][]) {
    const c = statementsCursorAfter(g, f, limit, pages);
    if (c !== null) statements.push({ f, cursor: c.cursor });
  }
  assert.ok(
    search.length >= 5 && statements.length >= 3,
    `too few sample cursors: ${search.length}, ${statements.length}`,
  );
  return { search, statements };
}

/** Every way `c` is not accepted: `use` must throw INVALID_CURSOR naming "cursor". */
function expectInvalid(use: (c: string) => unknown, c: string, ctx: string): void {
  expectCode(() => use(c), "INVALID_CURSOR", "cursor", `${ctx} cursor ${show(c)}`);
}

// ---------------------------------------------------------------------------------------------
// Tampering

test("altered cursors: each character replaced, in turn, is INVALID_CURSOR", () => {
  const data = baseData();
  const g = buildGraph(data, "one");
  const { search, statements } = sampleCursors(g, new Oracle(data));
  const variants = (c: string): string[] => {
    const out: string[] = [];
    for (let i = 0; i < c.length; i++) {
      const k = B64URL.indexOf(c[i] as string);
      for (const d of [1, 37, 63]) out.push(c.slice(0, i) + B64URL[(k + d) % 64] + c.slice(i + 1));
    }
    return out;
  };
  let n = 0;
  for (const { query, cursor } of search) {
    for (const v of variants(cursor)) {
      expectInvalid((c) => g.search({ ...query, cursor: c }), v, `search ${show(query)} altered`);
      n++;
    }
  }
  for (const { f, cursor } of statements) {
    for (const v of variants(cursor)) {
      expectInvalid((c) => g.statements({ ...f, cursor: c }), v, `statements ${show(f)} altered`);
      n++;
    }
  }
  assert.ok(n > 500);
});

test("truncated cursors: every prefix is INVALID_CURSOR (the empty one EMPTY_PARAMETER)", () => {
  const data = baseData();
  const g = buildGraph(data, "one");
  const { search, statements } = sampleCursors(g, new Oracle(data));
  for (const { query, cursor } of search) {
    expectCode(() => g.search({ ...query, cursor: "" }), "EMPTY_PARAMETER", "cursor", "empty search cursor");
    for (let n = 1; n < cursor.length; n++)
      expectInvalid((c) => g.search({ ...query, cursor: c }), cursor.slice(0, n), "search prefix");
    for (let n = 1; n < cursor.length; n++)
      expectInvalid((c) => g.search({ ...query, cursor: c }), cursor.slice(n), "search suffix");
  }
  for (const { f, cursor } of statements) {
    expectCode(() => g.statements({ ...f, cursor: "" }), "EMPTY_PARAMETER", "cursor", "empty statements cursor");
    for (let n = 1; n < cursor.length; n++)
      expectInvalid((c) => g.statements({ ...f, cursor: c }), cursor.slice(0, n), "statements prefix");
    for (let n = 1; n < cursor.length; n++)
      expectInvalid((c) => g.statements({ ...f, cursor: c }), cursor.slice(n), "statements suffix");
  }
});

test("cursors with extra characters, or characters outside base64url, are INVALID_CURSOR", () => {
  const data = baseData();
  const g = buildGraph(data, "one");
  const { search, statements } = sampleCursors(g, new Oracle(data));
  const variants = (c: string): string[] => {
    const std = c.replace(/-/g, "+").replace(/_/g, "/");
    const out = [
      c + "A",
      c + "AA",
      c + "AAA",
      c + "AAAA",
      c + "_",
      "A" + c,
      "AAAA" + c,
      c + c,
      c + "=",
      c + "==",
      c + "%3D",
      c + " ",
      " " + c,
      c + "\n",
      c + "\u0000",
      c + ".",
      c + "~",
      c.slice(0, 5) + "+" + c.slice(6),
      c.slice(0, 5) + "/" + c.slice(6),
      c.slice(0, 5) + "é" + c.slice(6),
      c.slice(0, 5) + "=" + c.slice(6),
      c.toUpperCase(),
      c.toLowerCase(),
      c.split("").reverse().join(""),
    ];
    if (std !== c) out.push(std);
    return out.filter((v) => v !== c);
  };
  for (const { query, cursor } of search) {
    for (const v of variants(cursor)) expectInvalid((c) => g.search({ ...query, cursor: c }), v, "search extra");
  }
  for (const { f, cursor } of statements) {
    for (const v of variants(cursor)) expectInvalid((c) => g.statements({ ...f, cursor: c }), v, "statements extra");
  }
});

test("random strings are INVALID_CURSOR, never another error", () => {
  const g = buildGraph(baseData(), "one");
  const rng = new Rng(99);
  const alphabets = [B64URL, "A", "AB", B64URL + "+/=", "0123456789"];
  for (let i = 0; i < 600; i++) {
    const alphabet = rng.pick(alphabets);
    const n = rng.range(1, i < 500 ? 120 : 2000);
    let c = "";
    for (let k = 0; k < n; k++) c += alphabet[rng.int(alphabet.length)];
    expectInvalid((x) => g.search({ q: "a", cursor: x }), c, "search garbage");
    expectInvalid((x) => g.statements({ cursor: x }), c, "statements garbage");
  }
  expectInvalid((x) => g.search({ q: "a", cursor: x }), "A".repeat(40000), "very long");
  expectInvalid((x) => g.statements({ cursor: x }), "_".repeat(40000), "very long");
});

test("UTF-8 cursor parts resume at the right place where UTF-8 and UTF-16 orders differ", () => {
  // Keys are compared by UTF-16 code units; a pair (U+D83D U+DE00) sorts below U+E000..U+FFFF in
  // UTF-16 but above them in UTF-8 and in code points. The parts travel as UTF-8 and come back as
  // the same strings, so the comparison after decoding is still the contract's.
  const data: GraphData = {
    entities: [
      { entityId: "x1", rawIdentifier: "😀", type: "0", sourceType: "" },
      { entityId: "x2", rawIdentifier: "😀", type: "0", sourceType: "" },
      { entityId: "x3", rawIdentifier: "😀a", type: "0", sourceType: "" },
      { entityId: "x4", rawIdentifier: "\uE000😀", type: "0", sourceType: "" },
      { entityId: "k😀", rawIdentifier: "k", type: "0", sourceType: "" },
      { entityId: "k\uE000", rawIdentifier: "k", type: "0", sourceType: "" },
      { entityId: "k\uFFFD", rawIdentifier: "k", type: "0", sourceType: "" },
      { entityId: "k\uFFFE", rawIdentifier: "k", type: "0", sourceType: "" },
      { entityId: "p", rawIdentifier: "", type: "0", sourceType: "" },
    ],
    statements: [
      { subjectEntityId: "k😀", predicateEntityId: "p", objectEntityId: "p" },
      { subjectEntityId: "k\uE000", predicateEntityId: "p", objectEntityId: "p" },
      { subjectEntityId: "k\uFFFD", predicateEntityId: "p", objectEntityId: "p" },
      { subjectEntityId: "k\uFFFE", predicateEntityId: "p", objectEntityId: "p" },
      { subjectEntityId: "p", predicateEntityId: "p", objectEntityId: "p", statementFingerprint: "f😀" },
      { subjectEntityId: "p", predicateEntityId: "p", objectEntityId: "p", statementFingerprint: "f\uE000" },
      { subjectEntityId: "p", predicateEntityId: "p", objectEntityId: "p", statementFingerprint: "f\uFFFD" },
      { subjectEntityId: "p", predicateEntityId: "p", objectEntityId: "p", statementFingerprint: "f\uFFFE" },
    ],
  };
  const oracle = new Oracle(data);
  const g = buildGraph(data, "one");
  const failures: string[] = [];
  const attempt = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
    }
  };
  for (const q of ["😀", "k", "\uE000"]) {
    attempt(() =>
      walkPages<Entity>({
        fetch: (limit, cursor) => g.search({ q, limit, cursor }),
        expected: oracle.search(q),
        nextLimit: () => 1,
        defaultLimit: 20,
        ctx: `search q=${show(q)}`,
      }),
    );
  }
  for (const f of [{}, { predicateEntityId: "p" }, { objectEntityId: "p" }, { subjectEntityId: "p" }] as Filters[]) {
    attempt(() =>
      walkPages<Statement>({
        fetch: (limit, cursor) => g.statements({ ...f, limit, cursor }),
        expected: oracle.statementsFor(f),
        nextLimit: () => 1,
        defaultLimit: 50,
        ctx: `statements ${show(f)}`,
      }),
    );
  }
  assert.equal(failures, []);
});

// ---------------------------------------------------------------------------------------------
// Binding: endpoint, query, secret

test("a search cursor used for statements, and the reverse, is CURSOR_ENDPOINT_MISMATCH", () => {
  const data = baseData();
  const g = buildGraph(data, "one");
  const { search, statements } = sampleCursors(g, new Oracle(data));
  for (const { cursor } of search) {
    for (const f of [{}, { subjectEntityId: "a" }, { objectEntityId: "x", predicateEntityId: "y" }] as Filters[]) {
      expectCode(
        () => g.statements({ ...f, cursor }),
        "CURSOR_ENDPOINT_MISMATCH",
        "cursor",
        "search cursor on statements",
      );
    }
  }
  for (const { cursor } of statements) {
    for (const query of [{ q: "a" }, { q: "e", type: "0" }] as SearchQuery[]) {
      expectCode(
        () => g.search({ ...query, cursor }),
        "CURSOR_ENDPOINT_MISMATCH",
        "cursor",
        "statements cursor on search",
      );
    }
  }
});

test("a search cursor for another q or type is CURSOR_QUERY_MISMATCH (including look-alike parameter splits)", () => {
  const b = new GraphBuilder({ cursorSecret: "one" });
  // Every query below matches all five entities (or, with type "0", none: still a valid target).
  for (let i = 0; i < 5; i++)
    b.addEntity({ entityId: `a${i}`, rawIdentifier: "ab1x\u00001AB b", type: "1", sourceType: "" });
  const g = b.build();
  const queries: SearchQuery[] = [
    { q: "ab" },
    { q: "AB" }, // another q, even though it folds the same
    { q: "ab", type: "1" },
    { q: "ab1" },
    { q: "ab", type: "0" },
    { q: "x\u00001" },
    { q: "x", type: "1" },
    { q: "x\u0000", type: "1" },
    { q: "ab " },
    { q: "b" },
    { q: "1" },
    { q: "b", type: "1" },
  ];
  for (const from of queries) {
    const c = searchCursorAfter(g, from, 1);
    if (c === null) continue;
    for (const to of queries) {
      if (to === from) {
        const page = g.search({ ...to, cursor: c.cursor });
        assert.ok(page.items.length > 0, "own cursor");
        continue;
      }
      expectCode(
        () => g.search({ ...to, cursor: c.cursor }),
        "CURSOR_QUERY_MISMATCH",
        "cursor",
        `cursor of ${show(from)} used for ${show(to)}`,
      );
    }
  }
});

test("CURSOR_QUERY_MISMATCH's sentence names what may change between pages: limit and count (regression: it said only limit)", () => {
  const b = new GraphBuilder({ cursorSecret: "one" });
  for (let i = 0; i < 3; i++) b.addEntity({ entityId: `a${i}`, rawIdentifier: "ab", type: "1", sourceType: "" });
  const g = b.build();
  const c = searchCursorAfter(g, { q: "ab" }, 1);
  assert.ok(c !== null);
  // What the sentence promises holds: another limit and count follow the cursor.
  assert.ok(g.search({ q: "ab", limit: 2, count: true, cursor: c.cursor }).items.length > 0);
  try {
    g.search({ q: "b", cursor: c.cursor });
    assert.unreachable("a cursor of q=ab followed for q=b");
  } catch (e) {
    assert.is((e as { code?: string }).code, "CURSOR_QUERY_MISMATCH");
    assert.match((e as Error).message, /limit and count may change/);
  }
});

test("a statements cursor for other filters is CURSOR_QUERY_MISMATCH (including look-alike splits)", () => {
  const names = ["a", "b", "ab", "c", "bc", "a\u0000", "\u0000b"];
  const b = new GraphBuilder({ cursorSecret: "one" });
  for (const id of names) b.addEntity({ entityId: id, rawIdentifier: id, type: "0", sourceType: "" });
  let k = 0;
  for (const s of names)
    for (const p of names)
      for (const o of names) {
        b.addStatement({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });
        b.addStatement({
          subjectEntityId: s,
          predicateEntityId: p,
          objectEntityId: o,
          statementFingerprint: `fp${k++}`,
        });
      }
  const g = b.build();
  const sets: Filters[] = [
    {},
    { subjectEntityId: "a" },
    { subjectEntityId: "ab" },
    { predicateEntityId: "ab" },
    { objectEntityId: "ab" },
    { subjectEntityId: "ab", predicateEntityId: "c" },
    { subjectEntityId: "a", predicateEntityId: "bc" },
    { subjectEntityId: "a", predicateEntityId: "b" },
    { subjectEntityId: "b", predicateEntityId: "a" },
    { subjectEntityId: "a", objectEntityId: "b" },
    { predicateEntityId: "a", objectEntityId: "b" },
    { subjectEntityId: "a", predicateEntityId: "b", objectEntityId: "c" },
    { subjectEntityId: "a\u0000", predicateEntityId: "b" },
    { subjectEntityId: "a", predicateEntityId: "\u0000b" },
    { objectEntityId: "a" },
    { predicateEntityId: "a" },
  ];
  for (const from of sets) {
    const c = statementsCursorAfter(g, from, 1);
    assert.ok(c !== null, show(from));
    for (const to of sets) {
      if (to === from) {
        assert.ok(g.statements({ ...to, cursor: c.cursor }).items.length > 0, "own cursor");
        continue;
      }
      expectCode(
        () => g.statements({ ...to, cursor: c.cursor }),
        "CURSOR_QUERY_MISMATCH",
        "cursor",
        `cursor of ${show(from)} used for ${show(to)}`,
      );
    }
  }
});

test("a cursor from a graph with another secret is INVALID_CURSOR; a shared secret is accepted", () => {
  const data = baseData();
  const oracle = new Oracle(data);
  const one = buildGraph(data, "one");
  const two = buildGraph(data, "two");
  const { search, statements } = sampleCursors(one, oracle);
  for (const { query, cursor } of search) {
    expectInvalid((c) => two.search({ ...query, cursor: c }), cursor, "search, other secret");
    expectInvalid(
      (c) => one.withCursorSecret("one!").search({ ...query, cursor: c }),
      cursor,
      "search, withCursorSecret other",
    );
    assert.ok(two.withCursorSecret("one").search({ ...query, cursor }).items.length > 0);
  }
  for (const { f, cursor } of statements) {
    expectInvalid((c) => two.statements({ ...f, cursor: c }), cursor, "statements, other secret");
    assert.ok(two.withCursorSecret("one").statements({ ...f, cursor }).items.length > 0);
  }
  // a graph with the default (unnamed) secret does not accept a named secret's cursors
  const anon = buildGraph(data);
  for (const { query, cursor } of search)
    expectInvalid((c) => anon.search({ ...query, cursor: c }), cursor, "search, default secret");
  // and a replica sharing the secret continues exactly where the first left off
  const rng = new Rng(5);
  for (const { query } of search) {
    const expected = oracle.search(query.q, query.type);
    let flip = false;
    walkPages<Entity>({
      fetch: (limit, cursor) =>
        ((flip = !flip) ? one : two.withCursorSecret("one")).search({ ...query, limit, cursor }),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: `replicas ${show(query)}`,
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Limit, URL safety, length

test("limit may change between pages: each page has the new limit, the walk stays exact", () => {
  const data = baseData();
  const oracle = new Oracle(data);
  const g = buildGraph(data, "one");
  const expected = oracle.search("a");
  assert.ok(expected.length > 60, `${expected.length}`);
  const limits = [3, 1, 17, 100, 2, 5];
  let pos = 0;
  let cursor: string | undefined;
  for (const limit of limits) {
    const page = g.search({ q: "a", limit, cursor });
    const want = expected.slice(pos, pos + limit);
    assert.equal(
      page.items.map((e) => e.entityId),
      want.map((e) => e.entityId),
    );
    pos += want.length;
    if (pos === expected.length) {
      assert.is(page.nextCursor, null);
      break;
    }
    assert.ok(page.nextCursor !== null);
    assert.match(page.nextCursor, CURSOR_PATTERN);
    cursor = page.nextCursor;
  }
  const st = oracle.statementsFor({});
  pos = 0;
  cursor = undefined;
  for (const limit of [1, 200, 7, 50, 199, 2]) {
    const page = g.statements({ limit, cursor });
    const want = st.slice(pos, pos + limit);
    assert.equal(page.items, want);
    pos += want.length;
    if (pos === st.length) {
      assert.is(page.nextCursor, null);
      break;
    }
    assert.ok(page.nextCursor !== null);
    cursor = page.nextCursor;
  }
});

test("cursor length depends on the item's identifiers only: not on q's length, nor on the page number", () => {
  const b = new GraphBuilder({ cursorSecret: "one" });
  for (let i = 0; i < 400; i++)
    b.addEntity({
      entityId: `e${String(i).padStart(4, "0")}`,
      rawIdentifier: "a".repeat(300),
      type: "0",
      sourceType: "",
    });
  const g = b.build();
  const short = searchCursorAfter(g, { q: "a" }, 3);
  const long = searchCursorAfter(g, { q: "a".repeat(256) }, 3);
  assert.ok(short !== null && long !== null);
  assert.is(short.last.entityId, long.last.entityId);
  assert.is(long.cursor.length, short.cursor.length, "a 256-unit q made the cursor longer");
  const lengths = new Set<number>();
  let cursor: string | undefined;
  for (;;) {
    const page = g.search({ q: "aa", limit: 1, cursor });
    if (page.nextCursor === null) break;
    lengths.add(page.nextCursor.length);
    cursor = page.nextCursor;
  }
  assert.equal([...lengths].length, 1, `cursor lengths ${show([...lengths])} over the pages`);
  // statements: same-length ids on every row, so one length from first to last page
  const sb = new GraphBuilder({ cursorSecret: "one" });
  for (let i = 0; i < 300; i++)
    sb.addEntity({ entityId: `e${String(i).padStart(4, "0")}`, rawIdentifier: "", type: "0", sourceType: "" });
  for (let i = 0; i < 300; i++)
    sb.addStatement({
      subjectEntityId: `e${String(i).padStart(4, "0")}`,
      predicateEntityId: "e0000",
      objectEntityId: "e0001",
    });
  const sg = sb.build();
  const slen = new Set<number>();
  cursor = undefined;
  for (;;) {
    const page = sg.statements({ predicateEntityId: "e0000", limit: 1, cursor });
    if (page.nextCursor === null) break;
    slen.add(page.nextCursor.length);
    cursor = page.nextCursor;
  }
  assert.equal([...slen].length, 1, `statement cursor lengths ${show([...slen])}`);
});

test("every cursor the engine issues opens again, for identifiers as long as the limits allow", () => {
  for (const unit of ["a", "中", "😀"]) {
    const b = new GraphBuilder({ cursorSecret: "one" });
    const unitBytes = Buffer.byteLength(unit);
    const raw = unit.repeat(Math.floor(RAW_IDENTIFIER_MAX_BYTES / unitBytes));
    const id = (k: string): string => k + unit.repeat(Math.floor((ENTITY_ID_MAX_BYTES - 1) / unitBytes));
    for (const k of ["a", "b", "c"]) b.addEntity({ entityId: id(k), rawIdentifier: raw, type: "0", sourceType: "" });
    for (const k of ["a", "b", "c"])
      b.addStatement({ subjectEntityId: id(k), predicateEntityId: id("a"), objectEntityId: id("b") });
    const g = b.build();
    const got: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = g.search({ q: unit, limit: 1, cursor });
      got.push(...page.items.map((e) => e.entityId.slice(0, 1)));
      if (page.nextCursor === null) break;
      assert.match(page.nextCursor, CURSOR_PATTERN);
      assert.ok(page.nextCursor.length <= CURSOR_MAX_LENGTH, `${page.nextCursor.length} characters`);
      cursor = page.nextCursor;
    }
    assert.equal(got, ["a", "b", "c"], `search, unit ${unit}`);
    const stmts: string[] = [];
    cursor = undefined;
    for (;;) {
      const page = g.statements({ predicateEntityId: id("a"), limit: 1, cursor });
      stmts.push(...page.items.map((st) => st.subjectEntityId.slice(0, 1)));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    assert.equal(stmts, ["a", "b", "c"], `statements, unit ${unit}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Carried to another graph

function shuffledCopy(rng: Rng, data: GraphData): GraphData {
  return { entities: rng.shuffle(data.entities.slice()), statements: rng.shuffle(data.statements.slice()) };
}

test("a cursor carried to a graph rebuilt from the same data (in another input order) continues exactly", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed * 7919);
    const data = generateGraph(rng, { entities: 150 + seed * 10, statements: 400 });
    const oracle = new Oracle(data);
    const a = buildGraph(data, "shared");
    const b = buildGraph(shuffledCopy(rng, data), "shared");
    for (const q of ["a", "e", "s", fold(rng.pick(data.entities).rawIdentifier).slice(0, 2) || "b"]) {
      const type = rng.chance(0.3) ? rng.pick(TYPES.slice(0, 3)) : undefined;
      let flip = false;
      walkPages<Entity>({
        fetch: (limit, cursor) => ((flip = !flip) ? a : b).search({ q, type, limit, cursor }),
        expected: oracle.search(q, type),
        nextLimit: limitPolicy(rng, 100),
        defaultLimit: 20,
        ctx: `seed ${seed} rebuilt search q=${show(q)} type=${show(type)}`,
      });
    }
    for (let mask = 0; mask < 8; mask++) {
      const st = rng.pick(oracle.statements);
      const f: Filters = {};
      if (mask & 1) f.subjectEntityId = st.subjectEntityId;
      if (mask & 2) f.predicateEntityId = st.predicateEntityId;
      if (mask & 4) f.objectEntityId = st.objectEntityId;
      let flip = false;
      walkPages<Statement>({
        fetch: (limit, cursor) => ((flip = !flip) ? a : b).statements({ ...f, limit, cursor }),
        expected: oracle.statementsFor(f),
        nextLimit: () => rng.range(1, 4),
        defaultLimit: 50,
        ctx: `seed ${seed} rebuilt statements ${show(f)}`,
      });
    }
  }
});

/** The fingerprint a statement input ends up with. */
function fpOf(st: StatementInput): string {
  return st.statementFingerprint ?? deriveFingerprint(st.subjectEntityId, st.predicateEntityId, st.objectEntityId);
}

/** Fingerprint -> triple of every statement of `data`, so additions never conflict. */
function owners(data: GraphData): Map<string, string> {
  const m = new Map<string, string>();
  for (const st of data.statements)
    m.set(fpOf(st), JSON.stringify([st.subjectEntityId, st.predicateEntityId, st.objectEntityId]));
  return m;
}

/** `s` without its last code point (never splits a surrogate pair). */
function dropLast(s: string): string {
  const cps = Array.from(s);
  return cps.slice(0, -1).join("");
}

/** Ids close to `id` in string order, each usable as a new entityId (not taken); no lone surrogates. */
function idsNear(id: string, taken: ReadonlySet<string>): string[] {
  const cps = Array.from(id);
  const last = (cps[cps.length - 1] as string).codePointAt(0) as number;
  const head = dropLast(id);
  const near = [id + "\u0000", id + "a", head, id + "😀", head + "\uFFFF"];
  for (const d of [1, -1]) {
    const c = last + d;
    if (c >= 0 && c <= 0x10ffff && (c < 0xd800 || c > 0xdfff)) near.push(head + String.fromCodePoint(c));
  }
  const out: string[] = [];
  for (const c of near) {
    if (c.length > 0 && !taken.has(c) && !out.includes(c)) out.push(c);
  }
  return out;
}

/** Strings close to a fingerprint in string order (hex or not). */
function fingerprintsNear(fp: string): string[] {
  const out = [fp + "0", dropLast(fp), fp + "\u0000", fp.toUpperCase()];
  if (/^[0-9a-f]{16}$/.test(fp)) {
    const n = BigInt(`0x${fp}`);
    for (const d of [1n, -1n]) {
      const m = n + d;
      if (m >= 0n && m < 1n << 64n) out.push(m.toString(16).padStart(16, "0"));
    }
  }
  return out.filter((x) => x.length > 0 && x !== fp);
}

/**
 * `data` with the entities in `remove` gone (with their statements), entities added next to the
 * removed ones in entityId and identifier order, and some random entities and statements added.
 */
function mutate(
  rng: Rng,
  data: GraphData,
  remove: ReadonlySet<string>,
  nearIds: readonly string[],
  nearRaws: readonly string[],
): { data: GraphData; taken: Set<string> } {
  const entities = data.entities.filter((e) => !remove.has(e.entityId) && !rng.chance(0.08));
  const taken = new Set(entities.map((e) => e.entityId));
  const add = (entityId: string, rawIdentifier: string): void => {
    if (taken.has(entityId)) return;
    taken.add(entityId);
    entities.push({ entityId, rawIdentifier, type: rng.pick(["0", "0", "1", "2", "7"]), sourceType: "new" });
  };
  // q and cut identifiers may end inside a surrogate pair: only well-formed ones can be identifiers.
  const wellFormedRaws = nearRaws.filter((r) => !LONE_SURROGATE.test(r));
  for (const id of nearIds) add(id, rng.pick(wellFormedRaws));
  const raws = entities.map((e) => e.rawIdentifier);
  const ids = entities.map((e) => e.entityId);
  for (let i = 0; i < 20; i++)
    add(randomEntityId(rng, taken, ids), rng.chance(0.5) ? rng.pick(wellFormedRaws) : randomIdentifier(rng, raws));
  const statements = data.statements.filter(
    (st) => taken.has(st.subjectEntityId) && taken.has(st.predicateEntityId) && taken.has(st.objectEntityId),
  );
  const next: GraphData = { entities, statements };
  statements.push(...randomStatements(rng, entities, 60, owners(next)));
  return { data: next, taken };
}

test("a search cursor carried to a graph with items added and removed resumes after its key", () => {
  let checked = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rng = new Rng(seed * 104729);
    const data = generateGraph(rng, { entities: 60 + (seed % 5) * 40, statements: 100 });
    const oracleA = new Oracle(data);
    const a = buildGraph(data, "shared");
    // a query with a few matches, a cursor part-way through
    let q = "a";
    let type: EntityType | undefined;
    let all: Entity[] = [];
    for (let tries = 0; tries < 20 && all.length < 3; tries++) {
      const e = rng.pick(data.entities);
      const f = fold(e.rawIdentifier);
      q =
        f.length === 0
          ? rng.pick(["a", "e", "s", "b"])
          : f.slice(rng.int(f.length), rng.int(f.length) + 1 + rng.int(2)) || f;
      type = rng.chance(0.25) ? e.type : undefined;
      all = oracleA.search(q, type);
    }
    if (all.length < 2) continue;
    const limit = rng.range(1, Math.min(100, all.length - 1));
    const c = searchCursorAfter(a, { q, type }, limit);
    assert.ok(c !== null, `seed ${seed}: no cursor for q=${show(q)} with ${all.length} matches and limit ${limit}`);
    const last = c.last;
    assert.is(last.entityId, (all[limit - 1] as Entity).entityId, `seed ${seed}: last item of the first page`);
    const afterKey = oracleA.searchKey(q, last);

    // remove the last item (or give its id a new identifier), and put new entities right around its key
    const remove = new Set([last.entityId]);
    const nearRaws = [
      last.rawIdentifier,
      last.rawIdentifier + "a",
      dropLast(last.rawIdentifier),
      last.rawIdentifier.toUpperCase(),
      q,
      q + "z",
    ];
    const nearIds = idsNear(last.entityId, new Set(data.entities.map((e) => e.entityId)));
    const mode = rng.int(3);
    if (mode === 1) nearIds.push(last.entityId); // same id, back with another (or the same) identifier
    if (mode === 2) {
      // also remove the item just before, and the one just after
      const i = limit - 1;
      if (i > 0) remove.add((all[i - 1] as Entity).entityId);
      if (i + 1 < all.length) remove.add((all[i + 1] as Entity).entityId);
    }
    const next = mutate(rng, data, remove, nearIds, nearRaws).data;
    const oracleB = new Oracle(next);
    const b = buildGraph(next, "shared");
    const expected = oracleB.search(q, type).filter((e) => compareKeys(oracleB.searchKey(q, e), afterKey) > 0);
    walkPages<Entity>({
      fetch: (lim, cursor) => b.search({ q, type, limit: lim, cursor }),
      expected,
      cursor: c.cursor,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: `seed ${seed} changed graph, search q=${show(q)} type=${show(type)} after ${show(afterKey)} (mode ${mode})`,
    });
    checked++;
  }
  assert.ok(checked >= 200, `only ${checked} seeds had a usable query`);
});

test("a statements cursor carried to a graph with items added and removed resumes after its key", () => {
  let checked = 0;
  for (let seed = 1; seed <= 500; seed++) {
    const rng = new Rng(seed * 15485863);
    const data = generateGraph(rng, { entities: 30 + (seed % 4) * 20, statements: 200 });
    const oracleA = new Oracle(data);
    const a = buildGraph(data, "shared");
    const mask = seed % 8;
    const pick = rng.pick(oracleA.statements);
    const f: Filters = {};
    if (mask & 1) f.subjectEntityId = pick.subjectEntityId;
    if (mask & 2) f.predicateEntityId = pick.predicateEntityId;
    if (mask & 4) f.objectEntityId = pick.objectEntityId;
    const all = oracleA.statementsFor(f);
    if (all.length < 2) continue;
    const limit = rng.range(1, Math.min(200, all.length - 1));
    const c = statementsCursorAfter(a, f, limit);
    assert.ok(c !== null, `seed ${seed}: no cursor`);
    const last = c.last;
    const order = orderFor(f);
    const afterKey = statementKey(order, last);

    // remove the last statement; sometimes one of its entities that is not a filter value too
    const remove = new Set<string>();
    const free = [
      f.subjectEntityId === undefined ? last.subjectEntityId : undefined,
      f.predicateEntityId === undefined ? last.predicateEntityId : undefined,
      f.objectEntityId === undefined ? last.objectEntityId : undefined,
    ].filter((x): x is string => x !== undefined);
    if (free.length > 0 && rng.chance(0.5)) remove.add(rng.pick(free));
    const originalIds = new Set(data.entities.map((e) => e.entityId));
    const nearIds = [
      ...idsNear(last.subjectEntityId, originalIds),
      ...idsNear(last.predicateEntityId, originalIds),
      ...idsNear(last.objectEntityId, originalIds),
    ];
    const stripped: GraphData = {
      entities: data.entities,
      statements: data.statements.filter(
        (st) =>
          !(
            st.subjectEntityId === last.subjectEntityId &&
            st.predicateEntityId === last.predicateEntityId &&
            st.objectEntityId === last.objectEntityId &&
            fpOf(st) === last.statementFingerprint
          ),
      ),
    };
    const { data: next, taken } = mutate(rng, stripped, remove, nearIds, ["x", ""]);
    // statements right around the removed one: its own triple with nearby fingerprints, and triples
    // with one component replaced by a nearby id, in the filtered and the unfiltered positions
    const own = owners(next);
    const tripleOf = (s: string, p: string, o: string) => JSON.stringify([s, p, o]);
    const addStatement = (s: string, p: string, o: string, fp?: string): void => {
      if (!taken.has(s) || !taken.has(p) || !taken.has(o)) return;
      const key = tripleOf(s, p, o);
      const real = fp ?? deriveFingerprint(s, p, o);
      const owner = own.get(real);
      if (owner !== undefined && owner !== key) return;
      own.set(real, key);
      next.statements.push(
        fp === undefined
          ? { subjectEntityId: s, predicateEntityId: p, objectEntityId: o }
          : { subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint: fp },
      );
    };
    const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } = last;
    for (const fp of fingerprintsNear(last.statementFingerprint)) addStatement(s, p, o, fp);
    for (const id of idsNear(s, originalIds))
      addStatement(id, p, o, rng.chance(0.5) ? last.statementFingerprint + "~" + id : undefined);
    for (const id of idsNear(p, originalIds)) addStatement(s, id, o);
    for (const id of idsNear(o, originalIds))
      addStatement(s, p, id, rng.chance(0.5) ? last.statementFingerprint : undefined);
    if (rng.chance(0.5)) addStatement(s, p, o); // the triple again with its derived fingerprint
    const oracleB = new Oracle(next);
    const b = buildGraph(next, "shared");
    const expected = oracleB.statementsFor(f).filter((st) => compareKeys(statementKey(order, st), afterKey) > 0);
    walkPages<Statement>({
      fetch: (lim, cursor) => b.statements({ ...f, limit: lim, cursor }),
      expected,
      cursor: c.cursor,
      nextLimit: limitPolicy(rng, 200),
      defaultLimit: 50,
      ctx: `seed ${seed} changed graph, statements ${show(f)} (${order}) after ${show(afterKey)}, removed ${show([...remove])}`,
    });
    checked++;
  }
  assert.ok(checked >= 250, `only ${checked} seeds had a usable filter`);
});

// ---------------------------------------------------------------------------------------------
// The codec itself: part encodings, the length bound, the issued-cursor cache

test("codec: parts travel as UTF-8, and a part that is not well-formed comes back exact (UTF-16 flag)", () => {
  const codec = new CursorCodec(Buffer.from("k"), DEFAULT_CACHE_BYTES);
  const tag = queryTag(["x"]);
  const parts = ["a".repeat(300), "é😀\uE000", "\uD800x", "y\uDFFF", ""];
  const cursor = codec.encode(ENDPOINT_STATEMENTS, tag, 0, parts);
  // a fresh codec with the same secret has no cache: it decodes the bytes
  assert.equal(new CursorCodec(Buffer.from("k"), 0).decode(cursor, ENDPOINT_STATEMENTS, tag).parts, parts);
  assert.equal(codec.decode(cursor, ENDPOINT_STATEMENTS, tag).parts, parts);
  // 300 ASCII characters cost 300 bytes, not 600 (UTF-16): about 4/3 of that in base64url
  const ascii = codec.encode(ENDPOINT_STATEMENTS, tag, 0, ["a".repeat(300)]);
  assert.ok(ascii.length < 450, `${ascii.length} characters for 300 ASCII characters`);
});

test("codec: parts of every length around the varint header's boundaries, 1 to 3 bytes a code unit, open exact", () => {
  // The encoder leaves room for the longest header a part could need and moves the bytes back when
  // it needs less: lengths on both sides of 64 bytes (one header byte or two), in each encoding.
  const codec = new CursorCodec(Buffer.from("k"), 0);
  const opener = new CursorCodec(Buffer.from("k"), 0);
  const tag = queryTag(["x"]);
  for (const unit of ["a", "é", "字", "\uD800"]) {
    for (let n = 0; n <= 80; n++) {
      const parts = [unit.repeat(n), "z", unit.repeat(80 - n)];
      const cursor = codec.encode(ENDPOINT_STATEMENTS, tag, 0, parts);
      assert.equal(opener.decode(cursor, ENDPOINT_STATEMENTS, tag).parts, parts, `${JSON.stringify(unit)} x ${n}`);
    }
  }
  // A part whose room (3 bytes a code unit) is past the scratch buffer's first 8,192 bytes grows it;
  // its cursor (2,800 bytes) still opens (under CURSOR_MAX_LENGTH characters).
  const long = ["a".repeat(2800), "b"];
  assert.equal(opener.decode(codec.encode(ENDPOINT_STATEMENTS, tag, 0, long), ENDPOINT_STATEMENTS, tag).parts, long);
});

test("codec: a string longer than CURSOR_MAX_LENGTH is INVALID_CURSOR before any decoding", () => {
  const g = buildGraph(baseData(), "one");
  const real = searchCursorAfter(g, { q: "a" }, 1);
  assert.ok(real !== null);
  const long = real.cursor + "A".repeat(CURSOR_MAX_LENGTH + 1 - real.cursor.length);
  expectInvalid((c) => g.search({ q: "a", cursor: c }), long, "over the length bound");
});

test("a search's next page asked of the graph that issued its cursor reuses the query's kept bounds; elsewhere it searches again, and every walk is the oracle's", () => {
  for (let seed = 1; seed <= 12; seed++) {
    const rng = new Rng(seed * 7907);
    const data = generateGraph(rng, { entities: 150 + seed * 20, statements: 40 });
    const oracle = new Oracle(data);
    const issuer = buildGraph(data, "kept");
    // The same content and secret: it opens issuer's cursors, but its cache never held them.
    const stranger = buildGraph(data, "kept");
    const uncached = issuer.withOptions({ cacheBytes: 0 });
    // Record, per call of the issuer's index, the bounds a resume brought (the index is shared by
    // `uncached`, made from the same parts; `stranger` has its own).
    const index = graphParts(issuer).searchIndex;
    const find = index.find.bind(index);
    let brought: (SearchBounds | undefined)[] = [];
    index.find = ((pattern: string, type: number, after: SearchResume, count: number, into?: SearchHits<RankSink>) => {
      if (after !== null && "rank" in after) brought.push(after.bounds);
      // The graph passes its own reused lists (rank-list.ts): handed on as they came.
      return into === undefined ? find(pattern, type, after, count) : find(pattern, type, after, count, into);
    }) as typeof index.find;
    for (const q of ["a", fold(rng.pick(data.entities).rawIdentifier).slice(0, 2) || "e", "é"]) {
      for (const [name, next] of [
        ["issuer", issuer],
        ["uncached", uncached],
        ["stranger", stranger],
      ] as const) {
        brought = [];
        const pages = walkPages<Entity>({
          fetch: (limit, cursor) => (cursor === undefined ? issuer : next).search({ q, limit, cursor }),
          expected: oracle.search(q),
          nextLimit: limitPolicy(rng, 25),
          defaultLimit: 20,
          ctx: `seed ${seed} q=${show(q)} next pages from ${name}`,
        });
        // Kept bounds are what a fresh search finds; the others bring none (or never reach this index).
        const fresh = find(fold(q), -1, null, 1).bounds;
        if (name === "issuer") {
          assert.is(brought.length, pages - 1, `seed ${seed} q=${show(q)}: one resume a next page`);
          for (const b of brought) assert.equal(b, fresh, `seed ${seed} q=${show(q)}: the kept bounds`);
        } else if (name === "uncached") {
          assert.ok(
            brought.every((b) => b === undefined),
            `seed ${seed} q=${show(q)}: no cache, no bounds`,
          );
        } else assert.is(brought.length, 0, `seed ${seed} q=${show(q)}: the stranger searches its own index`);
      }
    }
  }
});

test("kept bounds are read, not searched again: bounds that fit but are another query's change the page; ones that do not fit are ignored", () => {
  const data = baseData();
  const graph = buildGraph(data, "kept");
  const index = graphParts(graph).searchIndex;
  const q = fold("a");
  const first = index.find(q, -1, null, 4);
  const honest = first.bounds!;
  const resume = { tier: first.tiers[2]!, rank: first.ranks[2]! };
  const searched = index.find(q, -1, { ...resume, bounds: undefined }, 2);
  assert.equal(index.find(q, -1, { ...resume, bounds: honest }, 2).ranks, searched.ranks, "honest bounds");
  // An interval of one suffix with empty tiers: fits any index, and lists at most one entity.
  const other: SearchBounds = { l: 0, r: 1, a: 0, b: 0, e: 0 };
  assert.ok(index.find(q, -1, { ...resume, bounds: other }, 2).ranks.length < searched.ranks.length, "read");
  const unfit: SearchBounds = { l: 0, r: 0x7fffffff, a: 0, b: 0, e: 0 };
  assert.equal(index.find(q, -1, { ...resume, bounds: unfit }, 2).ranks, searched.ranks, "unfit: searched again");
});

test("cacheBytes: 0 keeps no cursor and paging still works; a bad budget is refused at once", () => {
  const data = baseData();
  const oracle = new Oracle(data);
  const g = buildGraph(data, "one").withOptions({ cacheBytes: 0 });
  walkPages<Entity>({
    fetch: (limit, cursor) => g.search({ q: "a", limit, cursor }),
    expected: oracle.search("a"),
    nextLimit: () => 7,
    defaultLimit: 20,
    ctx: "no cache",
  });
  for (const cacheBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "1" as unknown as number]) {
    expectCode(() => new GraphBuilder({ cacheBytes }), "INVALID_PARAMETER", "cacheBytes", `builder ${cacheBytes}`);
    expectCode(() => g.withOptions({ cacheBytes }), "INVALID_PARAMETER", "cacheBytes", `graph ${cacheBytes}`);
  }
});

test("code quality: an empty cursor secret is refused by the GraphBuilder constructor, before any item", () => {
  expectCode(() => new GraphBuilder({ cursorSecret: "" }), "INVALID_PARAMETER", "cursorSecret", "empty string");
  expectCode(
    () => new GraphBuilder({ cursorSecret: new Uint8Array(0) }),
    "INVALID_PARAMETER",
    "cursorSecret",
    "empty bytes",
  );
});

// ---------------------------------------------------------------------------------------------
// Parameter errors

test("search parameter errors: right code and parameter", () => {
  const g = buildGraph(baseData(), "one");
  expectCode(() => g.search({} as { q: string }), "MISSING_PARAMETER", "q", "no q");
  expectCode(() => g.search({ q: undefined as unknown as string }), "MISSING_PARAMETER", "q", "q undefined");
  expectCode(() => g.search({ q: "" }), "EMPTY_PARAMETER", "q", "q empty");
  expectCode(() => g.search({ q: "a".repeat(257) }), "QUERY_TOO_LONG", "q", "q 257");
  expectCode(() => g.search({ q: "😀".repeat(128) + "a" }), "QUERY_TOO_LONG", "q", "q 257 code units, 129 code points");
  expectCode(() => g.search({ q: 5 as unknown as string }), "INVALID_PARAMETER", "q", "q number");
  assert.ok(Array.isArray(g.search({ q: "a".repeat(256) }).items));
  assert.ok(Array.isArray(g.search({ q: "😀".repeat(128) }).items));
  assert.ok(Array.isArray(g.search({ q: "a" }).items));
  // the limit is on q as given, not on its folded form (each of these folds to 512 or 768 units)
  for (const q of ["ΐ".repeat(256), "ﬃ".repeat(256), "ß".repeat(256)]) {
    const page = g.search({ q, limit: 5 });
    assert.equal(page, { items: [], nextCursor: null }, `q of 256 ${q[0]}`);
  }
  // JavaScript callers can pass any value: the type is checked at run time too.
  for (const type of ["8", "a", "00", " 0", "0 ", "-1", "٠", "０"])
    expectCode(() => g.search({ q: "a", type: type as EntityType }), "INVALID_TYPE", "type", `type ${show(type)}`);
  expectCode(() => g.search({ q: "a", type: 0 as unknown as EntityType }), "INVALID_TYPE", "type", "type number");
  expectCode(() => g.search({ q: "a", type: "" as EntityType }), "EMPTY_PARAMETER", "type", "type empty");
  for (const type of TYPES) assert.ok(Array.isArray(g.search({ q: "a", type }).items));
  for (const limit of [0, 101, 1.5, NaN, -1, Infinity, -Infinity, 1e9, 100.0000001]) {
    expectCode(() => g.search({ q: "a", limit }), "INVALID_LIMIT", "limit", `limit ${limit}`);
  }
  expectCode(() => g.search({ q: "a", limit: "20" as unknown as number }), "INVALID_LIMIT", "limit", "limit string");
  assert.is(g.search({ q: "a", limit: 100 }).items.length <= 100, true);
  assert.is(g.search({ q: "a", limit: 1 }).items.length, 1);
  expectCode(() => g.search({ q: "a", cursor: "" }), "EMPTY_PARAMETER", "cursor", "cursor empty");
});

test("statements parameter errors: right code and parameter", () => {
  const g = buildGraph(baseData(), "one");
  for (const name of ["subjectEntityId", "predicateEntityId", "objectEntityId"] as const) {
    expectCode(() => g.statements({ [name]: "" }), "EMPTY_PARAMETER", name, `${name} empty`);
    expectCode(
      () => g.statements({ subjectEntityId: "a", [name]: "" }),
      "EMPTY_PARAMETER",
      name,
      `${name} empty beside another filter`,
    );
  }
  for (const limit of [0, 201, 1.5, NaN, -1, Infinity]) {
    expectCode(() => g.statements({ limit }), "INVALID_LIMIT", "limit", `limit ${limit}`);
  }
  assert.is(g.statements({ limit: 200 }).items.length, 200);
  assert.is(g.statements({ limit: 1 }).items.length, 1);
  expectCode(() => g.statements({ cursor: "" }), "EMPTY_PARAMETER", "cursor", "cursor empty");
  // a bad limit with an id that names no entity is still an error, not an empty page
  expectCode(
    () => g.statements({ subjectEntityId: "no such entity", limit: 0 }),
    "INVALID_LIMIT",
    "limit",
    "limit 0 with unknown id",
  );
  // a bad cursor with an id that names no entity is still an error, not an empty page
  expectCode(
    () => g.statements({ subjectEntityId: "no such entity", cursor: "AAAA" }),
    "INVALID_CURSOR",
    "cursor",
    "garbage cursor with unknown id",
  );
});

test("errors are QuiverErrors, with an actionable message", () => {
  const g = buildGraph(baseData(), "one");
  try {
    g.search({ q: "a", cursor: "not a cursor" });
    assert.unreachable("accepted");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.ok(e.message.length > 10);
  }
});

test.run();

/**
 * Cursor length at the data limits (review 8221c12, finding 1)
 * ============================================================
 * CONTRACT.md "Paging": every nextCursor is at most 4,096 characters for any data within the length
 * limits, so the request that sends it back fits the 8,192-byte request target. At 1d9af4c a search
 * cursor carried the folded identifier as UTF-16 (U+FDFA folds to 18 code units: 171 of them made an
 * 8,254-character cursor, and the next page answered 414), and a statements cursor three entityIds as
 * UTF-16.
 *
 * The graph here is built from identifiers exactly at the limits (rawIdentifier 1,024 bytes of UTF-8,
 * entityId 512, sourceType 256, statementFingerprint 128), made of U+FDFA (3 bytes, NFKC makes it 18
 * code units), 3-byte CJK and 4-byte emoji. Every search and statements query is walked with limit=1,
 * in-process and over HTTP (serve() used only as a client would), checking every cursor's length and
 * that every item comes once, in the oracle's order.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  CURSOR_MAX_LENGTH,
  ENTITY_ID_MAX_BYTES,
  GraphBuilder,
  RAW_IDENTIFIER_MAX_BYTES,
  SOURCE_TYPE_MAX_BYTES,
  STATEMENT_FINGERPRINT_MAX_BYTES,
  serve,
  type Entity,
  type EntityType,
  type Graph,
  type Statement,
  type StatementInput,
} from "../../../src/index.js";
import { Oracle, show, walkPages, type Filters, type GraphData } from "../../support/oracle.js";

const KEY = "sk_cursor_length";
const LIGATURE = "\uFDFA"; // ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM: 3 bytes, 18 code units after NFKC
const CJK = "中"; // 3 bytes
const EMOJI = "😀"; // 4 bytes, a surrogate pair

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/** `unit` repeated, then ASCII `tail` padded with "z" so the whole is exactly `size` bytes of UTF-8. */
function exactly(size: number, unit: string, tail: string): string {
  const room = size - bytes(tail);
  const n = Math.floor(room / bytes(unit));
  const s = unit.repeat(n) + tail.padEnd(tail.length + (room - n * bytes(unit)), "z");
  if (bytes(s) !== size) throw new Error(`exactly(${size}): built ${bytes(s)} bytes`);
  return s;
}

function dataAtTheLimits(): GraphData {
  const entities: Entity[] = [];
  const units = [LIGATURE, CJK, EMOJI];
  const types: EntityType[] = ["0", "3", "7"];
  for (let i = 0; i < 12; i++) {
    // Entities 2g and 2g + 1 share one identifier (ties broken by entityId). Every identifier holds
    // U+FDFA, so q=U+FDFA matches them all, in every tier: q itself, a prefix, an infix.
    const g = i >> 1;
    const body = exactly(RAW_IDENTIFIER_MAX_BYTES - bytes(LIGATURE), units[g % 3] as string, `r${g}`);
    const rawIdentifier = i === 0 ? LIGATURE : g % 2 === 0 ? LIGATURE + body : body + LIGATURE;
    entities.push({
      entityId: exactly(ENTITY_ID_MAX_BYTES, units[i % 3] as string, String(i).padStart(2, "0")),
      rawIdentifier,
      type: types[i % 3] as EntityType,
      sourceType: exactly(SOURCE_TYPE_MAX_BYTES, "ß", ""),
    });
  }
  const ids = entities.map((e) => e.entityId);
  const statements: StatementInput[] = [];
  for (let i = 0; i < 12; i++) {
    const s = ids[i] as string;
    const p = ids[(i * 5) % 3] as string;
    const o = ids[(i * 7 + 1) % 12] as string;
    statements.push({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o }); // derived fingerprint
    statements.push({
      subjectEntityId: s,
      predicateEntityId: p,
      objectEntityId: o,
      statementFingerprint: exactly(STATEMENT_FINGERPRINT_MAX_BYTES, EMOJI, `f${i}`),
    });
  }
  // one (s, p, o) with several fingerprints, for the S+P+O filter
  for (let k = 0; k < 4; k++) {
    statements.push({
      subjectEntityId: ids[0] as string,
      predicateEntityId: ids[1] as string,
      objectEntityId: ids[2] as string,
      statementFingerprint: exactly(STATEMENT_FINGERPRINT_MAX_BYTES, units[k % 3] as string, `g${k}`),
    });
  }
  return { entities, statements };
}

function build(data: GraphData): Graph {
  const b = new GraphBuilder({ cursorSecret: "cursor-length" });
  for (const e of data.entities) b.addEntity(e);
  for (const st of data.statements) b.addStatement(st);
  return b.build();
}

const SEARCHES: { q: string; type?: EntityType }[] = [
  { q: LIGATURE },
  { q: LIGATURE, type: "3" },
  { q: "\u0635\u0644\u0649" }, // the first letters of U+FDFA's NFKC form
  { q: "z" },
  { q: EMOJI },
];

function filtersOf(data: GraphData): Filters[] {
  const st = data.statements[0] as StatementInput;
  const s = st.subjectEntityId;
  const p = st.predicateEntityId;
  const o = st.objectEntityId;
  return [
    {},
    { subjectEntityId: s },
    { predicateEntityId: p },
    { objectEntityId: o },
    { subjectEntityId: s, predicateEntityId: p },
    { predicateEntityId: p, objectEntityId: o },
    { objectEntityId: o, subjectEntityId: s },
    { subjectEntityId: s, predicateEntityId: p, objectEntityId: o },
  ];
}

test("the data is exactly at the limits", () => {
  const data = dataAtTheLimits();
  for (const e of data.entities.slice(1)) {
    assert.is(bytes(e.entityId), ENTITY_ID_MAX_BYTES);
    assert.is(bytes(e.rawIdentifier), RAW_IDENTIFIER_MAX_BYTES);
    assert.is(bytes(e.sourceType), SOURCE_TYPE_MAX_BYTES);
    assert.ok(e.rawIdentifier.includes(LIGATURE));
  }
  const fps = data.statements.flatMap((s) => (s.statementFingerprint === undefined ? [] : [s.statementFingerprint]));
  assert.ok(fps.every((fp) => bytes(fp) === STATEMENT_FINGERPRINT_MAX_BYTES));
  // NFKC really expands the ligature: the folded identifiers are far longer than the raw ones
  assert.is(LIGATURE.normalize("NFKC").length, 18);
});

/** The longest cursor any data within the limits can give (cursor.ts, README "Cursors"). */
const LONGEST_CURSOR = 2302;

test("finding 1, in-process: limit=1 walks of every query; every nextCursor <= 4,096 characters", () => {
  const data = dataAtTheLimits();
  const g = build(data);
  const oracle = new Oracle(data);
  let longest = 0;
  const check = (c: string): void => {
    longest = Math.max(longest, c.length);
    assert.ok(c.length <= CURSOR_MAX_LENGTH, `a cursor of ${c.length} characters`);
  };
  for (const { q, type } of SEARCHES) {
    const expected = oracle.search(q, type);
    assert.ok(expected.length > 0 || q === EMOJI, `q=${show(q)} matches nothing`);
    walkPages<Entity>({
      fetch: (limit, cursor) => g.search({ q, type, limit, cursor }),
      expected,
      nextLimit: () => 1,
      defaultLimit: 20,
      ctx: `search q=${show(q)} type=${show(type)}`,
      onCursor: check,
    });
  }
  for (const f of filtersOf(data)) {
    walkPages<Statement>({
      fetch: (limit, cursor) => g.statements({ ...f, limit, cursor }),
      expected: oracle.statementsFor(f),
      nextLimit: () => 1,
      defaultLimit: 50,
      ctx: `statements ${show(Object.keys(f))}`,
      onCursor: check,
    });
  }
  assert.ok(longest > 1000, `the longest cursor is only ${longest} characters: the data is not at the limits`);
  // The bound cursor.ts derives (and the README states) for any data within the limits.
  assert.ok(longest <= LONGEST_CURSOR, `a cursor of ${longest} characters, over the stated ${LONGEST_CURSOR}`);
});

test("finding 1, over HTTP: limit=1 walks follow every nextCursor (no 414), each item once, in order", async () => {
  const data = dataAtTheLimits();
  const graph = build(data);
  const oracle = new Oracle(data);
  const running = await serve({ graph, apiKeys: [KEY], host: "127.0.0.1", port: 0 });
  try {
    const walk = async (path: string, params: Record<string, string>): Promise<any[]> => {
      const items: any[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 1000; page++) {
        const query = new URLSearchParams({ ...params, limit: "1", ...(cursor === null ? {} : { cursor }) });
        const target = `${path}?${query.toString()}`;
        const response = await fetch(`${running.url}${target}`, { headers: { "X-API-Key": KEY } });
        const body = await response.text();
        assert.is(response.status, 200, `${path} page ${page}, a target of ${target.length} bytes: ${body}`);
        const json = JSON.parse(body) as { items: any[]; nextCursor: string | null };
        items.push(...json.items);
        if (json.nextCursor === null) return items;
        assert.ok(json.nextCursor.length <= CURSOR_MAX_LENGTH, `a cursor of ${json.nextCursor.length} characters`);
        cursor = json.nextCursor;
      }
      throw new Error(`${path}: the walk did not end`);
    };
    for (const { q, type } of SEARCHES) {
      const got = await walk("/graph/v1/search", type === undefined ? { q } : { q, type });
      assert.equal(
        got.map((e) => e.entityId),
        oracle.search(q, type).map((e) => e.entityId),
        `search q=${show(q)}`,
      );
    }
    for (const f of filtersOf(data)) {
      const got = await walk("/graph/v1/statements", f as Record<string, string>);
      assert.equal(got, oracle.statementsFor(f), `statements ${show(Object.keys(f))}`);
    }
  } finally {
    await running.close();
  }
});

test.run();

/**
 * The contract on real data: YAGO3-10 over HTTP
 * =============================================
 * CONTRACT.md checked row by row against the brute-force oracle (test/support/oracle.ts) on the
 * 123,219 entities and 10,000 statements of YAGO3-10 (`quiver convert`'s reading, hashed types so the
 * type filter selects something), served by `serve` on port 0:
 *  - search: every page of many queries (one letter, accents, case and compatibility folds, no match),
 *    with and without `type`, in both orders, `total` equal to the whole walk on the pages that ask;
 *  - accent folding: the same on a graph built with `fold: "accents"`, and a cursor of one folding
 *    refused by the other (same cursor secret, so only the folding differs);
 *  - statements: every filter shape, from statements of the data and unknown ids (empty 200);
 *  - entity lookup: a sample of ids (non-ASCII, `/` as %2F, sub-delimiters) answers the four fields.
 * Costs some seconds: the oracle is linear per query.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { join } from "node:path";
import { readKgDataset } from "../../src/cli/kg-datasets.js";
import type { Graph } from "../../src/engine/graph.js";
import type { EntityType } from "../../src/engine/types.js";
import type { RunningServer } from "../../src/http/server.js";
import { DATA_DIR, datasetDir } from "../support/datasets.js";
import { getJson, request, startServer } from "../support/http.js";
import { buildGraph, type Filters, Oracle, type GraphData, type SearchOrder } from "../support/oracle.js";

const SECRET = "yago-contract-test-secret-0123456789";

/** Queries: one letter, spaces and punctuation, accents, case and compatibility folds, none found. */
const QUERIES = [
  "Z",
  "(",
  "ab",
  "the",
  "Paris",
  "PARIS",
  "united states",
  "Dürer",
  "durer",
  "Zürich",
  "zurich",
  "Malmö",
  "malmo",
  "STRASSE",
  "İstanbul",
  "ﬁ",
  "ΟΔΟΣ",
  "é",
  "ø",
  "ı",
  "1.",
  "no such name anywhere",
];

/** The type filters and orders each query is walked with. */
const COMBINATIONS: readonly [EntityType | undefined, SearchOrder][] = [
  [undefined, "name"],
  [undefined, "score"],
  ["5", "name"],
  ["1", "score"],
];

let data: GraphData;
const servers: (RunningServer & { port: number })[] = [];
let caseServer: RunningServer & { port: number };
let accentServer: RunningServer & { port: number };
let caseOracle: Oracle;
let accentOracle: Oracle;

test.before(async () => {
  datasetDir("yago3-10");
  const kg = await readKgDataset(join(DATA_DIR, "yago3-10"), { types: "hashed" });
  data = { entities: kg.entities, statements: kg.statements };
  caseOracle = new Oracle(data, "case");
  accentOracle = new Oracle(data, "accents");
  const graphs: Graph[] = [buildGraph(data, SECRET, "case"), buildGraph(data, SECRET, "accents")];
  for (const g of graphs) servers.push(await startServer(g));
  [caseServer, accentServer] = servers as [RunningServer & { port: number }, RunningServer & { port: number }];
});

test.after(async () => {
  for (const s of servers) await s.close();
});

/** Every page of one search or statements query; checks total on every other page. */
async function walkAll(port: number, path: string, limit: number): Promise<{ items: any[]; totals: number[] }> {
  const items: any[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const count = page % 2 === 0 ? "&count=true" : "";
    const target = `${path}&limit=${limit}${count}${cursor === null ? "" : `&cursor=${cursor}`}`;
    const { status, body } = await getJson(port, target);
    if (status !== 200) throw new Error(`${target}: ${status} ${JSON.stringify(body)}`);
    if (count !== "") {
      assert.equal(Object.keys(body), ["items", "nextCursor", "total"], target);
      totals.push(body.total);
    } else assert.equal(Object.keys(body), ["items", "nextCursor"], target);
    if (cursor !== null && body.items.length === 0)
      throw new Error(`${target}: a non-null cursor led to an empty page`);
    items.push(...body.items);
    cursor = body.nextCursor;
    page++;
  } while (cursor !== null);
  return { items, totals };
}

async function checkSearch(port: number, oracle: Oracle, q: string, type: EntityType | undefined, order: SearchOrder) {
  const want = oracle.search(q, type, order);
  const limit = want.length > 2_000 ? 100 : 9;
  const path =
    `/graph/v1/search?q=${encodeURIComponent(q)}` +
    (type === undefined ? "" : `&type=${type}`) +
    (order === "name" ? "" : `&order=${order}`);
  const { items, totals } = await walkAll(port, path, limit);
  const label = `${path} (${want.length} matches)`;
  assert.equal(
    items.map((e) => e.entityId),
    want.map((e) => e.entityId),
    label,
  );
  assert.equal(items, want, label);
  for (const t of totals) assert.is(t, want.length, `${label}: total`);
}

for (const [name, pick] of [
  ["case", () => [caseServer, caseOracle] as const],
  ["accents", () => [accentServer, accentOracle] as const],
] as const) {
  test(`yago3-10 (${name} folding): every search walk equals the oracle, totals equal the walk`, async () => {
    const [server, oracle] = pick();
    for (const q of QUERIES) {
      for (const [type, order] of COMBINATIONS) await checkSearch(server.port, oracle, q, type, order);
    }
  });
}

test("yago3-10: one common letter: the whole walk with a type filter, and the total without one", async () => {
  for (const order of ["name", "score"] as const) await checkSearch(caseServer.port, caseOracle, "a", "5", order);
  for (const order of ["name", "score"] as const) {
    const { body } = await getJson(caseServer.port, `/graph/v1/search?q=a&count=true&order=${order}`);
    assert.is(body.total, caseOracle.search("a", undefined, order).length);
  }
});

test("yago3-10: accent folding finds durer, zurich and malmo; case folding keeps accents", async () => {
  for (const [q, id] of [
    ["durer", "yago:Albrecht_Dürer"],
    ["zurich", "yago:Zürich"],
    ["malmo", "yago:Malmö"],
  ] as const) {
    const acc = await getJson(accentServer.port, `/graph/v1/search?q=${q}&limit=100`);
    assert.ok(
      acc.body.items.some((e: any) => e.entityId === id),
      `${q} finds ${id} with accents folded`,
    );
    const cas = await getJson(caseServer.port, `/graph/v1/search?q=${q}&limit=100`);
    assert.not.ok(
      cas.body.items.some((e: any) => e.entityId === id),
      `${q} does not find ${id} with accents kept`,
    );
  }
});

test("yago3-10: a cursor of one folding is refused by the other (400), though the secret is shared", async () => {
  for (const q of ["zurich", "ab", "e"]) {
    const fromCase = (await getJson(caseServer.port, `/graph/v1/search?q=${q}&limit=1`)).body.nextCursor;
    const fromAccent = (await getJson(accentServer.port, `/graph/v1/search?q=${q}&limit=1`)).body.nextCursor;
    assert.type(fromCase, "string");
    assert.type(fromAccent, "string");
    const a = await getJson(accentServer.port, `/graph/v1/search?q=${q}&cursor=${fromCase}`);
    const b = await getJson(caseServer.port, `/graph/v1/search?q=${q}&cursor=${fromAccent}`);
    assert.is(a.status, 400, `case cursor on the accent graph: ${JSON.stringify(a.body)}`);
    assert.is(b.status, 400, `accent cursor on the case graph: ${JSON.stringify(b.body)}`);
    // Each server still takes its own.
    assert.is((await getJson(caseServer.port, `/graph/v1/search?q=${q}&cursor=${fromCase}`)).status, 200);
  }
});

test("yago3-10: statements, every filter shape, equal the oracle walked to the end", async () => {
  const sts = caseOracle.statements;
  const shapes: Filters[] = [{}];
  for (let i = 0; i < 70; i++) {
    const st = sts[(i * 7919) % sts.length];
    if (st === undefined) continue;
    const mask = 1 + (i % 7);
    const f: Filters = {};
    if (mask & 1) f.subjectEntityId = st.subjectEntityId;
    if (mask & 2) f.predicateEntityId = st.predicateEntityId;
    if (mask & 4) f.objectEntityId = st.objectEntityId;
    shapes.push(f);
  }
  for (const p of new Set(sts.map((s) => s.predicateEntityId))) shapes.push({ predicateEntityId: p });
  shapes.push({ subjectEntityId: "yago:no such id" }, { objectEntityId: "nope", predicateEntityId: "nope" });
  for (const f of shapes) {
    const want = caseOracle.statementsFor(f);
    const qs = Object.entries(f).map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`);
    const path = `/graph/v1/statements?${qs.join("&")}`;
    const { items, totals } = await walkAll(caseServer.port, path, want.length > 1_000 ? 200 : 7);
    assert.equal(items, want, path);
    for (const t of totals) assert.is(t, want.length, `${path}: total`);
  }
});

test("yago3-10: entity lookup answers exactly the four fields, with ETag and Cache-Control: private", async () => {
  const sample = caseOracle.entities.filter(
    (e, i) => i % 211 === 0 || (/[^A-Za-z0-9_:()-]/.test(e.entityId) && i % 13 === 0),
  );
  assert.ok(sample.some((e) => e.entityId.includes("/")));
  for (const e of sample) {
    const r = await request(caseServer.port, `/graph/v1/entities/${encodeURIComponent(e.entityId)}`);
    assert.is(r.status, 200, e.entityId);
    assert.is(r.body, JSON.stringify(e), e.entityId);
    assert.match(String(r.headers.etag), /^"[^"]+"$/);
    assert.is(r.headers["cache-control"], "private");
  }
  const missing = await getJson(caseServer.port, "/graph/v1/entities/yago%3Ano%20such%20entity");
  assert.is(missing.status, 404);
  assert.is(missing.body.code, "ENTITY_NOT_FOUND");
});

test.run();

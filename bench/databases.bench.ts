/**
 * Quiver against the databases users would pick instead
 * =====================================================
 * `npm run bench:databases [-- --entities N --statements N]`: the same generated graph
 * (tools/generator.ts, default 200,000 entities and 1,000,000 statements) in Quiver (in-process),
 * in SQLite (better-sqlite3, in-process, a file in a temp dir) and in PostgreSQL 15 (a throwaway
 * cluster made in a temp dir on 127.0.0.1 and a free port, removed at the end), then the same
 * stream of distinct queries against each (bench/stream.bench.ts's drawing, bench/sample.ts's
 * sampling: each query once per round, a fresh order each round, the first round a warm-up).
 *
 * What each database holds, as a user would set it up:
 *  - entities (id, type, folded): `folded` is the contract's fold of the raw identifier, computed in
 *    JavaScript at load. SQLite: an FTS5 table with the trigram tokenizer over `folded`, searched by
 *    `LIKE '%q%'` (served by the trigram index for 3 or more characters; GLOB when q holds a LIKE
 *    wildcard, as ESCAPE turns the index off). PostgreSQL: a pg_trgm GIN index on `folded`, searched
 *    by `ILIKE '%q%'`. Both order `tier, folded, id LIMIT 20`, the tier (0 exact, 1 prefix, 2 infix)
 *    computed in SQL; page 2 is a keyset page after page 1's last (tier, folded, id).
 *  - statements (s, p, o, fp): B-tree indexes in SPO, POS and OSP order; a filter's page is the
 *    bound roles by equality, `ORDER BY` the free roles and fp in the contract's order, `LIMIT 50`;
 *    the next page is a keyset page after the first page's last row.
 *  - lookup: the primary key on id.
 * PostgreSQL is asked over one connection with prepared statements (a round trip per query, as an
 * application pays it); its cluster runs with fsync off (a throwaway: the load is not what is
 * timed). Collation is byte order ("C"), the contract's order for the ASCII identifiers compared.
 *
 * Agreement: each database's pages must equal Quiver's. Search pages are compared on the queries of
 * plain ASCII letters only (there lower() and LIKE's case rule equal the contract's fold; elsewhere
 * the databases' own case rules differ, which is not a disagreement); statements pages on every
 * filter. Disagreements are counted per database and a few listed.
 *
 * Cost: building three stores (each generates the data again; 30 to 40 s apiece at the default size
 * on a busy 2-core machine), then cases x queries x (rounds + 1 agreement pass) calls per system. The
 * databases' search cases dominate: a short query matches thousands of names, all sorted for the
 * first 20 (a 2-character one cannot use a trigram index at all and scans every name), so 1,000
 * queries per case took 17 minutes at load 6 to 12; the default is 300.
 * If PostgreSQL's binaries are missing the bench says so and runs the rest (`--require-postgres`:
 * exit 1 instead). Results: a table on stdout and bench/results/databases-<size>.json.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import Database from "better-sqlite3";
import pg from "pg";

import { fold, GraphBuilder, type Entity, type Graph, type Statement } from "../src/index.js";
import { generateEntities, generateStatements, type GenerateOptions } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";
import { mulberry32 } from "../tools/prng.js";
import type { Filter } from "./baselines/map-store.js";
import { count, heading, num, printTable, progress, secondsOf } from "./format.js";
import { heldBytes, measureHeld } from "./memory.js";
import { benchOptions } from "./options.js";
import { type LatencySummary, shuffled, sink, summarize, timeEach } from "./sample.js";
import { SEARCH_LIMIT } from "./search.bench.js";
import { STATEMENTS_LIMIT } from "./statements.bench.js";
import { drawFilters, drawSearchQueries, STREAM_SHAPES, type SearchQuery } from "./stream.bench.js";

const QUERY_SEED = 20261126;
/** Rows per INSERT batch when loading PostgreSQL (arrays through unnest: one round trip each). */
const PG_BATCH = 20_000;
/** Where Debian puts PostgreSQL 15's server binaries when they are not on PATH. */
const PG_BIN_DIR = "/usr/lib/postgresql/15/bin";
/** Disagreements listed at most per database. */
const MAX_LISTED = 10;
const RESULTS_DIR = "bench/results";

const USAGE = `
npm run bench:databases [-- options]

Times the same distinct-query stream against Quiver, SQLite (FTS5 trigram, B-trees) and
PostgreSQL 15 (pg_trgm GIN, B-trees), checks their pages agree, and writes
bench/results/databases-<entities>x<statements>.json.

  --entities N          generated entities (default 200000)
  --statements N        generated statements (default 1000000)
  --seed N              generator seed (default 1)
  --queries N           distinct queries per case (default 300: the databases scan and sort
                        every match of a short search query, tens of ms each)
  --rounds N            rounds, the first a warm-up (default 3)
  --require-postgres    exit 1 when PostgreSQL cannot be run (default: skip it and say so)
`;

const OPTIONS = {
  entities: { type: "string", default: "200000" },
  statements: { type: "string", default: "1000000" },
  seed: { type: "string", default: "1" },
  queries: { type: "string", default: "300" },
  rounds: { type: "string", default: "3" },
  "require-postgres": { type: "boolean", default: false },
} as const;

type System = "quiver" | "sqlite" | "postgres";

/** What bench/results/databases-<size>.json holds (docs/performance.md is written from it). */
export interface DatabasesResults {
  kind: "databases";
  startedAt: string;
  generated: { entities: number; statements: number; seed: number };
  queries: number;
  rounds: number;
  machine: { cpus: number; loadavgBefore: number; loadavgAfter: number };
  versions: { node: string; sqlite: string; postgres: string | null };
  systems: Record<System, SystemInfo | null>;
  /** Why PostgreSQL did not run; null when it did. */
  postgresMissing: string | null;
  rows: DatabasesRow[];
  /** Queries whose pages were compared (search: plain ASCII letters only). */
  comparedQueries: number;
  disagreements: Record<"sqlite" | "postgres", { count: number; listed: string[] }>;
}

/** A page as comparable keys: entityIds, or a statement's ids and fingerprint. */
type Keys = string[];

/** What one system answers: page keys for query i of each case (sync for in-process, async for PostgreSQL). */
interface Case<T> {
  name: string;
  detail: string;
  items: readonly T[];
  /** Whether query i's pages are compared (search: plain ASCII letters only). */
  compared: (item: T) => boolean;
  quiver: (item: T) => Keys;
  sqlite: (item: T) => Keys;
  postgres: ((item: T) => Promise<Keys>) | null;
}

export interface SystemInfo {
  /** Load and index time, ms. */
  buildMs: number;
  /** Quiver: live heap held by the graph; SQLite: the database file; PostgreSQL: pg_database_size. */
  bytes: number;
  bytesKind: "heap" | "disk";
}

export interface DatabasesRow {
  case: string;
  detail: string;
  quiver: LatencySummary;
  sqlite: LatencySummary;
  postgres: LatencySummary | null;
}

function main(): Promise<void> {
  const o = benchOptions(process.argv.slice(2), OPTIONS, USAGE);
  const whole = (name: string, v: string) => {
    const n = Number(v.replace(/_/g, ""));
    if (!Number.isSafeInteger(n) || n < 0) {
      process.stderr.write(`--${name} must be a whole number, got ${v}\n`);
      process.exit(2);
    }
    return n;
  };
  return run({
    gen: {
      entities: whole("entities", o.entities),
      statements: whole("statements", o.statements),
      seed: whole("seed", o.seed),
    },
    queries: whole("queries", o.queries),
    rounds: Math.max(2, whole("rounds", o.rounds)),
    requirePostgres: o["require-postgres"],
  });
}

interface RunOptions {
  gen: GenerateOptions & { seed: number };
  queries: number;
  rounds: number;
  requirePostgres: boolean;
}

async function run(options: RunOptions): Promise<void> {
  const { gen } = options;
  const size = `${gen.entities}x${gen.statements}`;
  const load0 = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const scratch = mkdtempSync(join(tmpdir(), "quiver-databases-"));
  let cluster: PgCluster | null = null;
  try {
    progress(`Quiver: building ${count(gen.entities)} entities, ${count(gen.statements)} statements`);
    const t0 = performance.now();
    const { value: graph, held } = await measureHeld(() => buildGraph(gen));
    const quiverInfo: SystemInfo = { buildMs: performance.now() - t0, bytes: heldBytes(held), bytesKind: "heap" };

    progress("SQLite: loading");
    const sqlite = loadSqlite(join(scratch, "quiver.sqlite"), gen);

    let pgInfo: SystemInfo | null = null;
    let pgClient: pg.Client | null = null;
    let pgMissing: string | null = null;
    const bin = findPgBin();
    if (bin === null) pgMissing = `PostgreSQL's initdb/pg_ctl not found on PATH nor in ${PG_BIN_DIR}`;
    else {
      try {
        cluster = await startCluster(bin, join(scratch, "pg"));
        progress(`PostgreSQL: cluster on 127.0.0.1:${cluster.port}, loading`);
        const loaded = await loadPostgres(cluster.port, gen);
        pgClient = loaded.client;
        pgInfo = loaded.info;
      } catch (e) {
        pgMissing = `PostgreSQL could not be run: ${(e as Error).message}`;
      }
    }
    if (pgMissing !== null) {
      console.log(`NOTE: ${pgMissing}; its column is left empty.`);
      if (options.requirePostgres) process.exitCode = 1;
    }

    const rand = mulberry32(QUERY_SEED);
    const entities = [...graph.exportEntities()];
    const { plain, typed } = drawSearchQueries(entities, options.queries, rand);
    const filters = drawFilters(graph, options.queries, rand);
    const lookups = Array.from(
      { length: Math.min(options.queries, entities.length) },
      () => entities[Math.floor(rand() * entities.length)]!.entityId,
    );
    const sqlitePg = pgClient === null ? null : new PgQueries(pgClient);
    const cases = await makeCases(graph, sqlite.queries, sqlitePg, { plain, typed, filters, lookups });

    const rows: DatabasesRow[] = [];
    const disagreements: Record<"sqlite" | "postgres", { count: number; listed: string[] }> = {
      sqlite: { count: 0, listed: [] },
      postgres: { count: 0, listed: [] },
    };
    for (const c of cases) {
      progress(`${c.name} (${c.items.length} queries)`);
      const quiver = summarize(timeEach(c.items, options.rounds, rand, c.quiver));
      const lite = summarize(timeEach(c.items, options.rounds, rand, c.sqlite));
      const pgRow =
        c.postgres === null ? null : summarize(await timeEachAsync(c.items, options.rounds, rand, c.postgres));
      rows.push({ case: c.name, detail: c.detail, quiver, sqlite: lite, postgres: pgRow });
      for (const item of c.items) {
        if (!c.compared(item)) continue;
        const want = c.quiver(item).join("\n");
        const tally = (system: "sqlite" | "postgres", got: Keys) => {
          if (got.join("\n") === want) return;
          const d = disagreements[system];
          d.count++;
          if (d.listed.length < MAX_LISTED) d.listed.push(`${c.name}: ${JSON.stringify(item).slice(0, 120)}`);
        };
        tally("sqlite", c.sqlite(item));
        if (c.postgres !== null) tally("postgres", await c.postgres(item));
      }
    }
    const compared = cases.reduce((n, c) => n + c.items.filter((x) => c.compared(x as never)).length, 0);

    const systems: Record<System, SystemInfo | null> = { quiver: quiverInfo, sqlite: sqlite.info, postgres: pgInfo };
    print(rows, systems, disagreements, compared, options, load0, pgMissing);
    const results: DatabasesResults = {
      kind: "databases",
      startedAt,
      generated: { ...gen },
      queries: options.queries,
      rounds: options.rounds,
      machine: { cpus: cpus().length, loadavgBefore: load0, loadavgAfter: loadavg()[0]! },
      versions: {
        node: process.version,
        sqlite: sqlite.version,
        postgres: pgClient === null ? null : await pgVersion(pgClient),
      },
      systems,
      postgresMissing: pgMissing,
      rows,
      comparedQueries: compared,
      disagreements,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const out = join(RESULTS_DIR, `databases-${size}.json`);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results: ${out}`);
    sqlite.db.close();
    await pgClient?.end();
  } finally {
    if (cluster !== null) stopCluster(cluster);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function buildGraph(gen: GenerateOptions): Graph {
  const builder = new GraphBuilder();
  for (const e of generateEntities(gen)) builder.addEntity(e);
  for (const st of generateStatements(gen)) builder.addStatement(st);
  return builder.build();
}

/** The async twin of sample.ts's timeEach: one awaited call per item per round, round 0 not kept. */
async function timeEachAsync<T>(
  items: readonly T[],
  rounds: number,
  rand: () => number,
  call: (item: T) => Promise<unknown>,
): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const item of shuffled(items, rand)) {
      const t0 = performance.now();
      const r = await call(item);
      const t1 = performance.now();
      if (r !== undefined) sink.value++;
      if (round > 0) samples.push(t1 - t0);
    }
  }
  return samples;
}

// ---------------------------------------------------------------------------------------------
// The queries, in each system's terms

/** The order columns of each filter shape's pages after the bound roles (the contract's index order). */
const SHAPE_ORDER: Record<string, readonly ("s" | "p" | "o" | "fp")[]> = {
  S: ["p", "o", "fp"],
  P: ["o", "s", "fp"],
  O: ["s", "p", "fp"],
  "S+P": ["o", "fp"],
  "P+O": ["s", "fp"],
  "O+S": ["p", "fp"],
  "S+P+O": ["fp"],
};

interface StRow {
  s: string;
  p: string;
  o: string;
  fp: string;
}

interface SearchRow {
  id: string;
  folded: string;
  tier: number;
}

/** After a page's last row: the keyset that starts the next page. */
type SearchAfter = [number, string, string];

interface Queries {
  search(q: string, type: string | undefined, after: SearchAfter | null): SearchRow[];
  statements(shape: string, f: Filter, after: string[] | null): StRow[];
  lookup(id: string): string | undefined;
}

interface AsyncQueries {
  search(q: string, type: string | undefined, after: SearchAfter | null): Promise<SearchRow[]>;
  statements(shape: string, f: Filter, after: string[] | null): Promise<StRow[]>;
  lookup(id: string): Promise<string | undefined>;
}

const stKey = (x: StRow) => `${x.s} ${x.p} ${x.o} ${x.fp}`;
const statementKey = (x: Statement) =>
  `${x.subjectEntityId} ${x.predicateEntityId} ${x.objectEntityId} ${x.statementFingerprint}`;
const afterOf = (rows: SearchRow[]): SearchAfter | null => {
  const last = rows[rows.length - 1];
  return last === undefined ? null : [last.tier, last.folded, last.id];
};
const stAfter = (shape: string, rows: StRow[]): string[] | null => {
  const last = rows[rows.length - 1];
  return last === undefined ? null : SHAPE_ORDER[shape]!.map((c) => last[c]);
};
/** Queries whose fold is what every system's case rule gives: plain ASCII letters. */
const asciiLetters = (sq: SearchQuery) => /^[A-Za-z]+$/.test(sq.q);

async function makeCases(
  graph: Graph,
  lite: Queries,
  pgq: AsyncQueries | null,
  drawn: { plain: SearchQuery[]; typed: SearchQuery[]; filters: Map<string, Filter[]>; lookups: string[] },
): Promise<Case<never>[]> {
  const cases: Case<never>[] = [];
  const add = <T>(c: Case<T>) => cases.push(c as unknown as Case<never>);
  const ask = (sq: SearchQuery, cursor?: string) =>
    graph.search({ q: sq.q, type: sq.type, limit: SEARCH_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
  const ids = (items: Entity[]) => items.map((e) => e.entityId);
  for (const [label, queries] of [
    ["search", drawn.plain],
    ["search type=", drawn.typed],
  ] as const) {
    add<SearchQuery>({
      name: `${label} page 1`,
      detail: `${count(queries.length)} queries`,
      items: queries,
      compared: asciiLetters,
      quiver: (sq) => ids(ask(sq).items),
      sqlite: (sq) => lite.search(sq.q, sq.type, null).map((r) => r.id),
      postgres: pgq === null ? null : async (sq) => (await pgq.search(sq.q, sq.type, null)).map((r) => r.id),
    });
  }
  // Page 2: Quiver through page 1's cursor, each database after its own page 1's last row (found untimed).
  interface Second {
    sq: SearchQuery;
    cursor: string;
    lite: SearchAfter;
    pg: SearchAfter | null;
  }
  const second: Second[] = [];
  for (const sq of drawn.plain) {
    const cursor = ask(sq).nextCursor;
    if (cursor === null) continue;
    const la = afterOf(lite.search(sq.q, sq.type, null));
    const pa = pgq === null ? null : afterOf(await pgq.search(sq.q, sq.type, null));
    // A database whose page 1 is short has no page 2 to ask: the query is left out for all.
    if (la === null || (pgq !== null && pa === null)) continue;
    second.push({ sq, cursor, lite: la, pg: pa });
  }
  add<Second>({
    name: "search page 2",
    detail: `${count(second.length)} queries with a page 2`,
    items: second,
    compared: (x) => asciiLetters(x.sq),
    quiver: (x) => ids(ask(x.sq, x.cursor).items),
    sqlite: (x) => lite.search(x.sq.q, x.sq.type, x.lite).map((r) => r.id),
    postgres: pgq === null ? null : async (x) => (await pgq.search(x.sq.q, x.sq.type, x.pg)).map((r) => r.id),
  });
  add<string>({
    name: "lookup by entityId",
    detail: `${count(drawn.lookups.length)} random entityIds`,
    items: drawn.lookups,
    compared: () => true,
    quiver: (id) => [graph.getEntity(id)!.entityId],
    sqlite: (id) => [lite.lookup(id) ?? ""],
    postgres: pgq === null ? null : async (id) => [(await pgq.lookup(id)) ?? ""],
  });
  const page = (f: Filter, cursor?: string) =>
    graph.statements({
      subjectEntityId: f.s,
      predicateEntityId: f.p,
      objectEntityId: f.o,
      limit: STATEMENTS_LIMIT,
      ...(cursor === undefined ? {} : { cursor }),
    });
  for (const shape of STREAM_SHAPES) {
    const filters = drawn.filters.get(shape) ?? [];
    add<Filter>({
      name: `${shape} first page`,
      detail: `${count(filters.length)} filters`,
      items: filters,
      compared: () => true,
      quiver: (f) => page(f).items.map(statementKey),
      sqlite: (f) => lite.statements(shape, f, null).map(stKey),
      postgres: pgq === null ? null : async (f) => (await pgq.statements(shape, f, null)).map(stKey),
    });
    interface Next {
      f: Filter;
      cursor: string;
      lite: string[];
      pg: string[] | null;
    }
    const next: Next[] = [];
    for (const f of filters) {
      const cursor = page(f).nextCursor;
      if (cursor === null) continue;
      const la = stAfter(shape, lite.statements(shape, f, null));
      const pa = pgq === null ? null : stAfter(shape, await pgq.statements(shape, f, null));
      if (la === null || (pgq !== null && pa === null)) continue;
      next.push({ f, cursor, lite: la, pg: pa });
    }
    add<Next>({
      name: `${shape} next page`,
      detail: `${count(next.length)} filters with a next page`,
      items: next,
      compared: () => true,
      quiver: (x) => page(x.f, x.cursor).items.map(statementKey),
      sqlite: (x) => lite.statements(shape, x.f, x.lite).map(stKey),
      postgres: pgq === null ? null : async (x) => (await pgq.statements(shape, x.f, x.pg)).map(stKey),
    });
  }
  return cases.filter((c) => c.items.length > 0);
}

// ---------------------------------------------------------------------------------------------
// SQLite

const LIKE_WILDCARDS = /[%_]/;
const GLOB_WILDCARDS = /[*?[\]]/;

function loadSqlite(
  file: string,
  gen: GenerateOptions,
): { db: Database.Database; queries: Queries; info: SystemInfo; version: string } {
  const t0 = performance.now();
  const db = new Database(file);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.exec(`
    CREATE TABLE entities (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, folded TEXT NOT NULL);
    CREATE VIRTUAL TABLE names USING fts5(folded, tokenize = 'trigram');
    CREATE TABLE statements (s TEXT NOT NULL, p TEXT NOT NULL, o TEXT NOT NULL, fp TEXT NOT NULL,
      PRIMARY KEY (s, p, o, fp)) WITHOUT ROWID;
  `);
  const insertEntity = db.prepare("INSERT INTO entities (n, id, type, folded) VALUES (?, ?, ?, ?)");
  const insertName = db.prepare("INSERT INTO names (rowid, folded) VALUES (?, ?)");
  const insertStatement = db.prepare("INSERT OR IGNORE INTO statements (s, p, o, fp) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    let n = 0;
    for (const e of generateEntities(gen)) {
      n++;
      const folded = fold(e.rawIdentifier);
      insertEntity.run(n, e.entityId, e.type, folded);
      insertName.run(n, folded);
    }
    for (const st of generateStatements(gen))
      insertStatement.run(st.subjectEntityId, st.predicateEntityId, st.objectEntityId, st.statementFingerprint ?? "");
  })();
  // SPO is the primary key; POS and OSP beside it.
  db.exec("CREATE INDEX st_pos ON statements (p, o, s, fp); CREATE INDEX st_osp ON statements (o, s, p, fp); ANALYZE;");
  const buildMs = performance.now() - t0;
  const bytes = statSync(file).size;

  const tier = "CASE WHEN e.folded = :q THEN 0 WHEN instr(e.folded, :q) = 1 THEN 1 ELSE 2 END";
  const searchSql = (match: string, typed: boolean, after: boolean) =>
    db.prepare(
      `SELECT e.id AS id, e.folded AS folded, ${tier} AS tier FROM names JOIN entities e ON e.n = names.rowid
       WHERE ${match}${typed ? " AND e.type = :type" : ""}${after ? ` AND (${tier}, e.folded, e.id) > (:t, :f, :i)` : ""}
       ORDER BY tier, e.folded, e.id LIMIT ${SEARCH_LIMIT}`,
    );
  // Per way of matching, typed or not, keyset or not: 12 prepared statements.
  const searches = new Map<string, Database.Statement>();
  for (const [kind, match] of [
    ["like", "names.folded LIKE :pattern"],
    ["glob", "names.folded GLOB :pattern"],
    ["instr", "instr(names.folded, :q) > 0"],
  ] as const)
    for (const typed of [false, true])
      for (const after of [false, true]) searches.set(`${kind} ${typed} ${after}`, searchSql(match, typed, after));

  const stStatements = new Map<string, Database.Statement>();
  for (const shape of STREAM_SHAPES)
    for (const after of [false, true])
      stStatements.set(`${shape} ${after}`, db.prepare(statementsSql(shape, after, "?")));
  const lookup = db.prepare("SELECT id FROM entities WHERE id = ?").pluck();

  const queries: Queries = {
    search(q, type, after) {
      const fq = fold(q);
      // LIKE is what the trigram index serves best; its wildcards in q need ESCAPE, which turns the
      // index off, so GLOB (case-sensitive: both sides are folded) serves those; a q with both
      // kinds of wildcard falls back to instr, a scan.
      const kind = !LIKE_WILDCARDS.test(fq) ? "like" : !GLOB_WILDCARDS.test(fq) ? "glob" : "instr";
      const pattern = kind === "like" ? `%${fq}%` : `*${fq}*`;
      const params: Record<string, unknown> = { q: fq };
      if (kind !== "instr") params["pattern"] = pattern;
      if (type !== undefined) params["type"] = type;
      if (after !== null) Object.assign(params, { t: after[0], f: after[1], i: after[2] });
      return searches.get(`${kind} ${type !== undefined} ${after !== null}`)!.all(params) as SearchRow[];
    },
    statements(shape, f, after) {
      return stStatements.get(`${shape} ${after !== null}`)!.all(...statementParams(shape, f, after)) as StRow[];
    },
    lookup(id) {
      return lookup.get(id) as string | undefined;
    },
  };
  const version = (db.prepare("SELECT sqlite_version()").pluck().get() as string) ?? "";
  progress(`SQLite ${version}: loaded and indexed in ${secondsOf(buildMs)} s, ${num(bytes / 1e6, 0)} MB on disk`);
  return { db, queries, info: { buildMs, bytes, bytesKind: "disk" }, version };
}

/** A statements page's SQL: bound roles by equality, the rest in the contract's order; `param(i)` names parameter i. */
function statementsSql(shape: string, after: boolean, param: string | ((i: number) => string)): string {
  const p = (i: number) => (typeof param === "string" ? param : param(i));
  const bound = (["s", "p", "o"] as const).filter((r) => shape.includes(r.toUpperCase()));
  const order = SHAPE_ORDER[shape]!;
  let i = 0;
  const where = bound.map((r) => `${r} = ${p(++i)}`);
  if (after) where.push(`(${order.join(", ")}) > (${order.map(() => p(++i)).join(", ")})`);
  return `SELECT s, p, o, fp FROM statements WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")} LIMIT ${STATEMENTS_LIMIT}`;
}

function statementParams(shape: string, f: Filter, after: string[] | null): string[] {
  const values: string[] = [];
  if (shape.includes("S")) values.push(f.s!);
  if (shape.includes("P")) values.push(f.p!);
  if (shape.includes("O")) values.push(f.o!);
  if (after !== null) values.push(...after);
  return values;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

interface PgCluster {
  bin: string;
  dir: string;
  port: number;
  /** Run the server tools as this user (root may not run postgres). */
  asUser: string | null;
}

function findPgBin(): string | null {
  for (const dir of [...(process.env["PATH"] ?? "").split(":"), PG_BIN_DIR])
    if (dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

function pgTool(cluster: Pick<PgCluster, "bin" | "asUser">, tool: string, args: string[]): void {
  const exe = join(cluster.bin, tool);
  // As root the server tools refuse to run: run them as the postgres user.
  const [cmd, argv] = cluster.asUser === null ? [exe, args] : ["runuser", ["-u", cluster.asUser, "--", exe, ...args]];
  const r = spawnSync(cmd, argv, { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`${tool} failed (${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim().slice(0, 400)}`);
}

async function startCluster(bin: string, dir: string): Promise<PgCluster> {
  const asUser = process.getuid?.() === 0 ? "postgres" : null;
  mkdirSync(dir, { recursive: true });
  if (asUser !== null) {
    const uid = Number(execFileSync("id", ["-u", asUser], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", asUser], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
    // The scratch dir above it is root's 0700: postgres must be able to reach its own folder.
    chmodSync(join(dir, ".."), 0o711);
  }
  const cluster: PgCluster = { bin, dir, port: await freePort(), asUser };
  const data = join(dir, "data");
  pgTool(cluster, "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--locale=C", "-E", "UTF8", "--no-sync"]);
  const opts = [
    `-p ${cluster.port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c maintenance_work_mem=512MB",
  ].join(" ");
  pgTool(cluster, "pg_ctl", ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "start"]);
  return cluster;
}

function stopCluster(cluster: PgCluster): void {
  try {
    pgTool(cluster, "pg_ctl", ["-D", join(cluster.dir, "data"), "-m", "immediate", "-w", "stop"]);
  } catch (e) {
    process.stderr.write(`stopping PostgreSQL: ${(e as Error).message}\n`);
  }
}

async function loadPostgres(port: number, gen: GenerateOptions): Promise<{ client: pg.Client; info: SystemInfo }> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  // The cluster is stopped at the end while the client may still be open: an error then is expected.
  client.on("error", (e) => progress(`PostgreSQL client: ${e.message}`));
  await client.connect();
  try {
    return await fillPostgres(client, gen);
  } catch (e) {
    await client.end();
    throw e;
  }
}

async function fillPostgres(client: pg.Client, gen: GenerateOptions): Promise<{ client: pg.Client; info: SystemInfo }> {
  const t0 = performance.now();
  await client.query(`
    CREATE EXTENSION pg_trgm;
    CREATE TABLE entities (id text PRIMARY KEY, type text NOT NULL, folded text NOT NULL);
    CREATE TABLE statements (s text NOT NULL, p text NOT NULL, o text NOT NULL, fp text NOT NULL);
  `);
  const flush = async (table: string, columns: string[][]) => {
    if (columns[0]!.length === 0) return;
    const casts = columns.map((_, i) => `$${i + 1}::text[]`).join(", ");
    await client.query(`INSERT INTO ${table} SELECT * FROM unnest(${casts})`, columns);
    for (const c of columns) c.length = 0;
  };
  const ecols: string[][] = [[], [], []];
  for (const e of generateEntities(gen)) {
    ecols[0]!.push(e.entityId);
    ecols[1]!.push(e.type);
    ecols[2]!.push(fold(e.rawIdentifier));
    if (ecols[0]!.length >= PG_BATCH) await flush("entities", ecols);
  }
  await flush("entities", ecols);
  const scols: string[][] = [[], [], [], []];
  for (const st of generateStatements(gen)) {
    scols[0]!.push(st.subjectEntityId);
    scols[1]!.push(st.predicateEntityId);
    scols[2]!.push(st.objectEntityId);
    scols[3]!.push(st.statementFingerprint ?? "");
    if (scols[0]!.length >= PG_BATCH) await flush("statements", scols);
  }
  await flush("statements", scols);
  progress("PostgreSQL: indexing");
  await client.query(`
    CREATE INDEX entities_trgm ON entities USING gin (folded gin_trgm_ops);
    CREATE UNIQUE INDEX st_spo ON statements (s, p, o, fp);
    CREATE INDEX st_pos ON statements (p, o, s, fp);
    CREATE INDEX st_osp ON statements (o, s, p, fp);
  `);
  // VACUUM may not run in the implicit transaction of a multi-statement query: one at a time.
  await client.query("VACUUM ANALYZE entities");
  await client.query("VACUUM ANALYZE statements");
  const buildMs = performance.now() - t0;
  const bytes = Number((await client.query("SELECT pg_database_size(current_database()) AS b")).rows[0].b);
  progress(`PostgreSQL: loaded and indexed in ${secondsOf(buildMs)} s, ${num(bytes / 1e6, 0)} MB on disk`);
  return { client, info: { buildMs, bytes, bytesKind: "disk" } };
}

async function pgVersion(client: pg.Client): Promise<string> {
  return (await client.query("SHOW server_version")).rows[0].server_version as string;
}

/** ILIKE's wildcards and its escape character, escaped. */
const ilikeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

class PgQueries implements AsyncQueries {
  readonly #client: pg.Client;

  constructor(client: pg.Client) {
    this.#client = client;
  }

  async search(q: string, type: string | undefined, after: SearchAfter | null): Promise<SearchRow[]> {
    const fq = fold(q);
    const values: unknown[] = [fq, `%${ilikeEscape(fq)}%`];
    const tier = "(CASE WHEN folded = $1 THEN 0 WHEN strpos(folded, $1) = 1 THEN 1 ELSE 2 END)";
    let where = "folded ILIKE $2";
    if (type !== undefined) {
      values.push(type);
      where += ` AND type = $${values.length}`;
    }
    if (after !== null) {
      values.push(...after);
      const n = values.length;
      where += ` AND (${tier}, folded, id) > ($${n - 2}::int, $${n - 1}, $${n})`;
    }
    const name = `search-${type !== undefined}-${after !== null}`;
    const text = `SELECT id, folded, ${tier} AS tier FROM entities WHERE ${where} ORDER BY tier, folded, id LIMIT ${SEARCH_LIMIT}`;
    return (await this.#client.query({ name, text, values })).rows as SearchRow[];
  }

  async statements(shape: string, f: Filter, after: string[] | null): Promise<StRow[]> {
    const text = statementsSql(shape, after !== null, (i) => `$${i}`);
    const name = `st-${shape}-${after !== null}`;
    return (await this.#client.query({ name, text, values: statementParams(shape, f, after) })).rows as StRow[];
  }

  async lookup(id: string): Promise<string | undefined> {
    const r = await this.#client.query({ name: "lookup", text: "SELECT id FROM entities WHERE id = $1", values: [id] });
    return r.rows[0]?.id as string | undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function print(
  rows: DatabasesRow[],
  systems: Record<System, SystemInfo | null>,
  disagreements: Record<"sqlite" | "postgres", { count: number; listed: string[] }>,
  compared: number,
  options: RunOptions,
  load0: number,
  pgMissing: string | null,
): void {
  heading(
    `Quiver vs SQLite vs PostgreSQL: ${count(options.gen.entities)} entities, ${count(options.gen.statements)} statements; each query once per round, ${options.rounds - 1} rounds kept, µs`,
  );
  const pair = (s: LatencySummary | null) => (s === null ? "" : `${num(s.p50us)} / ${num(s.p99us)}`);
  printTable(
    [
      { header: "case" },
      { header: "queries" },
      { header: "Quiver p50/p99" },
      { header: "SQLite p50/p99" },
      { header: "PostgreSQL p50/p99" },
    ],
    rows.map((r) => [
      r.case,
      count(r.quiver.samples / (options.rounds - 1)),
      pair(r.quiver),
      pair(r.sqlite),
      pair(r.postgres),
    ]),
  );
  const size = (i: SystemInfo | null) =>
    i === null
      ? "not run"
      : `build ${secondsOf(i.buildMs)} s, ${num(i.bytes / 1e6, 0)} MB ${i.bytesKind === "heap" ? "of heap" : "on disk"}`;
  console.log(`Quiver: ${size(systems.quiver)}`);
  console.log(`SQLite: ${size(systems.sqlite)}`);
  console.log(`PostgreSQL: ${pgMissing ?? size(systems.postgres)}`);
  console.log(
    `agreement on ${count(compared)} compared queries: SQLite ${disagreements.sqlite.count} differ, PostgreSQL ${pgMissing === null ? disagreements.postgres.count : "-"} differ`,
  );
  for (const [system, d] of Object.entries(disagreements))
    for (const line of d.listed.slice(0, 5)) console.log(`  ${system}: ${line}`);
  console.log(`load average: ${num(load0, 2)} before, ${num(loadavg()[0]!, 2)} after, ${cpus().length} CPUs`);
}

if (isMainModule(import.meta.url)) await main();

/**
 * HTTP benchmark
 * ==============
 * `npm run bench:http` (after `npx tsc -p .`). Two parts, both on the YAGO3-10 graph (123,182 names,
 * 37 relations, 10,000 + 10,000 triples from `../shared/data/yago3-10`):
 *
 * 1. Serializers (tinybench): a page of 100 entities and one of 200 statements, as the engine returns
 *    them, through `JSON.stringify`, fast-json-stringify, a hand-written concatenation, and the
 *    adapter's PageSerializer (per-item fragments escaped once, then joined). The naive baseline
 *    beside the structure, as the house style asks.
 * 2. Load (autocannon, loopback only, bounded in time): the real server (`serve()`, no request log)
 *    against a mix of real queries, and in the same run a bare node:http server that answers a
 *    pre-serialized page of the same size: the ceiling. Each server runs in its own child process,
 *    so server and load generator each have a core of this 2-core machine. Scenarios: search (a word
 *    of a random YAGO name, default limit), statements (by subject, predicate or object of a random
 *    triple), and a diagnostic one, search for text no name holds, which shows what the adapter
 *    itself costs beside the ceiling when the engine has next to nothing to do.
 *
 * Both servers stay up and the measurements alternate between them (ROUNDS rounds, order swapped
 * each round), so background load on a shared machine hits both alike; the figures are medians.
 * Report: req/s, p50/p99 latency, and the ratio to the ceiling, per scenario. Options (env):
 * BENCH_SECONDS (default 5 per measurement), BENCH_ROUNDS (3), BENCH_CONNECTIONS (64),
 * BENCH_WARMUP_SECONDS (2), QUIVER_DATA (default ../shared/data beside the repository).
 * The server's CPU time per request (quiver / ceiling) is reported too: unlike req/s it barely
 * moves with whatever else the machine runs. Total time: about (2 x ROUNDS x SECONDS + 2 x WARMUP)
 * x 3 scenarios, under two minutes by default.
 *
 * The same file is the child server: `node dist/bench/http.bench.js --serve quiver|ceiling`.
 */

import { graphParts } from "../src/engine/internal.js";
import { spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastJson from "fast-json-stringify";
import { Bench } from "tinybench";
import { mulberry32 } from "../tools/prng.js";
import { isMainModule } from "../tools/main-module.js";
import { GraphBuilder } from "../src/engine/graph-builder.js";
import type { Graph } from "../src/engine/graph.js";
import type { Entity, Page, Statement } from "../src/engine/types.js";
import { OPENAPI_DOCUMENT, type JsonSchema } from "../src/http/openapi.js";
import { PageSerializer, jsonString } from "../src/http/serialize.js";
import { serve } from "../src/http/server.js";
import { readKgDataset } from "../src/cli/kg-datasets.js";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 5);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const WARMUP_SECONDS = Number(process.env["BENCH_WARMUP_SECONDS"] ?? 2);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 64);
const DATA_DIR = process.env["QUIVER_DATA"] ?? fileURLToPath(new URL("../../../shared/data", import.meta.url));
const KEY = "sk_bench_key";
/** Distinct queries per scenario; each connection cycles through them. */
const QUERY_COUNT = 2000;

// ---- graph and query mix -----------------------------------------------------------------------

async function yagoGraph(): Promise<Graph> {
  const data = await readKgDataset(join(DATA_DIR, "yago3-10"));
  const b = new GraphBuilder({ cursorSecret: "bench" });
  for (const e of data.entities) b.addEntity(e);
  for (const s of data.statements) b.addStatement(s);
  return b.build();
}

interface Mix {
  search: string[];
  statements: string[];
  /** Search for strings no identifier holds: the engine call is as cheap as it gets. */
  noMatch: string[];
}

/** Search: a word (3+ letters) of a random YAGO name, lower-cased. Statements: by subject, predicate or object. */
function queryMix(graph: Graph): Mix {
  const next = mulberry32(42); // a fixed sequence, so every run sends the same mix
  const ids = graphParts(graph).dictionary.ids;
  const raws = graphParts(graph).entities.rawIdentifiers;
  const search: string[] = [];
  while (search.length < QUERY_COUNT) {
    const i = Math.floor(next() * ids.length);
    const words = (raws[i] ?? "").split(/[\s,()]+/).filter((w) => w.length >= 3);
    const word = words[Math.floor(next() * words.length)];
    if (word !== undefined) search.push(`/graph/v1/search?q=${encodeURIComponent(word.toLowerCase())}`);
  }
  const all: Statement[] = [];
  for (let p = graph.statements({ limit: 200 }); ; p = graph.statements({ limit: 200, cursor: p.nextCursor })) {
    all.push(...p.items);
    if (p.nextCursor === null) break;
  }
  const statements: string[] = [];
  const filters = ["subjectEntityId", "predicateEntityId", "objectEntityId"] as const;
  for (let k = 0; k < QUERY_COUNT; k++) {
    const s = all[Math.floor(next() * all.length)]!;
    const f = filters[k % 3]!;
    statements.push(`/graph/v1/statements?${f}=${encodeURIComponent(s[f])}`);
  }
  const noMatch = Array.from({ length: QUERY_COUNT }, (_, k) => `/graph/v1/search?q=zqxjv${k}`);
  return { search, statements, noMatch };
}

// ---- child servers ----------------------------------------------------------------------------

async function serveQuiver(): Promise<void> {
  const graph = await yagoGraph();
  const running = await serve({ graph, apiKeys: [KEY], port: 0 });
  reportCpuOnSignal();
  process.stdout.write(`listening on ${running.url}\n`);
}

/**
 * The ceiling: node:http answering pre-serialized pages whose sizes the parent measured. `sizes` is
 * a list of [path prefix, bytes]; the first prefix a request's target starts with picks the page.
 */
async function serveCeiling(sizes: [string, number][]): Promise<void> {
  const page = (bytes: number) => {
    const filler = Math.max(0, bytes - '{"items":[],"nextCursor":null,"pad":""}'.length);
    return Buffer.from(`{"items":[],"nextCursor":null,"pad":"${"x".repeat(filler)}"}`);
  };
  const pages = sizes.map(([prefix, bytes]) => [prefix, page(bytes)] as const);
  const server = http.createServer((req, res) => {
    const body = pages.find(([prefix]) => req.url!.startsWith(prefix))![1];
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  reportCpuOnSignal();
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`);
}

/** Child side: on SIGUSR2, print the CPU time used so far (user + system, microseconds). */
function reportCpuOnSignal(): void {
  process.on("SIGUSR2", () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`cpu ${user + system}\n`);
  });
}

interface ChildServer {
  url: string;
  /** CPU microseconds the child has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(args: string[]): Promise<ChildServer> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const waiting: ((cpu: number) => void)[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
      for (let c = /^cpu (\d+)$/m.exec(out); c !== null; c = /^cpu (\d+)$/m.exec(out)) {
        out = out.slice(c.index + c[0].length);
        waiting.shift()?.(Number(c[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return {
    url,
    cpu: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.kill("SIGUSR2");
      }),
    stop: () =>
      new Promise((r) => {
        child.removeAllListeners("exit");
        child.on("exit", () => r());
        child.kill("SIGTERM");
      }),
  };
}

// ---- load -------------------------------------------------------------------------------------

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Run = AutocannonResult & { cpuUs: number };
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

async function load(url: string, paths: string[], seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { "x-api-key": KEY },
    requests: paths.map((path) => ({ method: "GET", path })),
  });
}

export interface ScenarioResult {
  scenario: string;
  "req/s": number;
  "p50 ms": number;
  "p99 ms": number;
  "ceiling req/s": number;
  "ceiling p50/p99 ms": string;
  ratio: number;
  /** Server CPU time per request, quiver / ceiling: the cost per request whatever else the machine runs. */
  "CPU us/req": string;
}

async function measureLoad(graph: Graph, mix: Mix): Promise<ScenarioResult[]> {
  const bytesOf = (paths: string[]) => {
    const ser = new PageSerializer();
    let total = 0;
    for (const p of paths) {
      const q = new URLSearchParams(p.slice(p.indexOf("?") + 1));
      const body = p.includes("/search")
        ? ser.entities(graph.search({ q: q.get("q")! }))
        : ser.statements(graph.statements(Object.fromEntries(q)));
      total += body.length;
    }
    return Math.round(total / paths.length);
  };
  const scenarios: [string, string[]][] = [
    ["search", mix.search],
    ["statements", mix.statements],
    // Diagnostic: the same pipeline with an engine call that finds nothing, to show what the
    // adapter itself costs beside the ceiling (auth, parsing, routing, serialization, logging off).
    ["search, no match", mix.noMatch],
  ];
  const sizes: [string, number][] = scenarios.map(([, paths]) => [commonPrefix(paths), bytesOf(paths)]);
  // Longest prefix first, so the no-match queries are not taken for the search mix.
  sizes.sort((a, b) => b[0].length - a[0].length);
  console.log(
    `mean body: ${scenarios.map(([name, paths]) => `${name} ${bytesOf(paths)} B`).join(", ")}; ` +
      `${CONNECTIONS} connections, ${SECONDS} s per measurement, ${ROUNDS} rounds`,
  );
  // Both servers up at once (an idle one costs nothing); measurements alternate between them in
  // rounds, in swapped order each round, so a change in background load hits both alike.
  const quiver = await startChild(["--serve", "quiver"]);
  const ceiling = await startChild(["--serve", "ceiling", JSON.stringify(sizes)]);
  const runs: Record<string, { quiver: Run[]; ceiling: Run[] }> = {};
  try {
    for (const [name, paths] of scenarios) {
      runs[name] = { quiver: [], ceiling: [] };
      await load(quiver.url, paths, WARMUP_SECONDS);
      await load(ceiling.url, paths, WARMUP_SECONDS);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, paths] of scenarios) {
        const order = round % 2 === 0 ? (["quiver", "ceiling"] as const) : (["ceiling", "quiver"] as const);
        for (const server of order) {
          const child = server === "quiver" ? quiver : ceiling;
          const cpuBefore = await child.cpu();
          const r = await load(child.url, paths, SECONDS);
          const cpuUs = ((await child.cpu()) - cpuBefore) / r.requests.total;
          if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
            throw new Error(`${server} ${name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
          runs[name]![server].push({ ...r, cpuUs });
          console.log(
            `round ${round + 1}/${ROUNDS} ${name.padEnd(10)} ${server.padEnd(7)} ${Math.round(r.requests.average)} req/s, ` +
              `p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, server CPU ${cpuUs.toFixed(1)} us/request`,
          );
        }
      }
    }
  } finally {
    await Promise.all([quiver.stop(), ceiling.stop()]);
  }
  return scenarios.map(([name]) => {
    const { quiver: q, ceiling: c } = runs[name]!;
    const ratios = q.map((r, i) => r.requests.average / c[i]!.requests.average);
    return {
      scenario: name,
      "req/s": Math.round(median(q.map((r) => r.requests.average))),
      "p50 ms": median(q.map((r) => r.latency.p50)),
      "p99 ms": median(q.map((r) => r.latency.p99)),
      "ceiling req/s": Math.round(median(c.map((r) => r.requests.average))),
      "ceiling p50/p99 ms": `${median(c.map((r) => r.latency.p50))} / ${median(c.map((r) => r.latency.p99))}`,
      ratio: Math.round(100 * median(ratios)) / 100,
      "CPU us/req": `${median(q.map((r) => r.cpuUs)).toFixed(1)} / ${median(c.map((r) => r.cpuUs)).toFixed(1)}`,
    };
  });
}

function commonPrefix(paths: string[]): string {
  let prefix = paths[0] ?? "";
  for (const p of paths) while (!p.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// ---- serializers ------------------------------------------------------------------------------

/** What the adapter did before fragments: the same concatenation, escaping every string per call. */
function handEntities(page: Page<Entity>): string {
  let out = '{"items":[';
  for (let i = 0; i < page.items.length; i++) {
    const e = page.items[i]!;
    out +=
      (i === 0 ? "" : ",") +
      '{"entityId":' +
      jsonString(e.entityId) +
      ',"rawIdentifier":' +
      jsonString(e.rawIdentifier) +
      ',"type":' +
      jsonString(e.type) +
      ',"sourceType":' +
      jsonString(e.sourceType) +
      "}";
  }
  return out + '],"nextCursor":' + (page.nextCursor === null ? "null" : jsonString(page.nextCursor)) + "}";
}

function handStatements(page: Page<Statement>): string {
  let out = '{"items":[';
  for (let i = 0; i < page.items.length; i++) {
    const s = page.items[i]!;
    out +=
      (i === 0 ? "" : ",") +
      '{"statementFingerprint":' +
      jsonString(s.statementFingerprint) +
      ',"subjectEntityId":' +
      jsonString(s.subjectEntityId) +
      ',"subjectRawIdentifier":' +
      jsonString(s.subjectRawIdentifier) +
      ',"predicateEntityId":' +
      jsonString(s.predicateEntityId) +
      ',"predicateRawIdentifier":' +
      jsonString(s.predicateRawIdentifier) +
      ',"objectEntityId":' +
      jsonString(s.objectEntityId) +
      ',"objectRawIdentifier":' +
      jsonString(s.objectRawIdentifier) +
      "}";
  }
  return out + '],"nextCursor":' + (page.nextCursor === null ? "null" : jsonString(page.nextCursor)) + "}";
}

export interface SerializerRow {
  serializer: string;
  "entities x100 us": number;
  "statements x200 us": number;
}

async function measureSerializers(graph: Graph): Promise<SerializerRow[]> {
  const schemas = OPENAPI_DOCUMENT.components.schemas;
  const withItems = (page: JsonSchema, item: JsonSchema) =>
    JSON.parse(JSON.stringify({ ...page, properties: { ...page.properties, items: { type: "array", items: item } } }));
  const fjsEntities = fastJson(withItems(schemas.EntityPage, schemas.Entity));
  const fjsStatements = fastJson(withItems(schemas.StatementPage, schemas.Statement));
  const entities = graph.search({ q: "an", limit: 100 });
  const statements = graph.statements({ limit: 200 });
  if (entities.items.length !== 100 || statements.items.length !== 200) throw new Error("pages are not full");
  const cached = new PageSerializer();
  // Each candidate ends where the response needs it: UTF-8 bytes (node encodes a string body anyway,
  // and Content-Length needs its byte length).
  const bytes = (s: string) => Buffer.from(s, "utf8");
  const candidates: [string, (e: Page<Entity>) => Buffer, (s: Page<Statement>) => Buffer][] = [
    ["JSON.stringify", (p) => bytes(JSON.stringify(p)), (p) => bytes(JSON.stringify(p))],
    ["fast-json-stringify", (p) => bytes(fjsEntities(p)), (p) => bytes(fjsStatements(p))],
    ["hand-written, escaping every string", (p) => bytes(handEntities(p)), (p) => bytes(handStatements(p))],
    ["PageSerializer (fragments cached)", (p) => cached.entities(p), (p) => cached.statements(p)],
  ];
  // The same bytes from every candidate, or the race means nothing.
  for (const [name, e, s] of candidates) {
    if (String(e(entities)) !== JSON.stringify(entities) || String(s(statements)) !== JSON.stringify(statements)) {
      throw new Error(`${name} differs from JSON.stringify`);
    }
  }
  console.log(
    `pages: ${Buffer.byteLength(JSON.stringify(entities))} B of 100 entities, ${Buffer.byteLength(JSON.stringify(statements))} B of 200 statements`,
  );
  const bench = new Bench({ time: 1000 });
  for (const [name, e, s] of candidates) {
    bench.add(`${name} | entities`, () => e(entities));
    bench.add(`${name} | statements`, () => s(statements));
  }
  await bench.run();
  const mean = (task: string) => {
    const t = bench.getTask(task)?.result as { latency?: { mean: number }; mean?: number } | undefined;
    const ms = t?.latency?.mean ?? t?.mean ?? NaN;
    return Math.round(ms * 10000) / 10; // ms -> us, one decimal
  };
  return candidates.map(([name]) => ({
    serializer: name,
    "entities x100 us": mean(`${name} | entities`),
    "statements x200 us": mean(`${name} | statements`),
  }));
}

// ---- main -------------------------------------------------------------------------------------

export async function run(): Promise<{ serializers: SerializerRow[]; load: ScenarioResult[] }> {
  console.log(`loading YAGO3-10 from ${DATA_DIR}`);
  const graph = await yagoGraph();
  console.log(`${graph.entityCount} entities, ${graph.statementCount} statements`);
  const serializers = await measureSerializers(graph);
  console.table(serializers);
  const loadResults = await measureLoad(graph, queryMix(graph));
  console.table(loadResults);
  return { serializers, load: loadResults };
}

if (isMainModule(import.meta.url)) {
  const [flag, what, a] = process.argv.slice(2);
  const job =
    flag !== "--serve"
      ? run()
      : what === "quiver"
        ? serveQuiver()
        : serveCeiling(JSON.parse(a ?? "[]") as [string, number][]);
  job.catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

/**
 * Replicas behind nginx
 * =====================
 * `npm run test:replicas`: deploy/nginx.conf in front of 3 `quiver serve` replicas on 127.0.0.1
 * that share one snapshot and one cursor secret, checked the way a client would see them:
 *
 * 1. Walks: every page of several searches and statement filters, through nginx, each page on
 *    whichever replica nginx picks (consecutive pages land on different replicas, counted):
 *    every item exactly once, in the contract's order (the engine's own full listing of the same
 *    snapshot is the reference).
 * 2. A replica killed (SIGKILL) mid-walk: the walk completes, with no error answer to the client
 *    (nginx retries the failed request on the next replica).
 * 3. A new snapshot rolled onto the replicas one at a time (atomic replace, then SIGHUP, each
 *    replica reloaded before the next) while walks go on: every page is 200 and is the old or the
 *    new graph's page for its cursor, and once every replica serves the new graph the items are
 *    exactly the new graph's items after the cursor's key.
 * 4. The same URL asked of each replica directly gets the same strong ETag (and the same bytes).
 * 5. /metrics is not reachable through nginx.
 * 6. Live changes: the replicas give way to one writer (`--changes DIR`) and two followers
 *    (`--follow DIR`) behind the same nginx; batches (entities added, renamed, deleted with their
 *    statements) are posted to the writer while pages are walked through nginx: every item that no
 *    batch touched comes exactly once, and after each batch's 200 every replica gives the writer's
 *    ETag for the same query within LIVE_LAG_LIMIT_MS (the lag measured and printed).
 *
 * Prints items walked, missing, duplicates and errors; exits 1 on any failure, and also when nginx
 * is not installed (this check never skips: install it, e.g. `apt-get install -y nginx`; or point
 * QUIVER_NGINX at the binary).
 * Loopback only; bounded (a few thousand requests, well under a minute); every process it starts
 * is stopped at the end.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, copyFile, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Graph } from "../src/engine/graph.js";
import type { Entity, Page, Statement } from "../src/engine/types.js";
import { loadGraph } from "../src/load/jsonl.js";
import { openSnapshot, saveSnapshot } from "../src/snapshot/file.js";
import { writeGraphJsonl } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";

const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const NGINX_CONF = fileURLToPath(new URL("../../deploy/nginx.conf", import.meta.url));
const KEY = "sk_replicas_test";
const SECRET = "replicas-share-this-secret-7f3a9c2e";
const REPLICAS = 3;
const WRITE_KEY = "sk_replicas_write";
/** The promise checked in step 6: every replica holds a batch this soon after its 200. */
const LIVE_LAG_LIMIT_MS = 1000;
/** Batches posted in step 6, and the pause between them (the walks span them all). */
const LIVE_BATCHES = 10;
const LIVE_BATCH_GAP_MS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Item = Entity | Statement;
interface Query {
  path: "/graph/v1/search" | "/graph/v1/statements";
  params: Record<string, string>;
}

interface Tally {
  walked: number;
  missing: number;
  duplicates: number;
  errors: number;
  outOfOrder: number;
  pages: number;
  replicaChanges: number;
  failures: string[];
}

const keyOf = (item: Item): string => ("entityId" in item ? item.entityId : item.statementFingerprint);

function engineAnswer(graph: Graph, q: Query, limit: number, cursor: string | null): Page<Item> {
  const params: Record<string, unknown> = { ...q.params, limit };
  if (cursor !== null) params["cursor"] = cursor;
  return q.path === "/graph/v1/search" ? graph.search(params as never) : graph.statements(params as never);
}

/** Every item of `q` from the engine, from `cursor` on (the reference order). */
function engineWalk(graph: Graph, q: Query, cursor: string | null = null): Item[] {
  const out: Item[] = [];
  do {
    const page = engineAnswer(graph, q, q.path === "/graph/v1/search" ? 100 : 200, cursor);
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return out;
}

function describe(q: Query): string {
  return `${q.path}?${new URLSearchParams(q.params)}`;
}

// ----------------------------------------------------------------------------------------------
// Processes

interface Replica {
  port: number;
  process: ChildProcess;
  stdout: string;
  stderr: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function startReplica(snapshot: string, port: number, extra: string[] = []): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [MAIN, "serve", "--snapshot", snapshot, "--host", "127.0.0.1", "--port", String(port), "--quiet", ...extra],
    {
      env: { ...process.env, QUIVER_API_KEYS: KEY, QUIVER_WRITE_KEYS: WRITE_KEY, QUIVER_CURSOR_SECRET: SECRET },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const replica: Replica = { port, process: child, stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (replica.stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (replica.stderr += d));
  await until(
    () => /^listening on /m.test(replica.stderr),
    `replica on port ${port}`,
    () => replica.stderr,
  );
  return replica;
}

async function until(check: () => boolean, what: string, detail: () => string = () => "", ms = 30000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await sleep(20);
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((r) => child.once("close", () => r()));
  child.kill("SIGTERM");
  await closed;
}

/** deploy/nginx.conf with the replicas, the listen port and this run's own paths put in. */
async function nginxConfig(dir: string, listenPort: number, replicaPorts: number[]): Promise<string> {
  let conf = await readFile(NGINX_CONF, "utf8");
  const replicas = replicaPorts.map((p) => `        server 127.0.0.1:${p} max_fails=2 fail_timeout=10s;`).join("\n");
  const swap = (name: string, text: string): void => {
    const re = new RegExp(`(# ${name}:begin\\n)[\\s\\S]*?(\\n\\s*# ${name}:end)`);
    if (!re.test(conf)) throw new Error(`deploy/nginx.conf lacks its "# ${name}:begin/end" markers`);
    conf = conf.replace(re, `$1${text}$2`);
  };
  swap("replicas", replicas);
  swap("listen", `        listen 127.0.0.1:${listenPort};`);
  // This run's files, and which replica answered (a header for this test only: it names internal
  // addresses, which a production proxy keeps to itself).
  conf = conf.replace(
    /http \{\n/,
    `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;\n    fastcgi_temp_path ${dir}/fastcgi;\n` +
      `    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;\n    add_header X-Test-Upstream $upstream_addr always;\n`,
  );
  conf = conf.replace(/worker_processes auto;/, "worker_processes 1;");
  const path = join(dir, "nginx.conf");
  await writeFile(path, conf);
  return path;
}

/** The nginx to run: QUIVER_NGINX when set, else nginx on PATH or in /usr/sbin. */
function nginxBinary(): string {
  const given = process.env["QUIVER_NGINX"];
  for (const candidate of given === undefined ? ["nginx", "/usr/sbin/nginx"] : [given]) {
    const r = spawnSync(candidate, ["-v"], { encoding: "utf8" });
    if (r.error === undefined && r.status === 0) return candidate;
  }
  throw new Error(
    "npm run test:replicas needs nginx, and it is not installed here: install it (Debian/Ubuntu: apt-get install -y nginx) and run it again.",
  );
}

// ----------------------------------------------------------------------------------------------
// Walking through nginx

interface Fetched {
  status: number;
  page: Page<Item> | undefined;
  upstream: string;
  body: string;
}

async function fetchPage(base: string, q: Query, limit: number, cursor: string | null): Promise<Fetched> {
  const params = new URLSearchParams({ ...q.params, limit: String(limit) });
  if (cursor !== null) params.set("cursor", cursor);
  try {
    const r = await fetch(`${base}${q.path}?${params}`, { headers: { "X-API-Key": KEY } });
    const body = await r.text();
    return {
      status: r.status,
      page: r.status === 200 ? (JSON.parse(body) as Page<Item>) : undefined,
      upstream: r.headers.get("x-test-upstream") ?? "",
      body,
    };
  } catch (e) {
    return { status: 0, page: undefined, upstream: "", body: String(e) };
  }
}

/**
 * Walks `q` through nginx. `check(cursor, page)` validates each page (by default: the engine's page
 * of `graph` for that cursor); `beforePage(i)` runs before page i (to kill or roll mid-walk).
 */
async function walk(
  base: string,
  q: Query,
  limit: number,
  tally: Tally,
  options: {
    /**
     * The reference listing. Left out (a walk across a roll), the caller checks the items itself,
     * and repeats are not counted: an entity the new graph renamed has a new sort key and may be
     * listed once before the swap and once after it (the contract promises exactly once over an
     * unchanged graph).
     */
    expected?: Item[];
    check?: (cursor: string | null, page: Page<Item>) => string | null;
    beforePage?: (index: number, cursor: string | null) => Promise<void>;
    delayMs?: number;
  },
): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let lastUpstream = "";
  for (let i = 0; ; i++) {
    await options.beforePage?.(i, cursor);
    const got = await fetchPage(base, q, limit, cursor);
    tally.pages++;
    if (got.status !== 200 || got.page === undefined) {
      tally.errors++;
      tally.failures.push(`${describe(q)} page ${i}: status ${got.status}: ${got.body.slice(0, 200)}`);
      break;
    }
    if (lastUpstream !== "" && got.upstream !== lastUpstream) tally.replicaChanges++;
    lastUpstream = got.upstream;
    const problem = options.check?.(cursor, got.page) ?? null;
    if (problem !== null) tally.failures.push(`${describe(q)} page ${i}: ${problem}`);
    items.push(...got.page.items);
    cursor = got.page.nextCursor;
    if (cursor === null) break;
    if (options.delayMs !== undefined) await sleep(options.delayMs);
  }
  tally.walked += items.length;
  if (options.expected === undefined) return items;
  // Exactly once, in order: compared with the reference listing.
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(keyOf(item))) tally.duplicates++;
    seen.add(keyOf(item));
  }
  const expectedKeys = options.expected.map(keyOf);
  tally.missing += expectedKeys.filter((k) => !seen.has(k)).length;
  const walkedKeys = items.map(keyOf);
  if (JSON.stringify(walkedKeys) !== JSON.stringify(expectedKeys)) {
    tally.outOfOrder++;
    tally.failures.push(
      `${describe(q)}: ${walkedKeys.length} items walked, not the ${expectedKeys.length} expected in order`,
    );
  } else if (JSON.stringify(items) !== JSON.stringify(options.expected)) {
    tally.failures.push(`${describe(q)}: the items' fields differ from the reference`);
  }
  return items;
}

// ----------------------------------------------------------------------------------------------
// Data: graph A (generated) and graph B (A with entities dropped, renamed and added)

async function makeGraphs(dir: string): Promise<{ a: string; b: string }> {
  const files = await writeGraphJsonl(join(dir, "a"), { entities: 4000, statements: 12000, seed: 7 });
  const entityLines = (await readFile(files.entities, "utf8")).trimEnd().split("\n");
  const statementLines = (await readFile(files.statements, "utf8")).trimEnd().split("\n");
  const dropped = new Set<string>();
  const bEntities: string[] = [];
  entityLines.forEach((line, i) => {
    const e = JSON.parse(line) as Entity;
    // Every 7th item entity leaves; every 5th is renamed; predicates (P...) stay as they are.
    if (e.entityId.startsWith("Q") && i % 7 === 3) {
      dropped.add(e.entityId);
      return;
    }
    if (e.entityId.startsWith("Q") && i % 5 === 1) e.rawIdentifier = `${e.rawIdentifier} (renamed)`;
    bEntities.push(JSON.stringify(e));
  });
  for (let i = 0; i < 300; i++)
    bEntities.push(
      JSON.stringify({ entityId: `N${i}`, rawIdentifier: `Newcomer ${i} Anna`, type: "0", sourceType: "new" }),
    );
  const bStatements = statementLines.filter((line) => {
    const s = JSON.parse(line) as Record<string, string>;
    return (
      !dropped.has(s["subjectEntityId"]!) && !dropped.has(s["predicateEntityId"]!) && !dropped.has(s["objectEntityId"]!)
    );
  });
  for (let i = 0; i < 300; i++)
    bStatements.push(JSON.stringify({ subjectEntityId: `N${i}`, predicateEntityId: "P1", objectEntityId: "Q2" }));
  await writeFile(join(dir, "b-entities.jsonl"), bEntities.join("\n") + "\n");
  await writeFile(join(dir, "b-statements.jsonl"), bStatements.join("\n") + "\n");
  const a = join(dir, "a.snap");
  const b = join(dir, "b.snap");
  await saveSnapshot(await loadGraph({ entities: files.entities, statements: files.statements }), a);
  await saveSnapshot(
    await loadGraph({ entities: join(dir, "b-entities.jsonl"), statements: join(dir, "b-statements.jsonl") }),
    b,
  );
  return { a, b };
}

// ----------------------------------------------------------------------------------------------
// 6. Live changes

interface LiveFigures {
  walked: number;
  unchanged: number;
  missing: number;
  duplicates: number;
  medianLagMs: number;
  maxLagMs: number;
}

/** Batch i: 20 entities added (they match "an", with a statement each), 3 renamed, 2 deleted with their statements. */
function liveBatch(i: number, victims: Entity[]): { text: string; touched: string[] } {
  const lines: string[] = [];
  for (let j = 0; j < 20; j++) {
    const id = `L${i}_${j}`;
    lines.push(
      JSON.stringify({
        op: "put",
        entity: { entityId: id, rawIdentifier: `Livecomer ${i} ${j} Anna`, type: "0", sourceType: "live" },
      }),
    );
    lines.push(
      JSON.stringify({ op: "put", statement: { subjectEntityId: id, predicateEntityId: "P1", objectEntityId: "Q2" } }),
    );
  }
  const mine = victims.slice(i * 5, i * 5 + 5);
  for (const e of mine.slice(0, 3))
    lines.push(JSON.stringify({ op: "put", entity: { ...e, rawIdentifier: `${e.rawIdentifier} (live)` } }));
  for (const e of mine.slice(3)) lines.push(JSON.stringify({ op: "delete", entityId: e.entityId, cascade: true }));
  return { text: lines.join("\n") + "\n", touched: mine.map((e) => e.entityId) };
}

async function liveChanges(
  dir: string,
  snapshot: string,
  graph: Graph,
  ports: number[],
  base: string,
  replicas: Replica[],
  tally: Tally,
): Promise<LiveFigures> {
  const log = join(dir, "changes");
  const liveSnap = join(dir, "live.snap");
  await copyFile(snapshot, liveSnap);
  replicas[0] = await startReplica(liveSnap, ports[0]!, ["--changes", log]);
  for (let r = 1; r < ports.length; r++) replicas[r] = await startReplica(liveSnap, ports[r]!, ["--follow", log]);
  const writerPort = ports[0]!;
  const searchQ: Query = { path: "/graph/v1/search", params: { q: "an" } };
  const statementsQ: Query = { path: "/graph/v1/statements", params: {} };
  // The entities the batches rename or delete: items of the search walk, not predicates (P...).
  const candidates = engineWalk(graph, searchQ).filter(
    (e): e is Entity => "entityId" in e && e.entityId.startsWith("Q") && e.entityId !== "Q2",
  );
  // Spread over the whole listing, so walks meet changes early and late.
  const step = Math.max(1, Math.floor(candidates.length / (LIVE_BATCHES * 5)));
  const victims = candidates.filter((_, i) => i % step === 0).slice(0, LIVE_BATCHES * 5);
  if (victims.length < LIVE_BATCHES * 5)
    throw new Error("the generated graph has too few entities for the live batches");
  const touched = new Set<string>();
  const lags: number[] = [];
  const tagUrl = `/graph/v1/search?q=an&limit=5`;
  const tagOf = async (port: number): Promise<string | null> =>
    (await fetch(`http://127.0.0.1:${port}${tagUrl}`, { headers: { "X-API-Key": KEY } })).headers.get("etag");

  let lastBatchAt = Number.POSITIVE_INFINITY;
  const postBatches = async (): Promise<void> => {
    for (let i = 0; i < LIVE_BATCHES; i++) {
      await sleep(LIVE_BATCH_GAP_MS);
      const batch = liveBatch(i, victims);
      // Touched before the POST: a walk may see the change as soon as the writer applies it.
      for (const id of batch.touched) touched.add(id);
      const r = await fetch(`http://127.0.0.1:${writerPort}/graph/v1/changes`, {
        method: "POST",
        headers: { "X-API-Key": WRITE_KEY, "Content-Type": "application/x-ndjson" },
        body: batch.text,
      });
      const answered = performance.now();
      const body = await r.text();
      if (r.status !== 200) {
        tally.failures.push(`live batch ${i + 1}: status ${r.status}: ${body.slice(0, 200)}`);
        return;
      }
      const want = await tagOf(writerPort);
      let lag = 0;
      for (const replica of replicas.slice(1)) {
        while ((await tagOf(replica.port)) !== want) {
          if (performance.now() - answered > LIVE_LAG_LIMIT_MS * 3) break;
          await sleep(5);
        }
        lag = Math.max(lag, performance.now() - answered);
      }
      lags.push(lag);
      lastBatchAt = answered;
      if (lag > LIVE_LAG_LIMIT_MS)
        tally.failures.push(
          `live batch ${i + 1}: a replica reached the writer's ETag ${Math.round(lag)} ms after the 200`,
        );
    }
  };
  const liveTally: Tally = { ...tally, walked: 0, missing: 0, duplicates: 0, failures: tally.failures };
  // Each walk with the time it ended: it must outlast the last batch to have walked through them all.
  const timed = async (q: Query, limit: number, delayMs: number): Promise<{ items: Item[]; end: number }> => {
    const items = await walk(base, q, limit, liveTally, { delayMs });
    return { items, end: performance.now() };
  };
  const [search, statements] = await Promise.all([timed(searchQ, 13, 60), timed(statementsQ, 40, 10), postBatches()]);
  const searched = search.items;
  const listed = statements.items;
  for (const [what, w] of [
    ["search", search],
    ["statements", statements],
  ] as const)
    if (w.end < lastBatchAt) tally.failures.push(`live: the ${what} walk ended before the last batch; make it longer`);
  tally.errors += liveTally.errors;
  tally.pages += liveTally.pages;
  if (lags.length > 0 && searched.length > 0 && touched.size === 0) tally.failures.push("live: no batch was applied");
  // Exactly once for every item no batch touched (an entity renamed or deleted, a statement naming one).
  let unchanged = 0;
  let missing = 0;
  let duplicates = 0;
  const exactlyOnce = (q: Query, walked: Item[], isTouched: (item: Item) => boolean): void => {
    const counts = new Map<string, number>();
    for (const item of walked) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
    for (const item of engineWalk(graph, q)) {
      if (isTouched(item)) continue;
      unchanged++;
      const n = counts.get(keyOf(item)) ?? 0;
      if (n === 0) missing++;
      if (n > 1) duplicates += n - 1;
    }
  };
  exactlyOnce(searchQ, searched, (item) => touched.has(keyOf(item)));
  exactlyOnce(statementsQ, listed, (item) => {
    const s = item as Statement;
    return touched.has(s.subjectEntityId) || touched.has(s.predicateEntityId) || touched.has(s.objectEntityId);
  });
  tally.missing += missing;
  tally.duplicates += duplicates;
  tally.walked += searched.length + listed.length;
  // The walks must have spanned the batches, or they proved nothing about walking through changes.
  if (lags.length < LIVE_BATCHES) tally.failures.push(`live: ${lags.length} of ${LIVE_BATCHES} batches applied`);
  const sorted = [...lags].sort((x, y) => x - y);
  return {
    walked: searched.length + listed.length,
    unchanged,
    missing,
    duplicates,
    medianLagMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxLagMs: Math.round(sorted[sorted.length - 1] ?? 0),
  };
}

// ----------------------------------------------------------------------------------------------

export async function runReplicas(): Promise<boolean> {
  const nginx = nginxBinary();
  const dir = await mkdtemp(join(tmpdir(), "quiver-replicas-"));
  await chmod(dir, 0o755); // nginx's worker processes may run as another user
  const replicas: Replica[] = [];
  let proxy: ChildProcess | undefined;
  const tally: Tally = {
    walked: 0,
    missing: 0,
    duplicates: 0,
    errors: 0,
    outOfOrder: 0,
    pages: 0,
    replicaChanges: 0,
    failures: [],
  };
  try {
    const { a, b } = await makeGraphs(dir);
    const served = join(dir, "served.snap");
    await copyFile(a, served);
    const graphA = await openSnapshot(a, { cursorSecret: SECRET });
    const graphB = await openSnapshot(b, { cursorSecret: SECRET });

    const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    for (const port of ports) replicas.push(await startReplica(served, port));
    const listenPort = await freePort();
    const conf = await nginxConfig(dir, listenPort, ports);
    const test = spawnSync(
      nginx,
      ["-t", "-p", dir, "-c", conf, "-g", `pid ${dir}/nginx.pid; error_log ${dir}/error.log;`],
      {
        encoding: "utf8",
      },
    );
    if (test.status !== 0) throw new Error(`nginx -t refused the configuration:\n${test.stderr}`);
    proxy = spawn(
      nginx,
      ["-p", dir, "-c", conf, "-g", `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const base = `http://127.0.0.1:${listenPort}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).status === 200) break;
      } catch {}
      if (i > 200) throw new Error("nginx did not start answering");
      await sleep(50);
    }

    const hub = graphA.stats().heaviest;
    const queries: Query[] = [
      { path: "/graph/v1/search", params: { q: "an" } },
      { path: "/graph/v1/search", params: { q: "e", type: "0" } },
      { path: "/graph/v1/search", params: { q: "ö" } },
      { path: "/graph/v1/statements", params: {} },
      { path: "/graph/v1/statements", params: { predicateEntityId: hub.predicates[0]!.entityId } },
      { path: "/graph/v1/statements", params: { objectEntityId: hub.objects[0]!.entityId } },
      { path: "/graph/v1/statements", params: { subjectEntityId: hub.subjects[0]!.entityId } },
    ];
    const pageCheck = (graph: Graph, q: Query, limit: number) => (cursor: string | null, page: Page<Item>) =>
      JSON.stringify(page) === JSON.stringify(engineAnswer(graph, q, limit, cursor)) ? null : "not the engine's page";

    // 1. Plain walks.
    for (const [i, q] of queries.entries()) {
      const limit = [7, 20, 50, 13][i % 4]!;
      await walk(base, q, limit, tally, { expected: engineWalk(graphA, q), check: pageCheck(graphA, q, limit) });
    }
    const plainPages = tally.pages;
    const plainChanges = tally.replicaChanges;

    // 2. A replica killed mid-walk.
    const victim = replicas[1]!;
    const killQuery = queries[0]!;
    await walk(base, killQuery, 9, tally, {
      expected: engineWalk(graphA, killQuery),
      beforePage: async (index) => {
        if (index === 4) {
          victim.process.kill("SIGKILL");
          await new Promise((r) => victim.process.once("close", r));
        }
      },
    });
    replicas[1] = await startReplica(served, victim.port);
    // Give nginx's passive check time to take the restarted replica back (fail_timeout in the test config is 10 s;
    // requests go to the other two meanwhile, which is what it is for).

    // 3. A new snapshot rolled on, one replica at a time, while two walks go on.
    let rolled = false;
    const roll = async (): Promise<void> => {
      const next = `${served}.next`;
      await copyFile(b, next);
      await rename(next, served); // atomic: a replica opens the old file or the new one
      for (const replica of replicas) {
        const before = replica.stdout.length;
        replica.process.kill("SIGHUP");
        await until(
          () => /"event":"(reloaded|reload-failed)"/.test(replica.stdout.slice(before)),
          `replica ${replica.port} to reload`,
          () => replica.stdout.slice(before) + replica.stderr,
        );
        if (/"event":"reload-failed"/.test(replica.stdout.slice(before)))
          throw new Error(`replica ${replica.port}: reload failed: ${replica.stdout.slice(before)}`);
      }
      rolled = true;
    };
    const rollWalk = async (q: Query, limit: number, startRollAt: number | null): Promise<void> => {
      let swapCursor: string | null | undefined;
      let rolling: Promise<void> | undefined;
      const walked = await walk(base, q, limit, tally, {
        // No single reference: A's items up to the swap, then B's after the swap cursor (checked below).
        delayMs: 15,
        beforePage: async (index, cursor) => {
          if (startRollAt !== null && index === startRollAt) rolling = roll();
          if (rolled && swapCursor === undefined) swapCursor = cursor;
        },
        check: (cursor, page) => {
          const json = JSON.stringify(page);
          if (rolled)
            return json === JSON.stringify(engineAnswer(graphB, q, limit, cursor))
              ? null
              : "after the roll: not the new graph's page";
          return json === JSON.stringify(engineAnswer(graphA, q, limit, cursor)) ||
            json === JSON.stringify(engineAnswer(graphB, q, limit, cursor))
            ? null
            : "during the roll: neither the old nor the new graph's page for this cursor";
        },
      });
      await rolling;
      if (swapCursor === undefined) {
        tally.failures.push(`${describe(q)}: the walk ended before the roll finished; make it longer`);
        return;
      }
      const afterSwap = engineWalk(graphB, q, swapCursor);
      const walkedKeys = walked.map(keyOf);
      const tail = walkedKeys.slice(Math.max(0, walkedKeys.length - afterSwap.length));
      if (JSON.stringify(tail) !== JSON.stringify(afterSwap.map(keyOf))) {
        tally.outOfOrder++;
        tally.failures.push(`${describe(q)}: after the roll, not exactly the new graph's items after the cursor's key`);
      }
      // After the swap the graph no longer changes: there, exactly once holds again.
      const tailSet = new Set(tail);
      tally.duplicates += tail.length - tailSet.size;
      tally.missing += afterSwap.map(keyOf).filter((k) => !tailSet.has(k)).length;
    };
    await Promise.all([
      rollWalk({ path: "/graph/v1/search", params: { q: "a" } }, 10, 3),
      rollWalk({ path: "/graph/v1/statements", params: {} }, 25, null),
    ]);

    // 4. One URL, each replica directly: the same ETag (when the server sends one) and the same bytes.
    let etagsCompared = 0;
    for (const q of queries) {
      const answers = await Promise.all(
        replicas.map(async (r) => {
          const res = await fetch(
            `http://127.0.0.1:${r.port}${q.path}?${new URLSearchParams({ ...q.params, limit: "5" })}`,
            {
              headers: { "X-API-Key": KEY },
            },
          );
          return { etag: res.headers.get("etag"), body: await res.text() };
        }),
      );
      const first = answers[0]!;
      for (const other of answers.slice(1)) {
        if (other.body !== first.body) tally.failures.push(`${describe(q)}: replicas answer different bytes`);
        if (other.etag !== first.etag) tally.failures.push(`${describe(q)}: replicas give different ETags`);
      }
      if (first.etag !== null) {
        etagsCompared++;
        if (!/^"[^"]+"$/.test(first.etag))
          tally.failures.push(`${describe(q)}: ETag ${first.etag} is not a strong tag`);
      }
    }

    // 5. /metrics stays on the private side: through nginx it is the contract's JSON 404.
    const hidden = await fetch(`${base}/metrics`);
    const hiddenBody = await hidden.text();
    if (hidden.status !== 404 || typeof (JSON.parse(hiddenBody) as { error?: unknown }).error !== "string")
      tally.failures.push(`/metrics through nginx: ${hidden.status} ${hiddenBody.slice(0, 100)}`);

    // 6. Live changes: one writer and two followers of its log, on the same ports behind nginx.
    await Promise.all(replicas.map((r) => stopProcess(r.process)));
    const live = await liveChanges(dir, a, graphA, ports, base, replicas, tally);

    console.log(
      `replicas: ${REPLICAS} behind nginx (${base}); ${plainPages} pages in the plain walks, ` +
        `${plainChanges} of them on another replica than the page before`,
    );
    console.log(`killed one replica mid-walk; rolled a new snapshot onto all ${REPLICAS}, one at a time, mid-walk`);
    console.log(
      etagsCompared > 0
        ? `ETags: the same strong tag from every replica for ${etagsCompared} URLs`
        : "ETags: this server sends none; the replicas' answers were compared byte for byte instead",
    );
    if (plainChanges === 0) tally.failures.push("every page landed on the same replica: nginx did not spread the walk");
    console.log(
      `items walked ${tally.walked}, missing ${tally.missing}, duplicates ${tally.duplicates}, errors ${tally.errors}`,
    );
    console.log(
      `live: ${LIVE_BATCHES} batches to one writer, ${REPLICAS - 1} followers; ${live.walked} items walked meanwhile ` +
        `(${live.unchanged} unchanged: missing ${live.missing}, duplicates ${live.duplicates}); ` +
        `every replica on the writer's ETag after a batch's 200: median ${live.medianLagMs} ms, max ${live.maxLagMs} ms ` +
        `(limit ${LIVE_LAG_LIMIT_MS} ms)`,
    );
    for (const f of tally.failures) console.log(`FAIL ${f}`);
    const ok = tally.failures.length === 0 && tally.missing === 0 && tally.duplicates === 0 && tally.errors === 0;
    console.log(ok ? "test:replicas passed" : "test:replicas FAILED");
    return ok;
  } finally {
    if (proxy !== undefined) await stopProcess(proxy);
    await Promise.all(replicas.map((r) => stopProcess(r.process)));
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) {
  runReplicas().then(
    (ok) => process.exit(ok ? 0 : 1),
    (e: unknown) => {
      console.error(`test:replicas: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}

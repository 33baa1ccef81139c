/**
 * HTTP benchmark
 * ==============
 * `npm run bench:http [-- --entities N --statements N --seconds S --rounds R ...]`: what the HTTP
 * layer costs per request beside a bare node:http server that answers the same bytes, both measured
 * the same way in one run.
 *
 * Graph: generated (tools/generator.ts; default 200,000 entities and 1,000,000 statements, seed 1),
 * saved once as a snapshot that every server process opens. Workloads, fixed by the seed:
 *   - mix: distinct searches (a random substring of 2 to 6 code points of a real name; page 1, and
 *     page 2 through its nextCursor) and distinct statement filters (S, O, S+P, P+O of a real
 *     statement; the first page and the next one), interleaved as users send them;
 *   - no-match: distinct searches that match nothing (the adapter's floor: the engine has nothing
 *     to do, the page is 30 bytes).
 * Servers, each a fresh process per round, pinned to core 0 with `taskset` (the load generator,
 * `wrk -t1`, to core 1):
 *   - bare: node:http answering each target with its pre-serialized body (the same bytes);
 *   - quiver: `serve()` as `quiver serve --quiet` runs it;
 *   - quiver+log: the same with the request log (src/cli/request-log.ts) writing to a file;
 *   - timed: `serve()` as quiver, over the graph behind a wrapper that times each engine call
 *     (`performance.now()` around `search` and `statements`; wall time, and the server alone on its
 *     core, so its CPU time), read at the start and end of the measured run.
 *   - paced (the A/B phase, mix only): bare that also spins, a request, what Quiver adds in user
 *     space (Quiver's user time less bare's), so it answers at about Quiver's rate. A slower server
 *     pays more a request for the same system calls and node:http work (a response finds the load
 *     generator idle and wakes it; fewer requests share a turn of the event loop), which bench:http
 *     reports as the part of the handler's remainder that is not Quiver's code.
 * Quiver's own CPU per request (the goal GOAL_OWN_US) = quiver - (paced - spin): what Quiver
 * costs beyond what a bare server costs at the same rate. Measured A/B after the rounds (`ownPhase`):
 * bare, quiver and paced live at once; bare and quiver alternately, three runs each, for the spin
 * (set again before each pair from the median of every quiver run so far), then `--pairs`
 * pairs of quiver and paced in ABBA order, each pair's difference taken within it, the median of the
 * pairs reported with their range and the load average (one row, the goal beside it). Separate runs a
 * minute apart swung from 31 to 58 µs at load 7-14 (what other processes do to the caches drifts);
 * two runs seconds apart see the same drift. `--only-own` runs this phase alone.
 * Per run: a warm-up, then a measured run; server CPU per request is the server process's own
 * utime + stime (/proc/PID/stat) over the requests wrk completed, its kernel part (stime) shown
 * apart. Medians over the rounds.
 * Layers: engine = the timed server's engine time per request (in the server, with what the rest of
 * a request does to the CPU's caches); serializer = the in-process serializer time per request of the
 * mix (engine call + serializer, less the engine call alone, over the mix's targets in order);
 * request log = quiver+log - quiver; handler = quiver - bare - engine - serializer, the rest, of which
 * (paced - spin - bare, from the A/B phase) is the rate's. (Until
 * 2026-11-24 the engine was quiver less a server over a stub graph that answered from 12,000 pages
 * held in memory: that server's own heap and its serializing of pages computed once made the
 * difference unreliable.)
 * In-process figures beside them (CPU time of the loop, so other processes on the machine do not
 * count): the serializer (bytes, json-bytes.ts) against JSON.stringify, the engine alone, ETag from the
 * parameters against SHA-256 and against hashing each body, compression per page, the log line.
 *
 * `--data DIR` keeps the snapshot and the targets in DIR and reads them back on the next run with the
 * same graph and mix options (the graph takes half a minute to build).
 * Needs `wrk` and `taskset` (util-linux) on PATH and two cores; fails loudly without them. Results
 * also go to bench/results/http.json. The same file is the child server,
 * `node dist/bench/http.bench.js --serve CASE --snapshot FILE --targets FILE`, and the child that
 * measures the in-process figures over the served snapshot, `... --micro --snapshot FILE --targets FILE`.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createRequestLog } from "../src/cli/request-log.js";
import type { Graph } from "../src/engine/graph.js";
import type { Entity, Page, SearchParams, Statement, StatementsParams } from "../src/engine/types.js";
import { searchKey, tagDigest, tagSeed } from "../src/http/caching.js";
import { encodeBody } from "../src/http/compression.js";
import { entityPage, statementPage } from "../src/http/serialize.js";
import { serve } from "../src/http/server.js";
import { openSnapshot, saveSnapshot } from "../src/snapshot/file.js";
import { buildGeneratedGraph, mulberry32 } from "../tools/generator.js";

import { isMainModule } from "../tools/main-module.js";
import { benchOptions } from "./options.js";

const KEY = "sk_bench_key";
const SECRET = "bench-cursor-secret";
/** The project's goals (printed with --goals): CPU per request against bare, and per layer (us). */
const GOAL_MIX_RATIO = 2;
const GOAL_NO_MATCH_RATIO = 1.25;
const GOAL_LAYER_US = { handler: 5, engine: 20, serializer: 10, log: 5 } as const;
/**
 * The goal, restated from the paced server's finding: Quiver's own CPU per request on the
 * mix over the paced bare server (what bare costs at Quiver's rate, its spin left out), µs.
 */
const GOAL_OWN_US = 25;

interface Options {
  entities: number;
  statements: number;
  seed: number;
  seconds: number;
  warmup: number;
  rounds: number;
  connections: number;
  searches: number;
  filters: number;
  micro: boolean;
  out: string;
  /** Print the project's goals beside the figures, with a verdict. */
  goals: boolean;
  /** Quiver-paced pairs of the A/B phase (Quiver's own CPU per request). */
  pairs: number;
  /** Only the A/B phase (no in-process figures, no rounds of the other servers). */
  onlyOwn: boolean;
  /** Where the snapshot and the targets are kept and found again (default: a temporary directory, removed). */
  data: string | undefined;
}

const USAGE = `usage: npm run bench:http -- [options]
  --entities N --statements N   generated graph (default 200000 and 1000000)
  --seed N                      generator seed (default 1)
  --seconds S --warmup S        measured and warm-up seconds per run (default 4 and 2)
  --rounds N                    rounds; figures are medians over them (default 3)
  --connections N               wrk connections (default 32)
  --searches N --filters N      distinct searches and statement filters in the mix (default 4000 each)
  --no-micro                    skip the in-process figures (serializer, ETag, compression, log line)
  --pairs N                     Quiver / paced pairs of the A/B phase (default 6)
  --only-own                    only the A/B phase: Quiver's own CPU per request
  --data DIR                    keep the snapshot and targets in DIR, and reuse them when DIR holds
                                them for the same graph and mix options (default: a temporary directory)
  --out FILE                    results JSON (default bench/results/http.json)
  --goals                       also judge the figures against the project's goals
Needs wrk and taskset on PATH and two cores.`;

function options(argv: string[]): Options {
  const values = benchOptions(
    argv,
    {
      entities: { type: "string", default: "200000" },
      statements: { type: "string", default: "1000000" },
      seed: { type: "string", default: "1" },
      seconds: { type: "string", default: "4" },
      warmup: { type: "string", default: "2" },
      rounds: { type: "string", default: "3" },
      connections: { type: "string", default: "32" },
      searches: { type: "string", default: "4000" },
      filters: { type: "string", default: "4000" },
      "no-micro": { type: "boolean", default: false },
      out: { type: "string", default: "bench/results/http.json" },
      goals: { type: "boolean", default: false },
      pairs: { type: "string", default: "6" },
      "only-own": { type: "boolean", default: false },
      data: { type: "string" },
    },
    USAGE,
  );
  return {
    entities: Number(values.entities),
    statements: Number(values.statements),
    seed: Number(values.seed),
    seconds: Number(values.seconds),
    warmup: Number(values.warmup),
    rounds: Number(values.rounds),
    connections: Number(values.connections),
    searches: Number(values.searches),
    filters: Number(values.filters),
    micro: !values["no-micro"],
    out: values.out,
    goals: values.goals,
    pairs: Number(values.pairs),
    onlyOwn: values["only-own"],
    data: values.data,
  };
}

// ---- workloads ---------------------------------------------------------------------------------

interface Workloads {
  mix: string[];
  noMatch: string[];
}

/** The mix and the no-match searches, from the graph's own names and statements (seeded). */
function workloads(graph: Graph, o: Options): Workloads {
  const next = mulberry32(o.seed * 7919 + 17);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const ids: string[] = [];
  const names: string[] = [];
  for (const e of graph.exportEntities()) {
    ids.push(e.entityId);
    names.push(e.rawIdentifier);
  }
  const searches: string[][] = [];
  const seenSearch = new Set<string>();
  for (let tries = 0; searches.length < o.searches && tries < o.searches * 20; tries++) {
    const points = [...pick(names)];
    const length = 2 + Math.floor(next() * 5);
    if (points.length < length) continue;
    const start = Math.floor(next() * (points.length - length + 1));
    const q = points.slice(start, start + length).join("");
    if (q.trim() === "" || seenSearch.has(q)) continue;
    seenSearch.add(q);
    const first = graph.search({ q });
    if (first.items.length === 0) continue;
    const target = `/graph/v1/search?q=${encodeURIComponent(q)}`;
    searches.push(first.nextCursor === null ? [target] : [target, `${target}&cursor=${first.nextCursor}`]);
  }
  const filters: string[][] = [];
  const seenFilter = new Set<string>();
  for (let tries = 0; filters.length < o.filters && tries < o.filters * 20; tries++) {
    const subject = pick(ids);
    const st = pick(graph.statements({ subjectEntityId: subject, limit: 20 }).items);
    if (st === undefined) continue;
    const kinds: StatementsParams[] = [
      { subjectEntityId: st.subjectEntityId },
      { objectEntityId: st.objectEntityId },
      { subjectEntityId: st.subjectEntityId, predicateEntityId: st.predicateEntityId },
      { predicateEntityId: st.predicateEntityId, objectEntityId: st.objectEntityId },
    ];
    const params = kinds[filters.length % kinds.length] as StatementsParams;
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`)
      .join("&");
    if (seenFilter.has(query)) continue;
    seenFilter.add(query);
    const target = `/graph/v1/statements?${query}`;
    const first = graph.statements(params);
    filters.push(first.nextCursor === null ? [target] : [target, `${target}&cursor=${first.nextCursor}`]);
  }
  const mix: string[] = [];
  for (let i = 0; i < Math.max(searches.length, filters.length); i++)
    mix.push(...(searches[i] ?? []), ...(filters[i] ?? []));
  const noMatch: string[] = [];
  for (let k = 0; noMatch.length < o.searches; k++) {
    const q = `zqx${k.toString(36)}jv`;
    if (graph.search({ q, limit: 1 }).items.length === 0) noMatch.push(`/graph/v1/search?q=${q}`);
  }
  return { mix, noMatch };
}

/** The engine call a target names (the targets here are simple: one value per name). */
function callOf(
  target: string,
): { endpoint: "search"; params: SearchParams } | { endpoint: "statements"; params: StatementsParams } {
  const mark = target.indexOf("?");
  const query = Object.fromEntries(new URLSearchParams(target.slice(mark + 1)));
  const limit = query["limit"] === undefined ? undefined : Number(query["limit"]);
  return target.startsWith("/graph/v1/search")
    ? {
        endpoint: "search",
        params: {
          q: query["q"] as string,
          type: query["type"] as SearchParams["type"],
          limit,
          cursor: query["cursor"],
        },
      }
    : { endpoint: "statements", params: { ...query, limit } };
}

function pageOf(graph: Graph, target: string): Page<Entity> | Page<Statement> {
  const call = callOf(target);
  return call.endpoint === "search" ? graph.search(call.params) : graph.statements(call.params);
}

// ---- child servers -----------------------------------------------------------------------------

type Case = "bare" | "quiver" | "quiver+log" | "timed" | "paced";

async function serveCase(which: Case, snapshot: string, targetsFile: string, spinUs: number): Promise<void> {
  const graph = (await openSnapshot(snapshot)).withCursorSecret(SECRET);
  const targets = readFileSync(targetsFile, "utf8")
    .split("\n")
    .filter((t) => t !== "");
  let url: string;
  if (which === "bare" || which === "paced") {
    // paced: bare that also busies itself spinUs of user time a request before answering (wall time
    // by performance.now(), no system call, so the spin adds no kernel time; the server is alone on
    // its core), so that it answers at Quiver's rate.
    let spinMs = which === "paced" ? spinUs / 1000 : 0;
    // The A/B phase sets the spin once it has measured what Quiver adds: "spin US" on stdin.
    if (which === "paced")
      process.stdin.setEncoding("utf8").on("data", (d: string) => {
        const m = /spin ([\d.]+)/.exec(d);
        if (m !== null) spinMs = Number(m[1]) / 1000;
      });
    const bodies = new Map<string, Buffer>();
    for (const t of targets) bodies.set(t, Buffer.from(JSON.stringify(pageOf(graph, t))));
    const server = http.createServer((req, res) => {
      const body = bodies.get(req.url ?? "");
      if (body === undefined) {
        res.writeHead(404, ["content-length", "0"]);
        res.end();
        return;
      }
      if (spinMs > 0) for (const until = performance.now() + spinMs; performance.now() < until; );
      res.writeHead(200, ["content-type", "application/json", "content-length", String(body.length)]);
      res.end(body);
    });
    await new Promise<void>((r) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  } else if (which === "timed") {
    const timed = timedGraph(graph);
    url = (await serve({ graph: timed.graph, apiKeys: [KEY], cursorSecret: SECRET, port: 0 })).url;
    // The parent asks for the totals at the start and the end of a measured run.
    process.on("SIGUSR2", () => process.stdout.write(`engine ${timed.totals.ms} ${timed.totals.calls}\n`));
  } else {
    const logFile = join(dirname(snapshot), `requests-${process.pid}.log`);
    const log = which === "quiver+log" ? createRequestLog(createWriteStream(logFile)) : undefined;
    const running = await serve({
      graph,
      apiKeys: [KEY],
      cursorSecret: SECRET,
      port: 0,
      ...(log === undefined ? {} : { log: log.write }),
    });
    url = running.url;
  }
  process.on("SIGTERM", () => process.exit(0));
  process.stdout.write(`listening on ${url}\n`);
}

interface Child {
  pid: number;
  url: string;
  /** The paced server's spin a request from now on, µs. */
  setSpin(us: number): void;
  /** The timed server's engine milliseconds and calls so far (only that case answers). */
  engineTotals(): Promise<{ ms: number; calls: number }>;
  stop(): Promise<void>;
}

/**
 * The graph behind a wrapper that adds up the wall time of each engine call: what serve() uses of a
 * graph (engine/graph.ts), the queries timed. performance.now() costs about 30 ns a call here.
 */
function timedGraph(graph: Graph): { graph: Graph; totals: { ms: number; calls: number } } {
  const totals = { ms: 0, calls: 0 };
  const timed =
    <P, R>(query: (params: P) => R) =>
    (params: P): R => {
      const start = performance.now();
      try {
        return query(params);
      } finally {
        totals.ms += performance.now() - start;
        totals.calls++;
      }
    };
  const wrap = (g: Graph): Graph =>
    ({
      search: timed((p: SearchParams) => g.search(p)),
      statements: timed((p: StatementsParams) => g.statements(p)),
      stats: () => g.stats(),
      get contentTag() {
        return g.contentTag;
      },
      get entityCount() {
        return g.entityCount;
      },
      get statementCount() {
        return g.statementCount;
      },
      withOptions: (options: Parameters<Graph["withOptions"]>[0]) => wrap(g.withOptions(options)),
      withCursorSecret: (secret: string) => wrap(g.withCursorSecret(secret)),
    }) as unknown as Graph;
  return { graph: wrap(graph), totals };
}

async function startChild(which: Case, snapshot: string, targetsFile: string, spinUs = 0): Promise<Child> {
  const script = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(
    "taskset",
    [
      ...["-c", "0", process.execPath, script, "--serve", which, "--snapshot", snapshot, "--targets", targetsFile],
      ...["--spin-us", String(spinUs)],
    ],
    { stdio: [which === "paced" ? "pipe" : "ignore", "pipe", "inherit"] },
  );
  // Lines from the child: "listening on URL" once, then "engine MS CALLS" for each engineTotals().
  const waiting: ((line: string) => void)[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      for (let end = out.indexOf("\n"); end >= 0; end = out.indexOf("\n")) {
        const line = out.slice(0, end);
        out = out.slice(end + 1);
        const m = /^listening on (\S+)/.exec(line);
        if (m) resolve(m[1] as string);
        else if (line.startsWith("engine ")) waiting.shift()?.(line);
      }
    });
    child.once("exit", (code) => reject(new Error(`bench server ${which} exited with ${code}`)));
  });
  return {
    pid: child.pid as number,
    url,
    setSpin: (us) => child.stdin?.write(`spin ${us}\n`),
    engineTotals: () =>
      new Promise((resolve) => {
        waiting.push((line) => {
          const [, ms, calls] = line.split(" ");
          resolve({ ms: Number(ms), calls: Number(calls) });
        });
        child.kill("SIGUSR2");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit");
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

// ---- load --------------------------------------------------------------------------------------

const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);

/** utime and stime of a process (its own code, and the kernel working for it), in microseconds. */
function cpuMicros(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of the whole line are the 12th and 13th after the command name.
  const us = (ticks: string | undefined) => (Number(ticks) * 1e6) / CLOCK_TICKS_PER_SECOND;
  return { user: us(fields[11]), system: us(fields[12]) };
}

interface Run {
  requests: number;
  /** The timed server's engine time per request, µs (NaN for the other servers). */
  engineUs: number;
  rps: number;
  cpuUs: number;
  /** Of cpuUs, the kernel's part (stime): socket reads and writes, and TCP over loopback. */
  systemUs: number;
  p50: number;
  p99: number;
}

function wrk(url: string, script: string, targets: string, seconds: number, connections: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "taskset",
      ["-c", "1", "wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url, "--", targets],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`))));
  });
}

/** Milliseconds of a wrk latency figure ("812.00us", "1.20ms", "2.01s"). */
function ms(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (m === null) return Number.NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
}

async function measure(child: Child, which: Case, script: string, targets: string, o: Options): Promise<Run> {
  await wrk(child.url, script, targets, o.warmup, o.connections);
  const timed = which === "timed";
  const engineBefore = timed ? await child.engineTotals() : undefined;
  const before = cpuMicros(child.pid);
  const out = await wrk(child.url, script, targets, o.seconds, o.connections);
  const after = cpuMicros(child.pid);
  const engineAfter = timed ? await child.engineTotals() : undefined;
  const cpu = after.user + after.system - before.user - before.system;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (bad > 0 || requests === 0) throw new Error(`${bad} non-2xx answers of ${requests}:\n${out}`);
  return {
    requests,
    engineUs:
      engineBefore === undefined || engineAfter === undefined
        ? Number.NaN
        : ((engineAfter.ms - engineBefore.ms) * 1000) / requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    cpuUs: cpu / requests,
    systemUs: (after.system - before.system) / requests,
    // The latency distribution's own lines ("     50%    1.20ms"), not "89.50%" of the thread stats.
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ""),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ""),
  };
}

const WRK_SCRIPT = `-- Cycles through the targets of the file named after "--", one per line, with the API key.
local targets = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do
    if #line > 0 then targets[#targets + 1] = line end
  end
end
request = function()
  i = i % #targets + 1
  return wrk.format("GET", targets[i], { ["X-API-Key"] = "${KEY}" })
end
`;

// ---- in-process figures ------------------------------------------------------------------------

interface MicroRow {
  what: string;
  "us per request": number;
}

async function micro(graph: Graph, targets: string[]): Promise<MicroRow[]> {
  // Only the targets' parsed calls and their bodies (buffers, outside the JavaScript heap) are kept:
  // holding the 12,000 pages themselves (their objects and strings) made every loop here pay for
  // collecting a large heap, the engine's 16 µs a page measuring 25 and the serializer's 8 measuring
  // 17 (scratch loop, the same snapshot and targets).
  const pages = targets.map((t) => ({ target: t, call: callOf(t) }));
  const seed = tagSeed(graph.stats().contentTag, "secret:bench");
  const bodies = pages.map((p) =>
    p.call.endpoint === "search"
      ? entityPage(graph.search(p.call.params))
      : statementPage(graph.statements(p.call.params)),
  );
  const log = createRequestLog(createWriteStream("/dev/null"));
  const each = (name: string, fn: (i: number) => unknown): [string, () => void] => {
    let i = 0;
    return [
      name,
      () => {
        fn(i);
        i = (i + 1) % pages.length;
      },
    ];
  };
  // The serializers are timed as the server runs them: on each page fresh from the engine, searches
  // and statements in the mix's order, the engine's own time taken off (a loop over pages computed
  // once would time text whose strings are made and laid out otherwise, and one kind of page at a
  // time would flatter a serializer whose cost depends on the mix: json-bytes.ts).
  const fresh = (i: number): Page<Entity> | Page<Statement> => {
    const call = pages[i]!.call;
    return call.endpoint === "search" ? graph.search(call.params) : graph.statements(call.params);
  };
  const tasks: [string, () => void][] = [
    each("engine: the mix's pages, fresh", fresh),
    each("engine + serializer (used)", (i) => {
      const call = pages[i]!.call;
      return call.endpoint === "search"
        ? entityPage(graph.search(call.params))
        : statementPage(graph.statements(call.params));
    }),
    each("engine + JSON.stringify + Buffer.from", (i) => Buffer.from(JSON.stringify(fresh(i)))),
    each("ETag from the parameters (used)", (i) =>
      tagDigest(seed, searchKey(pages[i]!.call.params as SearchParams, 20)),
    ),
    each("ETag by SHA-256 of the parameters", (i) =>
      createHash("sha256")
        .update(searchKey(pages[i]!.call.params as SearchParams, 20))
        .digest("base64url"),
    ),
    each("ETag by hashing the body (SHA-1)", (i) => createHash("sha1").update(bodies[i]!).digest("base64url")),
    each("gzip of the page", (i) => gzipSync(bodies[i]!)),
    each("brotli of the page (quality 4)", (i) => encodeBody(bodies[i]!, "br")),
    each("request log line", (i) =>
      log.write({ requestId: `r-${i}`, method: "GET", path: "/graph/v1/search", status: 200, durationMs: 0.4 }),
    ),
  ];
  // CPU time of this process, not wall time: on a shared machine a descheduled loop would count
  // other processes' time. Rounds alternate between the tasks; the median round counts.
  const rounds: number[][] = tasks.map(() => []);
  for (let round = 0; round < MICRO_ROUNDS; round++) {
    tasks.forEach(([, fn], t) => {
      for (let i = 0; i < 200; i++) fn(); // warm
      const start = process.cpuUsage();
      let calls = 0;
      let used = 0;
      while (used < MICRO_CPU_MS * 1000) {
        for (let i = 0; i < 50; i++) fn();
        calls += 50;
        const d = process.cpuUsage(start);
        used = d.user + d.system;
      }
      rounds[t]!.push(used / calls);
    });
  }
  const us = tasks.map((_, t) => median(rounds[t]!));
  const [engine, used, stringify] = us as [number, number, number];
  const row = (what: string, value: number): MicroRow => ({ what, "us per request": round1(value) });
  // The serializer rows first (the layer table reads row 0), each the difference with the engine alone.
  return [
    row("serializer (used), on fresh pages of the mix", used - engine),
    row("serializer: JSON.stringify + Buffer.from, same pages", stringify - engine),
    row(tasks[0]![0], engine),
    ...tasks.slice(3).map(([name], t) => row(name, us[t + 3]!)),
  ];
}

/**
 * The in-process figures, measured in a fresh process over the snapshot the servers serve, as they
 * have it: in this process the graph was built, not opened, and the serializers have already run
 * over pages computed once, which left them measuring 15 µs a page where a server spends 7
 * (bench:http at fecb9f3 against a scratch loop over the same snapshot and targets).
 */
function microInChild(snapshot: string, targetsFile: string): MicroRow[] {
  const child = spawnSync(
    process.execPath,
    [process.argv[1]!, "--micro", "--snapshot", snapshot, "--targets", targetsFile],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (child.status !== 0) throw new Error(`the in-process figures' child exited with ${child.status}`);
  return JSON.parse(child.stdout) as MicroRow[];
}

async function microCase(snapshot: string, targetsFile: string): Promise<void> {
  const graph = (await openSnapshot(snapshot)).withCursorSecret(SECRET);
  const targets = readFileSync(targetsFile, "utf8")
    .split("\n")
    .filter((t) => t !== "");
  process.stdout.write(`${JSON.stringify(await micro(graph, targets))}\n`);
}

/** In-process figures: rounds per task, and CPU milliseconds per task and round. */
const MICRO_ROUNDS = 5;
const MICRO_CPU_MS = 150;

// ---- main --------------------------------------------------------------------------------------

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const round1 = (x: number) => Math.round(x * 10) / 10;

/** What the A/B phase found: Quiver's own CPU per request over the paced bare server. */
interface Own {
  /** The paced server's spin a request at the end: Quiver's user time less bare's (median of every run). */
  spinUs: number;
  /** Bare's CPU per request at its own rate (median of the calibration runs). */
  bareUs: number;
  /** Each pair: Quiver's CPU, the paced server's, its spin, and Quiver's less (paced less spin), µs a request. */
  pairs: { quiverUs: number; pacedUs: number; spinUs: number; ownUs: number }[];
  /** The median of the pairs' differences. */
  ownUs: number;
  /** Load average (1 min) at the start and the end of the phase. */
  load: [number, number];
}

/**
 * Quiver's own CPU per request, A/B in one run: three servers live at once (bare, quiver, paced),
 * each warmed up once; bare and quiver measured OWN_CALIBRATION_RUNS times each, alternately, for the
 * spin (Quiver's user time less bare's, medians; set again before each pair with the pairs' quiver
 * runs counted); then `pairs` pairs of quiver and paced, the order turning each pair (ABBA), each
 * pair's difference quiver - (paced - spin) taken within the pair, the median of them reported. On a
 * shared machine the CPU a request costs drifts with what the other processes do to the caches (a
 * server's figure swung by half between runs a minute apart at load 7-14): two runs seconds apart see
 * the same drift, and the median of the differences leaves out the pairs a burst hit.
 */
async function ownPhase(snapshot: string, allFile: string, script: string, mixFile: string, o: Options): Promise<Own> {
  const load0 = loadavg()[0] ?? 0;
  const children = {
    bare: await startChild("bare", snapshot, allFile),
    quiver: await startChild("quiver", snapshot, allFile),
    paced: await startChild("paced", snapshot, allFile, 0),
  };
  try {
    const run = async (which: "bare" | "quiver" | "paced", warmup: boolean): Promise<Run> =>
      measure(children[which], which, script, mixFile, { ...o, warmup: warmup ? o.warmup : OWN_REWARM_S });
    const bare: Run[] = [];
    const quiver: Run[] = [];
    for (let k = 0; k < OWN_CALIBRATION_RUNS; k++) {
      const first = k % 2 === 0;
      if (first) bare.push(await run("bare", k === 0));
      quiver.push(await run("quiver", k === 0));
      if (!first) bare.push(await run("bare", false));
    }
    const user = (rs: Run[]) => median(rs.map((r) => r.cpuUs - r.systemUs));
    // The spin: the median of every quiver run so far (the pairs' included) less bare's, set again
    // before each pair, so a burst that hit one calibration run does not pace the whole phase.
    const spin = () => Math.max(0, user(quiver) - user(bare));
    console.log(
      `A/B: bare ${round1(median(bare.map((r) => r.cpuUs)))}, quiver ${round1(median(quiver.map((r) => r.cpuUs)))} us/request; ` +
        `paced spin ${round1(spin())} us (quiver's user time less bare's)`,
    );
    const pairs: Own["pairs"] = [];
    for (let i = 0; i < o.pairs; i++) {
      const spinUs = spin();
      children.paced.setSpin(spinUs);
      // ABBA: which goes first turns each pair, so a drift within a pair favours neither side.
      const pacedFirst = i % 2 === 1;
      const p1 = pacedFirst ? await run("paced", i === 1) : undefined;
      const q = await run("quiver", false);
      const p = p1 ?? (await run("paced", i === 0));
      quiver.push(q);
      const ownUs = q.cpuUs - (p.cpuUs - spinUs);
      pairs.push({ quiverUs: q.cpuUs, pacedUs: p.cpuUs, spinUs, ownUs });
      console.log(
        `A/B pair ${i + 1}/${o.pairs}: quiver ${q.cpuUs.toFixed(1)} (${Math.round(q.rps)} req/s), paced ${p.cpuUs.toFixed(1)} ` +
          `(${Math.round(p.rps)} req/s; spin ${spinUs.toFixed(1)}) us/request: own ${ownUs.toFixed(1)} (load ${(loadavg()[0] ?? 0).toFixed(1)})`,
      );
    }
    return {
      spinUs: spin(),
      bareUs: median(bare.map((r) => r.cpuUs)),
      pairs,
      ownUs: median(pairs.map((p) => p.ownUs)),
      load: [load0, loadavg()[0] ?? 0],
    };
  } finally {
    for (const child of Object.values(children)) await child.stop();
  }
}

/** The A/B phase: bare and quiver runs for the spin, and the warm-up of a run after the first, s. */
const OWN_CALIBRATION_RUNS = 3;
const OWN_REWARM_S = 1;

/** The options a kept data directory was made with: the same ones reuse it. */
const dataKey = (o: Options) =>
  JSON.stringify({
    entities: o.entities,
    statements: o.statements,
    seed: o.seed,
    searches: o.searches,
    filters: o.filters,
  });

export async function run(argv: string[]): Promise<void> {
  const o = options(argv);
  for (const [tool, args] of [
    ["wrk", ["--version"]],
    ["taskset", ["--version"]],
  ] as const) {
    if (spawnSync(tool, [...args]).error !== undefined)
      throw new Error(`bench:http needs ${tool} on PATH (apt-get install -y ${tool === "wrk" ? "wrk" : "util-linux"})`);
  }
  const dir = o.data ?? mkdtempSync(join(tmpdir(), "quiver-http-bench-"));
  mkdirSync(dir, { recursive: true });
  try {
    const snapshot = join(dir, "graph.snap");
    const mixFile = join(dir, "mix.txt");
    const noMatchFile = join(dir, "no-match.txt");
    const allFile = join(dir, "all.txt");
    const keyFile = join(dir, "options.json");
    let graph: Graph;
    let mix: string[];
    let noMatch: string[];
    // Each branch: a kept directory made with the same options is read back; else the graph is built.
    if (existsSync(keyFile) && readFileSync(keyFile, "utf8") === dataKey(o)) {
      graph = (await openSnapshot(snapshot)).withCursorSecret(SECRET);
      const lines = (file: string) =>
        readFileSync(file, "utf8")
          .split("\n")
          .filter((t) => t !== "");
      mix = lines(mixFile);
      noMatch = lines(noMatchFile);
      console.log(`graph and targets: read from ${dir}`);
    } else {
      let t = performance.now();
      const built = buildGeneratedGraph({ entities: o.entities, statements: o.statements, seed: o.seed });
      console.log(
        `graph: ${built.entityCount} entities, ${built.statementCount} statements, built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      await saveSnapshot(built, snapshot);
      graph = built.withCursorSecret(SECRET);
      t = performance.now();
      graph.stats();
      console.log(
        `graph.stats() (the content digest every served graph needs once): ${((performance.now() - t) / 1000).toFixed(2)} s`,
      );
      ({ mix, noMatch } = workloads(graph, o));
      writeFileSync(mixFile, `${mix.join("\n")}\n`);
      writeFileSync(noMatchFile, `${noMatch.join("\n")}\n`);
      writeFileSync(allFile, `${[...mix, ...noMatch].join("\n")}\n`);
      writeFileSync(keyFile, dataKey(o));
    }
    const script = join(dir, "targets.lua");
    writeFileSync(script, WRK_SCRIPT);
    const meanBytes =
      mix.reduce((n, target) => n + Buffer.byteLength(JSON.stringify(pageOf(graph, target))), 0) / mix.length;
    console.log(
      `mix: ${mix.length} distinct targets (mean body ${Math.round(meanBytes)} B); no-match: ${noMatch.length}; ` +
        `wrk -t1 -c${o.connections}, ${o.warmup} s warm-up + ${o.seconds} s, ${o.rounds} rounds, server on core 0, wrk on core 1; ` +
        `load average ${loadavg()
          .map((x) => x.toFixed(1))
          .join(" ")}`,
    );

    const microRows = o.micro && !o.onlyOwn ? microInChild(snapshot, mixFile) : [];
    if (microRows.length > 0) console.table(microRows);

    const runs: Record<string, Run[]> = {};
    const plan: [Case, ("mix" | "no-match")[]][] = o.onlyOwn
      ? []
      : [
          ["bare", ["mix", "no-match"]],
          ["quiver", ["mix", "no-match"]],
          ["quiver+log", ["mix", "no-match"]],
          ["timed", ["mix"]],
        ];
    for (let round = 1; round <= o.rounds && plan.length > 0; round++) {
      // A fresh process per case and round; the order turns each round so drift hits every case alike.
      const order = plan.map((_, i) => plan[(i + round - 1) % plan.length]!);
      for (const [which, loads] of order) {
        const child = await startChild(which, snapshot, allFile);
        try {
          for (const load of loads) {
            const r = await measure(child, which, script, load === "mix" ? mixFile : noMatchFile, o);
            (runs[`${load} ${which}`] ??= []).push(r);
            console.log(
              `round ${round}/${o.rounds} ${load.padEnd(8)} ${which.padEnd(10)} ${Math.round(r.rps)} req/s, ` +
                `server CPU ${r.cpuUs.toFixed(1)} us/request (kernel ${r.systemUs.toFixed(1)}), p50 ${r.p50} ms, p99 ${r.p99} ms`,
            );
          }
        } finally {
          await child.stop();
        }
      }
    }

    // Then Quiver against bare at Quiver's pace, A/B: a slower server pays more a request for the
    // same system calls and the same node:http work (each response finds the idle load generator and
    // wakes it; fewer requests share each turn of the event loop), which is not Quiver's code. The
    // paced server spins what Quiver adds in user space, so it answers at about Quiver's rate; its
    // CPU less the spin is what node:http and the kernel cost at that rate.
    const own = await ownPhase(snapshot, allFile, script, mixFile, o);

    const cpu = (key: string) => median((runs[key] ?? []).map((r) => r.cpuUs));
    const table = Object.keys(runs).map((key) => {
      const [load, which] = key.split(" ") as [string, string];
      const bare = `${load} bare`;
      return {
        workload: load,
        server: which,
        "req/s": Math.round(median(runs[key]!.map((r) => r.rps))),
        "CPU us/req": round1(cpu(key)),
        // The kernel's part: every server makes the same syscalls a request (one read, one
        // writev: strace), yet a slower server's cost more each (bench:http at 2c781a2: 19.1 µs a
        // request for Quiver's mix, 7.6 for bare answering the same bytes, 14.1 for a server over a stub graph).
        "of which kernel": round1(median(runs[key]!.map((r) => r.systemUs))),
        "CPU ratio to bare": Math.round((100 * cpu(key)) / cpu(bare)) / 100,
        "req/s ratio to bare":
          Math.round((100 * median(runs[key]!.map((r) => r.rps))) / median(runs[bare]!.map((r) => r.rps))) / 100,
        "p50 ms": median(runs[key]!.map((r) => r.p50)),
        "p99 ms": median(runs[key]!.map((r) => r.p99)),
      };
    });
    if (table.length > 0) console.table(table);
    // What bare pays at Quiver's rate beyond what it pays at its own (the A/B phase's runs).
    const rateUs = median(own.pairs.map((p) => p.pacedUs - p.spinUs)) - own.bareUs;
    let layers: Record<string, number> = {};
    if (!o.onlyOwn) {
      const serializerUs = microRows[0]?.["us per request"] ?? Number.NaN;
      const engineUs = median((runs["mix timed"] ?? []).map((r) => r.engineUs));
      layers = {
        handler: cpu("mix quiver") - cpu("mix bare") - engineUs - serializerUs,
        engine: engineUs,
        serializer: serializerUs,
        log: cpu("mix quiver+log") - cpu("mix quiver"),
      };
      console.log(`CPU added per layer on the mix (us per request${o.goals ? "; goal in brackets" : ""}):`);
      for (const [layer, us] of Object.entries(layers))
        console.log(
          `  ${layer.padEnd(10)} ${round1(us)}${o.goals ? ` (${GOAL_LAYER_US[layer as keyof typeof GOAL_LAYER_US]})` : ""}`,
        );
      console.log(
        `  of the handler, about ${round1(rateUs)} is what bare itself costs more a request at Quiver's rate (the A/B ` +
          `phase's paced server less its ${round1(own.spinUs)} us spin, less bare)`,
      );
    }
    const spread = own.pairs.map((p) => p.ownUs).sort((a, b) => a - b);
    const ownRow = {
      figure: "Quiver's own CPU per request over the paced bare server (mix)",
      "us per request": round1(own.ownUs),
      goal: `<= ${GOAL_OWN_US}`,
      verdict: own.ownUs <= GOAL_OWN_US ? "pass" : "not met",
      how: `median of ${own.pairs.length} A/B pairs (${round1(spread[0] ?? Number.NaN)} to ${round1(spread[spread.length - 1] ?? Number.NaN)}); load ${own.load.map((x) => x.toFixed(1)).join(" to ")}`,
    };
    console.table([ownRow]);
    if (!o.onlyOwn) {
      const mixRatio = cpu("mix quiver") / cpu("mix bare");
      const floorRatio = cpu("no-match quiver") / cpu("no-match bare");
      // The project's goals and their verdicts only with --goals; the ratios themselves always.
      console.log(
        o.goals
          ? `goals: mix ${mixRatio.toFixed(2)}x bare (<= ${GOAL_MIX_RATIO}): ${mixRatio <= GOAL_MIX_RATIO ? "pass" : "not met"}; ` +
              `no-match ${floorRatio.toFixed(2)}x bare (<= ${GOAL_NO_MATCH_RATIO}): ${floorRatio <= GOAL_NO_MATCH_RATIO ? "pass" : "not met"}`
          : `CPU per request against bare: mix ${mixRatio.toFixed(2)}x, no-match ${floorRatio.toFixed(2)}x`,
      );
    }
    mkdirSync(dirname(o.out), { recursive: true });
    writeFileSync(
      o.out,
      `${JSON.stringify({ options: o, table, layers, pace: { spinUs: own.spinUs, rateUs }, ownUs: own.ownUs, own, ownRow, micro: microRows, runs }, null, 2)}\n`,
    );
    console.log(`results: ${o.out}`);
  } finally {
    if (o.data === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) {
  const argv = process.argv.slice(2);
  const snapshotArg = argv[argv.indexOf("--snapshot") + 1] as string;
  const targetsArg = argv[argv.indexOf("--targets") + 1] as string;
  const job =
    argv[0] === "--serve"
      ? serveCase(argv[1] as Case, snapshotArg, targetsArg, Number(argv[argv.indexOf("--spin-us") + 1]))
      : argv[0] === "--micro"
        ? microCase(snapshotArg, targetsArg)
        : run(argv);
  job.catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

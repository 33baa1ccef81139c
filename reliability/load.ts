/**
 * Load test
 * =========
 * `runLoad({ seconds, connections })` runs `quiver serve` itself (the CLI, as a child process, on
 * 127.0.0.1 port 0, request log on) over YAGO3-10 (123,182 names, 37 relations, 10,000 triples from
 * `../shared/data`, converted once to JSON Lines in the OS temp folder), and drives it with
 * autocannon over `connections` keep-alive connections with a realistic mix of 5,000 distinct
 * requests, cycled in order:
 *
 *   50%  search: a word of a random name (lower-cased) or the first letters of a name, sometimes
 *        with `type=0`, limits from the default to 100;
 *   35%  statements: by subject, object, predicate, or subject and predicate, limits 10 to 200;
 *   15%  next pages: the nextCursor of a first page fetched before the run, passed back unchanged.
 *
 * Two phases: a warm-up (every request of the mix at least once, so the serializer's fragment
 * caches hold the working set), then the measured phase. Resident memory (VmRSS of the child, from
 * /proc) is read at the end of the warm-up, every second of the measured phase, and at its end.
 * It passes when no request failed (no error, no timeout, no non-2xx answer) and the resident set
 * at the end is within 10% of its level after the warm-up (no leak).
 *
 * CLI: `npm run load -- [--seconds 60] [--connections 256] [--warmup 10]` prints the figures
 * (req/s, p50/p99 latency, memory) and exits 1 when a check fails. Bounded: about warm-up +
 * seconds + the time to load YAGO3-10 (5 s here). Loopback only.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainModule } from "../tools/main-module.js";
import { readKgDataset, writeKgDatasetJsonLines, type KgDataset } from "../src/cli/kg-datasets.js";
import { rng, type Rng } from "./fuzz-cases.js";

const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../../shared/data", import.meta.url));
const KEY = "sk_load_test_key";
/** Distinct requests in the mix. */
const MIX_SIZE = 5000;
/** End RSS may exceed the after-warm-up RSS by this fraction at most. */
export const RSS_TOLERANCE = 0.1;

export interface LoadOptions {
  /** Measured phase (default 60). */
  seconds?: number;
  /** Warm-up phase (default 10); it is extended until every request of the mix has been sent once. */
  warmupSeconds?: number;
  connections?: number;
  /** Folder holding yago3-10/ (default ../shared/data beside the repository; QUIVER_DATA_DIR overrides). */
  dataDir?: string;
  log?: (line: string) => void;
}

export interface LoadReport {
  seconds: number;
  connections: number;
  requests: number;
  reqPerSec: number;
  latencyMs: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  warmup: { seconds: number; requests: number; reqPerSec: number };
  /** Resident set of the server, MB: after warm-up, at the end, the highest sample during the run. */
  rssMb: { afterWarmup: number; end: number; peak: number };
  /** end / afterWarmup - 1. */
  rssChange: number;
  /** What failed, in words; empty when the run passed. */
  failures: string[];
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/**
 * YAGO3-10 as JSON Lines in the temp folder, written once and reused. The folder is named after the
 * item counts and written under another name first, then renamed: an interrupted run never leaves a
 * half-written file to be served later.
 */
async function yagoFiles(dataDir: string): Promise<{ data: KgDataset; entities: string; statements: string }> {
  const data = await readKgDataset(join(dataDir, "yago3-10"));
  const dir = join(tmpdir(), `quiver-load-yago3-10-${data.entities.length}-${data.statements.length}`);
  if (!existsSync(dir)) {
    const partial = `${dir}.partial-${process.pid}`;
    await writeKgDatasetJsonLines(data, partial);
    await rename(partial, dir).catch(() => rm(partial, { recursive: true, force: true })); // another run won the race
  }
  return { data, entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
}

interface Server {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** `quiver serve` on the files; resolves once it prints its listening line. */
async function startServer(entities: string, statements: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env, QUIVER_API_KEYS: KEY };
  delete env["QUIVER_CURSOR_SECRET"];
  // stdout (the request log, one JSON line per request) goes to /dev/null, as a log shipper would take it.
  const child = spawn(
    process.execPath,
    [MAIN, "serve", "--entities", entities, "--statements", statements, "--port", "0", "--host", "127.0.0.1"],
    {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`quiver serve exited ${code} before listening:\n${err}`)));
  });
  return {
    child,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners("exit");
        child.on("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Resident set of a process in MB (Linux /proc), NaN where /proc is not available. */
export function rssMb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function getJson(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "x-api-key": KEY } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on("error", reject);
  });
}

const enc = encodeURIComponent;

/** The request mix: MIX_SIZE paths, fixed by the seed. Next pages need the running server for their cursors. */
async function requestMix(data: KgDataset, url: string, r: Rng): Promise<string[]> {
  const names = data.entities.slice(0, data.nameCount);
  const firstPages: string[] = [];
  const searchPath = (): string => {
    const name = r.pick(names).rawIdentifier;
    const words = name.split(/[\s,()]+/).filter((w) => w.length >= 3);
    const q = r.chance(0.7) && words.length > 0 ? r.pick(words).toLowerCase() : name.slice(0, r.range(3, 12));
    let path = `/graph/v1/search?q=${enc(q)}`;
    if (r.chance(0.2)) path += "&type=0";
    const limit = r.pick([undefined, undefined, 5, 10, 50, 100]);
    return limit === undefined ? path : `${path}&limit=${limit}`;
  };
  const statementsPath = (): string => {
    const s = r.pick(data.statements);
    const roll = r.next();
    const filter =
      roll < 0.45
        ? `subjectEntityId=${enc(s.subjectEntityId)}`
        : roll < 0.8
          ? `objectEntityId=${enc(s.objectEntityId)}`
          : roll < 0.9
            ? `predicateEntityId=${enc(s.predicateEntityId)}`
            : `subjectEntityId=${enc(s.subjectEntityId)}&predicateEntityId=${enc(s.predicateEntityId)}`;
    return `/graph/v1/statements?${filter}&limit=${r.pick([10, 20, 50, 100, 200])}`;
  };
  const paths: string[] = [];
  while (paths.length < MIX_SIZE) {
    const roll = r.next();
    if (roll < 0.5) paths.push(searchPath());
    else if (roll < 0.85) paths.push(statementsPath());
    else
      firstPages.push(
        r.chance(0.5)
          ? `/graph/v1/search?q=${enc(r.pick(["an", "the", "united", "de", "john", "la"]))}&limit=${r.pick([5, 10, 20])}`
          : statementsPath(),
      );
    if (paths.length + firstPages.length >= MIX_SIZE) break;
  }
  // Next pages: fetch each first page (8 at a time) and keep its cursor; a first page without one stays as it is.
  const nextPages: string[] = [];
  for (let i = 0; i < firstPages.length; i += 8) {
    const batch = firstPages.slice(i, i + 8);
    const pages = await Promise.all(batch.map((p) => getJson(url + p)));
    pages.forEach((page, j) => {
      const cursor = (page.body as { nextCursor?: string | null }).nextCursor;
      nextPages.push(typeof cursor === "string" ? `${batch[j]}&cursor=${cursor}` : batch[j]!);
    });
  }
  // Interleave, so every stretch of the cycle has the same mix.
  const all = [...paths, ...nextPages];
  for (let i = all.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all;
}

function cannon(
  url: string,
  paths: readonly string[],
  connections: number,
  seconds: number,
): Promise<AutocannonResult> {
  let next = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    headers: { "x-api-key": KEY },
    requests: [
      {
        method: "GET",
        setupRequest: (req: Record<string, unknown>) => {
          req["path"] = paths[next++ % paths.length];
          return req;
        },
      },
    ],
  });
}

export async function runLoad(options: LoadOptions = {}): Promise<LoadReport> {
  const seconds = options.seconds ?? 60;
  const connections = options.connections ?? 256;
  const log = options.log ?? (() => {});
  const dataDir = options.dataDir ?? process.env["QUIVER_DATA_DIR"] ?? DEFAULT_DATA_DIR;
  const { data, entities, statements } = await yagoFiles(dataDir);
  const server = await startServer(entities, statements);
  const pid = server.child.pid!;
  try {
    const paths = await requestMix(data, server.url, rng(20240601));
    log(
      `server pid ${pid} at ${server.url}, rss ${rssMb(pid).toFixed(1)} MB; mix of ${paths.length} requests; ${connections} connections`,
    );
    // Warm-up: at least warmupSeconds, and until the whole mix has been sent once.
    let warmSeconds = 0;
    let warmRequests = 0;
    while (warmSeconds < (options.warmupSeconds ?? 10) || warmRequests < paths.length) {
      const w = await cannon(
        server.url,
        paths,
        connections,
        Math.max(1, Math.min(5, (options.warmupSeconds ?? 10) - warmSeconds)),
      );
      warmSeconds += w.duration;
      warmRequests += w.requests.total;
      if (w.non2xx + w.errors + w.timeouts > 0)
        throw new Error(`warm-up: ${w.non2xx} non-2xx, ${w.errors} errors, ${w.timeouts} timeouts`);
    }
    const afterWarmup = rssMb(pid);
    log(`warm-up: ${warmRequests} requests in ${warmSeconds.toFixed(1)} s; rss ${afterWarmup.toFixed(1)} MB`);
    let peak = afterWarmup;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 1000);
    let result: AutocannonResult;
    try {
      result = await cannon(server.url, paths, connections, seconds);
    } finally {
      clearInterval(sampler);
    }
    const end = rssMb(pid);
    peak = Math.max(peak, end);
    const failures: string[] = [];
    if (result.errors > 0) failures.push(`${result.errors} connection errors`);
    if (result.timeouts > 0) failures.push(`${result.timeouts} timeouts`);
    if (result.non2xx > 0) failures.push(`${result.non2xx} answers other than 2xx`);
    if (server.child.exitCode !== null) failures.push(`the server exited (${server.child.exitCode})`);
    const rssChange = end / afterWarmup - 1;
    if (!(rssChange <= RSS_TOLERANCE))
      failures.push(
        `resident memory grew ${(100 * rssChange).toFixed(1)}% after warm-up (${afterWarmup.toFixed(1)} -> ${end.toFixed(1)} MB)`,
      );
    return {
      seconds: result.duration,
      connections,
      requests: result.requests.total,
      reqPerSec: Math.round(result.requests.average),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      warmup: { seconds: warmSeconds, requests: warmRequests, reqPerSec: Math.round(warmRequests / warmSeconds) },
      rssMb: { afterWarmup: round1(afterWarmup), end: round1(end), peak: round1(peak) },
      rssChange,
      failures,
    };
  } finally {
    await server.stop();
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

export function formatLoadReport(r: LoadReport): string {
  return [
    `load: ${r.connections} keep-alive connections, ${r.seconds.toFixed(0)} s measured after a ${r.warmup.seconds.toFixed(0)} s warm-up (${r.warmup.requests} requests)`,
    `  ${r.requests} requests, ${r.reqPerSec} req/s; latency p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
    `  errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}`,
    `  server RSS: ${r.rssMb.afterWarmup} MB after warm-up, ${r.rssMb.end} MB at the end (${r.rssChange >= 0 ? "+" : ""}${(100 * r.rssChange).toFixed(1)}%), peak ${r.rssMb.peak} MB`,
    r.failures.length === 0 ? "  PASS" : `  FAIL: ${r.failures.join("; ")}`,
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: "string", default: "60" },
      connections: { type: "string", default: "256" },
      warmup: { type: "string", default: "10" },
    },
  });
  const report = await runLoad({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    warmupSeconds: Number(values.warmup),
    log: (line) => console.log(line),
  });
  console.log(formatLoadReport(report));
  return report.failures.length === 0 ? 0 : 1;
}

if (isMainModule(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(2);
    },
  );
}

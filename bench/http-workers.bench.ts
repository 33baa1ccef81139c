/**
 * HTTP throughput by worker count
 * ===============================
 * `npm run bench:http-workers` (or `node dist/bench/http-workers.bench.js`): the same load
 * against `quiver serve --workers 1` and `--workers 2`, to show what the cluster buys on this host.
 * The server runs as a child process over a generated graph (default 100k entities / 300k
 * statements, cached like `npm run bench` caches its files); autocannon, in this process, sends a
 * mix of searches (a word of a real name of the graph) and statement filters (by subject) over
 * CONNECTIONS keep-alive connections for SECONDS, after a WARMUP_SECONDS warm-up.
 *
 * Reported per worker count: req/s, p50 / p99 latency, and the cores each side used (CPU seconds
 * over wall seconds): the load generator's from process.cpuUsage(), the server's (primary and
 * workers) from /proc. On a 2-core machine the load generator takes a core's worth itself, so two
 * workers share what is left with it: the figure that transfers to a bigger host is the server's
 * CPU per request, not the req/s.
 *
 * Loopback only; bounded: two runs of WARMUP_SECONDS + SECONDS, plus the load.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

import { isMainModule } from "../tools/main-module.js";
import { benchOptions } from "./options.js";
import { generatedFiles } from "./data.js";
import { count as thousands } from "./format.js";

const CONNECTIONS = 64;
const SECONDS = 8;
const WARMUP_SECONDS = 2;
const KEY = "sk_http_workers_bench";
const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>;

/** CPU seconds used so far by `pid` and its children (the cluster's workers), from /proc. */
function treeCpuSeconds(pid: number): number {
  const ticks = (p: number): number => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
      return Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      return 0;
    }
  };
  let total = ticks(pid);
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/))
      if (child !== "") total += ticks(Number(child));
  } catch {}
  return total / CLOCK_TICKS;
}

async function startServer(workers: number, data: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [MAIN, "serve", "--port", "0", "--quiet", "--workers", String(workers), ...data],
    {
      env: { ...process.env, QUIVER_API_KEYS: KEY },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  for (;;) {
    const url = /^listening on (http:\/\/\S+)$/m.exec(err)?.[1];
    if (url !== undefined) return { child, url };
    if (child.exitCode !== null) throw new Error(`the server stopped:\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const USAGE = `usage: npm run bench:http-workers -- [options]
  --entities N --statements N   generated graph (default 100000 and 300000)
  --workers LIST                worker counts to run, comma-separated (default 1,2)`;

export async function runHttpWorkersBench(argv: string[]): Promise<void> {
  const values = benchOptions(
    argv,
    {
      entities: { type: "string", default: "100000" },
      statements: { type: "string", default: "300000" },
      workers: { type: "string", default: "1,2" },
    },
    USAGE,
  );
  const { files } = await generatedFiles({
    entities: Number(values.entities),
    statements: Number(values.statements),
    seed: 1,
  });
  const data = ["--entities", files.entities, "--statements", files.statements];
  // The request mix: a word of each of 500 names, and 500 subjects.
  const lines = (await readFile(files.entities, "utf8")).split("\n", 2000).filter((l) => l !== "");
  const paths: string[] = [];
  for (const line of lines.slice(0, 1000)) {
    const e = JSON.parse(line) as { entityId: string; rawIdentifier: string };
    const word = e.rawIdentifier.split(/\s+/).find((w) => w.length > 2) ?? e.rawIdentifier;
    paths.push(`/graph/v1/search?q=${encodeURIComponent(word.toLowerCase())}&limit=20`);
    paths.push(`/graph/v1/statements?subjectEntityId=${encodeURIComponent(e.entityId)}&limit=50`);
  }
  const rows = [];
  for (const workers of values.workers.split(",").map(Number)) {
    const { child, url } = await startServer(workers, data);
    try {
      const requests = paths.map((path) => ({ method: "GET", path }));
      await autocannon({
        url,
        connections: CONNECTIONS,
        duration: WARMUP_SECONDS,
        headers: { "x-api-key": KEY },
        requests,
      });
      const cpuBefore = process.cpuUsage();
      const serverBefore = treeCpuSeconds(child.pid as number);
      const started = performance.now();
      const r = await autocannon({
        url,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { "x-api-key": KEY },
        requests,
      });
      // CPU over the whole call (autocannon also opens and closes its connections around its SECONDS).
      const wall = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const serverCpu = treeCpuSeconds(child.pid as number) - serverBefore;
      rows.push({
        workers,
        "req/s": Math.round(r.requests.average),
        "p50 ms": r.latency.p50,
        "p99 ms": r.latency.p99,
        "errors+non2xx": r.errors + r.timeouts + r.non2xx,
        "load generator cores": ((cpu.user + cpu.system) / 1e6 / wall).toFixed(2),
        "server cores": (serverCpu / wall).toFixed(2),
        "server CPU µs/req": Math.round((serverCpu * 1e6) / Math.max(1, r.requests.total)),
      });
    } finally {
      const closed = new Promise((res) => child.once("close", res));
      child.kill("SIGTERM");
      await closed;
    }
  }
  console.log(
    `\nquiver serve --workers N, ${thousands(Number(values.entities))} entities / ${thousands(Number(values.statements))} statements; ` +
      `autocannon in this process, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up; ` +
      `half searches, half statements by subject`,
  );
  console.table(rows);
}

if (isMainModule(import.meta.url)) {
  runHttpWorkersBench(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

/**
 * Kill under load
 * ===============
 * `quiver serve --workers 2` (the CLI as a child process, on 127.0.0.1 port 0, over the demo graph in
 * fixtures/) while `connections` clients send requests back to back with no timeout of their own,
 * half on keep-alive connections and half on a fresh connection each, and a worker is killed with
 * SIGKILL every `killEveryMs`. The bar: every request is answered or its connection closed (reset,
 * refused) within `boundMs`; a request still waiting after that is a hang. The primary replaces
 * the workers throughout, so answers keep coming.
 *
 * Why it can hang: under node's round-robin scheduling the primary accepts a connection and hands
 * it to a worker over IPC; a worker killed with the hand-off unread leaves the connection open in
 * the primary forever. `quiver serve` makes each worker accept its own (cluster.SCHED_NONE), so
 * the kernel closes a dead worker's connections. `NODE_CLUSTER_SCHED_POLICY=rr npm run
 * test:kill-load` measures node's default instead.
 *
 * The request log is on, and this script reads the server's stdout slowly (a pause after every
 * chunk), so the workers' lines queue behind a slow reader while workers die mid-write: every line
 * must still parse whole (each write is whole lines of at most PIPE_BUF bytes, atomic on a pipe).
 *
 * CLI: `npm run test:kill-load -- [--seconds 30] [--connections 16] [--kill-every-ms 1000]
 * [--bound-ms 5000]` prints one PASS or FAIL line with the counts, and exits 1 on FAIL. Bounded:
 * seconds + about 10 s.
 */

import { execFileSync, spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainModule } from "../tools/main-module.js";

const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const KEY = "sk_kill_load_test";
/** The slow log reader's pause after each chunk of stdout. */
const SLOW_READER_PAUSE_MS = 30;
/** Targets cycled by every client: a search, a statements page, the health check. */
const TARGETS = ["/graph/v1/search?q=united&limit=5", "/graph/v1/statements?limit=20", "/healthz"];

export interface KillLoadOptions {
  seconds?: number;
  connections?: number;
  killEveryMs?: number;
  boundMs?: number;
  log?: (line: string) => void;
}

export interface KillLoadReport {
  pass: boolean;
  requests: number;
  answered: number;
  closed: number;
  hung: number;
  kills: number;
  replaced: number;
  maxWaitMs: number;
  /** Lines of the server's stdout that do not parse as JSON (cut or interleaved). */
  brokenLines: number;
  logLines: number;
  line: string;
}

export async function runKillLoad(options: KillLoadOptions = {}): Promise<KillLoadReport> {
  const seconds = options.seconds ?? 30;
  const connections = options.connections ?? 16;
  const killEveryMs = options.killEveryMs ?? 1000;
  const boundMs = options.boundMs ?? 5000;
  const child = spawn(
    process.execPath,
    [
      MAIN,
      "serve",
      "--workers",
      "2",
      "--port",
      "0",
      "--entities",
      `${FIXTURES}entities.jsonl`,
      "--statements",
      `${FIXTURES}statements.jsonl`,
    ],
    { env: { ...process.env, QUIVER_API_KEYS: KEY }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  // A slow reader: after each chunk, nothing more is read for SLOW_READER_PAUSE_MS.
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), SLOW_READER_PAUSE_MS);
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | string>((resolve) => child.on("close", (c, s) => resolve(c ?? s ?? -1)));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      const check = (): void => {
        const m = /^listening on (http:\/\/\S+)$/m.exec(err);
        if (m) resolve(new URL(m[1] as string));
      };
      child.stderr.on("data", check);
      void exited.then((code) => reject(new Error(`quiver serve exited ${code} before listening:\n${err}`)));
    });

    // Every request in flight, by its start time: a watchdog finds the ones past the bound.
    const inFlight = new Set<{ started: number }>();
    let requests = 0;
    let answered = 0;
    let closed = 0;
    let maxWaitMs = 0;
    const hung = new Set<{ started: number }>();
    let running = true;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: connections });
    const once = (target: string, agent: http.Agent | false): Promise<void> =>
      new Promise((resolve) => {
        const entry = { started: performance.now() };
        inFlight.add(entry);
        requests++;
        const done = (ok: boolean): void => {
          if (!inFlight.delete(entry)) return;
          const waited = performance.now() - entry.started;
          maxWaitMs = Math.max(maxWaitMs, waited);
          if (ok) answered++;
          else closed++;
          resolve();
        };
        // No timeout on the request: only the server's answer or the connection's end finishes it.
        const req = http.get(
          { host: url.hostname, port: url.port, path: target, agent, headers: { "X-API-Key": KEY } },
          (res) => {
            res.resume();
            res.on("end", () => done(true));
            res.on("error", () => done(false));
            res.on("aborted", () => done(false));
          },
        );
        req.on("error", () => done(false));
        req.on("close", () => setImmediate(() => done(false)));
      });
    const clients = Array.from({ length: connections }, async (_, i) => {
      // Half the clients reuse keep-alive connections, half open one per request.
      const agent = i % 2 === 0 ? keepAlive : false;
      for (let n = i; running; n++) {
        await once(TARGETS[n % TARGETS.length] as string, agent);
        // A refused connection (no worker listening for a moment) must not spin the loop.
        if (!running) break;
      }
    });
    const watchdog = setInterval(() => {
      const now = performance.now();
      for (const entry of inFlight) if (now - entry.started > boundMs) hung.add(entry);
    }, 100);
    let kills = 0;
    const killer = setInterval(() => {
      let pids: number[] = [];
      try {
        pids = execFileSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" })
          .split("\n")
          .filter((l) => l !== "")
          .map(Number);
      } catch {
        // pgrep finds none (every worker is being replaced): nothing to kill this second.
      }
      const pid = pids[kills % Math.max(pids.length, 1)];
      if (pid === undefined) return;
      try {
        process.kill(pid, "SIGKILL");
        kills++;
      } catch {
        // Gone already.
      }
    }, killEveryMs);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    clearInterval(killer);
    running = false;
    // What is still in flight gets the bound to finish.
    const end = performance.now() + boundMs + 200;
    while (inFlight.size > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 50));
    for (const entry of inFlight) hung.add(entry);
    clearInterval(watchdog);
    keepAlive.destroy();
    await Promise.race([Promise.all(clients), new Promise((r) => setTimeout(r, 1000))]);
    const replaced = out.split("\n").filter((l) => l.includes('"event":"worker-replaced"')).length;
    // Every complete line of stdout so far (the last one may still be on its way).
    const lines = out.slice(0, out.lastIndexOf("\n")).split("\n");
    let brokenLines = 0;
    // Requests logged per worker pid: how evenly the scheduling spreads the load.
    const perWorker = new Map<number, number>();
    for (const l of lines) {
      try {
        const entry = JSON.parse(l) as { pid?: number; id?: string };
        if (entry.id !== undefined && entry.pid !== undefined)
          perWorker.set(entry.pid, (perWorker.get(entry.pid) ?? 0) + 1);
      } catch {
        brokenLines++;
      }
    }
    const logged = [...perWorker.values()].reduce((a, b) => a + b, 0);
    const busiest = Math.max(0, ...perWorker.values());
    const pass =
      hung.size === 0 && brokenLines === 0 && answered > 0 && kills >= Math.floor((seconds * 1000) / killEveryMs) / 2;
    const line =
      `kill-under-load: ${pass ? "PASS" : "FAIL"}: ${requests} requests in ${seconds} s at ${connections} clients, ` +
      `${kills} workers killed (${replaced} replaced): ${answered} answered, ${closed} closed, ` +
      `${hung.size} waiting past ${boundMs} ms; longest wait ${Math.round(maxWaitMs)} ms; ` +
      `log read slowly: ${lines.length} lines, ${brokenLines} broken; ` +
      `busiest worker ${logged === 0 ? 0 : Math.round((100 * busiest) / logged)}% of ${perWorker.size} workers' requests` +
      ` (scheduling: ${process.env["NODE_CLUSTER_SCHED_POLICY"] ?? "quiver's (none)"})`;
    options.log?.(line);
    return {
      pass,
      requests,
      answered,
      closed,
      hung: hung.size,
      kills,
      replaced,
      maxWaitMs,
      brokenLines,
      logLines: lines.length,
      line,
    };
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 10_000))]);
    if (code === "timeout") child.kill("SIGKILL");
  }
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string" },
      connections: { type: "string" },
      "kill-every-ms": { type: "string" },
      "bound-ms": { type: "string" },
    },
  });
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const report = await runKillLoad({
    seconds: num(values.seconds),
    connections: num(values.connections),
    killEveryMs: num(values["kill-every-ms"]),
    boundMs: num(values["bound-ms"]),
    log: (l) => process.stdout.write(`${l}\n`),
  });
  process.exit(report.pass ? 0 : 1);
}

/**
 * Changes over HTTP (part of `npm run bench:changes`)
 * ===================================================
 * The write path as a client sees it: a `quiver serve --snapshot BASE --changes DIR` child process
 * (the package's own CLI, built in dist/) on 127.0.0.1, and one client in this process on one
 * keep-alive connection, each POST timed from the request's start to the 200's last byte (the batch
 * durable in the log, fsync'd file and directory, and visible):
 *  - a batch of 1 statement put (the flush included: the goal's p50 <= 5 ms);
 *  - BIG_POSTS batches of BIG_BATCH statement puts sent back to back: p50 / p99 (goal 50 / 150 ms)
 *    and the sustained statements a second of that one client (goal >= 100,000/s);
 *  - a `quiver serve --follow DIR` replica on the same base: after each batch of 1's 200, how long
 *    until the replica answers with that sequence (polled every CONVERGE_POLL_MS; goal 1 s).
 * The requests' bodies are made before the clock starts. Both children are stopped with SIGTERM.
 * Beside each write row's wall-clock times, the writer's CPU time a batch (its user + system time
 * over the series, from /proc/PID/stat: Linux; NaN elsewhere): on a shared machine the wall clock
 * is mostly the scheduler's. The replica starts after the write rows (it catches up from the log
 * first): replicas run on other hosts, and one here would take a core from the writer it is timed against.
 */

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";

import { progress } from "./format.js";
import type { ChangesRow } from "./results.js";
import { summarize } from "./sample.js";

/** Statement puts per big batch (the batch of 10,000). */
export const BIG_BATCH = 10_000;
const SMALL_POSTS = 200;
/**
 * Big batches sent: a p99 of n samples is the ceil(0.99 n)-th smallest (sample.ts), so 100 make it
 * the second largest, not the largest (20 made it the max: one GC pause was the p99). The delta
 * grows to BIG_POSTS * BIG_BATCH statements (the server runs with --compact-after 0).
 */
const BIG_POSTS = 100;
const CONVERGE_SAMPLES = 30;
const CONVERGE_POLL_MS = 2;
const WRITE_KEY = "sk_bench_write_0123456789";
const READ_KEY = "sk_bench_read_0123456789";
const MAIN = new URL("../src/cli/main.js", import.meta.url).pathname;

export interface Server {
  child: ChildProcess;
  port: number;
}

/**
 * Starts `quiver serve ...args` and resolves once it prints its URL; `onEvent` gets each line of
 * its event log (stdout: --quiet leaves the events only).
 */
export function serve(args: string[], onEvent?: (line: string) => void): Promise<Server> {
  const child = spawn(process.execPath, [MAIN, "serve", ...args, "--port", "0", "--quiet", "--no-ui"], {
    env: {
      ...process.env,
      QUIVER_WRITE_KEYS: WRITE_KEY,
      QUIVER_API_KEYS: READ_KEY,
      QUIVER_CURSOR_SECRET: "bench-changes-secret-0123456789abcdef",
    },
    stdio: ["ignore", onEvent === undefined ? "ignore" : "pipe", "pipe"],
  });
  if (onEvent !== undefined) {
    let pending = "";
    child.stdout!.on("data", (d: Buffer) => {
      const lines = (pending + d.toString()).split("\n");
      pending = lines.pop()!;
      for (const line of lines) onEvent(line);
    });
  }
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /^listening on http:\/\/[^:]+:(\d+)/m.exec(stderr);
      if (m !== null) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`quiver serve exited ${code} before listening:\n${stderr}`)));
  });
}

/** Clock ticks a second of /proc's CPU times (getconf CLK_TCK; 100 on Linux when it cannot be asked). */
function clockTicks(): number {
  try {
    const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** A child's CPU time so far (user + system), ms; NaN without /proc. */
function cpuMsOf(child: ChildProcess, ticks: number): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  } catch {
    return Number.NaN;
  }
}

export async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once("exit", resolve));
  s.child.kill("SIGTERM");
  await exited;
}

export interface Answer {
  status: number;
  body: string;
  sequence: number;
}

/**
 * One request and its whole answer. A request on a kept-alive socket that the server closed as idle
 * just as it was sent (ECONNRESET or EPIPE on a reused socket: the server never read it) is sent
 * once more on a new socket, as Node's http documentation advises; any other error rejects.
 */
export function send(agent: Agent, port: number, method: string, path: string, body?: string): Promise<Answer> {
  return sendOnce(agent, port, method, path, body, true);
}

function sendOnce(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  body: string | undefined,
  retry: boolean,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: {
          "X-API-Key": method === "POST" ? WRITE_KEY : READ_KEY,
          ...(body === undefined ? {} : { "Content-Type": "application/x-ndjson" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            sequence: Number(res.headers["x-quiver-sequence"] ?? -1),
          }),
        );
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      // Each branch: the idle-close race on a reused socket (sent again), or a real error.
      if (retry && req.reusedSocket && (err.code === "ECONNRESET" || err.code === "EPIPE"))
        sendOnce(agent, port, method, path, body, false).then(resolve, reject);
      else reject(err);
    });
    req.end(body);
  });
}

/** A row of bench:changes from its samples in ms (the engine's rows, bench/changes.bench.ts, too). */
export function changesRow(name: string, samplesMs: number[], detail = "", goal?: string, cpuMs?: number): ChangesRow {
  const s = summarize(samplesMs);
  return {
    case: name,
    samples: s.samples,
    p50ms: s.p50us / 1000,
    p99ms: s.p99us / 1000,
    maxMs: s.maxUs / 1000,
    detail,
    goal,
    cpuMs,
  };
}

/**
 * The HTTP rows over the base snapshot at `snapshot` with a fresh change log at `dir`; `statement()`
 * makes one statement put line (JSON) over the base's entities.
 */
export async function runChangesHttp(snapshot: string, dir: string, statement: () => string): Promise<ChangesRow[]> {
  const writer = await serve(["--snapshot", snapshot, "--changes", dir, "--compact-after", "0"]);
  let replica: Server | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const replicaAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const rows: ChangesRow[] = [];
  const ticks = clockTicks();
  const writerCpu = () => cpuMsOf(writer.child, ticks);
  try {
    const post = async (body: string): Promise<{ ms: number; answer: Answer }> => {
      const t = performance.now();
      const answer = await send(agent, writer.port, "POST", "/graph/v1/changes", body);
      const ms = performance.now() - t;
      if (answer.status !== 200) throw new Error(`POST /graph/v1/changes: ${answer.status} ${answer.body}`);
      return { ms, answer };
    };
    // Warm-up: the first write builds the base's fingerprint map; the connection opens.
    for (let i = 0; i < 5; i++) await post(statement());

    const small: number[] = [];
    let cpu = writerCpu();
    for (let i = 0; i < SMALL_POSTS; i++) small.push((await post(statement())).ms);
    rows.push(
      changesRow("HTTP 1 put", small, "POST to 200, flush included", "p50 <= 5 ms", (writerCpu() - cpu) / SMALL_POSTS),
    );

    const bodies = Array.from({ length: BIG_POSTS }, () => Array.from({ length: BIG_BATCH }, statement).join("\n"));
    const big: number[] = [];
    let put = 0;
    const started = performance.now();
    cpu = writerCpu();
    for (const body of bodies) {
      const { ms, answer } = await post(body);
      big.push(ms);
      put += (JSON.parse(answer.body) as { statements: { put: number } }).statements.put;
    }
    const perSecond = Math.round(put / ((performance.now() - started) / 1000));
    rows.push(
      changesRow(
        `HTTP ${BIG_BATCH.toLocaleString("en-US")} puts`,
        big,
        `${perSecond.toLocaleString("en-US")} statements/s sustained`,
        "p50 <= 50 ms, p99 <= 150 ms; >= 100,000 statements/s",
        (writerCpu() - cpu) / BIG_POSTS,
      ),
    );
    progress(`HTTP: ${BIG_POSTS} batches of ${BIG_BATCH} at ${perSecond} statements/s`);

    replica = await serve(["--snapshot", snapshot, "--follow", dir]);
    const converge: number[] = [];
    for (let i = 0; i < CONVERGE_SAMPLES; i++) {
      const { answer } = await post(statement());
      const sequence = (JSON.parse(answer.body) as { sequence: number }).sequence;
      const t = performance.now();
      for (;;) {
        const read = await send(replicaAgent, replica.port, "GET", "/graph/v1/statements?limit=1");
        if (read.sequence >= sequence) break;
        await new Promise((resolve) => setTimeout(resolve, CONVERGE_POLL_MS));
      }
      converge.push(performance.now() - t);
    }
    rows.push(
      changesRow(
        "HTTP: replica holds it",
        converge,
        `a --follow replica, from the 200 (it polls every 100 ms)`,
        "within 1 s",
      ),
    );
  } finally {
    agent.destroy();
    replicaAgent.destroy();
    if (replica !== undefined) await stopServer(replica);
    await stopServer(writer);
  }
  return rows;
}

/**
 * Reload benchmark
 * ================
 * What a client sees while `quiver serve` reloads its graph (SIGHUP). The server runs as a child
 * process on a generated graph (JSON Lines, default 1M entities / 2M statements, or its snapshot
 * with --snapshot); two open-loop clients send GET /healthz and a search every INTERVAL_MS each
 * (open loop: a request is sent on time whether or not the previous one has answered, so a stalled
 * server shows as many slow requests, not one), first for WARMUP_MS before the reload, then through
 * the whole reload until the server reports it done. Reported per path: requests, p50 / p99 / max
 * latency, before and during the reload, and errors. A server that has --metrics is also asked for
 * its own event-loop delay over the reload (prom-client's nodejs_eventloop_lag_p99_seconds and
 * _max_seconds, scraped right before the SIGHUP, which resets them, and right after the reload):
 * what the server itself stalled, apart from the load generator's own delays on a busy machine.
 *
 * Goal (printed with --goals): during the reload, p99 under 50 ms and no request over 250 ms.
 *
 * Usage, from the repository root:
 *   npm run bench:reload -- [--entities N] [--statements N] [--seed N] [--snapshot] [--main PATH]
 * `--main` runs another build's dist/src/cli/main.js (the "before" figure: a build of an older
 * commit). The JSON Lines are cached like `npm run bench` caches them; --snapshot builds a snapshot
 * of them first (in a temporary directory) and serves that.
 *
 * Cost: one load at start, one reload, about 40 s + 30 s at 1M / 2M on the 2-core machine.
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { isMainModule } from "../tools/main-module.js";
import { benchOptions } from "./options.js";
import { generatedFiles } from "./data.js";
import { count as thousands, secondsOf } from "./format.js";

const seconds = (ms: number): string => `${secondsOf(ms)} s`;

export const P99_GOAL_MS = 50;
export const MAX_GOAL_MS = 250;
const INTERVAL_MS = 10;
const WARMUP_MS = 3000;
const KEY = "sk_reload_bench";
const THIS_MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));

interface Sample {
  path: string;
  sentAt: number;
  ms: number;
  ok: boolean;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function row(label: string, samples: Sample[]) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    requests: samples.length,
    label,
    p50: quantile(ms, 0.5).toFixed(1),
    p99: quantile(ms, 0.99).toFixed(1),
    max: (ms[ms.length - 1] ?? Number.NaN).toFixed(1),
    errors: samples.filter((s) => !s.ok).length,
  };
}

const USAGE = `usage: npm run bench:reload -- [options]
  --entities N --statements N   generated graph (default 1000000 and 2000000)
  --seed N                      generator seed (default 1)
  --snapshot                    serve a snapshot of it instead of the JSON Lines
  --main PATH                   another build's dist/src/cli/main.js (a "before" figure)
  --goals                       also judge the run against the project's goal (p99 < ${P99_GOAL_MS} ms, max < ${MAX_GOAL_MS} ms)`;

export async function runReloadBench(argv: string[]): Promise<void> {
  const values = benchOptions(
    argv,
    {
      entities: { type: "string", default: "1000000" },
      statements: { type: "string", default: "2000000" },
      seed: { type: "string", default: "1" },
      snapshot: { type: "boolean", default: false },
      main: { type: "string", default: THIS_MAIN },
      goals: { type: "boolean", default: false },
    },
    USAGE,
  );
  const { files } = await generatedFiles({
    entities: Number(values.entities),
    statements: Number(values.statements),
    seed: Number(values.seed),
  });
  let data = ["--entities", files.entities, "--statements", files.statements];
  let tempDir: string | undefined;
  if (values.snapshot) {
    tempDir = await mkdtemp(join(tmpdir(), "quiver-reload-bench-"));
    const snap = join(tempDir, "graph.snap");
    console.log("building the snapshot ...");
    const build = spawn(process.execPath, ["--max-old-space-size=8192", values.main, "build", ...data, "--out", snap], {
      stdio: "inherit",
    });
    await new Promise((r) => build.on("close", r));
    data = ["--snapshot", snap];
  }
  // Builds before --metrics existed refuse the flag: ask the server's own help.
  const help = spawnSync(process.execPath, [values.main, "serve", "--help"], { encoding: "utf8" }).stdout;
  const metrics = help.includes("--metrics");
  if (metrics) data.push("--metrics");
  console.log(`server: ${values.main} serve ${data.join(" ")}`);
  const server = spawn(
    process.execPath,
    ["--max-old-space-size=8192", values.main, "serve", "--port", "0", "--quiet", ...data],
    {
      env: { ...process.env, QUIVER_API_KEYS: KEY },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  server.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((r) => server.on("close", () => r()));
  try {
    const started = performance.now();
    let url: string | undefined;
    while (url === undefined) {
      url = /^listening on (http:\/\/\S+)$/m.exec(stderr)?.[1];
      if (server.exitCode !== null) throw new Error(`the server stopped:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const loadMs = performance.now() - started;
    console.log(`server up in ${seconds(loadMs)} at ${url}`);

    const samples: Sample[] = [];
    let sending = true;
    const inFlight = new Set<Promise<void>>();
    const send = (path: string): void => {
      const sentAt = performance.now();
      const p = fetch(`${url}${path}`, { headers: { "X-API-Key": KEY } })
        .then(async (r) => {
          await r.arrayBuffer();
          samples.push({ path, sentAt, ms: performance.now() - sentAt, ok: r.status === 200 });
        })
        .catch(() => {
          samples.push({ path, sentAt, ms: performance.now() - sentAt, ok: false });
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    const paths = ["/healthz", "/graph/v1/search?q=an&limit=20"];
    const timer = setInterval(() => {
      if (sending) for (const p of paths) send(p);
    }, INTERVAL_MS);
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const lag = async (): Promise<string> => {
      if (!metrics) return "";
      const text = await (await fetch(`${url}/metrics`)).text();
      const get = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]) * 1000;
      return `server's own event-loop delay during the reload: p99 ${get("nodejs_eventloop_lag_p99_seconds").toFixed(1)} ms, max ${get("nodejs_eventloop_lag_max_seconds").toFixed(1)} ms`;
    };
    await lag(); // resets the server's event-loop delay histogram
    const hupAt = performance.now();
    const before = stderr.length;
    server.kill("SIGHUP");
    // Both this build and older ones print "reloaded;" (or "reload failed") on stderr when done.
    while (!/reloaded;|reload failed/.test(stderr.slice(before))) {
      if (server.exitCode !== null) throw new Error(`the server stopped:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const doneAt = performance.now();
    const serverLag = await lag();
    sending = false;
    clearInterval(timer);
    await Promise.all([...inFlight]);
    if (/reload failed/.test(stderr.slice(before))) throw new Error(`the reload failed:\n${stderr.slice(before)}`);

    const warm = samples.filter((s) => s.sentAt < hupAt);
    const during = samples.filter((s) => s.sentAt >= hupAt && s.sentAt <= doneAt);
    const rows = [];
    for (const p of paths) {
      const name = p.startsWith("/healthz") ? "/healthz" : "search";
      rows.push(
        row(
          `${name}, before the reload`,
          warm.filter((s) => s.path === p),
        ),
      );
      rows.push(
        row(
          `${name}, during the reload`,
          during.filter((s) => s.path === p),
        ),
      );
    }
    rows.push(row("all, during the reload", during));
    console.log(
      `\nreload of ${thousands(Number(values.entities))} entities / ${thousands(Number(values.statements))} statements ` +
        `from ${values.snapshot ? "a snapshot" : "JSON Lines"}: ${seconds(doneAt - hupAt)}; ` +
        `one request per path every ${INTERVAL_MS} ms (open loop); latency in ms`,
    );
    console.table(rows);
    if (serverLag !== "") console.log(serverLag);
    const all = row("all", during);
    // The project's goal and its verdict only with --goals: by default the figures speak alone.
    if (values.goals) {
      const pass = Number(all.p99) < P99_GOAL_MS && Number(all.max) < MAX_GOAL_MS && all.errors === 0;
      console.log(
        `goal: p99 < ${P99_GOAL_MS} ms and max < ${MAX_GOAL_MS} ms during the reload: p99 ${all.p99} ms, max ${all.max} ms, ` +
          `errors ${all.errors}: ${pass ? "pass" : "FAIL"}`,
      );
    }
  } finally {
    if (server.exitCode === null) server.kill("SIGTERM");
    await exited;
    if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) {
  runReloadBench(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

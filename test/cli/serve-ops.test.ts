/**
 * Running `quiver serve` in production: PORT and HOST, --version, the JSON event lines, inputs
 * checked before loading (missing file, directory, port in use), /metrics off by default and on
 * with --metrics or QUIVER_METRICS=1, the pid at ready, and signals sent through `npm start`.
 */

import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, runQuiver, stop, tempFiles, events, eventOf } from "../support/cli.js";

const KEY = "sk_ops_test";
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, what: string, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test("--version prints the package version", async () => {
  const child = runQuiver(["serve", "--version"]);
  assert.is(await child.exited, 0);
  assert.match(child.stdout(), /^\d+\.\d+\.\d+\S*\n$/);
});

test("--workers, --cache-mb and QUIVER_METRICS refuse bad values with a usage error naming them", async () => {
  const cases = [
    [["--workers", "0"], {}, /--workers must be auto or a whole number/],
    [["--workers", "many"], {}, /--workers must be auto/],
    [["--cache-mb", "lots"], {}, /--cache-mb must be a whole number/],
    [["--cache-mb", "1.5"], {}, /--cache-mb must be a whole number/],
    [[], { QUIVER_METRICS: "yes" }, /QUIVER_METRICS must be 1 or 0/],
  ] as const;
  // Started together (each is refused at its arguments, mostly process startup), checked in turn.
  const refused = cases.map(([args, env]) => runQuiver(["serve", "--port", "0", ...args], env));
  for (const [k, [args, , pattern]] of cases.entries()) {
    const child = refused[k]!;
    assert.is(await child.exited, 2, args.join(" "));
    assert.match(child.stderr(), pattern);
  }
  // A budget of 0 MB is valid (no cache): the server serves.
  const child = runQuiver(["serve", "--port", "0", "--quiet", "--cache-mb", "0"], { QUIVER_API_KEYS: KEY });
  try {
    const url = await listening(child);
    const r = await fetch(`${url}/graph/v1/search?q=a&limit=2`, { headers: { "X-API-Key": KEY } });
    assert.is(r.status, 200);
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("PORT and HOST are honoured, below the flags; the ready event carries counts, timings, url and pid", async () => {
  const free = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
  const child = runQuiver(["serve", "--quiet"], { QUIVER_API_KEYS: KEY, PORT: String(free), HOST: "127.0.0.1" });
  try {
    assert.is(await listening(child), `http://127.0.0.1:${free}`);
    // The listening line (stderr) and the ready event (stdout) are two pipes: either may come first.
    const ready = await eventOf(child, "ready");
    assert.ok(ready, child.stdout());
    assert.is(ready.level, "info");
    assert.is(ready.pid, child.process.pid);
    assert.match(ready.time, /^\d{4}-\d\d-\d\dT/);
    assert.is(ready.entities, 573);
    assert.is(ready.statements, 566);
    assert.type(ready.loadMs, "number");
    assert.is(ready.url, `http://127.0.0.1:${free}`);
    assert.match(child.stderr(), new RegExp(`^pid ${child.process.pid}: kill -HUP ${child.process.pid}`, "m"));
    assert.not.ok(child.stdout().includes(KEY), "never a key in the log");
  } finally {
    assert.is(await stop(child), 0);
  }
  // The flag wins over the variable.
  const flagged = runQuiver(["serve", "--quiet", "--port", "0"], { QUIVER_API_KEYS: KEY, PORT: "1" });
  try {
    assert.ok((await listening(flagged)) !== "http://127.0.0.1:1");
  } finally {
    assert.is(await stop(flagged), 0);
  }
  const bad = runQuiver(["serve"], { PORT: "eighty" });
  assert.is(await bad.exited, 2);
  assert.match(bad.stderr(), /PORT must be a number/);
});

test("inputs are checked before loading: a missing file, a directory, a port in use, each named at once", async () => {
  const files = await tempFiles({ "e.jsonl": '{"entityId":"a","rawIdentifier":"A","type":"0","sourceType":"t"}\n' });
  const dir = `${files["e.jsonl"]}.d`;
  await mkdir(dir);
  // A big entities file would take seconds to load: the missing statements file must be named first.
  const cases = [
    [
      ["--entities", files["e.jsonl"]!, "--statements", "/nonexistent/s.jsonl"],
      /statements file \/nonexistent\/s\.jsonl does not exist/,
    ],
    [["--entities", files["e.jsonl"]!, "--statements", dir], /is not a file/],
    [["--snapshot", "/nonexistent/g.snap"], /snapshot \/nonexistent\/g\.snap does not exist/],
  ] as const;
  // Started together (each is refused before loading), checked in turn.
  const refused = cases.map(([args]) => runQuiver(["serve", "--port", "0", ...args]));
  for (const [k, [args, pattern]] of cases.entries()) {
    const child = refused[k]!;
    assert.is(await child.exited, 1, args.join(" "));
    assert.match(child.stderr(), pattern);
    assert.not.match(child.stderr(), /reading entities/, "reported before any loading");
    const failed = events(child).find((e) => e.event === "startup-failed");
    assert.is(failed?.level, "error");
  }
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
  const port = (holder.address() as net.AddressInfo).port;
  try {
    const child = runQuiver(["serve", "--port", String(port)]);
    assert.is(await child.exited, 1);
    assert.match(child.stderr(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: it is in use`));
    assert.not.match(child.stderr(), /reading entities/);
  } finally {
    holder.close();
  }
});

test("/metrics: 404 by default; with --metrics or QUIVER_METRICS=1, Prometheus text with no key and no data", async () => {
  const off = runQuiver(["serve", "--port", "0", "--quiet"], { QUIVER_API_KEYS: KEY });
  try {
    const url = await listening(off);
    assert.is((await fetch(`${url}/metrics`)).status, 404);
  } finally {
    assert.is(await stop(off), 0);
  }
  for (const [args, env] of [
    [["--metrics"], {}],
    [[], { QUIVER_METRICS: "1" }],
  ] as const) {
    const on = runQuiver(["serve", "--port", "0", "--quiet", ...args], { QUIVER_API_KEYS: KEY, ...env });
    try {
      const url = await listening(on);
      await fetch(`${url}/graph/v1/search?q=trittin`, { headers: { "X-API-Key": KEY } });
      await fetch(`${url}/graph/v1/search?q=trittin`);
      await fetch(`${url}/nowhere/Q42`);
      const r = await fetch(`${url}/metrics`);
      assert.is(r.status, 200);
      assert.match(r.headers.get("content-type") ?? "", /^text\/plain/);
      const text = await r.text();
      assert.match(text, /quiver_http_requests_total\{route="\/graph\/v1\/search",status="200"\} 1/);
      assert.match(text, /quiver_http_requests_total\{route="\/graph\/v1\/search",status="401"\} 1/);
      assert.match(text, /quiver_http_requests_total\{route="other",status="404"\} 1/);
      assert.match(text, /quiver_http_request_duration_seconds_bucket\{le="0.05",route="\/graph\/v1\/search"\}/);
      assert.match(text, /quiver_graph_entities 573/);
      assert.match(text, /quiver_graph_statements 566/);
      assert.match(text, /quiver_graph_loaded_timestamp_seconds \d/);
      assert.match(text, /quiver_reloads_total\{result="failure"\} 0/);
      assert.match(text, /process_resident_memory_bytes \d/);
      // Never data: no identifier, no path the client made up, no key.
      for (const word of ["Trittin", "trittin", "nowhere", "Q42", KEY]) assert.not.ok(text.includes(word), word);
    } finally {
      assert.is(await stop(on), 0);
    }
  }
});

test("npm start: SIGTERM sent to npm reaches the server (drained, exit 0); SIGHUP kills npm and the server stops too", async () => {
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    const npm = spawn("npm", ["start", "--silent", "--", "--port", "0", "--quiet"], {
      cwd: REPO,
      env: { ...process.env, QUIVER_API_KEYS: KEY },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    npm.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    npm.stdout.resume();
    const exited = new Promise<void>((r) => npm.on("close", () => r()));
    try {
      await until(() => /^listening on /m.test(err), "the server started by npm", 30000);
      const pid = Number(/^pid (\d+):/m.exec(err)?.[1]);
      assert.ok(pid > 0 && pid !== npm.pid, "the server prints its own pid");
      npm.kill(signal);
      await until(() => !alive(pid), `the server to stop after ${signal} to npm`, 15000);
      if (signal === "SIGTERM") assert.match(err, /SIGTERM: stopping; finishing requests in flight/);
      else assert.match(err, /npm, which started this server, is gone: stopping/);
      await exited;
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL");
    }
  }
});

test.run();

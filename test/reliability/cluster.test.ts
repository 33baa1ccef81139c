/**
 * `quiver serve --workers 2` under failure and reload: the graph is built once and opened by every
 * worker; one cursor secret and one key for all; a killed worker is replaced while the others
 * serve; a SIGHUP roll keeps capacity above zero (every request during it answers); metrics are the
 * whole cluster's; SIGTERM drains every worker and exits 0.
 */

import { spawn } from "node:child_process";
import http from "node:http";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, MAIN, runQuiver, stop, tempFiles, type Child, events } from "../support/cli.js";

const KEY = "sk_cluster_test";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, child: Child, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${child.stdout()}\n${child.stderr()}`);
    await sleep(50);
  }
}

/** One request on a connection of its own (so the cluster hands it to any live worker). */
function getFresh(url: string, timeoutMs = 10000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { "X-API-Key": KEY, connection: "close" } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error("timed out")));
  });
}

/** Sends fresh-connection requests back to back until stopped; counts answers and failures. */
function poll(url: string): { stop(): Promise<{ ok: number; failed: string[] }> } {
  let running = true;
  let ok = 0;
  const failed: string[] = [];
  const loop = (async () => {
    while (running) {
      try {
        const r = await getFresh(url);
        if (r.status === 200) ok++;
        else failed.push(`status ${r.status}`);
      } catch (e) {
        failed.push((e as Error).message);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { ok, failed };
    },
  };
}

const entity = (id: string, name: string) =>
  JSON.stringify({ entityId: id, rawIdentifier: name, type: "0", sourceType: "t" });

test("--workers 2: one build, shared secret, a killed worker replaced, a rolling reload that never drops capacity, SIGTERM exit 0", async () => {
  const names = Array.from({ length: 40 }, (_, i) => `Node ${String(i).padStart(2, "0")}`);
  const files = await tempFiles({
    "e.jsonl": names.map((n, i) => entity(`n${i}`, n)).join("\n") + "\n" + entity("p", "link") + "\n",
    "s.jsonl": '{"subjectEntityId":"n1","predicateEntityId":"p","objectEntityId":"n2"}\n',
  });
  const child = runQuiver(
    [
      "serve",
      "--port",
      "0",
      "--quiet",
      "--workers",
      "2",
      "--metrics",
      "--entities",
      files["e.jsonl"]!,
      "--statements",
      files["s.jsonl"]!,
    ],
    { QUIVER_API_KEYS: KEY },
  );
  try {
    const url = await listening(child, 60000);
    const started = events(child);
    assert.is(started.filter((e) => e.event === "graph-built").length, 1, "JSON Lines built once");
    assert.is(started.filter((e) => e.event === "worker-ready").length, 2);
    const ready = started.find((e) => e.event === "ready");
    assert.is(ready.workers, 2);
    assert.is(ready.entities, 41);
    const workerPids = String(ready.workerPids).split(" ").map(Number);

    // Every page on a fresh connection (the cluster spreads them): one generated secret serves all.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await getFresh(`${url}/graph/v1/search?q=node&limit=3${cursor === null ? "" : `&cursor=${cursor}`}`);
      assert.is(r.status, 200, r.body);
      const page = JSON.parse(r.body);
      seen.push(...page.items.map((e: any) => e.rawIdentifier));
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.equal(seen, names);

    // Metrics are the cluster's: the 14 search pages above, whichever worker answered each.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /quiver_http_requests_total\{route="\/graph\/v1\/search",status="200"\} 14/);
    assert.match(metrics, /quiver_graph_entities 41/);

    // A worker that cannot answer (stopped) is left out of a scrape after WORKER_REGISTRY_TIMEOUT_MS
    // instead of failing it. Regression: prom-client's clusterMetrics() waited 5 s for every
    // connected worker, then failed the scrape (seen as a flake when an old worker exited mid-roll).
    process.kill(workerPids[1]!, "SIGSTOP");
    try {
      // Fresh connections until one lands on the running worker (the cluster alternates them).
      let scraped: { status: number; body: string } | undefined;
      for (let i = 0; i < 4 && scraped === undefined; i++) {
        scraped = await getFresh(`${url}/metrics`, 4000).catch(() => undefined);
      }
      assert.ok(scraped !== undefined, "no scrape answered within 4 s");
      assert.is(scraped.status, 200, scraped.body);
      assert.match(scraped.body, /quiver_reloads_total\{result="success"\} 0/);
    } finally {
      process.kill(workerPids[1]!, "SIGCONT");
    }

    // Kill one worker: the other keeps serving, and a new one takes its place.
    process.kill(workerPids[0]!, "SIGKILL");
    await until(() => events(child).some((e) => e.event === "worker-died"), "the death to be noticed", child);
    for (let i = 0; i < 10; i++) assert.is((await getFresh(`${url}/healthz`)).status, 200);
    await until(() => events(child).some((e) => e.event === "worker-replaced"), "the replacement", child);

    // Roll onto a new graph while requests keep coming: none fails, capacity never reaches zero.
    await writeFile(
      files["e.jsonl"]!,
      `${entity("n0", "Renamed zero")}\n${entity("p", "link")}\n${entity("n1", "x")}\n${entity("n2", "y")}\n`,
    );
    const poller = poll(`${url}/healthz`);
    await sleep(200);
    child.process.kill("SIGHUP");
    await until(() => events(child).some((e) => e.event === "reloaded"), "the roll", child, 60000);
    await sleep(200);
    const during = await poller.stop();
    assert.equal(during.failed, [], "no request failed during the roll");
    assert.ok(during.ok > 0);
    const log = events(child);
    const rolled = log.filter((e) => e.event === "worker-rolled");
    assert.is(rolled.length, 2);
    // Each old worker was retired only once its new one was ready (the roll's rule).
    for (const r of rolled) {
      const readyAt = log.findIndex((e) => e.event === "worker-ready" && e.pid === r.workerPid);
      assert.ok(readyAt >= 0 && readyAt < log.indexOf(r), "the new worker was ready before the old one left");
    }
    const after = await getFresh(`${url}/graph/v1/search?q=renamed`);
    assert.is(JSON.parse(after.body).items[0].rawIdentifier, "Renamed zero");
    const scraped = await fetch(`${url}/metrics`);
    const scrapedText = await scraped.text();
    // The answer is in the message when it fails: a flake seen once in a full `npm test` run.
    assert.ok(
      /quiver_reloads_total\{result="success"\} 1/.test(scrapedText),
      `metrics after the roll: ${scraped.status} ${scrapedText.slice(0, 300)}`,
    );

    // A reload that fails (a bad line) keeps every worker on the current graph, and is counted.
    await writeFile(files["e.jsonl"]!, "{not json\n");
    child.process.kill("SIGHUP");
    await until(() => events(child).some((e) => e.event === "reload-failed"), "the failed reload", child);
    assert.is(JSON.parse((await getFresh(`${url}/graph/v1/search?q=renamed`)).body).items.length, 1);
    assert.match(await (await fetch(`${url}/metrics`)).text(), /quiver_reloads_total\{result="failure"\} 1/);
  } finally {
    assert.is(await stop(child), 0);
  }
  // Every worker drained and gone with the primary.
  for (const e of events(child).filter((e) => e.event === "worker-ready")) {
    let gone = false;
    try {
      process.kill(e.pid, 0);
    } catch {
      gone = true;
    }
    assert.ok(gone, `worker ${e.pid} is gone`);
  }
  assert.ok(events(child).some((e) => e.event === "stopped"));
});

test("every worker killed at once (H1): the primary replaces them on the same port 0 URL (L1), ignores a SIGHUP during start-up (L9), exits 0 and leaves no temporary file", async () => {
  const files = await tempFiles({
    "e.jsonl": `${entity("n1", "Alpha one")}\n${entity("p", "link")}\n${entity("n2", "Beta two")}\n`,
    "s.jsonl": '{"subjectEntityId":"n1","predicateEntityId":"p","objectEntityId":"n2"}\n',
  });
  // A TMPDIR of its own: the temporary snapshot must be gone at the end.
  const tmp = await mkdtemp(join(tmpdir(), "quiver-h1-"));
  const child = runQuiver(
    [
      "serve",
      "--port",
      "0",
      "--quiet",
      "--workers",
      "2",
      "--entities",
      files["e.jsonl"]!,
      "--statements",
      files["s.jsonl"]!,
    ],
    { QUIVER_API_KEYS: KEY, TMPDIR: tmp },
  );
  try {
    await until(() => events(child).some((e) => e.event === "startup"), "start-up", child);
    child.process.kill("SIGHUP");
    const url = await listening(child, 60000);
    assert.ok(
      events(child).some((e) => e.event === "reload-ignored"),
      "the early SIGHUP is logged as ignored",
    );
    const ready = events(child).find((e) => e.event === "ready");
    for (const pid of String(ready.workerPids).split(" ").map(Number)) process.kill(pid, "SIGKILL");
    await until(
      () => events(child).filter((e) => e.event === "worker-replaced").length === 2,
      "both replacements",
      child,
    );
    assert.is(child.process.exitCode, null, "the primary is still running");
    assert.is((await getFresh(`${url}/healthz`)).status, 200, "the announced URL answers");
  } finally {
    assert.is(await stop(child), 0);
  }
  assert.ok(events(child).some((e) => e.event === "stopped"));
  assert.equal(await readdir(tmp), [], "no temporary snapshot left");
  await rm(tmp, { recursive: true, force: true });
});

test("a signal to the whole process group (as Ctrl-C or timeout(1) send it), twice: primary and workers stop, exit 0", async () => {
  const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--quiet", "--workers", "2"], {
    env: { ...process.env, QUIVER_API_KEYS: KEY },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, as a shell gives a job
  });
  let err = "";
  let out = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const end = Date.now() + 60000;
  while (!/^listening on /m.test(err)) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`not listening:\n${err}`);
    await sleep(50);
  }
  // timeout(1) signals the command, then its whole group: the primary gets it twice, the workers once.
  process.kill(child.pid as number, "SIGTERM");
  process.kill(-(child.pid as number), "SIGTERM");
  assert.is(await exited, 0, err);
  assert.not.match(err, /EPIPE|Unhandled/);
  assert.ok(out.includes('"event":"stopped"'));
});

test.run();

/**
 * The cluster primary's worker pool, driven by fake workers through every path: a start that
 * fails, one worker dying, every worker dying at once, a crash loop (back-off doubling, then
 * reset), a roll that fails at the first and at a later worker, a stop during a roll, a
 * replacement that became ready on a superseded generation; and, in a process of its own, that
 * a pool whose workers are all dead keeps the process alive until it has replaced them.
 */

import { spawnSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { EventFields, EventLog } from "../../src/serving/event-log.js";
import {
  type PoolWorker,
  PoolStopped,
  RollFailed,
  WorkerPool,
  type WorkerReady,
} from "../../src/serving/worker-pool.js";

interface Config {
  generation: number;
  /** What a worker forked on this config does: serve, or fail before it is ready. */
  fails?: boolean;
}

let nextPid = 1000;

/** A fake worker: ready or failed on the next tick, exits when killed or drained. */
class FakeWorker extends EventEmitter implements PoolWorker {
  readonly pid = nextPid++;
  readonly sent: object[] = [];
  readonly killed: string[] = [];
  dead = false;
  constructor(readonly config: Config) {
    super();
  }
  send(message: object): void {
    if (this.dead) return;
    this.sent.push(message);
    if ((message as { quiver?: string }).quiver === "drain") setImmediate(() => this.exit(0, null));
  }
  kill(signal: NodeJS.Signals): void {
    this.killed.push(signal);
    setImmediate(() => this.exit(null, signal));
  }
  ready(): void {
    const m: WorkerReady = {
      quiver: "ready",
      url: "http://127.0.0.1:1",
      entities: 3,
      statements: 2,
      openMs: 1,
      word: "a",
    };
    this.emit("message", m);
  }
  exit(code: number | null, signal: string | null): void {
    if (this.dead) return;
    this.dead = true;
    this.emit("exit", code, signal);
  }
}

interface Harness {
  pool: WorkerPool<Config>;
  forked: FakeWorker[];
  events: [string, string, EventFields | undefined][];
  alive(): FakeWorker[];
}

/** A pool whose fork starts fake workers that report ready (or fail) on the next tick. */
function harness(
  config: Config = { generation: 0 },
  options: { fails?: (config: Config, nth: number) => boolean } = {},
): Harness {
  const forked: FakeWorker[] = [];
  const events: Harness["events"] = [];
  const log: EventLog = {
    info: (e, f) => events.push(["info", e, f]),
    warn: (e, f) => events.push(["warn", e, f]),
    error: (e, f) => events.push(["error", e, f]),
  };
  const pool = new WorkerPool<Config>({
    fork(c) {
      const w = new FakeWorker(c);
      forked.push(w);
      const fail = c.fails === true || (options.fails?.(c, forked.length) ?? false);
      setImmediate(() => {
        if (!fail) return w.ready();
        w.emit("message", { quiver: "failed", error: "cannot open graph.snap: bad magic" });
        w.exit(1, null);
      });
      return w;
    },
    config,
    events: log,
    restartDelayMs: 5,
    maxRestartDelayMs: 40,
    drainKillMs: 1000,
  });
  return { pool, forked, events, alive: () => forked.filter((w) => !w.dead) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const named = (h: Harness, event: string) => h.events.filter(([, e]) => e === event);

test("start: n workers serve; one that fails makes start reject and the others are killed", async () => {
  const h = harness();
  const started = await h.pool.start(3);
  assert.is(started.length, 3);
  assert.is(h.pool.serving().length, 3);
  await h.pool.stop();

  let calls = 0;
  // The second fork of the three fails.
  const h2 = harness({ generation: 0 }, { fails: (_, nth) => nth === 2 });
  await h2.pool.start(3).then(
    () => assert.unreachable("start should fail"),
    (e: Error) => {
      calls++;
      assert.match(e.message, "bad magic");
    },
  );
  assert.is(calls, 1);
  assert.is(h2.alive().length, 0);
  assert.is(h2.pool.counts().serving, 0);
});

test("one worker dies: it is replaced after the back-off, the other keeps serving", async () => {
  const h = harness();
  await h.pool.start(2);
  (h.forked[0] as FakeWorker).exit(null, "SIGKILL");
  assert.is(h.pool.serving().length, 1);
  await until(() => h.pool.serving().length === 2, "the replacement");
  assert.is(h.forked.length, 3);
  assert.is(named(h, "worker-died").length, 1);
  assert.is(named(h, "worker-replaced").length, 1);
  await h.pool.stop();
});

test("every worker dies at once: every one is replaced", async () => {
  const h = harness();
  await h.pool.start(3);
  for (const w of h.alive()) w.exit(null, "SIGKILL");
  assert.is(h.pool.serving().length, 0);
  await until(() => h.pool.serving().length === 3, "three replacements");
  assert.is(named(h, "worker-replaced").length, 3);
  await h.pool.stop();
  assert.is(h.alive().length, 0);
});

test("crash loop: replacements that die unready double the back-off up to its cap; one that serves resets it", async () => {
  // After the first worker, the next 5 forks fail (a bad graph on disk), then they serve again.
  const h = harness({ generation: 0 }, { fails: (_, nth) => nth >= 2 && nth <= 6 });
  await h.pool.start(1);
  (h.forked[0] as FakeWorker).exit(1, null);
  await until(() => h.pool.serving().length === 1, "recovery after the crash loop", 3000);
  const retries = named(h, "worker-start-failed").map(([, , f]) => f?.["retryMs"]);
  assert.equal(retries, [10, 20, 40, 40, 40]);
  assert.is(h.pool.restartDelay, 5);
  await h.pool.stop();
});

test("a roll moves every worker, one at a time, each new one serving before an old one drains", async () => {
  const h = harness();
  await h.pool.start(2);
  const old = h.alive();
  const result = await h.pool.roll({ generation: 1 });
  assert.is(result.rolled, 2);
  assert.is(h.pool.config.generation, 1);
  for (const w of old) assert.equal(w.sent, [{ quiver: "drain" }]);
  await until(() => old.every((w) => w.dead), "the old workers to exit");
  assert.is(h.pool.serving().length, 2);
  await h.pool.stop();
});

test("a roll that fails at the first new worker: RollFailed(0), the old workers keep serving, the config stays", async () => {
  const h = harness();
  await h.pool.start(2);
  const old = h.alive();
  await h.pool.roll({ generation: 1, fails: true }).then(
    () => assert.unreachable("the roll should fail"),
    (e: unknown) => {
      assert.instance(e, RollFailed);
      assert.is((e as RollFailed).rolled, 0);
      assert.match((e as Error).message, "bad magic");
    },
  );
  assert.is(h.pool.config.generation, 0);
  assert.is(h.pool.serving().length, 2);
  for (const w of old) assert.is(w.dead, false);
  // A worker that dies now is replaced on the old, good config.
  (old[0] as FakeWorker).exit(null, "SIGKILL");
  await until(() => h.pool.serving().length === 2, "the replacement");
  assert.is((h.forked.at(-1) as FakeWorker).config.generation, 0);
  await h.pool.stop();
});

test("a roll that fails at the second new worker: RollFailed(1), capacity kept", async () => {
  // The second new worker of the roll (the fourth fork) fails.
  const h = harness({ generation: 0 }, { fails: (c, nth) => c.generation === 1 && nth === 4 });
  await h.pool.start(2);
  await h.pool.roll({ generation: 1 }).then(
    () => assert.unreachable("the roll should fail"),
    (e: unknown) => assert.is((e as RollFailed).rolled, 1),
  );
  await until(() => h.pool.counts().retiring === 0, "the drained worker to exit");
  assert.is(h.pool.serving().length, 2);
  await h.pool.stop();
});

test("stop during a roll: the starting worker is killed, the others drain, the roll rejects with PoolStopped", async () => {
  const h = harness();
  await h.pool.start(2);
  // A new worker that never reports ready (still opening a big graph).
  const slow = new WorkerPool<Config>({
    fork: (c) => {
      const w = new FakeWorker(c);
      h.forked.push(w);
      if (c.generation === 0) setImmediate(() => w.ready());
      return w;
    },
    config: { generation: 0 },
    events: { info() {}, warn() {}, error() {} },
    restartDelayMs: 5,
  });
  await slow.start(2);
  const rolling = slow.roll({ generation: 1 });
  await sleep(5);
  const starting = h.forked.at(-1) as FakeWorker;
  assert.is(slow.counts().starting, 1);
  await slow.stop();
  assert.equal(starting.killed, ["SIGKILL"]);
  await rolling.then(
    () => assert.unreachable("the roll should stop"),
    (e: unknown) => assert.instance(e, PoolStopped),
  );
  assert.equal(slow.counts(), { starting: 0, serving: 0, retiring: 0 });
  await h.pool.stop();
  assert.is(h.alive().length, 0);
});

test("a worker dying during stop is not replaced; stop resolves once every worker has exited", async () => {
  const h = harness();
  await h.pool.start(2);
  const stopping = h.pool.stop();
  (h.forked[0] as FakeWorker).exit(null, "SIGKILL");
  await stopping;
  await sleep(20);
  assert.is(h.forked.length, 2);
  assert.is(named(h, "worker-died").length, 0);
});

test("a replacement that became ready on a superseded generation is drained and replaced on the new one", async () => {
  const h = harness();
  await h.pool.start(2);
  // Worker 0 dies; before its replacement serves, a roll moves the pool to generation 1.
  (h.forked[0] as FakeWorker).exit(null, "SIGKILL");
  await h.pool.roll({ generation: 1 });
  await until(
    () => h.pool.serving().length === 2 && h.alive().every((w) => w.config.generation === 1),
    "every serving worker on generation 1",
  );
  await h.pool.stop();
});

test("every worker dead: the pool's back-off keeps the process alive until it has replaced them (H1)", () => {
  const pool = fileURLToPath(new URL("../../src/serving/worker-pool.js", import.meta.url));
  // A process whose only work is the pool: fake workers with no handles of their own, all dead at once.
  const script = `
    import { EventEmitter } from "node:events";
    import { WorkerPool } from ${JSON.stringify(pool)};
    let forks = 0;
    const p = new WorkerPool({
      fork(c) {
        const w = new EventEmitter();
        w.pid = ++forks; w.send = () => {}; w.kill = () => {};
        queueMicrotask(() => w.emit("message", { quiver: "ready", url: "u", entities: 0, statements: 0, openMs: 0, word: "a" }));
        if (forks > 2) queueMicrotask(() => { console.log("replaced " + forks); process.exit(0); });
        // Each worker's channel holds the process until the worker dies, as node:cluster's does.
        else setTimeout(() => w.emit("exit", null, "SIGKILL"), 1);
        return w;
      },
      config: { generation: 0 },
      events: { info() {}, warn() {}, error() {} },
      restartDelayMs: 200,
    });
    await p.start(2);
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  assert.is(run.stdout.trim(), "replaced 3", `exit ${run.status}, stderr: ${run.stderr}`);
});

test.run();

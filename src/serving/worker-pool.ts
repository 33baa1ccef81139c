/**
 * Worker pool
 * ===========
 * The cluster primary's workers and everything it knows about them, in one place: which worker is
 * starting, serving or retiring, on which graph generation, and the restart back-off. The primary
 * (cli/serve-cluster.ts) wires it to node:cluster; tests drive it with fake workers through the
 * `fork` it is given.
 *
 * - `start(n)`: n workers on the current config; resolves once all serve, or kills those that
 *   started and rejects with the first failure.
 * - Replace with back-off: a serving worker that exits unasked is replaced after `restartDelayMs`,
 *   doubled (up to `maxRestartDelayMs`) while replacements die before they are ready, reset by a
 *   replacement that serves. The wait is a referenced timer: while the pool should serve, it keeps
 *   the process alive even when no worker is left (every worker dead at once, or the last one dying
 *   during a long back-off), so the primary never exits by running out of things to do.
 * - `roll(next)`: one worker at a time, a new worker on `next` serves before an old one drains, so
 *   capacity never drops. A new worker that fails stops the roll (RollFailed, with how many rolled);
 *   the current config stays, and the old workers keep serving. A replacement that became ready on
 *   an older generation than the current config (it started during a roll) is drained and
 *   replaced again, so no worker is left serving a superseded graph.
 * - `drain(worker)`: tell one worker to stop accepting and finish what is in flight; killed if still
 *   there after `drainKillMs`.
 * - `stop()`: no more replacements; every serving worker drains, every starting one is killed (it
 *   has nothing in flight); resolves once every worker has exited. Safe during a roll or a start.
 *
 * Cost: a Map of members; each event touches one member (a roll scans them once per step).
 */

import type { EventLog } from "./event-log.js";

/** What the pool needs of a config: the graph generation it serves. */
export interface PoolConfig {
  generation: number;
}

/** A worker's first word when it serves. */
export interface WorkerReady {
  quiver: "ready";
  url: string;
  entities: number;
  statements: number;
  openMs: number;
  word: string;
}

/** A worker's last word when it cannot serve (before it exits). */
export interface WorkerFailed {
  quiver: "failed";
  error: string;
}

/** The one message the pool sends: stop accepting, finish requests in flight, exit. */
export const DRAIN_MESSAGE = { quiver: "drain" } as const;

/** The slice of a node:cluster Worker the pool uses (a fake in tests). */
export interface PoolWorker {
  readonly pid: number | undefined;
  on(event: "message", listener: (message: unknown) => void): unknown;
  once(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
  /** Sends a message; a worker whose channel is closed is skipped. */
  send(message: object): void;
  kill(signal: NodeJS.Signals): void;
}

export interface WorkerPoolOptions<C extends PoolConfig> {
  /** Starts one worker on `config`. */
  fork(config: C): PoolWorker;
  config: C;
  events: EventLog;
  /** Every message of a worker that is not the pool's own (metrics questions and answers). */
  onMessage?(worker: PoolWorker, message: unknown): void;
  /** A worker has exited (for the wiring's per-worker state). */
  onExit?(worker: PoolWorker): void;
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  drainKillMs?: number;
}

/** Wait before replacing a dead worker; doubles while replacements die unready. */
export const RESTART_DELAY_MS = 100;
export const MAX_RESTART_DELAY_MS = 5000;
/** A worker still there this long after it was told to drain is killed. */
export const DRAIN_KILL_MS = 40_000;

type Phase = "starting" | "serving" | "retiring";

interface Member {
  readonly worker: PoolWorker;
  phase: Phase;
  readonly generation: number;
  /** It reported ready once (a retiring member may never have). */
  served: boolean;
}

/** A roll stopped by a new worker that could not serve; `rolled` workers had moved already. */
export class RollFailed extends Error {
  override readonly name = "RollFailed";
  constructor(
    message: string,
    readonly rolled: number,
  ) {
    super(message);
  }
}

/** A roll cut short by stop(). */
export class PoolStopped extends Error {
  override readonly name = "PoolStopped";
}

function isReady(m: unknown): m is WorkerReady {
  return (m as { quiver?: unknown } | null)?.quiver === "ready";
}

function isFailed(m: unknown): m is WorkerFailed {
  return (m as { quiver?: unknown } | null)?.quiver === "failed";
}

export class WorkerPool<C extends PoolConfig> {
  readonly #fork: (config: C) => PoolWorker;
  readonly #events: EventLog;
  readonly #onMessage: (worker: PoolWorker, message: unknown) => void;
  readonly #onExit: (worker: PoolWorker) => void;
  readonly #baseDelay: number;
  readonly #maxDelay: number;
  readonly #drainKillMs: number;
  readonly #members = new Map<PoolWorker, Member>();
  readonly #replaceTimers = new Set<NodeJS.Timeout>();
  readonly #exited = new Set<() => void>();
  #config: C;
  #restartDelay: number;
  #stopping = false;

  constructor(options: WorkerPoolOptions<C>) {
    this.#fork = options.fork;
    this.#config = options.config;
    this.#events = options.events;
    this.#onMessage = options.onMessage ?? (() => {});
    this.#onExit = options.onExit ?? (() => {});
    this.#baseDelay = options.restartDelayMs ?? RESTART_DELAY_MS;
    this.#maxDelay = options.maxRestartDelayMs ?? MAX_RESTART_DELAY_MS;
    this.#drainKillMs = options.drainKillMs ?? DRAIN_KILL_MS;
    this.#restartDelay = this.#baseDelay;
  }

  /** The config new and replacement workers start on. */
  get config(): C {
    return this.#config;
  }

  /** Workers that serve and are not draining: the ones a metrics scrape asks. */
  serving(): PoolWorker[] {
    return [...this.#members.values()].filter((m) => m.phase === "serving").map((m) => m.worker);
  }

  /** Every worker the pool holds, by phase (for tests and the log). */
  counts(): Record<Phase, number> {
    const counts = { starting: 0, serving: 0, retiring: 0 };
    for (const m of this.#members.values()) counts[m.phase]++;
    return counts;
  }

  /** The wait before the next replacement. */
  get restartDelay(): number {
    return this.#restartDelay;
  }

  /** Starts `n` workers; resolves with their ready messages, or kills them all and rejects. */
  async start(n: number): Promise<{ worker: PoolWorker; ready: WorkerReady }[]> {
    const started = await Promise.allSettled(Array.from({ length: n }, () => this.#spawn(this.#config)));
    const failed = started.find((s) => s.status === "rejected");
    if (failed !== undefined) {
      for (const m of this.#members.values()) m.worker.kill("SIGKILL");
      await this.#allExited();
      throw failed.reason;
    }
    return started.map((s) => (s as PromiseFulfilledResult<{ worker: PoolWorker; ready: WorkerReady }>).value);
  }

  /**
   * Moves every worker onto `next`, one at a time. Resolves with how many moved and the last
   * ready message; rejects with RollFailed (a new worker could not serve) or PoolStopped.
   */
  async roll(next: C): Promise<{ rolled: number; last: WorkerReady | undefined }> {
    let rolled = 0;
    let last: WorkerReady | undefined;
    for (;;) {
      if (this.#stopping) throw new PoolStopped("the pool is stopping");
      const old = [...this.#members.values()].find((m) => m.phase === "serving" && m.generation < next.generation);
      // Every serving worker is on `next`: the roll is done.
      if (old === undefined) break;
      let started: { worker: PoolWorker; ready: WorkerReady };
      try {
        started = await this.#spawn(next);
      } catch (e) {
        // Each branch: stop() killed the new worker, or the new worker itself could not serve.
        if (this.#stopping) throw new PoolStopped("the pool is stopping");
        throw new RollFailed((e as Error).message, rolled);
      }
      last = started.ready;
      // The new worker serves: only now does an old one leave (it may have died meanwhile).
      if (old.phase === "serving") this.drain(old.worker);
      rolled++;
      this.#events.info("worker-rolled", {
        workerPid: started.worker.pid,
        retiredPid: old.worker.pid,
        generation: next.generation,
      });
    }
    this.#config = next;
    return { rolled, last };
  }

  /** Tells `worker` to stop accepting and finish its requests; killed after drainKillMs. */
  drain(worker: PoolWorker): void {
    const member = this.#members.get(worker);
    if (member === undefined || member.phase === "retiring") return;
    // A starting worker has nothing in flight and may not listen for messages yet: it is killed.
    if (member.phase === "starting") {
      member.phase = "retiring";
      worker.kill("SIGKILL");
      return;
    }
    member.phase = "retiring";
    worker.send(DRAIN_MESSAGE);
    // Unreferenced: the worker's own channel keeps the process alive while it drains.
    const kill = setTimeout(() => worker.kill("SIGKILL"), this.#drainKillMs).unref();
    worker.once("exit", () => clearTimeout(kill));
  }

  /** No more replacements; drains every worker; resolves once all have exited. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const t of this.#replaceTimers) clearTimeout(t);
    this.#replaceTimers.clear();
    for (const m of [...this.#members.values()]) this.drain(m.worker);
    await this.#allExited();
  }

  /** Kills every worker at once (a second stop signal). */
  killAll(): void {
    for (const m of this.#members.values()) m.worker.kill("SIGKILL");
  }

  #allExited(): Promise<void> {
    if (this.#members.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#members.size !== 0) return;
        this.#exited.delete(check);
        resolve();
      };
      this.#exited.add(check);
    });
  }

  /** Forks a worker on `config`; resolves once it serves, rejects if it exits first. */
  #spawn(config: C): Promise<{ worker: PoolWorker; ready: WorkerReady }> {
    const worker = this.#fork(config);
    const member: Member = { worker, phase: "starting", generation: config.generation, served: false };
    this.#members.set(worker, member);
    return new Promise((resolve, reject) => {
      let failure = "";
      worker.on("message", (m) => {
        // Each branch: the pool's own lifecycle words, or the wiring's traffic (metrics).
        if (isReady(m)) {
          if (member.phase !== "starting") return;
          member.phase = "serving";
          member.served = true;
          resolve({ worker, ready: m });
        } else if (isFailed(m)) {
          failure = m.error;
        } else {
          this.#onMessage(worker, m);
        }
      });
      worker.once("exit", (code, signal) => {
        const phase = member.phase;
        this.#members.delete(worker);
        this.#onExit(worker);
        for (const check of [...this.#exited]) check();
        // Each branch: it never served (its starter learns why), it was asked to go, or it died.
        if (!member.served)
          reject(new Error(failure || `a worker stopped before it was ready (exit ${code ?? signal})`));
        if (phase !== "serving" || this.#stopping) return;
        this.#events.warn("worker-died", { workerPid: worker.pid, code, signal, replacing: true });
        this.#scheduleReplace();
      });
    });
  }

  /** Replaces one worker after the current back-off (a referenced timer: see the banner). */
  #scheduleReplace(): void {
    const timer = setTimeout(() => {
      this.#replaceTimers.delete(timer);
      void this.#replace();
    }, this.#restartDelay);
    this.#replaceTimers.add(timer);
  }

  async #replace(): Promise<void> {
    if (this.#stopping) return;
    const config = this.#config;
    try {
      const { worker, ready } = await this.#spawn(config);
      this.#restartDelay = this.#baseDelay;
      this.#events.info("worker-replaced", {
        workerPid: worker.pid,
        entities: ready.entities,
        statements: ready.statements,
      });
      // Started before a roll finished: it serves a superseded graph; drain it and start another.
      if (config.generation < this.#config.generation && !this.#stopping) {
        this.drain(worker);
        this.#scheduleReplace();
      }
    } catch (e) {
      if (this.#stopping) return;
      this.#restartDelay = Math.min(this.#restartDelay * 2, this.#maxDelay);
      this.#events.error("worker-start-failed", { error: (e as Error).message, retryMs: this.#restartDelay });
      this.#scheduleReplace();
    }
  }
}

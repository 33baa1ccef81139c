/**
 * Benchmark reporting
 * ===================
 * What every part of `npm run bench` shares: latency rows read from tinybench's task statistics
 * (p50, p99 and throughput as tinybench computes them, never a hand-rolled timer), memory snapshots
 * of heap and external memory after a full GC, goal checks, and number formatting.
 *
 * Latencies are tinybench samples of one call each, in milliseconds, converted to microseconds here.
 */

import type { Bench, Task } from "tinybench";

/** One measured task, in the units the report uses. */
export interface LatencyRow {
  /** What is measured, e.g. `q="e" page 1,000` or `S+P deep`. */
  case: string;
  /** Which implementation: "quiver", "naive scan", "n3 Store", "Map". */
  impl: string;
  /** Details shown beside the case: the page, the matches, the filter values. */
  detail: string;
  p50us: number;
  p99us: number;
  meanUs: number;
  opsPerSec: number;
  samples: number;
}

/** A goal of the issue, checked against a measurement. `pass` is null when it does not apply. */
export interface GoalCheck {
  goal: string;
  measured: string;
  pass: boolean | null;
  note?: string;
}

/** Reads a finished task's latency statistics; throws when the task errored (a broken benchmark). */
export function latencyRow(
  bench: Bench,
  taskName: string,
  meta: { case: string; impl: string; detail: string },
): LatencyRow {
  const task: Task | undefined = bench.getTask(taskName);
  if (task === undefined) throw new Error(`no task ${taskName}`);
  const r = task.result;
  if (r.state === "errored") throw new Error(`task ${taskName} failed: ${r.error.message}`, { cause: r.error });
  if (r.state !== "completed" && r.state !== "aborted-with-statistics")
    throw new Error(`task ${taskName} did not run (${r.state})`);
  return {
    ...meta,
    p50us: r.latency.p50 * 1000,
    p99us: r.latency.p99 * 1000,
    meanUs: r.latency.mean * 1000,
    opsPerSec: r.throughput.mean,
    samples: r.latency.samplesCount,
  };
}

/** Rows for console.table: one line per task, microseconds with sensible precision. */
export function latencyTable(rows: readonly LatencyRow[], goalUs?: number): Record<string, string | number>[] {
  return rows.map((r) => {
    const row: Record<string, string | number> = {
      case: r.case,
      impl: r.impl,
      detail: r.detail,
      "p50 (µs)": us(r.p50us),
      "p99 (µs)": us(r.p99us),
      "ops/s": Math.round(r.opsPerSec).toLocaleString("en-US"),
      samples: r.samples,
    };
    if (goalUs !== undefined && r.impl === "quiver") row[`p50 ≤ ${goalUs} µs`] = r.p50us <= goalUs ? "pass" : "FAIL";
    return row;
  });
}

export function us(x: number): string {
  if (x >= 100_000) return `${(x / 1000).toFixed(0)} ms`.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (x >= 10_000) return `${(x / 1000).toFixed(1)} ms`;
  if (x >= 100) return x.toFixed(0);
  return x.toFixed(x >= 10 ? 1 : 2);
}

export function thousands(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * Heap, external and ArrayBuffer memory. `arrayBuffers` (part of external) is where typed arrays
 * live; it is exact once settled, while V8's `external` counter lags behind frees, so the reports
 * take structure sizes from `arrayBuffers`.
 */
export interface MemorySnapshot {
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** How long to wait between GCs for ArrayBuffer backing stores, freed off the main thread, to go. */
const SETTLE_WAIT_MS = 50;
const SETTLE_MAX_ROUNDS = 20;

/**
 * Full GCs (when node was started with --expose-gc) until ArrayBuffer memory stops changing, then
 * a reading. One GC is not enough: backing stores are freed after it, by a background sweeper.
 */
export async function settledMemory(): Promise<MemorySnapshot> {
  let last = -1;
  for (let round = 0; round < SETTLE_MAX_ROUNDS; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
    const now = process.memoryUsage().arrayBuffers;
    if (now === last) break;
    last = now;
  }
  collectGarbage();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

export function memoryDelta(before: MemorySnapshot, after: MemorySnapshot): MemorySnapshot {
  return {
    heapUsed: after.heapUsed - before.heapUsed,
    external: after.external - before.external,
    arrayBuffers: after.arrayBuffers - before.arrayBuffers,
  };
}

export const gcAvailable = typeof (globalThis as { gc?: unknown }).gc === "function";

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  // Twice: the first pass may only queue finalizers and weak references that the second frees.
  gc();
  gc();
}

/** Keeps results alive so the optimizer cannot drop a benchmarked call. */
export const sink = { value: 0 };

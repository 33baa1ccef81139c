/**
 * Latency sampling
 * ================
 * Owns how every latency of `npm run bench` is taken, so the distinct-query stream, the repeated
 * cases and the depth curve are measured alike: `performance.now()` around one call (the page built,
 * its cursor sealed), one sample per call, in milliseconds; summaries in microseconds.
 *
 *  - timeEach: a list of distinct queries, each asked once per round, in a fresh random order each
 *    round; round 0 is a warm-up (JIT) and is not kept. What users see: no query finds its own
 *    footprint still in the CPU caches.
 *  - timeRepeated: one query asked again and again for a time budget after a warm-up: the figure
 *    of a microbenchmark (everything it touches stays cached), kept beside the stream and labelled
 *    "repeated" wherever it is shown. Timed by tinybench (one task: warm-up iterations, then until
 *    both the time budget and the minimum count are met), its raw samples kept so that both kinds
 *    of latency are summarized alike; no timer-overhead correction, as the stream has none.
 *  - timeEach and timeOnce stay this file's own loops: a stream of different queries, each asked
 *    once per round in a fresh order, is not what a microbenchmark library times (it runs one
 *    function many times), and the slow baselines are asked each query once.
 * A full GC (when node runs with --expose-gc, as the npm scripts do) precedes each pass, so one
 * pass does not pay for the garbage of the one before.
 *
 * Percentiles are nearest-rank (the sample at rank ceil(p * n)): no interpolation between samples.
 */

import { performance } from "node:perf_hooks";
import { Bench } from "tinybench";

import { collectGarbage } from "./memory.js";

/** Keeps results alive so the optimizer cannot drop a benchmarked call. */
export const sink = { value: 0 };

/** Percent points kept for a distribution (the CDF of the report): every percent and the far tail. */
export const CDF_PERCENTS: readonly number[] = [...Array.from({ length: 100 }, (_, i) => i), 99.5, 99.9, 100];

export interface LatencySummary {
  samples: number;
  p50us: number;
  p99us: number;
  meanUs: number;
  maxUs: number;
}

export interface LatencyDistribution extends LatencySummary {
  /** [percent, µs] at CDF_PERCENTS. */
  cdf: [number, number][];
}

/** The sample at rank ceil(p * n) of sorted samples; NaN when there are none. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function summarize(samplesMs: readonly number[]): LatencySummary {
  return distribution(samplesMs, false);
}

/** The summary and the CDF points of the samples (for the report's distribution chart). */
export function distribution(samplesMs: readonly number[], withCdf: true): LatencyDistribution;
export function distribution(samplesMs: readonly number[], withCdf: boolean): LatencySummary;
export function distribution(samplesMs: readonly number[], withCdf: boolean): LatencySummary | LatencyDistribution {
  const sorted = Float64Array.from(samplesMs).sort();
  let sum = 0;
  for (const s of sorted) sum += s;
  const summary: LatencySummary = {
    samples: sorted.length,
    p50us: percentile(sorted, 0.5) * 1000,
    p99us: percentile(sorted, 0.99) * 1000,
    meanUs: sorted.length === 0 ? Number.NaN : (sum / sorted.length) * 1000,
    maxUs: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]! * 1000,
  };
  if (!withCdf) return summary;
  // Percent 0 is the fastest sample, not "none": the CDF starts at the minimum.
  const cdf = CDF_PERCENTS.map((p): [number, number] => [
    p,
    (p === 0 ? (sorted[0] ?? Number.NaN) : percentile(sorted, p / 100)) * 1000,
  ]);
  return { ...summary, cdf };
}

/** Fisher-Yates with the given random source. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Queries two sides take turns on in timeInterleaved: a batch of this many on one, then on the other. */
export const INTERLEAVE_BATCH = 100;

/**
 * Times `ask(side, i)` for sides 0 and 1 on queries 0..queries-1: each round a fresh order, cut in
 * batches of INTERLEAVE_BATCH asked of one side then the other, the side that goes first alternating
 * (so neither always meets the other's leftovers in the caches); round 0 warms both and is not kept.
 * Returns each side's kept samples (ms) and its CPU time over its kept batches (µs, process.cpuUsage).
 */
export function timeInterleaved(
  queries: number,
  ask: (side: 0 | 1, i: number) => unknown,
  rounds: number,
  rand: () => number,
): { samples: [number[], number[]]; cpuUs: [number, number] } {
  const samples: [number[], number[]] = [[], []];
  const cpuUs: [number, number] = [0, 0];
  let turn = 0;
  for (let round = 0; round < rounds; round++) {
    const order = shuffled(
      Array.from({ length: queries }, (_, i) => i),
      rand,
    );
    for (let at = 0; at < order.length; at += INTERLEAVE_BATCH) {
      for (const side of turn++ % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
        const cpu = process.cpuUsage();
        for (let k = at; k < Math.min(order.length, at + INTERLEAVE_BATCH); k++) {
          const t = performance.now();
          ask(side, order[k]!);
          const ms = performance.now() - t;
          if (round > 0) samples[side].push(ms);
        }
        const used = process.cpuUsage(cpu);
        if (round > 0) cpuUs[side] += used.user + used.system;
      }
    }
  }
  return { samples, cpuUs };
}

/**
 * Times `call` once per item per round, items in a fresh random order each round; round 0 is a
 * warm-up and is not kept. Returns the kept samples in milliseconds. `gc` false: no full GC before
 * each round, as in a host that never stops to collect (the young generation then fills up during
 * the timed calls, as it does in a server).
 */
export function timeEach<T>(
  items: readonly T[],
  rounds: number,
  rand: () => number,
  call: (item: T) => unknown,
  gc = true,
): number[] {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (gc) collectGarbage();
    for (const item of shuffled(items, rand)) {
      const t0 = performance.now();
      const r = call(item);
      const t1 = performance.now();
      if (r !== undefined) sink.value++;
      if (round > 0) samples.push(t1 - t0);
    }
  }
  return samples;
}

export interface RepeatOptions {
  /** Time budget for the kept samples, in ms. */
  timeMs: number;
  /** At least this many kept samples, whatever the budget. */
  minSamples: number;
  /** Warm-up calls, not kept. */
  warmup: number;
  /**
   * A full GC before the samples. Off where the heap holds millions of a baseline's objects: there a
   * full GC takes seconds, and the caller collects once for several cases.
   */
  gc: boolean;
}

export const REPEAT_DEFAULTS: RepeatOptions = {
  timeMs: 500,
  minSamples: 10,
  warmup: 50,
  gc: true,
};

/** Times `call` again and again: `warmup` calls, then until the budget and the minimum are both met. */
export function timeRepeated(call: () => unknown, options: Partial<RepeatOptions> = {}): number[] {
  const o = { ...REPEAT_DEFAULTS, ...options };
  const bench = new Bench({
    time: o.timeMs,
    iterations: o.minSamples,
    warmup: o.warmup > 0,
    warmupIterations: o.warmup,
    warmupTime: 0,
    retainSamples: true,
    subtractTimerOverhead: false,
    throws: true,
  });
  bench.add(
    "repeated",
    () => {
      if (call() !== undefined) sink.value++;
    },
    {
      // After the warm-up, before the kept samples: a full GC, so they do not pay for its garbage.
      beforeAll(mode) {
        if (mode === "run" && o.gc) collectGarbage();
      },
    },
  );
  bench.runSync();
  const result = bench.tasks[0]?.result;
  if (result === undefined || result.state !== "completed")
    throw new Error(`tinybench: the task ${result?.state ?? "did not run"}`);
  return [...(result.latency.samples ?? [])];
}

/**
 * Times `call` once per item, in the items' order, after a warm-up of `warmup` calls on the first
 * items (not kept): for the slow baselines, where a warm-up round would cost as much as the run.
 */
export function timeOnce<T>(items: readonly T[], call: (item: T) => unknown, warmup = 3): number[] {
  for (const item of items.slice(0, warmup)) if (call(item) !== undefined) sink.value++;
  collectGarbage();
  const samples: number[] = [];
  for (const item of items) {
    const t0 = performance.now();
    const r = call(item);
    const t1 = performance.now();
    if (r !== undefined) sink.value++;
    samples.push(t1 - t0);
  }
  return samples;
}

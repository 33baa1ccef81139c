/**
 * Wavelet matrix rangeSuccessor benchmark
 * =======================================
 * 5M values of 20 bits (document ids in suffix-array order, the search index's shape).
 * rangeSuccessor against the naive baseline, a linear scan of the position range for the smallest
 * value >= lo, at two range widths; then a search page, the 30 smallest distinct values >= lo of a
 * range (budget: 20 µs per page), as 30 chained rangeSuccessor calls and as one rangeDistinct,
 * beside a naive scan-and-sort page on a narrow range (where a plain scan is competitive).
 * Each task runs a fixed batch of pre-drawn queries; per-call figures (median wall clock, then CPU
 * time) are printed after the table.
 *
 * Run alone: `node dist/bench/wavelet-matrix.bench.js` (under a minute on 2 cores), or import run().
 */

import { Bench } from "tinybench";
import { isMainModule } from "../tools/main-module.js";
import { mulberry32 } from "../tools/prng.js";
import { WaveletMatrix } from "../src/engine/wavelet-matrix.js";

const N = 5_000_000;
const BITS = 20;
const BATCH = 256;
const PAGE_SIZE = 30;
const PAGE_RANGE_WIDTH = 1_000_000;
/** Batches re-run for the CPU-time figures. */
const CPU_REPEATS = 20;

function naiveRangeSuccessor(values: Uint32Array, l: number, r: number, lo: number, hi: number): number {
  let best = hi;
  for (let i = l; i < r; i++) {
    const v = values[i]!;
    if (v >= lo && v < best) best = v;
  }
  return best === hi ? -1 : best;
}

interface Queries {
  l: Int32Array;
  r: Int32Array;
  lo: Int32Array;
}

function drawQueries(rand: () => number, width: number): Queries {
  const q = { l: new Int32Array(BATCH), r: new Int32Array(BATCH), lo: new Int32Array(BATCH) };
  for (let k = 0; k < BATCH; k++) {
    q.l[k] = Math.floor(rand() * (N - width));
    q.r[k] = q.l[k]! + width;
    q.lo[k] = Math.floor(rand() * 2 ** BITS);
  }
  return q;
}

/**
 * The naive page: copy the range's values >= lo, sort them, keep the first PAGE_SIZE distinct.
 * Returns the count written to out.
 */
function naivePage(
  values: Uint32Array,
  l: number,
  r: number,
  lo: number,
  hi: number,
  scratch: Uint32Array,
  out: Int32Array,
): number {
  let m = 0;
  for (let i = l; i < r; i++) {
    const v = values[i]!;
    if (v >= lo && v < hi) scratch[m++] = v;
  }
  const sorted = scratch.subarray(0, m).sort();
  let count = 0;
  for (let j = 0; j < m && count < out.length; j++) {
    if (count === 0 || sorted[j]! !== out[count - 1]) out[count++] = sorted[j]!;
  }
  return count;
}

interface Task {
  name: string;
  /** Calls (or pages) per run of fn. */
  perBatch: number;
  unit: "call" | "page";
  /** A baseline: shown in the table, left out of the CPU-time figures. */
  naive: boolean;
  fn: () => void;
}

export async function run(): Promise<void> {
  const rand = mulberry32(20);
  const values = new Uint32Array(N);
  for (let i = 0; i < N; i++) values[i] = Math.floor(rand() * 2 ** BITS);
  const buildStart = performance.now();
  const wm = WaveletMatrix.build(values, BITS);
  const buildMs = performance.now() - buildStart;
  console.log(
    `wavelet matrix: n=${N}, bits=${BITS}, built in ${buildMs.toFixed(0)} ms, ${(wm.byteLength / 2 ** 20).toFixed(1)} MiB`,
  );
  console.log(`each task runs a batch of ${BATCH} random queries or pages; naive baselines scan the whole range`);

  const hi = 2 ** BITS;
  const narrow = drawQueries(rand, 1_000);
  const wide = drawQueries(rand, 100_000);
  const pages = drawQueries(rand, PAGE_RANGE_WIDTH);
  const page = new Int32Array(PAGE_SIZE);
  const scratch = new Uint32Array(PAGE_RANGE_WIDTH);
  let sink = 0;

  const tasks: Task[] = [
    {
      name: "rangeSuccessor, width 1k",
      perBatch: BATCH,
      unit: "call",
      naive: false,
      fn: () => {
        for (let k = 0; k < BATCH; k++) sink += wm.rangeSuccessor(narrow.l[k]!, narrow.r[k]!, narrow.lo[k]!, hi);
      },
    },
    {
      name: "naive scan, width 1k",
      perBatch: BATCH,
      unit: "call",
      naive: true,
      fn: () => {
        for (let k = 0; k < BATCH; k++)
          sink += naiveRangeSuccessor(values, narrow.l[k]!, narrow.r[k]!, narrow.lo[k]!, hi);
      },
    },
    {
      name: "rangeSuccessor, width 100k",
      perBatch: BATCH,
      unit: "call",
      naive: false,
      fn: () => {
        for (let k = 0; k < BATCH; k++) sink += wm.rangeSuccessor(wide.l[k]!, wide.r[k]!, wide.lo[k]!, hi);
      },
    },
    {
      name: "naive scan, width 100k",
      perBatch: BATCH,
      unit: "call",
      naive: true,
      fn: () => {
        for (let k = 0; k < BATCH; k++) sink += naiveRangeSuccessor(values, wide.l[k]!, wide.r[k]!, wide.lo[k]!, hi);
      },
    },
    {
      name: `page of ${PAGE_SIZE}: ${PAGE_SIZE} x rangeSuccessor, width 1M`,
      perBatch: BATCH,
      unit: "page",
      naive: false,
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          let v = pages.lo[k]! - 1;
          for (let j = 0; j < PAGE_SIZE; j++) {
            v = wm.rangeSuccessor(pages.l[k]!, pages.r[k]!, v + 1, hi);
            if (v < 0) break;
            sink += v;
          }
        }
      },
    },
    {
      name: `page of ${PAGE_SIZE}: rangeDistinct, width 1M`,
      perBatch: BATCH,
      unit: "page",
      naive: false,
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          const count = wm.rangeDistinct(pages.l[k]!, pages.r[k]!, pages.lo[k]!, hi, page, PAGE_SIZE);
          for (let j = 0; j < count; j++) sink += page[j]!;
        }
      },
    },
    {
      name: `page of ${PAGE_SIZE}: rangeDistinct, width 1k`,
      perBatch: BATCH,
      unit: "page",
      naive: false,
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          const count = wm.rangeDistinct(narrow.l[k]!, narrow.r[k]!, narrow.lo[k]!, hi, page, PAGE_SIZE);
          for (let j = 0; j < count; j++) sink += page[j]!;
        }
      },
    },
    {
      name: `page of ${PAGE_SIZE}: naive scan + sort, width 1k`,
      perBatch: BATCH,
      unit: "page",
      naive: true,
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          const count = naivePage(values, narrow.l[k]!, narrow.r[k]!, narrow.lo[k]!, hi, scratch, page);
          for (let j = 0; j < count; j++) sink += page[j]!;
        }
      },
    },
  ];

  const bench = new Bench({
    name: "rangeSuccessor / rangeDistinct",
    time: 1000,
    iterations: 20,
    warmupIterations: 5,
    warmupTime: 100,
  });
  for (const task of tasks) bench.add(task.name, task.fn, { async: false });
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());
  for (const task of tasks) {
    const result = bench.getTask(task.name)?.result;
    if (result !== undefined && (result.state === "completed" || result.state === "aborted-with-statistics")) {
      // The median, not the mean: one preempted batch on a busy machine skews a mean.
      console.log(
        `${task.name}: ${((result.latency.p50 * 1e6) / task.perBatch).toFixed(0)} ns per ${task.unit} (median)`,
      );
    }
  }
  // Wall-clock latency counts time the OS gave to other processes; on a shared machine CPU time
  // is the steadier figure. Re-run each task's batch and divide the process's CPU time.
  for (const task of tasks) {
    if (task.naive) continue;
    const before = process.cpuUsage();
    for (let rep = 0; rep < CPU_REPEATS; rep++) task.fn();
    const used = process.cpuUsage(before);
    console.log(
      `${task.name}: ${(((used.user + used.system) * 1000) / (CPU_REPEATS * task.perBatch)).toFixed(0)} ns CPU per ${task.unit}`,
    );
  }
  if (sink === 0.5) console.log(sink);
}

if (isMainModule(import.meta.url)) {
  await run();
}

/**
 * Process memory readings
 * =======================
 * Owns the one way the benchmark reads what a structure costs the process: heap used plus
 * external memory (where typed arrays live), after full GCs, before and after the structure is
 * made; the difference is what it holds. `external`, not `arrayBuffers`: an ArrayBuffer made in a
 * worker thread and transferred to this one (loadGraph's search index, built in a worker) counts in
 * `external` only (a scratch check: a 100 MiB transfer moved `external` by 100.0 MiB and
 * `arrayBuffers` by 0), so `arrayBuffers` left the search index out of every loaded graph.
 *
 * One GC is not enough: ArrayBuffer backing stores are freed after it by a background sweeper, and
 * `external` lags behind those frees, so settledMemory collects until both figures stop changing
 * (SETTLE_MAX_ROUNDS at most). Without --expose-gc (the npm scripts pass it) the readings are
 * rough, and the report says so. The peak resident set (peakRssBytes) is the kernel's figure, not
 * the heap's: what a machine must have for the process.
 */

import { readFileSync } from "node:fs";

export interface MemorySnapshot {
  heapUsed: number;
  arrayBuffers: number;
  external: number;
}

/** How long to wait between GCs for backing stores, freed off the main thread, to go. */
const SETTLE_WAIT_MS = 50;
const SETTLE_MAX_ROUNDS = 20;

export const gcAvailable = typeof (globalThis as { gc?: unknown }).gc === "function";

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  // Twice: the first pass may only queue finalizers and weak references that the second frees.
  gc();
  gc();
}

export async function settledMemory(): Promise<MemorySnapshot> {
  let lastArrayBuffers = -1;
  let lastExternal = -1;
  for (let round = 0; round < SETTLE_MAX_ROUNDS; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
    const { arrayBuffers, external } = process.memoryUsage();
    if (arrayBuffers === lastArrayBuffers && external === lastExternal) break;
    lastArrayBuffers = arrayBuffers;
    lastExternal = external;
  }
  collectGarbage();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external };
}

/** What was added between two readings. */
export function memoryDelta(before: MemorySnapshot, after: MemorySnapshot): MemorySnapshot {
  return {
    heapUsed: after.heapUsed - before.heapUsed,
    arrayBuffers: after.arrayBuffers - before.arrayBuffers,
    external: after.external - before.external,
  };
}

/** Heap + external (ArrayBuffers included, wherever they were made): the memory goals' figure. */
export function heldBytes(m: MemorySnapshot): number {
  return m.heapUsed + m.external;
}

/** Measures what `make` leaves held: settled readings around it. */
export async function measureHeld<T>(make: () => Promise<T> | T): Promise<{ value: T; held: MemorySnapshot }> {
  const before = await settledMemory();
  const value = await make();
  const after = await settledMemory();
  return { value, held: memoryDelta(before, after) };
}

/**
 * The process's peak resident set so far, bytes, as the kernel counts it (VmHWM of
 * /proc/<pid>/status: every page ever resident at once, heap or not); null where there is no /proc.
 */
export function peakRssBytes(pid: number | "self" = "self"): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

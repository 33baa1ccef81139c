/**
 * A full garbage collection, between a load's phases
 * ===================================================
 * Owns giving the loader V8's own `gc`: a load's phases each leave hundreds of MB to GBs of dead
 * ArrayBuffers behind (the statements' fingerprint table and the entity id table once the last line
 * is read, the builder's columns once copied or consumed, the statement index's working arrays), but
 * V8 frees an ArrayBuffer only when a collection finds it dead, and a thread that waits (for the
 * search index's worker) or works in typed arrays allocates too little on its heap to start one: the
 * dead arrays then stay resident under the next phase's, where the load's memory peaks (at 10M
 * entities / 100M statements, 1.4 GB under the search index's last steps). A collection at each
 * boundary costs one mark of the heap (tens to hundreds of ms: the graph's bulk is in ArrayBuffers,
 * not on the heap) and pauses the calling thread only.
 *
 * Algorithm: `--expose-gc` set at run time exposes `gc` to contexts made afterwards, so a new context
 * hands it over (as jest's leak detector does; graph-loader-worker.ts uses it for a compaction); the
 * host's own global is not changed. Where that fails, `collectGarbage` returns undefined and the load
 * goes on without it: only its memory, never its result, differs.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let cached: (() => void) | null | undefined;

/** V8's full collection of this thread's heap, or undefined where it cannot be had. */
export function collectGarbage(): (() => void) | undefined {
  if (cached === undefined) cached = exposeGc();
  return cached ?? undefined;
}

function exposeGc(): (() => void) | null {
  // Each branch: the process was started with --expose-gc (its own gc), or one is exposed now.
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === "function") return () => (own as () => void)();
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    return typeof gc === "function" ? () => (gc as () => void)() : null;
  } catch {
    return null;
  }
}

/**
 * Write-path warm-up
 * ==================
 * Owns the batches a live graph's writer runs once at open on a scratch live graph over the same
 * base (LiveGraph.warmWrites), so that the first batches a server takes do not pay for the first
 * run of the write path: V8 runs a function's loops in the interpreter and baseline code until it
 * has compiled them for the types it saw (the radix sort's, for one, specialize on the base's id
 * range), and the first batch also meets the base's arrays cold. Without it, the first 10,000-put
 * batch a writer took over HTTP on the 1M entities / 10M statements base was its slowest (median
 * 204 ms of ten runs under load 3, later ones 40 to 100; with it 86 ms), often followed by the
 * second: the two largest of 100 batches, which set the p99 of npm run bench:changes's row "HTTP
 * 10,000 puts" (its client posting to two writers in turn; the commits that brought this have the runs).
 *
 * Algorithm: WARM_WRITE_BATCHES batches of WARM_WRITE_PUTS statement puts, each naming three base
 * entities picked by a fixed Lehmer generator, one line each as JSON.stringify writes a put (the
 * form change-batch.ts reads without JSON.parse, as clients' batches are). Two batches: the second
 * merges into lists the first filled, the path every later batch takes. Nothing of the writer's
 * graph changes (the scratch graph is its own; the base and its fingerprint map are only read).
 *
 * Cost: two big batches' work once at open (about 0.1 to 0.3 s at 1M entities), and the scratch
 * delta's memory until the next collection.
 */

import type { Dictionary } from "../entities/dictionary.js";

/** Statement puts a warm-up batch holds: the size of a big client batch (the bench's 10,000). */
export const WARM_WRITE_PUTS = 10_000;
/** Warm-up batches: one into empty lists, one into lists that hold items. */
export const WARM_WRITE_BATCHES = 2;

/** Park and Miller's minimal standard generator (x -> 48271 x mod 2^31 - 1): fixed, no state shared. */
const LEHMER_MULTIPLIER = 48_271;
const LEHMER_MODULUS = 2_147_483_647;

/**
 * Batch `index` (0, 1, ...) of the warm-up over the base entities of `dictionary` (which has at
 * least one): WARM_WRITE_PUTS statement puts of base entities, JSON Lines.
 */
export function warmupBatch(dictionary: Dictionary, index: number): string {
  const n = dictionary.size;
  // A seed in 1..modulus - 1 for each batch (0 would stay 0).
  let x = 1 + ((index * 7919 + 1) % (LEHMER_MODULUS - 1));
  const pick = (): string => {
    x = (x * LEHMER_MULTIPLIER) % LEHMER_MODULUS;
    return dictionary.entityId(x % n);
  };
  const lines: string[] = new Array<string>(WARM_WRITE_PUTS);
  for (let i = 0; i < WARM_WRITE_PUTS; i++)
    lines[i] = JSON.stringify({
      op: "put",
      statement: { subjectEntityId: pick(), predicateEntityId: pick(), objectEntityId: pick() },
    });
  return lines.join("\n");
}

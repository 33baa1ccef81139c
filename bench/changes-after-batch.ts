/**
 * Reads right after a batch (bench:changes)
 * =========================================
 * A client that writes and then reads back what it wrote: AFTER_BATCH_ROUNDS batches of one change
 * on the live graph (base + the bench's delta), each followed by a read of what the batch wrote,
 * timed, then by the same read again, timed. The first read pays for what the batch left to the
 * next read (structures a batch changes are brought up to date at the first read that needs them:
 * a gram's sorted list and its summary, the filters of the tombstoned and replaced entities); the
 * second is the steady read. Two kinds:
 *  - a batch of 1 entity put (a new entity, named after a base entity's name with a suffix), then
 *    a search for a piece of its name (3 to 6 code units: drawQueries);
 *  - a batch of 1 statement put, then the statements of its subject.
 * Each row gives the first reads' percentiles (ms), and the same read again's in its detail.
 *
 * Cost: 2 x AFTER_BATCH_ROUNDS batches (each fsync'd when the store has a change log) and twice as
 * many reads.
 */

import type { Change, LiveGraph } from "../src/index.js";
import { changesRow } from "./changes-http.js";
import { drawQueries } from "./changes.bench.js";
import { num } from "./format.js";
import type { ChangesRow } from "./results.js";
import { summarize } from "./sample.js";

/** Batches of each kind. */
export const AFTER_BATCH_ROUNDS = 200;

/** The part of a live store this needs: apply a batch, and the graph it applies to. */
interface Store {
  apply(batch: readonly Change[]): unknown;
  readonly graph: LiveGraph;
}

/** The rows, over `store` (base + delta), new entities numbered from `run` (their entityIds unused). */
export function readsAfterBatches(
  store: Store,
  pickPresent: () => string,
  rand: () => number,
  run: string,
): ChangesRow[] {
  const graph = store.graph;
  const time = (read: () => unknown): number => {
    const t = performance.now();
    read();
    return performance.now() - t;
  };
  const searchFirst: number[] = [];
  const searchAgain: number[] = [];
  for (let i = 0; i < AFTER_BATCH_ROUNDS; i++) {
    const named = graph.getEntity(pickPresent())!;
    const rawIdentifier = `${named.rawIdentifier} (added ${i})`;
    store.apply([{ op: "put", entity: { entityId: `${run}-${i}`, rawIdentifier, type: "0", sourceType: "bench" } }]);
    const q = drawQueries([{ rawIdentifier }], 1, rand)[0]!;
    searchFirst.push(time(() => graph.search({ q })));
    searchAgain.push(time(() => graph.search({ q })));
  }
  const statementsFirst: number[] = [];
  const statementsAgain: number[] = [];
  for (let i = 0; i < AFTER_BATCH_ROUNDS; i++) {
    const subjectEntityId = pickPresent();
    store.apply([
      { op: "put", statement: { subjectEntityId, predicateEntityId: pickPresent(), objectEntityId: pickPresent() } },
    ]);
    statementsFirst.push(time(() => graph.statements({ subjectEntityId })));
    statementsAgain.push(time(() => graph.statements({ subjectEntityId })));
  }
  const again = (samples: number[]): string => {
    const s = summarize(samples);
    return `the same read again: p50 ${num(s.p50us / 1000, 3)} ms, p99 ${num(s.p99us / 1000, 3)} ms`;
  };
  return [
    changesRow("search right after a batch of 1 entity put (a piece of its name)", searchFirst, again(searchAgain)),
    changesRow(
      "statements S right after a batch of 1 statement put (its subject)",
      statementsFirst,
      again(statementsAgain),
    ),
  ];
}

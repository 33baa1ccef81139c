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
 *    a search for a piece of its name (3 to 6 code units: drawQueries), in order "name" and, after
 *    batches of their own, in order "score";
 *  - a batch of 1 statement put, then the statements of its subject, and (after batches of their
 *    own) of its subject and predicate.
 * Each row gives the first reads' percentiles (ms), and the same read again's in its detail.
 *
 * Cost: 4 x AFTER_BATCH_ROUNDS batches (each fsync'd when the store has a change log) and twice as
 * many reads.
 */

import type { Change, LiveGraph } from "../src/index.js";
import { changesRow } from "./changes-http.js";
import { drawQueries } from "./changes-queries.js";
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
  /** First reads and the same reads again, of searches in `order` for a piece of the name of an entity just put. */
  const searches = (order: "name" | "score"): [number[], number[]] => {
    const first: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < AFTER_BATCH_ROUNDS; i++) {
      const named = graph.getEntity(pickPresent())!;
      const rawIdentifier = `${named.rawIdentifier} (added ${i})`;
      const entityId = `${run}-${order}-${i}`;
      store.apply([{ op: "put", entity: { entityId, rawIdentifier, type: "0", sourceType: "bench" } }]);
      const q = drawQueries([{ rawIdentifier }], 1, rand)[0]!;
      first.push(time(() => graph.search({ q, order })));
      again.push(time(() => graph.search({ q, order })));
    }
    return [first, again];
  };
  const [searchFirst, searchAgain] = searches("name");
  // Order "score"'s first read over the delta brings every count the delta changed up to date
  // (rescored: once, not per batch): made before the timed reads.
  graph.search({ q: "the", order: "score" });
  const [scoreFirst, scoreAgain] = searches("score");
  /**
   * First reads and the same reads again, of the statements of a statement just put by its subject
   * (`withPredicate`: and its predicate, a query of two filters).
   */
  const statements = (withPredicate: boolean): [number[], number[]] => {
    const first: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < AFTER_BATCH_ROUNDS; i++) {
      const subjectEntityId = pickPresent();
      const predicateEntityId = pickPresent();
      store.apply([{ op: "put", statement: { subjectEntityId, predicateEntityId, objectEntityId: pickPresent() } }]);
      const filters = withPredicate ? { subjectEntityId, predicateEntityId } : { subjectEntityId };
      first.push(time(() => graph.statements(filters)));
      again.push(time(() => graph.statements(filters)));
    }
    return [first, again];
  };
  const [statementsFirst, statementsAgain] = statements(false);
  const [pairFirst, pairAgain] = statements(true);
  const again = (samples: number[]): string => {
    const s = summarize(samples);
    return `the same read again: p50 ${num(s.p50us / 1000, 3)} ms, p99 ${num(s.p99us / 1000, 3)} ms`;
  };
  return [
    changesRow("search right after a batch of 1 entity put (a piece of its name)", searchFirst, again(searchAgain)),
    changesRow(
      "search order=score right after a batch of 1 entity put (a piece of its name)",
      scoreFirst,
      again(scoreAgain),
    ),
    changesRow(
      "statements S right after a batch of 1 statement put (its subject)",
      statementsFirst,
      again(statementsAgain),
    ),
    changesRow(
      "statements S+P right after a batch of 1 statement put (its subject and predicate)",
      pairFirst,
      again(pairAgain),
    ),
  ];
}

/**
 * A pause for a thread that serves
 * ================================
 * Owns how work on the serving thread that cannot run in one go without stalling requests (a
 * handed-over graph's restore, a compaction's swap and the collection after it) gives the requests
 * waiting meanwhile their turn: `servingPause()`, awaited between two pieces of that work.
 *
 * Why a timer of SERVING_PAUSE_MS, not setImmediate: a request made while the thread was busy most
 * often comes on a connection of its own (a keep-alive client's sockets are all taken by the
 * requests it already waits on), and such connections came through at about one a turn of the
 * event loop: with a setImmediate turn (or a 1 ms timer) between pieces of 70 ms, the requests made
 * during 6 pieces waited for nearly the whole (max 330 to 380 ms; none: 420 ms); with a timer of
 * 3 ms, for one or two pieces (70 to 160 ms); with 10 ms, for one (62 to 76 ms). Measured by
 * `npm run bench:serving-pause` (3 rounds, 2 cores shared). At a compaction over 1M entities /
 * 10M statements, the max of /healthz and search during it was 290-360 ms with setImmediate
 * pauses (two runs), 71-130 ms with these (three; `npm run bench:changes -- --compaction-only`).
 *
 * Cost: SERVING_PAUSE_MS of wall time a pause (the work it splits takes tens of ms a piece).
 */

/** How long a pause lets the event loop run (see the banner: 3 ms and up measured enough). */
export const SERVING_PAUSE_MS = 10;

/** Resolves after SERVING_PAUSE_MS, the event loop free meanwhile: requests waiting run first. */
export function servingPause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SERVING_PAUSE_MS));
}

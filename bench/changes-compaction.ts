/**
 * Compaction under load (part of `npm run bench:changes`)
 * =======================================================
 * What a client sees while a server compacts: a `quiver serve --snapshot BASE --changes DIR
 * --compact-after 1` child opens the base with the bench's change log (the delta: its batches are
 * replayed at open), and one client on a thread of its own (changes-probe.ts: this thread's heap,
 * the graph and its ids, collects in pauses that would count as the server's) sends, at a steady
 * pace (open loop: a request goes out on its tick whether or not the one before has answered, so a
 * stall of the server shows as the latency of every request it held):
 *  - GET /healthz and GET /graph/v1/search?q=... (distinct queries) alternately, every PROBE_MS;
 *  - a batch of 1 statement put every WRITE_MS (batches keep coming while the worker builds, and
 *    the first after the swap is the first write over the new base).
 * First for BASELINE_MS with no compaction (the same load: what the figures are compared with), then
 * a batch starts the compaction (the delta is over --compact-after), and the probes go on until the
 * server's event log says `compacted`, plus AFTER_MS (the first reads and writes over the new base).
 * Every answer but 200 is an error. Each window's /healthz row says how long the probing thread
 * itself spent in GC (what of its latencies is the client's, not the server's), and the puts' row
 * the first put sent after the `compacted` event.
 *
 * Memory: the server's resident set once it serves base + delta (VmRSS, after the baseline) and its
 * peak from the start of the compaction to its swap (VmHWM, reset by writing 5 to
 * /proc/PID/clear_refs just before the compaction starts, read at the `compacted` event), from
 * /proc: the goal is a peak at most 2x. The first write after the swap starts a second compaction
 * (--compact-after 1): the probes go on to its end, and its row gives the peak through both.
 */

import { readFileSync, writeFileSync } from "node:fs";

import { changesRow, serve, stopServer } from "./changes-http.js";
import { PROBE_MS, type Probes, startProbeThread, WRITE_MS } from "./changes-probe.js";
import { progress } from "./format.js";
import type { ChangesRow } from "./results.js";

const BASELINE_MS = 5_000;
const AFTER_MS = 3_000;
/** Longest a compaction may take before the row gives up (a 10M/100M base takes minutes). */
const COMPACTION_TIMEOUT_MS = 30 * 60_000;
/** Statement lines made for the probing thread: a new one for every put of both compactions at their longest. */
const STATEMENT_LINES = Math.ceil((2 * COMPACTION_TIMEOUT_MS + AFTER_MS) / WRITE_MS) + 2;

export interface CompactionUnderLoad {
  rows: ChangesRow[];
  /** The server's resident set serving base + delta, before the compaction. */
  rssBeforeBytes: number;
  /** Its peak resident set from the compaction's start to its swap. */
  peakRssBytes: number;
  /** Its peak resident set from the first compaction's start to the end of the second. */
  secondPeakRssBytes: number;
  /** From the batch that started it to the `compacted` event. */
  compactionMs: number;
  errors: number;
  /** The probing thread's time in GC, ms: before, during and through the second compaction. */
  probeGcMs: { baseline: number; during: number; second: number };
}

/** A /proc/PID/status figure in bytes (`VmRSS`, `VmHWM`). */
function statusBytes(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (m === null) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]) * 1024;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The row over the base snapshot at `snapshot` and the change log at `dir` (holding the delta);
 * `queries` are search terms, `statement()` makes a statement put line over the base's entities.
 */
export async function runCompactionUnderLoad(
  snapshot: string,
  dir: string,
  queries: readonly string[],
  statement: () => string,
): Promise<CompactionUnderLoad> {
  let onCompacted: (ms: number) => void = () => {};
  let onSecond: (ms: number) => void = () => {};
  let onFailed: (why: string) => void = () => {};
  let onSecondFailed: (why: string) => void = () => {};
  const compacted = new Promise<number>((resolve, reject) => {
    onCompacted = resolve;
    onFailed = (why) => reject(new Error(`the background compaction failed: ${why}`));
  });
  const second = new Promise<number>((resolve, reject) => {
    onSecond = resolve;
    onSecondFailed = (why) => reject(new Error(`the second background compaction failed: ${why}`));
  });
  // Awaited after the first: a failure before then is not an unhandled rejection.
  second.catch(() => undefined);
  let compactions = 0;
  /** When this thread read the first `compacted` event, ms since the epoch (the probes' writeStarts' clock). */
  let swappedAt = Number.NaN;
  const server = await serve(["--snapshot", snapshot, "--changes", dir, "--compact-after", "1"], (line) => {
    if (!line.startsWith("{")) return;
    const event = JSON.parse(line) as { event?: string; compactMs?: number; error?: string };
    // Each branch: the first compaction's end, or the second's (the first write after the swap starts it).
    if (event.event === "compacted") {
      if (compactions === 0) swappedAt = performance.timeOrigin + performance.now();
      (++compactions === 1 ? onCompacted : onSecond)(event.compactMs ?? Number.NaN);
    }
    if (event.event === "compaction-failed") (compactions === 0 ? onFailed : onSecondFailed)(event.error ?? "");
  });
  const prober = startProbeThread(
    queries,
    Array.from({ length: STATEMENT_LINES }, () => statement()),
  );
  try {
    progress("compaction under load: the baseline (no compaction)");
    // The baseline never writes: a write would start the compaction (the delta is over --compact-after).
    const baseline = await prober.run(server.port, false, sleep(BASELINE_MS));
    const rssBeforeBytes = statusBytes(server.child.pid!, "VmRSS");
    // Resets the peak (VmHWM) to the resident set now: the peak read at the end is the compaction's.
    writeFileSync(`/proc/${server.child.pid}/clear_refs`, "5");
    progress(`compaction under load: ${Math.round(rssBeforeBytes / 2 ** 20)} MiB resident; compacting`);
    const started = performance.now();
    let compactionMs = Number.NaN;
    // The peak is read when the swap is done: with --compact-after 1 the first write after it starts
    // the next compaction, whose build (over the first's base and the snapshot, 3x) is not this one's.
    let peakRssBytes = Number.NaN;
    const timeout = setTimeout(() => onFailed("no compacted event in time"), COMPACTION_TIMEOUT_MS);
    const during = await prober.run(
      server.port,
      true,
      compacted.then(async () => {
        compactionMs = performance.now() - started;
        peakRssBytes = statusBytes(server.child.pid!, "VmHWM");
        await sleep(AFTER_MS);
      }),
    );
    clearTimeout(timeout);
    await compacted;
    // The writes after the swap started a second compaction: its build runs beside the base the
    // first swapped in (built in shared memory by the first's worker, and the source of this one);
    // the snapshot's arrays went with the first swap.
    progress("compaction under load: a second compaction (started by the writes after the swap)");
    const secondTimeout = setTimeout(() => onSecondFailed("no second compacted event in time"), COMPACTION_TIMEOUT_MS);
    const later = await prober.run(server.port, true, second);
    clearTimeout(secondTimeout);
    const secondMs = await second;
    const secondPeakRssBytes = statusBytes(server.child.pid!, "VmHWM");
    const ratio = peakRssBytes / rssBeforeBytes;
    const firstAfter = during.writes[during.writeStarts.findIndex((t) => t >= swappedAt)];
    const gc = (p: Probes): string =>
      `; the probe thread's GC ${p.gcMs.toFixed(1)} ms (${p.gcs}, longest ${p.gcMaxMs.toFixed(1)} ms)`;
    const mib = (b: number): string => `${Math.round(b / 2 ** 20).toLocaleString("en-US")} MiB`;
    const rows = [
      changesRow(
        "HTTP /healthz, no compaction",
        baseline.healthz,
        `every ${PROBE_MS * 2} ms, ${baseline.errors} errors${gc(baseline)}`,
      ),
      changesRow("HTTP search, no compaction", baseline.search, `every ${PROBE_MS * 2} ms, distinct queries`),
      changesRow(
        "HTTP /healthz during compaction",
        during.healthz,
        `${during.errors} errors; compaction ${(compactionMs / 1000).toFixed(1)} s; peak resident ${mib(peakRssBytes)}, ${mib(rssBeforeBytes)} before: ${ratio.toFixed(2)}x${gc(during)}`,
        "p99 <= 50 ms, max <= 250 ms, no error; peak memory <= 2x",
      ),
      changesRow("HTTP search during compaction", during.search, "", "p99 <= 50 ms, max <= 250 ms, no error"),
      changesRow(
        "HTTP 1 put during compaction",
        during.writes,
        `every ${WRITE_MS} ms; the first after the swap included (${firstAfter === undefined ? "none" : `${firstAfter.toFixed(1)} ms`})`,
      ),
      changesRow(
        "HTTP /healthz during a 2nd compaction",
        later.healthz,
        `${later.errors} errors; compaction ${(secondMs / 1000).toFixed(1)} s; peak resident through both ${mib(secondPeakRssBytes)}: ${(secondPeakRssBytes / rssBeforeBytes).toFixed(2)}x${gc(later)}`,
        "p99 <= 50 ms, max <= 250 ms, no error; peak memory <= 2x",
      ),
      changesRow("HTTP search during a 2nd compaction", later.search, "", "p99 <= 50 ms, max <= 250 ms, no error"),
    ];
    return {
      rows,
      rssBeforeBytes,
      peakRssBytes,
      secondPeakRssBytes,
      compactionMs,
      errors: baseline.errors + during.errors + later.errors,
      probeGcMs: { baseline: baseline.gcMs, during: during.gcMs, second: later.gcMs },
    };
  } finally {
    await prober.close();
    await stopServer(server);
  }
}

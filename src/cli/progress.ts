/**
 * Loading progress on stderr
 * ==========================
 * Turns the loader's progress reports into lines a person can follow: per file, lines read, bytes of
 * the total, the rate; per build phase, how far it is; while a file or a phase is under way, an
 * estimate of the time it has left (what is left at the rate so far). On a terminal one line is rewritten in place;
 * otherwise (a log file, a pipe) at most one line per PRINT_INTERVAL_MS, plus the last of each phase.
 * `summary` is the ready line: entities, statements, time, memory (now, and the resident peak so far).
 */

import type { Graph } from "../engine/graph.js";
import type { LoadProgress } from "../load/jsonl.js";

/** Least time between two progress lines when stderr is not a terminal. */
const PRINT_INTERVAL_MS = 1000;

const count = (n: number): string => n.toLocaleString("en-US");
const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

export function describeProgress(p: LoadProgress): string {
  if ("totalBytes" in p) {
    const rate = p.elapsedMs > 0 ? Math.round((p.lines * 1000) / p.elapsedMs) : 0;
    // stdin has no known size: bytes read, without a total or a percentage.
    const { totalBytes } = p;
    const amount =
      totalBytes === undefined
        ? `${megabytes(p.bytes)} MB`
        : `${megabytes(p.bytes)} of ${megabytes(totalBytes)} MB (${totalBytes > 0 ? Math.floor((100 * p.bytes) / totalBytes) : 100}%)`;
    return (
      `reading ${p.phase} ${p.file}: ${count(p.lines)} lines, ${amount}, ${count(rate)} lines/s` +
      (p.finished ? ", done" : timeLeft(p.bytes, totalBytes, p.elapsedMs))
    );
  }
  const percent = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
  return (
    `building ${p.phase}: ${percent}% (${(p.elapsedMs / 1000).toFixed(1)} s${p.finished ? "" : timeLeft(p.done, p.total, p.elapsedMs)})` +
    (p.finished ? ", done" : "")
  );
}

/**
 * ", about N s left": what is left of `total` at the rate of `done` so far, rounded up; "" when
 * nothing can be told yet (nothing done, or no total: stdin).
 */
function timeLeft(done: number, total: number | undefined, elapsedMs: number): string {
  if (total === undefined || done <= 0 || elapsedMs <= 0 || done >= total) return "";
  const seconds = Math.ceil(((total - done) * elapsedMs) / done / 1000);
  return `, about ${count(seconds)} s left`;
}

export function createProgressPrinter(err: NodeJS.WriteStream = process.stderr): (p: LoadProgress) => void {
  const tty = err.isTTY === true;
  let lastPrintedAt = -Infinity;
  return (p) => {
    const line = describeProgress(p);
    if (tty) {
      // \r and "erase to end of line": the same line, rewritten; a finished phase keeps its line.
      err.write(`\r\x1b[K${line}${p.finished ? "\n" : ""}`);
      return;
    }
    const now = performance.now();
    if (!p.finished && now - lastPrintedAt < PRINT_INTERVAL_MS) return;
    lastPrintedAt = now;
    err.write(line + "\n");
  };
}

export function summary(graph: Graph, elapsedMs: number): string {
  const mem = process.memoryUsage();
  // The process's peak resident set so far (the kernel's, in KiB): what a build needs of the host.
  const peak = process.resourceUsage().maxRSS * 1024;
  return (
    `ready: ${count(graph.entityCount)} entities, ${count(graph.statementCount)} statements, ` +
    `loaded and built in ${(elapsedMs / 1000).toFixed(2)} s; memory: heap ${megabytes(mem.heapUsed)} MB, array buffers ${megabytes(mem.arrayBuffers)} MB, rss ${megabytes(mem.rss)} MB, peak rss ${megabytes(peak)} MB`
  );
}

/**
 * Crash test of the change log
 * ============================
 * A child process (test/support/live-writer.ts) applies a seeded stream of batches to a live graph
 * with a change log, acknowledging each on stdout once apply has returned; it is killed with SIGKILL
 * at a random moment (after a random number of acknowledgements, a random few milliseconds into
 * the next batches). Reopened here: every acknowledged batch is there, the one in flight is whole
 * or absent (the sequence is the last acknowledged or one more), and the content equals a graph built
 * from scratch from the same batches (the oracle's content after that many batches; same content
 * tag). The log then takes more batches from the reopened writer.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openLive } from "../../src/changes/live-store.js";
import { BatchStream } from "../support/live-oracle.js";
import { buildGraph, Rng } from "../support/oracle.js";

const WRITER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "live-writer.js");

/** Runs the writer until `acks` batches are acknowledged, then `delayMs` more, then SIGKILL; the last ack. */
function runAndKill(dir: string, seed: number, acks: number, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, String(seed)], { stdio: ["ignore", "pipe", "pipe"] });
    let last = 0;
    let out = "";
    let err = "";
    let killing = false;
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      err += d;
    });
    child.stdout.on("data", (d: string) => {
      out += d;
      let nl = out.indexOf("\n");
      while (nl >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        nl = out.indexOf("\n");
        const m = /^ack (\d+)$/.exec(line);
        if (m === null) continue;
        // Every acknowledgement read counts, those that arrive while the kill is pending too.
        last = Number(m[1]);
        if (!killing && last >= acks) {
          killing = true;
          setTimeout(() => child.kill("SIGKILL"), delayMs);
        }
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer exited with ${code} ${signal}: ${err}`));
      // A last line cut short by the kill was never fully acknowledged: it does not count.
      else resolve(last);
    });
  });
}

test("SIGKILL mid-stream: every acknowledged batch is there, the one in flight whole or absent", async () => {
  const rng = new Rng(2025);
  for (let round = 0; round < 4; round++) {
    const dir = mkdtempSync(join(tmpdir(), "quiver-crash-"));
    try {
      const seed = 100 + round;
      const lastAck = await runAndKill(dir, seed, rng.range(3, 30), rng.int(8));
      const stream = new BatchStream(seed);
      const base = buildGraph(stream.data);
      const store = openLive(base, dir);
      const sequence = store.sequence;
      const ctx = `round ${round}: acknowledged ${lastAck}, reopened at ${sequence}`;
      assert.ok(sequence === lastAck || sequence === lastAck + 1, ctx);
      const batches = Array.from({ length: sequence }, () => stream.next());
      assert.is(batches.length, sequence);
      assert.is(store.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag, ctx);
      // The log goes on from there.
      assert.is(store.apply(stream.next()).sequence, sequence + 1, ctx);
      store.close();
      const again = openLive(base, dir);
      assert.is(again.graph.buildCompacted().contentTag, buildGraph(stream.oracle.data()).contentTag, ctx);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test.run();

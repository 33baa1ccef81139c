/**
 * Live writer (a child process of the crash test)
 * ===============================================
 * `node live-writer.js DIR SEED`: opens the seeded base of BatchStream(SEED) with the change log at
 * DIR and applies the stream's batches one after another, writing `ack N` to stdout once batch N's
 * apply has returned (durable and visible), until it is killed. test/changes/change-log-crash.test.ts
 * kills it with SIGKILL at a random moment and checks what the log kept.
 */

import { writeSync } from "node:fs";
import { openLive } from "../../src/changes/live-store.js";
import { BatchStream } from "./live-oracle.js";
import { buildGraph } from "./oracle.js";

const [dir, seedText] = process.argv.slice(2);
if (dir === undefined || seedText === undefined) throw new Error("usage: live-writer.js DIR SEED");
const stream = new BatchStream(Number(seedText));
const store = openLive(buildGraph(stream.data), dir);
writeSync(1, `ready ${store.sequence}\n`);
for (;;) {
  const result = store.apply(stream.next());
  writeSync(1, `ack ${result.sequence}\n`);
}

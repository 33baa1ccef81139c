/**
 * The bench's memory readings (bench/memory.ts) count what a structure holds wherever its arrays
 * were made: a buffer built in a worker thread and transferred here (as loadGraph's search index
 * is) counts as much as one made on this thread.
 */

import { Worker } from "node:worker_threads";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { heldBytes, measureHeld } from "../../bench/memory.js";

const MIB = 1024 * 1024;
const SIZE = 256 * MIB;
/**
 * Share of SIZE a reading must show. Under `npm test` there is no --expose-gc, so garbage left by
 * other tests may be collected during a reading and lower it by tens of MiB; a reading that leaves
 * the array out shows about 0.
 */
const MIN_SHARE = 0.8;

/** A SIZE-byte array made in a worker and transferred to this thread. */
async function fromWorker(): Promise<Uint8Array> {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     const a = new Uint8Array(${SIZE}); a.fill(1);
     parentPort.postMessage(a, [a.buffer]);`,
    { eval: true },
  );
  const array = await new Promise<Uint8Array>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  return array;
}

test("an array transferred from a worker counts as held", async () => {
  const { value, held } = await measureHeld(fromWorker);
  assert.is(value.byteLength, SIZE);
  assert.ok(
    heldBytes(held) >= SIZE * MIN_SHARE,
    `held ${(heldBytes(held) / MIB).toFixed(1)} MiB of a ${SIZE / MIB} MiB array`,
  );
});

test("an array made on this thread counts as held", async () => {
  const { value, held } = await measureHeld(() => new Uint8Array(SIZE).fill(1));
  assert.is(value.byteLength, SIZE);
  assert.ok(
    heldBytes(held) >= SIZE * MIN_SHARE,
    `held ${(heldBytes(held) / MIB).toFixed(1)} MiB of a ${SIZE / MIB} MiB array`,
  );
});

test.run();

/**
 * Content tag hashing in a worker thread
 * ======================================
 * Owns hashing a content tag's bytes (engine/content-tag.ts, TagHashing) on a second core: at the end
 * of a build the loading thread writes the tag's canonical bytes (every entity and statement, 48
 * bytes a statement) batch by batch, and this worker runs the SHA-256 of each batch while the next
 * is written, so the hash (about a third of the phase) leaves the loading thread. The same bytes in
 * the same order reach one SHA-256: the tag is the one hashing on one thread gives.
 *
 * Shared memory (one SharedArrayBuffer): SLOTS batches of TAG_BATCH_BYTES, a control array of
 * Int32s (state of each slot, bytes in each slot, done) and the 32 bytes of the digest.
 *   writer   waits until slot k is FREE, fills it, stores its length and FULL, notifies; k + 1 next
 *   worker   waits until slot k is not FREE; FULL: hashes its bytes, stores FREE, notifies; END:
 *            writes the digest, stores done, notifies, and ends
 *   writer   (digest) stores END in its next slot, waits for done, reads the digest
 * Both sides wait with Atomics.wait: the writer is synchronous (contentTag is a plain function, run
 * while the Graph is made), so it cannot take a message; a worker that stops answering for
 * STALL_MS (it died) fails the build rather than hang it.
 *
 * Cost: starting the worker (tens of milliseconds, while the first batches are written), SLOTS MiB
 * of shared memory; on the loading thread a wait only when the hash falls behind.
 * This file is also the worker's entry point (it runs when loaded as a worker with its workerData).
 */

import { createHash } from "node:crypto";
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { TAG_BATCH_BYTES, type TagHashing } from "../engine/content-tag.js";

/** workerData's kind of this file's worker. */
const KIND = "quiver.tag-hash";
/** Batches in flight: the writer fills one while the worker hashes the others. */
const SLOTS = 4;
/** Longest wait for the worker before the build fails (it died or never started). */
const STALL_MS = 120_000;
/** SHA-256's digest bytes. */
const DIGEST_BYTES = 32;

/** Slot states. */
const FREE = 0;
const FULL = 1;
const END = 2;
/** Control words: SLOTS states, SLOTS lengths, then done. */
const LENGTHS = SLOTS;
const DONE = 2 * SLOTS;
const CONTROL_WORDS = DONE + 1;

interface HashRequest {
  kind: typeof KIND;
  shared: SharedArrayBuffer;
}

/** The views of the shared memory, the same on both sides. */
function views(shared: SharedArrayBuffer): { slots: Uint8Array; control: Int32Array; digest: Uint8Array } {
  const slotBytes = SLOTS * TAG_BATCH_BYTES;
  return {
    slots: new Uint8Array(shared, 0, slotBytes),
    control: new Int32Array(shared, slotBytes, CONTROL_WORDS),
    digest: new Uint8Array(shared, slotBytes + 4 * CONTROL_WORDS, DIGEST_BYTES),
  };
}

/** Waits until control[at] is no longer `value`; throws when the worker is silent for STALL_MS. */
function waitWhile(control: Int32Array, at: number, value: number): void {
  while (Atomics.load(control, at) === value) {
    if (Atomics.wait(control, at, value, STALL_MS) === "timed-out") {
      throw new Error(`content tag: the hashing thread has not answered for ${STALL_MS / 1000} s`);
    }
  }
}

/** Starts a worker that hashes a content tag's bytes; the TagHashing its writer uses (once). */
export function startTagHashThread(): TagHashing {
  const shared = new SharedArrayBuffer(SLOTS * TAG_BATCH_BYTES + 4 * CONTROL_WORDS + DIGEST_BYTES);
  const { slots, control, digest } = views(shared);
  const worker = new Worker(new URL(import.meta.url), { workerData: { kind: KIND, shared } satisfies HashRequest });
  // The worker ends by itself after the digest; it never keeps the process alive.
  worker.unref();
  let k = 0;
  const slot = (i: number): Uint8Array => slots.subarray(i * TAG_BATCH_BYTES, (i + 1) * TAG_BATCH_BYTES);
  return {
    batch: () => {
      waitWhile(control, k, FULL);
      return slot(k);
    },
    update: (length) => {
      Atomics.store(control, LENGTHS + k, length);
      Atomics.store(control, k, FULL);
      Atomics.notify(control, k);
      k = (k + 1) % SLOTS;
    },
    digest: () => {
      waitWhile(control, k, FULL);
      Atomics.store(control, k, END);
      Atomics.notify(control, k);
      waitWhile(control, DONE, 0);
      return Buffer.from(digest).toString("hex");
    },
  };
}

/** The worker: hash each full slot in turn until the end, then write the digest and end. */
function runHashWorker(request: HashRequest): void {
  const { slots, control, digest } = views(request.shared);
  const hash = createHash("sha256");
  for (let k = 0; ; k = (k + 1) % SLOTS) {
    // A writer silent for STALL_MS failed (its build threw): this thread ends, leaving nothing behind.
    while (Atomics.load(control, k) === FREE) if (Atomics.wait(control, k, FREE, STALL_MS) === "timed-out") return;
    if (Atomics.load(control, k) === END) break;
    const from = k * TAG_BATCH_BYTES;
    hash.update(slots.subarray(from, from + Atomics.load(control, LENGTHS + k)));
    Atomics.store(control, k, FREE);
    Atomics.notify(control, k);
  }
  digest.set(hash.digest());
  Atomics.store(control, DONE, 1);
  Atomics.notify(control, DONE);
}

// This file runs as its worker when loaded with that workerData, else as a module.
const request = isMainThread ? undefined : (workerData as Partial<HashRequest> | null);
if (request?.kind === KIND) runHashWorker(request as HashRequest);

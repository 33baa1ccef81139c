/**
 * Statement order sort thread tests
 * =================================
 * src/load/order-threads.ts and engine/statements/counting-sort.ts: a sort pass cut into chunks
 * (on this thread, and on 2 and 3 threads) equals a stable sort of the rows by key, on seeded random
 * keys of a wide and a narrow range, and with fewer rows than threads; a gather on 2 and 3 threads
 * reads each row's value; and loadGraph with 1 and with
 * 2 and 3 threads (the orders sorted by the threads) gives the same content tag and snapshot bytes,
 * on seeded generated graphs with runs of one triple under several fingerprints.
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { loadGraph } from "../../src/load/jsonl.js";
import { startOrderThreads } from "../../src/load/order-threads.js";
import {
  chunkBounds,
  chunkOffsets,
  countChunk,
  gatherChunk,
  scatterChunk,
  sortPass,
} from "../../src/engine/statements/counting-sort.js";
import { generateGraph, Rng } from "../support/oracle.js";
import { snapshotBytes } from "../support/snapshot.js";

let root = "";

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-order-threads-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A seeded pass: `m` rows (a random permutation) with keys below `range`, on shared arrays. */
function randomPass(rng: Rng, m: number, range: number) {
  const shared = (n: number) => new Uint32Array(new SharedArrayBuffer(4 * Math.max(n, 1))).subarray(0, n);
  const order = shared(m);
  for (let i = 0; i < m; i++) order[i] = i;
  for (let i = m - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const key = shared(m);
  for (let i = 0; i < m; i++) key[i] = rng.int(range);
  return { order, key, range, out: shared(m) };
}

/** The oracle: the rows stably sorted by key (Array.prototype.sort is stable). */
function expected(order: Uint32Array, key: Uint32Array): number[] {
  return Array.from(order).sort((a, b) => key[a]! - key[b]!);
}

for (const [seed, m, range] of [
  [1, 5000, 4000],
  [2, 5000, 7],
  [3, 2, 3],
  [4, 0, 1],
  [5, 1001, 1],
] as const) {
  test(`seed ${seed}: ${m} rows, keys below ${range}: chunked on this thread (1 to 4 chunks) as a stable sort`, () => {
    const pass = randomPass(new Rng(seed), m, range);
    const want = expected(pass.order, pass.key);
    for (let threads = 1; threads <= 4; threads++) {
      const counts = Array.from({ length: threads }, () => new Uint32Array(range));
      const chunks = Array.from({ length: threads }, (_, t) => chunkBounds(m, t, threads));
      for (const [t, [lo, hi]] of chunks.entries()) countChunk(pass.order, pass.key, lo, hi, counts[t]!);
      chunkOffsets(counts, range);
      pass.out.fill(0);
      for (const [t, [lo, hi]] of chunks.entries()) scatterChunk(pass.order, pass.key, lo, hi, counts[t]!, pass.out);
      assert.equal(Array.from(pass.out), want, `${threads} chunks`);
    }
    pass.out.fill(0);
    sortPass(pass, new Uint32Array(range));
    assert.equal(Array.from(pass.out), want, "sortPass");
  });

  test(`seed ${seed}: ${m} rows, keys below ${range}: the identity order (null) on 1 to 3 threads as a stable sort`, async () => {
    const { key, out } = randomPass(new Rng(seed), m, range);
    const pass = { order: null, key, range, out };
    const want = expected(
      Uint32Array.from({ length: m }, (_, i) => i),
      key,
    );
    out.fill(0);
    sortPass(pass, new Uint32Array(range));
    assert.equal(Array.from(out), want, "sortPass");
    for (const threads of [2, 3]) {
      const sorter = startOrderThreads(threads, range);
      try {
        out.fill(0);
        await sorter.sort(pass);
        assert.equal(Array.from(out), want, `${threads} threads`);
      } finally {
        sorter.stop();
      }
    }
  });

  test(`seed ${seed}: ${m} rows, keys below ${range}: on 2 and 3 threads as a stable sort`, async () => {
    const pass = randomPass(new Rng(seed), m, range);
    const want = expected(pass.order, pass.key);
    for (const threads of [2, 3]) {
      const sorter = startOrderThreads(threads, range);
      try {
        // Twice on one sorter: its counts are reused from pass to pass.
        for (let round = 0; round < 2; round++) {
          pass.out.fill(0);
          await sorter.sort(pass);
          assert.equal(Array.from(pass.out), want, `${threads} threads, round ${round}`);
        }
      } finally {
        sorter.stop();
      }
    }
  });

  test(`seed ${seed}: ${m} rows: a gather in SPO order on 2 and 3 threads reads each row's value`, async () => {
    const pass = randomPass(new Rng(seed + 100), m, range);
    const gather = { into: pass.out, column: pass.key, order: pass.order };
    const want = Array.from(pass.order, (row) => pass.key[row]!);
    for (const threads of [2, 3]) {
      const sorter = startOrderThreads(threads, range);
      try {
        pass.out.fill(0);
        await sorter.gather(gather);
        assert.equal(Array.from(pass.out), want, `${threads} threads`);
      } finally {
        sorter.stop();
      }
    }
    pass.out.fill(0);
    gatherChunk(gather, 0, m);
    assert.equal(Array.from(pass.out), want, "this thread");
  });
}

for (const seed of [1, 2]) {
  test(`seed ${seed}: loadGraph with 1, 2 and 3 threads gives the same content tag and snapshot bytes`, async () => {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 300, statements: 4000, edgeFingerprints: true, loneSurrogates: false });
    const dir = join(root, String(seed));
    await mkdir(dir);
    const paths = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
    await writeFile(paths.entities, data.entities.map((e) => JSON.stringify(e)).join("\n"));
    // Some statements again under another fingerprint: runs of one triple, ordered by fingerprint.
    const lines = data.statements.map((st) => JSON.stringify(st));
    for (let k = 0; k < 100; k++) {
      const st = data.statements[rng.int(data.statements.length)]!;
      lines.push(JSON.stringify({ ...st, statementFingerprint: `again-${seed}-${k}` }));
    }
    await writeFile(paths.statements, lines.join("\n"));
    // The search index's thread is what the sort threads run beside (the loader's threaded build).
    const one = await loadGraph({ ...paths, threads: 1, searchIndexThread: true });
    assert.ok(one.stats().statements > 1000);
    for (const threads of [2, 3]) {
      const many = await loadGraph({ ...paths, threads, searchIndexThread: true });
      assert.is(many.contentTag, one.contentTag, `${threads} threads`);
      assert.equal(snapshotBytes(many), snapshotBytes(one), `${threads} threads`);
    }
  });
}

test.run();

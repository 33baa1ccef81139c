/**
 * Content tag hashing in a worker thread: tests
 * =============================================
 * src/load/tag-hash-thread.ts: the tag of seeded random content hashed on the worker is the tag
 * hashed on this thread (empty content; many more batches than the worker's slots, so the writer
 * waits for it and reuses every slot; a string longer than a batch; text fingerprints that leave a
 * batch off its word alignment), and a graph loaded with several threads has the tag of one loaded
 * on one.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { contentTag, type TaggedContent } from "../../src/engine/content-tag.js";
import { loadGraph } from "../../src/load/jsonl.js";
import { startTagHashThread } from "../../src/load/tag-hash-thread.js";
import { writeGraphJsonl } from "../../tools/generator.js";
import { mulberry32 } from "../../tools/prng.js";

/** Seeded content: entities with short strings (one long), statements with hex or text fingerprints. */
function randomContent(seed: number, entities: number, statements: number, longText = 0): TaggedContent {
  const rand = mulberry32(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const text = (most: number) => {
    let s = "";
    for (let n = int(most + 1); n > 0; n--) s += "ab語😀_"[int(5)];
    return s;
  };
  const strings = Array.from({ length: entities }, () => [text(10), text(30), text(3)] as [string, string, string]);
  if (longText > 0 && entities > 1) strings[1]![1] = "x語".repeat(longText);
  const ids = Array.from({ length: statements }, () => [int(2 ** 31), int(entities), int(2 ** 31)]);
  const texts = Array.from({ length: statements }, () => (rand() < 0.01 ? text(20) : undefined));
  const halves = Array.from({ length: statements }, () => [int(2 ** 32), int(2 ** 32)] as [number, number]);
  return {
    entityCount: entities,
    entityStrings: (id) => strings[id]!,
    typeOf: (id) => id % 8,
    statementCount: statements,
    statementIds: (row, out) => out.set(ids[row]!),
    fingerprintTextOr: (row, out) => {
      out[0] = halves[row]![0];
      out[1] = halves[row]![1];
      return texts[row];
    },
  };
}

test("the tag hashed on the worker is the tag hashed here", () => {
  for (const [seed, entities, statements, longText] of [
    [1, 0, 0, 0],
    [2, 3, 5, 0],
    [3, 2_000, 200_000, 0], // about 9.6 MiB of statements: more batches than slots
    [4, 10, 1_000, 700_000], // a string of 2.8 MiB across batches
  ] as const) {
    const content = randomContent(seed, entities, statements, longText);
    assert.is(contentTag(content, startTagHashThread()), contentTag(content), `seed ${seed}`);
  }
});

test("a graph loaded on several threads has the tag of one loaded on one", async () => {
  const root = await mkdtemp(join(tmpdir(), "quiver-tag-hash-"));
  try {
    const files = await writeGraphJsonl(root, { entities: 2_000, statements: 30_000, seed: 5 });
    const threaded = await loadGraph({ ...files, threads: 2, searchIndexThread: true });
    const single = await loadGraph({ ...files, threads: 1, searchIndexThread: false });
    assert.is(threaded.stats().contentTag, single.stats().contentTag);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test.run();

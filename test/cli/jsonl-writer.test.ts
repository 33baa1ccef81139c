/**
 * Writing JSON Lines (src/cli/jsonl-writer.ts): one JSON text per line, batches beyond the batch
 * size, backpressure honoured, the stream's error surfaced, and a file replaced only when complete.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { dumpGraph } from "../../src/cli/dump.js";
import {
  PUBLISH_LOCK_FILE,
  WRITE_BATCH_CHARS,
  writeJsonLines,
  writeJsonLinesTo,
  writeJsonLinesTogether,
} from "../../src/cli/jsonl-writer.js";
import { GraphBuilder } from "../../src/index.js";
import { tempFiles } from "../support/cli.js";

test("a slow stream gets every line, in order, in several batches", async () => {
  const chunks: string[] = [];
  const slow = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      setImmediate(done);
    },
  });
  const items = Array.from({ length: 30_000 }, (_, i) => ({ i, text: "é".repeat(i % 80) }));
  const result = await writeJsonLinesTo(slow, items);
  const text = chunks.join("");
  assert.ok(text.length > WRITE_BATCH_CHARS, "more than one batch");
  assert.ok(chunks.filter((c) => c !== "").length > 1);
  assert.is(result.lines, items.length);
  assert.is(result.bytes, Buffer.byteLength(text));
  assert.equal(
    text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l)),
    items,
  );
});

test("the stream's error rejects the write", async () => {
  const broken = new Writable({
    write(_chunk, _encoding, done) {
      const error = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      done(error);
    },
  });
  await writeJsonLinesTo(broken, [{ a: 1 }]).then(
    () => assert.unreachable("should reject"),
    (e: NodeJS.ErrnoException) => assert.is(e.code, "EPIPE"),
  );
});

test("a file is replaced only once complete; a failed write leaves the old file and no partial one", async () => {
  const files = await tempFiles({ "out.jsonl": "old\n" });
  const path = files["out.jsonl"]!;
  function* failing() {
    yield { ok: 1 };
    throw new Error("the source broke");
  }
  await writeJsonLines(path, failing()).then(
    () => assert.unreachable("should reject"),
    (e: Error) => assert.is(e.message, "the source broke"),
  );
  assert.is(await readFile(path, "utf8"), "old\n");
  assert.equal(await readdir(join(path, "..")), ["out.jsonl"]);
  await writeJsonLines(path, [{ a: 1 }, { b: "two" }]);
  assert.is(await readFile(path, "utf8"), '{"a":1}\n{"b":"two"}\n');
});

/** A graph of `n` entities in a chain of n - 1 statements (names tell the graph apart). */
function chain(tag: string, n: number) {
  const b = new GraphBuilder();
  for (let i = 0; i < n; i++)
    b.addEntity({ entityId: `${tag}${i}`, rawIdentifier: `${tag} ${i}`, type: "0", sourceType: "t" });
  for (let i = 1; i < n; i++)
    b.addStatement({ subjectEntityId: `${tag}${i - 1}`, predicateEntityId: `${tag}0`, objectEntityId: `${tag}${i}` });
  return b.build();
}

test("two dumps into one folder at once (M2): both succeed, every line parses, and the pair is one graph's, never a mix", async () => {
  const small = chain("a", 3000);
  const big = chain("b", 20000);
  const dir = join((await tempFiles({ ".keep": "" }))[".keep"]!, "..", "out");
  const stderrWrite = process.stderr.write;
  process.stderr.write = () => true;
  try {
    for (let run = 0; run < 5; run++) {
      await Promise.all([dumpGraph(small, dir), dumpGraph(big, dir)]);
      const entities = (await readFile(join(dir, "entities.jsonl"), "utf8"))
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      const statements = (await readFile(join(dir, "statements.jsonl"), "utf8"))
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      const tags = new Set([entities[0].entityId[0], statements[0].subjectEntityId[0]]);
      assert.is(tags.size, 1, `run ${run}: entities of one graph beside statements of the other`);
      assert.is(statements.length, entities.length - 1, `run ${run}: a whole pair`);
      assert.equal(
        (await readdir(dir)).sort(),
        ["entities.jsonl", "statements.jsonl"],
        "no temporary or lock file left",
      );
    }
  } finally {
    process.stderr.write = stderrWrite;
  }
});

test("a pair whose second file fails (M2): neither file is replaced, no temporary file is left, a user's .partial file is untouched", async () => {
  const files = await tempFiles({
    "entities.jsonl": "old e\n",
    "statements.jsonl": "old s\n",
    "entities.jsonl.partial": "mine\n",
  });
  const dir = join(files["entities.jsonl"]!, "..");
  function* failing() {
    yield { ok: 1 };
    throw new Error("ENOSPC: no space left on device");
  }
  await writeJsonLinesTogether([
    [files["entities.jsonl"]!, [{ entityId: "new" }]],
    [files["statements.jsonl"]!, failing()],
  ]).then(
    () => assert.unreachable("should reject"),
    (e: Error) => assert.match(e.message, "ENOSPC"),
  );
  assert.is(await readFile(files["entities.jsonl"]!, "utf8"), "old e\n");
  assert.is(await readFile(files["statements.jsonl"]!, "utf8"), "old s\n");
  assert.is(await readFile(files["entities.jsonl.partial"]!, "utf8"), "mine\n");
  assert.equal((await readdir(dir)).sort(), ["entities.jsonl", "entities.jsonl.partial", "statements.jsonl"]);
});

test("a publish lock left by a writer that is gone is taken over", async () => {
  const files = await tempFiles({ "entities.jsonl": "", [PUBLISH_LOCK_FILE]: "4194303" });
  const dir = join(files["entities.jsonl"]!, "..");
  await writeJsonLinesTogether([
    [join(dir, "entities.jsonl"), [{ a: 1 }]],
    [join(dir, "statements.jsonl"), [{ b: 2 }]],
  ]);
  assert.is(await readFile(join(dir, "statements.jsonl"), "utf8"), '{"b":2}\n');
  assert.equal((await readdir(dir)).sort(), ["entities.jsonl", "statements.jsonl"]);
  await writeFile(join(dir, "x"), "");
});

test.run();

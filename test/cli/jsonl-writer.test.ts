/**
 * Writing JSON Lines (src/cli/jsonl-writer.ts): one JSON text per line, batches beyond the batch
 * size, backpressure honoured, the stream's error surfaced, and a file replaced only when complete.
 */

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { WRITE_BATCH_CHARS, writeJsonLines, writeJsonLinesTo } from "../../src/cli/jsonl-writer.js";
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

test.run();

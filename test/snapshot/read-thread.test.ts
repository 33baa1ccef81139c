/**
 * Opening with a reading thread
 * =============================
 * src/snapshot/read-thread.ts and file.ts's openInThread (taken here for small files too, with
 * `threadFromBytes: 0`; with `leaveChecks`, the worker runs every deferred verify pass, as it does
 * when it is done reading first): the graph opened while a worker reads and sums the file answers as the graph
 * opened after reading the file whole, in pieces of any size; its head is shared memory and the
 * checksums are the file's. Every damaged file (flipped bytes anywhere, with the checksum left
 * wrong or made to match; cut short; grown) is refused with the very error reading whole gives.
 * crc32Combine agrees with zlib's crc32 of the pieces put together.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { graphParts } from "../../src/engine/internal.js";
import { type Graph, openSnapshot } from "../../src/index.js";
import { CHECKSUM_FROM, readTable, transientSplit } from "../../src/snapshot/container.js";
import { crc32Combine } from "../../src/snapshot/crc32-combine.js";
import { openSnapshotFile } from "../../src/snapshot/file.js";
import { compareGraphs } from "../support/graph-walks.js";
import { buildGraph, generateGraph, Oracle, Rng } from "../support/oracle.js";
import { fixChecksum, snapshotBytes } from "../support/snapshot.js";

const SECRET = "read-thread-test-secret";
const TMP = mkdtempSync(join(tmpdir(), "quiver-read-thread-test-"));

/** The error message opening `path` gives, or "opened". */
async function outcome(open: () => Promise<unknown>): Promise<string> {
  try {
    await open();
    return "opened";
  } catch (e) {
    return e instanceof Error ? `${(e as { code?: string }).code}: ${e.message}` : String(e);
  }
}

const inThread = (path: string, pieceBytes?: number, leaveChecks?: boolean) =>
  openSnapshotFile(path, { cursorSecret: SECRET, threadFromBytes: 0, pieceBytes, leaveChecks });

test("crc32Combine: the CRC of two pieces put together is zlib's CRC of both", () => {
  const rng = new Rng(1);
  for (let k = 0; k < 300; k++) {
    const bytes = new Uint8Array(rng.int(5000));
    for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    const cut = rng.int(bytes.length + 1);
    const got = crc32Combine(crc32(bytes.subarray(0, cut)), crc32(bytes.subarray(cut)), bytes.length - cut);
    assert.is(got, crc32(bytes), `case ${k}: cut ${cut} of ${bytes.length}`);
  }
  // Long runs of zeros: lengths past 2^32 bits are counted in doubles.
  const zeros = new Uint8Array(1 << 20);
  let whole = crc32(Uint8Array.of(7));
  let combined = whole;
  for (let k = 0; k < 600; k++) whole = crc32(zeros, whole);
  combined = crc32Combine(combined, crc32(zeros.subarray(0, 0)), 0);
  let zerosCrc = 0;
  for (let k = 0; k < 600; k++) zerosCrc = crc32(zeros, zerosCrc);
  assert.is(crc32Combine(combined, zerosCrc, 600 * zeros.length), whole);
});

test("opened in a thread: the same graph, in pieces of any size; the head shared, the checksums the file's", async () => {
  const data = generateGraph(new Rng(31), { entities: 300, statements: 900 });
  const g = buildGraph(data, SECRET);
  const bytes = snapshotBytes(g);
  const path = join(TMP, "thread.snap");
  writeFileSync(path, bytes);
  const split = transientSplit(bytes, bytes.length);
  const whole = crc32(bytes.subarray(CHECKSUM_FROM));
  const headSum = crc32(bytes.subarray(CHECKSUM_FROM, split));
  const section = readTable(bytes, path).sections.find((s) => s.offset > 0)!;
  for (const piece of [1, 7, 8, 4096, section.offset + 3, bytes.length]) {
    const opened = await inThread(path, piece);
    assert.ok(opened.head.buffer instanceof SharedArrayBuffer);
    assert.is(opened.head.length, split);
    assert.is(opened.checksum, whole, `pieces of ${piece}`);
    assert.is(opened.headChecksum, headSum, `pieces of ${piece}`);
    assert.ok(graphParts(opened.graph).statementIndex.predicates.buffer === opened.head.buffer);
    compareGraphs(g, opened.graph, new Oracle(data), new Rng(piece), `pieces of ${piece}`, 10, 3);
  }
  const checked = await inThread(path, 4096, true);
  compareGraphs(g, checked.graph, new Oracle(data), new Rng(5), "checks in the worker", 10, 3);
});

test("opened in a thread: every damaged file is refused with the error reading it whole gives", async () => {
  const g: Graph = buildGraph(generateGraph(new Rng(41), { entities: 80, statements: 250 }), SECRET);
  const bytes = snapshotBytes(g);
  const path = join(TMP, "damaged.snap");
  const rng = new Rng(42);
  const cases: { what: string; content: Uint8Array }[] = [];
  for (let k = 0; k < 50; k++) {
    const bad = bytes.slice();
    const i = rng.int(bad.length);
    bad[i] = bad[i]! ^ (1 << rng.int(8));
    // Half with the checksum left wrong (it refuses them), half made to match (the structures do).
    const fixed = k % 4 >= 2;
    cases.push({ what: `byte ${i} (checksum ${fixed ? "fixed" : "wrong"})`, content: fixed ? fixChecksum(bad) : bad });
  }
  for (const cut of [1, 40, 1000, bytes.length - 8, bytes.length - 1])
    cases.push({ what: `cut at ${cut}`, content: bytes.subarray(0, cut) });
  const longer = new Uint8Array(bytes.length + 8);
  longer.set(bytes);
  cases.push({ what: "8 bytes more", content: longer });
  let refused = 0;
  for (const [n, { what, content }] of cases.entries()) {
    writeFileSync(path, content);
    const expected = await outcome(() => openSnapshot(path, { cursorSecret: SECRET }));
    if (expected !== "opened") refused++;
    // Pieces of 64 bytes (read out of file order, many waits) or of 1 MiB (one piece), in turn.
    const piece = n % 2 === 0 ? 64 : 1 << 20;
    assert.is(await outcome(() => inThread(path, piece)), expected, `${what}, pieces of ${piece}`);
    // The deferred checks run by the worker, none by the opening thread: the same refusal.
    assert.is(await outcome(() => inThread(path, piece, true)), expected, `${what}, checks in the worker`);
  }
  assert.ok(refused > 30, `refused ${refused} of ${cases.length}`);
});

test("opened in a thread: a missing file and a directory are refused in words", async () => {
  const missing = join(TMP, "missing.snap");
  assert.match(
    await outcome(() => inThread(missing)),
    /INVALID_SNAPSHOT: .*missing\.snap: cannot read the snapshot: no such file/,
  );
  assert.match(await outcome(() => inThread(TMP)), /not a regular file/);
});

test.after(() => rmSync(TMP, { recursive: true, force: true }));

test.run();

/**
 * Snapshot file tests
 * ===================
 * src/snapshot/file.ts and info.ts on disk. Save and open agree with the bytes in memory, are
 * deterministic, read the file in two pieces (the tail only transient sections, the graph's arrays
 * views on the head) in pieces of any size, and decode any cut and any alignment. Saving is safe:
 * two saves to one path at once (in one process, or two `quiver build --out` runs) leave a file that
 * opens and equals one of the two graphs, each save reporting success truthfully; a temporary file
 * is the save's own (a user's `X.snap.tmp` is never touched) and never outlives a failure; a progress
 * callback that throws publishes nothing. Older and newer formats are refused by their version.
 * `readSnapshotInfo` describes a file from its table alone.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { graphAtSequence, graphParts } from "../../src/engine/internal.js";
import { type Graph, openSnapshot, readSnapshotInfo, saveSnapshot, SNAPSHOT_FORMAT_VERSION } from "../../src/index.js";
import { CHECKSUM_FROM, encodeContainer, readTable } from "../../src/snapshot/container.js";
import { ContainerWriter } from "../../src/snapshot/container-serial.js";
import { decodeSnapshot, readSnapshotFile } from "../../src/snapshot/file.js";
import { writeGraph } from "../../src/snapshot/graph-manifest.js";
import { runQuiver } from "../support/cli.js";
import { compareGraphs } from "../support/graph-walks.js";
import { buildGraph, generateGraph, Oracle, Rng } from "../support/oracle.js";
import { concat, expectInvalid, expectInvalidAsync, FIXED_BUILT_AT, snapshotBytes } from "../support/snapshot.js";

const SECRET = "file-test-secret";
const TMP = mkdtempSync(join(tmpdir(), "quiver-snapshot-file-test-"));

/** The files of a directory that look like temporary files. */
const temporaries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".tmp"));

/** A graph and a few answers that tell it from other graphs. */
function fingerprintOf(g: Graph): string {
  return JSON.stringify([g.stats().contentTag, g.statements({ limit: 30 }), g.search({ q: "a", limit: 30 })]);
}

test("save and open agree with the bytes in memory; deterministic; an opened graph saves to the same bytes", async () => {
  const data = generateGraph(new Rng(404), { entities: 300, statements: 900 });
  const g = buildGraph(data, SECRET);
  const path = join(TMP, "round.snap");
  const progress: number[] = [];
  const { bytes } = await saveSnapshot(g, path, {
    builtAt: FIXED_BUILT_AT,
    onProgress: (p) => progress.push(p.bytesWritten),
  });
  const file = readFileSync(path);
  assert.is(file.length, bytes);
  assert.is(progress[progress.length - 1], bytes);
  assert.ok(Buffer.from(snapshotBytes(g)).equals(file));
  // The cursor secret is no part of the content.
  assert.ok(Buffer.from(snapshotBytes(buildGraph(data, "other secret"))).equals(file));
  const r = await openSnapshot(path, { cursorSecret: SECRET });
  compareGraphs(g, r, new Oracle(data), new Rng(405), "file", 30, 4);
  assert.ok(Buffer.from(snapshotBytes(r)).equals(file));
  // Saving over an existing snapshot replaces it, and leaves no temporary file behind.
  const g2 = buildGraph(generateGraph(new Rng(406), { entities: 50, statements: 60 }), SECRET);
  await saveSnapshot(g2, path);
  assert.is((await openSnapshot(path)).entityCount, g2.entityCount);
  assert.equal(temporaries(TMP), []);
});

test("open: two pieces, cut where the transient sections start; the graph's arrays view the head", async () => {
  const g = buildGraph(generateGraph(new Rng(12), { entities: 200, statements: 500 }), SECRET);
  const path = join(TMP, "pieces.snap");
  const { bytes: size } = await saveSnapshot(g, path, { builtAt: FIXED_BUILT_AT });
  const all = snapshotBytes(g);
  const whole = crc32(all.subarray(CHECKSUM_FROM));
  const { sections } = readTable(all, path);
  const transient = sections.filter((s) => s.transient);
  assert.ok(transient.length > 0);
  // The code units of the text lists (they become JS strings) and the string list of sourceTypes
  // are transient, and nothing else is.
  const textStores = ["entities", "statements.fingerprints.texts"];
  const transientNames = [
    ...textStores.flatMap((l) => [`${l}.narrow`, `${l}.wide`]),
    "entities.sourceTypes.offsets",
    "entities.sourceTypes.text",
  ];
  for (const s of sections) assert.is(s.transient, transientNames.includes(s.name), s.name);
  const split = Math.min(...transient.map((s) => s.offset));
  assert.ok(sections.every((s) => s.transient || s.offset + s.byteLength <= split));
  for (const piece of [1, 7, CHECKSUM_FROM - 1, CHECKSUM_FROM, CHECKSUM_FROM + 1, 4096, size - 1, size, 1 << 26]) {
    const { bytes, checksum } = await readSnapshotFile(path, piece);
    assert.is(bytes.head.length, split);
    assert.is(bytes.head.length + bytes.tail.length, size);
    assert.is(bytes.head.byteOffset % 8, 0);
    assert.is(bytes.tail.byteOffset % 8, 0);
    assert.is(checksum, whole, `pieces of ${piece} bytes`);
    const r = decodeSnapshot(bytes, path, { checksum, cursorSecret: SECRET });
    assert.equal(r.statements({ limit: 200 }), g.statements({ limit: 200 }));
    const parts = graphParts(r);
    for (const a of [
      parts.entities.records,
      parts.searchIndex.lengths,
      parts.searchIndex.typeStarts,
      parts.searchIndex.documents.top.levelBlocks,
      parts.searchIndex.documents.low.words,
      parts.statementIndex.predicates,
    ]) {
      assert.ok(a.buffer === bytes.head.buffer);
    }
  }
  const { bytes } = await readSnapshotFile(path);
  expectInvalid(() => decodeSnapshot(bytes, path, { checksum: whole ^ 1 }), path, /checksum mismatch/);
});

test("decode: bytes cut anywhere into head and tail, or at an unaligned offset, decode the same", () => {
  const g = buildGraph(generateGraph(new Rng(13), { entities: 120, statements: 300 }), SECRET);
  const all = snapshotBytes(g);
  const cuts = new Set<number>([0, 1, 12, 39, 40, 41, 200, all.length]);
  for (const s of readTable(all, "x").sections)
    for (const d of [-3, 0, 1, 8]) cuts.add(Math.min(all.length, s.offset + d));
  const rng = new Rng(14);
  for (let k = 0; k < 30; k++) cuts.add(rng.int(all.length));
  const answers = (x: Graph) =>
    JSON.stringify([x.statements({ limit: 200 }), x.search({ q: "a", limit: 100 }), x.search({ q: "ß", limit: 100 })]);
  const expected = answers(g);
  for (const cut of cuts) {
    const r = decodeSnapshot({ head: all.slice(0, cut), tail: all.slice(cut) }, "cut.snap", { cursorSecret: SECRET });
    assert.is(answers(r), expected, `cut at ${cut}`);
  }
  const shifted = new Uint8Array(all.length + 3);
  shifted.set(all, 3);
  assert.is(answers(decodeSnapshot(shifted.subarray(3), "x.snap", { cursorSecret: SECRET })), expected);
});

test("decode: a section this Quiver does not store is refused as damage", () => {
  const g = buildGraph(generateGraph(new Rng(15), { entities: 20, statements: 30 }), SECRET);
  const w = new ContainerWriter();
  writeGraph(g, w);
  w.child("search").integer("future", 1);
  expectInvalid(
    () => decodeSnapshot(concat(encodeContainer(w.sections)), "extra.snap"),
    "extra.snap",
    /section search\.future is not one this Quiver stores; the file is corrupted$/,
  );
});

// ---------------------------------------------------------------------------------------------
// Safe saves (review finding 4)

test("concurrent saves to one path: the file opens and equals one of the two graphs, both report success", async () => {
  for (let round = 0; round < 5; round++) {
    const g1 = buildGraph(generateGraph(new Rng(500 + round), { entities: 3000, statements: 6000 }), SECRET);
    const g2 = buildGraph(generateGraph(new Rng(600 + round), { entities: 4000, statements: 2000 }), SECRET);
    const path = join(TMP, `race-${round}.snap`);
    const results = await Promise.allSettled([saveSnapshot(g1, path), saveSnapshot(g2, path)]);
    assert.equal(
      results.map((r) => r.status),
      ["fulfilled", "fulfilled"],
      String(results.map((r) => (r.status === "rejected" ? r.reason : "")).join(" ")),
    );
    const opened = fingerprintOf(await openSnapshot(path, { cursorSecret: SECRET }));
    assert.ok(opened === fingerprintOf(g1) || opened === fingerprintOf(g2), `round ${round}: a mix of both`);
    const size = readFileSync(path).length;
    const sizes = results.map((r) => (r as PromiseFulfilledResult<{ bytes: number }>).value.bytes);
    assert.ok(sizes.includes(size), "the published file is one save's whole file");
    assert.equal(temporaries(TMP), []);
  }
});

test("a user's own PATH.tmp is never touched, by a save that succeeds or one that fails", async () => {
  const g = buildGraph(generateGraph(new Rng(21), { entities: 40, statements: 60 }), SECRET);
  const path = join(TMP, "mine.snap");
  writeFileSync(`${path}.tmp`, "my notes");
  await saveSnapshot(g, path);
  assert.is(readFileSync(`${path}.tmp`, "utf8"), "my notes");
  assert.is((await openSnapshot(path)).entityCount, g.entityCount);
  // A save whose rename fails (the target is a non-empty directory).
  const dir = join(TMP, "occupied.snap");
  mkdirSync(dir);
  writeFileSync(join(dir, "keep"), "x");
  writeFileSync(`${dir}.tmp`, "mine too");
  await saveSnapshot(g, dir).then(
    () => assert.unreachable("renamed over a directory"),
    (e: Error) => assert.match(e.message, /occupied/),
  );
  assert.is(readFileSync(`${dir}.tmp`, "utf8"), "mine too");
  assert.equal(readdirSync(dir), ["keep"]);
  rmSync(`${path}.tmp`);
  rmSync(`${dir}.tmp`);
  assert.equal(temporaries(TMP), []);
});

test("a failed save publishes nothing and leaves no temporary file: a throwing progress callback, a missing directory", async () => {
  const g1 = buildGraph(generateGraph(new Rng(31), { entities: 40, statements: 60 }), SECRET);
  const g2 = buildGraph(generateGraph(new Rng(32), { entities: 70, statements: 10 }), SECRET);
  const path = join(TMP, "kept.snap");
  await saveSnapshot(g1, path);
  await saveSnapshot(g2, path, {
    onProgress: () => {
      throw new Error("the caller gave up");
    },
  }).then(
    () => assert.unreachable("resolved although its callback threw"),
    (e: Error) => assert.is(e.message, "the caller gave up"),
  );
  assert.is(fingerprintOf(await openSnapshot(path, { cursorSecret: SECRET })), fingerprintOf(g1));
  assert.equal(temporaries(TMP), []);
  await saveSnapshot(g1, join(TMP, "no-such-dir", "x.snap")).then(
    () => assert.unreachable("saved into a missing directory"),
    (e: Error) => assert.match(e.message, /no-such-dir/),
  );
});

test("two `quiver build --out` runs to one path at once leave one whole snapshot of either input", async () => {
  const dir = mkdtempSync(join(TMP, "cli-"));
  const write = (name: string, lines: object[]) => {
    writeFileSync(join(dir, name), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return join(dir, name);
  };
  const inputs = [1, 2].map((k) => {
    const data = generateGraph(new Rng(40 + k), { entities: 2000 * k, statements: 4000 });
    return {
      entities: write(`e${k}.jsonl`, data.entities),
      statements: write(`s${k}.jsonl`, data.statements),
      graph: buildGraph(data, SECRET),
    };
  });
  const out = join(dir, "shared.snap");
  const runs = inputs.map((i) =>
    runQuiver(["build", "--entities", i.entities, "--statements", i.statements, "--out", out]),
  );
  const codes = await Promise.all(runs.map((r) => r.exited));
  assert.equal(codes, [0, 0], runs.map((r) => r.stderr()).join("\n"));
  const opened = fingerprintOf(await openSnapshot(out, { cursorSecret: SECRET }));
  assert.ok(
    inputs.some((i) => fingerprintOf(i.graph) === opened),
    "the snapshot is one of the two graphs",
  );
  assert.equal(temporaries(dir), []);
});

// ---------------------------------------------------------------------------------------------
// Versions and info

test("format 5 keeps the change batch a compacted graph holds; a format 4 file (unreleased score sections) is refused with a sentence", async () => {
  const dir = mkdtempSync(join(TMP, "sequence-"));
  const g = buildGraph(generateGraph(new Rng(52), { entities: 20, statements: 30 }), SECRET);
  const origin = { contentTag: "ab".repeat(32), sequence: 3 };
  const compacted = graphAtSequence(g, 9, origin);
  assert.is(compacted.sequence, 9);
  const file = join(dir, "compacted.snap");
  await saveSnapshot(compacted, file);
  const opened = await openSnapshot(file, { cursorSecret: SECRET });
  assert.is(opened.sequence, 9);
  assert.equal(graphParts(opened).changesOrigin, origin);
  assert.is(opened.contentTag, g.contentTag, "the content (and its tag) is the graph's own");
  assert.is((await readSnapshotInfo(file)).sequence, 9);
  assert.is((await openSnapshot(await writeSnap(dir, g))).sequence, 0, "a built graph holds no batch");
  // Format 4: the same sections less graph.sequence, version 4 in the header (not checksummed).
  const w = new ContainerWriter();
  writeGraph(g, w, { builtAt: FIXED_BUILT_AT });
  const v4 = concat(encodeContainer(w.sections.filter((x) => x.name !== "graph.sequence")));
  new DataView(v4.buffer, v4.byteOffset).setUint32(8, 4, true);
  const old = join(dir, "v4.snap");
  writeFileSync(old, v4);
  await expectInvalidAsync(
    () => openSnapshot(old, { cursorSecret: SECRET }),
    old,
    /made with snapshot format 4 by an older Quiver \(this one reads formats 5 to 8\); rebuild it with quiver build$/,
  );
  rmSync(dir, { recursive: true, force: true });
});

async function writeSnap(dir: string, g: Graph): Promise<string> {
  const path = join(dir, `g-${Math.random().toString(36).slice(2)}.snap`);
  await saveSnapshot(g, path);
  return path;
}

test("open: a snapshot of an older or a newer format is refused by its version, naming the path", async () => {
  const bytes = snapshotBytes(buildGraph(generateGraph(new Rng(51), { entities: 10, statements: 10 }), SECRET));
  const view = new DataView(bytes.buffer);
  const older = join(TMP, "older.snap");
  view.setUint32(8, 3, true);
  writeFileSync(older, bytes);
  await expectInvalidAsync(
    () => openSnapshot(older),
    older,
    new RegExp(
      `made with snapshot format 3 by an older Quiver \\(this one reads formats 5 to ${SNAPSHOT_FORMAT_VERSION}\\); rebuild it with quiver build$`,
    ),
  );
  await expectInvalidAsync(() => readSnapshotInfo(older), older, /format 3 by an older Quiver/);
  const newer = join(TMP, "newer.snap");
  view.setUint32(8, SNAPSHOT_FORMAT_VERSION + 7, true);
  writeFileSync(newer, bytes);
  await expectInvalidAsync(
    () => openSnapshot(newer),
    newer,
    new RegExp(`format ${SNAPSHOT_FORMAT_VERSION + 7} by a newer Quiver .*upgrade Quiver`),
  );
});

test("info: version, counts, checksum, bytes per section and per structure, build time and writer", async () => {
  const g = buildGraph(generateGraph(new Rng(61), { entities: 300, statements: 700 }), SECRET);
  const path = join(TMP, "info.snap");
  const { bytes: size } = await saveSnapshot(g, path, { builtAt: FIXED_BUILT_AT });
  const all = readFileSync(path);
  const info = await readSnapshotInfo(path);
  const { header, sections } = readTable(all, path);
  assert.is(info.path, path);
  assert.is(info.fileBytes, size);
  assert.is(info.formatVersion, SNAPSHOT_FORMAT_VERSION);
  assert.is(info.checksum, header.checksum.toString(16).padStart(8, "0"));
  assert.is(info.checksumMatches, undefined);
  assert.is(info.entities, g.entityCount);
  assert.is(info.statements, g.statementCount);
  assert.is(info.contentTag, g.stats().contentTag);
  assert.equal(info.builtAt, FIXED_BUILT_AT);
  assert.match(info.writer, /^quiver \d+\.\d+\.\d+/);
  assert.equal(
    info.sections,
    sections.map((s) => ({ name: s.name, kind: s.kind, bytes: s.byteLength, transient: s.transient })),
  );
  assert.equal(info.structures.map((s) => s.name).sort(), [
    "entities",
    "graph",
    "scoreIndex",
    "scores",
    "search",
    "statements",
  ]);
  const data = info.structures.reduce((n, s) => n + s.bytes, 0);
  assert.is(
    data,
    sections.reduce((n, s) => n + s.byteLength, 0),
  );
  assert.ok(info.headerBytes + data <= size && size - info.headerBytes - data < 8 * sections.length, "padding only");
  assert.is((await readSnapshotInfo(path, { verifyChecksum: true })).checksumMatches, true);
  // A damaged file can still be described, and says its checksum does not match.
  const damaged = join(TMP, "info-damaged.snap");
  const bad = Buffer.from(all);
  bad[bad.length - 20] = bad[bad.length - 20]! ^ 1;
  writeFileSync(damaged, bad);
  const described = await readSnapshotInfo(damaged, { verifyChecksum: true });
  assert.is(described.checksumMatches, false);
  assert.is(described.entities, g.entityCount);
  await expectInvalidAsync(() => readSnapshotInfo(join(TMP, "none.snap")), join(TMP, "none.snap"), /no such file/);
});

test.after(() => rmSync(TMP, { recursive: true, force: true }));

test.run();

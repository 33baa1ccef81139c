/**
 * Damaged snapshots
 * =================
 * Whatever happens to a snapshot's bytes, opening it either gives the graph it held or is refused
 * with a QuiverError INVALID_SNAPSHOT naming the file; never another error, never a crash. Truncation
 * at every header byte, at both ends of every section (found with the container's own table reader)
 * and at random offsets; one trailing byte; a flipped byte at every offset of a small file and a
 * flipped bit at random offsets of a larger one (the checksum catches them). Then corruption with the
 * checksum made to match, so that only the structures' own checks stand between the damage and a
 * query: each is refused, or the graph it opens must still never throw from inside an array. And the
 * same on disk, where the file layer cuts the file in two by what its table says.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { type EntityType, type Graph, isQuiverError, openSnapshot, saveSnapshot } from "../../src/index.js";
import { CHECKSUM_FROM, HEADER_BYTES, readTable } from "../../src/snapshot/container.js";
import { decodeSnapshot } from "../../src/snapshot/file.js";
import { randomQuery } from "../support/graph-walks.js";
import { buildGraph, generateGraph, type GraphData, Oracle, randomFilters, Rng } from "../support/oracle.js";
import { expectInvalid, expectInvalidAsync, fixChecksum, snapshotBytes } from "../support/snapshot.js";

const SECRET = "damage-test-secret";
const TMP = mkdtempSync(join(tmpdir(), "quiver-snapshot-damage-test-"));

/** A small graph whose snapshot has every section non-empty (non-hex fingerprints included). */
function damageSubject(
  seed: number,
  entities: number,
  statements: number,
): { g: Graph; bytes: Uint8Array; data: GraphData } {
  for (let s = seed; ; s++) {
    const data = generateGraph(new Rng(s), { entities, statements });
    const g = buildGraph(data, SECRET);
    const bytes = snapshotBytes(g);
    const rows = readTable(bytes, "x").sections.find((x) => x.name === "statements.fingerprints.textRows");
    if (rows !== undefined && rows.count > 0) return { g, bytes, data };
  }
}

/** Offsets where each section starts and ends, from the table, one either side. */
function sectionEdges(bytes: Uint8Array): number[] {
  const edges: number[] = [];
  for (const s of readTable(bytes, "x").sections) {
    if (s.kind === "integer") continue;
    for (const x of [s.offset, s.offset + s.byteLength]) for (const d of [-1, 0, 1]) edges.push(x + d);
  }
  return edges;
}

test("truncated at every header and table byte, every section edge and random offsets; one trailing byte", () => {
  const { bytes } = damageSubject(21, 80, 200);
  const { header } = readTable(bytes, "x");
  const cuts = new Set<number>(sectionEdges(bytes));
  for (let i = 0; i <= HEADER_BYTES + header.tableBytes + 8; i++) cuts.add(i);
  const rng = new Rng(22);
  for (let k = 0; k < 300; k++) cuts.add(rng.int(bytes.length));
  let n = 0;
  for (const cut of cuts) {
    if (cut < 0 || cut >= bytes.length) continue;
    const msg = expectInvalid(
      () => decodeSnapshot(bytes.slice(0, cut), "cut.snap"),
      "cut.snap",
      /truncated|empty file/,
      `cut at ${cut}`,
    );
    if (cut >= HEADER_BYTES) assert.match(msg, new RegExp(`expected ${bytes.length} bytes, found ${cut}`));
    n++;
  }
  assert.ok(n > 400, String(n));
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  expectInvalid(() => decodeSnapshot(longer, "long.snap"), "long.snap", /1 unexpected bytes after the end/);
});

test("a flipped byte at every offset of a small file, and a flipped bit at random offsets of a larger one", () => {
  const small = damageSubject(31, 12, 20).bytes;
  for (let i = 0; i < small.length; i++) {
    const bad = small.slice();
    bad[i] = bad[i]! ^ 0xff;
    expectInvalid(() => decodeSnapshot(bad, "flip.snap"), "flip.snap", undefined, `byte ${i}`);
  }
  const { bytes } = damageSubject(32, 200, 600);
  const rng = new Rng(33);
  for (let k = 0; k < 300; k++) {
    const bad = bytes.slice();
    const i = rng.int(bad.length);
    bad[i] = bad[i]! ^ (1 << rng.int(8));
    expectInvalid(() => decodeSnapshot(bad, "flip.snap"), "flip.snap", undefined, `byte ${i}`);
  }
});

/** Asks `g` many queries of every kind, walking pages; any exception fails. */
function queryEverything(g: Graph, oracle: Oracle, rng: Rng, ctx: string): void {
  try {
    for (let j = 0; j < 6; j++) {
      const q = randomQuery(rng, oracle);
      const type = rng.chance(0.3) ? (String(rng.int(8)) as EntityType) : undefined;
      let cursor: string | undefined;
      for (let p = 0; p < 20; p++) {
        const page = g.search({ q, type, limit: 7, cursor });
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
    }
    for (let mask = 0; mask < 8; mask++) {
      const f = randomFilters(rng, mask, oracle);
      let cursor: string | undefined;
      for (let p = 0; p < 20; p++) {
        const page = g.statements({ ...f, limit: 13, cursor });
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
    }
    for (const e of oracle.entities.slice(0, 20)) g.getEntity(e.entityId);
    g.stats();
  } catch (e) {
    assert.unreachable(
      `${ctx}: a query on an undetected corruption threw ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`,
    );
  }
}

test("random corruption with the checksum made to match is refused, or the graph still never throws", () => {
  const { bytes, data } = damageSubject(71, 60, 200);
  const oracle = new Oracle(data);
  const rng = new Rng(72);
  let refused = 0;
  let opened = 0;
  for (let k = 0; k < 600; k++) {
    const bad = bytes.slice();
    const flips = rng.range(1, 4);
    for (let f = 0; f < flips; f++) {
      const i = CHECKSUM_FROM + rng.int(bad.length - CHECKSUM_FROM);
      bad[i] = bad[i]! ^ (1 << rng.int(8));
    }
    fixChecksum(bad);
    let g: Graph;
    try {
      g = decodeSnapshot(bad, "random.snap", { cursorSecret: SECRET });
    } catch (e) {
      if (!isQuiverError(e) || e.code !== "INVALID_SNAPSHOT" || !e.message.startsWith("random.snap: ")) {
        assert.unreachable(`case ${k}: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
      }
      refused++;
      continue;
    }
    opened++;
    queryEverything(g, oracle, rng, `case ${k}`);
  }
  assert.ok(refused > 0 && opened > 0, `refused ${refused}, opened ${opened}`);
});

test("corruption of each section in turn, checksum made to match: refused, or queries never throw", () => {
  const { bytes, data } = damageSubject(75, 50, 150);
  const oracle = new Oracle(data);
  const rng = new Rng(76);
  for (const s of readTable(bytes, "x").sections) {
    if (s.byteLength === 0) continue;
    for (let k = 0; k < 12; k++) {
      const bad = bytes.slice();
      // Whole words set to extreme values as well as single bits: what a lying writer would store.
      const i = s.offset + rng.int(s.byteLength);
      if (rng.chance(0.5)) bad[i] = bad[i]! ^ (1 << rng.int(8));
      else bad.fill(rng.pick([0x00, 0xff, 0x7f, 0x80]), i, Math.min(s.offset + s.byteLength, i + rng.range(1, 4)));
      fixChecksum(bad);
      let g: Graph;
      try {
        g = decodeSnapshot(bad, "section.snap", { cursorSecret: SECRET });
      } catch (e) {
        expectInvalid(
          () => {
            throw e;
          },
          "section.snap",
          undefined,
          `${s.name} case ${k}`,
        );
        continue;
      }
      queryEverything(g, oracle, rng, `${s.name} case ${k}`);
    }
  }
});

test("on disk: truncated at every section edge, or a flipped byte in the header and table, is refused", async () => {
  const { bytes } = damageSubject(82, 60, 150);
  const { header } = readTable(bytes, "x");
  const path = join(TMP, "damaged-on-disk.snap");
  const cuts = new Set<number>([
    0,
    1,
    8,
    12,
    HEADER_BYTES - 1,
    HEADER_BYTES,
    HEADER_BYTES + 100,
    ...sectionEdges(bytes),
  ]);
  for (const cut of cuts) {
    if (cut < 0 || cut >= bytes.length) continue;
    writeFileSync(path, bytes.subarray(0, cut));
    await expectInvalidAsync(() => openSnapshot(path), path, /truncated|empty file/, `cut at ${cut}`);
  }
  const rng = new Rng(83);
  for (let k = 0; k < 80; k++) {
    const bad = bytes.slice();
    // Mostly in the header and the table, which decide how the file is cut into head and tail.
    const i = k < 60 ? rng.int(HEADER_BYTES + header.tableBytes) : rng.int(bad.length);
    bad[i] = bad[i]! ^ (1 << rng.int(8));
    writeFileSync(path, bad);
    await expectInvalidAsync(() => openSnapshot(path), path, undefined, `byte ${i}`);
  }
});

test("on disk: truncated, flipped, zeros, empty, missing, a directory: each refused in words naming the path", async () => {
  const { g } = damageSubject(81, 50, 100);
  const good = join(TMP, "good.snap");
  await saveSnapshot(g, good);
  const bytes = snapshotBytes(g);
  const write = (name: string, content: Uint8Array): string => {
    const p = join(TMP, name);
    writeFileSync(p, content);
    return p;
  };
  const truncated = write("truncated.snap", bytes.subarray(0, bytes.length - 100));
  await expectInvalidAsync(
    () => openSnapshot(truncated),
    truncated,
    new RegExp(`truncated: expected ${bytes.length} bytes, found ${bytes.length - 100}`),
  );
  const flipped = bytes.slice();
  flipped[bytes.length >>> 1] = flipped[bytes.length >>> 1]! ^ 0x10;
  const flippedPath = write("flipped.snap", flipped);
  await expectInvalidAsync(() => openSnapshot(flippedPath), flippedPath, /checksum mismatch: the file is corrupted/);
  const zeros = write("zeros.snap", new Uint8Array(1 << 16));
  await expectInvalidAsync(() => openSnapshot(zeros), zeros, /not a Quiver snapshot \(bad magic\)/);
  const empty = write("empty.snap", new Uint8Array(0));
  await expectInvalidAsync(() => openSnapshot(empty), empty, /empty file/);
  const missing = join(TMP, "missing.snap");
  await expectInvalidAsync(() => openSnapshot(missing), missing, /cannot read the snapshot: no such file/);
  const dir = join(TMP, "a-directory.snap");
  mkdirSync(dir);
  await expectInvalidAsync(() => openSnapshot(dir), dir, /not a regular file/);
  // The system error stays reachable as the cause.
  await openSnapshot(missing).catch((e: Error) => assert.is((e.cause as { code?: string }).code, "ENOENT"));
  assert.is((await openSnapshot(good)).statementCount, g.statementCount);
});

test.after(() => rmSync(TMP, { recursive: true, force: true }));

test.run();

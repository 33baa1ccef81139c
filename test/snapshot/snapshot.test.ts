/**
 * Snapshot tests
 * ==============
 * Round trip: seeded random graphs (Unicode identifiers of every kind the contract names, lone
 * surrogates, non-hex fingerprints; and ASCII/Latin-1 ones for the one-byte blobs) saved and
 * reopened answer every query exactly like the graph they came from: every search (many queries,
 * with and without type, every page) and every statements filter shape (every page), item by item
 * and cursor by cursor, each walk also checked against the brute-force oracle of
 * test/engine/oracle.ts; a cursor of the original continues on the reopened graph.
 *
 * Damage: truncation at every section boundary and at random offsets, a flipped byte at every offset
 * of a small file, wrong magic, newer and older versions, zeros, empty, foreign, missing, a
 * directory; and corruptions that keep the checksum valid (the CRC recomputed), which the structural
 * checks must refuse, or, where undetectable, which must still never make a query throw. Each refusal
 * must be a QuiverError INVALID_SNAPSHOT whose message starts with the file's name.
 *
 * Swap: a cursor from an old graph resumes on a new graph (items added and removed, opened from a
 * snapshot) at the right key, also with walkers interleaved across the swap.
 */

import { graphParts } from "../../src/engine/internal.js";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";

import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  deriveFingerprint,
  type EntityType,
  Graph,
  GraphBuilder,
  isQuiverError,
  type Entity,
  type Statement,
  type StatementInput,
} from "../../src/index.js";
import { WaveletMatrix } from "../../src/engine/wavelet-matrix.js";
import { openSnapshot, readSnapshotFile, saveSnapshot } from "../../src/snapshot/file.js";
import {
  decodeSnapshot,
  decodeStringList,
  encodeSnapshot,
  encodeStringList,
  FORMAT_VERSION,
  HEADER_BYTES,
} from "../../src/snapshot/format.js";
import {
  buildGraph,
  compareKeys,
  fold,
  generateGraph,
  limitPolicy,
  Oracle,
  orderFor,
  randomFilters,
  randomStatements,
  Rng,
  show,
  statementKey,
  TINY_FRAGMENTS,
  TYPES,
  UNICODE_FRAGMENTS,
  walkPages,
  type Filters,
  type GraphData,
} from "../support/oracle.js";

const SECRET = "snapshot-test-secret";
const TMP = mkdtempSync(join(tmpdir(), "quiver-snapshot-test-"));

// ---------------------------------------------------------------------------------------------
// Helpers

/** The chunks of a snapshot as one buffer of its own (8-aligned, as file.ts reads it). */
function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(new ArrayBuffer(n));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function snapshotBytes(g: Graph): Uint8Array {
  return concat(encodeSnapshot(graphParts(g)));
}

function reopen(g: Graph, secret = SECRET): Graph {
  return new Graph(decodeSnapshot(snapshotBytes(g), "memory.snap"), { cursorSecret: secret });
}

interface TableEntry {
  id: number;
  kind: number;
  offset: number;
  count: number;
  byteLength: number;
  /** Byte position of this entry in the table. */
  entry: number;
}

const ELEMENT_BYTES: Record<number, number> = { 1: 1, 2: 2, 3: 4, 4: 4 };

/** The section table, read with the layout of format.ts's banner. */
function sectionTable(bytes: Uint8Array): TableEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const k = view.getUint32(24, true);
  const out: TableEntry[] = [];
  for (let i = 0; i < k; i++) {
    const entry = HEADER_BYTES + i * 24;
    const kind = view.getUint32(entry + 4, true);
    const count = view.getUint32(entry + 16, true);
    out.push({
      id: view.getUint32(entry, true),
      kind,
      offset: view.getUint32(entry + 8, true),
      count,
      byteLength: count * (ELEMENT_BYTES[kind] as number),
      entry,
    });
  }
  return out;
}

/** Section ids of format version 1 (format.ts SECTIONS). */
const ID = {
  META: 1,
  ENTITY_ID_OFFSETS: 2,
  ENTITY_ID_TEXT: 3,
  RAW_ID_OFFSETS: 4,
  RAW_ID_TEXT: 5,
  TYPES: 6,
  SOURCE_TYPE_INDEX: 7,
  SOURCE_TYPE_OFFSETS: 8,
  SOURCE_TYPE_TEXT: 9,
  SEARCH_TEXT: 10,
  SEARCH_SEPARATORS: 11,
  SEARCH_STARTS: 12,
  RANK_TO_ID: 13,
  SUFFIX_ARRAY: 14,
  WAVELET_BLOCKS: 15,
  WAVELET_ZEROS: 16,
  TYPE_RANKS: 17,
  TYPE_STARTS: 18,
  SUBJECT: 19,
  PREDICATE: 20,
  OBJECT: 21,
  POS_ROWS: 22,
  OSP_ROWS: 23,
  FINGERPRINT_HI: 24,
  FINGERPRINT_LO: 25,
  FINGERPRINT_TEXT_ROWS: 26,
  FINGERPRINT_TEXT_OFFSETS: 27,
  FINGERPRINT_TEXT: 28,
} as const;

function section(bytes: Uint8Array, id: number): TableEntry {
  const e = sectionTable(bytes).find((s) => s.id === id);
  if (e === undefined) throw new Error(`no section ${id}`);
  return e;
}

/** A writable Uint32Array / Int32Array / Uint8Array view of one section of `bytes`. */
function u32(bytes: Uint8Array, id: number): Uint32Array {
  const s = section(bytes, id);
  return new Uint32Array(bytes.buffer, bytes.byteOffset + s.offset, s.count);
}

function i32(bytes: Uint8Array, id: number): Int32Array {
  const s = section(bytes, id);
  return new Int32Array(bytes.buffer, bytes.byteOffset + s.offset, s.count);
}

/** Rewrites the header's CRC so the file passes the checksum: the corruption is left to the structural checks. */
function fixChecksum(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = view.getUint32(16, true);
  view.setUint32(28, crc32(bytes.subarray(HEADER_BYTES, total)), true);
  return bytes;
}

/** `f` must throw QuiverError INVALID_SNAPSHOT naming `file` (and matching `pattern`); returns the message. */
function expectInvalid(f: () => unknown, file: string, pattern?: RegExp, ctx = ""): string {
  let result: unknown;
  try {
    result = f();
  } catch (e) {
    if (!isQuiverError(e))
      throw new Error(
        `${ctx}: want QuiverError INVALID_SNAPSHOT, got ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`,
      );
    assert.is(e.code, "INVALID_SNAPSHOT", ctx);
    assert.ok(
      e.message.startsWith(`${file}: `),
      `${ctx}: message ${show(e.message)} does not start with the file name`,
    );
    if (pattern !== undefined) assert.match(e.message, pattern, ctx);
    return e.message;
  }
  assert.unreachable(
    `${ctx}: want QuiverError INVALID_SNAPSHOT, but it returned ${result === undefined ? "undefined" : "a value"}`,
  );
  return "";
}

async function expectInvalidAsync(f: () => Promise<unknown>, file: string, pattern?: RegExp): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (!isQuiverError(e))
      throw new Error(
        `want QuiverError INVALID_SNAPSHOT, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
      );
    assert.is(e.code, "INVALID_SNAPSHOT");
    assert.ok(e.message.startsWith(`${file}: `), `message ${show(e.message)} does not start with the file name`);
    if (pattern !== undefined) assert.match(e.message, pattern);
    return e.message;
  }
  assert.unreachable("want QuiverError INVALID_SNAPSHOT, but it resolved");
  return "";
}

function substring(rng: Rng, s: string): string {
  if (s.length === 0) return "";
  const a = rng.int(s.length);
  return s.slice(a, rng.range(a + 1, Math.min(s.length, a + 1 + rng.range(0, 10))));
}

/** A query likely to match: a piece of an identifier, a whole one, a folded prefix, or a Unicode case. */
function randomQuery(rng: Rng, oracle: Oracle): string {
  const withRaw = oracle.entities.filter((e) => e.rawIdentifier.length > 0);
  const raw = (): string => (withRaw.length === 0 ? "a" : rng.pick(withRaw).rawIdentifier);
  let q: string;
  switch (rng.int(6)) {
    case 0:
      q = substring(rng, raw());
      break;
    case 1:
      q = raw();
      break;
    case 2: {
      const f = fold(raw());
      q = f.slice(0, rng.range(1, Math.max(1, f.length)));
      break;
    }
    case 3:
      q = rng.pick(UNICODE_FRAGMENTS);
      break;
    case 4:
      q = rng.pick(TINY_FRAGMENTS) + (rng.chance(0.5) ? rng.pick(TINY_FRAGMENTS) : "");
      break;
    default:
      q = substring(rng, raw()).toUpperCase();
  }
  return (q.length === 0 ? "a" : q).slice(0, 256);
}

interface Tally {
  walks: number;
  pages: number;
}

/**
 * Every query asked of both graphs, page by page: the pages must be identical (items and cursors),
 * and their concatenation the oracle's list. Then the same walk again, alternating between the two
 * graphs page by page: a cursor of either continues on the other.
 */
function compareGraphs(
  a: Graph,
  b: Graph,
  oracle: Oracle,
  rng: Rng,
  ctx: string,
  searches: number,
  filtersPerMask: number,
  tally: Tally,
): void {
  assert.is(b.entityCount, a.entityCount, ctx);
  assert.is(b.statementCount, a.statementCount, ctx);
  assert.equal(b.stats(), a.stats(), ctx);
  for (const e of oracle.entities) assert.equal(b.getEntity(e.entityId), a.getEntity(e.entityId), `${ctx} getEntity`);
  assert.is(b.getEntity("no such entity\u0001"), undefined);

  const both = <T>(fa: () => T, fb: () => T, where: string): T => {
    const pa = fa();
    const pb = fb();
    assert.equal(pb, pa, where);
    return pa;
  };
  for (let k = 0; k < searches; k++) {
    const q = randomQuery(rng, oracle);
    const type = rng.chance(0.35) ? rng.pick(TYPES) : undefined;
    const expected = oracle.search(q, type);
    const where = `${ctx} search q=${show(q)} type=${show(type)}`;
    tally.pages += walkPages<Entity>({
      fetch: (limit, cursor) =>
        both(
          () => a.search({ q, type, limit, cursor }),
          () => b.search({ q, type, limit, cursor }),
          where,
        ),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: where,
    });
    let turn = 0;
    tally.pages += walkPages<Entity>({
      fetch: (limit, cursor) => ((turn++ & 1) === 0 ? a : b).search({ q, type, limit, cursor }),
      expected,
      nextLimit: limitPolicy(rng, 100),
      defaultLimit: 20,
      ctx: `${where} (alternating graphs)`,
    });
    tally.walks += 2;
  }
  for (let mask = 0; mask < 8; mask++) {
    for (let k = 0; k < filtersPerMask; k++) {
      const f = randomFilters(rng, mask, oracle);
      const expected = oracle.statementsFor(f);
      const where = `${ctx} statements ${show(f)}`;
      tally.pages += walkPages<Statement>({
        fetch: (limit, cursor) =>
          both(
            () => a.statements({ ...f, limit, cursor }),
            () => b.statements({ ...f, limit, cursor }),
            where,
          ),
        expected,
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        ctx: where,
      });
      let turn = 1;
      tally.pages += walkPages<Statement>({
        fetch: (limit, cursor) => ((turn++ & 1) === 0 ? a : b).statements({ ...f, limit, cursor }),
        expected,
        nextLimit: limitPolicy(rng, 200),
        defaultLimit: 50,
        ctx: `${where} (alternating graphs)`,
      });
      tally.walks += 2;
    }
  }
}

/** An ASCII/Latin-1 graph (every code unit < 256: the one-byte string blobs), of my own making. */
function latinGraphData(rng: Rng, entities: number, statements: number): GraphData {
  const words = ["alpha", "Beta", "café", "Ærø", "straße", "naïve", "x", "", "ÿ", "µ", "\u0000"];
  const ents: Entity[] = [];
  for (let i = 0; i < entities; i++) {
    const raw = `${rng.pick(words)} ${rng.pick(words)}${rng.int(100)}`.trim();
    ents.push({
      entityId: `e${(i * 7919) % 100003}${rng.pick(["", "é", "z"])}`,
      rawIdentifier: raw,
      type: String(rng.int(8)) as Entity["type"],
      sourceType: rng.pick(["wiki", "é", ""]),
    });
  }
  const unique = [...new Map(ents.map((e) => [e.entityId, e])).values()];
  return { entities: unique, statements: randomStatements(rng, unique, statements, new Map()) };
}

// ---------------------------------------------------------------------------------------------
// Round trip

test("round trip: an empty graph, and a graph with one entity and no statements", () => {
  const empty = new GraphBuilder({ cursorSecret: SECRET }).build();
  const e2 = reopen(empty);
  assert.is(e2.entityCount, 0);
  assert.is(e2.statementCount, 0);
  assert.equal(e2.search({ q: "a" }), { items: [], nextCursor: null });
  assert.equal(e2.statements({}), { items: [], nextCursor: null });

  const b = new GraphBuilder({ cursorSecret: SECRET });
  b.addEntity({ entityId: "Q1", rawIdentifier: "", type: "7", sourceType: "" });
  const one = reopen(b.build());
  assert.equal(one.getEntity("Q1"), { entityId: "Q1", rawIdentifier: "", type: "7", sourceType: "" });
  assert.equal(one.search({ q: "a" }), { items: [], nextCursor: null });
  assert.equal(one.statements({ subjectEntityId: "Q1" }), { items: [], nextCursor: null });
});

test("round trip: string lists, Latin-1 and UTF-16 (lone surrogates, U+0000, empty strings), in batches of any size", () => {
  const lists: string[][] = [
    [],
    [""],
    ["", "", ""],
    ["a", "", "bc", "\u0000", "ÿé", "x".repeat(50), ""],
    ["Straße", "😀", "\uD800", "\uDFFF", "", "中文", "a\u0000b", "\uFFFF", "y".repeat(40)],
  ];
  const rng = new Rng(3);
  lists.push(
    Array.from({ length: 300 }, () =>
      String.fromCharCode(...Array.from({ length: rng.int(9) }, () => rng.int(rng.chance(0.5) ? 256 : 0x10000))),
    ),
  );
  for (const list of lists) {
    for (const batch of [1, 2, 3, 7, 64, 1 << 20]) {
      const { offsets, blob } = encodeStringList(list, batch);
      assert.is(
        blob instanceof Uint16Array,
        list.some((x) => /[^\u0000-\u00ff]/.test(x)),
      );
      assert.equal(decodeStringList(offsets, blob, batch), list, `batch ${batch}`);
      assert.equal(decodeStringList(offsets, blob, 5), list, `encoded in batches of ${batch}, decoded in 5`);
    }
  }
});

test("round trip: a hand-checked graph answers exactly as before", () => {
  const b = new GraphBuilder({ cursorSecret: SECRET });
  b.addEntity({ entityId: "Q42", rawIdentifier: "Douglas Adams", type: "0", sourceType: "wikidata" });
  b.addEntity({ entityId: "Q5", rawIdentifier: "human", type: "1", sourceType: "wikidata" });
  b.addEntity({ entityId: "P31", rawIdentifier: "instance of", type: "2", sourceType: "wikidata" });
  b.addEntity({ entityId: "Q1", rawIdentifier: "Straße 😀 \uFFFF", type: "3", sourceType: "ß" });
  b.addStatement({ subjectEntityId: "Q42", predicateEntityId: "P31", objectEntityId: "Q5" });
  b.addStatement({
    subjectEntityId: "Q1",
    predicateEntityId: "P31",
    objectEntityId: "Q5",
    statementFingerprint: "not hex é",
  });
  const g = b.build();
  const r = reopen(g);
  assert.equal(
    r.search({ q: "STRASSE" }).items.map((e) => e.entityId),
    ["Q1"],
  );
  assert.equal(r.getEntity("Q1")?.rawIdentifier, "Straße 😀 \uFFFF");
  const page = r.statements({ predicateEntityId: "P31" });
  assert.equal(page, g.statements({ predicateEntityId: "P31" }));
  assert.equal(
    page.items.map((s) => s.statementFingerprint),
    ["not hex é", deriveFingerprint("Q42", "P31", "Q5")],
  );
});

test("round trip: seeded Unicode graphs, every query and page identical and oracle-checked (many seeds)", () => {
  const tally: Tally = { walks: 0, pages: 0 };
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 1 + (seed % 45), statements: (seed * 7) % 90 });
    const g = buildGraph(data, SECRET);
    compareGraphs(g, reopen(g), new Oracle(data), rng, `seed ${seed}`, 10, 2, tally);
  }
  assert.ok(tally.walks > 1000 && tally.pages > tally.walks, show(tally));
});

test("round trip: medium Unicode graphs", () => {
  const tally: Tally = { walks: 0, pages: 0 };
  for (let seed = 201; seed <= 206; seed++) {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 500, statements: 1500 });
    const g = buildGraph(data, SECRET);
    compareGraphs(g, reopen(g), new Oracle(data), rng, `seed ${seed}`, 40, 5, tally);
  }
});

test("round trip: Latin-1 graphs use one-byte string blobs and still answer identically", () => {
  const tally: Tally = { walks: 0, pages: 0 };
  for (let seed = 301; seed <= 310; seed++) {
    const rng = new Rng(seed);
    const data = latinGraphData(rng, 150, 400);
    const g = buildGraph(data, SECRET);
    const bytes = snapshotBytes(g);
    for (const id of [ID.ENTITY_ID_TEXT, ID.RAW_ID_TEXT, ID.SOURCE_TYPE_TEXT])
      assert.is(section(bytes, id).kind, 1, `section ${id} is Latin-1`);
    compareGraphs(g, reopen(g), new Oracle(data), rng, `latin seed ${seed}`, 20, 3, tally);
  }
  // And a Unicode graph needs UTF-16 for its identifiers.
  const g = buildGraph(generateGraph(new Rng(9), { entities: 100, statements: 10 }), SECRET);
  assert.is(section(snapshotBytes(g), ID.RAW_ID_TEXT).kind, 2);
});

test("round trip: a snapshot is deterministic, and the file layer agrees with the format", async () => {
  const data = generateGraph(new Rng(404), { entities: 300, statements: 900 });
  const g = buildGraph(data, SECRET);
  const path = join(TMP, "round.snap");
  const progress: number[] = [];
  const { bytes } = await saveSnapshot(g, path, { onProgress: (p) => progress.push(p.bytesWritten) });
  assert.equal(Buffer.from(snapshotBytes(g)), Buffer.from(snapshotBytes(buildGraph(data, "other secret"))));
  const file = (await import("node:fs")).readFileSync(path);
  assert.is(file.length, bytes);
  assert.ok(Buffer.from(snapshotBytes(g)).equals(file));
  assert.is(progress[progress.length - 1], bytes);
  const r = await openSnapshot(path, { cursorSecret: SECRET });
  compareGraphs(g, r, new Oracle(data), new Rng(405), "file", 30, 4, { walks: 0, pages: 0 });
  // An opened graph (typed arrays viewing the file's buffer) saves to the same bytes.
  assert.ok(Buffer.from(snapshotBytes(r)).equals(file));
  // Saving over an existing snapshot replaces it, and leaves no temporary file behind.
  const g2 = buildGraph(generateGraph(new Rng(406), { entities: 50, statements: 60 }), SECRET);
  await saveSnapshot(g2, path);
  assert.is((await openSnapshot(path)).entityCount, g2.entityCount);
  assert.equal(
    readdirSync(TMP).filter((f) => f.endsWith(".tmp")),
    [],
  );
});

test("round trip: the file is read in two pieces, the tail only transient sections, summed piece by piece", async () => {
  const g = buildGraph(generateGraph(new Rng(12), { entities: 200, statements: 500 }), SECRET);
  const path = join(TMP, "pieces.snap");
  const { bytes: size } = await saveSnapshot(g, path);
  const all = snapshotBytes(g);
  const whole = crc32(all.subarray(HEADER_BYTES));
  // The transient sections (strings, fingerprint side table) come last, and the tail starts at the first.
  const transient: number[] = [
    ID.ENTITY_ID_OFFSETS,
    ID.ENTITY_ID_TEXT,
    ID.RAW_ID_OFFSETS,
    ID.RAW_ID_TEXT,
    ID.SOURCE_TYPE_OFFSETS,
    ID.SOURCE_TYPE_TEXT,
    ID.FINGERPRINT_TEXT_ROWS,
    ID.FINGERPRINT_TEXT_OFFSETS,
    ID.FINGERPRINT_TEXT,
  ];
  const table = sectionTable(all);
  const split = Math.min(...table.filter((t) => transient.includes(t.id)).map((t) => t.offset));
  assert.ok(table.every((t) => transient.includes(t.id) || t.offset + t.byteLength <= split));
  for (const piece of [1, 7, HEADER_BYTES - 1, HEADER_BYTES, HEADER_BYTES + 1, 4096, size - 1, size, 1 << 26]) {
    const { bytes, checksum } = await readSnapshotFile(path, piece);
    assert.is(bytes.head.length, split);
    assert.is(bytes.head.length + bytes.tail.length, size);
    assert.is(bytes.head.byteOffset % 8, 0);
    assert.is(bytes.tail.byteOffset % 8, 0);
    assert.is(checksum, whole, `pieces of ${piece} bytes`);
    const r = new Graph(decodeSnapshot(bytes, path, { checksum }), { cursorSecret: SECRET });
    assert.equal(r.statements({ limit: 200 }), g.statements({ limit: 200 }));
    // Every typed array of the graph is a view on the head, none on the tail.
    for (const a of [
      graphParts(r).types,
      graphParts(r).sourceTypeIndex,
      graphParts(r).searchIndex.suffixArray,
      graphParts(r).statementIndex.subject,
      graphParts(r).statementIndex.fingerprints.lo,
    ]) {
      assert.ok(a.buffer === bytes.head.buffer);
    }
  }
  // A checksum that disagrees with the header is refused like a corrupted file.
  const { bytes } = await readSnapshotFile(path);
  expectInvalid(() => decodeSnapshot(bytes, path, { checksum: whole ^ 1 }), path, /checksum mismatch/);
});

test("round trip: bytes cut anywhere into head and tail (inside the table, inside a section) decode the same", () => {
  const data = generateGraph(new Rng(13), { entities: 120, statements: 300 });
  const g = buildGraph(data, SECRET);
  const all = snapshotBytes(g);
  const cuts = new Set<number>([HEADER_BYTES, HEADER_BYTES + 5, HEADER_BYTES + 24 * 10 + 3, all.length]);
  for (const t of sectionTable(all)) for (const d of [-3, 0, 1, 8]) cuts.add(Math.min(all.length, t.offset + d));
  const rng = new Rng(14);
  for (let k = 0; k < 30; k++) cuts.add(HEADER_BYTES + rng.int(all.length - HEADER_BYTES));
  const expected = JSON.stringify([
    g.statements({ limit: 200 }),
    g.search({ q: "a", limit: 100 }),
    g.search({ q: "ß", limit: 100 }),
  ]);
  for (const cut of cuts) {
    const bytes = { head: all.slice(0, cut), tail: all.slice(cut) };
    const r = new Graph(decodeSnapshot(bytes, "cut.snap"), { cursorSecret: SECRET });
    assert.is(
      JSON.stringify([
        r.statements({ limit: 200 }),
        r.search({ q: "a", limit: 100 }),
        r.search({ q: "ß", limit: 100 }),
      ]),
      expected,
      `cut at ${cut}`,
    );
  }
});

test("round trip: a failed save rejects with the system error and leaves no temporary file", async () => {
  const g = buildGraph(generateGraph(new Rng(7), { entities: 20, statements: 20 }), SECRET);
  // The temporary file can be written, but the rename over a non-empty directory fails.
  const target = join(TMP, "occupied");
  mkdirSync(target);
  writeFileSync(join(target, "keep"), "x");
  let error: unknown;
  try {
    await saveSnapshot(g, target);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error && /occupied/.test(error.message), String(error));
  assert.equal(
    readdirSync(TMP).filter((f) => f.startsWith("occupied")),
    ["occupied"],
  );
  assert.equal(readdirSync(target), ["keep"]);
  // A directory that does not exist: nothing is created.
  await saveSnapshot(g, join(TMP, "no-such-dir", "x.snap")).then(
    () => assert.unreachable("saved into a missing directory"),
    (e: Error) => assert.match(e.message, /no-such-dir/),
  );
});

test("round trip: bytes at an unaligned offset (a pooled Buffer) still decode", () => {
  const g = buildGraph(generateGraph(new Rng(11), { entities: 40, statements: 80 }), SECRET);
  const bytes = snapshotBytes(g);
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const r = new Graph(decodeSnapshot(shifted.subarray(3), "x.snap"), { cursorSecret: SECRET });
  assert.equal(r.statements({ limit: 200 }), g.statements({ limit: 200 }));
});

// ---------------------------------------------------------------------------------------------
// Damaged files

/** A small graph with every kind of section non-empty (non-hex fingerprints included). */
function damageSubject(
  seed: number,
  entities: number,
  statements: number,
): { g: Graph; bytes: Uint8Array; data: GraphData } {
  for (let s = seed; ; s++) {
    const data = generateGraph(new Rng(s), { entities, statements });
    const g = buildGraph(data, SECRET);
    const bytes = snapshotBytes(g);
    if (section(bytes, ID.FINGERPRINT_TEXT_ROWS).count > 0) return { g, bytes, data };
  }
}

test("damage: truncated at every section boundary, every header byte and random offsets", () => {
  const { bytes } = damageSubject(21, 80, 200);
  const cuts = new Set<number>();
  for (let i = 0; i <= HEADER_BYTES + 28 * 24 + 8; i++) cuts.add(i);
  for (const s of sectionTable(bytes))
    for (const x of [s.offset, s.offset + s.byteLength]) for (const d of [-1, 0, 1]) cuts.add(x + d);
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
  // One extra byte is refused too.
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  expectInvalid(() => decodeSnapshot(longer, "long.snap"), "long.snap", /unexpected bytes after the end/);
});

test("damage: a flipped byte at every offset of a small file, and a flipped bit at random offsets of a larger one", () => {
  const small = damageSubject(31, 12, 20).bytes;
  for (let i = 0; i < small.length; i++) {
    const bad = small.slice();
    bad[i] = (bad[i] as number) ^ 0xff;
    expectInvalid(() => decodeSnapshot(bad, "flip.snap"), "flip.snap", undefined, `flip at ${i}`);
  }
  const { bytes } = damageSubject(32, 300, 1000);
  const rng = new Rng(33);
  for (let k = 0; k < 400; k++) {
    const i = HEADER_BYTES + rng.int(bytes.length - HEADER_BYTES);
    const bad = bytes.slice();
    bad[i] = (bad[i] as number) ^ (1 << rng.int(8));
    // Below the header, any change is caught by the checksum first.
    expectInvalid(
      () => decodeSnapshot(bad, "flip.snap"),
      "flip.snap",
      /checksum mismatch: the file is corrupted/,
      `bit flip at ${i}`,
    );
  }
});

test("damage: wrong magic, foreign files, zeros, empty", () => {
  const { bytes } = damageSubject(41, 20, 30);
  const bad = bytes.slice();
  bad[7] = 0x58;
  expectInvalid(() => decodeSnapshot(bad, "magic.snap"), "magic.snap", /not a Quiver snapshot \(bad magic\)/);
  expectInvalid(() => decodeSnapshot(new Uint8Array(4096), "zeros.snap"), "zeros.snap", /bad magic/);
  expectInvalid(() => decodeSnapshot(new Uint8Array(0), "empty.snap"), "empty.snap", /empty file/);
  expectInvalid(
    () => decodeSnapshot(new TextEncoder().encode('{"entityId":"Q42"}\n'), "data.jsonl"),
    "data.jsonl",
    /bad magic/,
  );
  expectInvalid(
    () => decodeSnapshot(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0), "image.png"),
    "image.png",
    /bad magic/,
  );
  expectInvalid(() => decodeSnapshot(new TextEncoder().encode("QUIV"), "short.snap"), "short.snap", /truncated/);
});

test("damage: a newer (or unknown older) format version, unknown flags", () => {
  const { bytes } = damageSubject(51, 20, 30);
  const newer = bytes.slice();
  new DataView(newer.buffer).setUint32(8, FORMAT_VERSION + 1, true);
  assert.is(
    expectInvalid(() => decodeSnapshot(newer, "new.snap"), "new.snap"),
    `new.snap: format version ${FORMAT_VERSION + 1} is newer than this Quiver reads (${FORMAT_VERSION}); upgrade Quiver or rebuild the snapshot`,
  );
  // Even a newer file cut short says "newer" (the version is read before the length).
  expectInvalid(() => decodeSnapshot(newer.slice(0, 100), "new.snap"), "new.snap", /newer/);
  const older = bytes.slice();
  new DataView(older.buffer).setUint32(8, 0, true);
  expectInvalid(() => decodeSnapshot(older, "old.snap"), "old.snap", /format version 0 is not one this Quiver reads/);
  const flags = bytes.slice();
  new DataView(flags.buffer).setUint32(12, 4, true);
  expectInvalid(() => decodeSnapshot(flags, "flags.snap"), "flags.snap", /unknown flags 0x4/);
});

test("damage: corruptions that keep the checksum valid are refused by the structural checks", () => {
  const { bytes, g } = damageSubject(61, 120, 400);
  const n = g.entityCount;
  const m = g.statementCount;
  const L = section(bytes, ID.SEARCH_TEXT).count;
  const table = sectionTable(bytes);
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const cases: [name: string, mutate: (b: Uint8Array) => void, pattern: RegExp][] = [
    [
      "subject id = entity count",
      (b) => void (u32(b, ID.SUBJECT)[0] = n),
      /subject column.*holds \d+, not below \d+ \(dense entity ids\)/,
    ],
    ["object id huge", (b) => void (u32(b, ID.OBJECT)[m - 1] = 0xffffffff), /object column/],
    ["predicate id = n", (b) => void (u32(b, ID.PREDICATE)[3] = n), /predicate column/],
    ["POS row = m", (b) => void (u32(b, ID.POS_ROWS)[0] = m), /POS order.*statement rows/],
    ["OSP row = m", (b) => void (u32(b, ID.OSP_ROWS)[5] = m), /OSP order/],
    [
      "suffix array entry = text length",
      (b) => void (u32(b, ID.SUFFIX_ARRAY)[7] = L),
      /suffix array.*positions in the search text/,
    ],
    [
      "rank-to-id repeats an id",
      (b) => void (u32(b, ID.RANK_TO_ID)[0] = u32(b, ID.RANK_TO_ID)[1] as number),
      /rank-to-id is not a permutation/,
    ],
    [
      "entity type 8",
      (b) => void (new Uint8Array(b.buffer, b.byteOffset + section(b, ID.TYPES).offset, n)[0] = 8),
      /entity types/,
    ],
    ["sourceType index out of range", (b) => void (u32(b, ID.SOURCE_TYPE_INDEX)[0] = 99), /sourceType index/],
    [
      "entityId offsets out of order",
      (b) => {
        const o = u32(b, ID.ENTITY_ID_OFFSETS);
        o[2] = (o[3] as number) + 1;
      },
      /entityId offsets/,
    ],
    [
      "entityId offsets past the text",
      (b) => {
        const o = u32(b, ID.ENTITY_ID_OFFSETS);
        o[n] = (o[n] as number) + 1;
      },
      /entityId offsets do not span/,
    ],
    [
      "entityIds out of order",
      (b) => {
        const s = section(b, ID.ENTITY_ID_TEXT);
        new Uint8Array(b.buffer, b.byteOffset + s.offset, s.byteLength).fill(0x41);
      },
      /not in ascending order/,
    ],
    [
      "rawIdentifier offsets out of order",
      (b) => {
        const o = u32(b, ID.RAW_ID_OFFSETS);
        o[1] = 0xffff;
      },
      /rawIdentifier offsets/,
    ],
    [
      "search starts not increasing",
      (b) => {
        const o = u32(b, ID.SEARCH_STARTS);
        o[2] = o[1] as number;
      },
      /search start/,
    ],
    [
      "separator bit cleared",
      (b) => {
        const st = u32(b, ID.SEARCH_STARTS);
        const sep = (st[1] as number) - 1;
        const w = u32(b, ID.SEARCH_SEPARATORS);
        w[sep >>> 5] = (w[sep >>> 5] as number) & ~(1 << (sep & 31));
      },
      /lacks the separator/,
    ],
    ["type starts not spanning", (b) => void (u32(b, ID.TYPE_STARTS)[8] = n + 1), /type starts/],
    [
      "type ranks out of order",
      (b) => {
        const t = u32(b, ID.TYPE_RANKS);
        const x = t[0] as number;
        t[0] = t[1] as number;
        t[1] = x;
      },
      /type ranks/,
    ],
    [
      "wavelet count word off by one",
      (b) => void (i32(b, ID.WAVELET_BLOCKS)[18] = (i32(b, ID.WAVELET_BLOCKS)[18] as number) + 1),
      /wavelet matrix level 0 has a wrong rank count/,
    ],
    [
      "wavelet data bit flipped",
      (b) => void (i32(b, ID.WAVELET_BLOCKS)[2] = (i32(b, ID.WAVELET_BLOCKS)[2] as number) ^ 1),
      /wavelet matrix level 0 has a wrong rank count/,
    ],
    [
      "wavelet zero count off by one",
      (b) => void (i32(b, ID.WAVELET_ZEROS)[1] = (i32(b, ID.WAVELET_ZEROS)[1] as number) + 1),
      /wrong zero count/,
    ],
    ["fingerprint text row = m", (b) => void (u32(b, ID.FINGERPRINT_TEXT_ROWS)[0] = m), /fingerprint text rows/],
    ["meta: entity count + 1", (b) => void (u32(b, ID.META)[0] = n + 1), /entityId offsets: \d+ entries/],
    [
      "meta: statement count + 1",
      (b) => void (u32(b, ID.META)[1] = m + 1),
      /subject column.*has \d+ elements, expected \d+/,
    ],
    ["meta: rank bits 0", (b) => void (u32(b, ID.META)[2] = 0), /rank width 0 bits/],
    [
      "meta: rank bits + 1",
      (b) => void (u32(b, ID.META)[2] = (u32(b, ID.META)[2] as number) + 1),
      /wavelet matrix has \d+ levels/,
    ],
    [
      "table: misaligned offset",
      (b) => view(b).setUint32((table[5] as TableEntry).entry + 8, (table[5] as TableEntry).offset + 4, true),
      /not a multiple of 8/,
    ],
    [
      "table: offset past the end",
      (b) => view(b).setUint32((table[5] as TableEntry).entry + 8, b.length + 8, true),
      /outside the data area/,
    ],
    [
      "table: count past the end",
      (b) => view(b).setUint32((table[9] as TableEntry).entry + 16, b.length, true),
      /outside the data area/,
    ],
    [
      "table: huge count",
      (b) => view(b).setUint32((table[9] as TableEntry).entry + 20, 0x00100000, true),
      /outside the data area/,
    ],
    [
      "table: unknown id",
      (b) => view(b).setUint32((table[3] as TableEntry).entry, 999, true),
      /unknown section id 999/,
    ],
    [
      "table: duplicate id",
      (b) => view(b).setUint32((table[18] as TableEntry).entry, (table[19] as TableEntry).id, true),
      /appears twice/,
    ],
    [
      "table: wrong element kind",
      (b) => view(b).setUint32((table[13] as TableEntry).entry + 4, 1, true),
      /element kind 1/,
    ],
    [
      "table: overlapping sections",
      (b) => view(b).setUint32((table[12] as TableEntry).entry + 8, (table[11] as TableEntry).offset, true),
      /overlap/,
    ],
    ["table: one section fewer", (b) => view(b).setUint32(24, table.length - 1, true), /is missing/],
    [
      "header: section count huge",
      (b) => view(b).setUint32(24, 0x0fffffff, true),
      /section table of \d+ entries does not fit/,
    ],
  ];
  for (const [name, mutate, pattern] of cases) {
    const bad = bytes.slice();
    mutate(bad);
    fixChecksum(bad);
    expectInvalid(() => decodeSnapshot(bad, "crafted.snap"), "crafted.snap", pattern, name);
  }

  // A document array with a consistent wavelet matrix but a value past the last rank of its band.
  const bad = bytes.slice();
  const blocks = i32(bad, ID.WAVELET_BLOCKS);
  const zeros = i32(bad, ID.WAVELET_ZEROS);
  const values = new Uint32Array(L);
  const bits = zeros.length;
  const band = 2 ** (bits - 3);
  for (let i = 0; i < L; i++) values[i] = i % n;
  values[L >>> 1] = 3 * band + n; // type 3, rank n: one past the last entity
  const forged = WaveletMatrix.build(values, bits);
  blocks.set(forged.levelBlocks);
  zeros.set(forged.zeros);
  fixChecksum(bad);
  expectInvalid(
    () => decodeSnapshot(bad, "forged.snap"),
    "forged.snap",
    /wavelet matrix holds a rank of type 3 beyond the \d+ entities/,
  );
});

test("damage: random corruption with a valid checksum is refused, or the graph still never throws", () => {
  const { bytes, data } = damageSubject(71, 60, 200);
  const oracle = new Oracle(data);
  const rng = new Rng(72);
  let refused = 0;
  let opened = 0;
  for (let k = 0; k < 600; k++) {
    const bad = bytes.slice();
    const flips = rng.range(1, 4);
    for (let f = 0; f < flips; f++) {
      const i = HEADER_BYTES + rng.int(bad.length - HEADER_BYTES);
      bad[i] = (bad[i] as number) ^ (1 << rng.int(8));
    }
    fixChecksum(bad);
    let g: Graph;
    try {
      g = new Graph(decodeSnapshot(bad, "random.snap"), { cursorSecret: SECRET });
    } catch (e) {
      if (!isQuiverError(e) || e.code !== "INVALID_SNAPSHOT" || !e.message.startsWith("random.snap: ")) {
        assert.unreachable(`case ${k}: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
      }
      refused++;
      continue;
    }
    opened++;
    // Undetected damage may give wrong answers, never an exception from inside an array.
    try {
      for (let j = 0; j < 6; j++) {
        const q = randomQuery(rng, oracle);
        const type = rng.chance(0.3) ? rng.pick(TYPES) : undefined;
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
    } catch (e) {
      assert.unreachable(
        `case ${k}: a query on an undetected corruption threw ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`,
      );
    }
  }
  assert.ok(refused > 0 && opened > 0, `refused ${refused}, opened ${opened}`);
});

test("damage: files on disk truncated at every section boundary or with a flipped byte in the table are refused", async () => {
  const { bytes } = damageSubject(82, 60, 150);
  const path = join(TMP, "damaged-on-disk.snap");
  const cuts = new Set<number>([0, 1, 8, 12, HEADER_BYTES - 1, HEADER_BYTES, HEADER_BYTES + 100]);
  for (const s of sectionTable(bytes))
    for (const x of [s.offset, s.offset + s.byteLength]) for (const d of [-1, 0, 1]) cuts.add(x + d);
  for (const cut of cuts) {
    if (cut < 0 || cut >= bytes.length) continue;
    writeFileSync(path, bytes.subarray(0, cut));
    await expectInvalidAsync(() => openSnapshot(path), path, /truncated|empty file/);
  }
  const rng = new Rng(83);
  for (let k = 0; k < 60; k++) {
    const bad = bytes.slice();
    // Mostly in the header and the table, which decide how the file is cut into head and tail.
    const i = k < 40 ? rng.int(HEADER_BYTES + 28 * 24) : rng.int(bad.length);
    bad[i] = (bad[i] as number) ^ (1 << rng.int(8));
    writeFileSync(path, bad);
    await expectInvalidAsync(() => openSnapshot(path), path);
  }
});

test("damage: files on disk: truncated, flipped, zeros, empty, missing, a directory, each naming the path", async () => {
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
  flipped[bytes.length >>> 1] = (flipped[bytes.length >>> 1] as number) ^ 0x10;
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
  try {
    await openSnapshot(missing);
  } catch (e) {
    assert.is(((e as Error).cause as { code?: string }).code, "ENOENT");
  }
  assert.is((await openSnapshot(good)).statementCount, g.statementCount);
});

// ---------------------------------------------------------------------------------------------
// Swap

/** `data` with about a fifth of its entities (and their statements) removed and new ones added. */
function evolve(rng: Rng, data: GraphData): GraphData {
  const removed = new Set(data.entities.filter(() => rng.chance(0.2)).map((e) => e.entityId));
  const kept = data.entities.filter((e) => !removed.has(e.entityId));
  const taken = new Set(kept.map((e) => e.entityId));
  const extra = generateGraph(rng, { entities: Math.ceil(data.entities.length / 4), statements: 0 }).entities.filter(
    (e) => !removed.has(e.entityId) && !taken.has(e.entityId),
  );
  const entities = [...kept, ...extra];
  const statements = data.statements.filter(
    (s) =>
      !removed.has(s.subjectEntityId) &&
      !removed.has(s.predicateEntityId) &&
      !removed.has(s.objectEntityId) &&
      rng.chance(0.85),
  );
  // Fingerprints already in use stay with their triples.
  const owners = new Map<string, string>();
  for (const s of data.statements) {
    owners.set(
      s.statementFingerprint ?? deriveFingerprint(s.subjectEntityId, s.predicateEntityId, s.objectEntityId),
      JSON.stringify([s.subjectEntityId, s.predicateEntityId, s.objectEntityId]),
    );
  }
  const added: StatementInput[] = randomStatements(rng, entities, Math.ceil(data.statements.length / 3), owners);
  return { entities, statements: [...statements, ...added] };
}

/** The items of `list` strictly after `key` in the contract's order. */
function after<T>(list: readonly T[], keyOf: (x: T) => (string | number)[], key: (string | number)[]): T[] {
  return list.filter((x) => compareKeys(keyOf(x), key) > 0);
}

test("swap: a cursor from the old graph resumes on the new one (opened from a snapshot) at its key", async () => {
  let resumed = 0;
  for (let seed = 91; seed <= 96; seed++) {
    const rng = new Rng(seed);
    const oldData = generateGraph(rng, { entities: 200, statements: 600 });
    const newData = evolve(rng, oldData);
    const oldGraph = buildGraph(oldData, SECRET);
    const path = join(TMP, `new-${seed}.snap`);
    await saveSnapshot(buildGraph(newData, "the builder's secret does not matter"), path);
    const newGraph = await openSnapshot(path, { cursorSecret: SECRET });
    const oldOracle = new Oracle(oldData);
    const newOracle = new Oracle(newData);

    for (let k = 0; k < 25; k++) {
      const q = randomQuery(rng, oldOracle);
      const type = rng.chance(0.3) ? rng.pick(TYPES) : undefined;
      const cursors: [string, Entity][] = [];
      walkPages<Entity>({
        fetch: (limit, cursor) => oldGraph.search({ q, type, limit, cursor }),
        expected: oldOracle.search(q, type),
        nextLimit: () => rng.range(1, 7),
        defaultLimit: 20,
        ctx: `seed ${seed} old search ${show(q)}`,
        onCursor: (c, last) => cursors.push([c, last]),
      });
      for (const [cursor, last] of cursors) {
        walkPages<Entity>({
          fetch: (limit, c) => newGraph.search({ q, type, limit, cursor: c }),
          expected: after(newOracle.search(q, type), (e) => newOracle.searchKey(q, e), oldOracle.searchKey(q, last)),
          nextLimit: limitPolicy(rng, 100),
          defaultLimit: 20,
          cursor,
          ctx: `seed ${seed} search ${show(q)} resumed after ${show(last.entityId)}`,
        });
        resumed++;
      }
    }
    for (let mask = 0; mask < 8; mask++) {
      for (let k = 0; k < 4; k++) {
        const f = randomFilters(rng, mask, oldOracle);
        const order = orderFor(f);
        const cursors: [string, Statement][] = [];
        walkPages<Statement>({
          fetch: (limit, cursor) => oldGraph.statements({ ...f, limit, cursor }),
          expected: oldOracle.statementsFor(f),
          nextLimit: () => rng.range(1, 9),
          defaultLimit: 50,
          ctx: `seed ${seed} old statements ${show(f)}`,
          onCursor: (c, last) => cursors.push([c, last]),
        });
        for (const [cursor, last] of cursors) {
          walkPages<Statement>({
            fetch: (limit, c) => newGraph.statements({ ...f, limit, cursor: c }),
            expected: after(newOracle.statementsFor(f), (s) => statementKey(order, s), statementKey(order, last)),
            nextLimit: limitPolicy(rng, 200),
            defaultLimit: 50,
            cursor,
            ctx: `seed ${seed} statements ${show(f)} resumed after ${show(statementKey(order, last))}`,
          });
          resumed++;
        }
      }
    }
  }
  assert.ok(resumed > 500, String(resumed));
});

test("swap: walkers interleaved across a swap never fail, and each sees old pages then new ones at the right key", async () => {
  const rng = new Rng(123);
  const oldData = generateGraph(rng, { entities: 300, statements: 900 });
  const newData = evolve(rng, oldData);
  const oldGraph = buildGraph(oldData, SECRET);
  const path = join(TMP, "swap.snap");
  await saveSnapshot(buildGraph(newData), path);
  const newGraph = await openSnapshot(path, { cursorSecret: SECRET });
  const oldOracle = new Oracle(oldData);
  const newOracle = new Oracle(newData);

  // The server's one mutable reference: each request reads it once, when it starts.
  let current = oldGraph;
  interface Walker {
    kind: "search" | "statements";
    q: string;
    type: EntityType | undefined;
    f: Filters;
    cursor: string | undefined;
    done: boolean;
    /** The walk ended on the old graph (its last page came before the swap). */
    finishedOnOld: boolean;
    /** Items served, and by which graph. */
    served: { item: Entity | Statement; byOld: boolean }[];
  }
  const walkers: Walker[] = [];
  for (let k = 0; k < 60; k++) {
    const search = k % 2 === 0;
    walkers.push({
      kind: search ? "search" : "statements",
      q: randomQuery(rng, oldOracle),
      type: rng.chance(0.3) ? rng.pick(TYPES) : undefined,
      f: randomFilters(rng, k % 8, oldOracle),
      cursor: undefined,
      done: false,
      finishedOnOld: false,
      served: [],
    });
  }
  const request = async (w: Walker): Promise<void> => {
    await new Promise((r) => setImmediate(r));
    const g = current;
    const page =
      w.kind === "search"
        ? g.search({ q: w.q, type: w.type, limit: 3, cursor: w.cursor })
        : g.statements({ ...w.f, limit: 5, cursor: w.cursor });
    for (const item of page.items) w.served.push({ item, byOld: g === oldGraph });
    w.cursor = page.nextCursor ?? undefined;
    w.done = page.nextCursor === null;
    w.finishedOnOld = w.done && g === oldGraph;
  };
  let swapped = false;
  for (let round = 0; walkers.some((w) => !w.done); round++) {
    // A walk that never ends is a failure, not a test that runs until memory is gone.
    if (round > 5000) assert.unreachable("walkers still running after 5000 rounds");
    // Requests of one round are in flight together; the swap lands between two of them.
    const inFlight = walkers.filter((w) => !w.done && rng.chance(0.7)).map(request);
    if (round === 4) {
      current = newGraph;
      swapped = true;
    }
    await Promise.all(inFlight);
  }
  assert.ok(swapped);
  for (const w of walkers) {
    const oldItems = w.served.filter((s) => s.byOld).map((s) => s.item);
    const newItems = w.served.filter((s) => !s.byOld).map((s) => s.item);
    assert.ok(
      w.served.every((s, i) => i === 0 || !(s.byOld && !(w.served[i - 1] as { byOld: boolean }).byOld)),
      "old after new",
    );
    if (w.finishedOnOld) {
      // Done before the swap: the whole old list, nothing from the new graph.
      assert.equal(oldItems, w.kind === "search" ? oldOracle.search(w.q, w.type) : oldOracle.statementsFor(w.f));
      assert.equal(newItems, []);
    } else if (w.kind === "search") {
      const oldList = oldOracle.search(w.q, w.type);
      assert.equal(oldItems, oldList.slice(0, oldItems.length));
      const last = oldItems[oldItems.length - 1] as Entity | undefined;
      const newList = newOracle.search(w.q, w.type);
      assert.equal(
        newItems,
        last === undefined
          ? newList
          : after(newList, (e) => newOracle.searchKey(w.q, e), oldOracle.searchKey(w.q, last)),
      );
    } else {
      const order = orderFor(w.f);
      assert.equal(oldItems, oldOracle.statementsFor(w.f).slice(0, oldItems.length));
      const last = oldItems[oldItems.length - 1] as Statement | undefined;
      const newList = newOracle.statementsFor(w.f);
      assert.equal(
        newItems,
        last === undefined ? newList : after(newList, (s) => statementKey(order, s), statementKey(order, last)),
      );
    }
  }
});

test("swap: a cursor sealed with another secret is refused as INVALID_CURSOR (replicas must share the secret)", () => {
  const data = generateGraph(new Rng(5), { entities: 100, statements: 300 });
  const a = buildGraph(data, SECRET);
  const b = reopen(a, "another secret");
  const page = a.statements({ limit: 1 });
  assert.ok(page.nextCursor !== null);
  try {
    b.statements({ limit: 1, cursor: page.nextCursor });
    assert.unreachable("accepted a foreign cursor");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.is(e.code, "INVALID_CURSOR");
  }
});

test("swap: with no secret configured, a graph opened in the same process shares the process's secret", async () => {
  const data = generateGraph(new Rng(6), { entities: 100, statements: 300 });
  const path = join(TMP, "default-secret.snap");
  await saveSnapshot(buildGraph(data), path);
  const before = buildGraph(data);
  const after = await openSnapshot(path);
  const page = before.statements({ limit: 7 });
  assert.ok(page.nextCursor !== null);
  assert.equal(
    after.statements({ limit: 7, cursor: page.nextCursor }),
    before.statements({ limit: 7, cursor: page.nextCursor }),
  );
});

test.after(() => rmSync(TMP, { recursive: true, force: true }));

test.run();

/**
 * Graph manifest tests
 * ====================
 * src/snapshot/graph-manifest.ts through both carriers: memory (MemorySerialWriter / Reader, with and
 * without verify, and through a structuredClone with transfer, as a worker thread hands a graph to
 * the main thread) and bytes (encodeSnapshot / decodeSnapshot). Seeded graphs (Unicode identifiers of
 * every kind the contract allows, non-hex fingerprints; and Latin-1 ones, for the one-byte string
 * blobs; lone surrogates are refused at input since the loader's checks) come back answering every
 * query exactly like the graph they came from,
 * page by page and cursor by cursor, each walk also checked against the oracle. The summary: counts,
 * the content tag (stored, not recomputed), the build time and the writer.
 */

import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  MemorySerialReader,
  MemorySerialWriter,
  type SerialField,
  type SerialReader,
} from "../../src/engine/serial.js";
import { deriveFingerprint, type Entity, type Graph, GraphBuilder, isQuiverError } from "../../src/index.js";
import { readTable } from "../../src/snapshot/container.js";
import { decodeSnapshot } from "../../src/snapshot/file.js";
import { readGraph, readGraphSummary, writeGraph } from "../../src/snapshot/graph-manifest.js";
import { compareGraphs, type Tally } from "../support/graph-walks.js";
import {
  buildGraph,
  generateGraph,
  type GraphData,
  limitPolicy,
  Oracle,
  randomStatements,
  Rng,
  show,
  walkPages,
  withScores,
} from "../support/oracle.js";
import { FIXED_BUILT_AT, snapshotBytes } from "../support/snapshot.js";

const SECRET = "manifest-test-secret";
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

function memoryFields(g: Graph): Map<string, SerialField> {
  const w = new MemorySerialWriter();
  writeGraph(g, w, { builtAt: FIXED_BUILT_AT });
  return w.fields;
}

function memoryReader(fields: ReadonlyMap<string, SerialField>, verify = true): SerialReader {
  return new MemorySerialReader(fields, { verify, fail: (what) => new Error(`memory: ${what}`) });
}

/** The three ways back: memory verified, memory trusted, bytes. */
function reopenAll(g: Graph): [string, Graph][] {
  return [
    ["memory", readGraph(memoryReader(memoryFields(g)), { cursorSecret: SECRET })],
    ["memory, verify false", readGraph(memoryReader(memoryFields(g), false), { cursorSecret: SECRET })],
    ["bytes", decodeSnapshot(snapshotBytes(g), "memory.snap", { cursorSecret: SECRET })],
  ];
}

/** An ASCII/Latin-1 graph (every code unit < 256: the one-byte string blobs). */
function latinGraphData(rng: Rng, entities: number, statements: number): GraphData {
  const words = ["alpha", "Beta", "café", "Ærø", "straße", "naïve", "x", "", "ÿ", "µ", "\u0000"];
  const ents: Entity[] = [];
  for (let i = 0; i < entities; i++) {
    ents.push({
      entityId: `e${(i * 7919) % 100003}${rng.pick(["", "é", "z"])}`,
      rawIdentifier: `${rng.pick(words)} ${rng.pick(words)}${rng.int(100)}`.trim(),
      type: String(rng.int(8)) as Entity["type"],
      sourceType: rng.pick(["wiki", "é", ""]),
    });
  }
  const unique = [...new Map(ents.map((e) => [e.entityId, e])).values()];
  return { entities: unique, statements: randomStatements(rng, unique, statements, new Map()) };
}

test("round trip: an empty graph, and one entity with no statements, through every carrier", () => {
  const empty = new GraphBuilder({ cursorSecret: SECRET }).build();
  for (const [how, g] of reopenAll(empty)) {
    assert.is(g.entityCount, 0, how);
    assert.is(g.statementCount, 0, how);
    assert.equal(g.search({ q: "a" }), { items: [], nextCursor: null }, how);
    assert.equal(g.statements(), { items: [], nextCursor: null }, how);
  }
  const b = new GraphBuilder({ cursorSecret: SECRET });
  b.addEntity({ entityId: "Q1", rawIdentifier: "", type: "7", sourceType: "" });
  for (const [how, g] of reopenAll(b.build())) {
    assert.equal(g.getEntity("Q1"), { entityId: "Q1", rawIdentifier: "", type: "7", sourceType: "" }, how);
    assert.equal(g.search({ q: "a" }), { items: [], nextCursor: null }, how);
  }
});

test("round trip: scores and the fold mode are kept; order=score walks and totals equal the oracle's", () => {
  for (let seed = 401; seed <= 404; seed++) {
    const rng = new Rng(seed);
    const data = withScores(rng, generateGraph(rng, { entities: 300, statements: 900 }), 0.5);
    const foldMode = seed % 2 === 0 ? "accents" : "case";
    const g = buildGraph(data, SECRET, foldMode);
    const oracle = new Oracle(data, foldMode);
    for (const [how, r] of reopenAll(g)) {
      assert.is(r.fold, foldMode, how);
      assert.is(r.contentTag, g.contentTag, how);
      for (const q of ["a", "e", "ü", "ab", "ss", "i"]) {
        for (const type of [undefined, "0", "3"] as const) {
          walkPages({
            fetch: (limit, cursor) => r.search({ q, type, limit, cursor, order: "score", count: true }),
            countPolicy: () => true,
            expected: oracle.search(q, type, "score"),
            nextLimit: limitPolicy(rng, 30),
            defaultLimit: 20,
            ctx: `seed ${seed} ${how} q=${show(q)} type=${show(type)}`,
          });
        }
      }
    }
  }
});

test("round trip: a hand-checked graph answers exactly as before", () => {
  const b = new GraphBuilder({ cursorSecret: SECRET });
  b.addEntity({ entityId: "Q42", rawIdentifier: "Douglas Adams", type: "0", sourceType: "wikidata" });
  b.addEntity({ entityId: "Q5", rawIdentifier: "human", type: "1", sourceType: "wikidata" });
  b.addEntity({ entityId: "P31", rawIdentifier: "instance of", type: "2", sourceType: "wikidata" });
  b.addEntity({ entityId: "Q1", rawIdentifier: "Straße 😀 \u{10FFFF}", type: "3", sourceType: "ß" });
  b.addStatement({ subjectEntityId: "Q42", predicateEntityId: "P31", objectEntityId: "Q5" });
  b.addStatement({
    subjectEntityId: "Q1",
    predicateEntityId: "P31",
    objectEntityId: "Q5",
    statementFingerprint: "not hex é",
  });
  const g = b.build();
  for (const [how, r] of reopenAll(g)) {
    assert.equal(
      r.search({ q: "STRASSE" }).items.map((e) => e.entityId),
      ["Q1"],
      how,
    );
    assert.equal(r.getEntity("Q1")?.rawIdentifier, "Straße 😀 \u{10FFFF}", how);
    const page = r.statements({ predicateEntityId: "P31" });
    assert.equal(page, g.statements({ predicateEntityId: "P31" }), how);
    assert.equal(
      page.items.map((s) => s.statementFingerprint),
      ["not hex é", deriveFingerprint("Q42", "P31", "Q5")],
      how,
    );
  }
});

test("round trip: seeded Unicode graphs, every query and page identical and oracle-checked (many seeds)", () => {
  const tally: Tally = { walks: 0, pages: 0 };
  for (let seed = 1; seed <= 45; seed++) {
    const rng = new Rng(seed);
    const data = generateGraph(rng, {
      entities: 1 + (seed % 45),
      statements: (seed * 7) % 90,
    });
    const g = buildGraph(data, SECRET);
    const oracle = new Oracle(data);
    for (const [how, r] of reopenAll(g)) compareGraphs(g, r, oracle, rng, `seed ${seed} ${how}`, 4, 1, tally);
  }
  assert.ok(tally.walks > 1000 && tally.pages > tally.walks, show(tally));
});

test("round trip: medium Unicode graphs", () => {
  for (let seed = 201; seed <= 204; seed++) {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 500, statements: 1500, edgeFingerprints: seed % 2 === 0 });
    const g = buildGraph(data, SECRET);
    const oracle = new Oracle(data);
    for (const [how, r] of reopenAll(g)) compareGraphs(g, r, oracle, rng, `seed ${seed} ${how}`, 15, 2);
  }
});

test("round trip: Latin-1 graphs keep their text one byte a code unit, and still answer identically", () => {
  const units = (bytes: Uint8Array, name: string) =>
    readTable(bytes, "x.snap").sections.find((s) => s.name === name)?.count ?? 0;
  for (let seed = 301; seed <= 306; seed++) {
    const rng = new Rng(seed);
    const data = latinGraphData(rng, 150, 400);
    const g = buildGraph(data, SECRET);
    const bytes = snapshotBytes(g);
    assert.ok(units(bytes, "entities.narrow") > 0, "the entity table has one-byte text");
    assert.is(units(bytes, "entities.wide"), 0, "the entity table needs no UTF-16 store");
    compareGraphs(
      g,
      decodeSnapshot(bytes, "l.snap", { cursorSecret: SECRET }),
      new Oracle(data),
      rng,
      `latin ${seed}`,
      10,
      2,
    );
  }
  // And a Unicode graph needs its UTF-16 store for some identifiers.
  const g = buildGraph(generateGraph(new Rng(9), { entities: 100, statements: 10 }), SECRET);
  assert.ok(units(snapshotBytes(g), "entities.wide") > 0);
});

test("memory carrier: a structuredClone with the transfer list answers alike, read with verify false", () => {
  const rng = new Rng(11);
  const data = generateGraph(rng, { entities: 300, statements: 900 });
  const g = buildGraph(data, SECRET);
  const w = new MemorySerialWriter();
  writeGraph(buildGraph(data, SECRET), w);
  // What a worker thread does: post the fields, transferring (not copying) the arrays' memory.
  const moved = structuredClone(w.fields, { transfer: w.transferables() });
  const r = readGraph(memoryReader(moved, false), { cursorSecret: SECRET });
  compareGraphs(g, r, new Oracle(data), rng, "cloned", 20, 3);
});

test("summary: counts, the content tag, the build time and the writer; readable alone", () => {
  const g = buildGraph(generateGraph(new Rng(12), { entities: 80, statements: 200 }), SECRET);
  const summary = readGraphSummary(memoryReader(memoryFields(g)));
  assert.equal(summary, {
    entities: g.entityCount,
    statements: g.statementCount,
    contentTag: g.stats().contentTag,
    builtAt: FIXED_BUILT_AT,
    writer: `quiver ${PACKAGE_VERSION}`,
    fold: "case",
    sequence: 0,
    changesOrigin: undefined,
  });
  // Without a builtAt option, the time of writing.
  const before = Date.now();
  const w = new MemorySerialWriter();
  writeGraph(g, w);
  const builtAt = readGraphSummary(memoryReader(w.fields)).builtAt.getTime();
  assert.ok(builtAt >= before && builtAt <= Date.now());
});

test("summary: the stored content tag is what stats() reports (not recomputed); counts must agree", () => {
  const g = buildGraph(generateGraph(new Rng(13), { entities: 50, statements: 100 }), SECRET);
  const fields = memoryFields(g);
  const planted = "ab".repeat(32);
  assert.is(readGraph(memoryReader(new Map(fields).set("graph.contentTag", planted))).stats().contentTag, planted);
  assert.is(readGraph(memoryReader(fields)).stats().contentTag, g.stats().contentTag);
  const refused = (f: Map<string, SerialField>, pattern: RegExp) =>
    assert.throws(
      () => readGraph(memoryReader(f)),
      (e: Error) => pattern.test(e.message) && !isQuiverError(e),
    );
  refused(new Map(fields).set("graph.contentTag", "xyz"), /memory: graph: contentTag is not 64 hex digits/);
  const [n, m] = [g.entityCount, g.statementCount];
  refused(
    new Map(fields).set("graph.entities", n + 1),
    new RegExp(`summary counts ${n + 1} entities and ${m} statements, the structures ${n} and ${m}`),
  );
  refused(new Map(fields).set("graph.statements", 0), new RegExp(`summary counts ${n} entities and 0 statements`));
  const missing = new Map(fields);
  missing.delete("graph.writer");
  refused(missing, /graph: writer is missing/);
});

test.run();

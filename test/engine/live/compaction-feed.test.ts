/**
 * The compaction's dense feed (LiveGraph.feedCompaction over GraphBuilder's feedDenseEntities):
 * a compacted graph equals the graph built from scratch from the same content, item for item and
 * tag for tag, on seeded random bases and batches that reach every branch of the feed: given
 * fingerprints (16 hex digits equal to the derived one or not, upper case and other text, edge
 * values), given scores (some equal to the count), more sourceTypes than a record packs (a column
 * of their own), replaced and deleted entities, tombstoned statements, and a compaction of a
 * compaction. Equal byte for byte too in every index (their snapshot sections): the feed's rows come in SPO order,
 * merged from the base's and the delta's, and its score index is made before the statement index;
 * and so does a compaction worker's last feed (feedCompaction's `last`: its indexes made at build(),
 * or first over a shared base; the live graph's delta structures dropped midway).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { type Graph, LiveGraph } from "../../../src/index.js";
import { LiveOracle, randomBatch } from "../../support/live-oracle.js";
import { ContainerWriter } from "../../../src/snapshot/container-serial.js";
import { writeGraph } from "../../../src/snapshot/graph-manifest.js";
import { buildGraph, type FoldMode, type GraphData, generateGraph, Rng, withScores } from "../../support/oracle.js";

/** Distinct sourceTypes in the "many" bases: over the 256 an entity record packs. */
const MANY_SOURCE_TYPES = 300;

/**
 * The snapshot sections of `graph`'s statement, search and score indexes and scores (every section
 * but the graph's marks, such as when it was built, and the entity table, whose sourceTypes a
 * compaction numbers in entityId order), by name, as hex.
 */
function bytes(graph: Graph): Record<string, string> {
  const w = new ContainerWriter();
  writeGraph(graph, w);
  const out: Record<string, string> = {};
  for (const section of w.sections) {
    if (section.name.startsWith("graph.") || section.name.startsWith("entities.")) continue;
    out[section.name] = JSON.stringify(section, (_, v: unknown) =>
      ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex") : v,
    );
  }
  return out;
}

/** Every entity, every statement (with its fingerprint) and the counts and tag of `graph`. */
function content(graph: Graph): unknown {
  return {
    tag: graph.contentTag,
    entities: [...graph.exportEntities()],
    statements: [...graph.exportStatements()],
    counts: [graph.entityCount, graph.statementCount],
  };
}

for (const seed of [21, 22, 23, 24, 25, 26]) {
  const foldMode: FoldMode = seed % 2 === 0 ? "accents" : "case";
  const many = seed % 3 === 0;
  test(`a compaction equals a build from scratch (seed ${seed}, fold ${foldMode}, ${many ? "many" : "few"} sourceTypes)`, () => {
    const rng = new Rng(seed);
    const generated = withScores(
      rng,
      generateGraph(rng, { entities: rng.range(300, 500), statements: rng.range(300, 900), edgeFingerprints: true }),
      0.3,
    );
    const data: GraphData = many
      ? {
          entities: generated.entities.map((e, i) => ({ ...e, sourceType: `source-${i % MANY_SOURCE_TYPES}` })),
          statements: generated.statements,
        }
      : generated;
    const live = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "feed-test" });
    // The same batches and compactions on a second live graph: its last feed keeps its indexes first.
    const twin = new LiveGraph(buildGraph(data, undefined, foldMode), { cursorSecret: "feed-test" });
    const oracle = new LiveOracle(data, foldMode);
    let applied = 0;
    for (let batch = 0; batch < 40; batch++) {
      const changes = randomBatch(rng, oracle, { lines: rng.range(1, 16), conflicts: 0 });
      if (!oracle.apply(changes).ok) continue;
      live.apply(changes);
      twin.apply(changes);
      applied++;
      // Now and then a compaction midway: the next ones compact a compacted base.
      if (batch % 13 === 12) {
        live.compact();
        twin.compact();
      }
    }
    assert.ok(applied > 20, `seed ${seed}: only ${applied} batches applied`);
    const scratch = buildGraph(oracle.data(), "feed-test", foldMode);
    const compacted = live.buildCompacted();
    assert.equal(content(compacted), content(scratch), `seed ${seed}`);
    assert.equal(compacted.stats(), scratch.stats(), `seed ${seed} stats`);
    assert.equal(bytes(compacted), bytes(scratch), `seed ${seed}: snapshot sections`);
    // A worker's last feed (its indexes built at build(), after the base could go) builds the same.
    let phases = 0;
    const last = live.feedCompaction({ last: true, betweenPhases: () => phases++ }).build();
    assert.ok(phases > 0, `seed ${seed}: the phases' hook was called`);
    assert.equal(content(last), content(scratch), `seed ${seed}, last feed`);
    assert.equal(last.stats(), scratch.stats(), `seed ${seed} stats, last feed`);
    assert.equal(bytes(last), bytes(scratch), `seed ${seed}: snapshot sections, last feed`);
    // A last feed over a shared base: the indexes first, the delta's structures dropped all the same.
    const shared = twin.feedCompaction({ last: true, baseShared: true }).build();
    assert.equal(content(shared), content(scratch), `seed ${seed}, last feed, shared base`);
    assert.equal(bytes(shared), bytes(scratch), `seed ${seed}: snapshot sections, last feed, shared base`);
  });
}

test("a compaction orders the statements of one triple by fingerprint as a build from scratch does: derived, given 16 hex digits and text, in the base and in the delta", () => {
  const entity = (entityId: string) => ({
    entityId,
    rawIdentifier: `Name ${entityId}`,
    type: "0" as const,
    sourceType: "t",
  });
  const triple = (s: string, o: string, statementFingerprint?: string) => ({
    subjectEntityId: s,
    predicateEntityId: "p",
    objectEntityId: o,
    ...(statementFingerprint === undefined ? {} : { statementFingerprint }),
  });
  const data: GraphData = {
    entities: ["a", "b", "c", "p"].map(entity),
    statements: [
      triple("a", "b", "ffffffffffffffff"),
      triple("a", "b"),
      triple("a", "b", "0000000000000000"),
      triple("a", "b", "Text fingerprint"),
      triple("a", "b", "7a3b000000000001"),
      triple("b", "c", "8000000000000000"),
      triple("b", "c"),
      triple("c", "a"),
    ],
  };
  const live = new LiveGraph(buildGraph(data), { cursorSecret: "feed-test" });
  const batch = [triple("c", "a", "00000000000000ff"), triple("a", "b", "zz"), triple("b", "a")]
    .map((statement) => JSON.stringify({ op: "put", statement }))
    .join("\n");
  live.apply(batch);
  const scratch = buildGraph(
    {
      entities: data.entities,
      statements: [...data.statements, triple("c", "a", "00000000000000ff"), triple("a", "b", "zz"), triple("b", "a")],
    },
    "feed-test",
  );
  const compacted = live.buildCompacted();
  assert.equal(content(compacted), content(scratch));
  assert.equal(bytes(compacted), bytes(scratch), "snapshot sections");
  // A compaction of the compaction: its base's given fingerprints come through the feed again.
  assert.equal(content(new LiveGraph(compacted, { cursorSecret: "feed-test" }).buildCompacted()), content(scratch));
});

test.run();

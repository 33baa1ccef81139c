/**
 * The demo graph in fixtures/: it loads, and its known names and statements are there. (That it is
 * exactly what tools/make-fixtures.ts makes from YAGO3-10 is checked by `npm run test:datasets`.)
 */

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import type { Graph } from "../src/engine/graph.js";
import type { EntityType } from "../src/engine/types.js";
import { loadGraph } from "../src/load/jsonl.js";

/** Tests run from the repository root. */
const FIXTURES = { entities: resolve("fixtures/entities.jsonl"), statements: resolve("fixtures/statements.jsonl") };
/** STYLE.md: fixtures stay small enough to read. */
const MAX_FIXTURE_BYTES = 200 * 1024;

let graph: Graph | undefined;

async function fixtureGraph(): Promise<Graph> {
  graph ??= await loadGraph(FIXTURES);
  return graph;
}

async function lines(path: string): Promise<string[]> {
  return (await readFile(path, "utf8")).split("\n").filter((l) => l !== "");
}

test("the demo graph loads, one entity and one statement per line", async () => {
  const g = await fixtureGraph();
  const entityLines = await lines(FIXTURES.entities);
  const statementLines = await lines(FIXTURES.statements);
  assert.is(g.entityCount, entityLines.length);
  assert.is(g.statementCount, statementLines.length);
  // The sizes fixtures/README.md promises.
  assert.ok(entityLines.length >= 300 && entityLines.length <= 600, `${entityLines.length} entities`);
  assert.ok(statementLines.length >= 500 && statementLines.length <= 1500, `${statementLines.length} statements`);
  const bytes = (await readFile(FIXTURES.entities)).length + (await readFile(FIXTURES.statements)).length;
  assert.ok(bytes < MAX_FIXTURE_BYTES, `fixtures are ${bytes} bytes`);
});

test("known names are searchable, accents and folding included", async () => {
  const g = await fixtureGraph();
  const top = (q: string, type?: EntityType) => g.search({ q, type }).items[0];
  assert.equal(top("Jürgen Trittin"), {
    entityId: "yago:Jürgen_Trittin",
    rawIdentifier: "Jürgen Trittin",
    type: "0",
    sourceType: "yago3-10",
  });
  assert.is(top("motörhead")?.entityId, "yago:Motörhead");
  // Turkish dotless ı folds to i: "ADAPAZARI" finds "Adapazarı".
  assert.is(top("ADAPAZARI")?.entityId, "yago:Adapazarı");
  assert.is(top("đuričić")?.entityId, "yago:Anđelko_Đuričić");
  // Accents are kept: "jurgen" does not find "Jürgen".
  assert.is(g.search({ q: "jurgen trittin" }).items.length, 0);
  // Relations are entities of type "1".
  assert.is(top("playsFor", "1")?.entityId, "yago-rel:playsFor");
});

test("statements link the known names", async () => {
  const g = await fixtureGraph();
  const married = g.statements({
    subjectEntityId: "yago:Jürgen_Trittin",
    predicateEntityId: "yago-rel:isMarriedTo",
  }).items;
  assert.equal(
    married.map((s) => [s.subjectRawIdentifier, s.predicateRawIdentifier, s.objectRawIdentifier]),
    [["Jürgen Trittin", "isMarriedTo", "Renate Künast"]],
  );
});

test.run();

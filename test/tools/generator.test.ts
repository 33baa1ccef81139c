/**
 * Tests of the seeded graph generator (bench/generator.ts): the same seed gives the same graph,
 * sizes are exactly what was asked, every statement names generated entities, fingerprints are
 * unique, and the names carry the scripts and traps the benchmark relies on. The JSON Lines writer
 * is checked against the in-memory streams, and its files load with the real loader.
 */

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  buildGeneratedGraph,
  forEachGeneratedStatement,
  generateEntities,
  generateGraph,
  generateStatements,
  writeGraphJsonl,
} from "../../tools/generator.js";
import { loadGraph } from "../../src/load/jsonl.js";

const SMALL = { entities: 2_000, statements: 10_000, seed: 7 };

let root = "";
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-generator-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

test("the same seed gives the same graph; another seed another", () => {
  const a = generateGraph(SMALL);
  const b = generateGraph(SMALL);
  assert.equal([...a.entities], [...b.entities]);
  assert.equal([...a.statements], [...b.statements]);
  // Iterating twice replays the same stream.
  assert.equal([...a.statements].slice(0, 50), [...b.statements].slice(0, 50));
  const c = generateGraph({ ...SMALL, seed: 8 });
  assert.not.equal(
    [...c.entities].map((e) => e.rawIdentifier),
    [...a.entities].map((e) => e.rawIdentifier),
  );
  assert.not.equal([...c.statements].slice(0, 50), [...a.statements].slice(0, 50));
});

test("sizes are exactly the requested ones, edge cases included", () => {
  assert.is([...generateEntities(SMALL)].length, 2_000);
  assert.is([...generateStatements(SMALL)].length, 10_000);
  let n = 0;
  forEachGeneratedStatement(SMALL, () => n++);
  assert.is(n, 10_000);
  assert.is([...generateEntities({ entities: 0, statements: 0 })].length, 0);
  assert.is([...generateStatements({ entities: 2, statements: 5 })].length, 5);
  assert.throws(() => generateGraph({ entities: 1, statements: 1 }), /entities must be > 1/);
  assert.throws(() => generateGraph({ entities: -1, statements: 0 }), /entities/);
});

test("ids are unique, statements name generated entities, fingerprints are unique 16-hex", () => {
  const entities = [...generateEntities(SMALL)];
  const ids = new Set(entities.map((e) => e.entityId));
  assert.is(ids.size, entities.length);
  const predicates = new Set(entities.filter((e) => e.type === "1").map((e) => e.entityId));
  const fingerprints = new Set<string>();
  for (const s of generateStatements(SMALL)) {
    assert.ok(ids.has(s.subjectEntityId), s.subjectEntityId);
    assert.ok(ids.has(s.objectEntityId), s.objectEntityId);
    assert.ok(predicates.has(s.predicateEntityId), `predicate ${s.predicateEntityId} is a property`);
    assert.match(s.statementFingerprint ?? "", /^[0-9a-f]{16}$/);
    fingerprints.add(s.statementFingerprint as string);
  }
  assert.is(fingerprints.size, 10_000);
  for (const s of generateStatements({ ...SMALL, fingerprints: "derived" }))
    assert.is(s.statementFingerprint, undefined);
});

test("types, source types and names look like the real thing", () => {
  const entities = [...generateEntities({ entities: 20_000, statements: 0, seed: 3 })];
  const types = new Map<string, number>();
  for (const e of entities) types.set(e.type, (types.get(e.type) ?? 0) + 1);
  assert.equal([...types.keys()].sort(), ["0", "1", "2", "3", "4", "5", "6", "7"]);
  // Skewed: persons lead, codes are rare.
  assert.ok((types.get("0") as number) > 5 * (types.get("6") as number));
  assert.ok(new Set(entities.map((e) => e.sourceType)).size >= 4);
  const names = entities.map((e) => e.rawIdentifier).join("\n");
  for (const [what, pattern] of [
    ["accented Latin", /[éüøłñ]/],
    ["apostrophe", /O'/],
    ["disambiguator", / \((footballer|politician|musician|actor|painter|writer)\)/],
    ["Greek with final sigma", /[\u0370-\u03ff]+ς/],
    ["Cyrillic", /[\u0400-\u04ff]/],
    ["CJK", /[\u4e00-\u9fff]/],
    ["Hangul", /[\uac00-\ud7af]/],
    ["emoji (surrogate pair)", /[\ud800-\udbff][\udc00-\udfff]/],
    ["full-width", /[\uff01-\uff5e]/],
    ["ligature", /[\ufb00-\ufb06]/],
    ["ß", /ß/],
    ["dotted capital I", /İ/],
  ] as const) {
    assert.ok(pattern.test(names), `some name has ${what}`);
  }
});

test("degrees are skewed: hubs exist among subjects, objects and predicates", () => {
  const count = (key: "subjectEntityId" | "predicateEntityId" | "objectEntityId") => {
    const m = new Map<string, number>();
    for (const s of generateStatements({ entities: 20_000, statements: 100_000, seed: 5 }))
      m.set(s[key], (m.get(s[key]) ?? 0) + 1);
    return [...m.values()].sort((x, y) => y - x);
  };
  const predicates = count("predicateEntityId");
  assert.ok((predicates[0] as number) > 50 * (predicates[predicates.length - 1] as number), "Zipf predicates");
  const objects = count("objectEntityId");
  assert.ok((objects[0] as number) > (100 * 100_000) / 20_000, "object hubs far above the mean degree");
  const subjects = count("subjectEntityId");
  assert.ok((subjects[0] as number) > (10 * 100_000) / 20_000, "subject hubs above the mean degree");
});

test("writeGraphJsonl writes the same graph the streams give, and it loads", async () => {
  const dir = join(root, "small");
  const written = await writeGraphJsonl(dir, SMALL);
  assert.is(written.entityCount, 2_000);
  assert.is(written.statementCount, 10_000);
  const entityLines = (await readFile(written.entities, "utf8")).split("\n").filter((l) => l !== "");
  const statementLines = (await readFile(written.statements, "utf8")).split("\n").filter((l) => l !== "");
  assert.equal(
    entityLines.map((l) => JSON.parse(l)),
    [...generateEntities(SMALL)],
  );
  assert.equal(
    statementLines.map((l) => JSON.parse(l)),
    [...generateStatements(SMALL)],
  );
  const graph = await loadGraph({ entities: written.entities, statements: written.statements });
  assert.is(graph.entityCount, 2_000);
  assert.is(graph.statementCount, 10_000);
  const inMemory = buildGeneratedGraph(SMALL);
  assert.is(inMemory.statementCount, 10_000);
  assert.equal(graph.statements({ limit: 20 }).items, inMemory.statements({ limit: 20 }).items);
});

test.run();

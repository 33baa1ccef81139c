import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { GraphBuilder } from "../../src/engine/graph-builder.js";
import { loadGraph } from "../../src/load/jsonl.js";
import { connectedSubset, readKgDataset, writeKgDatasetJsonLines, type KgDataset } from "../../src/cli/kg-datasets.js";

import { DATA_DIR, datasetDir } from "../support/datasets.js";

const YAGO_DIR = join(DATA_DIR, "yago3-10");
const FB_DIR = join(DATA_DIR, "fb15k-237");

let root = "";
let yago: KgDataset | undefined;

/** Non-blank lines of a file (CRLF or LF). */
async function countLines(path: string): Promise<number> {
  return (await readFile(path, "utf8")).split("\n").filter((l) => l.trim() !== "").length;
}

async function yagoDataset(): Promise<KgDataset> {
  datasetDir("yago3-10");
  yago ??= await readKgDataset(YAGO_DIR);
  return yago;
}

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-kg-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

test("yago3-10: one entity per name and per relation, one statement per triple line", async () => {
  const data = await yagoDataset();
  const triples = (await countLines(join(YAGO_DIR, "valid.txt"))) + (await countLines(join(YAGO_DIR, "test.txt")));
  assert.is(triples, 10_000);
  assert.is(data.dataset, "yago3-10");
  assert.is(data.nameCount, 123_182);
  assert.is(data.relationCount, 37);
  assert.is(data.entities.length, 123_182 + 37);
  assert.is(data.statements.length, triples);
  assert.is(new Set(data.entities.map((e) => e.entityId)).size, data.entities.length);
});

test("yago3-10: literal conversions", async () => {
  const data = await yagoDataset();
  const byId = new Map(data.entities.map((e) => [e.entityId, e]));
  assert.equal(byId.get("yago:Albrecht_Dürer"), {
    entityId: "yago:Albrecht_Dürer",
    rawIdentifier: "Albrecht Dürer",
    type: "0",
    sourceType: "yago3-10",
  });
  assert.is(byId.get("yago:Josh_Smith_(soccer)")?.rawIdentifier, "Josh Smith (soccer)");
  assert.is(byId.get("yago:Dilaver_Satılmış")?.rawIdentifier, "Dilaver Satılmış");
  assert.is(
    byId.get("yago:de/Deutsche_Fußballnationalmannschaft_(U-20-Männer)")?.rawIdentifier,
    "de/Deutsche Fußballnationalmannschaft (U-20-Männer)",
  );
  assert.equal(byId.get("yago-rel:playsFor"), {
    entityId: "yago-rel:playsFor",
    rawIdentifier: "playsFor",
    type: "1",
    sourceType: "yago3-10",
  });
  // entities.dict order first: index 0 is Emile_Sinclair; the relations follow the names.
  assert.is(data.entities[0]?.entityId, "yago:Emile_Sinclair");
  assert.is(data.entities[123_182]?.entityId, "yago-rel:wasBornIn");
  // valid.txt line 1, then test.txt line 1.
  assert.equal(data.statements[0], {
    subjectEntityId: "yago:Mikheil_Khutsishvili",
    predicateEntityId: "yago-rel:playsFor",
    objectEntityId: "yago:FC_Merani_Tbilisi",
  });
  assert.equal(data.statements[5000], {
    subjectEntityId: "yago:Stan_Collymore",
    predicateEntityId: "yago-rel:playsFor",
    objectEntityId: "yago:England_national_football_team",
  });
});

test("yago3-10: hashed types are deterministic, spread over 0,2..7, relations stay 1", async () => {
  datasetDir("yago3-10");
  const data = await readKgDataset(YAGO_DIR, { types: "hashed" });
  const again = await readKgDataset(YAGO_DIR, { types: "hashed" });
  assert.equal(
    data.entities.map((e) => e.type),
    again.entities.map((e) => e.type),
  );
  const names = data.entities.slice(0, data.nameCount);
  const perType = new Map<string, number>();
  for (const e of names) perType.set(e.type, (perType.get(e.type) ?? 0) + 1);
  assert.equal([...perType.keys()].sort(), ["0", "2", "3", "4", "5", "6", "7"]);
  // FNV-1a spreads well: every type gets roughly a seventh.
  for (const n of perType.values()) assert.ok(Math.abs(n - names.length / 7) < names.length / 70, `uneven spread ${n}`);
  assert.ok(data.entities.slice(data.nameCount).every((e) => e.type === "1"));
});

test("yago3-10: the conversion loads into a GraphBuilder and is searchable", async () => {
  const data = await yagoDataset();
  const builder = new GraphBuilder();
  for (const e of data.entities) builder.addEntity(e);
  for (const s of data.statements) builder.addStatement(s);
  const graph = builder.build();
  assert.is(graph.entityCount, 123_182 + 37);
  assert.is(graph.statementCount, 10_000);
  const [first] = graph.search({ q: "albrecht dürer" }).items;
  assert.is(first?.entityId, "yago:Albrecht_Dürer");
  assert.is(
    graph.statements({ subjectEntityId: "yago:Stan_Collymore" }).items[0]?.objectRawIdentifier,
    "England national football team",
  );
});

test("yago3-10: written as JSON Lines, it loads back with the same counts", async () => {
  const data = await yagoDataset();
  const paths = await writeKgDatasetJsonLines(data, join(root, "yago-jsonl"));
  assert.is(await countLines(paths.entities), data.entities.length);
  assert.is(await countLines(paths.statements), data.statements.length);
  const firstLine = (await readFile(paths.entities, "utf8")).split("\n")[0];
  assert.is(
    firstLine,
    '{"entityId":"yago:Emile_Sinclair","rawIdentifier":"Emile Sinclair","type":"0","sourceType":"yago3-10"}',
  );
  const graph = await loadGraph(paths);
  assert.is(graph.entityCount, data.entities.length);
  assert.is(graph.statementCount, data.statements.length);
});

test("fb15k-237: mids verbatim, CRLF triple files, every mid of the triples an entity", async () => {
  datasetDir("fb15k-237");
  const data = await readKgDataset(FB_DIR);
  const triples = (await countLines(join(FB_DIR, "valid.txt"))) + (await countLines(join(FB_DIR, "test.txt")));
  assert.is(triples, 38_001);
  assert.is(data.statements.length, triples);
  assert.ok(data.nameCount >= 14_541);
  assert.is(data.relationCount, 237);
  const ids = new Set(data.entities.map((e) => e.entityId));
  assert.is(ids.size, data.entities.length);
  for (const s of data.statements) {
    assert.ok(ids.has(s.subjectEntityId) && ids.has(s.predicateEntityId) && ids.has(s.objectEntityId));
  }
  assert.ok(
    !data.entities.some((e) => e.entityId.includes("\r") || e.rawIdentifier.includes("\r")),
    "a CR leaked into an id",
  );
  const byId = new Map(data.entities.map((e) => [e.entityId, e]));
  assert.equal(byId.get("fb:/m/07pd_j"), {
    entityId: "fb:/m/07pd_j",
    rawIdentifier: "/m/07pd_j",
    type: "0",
    sourceType: "fb15k-237",
  });
  assert.equal(data.statements[0], {
    subjectEntityId: "fb:/m/07pd_j",
    predicateEntityId: "fb-rel:/film/film/genre",
    objectEntityId: "fb:/m/02l7c8",
  });
  assert.is(byId.get("fb-rel:/film/film/genre")?.type, "1");
});

test("connectedSubset: connected, within the cap, every statement's ends kept", async () => {
  const data = await yagoDataset();
  const subset = connectedSubset(data, 200);
  assert.is(subset.nameCount, 200);
  const ids = new Set(subset.entities.map((e) => e.entityId));
  assert.is(ids.size, subset.nameCount + subset.relationCount);
  for (const s of subset.statements)
    assert.ok(ids.has(s.subjectEntityId) && ids.has(s.predicateEntityId) && ids.has(s.objectEntityId));
  // Connected: a walk over the statements from one name reaches every name.
  const neighbours = new Map<string, string[]>();
  for (const s of subset.statements) {
    neighbours.set(s.subjectEntityId, [...(neighbours.get(s.subjectEntityId) ?? []), s.objectEntityId]);
    neighbours.set(s.objectEntityId, [...(neighbours.get(s.objectEntityId) ?? []), s.subjectEntityId]);
  }
  const start = subset.statements[0]!.subjectEntityId;
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const n of neighbours.get(queue.pop()!) ?? []) {
      if (seen.has(n)) continue;
      seen.add(n);
      queue.push(n);
    }
  }
  assert.is(seen.size, subset.nameCount);
  assert.equal(connectedSubset(data, 200), subset, "not deterministic");
});

test.run();

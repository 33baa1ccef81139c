/**
 * `quiver entity ID`, run as a user runs it: the entity printed is the engine's `getEntity` (ids
 * with "/", non-ASCII, a leading "-" after --), from a snapshot or JSON Lines; an unknown id is said
 * on stderr with exit status 3 and nothing on stdout; usage errors exit 2.
 */

import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { EXIT_NOT_FOUND } from "../../src/cli/command.js";
import { type Graph, GraphBuilder, saveSnapshot } from "../../src/index.js";
import { jsonLines, type QuiverRun as Run, quiverRuns, tempFiles } from "../support/cli.js";

const ENTITIES = [
  { entityId: "Q42", rawIdentifier: "Douglas Adams", type: "0", sourceType: "wikidata" },
  { entityId: "path/with/slash", rawIdentifier: "Slashed", type: "1", sourceType: "" },
  { entityId: "Zürich 東京 \u{1F600}", rawIdentifier: "Zürich", type: "2", sourceType: "test" },
  { entityId: "-starts-with-dash", rawIdentifier: "Dash", type: "3", sourceType: "test" },
] as const;

let graph: Graph;
let snapshot = "";
let jsonl: string[] = [];

test.before(async () => {
  const files = await tempFiles({
    "entities.jsonl": ENTITIES.map((e) => JSON.stringify(e)).join("\n") + "\n",
    "statements.jsonl": `${JSON.stringify({ subjectEntityId: "Q42", predicateEntityId: "path/with/slash", objectEntityId: "Q42" })}\n`,
  });
  jsonl = ["--entities", files["entities.jsonl"]!, "--statements", files["statements.jsonl"]!];
  const b = new GraphBuilder();
  for (const e of ENTITIES) b.addEntity({ ...e });
  graph = b.build();
  snapshot = join(files["entities.jsonl"]!, "..", "g.snap");
  await saveSnapshot(graph, snapshot);
});

test("entity: the engine's entity as one JSON line, from a snapshot and from JSON Lines", async () => {
  // Every id from the snapshot; from JSON Lines, the one with "/" and non-ASCII (each run is a process).
  const cases = [...ENTITIES.map((e) => [[snapshot], e] as const), [[...jsonl, "--quiet"], ENTITIES[2]] as const];
  const runs = await quiverRuns([
    ...cases.map(([input, e]) => ["entity", ...input, "--", e.entityId]),
    ["entity", snapshot, "Q42"],
    ["entity", "Q42", ...jsonl, "--quiet"],
  ]);
  for (const [k, [, e]] of cases.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 0, run.stderr);
    assert.equal(jsonLines(run.stdout), [graph.getEntity(e.entityId)]);
    assert.is(run.stdout, `${JSON.stringify(e)}\n`);
    assert.is(run.stderr, "");
  }
  const [plain, after] = runs.slice(cases.length) as [Run, Run];
  assert.equal([plain.code, plain.stdout], [0, `${JSON.stringify(ENTITIES[0])}\n`]);
  assert.is(after.code, 0, "options may follow the id");
});

test("entity: an unknown id says so on stderr, prints nothing, exits 3; the id is not percent-decoded", async () => {
  const ids = ["q42", "path%2Fwith%2Fslash"];
  const runs = await quiverRuns(ids.map((id) => ["entity", snapshot, id]));
  for (const [k, id] of ids.entries()) {
    const run = runs[k]!;
    assert.is(run.code, EXIT_NOT_FOUND, id);
    assert.is(run.stdout, "");
    assert.is(run.stderr, `quiver entity: the graph has no entity with the entityId ${JSON.stringify(id)}\n`);
  }
  assert.is(EXIT_NOT_FOUND, 3);
});

test("entity: usage errors exit 2 (no id, an empty id, two ids, both kinds of graph)", async () => {
  const usages = [
    ["entity", snapshot],
    ["entity", ...jsonl],
    ["entity", snapshot, ""],
    ["entity", snapshot, "Q42", "Q43"],
    ["entity", snapshot, "-x"],
  ];
  const runs = await quiverRuns([...usages, ["entity", `${snapshot}.missing`, "Q42"], ["entity", "--help"]]);
  for (const [k, args] of usages.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, /^quiver entity: /);
    assert.is(run.stdout, "");
  }
  const [missing, help] = runs.slice(usages.length) as [Run, Run];
  assert.is(missing.code, 1);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: quiver entity /);
});

test.run();

/**
 * `quiver dump`: build -> dump -> build gives the same graph (equal content tags), on the demo graph
 * and on a graph whose statements carry fingerprints of their own; the files are the input format in
 * canonical order; a bad --out is refused before the graph is opened; no partial file is left.
 */

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { deriveFingerprint, loadGraph, openSnapshot } from "../../src/index.js";
import { jsonLines, quiverRun, tempFiles } from "../support/cli.js";

const FIXTURES = join(process.cwd(), "fixtures");

async function folder(): Promise<string> {
  const files = await tempFiles({ ".keep": "" });
  return join(files[".keep"]!, "..");
}

/** build the JSON Lines, dump the snapshot, build the dump; returns both snapshots and the dump folder. */
async function roundTrip(entities: string, statements: string) {
  const dir = await folder();
  const first = join(dir, "first.snap");
  const second = join(dir, "second.snap");
  const out = join(dir, "dumped");
  for (const args of [
    ["build", "--entities", entities, "--statements", statements, "--out", first, "--quiet"],
    ["dump", first, "--out", out],
    [
      "build",
      "--entities",
      join(out, "entities.jsonl"),
      "--statements",
      join(out, "statements.jsonl"),
      "--out",
      second,
    ],
  ]) {
    const run = await quiverRun(args);
    assert.is(run.code, 0, `${args.join(" ")}\n${run.stderr}`);
  }
  return { first: await openSnapshot(first), second: await openSnapshot(second), out };
}

test("the demo graph round-trips: build -> dump -> build has the same content tag", async () => {
  const { first, second, out } = await roundTrip(join(FIXTURES, "entities.jsonl"), join(FIXTURES, "statements.jsonl"));
  assert.is(second.stats().contentTag, first.stats().contentTag);
  assert.equal(second.stats().entities, 573);
  assert.equal((await readdir(out)).sort(), ["entities.jsonl", "statements.jsonl"], "no partial files left");
  // The input format in canonical order: entities by entityId, statements by subject, predicate, object.
  const entities = jsonLines(await readFile(join(out, "entities.jsonl"), "utf8"));
  assert.equal(entities, [...first.exportEntities()]);
  const ids = entities.map((e) => e.entityId as string);
  assert.equal(
    ids,
    [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const demo = await loadGraph({
    entities: join(FIXTURES, "entities.jsonl"),
    statements: join(FIXTURES, "statements.jsonl"),
  });
  assert.is(first.stats().contentTag, demo.stats().contentTag);
});

test("fingerprints of their own are dumped and come back; derived ones are left out", async () => {
  const entity = (id: string) =>
    JSON.stringify({ entityId: id, rawIdentifier: `name of ${id}`, type: "0", sourceType: "" });
  const files = await tempFiles({
    "e.jsonl": ["a", "b", "p"].map(entity).join("\n") + "\n",
    "s.jsonl":
      [
        { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b", statementFingerprint: "mine-1" },
        { subjectEntityId: "b", predicateEntityId: "p", objectEntityId: "a" },
        {
          subjectEntityId: "a",
          predicateEntityId: "p",
          objectEntityId: "a",
          statementFingerprint: deriveFingerprint("a", "p", "a"),
        },
      ]
        .map((s) => JSON.stringify(s))
        .join("\n") + "\n",
  });
  const { first, second, out } = await roundTrip(files["e.jsonl"]!, files["s.jsonl"]!);
  assert.is(second.stats().contentTag, first.stats().contentTag);
  assert.equal(jsonLines(await readFile(join(out, "statements.jsonl"), "utf8")), [
    { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "a" },
    { subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b", statementFingerprint: "mine-1" },
    { subjectEntityId: "b", predicateEntityId: "p", objectEntityId: "a" },
  ]);
});

test("dump: --out required, a file as --out refused before reading; JSON Lines input works too", async () => {
  const dir = await folder();
  const data = ["--entities", join(FIXTURES, "entities.jsonl"), "--statements", join(FIXTURES, "statements.jsonl")];
  const noOut = await quiverRun(["dump", ...data]);
  assert.is(noOut.code, 2);
  assert.match(noOut.stderr, /--out DIR is required/);
  const asFile = await quiverRun(["dump", ...data, "--out", join(FIXTURES, "README.md")]);
  assert.is(asFile.code, 1);
  assert.ok(asFile.stderr.includes(`--out ${join(FIXTURES, "README.md")}: is a file`), asFile.stderr);
  assert.not.match(asFile.stderr, /reading/, "refused before loading");
  const fromJsonLines = await quiverRun(["dump", ...data, "--out", join(dir, "nested", "out"), "--quiet"]);
  assert.is(fromJsonLines.code, 0, fromJsonLines.stderr);
  assert.match(fromJsonLines.stderr, /wrote .*entities\.jsonl: 573 entities/);
  assert.match(fromJsonLines.stderr, /wrote .*statements\.jsonl: 566 statements/);
});

test.run();

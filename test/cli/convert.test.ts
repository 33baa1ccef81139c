/**
 * `quiver convert` on small synthetic benchmark folders (the full YAGO3-10 and FB15k-237
 * conversions are checked by `npm run test:datasets`): the layout read off the folder's name or
 * given, the conventions of each dataset, --splits and --types, and every input problem named.
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { jsonLines, quiverRun, tempFiles } from "../support/cli.js";

async function dataset(folderName: string, files: Record<string, string>): Promise<string> {
  const base = await tempFiles({ ".keep": "" });
  const dir = join(base[".keep"]!, "..", folderName);
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const read = async (dir: string, file: string) => jsonLines(await readFile(join(dir, file), "utf8"));

test("yago3-10: names with _ as spaces, relations as predicates, triple-only names added; CRLF read", async () => {
  const dir = await dataset("yago3-10", {
    "entities.dict": "0\tA_b\n1\tC\n",
    "relations.dict": "0\tr\n",
    "valid.txt": "A_b\tr\tC\r\nC\tr\tNew_one\r\n",
    "test.txt": "\n",
  });
  const out = join(dir, "..", "out");
  const run = await quiverRun(["convert", dir, "--out", out]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /4 entities \(names: 3, relations: 1\)/);
  assert.equal(await read(out, "entities.jsonl"), [
    { entityId: "yago:A_b", rawIdentifier: "A b", type: "0", sourceType: "yago3-10" },
    { entityId: "yago:C", rawIdentifier: "C", type: "0", sourceType: "yago3-10" },
    { entityId: "yago:New_one", rawIdentifier: "New one", type: "0", sourceType: "yago3-10" },
    { entityId: "yago-rel:r", rawIdentifier: "r", type: "1", sourceType: "yago3-10" },
  ]);
  assert.equal(await read(out, "statements.jsonl"), [
    { subjectEntityId: "yago:A_b", predicateEntityId: "yago-rel:r", objectEntityId: "yago:C" },
    { subjectEntityId: "yago:C", predicateEntityId: "yago-rel:r", objectEntityId: "yago:New_one" },
  ]);
  // What convert writes, build takes.
  const built = await quiverRun([
    "build",
    "--entities",
    join(out, "entities.jsonl"),
    "--statements",
    join(out, "statements.jsonl"),
    "--out",
    join(out, "g.snap"),
  ]);
  assert.is(built.code, 0, built.stderr);
});

test("fb15k-237 by --dataset, --splits, --types hashed", async () => {
  const dir = await dataset("any-name", {
    "entities.dict": "0\t/m/07_x\n",
    "relations.dict": "0\t/film/actor\n",
    "valid.txt": "/m/07_x\t/film/actor\t/m/0y\n",
    "train.txt": "/m/0y\t/film/actor\t/m/07_x\n",
  });
  const out = join(dir, "..", "fb");
  const guessed = await quiverRun(["convert", dir, "--out", out]);
  assert.is(guessed.code, 2);
  assert.match(guessed.stderr, /cannot tell the layout .* give --dataset yago3-10 or fb15k-237/);
  const run = await quiverRun([
    "convert",
    dir,
    "--out",
    out,
    "--dataset",
    "fb15k-237",
    "--splits",
    "valid.txt,train.txt",
    "--types",
    "hashed",
  ]);
  assert.is(run.code, 0, run.stderr);
  const entities = await read(out, "entities.jsonl");
  assert.equal(
    entities.map((e) => [e.entityId, e.rawIdentifier, e.sourceType]),
    [
      ["fb:/m/07_x", "/m/07_x", "fb15k-237"],
      ["fb:/m/0y", "/m/0y", "fb15k-237"],
      ["fb-rel:/film/actor", "/film/actor", "fb15k-237"],
    ],
  );
  for (const e of entities.slice(0, 2)) assert.ok(["0", "2", "3", "4", "5", "6", "7"].includes(e.type), e.type);
  assert.is(entities[2].type, "1");
  assert.is((await read(out, "statements.jsonl")).length, 2);
});

test("input problems: a missing split, a malformed line (file:line), a bad option value, a file as DIR", async () => {
  const dir = await dataset("yago3-10", {
    "entities.dict": "0\tA\n",
    "relations.dict": "0\tr\n",
    "valid.txt": "A\tr\tA\n",
    "test.txt": "A\tr\n",
  });
  const out = join(dir, "..", "o");
  const missing = await quiverRun(["convert", dir, "--out", out, "--splits", "valid.txt,train.txt"]);
  assert.is(missing.code, 1);
  assert.ok(missing.stderr.includes(`${join(dir, "train.txt")}: no such file`), missing.stderr);
  const malformed = await quiverRun(["convert", dir, "--out", out]);
  assert.is(malformed.code, 1);
  assert.ok(malformed.stderr.includes(`${join(dir, "test.txt")}:1: expected head<TAB>relation<TAB>tail`));
  const types = await quiverRun(["convert", dir, "--out", out, "--types", "random"]);
  assert.is(types.code, 2);
  assert.match(types.stderr, /--types must be fixed or hashed/);
  const file = await quiverRun(["convert", join(dir, "valid.txt"), "--out", out, "--dataset", "yago3-10"]);
  assert.is(file.code, 1);
  assert.match(file.stderr, /valid\.txt: is a file; give a folder/);
  const noDir = await quiverRun(["convert", "--out", out]);
  assert.is(noDir.code, 2);
  assert.match(noDir.stderr, /missing DIR/);
});

test.run();

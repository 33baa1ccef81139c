/**
 * The KG dataset converters on small synthetic files (the full YAGO3-10 and FB15k-237 conversions are
 * checked by `npm run test:datasets`, test/datasets/kg-datasets.test.ts).
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { QuiverError } from "../../src/engine/errors.js";
import { readKgDataset } from "../../src/cli/kg-datasets.js";

let root = "";
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-kg-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

test("a name only the triples use becomes an entity; a malformed line names file:line", async () => {
  const dir = join(root, "yago3-10");
  await mkdir(dir);
  await writeFile(join(dir, "entities.dict"), "0\tA_b\n1\tC\n");
  await writeFile(join(dir, "relations.dict"), "0\tr\n");
  await writeFile(join(dir, "valid.txt"), "A_b\tr\tC\r\nC\tr\tNew_one\r\n");
  await writeFile(join(dir, "test.txt"), "\n");
  const data = await readKgDataset(dir);
  assert.equal(
    data.entities.map((e) => [e.entityId, e.rawIdentifier, e.type]),
    [
      ["yago:A_b", "A b", "0"],
      ["yago:C", "C", "0"],
      ["yago:New_one", "New one", "0"],
      ["yago-rel:r", "r", "1"],
    ],
  );
  assert.is(data.statements.length, 2);

  await writeFile(join(dir, "test.txt"), "A_b\tr\tC\n\nA_b\tr\n");
  const error = await readKgDataset(dir).then(
    () => assert.unreachable("should fail"),
    (e: unknown) => e,
  );
  assert.instance(error, QuiverError);
  assert.is((error as QuiverError).code, "INVALID_DATA");
  assert.ok((error as Error).message.startsWith(`${join(dir, "test.txt")}:3: `), (error as Error).message);
});

test.run();

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { makeFixtures } from "../../tools/make-fixtures.js";
import { DATA_DIR, datasetDir } from "../support/datasets.js";

const FIXTURES = { entities: resolve("fixtures/entities.jsonl"), statements: resolve("fixtures/statements.jsonl") };

test("the fixtures are exactly what tools/make-fixtures.ts makes from YAGO3-10", async () => {
  datasetDir("yago3-10");
  const out = await mkdtemp(join(tmpdir(), "quiver-fixtures-"));
  try {
    const made = await makeFixtures(DATA_DIR, out);
    assert.ok(
      (await readFile(made.entities)).equals(await readFile(FIXTURES.entities)),
      "fixtures/entities.jsonl is stale: rerun tools/make-fixtures",
    );
    assert.ok(
      (await readFile(made.statements)).equals(await readFile(FIXTURES.statements)),
      "fixtures/statements.jsonl is stale: rerun tools/make-fixtures",
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test.run();

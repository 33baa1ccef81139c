/**
 * The loader's memory steps: tests
 * ================================
 * loadGraph lets memory go between its phases (the builder's stored fingerprints compacted once the
 * statements are ended, garbage collected between phases, the sort threads ended once the statement
 * index is built): none of it may change the graph. Each case is loaded through loadGraph (on one
 * thread and on three, the search index in its worker) and built by a GraphBuilder fed the same
 * items (no compaction: every row's fingerprint column as it is); the content tags and the snapshot
 * bytes must be equal. Cases: the oracle's mix (derived fingerprints, given ones equal to the derived
 * one, given hex ones that differ, text ones, runs of one triple, exact duplicates), few stored
 * (compacted), and most rows storing one (more than half: the columns are kept).
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import type { EntityInput, StatementInput } from "../../src/engine/types.js";
import { loadGraph } from "../../src/load/jsonl.js";
import { generateGraph, Rng } from "../support/oracle.js";
import { snapshotBytes } from "../support/snapshot.js";

let root = "";

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-load-memory-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

const HEX = "0123456789abcdef";

/** Writes the case's files and checks loadGraph's graph against a GraphBuilder's. */
async function sameAsBuilder(name: string, entities: EntityInput[], statements: StatementInput[]): Promise<void> {
  const dir = join(root, name);
  await mkdir(dir);
  const paths = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
  await writeFile(paths.entities, entities.map((e) => JSON.stringify(e)).join("\n"));
  await writeFile(paths.statements, statements.map((s) => JSON.stringify(s)).join("\n"));
  const builder = new GraphBuilder();
  for (const e of entities) builder.addEntity(e);
  for (const s of statements) builder.addStatement(s);
  const built = builder.build();
  for (const threads of [1, 3]) {
    const loaded = await loadGraph({ ...paths, threads, searchIndexThread: true });
    assert.is(loaded.statementCount, built.statementCount, `${name}, ${threads} threads`);
    assert.is(loaded.contentTag, built.contentTag, `${name}, ${threads} threads`);
    assert.equal(snapshotBytes(loaded), snapshotBytes(built), `${name}, ${threads} threads`);
  }
}

for (const seed of [1, 2]) {
  test(`seed ${seed}: the oracle's mix of fingerprints loads as a GraphBuilder builds it`, async () => {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 400, statements: 5000, edgeFingerprints: true, loneSurrogates: false });
    // Some statements again under a text fingerprint: runs of one triple, ordered by fingerprint.
    const statements = [...data.statements];
    for (let k = 0; k < 50; k++) {
      const st = data.statements[rng.int(data.statements.length)]!;
      statements.push({ ...st, statementFingerprint: `text-${seed}-${k}` });
    }
    await sameAsBuilder(`mix-${seed}`, data.entities, statements);
  });

  test(`seed ${seed}: most rows storing a fingerprint (the columns kept) load as a GraphBuilder builds it`, async () => {
    const rng = new Rng(seed + 10);
    const data = generateGraph(rng, { entities: 300, statements: 4000, loneSurrogates: false });
    // A distinct random 16-hex fingerprint on about 3 rows in 4 (a triple repeated under another one
    // is a run of one triple): more than half the rows store theirs.
    const used = new Set<string>();
    const statements = data.statements.map((st) => {
      if (rng.float() < 0.25) return { ...st, statementFingerprint: undefined };
      let fp = "";
      do {
        fp = Array.from({ length: 16 }, () => HEX[rng.int(16)]).join("");
      } while (used.has(fp));
      used.add(fp);
      return { ...st, statementFingerprint: fp };
    });
    await sameAsBuilder(`dense-${seed}`, data.entities, statements);
  });
}

test.run();

/**
 * Content tag tests
 * =================
 * src/engine/content-tag.ts against a naive writer of the same canonical bytes (each number a
 * Buffer of 4 bytes, each string Buffer.from(s, "utf16le"), a derived fingerprint as the string
 * hex64 makes, all concatenated and hashed once) on seeded random content: Latin-1, wide and astral
 * text, empty strings, given and derived fingerprints, enough statements that the 1 MiB batch
 * fills in the middle of a field (and of a run of statements written a word at a time), and a string
 * longer than the batch. And the tag of the demo
 * fixtures, pinned: the bytes must not change between versions (replicas and snapshots made by
 * another version compare tags).
 */

import { createHash } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { contentTag, type TaggedContent } from "../../src/engine/content-tag.js";
import { hex64, type Hash64 } from "../../src/engine/hash64.js";
import { Graph } from "../../src/engine/graph.js";
import { graphParts } from "../../src/engine/internal.js";
import { type EntityType, GraphBuilder, loadGraph } from "../../src/index.js";
import { mulberry32 } from "../../tools/prng.js";

interface Content {
  entities: { strings: [string, string, string]; type: number }[];
  statements: { ids: [number, number, number]; given: string | undefined; halves: Hash64 }[];
}

function tagged(c: Content): TaggedContent {
  return {
    entityCount: c.entities.length,
    entityStrings: (id) => c.entities[id]!.strings,
    typeOf: (id) => c.entities[id]!.type,
    statementCount: c.statements.length,
    statementIds: (row, out) => out.set(c.statements[row]!.ids),
    fingerprintTextOr: (row, halves) => {
      const st = c.statements[row]!;
      halves[0] = st.halves[0];
      halves[1] = st.halves[1];
      return st.given;
    },
  };
}

/** The canonical bytes, the slow and obvious way. */
function naiveTag(c: Content): string {
  const parts: Buffer[] = [];
  const word = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0);
    parts.push(b);
  };
  const text = (s: string) => {
    word(s.length);
    parts.push(Buffer.from(s, "utf16le"));
  };
  word(c.entities.length);
  for (const e of c.entities) {
    for (const s of e.strings) text(s);
    word(e.type);
  }
  word(c.statements.length);
  for (const st of c.statements) {
    for (const id of st.ids) word(id);
    text(st.given ?? hex64(st.halves[0], st.halves[1]));
  }
  return createHash("sha256").update(Buffer.concat(parts)).digest("hex");
}

/** `textShare`: the share of statements whose fingerprint is a text (the rest are 16 hex digits). */
function randomContent(seed: number, entities: number, statements: number, textShare = 0.3): Content {
  const rand = mulberry32(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const alphabets = ["abcxyz_:", "éüßñ", "Ω語日本", "😀𝄞"];
  const text = (most: number) => {
    const letters = alphabets[int(alphabets.length)]!;
    let s = "";
    for (let n = int(most + 1); n > 0; n--) s += [...letters][int([...letters].length)];
    return s;
  };
  const u32 = () => (rand() * 2 ** 32) >>> 0;
  return {
    entities: Array.from({ length: entities }, () => ({
      strings: [text(12), text(30), text(4)] as [string, string, string],
      type: int(8),
    })),
    statements: Array.from({ length: statements }, () => ({
      ids: [u32(), int(entities), u32()] as [number, number, number],
      given: rand() < textShare ? text(20) : undefined,
      halves: [u32(), u32()] as Hash64,
    })),
  };
}

test("the same digest as the naive canonical bytes, on random content", () => {
  for (const [seed, entities, statements, textShare] of [
    [1, 0, 0, 0.3],
    [2, 1, 1, 0.3],
    [3, 50, 200, 0.3],
    [4, 2_000, 30_000, 0.3], // about 2 MiB of bytes: the batch is flushed mid-field
    [6, 2_001, 60_000, 0], // hex fingerprints only: written a word at a time, the batch full mid-run
    [7, 333, 60_000, 0.001], // a rare text fingerprint between runs of words
  ] as const) {
    const c = randomContent(seed, entities, statements, textShare);
    assert.is(contentTag(tagged(c)), naiveTag(c), `seed ${seed}`);
  }
});

test("a string longer than the batch, between short ones", () => {
  const c = randomContent(5, 3, 3);
  c.entities[1]!.strings[1] = "ab語".repeat(200_000); // 1.2 MiB of UTF-16
  c.statements[2]!.given = "x".repeat(600_000);
  assert.is(contentTag(tagged(c)), naiveTag(c));
});

test("a built graph's tag, the score overrides handed over by the builder, is the one the graph counts itself", () => {
  const rand = mulberry32(0x5c0e);
  const int = (n: number) => Math.floor(rand() * n);
  for (const [entities, statements] of [
    [1, 0],
    [40, 300],
    [500, 4_000],
  ] as const) {
    const b = new GraphBuilder();
    const ids = Array.from({ length: entities }, (_, i) => `e${(i * 7919) % entities}`);
    // Given scores: none, a small one (often equal to the count), or a large one (never equal).
    for (const entityId of ids) {
      const r = rand();
      const score = r < 0.4 ? undefined : r < 0.7 ? int(4) : 1_000 + int(1_000);
      b.addEntity({ entityId, rawIdentifier: entityId, type: String(int(8)) as EntityType, sourceType: "", score });
    }
    // Repeated roles and duplicate statements: each counted once.
    for (let i = 0; i < statements; i++) {
      const s = ids[int(entities)]!;
      const o = rand() < 0.2 ? s : ids[int(entities)]!;
      b.addStatement({ subjectEntityId: s, predicateEntityId: ids[int(Math.min(entities, 5))]!, objectEntityId: o });
    }
    const built = b.build();
    const counted = new Graph({ ...graphParts(built), contentTag: undefined });
    assert.is(built.stats().contentTag, counted.stats().contentTag, `${entities} entities`);
  }
});

test("the demo fixtures' tag is the one every earlier version computed", async () => {
  const g = await loadGraph({ entities: "fixtures/entities.jsonl", statements: "fixtures/statements.jsonl" });
  // Pinned from 24e520d (the per-field writer this replaced); a change here breaks replicas and ETags.
  assert.is(g.stats().contentTag, "487fbd5c8e512821da064bd14d948c5cfe5ff5c8ca8c09aec8b2d0d815aec3bf");
});

test.run();

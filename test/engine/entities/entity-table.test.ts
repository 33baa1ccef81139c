/**
 * Entity table tests
 * ==================
 * src/engine/entities/entity-table.ts against plain arrays: seeded random tables (Latin-1 and wider text, an
 * entityId Latin-1 beside a wider rawIdentifier, empty rawIdentifiers, the contract's longest
 * strings, every type, few and many sourceTypes) read back column by column and whole; compareId and
 * idEquals against JavaScript's string order, and idEquals at the edges of an entityId's span; the code-unit count and the bytes held; lengths past
 * the record's fields refused.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { EntityTable, PACKED_SOURCE_TYPES, RECORD_WORDS } from "../../../src/engine/entities/entity-table.js";
import { hash64, type Hash64 } from "../../../src/engine/hash64.js";
import { ENTITY_TYPES } from "../../../src/engine/types.js";
import { Rng, show } from "../../support/oracle.js";

const PIECES = ["a", "b", "Z", "0", " ", "é", "ÿ", "\u0000", "Ā", "字", "😀", "\uD83D", "\uE000", "ｆ"];

function randomText(rng: Rng, max: number): string {
  let s = "";
  const n = rng.int(max + 1);
  for (let i = 0; i < n; i++) s += rng.pick(PIECES);
  return s;
}

interface Columns {
  entityIds: string[];
  rawIdentifiers: string[];
  types: number[];
  sourceTypeIndex: number[];
  sourceTypes: string[];
}

function randomColumns(rng: Rng, n: number, sourceTypeCount: number): Columns {
  const ids = new Set<string>();
  while (ids.size < n) ids.add(`${randomText(rng, 6)}${ids.size}`);
  const entityIds = [...ids].sort();
  const sourceTypes = Array.from({ length: sourceTypeCount }, (_, i) => (i === 0 ? "" : `${randomText(rng, 3)}#${i}`));
  return {
    entityIds,
    rawIdentifiers: entityIds.map(() => randomText(rng, 20)),
    types: entityIds.map(() => rng.int(ENTITY_TYPES.length)),
    sourceTypeIndex: entityIds.map(() => rng.int(sourceTypeCount)),
    sourceTypes,
  };
}

function expectTable(t: EntityTable, c: Columns, ctx: string): void {
  const h: Hash64 = [0, 0];
  assert.is(t.size, c.entityIds.length, ctx);
  for (let d = 0; d < t.size; d++) {
    const want = {
      entityId: c.entityIds[d]!,
      rawIdentifier: c.rawIdentifiers[d]!,
      type: ENTITY_TYPES[c.types[d]!]!,
      sourceType: c.sourceTypes[c.sourceTypeIndex[d]!]!,
    };
    const got = t.entity(d);
    if (JSON.stringify(got) !== JSON.stringify(want))
      assert.unreachable(`${ctx}: entity ${d} is ${show(got)}, want ${show(want)}`);
    assert.is(t.entityId(d), want.entityId, ctx);
    assert.is(t.rawIdentifier(d), want.rawIdentifier, ctx);
    assert.is(t.typeOf(d), c.types[d], ctx);
    assert.is(t.sourceTypeOf(d), want.sourceType, ctx);
    hash64([want.entityId], h);
    assert.is(t.hashHi(d), h[0], ctx);
    assert.is(t.hashLo(d), h[1], ctx);
  }
  assert.is(t.rawCodeUnits, c.rawIdentifiers.join("").length, ctx);
}

test("oracle: every column of random tables, few and many sourceTypes, read back as given", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed);
    const many = seed % 3 === 0;
    const c = randomColumns(rng, rng.range(1, 80), many ? PACKED_SOURCE_TYPES + rng.range(1, 400) : rng.range(1, 5));
    expectTable(EntityTable.from(c), c, `seed ${seed}`);
  }
});

test("touch reads each entity's record and the first code unit of its text, page after page", () => {
  for (let seed = 1; seed <= 10; seed++) {
    const rng = new Rng(100 + seed);
    const c = randomColumns(rng, rng.range(1, 300), 3);
    const t = EntityTable.from(c);
    // Pages of growing length (the gathering array grows past its first size), ids at random.
    for (const count of [1, 50, 300, 700]) {
      const ids = Uint32Array.from({ length: count }, () => rng.int(t.size));
      let want = 0;
      // The span starts with the entityId (never empty), so its first code unit is the entityId's.
      for (const d of ids) want ^= c.entityIds[d]!.charCodeAt(0);
      t.touch(ids, count);
      assert.is(t.touched, want, `seed ${seed}, ${count} ids`);
    }
  }
});

test("the given hashes are kept as given (the builder's, made when each entity was added)", () => {
  const c = randomColumns(new Rng(7), 10, 2);
  const hashes = Uint32Array.from({ length: 20 }, (_, i) => i * 7919);
  const t = EntityTable.from({ ...c, hashes });
  for (let d = 0; d < 10; d++) {
    assert.is(t.hashHi(d), hashes[2 * d]);
    assert.is(t.hashLo(d), hashes[2 * d + 1]);
  }
});

test("compareId and idEquals agree with JavaScript string order", () => {
  const rng = new Rng(4);
  const c = randomColumns(rng, 50, 1);
  const t = EntityTable.from(c);
  const probes = [...c.entityIds, ...Array.from({ length: 50 }, () => randomText(rng, 6)), ""];
  for (let d = 0; d < t.size; d++) {
    for (const s of probes) {
      const a = c.entityIds[d]!;
      const want = a < s ? -1 : a > s ? 1 : 0;
      assert.is(Math.sign(t.compareId(d, s)), want, `${show(a)} vs ${show(s)}`);
      assert.is(t.idEquals(d, s), a === s);
    }
  }
});

test("idEquals reads the entityId's span only: not the rawIdentifier after it, in either store", () => {
  // An entityId and its rawIdentifier are adjacent in the text (one span): a probe that runs on into
  // the rawIdentifier, or stops short, is not the entityId. Latin-1 spans and UTF-16 ones (a wide
  // rawIdentifier puts the entityId in the UTF-16 store too).
  const t = EntityTable.from({
    entityIds: ["", "ab", "ac", "b字"],
    rawIdentifiers: ["x", "c", "字d", "e"],
    types: [0, 0, 0, 0],
    sourceTypeIndex: [0, 0, 0, 0],
    sourceTypes: [""],
  });
  const cases: [number, string, boolean][] = [
    [0, "", true],
    [0, "x", false],
    [1, "ab", true],
    [1, "abc", false],
    [1, "a", false],
    [1, "ac", false],
    [2, "ac", true],
    [2, "ac字", false],
    [2, "ab", false],
    [3, "b字", true],
    [3, "b字e", false],
    [3, "b", false],
  ];
  for (const [d, s, want] of cases) assert.is(t.idEquals(d, s), want, `${d} ${show(s)}`);
});

test("the contract's longest strings fit; longer ones are refused; an empty table works", () => {
  // 512 and 1,024 bytes of UTF-8 are at most 512 and 1,024 UTF-16 code units.
  const longest: Columns = {
    entityIds: ["i".repeat(512), "j"],
    rawIdentifiers: ["字".repeat(1024), ""],
    types: [7, 0],
    sourceTypeIndex: [0, 0],
    sourceTypes: ["x".repeat(256)],
  };
  expectTable(EntityTable.from(longest), longest, "longest");
  assert.throws(() => EntityTable.from({ ...longest, entityIds: ["i".repeat(1024), "j"] }), /longer than the contract/);
  assert.throws(
    () => EntityTable.from({ ...longest, rawIdentifiers: ["r".repeat(2048), ""] }),
    /longer than the contract/,
  );
  const empty = EntityTable.from({
    entityIds: [],
    rawIdentifiers: [],
    types: [],
    sourceTypeIndex: [],
    sourceTypes: [],
  });
  assert.is(empty.size, 0);
  assert.is(empty.rawCodeUnits, 0);
});

test("bytes held: a record per entity, one or two bytes a code unit, and the column when needed", () => {
  const latin: Columns = {
    entityIds: ["a", "b"],
    rawIdentifiers: ["Dürer", ""],
    types: [0, 1],
    sourceTypeIndex: [0, 0],
    sourceTypes: [""],
  };
  // "aDürer" + "b": 7 one-byte code units.
  assert.is(EntityTable.from(latin).byteLength, 2 * RECORD_WORDS * 4 + 7);
  // A wider rawIdentifier takes its entityId into the UTF-16 store with it: "a字" is 2 code units of 2 bytes.
  const wide = { ...latin, rawIdentifiers: ["字", ""] };
  assert.is(EntityTable.from(wide).byteLength, 2 * RECORD_WORDS * 4 + 4 + 1);
  const sourceTypes = Array.from({ length: PACKED_SOURCE_TYPES + 1 }, (_, i) => `${i}`);
  assert.is(EntityTable.from({ ...latin, sourceTypes }).byteLength, 2 * RECORD_WORDS * 4 + 7 + 2 * 2);
});

test.run();

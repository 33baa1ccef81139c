/**
 * GraphBuilder tests
 * ==================
 * CONTRACT.md "Data model" and "Input format": every kind of bad item stops the load with a
 * QuiverError whose message names the file and line, when the item is added (so the first bad line
 * is the one named); strings within their byte limits and well-formed; derived fingerprints are 16
 * lowercase hex digits, the same for the same triple in any build; an exact duplicate is kept once,
 * in O(1) work per copy; one fingerprint on two different triples is FINGERPRINT_CONFLICT naming the
 * later line and the earlier one; a builder builds once.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  deriveFingerprint,
  GraphBuilder,
  isQuiverError,
  ENTITY_ID_MAX_BYTES,
  RAW_IDENTIFIER_MAX_BYTES,
  SOURCE_TYPE_MAX_BYTES,
  STATEMENT_FINGERPRINT_MAX_BYTES,
  type EntityInput,
  type Graph,
  type Statement,
  type StatementInput,
} from "../../src/index.js";
import { endStatements, reserveStatements } from "../../src/engine/internal.js";
import { expectCode, Rng, show, TYPES } from "../support/oracle.js";

const FILE = "data/entities.jsonl";
const SFILE = "data/statements.jsonl";

const ENTITY: EntityInput = { entityId: "Q1", rawIdentifier: "One", type: "0", sourceType: "wikidata" };

function withEntities(ids: string[] = ["A", "B", "C", "P"]): GraphBuilder {
  const b = new GraphBuilder({ cursorSecret: "b" });
  for (const [i, entityId] of ids.entries())
    b.addEntity(
      { entityId, rawIdentifier: entityId.toLowerCase(), type: "0", sourceType: "" },
      { file: FILE, line: i + 1 },
    );
  return b;
}

/** `f` must throw a QuiverError of `code` whose message contains `file:line` and whose source is that position. */
function expectDataError(f: () => unknown, code: string, file: string, line: number, ctx: string): void {
  try {
    f();
  } catch (e) {
    if (!isQuiverError(e)) throw new Error(`${ctx}: not a QuiverError: ${String(e)}`);
    assert.is(e.code, code, `${ctx}: code (${e.message})`);
    assert.ok(
      e.message.includes(`${file}:${line}`),
      `${ctx}: message ${show(e.message)} does not name ${file}:${line}`,
    );
    assert.equal(e.source, { file, line }, `${ctx}: source`);
    // a reason beyond the position
    assert.ok(
      e.message.replace(`${file}:${line}`, "").replace(/[:\s]/g, "").length > 5,
      `${ctx}: no reason in ${show(e.message)}`,
    );
    return;
  }
  assert.unreachable(`${ctx}: accepted`);
}

function all(g: Graph): Statement[] {
  return g.statements({ limit: 200 }).items;
}

test("bad entities: each kind gives its code and names file:line", () => {
  const cases: [string, unknown, string][] = [
    ["null", null, "INVALID_DATA"],
    ["array", [ENTITY], "INVALID_DATA"],
    ["string", "Q1", "INVALID_DATA"],
    ["number", 7, "INVALID_DATA"],
    ["missing entityId", { rawIdentifier: "x", type: "0", sourceType: "" }, "INVALID_DATA"],
    ["missing rawIdentifier", { entityId: "Q9", type: "0", sourceType: "" }, "INVALID_DATA"],
    ["missing type", { entityId: "Q9", rawIdentifier: "x", sourceType: "" }, "INVALID_DATA"],
    ["missing sourceType", { entityId: "Q9", rawIdentifier: "x", type: "0" }, "INVALID_DATA"],
    ["entityId number", { ...ENTITY, entityId: 9 }, "INVALID_DATA"],
    ["entityId empty", { ...ENTITY, entityId: "" }, "INVALID_DATA"],
    ["entityId null", { ...ENTITY, entityId: null }, "INVALID_DATA"],
    ["rawIdentifier null", { ...ENTITY, entityId: "Q9", rawIdentifier: null }, "INVALID_DATA"],
    ["rawIdentifier number", { ...ENTITY, entityId: "Q9", rawIdentifier: 3 }, "INVALID_DATA"],
    ["sourceType null", { ...ENTITY, entityId: "Q9", sourceType: null }, "INVALID_DATA"],
    ["sourceType array", { ...ENTITY, entityId: "Q9", sourceType: ["x"] }, "INVALID_DATA"],
    ["type 8", { ...ENTITY, entityId: "Q9", type: "8" }, "INVALID_DATA"],
    ["type empty", { ...ENTITY, entityId: "Q9", type: "" }, "INVALID_DATA"],
    ["type 00", { ...ENTITY, entityId: "Q9", type: "00" }, "INVALID_DATA"],
    ["type a", { ...ENTITY, entityId: "Q9", type: "a" }, "INVALID_DATA"],
    ["type number 0", { ...ENTITY, entityId: "Q9", type: 0 }, "INVALID_DATA"],
    ["type full-width", { ...ENTITY, entityId: "Q9", type: "０" }, "INVALID_DATA"],
    ["duplicate entityId", { ...ENTITY }, "DUPLICATE_ENTITY"],
  ];
  for (const [name, entity, code] of cases) {
    const b = new GraphBuilder();
    b.addEntity({ ...ENTITY }, { file: FILE, line: 1 });
    // JavaScript callers may pass anything: the builder checks at run time what the types promise.
    expectDataError(() => b.addEntity(entity as EntityInput, { file: FILE, line: 17 }), code, FILE, 17, name);
  }
  // the duplicate names the first definition too
  const b = new GraphBuilder();
  b.addEntity({ ...ENTITY }, { file: FILE, line: 3 });
  try {
    b.addEntity({ ...ENTITY, rawIdentifier: "other" }, { file: FILE, line: 12 });
  } catch (e) {
    assert.ok(isQuiverError(e) && e.message.includes(`${FILE}:12`) && e.message.includes("Q1"), String(e));
  }
  // ids differing only by case, or by a trailing U+0000, are different entities
  const ok = new GraphBuilder();
  for (const entityId of ["Q1", "q1", "Q1\u0000", "Q1 ", "é", "e\u0301"]) ok.addEntity({ ...ENTITY, entityId });
  assert.is(ok.build().entityCount, 6);
});

test("entities: empty rawIdentifier and sourceType are valid; types 0..7; fields kept as given", () => {
  const b = new GraphBuilder();
  for (const [t, type] of TYPES.entries()) b.addEntity({ entityId: `t${t}`, rawIdentifier: "", type, sourceType: "" });
  b.addEntity({ entityId: "x", rawIdentifier: "  Mixed CASE ß  ", type: "3", sourceType: "Some Source" });
  const g = b.build();
  for (let t = 0; t < 8; t++)
    assert.equal(g.getEntity(`t${t}`), { entityId: `t${t}`, rawIdentifier: "", type: String(t), sourceType: "" });
  assert.equal(g.getEntity("x"), {
    entityId: "x",
    rawIdentifier: "  Mixed CASE ß  ",
    type: "3",
    sourceType: "Some Source",
  });
  // an empty identifier is never found
  assert.equal(
    g.search({ q: " " }).items.map((e) => e.entityId),
    ["x"],
  );
});

test("the builder keeps the values given, not the objects: changing them afterwards changes nothing", () => {
  const b = new GraphBuilder();
  const e: EntityInput = { entityId: "A", rawIdentifier: "Alpha", type: "0", sourceType: "s" };
  b.addEntity(e);
  e.entityId = "Z";
  e.rawIdentifier = "Zeta";
  e.type = "5";
  b.addEntity({ entityId: "P", rawIdentifier: "", type: "1", sourceType: "" });
  const st: StatementInput = {
    subjectEntityId: "A",
    predicateEntityId: "P",
    objectEntityId: "A",
    statementFingerprint: "f",
  };
  b.addStatement(st);
  st.statementFingerprint = "g";
  st.objectEntityId = "P";
  const g = b.build();
  assert.equal(g.getEntity("A"), { entityId: "A", rawIdentifier: "Alpha", type: "0", sourceType: "s" });
  assert.is(g.getEntity("Z"), undefined);
  assert.equal(
    all(g).map((x) => `${x.subjectEntityId}${x.predicateEntityId}${x.objectEntityId}:${x.statementFingerprint}`),
    ["APA:f"],
  );
});

test("bad statements: each kind gives its code and names file:line", () => {
  const good = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" };
  const cases: [string, unknown, string][] = [
    ["null", null, "INVALID_DATA"],
    ["array", [good], "INVALID_DATA"],
    ["string", "A P B", "INVALID_DATA"],
    ["missing subject", { predicateEntityId: "P", objectEntityId: "B" }, "INVALID_DATA"],
    ["missing predicate", { subjectEntityId: "A", objectEntityId: "B" }, "INVALID_DATA"],
    ["missing object", { subjectEntityId: "A", predicateEntityId: "P" }, "INVALID_DATA"],
    ["subject number", { ...good, subjectEntityId: 1 }, "INVALID_DATA"],
    ["subject empty", { ...good, subjectEntityId: "" }, "INVALID_DATA"],
    ["predicate empty", { ...good, predicateEntityId: "" }, "INVALID_DATA"],
    ["object empty", { ...good, objectEntityId: "" }, "INVALID_DATA"],
    ["object null", { ...good, objectEntityId: null }, "INVALID_DATA"],
    ["fingerprint empty", { ...good, statementFingerprint: "" }, "INVALID_DATA"],
    ["fingerprint number", { ...good, statementFingerprint: 12 }, "INVALID_DATA"],
    ["fingerprint null", { ...good, statementFingerprint: null }, "INVALID_DATA"],
    ["unknown subject", { ...good, subjectEntityId: "Z" }, "UNKNOWN_ENTITY"],
    ["unknown predicate", { ...good, predicateEntityId: "a" }, "UNKNOWN_ENTITY"],
    ["unknown object", { ...good, objectEntityId: "B\u0000" }, "UNKNOWN_ENTITY"],
  ];
  for (const [name, statement, code] of cases) {
    const b = withEntities();
    b.addStatement({ ...good }, { file: SFILE, line: 1 });
    expectDataError(
      () => b.addStatement(statement as StatementInput, { file: SFILE, line: 23 }),
      code,
      SFILE,
      23,
      name,
    );
  }
});

test("bad items without a source position still throw the right code", () => {
  const b = withEntities();
  try {
    b.addStatement({ subjectEntityId: "Z", predicateEntityId: "P", objectEntityId: "A" });
    assert.unreachable("accepted");
  } catch (e) {
    assert.ok(isQuiverError(e) && e.code === "UNKNOWN_ENTITY", String(e));
  }
});

test("derived fingerprint: 16 lowercase hex, the same for the same triple in every build", () => {
  const ids = ["A", "B", "C", "P", "ab", "a", "b", "c", "bc", "a\u0000", "\u0000b", "é", "😀"];
  const triples: [string, string, string][] = [];
  for (const s of ids)
    for (const p of ["P", "b", "bc", "\u0000b"]) for (const o of ["A", "c", "bc", "ab", "😀"]) triples.push([s, p, o]);
  const build = (order: number[]): Map<string, string> => {
    const b = new GraphBuilder();
    // entities in an order that depends on `order` too, so dense ids differ between builds
    const entityOrder = order.length > 0 && order[0] !== 0 ? ids.slice().reverse() : ids;
    for (const id of entityOrder) b.addEntity({ entityId: id, rawIdentifier: id, type: "0", sourceType: "" });
    for (const i of order) {
      const [s, p, o] = triples[i % triples.length] as [string, string, string];
      b.addStatement({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });
    }
    const g = b.build();
    const m = new Map<string, string>();
    let cursor: string | undefined;
    for (;;) {
      const page = g.statements({ limit: 200, cursor });
      for (const st of page.items) {
        const key = JSON.stringify([st.subjectEntityId, st.predicateEntityId, st.objectEntityId]);
        assert.is(m.get(key), undefined, `the triple ${key} listed twice`);
        m.set(key, st.statementFingerprint);
      }
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    return m;
  };
  const forward = triples.map((_, i) => i);
  const backward = forward.slice().reverse();
  const twice = [...forward, ...backward]; // every triple given twice: the same statement, kept once
  const a = build(forward);
  const b = build(backward);
  const c = build(twice);
  assert.is(a.size, triples.length);
  assert.is(c.size, triples.length);
  const distinct = new Set<string>();
  for (const [key, fp] of a) {
    assert.match(fp, /^[0-9a-f]{16}$/, `${key} -> ${fp}`);
    assert.is(b.get(key), fp, `${key}: another fingerprint in another build order`);
    assert.is(c.get(key), fp, `${key}: another fingerprint when given twice`);
    const [s, p, o] = JSON.parse(key) as [string, string, string];
    assert.is(deriveFingerprint(s, p, o), fp, `${key}: the graph's fingerprint is not deriveFingerprint's`);
    distinct.add(fp);
  }
  // Different triples must not collide, or a valid input (no fingerprints at all) would fail to load:
  // ("ab","c",...) vs ("a","bc",...), ("a\0", "b") vs ("a", "\0b").
  assert.is(distinct.size, a.size, "two different triples derived one fingerprint");
});

test("derived fingerprints of look-alike triples differ, and a graph of them loads", () => {
  const ids = ["a", "b", "c", "ab", "bc", "abc", "a\u0000", "\u0000b", "\u0000", "a\u0000b"];
  const b = new GraphBuilder();
  for (const id of ids) b.addEntity({ entityId: id, rawIdentifier: "", type: "0", sourceType: "" });
  const fps = new Map<string, string>();
  for (const s of ids)
    for (const p of ids)
      for (const o of ids) {
        const fp = deriveFingerprint(s, p, o);
        const key = JSON.stringify([s, p, o]);
        const other = fps.get(fp);
        assert.is(other, undefined, `${key} and ${other} derive the same fingerprint ${fp}`);
        fps.set(fp, key);
        b.addStatement({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });
      }
  const g = b.build();
  assert.is(g.statementCount, ids.length ** 3);
});

test("exact duplicates are kept once; the same triple with other fingerprints is kept each time", () => {
  const b = withEntities();
  const triple = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" };
  const derived = deriveFingerprint("A", "P", "B");
  b.addStatement({ ...triple }, { file: SFILE, line: 1 });
  b.addStatement({ ...triple }, { file: SFILE, line: 2 }); // exact duplicate (derived)
  b.addStatement({ ...triple, statementFingerprint: derived }, { file: SFILE, line: 3 }); // the derived one, spelt out
  b.addStatement({ ...triple, statementFingerprint: "x1" }, { file: SFILE, line: 4 });
  b.addStatement({ ...triple, statementFingerprint: "x1" }, { file: SFILE, line: 5 }); // exact duplicate (text)
  b.addStatement({ ...triple, statementFingerprint: "0000000000000001" }, { file: SFILE, line: 6 });
  b.addStatement({ ...triple, statementFingerprint: "0000000000000001" }, { file: SFILE, line: 7 }); // exact duplicate (hex)
  b.addStatement({ ...triple, statementFingerprint: "X1" }, { file: SFILE, line: 8 }); // case matters
  b.addStatement({ subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "A" }, { file: SFILE, line: 9 });
  b.addStatement({ subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "A" }, { file: SFILE, line: 10 });
  const g = b.build();
  const fps = all(g).map(
    (s) => `${s.subjectEntityId}${s.predicateEntityId}${s.objectEntityId}:${s.statementFingerprint}`,
  );
  const expected = ["0000000000000001", derived, "X1", "x1"]
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    .map((fp) => `APB:${fp}`);
  expected.push(`BPA:${deriveFingerprint("B", "P", "A")}`);
  assert.equal(fps, expected);
  assert.is(g.statementCount, 5);
});

test("one fingerprint on two different triples is FINGERPRINT_CONFLICT naming the later line", () => {
  const conflict = (inputs: [StatementInput, number][], line: number, ctx: string): void => {
    expectDataError(
      () => {
        const b = withEntities();
        for (const [st, at] of inputs) b.addStatement(st, { file: SFILE, line: at });
        b.build();
      },
      "FINGERPRINT_CONFLICT",
      SFILE,
      line,
      ctx,
    );
  };
  const APB = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" };
  const APC = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C" };
  const BPA = { subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "A" };
  for (const fp of [
    "0123456789abcdef",
    "ffffffffffffffff",
    "0000000000000000",
    "text",
    "ABCDEF0123456789",
    "é",
    "😀",
  ]) {
    conflict(
      [
        [{ ...APB, statementFingerprint: fp }, 4],
        [{ ...APC, statementFingerprint: fp }, 9],
      ],
      9,
      `fp ${fp}`,
    );
    conflict(
      [
        [{ ...APC, statementFingerprint: fp }, 2],
        [{ ...APB, statementFingerprint: fp }, 3],
        [{ ...APC, statementFingerprint: fp }, 5],
      ],
      3,
      `fp ${fp}, dup after`,
    );
    conflict(
      [
        [{ ...APB, statementFingerprint: fp }, 2],
        [{ ...APB, statementFingerprint: fp }, 3],
        [{ ...BPA, statementFingerprint: fp }, 8],
      ],
      8,
      `fp ${fp}, dup before`,
    );
    // far apart, with many other statements between
    const many: [StatementInput, number][] = [[{ ...APB, statementFingerprint: fp }, 1]];
    for (let i = 0; i < 3000; i++)
      many.push([{ ...BPA, statementFingerprint: `${i.toString(16).padStart(15, "0")}8` }, i + 2]);
    many.push([{ ...APC, statementFingerprint: fp }, 5000]);
    conflict(many, 5000, `fp ${fp}, far apart`);
  }
  // an explicit fingerprint equal to another triple's derived one: both orders
  const derived = deriveFingerprint("A", "P", "B");
  conflict(
    [
      [{ ...APB }, 1],
      [{ ...APC, statementFingerprint: derived }, 2],
    ],
    2,
    "explicit after derived",
  );
  conflict(
    [
      [{ ...APC, statementFingerprint: derived }, 6],
      [{ ...APB }, 7],
    ],
    7,
    "derived after explicit",
  );
  // upper-case hex and lower-case hex are different strings: no conflict
  const b = withEntities();
  b.addStatement({ ...APB, statementFingerprint: "abcdef0123456789" });
  b.addStatement({ ...APC, statementFingerprint: "ABCDEF0123456789" });
  b.addStatement({ ...BPA, statementFingerprint: "abcdef012345678" });
  assert.is(b.build().statementCount, 3);
});

test("a text fingerprint beside 16 zeros: duplicates dropped, conflicts found, nothing lost", () => {
  const ZERO = "0000000000000000";
  const APB = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" };
  const APC = { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C" };
  const load = (rows: StatementInput[]): string[] => {
    const b = withEntities();
    for (const [i, st] of rows.entries()) b.addStatement(st, { file: SFILE, line: i + 1 });
    return all(b.build()).map(
      (x) => `${x.subjectEntityId}${x.predicateEntityId}${x.objectEntityId}:${x.statementFingerprint}`,
    );
  };
  // valid: an exact duplicate of a 16-zero statement after a text fingerprint on another triple
  assert.equal(
    load([
      { ...APB, statementFingerprint: "text" },
      { ...APC, statementFingerprint: ZERO },
      { ...APC, statementFingerprint: ZERO },
    ]),
    [`APB:text`, `APC:${ZERO}`],
  );
  // valid: the duplicate comes after the text row
  assert.equal(
    load([
      { ...APB, statementFingerprint: ZERO },
      { ...APC, statementFingerprint: "text" },
      { ...APB, statementFingerprint: ZERO },
    ]),
    [`APB:${ZERO}`, `APC:text`],
  );
  // invalid: 16 zeros on two triples, with a text row (on either triple) before or between them
  const conflict = (rows: StatementInput[], line: number, ctx: string): void => {
    expectDataError(() => load(rows), "FINGERPRINT_CONFLICT", SFILE, line, ctx);
  };
  conflict(
    [
      { ...APC, statementFingerprint: "text" },
      { ...APB, statementFingerprint: ZERO },
      { ...APC, statementFingerprint: ZERO },
    ],
    3,
    "text before",
  );
  conflict(
    [
      { ...APB, statementFingerprint: ZERO },
      { ...APC, statementFingerprint: "text" },
      { ...APC, statementFingerprint: ZERO },
    ],
    3,
    "text between",
  );
  conflict(
    [
      { ...APB, statementFingerprint: "t" },
      { ...APB, statementFingerprint: ZERO },
      { ...APB, statementFingerprint: "u" },
      { ...APC, statementFingerprint: ZERO },
    ],
    4,
    "two texts",
  );
});

test("a builder builds once", () => {
  const b = withEntities();
  b.addStatement({ subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" });
  const g = b.build();
  assert.is(g.statementCount, 1);
  assert.throws(() => b.build());
  assert.throws(() => b.addEntity({ entityId: "Z", rawIdentifier: "", type: "0", sourceType: "" }));
  assert.throws(() => b.addStatement({ subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C" }));
  // the graph already built is unchanged
  assert.is(g.statementCount, 1);
  assert.is(g.getEntity("Z"), undefined);
  assert.is(g.entityCount, 4);
});

test("an empty builder builds an empty graph", () => {
  const g = new GraphBuilder().build();
  assert.equal(g.search({ q: "a" }), { items: [], nextCursor: null });
  assert.equal(g.statements({}), { items: [], nextCursor: null });
  assert.equal(g.statements({ subjectEntityId: "a" }), { items: [], nextCursor: null });
});

test("statements carry the raw identifiers of their entities", () => {
  const b = new GraphBuilder();
  b.addEntity({ entityId: "s", rawIdentifier: "Straße", type: "0", sourceType: "" });
  b.addEntity({ entityId: "p", rawIdentifier: "", type: "1", sourceType: "" });
  b.addEntity({ entityId: "o", rawIdentifier: "😀\u0000", type: "2", sourceType: "" });
  b.addStatement({ subjectEntityId: "s", predicateEntityId: "p", objectEntityId: "o", statementFingerprint: "f" });
  b.addStatement({ subjectEntityId: "o", predicateEntityId: "o", objectEntityId: "o", statementFingerprint: "g" });
  assert.equal(all(b.build()), [
    {
      statementFingerprint: "g",
      subjectEntityId: "o",
      subjectRawIdentifier: "😀\u0000",
      predicateEntityId: "o",
      predicateRawIdentifier: "😀\u0000",
      objectEntityId: "o",
      objectRawIdentifier: "😀\u0000",
    },
    {
      statementFingerprint: "f",
      subjectEntityId: "s",
      subjectRawIdentifier: "Straße",
      predicateEntityId: "p",
      predicateRawIdentifier: "",
      objectEntityId: "o",
      objectRawIdentifier: "😀\u0000",
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// Review 8221c12: limits and well-formed Unicode (findings 12 and 1), conflicts at add time
// (finding 6), k copies in O(k) (finding 5), typed inputs

test("finding 1: each field at its byte limit loads; one byte over is INVALID_DATA naming the line and field", () => {
  const limits: [keyof EntityInput, number][] = [
    ["entityId", ENTITY_ID_MAX_BYTES],
    ["rawIdentifier", RAW_IDENTIFIER_MAX_BYTES],
    ["sourceType", SOURCE_TYPE_MAX_BYTES],
  ];
  for (const [name, max] of limits) {
    // ASCII, 2-, 3- and 4-byte characters: the limit is in bytes of UTF-8, not in characters
    for (const unit of ["a", "é", "中", "😀"]) {
      const unitBytes = Buffer.byteLength(unit);
      const fill = unit.repeat(Math.floor(max / unitBytes)) + "z".repeat(max % unitBytes);
      assert.is(Buffer.byteLength(fill), max);
      const b = new GraphBuilder();
      b.addEntity({ ...ENTITY, [name]: fill }, { file: FILE, line: 1 });
      expectDataError(
        () => b.addEntity({ ...ENTITY, entityId: "Q2", [name]: `${fill}z` }, { file: FILE, line: 2 }),
        "INVALID_DATA",
        FILE,
        2,
        `${name} of ${max + 1} bytes (${unit})`,
      );
      try {
        b.addEntity({ ...ENTITY, entityId: "Q3", [name]: fill + unit });
      } catch (e) {
        assert.ok(isQuiverError(e) && e.message.includes(`"${name}"`) && e.message.includes(String(max)), String(e));
      }
    }
  }
  // a given fingerprint: 128 bytes loads, 129 does not; derived ones are 16 bytes
  const b = withEntities();
  const fp = "😀".repeat(STATEMENT_FINGERPRINT_MAX_BYTES / 4);
  b.addStatement({ subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B", statementFingerprint: fp });
  expectDataError(
    () =>
      b.addStatement(
        { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "C", statementFingerprint: `${fp}x` },
        { file: SFILE, line: 5 },
      ),
    "INVALID_DATA",
    SFILE,
    5,
    "fingerprint of 129 bytes",
  );
  // an id over the limit in a statement names the field, not "no entity"
  expectDataError(
    () =>
      b.addStatement(
        { subjectEntityId: "A", predicateEntityId: "P".repeat(513), objectEntityId: "B" },
        { file: SFILE, line: 6 },
      ),
    "INVALID_DATA",
    SFILE,
    6,
    "predicate over the limit",
  );
  assert.is(b.build().statementCount, 1);
});

test("finding 12: a lone surrogate in any string field is INVALID_DATA naming the line, the field and the unit", () => {
  const lone = ["\uD800", "x\uD83D", "\uDE00x", "a\uDFFF\uD800b", "😀\uDE00"];
  for (const bad of lone) {
    for (const name of ["entityId", "rawIdentifier", "sourceType"] as const) {
      const b = new GraphBuilder();
      expectDataError(
        () => b.addEntity({ ...ENTITY, [name]: bad }, { file: FILE, line: 9 }),
        "INVALID_DATA",
        FILE,
        9,
        `${name} ${show(bad)}`,
      );
      try {
        b.addEntity({ ...ENTITY, [name]: bad });
      } catch (e) {
        assert.ok(
          isQuiverError(e) && /not well-formed Unicode.*lone surrogate \(U\+D[89A-F]/.test(e.message),
          String(e),
        );
        assert.ok(e.message.includes(`"${name}"`), e.message);
      }
    }
    for (const name of ["subjectEntityId", "predicateEntityId", "objectEntityId", "statementFingerprint"] as const) {
      const b = withEntities();
      expectDataError(
        () =>
          b.addStatement(
            { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B", [name]: bad },
            { file: SFILE, line: 4 },
          ),
        "INVALID_DATA",
        SFILE,
        4,
        `${name} ${show(bad)}`,
      );
    }
  }
  // pairs are fine, in every field
  const b = new GraphBuilder();
  b.addEntity({ entityId: "😀", rawIdentifier: "a😀b", type: "0", sourceType: "𝒜" });
  b.addStatement({ subjectEntityId: "😀", predicateEntityId: "😀", objectEntityId: "😀", statementFingerprint: "😀" });
  assert.is(b.build().statementCount, 1);
});

test("finding 6: a fingerprint conflict is thrown by addStatement, at its own line, not by build()", () => {
  for (const fp of [undefined, "0123456789abcdef", "text fingerprint"]) {
    const b = withEntities();
    const derived = deriveFingerprint("A", "P", "B");
    const given = fp ?? derived;
    b.addStatement(
      { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B", statementFingerprint: given },
      {
        file: SFILE,
        line: 1,
      },
    );
    let thrown: unknown;
    try {
      b.addStatement(
        { subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "A", statementFingerprint: given },
        { file: SFILE, line: 2 },
      );
    } catch (e) {
      thrown = e;
    }
    assert.ok(isQuiverError(thrown), `fp ${show(fp)}: addStatement accepted a conflicting statement`);
    assert.is(thrown.code, "FINGERPRINT_CONFLICT");
    assert.equal(thrown.source, { file: SFILE, line: 2 });
    assert.ok(thrown.message.includes(`${SFILE}:1`), `the earlier line is named too: ${thrown.message}`);
  }
});

test("finding 5: exact duplicates are dropped at add; 40,000 copies cost no more than 3x the work of 40,000 distinct", () => {
  const COPIES = 40_000;
  const probesOf = (b: GraphBuilder): number =>
    (b as unknown as { fingerprintRows: { probes: number } }).fingerprintRows.probes;
  for (const explicit of [false, true]) {
    const copies = withEntities();
    const distinct = withEntities();
    const ids = ["A", "B", "C", "P"];
    for (let i = 0; i < COPIES; i++) {
      const fp = explicit ? { statementFingerprint: "00000000000000ff" } : {};
      copies.addStatement({ subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B", ...fp });
      const hex = { statementFingerprint: i.toString(16).padStart(16, "0") };
      // derived fingerprints need distinct triples: 4 x 4 x 4 = 64 of them, then explicit hex ones
      distinct.addStatement({
        subjectEntityId: ids[i % 4] as string,
        predicateEntityId: ids[(i >> 2) % 4] as string,
        objectEntityId: ids[(i >> 4) % 4] as string,
        ...(explicit || i >= 64 ? hex : {}),
      });
    }
    // kept once, and known to be kept once before build()
    assert.is(copies.statementCount, 1);
    assert.is(distinct.statementCount, COPIES);
    const work = probesOf(copies);
    const baseline = probesOf(distinct);
    assert.ok(work <= 3 * baseline, `copies took ${work} probes, distinct ${baseline}`);
    assert.is(copies.build().statementCount, 1);
    assert.is(distinct.build().statementCount, COPIES);
  }
});

test("typed inputs; JavaScript callers still get the run-time checks", () => {
  const b = new GraphBuilder();
  const typed: EntityInput = { entityId: "T", rawIdentifier: "", type: "7", sourceType: "" };
  b.addEntity(typed);
  // @ts-expect-error: "8" is not an EntityType
  const badType: EntityInput = { ...typed, entityId: "U", type: "8" };
  expectDataError(() => b.addEntity(badType, { file: FILE, line: 2 }), "INVALID_DATA", FILE, 2, "type 8");
  // a JavaScript caller's value of the wrong type
  const badFingerprint = {
    subjectEntityId: "T",
    predicateEntityId: "T",
    objectEntityId: "T",
    statementFingerprint: 1,
  } as unknown as StatementInput;
  expectDataError(
    () => b.addStatement(badFingerprint, { file: SFILE, line: 1 }),
    "INVALID_DATA",
    SFILE,
    1,
    "fingerprint 1",
  );
  const g = b.build();
  // @ts-expect-error: "9" is not an EntityType
  expectCode(() => g.search({ q: "a", type: "9" }), "INVALID_TYPE", "type", "search type 9");
});

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: a conflict names the earlier statement's file and line, whatever came between`, () => {
    const rng = new Rng(seed);
    const b = new GraphBuilder();
    for (const entityId of ["a", "b"]) b.addEntity({ entityId, rawIdentifier: entityId, type: "0", sourceType: "s" });
    const statement = (id: string, k: number): StatementInput => ({
      subjectEntityId: id,
      predicateEntityId: id,
      objectEntityId: id,
      statementFingerprint: `fp${k}`,
    });
    // Statements from two files and from no file, with gaps (blank lines) and exact duplicates (kept
    // once: no row of their own): each one's position remembered by its fingerprint.
    const where: string[] = [];
    const lines = [0, 0];
    for (let k = 0; k < 400; k++) {
      const file = rng.int(2);
      lines[file]! += rng.float() < 0.2 ? 2 + rng.int(3) : 1;
      const source = rng.float() < 0.1 ? undefined : { file: `f${file}.jsonl`, line: lines[file]! };
      b.addStatement(statement("a", k), source);
      where.push(source === undefined ? "" : ` at f${file}.jsonl:${source.line}`);
      if (rng.float() < 0.1) b.addStatement(statement("a", k), { file: `f${file}.jsonl`, line: ++lines[file]! });
    }
    for (let k = 0; k < 400; k++) {
      const source = { file: "late.jsonl", line: k + 1 };
      assert.throws(
        () => b.addStatement(statement("b", k), source),
        (e: Error) =>
          e.message ===
          `late.jsonl:${k + 1}: statementFingerprint "fp${k}" is already used by a different statement${where[k]}`,
        `fp${k}`,
      );
    }
  });
}

test("endStatements: the fingerprint table goes before build, no statement may follow, the graph is the same", () => {
  const statements: StatementInput[] = [
    { subjectEntityId: "A", predicateEntityId: "P", objectEntityId: "B" },
    { subjectEntityId: "B", predicateEntityId: "P", objectEntityId: "C", statementFingerprint: "00000000000000ff" },
  ];
  const ended = withEntities();
  const plain = withEntities();
  // Room for many: a table far larger than one released.
  reserveStatements(ended, 100_000);
  reserveStatements(plain, 100_000);
  for (const st of statements) {
    ended.addStatement(st);
    plain.addStatement(st);
  }
  endStatements(ended);
  const slots = (b: GraphBuilder): number =>
    (b as unknown as { fingerprintRows: { byteLength: number } }).fingerprintRows.byteLength;
  assert.ok(slots(ended) * 100 < slots(plain), `the table is released: ${slots(ended)} vs ${slots(plain)} bytes`);
  assert.throws(() => ended.addStatement(statements[0]!), /statements were ended/);
  assert.is(ended.build().stats().contentTag, plain.build().stats().contentTag);
});

test.run();

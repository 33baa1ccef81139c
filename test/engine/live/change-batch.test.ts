/**
 * Change batch tests
 * ==================
 * The statement put lines that change-batch.ts reads by a regular expression instead of JSON.parse
 * (JSON.stringify's form) give what JSON.parse gives: on seeded random ids (empty, long, non-ASCII,
 * with quotes, backslashes, control characters and lone surrogates, which JSON.stringify escapes, so
 * those lines take JSON.parse), each line is parsed as sent and with a space added (which only
 * JSON.parse reads): the same changes, or the same error. And a statement put's derived
 * fingerprint, made from the hashes the dictionary's look-up computed (base entities, entities the
 * batch puts, and ids that name no entity), is deriveFingerprint's; a lone surrogate is refused with
 * the same message from text and from objects; and apply (no JSON Lines made) does what prepare
 * then commit does.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseChangeBatch } from "../../../src/engine/live/change-batch.js";
import { deriveFingerprint } from "../../../src/engine/statements/fingerprint.js";
import { isQuiverError, LiveGraph } from "../../../src/index.js";
import { buildGraph, generateGraph, randomIdentifier, Rng } from "../../support/oracle.js";

/** The changes of `text`, or its error's code and message. */
function outcome(text: string): unknown {
  try {
    return parseChangeBatch(text);
  } catch (e) {
    if (isQuiverError(e)) return { code: e.code, message: e.message };
    throw e;
  }
}

/** An id the regular expression must take or leave to JSON.parse exactly as JSON.parse reads it. */
function randomId(rng: Rng, earlier: string[]): string {
  const r = rng.float();
  if (r < 0.1) return rng.pick(['a"b', "a\\b", "tab\there", "nl\nx", "\u0000", "\u001f", "\u007f", "é", "\u2028"]);
  if (r < 0.15) return "x".repeat(rng.pick([1000, 1024, 1025, 5000]));
  if (r < 0.2) return rng.chance(0.5) ? "\uD800" : "a\uDC00b";
  const id = randomIdentifier(rng, earlier, true);
  earlier.push(id);
  return id;
}

test("statement put lines in JSON.stringify's form parse as JSON.parse reads them", () => {
  const rng = new Rng(25);
  const earlier: string[] = [];
  for (let round = 0; round < 300; round++) {
    const lines = Array.from({ length: rng.range(1, 6) }, () =>
      JSON.stringify({
        op: "put",
        statement: {
          subjectEntityId: randomId(rng, earlier),
          predicateEntityId: randomId(rng, earlier),
          objectEntityId: randomId(rng, earlier),
        },
      }),
    );
    const text = lines.join(rng.chance(0.2) ? "\r\n" : "\n");
    const spaced = lines.map((l) => l.replace('"op":', '"op": ')).join("\n");
    assert.equal(outcome(text), outcome(spaced), text);
  }
});

test("a derived fingerprint made from the base's kept hashes is deriveFingerprint's", () => {
  const rng = new Rng(26);
  const data = generateGraph(rng, { entities: 80, statements: 50 });
  const live = new LiveGraph(buildGraph(data));
  const ids = data.entities.map((e) => e.entityId);
  const triples = Array.from({ length: 200 }, () => [rng.pick(ids), rng.pick(ids), rng.pick(ids)] as const);
  const prepared = live.prepare(
    triples.map(([s, p, o]) => ({
      op: "put",
      statement: { subjectEntityId: s, predicateEntityId: p, objectEntityId: o },
    })),
  );
  for (const [s, p, o] of triples) {
    const st = prepared.statements.get(deriveFingerprint(s, p, o));
    // Absent: the base has that triple already (a no-op), under the same fingerprint.
    if (st === undefined)
      assert.ok(live.statements({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o }).items.length === 1);
    else assert.equal([st!.s, st!.p, st!.o], [s, p, o]);
  }
});

test("derived fingerprints of puts naming entities the batch puts, and of a mix with base ones, are deriveFingerprint's", () => {
  const rng = new Rng(27);
  const data = generateGraph(rng, { entities: 60, statements: 40 });
  const live = new LiveGraph(buildGraph(data));
  const baseIds = data.entities.map((e) => e.entityId);
  const earlier = [...baseIds];
  const fresh = Array.from({ length: 20 }, () => `new:${randomIdentifier(rng, earlier)}`);
  const ids = [...new Set([...baseIds, ...fresh])];
  const triples = Array.from({ length: 300 }, () => [rng.pick(ids), rng.pick(ids), rng.pick(ids)] as const);
  const batch = [
    ...fresh.map((entityId) => ({
      op: "put",
      entity: { entityId, rawIdentifier: entityId, type: "1", sourceType: "t" },
    })),
    ...triples.map(([s, p, o]) => ({
      op: "put",
      statement: { subjectEntityId: s, predicateEntityId: p, objectEntityId: o },
    })),
  ];
  const prepared = live.prepare(batch);
  for (const [s, p, o] of triples) {
    const st = prepared.statements.get(deriveFingerprint(s, p, o));
    if (st === undefined)
      assert.ok(live.statements({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o }).items.length === 1);
    else assert.equal([st!.s, st!.p, st!.o], [s, p, o]);
  }
  live.commit(prepared);
  for (const [s, p, o] of triples) {
    const items = live.statements({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o }).items;
    assert.is(items.length, 1);
    assert.is(items[0]!.statementFingerprint, deriveFingerprint(s, p, o));
  }
});

test("a lone surrogate in a statement put's id: the same error from text (either parser) and from objects", () => {
  const want = {
    code: "INVALID_CHANGE",
    message:
      'line 2: field "statement.predicateEntityId" is not well-formed Unicode: a lone surrogate (U+DC00) at code unit 1',
  };
  const good = { op: "put", statement: { subjectEntityId: "a", predicateEntityId: "b", objectEntityId: "c" } };
  const bad = { op: "put", statement: { subjectEntityId: "a", predicateEntityId: "x\uDC00y", objectEntityId: "c" } };
  // JSON.stringify escapes the surrogate (JSON.parse reads the line); written raw, the expression reads it.
  const escaped = `${JSON.stringify(good)}\n${JSON.stringify(bad)}`;
  const raw = `${JSON.stringify(good)}\n{"op":"put","statement":{"subjectEntityId":"a","predicateEntityId":"x\uDC00y","objectEntityId":"c"}}`;
  assert.equal(outcome(escaped), want);
  assert.equal(outcome(raw), want);
  try {
    parseChangeBatch([good, bad]);
    assert.unreachable("objects: no error");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.equal({ code: e.code, message: e.message }, want);
  }
});

test("apply gives what prepare then commit gives; prepare's text is the batch as JSON Lines", () => {
  const rng = new Rng(28);
  const data = generateGraph(rng, { entities: 50, statements: 30 });
  const a = new LiveGraph(buildGraph(data));
  const b = new LiveGraph(buildGraph(data));
  const ids = data.entities.map((e) => e.entityId);
  for (let round = 0; round < 5; round++) {
    const batch = Array.from({ length: 20 }, () => ({
      op: "put",
      statement: { subjectEntityId: rng.pick(ids), predicateEntityId: rng.pick(ids), objectEntityId: rng.pick(ids) },
    }));
    const prepared = b.prepare(batch);
    assert.is(prepared.text, batch.map((c) => JSON.stringify(c)).join("\n"));
    assert.equal(a.apply(batch), b.commit(prepared));
    assert.equal(a.statements({ limit: 200 }).items, b.statements({ limit: 200 }).items);
  }
});

test("a statement put naming a base entity deleted, put back or replaced in an earlier batch: the entity as it is now", () => {
  const data = {
    entities: ["a", "b", "c", "p"].map((entityId) => ({
      entityId,
      rawIdentifier: entityId.toUpperCase(),
      type: "0" as const,
      sourceType: "",
    })),
    statements: [{ subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b" }],
  };
  const live = new LiveGraph(buildGraph(data));
  const put = (s: string, p: string, o: string, asText: boolean): string => {
    const change = { op: "put", statement: { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } };
    try {
      live.apply(asText ? JSON.stringify(change) : [change]);
      return "ok";
    } catch (e) {
      if (isQuiverError(e)) return `${e.code} ${e.message}`;
      throw e;
    }
  };
  live.apply([{ op: "delete", entityId: "c", cascade: true }]);
  for (const asText of [false, true]) {
    assert.is(
      put("c", "p", "a", asText),
      'CHANGE_CONFLICT line 1: subjectEntityId "c" names no entity of the graph (put the entity first)',
    );
    assert.is(
      put("a", "p", "c", asText),
      'CHANGE_CONFLICT line 1: objectEntityId "c" names no entity of the graph (put the entity first)',
    );
  }
  // Replaced (b), put back after its delete (c): named as they are now.
  live.apply([
    { op: "put", entity: { entityId: "b", rawIdentifier: "Beta again", type: "1", sourceType: "" } },
    { op: "put", entity: { entityId: "c", rawIdentifier: "C again", type: "2", sourceType: "" } },
  ]);
  assert.is(put("c", "p", "b", false), "ok");
  assert.is(put("b", "p", "c", true), "ok");
  const named = live.statements({ subjectEntityId: "c" }).items;
  assert.equal(
    named.map((st) => [st.subjectRawIdentifier, st.objectRawIdentifier]),
    [["C again", "Beta again"]],
  );
});

test.run();

/**
 * Cursors minted by the earlier MAC still open
 * ============================================
 * The cursor MAC is HMAC-SHA256 (hmac.ts). The strings below were issued by the WebAssembly and
 * JavaScript SHA-256 that hmac.ts computed it with until node:crypto took over: the same secret and
 * the same queries must still accept them, on a graph rebuilt from the same input, and open them to
 * the same parts, so no client's outstanding cursor breaks. Changing a byte of any of them is refused.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { CursorCodec, ENDPOINT_STATEMENTS, queryTag } from "../../../src/engine/cursor/cursor.js";
import { type EntityType, type Graph, GraphBuilder, isQuiverError } from "../../../src/index.js";

const SECRET = "cursors minted before node:crypto";

function mintedGraph(): Graph {
  const b = new GraphBuilder({ cursorSecret: SECRET });
  const entities: [string, string, string][] = [
    ["Q1", "Straße", "0"],
    ["Q2", "Strasbourg", "0"],
    ["Q3", "Hauptstraße", "0"],
    ["Q4", "strasse", "0"],
    ["Q5", "STRASSENBAHN", "0"],
    ["Q6", "Straßenbahn 🚋", "0"],
    ["P1", "located in", "1"],
    ["P2", "instance of", "1"],
  ];
  for (const [entityId, rawIdentifier, type] of entities)
    b.addEntity({ entityId, rawIdentifier, type: type as EntityType, sourceType: "t" });
  for (const s of ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"])
    for (const o of ["Q1", "Q2", "Q3"])
      if (s !== o) b.addStatement({ subjectEntityId: s, predicateEntityId: "P1", objectEntityId: o });
  b.addStatement({ subjectEntityId: "Q1", predicateEntityId: "P2", objectEntityId: "Q6" });
  return b.build();
}

/** `search({ q: "stras", limit: 2 })`'s nextCursor, and the page it leads to. */
const SEARCH_CURSOR = "AgEBdsfQLq59P0cOU3RyYcOfZQRRMTIzMDVhNzA0ODk0YjRmYjk1LjAwMDAwMDA0GLtLTN22e4U_eNDzXV6wzA";
const SEARCH_PAGE_2 = ["Q4", "Q5"];
const SEARCH_CURSOR_2 = "AgEBdsfQLq59P0cYU1RSQVNTRU5CQUhOBFE1MjMwNWE3MDQ4OTRiNGZiOTUuMDAwMDAwMDbt8BSO2NBmebpwp81w4yHi";

/** `statements({ predicateEntityId: "P1", limit: 4 })`'s nextCursor, and the page it leads to. */
const STATEMENTS_CURSOR =
  "AgIACzB9lE9SN0IEUTUEUDEEUTEgZmFiNGRmZjZkNjdmNjZjODIzMDVhNzA0ODk0YjRmYjk1LjAwMDAwMDAz3uAjU6m4uTgGnAaBtOCugg";
const STATEMENTS_PAGE_2 = [
  ["Q6", "Q1"],
  ["Q1", "Q2"],
  ["Q3", "Q2"],
  ["Q4", "Q2"],
];

/** Sealed by a CursorCodec under SECRET for ENDPOINT_STATEMENTS, queryTag(["q", "x"]), extra 3. */
const CODEC_CURSORS: [parts: string[], cursor: string][] = [
  [["a"], "AgID9B8NPHVIaQQCYSDYf_-TjQTZ2QBZjIKif5E"],
  [["Straße 🚋", "Q6", "7"], "AgID9B8NPHVIaQQYU3RyYcOfZSDwn5qLBFE2AjchuuiwgnsnddI3P-ADFfJl"],
  [["\uD800lone", "x".repeat(100)], `AgID9B8NPHVIaQQVANhsAG8AbgBlAMgB${"eHh4".repeat(33)}eHuN1ew1nGdOD8b3-vZyRWU`],
  [[], "AgID9B8NPHVIaQTQLBOrAuVpsl0Zy09-_BQY"],
];

test("a search cursor minted earlier resumes at the same page on a graph rebuilt from the same input", () => {
  const page = mintedGraph().search({ q: "stras", limit: 2, cursor: SEARCH_CURSOR });
  assert.equal(
    page.items.map((e) => e.entityId),
    SEARCH_PAGE_2,
  );
  // The MAC of a cursor issued now is the same bytes: the next cursor is the one minted then.
  assert.is(page.nextCursor, SEARCH_CURSOR_2);
});

test("a statements cursor minted earlier resumes at the same page", () => {
  const page = mintedGraph().statements({ predicateEntityId: "P1", limit: 4, cursor: STATEMENTS_CURSOR });
  assert.equal(
    page.items.map((s) => [s.subjectEntityId, s.objectEntityId]),
    STATEMENTS_PAGE_2,
  );
});

test("cursors sealed by the codec earlier open to their parts, and sealing them again gives the same text", () => {
  const tag = queryTag(["q", "x"]);
  // No cache: every decode computes the MAC.
  const reader = new CursorCodec(Buffer.from(SECRET), 0);
  for (const [parts, cursor] of CODEC_CURSORS) {
    const content = reader.decode(cursor, ENDPOINT_STATEMENTS, tag);
    assert.equal(content.parts, parts);
    assert.is(content.extra, 3);
    assert.is(new CursorCodec(Buffer.from(SECRET), 0).encode(ENDPOINT_STATEMENTS, tag, 3, parts), cursor);
  }
});

test("a minted cursor with any one character changed, or under another secret, is refused", () => {
  const tag = queryTag(["q", "x"]);
  const [, cursor] = CODEC_CURSORS[1]!;
  const codec = new CursorCodec(Buffer.from(SECRET), 0);
  for (let i = 0; i < cursor.length; i++) {
    const changed = cursor.slice(0, i) + (cursor[i] === "A" ? "B" : "A") + cursor.slice(i + 1);
    try {
      codec.decode(changed, ENDPOINT_STATEMENTS, tag);
      assert.unreachable(`accepted with character ${i} changed`);
    } catch (e) {
      assert.ok(isQuiverError(e) && e.code === "INVALID_CURSOR", `character ${i}: ${String(e)}`);
    }
  }
  try {
    new CursorCodec(Buffer.from(`${SECRET}!`), 0).decode(cursor, ENDPOINT_STATEMENTS, tag);
    assert.unreachable("accepted under another secret");
  } catch (e) {
    assert.ok(isQuiverError(e) && e.code === "INVALID_CURSOR");
  }
});

test.run();

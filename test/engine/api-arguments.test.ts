/**
 * The embedded API called from plain JavaScript with wrong arguments (L8 of the 97427d8 review):
 * every call gives a QuiverError INVALID_PARAMETER naming what is wrong, never a bare TypeError,
 * and a handler is refused at creation rather than failing every request.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHandler, fold, GraphBuilder, loadGraph, QuiverError } from "../../src/index.js";
import { buildSmallGraph } from "../support/http.js";

/** Calls `call` and returns the QuiverError it throws or rejects with; fails on anything else. */
async function quiverErrorOf(call: () => unknown, what: string): Promise<QuiverError> {
  try {
    await call();
  } catch (e) {
    if (e instanceof QuiverError) return e;
    assert.unreachable(`${what} threw ${(e as Error).name}: ${(e as Error).message}`);
  }
  return assert.unreachable(`${what} did not throw`) as never;
}

test("wrong arguments give INVALID_PARAMETER naming them, never a TypeError (L8)", async () => {
  const graph = buildSmallGraph();
  const anyCall = <T>(f: T) => f as unknown as (...args: unknown[]) => unknown;
  const cases: [string, () => unknown, string][] = [
    ["createHandler(graph, {})", () => anyCall(createHandler)(graph, {}), "apiKeys"],
    [
      'createHandler(graph, { apiKeys: "sk_abc" })',
      () => anyCall(createHandler)(graph, { apiKeys: "sk_abc" }),
      "apiKeys",
    ],
    ['apiKeys: ["sk_a", 5]', () => anyCall(createHandler)(graph, { apiKeys: ["sk_a", 5] }), "apiKeys"],
    ["cors: 5", () => anyCall(createHandler)(graph, { apiKeys: ["sk_a"], cors: 5 }), "cors"],
    ["createHandler(graph)", () => anyCall(createHandler)(graph), "the handler options ({apiKeys, ...})"],
    ["createHandler({}, ...)", () => anyCall(createHandler)({}, { apiKeys: ["sk_a"] }), "graph"],
    ["graph.statements(null)", () => anyCall(graph.statements.bind(graph))(null), "the statements parameters"],
    ["graph.getEntity(null)", () => anyCall(graph.getEntity.bind(graph))(null), "entityId"],
    [
      "new GraphBuilder(null)",
      () => new (GraphBuilder as unknown as new (o: unknown) => unknown)(null),
      "the GraphBuilder options",
    ],
    ["fold(undefined)", () => anyCall(fold)(undefined), "the text to fold"],
    ["loadGraph()", () => anyCall(loadGraph)(), "the loadGraph options ({entities, statements})"],
  ];
  for (const [what, call, parameter] of cases) {
    const e = await quiverErrorOf(call, what);
    assert.is(e.code, "INVALID_PARAMETER", what);
    assert.is(e.parameter, parameter, what);
  }
});

test.run();

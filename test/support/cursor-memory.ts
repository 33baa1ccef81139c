/**
 * Memory kept by one walk, measured in a child process
 * ====================================================
 * Run as `node --expose-gc dist/test/support/cursor-memory.js '<json>'` (test/engine/cursor-memory.test.ts
 * does): builds a graph of `statements` distinct statements (one predicate, about sqrt(statements)
 * subjects and objects) whose entityIds are `idBytes` and rawIdentifiers `rawBytes` bytes of ASCII,
 * walks every statement with `limit` per page, following each nextCursor, and prints one JSON line:
 * how much heap plus array-buffer memory the walk left behind after garbage collection (what the
 * graph's caches keep between requests), the pages walked and the longest cursor.
 *
 * A warm-up walk on a copy of the graph (its own, discarded caches) runs first, so compiled code and
 * V8's own tables are in the baseline rather than in the growth.
 */

import { GraphBuilder, type Graph } from "../../src/index.js";

interface Options {
  statements: number;
  idBytes: number;
  rawBytes: number;
  cacheBytes?: number;
  limit?: number;
}

const WARM_UP_PAGES = 3000;

function id(prefix: string, i: number, bytes: number): string {
  return `${prefix}${i}`.padEnd(bytes, "x");
}

function buildGraph(o: Options): Graph {
  const subjects = Array.from({ length: Math.ceil(Math.sqrt(o.statements)) }, (_, i) => id("s", i, o.idBytes));
  const objects = Array.from({ length: Math.ceil(o.statements / subjects.length) }, (_, i) => id("o", i, o.idBytes));
  const p = id("p", 0, o.idBytes);
  const b = new GraphBuilder({ cursorSecret: "memory" });
  const raw = (i: number) => `raw ${i} `.padEnd(o.rawBytes, "r");
  for (const [i, entityId] of subjects.entries())
    b.addEntity({ entityId, rawIdentifier: raw(i), type: "0", sourceType: "" });
  for (const [i, entityId] of objects.entries())
    b.addEntity({ entityId, rawIdentifier: raw(i), type: "1", sourceType: "" });
  b.addEntity({ entityId: p, rawIdentifier: raw(0), type: "2", sourceType: "" });
  for (let k = 0; k < o.statements; k++) {
    b.addStatement({
      subjectEntityId: subjects[k % subjects.length] as string,
      predicateEntityId: p,
      objectEntityId: objects[Math.floor(k / subjects.length)] as string,
      // Given, so the setup does not hash three long ids per statement; the walk is what is measured.
      statementFingerprint: k.toString(16).padStart(16, "0"),
    });
  }
  return b.build();
}

function walk(graph: Graph, limit: number, maxPages: number): { pages: number; longest: number } {
  let cursor: string | undefined;
  let pages = 0;
  let longest = 0;
  for (; pages < maxPages; pages++) {
    const page = graph.statements({ limit, cursor });
    if (page.nextCursor === null) return { pages: pages + 1, longest };
    longest = Math.max(longest, page.nextCursor.length);
    cursor = page.nextCursor;
  }
  return { pages, longest };
}

function retained(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const options = JSON.parse(process.argv[2] ?? "{}") as Options;
const graph = buildGraph(options);
const withBudget = (): Graph =>
  options.cacheBytes === undefined ? graph.withOptions({}) : graph.withOptions({ cacheBytes: options.cacheBytes });
walk(withBudget(), options.limit ?? 1, WARM_UP_PAGES);
const before = retained();
const walked = withBudget();
const { pages, longest } = walk(walked, options.limit ?? 1, Number.POSITIVE_INFINITY);
const after = retained();
// Keep the walked graph (and its caches) alive through the second measurement.
if (walked.statementCount !== options.statements) throw new Error("the graph lost statements");
process.stdout.write(`${JSON.stringify({ growthBytes: after - before, pages, longestCursor: longest })}\n`);

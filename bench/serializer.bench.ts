/**
 * The serializer on fresh pages
 * =============================
 * What serialize.ts costs a page as the server runs it: on each page fresh from the engine, searches
 * and statements interleaved (a stream of distinct queries, as bench:http's mix), with the engine's
 * own time taken off: CPU time of (engine + serializer) less that of the engine alone, and the same
 * for `Buffer.from(JSON.stringify(page))`. Rounds alternate between the three loops; the median
 * round counts. A short form of the serializer row of `npm run bench:http`, which needs wrk and a
 * server; this needs neither, so it also runs under node flags such as
 * `--disallow-code-generation-from-strings`.
 *
 * Run: `npm run bench:serializer` (about 30 s), or after `npx tsc -p .`:
 *   node [--disallow-code-generation-from-strings] dist/bench/serializer.bench.js [ENTITIES STATEMENTS]
 * (default 50,000 entities and 250,000 statements of the generator, 2,000 searches and 2,000
 * statement filters).
 */

import { entityPage, statementPage } from "../src/http/serialize.js";
import type { Graph } from "../src/index.js";
import { buildGeneratedGraph, mulberry32 } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";

const QUERIES = 2000;
const ROUNDS = 7;
/** CPU time per loop per round. */
const ROUND_CPU_MS = 400;
const SEARCH_LIMIT = 20;
const STATEMENTS_LIMIT = 50;

type Call = { search: string } | { subject: string };

/** Distinct searches (three characters of a random entity's name) and subject filters, interleaved. */
function mix(graph: Graph, seed: number): Call[] {
  const rand = mulberry32(seed);
  const entities = [...graph.exportEntities()];
  const calls: Call[] = [];
  for (let i = 0; calls.length < 2 * QUERIES && i < 100 * QUERIES; i++) {
    const e = entities[Math.floor(rand() * entities.length)]!;
    if (calls.length % 2 === 0) {
      const raw = e.rawIdentifier;
      if (raw.length < 3) continue;
      const at = Math.floor(rand() * (raw.length - 2));
      calls.push({ search: raw.slice(at, at + 3) });
    } else calls.push({ subject: e.entityId });
  }
  return calls;
}

export function run(entities = 50_000, statements = 250_000): void {
  const graph = buildGeneratedGraph({ entities, statements });
  const calls = mix(graph, 7);
  const engine = (call: Call) =>
    "search" in call
      ? graph.search({ q: call.search, limit: SEARCH_LIMIT })
      : graph.statements({ subjectEntityId: call.subject, limit: STATEMENTS_LIMIT });
  const serialized = (call: Call) =>
    "search" in call
      ? entityPage(graph.search({ q: call.search, limit: SEARCH_LIMIT }))
      : statementPage(graph.statements({ subjectEntityId: call.subject, limit: STATEMENTS_LIMIT }));
  const loops: [string, (call: Call) => unknown][] = [
    ["engine alone", engine],
    ["engine + serializer", serialized],
    ["engine + JSON.stringify + Buffer.from", (call) => Buffer.from(JSON.stringify(engine(call)))],
  ];
  const rounds: number[][] = loops.map(() => []);
  let i = 0;
  for (let round = 0; round < ROUNDS; round++) {
    loops.forEach(([, fn], l) => {
      for (let w = 0; w < 200; w++) fn(calls[(i = (i + 1) % calls.length)]!);
      const start = process.cpuUsage();
      let n = 0;
      let used = 0;
      while (used < ROUND_CPU_MS * 1000) {
        for (let k = 0; k < 50; k++) fn(calls[(i = (i + 1) % calls.length)]!);
        n += 50;
        const d = process.cpuUsage(start);
        used = d.user + d.system;
      }
      rounds[l]!.push(used / n);
    });
  }
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [engineUs, usedUs, stringifyUs] = rounds.map(median) as [number, number, number];
  const flags = process.execArgv.join(" ") || "no flags";
  console.log(
    `Node ${process.version} (${flags}), ${entities} entities, ${statements} statements, ${calls.length} pages`,
  );
  console.table([
    { what: "engine alone, a page", µs: engineUs.toFixed(2) },
    { what: "serializer, a page", µs: (usedUs - engineUs).toFixed(2) },
    { what: "JSON.stringify + Buffer.from, a page", µs: (stringifyUs - engineUs).toFixed(2) },
  ]);
}

if (isMainModule(import.meta.url)) {
  const [entities, statements] = process.argv.slice(2).map(Number);
  run(entities, statements);
}

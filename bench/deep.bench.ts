/**
 * Deep pages in order "score": `npm run bench:deep [-- --against DIR]`
 * ===================================================================
 * Walks every page of a few dense and middling queries in order=score (limit SEARCH_LIMIT, each
 * page through the previous page's cursor) on a generated graph and reports per query the pages,
 * and the p50 / p99 / max µs per page, overall and over the last TAIL pages (a tier's tail, past
 * its best-scored entities, is where the score index's fallbacks choose). With `--against DIR` the
 * build in DIR (its dist/src compiled) walks the same queries, page by page interleaved with this
 * checkout's, and every page must agree (else exit 1).
 *
 * Cost: a graph per build, and per query its matches / SEARCH_LIMIT pages x rounds per build.
 */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Quiver from "../src/index.js";
import type { Graph } from "../src/index.js";
import { generateEntities, generateStatements, type GenerateOptions } from "../tools/generator.js";
import { heading, num, printTable, progress } from "./format.js";
import { benchOptions } from "./options.js";
import { distribution } from "./sample.js";

/** The queries walked: one letter (dense), two and three letters (middling). */
const QUERIES: readonly string[] = ["e", "a", "an", "er", "on", "ar", "ing"];
/** Items per page (the contract's largest search page is far above; 100 walks deep fast). */
const SEARCH_LIMIT = 100;
/** Pages at the end of each walk reported on their own. */
const TAIL = 50;

const USAGE = `
npm run bench:deep [-- options]

  --against DIR        also walk with the build in DIR (its dist/src/index.js), interleaved
  --entities N         generated entities (default 1000000)
  --statements N       generated statements (default 2000000)
  --queries LIST       comma-separated queries (default ${QUERIES.join(",")})
  --rounds N           walks per query and build, the first a warm-up (default 2)
`;

const OPTIONS = {
  against: { type: "string" },
  entities: { type: "string", default: "1000000" },
  statements: { type: "string", default: "2000000" },
  queries: { type: "string", default: QUERIES.join(",") },
  rounds: { type: "string", default: "2" },
} as const;

type Api = typeof Quiver;

function build(api: Api, options: GenerateOptions): Graph {
  const builder = new api.GraphBuilder({});
  for (const e of generateEntities(options)) builder.addEntity(e);
  for (const st of generateStatements(options)) builder.addStatement(st);
  return builder.build();
}

/** One page's items (as JSON) and its cursor, with the µs it took. */
function page(g: Graph, q: string, cursor: string | undefined): { json: string; next: string | null; us: number } {
  const t = performance.now();
  const p = g.search({ q, limit: SEARCH_LIMIT, order: "score", ...(cursor === undefined ? {} : { cursor }) });
  const us = (performance.now() - t) * 1000;
  return { json: JSON.stringify(p.items.map((e) => e.entityId)), next: p.nextCursor, us };
}

async function main(): Promise<void> {
  const values = benchOptions(process.argv.slice(2), OPTIONS, USAGE);
  const generate: GenerateOptions = {
    entities: Number(values.entities),
    statements: Number(values.statements),
    seed: 1,
    fingerprints: "derived",
  };
  const rounds = Math.max(1, Number(values.rounds));
  const apis: [string, Api][] = [["this checkout", (await import("../src/index.js")) as Api]];
  if (values.against !== undefined) {
    const entry = resolve(values.against, "dist", "src", "index.js");
    if (!existsSync(entry)) {
      process.stderr.write(`${entry} not found: build that checkout first (cd ${values.against} && npx tsc -p .)\n`);
      process.exit(2);
    }
    apis.push([resolve(values.against), (await import(pathToFileURL(entry).href)) as Api]);
  }
  const graphs = apis.map(([label, api]) => {
    progress(`building ${num(generate.entities)} entities / ${num(generate.statements)} statements with ${label}`);
    return build(api, generate);
  });
  const rows: string[][] = [];
  let differ = 0;
  for (const q of values.queries.split(",")) {
    // Per build: every page's µs, and the last TAIL pages' (kept rounds only).
    const all = graphs.map(() => [] as number[]);
    const tail = graphs.map(() => [] as number[]);
    let pages = 0;
    for (let round = 0; round < rounds; round++) {
      progress(`walking q=${JSON.stringify(q)}, round ${round + 1} of ${rounds}`);
      const cursors: (string | undefined)[] = graphs.map(() => undefined);
      const times = graphs.map(() => [] as number[]);
      for (let at = 0; ; at++) {
        // The build that goes first alternates page by page.
        const order = at % 2 === 0 ? graphs.map((_, b) => b) : graphs.map((_, b) => graphs.length - 1 - b);
        const got = order.map((b) => ({ b, ...page(graphs[b]!, q, cursors[b]) }));
        for (const p of got) {
          times[p.b]!.push(p.us);
          cursors[p.b] = p.next ?? undefined;
        }
        if (got.some((p) => p.json !== got[0]!.json || (p.next === null) !== (got[0]!.next === null))) {
          differ++;
          break;
        }
        if (got[0]!.next === null) break;
      }
      pages = times[0]!.length;
      // The first round warms up and is not kept (unless it is the only one).
      if (round === 0 && rounds > 1) continue;
      for (let b = 0; b < graphs.length; b++) {
        all[b]!.push(...times[b]!);
        tail[b]!.push(...times[b]!.slice(-TAIL));
      }
    }
    const row = [q, String(pages)];
    for (let b = 0; b < graphs.length; b++) {
      const d = distribution(
        all[b]!.map((us) => us / 1000),
        false,
      );
      const t = distribution(
        tail[b]!.map((us) => us / 1000),
        false,
      );
      row.push(num(d.p50us), num(d.p99us), num(Math.max(...all[b]!)), num(t.p50us));
    }
    rows.push(row);
  }
  heading(`order=score, every page walked (limit ${SEARCH_LIMIT}), µs per page`);
  const sides = apis.map(([label], b) => (b === 0 ? "A" : "B") + (b === 0 ? ` = ${label}` : ` = ${label}`));
  process.stdout.write(`${sides.join(", ")}\n`);
  const headers = ["q", "pages"];
  for (const side of apis.map((_, b) => (b === 0 ? "A" : "B")))
    headers.push(`${side} p50`, `${side} p99`, `${side} max`, `${side} last ${TAIL} p50`);
  printTable(
    headers.map((header) => ({ header })),
    rows,
  );
  if (differ > 0) {
    process.stdout.write(`\n${differ} walks differ between the builds\n`);
    process.exitCode = 1;
  }
}

await main();

/**
 * Changes benchmark
 * =================
 * What live changes cost, in one process on a generated graph built in memory (default
 * 100k entities / 1M statements: a minute or two on the 2-core machine):
 *  - the first write (it builds the base's fingerprint map);
 *  - apply of a batch of 1 statement put, and of a batch of 10,000 statement puts, through openLive
 *    (prepare, the log's write with its fsyncs, commit): p50 / p99, and statements a second;
 *  - a delta of entities put, replaced and deleted (cascade) on top;
 *  - reads with and without that delta: the same distinct queries (search page 1 with and without
 *    type, statements of each filter shape) on the base Graph alone and on the live graph;
 *  - compaction of base + delta: in a worker thread (with how late a 1 ms timer of this thread ran
 *    meanwhile), and on this thread;
 *  - over HTTP (changes-http.ts): POST to 200 for a batch of 1 and of 10,000 statement puts, the
 *    sustained rate of one client, and how soon a --follow replica holds a batch.
 * The engine's rows are measured in this process; the HTTP rows against `quiver serve` children.
 *
 * Output: the tables on stdout, and the figures as JSON in bench/results/changes.json (results.ts
 * ChangesResults) with an HTML page beside it (changes.html); `npm run bench`'s HTML report and
 * `npm run docs:performance` add the latest changes.json when it is there.
 *
 * Usage: npm run bench:changes -- [--entities N] [--statements N] [--seed N] [--delta N] [--no-http]
 *   --delta: statement puts in the delta before the reads (default 100,000, in batches of 10,000).
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

import {
  type Change,
  type Entity,
  type EntityType,
  type Graph,
  type LiveGraph,
  openLive,
  type Statement,
  saveSnapshot,
} from "../src/index.js";
import { buildGeneratedGraph, mulberry32 } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";
import { DEFAULT_RESULTS_DIR } from "./args.js";
import { runChangesHttp, BIG_BATCH } from "./changes-http.js";
import { count, heading, num, printTable, progress, secondsOf } from "./format.js";
import { renderChangesReport } from "./html-report.js";
import { benchOptions } from "./options.js";
import { CHANGES_RESULTS, type ChangesReadRow, type ChangesResults, type ChangesRow, gitRevision } from "./results.js";
import { summarize, timeEach } from "./sample.js";

const USAGE = `npm run bench:changes -- [--entities N] [--statements N] [--seed N] [--delta N] [--no-http]`;
const SMALL_BATCHES = 300;
const QUERIES = 400;
const READ_ROUNDS = 3;

function row(name: string, samplesMs: number[], detail = ""): ChangesRow {
  const s = summarize(samplesMs);
  return {
    case: name,
    samples: s.samples,
    p50ms: s.p50us / 1000,
    p99ms: s.p99us / 1000,
    maxMs: s.maxUs / 1000,
    detail,
  };
}

function printRows(rows: readonly ChangesRow[]): void {
  printTable(
    [
      { header: "case", align: "left" },
      { header: "batches", align: "right" },
      { header: "p50 ms", align: "right" },
      { header: "p99 ms", align: "right" },
      { header: "", align: "left" },
    ],
    rows.map((r) => [r.case, String(r.samples), num(r.p50ms, 2), num(r.p99ms, 2), r.detail]),
  );
}

async function main(): Promise<void> {
  const options = benchOptions(
    process.argv.slice(2),
    {
      entities: { type: "string", default: "100000" },
      statements: { type: "string", default: "1000000" },
      seed: { type: "string", default: "1" },
      delta: { type: "string", default: "100000" },
      "no-http": { type: "boolean", default: false },
    },
    USAGE,
  );
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const entities = Number(options.entities);
  const statements = Number(options.statements);
  const deltaStatements = Number(options.delta);
  const rand = mulberry32(Number(options.seed));
  progress(`building ${count(entities)} entities / ${count(statements)} statements`);
  let t0 = performance.now();
  const base = buildGeneratedGraph({ entities, statements, seed: Number(options.seed), fingerprints: "derived" });
  progress(`built in ${secondsOf(performance.now() - t0)} s`);
  const ids = [...base.exportEntities()].map((e) => e.entityId);
  const pick = (): string => ids[Math.floor(rand() * ids.length)]!;
  const dir = mkdtempSync(join(tmpdir(), "quiver-bench-changes-"));
  const rows: ChangesRow[] = [];
  const readResults: ChangesReadRow[] = [];
  try {
    const store = openLive(base, dir, { cursorSecret: "bench" });
    const putStatement = (): Change => ({
      op: "put",
      statement: { subjectEntityId: pick(), predicateEntityId: pick(), objectEntityId: pick() },
    });
    t0 = performance.now();
    store.apply([putStatement()]);
    const first = performance.now() - t0;
    progress(`first write (builds the base's fingerprint map): ${num(first, 1)} ms`);

    heading("apply (prepare, log write with fsync, commit)");
    const small: number[] = [];
    for (let i = 0; i < SMALL_BATCHES; i++) {
      const batch = [putStatement()];
      const t = performance.now();
      store.apply(batch);
      small.push(performance.now() - t);
    }
    rows.push(row("batch of 1 statement put", small));
    const big: number[] = [];
    let put = 0;
    while (put < deltaStatements) {
      const batch = Array.from({ length: BIG_BATCH }, putStatement);
      const t = performance.now();
      const r = store.apply(batch);
      big.push(performance.now() - t);
      put += r.statements.put;
    }
    const total = big.reduce((a, b) => a + b, 0);
    rows.push(
      row(
        `batch of ${count(BIG_BATCH)} statement puts`,
        big,
        `${count(Math.round((put / total) * 1000))} statements/s`,
      ),
    );
    // Entities: new ones, replacements (a new name) and deletes (cascade), in one batch of 10,000.
    const entityBatch: Change[] = [];
    for (let i = 0; i < BIG_BATCH; i++) {
      const r = rand();
      if (r < 0.6)
        entityBatch.push({
          op: "put",
          entity: {
            entityId: `new-${i}`,
            rawIdentifier: `New entity ${i}`,
            type: String(i % 8) as EntityType,
            sourceType: "bench",
          },
        });
      else if (r < 0.9) {
        const e = base.getEntity(pick())!;
        entityBatch.push({ op: "put", entity: { ...e, rawIdentifier: `${e.rawIdentifier} (renamed)` } });
      } else entityBatch.push({ op: "delete", entityId: pick(), cascade: true });
    }
    t0 = performance.now();
    const er = store.apply(entityBatch);
    rows.push(
      row(`batch of ${count(BIG_BATCH)} entity changes`, [performance.now() - t0], JSON.stringify(er.entities)),
    );
    printRows(rows);
    const live = store.graph;
    const size = live.deltaSize;
    progress(`delta: ${JSON.stringify(size)}`);

    heading("reads: the base alone, and base + delta (distinct queries, page 1)");
    const names = [...live.exportEntities()].filter((e) => e.rawIdentifier.length >= 3);
    const queries = Array.from({ length: QUERIES }, () => {
      const e: Entity = names[Math.floor(rand() * names.length)]!;
      const at = Math.floor(rand() * Math.max(1, e.rawIdentifier.length - 3));
      return e.rawIdentifier.slice(at, at + 3 + Math.floor(rand() * 4));
    });
    // Statements to draw filters from: the first of a random subject's (no copy of every statement:
    // a heap of a million objects would make every collection of the timed loops slower).
    const sample: Statement[] = [];
    while (sample.length < QUERIES) {
      const first = live.statements({ subjectEntityId: pick(), limit: 1 }).items[0];
      if (first !== undefined) sample.push(first);
    }
    const readRows: string[][] = [];
    const compare = (name: string, call: (g: Graph | LiveGraph, i: number) => unknown) => {
      const items = Array.from({ length: QUERIES }, (_, i) => i);
      const b = summarize(timeEach(items, READ_ROUNDS, rand, (i) => call(base, i)));
      const l = summarize(timeEach(items, READ_ROUNDS, rand, (i) => call(live, i)));
      readResults.push({ case: name, baseP50us: b.p50us, liveP50us: l.p50us, baseP99us: b.p99us, liveP99us: l.p99us });
      readRows.push([
        name,
        num(b.p50us, 1),
        num(l.p50us, 1),
        num(l.p50us / b.p50us, 2),
        num(b.p99us, 1),
        num(l.p99us, 1),
        num(l.p99us / b.p99us, 2),
      ]);
    };
    compare("search", (g, i) => g.search({ q: queries[i]! }));
    compare("search type=0", (g, i) => g.search({ q: queries[i]!, type: "0" }));
    compare("search order=score", (g, i) => g.search({ q: queries[i]!, order: "score" }));
    compare("search count=true", (g, i) => g.search({ q: queries[i]!, count: true }));
    const shapes: [string, (i: number) => object][] = [
      ["statements (all)", () => ({})],
      ["statements S", (i) => ({ subjectEntityId: sample[i]!.subjectEntityId })],
      ["statements P", (i) => ({ predicateEntityId: sample[i]!.predicateEntityId })],
      ["statements O", (i) => ({ objectEntityId: sample[i]!.objectEntityId })],
      [
        "statements S+P",
        (i) => ({ subjectEntityId: sample[i]!.subjectEntityId, predicateEntityId: sample[i]!.predicateEntityId }),
      ],
      [
        "statements P+O",
        (i) => ({ predicateEntityId: sample[i]!.predicateEntityId, objectEntityId: sample[i]!.objectEntityId }),
      ],
      [
        "statements O+S",
        (i) => ({ objectEntityId: sample[i]!.objectEntityId, subjectEntityId: sample[i]!.subjectEntityId }),
      ],
      [
        "statements S+P+O",
        (i) => ({
          subjectEntityId: sample[i]!.subjectEntityId,
          predicateEntityId: sample[i]!.predicateEntityId,
          objectEntityId: sample[i]!.objectEntityId,
        }),
      ],
    ];
    for (const [name, filters] of shapes) compare(name, (g, i) => g.statements(filters(i)));
    compare("statements S count=true", (g, i) =>
      g.statements({ subjectEntityId: sample[i]!.subjectEntityId, count: true }),
    );
    printTable(
      [
        { header: "query", align: "left" },
        { header: "base p50 µs", align: "right" },
        { header: "live p50 µs", align: "right" },
        { header: "x", align: "right" },
        { header: "base p99 µs", align: "right" },
        { header: "live p99 µs", align: "right" },
        { header: "x", align: "right" },
      ],
      readRows,
    );

    heading("compaction");
    // In a worker thread (the base loaded again from its snapshot, the log replayed there), while
    // this thread keeps a 1 ms timer: its worst lateness is what a request would have waited.
    store.close();
    const snapshot = join(dir, "base.qvr");
    t0 = performance.now();
    await saveSnapshot(base, snapshot);
    progress(`snapshot of the base saved in ${secondsOf(performance.now() - t0)} s`);
    const worker = openLive(base, dir, { cursorSecret: "bench", source: { snapshot } });
    let late = 0;
    let expected = performance.now() + 1;
    const timer = setInterval(() => {
      const now = performance.now();
      late = Math.max(late, now - expected);
      expected = now + 1;
    }, 1);
    t0 = performance.now();
    await worker.compactInWorker();
    clearInterval(timer);
    const inWorkerMs = performance.now() - t0;
    progress(`compactInWorker: ${secondsOf(inWorkerMs)} s (the log replayed in the worker)`);
    progress(`  this thread's 1 ms timer meanwhile: at most ${num(late, 1)} ms late`);
    t0 = performance.now();
    worker.compact();
    const syncMs = performance.now() - t0;
    progress(
      `compact (synchronous): ${secondsOf(syncMs)} s for ${count(worker.graph.entityCount)} entities / ${count(worker.graph.statementCount)} statements`,
    );
    const compaction = {
      inWorkerMs,
      timerLateMs: late,
      syncMs,
      entities: worker.graph.entityCount,
      statements: worker.graph.statementCount,
    };
    worker.close();

    let http: ChangesRow[] | null = null;
    if (options["no-http"] !== true) {
      heading("over HTTP: quiver serve --changes on 127.0.0.1, one client, and a --follow replica");
      const statementLine = (): string =>
        JSON.stringify({
          op: "put",
          statement: { subjectEntityId: pick(), predicateEntityId: pick(), objectEntityId: pick() },
        });
      http = await runChangesHttp(snapshot, join(dir, "http-log"), statementLine);
      printRows(http);
    }
    const results: ChangesResults = {
      kind: "changes",
      startedAt: startedAt.toISOString(),
      environment: {
        node: process.version,
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? "unknown",
        loadAtStart,
        loadAtEnd: loadavg(),
        revision: gitRevision(),
      },
      options: { entities, statements, delta: deltaStatements, seed: Number(options.seed), http: http !== null },
      apply: rows,
      http,
      delta: size,
      reads: readResults,
      compaction,
    };
    mkdirSync(DEFAULT_RESULTS_DIR, { recursive: true });
    const out = join(DEFAULT_RESULTS_DIR, CHANGES_RESULTS);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    const html = out.replace(/\.json$/, ".html");
    writeFileSync(html, renderChangesReport(results));
    console.log(
      `load average ${num(loadAtStart[0]!)} at the start, ${num(results.environment.loadAtEnd[0]!)} at the end; results: ${out}, ${html}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) await main();

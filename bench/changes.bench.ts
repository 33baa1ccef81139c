/**
 * Changes benchmark
 * =================
 * What live changes cost, in one process on a generated graph built in memory (default
 * 100k entities / 1M statements: a minute or two on the 2-core machine):
 *  - warm (the base's fingerprint map and counts, built at open) and the first write after it;
 *  - apply of a batch of 1 statement put, and of a batch of 10,000 statement puts, through openLive
 *    (prepare, the log's write with its fsyncs, commit): p50 / p99, and statements a second;
 *  - a delta of entities put, replaced and deleted (cascade) on top, in one batch of 10,000, and the
 *    same changes again on the engine's own graph in batches of ENTITY_CHUNK (CPU each);
 *  - reads with and without that delta: the same distinct queries (search page 1 with and without
 *    type, statements of each filter shape) on the base Graph alone and on the live graph; the
 *    unfiltered statements case reads a page after a cursor, each query's at its own place of the
 *    walk (each graph's own cursors, 1,000 statements apart, made by a walk before the timing);
 *    each case but that one is also split into two rows by whether the delta changes the query's
 *    page (its items differ from the base's page for the same query): the pages it leaves as they
 *    are pay only the probes that tell so, those it changes a merge or a longer read too;
 *  - reads right after a batch of one change, of what it wrote, then the same read again
 *    (changes-after-batch.ts);
 *  - compaction of base + delta: in a worker thread (with how late a 1 ms timer of this thread ran
 *    meanwhile), and on this thread;
 *  - over HTTP (changes-http.ts): POST to 200 for a batch of 1 and of 10,000 statement puts, the
 *    sustained rate of one client, and how soon a --follow replica holds a batch;
 *  - over HTTP during a background compaction of that delta (changes-compaction.ts): /healthz and
 *    search at a steady pace, with and without a compaction running, and the server's peak memory.
 * The engine's rows are measured in this process; the HTTP rows against `quiver serve` children.
 *
 * Output: the tables on stdout, and the figures as JSON in bench/results/changes.json (results.ts
 * ChangesResults) with an HTML page beside it (changes.html); `npm run bench`'s HTML report and
 * `npm run docs:performance` add the latest changes.json when it is there.
 *
 * Usage: npm run bench:changes -- [--entities N] [--statements N] [--seed N] [--delta N] [--cpu] [--no-http]
 *                                 [--snapshot FILE] [--compaction-only] [--reads-only] [--cases TEXT]
 *                                 [--queries N] [--drop-preempted]
 *   --no-http: the engine's rows only (no `quiver serve` children).
 *   --snapshot: the base opened from this snapshot instead of generated (--entities and --statements ignored).
 *   --compaction-only: the apply rows (they make the delta) and the compaction under load only; no
 *   results file is written.
 *   --delta: statement puts in the delta before the reads (default 100,000, in batches of 10,000).
 *   --reads-only: the delta made on a live graph without a change log (the same delta: the same
 *   batches), what it holds in memory, then the reads only: no apply rows, no compaction, no HTTP,
 *   no results file.
 *   --cases: only the read cases whose name contains TEXT (e.g. "statements").
 *   --queries: distinct queries per read case (default 1,000: with READ_ROUNDS rounds, a p99 of 3,000
 *   samples a side, and a page-changed row of a few dozen queries; more for a profile of the reads).
 *   --drop-preempted: a pair of reads during which this process was preempted (its count of
 *   involuntary context switches, getrusage, read before and after the pair, outside the timed
 *   calls) is left out of both sides (how many: the table's last column): wall-clock figures with
 *   the scheduler's slices taken out, for a loaded machine. A longer read is a little likelier to be
 *   preempted, so the longest are slightly under-sampled (a 100 µs read in a 4 ms slice: 2.5%).
 *   --cpu: reads timed in this process's CPU time (process.cpuUsage) instead of wall-clock time:
 *   on a loaded machine a wall-clock p99 is mostly the scheduler's; but getrusage counts in whole
 *   microseconds (a 3 µs read moves in steps of 30%), so figures of a few µs want the wall clock
 *   (the default: process.hrtime.bigint, in ns) on a quiet machine.
 * The reads are paired: a query asked of the base and another of the live graph one after the
 * other (which goes first alternating by pair), so both see the same load and neither finds the
 * other's data in the CPU's caches. The engine's part of a batch
 * (prepare + commit, no log) is timed on a second live graph over the same base, in CPU time too.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

import {
  type Change,
  type EntityType,
  type Graph,
  LiveGraph,
  openLive,
  type Statement,
  openSnapshot,
  saveSnapshot,
} from "../src/index.js";
import { buildGeneratedGraph, mulberry32 } from "../tools/generator.js";
import { isMainModule } from "../tools/main-module.js";
import { DEFAULT_RESULTS_DIR } from "./args.js";
import { readsAfterBatches } from "./changes-after-batch.js";
import { drawQueries } from "./changes-queries.js";
import { runCompactionUnderLoad } from "./changes-compaction.js";
import { BIG_BATCH, changesRow, runChangesHttp } from "./changes-http.js";
import { count, heading, num, printTable, progress, readCells, secondsOf } from "./format.js";
import { renderChangesReport } from "./html-report.js";
import { benchOptions } from "./options.js";
import { CHANGES_RESULTS, type ChangesReadRow, type ChangesResults, type ChangesRow, gitRevision } from "./results.js";
import { summarize } from "./sample.js";

const USAGE = `npm run bench:changes -- [--entities N] [--statements N] [--seed N] [--delta N] [--cpu] [--no-http]
                              [--snapshot FILE] [--compaction-only] [--reads-only] [--cases TEXT]
                              [--queries N] [--drop-preempted]`;
const SMALL_BATCHES = 300;
/**
 * The entity changes again, on the engine's graph, in batches of this many: the engine's CPU for
 * entity changes as a row of several samples (the store's batch of BIG_BATCH is one).
 */
const ENTITY_CHUNK = 1000;
/** Distinct queries per read case (--queries). */
const QUERIES = 1000;
const READ_ROUNDS = 3;
/** The fewest queries a read case's class (page changed by the delta, or not) has for a row of its own. */
const SPLIT_MIN_QUERIES = 10;
/** The unfiltered statements case's cursors: made by a walk of pages this long, this many pages apart. */
const STATEMENTS_WALK_LIMIT = 200;
const ALL_WALK_STRIDE = 5;

function printRows(rows: readonly ChangesRow[]): void {
  printTable(
    [
      { header: "case", align: "left" },
      { header: "batches", align: "right" },
      { header: "p50 ms", align: "right" },
      { header: "p99 ms", align: "right" },
      { header: "max ms", align: "right" },
      { header: "CPU ms", align: "right" },
      { header: "", align: "left" },
    ],
    rows.map((r) => [
      r.case,
      String(r.samples),
      num(r.p50ms, 2),
      num(r.p99ms, 2),
      num(r.maxMs, 1),
      r.cpuMs === undefined ? "" : num(r.cpuMs, 2),
      r.detail,
    ]),
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
      cpu: { type: "boolean", default: false },
      snapshot: { type: "string" },
      "compaction-only": { type: "boolean", default: false },
      "reads-only": { type: "boolean", default: false },
      "drop-preempted": { type: "boolean", default: false },
      cases: { type: "string", default: "" },
      queries: { type: "string", default: String(QUERIES) },
    },
    USAGE,
  );
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const deltaStatements = Number(options.delta);
  const compactionOnly = options["compaction-only"] === true;
  const readsOnly = options["reads-only"] === true;
  const cases = String(options.cases);
  const queryCount = Number(options.queries);
  const rand = mulberry32(Number(options.seed));
  let t0 = performance.now();
  let base: Graph;
  // Each branch: a base given as a snapshot (a big one made once), or generated here.
  if (options.snapshot !== undefined) {
    progress(`opening ${options.snapshot}`);
    base = await openSnapshot(options.snapshot);
    progress(`opened in ${secondsOf(performance.now() - t0)} s`);
  } else {
    progress(`building ${count(Number(options.entities))} entities / ${count(Number(options.statements))} statements`);
    base = buildGeneratedGraph({
      entities: Number(options.entities),
      statements: Number(options.statements),
      seed: Number(options.seed),
      fingerprints: "derived",
    });
    progress(`built in ${secondsOf(performance.now() - t0)} s`);
  }
  const entities = base.entityCount;
  const statements = base.statementCount;
  const ids = [...base.exportEntities()].map((e) => e.entityId);
  const pick = (): string => ids[Math.floor(rand() * ids.length)]!;
  const dir = mkdtempSync(join(tmpdir(), "quiver-bench-changes-"));
  const rows: ChangesRow[] = [];
  const readResults: ChangesReadRow[] = [];
  try {
    // Each branch: the reads alone (the delta applied to a live graph with no change log: no fsync, no
    // apply rows), or every row (a change log in `dir`).
    const store: Pick<ReturnType<typeof openLive>, "apply" | "graph" | "close"> = readsOnly
      ? withoutLog(new LiveGraph(base, { cursorSecret: "bench" }))
      : openLive(base, dir, { cursorSecret: "bench" });
    const putStatement = (): Change => ({
      op: "put",
      statement: { subjectEntityId: pick(), predicateEntityId: pick(), objectEntityId: pick() },
    });
    // What the first write would build (the base's fingerprint map, the counts), built at open instead.
    t0 = performance.now();
    store.graph.warm();
    progress(`warm (the base's fingerprint map and counts, at open): ${num(performance.now() - t0, 1)} ms`);
    // What the process holds before the delta (--reads-only: this graph alone holds it).
    const heldBefore = readsOnly ? heldBytes() : 0;
    t0 = performance.now();
    store.apply([putStatement()]);
    const first = performance.now() - t0;
    progress(`first write (after warm): ${num(first, 1)} ms`);

    heading("apply (prepare, log write with fsync, commit)");
    const small: number[] = [];
    const smallBatches: Change[][] = [];
    for (let i = 0; i < SMALL_BATCHES; i++) {
      const batch = [putStatement()];
      smallBatches.push(batch);
      const t = performance.now();
      store.apply(batch);
      small.push(performance.now() - t);
    }
    rows.push(changesRow("batch of 1 statement put", small));
    const big: number[] = [];
    // The engine's part of each batch (prepare + commit, no log), on a live graph of its own.
    // (Not made for --reads-only: the same batches are drawn, so the delta is the same.)
    const engine = readsOnly ? undefined : new LiveGraph(base, { cursorSecret: "bench" });
    engine?.warm();
    const engineSmall: number[] = [];
    if (engine !== undefined) for (const batch of smallBatches) engineSmall.push(cpuMs(() => engine.apply(batch)));
    const engineBig: number[] = [];
    let put = 0;
    while (put < deltaStatements) {
      const batch = Array.from({ length: BIG_BATCH }, putStatement);
      const t = performance.now();
      const r = store.apply(batch);
      big.push(performance.now() - t);
      put += r.statements.put;
      if (engine !== undefined) engineBig.push(cpuMs(() => engine.apply(batch)));
    }
    rows.push(changesRow("engine: batch of 1 statement put, CPU", engineSmall));
    rows.push(changesRow(`engine: batch of ${count(BIG_BATCH)} statement puts, CPU`, engineBig));
    const total = big.reduce((a, b) => a + b, 0);
    rows.push(
      changesRow(
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
      changesRow(`batch of ${count(BIG_BATCH)} entity changes`, [performance.now() - t0], JSON.stringify(er.entities)),
    );
    // The engine's part of the same changes (prepare + commit, no log), in batches of ENTITY_CHUNK on
    // its own graph (it holds the same statements): a put walks the delta's search structures.
    if (engine !== undefined) {
      const engineEntities: number[] = [];
      for (let i = 0; i < entityBatch.length; i += ENTITY_CHUNK) {
        const chunk = entityBatch.slice(i, i + ENTITY_CHUNK);
        engineEntities.push(cpuMs(() => engine.apply(chunk)));
      }
      rows.push(changesRow(`engine: batch of ${count(ENTITY_CHUNK)} entity changes, CPU`, engineEntities));
    }
    if (!readsOnly) printRows(rows);
    const live = store.graph;
    const size = live.deltaSize;
    progress(`delta: ${JSON.stringify(size)}`);
    // Each branch: --reads-only, what the delta holds (heap and array buffers after a full
    // collection: the maps, lists, indexes and objects of its items); else another live graph (the
    // engine rows') holds the same delta, so it is not told.
    if (readsOnly) {
      const held = heldBytes() - heldBefore;
      const items = size.entities + size.statements + size.hiddenEntities + size.hiddenStatements;
      progress(
        `delta held in memory: ${num(held / 2 ** 20, 1)} MiB, ${num(held / items, 0)} B a changed item (${count(items)})`,
      );
    }

    const names = [...live.exportEntities()].filter((e) => e.rawIdentifier.length >= 3);
    const queries = drawQueries(names, queryCount, rand);
    names.length = 0;
    // Over entities still there (the delta deleted some of the base's): a batch that names a gone
    // one is refused (409), which would count as an error of the server.
    const present = ids.filter((id) => live.getEntity(id) !== undefined);
    const pickPresent = (): string => present[Math.floor(rand() * present.length)]!;
    const statementLine = (): string =>
      JSON.stringify({
        op: "put",
        statement: { subjectEntityId: pickPresent(), predicateEntityId: pickPresent(), objectEntityId: pickPresent() },
      });
    if (compactionOnly) {
      store.close();
      const snapshot = options.snapshot ?? join(dir, "base.qvr");
      if (options.snapshot === undefined) await saveSnapshot(base, snapshot);
      heading("over HTTP during a background compaction of base + delta");
      printRows((await runCompactionUnderLoad(snapshot, dir, queries, statementLine)).rows);
      console.log(`load average ${num(loadAtStart[0]!)} at the start, ${num(loadavg()[0]!)} at the end`);
      return;
    }

    heading("reads: the base alone, and base + delta (distinct queries, page 1)");
    // Statements to draw filters from: the first of a random subject's (no copy of every statement:
    // a heap of a million objects would make every collection of the timed loops slower).
    const sample: Statement[] = [];
    while (sample.length < queryCount) {
      const first = live.statements({ subjectEntityId: pick(), limit: 1 }).items[0];
      if (first !== undefined) sample.push(first);
    }
    const readRows: string[][] = [];
    const clock = options.cpu ? cpuNow : wallNow;
    const preemptions = options["drop-preempted"] === true ? involuntarySwitches : undefined;
    /**
     * A read case: `call` of query i on either graph, timed paired; `split` (a page of each graph
     * for the same query: not the unfiltered walk, whose queries are each graph's own place in its
     * walk) adds the rows of its queries by whether the delta changes their page.
     */
    const compare = (name: string, call: (g: Graph | LiveGraph, i: number) => unknown, split = true) => {
      if (!name.includes(cases)) return;
      const paired = timePaired(
        queryCount,
        READ_ROUNDS,
        rand,
        clock,
        (i) => call(base, i),
        (i) => call(live, i),
        preemptions,
      );
      /** A row: `label` its case in the results, `shown` in the printed table (a split row's, indented under its case's). */
      const row = (label: string, shown: string, bs: number[], ls: number[], dropped: string, share?: number) => {
        const b = summarize(bs);
        const l = summarize(ls);
        const read: ChangesReadRow = {
          case: label,
          baseP50us: b.p50us,
          liveP50us: l.p50us,
          baseP99us: b.p99us,
          liveP99us: l.p99us,
          ...(share === undefined ? {} : { share }),
        };
        readResults.push(read);
        readRows.push([shown, ...readCells(read), dropped]);
      };
      row(name, name, paired.a, paired.b, String(paired.dropped));
      if (!split) return;
      // The same samples split by whether the delta changes the query's page (its items differ from
      // the base's: a delta item on it, a tombstoned item left out, a name replaced), each query's
      // pages compared once, untimed: the pages the delta leaves as they are cost the probes that
      // tell so; those it changes, the merge or the longer read as well. The plain row above is the
      // goal's; these say where its extra comes from (a class of fewer than SPLIT_MIN_QUERIES
      // queries is left out: its percentiles would be a few samples').
      const changed = Array.from(
        { length: queryCount },
        (_, i) => itemsText(call(base, i)) !== itemsText(call(live, i)),
      );
      const nChanged = changed.filter(Boolean).length;
      for (const [label, shown, inClass, n] of [
        ["changed by the delta", "changed", (i: number) => changed[i]!, nChanged],
        ["as the base's", "unchanged", (i: number) => !changed[i]!, queryCount - nChanged],
      ] as const) {
        if (n < SPLIT_MIN_QUERIES) continue;
        const share = n / queryCount;
        const percent = `${num(100 * share, 1)}%`;
        row(
          `${name}: page ${label} (${percent})`,
          `  page ${shown} (${percent})`,
          samplesOf(paired.a, paired.aQuery, inClass),
          samplesOf(paired.b, paired.bQuery, inClass),
          "",
          share,
        );
      }
    };
    compare("search", (g, i) => g.search({ q: queries[i]! }));
    compare("search type=0", (g, i) => g.search({ q: queries[i]!, type: "0" }));
    compare("search order=score", (g, i) => g.search({ q: queries[i]!, order: "score" }));
    compare("search count=true", (g, i) => g.search({ q: queries[i]!, count: true }));
    // Page 2 alone: each graph's own page-1 cursor (sealed by its own secret), made before the timing.
    const secondPage = (order: "name" | "score") => {
      const cursors = new Map<Graph | LiveGraph, (string | undefined)[]>();
      for (const g of [base, live])
        cursors.set(
          g,
          queries.map((q) => g.search({ q, order, limit: 10 }).nextCursor ?? undefined),
        );
      return (g: Graph | LiveGraph, i: number) =>
        g.search({ q: queries[i]!, order, limit: 10, cursor: cursors.get(g)![i] });
    };
    // Each page-2 case only when --cases keeps it (its page-1 cursors cost a pass of reads).
    for (const [name, order] of [
      ["search page 2 (limit 10)", "name"],
      ["search order=score page 2 (limit 10)", "score"],
    ] as const)
      if (name.includes(cases)) compare(name, secondPage(order));
    // No filter: a page resumed at a distinct place of the whole walk per query (each graph's own
    // cursors, made before the timing), so neither side answers the same page again from its caches.
    if ("statements (all)".includes(cases)) {
      const cursors = new Map<Graph | LiveGraph, string[]>();
      for (const g of [base, live]) cursors.set(g, walkCursors(g, queryCount));
      compare("statements (all)", (g, i) => g.statements({ cursor: cursors.get(g)![i] }), false);
    }
    const shapes: [string, (i: number) => object][] = [
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
        { header: "dropped", align: "right" },
      ],
      readRows,
    );
    heading("reads right after a batch (a read of what the batch wrote, then the same read again)");
    const afterRows = readsAfterBatches(store, pickPresent, rand, "added");
    printRows(afterRows);
    rows.push(...afterRows);
    if (readsOnly) {
      console.log(`load average ${num(loadAtStart[0]!)} at the start, ${num(loadavg()[0]!)} at the end`);
      return;
    }

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
      heading("over HTTP during a background compaction of base + delta");
      const underLoad = await runCompactionUnderLoad(snapshot, dir, queries, statementLine);
      printRows(underLoad.rows);
      heading("over HTTP: quiver serve --changes on 127.0.0.1, one client, and a --follow replica");
      http = [...underLoad.rows, ...(await runChangesHttp(snapshot, join(dir, "http-log"), statementLine))];
      printRows(http.slice(underLoad.rows.length));
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
      // The sizes asked on the command line (what the report's command repeats), or a snapshot's.
      options: {
        entities: options.snapshot === undefined ? Number(options.entities) : entities,
        statements: options.snapshot === undefined ? Number(options.statements) : statements,
        delta: deltaStatements,
        seed: Number(options.seed),
        http: http !== null,
      },
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

/** This process's CPU time in ms (user + system). */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const WALL_ORIGIN = process.hrtime.bigint();

/** A monotonic wall clock in ms since this module loaded, from process.hrtime.bigint (ns: no rounding to µs). */
function wallNow(): number {
  return Number(process.hrtime.bigint() - WALL_ORIGIN) / 1e6;
}

/**
 * Bytes this process holds in its heap and array buffers after a full collection (the bench runs
 * with --expose-gc; without it, what is held now, garbage included).
 */
function heldBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** This process's count of involuntary context switches (preemptions by the scheduler). */
function involuntarySwitches(): number {
  return process.resourceUsage().involuntaryContextSwitches;
}

/** A live graph as the part of a LiveStore the reads need: apply with no change log. */
function withoutLog(graph: LiveGraph) {
  return { graph, apply: (batch: readonly Change[]) => graph.apply(batch), close: () => {} };
}

/** The CPU time `f` takes, in ms. */
function cpuMs(f: () => unknown): number {
  const t = cpuNow();
  f();
  return cpuNow() - t;
}

/**
 * Queries 0..n-1 asked of `a` and of `b` in pairs, one right after the other (so both see the same
 * load), each round in two fresh random orders: a pair asks two different queries, since a query
 * asked right after the same one finds its data in the CPU's caches (about twice as fast at p50, on
 * the same graph asked twice), and which of the two goes first alternates by pair; round 0 is a
 * warm-up (JIT), not kept. With `preemptions` (a count of this process's preemptions, read around
 * each pair outside the timed calls), a pair during which it grew is not kept. Returns the samples of
 * each, in ms of `clock`, and how many pairs were left out so.
 */
/**
 * `n` cursors of `graph`'s unfiltered statements walk, ALL_WALK_STRIDE pages of STATEMENTS_WALK_LIMIT
 * apart (a walk of the first n * stride * limit statements, or fewer when the graph has fewer): each
 * resumes the walk at its own place, for reads of the unfiltered page that are distinct queries.
 */
function walkCursors(graph: Graph | LiveGraph, n: number): string[] {
  const cursors: string[] = [];
  let cursor: string | undefined;
  for (let page = 1; cursors.length < n; page++) {
    const next = graph.statements({ limit: STATEMENTS_WALK_LIMIT, cursor }).nextCursor;
    // The end of the walk: the cursors so far again, so every query index has one.
    if (next === null) {
      if (cursors.length === 0 && cursor !== undefined) cursors.push(cursor);
      if (cursors.length === 0) throw new Error("the graph has too few statements for a page after a cursor");
      for (let i = 0, made = cursors.length; cursors.length < n; i++) cursors.push(cursors[i % made]!);
      break;
    }
    cursor = next;
    if (page % ALL_WALK_STRIDE === 0) cursors.push(next);
  }
  return cursors;
}

/** timePaired's samples: each side's times and, at the same index, the query each timed; pairs dropped. */
export interface Paired {
  a: number[];
  b: number[];
  aQuery: number[];
  bQuery: number[];
  dropped: number;
}

/** The samples of `times` whose query (`queries`, at the same index) is in the class `inClass`. */
export function samplesOf(
  times: readonly number[],
  queries: readonly number[],
  inClass: (i: number) => boolean,
): number[] {
  const out: number[] = [];
  for (let k = 0; k < times.length; k++) if (inClass(queries[k]!)) out.push(times[k]!);
  return out;
}

/** A page's items as text: two graphs' pages hold the same items when their texts are equal (cursors and totals aside). */
function itemsText(page: unknown): string {
  return JSON.stringify((page as { items: unknown[] }).items);
}

export function timePaired(
  n: number,
  rounds: number,
  rand: () => number,
  clock: () => number,
  a: (i: number) => unknown,
  b: (i: number) => unknown,
  preemptions?: () => number,
): Paired {
  let dropped = 0;
  const as: number[] = [];
  const bs: number[] = [];
  const ai: number[] = [];
  const bi: number[] = [];
  const orderA = Array.from({ length: n }, (_, i) => i);
  const orderB = Array.from({ length: n }, (_, i) => i);
  const shuffle = (order: number[]) => {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
  };
  const time = (f: (i: number) => unknown, i: number): number => {
    const t = clock();
    f(i);
    return clock() - t;
  };
  for (let round = 0; round <= rounds; round++) {
    shuffle(orderA);
    shuffle(orderB);
    for (let k = 0; k < n; k++) {
      const switches = preemptions?.();
      // Each branch: the first of the pair alternates by pair.
      let ta: number;
      let tb: number;
      if (k % 2 === 0) {
        ta = time(a, orderA[k]!);
        tb = time(b, orderB[k]!);
      } else {
        tb = time(b, orderB[k]!);
        ta = time(a, orderA[k]!);
      }
      if (round === 0) continue;
      // Preempted during the pair: neither sample is the read's own time.
      if (preemptions !== undefined && preemptions() !== switches) {
        dropped++;
        continue;
      }
      as.push(ta);
      bs.push(tb);
      ai.push(orderA[k]!);
      bi.push(orderB[k]!);
    }
  }
  return { a: as, b: bs, aQuery: ai, bQuery: bi, dropped };
}

if (isMainModule(import.meta.url)) await main();

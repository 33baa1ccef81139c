/**
 * `npm run bench`
 * ===============
 * The benchmark of what people use Quiver for: build a graph from JSON Lines, then time search and
 * statements pages against naive and off-the-shelf baselines, and check the issue's goals.
 *
 *   npm run bench                                     generated 200k entities / 2M statements (a few minutes)
 *   npm run bench:full                                the goals' size: 1M entities / 10M statements
 *   npm run bench:yago                                the real names of YAGO3-10 (123k entities)
 *   npm run bench -- --entities FILE --statements FILE     your own data
 *   npm run bench -- --help                           every option (bench/args.ts)
 *
 * Steps: prepare the two input files (generate them with bench/generator.ts, cached between runs;
 * convert YAGO3-10 with src/load/kg-datasets.ts; or take the user's), build (bench/build.bench.ts),
 * search (bench/search.bench.ts), statements with the N3 and Map baselines
 * (bench/statements.bench.ts), then a summary of pass/fail per goal, and the results as JSON in
 * bench/results/<dataset>.json (gitignored) for the README.
 *
 * Run with `node --expose-gc` (the npm scripts do) so memory is measured after a full GC.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

import { readKgDataset, writeKgDatasetJsonLines } from "../src/cli/kg-datasets.js";
import { DEFAULT_DATA_CACHE, DEFAULT_RESULTS_DIR, parseArgs, USAGE, UsageError, type BenchArgs } from "./args.js";
import { buildGoals, runBuild, type DatasetFiles } from "./build.bench.js";
import { writeGraphJsonl } from "../tools/generator.js";
import { seconds, thousands, type GoalCheck } from "./report.js";
import { runSearch, searchGoals, type SearchReport } from "./search.bench.js";
import { runStatements, statementsGoals, type StatementsReport } from "./statements.bench.js";

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message !== "") console.error(`error: ${e.message}\n`);
    console.error(USAGE);
    process.exitCode = e.message === "" ? 0 : 2;
    return;
  }
  const scratch = await mkdtemp(join(tmpdir(), "quiver-bench-run-"));
  const startedAt = new Date();
  const loadAtStart = loadavg();
  console.log(`# Quiver benchmark (${startedAt.toISOString()})`);
  const revision = gitRevision();
  console.log(
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${loadAtStart.map((x) => x.toFixed(2)).join(" ")}; engine at ${revision}`,
  );
  try {
    const data = await prepareData(args, scratch);
    const { graph, report: build } = await runBuild(data, scratch);
    let search: SearchReport | undefined;
    let statements: StatementsReport | undefined;
    if (args.parts.has("search")) search = await runSearch(graph, { timeMs: args.taskTimeMs });
    if (args.parts.has("statements")) {
      statements = await runStatements(graph, data, {
        timeMs: args.taskTimeMs,
        baselineStatements: args.baselineStatements,
        scratchDir: scratch,
      });
    }

    const goals: GoalCheck[] = [
      ...buildGoals(build),
      ...(search ? searchGoals(search) : []),
      ...(statements ? statementsGoals(statements) : []),
    ];
    const loadAtEnd = loadavg();
    console.log(`\n## Summary: ${data.description}`);
    console.table(
      goals.map((g) => ({
        goal: g.goal,
        measured: g.measured,
        verdict: g.pass === null ? "n/a" : g.pass ? "PASS" : "FAIL",
        note: g.note ?? "",
      })),
    );
    console.log(
      `load average at the end ${loadAtEnd.map((x) => x.toFixed(2)).join(" ")} (above ${cpus().length} means other work shared the CPUs: re-run with --only search,statements)`,
    );

    const out = args.out ?? join(DEFAULT_RESULTS_DIR, `${data.label}.json`);
    await mkdir(dirname(out), { recursive: true });
    const results = {
      startedAt: startedAt.toISOString(),
      environment: {
        node: process.version,
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        totalMemBytes: totalmem(),
        loadAtStart,
        loadAtEnd,
        revision,
      },
      dataset: { label: data.label, description: data.description, inputBytes: data.inputBytes },
      options: { ...args, parts: [...args.parts] },
      build,
      search: search ?? null,
      statements: statements ?? null,
      goals,
    };
    await writeFile(out, JSON.stringify(results, null, 2) + "\n");
    console.log(`results written to ${out}`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The two input files of the run. */
async function prepareData(args: BenchArgs, scratch: string): Promise<DatasetFiles> {
  const source = args.source;
  switch (source.kind) {
    case "files": {
      const bytes = (await stat(source.entities)).size + (await stat(source.statements)).size;
      return {
        label: `files-${basename(source.statements).replace(/\.[^.]*$/, "")}`,
        description: `${source.entities} + ${source.statements}`,
        entities: source.entities,
        statements: source.statements,
        inputBytes: bytes,
      };
    }
    case "yago": {
      // Types "hashed": names spread over types 0, 2..7, so a type filter has something to select.
      const dataset = await readKgDataset(source.dir, { types: "hashed" });
      const paths = await writeKgDatasetJsonLines(dataset, join(scratch, "yago"));
      const bytes = (await stat(paths.entities)).size + (await stat(paths.statements)).size;
      return {
        label: "yago3-10",
        description: `YAGO3-10 real names (${thousands(dataset.entities.length)} entities, ${thousands(dataset.statements.length)} statements of valid + test)`,
        ...paths,
        inputBytes: bytes,
      };
    }
    case "generated": {
      const { entities, statements, seed } = source;
      // Cached by size, seed and the generator's own code, so a changed generator regenerates.
      const generatorCode = await readFile(fileURLToPath(new URL("./generator.js", import.meta.url)));
      const version = createHash("sha256").update(generatorCode).digest("hex").slice(0, 10);
      const label = `generated-${entities}x${statements}-seed${seed}`;
      const dir = args.dataDir ?? join(DEFAULT_DATA_CACHE, `${label}-${version}`);
      const marker = join(dir, "complete.json");
      let files = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
      if (existsSync(marker)) {
        console.log(`using generated files in ${dir}`);
      } else {
        console.log(
          `generating ${thousands(entities)} entities and ${thousands(statements)} statements into ${dir} ...`,
        );
        const started = performance.now();
        const written = await writeGraphJsonl(dir, { entities, statements, seed });
        files = { entities: written.entities, statements: written.statements };
        await writeFile(marker, JSON.stringify({ entities, statements, seed, version, bytes: written.bytes }) + "\n");
        console.log(`generated in ${seconds(performance.now() - started)}`);
      }
      const bytes = (await stat(files.entities)).size + (await stat(files.statements)).size;
      return {
        label,
        description: `generated graph, ${thousands(entities)} entities, ${thousands(statements)} statements, seed ${seed}`,
        ...files,
        inputBytes: bytes,
      };
    }
  }
}

/** The commit the figures belong to, and whether src/ had uncommitted changes; "unknown" outside git. */
function gitRevision(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "src"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() !== "";
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return "unknown";
  }
}

await main();

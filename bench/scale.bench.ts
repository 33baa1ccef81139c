/**
 * `npm run bench:scale`: how far one machine goes
 * ===========================================================
 * Builds the generated graph at two sizes, the reference (1M entities / 10M statements, the goals'
 * size) and the scale size (10M / 100M by default, times --scale), and reports them side by side
 * in one report: build time by phase, the build's peak RSS, bytes per structure, snapshot size,
 * save and open time, and the distinct-query stream (bare process, no baselines).
 *
 * How: the JSON Lines are generated once per size by tools/generator.ts (streamed: memory is
 * O(entities) for the id strings, never O(statements)) into --dir (default QUIVER_SCALE_DIR, else
 * /tmp/quiver-scale), and kept there for the next run (the generator's cache marker: bench/data.ts).
 * Before generating, the free space of --dir is checked against the estimate below and the bench
 * refuses with a sentence when it is short. Each size is then measured in a child process of its
 * own (`npm run bench`'s main, --only stream,snapshot, on the files), so one size's heap never
 * weighs on the other's figures and the peak RSS (VmHWM of /proc/self/status, read right after the
 * build: the kernel's figure, not the heap's) is the build's alone.
 *
 * Disk: about ENTITY_LINE_BYTES an entity and STATEMENT_LINE_BYTES a statement of JSON Lines (the
 * generator's lines with their fingerprints: 1M / 10M writes 1.3 GB), plus the snapshot the child
 * saves in the temp dir (SNAPSHOT_BYTES_PER_STATEMENT): at 10M / 100M about 14 GB and 4 GB.
 *
 * Output: a summary on stdout, progress on stderr, bench/results/scale-<size>.json and .html (--out),
 * beside each child's own results and report (scale-<size>-<entities>x<statements>-run.json).
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, statfs, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { escapeXml } from "./charts.js";
import { generatedFiles } from "./data.js";
import { count, heading, mib, num, printTable, progress, secondsOf } from "./format.js";
import { REPORT_STYLE, table } from "./html-report.js";
import { benchOptions } from "./options.js";
import type { BenchResults, LatencyRow } from "./results.js";

/** The reference size: the goals' (1M / 10M). */
const REFERENCE = { entities: 1_000_000, statements: 10_000_000 };
/** The scale size at --scale 1: the issue's 10M / 100M. */
const FULL_SCALE = { entities: 10_000_000, statements: 100_000_000 };
/** JSON Lines bytes per generated entity and statement (fingerprints given), with some room. */
const ENTITY_LINE_BYTES = 110;
const STATEMENT_LINE_BYTES = 135;
/** The snapshot the child saves (and deletes) while it runs: about 35 B a statement at 10M / 100M. */
const SNAPSHOT_BYTES_PER_STATEMENT = 40;
/** Heap the child may grow to (the graph's typed arrays are outside it). */
const CHILD_OLD_SPACE_MB = 16_384;
const SEED = 1;

const USAGE = `
npm run bench:scale -- [options]

Generates, builds and measures the graph at the reference size (1M / 10M) and at the scale size
(10M entities / 100M statements times --scale), one child process each, and reports them side by side.

  --scale X        the scale size is X times 10M / 100M (default 1; 0.2 is 2M / 20M)
  --dir DIR        where the JSON Lines are generated and kept (default $QUIVER_SCALE_DIR, else
                   /tmp/quiver-scale); at --scale 1 it needs about 14 GB free
  --no-reference   only the scale size
  --queries N      distinct queries per stream case (default 2000)
  --rounds N       stream rounds, the first a warm-up (default 3)
  --out FILE       the report's JSON (default bench/results/scale-<entities>x<statements>.json),
                   the HTML beside it
`;

const OPTIONS = {
  scale: { type: "string", default: "1" },
  dir: { type: "string" },
  "no-reference": { type: "boolean", default: false },
  queries: { type: "string", default: "2000" },
  rounds: { type: "string", default: "3" },
  out: { type: "string" },
} as const;

interface Size {
  entities: number;
  statements: number;
}

/** One size's figures, read from its child's results. */
export interface ScaleRun {
  entities: number;
  statements: number;
  inputBytes: number;
  buildMs: number;
  phases: { phase: string; label: string; ms: number }[];
  peakRssBytes: number | null;
  /** Heap + external memory the built graph holds (after full GCs). */
  heldBytes: number;
  /** graph.stats().bytes. */
  bytes: Record<string, number>;
  snapshot: { fileBytes: number; saveMs: number; openMs: number } | null;
  stream: LatencyRow[];
  loadAverage: number[];
}

export interface ScaleResults {
  startedAt: string;
  environment: { node: string; cpus: number; totalMemBytes: number; loadAtStart: number[]; loadAtEnd: number[] };
  scale: number;
  runs: ScaleRun[];
  errors: string[];
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** Disk the JSON Lines of `size` need, and the child's snapshot. */
export function diskNeeded(size: Size): { input: number; snapshot: number } {
  return {
    input: size.entities * ENTITY_LINE_BYTES + size.statements * STATEMENT_LINE_BYTES,
    snapshot: size.statements * SNAPSHOT_BYTES_PER_STATEMENT,
  };
}

async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** Runs `npm run bench`'s main on the files in a child; resolves to its results. */
async function measure(files: { entities: string; statements: string }, out: string, q: string, r: string) {
  const main = fileURLToPath(new URL("./main.js", import.meta.url));
  const args = [
    "--expose-gc",
    `--max-old-space-size=${CHILD_OLD_SPACE_MB}`,
    main,
    "--entities-file",
    files.entities,
    "--statements-file",
    files.statements,
    "--only",
    "stream,snapshot",
    "--host-heap",
    "0",
    "--naive-queries",
    "0",
    "--queries",
    q,
    "--rounds",
    r,
    "--out",
    out,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
  const code = await new Promise<number | null>((done) => child.on("exit", (c) => done(c)));
  // A part that failed still writes its results (exit 1); no results at all is a failed size.
  const results = JSON.parse(await readFile(out, "utf8").catch(() => "null")) as BenchResults | null;
  if (results === null) throw new Error(`the child measuring ${files.statements} exited ${code} without results`);
  return results;
}

function runOf(r: BenchResults): ScaleRun {
  return {
    entities: r.build.entities,
    statements: r.build.statements,
    inputBytes: r.build.inputBytes,
    buildMs: r.build.totalMs,
    phases: r.build.phases,
    peakRssBytes: r.build.peakRssBytes ?? null,
    heldBytes: r.build.held.heapUsed + r.build.held.external,
    bytes: r.build.bytes,
    snapshot:
      r.snapshot === null
        ? null
        : { fileBytes: r.snapshot.fileBytes, saveMs: r.snapshot.saveMs, openMs: r.snapshot.openMs },
    stream: r.stream?.rows.filter((x) => x.impl === "quiver") ?? [],
    loadAverage: r.environment.loadAtEnd,
  };
}

const sizeLabel = (x: Size) => `${count(x.entities)} / ${count(x.statements)}`;

/** The rows of the side-by-side tables: [figure, value per run...] (and the last run over the first). */
export function scaleTables(runs: readonly ScaleRun[]): { summary: string[][]; stream: string[][] } {
  const ratio = (a: number, b: number) => (runs.length > 1 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "");
  const last = runs[runs.length - 1]!;
  const first = runs[0]!;
  const line = (figure: string, value: (x: ScaleRun) => number | null, show: (v: number) => string): string[] => {
    const a = value(first);
    const b = value(last);
    return [
      figure,
      ...runs.map((x) => {
        const v = value(x);
        return v === null ? "–" : show(v);
      }),
      ...(runs.length > 1 ? [a === null || b === null ? "" : ratio(b, a)] : []),
    ];
  };
  const summary: string[][] = [
    line("JSON Lines, MiB", (x) => x.inputBytes, mib),
    line("build, s", (x) => x.buildMs, secondsOf),
  ];
  for (const phase of first.phases)
    summary.push(
      line(`  ${phase.phase}, s`, (x) => x.phases.find((p) => p.phase === phase.phase)?.ms ?? null, secondsOf),
    );
  summary.push(
    line("peak RSS of the build, MiB", (x) => x.peakRssBytes, mib),
    line("graph held (heap + external), MiB", (x) => x.heldBytes, mib),
    line(
      "  per entity + 10 statements, B",
      (x) => x.heldBytes / x.entities,
      (v) => num(v, 0),
    ),
  );
  for (const key of Object.keys(first.bytes)) summary.push(line(`  ${key}, MiB`, (x) => x.bytes[key] ?? null, mib));
  summary.push(
    line("snapshot file, MiB", (x) => x.snapshot?.fileBytes ?? null, mib),
    line("snapshot save, s", (x) => x.snapshot?.saveMs ?? null, secondsOf),
    line("snapshot open, s", (x) => x.snapshot?.openMs ?? null, secondsOf),
  );
  const stream: string[][] = first.stream.map((row) => {
    const of = (x: ScaleRun) => x.stream.find((y) => y.case === row.case);
    return [
      row.case,
      ...runs.flatMap((x) => {
        const y = of(x);
        return y === undefined ? ["–", "–"] : [num(y.p50us), num(y.p99us)];
      }),
      ...(runs.length > 1
        ? [
            (() => {
              const a = of(first);
              const b = of(last);
              return a === undefined || b === undefined
                ? ""
                : `${ratio(b.p50us, a.p50us)} / ${ratio(b.p99us, a.p99us)}`;
            })(),
          ]
        : []),
    ];
  });
  return { summary, stream };
}

function renderScale(r: ScaleResults): string {
  const { summary, stream } = scaleTables(r.runs);
  const heads = r.runs.map((x) => sizeLabel(x));
  const ratioHead = r.runs.length > 1 ? ["last / first"] : [];
  const env = r.environment;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Quiver at scale</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1>Quiver at scale: ${escapeXml(heads.join(" and "))} (entities / statements)</h1>
<p class="meta">${escapeXml(r.startedAt)}; node ${escapeXml(env.node)}, ${env.cpus} CPUs, ${num(env.totalMemBytes / 2 ** 30, 0)} GiB; load average ${env.loadAtStart.map((x) => num(x)).join(" ")} at the start, ${env.loadAtEnd.map((x) => num(x)).join(" ")} at the end${(env.loadAtEnd[0] ?? 0) > env.cpus ? " (busy: every time here is noisy)" : ""}.</p>
<p>Each size built from its JSON Lines in a child process of its own (generated by tools/generator.ts, fingerprints given);
peak RSS is the kernel's VmHWM right after the build. The stream: each distinct query once per round, bare process.</p>
<h2>Build, memory, snapshot</h2>
${table(["figure", ...heads, ...ratioHead], summary)}
<h2>Distinct-query stream, p50 / p99 µs</h2>
${table(["case", ...heads.flatMap((h) => [`${h} p50`, `${h} p99`]), ...(r.runs.length > 1 ? ["last / first p50 / p99"] : [])], stream)}
${r.errors.length === 0 ? "" : `<p class="missing">${escapeXml(r.errors.join("; "))}</p>`}
</body>
</html>
`;
}

async function main(): Promise<void> {
  const values = benchOptions(process.argv.slice(2), OPTIONS, USAGE);
  const scale = Number(values.scale);
  if (!(scale > 0) || !Number.isFinite(scale)) fail(`--scale must be a positive number, got ${values.scale}`);
  const scaled: Size = {
    entities: Math.round(FULL_SCALE.entities * scale),
    statements: Math.round(FULL_SCALE.statements * scale),
  };
  const sizes: Size[] = values["no-reference"] ? [scaled] : [REFERENCE, scaled];
  // The same size twice is one run.
  if (sizes.length === 2 && sizes[0]!.entities === scaled.entities && sizes[0]!.statements === scaled.statements)
    sizes.pop();
  const dir = resolve(values.dir ?? process.env["QUIVER_SCALE_DIR"] ?? "/tmp/quiver-scale");
  const out = resolve(values.out ?? join("bench", "results", `scale-${scaled.entities}x${scaled.statements}.json`));
  await mkdir(dir, { recursive: true });
  await mkdir(dirname(out), { recursive: true });

  // Disk first: the inputs not yet generated, and the largest snapshot, must fit.
  const files = sizes.map((size) => {
    const at = join(dir, `generated-${size.entities}x${size.statements}-seed${SEED}`);
    return { size, dir: at, cached: existsSync(join(at, "complete.json")) };
  });
  const inputs = files.filter((f) => !f.cached).reduce((sum, f) => sum + diskNeeded(f.size).input, 0);
  const largestSnapshot = Math.max(...sizes.map((s) => diskNeeded(s).snapshot));
  const free = await freeBytes(dir);
  progress(
    `disk: ${num((inputs + largestSnapshot) / 1e9, 1)} GB needed (JSON Lines to generate ${num(inputs / 1e9, 1)} GB in ${dir}, a snapshot of ${num(largestSnapshot / 1e9, 1)} GB in the temp dir); ${num(free / 1e9, 1)} GB free`,
  );
  if (free < inputs + largestSnapshot)
    fail(
      `Not enough free disk in ${dir}: generating and measuring ${sizes.map(sizeLabel).join(" and ")} needs about ${num((inputs + largestSnapshot) / 1e9, 1)} GB and ${num(free / 1e9, 1)} GB are free; free some, give --dir on a larger disk, or a smaller --scale.`,
    );

  const results: ScaleResults = {
    startedAt: new Date().toISOString(),
    environment: {
      node: process.version,
      cpus: cpus().length,
      totalMemBytes: totalmem(),
      loadAtStart: loadavg(),
      loadAtEnd: loadavg(),
    },
    scale,
    runs: [],
    errors: [],
  };
  for (const { size, dir: at } of files) {
    const { files: f } = await generatedFiles({ ...size, seed: SEED, dir: at });
    progress(`measuring ${sizeLabel(size)} in a child process`);
    try {
      const r = await measure(
        f,
        out.replace(/\.json$/, `-${size.entities}x${size.statements}-run.json`),
        values.queries,
        values.rounds,
      );
      results.runs.push(runOf(r));
      for (const e of r.errors) results.errors.push(`${sizeLabel(size)}: ${e.part}: ${e.message}`);
    } catch (e) {
      results.errors.push(`${sizeLabel(size)}: ${(e as Error).message}`);
      process.exitCode = 1;
    }
  }
  results.environment.loadAtEnd = loadavg();
  if (results.runs.length > 0) printScale(results);
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(out.replace(/\.json$/, ".html"), renderScale(results));
  console.log(`\nresults: ${out}\nreport:  ${out.replace(/\.json$/, ".html")}`);
}

function printScale(r: ScaleResults): void {
  const { summary, stream } = scaleTables(r.runs);
  const heads = r.runs.map((x) => sizeLabel(x));
  const more = r.runs.length > 1;
  heading(`Quiver at scale: ${heads.join(" and ")} (entities / statements), one child process each`);
  printTable(
    [{ header: "figure" }, ...heads.map((header) => ({ header })), ...(more ? [{ header: "x" }] : [])],
    summary,
  );
  heading("Distinct-query stream, p50 / p99 µs (bare process)");
  printTable(
    [
      { header: "case" },
      ...r.runs.flatMap((_, i) => [{ header: `p50 ${i + 1}` }, { header: `p99 ${i + 1}` }]),
      ...(more ? [{ header: "x p50 / p99" }] : []),
    ],
    stream,
  );
  console.log(`sizes: ${heads.map((h, i) => `${i + 1} = ${h}`).join(", ")}`);
  const load = r.environment.loadAtEnd[0] ?? 0;
  if (load > r.environment.cpus)
    console.log(`load average at the end ${num(load)}, above ${r.environment.cpus} CPUs: the times are noisy`);
  for (const e of r.errors) console.log(`FAILED: ${e}`);
}

await main();

/**
 * `quiver build`: every path problem is reported at once, naming the option and the path, before
 * any loading (no progress line is printed); a good build reports what it wrote.
 * (Serving the snapshot it writes: test/cli/snapshot.test.ts.)
 */

import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadGraph, openSnapshot } from "../../src/index.js";
import { MAIN, type QuiverRun as Run, quiverRun, quiverRuns, tempFiles } from "../support/cli.js";

const FIXTURES = join(process.cwd(), "fixtures");
const ENTITIES = join(FIXTURES, "entities.jsonl");
const STATEMENTS = join(FIXTURES, "statements.jsonl");

test("a missing input, a folder as input, an --out that cannot be written: exit 1 at once, path named", async () => {
  const files = await tempFiles({ "x.txt": "" });
  const here = join(files["x.txt"]!, "..");
  const cases = [
    [
      ["--entities", join(here, "nope.jsonl"), "--statements", STATEMENTS],
      `--entities ${join(here, "nope.jsonl")}: no such file or folder`,
    ],
    [["--entities", ENTITIES, "--statements", FIXTURES], `--statements ${FIXTURES}: is a folder; give a file`],
    [
      ["--entities", ENTITIES, "--statements", STATEMENTS, "--out", here],
      `--out ${here}: is a folder; give the path of the file to write`,
    ],
    [
      ["--entities", ENTITIES, "--statements", STATEMENTS, "--out", join(here, "missing", "g.snap")],
      `--out ${join(here, "missing", "g.snap")}: the folder ${join(here, "missing")} does not exist`,
    ],
    [
      ["--entities", ENTITIES, "--statements", STATEMENTS, "--out", join(files["x.txt"]!, "g.snap")],
      `--out ${join(files["x.txt"]!, "g.snap")}: ${files["x.txt"]} is not a folder`,
    ],
  ] as const;
  const withOuts = cases.map(([args]) =>
    args.includes("--out") ? [...args] : [...args, "--out", join(here, "g.snap")],
  );
  const runs = await quiverRuns(withOuts.map((withOut) => ["build", ...withOut]));
  for (const [k, [, message]] of cases.entries()) {
    const withOut = withOuts[k]!;
    const run = runs[k]!;
    assert.is(run.code, 1, withOut.join(" "));
    assert.is(run.stderr, `quiver build: ${message}\n`);
  }
});

test("usage errors exit 2; a good build says what it wrote", async () => {
  const files = await tempFiles({ "x.txt": "" });
  const out = join(files["x.txt"]!, "..", "g.snap");
  // The two usage errors are refused before anything is written, so the good build may run beside them.
  const [partial, stray, built] = (await quiverRuns([
    ["build", "--entities", ENTITIES, "--out", out],
    ["build", "extra", "--entities", ENTITIES, "--statements", STATEMENTS, "--out", out],
    ["build", "--entities", ENTITIES, "--statements", STATEMENTS, "--out", out, "--quiet"],
  ])) as [Run, Run, Run];
  assert.is(partial.code, 2);
  assert.match(partial.stderr, /--entities, --statements and --out are all required/);
  assert.is(stray.code, 2);
  assert.is(built.code, 0, built.stderr);
  assert.match(built.stderr, /^ready: 573 entities, 566 statements/);
  // The summary ends with the process's resident peak (what the build needed of the host).
  const peak = /, rss ([\d.]+) MB, peak rss ([\d.]+) MB$/m.exec(built.stderr);
  assert.ok(peak !== null, built.stderr);
  assert.ok(Number(peak[2]) >= Number(peak[1]), "the peak is at least what is resident now");
  assert.match(built.stderr, /wrote .*g\.snap: 0\.\d MB/);
  assert.not.match(built.stderr, /reading/, "--quiet: no progress lines");
});

test("--threads N builds the same snapshot as one thread; a count that is not 1 to 256 is a usage error", async () => {
  const files = await tempFiles({ "x.txt": "" });
  const dir = join(files["x.txt"]!, "..");
  const bads = ["0", "x", "1.5", "257"];
  const threadCounts = ["1", "3"];
  const source = ["--entities", ENTITIES, "--statements", STATEMENTS];
  const runs = await quiverRuns([
    ...bads.map((bad) => ["build", ...source, "--out", join(dir, "g.snap"), "--threads", bad]),
    ...threadCounts.map((threads) => [
      "build",
      ...source,
      "--out",
      join(dir, `t${threads}.snap`),
      "--threads",
      threads,
      "--quiet",
    ]),
  ]);
  for (const [k, bad] of bads.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 2, bad);
    assert.match(run.stderr, /--threads must be a whole number from 1 to 256/);
  }
  const tags: string[] = [];
  for (const [k, threads] of threadCounts.entries()) {
    const out = join(dir, `t${threads}.snap`);
    const run = runs[bads.length + k]!;
    assert.is(run.code, 0, run.stderr);
    tags.push((await openSnapshot(out)).contentTag);
  }
  assert.is(tags[1], tags[0]);
});

test("- reads stdin and .gz is gunzipped, for build and for the query commands; both from stdin is a usage error", async () => {
  const files = await tempFiles({ "x.txt": "" });
  const here = join(files["x.txt"]!, "..");
  const gz = join(here, "statements.jsonl.gz");
  await writeFile(gz, gzipSync(await readFile(STATEMENTS)));
  const out = join(here, "piped.snap");
  // Three independent commands (the last is refused before it reads or writes anything), run together.
  const [built, searched, twice] = await Promise.all([
    withStdin(["build", "--entities", "-", "--statements", gz, "--out", out], await readFile(ENTITIES)),
    withStdin(
      ["search", "--entities", ENTITIES, "--statements", "-", "--q", "trittin", "--quiet"],
      await readFile(STATEMENTS),
    ),
    quiverRun(["build", "--entities", "-", "--statements", "-", "--out", out]),
  ]);
  assert.is(built.code, 0, built.stderr);
  assert.match(built.stderr, /reading entities stdin: 573 lines/);
  const demo = await loadGraph({ entities: ENTITIES, statements: STATEMENTS });
  assert.is((await openSnapshot(out)).stats().contentTag, demo.stats().contentTag);

  assert.is(searched.code, 0, searched.stderr);
  assert.match(searched.stdout, /"rawIdentifier":"Jürgen Trittin"/);

  assert.is(twice.code, 2);
  assert.match(twice.stderr, /cannot both be - \(stdin\)/);
});

/** Runs `quiver ARGS` with `input` on its stdin. */
function withStdin(args: string[], input: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test.run();

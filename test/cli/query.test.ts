/**
 * `quiver search` and `quiver statements`, run as a user runs them, against the demo graph: the
 * items printed are the engine's pages (same parameters, same order), `--all` prints every match
 * once, a printed cursor continues in the next run, a snapshot and its JSON Lines answer alike, bad
 * parameters are refused before the graph is loaded, and a reader that stops early is no error.
 */

import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type Graph, loadGraph } from "../../src/index.js";
import { CLI_CURSOR_SECRET } from "../../src/cli/query.js";
import { jsonLines, type QuiverRun as Run, quiverRun, quiverRuns, runQuiver, tempFiles } from "../support/cli.js";

const FIXTURES = join(process.cwd(), "fixtures");
const JSONL = ["--entities", join(FIXTURES, "entities.jsonl"), "--statements", join(FIXTURES, "statements.jsonl")];

let graph: Graph;
let snapshot = "";

test.before(async () => {
  graph = await loadGraph({ entities: JSONL[1]!, statements: JSONL[3]!, cursorSecret: CLI_CURSOR_SECRET });
  const { dir } = await tempDir();
  snapshot = join(dir, "demo.snap");
  const built = await quiverRun(["build", ...JSONL, "--out", snapshot, "--quiet"]);
  assert.is(built.code, 0, built.stderr);
});

/** Every item of a query, following the engine's cursors. */
function everything<T>(page: (cursor: string | undefined) => { items: T[]; nextCursor: string | null }): T[] {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const p = page(cursor);
    items.push(...p.items);
    cursor = p.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

test("search: the engine's page, with the endpoint's parameter names", async () => {
  const cases = [
    [["--q", "united"], { q: "united" }],
    [["--q", "united", "--limit", "3"], { q: "united", limit: 3 }],
    [["--q", "a", "--type", "1", "--limit", "100"], { q: "a", type: "1", limit: 100 }],
    [["--q", "KÜNAST"], { q: "KÜNAST" }],
  ] as const;
  const runs = await quiverRuns(cases.map(([args]) => ["search", snapshot, ...args]));
  for (const [k, [args, params]] of cases.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 0, run.stderr);
    assert.equal(jsonLines(run.stdout), graph.search(params).items, args.join(" "));
  }
});

test("search --all: every match once, in order; without it the next cursor is printed and works in a new run", async () => {
  const all = everything((cursor) => graph.search({ q: "e", limit: 100, cursor }));
  assert.ok(all.length > 200);
  const [run, small, first] = (await quiverRuns([
    ["search", snapshot, "--q", "e", "--all"],
    ["search", snapshot, "--q", "e", "--all", "--limit", "7"],
    ["search", snapshot, "--q", "e", "--limit", "5"],
  ])) as [Run, Run, Run];
  assert.is(run.code, 0, run.stderr);
  assert.equal(jsonLines(run.stdout), all);
  assert.not.match(run.stderr, /next page/);
  assert.equal(jsonLines(small.stdout), all, "--limit sets the page size of --all");

  assert.equal(jsonLines(first.stdout), all.slice(0, 5));
  const cursor = /^next page: --cursor (\S+)$/m.exec(first.stderr)?.[1];
  assert.ok(cursor, first.stderr);
  // Another secret (QUIVER_CURSOR_SECRET, as a server would use) does not take this cursor.
  const [second, foreign] = await Promise.all([
    quiverRun(["search", snapshot, "--q", "e", "--limit", "5", "--cursor", cursor]),
    quiverRun(["search", snapshot, "--q", "e", "--cursor", cursor], { QUIVER_CURSOR_SECRET: "the server's secret" }),
  ]);
  assert.is(second.code, 0, second.stderr);
  assert.equal(jsonLines(second.stdout), all.slice(5, 10));

  assert.is(foreign.code, 2);
  assert.match(foreign.stderr, /^quiver search: --cursor: /);
});

test("statements: filters, --all over the whole graph, and JSON Lines input answering as the snapshot does", async () => {
  const filters = {
    subjectEntityId: "yago:Jürgen_Trittin",
    objectEntityId: "yago:Renate_Künast",
  };
  const [married, both, every, fromJsonLines, unknown] = (await quiverRuns([
    ["statements", snapshot, "--predicateEntityId", "yago-rel:isMarriedTo"],
    ["statements", snapshot, "--subjectEntityId", filters.subjectEntityId, "--objectEntityId", filters.objectEntityId],
    ["statements", snapshot, "--all"],
    ["statements", ...JSONL, "--all", "--quiet"],
    ["statements", snapshot, "--objectEntityId", "no such entity"],
  ])) as [Run, Run, Run, Run, Run];
  assert.equal(jsonLines(married.stdout), graph.statements({ predicateEntityId: "yago-rel:isMarriedTo" }).items);
  assert.equal(jsonLines(both.stdout), graph.statements(filters).items);
  assert.is(jsonLines(both.stdout).length, 1);

  assert.equal(
    jsonLines(every.stdout),
    everything((cursor) => graph.statements({ limit: 200, cursor })),
  );
  assert.is(jsonLines(every.stdout).length, graph.statementCount);
  assert.is(fromJsonLines.code, 0, fromJsonLines.stderr);
  assert.is(fromJsonLines.stdout, every.stdout);
  assert.is(fromJsonLines.stderr, "", "--quiet: no progress");
  assert.equal([unknown.code, unknown.stdout], [0, ""]);
});

test("search --order score and --count: the engine's order, the exact total on stderr (stdout stays JSON Lines)", async () => {
  const cases = [
    [["--q", "e", "--order", "score"], { q: "e", order: "score" }],
    [["--q", "united", "--order", "score", "--limit", "100"], { q: "united", order: "score", limit: 100 }],
    [["--q", "a", "--type", "0", "--order", "name"], { q: "a", type: "0", order: "name" }],
  ] as const;
  const runs = await quiverRuns([
    ...cases.map(([args]) => ["search", snapshot, ...args]),
    ["search", snapshot, "--q", "e", "--order", "score", "--all", "--count"],
    ["search", snapshot, "--q", "e", "--limit", "3", "--count"],
    ["search", snapshot, "--q", "no such text anywhere", "--count"],
    ["statements", snapshot, "--predicateEntityId", "yago-rel:isMarriedTo", "--count"],
    ["statements", snapshot, "--count", "--limit", "1"],
  ]);
  for (const [k, [args, params]] of cases.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 0, run.stderr);
    assert.equal(jsonLines(run.stdout), graph.search(params).items, args.join(" "));
    assert.not.match(run.stderr, /total/, "no total unless --count");
  }
  const [walked, one, none, statements, every] = runs.slice(cases.length) as [Run, Run, Run, Run, Run];
  const all = everything((cursor) => graph.search({ q: "e", order: "score", limit: 100, cursor }));
  assert.is(walked.code, 0, walked.stderr);
  assert.equal(jsonLines(walked.stdout), all);
  assert.is(walked.stderr, `total: ${all.length}\n`);
  assert.is(jsonLines(one.stdout).length, 3);
  assert.match(one.stderr, new RegExp(`^next page: --cursor \\S+\\ntotal: ${all.length}\\n$`));
  assert.equal([none.code, none.stdout, none.stderr], [0, "", "total: 0\n"]);
  const married = everything((cursor) => graph.statements({ predicateEntityId: "yago-rel:isMarriedTo", cursor }));
  assert.match(statements.stderr, new RegExp(`total: ${married.length}\\n$`));
  assert.match(every.stderr, new RegExp(`total: ${graph.statementCount}\\n$`));
});

test("bad parameters: the endpoint's sentence, exit 2, before the graph is read", async () => {
  // The data file is broken: had the graph been read first, its error would be the one printed.
  const files = await tempFiles({ "bad.jsonl": "not json\n", "s.jsonl": "" });
  const data = ["--entities", files["bad.jsonl"]!, "--statements", files["s.jsonl"]!];
  const cases = [
    [
      ["search", ...data, "--q", "x", "--limit", "0"],
      "--limit: limit must be a whole number from 1 to 100, in plain digits (no sign, point, exponent or leading zero); got 0.",
    ],
    [
      ["search", ...data, "--q", "x", "--limit", "ten"],
      '--limit: limit must be a whole number from 1 to 100, in plain digits (no sign, point, exponent or leading zero); got "ten".',
    ],
    [["search", ...data, "--q", ""], "--q: q must not be empty"],
    [["search", ...data], "--q: q is required"],
    [["search", ...data, "--q", "x", "--type", "9"], '--type: type must be one of "0" to "7"; got "9".'],
    [["search", ...data, "--q", "x", "--cursor", "nonsense"], "--cursor: "],
    [
      ["statements", ...data, "--limit", "201"],
      "--limit: limit must be a whole number from 1 to 200, in plain digits (no sign, point, exponent or leading zero); got 201.",
    ],
    [["statements", ...data, "--subjectEntityId", ""], "--subjectEntityId: subjectEntityId must not be empty"],
    [["search", ...data, "--q", "x", "--order", "rank"], "--order: "],
  ] as const;
  const runs = await quiverRuns([...cases.map(([args]) => args), ["search", ...data, "--q", "x"]]);
  for (const [k, [args, message]] of cases.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 2, args.join(" "));
    assert.ok(run.stderr.startsWith(`quiver ${args[0]}: ${message}`), run.stderr);
    assert.is(run.stdout, "");
  }
  const broken = runs[cases.length]!;
  assert.is(broken.code, 1);
  assert.ok(broken.stderr.includes(`${files["bad.jsonl"]}:1: `), broken.stderr);
});

test("the graph: a SNAPSHOT or both JSON Lines files, checked before loading", async () => {
  const [none, both, half, missing, folder] = (await quiverRuns([
    ["search", "--q", "x"],
    ["statements", snapshot, ...JSONL],
    ["statements", JSONL[0]!, JSONL[1]!],
    ["search", `${snapshot}.missing`, "--q", "x"],
    ["search", FIXTURES, "--q", "x"],
  ])) as [Run, Run, Run, Run, Run];
  assert.is(none.code, 2);
  assert.match(none.stderr, /give the graph: a SNAPSHOT file, or --entities FILE and --statements FILE/);
  assert.is(both.code, 2);
  assert.is(half.code, 2);
  assert.is(missing.code, 1);
  assert.ok(missing.stderr.includes(`${snapshot}.missing: no such file`), missing.stderr);
  assert.is(folder.code, 1);
  assert.ok(folder.stderr.includes(`${FIXTURES}: is a folder`), folder.stderr);
});

test("a reader that stops early (| head) ends the command quietly with 0", async () => {
  const child = runQuiver(["statements", snapshot, "--all", "--limit", "1"]);
  child.process.stdout!.once("data", () => child.process.stdout!.destroy());
  assert.is(await child.exited, 0, child.stderr());
  assert.is(child.stderr(), "");
});

async function tempDir(): Promise<{ dir: string }> {
  const files = await tempFiles({ ".keep": "" });
  return { dir: join(files[".keep"]!, "..") };
}

test.run();

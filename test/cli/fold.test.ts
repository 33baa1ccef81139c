/**
 * `--fold accents` as users run it: on `quiver build` (kept in the snapshot, shown by `quiver info`,
 * used by `quiver search` on it), on the query commands' JSON Lines input, and on `quiver serve`
 * (the HTTP search folds accents, and still does after a SIGHUP reload, which loads in a worker
 * thread). Without it accents are kept (a snapshot built without it, searched the same way). `--fold` beside a snapshot, or with another value, is a
 * usage error (exit 2).
 */

import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  eventOf,
  jsonLines,
  listening,
  type QuiverRun as Run,
  quiverRuns,
  runQuiver,
  stop,
  tempFiles,
} from "../support/cli.js";

const NAMES = ["Zürich", "Zurich Airport", "Malmö", "Dürer", "Ångström", "Plain"];

let data: string[] = [];
let dir = "";

test.before(async () => {
  const files = await tempFiles({
    "e.jsonl": `${NAMES.map((n, i) => JSON.stringify({ entityId: `e${i}`, rawIdentifier: n, type: "0", sourceType: "t" })).join("\n")}\n`,
    "s.jsonl": '{"subjectEntityId":"e0","predicateEntityId":"e5","objectEntityId":"e2"}\n',
  });
  data = ["--entities", files["e.jsonl"]!, "--statements", files["s.jsonl"]!];
  dir = join(files["e.jsonl"]!, "..");
});

const names = (stdout: string) => jsonLines(stdout).map((e) => e.rawIdentifier);

test("build --fold accents: kept in the snapshot (quiver info says so), and search on it folds accents", async () => {
  const folded = join(dir, "accents.snap");
  const plain = join(dir, "case.snap");
  const builds = await quiverRuns([
    ["build", ...data, "--out", folded, "--fold", "accents", "--quiet"],
    ["build", ...data, "--out", plain, "--quiet"],
  ]);
  assert.is(builds[0]!.code, 0);
  assert.is(builds[1]!.code, 0);
  // Every command below only reads the two snapshots: they run together.
  const cases = [
    [folded, ["Zürich", "Zurich Airport"]],
    [plain, ["Zurich Airport"]],
  ] as const;
  const runs = await quiverRuns([
    ...cases.map(([snapshot]) => ["search", snapshot, "--q", "zurich"]),
    ["search", folded, "--q", "MALMO"],
    ["search", plain, "--q", "malmo"],
    ["info", folded],
    ["info", plain],
    ["info", folded, "--json"],
    ["dump", folded, "--out", join(dir, "dumped")],
  ]);
  for (const [k, [snapshot, want]] of cases.entries()) {
    const run = runs[k]!;
    assert.is(run.code, 0, run.stderr);
    assert.equal(names(run.stdout), want, snapshot);
  }
  const [malmo, plainMalmo, info, plainInfo, jsonInfo, dumped] = runs.slice(cases.length) as [
    Run,
    Run,
    Run,
    Run,
    Run,
    Run,
  ];
  assert.equal(names(malmo.stdout), ["Malmö"]);
  assert.equal(names(plainMalmo.stdout), []);
  assert.match(info.stdout, /^ {2}fold {9}accents$/m);
  assert.match(plainInfo.stdout, /^ {2}fold {9}case$/m);
  assert.is(JSON.parse(jsonInfo.stdout).fold, "accents");
  assert.is(dumped.code, 0, dumped.stderr);
  assert.match(dumped.stderr, /^note: this graph folds accents; build it again with --fold accents$/m);
});

test("the query commands: --fold on JSON Lines input; refused beside a snapshot; a bad value is a usage error", async () => {
  const snapshot = join(dir, "for-refusal.snap");
  const [run, kept, built] = (await quiverRuns([
    ["search", ...data, "--fold", "accents", "--q", "durer", "--quiet"],
    ["search", ...data, "--fold", "case", "--q", "durer", "--quiet"],
    ["build", ...data, "--out", snapshot, "--quiet"],
  ])) as [Run, Run, Run];
  assert.is(run.code, 0, run.stderr);
  assert.equal(names(run.stdout), ["Dürer"]);
  assert.equal([kept.code, kept.stdout], [0, ""]);
  assert.is(built.code, 0);
  const refusals = [
    ["entity", snapshot, "--fold", "case", "e0"],
    ["search", ...data, "--fold", "Accents", "--q", "x"],
    ["build", ...data, "--out", join(dir, "x.snap"), "--fold", "none"],
  ];
  const bads = await quiverRuns(refusals);
  for (const [k, args] of refusals.entries()) {
    const bad = bads[k]!;
    assert.is(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`);
    assert.match(bad.stderr, /--fold/);
  }
});

test("serve --fold accents: the HTTP search folds accents, and still does after a SIGHUP reload", async () => {
  const key = { QUIVER_API_KEYS: "sk_fold" };
  const child = runQuiver(["serve", "--port", "0", "--quiet", ...data, "--fold", "accents"], key);
  try {
    const url = await listening(child);
    const search = async (u: string, q: string) => {
      const r = await fetch(`${u}/graph/v1/search?q=${encodeURIComponent(q)}&count=true`, {
        headers: { "X-API-Key": "sk_fold" },
      });
      assert.is(r.status, 200);
      const body = (await r.json()) as { items: { rawIdentifier: string }[]; total: number };
      return [body.items.map((e) => e.rawIdentifier), body.total];
    };
    assert.equal(await search(url, "zurich"), [["Zürich", "Zurich Airport"], 2]);
    child.process.kill("SIGHUP");
    assert.ok(await eventOf(child, "reloaded", 15000), child.stdout());
    assert.equal(await search(url, "zurich"), [["Zürich", "Zurich Airport"], 2], "after the reload");
  } finally {
    assert.is(await stop(child), 0);
  }
  // The snapshot of the first test (built with --fold accents).
  const snapshot = join(dir, "accents.snap");
  for (const args of [
    ["serve", "--snapshot", snapshot, "--fold", "accents"],
    ["serve", "--fold", "ascii"],
  ]) {
    const bad = runQuiver(args);
    assert.is(await bad.exited, 2, args.join(" "));
    assert.match(bad.stderr(), /--fold/);
  }
});

test("help: build, serve and search name --fold (statements, entity and dump share search's graph options)", async () => {
  const commands = ["build", "serve", "search"];
  const helps = await quiverRuns(commands.map((command) => [command, "--help"]));
  for (const [k, command] of commands.entries()) {
    const help = helps[k]!;
    assert.match(help.stdout, /--fold case\|accents/, command);
  }
});

test.run();

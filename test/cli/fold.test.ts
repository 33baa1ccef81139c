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
import { eventOf, jsonLines, listening, quiverRun, runQuiver, stop, tempFiles } from "../support/cli.js";

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
  assert.is((await quiverRun(["build", ...data, "--out", folded, "--fold", "accents", "--quiet"])).code, 0);
  assert.is((await quiverRun(["build", ...data, "--out", plain, "--quiet"])).code, 0);
  for (const [snapshot, want] of [
    [folded, ["Zürich", "Zurich Airport"]],
    [plain, ["Zurich Airport"]],
  ] as const) {
    const run = await quiverRun(["search", snapshot, "--q", "zurich"]);
    assert.is(run.code, 0, run.stderr);
    assert.equal(names(run.stdout), want, snapshot);
  }
  assert.equal(names((await quiverRun(["search", folded, "--q", "MALMO"])).stdout), ["Malmö"]);
  assert.equal(names((await quiverRun(["search", plain, "--q", "malmo"])).stdout), []);
  const info = await quiverRun(["info", folded]);
  assert.match(info.stdout, /^ {2}fold {9}accents$/m);
  assert.match((await quiverRun(["info", plain])).stdout, /^ {2}fold {9}case$/m);
  assert.is(JSON.parse((await quiverRun(["info", folded, "--json"])).stdout).fold, "accents");
  const dumped = await quiverRun(["dump", folded, "--out", join(dir, "dumped")]);
  assert.is(dumped.code, 0, dumped.stderr);
  assert.match(dumped.stderr, /^note: this graph folds accents; build it again with --fold accents$/m);
});

test("the query commands: --fold on JSON Lines input; refused beside a snapshot; a bad value is a usage error", async () => {
  const run = await quiverRun(["search", ...data, "--fold", "accents", "--q", "durer", "--quiet"]);
  assert.is(run.code, 0, run.stderr);
  assert.equal(names(run.stdout), ["Dürer"]);
  const kept = await quiverRun(["search", ...data, "--fold", "case", "--q", "durer", "--quiet"]);
  assert.equal([kept.code, kept.stdout], [0, ""]);
  const snapshot = join(dir, "for-refusal.snap");
  assert.is((await quiverRun(["build", ...data, "--out", snapshot, "--quiet"])).code, 0);
  for (const args of [
    ["entity", snapshot, "--fold", "case", "e0"],
    ["search", ...data, "--fold", "Accents", "--q", "x"],
    ["build", ...data, "--out", join(dir, "x.snap"), "--fold", "none"],
  ]) {
    const bad = await quiverRun(args);
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
  for (const command of ["build", "serve", "search"]) {
    const help = await quiverRun([command, "--help"]);
    assert.match(help.stdout, /--fold case\|accents/, command);
  }
});

test.run();

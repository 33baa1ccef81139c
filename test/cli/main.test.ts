/**
 * The `quiver` command table: every command is listed, answers --help with its usage and exit 0,
 * and an unknown command or option is a usage error (exit 2).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type QuiverRun as Run, quiverRuns } from "../support/cli.js";

const COMMANDS = ["serve", "build", "info", "search", "statements", "dump", "convert"];

test("quiver --help lists every command; each command's --help shows its usage", async () => {
  const runs = await quiverRuns([
    ["--help"],
    ...COMMANDS.map((name) => [name, "--help"]),
    ["build", "--help"],
    ["help", "build"],
  ]);
  const help = runs[0]!;
  assert.is(help.code, 0);
  for (const [k, name] of COMMANDS.entries()) {
    assert.match(help.stdout, new RegExp(`^  ${name} +\\S`, "m"));
    const own = runs[1 + k]!;
    assert.is(own.code, 0, name);
    assert.ok(own.stdout.startsWith(`Usage: quiver ${name} `), own.stdout);
  }
  const [build, helpBuild] = runs.slice(1 + COMMANDS.length) as [Run, Run];
  assert.equal(helpBuild.stdout, build.stdout);
});

test("quiver --version is the package's version; unknown commands and options exit 2", async () => {
  const version = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")).version;
  // Every command but serve reports its options through command.ts: two of them stand for all.
  const names = ["build", "search"];
  const runs = await quiverRuns([
    ["--version"],
    [],
    ["frobnicate"],
    ...names.map((name) => [name, "--no-such-option"]),
  ]);
  const [versionRun, none, unknown] = runs as [Run, Run, Run];
  assert.is(versionRun.stdout, `${version}\n`);
  assert.is(none.code, 2);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  for (const [k, name] of names.entries()) {
    const run = runs[3 + k]!;
    assert.is(run.code, 2, name);
    assert.match(run.stderr, new RegExp(`^quiver ${name}: .*no-such-option[\\s\\S]*Run "quiver ${name} --help"`));
  }
});

test.run();

/**
 * The `quiver` command table: every command is listed, answers --help with its usage and exit 0,
 * and an unknown command or option is a usage error (exit 2).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { quiverRun } from "../support/cli.js";

const COMMANDS = ["serve", "build", "info", "search", "statements", "dump", "convert"];

test("quiver --help lists every command; each command's --help shows its usage", async () => {
  const help = await quiverRun(["--help"]);
  assert.is(help.code, 0);
  for (const name of COMMANDS) {
    assert.match(help.stdout, new RegExp(`^  ${name} +\\S`, "m"));
    const own = await quiverRun([name, "--help"]);
    assert.is(own.code, 0, name);
    assert.ok(own.stdout.startsWith(`Usage: quiver ${name} `), own.stdout);
  }
  const build = await quiverRun(["build", "--help"]);
  assert.equal((await quiverRun(["help", "build"])).stdout, build.stdout);
});

test("quiver --version is the package's version; unknown commands and options exit 2", async () => {
  const version = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")).version;
  assert.is((await quiverRun(["--version"])).stdout, `${version}\n`);
  const none = await quiverRun([]);
  assert.is(none.code, 2);
  const unknown = await quiverRun(["frobnicate"]);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  // Every command but serve reports its options through command.ts: two of them stand for all.
  for (const name of ["build", "search"]) {
    const run = await quiverRun([name, "--no-such-option"]);
    assert.is(run.code, 2, name);
    assert.match(run.stderr, new RegExp(`^quiver ${name}: .*no-such-option[\\s\\S]*Run "quiver ${name} --help"`));
  }
});

test.run();

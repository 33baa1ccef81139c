/**
 * The early path checks of the commands (src/cli/paths.ts), one case per kind of problem; each
 * message names the option and the path.
 */

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { CommandFailure } from "../../src/cli/command.js";
import { checkInputDirectory, checkInputFile, checkOutputDirectory, checkOutputFile } from "../../src/cli/paths.js";
import { tempFiles } from "../support/cli.js";

async function failure(check: Promise<void>): Promise<string> {
  const error = await check.then(
    () => assert.unreachable("the check passed"),
    (e: unknown) => e,
  );
  assert.instance(error, CommandFailure);
  return (error as Error).message;
}

let dir = "";
let file = "";
test.before(async () => {
  const files = await tempFiles({ "f.txt": "x" });
  file = files["f.txt"]!;
  dir = join(file, "..");
  await mkdir(join(dir, "sub"));
});

test("input files and folders", async () => {
  await checkInputFile("--entities", file);
  await checkInputDirectory("DIR", dir);
  assert.is(
    await failure(checkInputFile("--entities", join(dir, "no"))),
    `--entities ${join(dir, "no")}: no such file or folder`,
  );
  assert.is(await failure(checkInputFile("--entities", dir)), `--entities ${dir}: is a folder; give a file`);
  assert.is(
    await failure(checkInputFile("--entities", join(file, "x"))),
    `--entities ${join(file, "x")}: a part of the path is a file, not a folder`,
  );
  assert.is(await failure(checkInputDirectory("DIR", file)), `DIR ${file}: is a file; give a folder`);
});

test("output files and folders", async () => {
  await checkOutputFile("--out", join(dir, "new.snap"));
  await checkOutputFile("--out", file); // replaced
  await checkOutputDirectory("--out", join(dir, "sub"));
  await checkOutputDirectory("--out", join(dir, "a", "b", "c")); // created with its parents
  assert.is(
    await failure(checkOutputFile("--out", join(dir, "sub"))),
    `--out ${join(dir, "sub")}: is a folder; give the path of the file to write`,
  );
  assert.match(await failure(checkOutputFile("--out", join(dir, "no", "x.snap"))), /the folder .*no does not exist$/);
  assert.is(await failure(checkOutputDirectory("--out", file)), `--out ${file}: is a file; give a folder`);
  assert.is(
    await failure(checkOutputDirectory("--out", join(file, "deeper"))),
    `--out ${join(file, "deeper")}: ${file} is a file`,
  );
});

test.run();

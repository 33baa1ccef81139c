/**
 * README command-line examples
 * ============================
 * Every ```sh cli-example block of README.md runs as one shell script (`set -e`, the `$ ` prompts
 * removed, `quiver` the command of this checkout) in an empty folder where `fixtures/` is the demo
 * graph, and what it prints on stdout must equal the lines the README shows under the commands.
 * Progress and summaries go to stderr and are not compared (they hold timings); a failing command
 * fails the block.
 */

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MAIN } from "../support/cli.js";

const exec = promisify(execFile);
const BLOCK = /```sh cli-example\n([\s\S]*?)```/g;

/** The block as a script (its commands) and the output it must print (every other line). */
function split(block: string): { script: string; expected: string } {
  const script: string[] = [];
  const expected: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("$ ")) script.push(line.slice(2));
    else if (line !== "") expected.push(line);
  }
  return { script: script.join("\n"), expected: expected.join("\n") };
}

const readme = await readFile(join(process.cwd(), "README.md"), "utf8");
const blocks = [...readme.matchAll(BLOCK)].map((m) => m[1]!);

test("README has command-line examples", () => {
  assert.ok(blocks.length >= 1);
});

blocks.forEach((block, i) => {
  test(`README command-line example ${i + 1} prints what the README shows`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "quiver-readme-cli-"));
    try {
      await symlink(join(process.cwd(), "fixtures"), join(dir, "fixtures"), "dir");
      const { script, expected } = split(block);
      const prelude = `set -e\nquiver() { ${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} "$@"; }\n`;
      const run = await exec("bash", ["-c", prelude + script], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }).catch(
        (e: { stdout: string; stderr: string; message: string }) => {
          throw new Error(`${e.message}\n--- stdout\n${e.stdout}\n--- stderr\n${e.stderr}`);
        },
      );
      const printed = run.stdout
        .split("\n")
        .filter((l) => l !== "")
        .join("\n");
      assert.fixture(printed, expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test.run();

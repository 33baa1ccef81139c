/**
 * README and HTTP API curl examples
 * =================================
 * Every ```sh curl-example block of README.md and docs/http-api.md runs against the server serving
 * the demo graph, as a shell script (the `$ ` prompts removed, `KEY` set, the port swapped for the
 * real one), and its output must equal the lines the page shows.
 * Every ```sh curl-changes-example block runs the same way against a server of its own that takes
 * changes (`--changes` into an empty log in a new folder, the block's working directory), with `KEY`
 * a read key and `WRITE_KEY` a write key: each block starts at sequence 0, whatever ran before it.
 * (The ```ts example blocks are run by test/readme.test.ts.)
 */

import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, runQuiver, stop, type Child } from "../support/cli.js";

const exec = promisify(execFile);
const BLOCK = /```sh curl-example\n([\s\S]*?)```/g;
const CHANGES_BLOCK = /```sh curl-changes-example\n([\s\S]*?)```/g;
const KEY = "sk_readme_example";
const WRITE_KEY = "sk_readme_write_example";

function blocksOf(file: string, pattern: RegExp): string[] {
  return existsSync(file) ? [...readFileSync(file, "utf8").matchAll(pattern)].map((m) => m[1]!) : [];
}

const PAGES = ["README.md", "docs/http-api.md"];
const found = PAGES.flatMap((page) =>
  blocksOf(join(process.cwd(), page), BLOCK).map((block, i) => ({ page, i, block })),
);
const foundChanges = PAGES.flatMap((page) =>
  blocksOf(join(process.cwd(), page), CHANGES_BLOCK).map((block, i) => ({ page, i, block })),
);

/**
 * The block as a script (the commands, each followed by a line break since a JSON body ends without
 * one) and the output it must print (every other line). Blank lines are not compared.
 */
function split(block: string): { script: string; expected: string } {
  const script: string[] = [];
  const expected: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("$ ")) script.push(line.slice(2), "echo");
    else if (line !== "") expected.push(line);
  }
  return { script: script.join("\n"), expected: expected.join("\n") };
}

const nonBlank = (text: string): string =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .join("\n");

let server: Child;
let url = "";

test.before(async () => {
  server = runQuiver(["serve", "--port", "0", "--quiet"], { QUIVER_API_KEYS: KEY });
  url = await listening(server);
});
test.after(async () => {
  await stop(server);
});

for (const page of PAGES) {
  test(`curl examples exist (${page})`, () => {
    assert.ok(
      found.some((f) => f.page === page),
      `expected \`\`\`sh curl-example blocks in ${page}`,
    );
    assert.ok(
      foundChanges.some((f) => f.page === page),
      `expected \`\`\`sh curl-changes-example blocks in ${page}`,
    );
  });
}

found.forEach(({ page, i, block }) => {
  test(`${page} curl example block ${i + 1} prints what the page shows`, async () => {
    const { script, expected } = split(block);
    const { stdout } = await exec("sh", ["-c", script.replaceAll("http://127.0.0.1:8080", url)], {
      env: { ...process.env, KEY },
    });
    assert.fixture(nonBlank(stdout), expected);
  });
});

foundChanges.forEach(({ page, i, block }) => {
  test(`${page} curl changes example block ${i + 1} prints what the page shows`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "quiver-readme-changes-"));
    const writer = runQuiver(["serve", "--port", "0", "--quiet", "--changes", join(dir, "changes")], {
      QUIVER_API_KEYS: KEY,
      QUIVER_WRITE_KEYS: WRITE_KEY,
    });
    try {
      const at = await listening(writer);
      const { script, expected } = split(block);
      const { stdout } = await exec("sh", ["-c", script.replaceAll("http://127.0.0.1:8080", at)], {
        cwd: dir,
        env: { ...process.env, KEY, WRITE_KEY },
      });
      assert.fixture(nonBlank(stdout), expected);
    } finally {
      await stop(writer);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test.run();

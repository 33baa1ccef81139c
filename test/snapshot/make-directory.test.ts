/**
 * makeDirectory: `mkdir -p` that ends. Folders made with their parents, an existing one taken, a file
 * in the way refused; and a path whose parent exists but cannot hold it (under /proc: mkdir answers
 * ENOENT for the child, EEXIST for the parent) fails at once with ENOENT, where node's recursive
 * mkdirSync loops forever. The commands that make folders (quiver dump, apply, serve --changes) are
 * run on such a path in child processes, each stopped if it has not ended in time.
 */

import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { makeDirectory } from "../../src/snapshot/make-directory.js";
import { runQuiver } from "../support/cli.js";

/** A path under /proc that mkdir cannot make (its parent exists), on a system with /proc; else undefined. */
const UNDER_PROC = existsSync("/proc/self") ? "/proc/quiver-test-no-such-folder/log" : undefined;

/** How long a command may take to fail on UNDER_PROC before it counts as hung (it takes well under a second). */
const HANG_MS = 30_000;

test("makes a folder and its missing parents; a folder already there is taken as it is", () => {
  const root = mkdtempSync(join(tmpdir(), "quiver-mkdir-"));
  const deep = join(root, "a", "b", "c");
  makeDirectory(deep);
  assert.ok(statSync(deep).isDirectory());
  makeDirectory(deep);
  makeDirectory(join(root, "a"));
  makeDirectory(`${join(root, "a", "b")}/`);
  assert.ok(statSync(join(root, "a", "b", "c")).isDirectory());
});

test("a file in the way is refused (EEXIST for the path itself, ENOTDIR for a parent)", () => {
  const root = mkdtempSync(join(tmpdir(), "quiver-mkdir-"));
  const file = join(root, "file");
  writeFileSync(file, "");
  assert.throws(
    () => makeDirectory(file),
    (e: NodeJS.ErrnoException) => e.code === "EEXIST",
  );
  assert.throws(
    () => makeDirectory(join(file, "x", "y")),
    (e: NodeJS.ErrnoException) => e.code === "ENOTDIR",
  );
});

test("a parent that exists but cannot hold the folder (/proc): ENOENT at once, not an endless loop", () => {
  if (UNDER_PROC === undefined) return;
  assert.throws(
    () => makeDirectory(UNDER_PROC),
    (e: NodeJS.ErrnoException) => e.code === "ENOENT",
  );
});

test("quiver dump --out, apply --changes and serve --changes on such a path fail with exit 1 naming it", async () => {
  if (UNDER_PROC === undefined) return;
  const graph = ["--entities", "fixtures/entities.jsonl", "--statements", "fixtures/statements.jsonl"];
  const env = { QUIVER_API_KEYS: "sk_test_read", QUIVER_WRITE_KEYS: "sk_test_write" };
  const runs = [
    ["dump", ...graph, "--out", UNDER_PROC, "--quiet"],
    ["apply", "--changes", UNDER_PROC, ...graph, "fixtures/README.md"],
    ["serve", ...graph, "--changes", UNDER_PROC, "--port", "0", "--quiet", "--no-ui"],
  ];
  const children = runs.map((args) => runQuiver(args, env));
  const timer = setTimeout(() => {
    for (const child of children) child.process.kill("SIGKILL");
  }, HANG_MS);
  const codes = await Promise.all(children.map((child) => child.exited));
  clearTimeout(timer);
  children.forEach((child, i) => {
    assert.is(codes[i], 1, `quiver ${runs[i]![0]}: ${child.stderr()}`);
    assert.match(child.stderr(), /\/proc\/quiver-test-no-such-folder/);
  });
});

test.run();

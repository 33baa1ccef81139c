/**
 * Test files
 * ==========
 * Every test file registers its tests before its one `test.run()` (or leaves both to a shared
 * suite). uvu runs the tests a suite holds when run() is called and drops, without a word, any
 * registered after it: two regression tests sat below their file's run() and never ran. Cost: one
 * pass of a regular expression over each file of test/.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

const ROOT = join(process.cwd(), "test");

/** The TypeScript files under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    // Each branch: a folder walked, a TypeScript file kept, anything else (fixtures' data) skipped.
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** A top-level test registered (`test(`, `test.skip(`, `test.only(`): not its run(). */
const REGISTERS = /^test(?:\.(?:skip|only))?\(/;
const RUNS = /^test\.run\(\);/;

test("every test file registers its tests before its one test.run() (uvu drops the ones after it)", () => {
  const files = sources(ROOT).filter((file) => file.endsWith(".test.ts"));
  assert.ok(files.length > 100, `${files.length} test files found under ${ROOT}`);
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    const runs = lines.flatMap((line, i) => (RUNS.test(line) ? [i] : []));
    // A file whose tests a shared suite registers and runs (test/support/contract-suite.ts) has neither.
    if (runs.length === 0 && !lines.some((line) => REGISTERS.test(line))) continue;
    const name = relative(process.cwd(), file);
    assert.is(runs.length, 1, `${name}: test.run() ${runs.length} times`);
    const late = lines.findIndex((line, i) => i > runs[0]! && REGISTERS.test(line));
    assert.is(late, -1, `${name}:${late + 1}: a test registered after test.run() (line ${runs[0]! + 1}) never runs`);
  }
});

test.run();

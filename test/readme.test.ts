/**
 * README examples
 * ===============
 * Every ```js example block of README.md runs as a test, importing "quiver" the way a user would
 * (the package resolves itself through its "exports"), so the README cannot drift from the code.
 * The blocks assert their own results with node:assert.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";

const README = readFileSync(join(process.cwd(), "README.md"), "utf8");
const BLOCK = /```js example\n([\s\S]*?)```/g;
const examples = [...README.matchAll(BLOCK)].map((m) => m[1] as string);

test("README has runnable examples", () => {
  assert.ok(examples.length >= 1, "expected at least one ```js example block in README.md");
});

examples.forEach((code, i) => {
  test(`README example ${i + 1} runs and its assertions hold`, async () => {
    // Inside the package directory, so `import ... from "quiver"` resolves to this package.
    const dir = join(process.cwd(), "dist", "readme-examples");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${i + 1}-${process.pid}.mjs`);
    writeFileSync(file, code);
    try {
      await import(pathToFileURL(file).href);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

test.run();

/**
 * README and docs examples
 * ========================
 * Every ```ts example block of README.md and of the pages in docs/ is type-checked under `--strict`
 * and then run, importing
 * "quiver-kg" the way a user would (the package resolves itself through its "exports", for tsc and
 * for node alike), so the README can neither drift from the code nor show code that a strict
 * TypeScript project would reject. The blocks assert their own results with node:assert.
 *
 * Cost: one TypeScript program over all the blocks (the package's declarations come from dist/,
 * which `npm test` has just built), then one import per block.
 */

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { test } from "uvu";
import * as assert from "uvu/assert";

const BLOCK = /```ts example\n([\s\S]*?)```/g;
/** The pages that hold examples: the README, then docs/*.md in name order. */
const PAGES = [
  "README.md",
  ...readdirSync(join(process.cwd(), "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const found = PAGES.flatMap((page) =>
  [...readFileSync(join(process.cwd(), page), "utf8").matchAll(BLOCK)].map((m, i) => ({
    name: `${page} example ${i + 1}`,
    code: m[1] as string,
  })),
);
const examples = found.map((e) => e.code);

/** What a user's strict ESM project would set; nothing of this repository's own stricter options. */
const USER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ["node"],
  skipLibCheck: true,
};

// Inside the package directory, so `import ... from "quiver-kg"` resolves to this package.
const dir = join(process.cwd(), "dist", "readme-examples", String(process.pid));
const sourceOf = (i: number) => join(dir, `example-${i + 1}.ts`);

/** Diagnostics per example index, from one program over every block. */
let diagnosticsOf: Map<number, string[]> = new Map();

test.before(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [i, code] of examples.entries()) writeFileSync(sourceOf(i), code);
  const program = ts.createProgram(
    examples.map((_, i) => sourceOf(i)),
    { ...USER_OPTIONS, rootDir: dir, outDir: dir },
  );
  const emitted = program.emit();
  diagnosticsOf = new Map(examples.map((_, i) => [i, []]));
  for (const d of [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]) {
    const index = examples.findIndex((_, i) => d.file?.fileName === sourceOf(i));
    const where =
      d.file !== undefined && d.start !== undefined
        ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: `
        : "";
    // A diagnostic outside the blocks (in the package's own declarations) fails every block.
    const targets = index >= 0 ? [index] : examples.map((_, i) => i);
    for (const t of targets) diagnosticsOf.get(t)!.push(where + ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test("README has runnable examples", () => {
  assert.ok(
    found.some((e) => e.name.startsWith("README.md")),
    "expected a ```ts example block in README.md",
  );
});

found.forEach(({ name }, i) => {
  test(`${name} compiles under --strict, runs, and its assertions hold`, async () => {
    assert.equal(diagnosticsOf.get(i), [], `tsc --strict on ${name}`);
    await import(pathToFileURL(join(dir, `example-${i + 1}.js`)).href);
  });
});

test.run();

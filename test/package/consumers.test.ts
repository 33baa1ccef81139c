/**
 * Consumer projects
 * =================
 * Four small projects install the packed tarball (`npm pack`, as a release is made) from the file,
 * the way a user installs it from the registry, and use it: ESM JavaScript (`import`), CommonJS
 * JavaScript (`require`), and TypeScript under `--strict` as ESM and as CommonJS (`module` nodenext
 * and the classic `commonjs`). Each runs on this Node and on the first 20.x and 22.x releases that
 * load an ES module from `require()` without a flag (test/support/pack.ts), and checks that the
 * types are real (a `@ts-expect-error` on a wrong call must be needed), that `require()` and
 * `import()` give the same module instance (no dual-package hazard), that `quiver-kg/package.json`
 * is exported, and that the demo graph ships with the package.
 *
 * Needs the npm registry for the runtime dependency (mnemonist) and the extra Node releases:
 * `npm run test:package`, not `npm test`.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  nodeBinaries,
  npm,
  packedTarball,
  REPO,
  REQUIRE_ESM_NODE_VERSIONS,
  run,
  temporaryDirectory,
  type NodeBinary,
} from "../support/pack.js";

const NAME = "quiver-kg";

/** What every consumer checks, in the syntax each module system writes it. */
const CHECKS = `
const builder = new GraphBuilder();
builder.addEntity({ entityId: "Q42", rawIdentifier: "Douglas Adams", type: "0", sourceType: "wikidata" });
builder.addEntity({ entityId: "P31", rawIdentifier: "instance of", type: "1", sourceType: "wikidata" });
builder.addEntity({ entityId: "Q5", rawIdentifier: "human", type: "0", sourceType: "wikidata" });
builder.addStatement({ subjectEntityId: "Q42", predicateEntityId: "P31", objectEntityId: "Q5" });
const graph = builder.build();
assert.equal(graph.search({ q: "ADAMS" }).items[0]?.entityId, "Q42");
assert.equal(graph.statements({ objectEntityId: "Q5" }).items[0]?.subjectRawIdentifier, "Douglas Adams");
assert.throws(() => graph.search({ q: "" }), (e) => e instanceof QuiverError && e.code === "EMPTY_PARAMETER");
const manifest = require("${NAME}/package.json");
assert.equal(manifest.name, "${NAME}");
const fixtures = join(dirname(require.resolve("${NAME}/package.json")), "fixtures");
const demo = await loadGraph({
  entities: join(fixtures, "entities.jsonl"),
  statements: join(fixtures, "statements.jsonl"),
});
assert.equal(demo.search({ q: "trittin" }).items[0]?.rawIdentifier, "Jürgen Trittin");
`;

interface Consumer {
  name: string;
  type: "module" | "commonjs";
  /** File name and text of the program. */
  file: string;
  source: string;
  /** tsconfig.json compilerOptions (TypeScript consumers); the program then runs from out/. */
  compilerOptions?: Record<string, unknown>;
}

const typescriptCompilerOptions = (module: string) => ({
  strict: true,
  module,
  target: "ES2022",
  outDir: "out",
  esModuleInterop: true,
  skipLibCheck: false,
  // Node's types from this repository, so the consumer installs only the package under test.
  types: ["node"],
  typeRoots: [join(REPO, "node_modules", "@types")],
});

/** The TypeScript program: the checks, plus proof the declarations are the package's own. */
const typescriptSource = (moduleSystem: "module" | "commonjs") => `
import { GraphBuilder, QuiverError, loadGraph, type Entity, type Page } from "${NAME}";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
${moduleSystem === "module" ? 'import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);' : ""}

async function main(): Promise<void> {
  ${CHECKS}
  const page: Page<Entity> = graph.search({ q: "adams", limit: 1 });
  const first: Entity | undefined = page.items[0];
  assert.equal(first?.type, "0");
  // @ts-expect-error q is a string: the declarations are real, not any
  assert.throws(() => graph.search({ q: 42 }), QuiverError);
  const dynamic = await import("${NAME}");
  assert.equal(dynamic.GraphBuilder, GraphBuilder);
  console.log("ok");
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
`;

const CONSUMERS: Consumer[] = [
  {
    name: "esm-js",
    type: "module",
    file: "index.js",
    source: `
import { GraphBuilder, QuiverError, loadGraph } from "${NAME}";
import { route, ROUTES } from "${NAME}/http";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
const require = createRequire(import.meta.url);
${CHECKS}
// The adapter kit is its own entry point.
assert.equal(typeof route, "function");
assert.equal(ROUTES.search, "/graph/v1/search");
console.log("ok");
`,
  },
  {
    name: "cjs-js",
    type: "commonjs",
    file: "index.js",
    source: `
const { GraphBuilder, QuiverError, loadGraph } = require("${NAME}");
const assert = require("node:assert/strict");
const { dirname, join } = require("node:path");
(async () => {
  ${CHECKS}
  // require() and import() give the one module instance: a class from one is the class of the other.
  const imported = await import("${NAME}");
  assert.equal(imported.QuiverError, QuiverError);
  console.log("ok");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
`,
  },
  {
    name: "esm-ts",
    type: "module",
    file: "index.ts",
    source: typescriptSource("module"),
    compilerOptions: typescriptCompilerOptions("nodenext"),
  },
  {
    name: "cjs-ts-nodenext",
    type: "commonjs",
    file: "index.ts",
    source: typescriptSource("commonjs"),
    compilerOptions: typescriptCompilerOptions("nodenext"),
  },
  {
    name: "cjs-ts-commonjs",
    type: "commonjs",
    file: "index.ts",
    source: typescriptSource("commonjs"),
    compilerOptions: typescriptCompilerOptions("commonjs"),
  },
];

const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

let root = "";
let binaries: NodeBinary[] = [];
/** The program each consumer runs, once its project is set up. */
const programs = new Map<string, { dir: string; entry: string }>();

test.before(async () => {
  root = temporaryDirectory("consumers");
  binaries = await nodeBinaries();
});

for (const consumer of CONSUMERS) {
  test(`${consumer.name}: installs the packed tarball${consumer.compilerOptions ? " and compiles under --strict" : ""}`, async () => {
    const { tarball } = await packedTarball();
    const dir = join(root, consumer.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: `consumer-${consumer.name}`, private: true, type: consumer.type }, null, 2),
    );
    await npm(["install", "--prefer-offline", "--no-package-lock", tarball], dir);
    writeFileSync(join(dir, consumer.file), consumer.source);
    let entry = join(dir, consumer.file);
    if (consumer.compilerOptions !== undefined) {
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: consumer.compilerOptions, files: [consumer.file] }, null, 2),
      );
      await run(process.execPath, [TSC, "-p", "."], { cwd: dir });
      entry = join(dir, "out", "index.js");
    }
    programs.set(consumer.name, { dir, entry });
  });
}

for (const consumer of CONSUMERS) {
  test(`${consumer.name}: runs on Node ${[process.version, ...REQUIRE_ESM_NODE_VERSIONS].join(", ")}`, async () => {
    const program = programs.get(consumer.name);
    assert.ok(program, "the project was set up by the test above");
    for (const node of binaries) {
      const { stdout, stderr } = await run(node.path, [program.entry], { cwd: program.dir });
      assert.is(stdout.trim(), "ok", `${consumer.name} on ${node.version}`);
      // Node 22.12 announces require(esm) as experimental on stderr (22.13 and 20.19 on do not).
      const quiet =
        node.version === "v22.12.0" ? stderr.replace(/\(node:\d+\) ExperimentalWarning[\s\S]*$/, "") : stderr;
      assert.is(quiet, "", `${consumer.name} on ${node.version} printed on stderr:\n${stderr}`);
    }
  });
}

test.run();

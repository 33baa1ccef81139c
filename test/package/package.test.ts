/**
 * The packed package and the production installs
 * ==============================================
 * What `npm pack` puts in the tarball (the library and CLI in dist/src, the built explorer page in
 * dist/explorer-assets, the sources its source maps name, the demo graph `quiver serve` falls back to with its license note, LICENSE, README), and the
 * two production installs the README shows, each ending with `quiver serve` answering /healthz:
 *  - the tarball installed with `npm install --omit=dev` (no TypeScript, no build step);
 *  - a clone: `npm ci --omit=dev` succeeds (nothing is built at install), and
 *    `npm ci && npm run build && npm prune --omit=dev` leaves a runnable tree without dev packages.
 *
 * Needs the npm registry (installs): `npm run test:package`, not `npm test`.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, stop } from "../support/cli.js";
import { childEnv, copySources, npm, packedTarball, REPO, run, start, temporaryDirectory } from "../support/pack.js";

const KEY = "sk_package_test";

/** Serves with the command given, checks /healthz and one search of the demo graph, then stops it. */
async function servesTheDemoGraph(command: string, args: string[], cwd: string): Promise<void> {
  const child = start(command, [...args, "--port", "0", "--quiet"], cwd, childEnv({ QUIVER_API_KEYS: KEY }));
  try {
    const url = await listening(child, 60_000);
    assert.is((await fetch(`${url}/healthz`)).status, 200);
    const r = await fetch(`${url}/graph/v1/search?q=trittin`, { headers: { "X-API-Key": KEY } });
    assert.is(((await r.json()) as { items: { rawIdentifier: string }[] }).items[0]?.rawIdentifier, "Jürgen Trittin");
    // The explorer page ships built: "/" and the script it names answer without a key.
    const page = await fetch(`${url}/`);
    assert.is(page.status, 200);
    const script = /src="(explorer\/app\.[0-9a-f]+\.js)"/.exec(await page.text())?.[1];
    assert.ok(script !== undefined, "the page names its script");
    assert.is((await fetch(`${url}/${script}`)).status, 200);
  } finally {
    assert.is(await stop(child), 0, child.stderr());
  }
}

test("the tarball holds dist/src, the sources its maps name, the demo graph, LICENSE and README; nothing else", async () => {
  const { tarball, files } = await packedTarball();
  const allowed = (f: string) =>
    ["package.json", "README.md", "LICENSE"].includes(f) ||
    ["fixtures/entities.jsonl", "fixtures/statements.jsonl", "fixtures/README.md"].includes(f) ||
    /^dist\/src\/.+\.(js|d\.ts|js\.map)$/.test(f) ||
    /^dist\/explorer-assets\/(index\.html|app\.[0-9a-f]+\.(js|css))$/.test(f) ||
    /^src\/.+\.ts$/.test(f);
  assert.equal(
    files.filter((f) => !allowed(f)),
    [],
  );
  for (const f of [
    "dist/src/index.js",
    "dist/src/index.d.ts",
    "dist/src/cli/main.js",
    "dist/explorer-assets/index.html",
    "fixtures/README.md",
  ]) {
    assert.ok(files.includes(f), `${f} is packed`);
  }

  const dir = temporaryDirectory("unpacked");
  await run("tar", ["xzf", tarball, "-C", dir], { cwd: dir });
  const root = join(dir, "package");
  // Every map's sources are in the package; every source belongs to a built file, and back.
  for (const map of files.filter((f) => f.endsWith(".js.map"))) {
    const { sources } = JSON.parse(readFileSync(join(root, map), "utf8")) as { sources: string[] };
    for (const s of sources) assert.ok(existsSync(join(root, map, "..", s)), `${map} names ${s}, which is packed`);
  }
  const sources = files.filter((f) => f.startsWith("src/")).map((f) => f.replace(/\.ts$/, ""));
  const built = files.filter((f) => /^dist\/src\/.+\.js$/.test(f)).map((f) => f.slice("dist/".length, -".js".length));
  assert.equal(sources, built);

  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.is(manifest.name, "quiver-kg");
  assert.equal(manifest.exports["."], {
    types: "./dist/src/index.d.ts",
    import: "./dist/src/index.js",
    default: "./dist/src/index.js",
  });
  // The adapter kit, apart from the user API (docs/embedding.md, "Writing an adapter").
  assert.equal(manifest.exports["./http"], {
    types: "./dist/src/http/index.d.ts",
    import: "./dist/src/http/index.js",
    default: "./dist/src/http/index.js",
  });
  assert.ok(files.includes("dist/src/http/index.js") && files.includes("dist/src/http/index.d.ts"));
  assert.is(manifest.exports["./package.json"], "./package.json");
  // npm runs `prepare` in a checkout only, never when a tarball is installed (that carries dist/).
  assert.is(manifest.scripts.prepare, "node tools/prepare.mjs");
  const source = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  assert.equal(manifest.dependencies, source.dependencies, "the runtime dependencies, and only them");
  assert.is(manifest.license, "MIT");
  assert.match(readFileSync(join(root, "LICENSE"), "utf8"), /^MIT License\n/);
  assert.match(readFileSync(join(root, "fixtures", "README.md"), "utf8"), /CC BY 3\.0/);
});

test("production install of the tarball: npm install --omit=dev, then the quiver command serves", async () => {
  const { tarball } = await packedTarball();
  const dir = temporaryDirectory("deploy");
  await npm(["init", "-y"], dir);
  await npm(["install", "--omit=dev", "--prefer-offline", tarball], dir);
  const installed = readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith("."));
  assert.ok(installed.includes("quiver-kg"));
  assert.not.ok(installed.includes("typescript"), `no dev packages: ${installed.join(", ")}`);

  const quiver = join(dir, "node_modules", ".bin", "quiver");
  const help = await run(quiver, ["--help"], { cwd: dir });
  for (const command of ["serve", "build", "info", "dump", "search", "statements", "convert"]) {
    assert.match(help.stdout, new RegExp(`^  ${command} `, "m"));
  }
  const version = JSON.parse(readFileSync(join(dir, "node_modules", "quiver-kg", "package.json"), "utf8")).version;
  assert.is((await run(quiver, ["--version"], { cwd: dir })).stdout, `${version}\n`);
  // No data options: the demo graph that ships in the package's fixtures/.
  await servesTheDemoGraph(quiver, ["serve"], dir);
});

test("a clone: npm ci --omit=dev installs; npm ci && npm run build && npm prune --omit=dev serves", async () => {
  const clone = copySources("clone");
  await npm(["ci", "--omit=dev", "--prefer-offline"], clone);
  assert.not.ok(existsSync(join(clone, "node_modules", "typescript")));
  assert.not.ok(existsSync(join(clone, "dist")), "without TypeScript, nothing was built at install");

  await npm(["ci", "--prefer-offline"], clone);
  assert.ok(existsSync(join(clone, "dist", "src", "cli", "main.js")), "with TypeScript, prepare built dist/");
  await npm(["run", "build"], clone);
  await npm(["prune", "--omit=dev"], clone);
  assert.not.ok(existsSync(join(clone, "node_modules", "typescript")));
  assert.ok(existsSync(join(clone, "node_modules", "mnemonist")));
  await servesTheDemoGraph(process.execPath, [join(clone, "dist", "src", "cli", "main.js"), "serve"], clone);
});

test.run();

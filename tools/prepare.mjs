// The build at install. npm runs `prepare` after `npm install` / `npm ci` in a checkout (never when
// the package is installed from its tarball, which carries dist/). Each branch: with TypeScript
// installed, build dist/ and the explorer page (a failed build fails the install); without it
// (`npm ci --omit=dev` in a checkout), say how to get a production install instead of failing,
// and build nothing.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve("typescript/bin/tsc");
} catch {
  console.warn(
    "quiver: TypeScript is not installed (a production install?), so dist/ was not built. " +
      "Build first, then drop the dev tools: npm ci && npm run build && npm prune --omit=dev " +
      "(or install the packed package, which carries dist/).",
  );
  process.exit(0);
}
const build = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
// The explorer page (explorer/ -> dist/explorer-assets/), bundled by esbuild, a dev dependency like TypeScript.
const explorer = spawnSync(process.execPath, [new URL("build-explorer.mjs", import.meta.url).pathname], {
  stdio: "inherit",
});
process.exit(explorer.status ?? 1);

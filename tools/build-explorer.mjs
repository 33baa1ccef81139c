// Builds the explorer page (explorer/) into dist/explorer-assets/, which `quiver serve` serves at
// "/" and "/explorer/" (src/http/explorer.ts). esbuild bundles and minifies the TypeScript and the
// CSS; each asset is named by a hash of its bytes (app.<hash>.js, app.<hash>.css), so the server can
// let browsers keep them for a year, and index.html (never cached without asking) names them.
// The build writes a fresh directory beside the old one and renames it into place, so a server
// reading the directory sees the old build or the new, never half of one. Runs in well under a
// second; `npm run build` and `npm install` (prepare) run it, the server never does.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "explorer");
const out = join(root, "dist", "explorer-assets");
/** Hex digits of SHA-256 in an asset's name: enough that two builds never collide in a cache. */
const NAME_HASH_DIGITS = 12;

async function bundle(entry) {
  const result = await build({
    entryPoints: [join(source, "src", entry)],
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome100", "firefox100", "safari15"],
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "warning",
  });
  return Buffer.from(result.outputFiles[0].contents);
}

function named(base, ext, bytes) {
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, NAME_HASH_DIGITS);
  return `${base}.${hash}.${ext}`;
}

const script = await bundle("main.ts");
const style = await bundle("style.css");
const scriptName = named("app", "js", script);
const styleName = named("app", "css", style);
const html = readFileSync(join(source, "index.html"), "utf8")
  .replace("{{script}}", scriptName)
  .replace("{{style}}", styleName);
if (html.includes("{{")) throw new Error("explorer/index.html names a placeholder the build does not fill");

const next = `${out}.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });
mkdirSync(next, { recursive: true });
writeFileSync(join(next, "index.html"), html);
writeFileSync(join(next, scriptName), script);
writeFileSync(join(next, styleName), style);
const old = `${out}.old-${process.pid}`;
// Each branch: swap the new directory in, and drop the old one once it is out of the way.
try {
  renameSync(out, old);
} catch (e) {
  if (e.code !== "ENOENT") throw e;
}
renameSync(next, out);
rmSync(old, { recursive: true, force: true });
console.log(
  `explorer: dist/explorer-assets/ index.html ${html.length} B, ${scriptName} ${script.length} B, ${styleName} ${style.length} B`,
);

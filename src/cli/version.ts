/**
 * The package's version, read once from its package.json (dist/src/cli/ -> the package root), for
 * `quiver --version` and the startup event.
 */

import { readFileSync } from "node:fs";

export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

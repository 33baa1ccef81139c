/**
 * Quiver's version
 * ================
 * The version of the running Quiver, read once from the package's own package.json (two levels
 * above dist/src/, in the repository and in an installed package alike), so it is written in one
 * place only. What a snapshot records as its writer. "unknown" if package.json cannot be read (a
 * bundler that dropped it): a missing version must never stop a snapshot from being written.
 */

import { readFileSync } from "node:fs";

export const QUIVER_VERSION: string = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

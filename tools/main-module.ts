/**
 * Is this file the program node was started with?
 * ================================================
 * Each benchmark runs by itself when started directly (`node dist/bench/x.bench.js`) and only
 * exports its `run()` when imported. Compared through realpath, so a symlinked path counts too.
 */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function isMainModule(importMetaUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(importMetaUrl);
  } catch {
    return false;
  }
}

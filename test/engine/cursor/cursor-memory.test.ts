/**
 * Memory a graph keeps between queries is bounded in bytes (review 8221c12, finding 2)
 * ====================================================================================
 * At 1d9af4c the issued-cursor cache kept 4,096 cursors whatever their size: the walk below over
 * statements with 512-byte ids kept 4.9 MB whatever the graph's `cacheBytes` said (1 MiB here). Now
 * the cache is a byte-weighted LRU drawing on `cacheBytes` (64 MiB by default).
 *
 * Each case runs test/support/cursor-memory.ts in a child process with --expose-gc: it walks 60,000
 * distinct statements with limit=1 (60,000 cursors issued and followed) and reports how much heap
 * plus array-buffer memory the walk left behind after garbage collection. That must stay under the
 * budget plus SLACK_BYTES. The cases: identifiers of 1 KB (rawIdentifier 1,024 bytes, entityIds at
 * their 512-byte limit; their cursors are too long to be worth caching) with the default and a small
 * budget, and short entityIds (every cursor cacheable, 60,000 of them would take about 35 MB) with a
 * small budget.
 */

import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DEFAULT_CACHE_BYTES } from "../../../src/index.js";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("../../support/cursor-memory.js", import.meta.url));
/** What else a walk may leave behind: V8's own bookkeeping, measured at under 40 KB here. */
const SLACK_BYTES = 2 * 1024 * 1024;
const MiB = 1024 * 1024;

interface Case {
  name: string;
  idBytes: number;
  cacheBytes?: number;
}

const CASES: Case[] = [
  { name: "1 KB identifiers, default budget (64 MiB)", idBytes: 512 },
  { name: "1 KB identifiers, budget 1 MiB", idBytes: 512, cacheBytes: 1 * MiB },
  { name: "short entityIds (all cacheable), budget 4 MiB", idBytes: 48, cacheBytes: 4 * MiB },
];

test("finding 2: walking 60,000 statements keeps at most the cache budget plus slack", async () => {
  // Concurrently: each child measures only its own heap, and the three share the machine's cores.
  const results = await Promise.all(
    CASES.map(async (c) => {
      const args = JSON.stringify({ statements: 60_000, idBytes: c.idBytes, rawBytes: 1024, cacheBytes: c.cacheBytes });
      const { stdout } = await run(process.execPath, ["--expose-gc", CHILD, args], { timeout: 300_000 });
      return { c, result: JSON.parse(stdout) as { growthBytes: number; pages: number; longestCursor: number } };
    }),
  );
  for (const { c, result } of results) {
    const budget = c.cacheBytes ?? DEFAULT_CACHE_BYTES;
    assert.is(result.pages, 60_000, `${c.name}: pages`);
    assert.ok(
      result.growthBytes <= budget + SLACK_BYTES,
      `${c.name}: the walk kept ${(result.growthBytes / MiB).toFixed(1)} MiB, budget ${(budget / MiB).toFixed(0)} MiB`,
    );
  }
});

test.run();

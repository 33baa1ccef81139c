/**
 * The bench's huge-page readings (bench/huge-pages.ts): the environment a child is started with
 * keeps the other glibc tunables and adds or removes only the huge-page one, and a child started
 * with it reads it as set (the tunable is read at process start, so only a child can show it).
 */

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { HUGE_PAGE_TUNABLE, withHugePages } from "../../bench/huge-pages.js";

const MODULE = fileURLToPath(new URL("../../bench/huge-pages.js", import.meta.url));

/** hugePages() as a child process with `env` reads it. */
function childReading(env: NodeJS.ProcessEnv): { tunable: boolean; hugeBytes: number | null; rssBytes: number | null } {
  const script = `import(${JSON.stringify(MODULE)}).then((m) => console.log(JSON.stringify(m.hugePages())))`;
  const child = spawnSync(process.execPath, ["-e", script], { env, encoding: "utf8" });
  assert.is(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test("withHugePages adds the tunable beside the others and removes only it", () => {
  const others = "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0";
  const on = withHugePages({ GLIBC_TUNABLES: others, KEEP: "x" }, true);
  assert.is(on.GLIBC_TUNABLES, `glibc.malloc.arena_max=2:${HUGE_PAGE_TUNABLE}`);
  assert.is(on.KEEP, "x");
  assert.is(withHugePages(on, false).GLIBC_TUNABLES, "glibc.malloc.arena_max=2");
  assert.is(withHugePages({ GLIBC_TUNABLES: HUGE_PAGE_TUNABLE }, false).GLIBC_TUNABLES, undefined);
  assert.is(withHugePages({}, true).GLIBC_TUNABLES, HUGE_PAGE_TUNABLE);
});

test("a child started with the tunable reads it as set, one started without as not", () => {
  const on = childReading(withHugePages(process.env, true));
  const off = childReading(withHugePages(process.env, false));
  assert.is(on.tunable, true);
  assert.is(off.tunable, false);
  // Linux has the resident set and its huge pages; elsewhere both are unknown (null), never one alone.
  assert.is(on.hugeBytes === null, on.rssBytes === null);
  if (on.hugeBytes !== null) assert.ok(on.hugeBytes <= on.rssBytes!);
});

test.run();

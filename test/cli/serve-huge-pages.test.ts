/**
 * `quiver serve --workers N` starts its workers with glibc's huge-page tunable on Linux: added to
 * GLIBC_TUNABLES (after the user's other tunables), never over the user's own glibc.malloc.hugetlb,
 * and not with --no-huge-pages. Read from each running worker's environment (/proc/PID/environ on
 * Linux, `ps eww` elsewhere, where the tunable must be absent).
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GLIBC_TUNABLES_ENV, HUGE_PAGES_TUNABLE, workerTunables } from "../../src/cli/serve-cluster.js";
import { eventOf, listening, runQuiver, stop } from "../support/cli.js";

const KEY = "sk_huge_pages_test";
const LINUX = process.platform === "linux";

/**
 * GLIBC_TUNABLES in the environment process `pid` started with, or undefined. On Linux, from
 * /proc/PID/environ: the start-up environment's own bytes, in which glibc (2.36 at least) has
 * parsed the list in place, a NUL where each colon was; the pieces after it that are tunables
 * (`glibc.NAME=VALUE`) are joined back with colons.
 */
function tunablesOf(pid: number): string | undefined {
  const prefix = `${GLIBC_TUNABLES_ENV}=`;
  // Each branch: Linux keeps a process's start-up environment in /proc; BSD and macOS ps prints it.
  if (!LINUX) {
    const words = execFileSync("ps", ["eww", "-o", "command=", "-p", String(pid)], { encoding: "utf8" }).split(/\s+/);
    return words.find((e) => e.startsWith(prefix))?.slice(prefix.length);
  }
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const at = entries.findIndex((e) => e.startsWith(prefix));
  if (at < 0) return undefined;
  const list = [entries[at]!.slice(prefix.length)];
  for (let i = at + 1; i < entries.length && /^glibc\.[\w.]+=/.test(entries[i]!); i++) list.push(entries[i]!);
  return list.join(":");
}

/** The workers' GLIBC_TUNABLES of `serve --workers 2` (the demo graph) started with `tunables` and `flags`. */
async function workersTunables(tunables: string | undefined, flags: string[] = []): Promise<(string | undefined)[]> {
  const child = runQuiver(["serve", "--port", "0", "--quiet", "--workers", "2", ...flags], {
    QUIVER_API_KEYS: KEY,
    [GLIBC_TUNABLES_ENV]: tunables,
  });
  try {
    await listening(child, 60000);
    const ready = await eventOf(child, "ready", 10000);
    assert.ok(ready !== undefined, child.stdout());
    const pids = String(ready.workerPids).split(" ").map(Number);
    assert.is(pids.length, 2);
    return pids.map(tunablesOf);
  } finally {
    assert.is(await stop(child), 0);
  }
}

test("workerTunables: added on Linux, after the user's others; the user's own value and --no-huge-pages kept", () => {
  const on = `${HUGE_PAGES_TUNABLE}=1`;
  assert.is(workerTunables(undefined, "linux", true), on);
  assert.is(workerTunables("", "linux", true), on);
  assert.is(workerTunables("glibc.malloc.arena_max=2", "linux", true), `glibc.malloc.arena_max=2:${on}`);
  assert.is(workerTunables(`${HUGE_PAGES_TUNABLE}=0`, "linux", true), undefined);
  assert.is(workerTunables(`glibc.malloc.arena_max=2:${HUGE_PAGES_TUNABLE}=2`, "linux", true), undefined);
  // A tunable whose name only begins the same is another one.
  assert.is(workerTunables(`${HUGE_PAGES_TUNABLE}x=1`, "linux", true), `${HUGE_PAGES_TUNABLE}x=1:${on}`);
  assert.is(workerTunables(undefined, "linux", false), undefined);
  assert.is(workerTunables(undefined, "darwin", true), undefined);
  assert.is(workerTunables(undefined, "freebsd", true), undefined);
});

test("serve --workers 2: every worker starts with the tunable on Linux (absent elsewhere)", async () => {
  const expected = LINUX ? `${HUGE_PAGES_TUNABLE}=1` : undefined;
  assert.equal(await workersTunables(undefined), [expected, expected]);
});

test("serve --workers 2: the user's GLIBC_TUNABLES is kept, and appended to when it lacks the tunable", async () => {
  const own = `glibc.malloc.arena_max=2:${HUGE_PAGES_TUNABLE}=0`;
  assert.equal(await workersTunables(own), [own, own]);
  const other = "glibc.malloc.arena_max=2";
  const appended = LINUX ? `${other}:${HUGE_PAGES_TUNABLE}=1` : other;
  assert.equal(await workersTunables(other), [appended, appended]);
});

test("serve --workers 2 --no-huge-pages: the workers start without it", async () => {
  assert.equal(await workersTunables(undefined, ["--no-huge-pages"]), [undefined, undefined]);
});

test.run();

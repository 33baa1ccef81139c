/**
 * Test helpers for the `quiver` command: run it as a child process, wait for its listening line.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

export interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

export function runQuiver(args: string[], env: Record<string, string | undefined> = {}): Child {
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    QUIVER_API_KEYS: undefined,
    QUIVER_CURSOR_SECRET: undefined,
    ...env,
  };
  for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
  const child = spawn(process.execPath, [MAIN, ...args], { env: merged, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/** The JSON event lines (startup, ready, reloaded, ...) the child has written to stdout so far. */
export function events(child: Child): any[] {
  return child
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .filter((l) => l.event !== undefined);
}

/** The first event of that name on the child's stdout, waiting up to `ms` for it; undefined if none. */
export async function eventOf(child: Child, name: string, ms = 5000): Promise<any> {
  for (const until = Date.now() + ms; ; ) {
    const found = events(child).find((e) => e.event === name);
    if (found !== undefined || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits for "listening on URL" on stderr; rejects if the child exits first or after `ms`. */
export function listening(child: Child, ms = 15000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${ms} ms:\n${child.stderr()}`)), ms);
    const check = (): void => {
      const m = /^listening on (http:\/\/\S+)$/m.exec(child.stderr());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.process.stderr!.on("data", check);
    child.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening:\n${child.stderr()}`));
    });
    check();
  });
}

export async function stop(child: Child): Promise<number | string> {
  if (child.process.exitCode === null) child.process.kill("SIGTERM");
  return child.exited;
}

export async function tempFiles(files: Record<string, string>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), "quiver-cli-"));
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    paths[name] = join(dir, name);
    await writeFile(paths[name]!, text);
  }
  return paths;
}

/** One finished run of `quiver`: its exit status (or signal name) and both outputs. */
export interface QuiverRun {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs `quiver ARGS` to its end; resolves with the exit status and both outputs. */
export async function quiverRun(args: string[], env: Record<string, string | undefined> = {}): Promise<QuiverRun> {
  const child = runQuiver(args, env);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/**
 * How many `quiver` runs quiverRuns keeps going at once. A run of a small command is mostly the
 * child's startup (loading the CLI's modules: about 0.5 s of CPU each), so independent runs started
 * together keep both cores of a 2-core machine busy instead of one; more than a few at once only
 * queue for the same cores.
 */
export const RUNS_AT_ONCE = 4;

/**
 * Runs `quiver ARGS` for each element of `runs` (each to its end, at most RUNS_AT_ONCE at a time) and
 * resolves with their results in the same order: for runs that do not depend on each other, the
 * same outcomes as quiverRun called once for each in turn, in less time.
 */
export async function quiverRuns(
  runs: readonly (readonly string[])[],
  env: Record<string, string | undefined> = {},
): Promise<QuiverRun[]> {
  const results: QuiverRun[] = new Array(runs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const i = next++;
      results[i] = await quiverRun([...(runs[i] as readonly string[])], env);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RUNS_AT_ONCE, runs.length) }, worker));
  return results;
}

/** The JSON Lines a command printed, parsed. */
export const jsonLines = (text: string): any[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));

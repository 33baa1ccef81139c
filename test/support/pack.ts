/**
 * Test helpers for the package as users install it
 * =================================================
 * `packedTarball()` runs `npm pack` on a copy of this repository (its sources, not its node_modules,
 * dist or .git), so the tarball is built the way a release is (prepack: clean, then build) without
 * touching the working tree; the result is shared by every test file of the run. `nodeBinaries()`
 * gives the Node releases the consumer tests run on: this one, plus the first releases that load
 * ESM from `require()` without a flag, fetched from the npm registry's `node` package. `run` is
 * execFile with the output kept for the failure message, and an environment without the variables
 * of the `npm run` that started the tests (they would point npm at this repository).
 *
 * Cost: one copy of the sources (about 1 MB), one `npm pack` (a build of src/, seconds), one
 * `npm exec node@V` per extra release (a download of about 30 MB the first time, cached after).
 */

import { execFile, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Child } from "./cli.js";

/** The repository root (dist/test/support/ -> three levels up). */
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Node releases the consumer projects also run on: the first 20.x and 22.x that load an ES module
 * from require() without a flag (what the README promises for CommonJS users).
 */
export const REQUIRE_ESM_NODE_VERSIONS = ["20.19.0", "22.12.0"] as const;

/** Generous: npm may download, and other engineers' tests share the machine's two cores. */
export const COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

/** Top-level entries of the repository that are not its sources. */
const NOT_SOURCES = new Set(["node_modules", "dist", ".git", "tmp", "bench/results"]);

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** The environment for child commands: this process's, less what `npm run` added for itself. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // npm_* and INIT_CWD describe the npm run of this repository; a child npm must find its own project.
    if (k.startsWith("npm_") || k === "INIT_CWD") continue;
    env[k] = v;
  }
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", ...extra };
}

/** Runs a command; resolves with its output, rejects with a message holding both streams. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? childEnv(),
        timeout: options.timeoutMs ?? COMMAND_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(
              `${command} ${args.join(" ")} (in ${options.cwd}) failed: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
            ),
          );
        } else resolve({ stdout, stderr });
      },
    );
  });
}

export const npm = (args: readonly string[], cwd: string): Promise<RunResult> => run("npm", args, { cwd });

/** Directories made by `temporaryDirectory`, removed when the test process exits. */
const made: string[] = [];

/**
 * A fresh temporary directory, removed at exit (not after each test file: the packed tarball is
 * shared by every file of the run).
 */
export function temporaryDirectory(prefix: string): string {
  if (made.length === 0) {
    process.once("exit", () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  const dir = mkdtempSync(join(tmpdir(), `quiver-${prefix}-`));
  made.push(dir);
  return dir;
}

/** Copies the repository's sources (everything but NOT_SOURCES) into a new directory. */
export function copySources(prefix: string): string {
  const dir = temporaryDirectory(prefix);
  cpSync(REPO, dir, {
    recursive: true,
    filter: (from) => !NOT_SOURCES.has(relative(REPO, from).split("\\").join("/")),
  });
  return dir;
}

export interface Packed {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Paths inside the package, as `npm pack --json` lists them. */
  files: string[];
}

let packing: Promise<Packed> | undefined;

/** `npm pack` of a copy of the sources, once per test run. */
export function packedTarball(): Promise<Packed> {
  packing ??= (async () => {
    const source = copySources("pack-source");
    // The copy borrows this repository's dev dependencies (TypeScript) for the prepack build.
    symlinkSync(join(REPO, "node_modules"), join(source, "node_modules"), "dir");
    const out = temporaryDirectory("pack-out");
    const { stdout } = await npm(["pack", "--json", "--pack-destination", out], source);
    // prepack's own output (npm run clean, tsc) comes before the JSON array on stdout.
    const listing = JSON.parse(stdout.slice(stdout.indexOf("\n[") + 1)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const entry = listing[0]!;
    const tarball = join(out, readdirSync(out).find((f) => f.endsWith(".tgz"))!);
    return { tarball, files: entry.files.map((f) => f.path).sort() };
  })();
  return packing;
}

export interface NodeBinary {
  version: string;
  path: string;
}

let fetching: Promise<NodeBinary[]> | undefined;

/** This Node, then each of REQUIRE_ESM_NODE_VERSIONS (fetched once through `npm exec node@V`). */
export function nodeBinaries(): Promise<NodeBinary[]> {
  fetching ??= (async () => {
    const binaries: NodeBinary[] = [{ version: process.version, path: process.execPath }];
    const cwd = temporaryDirectory("node-fetch");
    for (const version of REQUIRE_ESM_NODE_VERSIONS) {
      const { stdout } = await run(
        "npm",
        ["exec", "--yes", `--package=node@${version}`, "--", "node", "-p", "process.version + ' ' + process.execPath"],
        { cwd },
      );
      const [reported, path] = stdout.trim().split(" ") as [string, string];
      if (reported !== `v${version}`) throw new Error(`npm exec node@${version} ran ${reported}`);
      binaries.push({ version: reported, path });
    }
    return binaries;
  })();
  return fetching;
}

/** Starts a long-running command (a server) with its output collected, in the shape test/support/cli.ts waits on. */
export function start(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = childEnv(),
): Child {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/**
 * What every `quiver` command shares
 * ==================================
 * The exit statuses, the shape of a command in main.ts's table, and `runCommand`: parse the options
 * (node:util parseArgs, strict), answer `--help`, run the command's body, and turn what it throws
 * into one line on stderr and an exit status, the same way for every command:
 *
 *  | thrown                                          | printed                        | status |
 *  |-------------------------------------------------|--------------------------------|--------|
 *  | an option parseArgs rejects, a UsageError       | the reason, then "Run --help"  | 2      |
 *  | a QuiverError naming a parameter (--limit 0)    | `--name: reason`               | 2      |
 *  | a CommandFailure, another QuiverError (a bad    | the reason (it names the file, | 1      |
 *  |   data line, a bad snapshot), a system error    |   or file:line)                |        |
 *  | anything else                                   | rethrown: a bug, main.ts shows it with its stack |  |
 *
 * A closed stdout (`quiver search ... | head`) is not an error: the command stops quietly with 0.
 */

import { parseArgs, type ParseArgsConfig } from "node:util";
import { QuiverError } from "../index.js";
import { UsageError } from "./graph-source.js";

/**
 * Exit status of a command that ends with an error: the data or a file could not be used.
 * (serve.ts, older than this file, declares the same two statuses for `quiver serve`.)
 */
export const EXIT_FAILURE = 1;
/** Exit status of a command given options it cannot run with. */
export const EXIT_USAGE = 2;
/** Exit status of `quiver entity` when the graph has no entity with the id asked for. */
export const EXIT_NOT_FOUND = 3;

/** One row of main.ts's table. */
export interface Command {
  /** One line for `quiver --help`. */
  summary: string;
  /** Runs the command with its own arguments; resolves with the exit status. */
  run(argv: string[]): Promise<number>;
}

/** A failure to report in one line (it names what failed) with EXIT_FAILURE. */
export class CommandFailure extends Error {
  override readonly name = "CommandFailure";
}

export { UsageError };

/** The options a command declares, in parseArgs's form (single values only). */
export type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** What a command's body receives: each option's value (undefined when absent), the positionals. */
export interface ParsedArgs<T extends OptionsConfig> {
  values: { [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean : string };
  positionals: string[];
}

/** The help option every command takes. */
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const satisfies OptionsConfig;

/**
 * Parses `argv`, prints `help` for --help, else runs `body`; reports what it throws as the table above
 * says. `name` is the command's name in messages ("search" -> "quiver search: ...").
 */
export async function runCommand<T extends OptionsConfig>(
  name: string,
  help: string,
  argv: string[],
  options: T,
  body: (args: ParsedArgs<T>) => Promise<number>,
): Promise<number> {
  const err = process.stderr;
  const usage = (message: string): number => {
    err.write(`quiver ${name}: ${message}\nRun "quiver ${name} --help" for the options.\n`);
    return EXIT_USAGE;
  };
  let parsed: ParsedArgs<T>;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, ...HELP_OPTION },
      strict: true,
      allowPositionals: true,
    });
    if ((values as { help?: boolean }).help === true) {
      process.stdout.write(help);
      return 0;
    }
    parsed = { values: values as ParsedArgs<T>["values"], positionals };
  } catch (e) {
    return usage((e as Error).message);
  }
  try {
    return await body(parsed);
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    // A parameter's value is the user's to fix on the command line, like any other option.
    if (e instanceof QuiverError && e.parameter !== undefined) return usage(`--${e.parameter}: ${e.message}`);
    if (e instanceof QuiverError || e instanceof CommandFailure || isSystemError(e)) {
      err.write(`quiver ${name}: ${(e as Error).message}\n`);
      return EXIT_FAILURE;
    }
    if (isClosedOutput(e)) return 0;
    throw e;
  }
}

/** A failed system call (ENOENT, EACCES, ENOSPC...): the environment's fault, not Quiver's. */
function isSystemError(e: unknown): boolean {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).syscall === "string" && !isClosedOutput(e);
}

/** The reader of stdout went away (EPIPE): whoever piped us into `head` has what they wanted. */
export function isClosedOutput(e: unknown): boolean {
  return e instanceof Error && (e as NodeJS.ErrnoException).code === "EPIPE";
}

/** The one positional argument a command takes, called `name` in its usage line. */
export function positionalArgument(positionals: readonly string[], name: string): string {
  const [first, second] = positionals;
  if (first === undefined) throw new UsageError(`missing ${name}`);
  if (second !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(second)}`);
  return first;
}

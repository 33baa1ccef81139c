/**
 * Options of the benchmarks that run on their own
 * ===============================================
 * `npm run bench:http`, `bench:http-workers`, `bench:memory` and `bench:reload` read their options
 * with node:util's parseArgs (strict: an unknown option is an error). This owns what they share
 * around it: `--help` (or `-h`) prints the bench's usage and exits 0; an option parseArgs refuses
 * prints the reason and the usage on stderr and exits 2, instead of a stack trace. (`npm run bench`
 * itself has its own parser, bench/args.ts.)
 */

import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit status for a command line that cannot be read (as `npm run bench` uses). */
const USAGE_EXIT = 2;

/** What a bench accepts: parseArgs's option table. */
type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;
/** The values parseArgs reads for `O`, strictly. */
type OptionValues<O extends OptionSpecs> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true }>
>["values"];

/**
 * The values of `argv` read against `options` (strict), or the process ends: `--help` prints
 * `usage`; an option parseArgs refuses prints why, then `usage`.
 */
export function benchOptions<const O extends OptionSpecs>(argv: string[], options: O, usage: string): OptionValues<O> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, strict: true }).values;
  } catch (e) {
    if (!String((e as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS")) throw e;
    process.stderr.write(`${(e as Error).message}\n\n${usage.trim()}\n`);
    process.exit(USAGE_EXIT);
  }
}

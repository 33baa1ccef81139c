/**
 * Options of the benchmarks that run on their own
 * ===============================================
 * `npm run bench:http`, `bench:http-workers`, `bench:memory` and `bench:reload` read their options
 * with node:util's parseArgs (strict: an unknown option is an error). This owns what they share
 * around it: `--help` (or `-h`) prints the bench's usage and exits 0; an option parseArgs refuses
 * prints the reason and the usage on stderr and exits 2, instead of a stack trace. (`npm run bench`
 * itself has its own parser, bench/args.ts.)
 */

/** Exit status for a command line that cannot be read (as `npm run bench` uses). */
const USAGE_EXIT = 2;

/**
 * What `parse` (a parseArgs call over `argv`) reads, or the process ends: `--help` prints `usage`;
 * an option parseArgs refuses prints why, then `usage`.
 */
export function benchOptions<T>(argv: string[], usage: string, parse: (args: string[]) => T): T {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parse(argv);
  } catch (e) {
    if (!String((e as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS")) throw e;
    process.stderr.write(`${(e as Error).message}\n\n${usage.trim()}\n`);
    process.exit(USAGE_EXIT);
  }
}

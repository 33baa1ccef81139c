/**
 * The `--threads` option
 * ======================
 * How many threads parse statements.jsonl while a graph is built from JSON Lines (LoadGraphOptions
 * .threads, load/statement-threads.ts): a whole number from 1 to MAX_THREADS; absent, the cores this
 * process may use (at most MAX_DEFAULT_THREADS) for a file of THREADS_MIN_STATEMENT_BYTES or more. A gzip file or stdin is read on one thread whatever
 * it says. The graph is the same for every count. One parser and one help line for `build` and `serve`.
 */

import { MAX_THREADS } from "../load/jsonl.js";
import { UsageError } from "./graph-source.js";

/** The help line of the option. */
export const THREADS_HELP = `  --threads N         threads that parse the statements file and sort the statement orders
                      (default: the cores, at most 8, for a file of 16 MB or more); a .gz file
                      or stdin is read on one thread`;

/** The count `--threads` gives, or undefined when it is absent; a usage error for any other value. */
export function threadsOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > MAX_THREADS) {
    throw new UsageError(`--threads must be a whole number from 1 to ${MAX_THREADS}; got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

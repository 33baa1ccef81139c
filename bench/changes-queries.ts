/**
 * bench:changes' query draws
 * ==========================
 * The distinct queries of bench:changes' read cases (changes.bench.ts) and of its reads right after
 * a batch (changes-after-batch.ts): substrings of entity names, as a person types them.
 */

import { isWellFormed } from "../src/engine/utf8.js";

/**
 * `n` distinct-query draws: a substring of 3 to 6 code units of a random name's identifier (names of
 * 3 or more), never one that cuts a surrogate pair (no query a person would type, and no URL can
 * carry it: the HTTP cases' encodeURIComponent throws on it), drawn again instead.
 */
export function drawQueries(names: readonly { rawIdentifier: string }[], n: number, rand: () => number): string[] {
  const queries: string[] = [];
  while (queries.length < n) {
    const raw = names[Math.floor(rand() * names.length)]!.rawIdentifier;
    const at = Math.floor(rand() * Math.max(1, raw.length - 3));
    const q = raw.slice(at, at + 3 + Math.floor(rand() * 4));
    if (isWellFormed(q)) queries.push(q);
  }
  return queries;
}

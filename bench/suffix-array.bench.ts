/**
 * Suffix array construction benchmark
 * ===================================
 * SA-IS (buildSuffixArray) on ~5M name-like UTF-16 code units, the search index's shape (folded
 * names, code unit + 1, 0 between names, alphabet 65537), and beside it the naive baseline, a
 * comparison sort of suffix indexes, on a 200k prefix only: it is O(n log n) comparisons of whole
 * suffixes, far too slow at 5M.
 *
 * Run alone: `node dist/bench/suffix-array.bench.js` (under a minute on 2 cores), or import run().
 */

import { Bench } from "tinybench";
import { isMainModule } from "../tools/main-module.js";
import { mulberry32 } from "../tools/prng.js";
import { buildSuffixArray } from "../src/engine/suffix-array.js";
import { naiveSuffixArray } from "../tools/naive-suffix-array.js";

const LARGE_N = 5_000_000;
const NAIVE_N = 200_000;
const ALPHABET = 65537;
const SEPARATOR = 0;

/** n code units of folded, name-like text: words of 1-4 syllables, 1-4 words per name, 0 between names. */
function nameLikeText(n: number, seed: number): Uint16Array {
  const rand = mulberry32(seed);
  const syllables = [
    "an",
    "ber",
    "ca",
    "del",
    "e",
    "fon",
    "gi",
    "han",
    "is",
    "jo",
    "kar",
    "lu",
    "ma",
    "nor",
    "o",
    "pe",
    "qui",
    "ro",
    "sen",
    "ta",
    "ul",
    "ve",
    "wil",
    "xa",
    "yo",
    "zé",
    "ü",
    "ñez",
    "son",
    "berg",
    "ov",
    "lé",
  ];
  const text = new Uint16Array(n);
  let i = 0;
  while (i < n) {
    const words = 1 + Math.floor(rand() * 4);
    for (let w = 0; w < words && i < n; w++) {
      if (w > 0) text[i++] = 0x20 + 1;
      const syl = 1 + Math.floor(rand() * 4);
      for (let s = 0; s < syl; s++) {
        // Skewed choice: a few syllables dominate, as in real names.
        const word = syllables[Math.floor(rand() * rand() * syllables.length)]!;
        for (let c = 0; c < word.length && i < n; c++) text[i++] = word.charCodeAt(c) + 1;
      }
    }
    if (i < n) text[i++] = SEPARATOR;
  }
  return text;
}

export async function run(): Promise<void> {
  const large = nameLikeText(LARGE_N, 1);
  const small = large.slice(0, NAIVE_N);
  console.log(
    `suffix array: SA-IS on ${LARGE_N} and ${NAIVE_N} name-like code units; naive sort of suffixes on ${NAIVE_N} only (it is too slow for ${LARGE_N})`,
  );

  let sink = 0;
  const bench = new Bench({
    name: "suffix array construction",
    time: 0,
    iterations: 5,
    warmupIterations: 1,
    warmupTime: 0,
  });
  bench
    .add(`SA-IS n=${LARGE_N}`, () => {
      sink += buildSuffixArray(large, ALPHABET)[0]!;
    })
    .add(`SA-IS n=${NAIVE_N}`, () => {
      sink += buildSuffixArray(small, ALPHABET)[0]!;
    })
    .add(
      `naive sort() of suffixes n=${NAIVE_N}`,
      () => {
        sink += naiveSuffixArray(small)[0]!;
      },
      { async: false },
    );
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());
  // Wall-clock latency counts time the OS gave to other processes; on a shared machine the CPU
  // time of one more run is the steadier figure.
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  sink += buildSuffixArray(large, ALPHABET)[0]!;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `one more SA-IS n=${LARGE_N}: ${(performance.now() - wallBefore).toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`,
  );
  if (sink < 0) console.log(sink);
}

if (isMainModule(import.meta.url)) {
  await run();
}

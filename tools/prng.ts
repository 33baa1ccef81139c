/**
 * Seeded pseudo-random numbers for tests and benchmarks
 * =====================================================
 * mulberry32 (Tommy Ettinger, public domain): 32 bits of state, floats in [0, 1), fast and well
 * mixed; enough for test inputs and generated graphs, never for secrets. Every seeded test, fuzzer
 * and generator draws from this one function, so a failure's seed replays it anywhere.
 */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

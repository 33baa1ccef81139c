/**
 * Symbol ranks tests
 * ==================
 * Seeded oracles: random sequences (lengths around the block and superblock sizes, 256 and 65,536,
 * bits 1..6, uniform values and skewed ones), rank of every symbol at every position (or a seeded
 * sample of positions on the long ones) against a running count; the same ranks from a wavelet
 * matrix of the sequence (fromWavelet) with identical arrays; the serial round trip, and a
 * corrupted count caught by the checks.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { SymbolRanks } from "../../../src/engine/succinct/symbol-ranks.js";
import { WaveletMatrix } from "../../../src/engine/succinct/wavelet-matrix.js";
import { mulberry32 } from "../../../tools/prng.js";

function randomValues(n: number, bits: number, rand: () => number, skewed: boolean): Uint32Array {
  const values = new Uint32Array(n);
  const sigma = 2 ** bits;
  // Skewed: a few symbols most of the time (the FM-index's classes are by frequency).
  for (let i = 0; i < n; i++) {
    const u = rand();
    values[i] = skewed ? Math.min(sigma - 1, Math.floor(sigma * u * u * u)) : Math.floor(sigma * u);
  }
  return values;
}

/** Checks rank(c, i) for every symbol at positions `at` (ascending), against a running count. */
function checkRanks(ranks: SymbolRanks, values: Uint32Array, bits: number, at: readonly number[]): void {
  const sigma = 2 ** bits;
  const counts = new Array<number>(sigma).fill(0);
  const out = new Int32Array(2);
  let i = 0;
  for (const p of at) {
    for (; i < p; i++) counts[values[i]!]!++;
    for (let c = 0; c < sigma; c++) {
      if (ranks.rank(c, p) !== counts[c])
        assert.unreachable(`rank(${c}, ${p}) = ${ranks.rank(c, p)}, want ${counts[c]}`);
    }
    const c = values[Math.min(p, values.length - 1)] ?? 0;
    ranks.rankPair(c, p, p, out);
    assert.is(out[0], counts[c]);
  }
}

test("rank of every symbol at every position, lengths around the block size, bits 1..6", () => {
  const rand = mulberry32(40);
  for (const n of [0, 1, 31, 32, 33, 255, 256, 257, 511, 512, 513, 3000]) {
    for (let bits = 1; bits <= 6; bits++) {
      for (const skewed of [false, true]) {
        const values = randomValues(n, bits, rand, skewed);
        const ranks = SymbolRanks.build(values, bits);
        checkRanks(
          ranks,
          values,
          bits,
          Array.from({ length: n + 1 }, (_, i) => i),
        );
      }
    }
  }
});

test("across superblocks: sampled positions of sequences past 2^16 and 2^17, and their last positions", () => {
  const rand = mulberry32(41);
  for (const n of [65535, 65536, 65537, 2 * 65536 + 300]) {
    for (const bits of [1, 5, 6]) {
      const values = randomValues(n, bits, rand, bits === 5);
      const ranks = SymbolRanks.build(values, bits);
      const at = new Set<number>([0, 1, 255, 256, 65535, 65536, 65537, n - 1, n]);
      for (let k = 0; k < 2000; k++) at.add(Math.floor(rand() * (n + 1)));
      checkRanks(
        ranks,
        values,
        bits,
        [...at].filter((p) => p <= n).sort((a, b) => a - b),
      );
    }
  }
});

test("fromWavelet: the same arrays as build, for every width and lengths around the blocks", () => {
  const rand = mulberry32(42);
  for (const n of [0, 1, 255, 256, 257, 5000, 65536, 70001]) {
    for (let bits = 1; bits <= 6; bits++) {
      const values = randomValues(n, bits, rand, bits % 2 === 0);
      const built = SymbolRanks.build(values, bits);
      const derived = SymbolRanks.fromWavelet(WaveletMatrix.build(values, bits));
      assert.is(derived.length, n);
      assert.is(derived.bits, bits);
      assert.ok(
        Buffer.from(derived.blocks.buffer).equals(Buffer.from(built.blocks.buffer)),
        `blocks, n ${n}, ${bits} bits`,
      );
      assert.ok(
        Buffer.from(derived.supers.buffer).equals(Buffer.from(built.supers.buffer)),
        `supers, n ${n}, ${bits} bits`,
      );
    }
  }
});

test("build refuses values out of range; the serial form round-trips; wrong counts are caught", () => {
  assert.throws(() => SymbolRanks.build(Uint32Array.of(0, 4), 2), /does not fit in 2 bits/);
  assert.throws(() => SymbolRanks.build(Uint32Array.of(0), 7), /bits must be/);
  const rand = mulberry32(43);
  const n = 65536 + 1000;
  const values = randomValues(n, 5, rand, true);
  const ranks = SymbolRanks.build(values, 5);
  const w = new MemorySerialWriter();
  ranks.serialize(w);
  const read = (fields: Map<string, unknown>, verify = true) =>
    SymbolRanks.deserialize(new MemorySerialReader(fields as never, { verify, fail: (what) => new Error(what) }));
  const back = read(w.fields);
  checkRanks(back, values, 5, [0, 1, 300, 65536, 65600, n]);
  assert.is(back.byteLength, ranks.byteLength);
  // A block's count one off: caught by the recount (verify), not by the superblocks' sums.
  const blocks = (w.fields.get("blocks") as Int32Array).slice();
  blocks[56 * 3] = blocks[56 * 3]! + 1;
  const broken = new Map(w.fields);
  broken.set("blocks", blocks);
  assert.throws(() => read(broken), /block 3 holds a wrong count/);
  read(broken, false);
  // A superblock's counts that do not add up to its start: caught always.
  const supers = (w.fields.get("supers") as Int32Array).slice();
  supers[32] = supers[32]! + 1;
  const badSupers = new Map(w.fields);
  badSupers.set("supers", supers);
  assert.throws(() => read(badSupers, false), /superblock 1 counts/);
  const short = new Map(w.fields);
  short.set("blocks", blocks.subarray(1));
  assert.throws(() => read(short, false), /blocks has/);
});

test.run();

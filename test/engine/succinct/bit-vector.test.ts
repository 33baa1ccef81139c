/**
 * Bit vector tests
 * ================
 * A hand-checked literal, then rank1/rank0/get against naive counting at lengths around word
 * (32), sub-block (128) and block (512) boundaries, at several densities; the snapshot round trip;
 * the space bound; touchRanks reads the words a rank at each end of a node reads first.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { BitVector, rank1At, touchRanks } from "../../../src/engine/succinct/bit-vector.js";
import { mulberry32 } from "../../../tools/prng.js";

/** Checks every get, rank1 and rank0 of `bv` against the 0/1 array `bits`; returns the first mismatch. */
function mismatch(bv: BitVector, bits: Uint8Array): string | null {
  if (bv.length !== bits.length) return `length ${bv.length} !== ${bits.length}`;
  let ones = 0;
  for (let i = 0; i <= bits.length; i++) {
    if (bv.rank1(i) !== ones) return `rank1(${i}) = ${bv.rank1(i)}, want ${ones}`;
    if (bv.rank0(i) !== i - ones) return `rank0(${i}) = ${bv.rank0(i)}, want ${i - ones}`;
    if (i === bits.length) break;
    if (bv.get(i) !== bits[i]) return `get(${i}) = ${bv.get(i)}, want ${bits[i]}`;
    ones += bits[i]!;
  }
  if (bv.ones !== ones) return `ones = ${bv.ones}, want ${ones}`;
  return null;
}

test("hand-checked literal", () => {
  //                           0  1  2  3  4  5  6  7  8  9
  const bv = BitVector.fromBits([1, 0, 1, 1, 0, 0, 0, 1, 0, 1]);
  assert.is(bv.length, 10);
  assert.is(bv.ones, 5);
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => bv.rank1(i)),
    [0, 1, 1, 2, 3, 3, 3, 3, 4, 4, 5],
  );
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => bv.rank0(i)),
    [0, 0, 1, 1, 1, 2, 3, 4, 4, 5, 5],
  );
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => bv.get(i)),
    [1, 0, 1, 1, 0, 0, 0, 1, 0, 1],
  );
});

test("builder: set() then seal()", () => {
  const bv = new BitVector(1000);
  for (const i of [0, 31, 32, 127, 128, 511, 512, 999]) bv.set(i);
  assert.is(bv.seal(), bv);
  assert.is(bv.ones, 8);
  assert.is(bv.rank1(32), 2);
  assert.is(bv.rank1(33), 3);
  assert.is(bv.rank1(512), 6);
  assert.is(bv.rank1(513), 7);
  assert.is(bv.rank1(1000), 8);
  assert.throws(() => bv.set(1), /after seal/);
  assert.throws(() => new BitVector(10).set(10), RangeError);
  assert.throws(() => new BitVector(10).set(-1), RangeError);
  assert.throws(() => new BitVector(-1), RangeError);
  assert.throws(() => new BitVector(1.5), RangeError);
});

test("builder: setWord() sets 32 bits at once", () => {
  const bits = new Uint8Array(1000);
  const bv = new BitVector(1000);
  const rand = mulberry32(3);
  for (let w = 0; w * 32 < 1000; w++) {
    let word = (rand() * 2 ** 32) | 0;
    // The last word only has 1000 - 992 = 8 bits inside the vector.
    if (w === 31) word &= 0xff;
    bv.setWord(w, word);
    for (let k = 0; k < 32 && w * 32 + k < 1000; k++) bits[w * 32 + k] = (word >>> k) & 1;
  }
  assert.is(mismatch(bv.seal(), bits), null);
  assert.throws(() => bv.setWord(0, 1), /after seal/);
  assert.throws(() => new BitVector(64).setWord(2, 1), RangeError);
});

test("empty vector", () => {
  const bv = BitVector.fromBits([]);
  assert.is(bv.length, 0);
  assert.is(bv.ones, 0);
  assert.is(bv.rank1(0), 0);
  assert.is(bv.rank0(0), 0);
});

test("oracle: lengths around word, sub-block and block boundaries, several densities", () => {
  const rand = mulberry32(0xb17);
  const lengths = [
    0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 383, 384, 385, 511, 512, 513, 1023, 1024, 1025, 1536,
    4097, 20000,
  ];
  for (let t = 0; t < 40; t++) lengths.push(Math.floor(rand() * 5000));
  const densities = [0, 0.01, 0.3, 0.5, 0.9, 1];
  for (const n of lengths) {
    for (const p of densities) {
      const bits = new Uint8Array(n);
      for (let i = 0; i < n; i++) bits[i] = rand() < p ? 1 : 0;
      const problem = mismatch(BitVector.fromBits(bits), bits);
      assert.is(problem, null, `n=${n} p=${p}`);
    }
  }
});

test("snapshot: fromArrays(blocks, length) answers like the original", () => {
  const rand = mulberry32(99);
  const n = 3000;
  const bits = new Uint8Array(n);
  for (let i = 0; i < n; i++) bits[i] = rand() < 0.4 ? 1 : 0;
  const original = BitVector.fromBits(bits);
  const restored = BitVector.fromArrays(original.blocks.slice(), original.length);
  assert.is(mismatch(restored, bits), null);
  assert.is(restored.ones, original.ones);
  assert.throws(() => restored.set(0), /after seal/);
  assert.throws(() => BitVector.fromArrays(new Int32Array(5), n), RangeError);
  assert.is(original.blocks.length, BitVector.blocksLength(n));
});

test("rank1At works on a vector stored at an offset in a shared array", () => {
  const n = 700;
  const size = BitVector.blocksLength(n);
  const shared = new Int32Array(3 * size);
  const middle = new BitVector(n, shared.subarray(size, 2 * size));
  for (let i = 0; i < n; i += 3) middle.set(i);
  middle.seal();
  for (let i = 0; i <= n; i++) assert.is(rank1At(shared, size, i), Math.ceil(i / 3));
});

test("touchRanks reads each end's block count and the word holding it, in a vector at an offset", () => {
  const rnd = mulberry32(30);
  for (const n of [1, 31, 512, 700, 5000]) {
    const size = BitVector.blocksLength(n);
    const shared = new Int32Array(2 * size);
    const bv = new BitVector(n, shared.subarray(size));
    for (let i = 0; i < n; i++) if (rnd() < 0.4) bv.set(i);
    bv.seal();
    // The 32 bits of the vector from the word boundary at or below x, as an int32 (zeros past n).
    const wordOf = (x: number): number => {
      let w = 0;
      for (let j = x & ~31; j < (x & ~31) + 32 && j < n; j++) w |= bv.get(j) << (j & 31);
      return w;
    };
    const nodes = 40;
    const starts = new Int32Array(nodes);
    const ends = new Int32Array(nodes);
    let want = 0;
    for (let i = 0; i < nodes; i++) {
      const a = Math.floor(rnd() * (n + 1));
      const b = Math.floor(rnd() * (n + 1));
      starts[i] = Math.min(a, b);
      ends[i] = Math.max(a, b);
      for (const x of [starts[i]!, ends[i]!]) want ^= bv.rank1(x & ~511) ^ wordOf(x);
    }
    assert.is(touchRanks(shared, size, starts, ends, nodes), want, `n=${n}`);
  }
});

test("space: at most 15% over n bits", () => {
  for (const n of [1 << 16, 1 << 20, 5_000_000]) {
    const bv = new BitVector(n);
    assert.ok(bv.byteLength <= (n / 8) * 1.15, `n=${n}: ${bv.byteLength} bytes`);
  }
});

test.run();

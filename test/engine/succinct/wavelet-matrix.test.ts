/**
 * Wavelet matrix tests
 * ====================
 * A hand-checked literal, then seeded oracles: random sequences (n from 0 up, bits 1..22, uniform
 * values and values from a small palette, so repeats happen), access and rank at every position,
 * and thousands of rangeSuccessor queries against a brute-force scan; the distinct-listing loop the
 * search index runs; the snapshot round trip.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { WaveletMatrix } from "../../../src/engine/succinct/wavelet-matrix.js";
import { mulberry32 } from "../../../tools/prng.js";

function naiveRangeSuccessor(values: Uint32Array, l: number, r: number, lo: number, hi: number): number {
  let best = -1;
  for (let i = Math.max(l, 0); i < Math.min(r, values.length); i++) {
    const v = values[i]!;
    if (v >= lo && v < hi && (best === -1 || v < best)) best = v;
  }
  return best;
}

test("hand-checked literal: [5, 2, 7, 2, 0, 6], 3 bits", () => {
  const values = Uint32Array.of(5, 2, 7, 2, 0, 6);
  const wm = WaveletMatrix.build(values, 3);
  assert.is(wm.length, 6);
  assert.is(wm.bits, 3);
  assert.equal(
    [0, 1, 2, 3, 4, 5].map((i) => wm.access(i)),
    [5, 2, 7, 2, 0, 6],
  );
  assert.is(wm.rank(2, 6), 2);
  assert.is(wm.rank(2, 3), 1);
  assert.is(wm.rank(2, 1), 0);
  assert.is(wm.rank(7, 2), 0);
  assert.is(wm.rank(7, 3), 1);
  assert.is(wm.rank(1, 6), 0);
  assert.is(wm.rank(8, 6), 0);
  // Positions 1..4 hold 2, 7, 2, 0: the smallest in [3, 8) is 7.
  assert.is(wm.rangeSuccessor(1, 5, 3, 8), 7);
  // ...in [0, 8) is 0, in [1, 8) is 2, in [3, 7) none.
  assert.is(wm.rangeSuccessor(1, 5, 0, 8), 0);
  assert.is(wm.rangeSuccessor(1, 5, 1, 8), 2);
  assert.is(wm.rangeSuccessor(1, 5, 3, 7), -1);
  // Whole sequence: 0 2 5 6 7 in turn.
  assert.is(wm.rangeSuccessor(0, 6, 0, 8), 0);
  assert.is(wm.rangeSuccessor(0, 6, 1, 8), 2);
  assert.is(wm.rangeSuccessor(0, 6, 3, 8), 5);
  assert.is(wm.rangeSuccessor(0, 6, 6, 8), 6);
  assert.is(wm.rangeSuccessor(0, 6, 7, 8), 7);
  assert.is(wm.rangeSuccessor(0, 6, 8, 100), -1);
  // Positions 0..2 hold 5, 2, 7: nothing in [6, 7).
  assert.is(wm.rangeSuccessor(0, 3, 6, 7), -1);
  // Empty ranges.
  assert.is(wm.rangeSuccessor(3, 3, 0, 8), -1);
  assert.is(wm.rangeSuccessor(0, 6, 5, 5), -1);
  // Clamping: positions and values outside the matrix.
  assert.is(wm.rangeSuccessor(-5, 100, -3, 1 << 20), 0);
});

test("build rejects values that do not fit and bad widths", () => {
  assert.throws(() => WaveletMatrix.build(Uint32Array.of(8), 3), RangeError);
  assert.throws(() => WaveletMatrix.build(Uint32Array.of(1), 32), RangeError);
  assert.throws(() => WaveletMatrix.build(Uint32Array.of(1), -1), RangeError);
});

test("edge widths: bits = 0 and bits = 31", () => {
  const zero = WaveletMatrix.build(new Uint32Array(5), 0);
  assert.is(zero.access(3), 0);
  assert.is(zero.rank(0, 4), 4);
  assert.is(zero.rangeSuccessor(1, 3, 0, 10), 0);
  assert.is(zero.rangeSuccessor(1, 3, 1, 10), -1);
  const big = 2 ** 31 - 1;
  const wide = WaveletMatrix.build(Uint32Array.of(big, 0, 2 ** 30, big - 1), 31);
  assert.equal(
    [0, 1, 2, 3].map((i) => wide.access(i)),
    [big, 0, 2 ** 30, big - 1],
  );
  assert.is(wide.rank(big, 4), 1);
  assert.is(wide.rangeSuccessor(0, 4, 1, 2 ** 31), 2 ** 30);
  assert.is(wide.rangeSuccessor(0, 4, 2 ** 30 + 1, 2 ** 31), big - 1);
  assert.is(wide.rangeSuccessor(0, 1, big, 2 ** 40), big);
});

test("oracle: buildAbove is the matrix of the high bits, and orders the whole values as its levels do", () => {
  const rand = mulberry32(0xab0e);
  for (const n of [0, 1, 2, 31, 32, 33, 100, 1000, 4099]) {
    for (const [bits, below] of [
      [0, 3],
      [1, 0],
      [3, 1],
      [7, 5],
      [11, 12],
      [19, 12],
    ] as const) {
      const values = Uint32Array.from({ length: n }, () => Math.floor(rand() * 2 ** (bits + below)));
      const expected = WaveletMatrix.build(
        values.map((v) => v >>> below),
        bits,
      );
      // The order below the last level: a stable partition by each level's bit, the last one too.
      let order = Array.from(values);
      for (let d = 0; d < bits; d++) {
        const bit = (v: number): number => (v >>> (below + bits - 1 - d)) & 1;
        order = [...order.filter((v) => bit(v) === 0), ...order.filter((v) => bit(v) === 1)];
      }
      const built = WaveletMatrix.buildAbove(values.slice(), bits, below);
      const what = `n=${n} bits=${bits} below=${below}`;
      assert.equal(Array.from(built.matrix.levelBlocks), Array.from(expected.levelBlocks), what);
      assert.equal(Array.from(built.matrix.zeros), Array.from(expected.zeros), what);
      assert.equal(Array.from(built.order), order, what);
    }
  }
  assert.throws(() => WaveletMatrix.buildAbove(Uint32Array.of(64), 3, 3), RangeError);
});

test("oracle: access, rank and rangeSuccessor against brute force", () => {
  const rand = mulberry32(0x3a7e1e7);
  const sizes = [0, 1, 2, 3, 7, 31, 32, 33, 100, 511, 512, 513, 1000, 2500];
  let queries = 0;
  for (const n of sizes) {
    for (let bits = 1; bits <= 22; bits++) {
      const limit = 2 ** bits;
      const values = new Uint32Array(n);
      // Half the sequences draw from a small palette, so values repeat and ranges share them.
      const palette = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => Math.floor(rand() * limit));
      const fromPalette = rand() < 0.5;
      for (let i = 0; i < n; i++)
        values[i] = fromPalette ? palette[Math.floor(rand() * palette.length)]! : Math.floor(rand() * limit);
      const wm = WaveletMatrix.build(values, bits);

      const counts = new Map<number, number>();
      for (let i = 0; i <= n; i++) {
        // rank of a present value and of a random one, at every prefix.
        const probe = i < n ? values[i]! : 0;
        const random = Math.floor(rand() * limit);
        if (wm.rank(probe, i) !== (counts.get(probe) ?? 0))
          assert.unreachable(`rank(${probe}, ${i}) n=${n} bits=${bits}`);
        if (wm.rank(random, i) !== (counts.get(random) ?? 0))
          assert.unreachable(`rank(${random}, ${i}) n=${n} bits=${bits}`);
        if (i === n) break;
        if (wm.access(i) !== values[i]) assert.unreachable(`access(${i}) n=${n} bits=${bits}`);
        counts.set(values[i]!, (counts.get(values[i]!) ?? 0) + 1);
      }

      const q = n === 0 ? 20 : 150;
      for (let k = 0; k < q; k++) {
        let l = Math.floor(rand() * (n + 1));
        let r = Math.floor(rand() * (n + 1));
        if (l > r) [l, r] = [r, l];
        // lo near a present value half the time: the interesting boundary.
        let lo =
          rand() < 0.5 && n > 0
            ? values[Math.floor(rand() * n)]! + Math.floor(rand() * 3) - 1
            : Math.floor(rand() * limit);
        let hi = rand() < 0.3 ? limit : lo + Math.floor(rand() * limit);
        if (rand() < 0.05) [lo, hi] = [hi, lo];
        const got = wm.rangeSuccessor(l, r, lo, hi);
        const want = naiveRangeSuccessor(values, l, r, lo, hi);
        if (got !== want) assert.is(got, want, `rangeSuccessor(${l}, ${r}, ${lo}, ${hi}) n=${n} bits=${bits}`);
        queries++;
      }
    }
  }
  assert.ok(queries > 10000, `${queries} queries`);
});

test("listing distinct values of a range in order, the search index's loop", () => {
  const rand = mulberry32(5);
  const n = 5000;
  const bits = 12;
  const values = new Uint32Array(n);
  for (let i = 0; i < n; i++) values[i] = Math.floor(rand() * 700);
  const wm = WaveletMatrix.build(values, bits);
  for (let t = 0; t < 50; t++) {
    const l = Math.floor(rand() * n);
    const r = l + Math.floor(rand() * (n - l));
    const listed: number[] = [];
    for (let v = wm.rangeSuccessor(l, r, 0, 2 ** bits); v !== -1; v = wm.rangeSuccessor(l, r, v + 1, 2 ** bits))
      listed.push(v);
    const want = [...new Set(values.subarray(l, r))].sort((a, b) => a - b);
    assert.equal(listed, want);
  }
});

test("rangeDistinct: hand-checked literal", () => {
  const wm = WaveletMatrix.build(Uint32Array.of(5, 2, 7, 2, 0, 6), 3);
  const out = new Int32Array(8);
  assert.is(wm.rangeDistinct(0, 6, 0, 8, out), 5);
  assert.equal(Array.from(out.subarray(0, 5)), [0, 2, 5, 6, 7]);
  assert.is(wm.rangeDistinct(1, 5, 1, 8, out), 2);
  assert.equal(Array.from(out.subarray(0, 2)), [2, 7]);
  assert.is(wm.rangeDistinct(0, 6, 3, 7, out, 2), 2);
  assert.equal(Array.from(out.subarray(0, 2)), [5, 6]);
  assert.is(wm.rangeDistinct(1, 5, 3, 7, out), 0);
  assert.is(wm.rangeDistinct(0, 6, 0, 8, out, 0), 0);
  assert.is(wm.rangeDistinct(-1, 99, -5, 99, new Uint32Array(3)), 3);
});

test("oracle: rangeDistinct equals repeated rangeSuccessor", () => {
  const rand = mulberry32(0xd15);
  const out = new Int32Array(64);
  for (const n of [0, 1, 5, 64, 700, 3000]) {
    for (const bits of [0, 1, 2, 3, 5, 8, 13, 20, 31]) {
      const limit = 2 ** bits;
      const values = new Uint32Array(n);
      const spread = rand() < 0.5 ? limit : Math.min(limit, 1 + Math.floor(rand() * 100));
      for (let i = 0; i < n; i++) values[i] = Math.floor(rand() * spread);
      const wm = WaveletMatrix.build(values, bits);
      for (let k = 0; k < 120; k++) {
        let l = Math.floor(rand() * (n + 1));
        let r = Math.floor(rand() * (n + 1));
        if (l > r) [l, r] = [r, l];
        const lo = Math.floor(rand() * (limit + 1));
        const hi = rand() < 0.5 ? limit : lo + Math.floor(rand() * spread);
        const max = Math.floor(rand() * 65);
        const count = wm.rangeDistinct(l, r, lo, hi, out, max);
        const want: number[] = [];
        for (
          let v = wm.rangeSuccessor(l, r, lo, hi);
          v !== -1 && want.length < max;
          v = wm.rangeSuccessor(l, r, v + 1, hi)
        )
          want.push(v);
        const got = Array.from(out.subarray(0, count));
        if (got.join() !== want.join())
          assert.equal(got, want, `rangeDistinct(${l}, ${r}, ${lo}, ${hi}, ${max}) n=${n} bits=${bits}`);
      }
    }
  }
});

test("snapshot: fromArrays answers like the original; byteLength counts its arrays", () => {
  const rand = mulberry32(11);
  const n = 2000;
  const values = Uint32Array.from({ length: n }, () => Math.floor(rand() * 1000));
  const wm = WaveletMatrix.build(values, 10);
  const restored = WaveletMatrix.fromArrays(wm.length, wm.bits, wm.levelBlocks.slice(), wm.zeros.slice());
  for (let i = 0; i < n; i++) assert.is(restored.access(i), values[i]);
  for (let k = 0; k < 200; k++) {
    const l = Math.floor(rand() * n);
    const r = Math.floor(rand() * (n + 1));
    const lo = Math.floor(rand() * 1024);
    assert.is(restored.rangeSuccessor(l, r, lo, 1024), wm.rangeSuccessor(l, r, lo, 1024));
  }
  assert.ok(wm.byteLength >= wm.levelBlocks.byteLength + wm.zeros.byteLength);
  // 10 levels of ~1.125 bits per value.
  assert.ok(wm.byteLength < (10 * n * 1.15) / 8 + 10 * 72 + 200);
  assert.throws(() => WaveletMatrix.fromArrays(n, 10, new Int32Array(3), wm.zeros), RangeError);
  assert.throws(() => WaveletMatrix.fromArrays(n, 10, wm.levelBlocks, new Int32Array(2)), RangeError);
});

test.run();

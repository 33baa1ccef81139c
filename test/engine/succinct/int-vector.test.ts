/**
 * Packed integer vector tests: every width 0..32 against a plain array (values that straddle two
 * words, the largest value of each width), `from` picking the narrowest width, the serial form
 * round trip and its shape check, fieldsBelow (a column of packed records in range) and
 * threeFieldsBelow (three adjacent fields) against a scan of readBits, for every width, strides of
 * one to three words and limits either side of the largest value.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  fieldsBelow,
  IntVector,
  readBits,
  threeFieldsBelow,
  writeBits,
} from "../../../src/engine/succinct/int-vector.js";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { Rng } from "../../support/oracle.js";

test("get returns what set stored, for every width, across word boundaries", () => {
  const rng = new Rng(1);
  for (let width = 0; width <= 32; width++) {
    const n = 200;
    const max = width === 0 ? 0 : 2 ** width - 1;
    const values = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? max : Math.floor(rng.float() * (max + 1))));
    const v = new IntVector(n, width);
    for (const [i, x] of values.entries()) v.set(i, x);
    // Overwrite some in place: neighbours must keep their bits.
    for (let i = 0; i < n; i += 5) {
      values[i] = Math.floor(rng.float() * (max + 1));
      v.set(i, values[i]!);
    }
    assert.equal(
      Array.from({ length: n }, (_, i) => v.get(i)),
      values,
      `width ${width}`,
    );
  }
});

test("from picks the narrowest width; out-of-range values are refused", () => {
  assert.is(IntVector.from([0, 0]).width, 0);
  assert.is(IntVector.from([1]).width, 1);
  assert.is(IntVector.from([5, 255]).width, 8);
  assert.is(IntVector.from([256]).width, 9);
  assert.is(IntVector.from([0xffffffff]).width, 32);
  assert.throws(() => new IntVector(2, 3).set(0, 8), /does not fit/);
  assert.throws(() => new IntVector(2, 33), /width/);
});

test("serial form: round trip, and a wrong word count is corrupt", () => {
  const v = IntVector.from([3, 1, 4, 1, 5, 9, 2, 6]);
  const w = new MemorySerialWriter();
  v.serialize(w);
  const back = IntVector.deserialize(new MemorySerialReader(w.fields));
  assert.equal(
    Array.from({ length: 8 }, (_, i) => back.get(i)),
    [3, 1, 4, 1, 5, 9, 2, 6],
  );
  w.fields.set("words", new Uint32Array(1));
  assert.throws(() => IntVector.deserialize(new MemorySerialReader(w.fields)), /cannot have/);
});

test("fieldsBelow: a column of packed records against a scan, every width, limits either side of its largest value", () => {
  const rng = new Rng(7);
  for (let width = 0; width <= 32; width++) {
    for (let round = 0; round < 12; round++) {
      const count = rng.range(0, 300);
      const offset = rng.int(40);
      const stride = Math.max(1, width + offset + rng.int(60));
      const words = new Uint32Array(Math.ceil((count * stride + offset + width) / 32) + 1);
      const top = width === 0 ? 0 : 2 ** width - 1;
      for (let i = 0; i < count; i++) {
        // Neighbouring bits all ones: the field must be read alone.
        if (rng.chance(0.5)) writeBits(words, i * stride, Math.min(32, stride), 2 ** Math.min(32, stride) - 1);
      }
      const values: number[] = [];
      for (let i = 0; i < count; i++) {
        const v = rng.chance(0.1) ? top : Math.floor(rng.float() * (top + 1));
        writeBits(words, offset + i * stride, width, v);
        values.push(v);
      }
      // Read back by readBits: what the records hold after every neighbour was written.
      const read = values.map((_, i) => readBits(words, offset + i * stride, width) >>> 0);
      const max = read.length === 0 ? -1 : Math.max(...read);
      for (const limit of [0, 1, max, max + 1, max + 2, 2 ** width, Math.floor(top / 2)]) {
        assert.is(
          fieldsBelow(words, count, stride, offset, width, limit),
          read.every((v) => v < limit),
          `width ${width} stride ${stride} offset ${offset} count ${count} limit ${limit} max ${max}`,
        );
      }
    }
  }
  const v = IntVector.from([5, 0, 9, 3]);
  assert.ok(v.allBelow(10));
  assert.not.ok(v.allBelow(9));
});

test("threeFieldsBelow: three adjacent fields of packed records against a scan of each, limits either side of each largest value", () => {
  const rng = new Rng(11);
  let failed = 0;
  for (let round = 0; round < 400; round++) {
    const widths = [rng.int(33), rng.int(33), rng.int(33)] as const;
    const stride = widths[0] + widths[1] + widths[2] + rng.int(3) || 1;
    const count = rng.range(0, 200);
    const words = new Uint32Array(Math.ceil((count * stride) / 32) + 1);
    const read: number[][] = [[], [], []];
    for (let i = 0; i < count; i++) {
      let at = i * stride;
      for (let f = 0; f < 3; f++) {
        const top = widths[f]! === 0 ? 0 : 2 ** widths[f]! - 1;
        writeBits(words, at, widths[f]!, rng.chance(0.1) ? top : Math.floor(rng.float() * (top + 1)));
        at += widths[f]!;
      }
    }
    for (let i = 0; i < count; i++) {
      let at = i * stride;
      for (let f = 0; f < 3; f++) {
        read[f]!.push(readBits(words, at, widths[f]!) >>> 0);
        at += widths[f]!;
      }
    }
    // Each limit: mostly one no value reaches (max + 1, 2^width), else any (0, max, random).
    const limitOf = (f: number) => {
      const max = read[f]!.length === 0 ? -1 : Math.max(...read[f]!);
      return rng.chance(0.7)
        ? rng.pick([max + 1, 2 ** widths[f]!])
        : rng.pick([0, max, rng.int(2 ** Math.min(widths[f]!, 30) + 1)]);
    };
    const [l0, l1, l2] = [limitOf(0), limitOf(1), limitOf(2)];
    const want = read[0]!.every((v) => v < l0) && read[1]!.every((v) => v < l1) && read[2]!.every((v) => v < l2);
    const got = threeFieldsBelow(words, count, stride, widths[0], l0, widths[1], l1, widths[2], l2);
    assert.is(got, want, `widths ${widths} stride ${stride} count ${count} limits ${l0} ${l1} ${l2}`);
    if (!want) failed++;
  }
  assert.ok(failed > 50 && failed < 350, `${failed} of 400 rounds out of range`);
});

test.run();

/**
 * Packed integer vector tests: every width 0..32 against a plain array (values that straddle two
 * words, the largest value of each width), `from` picking the narrowest width, and the serial form
 * round trip and its shape check.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { IntVector } from "../../../src/engine/succinct/int-vector.js";
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

test.run();

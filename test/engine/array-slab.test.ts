/**
 * Final arrays in shared memory (engine/array-slab.ts)
 * ====================================================
 * Outside a slab's run a final array is an array of its own; inside, a zeroed view carved from the
 * slab's shared chunks: aligned, never overlapping another, the small ones packed into the chunks'
 * free tails (first fit), one larger than a chunk in a buffer of its own; a run restores the slab
 * around it (nested, or ended by a throw).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { ArraySlab, finalArray, SLAB_CHUNK_BYTES } from "../../src/engine/array-slab.js";

test("outside a run a final array is an array of its own; inside, a zeroed view of the slab's shared memory", () => {
  const own = finalArray(Uint32Array, 10);
  assert.ok(own.buffer instanceof ArrayBuffer);
  assert.is(own.length, 10);
  const slab = new ArraySlab();
  const carved = slab.run(() => [
    finalArray(Uint8Array, 3),
    finalArray(Float64Array, 5),
    finalArray(Uint16Array, 7),
    finalArray(Int32Array, 11),
  ]);
  const buffer = carved[0]!.buffer;
  assert.ok(buffer instanceof SharedArrayBuffer);
  for (const a of carved) {
    assert.is(a.buffer, buffer, "small arrays share one chunk");
    assert.is(a.byteOffset % 8, 0, "aligned for a Float64Array");
    assert.ok(
      a.every((x) => x === 0),
      "zeroed",
    );
  }
  assert.equal(
    carved.map((a) => a.length),
    [3, 5, 7, 11],
  );
  // No two overlap: filling each leaves the others as they were.
  for (const [i, a] of carved.entries()) a.fill(i + 1);
  for (const [i, a] of carved.entries())
    assert.ok(
      a.every((x) => x === i + 1),
      `array ${i} kept its values`,
    );
  assert.is(slab.bytes, 8 + 40 + 16 + 48);
  // After the run, arrays of their own again.
  assert.ok(finalArray(Uint8Array, 1).buffer instanceof ArrayBuffer);
});

test("an array larger than a chunk gets a buffer of its own; smaller ones go on filling the first chunk's tail", () => {
  const slab = new ArraySlab();
  const first = slab.array(Uint8Array, 16);
  const big = slab.array(Uint8Array, SLAB_CHUNK_BYTES + 8);
  const next = slab.array(Uint8Array, 16);
  assert.is.not(big.buffer, first.buffer);
  assert.is(big.buffer.byteLength, SLAB_CHUNK_BYTES + 8);
  assert.is(next.buffer, first.buffer, "first fit: the first chunk's tail");
  assert.is(next.byteOffset, 16);
  // One that does not fit the first chunk's tail starts a new chunk.
  const rest = slab.array(Uint8Array, SLAB_CHUNK_BYTES - 16);
  assert.is.not(rest.buffer, first.buffer);
  assert.is.not(rest.buffer, big.buffer);
  assert.is(rest.buffer.byteLength, SLAB_CHUNK_BYTES);
});

test("runs nest (the innermost slab) and a throw ends a run", () => {
  const outer = new ArraySlab();
  const inner = new ArraySlab();
  outer.run(() => {
    const a = finalArray(Uint32Array, 1);
    const b = inner.run(() => finalArray(Uint32Array, 1));
    const c = finalArray(Uint32Array, 1);
    assert.is(a.buffer, c.buffer);
    assert.is.not(a.buffer, b.buffer);
  });
  assert.throws(() =>
    outer.run(() => {
      throw new Error("boom");
    }),
  );
  assert.ok(finalArray(Uint32Array, 1).buffer instanceof ArrayBuffer, "no slab after a throw");
});

test.run();

/**
 * WebAssembly assembler tests
 * ===========================
 * src/engine/kernels/wasm-assembler.ts: LEB128 encodings against the specification's examples and edge
 * values, and a small module of two functions (one calling the other, locals of two types, memory
 * read and written from JavaScript) assembled, instantiated and run. The kernel built with it is
 * tested against its reference in page-hasher.test.ts.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  I32,
  I64,
  assemble,
  canRunWasm,
  i32,
  instantiate,
  memarg,
  op,
  sleb32,
  sleb64,
  uleb,
} from "../../../src/engine/kernels/wasm-assembler.js";

test("LEB128: unsigned and signed encodings", () => {
  assert.equal(uleb(0), [0]);
  assert.equal(uleb(127), [0x7f]);
  assert.equal(uleb(128), [0x80, 0x01]);
  assert.equal(uleb(624485), [0xe5, 0x8e, 0x26]);
  assert.equal(sleb32(-1), [0x7f]);
  assert.equal(sleb32(63), [0x3f]);
  assert.equal(sleb32(64), [0xc0, 0x00]);
  assert.equal(sleb32(-64), [0x40]);
  assert.equal(sleb32(-123456), [0xc0, 0xbb, 0x78]);
  // Unsigned 32-bit values are their 32 bits: 0xffffffff is -1.
  assert.equal(sleb32(0xffffffff), [0x7f]);
  assert.equal(sleb64(-(1n << 63n)), [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]);
});

test("a module of two functions runs: run(i, j) doubles word[i] through the other, then stores word[i] + word[j] at word 0", () => {
  assert.ok(canRunWasm(), "WebAssembly runs here");
  const { localGet, call, i32Load, i32Store, i32Add, i32Shl, localSet } = op;
  /** The word at the byte address of word index `local` (local * 4). */
  const word = (local: number) => [localGet, local, ...i32(2), i32Shl, i32Load, ...memarg(2, 0)];
  const spec = {
    memoryPages: 1,
    functions: [
      // 0: double(i): word[i] += word[i]. Its i64 local is unused: locals of two types, in two runs.
      {
        params: [I32],
        locals: [I32, I64],
        // biome-ignore format: one step a line
        body: [
          localGet, 0, ...i32(2), i32Shl, localSet, 1, // the byte address
          localGet, 1, ...word(0), ...word(0), i32Add,
          i32Store, ...memarg(2, 0),
        ],
      },
      // 1: run(i, j): double(i), then word[0] = word[i] + word[j].
      {
        export: "run",
        params: [I32, I32],
        locals: [],
        // biome-ignore format: one step a line
        body: [
          localGet, 0, call, 0,
          ...i32(0), ...word(0), ...word(1), i32Add,
          i32Store, ...memarg(2, 0),
        ],
      },
    ],
  };
  // The bytes begin as every module does: "\0asm", version 1.
  assert.equal([...assemble(spec).subarray(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const exports = instantiate(spec);
  const words = new Int32Array((exports["memory"] as { buffer: ArrayBuffer }).buffer);
  words[3] = 20;
  words[5] = 2;
  (exports["run"] as (i: number, j: number) => void)(3, 5);
  assert.is(words[3], 40);
  assert.is(words[0], 42);
  // A second instance has its own memory.
  const other = new Int32Array((instantiate(spec)["memory"] as { buffer: ArrayBuffer }).buffer);
  assert.is(other[3], 0);
});

test.run();

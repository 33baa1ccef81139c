/**
 * Page hasher
 * ===========
 * Owns the 64-bit arithmetic of a page's derived fingerprints (fingerprint.ts): FNV-1a 64 over the
 * 24 bytes of each statement's three entity hashes (hash64Words over six 32-bit words, most
 * significant byte first), for every statement of a page in one call.
 *
 * Why WebAssembly: JavaScript has no 64-bit integer multiply, so hash64Words makes each of the 24
 * multiplies of a fingerprint from 16-bit halves; WebAssembly's i64.mul is one instruction. The
 * module is assembled below from its instructions (wasm-assembler.ts), so there is no binary file
 * and no build step; in the text format it is:
 *
 *   (module
 *     (memory (export "memory") 1)
 *     (func (export "hashPage") (param $n i32) (local $k i32) (local $j i32) (local $w i32) (local $h i64)
 *       (block $done (loop $items
 *         (br_if $done (i32.ge_u (local.get $k) (local.get $n)))
 *         (local.set $h (i64.const 0xcbf29ce484222325))
 *         (local.set $j (i32.const 0))
 *         (loop $words
 *           (local.set $w (i32.load (i32.add (i32.mul (local.get $k) (i32.const 24)) (i32.shl (local.get $j) (i32.const 2)))))
 *           ;; four times, shift 24, 16, 8, 0:
 *           (local.set $h (i64.mul (i64.xor (local.get $h) (i64.extend_i32_u (i32.and (i32.shr_u (local.get $w) (i32.const shift)) (i32.const 255)))) (i64.const 0x100000001b3)))
 *           (br_if $words (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 6))))
 *         (i64.store (i32.add (i32.const OUTPUT) (i32.shl (local.get $k) (i32.const 3))) (local.get $h))
 *         (local.set $k (i32.add (local.get $k) (i32.const 1)))
 *         (br $items))))
 *
 * Memory: statement k's six words at byte 24k (subject hi, lo, predicate hi, lo, object hi, lo),
 * its hash as one i64 at OUTPUT + 8k. Without WebAssembly, or on a big-endian machine (typed arrays
 * use the machine's byte order, WebAssembly memory is little-endian), the same loop runs in
 * JavaScript (hash64Words). The tests compare both with hash64Words on random words.
 *
 * Cost: one call a page, 24 multiply steps a fingerprint, and its six input words written and its
 * output read (`npm run bench:stream`, whose graph derives every fingerprint, times the statements
 * pages that use it). The instance's memory is 64 KiB.
 */

import { hash64Words, type Hash64 } from "../hash64.js";
import { canRunWasm, I32, I64, i32, instantiate, memarg, op, sleb64, type WasmSpec } from "./wasm-assembler.js";

/** Statements one call hashes at most. */
export const PAGE_HASHER_CAPACITY = 512;
/** 32-bit words of input per statement. */
const WORDS = 6;
/** Byte offset of the output: after the input of a full page. */
const OUTPUT = 4 * WORDS * PAGE_HASHER_CAPACITY;

export class PageHasher {
  /** Six words per statement, written by the caller before `hash`. */
  readonly input: Uint32Array;
  /** Two words per statement after `hash`: lo, hi (the i64's little-endian halves). */
  private readonly output: Uint32Array;
  private readonly run: (n: number) => void;
  /** Whether the WebAssembly module runs (false: the JavaScript fallback). */
  readonly native: boolean;

  /** `native` false forces the JavaScript loop (for tests that compare the two). */
  constructor(native = canRunWasm()) {
    this.native = native;
    if (native) {
      const exports = instantiate(MODULE);
      const memory = exports["memory"] as { buffer: ArrayBuffer };
      const hashPage = exports["hashPage"] as (n: number) => void;
      this.input = new Uint32Array(memory.buffer, 0, WORDS * PAGE_HASHER_CAPACITY);
      this.output = new Uint32Array(memory.buffer, OUTPUT, 2 * PAGE_HASHER_CAPACITY);
      this.run = hashPage;
    } else {
      this.input = new Uint32Array(WORDS * PAGE_HASHER_CAPACITY);
      this.output = new Uint32Array(2 * PAGE_HASHER_CAPACITY);
      const pair: Hash64 = [0, 0];
      this.run = (n) => {
        for (let k = 0; k < n; k++) {
          hash64Words(this.input.subarray(WORDS * k, WORDS * (k + 1)), pair);
          this.output[2 * k] = pair[1];
          this.output[2 * k + 1] = pair[0];
        }
      };
    }
  }

  /** Writes statement k's three entity hashes. */
  setInput(k: number, sHi: number, sLo: number, pHi: number, pLo: number, oHi: number, oLo: number): void {
    const at = WORDS * k;
    const input = this.input;
    input[at] = sHi;
    input[at + 1] = sLo;
    input[at + 2] = pHi;
    input[at + 3] = pLo;
    input[at + 4] = oHi;
    input[at + 5] = oLo;
  }

  /** Hashes statements 0 to n - 1 (n <= PAGE_HASHER_CAPACITY). */
  hash(n: number): void {
    if (n > PAGE_HASHER_CAPACITY) throw new RangeError(`a page of ${n} statements, more than ${PAGE_HASHER_CAPACITY}`);
    this.run(n);
  }

  /** High half of statement k's hash (after `hash`). */
  hi(k: number): number {
    return this.output[2 * k + 1]!;
  }

  /** Low half of statement k's hash (after `hash`). */
  lo(k: number): number {
    return this.output[2 * k]!;
  }
}

// ---------------------------------------------------------------------------------------------
// The module (wasm-assembler.ts)

// Locals: 0 = $n (the parameter), 1 = $k, 2 = $j, 3 = $w, 4 = $h.
const N = 0;
const K = 1;
const J = 2;
const W = 3;
const H = 4;

const { block, loop, void: VOID, br, brIf, end, localGet, localSet, localTee, i32Load, i64Store } = op;
const { i32Add, i32Mul, i32And, i32Shl, i32ShrU, i32LtU, i32GeU, i64Const, i64Xor, i64Mul, i64ExtendI32U } = op;

/** h = (h ^ ((w >>> shift) & 255)) * prime */
function step(shift: number): number[] {
  // biome-ignore format: one operation a line
  return [
    localGet, H,
    localGet, W, ...i32(shift), i32ShrU, ...i32(255), i32And,
    i64ExtendI32U, i64Xor,
    i64Const, ...sleb64(0x100000001b3n), i64Mul,
    localSet, H,
  ];
}

// biome-ignore format: one instruction (or a short sequence) a line
const BODY: number[] = [
  block, VOID, // $done
  loop, VOID, // $items (branch depth 0; $done is 1)
  localGet, K, localGet, N, i32GeU, brIf, 1,
  i64Const, ...sleb64(0xcbf29ce484222325n - (1n << 64n)), localSet, H,
  ...i32(0), localSet, J,
  loop, VOID, // $words (depth 0; $items 1, $done 2)
  localGet, K, ...i32(4 * WORDS), i32Mul, localGet, J, ...i32(2), i32Shl, i32Add,
  i32Load, ...memarg(2, 0),
  localSet, W,
  ...step(24), ...step(16), ...step(8), ...step(0),
  localGet, J, ...i32(1), i32Add, localTee, J, ...i32(WORDS), i32LtU, brIf, 0,
  end, // $words
  ...i32(OUTPUT), localGet, K, ...i32(3), i32Shl, i32Add,
  localGet, H,
  i64Store, ...memarg(3, 0),
  localGet, K, ...i32(1), i32Add, localSet, K,
  br, 0,
  end, // $items
  end, // $done
];

/** One function, hashPage($n), over one page (64 KiB) of memory. */
const MODULE: WasmSpec = {
  memoryPages: 1,
  functions: [{ export: "hashPage", params: [I32], locals: [I32, I32, I32, I64], body: BODY }],
};

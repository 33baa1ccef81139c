/**
 * Page hasher
 * ===========
 * Owns the 64-bit arithmetic of a page's derived fingerprints (fingerprint.ts): FNV-1a 64 over the
 * 24 bytes of each statement's three entity hashes (hash64Words over six 32-bit words, most
 * significant byte first), for every statement of a page in one call.
 *
 * Why WebAssembly: JavaScript has no 64-bit integer multiply, so hash64Words makes each of the 24
 * multiplies of a fingerprint from 16-bit halves (65-80 ns a fingerprint); WebAssembly's i64.mul is
 * one instruction. The module is assembled below from its instructions, so there is no binary file
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
 * Cost: one call a page; 24 to 34 ns a fingerprint, writing its input and reading its output
 * included, against 65 to 80 for hash64Words alone (a scratch loop of 2M fingerprints in pages of 50
 * on the development machine). The instance's memory is 64 KiB.
 */

import { hash64Words, type Hash64 } from "./hash64.js";

/**
 * The little of the WebAssembly JavaScript API used here (Node has it; this project's type
 * declarations, @types/node without the DOM library, do not name it).
 */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule) => { exports: Record<string, unknown> };
};
type WasmModule = { readonly wasmModule: unique symbol };
interface WasmMemory {
  buffer: ArrayBuffer;
}

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
  constructor(native = canRunNative()) {
    this.native = native;
    if (native) {
      compiled ??= new WebAssembly.Module(MODULE);
      const instance = new WebAssembly.Instance(compiled);
      const memory = instance.exports["memory"] as WasmMemory;
      const hashPage = instance.exports["hashPage"] as (n: number) => void;
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

/** The module, compiled once per process (each PageHasher has an instance: its own memory). */
let compiled: WasmModule | undefined;

/** WebAssembly is there, and typed arrays are little-endian as its memory is. */
function canRunNative(): boolean {
  return typeof WebAssembly === "object" && new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
}

// ---------------------------------------------------------------------------------------------
// The module, assembled (WebAssembly core specification 2.0, binary format, chapter 5)

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 64-bit value. */
function sleb64(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Signed LEB128 of a 32-bit value. */
function sleb32(v: number): number[] {
  return sleb64(BigInt(v | 0));
}

/** A section: id, byte length, contents. */
function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

/** A vector: count, then the items. */
function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(s: string): number[] {
  return vec([...s].map((c) => [c.charCodeAt(0)]));
}

// Opcodes used.
const BLOCK = 0x02;
const LOOP = 0x03;
const VOID = 0x40;
const BR = 0x0c;
const BR_IF = 0x0d;
const END = 0x0b;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_LOAD = 0x28;
const I64_STORE = 0x37;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I32_GE_U = 0x4f;
const I32_LT_U = 0x49;
const I32_ADD = 0x6a;
const I32_MUL = 0x6c;
const I32_AND = 0x71;
const I32_SHL = 0x74;
const I32_SHR_U = 0x76;
const I64_XOR = 0x85;
const I64_MUL = 0x7e;
const I64_EXTEND_I32_U = 0xad;
const I32 = 0x7f;
const I64 = 0x7e;

// Locals: 0 = $n (the parameter), 1 = $k, 2 = $j, 3 = $w, 4 = $h.
const N = 0;
const K = 1;
const J = 2;
const W = 3;
const H = 4;

/** h = (h ^ ((w >>> shift) & 255)) * prime */
function step(shift: number): number[] {
  // biome-ignore format: one operation a line
  return [
    LOCAL_GET, H,
    LOCAL_GET, W, I32_CONST, ...sleb32(shift), I32_SHR_U, I32_CONST, ...sleb32(255), I32_AND,
    I64_EXTEND_I32_U, I64_XOR,
    I64_CONST, ...sleb64(0x100000001b3n), I64_MUL,
    LOCAL_SET, H,
  ];
}

// biome-ignore format: one instruction (or a short sequence) a line
const BODY: number[] = [
  BLOCK, VOID, // $done
  LOOP, VOID, // $items (branch depth 0; $done is 1)
  LOCAL_GET, K, LOCAL_GET, N, I32_GE_U, BR_IF, 1,
  I64_CONST, ...sleb64(0xcbf29ce484222325n - (1n << 64n)), LOCAL_SET, H,
  I32_CONST, 0, LOCAL_SET, J,
  LOOP, VOID, // $words (depth 0; $items 1, $done 2)
  LOCAL_GET, K, I32_CONST, ...sleb32(4 * WORDS), I32_MUL, LOCAL_GET, J, I32_CONST, 2, I32_SHL, I32_ADD,
  I32_LOAD, 2, 0, // align 2^2, offset 0
  LOCAL_SET, W,
  ...step(24), ...step(16), ...step(8), ...step(0),
  LOCAL_GET, J, I32_CONST, 1, I32_ADD, LOCAL_TEE, J, I32_CONST, WORDS, I32_LT_U, BR_IF, 0,
  END, // $words
  I32_CONST, ...sleb32(OUTPUT), LOCAL_GET, K, I32_CONST, 3, I32_SHL, I32_ADD,
  LOCAL_GET, H,
  I64_STORE, 3, 0, // align 2^3, offset 0
  LOCAL_GET, K, I32_CONST, 1, I32_ADD, LOCAL_SET, K,
  BR, 0,
  END, // $items
  END, // $done
  END, // the function
];

const MODULE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d, // "\0asm"
  0x01,
  0x00,
  0x00,
  0x00, // version 1
  ...section(1, vec([[0x60, ...vec([[I32]]), ...vec([])]])), // types: (i32) -> ()
  ...section(3, vec([uleb(0)])), // functions: one, of type 0
  ...section(5, vec([[0x00, ...uleb(1)]])), // memories: one, min 1 page (64 KiB), no max
  ...section(
    7,
    vec([
      [...name("memory"), 0x02, 0],
      [...name("hashPage"), 0x00, 0],
    ]),
  ), // exports
  ...section(
    10,
    vec([
      withLength([
        ...vec([
          [...uleb(2), I32],
          [...uleb(1), I32],
          [...uleb(1), I64],
        ]),
        ...BODY,
      ]),
    ]),
  ),
]);

/** A function body: its byte length, then the locals and the code. */
function withLength(body: number[]): number[] {
  return [...uleb(body.length), ...body];
}

/**
 * WebAssembly assembler
 * =====================
 * Owns turning a few functions written as instruction lists into a WebAssembly module, so the
 * engine's small native kernel (page-hasher.ts: 64-bit FNV-1a, which JavaScript's lack of a 64-bit
 * multiply makes slow) lives in its source file as instructions, with no binary file and no build step. A module here
 * has one memory (exported as "memory"), its functions (some exported by name) and nothing else: no
 * imports, tables, globals or data segments (the JavaScript side writes its constants into memory).
 *
 * `instantiate(spec)` compiles a spec once per process and returns a fresh instance (its own
 * memory); `canRunWasm()` says whether WebAssembly is there and typed arrays are little-endian as
 * its memory is (a kernel that shares words with JavaScript through a typed-array view needs that;
 * each kernel keeps a JavaScript fallback for the other case).
 *
 * Reference: WebAssembly core specification 2.0, binary format (chapter 5): LEB128 integers,
 * sections 1 (types), 3 (functions), 5 (memories), 7 (exports), 10 (code); the opcodes below.
 */

/**
 * The little of the WebAssembly JavaScript API used here (Node has it; this project's type
 * declarations, @types/node without the DOM library, do not name it).
 */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule) => { exports: Record<string, unknown> };
};
type WasmModule = { readonly wasmModule: unique symbol };

/** The number types used: i32 and i64. */
export const I32 = 0x7f;
export const I64 = 0x7e;

/** Opcodes used by the kernels (memory instructions take align and offset immediates after them). */
export const op = {
  block: 0x02,
  loop: 0x03,
  /** The block type of a block or loop that leaves nothing on the stack. */
  void: 0x40,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  call: 0x10,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i32Store: 0x36,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Ne: 0x47,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Or: 0x72,
  i32Xor: 0x73,
  i32Shl: 0x74,
  i32ShrU: 0x76,
  i32Rotl: 0x77,
  i32Rotr: 0x78,
  i64Mul: 0x7e,
  i64Xor: 0x85,
  i64ExtendI32U: 0xad,
} as const;

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
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
export function sleb64(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Signed LEB128 of a 32-bit value (given signed or unsigned: its 32 bits count). */
export function sleb32(v: number): number[] {
  return sleb64(BigInt(v | 0));
}

/** `i32.const v`. */
export function i32(v: number): number[] {
  return [op.i32Const, ...sleb32(v)];
}

/** A memory access's immediates: alignment (log2 bytes) and offset. */
export function memarg(alignLog2: number, offset: number): number[] {
  return [alignLog2, ...uleb(offset)];
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

/** One function: its parameter and local types (locals are numbered after the parameters), its code. */
export interface WasmFunction {
  /** Exported under this name, if given. */
  export?: string;
  params: number[];
  /** One type per local, in order. */
  locals: number[];
  /** The instructions, without the final `end`. */
  body: number[];
}

/** A module: its memory's size in 64 KiB pages and its functions (function i is called as `call i`). */
export interface WasmSpec {
  memoryPages: number;
  functions: WasmFunction[];
}

/** The module's bytes. */
export function assemble(spec: WasmSpec): Uint8Array {
  const fns = spec.functions;
  // One type per function: (params) -> (), in the functions' order.
  const types = fns.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec([])]);
  const exports = [[...name("memory"), 0x02, 0]];
  fns.forEach((f, i) => {
    if (f.export !== undefined) exports.push([...name(f.export), 0x00, ...uleb(i)]);
  });
  const code = fns.map((f) => {
    // Locals in runs of one type each: (count, type).
    const runs: number[][] = [];
    for (const t of f.locals) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === t) last[0]!++;
      else runs.push([1, t]);
    }
    const body = [...vec(runs.map(([count, t]) => [...uleb(count!), t!])), ...f.body, op.end];
    return [...uleb(body.length), ...body];
  });
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d], // "\0asm"
    ...[0x01, 0x00, 0x00, 0x00], // version 1
    ...section(1, vec(types)),
    ...section(3, vec(fns.map((_, i) => uleb(i)))),
    ...section(5, vec([[0x00, ...uleb(spec.memoryPages)]])), // min pages, no max
    ...section(7, vec(exports)),
    ...section(10, vec(code)),
  ]);
}

/** Compiled modules, one per spec, for the life of the process. */
const compiled = new WeakMap<WasmSpec, WasmModule>();

/** A new instance of `spec` (compiled on first use): its exports, "memory" among them. */
export function instantiate(spec: WasmSpec): Record<string, unknown> {
  let module = compiled.get(spec);
  if (module === undefined) {
    module = new WebAssembly.Module(assemble(spec));
    compiled.set(spec, module);
  }
  return new WebAssembly.Instance(module).exports;
}

/** WebAssembly is there, and typed arrays are little-endian as its memory is. */
export function canRunWasm(): boolean {
  return typeof WebAssembly === "object" && new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
}

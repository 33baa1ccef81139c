/**
 * Final arrays in shared memory, for a build that hands its graph to another thread
 * ================================================================================
 * Owns where a build puts the arrays a graph keeps (its final arrays: the statement rows and
 * position vectors, the wavelet matrices' levels, the int vectors, the entity records, the
 * dictionary's table, the text stores' code units when serialized). By default each is an array of
 * its own (`new Uint32Array(n)`). Inside `slab.run(fn)` they are carved from the slab instead:
 * views into SharedArrayBuffers of SLAB_CHUNK_BYTES each (or one of its own for an array larger
 * than that), so a compaction's worker thread (serving/graph-loader-worker.ts) builds its graph in
 * shared memory in the first place and hands it over without a copy (serving/graph-transfer.ts
 * shareGraph copies only what no slab holds: the small arrays).
 *
 * Why chunks that large: the allocator maps a block of that size on its own (glibc: above its
 * largest mmap threshold, 32 MiB), outside the thread's heap. Small buffers freed by a worker stay
 * resident in that thread's heap (glibc does not give back the middle of a heap), and a copy of the
 * graph made after its originals cannot reuse their memory; a chunk's pages come and go with it: the
 * pages not written yet are never resident, and a base's chunks go back to the system as soon as
 * the base dies (the swap after the next compaction).
 *
 * Algorithm: bump allocation, first fit over the chunks' free tails, each array aligned to
 * SLAB_ALIGN bytes; a carved array is never freed on its own (the slab's memory lives as long as
 * any array of it), so only final arrays come from a slab (working arrays stay `new`: freed at the
 * next collection). Zeroed as `new` ones are (fresh shared memory is zero, and no range is carved
 * twice). Cost: O(chunks) an array, at most a chunk's free tail wasted an array larger than it.
 */

/** Bytes of a slab's chunk: above glibc's largest mmap threshold (32 MiB), so a chunk is a mapping of its own. */
export const SLAB_CHUNK_BYTES = 64 * 1024 * 1024;

/** Byte alignment of each array carved (a Float64Array's). */
const SLAB_ALIGN = 8;

type FinalArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
export type FinalArrayType<T extends FinalArray> = {
  new (length: number): T;
  new (buffer: SharedArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
};

/** The slab final arrays come from now (ArraySlab.run), or undefined: arrays of their own. */
let current: ArraySlab | undefined;

/** Shared chunks that final arrays are carved from (see the banner). */
export class ArraySlab {
  private readonly chunks: { buffer: SharedArrayBuffer; used: number }[] = [];

  /** Runs `fn` with final arrays carved from this slab (nested runs: the innermost slab). */
  run<T>(fn: () => T): T {
    const outer = current;
    current = this;
    try {
      return fn();
    } finally {
      current = outer;
    }
  }

  /** A zeroed array of `length` elements of `Type`, carved from this slab. */
  array<T extends FinalArray>(Type: FinalArrayType<T>, length: number): T {
    const bytes = length * Type.BYTES_PER_ELEMENT;
    const room = Math.ceil(bytes / SLAB_ALIGN) * SLAB_ALIGN;
    // First fit: a chunk whose free tail holds it, else a new chunk (of its own when larger than one).
    let chunk = this.chunks.find((c) => c.buffer.byteLength - c.used >= room);
    if (chunk === undefined) {
      chunk = { buffer: new SharedArrayBuffer(Math.max(SLAB_CHUNK_BYTES, room)), used: 0 };
      this.chunks.push(chunk);
    }
    const out = new Type(chunk.buffer, chunk.used, length);
    chunk.used += room;
    return out;
  }

  /** Bytes carved so far (the arrays' sizes, aligned). */
  get bytes(): number {
    let sum = 0;
    for (const c of this.chunks) sum += c.used;
    return sum;
  }
}

/**
 * A zeroed array of `length` elements of `Type` that the graph being built keeps: carved from the
 * slab of the ArraySlab.run around the build, else an array of its own.
 */
export function finalArray<T extends FinalArray>(Type: FinalArrayType<T>, length: number): T {
  // Each branch: a build whose graph goes to another thread (its slab), or any other (its own array).
  return current === undefined ? new Type(length) : current.array(Type, length);
}

/**
 * Working arrays in mappings of their own, for a compaction's worker thread
 * ==========================================================================
 * Owns where a compaction's worker (graph-loader-worker.ts) gets the typed arrays its build makes
 * and drops (sort scratch, the suffix array's and the FM-index's temporaries, the statement index's
 * permutations): `mapWorkingArrays()` makes each typed array of MAPPED_MIN_BYTES to
 * MAPPED_MAX_BYTES that this thread constructs by length (`new Uint32Array(n)`, `Uint32Array.from`)
 * a view of an ArrayBuffer of MAPPED_BUFFER_BYTES of its own, so that it is a mapping of its own
 * that goes back to the system when the array dies.
 *
 * Why: glibc's malloc maps a block of its own only above its mmap threshold, which starts at 128 KiB
 * and rises to the size of any mapped block freed, up to 32 MiB; after the first such free, a block
 * of a few MB comes from the thread's arena, and an arena never gives back the middle of its heaps,
 * nor anything when its thread ends (it waits on a free list for another thread). At 1M entities
 * the build's working arrays are mostly 4 to 32 MB: those freed by the search index's build stayed
 * resident under the statement index's (arrays of 40 MB, mapped anew), and about 120 MB of them
 * stayed in the process after the worker ended, under the next compaction (docs/changes.md has the
 * peaks measured each way).
 *
 * Algorithm: the typed array constructors of this thread's global object are replaced by proxies
 * whose `construct` puts an array of a length in that range on a buffer above the largest threshold
 * (a block of that size is always mapped: its pages not written are never resident, so an array
 * costs its own pages, and address space only for the rest); any other construction (a buffer
 * given, a subclass, a smaller or larger array) is the constructor's own. The arrays are the
 * constructors' own instances (same kind, same prototype: no code sees a difference but
 * `array.buffer.byteLength`, which every reader here pairs with byteOffset and byteLength). Cost: a
 * proxy call a construction, and address space (not memory) of MAPPED_BUFFER_BYTES an array.
 * Only for a thread of its own that builds and ends (a compaction's worker): V8 counts each buffer
 * at its full size for its collection heuristics, so that thread collects more often.
 */

/** Bytes from which a working array gets a mapping of its own (smaller ones come and go in the heap). */
export const MAPPED_MIN_BYTES = 1024 * 1024;

/** glibc's largest mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit): larger blocks are always mapped. */
export const MAPPED_MAX_BYTES = 32 * 1024 * 1024;

/** Bytes of the buffer under a mapped array: above MAPPED_MAX_BYTES by a margin for malloc's header. */
export const MAPPED_BUFFER_BYTES = MAPPED_MAX_BYTES + 64 * 1024;

type TypedArrayName = "Uint8Array" | "Uint16Array" | "Uint32Array" | "Int32Array" | "Float64Array";
const NAMES: readonly TypedArrayName[] = ["Uint8Array", "Uint16Array", "Uint32Array", "Int32Array", "Float64Array"];

type Constructor = {
  new (length: number): ArrayBufferView;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): ArrayBufferView;
  readonly BYTES_PER_ELEMENT: number;
};

let mapped = false;

/**
 * From now on, typed arrays of MAPPED_MIN_BYTES to MAPPED_MAX_BYTES made by length in this thread
 * each have a mapping of their own (see the banner). Once a thread; for a compaction's worker.
 */
export function mapWorkingArrays(): void {
  if (mapped) return;
  mapped = true;
  const global = globalThis as unknown as Record<TypedArrayName, Constructor>;
  for (const name of NAMES) {
    const Type = global[name];
    const proxy: Constructor = new Proxy(Type, {
      construct(target, args, newTarget) {
        const length = args[0];
        // Each branch: an array by length in the range, of this very type (not a subclass), on a
        // mapping of its own; anything else as the constructor makes it.
        if (args.length === 1 && typeof length === "number" && newTarget === proxy) {
          const bytes = length * Type.BYTES_PER_ELEMENT;
          if (bytes >= MAPPED_MIN_BYTES && bytes < MAPPED_MAX_BYTES)
            return new Type(new ArrayBuffer(MAPPED_BUFFER_BYTES), 0, length);
        }
        return Reflect.construct(target, args, newTarget === proxy ? target : newTarget) as object;
      },
    });
    global[name] = proxy;
  }
}

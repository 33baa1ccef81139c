/**
 * A host's own heap
 * =================
 * Quiver is embedded: it runs inside a user's process, whose heap holds the host's own objects. A
 * larger live heap makes every major GC mark more, and the host's objects share the CPU caches with
 * the graph. This owns the stand-in the benchmarks time beside the bare process: about
 * `bytes` of live objects of the kinds a real host holds, kept reachable until `release`.
 *
 * What it makes: records of a few fields (a number, two short strings, each made by concatenation
 * so it is its own heap string, and a small array of numbers), in arrays of RECORDS_PER_CHUNK, so
 * the heap holds millions of small objects linked by pointers, not one big buffer (which the GC
 * would not need to walk). It grows until process.memoryUsage().heapUsed has risen by `bytes`
 * (checked every CHUNKS_PER_CHECK chunks), so the figure is the heap's own account whatever the
 * object layout. Cost: a few seconds for 500 MB, and the memory itself.
 */

/** Records per array: large enough that the arrays are few, small enough to stay in new space. */
const RECORDS_PER_CHUNK = 1024;
/** Chunks made between two readings of heapUsed (a reading is not free). */
const CHUNKS_PER_CHECK = 64;
/** Numbers in each record's array. */
const TAGS_PER_RECORD = 4;

export interface HostRecord {
  id: number;
  name: string;
  label: string;
  tags: number[];
}

export interface HostHeap {
  /** heapUsed grown while it was made, bytes. */
  readonly bytes: number;
  /** Objects made (records, their strings and arrays). */
  readonly objects: number;
  /** Drops every reference, so the next GCs free it. */
  release(): void;
}

/** Live objects of about `bytes` (heapUsed grown), held until release(). */
export function makeHostHeap(bytes: number): HostHeap {
  let chunks: HostRecord[][] = [];
  const start = process.memoryUsage().heapUsed;
  let grown = 0;
  let n = 0;
  while (grown < bytes) {
    for (let c = 0; c < CHUNKS_PER_CHECK; c++) {
      const chunk: HostRecord[] = new Array(RECORDS_PER_CHUNK);
      for (let i = 0; i < RECORDS_PER_CHUNK; i++, n++) {
        const tags = new Array<number>(TAGS_PER_RECORD);
        for (let t = 0; t < TAGS_PER_RECORD; t++) tags[t] = (n * 31 + t) | 0;
        // Concatenation with a number makes a fresh string per record (not an interned literal).
        chunk[i] = { id: n, name: `user-${n}`, label: `session ${n.toString(36)} of host`, tags };
      }
      chunks.push(chunk);
    }
    grown = process.memoryUsage().heapUsed - start;
  }
  const records = n;
  return {
    bytes: grown,
    // Per record: the record, its two strings, its array.
    objects: records * 4,
    release: () => {
      chunks = [];
    },
  };
}

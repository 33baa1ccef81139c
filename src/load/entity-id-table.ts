/**
 * Entity id table, shared by the parser threads
 * ==============================================
 * Owns finding an entityId's column index (GraphBuilder.columnEntityIds: its dense id, once the
 * entities are sealed) from the bytes of a statement line, in any thread: the builder's entityIds in
 * that order as UTF-8 bytes in one SharedArrayBuffer, and an open-addressing
 * table over them in another, made once on the loading thread and read by every parser thread
 * (statement-threads.ts) without a copy. A thread resolves the three ids of a line from the line's own
 * bytes: no string is made and no per-thread Map is built.
 *
 * Layout: `bytes` holds the ids' UTF-8 one after the other, id i at [starts[i], starts[i + 1]);
 * `slots` (a power of two, at least twice the ids) holds 0 (empty) or i + 1. Algorithm: linear
 * probing; the slot of a byte string is FNV-1a 32 over its bytes from a random per-table basis, mixed
 * by MurmurHash3's fmix32 (so a file cannot pile its ids onto one run of slots); a slot's candidate
 * is compared by length, then byte by byte.
 *
 * Cost: making it, one UTF-8 encoding of every id and one insertion each (about 0.3 s at 1M ids);
 * a look-up, a hash over the id's bytes and expected about 1.5 probes, each one compare of a few
 * bytes. Memory: the ids' bytes, 4 bytes an id of starts, 8 to 16 bytes an id of slots, shared by
 * every thread (a Map per thread held the ids' strings again in each).
 *
 * Reference: D. Knuth, TAOCP vol. 3, 6.4 (linear probing); FNV-1a (Fowler, Noll, Vo); A. Appleby,
 * MurmurHash3 (fmix32).
 */

import { randomBytes } from "node:crypto";
import { fmix32 } from "../engine/hash64.js";

/** Slots per id, at least (a power of two at or above it): load at most 1/2. */
const SLOTS_PER_ID = 2;
const EMPTY = 0;
const FNV_PRIME = 0x01000193;

/** The table's arrays, each on a SharedArrayBuffer: what a parser thread is given. */
export interface EntityIdTable {
  bytes: Uint8Array;
  starts: Uint32Array;
  slots: Uint32Array;
  /** The hash's random basis. */
  seed: number;
}

/** Makes the table of `ids` (distinct strings; id i is found as i). */
export function makeEntityIdTable(ids: readonly string[]): EntityIdTable {
  const n = ids.length;
  const starts = new Uint32Array(new SharedArrayBuffer(4 * (n + 1)));
  let total = 0;
  for (let i = 0; i < n; i++) {
    starts[i] = total;
    total += Buffer.byteLength(ids[i]!, "utf8");
  }
  starts[n] = total;
  const shared = new SharedArrayBuffer(Math.max(1, total));
  const writer = Buffer.from(shared);
  for (let i = 0; i < n; i++) writer.write(ids[i]!, starts[i]!, "utf8");
  let size = 1;
  while (size < SLOTS_PER_ID * n) size *= 2;
  const slots = new Uint32Array(new SharedArrayBuffer(4 * size));
  const table: EntityIdTable = { bytes: new Uint8Array(shared), starts, slots, seed: randomBytes(4).readUInt32LE(0) };
  const mask = size - 1;
  for (let i = 0; i < n; i++) {
    let at = hashBytes(table.bytes, starts[i]!, starts[i + 1]!, table.seed) & mask;
    while (slots[at] !== EMPTY) at = (at + 1) & mask;
    slots[at] = i + 1;
  }
  return table;
}

/** The index of the id whose UTF-8 is bytes [start, end) of `line`, or -1 when there is none. */
export function findEntityId(table: EntityIdTable, line: Uint8Array, start: number, end: number): number {
  const { bytes, starts, slots } = table;
  const mask = slots.length - 1;
  const length = end - start;
  let at = hashBytes(line, start, end, table.seed) & mask;
  for (;;) {
    const entry = slots[at]!;
    if (entry === EMPTY) return -1;
    const i = entry - 1;
    const from = starts[i]!;
    if (starts[i + 1]! - from === length) {
      let k = 0;
      while (k < length && bytes[from + k] === line[start + k]) k++;
      if (k === length) return i;
    }
    at = (at + 1) & mask;
  }
}

/** FNV-1a 32 over bytes [start, end) from basis `seed`, then fmix32. */
function hashBytes(b: Uint8Array, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return fmix32(h);
}

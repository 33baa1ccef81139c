/**
 * Entity dictionary
 * =================
 * entityId <-> dense integer id. Ids are assigned in entityId order (UTF-16 code units, JavaScript
 * `<`), so comparing two dense ids is comparing the two entityIds: the statement indexes sort
 * integers and still give the contract's string order.
 *
 * - The entityIds, ascending, in a TextList (position = dense id).
 * - `idOf`: an open-addressing hash table (linear probing, load at most 1/2) of dense ids, keyed by
 *   the entityId's 64-bit FNV-1a hash: a filter resolves in about two probes instead of the
 *   twenty dependent string comparisons of a binary search over a million ids.
 * - `lowerBound`: binary search, which also places an entityId that is not (or no longer) in the
 *   graph: how a cursor resumes on a graph whose entities changed.
 * - `hashes`: each entityId's FNV-1a 64 (hash64 of the one string), kept because derived statement
 *   fingerprints are made from them (fingerprint.ts): a page of statements derives its fingerprints
 *   without reading the entityIds' characters.
 *
 * Cost: idOf O(1) expected (a hash of the string, about two table reads and one comparison);
 * lowerBound O(log n) comparisons. Space: the text list, 8 bytes a hash, 8 bytes a table slot pair.
 */

import { hash64, type Hash64 } from "./hash64.js";
import type { SerialReader, SerialWriter } from "./serial.js";
import { TextList } from "./text-list.js";

export class Dictionary {
  /** The entityIds, ascending; position = dense id. */
  readonly ids: TextList;
  /** hashes[2d], hashes[2d + 1]: hi and lo half of entityId d's FNV-1a 64. */
  readonly hashes: Uint32Array;
  /** Dense id + 1 per slot, 0 = empty; length a power of two. */
  private readonly table: Uint32Array;
  private readonly mask: number;
  private readonly scratch: Hash64 = [0, 0];

  private constructor(ids: TextList, hashes: Uint32Array, table: Uint32Array) {
    this.ids = ids;
    this.hashes = hashes;
    this.table = table;
    this.mask = table.length - 1;
  }

  /** The dictionary of `sortedIds` (ascending, distinct). */
  /**
   * `hashes`, when the caller has them (the builder hashed each entityId as it was added): the
   * `hash64([id])` of each sorted id, hi and lo, in the same order; else they are computed here.
   */
  static build(sortedIds: readonly string[], hashes?: Uint32Array): Dictionary {
    const ids = TextList.from(sortedIds, sortedIds.length);
    if (hashes === undefined) {
      hashes = new Uint32Array(2 * sortedIds.length);
      const h: Hash64 = [0, 0];
      for (let d = 0; d < sortedIds.length; d++) {
        hash64([sortedIds[d]!], h);
        hashes[2 * d] = h[0];
        hashes[2 * d + 1] = h[1];
      }
    }
    return new Dictionary(ids, hashes, buildTable(hashes));
  }

  get size(): number {
    return this.ids.length;
  }

  /** The entityId of dense id d. */
  entityId(d: number): string {
    return this.ids.get(d);
  }

  /** The dense id of `entityId`, or -1 when the graph has no such entity. */
  idOf(entityId: string): number {
    const h = hash64([entityId], this.scratch);
    const table = this.table;
    for (let slot = h[1] & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const d = entry - 1;
      if (this.hashes[2 * d + 1] === h[1] && this.hashes[2 * d] === h[0] && this.ids.equals(d, entityId)) return d;
    }
  }

  /** The first dense id whose entityId is >= `entityId` (`size` when none). */
  lowerBound(entityId: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids.compare(mid, entityId) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get byteLength(): number {
    return this.ids.byteLength + this.hashes.byteLength + this.table.byteLength;
  }

  serialize(w: SerialWriter): void {
    this.ids.serialize(w.child("ids"));
    w.array("hashes", this.hashes);
  }

  /** Restores the list and its hashes; the table is rebuilt (a linear pass, cheaper than storing it). */
  static deserialize(r: SerialReader): Dictionary {
    const ids = TextList.deserialize(r.child("ids"));
    const hashes = r.uint32("hashes");
    if (hashes.length !== 2 * ids.length)
      r.corrupt(`the dictionary has ${ids.length} ids but ${hashes.length / 2} hashes`);
    if (r.verify) {
      const h: Hash64 = [0, 0];
      for (let d = 0; d < ids.length; d++) {
        const id = ids.get(d);
        if (d > 0 && ids.compare(d - 1, id) >= 0) r.corrupt("the entityIds are not in strictly ascending order");
        hash64([id], h);
        if (hashes[2 * d] !== h[0] || hashes[2 * d + 1] !== h[1]) r.corrupt(`the hash of entityId ${d} is wrong`);
      }
    }
    return new Dictionary(ids, hashes, buildTable(hashes));
  }
}

/** The hash table of dense ids, at most half full. */
function buildTable(hashes: Uint32Array): Uint32Array {
  const n = hashes.length >>> 1;
  let size = 2;
  while (size < 2 * n) size *= 2;
  const table = new Uint32Array(size);
  const mask = size - 1;
  for (let d = 0; d < n; d++) {
    let slot = hashes[2 * d + 1]! & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = d + 1;
  }
  return table;
}

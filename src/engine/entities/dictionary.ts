/**
 * Entity dictionary
 * =================
 * entityId -> dense integer id, over the entity table (entity-table.ts), which holds the entityIds
 * by dense id. Ids are assigned in entityId order (UTF-16 code units, JavaScript `<`), so comparing
 * two dense ids is comparing the two entityIds: the statement indexes sort integers and still give
 * the contract's string order.
 *
 * - `idOf`: an open-addressing hash table (linear probing, load at most 1/2) of dense ids, keyed by
 *   the entityId's 64-bit FNV-1a hash (the table's record keeps it): a filter resolves in about two
 *   probes instead of the twenty dependent string comparisons of a binary search over a million ids.
 * - `lowerBound`: binary search, which also places an entityId that is not (or no longer) in the
 *   graph: how a cursor resumes on a graph whose entities changed.
 *
 * Cost: idOf O(1) expected (a hash of the string, about two table reads and one comparison);
 * lowerBound O(log n) comparisons. Space: 8 to 16 bytes an entity (the table). No serial form: the
 * table is rebuilt from the stored hashes (a linear pass, cheaper than storing it), except between
 * threads of one process (serving/graph-transfer.ts), where `table` hands it over as it is: the
 * pass is a stall of a hundred milliseconds or more at a million entities on the receiving side.
 */

import { hash64, type Hash64 } from "../hash64.js";
import type { EntityTable } from "./entity-table.js";

export class Dictionary {
  readonly entities: EntityTable;
  /** Dense id + 1 per slot, 0 = empty; length a power of two. */
  private readonly table: Uint32Array;
  private readonly mask: number;
  private readonly scratch: Hash64 = [0, 0];

  /**
   * The dictionary of the entityIds `entities` holds; `table`: the `table` of a dictionary of these
   * very entities (made in another thread), taken as it is.
   */
  constructor(entities: EntityTable, table?: Uint32Array) {
    this.entities = entities;
    // Each branch: a table handed over (its size checked: a power of two over twice the entities), or built.
    if (table !== undefined && table.length !== tableSize(entities.size))
      throw new Error(`Dictionary: a table of ${table.length} slots for ${entities.size} entities`);
    this.table = table ?? buildTable(entities);
    this.mask = this.table.length - 1;
  }

  /** The slots (shared, not copied): another thread's Dictionary of the same entities takes them. */
  get slots(): Uint32Array {
    return this.table;
  }

  get size(): number {
    return this.entities.size;
  }

  /** The entityId of dense id d. */
  entityId(d: number): string {
    return this.entities.entityId(d);
  }

  /** Whether dense id d (0 <= d < size) is `entityId`. */
  is(d: number, entityId: string): boolean {
    return this.entities.idEquals(d, entityId);
  }

  /** The dense id of `entityId`, or -1 when the graph has no such entity. */
  idOf(entityId: string): number {
    const h = hash64([entityId], this.scratch);
    const table = this.table;
    const entities = this.entities;
    for (let slot = h[1] & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const d = entry - 1;
      if (entities.hashLo(d) === h[1] && entities.hashHi(d) === h[0] && entities.idEquals(d, entityId)) return d;
    }
  }

  /** The first dense id whose entityId is >= `entityId` (`size` when none). */
  lowerBound(entityId: string): number {
    let lo = 0;
    let hi = this.entities.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entities.compareId(mid, entityId) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Bytes held: the table (the entityIds are the entity table's). */
  get byteLength(): number {
    return this.table.byteLength;
  }
}

/** The hash table of dense ids, at most half full. */
/** Slots for n entities: the power of two at least 2n (load at most 1/2). */
function tableSize(n: number): number {
  let size = 2;
  while (size < 2 * n) size *= 2;
  return size;
}

function buildTable(entities: EntityTable): Uint32Array {
  const n = entities.size;
  const size = tableSize(n);
  const table = new Uint32Array(size);
  const mask = size - 1;
  for (let d = 0; d < n; d++) {
    let slot = entities.hashLo(d) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = d + 1;
  }
  return table;
}

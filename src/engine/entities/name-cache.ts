/**
 * Name cache
 * ==========
 * Owns the entityId and rawIdentifier strings of the entities a graph wrote into items lately: a
 * direct-mapped table of NAME_CACHE_SLOTS slots, dense id d in slot d mod NAME_CACHE_SLOTS, each
 * slot holding one entity's two strings (a newcomer replaces the slot's entity).
 *
 * Why: the entity table keeps no string per entity (engine/entities/entity-table.ts: one text
 * store), so without this cache every name written into an item is a new string made from the store
 * (a slice, or a copy below 13 code units): a 50-item statements page makes up to 300 of them, most
 * of all an object page, whose subjects and predicates change row after row. Entities recur across
 * pages: the 300 predicates of the generated graphs are in every statement, a heavy object or a
 * class in many, and a query asked again names the same ones. A hit costs two array reads; a miss
 * the two strings it would have made anyway.
 *
 * Cost: O(1) a name. Space: NAME_CACHE_SLOTS x (a 4-byte id and two string pointers) plus the
 * strings held: at most about 2 x NAME_CACHE_SLOTS strings of entity names (a slice of 13 code units
 * or more is a view on the store's chunk: 20 bytes; a shorter one a copy of at most 40 bytes), a
 * fixed bound under 0.5 MiB per graph, whatever the traffic.
 */

import type { EntityTable } from "./entity-table.js";

/** Slots of the table (a power of two). */
export const NAME_CACHE_SLOTS = 4096;
const SLOT_MASK = NAME_CACHE_SLOTS - 1;

export class NameCache {
  private readonly entities: EntityTable;
  /** Dense id whose strings each slot holds (-1: none yet). */
  private readonly ids = new Int32Array(NAME_CACHE_SLOTS).fill(-1);
  readonly entityIds: string[] = new Array<string>(NAME_CACHE_SLOTS).fill("");
  readonly raws: string[] = new Array<string>(NAME_CACHE_SLOTS).fill("");

  /** The ids touchMissing passes on (grown to the longest page's). */
  private missing = new Uint32Array(256);

  constructor(entities: EntityTable) {
    this.entities = entities;
  }

  /**
   * EntityTable.touch for the entities among ids[0, count) that no slot holds: only those will be
   * read from the table (a page of cached names touches nothing).
   */
  touchMissing(ids: Uint32Array, count: number): void {
    if (this.missing.length < count) this.missing = new Uint32Array(count);
    const missing = this.missing;
    let m = 0;
    for (let k = 0; k < count; k++) {
      const d = ids[k]!;
      // Written every time, kept (m moves on) only when the slot holds another entity.
      missing[m] = d;
      m += this.ids[d & SLOT_MASK] !== d ? 1 : 0;
    }
    this.entities.touch(missing, m);
  }

  /**
   * The slot that holds dense id d's strings (entityIds[slot], raws[slot]), filled now if it held
   * another entity. Read them before the next call: it may take the same slot.
   */
  slot(d: number): number {
    const slot = d & SLOT_MASK;
    if (this.ids[slot] !== d) {
      this.ids[slot] = d;
      this.entityIds[slot] = this.entities.entityId(d);
      this.raws[slot] = this.entities.rawIdentifier(d);
    }
    return slot;
  }
}

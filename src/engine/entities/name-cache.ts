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
 * Admission: a slot takes a newcomer only when the newcomer was the last miss of that slot too
 * (`seen`: a doorkeeper of one id a slot, as TinyLFU's, Einziger, Friedman and Manes, "TinyLFU: A
 * Highly Efficient Cache Admission Policy", ACM ToS 2017). An entity named once (a search hit among a
 * million, a random object) gets its two strings in a spare slot that the next miss overwrites: they
 * die young, with the page. Admitting it would write strings the page made into the table, which
 * lives in the old generation: every one of them then survives the next scavenge and is promoted
 * (measured at 1M entities, `npm run bench:alloc`: 2.4 KB a search page kept past a scavenge, most
 * of it names no page asks for again), so scavenges copy more and the next major GC, which marks the
 * host's whole heap too, comes sooner. An entity named again (a predicate, the subject of an S page,
 * a heavy object) is admitted at its second miss in a row in its slot.
 *
 * `raw` reads one rawIdentifier for a caller outside a page's stages (a live graph's delta items,
 * which name base entities): the slot's string when it holds the entity, else one made; it admits
 * nothing, so such reads do not take slots from the pages' entities.
 *
 * Cost: O(1) a name. Space: NAME_CACHE_SLOTS x (two 4-byte ids and two string pointers) plus the
 * strings held: at most about 2 x NAME_CACHE_SLOTS strings of entity names (a slice of 13 code units
 * or more is a view on the store's chunk: 20 bytes; a shorter one a copy of at most 40 bytes), a
 * fixed bound under 0.5 MiB per graph, whatever the traffic.
 */

import type { EntityTable } from "./entity-table.js";

/** Slots of the table (a power of two). */
export const NAME_CACHE_SLOTS = 4096;
const SLOT_MASK = NAME_CACHE_SLOTS - 1;
/** The slot past the table that holds the names of an entity not admitted, until the next such miss. */
export const SPARE_SLOT = NAME_CACHE_SLOTS;

export class NameCache {
  private readonly entities: EntityTable;
  /** Dense id whose strings each slot holds (-1: none yet). */
  private readonly ids = new Int32Array(NAME_CACHE_SLOTS).fill(-1);
  /** Per slot, the dense id of its last miss not admitted (-1: none): the doorkeeper. */
  private readonly seen = new Int32Array(NAME_CACHE_SLOTS).fill(-1);
  /** The names per slot, and SPARE_SLOT's after them. */
  readonly entityIds: string[] = new Array<string>(NAME_CACHE_SLOTS + 1).fill("");
  readonly raws: string[] = new Array<string>(NAME_CACHE_SLOTS + 1).fill("");

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
   * Dense id d's rawIdentifier: its slot's string when the slot holds d, else one made from the
   * table (nothing admitted: a caller outside the page's stages, such as a live graph's delta item).
   */
  raw(d: number): string {
    const slot = d & SLOT_MASK;
    // Each branch: d's slot holds it (no string made), or the table makes one.
    return this.ids[slot] === d ? this.raws[slot]! : this.entities.rawIdentifier(d);
  }

  /**
   * The slot that holds dense id d's strings (entityIds[slot], raws[slot]): its own slot, filled now
   * if it held another entity and d was that slot's last miss too; else SPARE_SLOT (see the banner).
   * Read them before the next call: it may take the same slot.
   */
  slot(d: number): number {
    const slot = d & SLOT_MASK;
    if (this.ids[slot] === d) return slot;
    // Each branch: d missed here last time too (named again: admitted), or it is new here (spare).
    const at = this.seen[slot] === d ? slot : SPARE_SLOT;
    if (at === slot) this.ids[slot] = d;
    else this.seen[slot] = d;
    this.entityIds[at] = this.entities.entityId(d);
    this.raws[at] = this.entities.rawIdentifier(d);
    return at;
  }
}

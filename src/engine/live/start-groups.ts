/**
 * Start groups
 * ============
 * The live graph's delta entities by the first GRAM code units of their folded identifiers (all of
 * a shorter one): order "score"'s delta entities that start with a query are a range of its first
 * gram's group (score-search.ts deltaStartingWith), found by binary searches of the group's start
 * keys (startKey: its next code units packed, in the group's order), no entity read.
 *
 * Kept up to date as batches put and delete delta entities (add, remove: the entity's own group,
 * sorted again with its keys at its next read), where every delta entity was grouped again at the
 * first order "score" read after every batch (O(delta entities), about 0.45 ms for 9,000: bench:changes,
 * "search order=score right after a batch of 1 entity put").
 *
 * Cost: add O(1); remove O(group) (its place found by indexOf); a group's first read after a change
 * O(g log g); memory an array entry an entity.
 */

import { GRAM } from "./gram-index.js";
import { compareEntities, type DeltaEntity } from "./sorted-delta.js";

/** Code units past the first gram a start key holds, and the radix of each (a unit plus 1; 0: none). */
export const START_UNITS = 3;
export const START_RADIX = 0x20000;

/**
 * The start key of `s` (at least GRAM code units): its START_UNITS units after the first gram, each
 * plus 1 (0 where `s` has ended), in base START_RADIX (51 bits: exact in a double). Over strings
 * sharing a first gram it ascends with the search order (a string ending sorts before its
 * extensions), so those that start with a query are a range of keys.
 */
export function startKey(s: string): number {
  let key = 0;
  for (let j = 0; j < START_UNITS; j++) {
    const at = GRAM + j;
    key = key * START_RADIX + (at < s.length ? s.charCodeAt(at) + 1 : 0);
  }
  return key;
}

/** A group: its entities (in search order when `keys` is made) and their start keys. */
interface StartGroup {
  readonly entities: DeltaEntity[];
  keys: Float64Array | undefined;
}

/** A group in search order with its keys (StartGroups.startingWith's answer). */
export interface SortedStartGroup {
  readonly entities: readonly DeltaEntity[];
  readonly keys: Float64Array;
}

export class StartGroups {
  readonly #groups = new Map<string, StartGroup>();

  /** Puts delta entity `x` (not in its group) in its group. */
  add(x: DeltaEntity): void {
    const start = x.folded.slice(0, GRAM);
    const group = this.#groups.get(start);
    // Each branch: a first gram met before (its group grows, to be sorted again), or a new one.
    if (group === undefined) this.#groups.set(start, { entities: [x], keys: undefined });
    else {
      group.entities.push(x);
      group.keys = undefined;
    }
  }

  /** Takes delta entity `x` (the object added) out of its group. */
  remove(x: DeltaEntity): void {
    const start = x.folded.slice(0, GRAM);
    const group = this.#groups.get(start);
    const at = group === undefined ? -1 : group.entities.indexOf(x);
    if (at < 0) throw new Error("StartGroups.remove: the entity is not in its group");
    // Each branch: the group's last entity (the group goes), or one of several (the rest keep their order).
    if (group!.entities.length === 1) this.#groups.delete(start);
    else {
      group!.entities.splice(at, 1);
      group!.keys = undefined;
    }
  }

  /** How many delta entities start with `start` (a first gram, or a whole identifier shorter than one). */
  sizeOf(start: string): number {
    return this.#groups.get(start)?.entities.length ?? 0;
  }

  /** The delta entities whose identifiers start with `fq`'s first gram, in search order, or undefined when none. */
  startingWith(fq: string): SortedStartGroup | undefined {
    const group = this.#groups.get(fq.slice(0, GRAM));
    if (group === undefined) return undefined;
    if (group.keys === undefined) {
      group.entities.sort(compareEntities);
      group.keys = Float64Array.from(group.entities, (x) => startKey(x.folded));
    }
    return group as SortedStartGroup;
  }
}

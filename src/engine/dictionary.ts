/**
 * Entity dictionary
 * =================
 * entityId <-> dense integer id. Ids are assigned in entityId order (UTF-16 code units, JavaScript
 * `<`), so comparing two dense ids is comparing the two entityIds: the triple indexes sort integers
 * and still give the contract's string order.
 *
 * Lookup is a binary search over the sorted id strings: O(log n) string comparisons, no hash table
 * (a Map of a million strings would cost tens of MB and a rebuild on every snapshot open).
 * `lowerBound` also places an entityId that is not (or no longer) in the graph, which is how a
 * cursor resumes on a graph whose entities changed.
 *
 * Serial form (engine/serial.ts): the entityIds as the string list `ids`. `deserialize` checks that
 * the first is not empty and, with `verify`, that they ascend strictly (the binary search needs it;
 * one string comparison per entity).
 */

import type { SerialReader, SerialWriter } from "./serial.js";

export class Dictionary {
  /** The entityIds, ascending; position = dense id. */
  readonly ids: readonly string[];

  constructor(sortedIds: readonly string[]) {
    this.ids = sortedIds;
  }

  /** Writes the serial form: `ids`. */
  serialize(w: SerialWriter): void {
    w.strings("ids", this.ids);
  }

  /** Restores a dictionary from its serial form, checking it (see the banner). */
  static deserialize(r: SerialReader): Dictionary {
    const ids = r.strings("ids");
    // Ascending, so only the first can be empty.
    if (ids.length > 0 && ids[0] === "") r.corrupt("an entityId is empty");
    if (r.verify) {
      for (let i = 1; i < ids.length; i++) {
        if (!(ids[i - 1]! < ids[i]!)) r.corrupt(`ids ${i - 1} and ${i} are not in ascending order`);
      }
    }
    return new Dictionary(ids);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The first dense id whose entityId is >= `entityId` (`size` when none). */
  lowerBound(entityId: string): number {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ids[mid] as string) < entityId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The dense id of `entityId`, or -1 when the graph has no such entity. */
  idOf(entityId: string): number {
    const i = this.lowerBound(entityId);
    return i < this.ids.length && this.ids[i] === entityId ? i : -1;
  }
}

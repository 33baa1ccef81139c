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
 */

export class Dictionary {
  /** The entityIds, ascending; position = dense id. */
  readonly ids: readonly string[];

  constructor(sortedIds: readonly string[]) {
    this.ids = sortedIds;
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

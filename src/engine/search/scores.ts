/**
 * Scores
 * ======
 * Owns each entity's score (CONTRACT.md "Data model"): the whole number 0..2^32 - 1 that ranks it
 * inside its search tier under order=score. The input may give it; else it is the number of
 * statements that name the entity as subject, predicate or object, a statement naming it in two or
 * three roles counting once (`statementCounts`).
 *
 * Kept by dense id, one 32-bit word each. Cost: a read O(1); the default counts one pass over the
 * statements. Serial form: `values`; restore checks one per entity.
 *
 * Whether a score was given is plain from its value except where the given score equals the count:
 * those entities (few) are listed in `givenAtCount`, ascending, so a live graph (engine/live/) knows
 * that such a score stays when the entity's statements change, where a counted one follows them.
 */

import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";

export class Scores {
  /** Score by dense id. */
  readonly values: Uint32Array;
  /** Dense ids, ascending, whose score was given and equals their count of statements. */
  readonly givenAtCount: Uint32Array;

  constructor(values: Uint32Array, givenAtCount: Uint32Array = new Uint32Array(0)) {
    this.values = values;
    this.givenAtCount = givenAtCount;
  }

  /** Whether entity `id`'s score is its count of statements (`count`), not one the input gave. */
  isCounted(id: number, count: number): boolean {
    if (this.values[id] !== count) return false;
    // Binary search of the few given scores that equal their counts.
    const list = this.givenAtCount;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo >= list.length || list[lo] !== id;
  }

  get length(): number {
    return this.values.length;
  }

  at(id: number): number {
    return this.values[id]!;
  }

  get byteLength(): number {
    return this.values.byteLength + this.givenAtCount.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.array("values", this.values);
    w.array("givenAtCount", this.givenAtCount);
  }

  static deserialize(r: SerialReader, entityCount: number): Scores {
    const values = r.uint32("values");
    checkLength(r, "values", values, entityCount, "one per entity");
    const givenAtCount = r.uint32("givenAtCount");
    for (let i = 0; i < givenAtCount.length; i++) {
      if (givenAtCount[i]! >= entityCount || (i > 0 && givenAtCount[i]! <= givenAtCount[i - 1]!))
        r.corrupt("givenAtCount is not ascending entity ids");
    }
    return new Scores(values, givenAtCount);
  }
}

/**
 * The default score of every entity of `entityCount`: how many of the statements (s[i], p[i], o[i])
 * name it in any role, each statement counted once per entity (a count cannot pass 2^32 - 1:
 * statement positions are 32-bit).
 */
export function statementCounts(
  entityCount: number,
  statementCount: number,
  subjectOf: (row: number) => number,
  predicateOf: (row: number) => number,
  objectOf: (row: number) => number,
): Uint32Array {
  const counts = new Uint32Array(entityCount);
  for (let row = 0; row < statementCount; row++) {
    const s = subjectOf(row);
    const p = predicateOf(row);
    const o = objectOf(row);
    counts[s]!++;
    // Each branch: a role that repeats an entity already counted for this statement is skipped.
    if (p !== s) counts[p]!++;
    if (o !== s && o !== p) counts[o]!++;
  }
  return counts;
}

/**
 * Scores
 * ======
 * Owns each entity's score (CONTRACT.md "Data model"): the whole number 0..2^32 - 1 that ranks it
 * inside its search tier under order=score. The input may give it; else it is the number of
 * statements that name the entity as subject, predicate or object, a statement naming it in two or
 * three roles counting once (`statementCounts`).
 *
 * Kept as a dictionary: the distinct scores ascending (`distinct`, one 32-bit word each) and, by
 * dense id, the index of the entity's score among them (`indexes`, an IntVector of just the bits the
 * number of distinct scores needs). Scores are few and repeat (counts of statements: at 1M generated
 * entities, a few hundred distinct values, 9-10 bits an entity instead of 32; graph.stats().bytes
 * "scores"). Cost: a read is two loads; building sorts the distinct values once; the default counts
 * one pass over the statements. Serial form: `distinct` and `indexes`; restore checks the
 * dictionary ascending, one index per entity and every index inside it.
 *
 * Whether a score was given is plain from its value except where the given score equals the count:
 * those entities (few) are listed in `givenAtCount`, ascending, so a live graph (engine/live/) knows
 * that such a score stays when the entity's statements change, where a counted one follows them.
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { IntVector } from "../succinct/int-vector.js";

export class Scores {
  /** The distinct scores, ascending. */
  readonly distinct: Uint32Array;
  /** By dense id, the index of the entity's score in `distinct`. */
  readonly indexes: IntVector;
  /** Dense ids, ascending, whose score was given and equals their count of statements. */
  readonly givenAtCount: Uint32Array;

  private constructor(distinct: Uint32Array, indexes: IntVector, givenAtCount: Uint32Array) {
    this.distinct = distinct;
    this.indexes = indexes;
    this.givenAtCount = givenAtCount;
  }

  /** The scores `values` (by dense id) kept as a dictionary. */
  static from(values: Uint32Array, givenAtCount: Uint32Array = new Uint32Array(0)): Scores {
    const distinct = Uint32Array.from(new Set(values)).sort();
    const indexOf = new Map<number, number>();
    for (let i = 0; i < distinct.length; i++) indexOf.set(distinct[i]!, i);
    // At least 1 bit: a vector of width 0 would hold nothing to read.
    const indexes = new IntVector(values.length, Math.max(1, IntVector.widthFor(distinct.length - 1)));
    for (let id = 0; id < values.length; id++) indexes.set(id, indexOf.get(values[id]!)!);
    return new Scores(distinct, indexes, givenAtCount);
  }

  /** Whether entity `id`'s score is its count of statements (`count`), not one the input gave. */
  isCounted(id: number, count: number): boolean {
    if (this.at(id) !== count) return false;
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
    return this.indexes.length;
  }

  at(id: number): number {
    return this.distinct[this.indexes.get(id)]!;
  }

  get byteLength(): number {
    return this.distinct.byteLength + this.indexes.byteLength + this.givenAtCount.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.array("distinct", this.distinct);
    this.indexes.serialize(w.child("indexes"));
    w.array("givenAtCount", this.givenAtCount);
  }

  static deserialize(r: SerialReader, entityCount: number): Scores {
    const distinct = r.uint32("distinct");
    const indexes = IntVector.deserialize(r.child("indexes"));
    for (let i = 1; i < distinct.length; i++) {
      if (distinct[i]! <= distinct[i - 1]!) r.corrupt("the distinct scores are not ascending");
    }
    if (indexes.length !== entityCount) r.corrupt("the score indexes are not one per entity");
    // Every index inside the dictionary (a read past it would be undefined, not a score).
    for (let id = 0; id < entityCount; id++) {
      if (indexes.get(id) >= distinct.length) r.corrupt(`entity ${id}'s score index is past the distinct scores`);
    }
    const givenAtCount = r.uint32("givenAtCount");
    for (let i = 0; i < givenAtCount.length; i++) {
      if (givenAtCount[i]! >= entityCount || (i > 0 && givenAtCount[i]! <= givenAtCount[i - 1]!))
        r.corrupt("givenAtCount is not ascending entity ids");
    }
    return new Scores(distinct, indexes, givenAtCount);
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

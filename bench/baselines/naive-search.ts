/**
 * Baseline: naive substring scan
 * ==============================
 * What a user would write without an index: every raw identifier folded once up front (kept in an
 * array beside the entities), then per query `includes` over all of them, a sort of the matches in
 * the contract's order (tier, folded identifier, entityId; JavaScript `<`; or order "score", with
 * the score highest first after the tier), and a slice at the page's offset. Its pages are the reference the benchmark checks Quiver's against.
 *
 * Cost per query: O(total identifier length) for the scan, O(m log m) for the m matches' sort, so
 * it grows with the data and with how common the query is, and a deep page costs what page 1 does.
 * Memory: the folded identifiers (about the raw ones again) and the entity objects.
 */

import { fold, type Entity, type EntityType } from "../../src/index.js";

const EXACT = 0;
const PREFIX = 1;
const INFIX = 2;

export class NaiveSubstringScan {
  /** Time spent folding the identifiers up front. */
  readonly prepareMs: number;
  private readonly entities: readonly Entity[];
  private readonly folded: string[];

  constructor(entities: readonly Entity[]) {
    const started = performance.now();
    this.entities = entities;
    this.folded = entities.map((e) => fold(e.rawIdentifier));
    this.prepareMs = performance.now() - started;
  }

  get size(): number {
    return this.entities.length;
  }

  /** Matches of `q` (of `type` when given). */
  count(q: string, type?: EntityType): number {
    const fq = fold(q);
    let n = 0;
    for (let i = 0; i < this.folded.length; i++)
      if ((type === undefined || this.entities[i]!.type === type) && this.folded[i]!.includes(fq)) n++;
    return n;
  }

  /** All matches and how many are exact or prefix ones (tiers 0 and 1 come first in the order). */
  tierCounts(q: string): { all: number; exactOrPrefix: number } {
    const fq = fold(q);
    let all = 0;
    let exactOrPrefix = 0;
    for (const f of this.folded) {
      if (!f.includes(fq)) continue;
      all++;
      if (f.startsWith(fq)) exactOrPrefix++;
    }
    return { all, exactOrPrefix };
  }

  /**
   * The page at `offset` in order "score" (tier, score highest first, folded identifier, entityId):
   * scan, sort every match, slice. `scores` maps every entityId to its score.
   */
  pageByScore(
    q: string,
    type: EntityType | undefined,
    offset: number,
    limit: number,
    scores: ReadonlyMap<string, number>,
  ): Entity[] {
    return this.page(q, type, offset, limit, scores);
  }

  /** The page at `offset`: scan, sort every match, slice (with `scores`, in order "score"). */
  page(
    q: string,
    type: EntityType | undefined,
    offset: number,
    limit: number,
    scores?: ReadonlyMap<string, number>,
  ): Entity[] {
    const fq = fold(q);
    const folded = this.folded;
    const hits: number[] = [];
    const tiers = new Uint8Array(folded.length);
    for (let i = 0; i < folded.length; i++) {
      const f = folded[i]!;
      if ((type === undefined || this.entities[i]!.type === type) && f.includes(fq)) {
        hits.push(i);
        tiers[i] = f === fq ? EXACT : f.startsWith(fq) ? PREFIX : INFIX;
      }
    }
    hits.sort((a, b) => {
      if (tiers[a] !== tiers[b]) return tiers[a]! - tiers[b]!;
      if (scores !== undefined) {
        const sa = scores.get(this.entities[a]!.entityId)!;
        const sb = scores.get(this.entities[b]!.entityId)!;
        if (sa !== sb) return sb - sa;
      }
      const fa = folded[a]!;
      const fb = folded[b]!;
      if (fa !== fb) return fa < fb ? -1 : 1;
      const ia = this.entities[a]!.entityId;
      const ib = this.entities[b]!.entityId;
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    });
    return hits.slice(offset, offset + limit).map((i) => this.entities[i]!);
  }
}

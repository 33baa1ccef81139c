/**
 * Document array tests: every listing (any interval, any resume point and upper bound, any type or
 * none, any page size) equals the naive answer: the distinct ranks of the positions' entities,
 * filtered, sorted, cut to k. Small plain widths are forced through many ranks so that buckets,
 * the frontier cut and the restart are all exercised. Half the listings exclude a random gap of
 * ranks (the search index's prefix tier, between the two segments of its infix tier).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { ANY_TYPE, DocumentArray } from "../../../src/engine/search/document-array.js";
import { Rng } from "../../support/oracle.js";

function naiveList(
  docOf: readonly number[],
  typeOf: readonly number[],
  l: number,
  r: number,
  lo: number,
  hi: number,
  type: number,
  k: number,
  gapLo: number,
  gapHi: number,
): number[] {
  const set = new Set<number>();
  for (let i = l; i < r; i++) {
    const d = docOf[i]!;
    if (d >= gapLo && d < gapHi) continue;
    if (d >= lo && d < hi && (type === ANY_TYPE || typeOf[d] === type)) set.add(d);
  }
  return [...set].sort((a, b) => a - b).slice(0, k);
}

/**
 * Random entities (text lengths 1 to maxLength), a random permutation as the "suffix array", random
 * listings against the naive one. Long texts put many positions in one entity, so a frontier cut
 * made on positions (DENSE_POSITIONS_PER_RANK) keeps too few entities and the walk must restart.
 */
function checkRandomListings(seed: number, rounds: number, maxLength: number): void {
  const rng = new Rng(seed);
  for (let round = 0; round < rounds; round++) {
    const N = 1 + rng.int(round % 4 === 0 ? 5000 : 300);
    // Entities with random text lengths; a random permutation as the "suffix array".
    const starts = new Uint32Array(N + 1);
    let at = 0;
    for (let r = 0; r < N; r++) {
      starts[r] = at;
      at += 1 + rng.int(maxLength);
    }
    starts[N] = at;
    const n = at + 2;
    const sa = Uint32Array.from(Array.from({ length: n }, (_, i) => i));
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [sa[i], sa[j]] = [sa[j]!, sa[i]!];
    }
    const typeOf = Array.from({ length: N }, () => (rng.chance(0.5) ? 0 : rng.int(8)));
    // The default width, or a random one from 1 to R (buckets from 2 ranks to the whole rank space).
    const rankBits = Math.max(1, Math.ceil(Math.log2(Math.max(N, 2))));
    const plainBits = rng.chance(0.5) ? undefined : 1 + rng.int(rankBits);
    const docs = DocumentArray.build(sa, starts, Uint8Array.from(typeOf), plainBits);
    const rankAt: number[] = [];
    for (let r = 0; r < N; r++) for (let p = starts[r]!; p < starts[r + 1]!; p++) rankAt[p] = r;
    const docOf = Array.from(sa, (p) => (p < starts[N]! ? rankAt[p]! : 0));
    const typeOfDoc = docOf.map((d) => typeOf[d]!);
    void typeOfDoc;
    for (let k = 0; k < 60; k++) {
      const l = rng.int(n);
      const r = l + rng.int(n - l + 1);
      const lo = rng.chance(0.3) ? 0 : rng.int(N + 1);
      const hi = rng.chance(0.5) ? N : lo + rng.int(N - lo + 1);
      const type = rng.chance(0.4) ? ANY_TYPE : rng.int(8);
      const want = 1 + rng.int(rng.chance(0.2) ? 300 : 25);
      // A gap anywhere in the rank space (empty at times), or none.
      const gapLo = rng.int(N + 1);
      const gapHi = rng.chance(0.5) ? 0 : gapLo + rng.int(N - gapLo + 1);
      const out: number[] = [];
      docs.list(l, r, lo, hi, type, want, out, gapLo, gapHi);
      const expected = naiveList(docOf, typeOf, l, r, lo, hi, type, want, gapLo, gapHi);
      assert.equal(
        out,
        expected,
        `round ${round} N=${N} P=${docs.plainBits} [${l},${r}) lo=${lo} hi=${hi} gap [${gapLo},${gapHi}) type=${type} k=${want}`,
      );
    }
  }
}

test("list equals the naive distinct-rank listing", () => {
  checkRandomListings(3, 40, 6);
});

test("list restarts when a few entities hold most positions", () => {
  checkRandomListings(4, 20, 60);
});

test.run();

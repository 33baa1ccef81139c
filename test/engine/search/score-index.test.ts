/**
 * Score index tests
 * =================
 * src/engine/search/score-index.ts on its own against brute force: seeded random small graphs
 * (few pieces per identifier: many equal identifiers, prefixes and ties; scores from a small range:
 * many equal scores), each built with bands of several sizes (the kept band holding no entity, a
 * few, many or all of them; later bands empty or not) and each fallback forced or chosen by cost,
 * so each listing path (kept array, decoded bands, sranks checked one by one, runs of equal
 * scores listed by name, whole listing by name, several in one page) meets every tier. For each (pattern, type): the first page, then every page to the
 * end from each item's srank (a cursor of this content), compared with the sort by (tier, score
 * descending, folded identifier, entityId). Resuming after a key of other content is covered by
 * test/engine/search-order.test.ts.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { type ScoreHits, ScoreIndex, type ScoreIndexOptions } from "../../../src/engine/search/score-index.js";
import { Scores } from "../../../src/engine/search/scores.js";
import { SearchIndex } from "../../../src/engine/search/search-index.js";
import { cmpString, Rng, show } from "../../support/oracle.js";

const PIECES = ["a", "b", "c", "ab", "é", "😀"];

function randomText(rng: Rng, maxPieces: number): string {
  let s = "";
  const n = rng.int(maxPieces + 1);
  for (let i = 0; i < n; i++) s += rng.pick(PIECES);
  return s;
}

/**
 * The brute-force answer: every entity (dense id) whose folded text holds `pattern`, of `type` (-1:
 * any), with its tier, in order "score" (tier, score highest first, folded text, dense id).
 */
function scoreOrder(
  folded: readonly string[],
  types: Uint8Array,
  scoreValues: Uint32Array,
  pattern: string,
  type: number,
): { id: number; tier: number }[] {
  const all: { id: number; tier: number }[] = [];
  for (let d = 0; d < folded.length; d++) {
    const f = folded[d]!;
    if (!f.includes(pattern) || (type >= 0 && types[d] !== type)) continue;
    all.push({ id: d, tier: f === pattern ? 0 : f.startsWith(pattern) ? 1 : 2 });
  }
  return all.sort(
    (x, y) =>
      x.tier - y.tier ||
      scoreValues[y.id]! - scoreValues[x.id]! ||
      cmpString(folded[x.id]!, folded[y.id]!) ||
      x.id - y.id,
  );
}

/**
 * Band ends (cumulative shares of the text), fallbacks and short tiers read in a row (tierReadMax:
 * 0 walks every tier in the names array, 4 reads the short ones and walks the rest) the oracle
 * builds with.
 */
const VARIANTS: ScoreIndexOptions[] = [
  { bandEnds: [0, 0, 0] },
  { bandEnds: [0, 0.2, 0.5], fallback: "bands", tierReadMax: 0 },
  { bandEnds: [0.05, 0.1, 0.3] },
  { bandEnds: [0.05, 0.1, 0.3], tierReadMax: 4 },
  { bandEnds: [0.05, 0.1, 0.3], fallback: "bands", tierReadMax: 0 },
  { bandEnds: [0.05, 0.1, 0.3], fallback: "names" },
  { bandEnds: [0.3, 0.3, 0.9], fallback: "bands" },
  { bandEnds: [0.05, 0.1, 0.3], fallback: "scan" },
  { bandEnds: [0, 0.2, 0.5], fallback: "scan" },
  { bandEnds: [0.05, 0.1, 0.3], fallback: "runs" },
  { bandEnds: [0, 0.2, 0.5], fallback: "runs" },
  { bandEnds: [1, 1, 1] },
];

test("oracle: find in score order against brute force, every band layout and fallback, every resume point", () => {
  let checks = 0;
  for (let seed = 1; seed <= 120; seed++) {
    const rng = new Rng(seed);
    const n = rng.chance(0.3) ? rng.range(30, 120) : rng.int(25);
    const typeCount = rng.range(1, 4);
    const idSet = new Set<string>();
    while (idSet.size < n) idSet.add(`${rng.pick(["a", "b", "é"])}${rng.int(500)}`);
    const ids = [...idSet].sort();
    const folded = ids.map(() => randomText(rng, rng.chance(0.2) ? 8 : 3));
    const types = Uint8Array.from(ids, () => rng.int(typeCount));
    const scoreValues = Uint32Array.from(ids, () => rng.int(rng.chance(0.5) ? 3 : 20));
    const search = SearchIndex.build(folded, types);
    const scores = Scores.from(scoreValues);
    const patterns = new Set<string>();
    for (let k = 0; k < 5; k++) {
      const src = n > 0 && rng.chance(0.7) ? folded[rng.int(n)]! : randomText(rng, 3);
      const from = rng.int(src.length + 1);
      const pattern = rng.chance(0.3) ? src : src.slice(from, from + rng.range(1, 3));
      if (pattern.length > 0) patterns.add(pattern);
    }
    patterns.add("a");
    for (const options of VARIANTS) {
      const index = ScoreIndex.build(search, scores, options);
      const share = `${options.bandEnds} ${options.fallback ?? "auto"}`;
      for (const pattern of patterns) {
        for (let type = -1; type < typeCount; type++) {
          const ctx = `seed ${seed} share ${share} pattern ${show(pattern)} type ${type} kept ${index.keptEntities}`;
          // Dense ids follow the sorted entityIds, so the oracle's last key (the dense id) is the entityId.
          const all = scoreOrder(folded, types, scoreValues, pattern, type);
          const page = (after: { tier: number; srank: number } | null, count: number) => {
            const hits = index.find(
              search,
              scores,
              pattern,
              type,
              after === null ? null : { ...after, bounds: undefined },
              count,
              (rank) => {
                const d = search.idAt(rank);
                return folded[d]!.includes(pattern) && (type < 0 || types[d] === type);
              },
            );
            return {
              ids: hits.sranks.map((s) => search.idAt(index.rankAt(s))),
              tiers: hits.tiers,
              sranks: hits.sranks,
            };
          };
          const expect = (got: ReturnType<typeof page>, from: number, count: number, what: string) => {
            const want = all.slice(from, from + count);
            const same =
              got.ids.length === want.length && want.every((x, i) => got.ids[i] === x.id && got.tiers[i] === x.tier);
            if (!same) assert.unreachable(`${ctx} ${what}: got ${show(got.ids)}, want ${show(want.map((x) => x.id))}`);
            checks++;
          };
          expect(page(null, 1000), 0, 1000, "all");
          // Walk every page to the end, each resumed from the previous page's last srank.
          const size = rng.range(1, 5);
          let after: { tier: number; srank: number } | null = null;
          for (let at = 0; ; at += size) {
            const got = page(after, size);
            expect(got, at, size, `page at ${at} of ${size}`);
            if (got.ids.length < size) break;
            after = { tier: got.tiers[size - 1]!, srank: got.sranks[size - 1]! };
          }
        }
      }
    }
  }
  assert.ok(checks > 5000, `only ${checks} checks`);
});

test("a listing with a firm count (a merge's page, then a look-ahead that decodes no band of its own): a prefix of the walk, at least the firm count long or to the end, short only when more may follow; walked to the end by resuming after its last", () => {
  let checks = 0;
  let shorts = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(500 + seed);
    const n = rng.range(20, 160);
    const folded = Array.from({ length: n }, () => randomText(rng, rng.chance(0.2) ? 8 : 3));
    const types = Uint8Array.from(folded, () => rng.int(2));
    const scoreValues = Uint32Array.from(folded, () => rng.int(rng.chance(0.5) ? 3 : 20));
    const search = SearchIndex.build(folded, types);
    const scores = Scores.from(scoreValues);
    for (const options of VARIANTS) {
      const index = ScoreIndex.build(search, scores, options);
      for (const pattern of ["a", "b", "ab", "é", rng.pick(folded).slice(0, 2)]) {
        if (pattern.length === 0) continue;
        for (let type = -1; type < 2; type++) {
          const all = scoreOrder(folded, types, scoreValues, pattern, type);
          const ctx = `seed ${seed} ${options.bandEnds} ${options.fallback ?? "auto"} ${show(pattern)} type ${type}`;
          const matches = (rank: number) => {
            const d = search.idAt(rank);
            return folded[d]!.includes(pattern) && (type < 0 || types[d] === type);
          };
          let after: { tier: number; srank: number; bounds: undefined } | null = null;
          let at = 0;
          for (;;) {
            const firm = rng.range(1, 5);
            const count = firm + rng.range(0, 4);
            const into = { sranks: [] as number[], tiers: [] as number[], bounds: null };
            const hits: ScoreHits = index.find(search, scores, pattern, type, after, count, matches, into, firm);
            const ids = hits.sranks.map((x) => search.idAt(index.rankAt(x)));
            const want = all.slice(at, at + count).map((x) => x.id);
            // A prefix of the walk's next `count`, at least `firm` long (or all that is left).
            assert.equal(ids, want.slice(0, ids.length), `${ctx} at ${at}: a prefix`);
            assert.ok(
              ids.length >= Math.min(firm, all.length - at),
              `${ctx} at ${at}: firm ${firm}, got ${ids.length}`,
            );
            // Short: fewer than the count (more may follow: the next listing tells); else every one
            // asked, or the walk's end.
            if (hits.short === true) {
              shorts++;
              assert.ok(ids.length < count, `${ctx} at ${at}: short with all asked`);
            } else assert.is(ids.length, Math.min(count, all.length - at), `${ctx} at ${at}: not short`);
            checks++;
            at += ids.length;
            if (ids.length === 0 || (hits.short !== true && ids.length < count)) break;
            after = { tier: hits.tiers[ids.length - 1]!, srank: hits.sranks[ids.length - 1]!, bounds: undefined };
          }
          assert.is(at, all.length, `${ctx}: the walk's end`);
        }
      }
    }
  }
  assert.ok(checks > 2000 && shorts > 0, `${checks} checks, ${shorts} short`);
});

test("a listing that stops at a score (end: srankBelow) gives the resume point's tier alone, below its end, every band layout and fallback, every resume point; srankBelow against brute force", () => {
  let checks = 0;
  for (let seed = 200; seed <= 260; seed++) {
    const rng = new Rng(seed);
    const n = rng.chance(0.4) ? rng.range(30, 120) : rng.range(1, 25);
    const idSet = new Set<string>();
    while (idSet.size < n) idSet.add(`${rng.pick(["a", "b", "é"])}${rng.int(500)}`);
    const ids = [...idSet].sort();
    const folded = ids.map(() => randomText(rng, rng.chance(0.2) ? 8 : 3));
    const types = Uint8Array.from(ids, () => rng.int(2));
    const scoreValues = Uint32Array.from(ids, () => rng.int(rng.chance(0.5) ? 3 : 20));
    const search = SearchIndex.build(folded, types);
    const scores = Scores.from(scoreValues);
    const patterns = ["a", "b", "ab", folded[rng.int(n)]!.slice(0, 2)].filter((p) => p.length > 0);
    for (const options of VARIANTS) {
      const index = ScoreIndex.build(search, scores, options);
      for (let f = 0; f <= 21; f++) {
        const above = scoreValues.filter((v) => v >= f).length;
        assert.is(index.srankBelow(scores, f), above, `seed ${seed} srankBelow(${f})`);
      }
      for (const pattern of patterns)
        for (let type = -1; type < 2; type++) {
          const ctx = `seed ${seed} ${options.bandEnds} ${options.fallback ?? "auto"} ${show(pattern)} type ${type}`;
          const all = scoreOrder(folded, types, scoreValues, pattern, type);
          const matches = (rank: number) => {
            const d = search.idAt(rank);
            return folded[d]!.includes(pattern) && (type < 0 || types[d] === type);
          };
          // Every resume point of the walk (an item's tier and srank), each with an end at a random score.
          const walk = index.find(search, scores, pattern, type, null, 1000, matches);
          for (let at = 0; at < walk.sranks.length; at++) {
            const tier = walk.tiers[at]!;
            const srank = walk.sranks[at]!;
            const end = index.srankBelow(scores, rng.int(21));
            const count = rng.range(1, 6);
            const got = index.find(
              search,
              scores,
              pattern,
              type,
              { tier, srank, bounds: undefined, end },
              count,
              matches,
            );
            const kept = got.sranks.filter((s) => s < end);
            const want = all
              .slice(at + 1)
              .filter((x) => x.tier === tier && srankOfId(search, index, x.id) < end)
              .slice(0, count);
            assert.equal(
              kept.map((s) => search.idAt(index.rankAt(s))),
              want.map((x) => x.id),
              `${ctx} after ${srank} (tier ${tier}) end ${end}`,
            );
            assert.ok(
              got.tiers.every((t) => t === tier),
              `${ctx}: the resume point's tier alone`,
            );
            checks++;
          }
        }
    }
  }
  assert.ok(checks > 2000, `only ${checks} checks`);
});

/** The srank of dense id `d` (its place in the score order), by a scan. */
function srankOfId(search: SearchIndex, index: ScoreIndex, d: number): number {
  for (let s = 0; s < index.entityCount; s++) if (search.idAt(index.rankAt(s)) === d) return s;
  return -1;
}

test("the bands hold the best-scored entities within their shares of positions, band 0 in the kept array", () => {
  const rng = new Rng(7);
  const n = 400;
  const folded = Array.from({ length: n }, () => randomText(rng, 4));
  const search = SearchIndex.build(
    folded,
    Uint8Array.from(folded, () => 0),
  );
  const scores = Scores.from(Uint32Array.from(folded, () => rng.int(50)));
  for (const ends of [
    [0, 0, 0],
    [0.1, 0.2, 0.4],
    [0.5, 0.5, 0.7],
    [1, 1, 1],
  ]) {
    const index = ScoreIndex.build(search, scores, { bandEnds: ends });
    // Every position carries its entity's band, each band's positions stay within its share, and
    // band 0's count (keptRank at every position) is the kept array's length.
    // (The positions past the last text count for rank 0, as in the search index's array.)
    const values = search.documents.values();
    const mask = (1 << search.documents.rankBits) - 1;
    const bandOfRank = new Map<number, number>();
    for (let v = 0; v < 4; v++)
      for (let s = index.bandStarts[v]!; s < index.bandStarts[v + 1]!; s++) bandOfRank.set(index.rankAt(s), v);
    let kept = 0;
    const upTo = [0, 0, 0, 0];
    for (let i = 0; i < values.length; i++) {
      assert.is(index.keptRank(i), kept, `ends ${ends} position ${i}`);
      const band = bandOfRank.get(values[i]! & mask)!;
      assert.is(index.bands.get(i), band, `ends ${ends} position ${i}`);
      for (let v = band; v < 4; v++) upTo[v]!++;
      if (band === 0) kept++;
    }
    assert.is(index.keptRank(values.length), kept);
    // keptBetween counts the same as the difference of two keptRanks, across words and blocks.
    for (let t = 0; t < 200; t++) {
      const l = rng.int(values.length + 1);
      const r = Math.min(values.length, l + rng.int(300));
      assert.is(index.keptBetween(l, r), index.keptRank(r) - index.keptRank(l), `ends ${ends} [${l}, ${r})`);
    }
    assert.is(index.infix.top.length, kept);
    for (let v = 0; v < 3; v++) assert.ok(upTo[v]! <= Math.floor(values.length * ends[v]!), `ends ${ends} band ${v}`);
    if (ends[0] === 1) assert.is(index.keptEntities, n);
  }
});

test("walks of several queries interleaved page by page: a band or tier kept from one query's page never answers another's", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const rng = new Rng(1000 + seed);
    const n = rng.range(60, 200);
    const folded = Array.from({ length: n }, () => randomText(rng, 6));
    const types = Uint8Array.from(folded, () => rng.int(2));
    const scoreValues = Uint32Array.from(folded, () => rng.int(rng.chance(0.5) ? 3 : 30));
    const search = SearchIndex.build(folded, types);
    const scores = Scores.from(scoreValues);
    // Queries with intervals inside one another (a, ab, b, c, bc, é) and each type.
    const queries: { pattern: string; type: number }[] = [];
    for (const pattern of ["a", "ab", "b", "c", "bc", "é", "cab"])
      for (let type = -1; type < 2; type++) queries.push({ pattern, type });
    for (const options of [
      { bandEnds: [0.05, 0.1, 0.3], fallback: "bands" },
      { bandEnds: [0.05, 0.1, 0.3], fallback: "names" },
      { bandEnds: [0, 0.2, 0.5], fallback: "runs" },
      { bandEnds: [0, 0.2, 0.5] },
      { bandEnds: [0.05, 0.1, 0.3] },
    ] as ScoreIndexOptions[]) {
      const index = ScoreIndex.build(search, scores, options);
      const want = queries.map(({ pattern, type }) =>
        scoreOrder(folded, types, scoreValues, pattern, type).map((x) => x.id),
      );
      // Every query's walk one page at a time, the queries taken in a random order each turn.
      const got = queries.map(() => [] as number[]);
      const after = queries.map(() => null as { tier: number; srank: number; bounds: undefined } | null);
      const done = queries.map(() => false);
      const size = rng.range(1, 4);
      while (done.includes(false)) {
        const q = rng.pick(queries.map((_, i) => i).filter((i) => !done[i]));
        const { pattern, type } = queries[q]!;
        const hits = index.find(search, scores, pattern, type, after[q]!, size, (rank) => {
          const d = search.idAt(rank);
          return folded[d]!.includes(pattern) && (type < 0 || types[d] === type);
        });
        for (const srank of hits.sranks) got[q]!.push(search.idAt(index.rankAt(srank)));
        if (hits.sranks.length < size) done[q] = true;
        else after[q] = { tier: hits.tiers[size - 1]!, srank: hits.sranks[size - 1]!, bounds: undefined };
      }
      for (const [q, { pattern, type }] of queries.entries())
        assert.equal(got[q], want[q], `seed ${seed} ${options.fallback ?? "auto"} ${show(pattern)} type ${type}`);
    }
  }
});

test("scoreAt and scoresAt (runs of equal scores over the sranks, found by the block table) and the resume after a raised or lowered key, against brute force", () => {
  let checks = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed);
    // Some graphs span several blocks of the run table (256 sranks a block).
    const n = rng.chance(0.2) ? rng.int(3) : rng.chance(0.25) ? rng.range(250, 1300) : rng.range(3, 150);
    const idSet = new Set<string>();
    while (idSet.size < n) idSet.add(`${rng.pick(["a", "b", "é"])}${rng.int(1000)}`);
    const ids = [...idSet].sort();
    const folded = ids.map(() => randomText(rng, 4));
    const types = Uint8Array.from(ids, () => 0);
    // Few distinct scores (long runs), or many (runs of one), some large.
    const spread = rng.pick([2, 5, 40, 4_000_000_000]);
    const scoreValues = Uint32Array.from(ids, () => rng.int(spread));
    const search = SearchIndex.build(folded, types);
    const scores = Scores.from(scoreValues);
    const index = ScoreIndex.build(search, scores);
    const scoreOf = (srank: number) => scores.at(search.idAt(index.rankAt(srank)));
    for (let s = 0; s < n; s++) {
      if (index.scoreAt(scores, s) !== scoreOf(s))
        assert.unreachable(`seed ${seed} srank ${s}: ${index.scoreAt(scores, s)}`);
      checks++;
    }
    // scoresAt over a listing's sranks: ascending stretches (tiers) that restart lower, gaps small and large.
    if (n > 0) {
      const sranks: number[] = [];
      for (let tier = 0; tier < 3; tier++)
        for (let s = rng.int(n); s < n && sranks.length < 60; s += 1 + (rng.chance(0.5) ? 0 : rng.int(n / 4 + 1)))
          sranks.push(s);
      const out = new Float64Array(sranks.length);
      index.scoresAt(scores, sranks, sranks.length, out);
      sranks.forEach((s, i) => {
        if (out[i] !== scoreOf(s)) assert.unreachable(`seed ${seed} scoresAt srank ${s} (item ${i}): ${out[i]}`);
        checks++;
      });
    }
    // A key of the entity at srank `at` moved to `score` (raised, lowered, or kept): the first srank
    // after it is the first whose (score descending, name rank) comes after (score, the entity's name rank).
    for (let k = 0; k < 30 && n > 0; k++) {
      const at = rng.int(n);
      const score = Math.max(0, scoreOf(at) + rng.range(-3, 4));
      const rank = index.rankAt(at);
      let want = 0;
      while (want < n && (scoreOf(want) > score || (scoreOf(want) === score && index.rankAt(want) <= rank))) want++;
      const got = index.srankAfterMoved(scores, at, score);
      assert.is(got, want, `seed ${seed} at ${at} score ${score}`);
      checks++;
    }
  }
  assert.ok(checks > 3000, `only ${checks} checks`);
});

test.run();

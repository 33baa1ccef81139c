/**
 * Delta structure tests
 * =====================
 * The live graph's small structures against brute force on seeded random data: mergeSorted (both
 * of its ways, a few changes spliced in place and many merged) equals a sort of the list's new
 * content, and so does mergeStatements (its merge keys: in place, spliced, or into a new list) over
 * statements whose entities are in a base or not; mergeKey orders as compareStatements (and packedKey makes a base statement's); sortStatements (its radix sort on dense ids, and its fallback) equals a sort by compareStatements; prefixRange, seekAfter, seekPrefix and inPrefix equal a filter, and the same given the merge keys and a key range (mergeKeyLo, mergeKeyHi, mergeKeyPinned); a fence's window
 * (buildFence, fenceLo, fenceHi) holds its first component's range and a search in it finds the same; GramIndex.matching
 * equals includes() over the items, and sortedCandidates holds them sorted, as items come and go.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  GRAM,
  GramIndex,
  packedHead,
  SUMMARY_HEAD,
  SUMMARY_SIGNATURE,
  SUMMARY_TAIL,
  SUMMARY_WORDS,
} from "../../../src/engine/live/gram-index.js";
import { signatureInto } from "../../../src/engine/live/gram-signature.js";
import { seekEntity, summaryHeadAt, typeCodeOf } from "../../../src/engine/live/search-items.js";
import {
  buildFence,
  compareKey,
  compareStatements,
  type DeltaEntity,
  type DeltaStatement,
  mergeKey,
  FENCE_STRIDE,
  fenceHi,
  fenceLo,
  mergeSorted,
  mergeStatements,
  ORDERS,
  inPrefix,
  keyFirst,
  keySecond,
  mergeKeyHi,
  mergeKeyLo,
  mergeKeyPinned,
  packedKey,
  prefixRange,
  seekPrefix,
  seekAfter,
  SPLICE_MAX_CHANGES,
  sortStatements,
  statementKey,
} from "../../../src/engine/live/sorted-delta.js";
import { StatementList } from "../../../src/engine/live/statement-list.js";
import { deltaEntity } from "../../support/delta-entities.js";
import { Rng } from "../../support/oracle.js";

/** Base entity d's entityId (dense ids in entityId order; `${name}x` sorts among them, new to the base). */
const baseName = (d: number): string => `e${String(d).padStart(9, "0")}`;

/** Statements over the entities `id` draws ([entityId, base dense id or -1]), their fingerprints numbered in order. */
function statementMaker(id: () => [string, number]): () => DeltaStatement {
  let next = 0;
  return () => {
    const [s, sd] = id();
    const [p, pd] = id();
    const [o, od] = id();
    return { s, p, o, fp: `fp${String(next++).padStart(6, "0")}`, given: false, sd, pd, od };
  };
}

function randomStatement(rng: Rng, n: number): DeltaStatement {
  const id = () => rng.pick(["a", "b", "ab", "B", "é", "😀", "a\u0000"]);
  return { s: id(), p: id(), o: id(), fp: `fp${n}`, given: rng.chance(0.5), sd: -1, pd: -1, od: -1 };
}

test("compareStatements by dense ids (some entities in the base, some not) equals the string keys' order", () => {
  const rng = new Rng(33);
  // A base's dictionary: ids in entityId order (JavaScript <); each statement's entity is in the base or not.
  const inBase = ["B", "a", "a\u0000", "ab", "b", "é", "😀"].sort();
  const id = (): [string, number] => {
    const e = rng.pick(inBase);
    return rng.chance(0.3) ? [e, -1] : [e, inBase.indexOf(e)];
  };
  for (const order of ORDERS) {
    const compare = compareStatements(order);
    for (let k = 0; k < 3000; k++) {
      const make = (n: number): DeltaStatement => {
        const [s, sd] = id();
        const [p, pd] = id();
        const [o, od] = id();
        return { s, p, o, fp: `fp${rng.int(3)}${n}`, given: false, sd, pd, od };
      };
      const x = make(0);
      const y = rng.chance(0.2) ? { ...x, sd: rng.chance(0.5) ? -1 : x.sd } : make(rng.int(2));
      const want = Math.sign(compareKey(statementKey(order, x), statementKey(order, y)));
      assert.is(Math.sign(compare(x, y)), want, `${order} ${JSON.stringify(x)} ${JSON.stringify(y)}`);
    }
  }
});

test("sortStatements (radix on dense ids, ties by fingerprint; else by comparisons) equals a sort by compareStatements", () => {
  const rng = new Rng(61);
  for (let round = 0; round < 24; round++) {
    // A base of up to 2^23 entities (one to three radix passes an id), whose entityIds sort as their ids.
    const bound = rng.pick([2, 300, 5000, 1 << 23]);
    const name = (d: number) => `e${String(d).padStart(8, "0")}`;
    const pool = Array.from({ length: rng.range(1, 40) }, () => rng.int(bound));
    const newOnes = rng.chance(0.25);
    const n = rng.pick([1, 200, 256, 1000, 3000]);
    const items: DeltaStatement[] = [];
    for (let k = 0; k < n; k++) {
      const id = (): [string, number] => {
        // Some batches name an entity new to the delta (no dense id): the fallback's case.
        if (newOnes && rng.chance(0.01)) return [`new${rng.int(5)}`, -1];
        const d = rng.chance(0.5) ? rng.pick(pool) : rng.int(bound);
        return [name(d), d];
      };
      // Some statements repeat a triple under another (given) fingerprint: a tie of the ids.
      const twin = items.length > 0 && rng.chance(0.1) ? rng.pick(items) : undefined;
      const [s, sd] = twin !== undefined ? [twin.s, twin.sd] : id();
      const [p, pd] = twin !== undefined ? [twin.p, twin.pd] : id();
      const [o, od] = twin !== undefined ? [twin.o, twin.od] : id();
      items.push({ s, p, o, fp: `fp${rng.int(1000000)}-${k}`, given: twin !== undefined, sd, pd, od });
    }
    for (const order of ORDERS) {
      const want = items.slice().sort(compareStatements(order));
      const got = sortStatements(order, items.slice(), bound);
      assert.equal(
        got.map((x) => x.fp),
        want.map((x) => x.fp),
        `${order} bound ${bound} n ${n}`,
      );
    }
  }
});

test("mergeSorted, prefixRange, seekAfter, seekPrefix and inPrefix equal brute force", () => {
  const rng = new Rng(31);
  for (const order of ORDERS) {
    const compare = compareStatements(order);
    let list: DeltaStatement[] = [];
    let next = 0;
    for (let round = 0; round < 60; round++) {
      // Sometimes a few changes (spliced in place), sometimes many (merged).
      const changes = rng.chance(0.5) ? rng.range(0, SPLICE_MAX_CHANGES) : rng.range(SPLICE_MAX_CHANGES + 1, 60);
      const removedItems = list.filter(() => rng.chance(changes / Math.max(1, 2 * list.length)));
      const removed = new Set(removedItems.map((s) => s.fp));
      const added = Array.from({ length: Math.max(0, changes - removedItems.length) }, () =>
        randomStatement(rng, next++),
      );
      const want = [...list.filter((s) => !removed.has(s.fp)), ...added].sort(compare);
      list = mergeSorted(list, removed, removedItems, (s) => s.fp, added.slice(), compare);
      assert.equal(list, want, `${order} round ${round}`);
      const probe = randomStatement(rng, -1);
      const key = statementKey(order, probe);
      for (let length = 0; length <= 3; length++) {
        const prefix = key.slice(0, length);
        const [lo, hi] = prefixRange(list, order, prefix);
        const inRange = list.filter((s) => compareKey(statementKey(order, s), prefix, length) === 0);
        assert.equal(list.slice(lo, hi), inRange, `${order} prefix ${JSON.stringify(prefix)}`);
        const at = seekAfter(list, order, key, lo, hi);
        assert.equal(
          list.slice(at, hi),
          inRange.filter((s) => compareKey(statementKey(order, s), key, 4) > 0),
        );
        // The range's start by one binary search, and its items told one by one.
        assert.is(seekPrefix(list, order, prefix), lo, `${order} seekPrefix ${JSON.stringify(prefix)}`);
        for (let i = 0; i <= list.length; i++)
          assert.is(inPrefix(list, order, prefix, i), i >= lo && i < hi, `${order} inPrefix ${i}`);
      }
    }
  }
});

test("mergeStatements (merge keys; in place, spliced, or a new list) equals a sort of the new content", () => {
  const rng = new Rng(37);
  for (const bound of [50, 1 << 20, 2 ** 26 + 5]) {
    for (const order of ORDERS) {
      const compare = compareStatements(order);
      const list = new StatementList(order);
      // Entities of a base (dense ids in entityId order), and a few new to it (their ids sort among the base's).
      const id = (): [string, number] => {
        const d = rng.int(Math.min(bound, 40));
        return rng.chance(0.05) ? [`${baseName(d)}x`, -1] : [baseName(d), d];
      };
      const make = statementMaker(id);
      for (let round = 0; round < 80; round++) {
        // Sometimes a few changes (spliced), sometimes many added (in place), sometimes many with removals (a new list).
        const many = rng.chance(0.6);
        const changes = many ? rng.range(SPLICE_MAX_CHANGES + 1, 120) : rng.range(0, SPLICE_MAX_CHANGES);
        const removing = rng.chance(0.4);
        const items = list.toArray();
        const removedItems = removing
          ? items.filter(() => rng.chance(changes / Math.max(1, 2 * list.length))).slice(0, changes)
          : [];
        const removed = new Set(removedItems.map((s) => s.fp));
        const added = Array.from({ length: Math.max(0, changes - removedItems.length) }, make);
        // Now and then an item not in the list is asked to be removed (passed over).
        if (removing && rng.chance(0.3)) removedItems.push(make());
        const want = [...items.filter((s) => !removed.has(s.fp)), ...added].sort(compare);
        // Now and then the keys are asked for another base (made again at the next merge).
        if (rng.chance(0.1)) list.mergeKeys(bound + 1);
        assert.is(mergeStatements(list, removed, removedItems, added.slice(), bound), list);
        assert.equal(
          list.toArray().map((s) => s.fp),
          want.map((s) => s.fp),
          `${order} bound ${bound} round ${round}`,
        );
        // The keys kept are the items' merge keys; at(i) is item i, undefined past the end.
        const keys = list.mergeKeys(bound);
        for (let k = 0; k < list.length; k++)
          assert.ok(Object.is(keys[k], mergeKey(order, want[k]!, bound)), `${order} key ${k} round ${round}`);
        for (let k = 0; k <= list.length; k++) assert.is(list.at(k), want[k]);
      }
      // Two items whose keys differ compare as their keys do.
      const items = list.toArray();
      for (let k = 1; k < items.length; k++) {
        const a = mergeKey(order, items[k - 1]!, bound);
        const b = mergeKey(order, items[k]!, bound);
        assert.ok(!(a > b), `${order} keys out of order at ${k}`);
      }
      // A base statement's key made from its dense ids (packedKey) is its merge key.
      for (const st of items) {
        if (st.sd < 0 || st.pd < 0 || st.od < 0) continue;
        const [a, b] = order === "SPO" ? [st.sd, st.pd] : order === "POS" ? [st.pd, st.od] : [st.od, st.sd];
        assert.is(packedKey(a, b, bound), mergeKey(order, st, bound), `${order} packedKey`);
      }
    }
  }
});

test("mergeStatements with removals from a long list: found by a search each when few (an item named twice, one not in the list), by a pass when many; equals a sort of the new content", () => {
  const rng = new Rng(41);
  const bound = 1 << 20;
  for (const order of ORDERS) {
    const compare = compareStatements(order);
    // Base entities, a twentieth new to the base (no merge key: the search compares items).
    const id = (): [string, number] => {
      const d = rng.int(300);
      return rng.chance(0.05) ? [`${baseName(d)}x`, -1] : [baseName(d), d];
    };
    const make = statementMaker(id);
    const list = new StatementList(order);
    mergeStatements(list, new Set(), [], Array.from({ length: 4000 }, make), bound);
    // Removals a sixteenth of the list or fewer (searched), then more (a pass).
    for (const removals of [1, 12, 150, 250, 1500]) {
      const items = list.toArray();
      const removedItems = items.filter(() => rng.chance(removals / items.length));
      removedItems.push(removedItems[0] ?? items[0]!, make());
      const removed = new Set(removedItems.map((st) => st.fp));
      const added = Array.from({ length: rng.range(SPLICE_MAX_CHANGES + 1, 300) }, make);
      const want = [...items.filter((st) => !removed.has(st.fp)), ...added].sort(compare);
      mergeStatements(list, removed, removedItems, added.slice(), bound);
      assert.equal(
        list.toArray().map((st) => st.fp),
        want.map((st) => st.fp),
        `${order} ${removals} removals`,
      );
      const keys = list.mergeKeys(bound);
      for (let k = 0; k < list.length; k++) assert.ok(Object.is(keys[k], mergeKey(order, want[k]!, bound)));
    }
  }
});

test("seekPrefix, prefixRange, inPrefix and seekAfter given the merge keys and a key range equal them without", () => {
  const rng = new Rng(38);
  // Bounds whose keys pack the pair, and one whose keys hold the first component alone.
  for (const bound of [50, 1 << 20, 2 ** 26 + 5]) {
    for (const order of ORDERS) {
      const list = new StatementList(order);
      // Base entities crowding a few first components, and some new to the base (no key: NaN).
      const id = (): [string, number] => {
        const d = rng.chance(0.5) ? rng.int(3) : rng.int(Math.min(bound, 40));
        return rng.chance(0.08) ? [`${baseName(d)}x`, -1] : [baseName(d), d];
      };
      const make = statementMaker(id);
      for (let round = 0; round < 12; round++) {
        const added = Array.from({ length: rng.range(1, 80) }, make);
        mergeStatements(list, new Set(), [], added, bound);
        const keys = list.mergeKeys(bound);
        const items = list.toArray();
        for (let probe = 0; probe < 40; probe++) {
          // A key of an item of the list, or of a new statement (its place among them).
          const st = items.length > 0 && rng.chance(0.7) ? rng.pick(items) : make();
          const key = statementKey(order, st);
          const dense =
            order === "SPO" ? [st.sd, st.pd, st.od] : order === "POS" ? [st.pd, st.od, st.sd] : [st.od, st.sd, st.pd];
          const [first, second, third] = dense as [number, number, number];
          for (let length = 1; length <= 3; length++) {
            const prefix = key.slice(0, length);
            // The range of the prefix's first (and second, given) components; NaN for a first not in the base.
            const pairSecond = length >= 2 ? second : -1;
            const lo = mergeKeyLo(first, pairSecond, bound);
            const hi = mergeKeyHi(first, pairSecond, bound);
            // The components the range pins (an item keyed in it is told in range unread), or none.
            const pin = rng.chance(0.8) ? mergeKeyPinned(first, pairSecond, bound) : 0;
            const s2 = length >= 2 ? second : -1;
            const s3 = length >= 3 ? third : -1;
            const want = prefixRange(list, order, prefix, first, 0, list.length, s2, s3);
            assert.equal(prefixRange(list, order, prefix, first, 0, list.length, s2, s3, keys, lo, hi, pin), want);
            assert.is(seekPrefix(list, order, prefix, first, 0, list.length, s2, s3, keys, lo, hi, pin), want[0]);
            for (let i = 0; i <= list.length; i++)
              assert.is(
                inPrefix(list, order, prefix, i, first, s2, s3, keys, lo, hi, pin),
                i >= want[0] && i < want[1],
                `${order} inPrefix ${i}`,
              );
            assert.is(
              seekAfter(list, order, key, 0, list.length, first, s2, s3, keys, lo, hi),
              seekAfter(list, order, key, 0, list.length),
              `${order} seekAfter by keys, prefix ${length}`,
            );
          }
          // A walk's key with its first component's range only (an unfiltered resume point).
          assert.is(
            seekAfter(
              list,
              order,
              key,
              0,
              list.length,
              first,
              -1,
              -1,
              keys,
              mergeKeyLo(first, -1, bound),
              mergeKeyHi(first, -1, bound),
            ),
            seekAfter(list, order, key, 0, list.length),
            `${order} seekAfter by the first's range`,
          );
        }
      }
    }
  }
});

test("keyFirst and keySecond give back the dense ids a merge key packs (the pair, or the first alone past 2^26 entities)", () => {
  const rng = new Rng(38);
  for (const bound of [1, 2, 3, 2000, 2 ** 26 - 1, 2 ** 26, 2 ** 26 + 1, 100_000_000]) {
    const ids = [0, 1, bound - 1, bound - 2].filter((d) => d >= 0);
    for (let k = 0; k < 200; k++) ids.push(rng.int(bound));
    for (const a of ids)
      for (const b of [0, bound - 1, rng.int(bound)]) {
        const key = packedKey(a, b, bound);
        assert.is(keyFirst(key, bound), a, `bound ${bound} (${a}, ${b}) first`);
        assert.is(keySecond(key, bound), bound > 2 ** 26 ? -1 : b, `bound ${bound} (${a}, ${b}) second`);
      }
  }
});

test("a fence's window holds its first component's range, and seekPrefix / prefixRange / seekAfter in it equal a whole search", () => {
  const rng = new Rng(34);
  // A base of `size` entities named in entityId order; some statements name entities not in it
  // (ranks 2 lowerBound - 1, ties among them broken by strings), some first components crowd.
  const name = (d: number) => `e${String(d).padStart(5, "0")}`;
  for (let round = 0; round < 40; round++) {
    const size = rng.pick([3, 50, 2000]);
    const inBase = Array.from({ length: size }, (_, d) => name(d));
    const lowerBound = (id: string) => inBase.filter((x) => x < id).length;
    const entity = (): [string, number] => {
      // Each branch: an entity not in the base (sorting between two of its ids, or before all), or a base one.
      if (rng.chance(0.15))
        return [`${name(rng.int(size))}${rng.pick(["-new", "-x", ""])}`.replace(/^e/, rng.pick(["e", "d"])), -1];
      const d = rng.chance(0.4) ? rng.int(Math.min(size, 3)) : rng.int(size);
      return [name(d), d];
    };
    const fix = ([id, d]: [string, number]): [string, number] => [
      id,
      inBase.indexOf(id) >= 0 ? inBase.indexOf(id) : d === -1 ? -1 : d,
    ];
    for (const order of ORDERS) {
      const n = rng.pick([0, 1, FENCE_STRIDE - 1, FENCE_STRIDE, FENCE_STRIDE + 1, 200, 1500]);
      const list: DeltaStatement[] = Array.from({ length: n }, (_, k) => {
        const [s, sd] = fix(entity());
        const [p, pd] = fix(entity());
        const [o, od] = fix(entity());
        return { s, p, o, fp: `fp${k}`, given: false, sd, pd, od };
      }).sort(compareStatements(order));
      const fence = buildFence(list, order, (id) => 2 * lowerBound(id) - 1);
      // The same fence from the list's merge keys (a numeric key's first component read from it).
      const keys = Float64Array.from(list, (st) => mergeKey(order, st, size));
      assert.equal(
        buildFence(list, order, (id) => 2 * lowerBound(id) - 1, keys, size),
        fence,
        `${order} from keys`,
      );
      for (let probe = 0; probe < 30; probe++) {
        const st = rng.pick(
          list.length > 0
            ? list
            : [{ s: name(0), p: name(0), o: name(0), fp: "fp", given: false, sd: 0, pd: 0, od: 0 }],
        );
        const key = statementKey(order, st);
        const firstDense = inBase.indexOf(key[0]!);
        // The fence is used for base entities only (a rank of its own, no tie with another entity).
        if (firstDense < 0) continue;
        const lo = fenceLo(fence, 2 * firstDense);
        const hi = fenceHi(fence, 2 * firstDense, list.length);
        for (let length = 1; length <= 3; length++) {
          const prefix = key.slice(0, length);
          const whole = prefixRange(list, order, prefix, firstDense);
          assert.ok(lo <= whole[0] && whole[1] <= hi, `${order} window [${lo}, ${hi}) holds ${whole}`);
          assert.equal(
            prefixRange(list, order, prefix, firstDense, lo, hi),
            whole,
            `${order} prefixRange in the window`,
          );
          assert.is(seekPrefix(list, order, prefix, firstDense, lo, hi), whole[0], `${order} seekPrefix in the window`);
          // With the key's other components' dense ids too (integers compared where both are in the base).
          const second = inBase.indexOf(key[1]!);
          const third = inBase.indexOf(key[2]!);
          assert.is(
            seekPrefix(list, order, prefix, firstDense, lo, hi, second, third),
            whole[0],
            `${order} seekPrefix by ids`,
          );
          assert.equal(
            prefixRange(list, order, prefix, firstDense, lo, hi, second, third),
            whole,
            `${order} prefixRange by ids`,
          );
          for (let i = lo; i <= hi; i++)
            assert.is(
              inPrefix(list, order, prefix, i, firstDense, second, third),
              i >= whole[0] && i < whole[1],
              `${order} inPrefix by ids ${i}`,
            );
          assert.is(
            seekAfter(list, order, key, lo, hi, firstDense, second, third),
            seekAfter(list, order, key, 0, list.length),
            `${order} seekAfter by ids`,
          );
          assert.is(
            seekAfter(list, order, key, lo, hi, firstDense),
            seekAfter(list, order, key, 0, list.length, firstDense),
            `${order} seekAfter in the window`,
          );
        }
      }
    }
  }
});

test("GramIndex.matching equals includes() over the items, as they come and go", () => {
  const rng = new Rng(32);
  const index = new GramIndex<{ folded: string; n: number }>();
  const live: { folded: string; n: number }[] = [];
  const pieces = ["ab", "abc", "b", "ca", "😀", "é", "a\u0000b", "xyz", ""];
  for (let round = 0; round < 300; round++) {
    if (live.length > 0 && rng.chance(0.3)) {
      const item = live.splice(rng.int(live.length), 1)[0]!;
      index.remove(item);
    } else {
      const item = { folded: Array.from({ length: rng.range(0, 4) }, () => rng.pick(pieces)).join(""), n: round };
      live.push(item);
      index.add(item);
    }
    // Every item, as an array made again after each change.
    assert.equal(
      index
        .list()
        .map((i) => i.n)
        .sort((a, b) => a - b),
      live.map((i) => i.n).sort((a, b) => a - b),
      `round ${round} list`,
    );
    const q = Array.from({ length: rng.range(1, 3) }, () => rng.pick(pieces))
      .join("")
      .slice(0, rng.range(1, 6));
    const got = index.matching(q);
    if (q.length < GRAM) {
      assert.is(got, undefined);
      continue;
    }
    // In order: every match among the candidates (checked when `check` says so), sorted by n.
    const byN = (a: { n: number }, b: { n: number }) => a.n - b.n;
    const sorted = index.sortedCandidates(q, byN);
    for (let i = 1; i < sorted.items.length; i++)
      assert.ok(sorted.items[i - 1]!.n < sorted.items[i]!.n, `round ${round} q=${JSON.stringify(q)} not sorted`);
    assert.equal(
      sorted.items.filter((i) => !sorted.check || i.folded.includes(q)).map((i) => i.n),
      live
        .filter((i) => i.folded.includes(q))
        .map((i) => i.n)
        .sort((a, b) => a - b),
      `round ${round} q=${JSON.stringify(q)} sortedCandidates`,
    );
    const want = live.filter((i) => i.folded.includes(q)).map((i) => i.n);
    assert.equal(
      got!.map((i) => i.n).sort((a, b) => a - b),
      want.sort((a, b) => a - b),
      `round ${round} q=${JSON.stringify(q)}`,
    );
    assert.is(index.size, live.length);
  }
});

test("GramIndex: sharedPrefixes and summaryOf's heads of a sorted list equal their definitions; heads that differ order strings as they do", () => {
  const rng = new Rng(33);
  const index = new GramIndex<{ folded: string }>();
  const pieces = ["ab", "abc", "b", "\u0000", "😀", "é", "ab ", "x"];
  const items = Array.from({ length: 200 }, () => ({
    folded: Array.from({ length: rng.range(1, 5) }, () => rng.pick(pieces)).join(""),
  }));
  for (const item of items) index.add(item);
  const byFolded = (x: { folded: string }, y: { folded: string }) =>
    x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : 0;
  for (const q of ["abc", "bab", "ab ", "b\u0000a"]) {
    const list = index.sortedList(q, byFolded);
    const shared = index.sharedPrefixes(list);
    const summary = index.summaryOf(list, () => 0);
    assert.is(index.sharedPrefixes(list), shared, "kept with the list");
    for (let i = 0; i < list.length; i++) {
      const a = i === 0 ? "" : list[i - 1]!.folded;
      const b = list[i]!.folded;
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      assert.is(shared[i], k, `q=${JSON.stringify(q)} shared ${i}`);
      assert.is(summaryHeadAt(summary, i), packedHead(b), `q=${JSON.stringify(q)} head ${i}`);
    }
  }
  for (let n = 0; n < 2000; n++) {
    const a = items[rng.int(items.length)]!.folded;
    const b = items[rng.int(items.length)]!.folded;
    const ha = packedHead(a);
    const hb = packedHead(b);
    if (ha !== hb) assert.is(Math.sign(ha - hb), a < b ? -1 : 1, `${JSON.stringify(a)} ${JSON.stringify(b)}`);
  }
});

test("GramIndex: summaryOf's heads, joinedOf and sharedPrefixes describe the list asked, the last sorted or an older one, as items come and go", () => {
  const rng = new Rng(34);
  const index = new GramIndex<{ folded: string }>();
  const live: { folded: string }[] = [];
  const pieces = ["ab", "abc", "b", "ca", "é", "x"];
  const byFolded = (x: { folded: string }, y: { folded: string }) =>
    x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : 0;
  /** Lists sortedList returned in earlier rounds (most no longer the last one, some of sets changed since). */
  const older: (readonly { folded: string }[])[] = [];
  const describes = (list: readonly { folded: string }[], what: string) => {
    const summary = index.summaryOf(list, () => 0);
    const joined = index.joinedOf(list);
    const shared = index.sharedPrefixes(list);
    assert.is(summary.length, SUMMARY_WORDS * list.length, `${what} heads`);
    assert.is(joined.text, list.map((i) => `${i.folded}\u0000`).join(""), `${what} joined`);
    for (let i = 0; i < list.length; i++) {
      const a = i === 0 ? "" : list[i - 1]!.folded;
      const b = list[i]!.folded;
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      assert.is(shared[i], k, `${what} shared ${i}`);
      assert.is(summaryHeadAt(summary, i), packedHead(b), `${what} head ${i}`);
      assert.is(joined.text.slice(joined.starts[i]!, joined.starts[i]! + b.length), b, `${what} start ${i}`);
    }
    assert.is(joined.starts[list.length], joined.text.length, `${what} end`);
  };
  for (let round = 0; round < 400; round++) {
    if (live.length > 0 && rng.chance(0.3)) index.remove(live.splice(rng.int(live.length), 1)[0]!);
    else {
      const item = { folded: Array.from({ length: rng.range(1, 5) }, () => rng.pick(pieces)).join("") };
      live.push(item);
      index.add(item);
    }
    const q = Array.from({ length: 2 }, () => rng.pick(pieces))
      .join("")
      .slice(0, GRAM);
    if (q.length < GRAM) continue;
    const list = index.sortedList(q, byFolded);
    // Each order of asking: the list just returned first, or an older one between.
    if (older.length > 0 && rng.chance(0.5)) describes(rng.pick(older), `round ${round} older`);
    describes(list, `round ${round} q=${JSON.stringify(q)}`);
    assert.is(index.sortedList(q, byFolded), list, `round ${round} kept`);
    older.push(list);
  }
});

test("GramIndex: summaryOf of a sorted list (head, third unit and type, signature) equals its definition, the last sorted list or an older one, as items come and go", () => {
  const rng = new Rng(35);
  type Item = { folded: string; type: number };
  const index = new GramIndex<Item>();
  const live: Item[] = [];
  const pieces = ["ab", "abc", "b", "ca", "é", "x", "\u0000", "😀"];
  const byFolded = (x: Item, y: Item) => (x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : 0);
  const older: (readonly Item[])[] = [];
  const one = new Int32Array(2);
  const describes = (list: readonly Item[], what: string) => {
    const summary = index.summaryOf(list, (x) => x.type);
    assert.is(
      index.summaryOf(list, (x) => x.type),
      summary,
      `${what} kept with the list`,
    );
    assert.is(summary.length, SUMMARY_WORDS * list.length, `${what} length`);
    for (let i = 0; i < list.length; i++) {
      const { folded, type } = list[i]!;
      const at = SUMMARY_WORDS * i;
      const unit = (k: number) => (k < folded.length ? folded.charCodeAt(k) : 0);
      assert.is(summary[at + SUMMARY_HEAD]! >>> 0, unit(0) * 65536 + unit(1), `${what} head ${i}`);
      assert.is(summary[at + SUMMARY_TAIL], (unit(2) << 8) | type, `${what} tail ${i}`);
      // The head and third unit packed: packedHead's number.
      assert.is((summary[at + SUMMARY_HEAD]! >>> 0) * 65536 + (summary[at + SUMMARY_TAIL]! >>> 8), packedHead(folded));
      signatureInto(folded, one, 0);
      assert.is(summary[at + SUMMARY_SIGNATURE], one[0], `${what} signature ${i}`);
      assert.is(summary[at + SUMMARY_SIGNATURE + 1], one[1], `${what} signature ${i}`);
    }
  };
  for (let round = 0; round < 400; round++) {
    if (live.length > 0 && rng.chance(0.3)) index.remove(live.splice(rng.int(live.length), 1)[0]!);
    else {
      const item = {
        folded: Array.from({ length: rng.range(1, 5) }, () => rng.pick(pieces)).join(""),
        type: rng.int(8),
      };
      live.push(item);
      index.add(item);
    }
    const q = Array.from({ length: 2 }, () => rng.pick(pieces))
      .join("")
      .slice(0, GRAM);
    if (q.length < GRAM) continue;
    const list = index.sortedList(q, byFolded);
    describes(list, `round ${round} q=${JSON.stringify(q)}`);
    older.push(list);
    const old = older[rng.int(older.length)]!;
    describes(old, `round ${round} older list`);
  }
});

test("GramIndex: a sorted list kept across changes (merged at the next read: mergeChanges) equals the set sorted afresh, and its summaries (mergeWords) their definitions, as items come and go between reads", () => {
  const rng = new Rng(37);
  type Item = { folded: string; id: number; type: number };
  const index = new GramIndex<Item>();
  const live = new Set<Item>();
  /** Items removed, some put back as they were (the same object). */
  const gone: Item[] = [];
  const byKey = (x: Item, y: Item) => (x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : x.id - y.id);
  const typeOf = (x: Item) => x.type;
  const pieces = ["ab", "abc", "b", "ca", "é", "x", "😀", "\u0400b"];
  const one = new Int32Array(2);
  let id = 0;
  for (let round = 0; round < 600; round++) {
    // A batch: a few changes (at times many: more than a list's items, sorted afresh), with items
    // added twice, removed and added back, and removals of items not there.
    const changes = rng.chance(0.05) ? rng.range(50, 300) : rng.range(1, 6);
    for (let k = 0; k < changes; k++) {
      const r = rng.float();
      if (r < 0.3 && live.size > 0) {
        const item = rng.pick([...live]);
        index.remove(item);
        live.delete(item);
        gone.push(item);
      } else if (r < 0.4 && gone.length > 0) {
        const item = gone.splice(rng.int(gone.length), 1)[0]!;
        index.add(item);
        live.add(item);
      } else if (r < 0.45 && live.size > 0) index.add(rng.pick([...live]));
      else if (r < 0.5 && gone.length > 0) index.remove(rng.pick(gone));
      else {
        const item = {
          folded: Array.from({ length: rng.range(1, 4) }, () => rng.pick(pieces)).join(""),
          id: id++,
          type: rng.int(8),
        };
        index.add(item);
        live.add(item);
      }
    }
    // Reads of some grams (the others' changes pile up for a later read).
    for (const q of ["abc", "bca", "cab", "b\u0400b", "ab\u0400"].filter(() => rng.chance(0.5))) {
      const ctx = `round ${round} q=${JSON.stringify(q)}`;
      const list = index.sortedList(q, byKey);
      assert.equal(
        list.map((x) => x.id),
        [...live]
          .filter((x) => x.folded.includes(q))
          .sort(byKey)
          .map((x) => x.id),
        `${ctx} sorted list`,
      );
      const probe = index.probe(q, byKey, typeOf);
      assert.is(probe.size, list.length, `${ctx} the probe's size`);
      if (probe.size === 0) continue;
      assert.is(index.probeList(probe, byKey), list, `${ctx} the probe's list`);
      const own = index.summaryOf(list, typeOf);
      for (const [words, from] of [
        [probe.words, probe.from],
        [own, 0],
      ] as const)
        for (let i = 0; i < list.length; i++) {
          const { folded, type } = list[i]!;
          const w = from + SUMMARY_WORDS * i;
          const unit = (u: number) => (u < folded.length ? folded.charCodeAt(u) : 0);
          assert.is(words[w + SUMMARY_HEAD]! >>> 0, unit(0) * 65536 + unit(1), `${ctx} head ${i}`);
          assert.is(words[w + SUMMARY_TAIL], (unit(2) << 8) | type, `${ctx} tail ${i}`);
          signatureInto(folded, one, 0);
          assert.is(words[w + SUMMARY_SIGNATURE], one[0], `${ctx} signature ${i}`);
          assert.is(words[w + SUMMARY_SIGNATURE + 1], one[1], `${ctx} signature ${i}`);
        }
    }
  }
});

test("GramIndex: a change to a long sorted list costs its read a few comparisons, not a sort again (regression: the list was sorted afresh after every batch)", () => {
  type Item = { folded: string; id: number };
  const index = new GramIndex<Item>();
  let compared = 0;
  const byKey = (x: Item, y: Item) => {
    compared++;
    return x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : x.id - y.id;
  };
  const items = Array.from({ length: 4000 }, (_, i) => ({ folded: `name ${(i * 7919) % 4000}`, id: i }));
  for (const item of items) index.add(item);
  index.sortedList("nam", byKey);
  index.summaryOf(index.sortedList("nam", byKey), () => 0);
  for (let batch = 0; batch < 5; batch++) {
    index.add({ folded: `name new ${batch}`, id: 10_000 + batch });
    index.remove(items[batch * 100]!);
    compared = 0;
    const list = index.sortedList("nam", byKey);
    index.summaryOf(list, () => 0);
    assert.is(list.length, 4000, `batch ${batch}`);
    // Two binary searches of 4,000 (about 12 comparisons each) and the summary's merge (one a change);
    // a sort of 4,000 makes some 40,000.
    assert.ok(compared <= 60, `batch ${batch}: ${compared} comparisons`);
  }
});

test("seekEntity, with a list's summary or without, equals a scan for the first key above (or at) the one sought", () => {
  const rng = new Rng(36);
  const pieces = ["ab", "abc", "b", "\u0000", "😀", "é", "ab ", "x", "A"];
  const byKey = (x: DeltaEntity, y: DeltaEntity) =>
    x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : x.entityId < y.entityId ? -1 : x.entityId > y.entityId ? 1 : 0;
  const entity = deltaEntity;
  for (let round = 0; round < 60; round++) {
    const index = new GramIndex<DeltaEntity>();
    const n = rng.range(0, 40);
    for (let i = 0; i < n; i++)
      index.add(
        entity(`ab${Array.from({ length: rng.range(0, 4) }, () => rng.pick(pieces)).join("")}`, `e${rng.int(5)}${i}`),
      );
    const list = index.sortedList("ab", byKey) as DeltaEntity[];
    const summary = index.summaryOf(list, typeCodeOf);
    for (let k = 0; k < 30; k++) {
      // A key of the list's own, or another.
      const key =
        list.length > 0 && rng.chance(0.5)
          ? rng.pick(list)
          : entity(Array.from({ length: rng.range(0, 4) }, () => rng.pick(pieces)).join(""), `e${rng.int(5)}`);
      for (const inclusive of [false, true]) {
        let want = 0;
        while (want < list.length && (inclusive ? byKey(list[want]!, key) < 0 : byKey(list[want]!, key) <= 0)) want++;
        const what = `round ${round} key ${JSON.stringify([key.folded, key.entityId])} inclusive ${inclusive}`;
        assert.is(seekEntity(list, key.folded, key.entityId, inclusive), want, `${what} without summary`);
        assert.is(seekEntity(list, key.folded, key.entityId, inclusive, summary), want, `${what} with summary`);
      }
    }
  }
});

test("GramIndex.probe: the rarest gram's size, summary and list equal sortedList's and summaryOf's definitions, as grams come and go (the table grows, removals shift slots back, the arena starts again)", () => {
  const rng = new Rng(36);
  type Item = { folded: string; type: number };
  const index = new GramIndex<Item>();
  const live: Item[] = [];
  // Many numeric grams (the table grows past its first slots and removals shift runs back), and
  // text grams (a unit of 1024 or above: the map's postings).
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  const pieces = ["ab", "abc", "x", "é", "😀", "\u0400"];
  const byFolded = (x: Item, y: Item) => (x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : 0);
  const typeOf = (x: Item) => x.type;
  const one = new Int32Array(2);
  const word = () =>
    Array.from({ length: rng.range(1, 4) }, () =>
      rng.chance(0.7) ? letters[rng.int(letters.length)]! + letters[rng.int(letters.length)]! : rng.pick(pieces),
    ).join("");
  for (let round = 0; round < 3000; round++) {
    // Each kind: an item out (at times many, so runs of slots empty), or one in.
    if (live.length > 0 && rng.chance(round % 500 < 250 ? 0.3 : 0.7))
      index.remove(live.splice(rng.int(live.length), 1)[0]!);
    else {
      const item = { folded: word(), type: rng.int(8) };
      live.push(item);
      index.add(item);
    }
    // Every gram of every item found (a slot lost to a removal would hide its gram's items).
    if (round % 10 === 0)
      for (const x of live)
        for (let at = 0; at + GRAM <= x.folded.length; at++) {
          const g = x.folded.slice(at, at + GRAM);
          assert.ok(
            index.probe(g, byFolded, typeOf).size > 0,
            `round ${round}: gram ${JSON.stringify(g)} of ${x.folded} lost`,
          );
        }
    for (let k = 0; k < 3; k++) {
      const source = live.length > 0 && rng.chance(0.7) ? rng.pick(live).folded : word();
      const at = rng.int(Math.max(1, source.length - GRAM));
      const q = source.slice(at, at + GRAM + rng.int(3));
      if (q.length < GRAM) continue;
      const ctx = `round ${round} q=${JSON.stringify(q)}`;
      const want = index.sortedList(q, byFolded);
      const probe = index.probe(q, byFolded, typeOf);
      assert.is(probe.size, want.length, `${ctx} size`);
      if (probe.size === 0) {
        assert.ok(!live.some((x) => x.folded.includes(q)), `${ctx}: nothing probed, yet an item holds q`);
        continue;
      }
      const list = index.probeList(probe, byFolded);
      assert.is(list, want, `${ctx} the list sortedList gives`);
      for (const x of live)
        if (x.folded.includes(q)) assert.ok(list.includes(x), `${ctx}: ${x.folded} not a candidate`);
      const summary = probe.words;
      for (let i = 0; i < list.length; i++) {
        const { folded, type } = list[i]!;
        const w = probe.from + SUMMARY_WORDS * i;
        const unit = (u: number) => (u < folded.length ? folded.charCodeAt(u) : 0);
        assert.is(summary[w + SUMMARY_HEAD]! >>> 0, unit(0) * 65536 + unit(1), `${ctx} head ${i}`);
        assert.is(summary[w + SUMMARY_TAIL], (unit(2) << 8) | type, `${ctx} tail ${i}`);
        assert.is(summaryHeadAt(summary, i, probe.from), packedHead(folded), `${ctx} packed head ${i}`);
        signatureInto(folded, one, 0);
        assert.is(summary[w + SUMMARY_SIGNATURE], one[0], `${ctx} signature ${i}`);
        assert.is(summary[w + SUMMARY_SIGNATURE + 1], one[1], `${ctx} signature ${i}`);
      }
    }
  }
});

test.run();

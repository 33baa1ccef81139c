/**
 * Short substrings tests
 * ======================
 * src/engine/live/short-substrings.ts against brute force on seeded random adds and removes of
 * items: a query's count, of any type and of each, is the number of items (of that type) holding it
 * now, ABSENT exactly when none does, NOT_KEPT for what the table does not keep; a first item, when
 * told, is the first in the order of those that start with the query, else of those that hold it
 * further in, with its tier and place read without it, and it is always told while nothing was
 * removed; a table past its budget answers NOT_KEPT from then on.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { ABSENT, NOT_KEPT, SHORT_MAX, ShortSubstrings } from "../../../src/engine/live/short-substrings.js";
import { Rng } from "../../support/oracle.js";

interface Item {
  readonly folded: string;
  readonly id: number;
  readonly type: number;
}

function typeOf(x: Item): number {
  return x.type;
}

/**
 * An item's place: a number that ascends with `order`, as the table asks (its identifier's first
 * code unit, -1 for none): coarse, so places tie often and the order decides between those.
 */
function placeOf(x: Item): number {
  return x.folded.length === 0 ? -1 : x.folded.charCodeAt(0);
}

function order(x: Item, y: Item): number {
  return x.folded < y.folded ? -1 : x.folded > y.folded ? 1 : x.id - y.id;
}

/** The first of `items` by `order` that start with `q`, else that hold it further in; undefined when none holds it. */
function bruteFirst(items: readonly Item[], q: string): Item | undefined {
  const starts = items.filter((x) => x.folded.startsWith(q)).sort(order);
  if (starts.length > 0) return starts[0];
  return items.filter((x) => x.folded.includes(q)).sort(order)[0];
}

/** Every substring of 1 to SHORT_MAX + 1 units of the items' identifiers, and a few that none holds. */
function queriesOf(items: readonly Item[], rng: Rng, pieces: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const x of items)
    for (let i = 0; i < x.folded.length; i++)
      for (let l = 1; l <= SHORT_MAX + 1 && i + l <= x.folded.length; l++) out.add(x.folded.slice(i, i + l));
  for (let k = 0; k < 20; k++) out.add(Array.from({ length: rng.range(1, 4) }, () => rng.pick(pieces)).join(""));
  out.add("a\u0444");
  return out;
}

test("counts, absence and first items equal brute force as items come and go", () => {
  const rng = new Rng(51);
  const short = new ShortSubstrings<Item>({ order, typeOf, placeOf });
  const live: Item[] = [];
  // "ab" twice in an item counts once; "😀" is two surrogates; "\u0444" (in no item) is in the queries alone.
  const pieces = ["ab", "a", "b", "ba", "é", "ß", "😀", "\u4e00", "x", "\u0000", "aab"];
  let n = 0;
  let removed = false;
  for (let round = 0; round < 300; round++) {
    for (let k = rng.range(1, 4); k > 0; k--) {
      if (live.length > 0 && rng.chance(0.35)) {
        const x = live.splice(rng.int(live.length), 1)[0]!;
        short.remove(x);
        removed = true;
      } else {
        const folded = Array.from({ length: rng.range(0, 5) }, () => rng.pick(pieces)).join("");
        const x = { folded, id: n++, type: rng.int(8) };
        short.add(x);
        live.push(x);
      }
    }
    for (const q of queriesOf(live, rng, pieces)) {
      // Every unit has a code here (far fewer than CODE_MAX distinct ones): kept when short enough.
      const kept = q.length <= SHORT_MAX;
      // Any type (-1), and two of the eight.
      for (const type of [-1, rng.int(8), rng.int(8)]) {
        const them = live.filter((x) => type < 0 || x.type === type);
        const holders = them.filter((x) => x.folded.includes(q)).length;
        const at = short.seek(q, type);
        if (!kept) {
          assert.is(at, NOT_KEPT, `"${q}" is not kept`);
          assert.is(short.count(q, type), -1);
          continue;
        }
        assert.is(short.count(q, type), holders, `count of "${q}", type ${type}`);
        if (holders === 0) {
          assert.is(at, ABSENT, `"${q}" absent, type ${type}`);
          continue;
        }
        const first = short.firstAt(at);
        // Told whenever nothing was removed; when told, always the brute-force first.
        if (!removed) assert.ok(first !== undefined, `first of "${q}" told, type ${type}`);
        if (first === undefined) {
          assert.is(short.firstTier(at, q.length), -1);
          assert.ok(Number.isNaN(short.firstPlace(at)));
          continue;
        }
        assert.is(first, bruteFirst(them, q), `first of "${q}", type ${type}`);
        // Its tier and place, read without the item.
        const tier = first.folded === q ? 0 : first.folded.startsWith(q) ? 1 : 2;
        assert.is(short.firstTier(at, q.length), tier, `tier of "${q}"'s first`);
        assert.is(short.firstPlace(at), placeOf(first));
      }
    }
  }
});

test("a table without an order keeps counts alone", () => {
  const short = new ShortSubstrings<Item>();
  short.add({ folded: "abc", id: 1, type: 0 });
  short.add({ folded: "bcd", id: 2, type: 1 });
  assert.is(short.count("bc"), 2);
  assert.is(short.firstAt(short.seek("bc")), undefined);
  // No types kept: a query with one is not told.
  assert.is(short.count("bc", 0), -1);
});

test("units past the codes' end are not kept: a query holding one, or any unit no item brought, is then NOT_KEPT", () => {
  const short = new ShortSubstrings<Item>({ order, typeOf });
  // 1,100 distinct units (CJK, one an item), past the 1,023 codes: the first ones kept, the last not.
  for (let i = 0; i < 1100; i++) short.add({ folded: `a${String.fromCharCode(0x4e00 + i)}`, id: i, type: 0 });
  assert.is(short.count("a"), 1100);
  assert.is(short.count(`a${String.fromCharCode(0x4e00)}`), 1);
  assert.is(short.seek(`a${String.fromCharCode(0x4e00 + 1099)}`), NOT_KEPT);
  assert.is(short.seek("\u0444"), NOT_KEPT);
  // Before they ran out, a unit no item brought proves that no item holds the query.
  const fresh = new ShortSubstrings<Item>({ order, typeOf });
  fresh.add({ folded: "ab", id: 1, type: 0 });
  assert.is(fresh.seek("a\u0444"), ABSENT);
});

test("a table that would pass its budget is dropped: every query is then NOT_KEPT, even after removes", () => {
  const short = new ShortSubstrings<Item>({ order, typeOf, maxBytes: 64 * 1024 });
  const items: Item[] = [];
  for (let i = 0; short.kept; i++) {
    const x = { folded: `k${i.toString(36)}z`, id: i, type: i % 8 };
    items.push(x);
    short.add(x);
  }
  assert.is(short.bytes, 0);
  assert.is(short.seek("k"), NOT_KEPT);
  for (const x of items) short.remove(x);
  assert.is(short.count("k"), -1);
});

test.run();

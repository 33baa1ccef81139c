/**
 * Sorted delta lists
 * ==================
 * The live graph's delta as small sorted arrays, one per read order, that a query merges with the
 * base on the same key order (live-graph.ts): the entities put since the base, by (folded raw
 * identifier, entityId) (the order of search inside a tier), and the statements put since the base
 * (and the base statements deleted, the tombstones) by each index order of CONTRACT.md's table, SPO,
 * POS and OSP, the fingerprint last. Every comparison is JavaScript `<` on strings (UTF-16 code
 * units), as the base's dense ids follow entityId order.
 *
 * Updating after a batch is one merge: the old list less the keys the batch touched, and the
 * batch's new items sorted on their own, merged in one pass: O(D + b log b) for a delta of D items
 * and a batch of b (a sort of the whole delta would be O(D log D) string comparisons a batch); when
 * the batch removes nothing, the merge gallops (O(b log(D / b)) comparisons, the D moves plain copies).
 * A statement list (statement-list.ts StatementList, merged by mergeStatements) keeps beside its
 * items each one's merge key, a number packing its first two components' dense ids (mergeKey), in a
 * Float64Array: the merge's comparisons read that array in order instead of an item object each (a
 * cache miss apiece, the larger part of a big batch's commit), and ask the items only on a tie or
 * for an entity not in the base. Its order is an Int32Array of the items' slots in a pool, so that
 * a merge moves numbers in typed arrays, not references in an array (statement-list.ts's banner:
 * why). With nothing removed it merges in place from the back, walking the old items down one by
 * one: every old item after the first insertion point moves anyway, so the walk compares each
 * mover's key as it moves it (a number, in a stream the CPU prefetches) rather than galloping,
 * whose jumps back read cold lines one miss at a time; where the keys cannot tell (an entity new
 * to the base), it gallops. The searches below read any sorted StatementRows (a StatementList, or
 * an array in a test): its length and at(i).
 * A filter's items are a contiguous range (every filter shape of the table is a prefix of its
 * order's key), found by two binary searches; a resume point by one more. The searches compare
 * the first components by base dense id when both are in the base (a number read from the item,
 * no string read), as the sort does.
 *
 * A fence (buildFence) narrows those searches first: every FENCE_STRIDE-th item's first component
 * as a rank in an Int32Array (a few KB, which stays in the CPU's caches from one query to the next),
 * so a search reads about log2(FENCE_STRIDE) items (each an object, and often a cache miss on a
 * list of 100,000) instead of log2(D). The rank of an entity: 2d for base dense id d; for one not
 * in the base, 2 lowerBound - 1 (between its neighbours in entityId order). Ranks never decrease
 * along a list, so the items of a first component of rank r lie in fenceLo(r) .. fenceHi(r).
 * O(D / FENCE_STRIDE) items read to build, once per list version (the live graph's, on first read).
 */

import type { EntityType } from "../types.js";
import type { StatementList } from "./statement-list.js";

/**
 * A sorted statement list as the searches below read it: its length and item i (undefined past the
 * end). A StatementList (statement-list.ts), or an array (a test's).
 */
export interface StatementRows {
  readonly length: number;
  at(i: number): DeltaStatement | undefined;
}

/** The orders of CONTRACT.md's statements table. */
export type Order = "SPO" | "POS" | "OSP";
export const ORDERS: readonly Order[] = ["SPO", "POS", "OSP"];

/** A statement of the delta (or a tombstone): its three entityIds and its fingerprint. */
export interface DeltaStatement {
  readonly s: string;
  readonly p: string;
  readonly o: string;
  readonly fp: string;
  /** Whether the change gave the fingerprint (else derived from the triple). */
  readonly given: boolean;
  /** The base dense ids of s, p and o (-1: not in the base the delta is over), for counts of statements. */
  readonly sd: number;
  readonly pd: number;
  readonly od: number;
}

/** An entity of the delta, with what search orders it by. */
export interface DeltaEntity {
  readonly entityId: string;
  /** Its dense id in the base the delta is over (-1: none there). */
  readonly baseId: number;
  readonly rawIdentifier: string;
  readonly type: EntityType;
  readonly sourceType: string;
  /** The score the change gave, when it gave one. */
  readonly score: number | undefined;
  /** fold(rawIdentifier). */
  readonly folded: string;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The order's key of a statement, as a list of four strings (the fingerprint last). */
export function statementKey(
  order: Order,
  st: { s: string; p: string; o: string; fp: string },
): [string, string, string, string] {
  if (order === "SPO") return [st.s, st.p, st.o, st.fp];
  if (order === "POS") return [st.p, st.o, st.s, st.fp];
  return [st.o, st.s, st.p, st.fp];
}

/** Compares two keys component by component; a shorter key that is a prefix compares equal on its length. */
export function compareKey(a: readonly string[], b: readonly string[], length = Math.min(a.length, b.length)): number {
  for (let i = 0; i < length; i++) {
    const c = cmp(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Compares two statements in `order` (field by field: no key array is made, this runs in every sort
 * and merge). A component whose entity both statements have in the base compares by base dense id
 * (ids follow entityId order: one subtraction instead of string comparisons); else by entityId.
 */
export function compareStatements(order: Order): (x: DeltaStatement, y: DeltaStatement) => number {
  // Each branch: the order's components in its key order, the fingerprint last.
  if (order === "SPO")
    return (x, y) =>
      byId(x.sd, y.sd, x.s, y.s) || byId(x.pd, y.pd, x.p, y.p) || byId(x.od, y.od, x.o, y.o) || cmp(x.fp, y.fp);
  if (order === "POS")
    return (x, y) =>
      byId(x.pd, y.pd, x.p, y.p) || byId(x.od, y.od, x.o, y.o) || byId(x.sd, y.sd, x.s, y.s) || cmp(x.fp, y.fp);
  return (x, y) =>
    byId(x.od, y.od, x.o, y.o) || byId(x.sd, y.sd, x.s, y.s) || byId(x.pd, y.pd, x.p, y.p) || cmp(x.fp, y.fp);
}

/**
 * Two entityIds `a` and `b` compared: by their base dense ids `da` and `db` when both are in the
 * base (the same order: the dictionary assigns ids in entityId order), else as strings.
 */
function byId(da: number, db: number, a: string, b: string): number {
  // Each branch: both in the base (integers); otherwise equality first, then the strings' order.
  if (da >= 0 && db >= 0) return da - db;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Search order inside a tier: folded identifier, then entityId. */
export function compareEntities(x: DeltaEntity, y: DeltaEntity): number {
  return cmp(x.folded, y.folded) || cmp(x.entityId, y.entityId);
}

/** Below this many items changed, a list is updated in place (a binary search and a splice each). */
export const SPLICE_MAX_CHANGES = 16;

/**
 * `old` less the items whose `keyOf` is in `removed` (`removedItems`: those items), with `added`
 * merged in, all in `compare`'s order (`added` is sorted here unless `addedSorted`; `old` is sorted
 * already). A few
 * changes are made in place (each a binary search and a splice: a memmove of the list); more, by
 * one merge into a new list.
 */
export function mergeSorted<T>(
  old: T[],
  removed: ReadonlySet<string>,
  removedItems: readonly T[],
  keyOf: (item: T) => string,
  added: T[],
  compare: (x: T, y: T) => number,
  addedSorted = false,
): T[] {
  if (removedItems.length + added.length <= SPLICE_MAX_CHANGES) {
    for (const item of removedItems) {
      const at = lowerBound(old, item, compare);
      if (at < old.length && keyOf(old[at]!) === keyOf(item)) old.splice(at, 1);
    }
    for (const item of added) old.splice(lowerBound(old, item, compare), 0, item);
    return old;
  }
  // Each branch: the caller sorted `added` already (sortStatements), or it is sorted here.
  if (!addedSorted) added.sort(compare);
  // Nothing removed: each added item's place found by galloping from the last one's (a run of old
  // items between two added ones is copied without comparing its items).
  if (removedItems.length === 0) return gallopMerge(old, added, compare);
  const out: T[] = new Array(old.length - removedItems.length + added.length);
  let n = 0;
  let i = 0;
  let j = 0;
  const checkRemoved = removed.size > 0;
  while (i < old.length || j < added.length) {
    const x = old[i];
    if (checkRemoved && x !== undefined && removed.has(keyOf(x))) {
      i++;
      continue;
    }
    // Each branch: the smaller head goes first; old before added on a tie (no two share a key).
    if (j >= added.length || (x !== undefined && compare(x, added[j]!) <= 0)) {
      out[n++] = x!;
      i++;
    } else out[n++] = added[j++]!;
  }
  out.length = n;
  return out;
}

/**
 * `old` and `added` (both sorted, no key in both) merged: per added item an exponential then a
 * binary search from where the last one went, O(b log(D / b)) comparisons for b items into D.
 */
function gallopMerge<T>(old: readonly T[], added: readonly T[], compare: (x: T, y: T) => number): T[] {
  const out: T[] = new Array(old.length + added.length);
  let n = 0;
  let i = 0;
  for (const item of added) {
    // Exponential search (old before added on a tie, as the merge below): the first step past `item`, then a binary search inside the last step.
    let step = 1;
    let lo = i;
    while (lo + step <= old.length && compare(old[lo + step - 1]!, item) <= 0) {
      lo += step;
      step *= 2;
    }
    let hi = Math.min(old.length, lo + step - 1);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(old[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    while (i < lo) out[n++] = old[i++]!;
    out[n++] = item;
  }
  while (i < old.length) out[n++] = old[i++]!;
  return out;
}

/**
 * Largest base entity count whose dense-id pairs pack into one double exactly (a * bound + b, below
 * 2^52): above it a merge key holds the first component alone (ties on it ask the items).
 */
const PAIR_KEY_MAX_BOUND = 2 ** 26;

/**
 * A statement's merge key in `order` over a base of `idBound` entities: its first two components'
 * dense ids packed (first * idBound + second), or the first's alone when pairs do not fit; NaN when
 * a component it needs is not in the base (its place among base ids is by its entityId). Two items
 * with different numeric keys compare as compareStatements says; equal keys or a NaN tell nothing.
 */
export function mergeKey(order: Order, st: DeltaStatement, idBound: number): number {
  let a: number;
  let b: number;
  // Each branch: the order's first two components (as compareStatements takes them).
  if (order === "SPO") {
    a = st.sd;
    b = st.pd;
  } else if (order === "POS") {
    a = st.pd;
    b = st.od;
  } else {
    a = st.od;
    b = st.sd;
  }
  // Each branch: a first entity new to the base has no numeric place; a large base keys the first id
  // alone; a second entity new to the base leaves the pair unknown.
  if (a < 0) return Number.NaN;
  if (idBound > PAIR_KEY_MAX_BOUND) return a;
  return b < 0 ? Number.NaN : a * idBound + b;
}

/** The first component's dense id of a numeric merge key (mergeKey's, over a base of `idBound` entities). */
export function keyFirst(key: number, idBound: number): number {
  // Each branch: a large base's key is the first id; else the pair's, the quotient checked (the
  // products are below 2^52: exact).
  if (idBound > PAIR_KEY_MAX_BOUND) return key;
  let a = Math.floor(key / idBound);
  if (a * idBound > key) a--;
  else if ((a + 1) * idBound <= key) a++;
  return a;
}

/**
 * The second component's dense id of a numeric merge key over a base of `idBound` entities, or -1
 * when the key holds the first alone (a large base: keyFirst).
 */
export function keySecond(key: number, idBound: number): number {
  return idBound > PAIR_KEY_MAX_BOUND ? -1 : key - keyFirst(key, idBound) * idBound;
}

/** mergeKey of an item whose first two components are base entities `a` and `b` (a base statement's). */
export function packedKey(a: number, b: number, idBound: number): number {
  // Each branch: as mergeKey's.
  return idBound > PAIR_KEY_MAX_BOUND ? a : a * idBound + b;
}

/**
 * mergeSorted for statement list `list` (its order's) over a base of `idBound` entities: `list` less
 * `removedItems` (their fingerprints `removed`), with `added` merged in (sorted here unless
 * `addedSorted`), in place (statement-list.ts merge). Returns `list`. Same result as mergeSorted.
 */
export function mergeStatements(
  list: StatementList,
  removed: ReadonlySet<string>,
  removedItems: readonly DeltaStatement[],
  added: DeltaStatement[],
  idBound: number,
  addedSorted = false,
): StatementList {
  list.merge(removed, removedItems, added, idBound, addedSorted);
  return list;
}

/** Below this many statements sortStatements sorts by comparisons (a radix pass costs its buckets). */
const RADIX_SORT_MIN = 256;
/** Bits of a radix digit: 2^11 buckets, two or three passes per dense id of a graph of 2^22 to 2^33 entities. */
const RADIX_BITS = 11;
const RADIX_MASK = (1 << RADIX_BITS) - 1;
/** Buckets of a radix digit. */
const RADIX_BUCKETS = 1 << RADIX_BITS;
/**
 * Items up to which sortStatements keeps its radix arrays (keys, the two permutations, the
 * histograms) for the next call: 20 bytes an item, 1.3 MiB here, kept once a thread. A batch's
 * commit sorts its puts three times (an order each): new arrays each time were 670 KB of
 * ArrayBuffers for 10,000 puts, which V8 counts as external memory and answers with collections
 * of their own. A larger sort makes its own and keeps none.
 */
const RADIX_KEPT_ITEMS = 65_536;

/** sortStatements' radix arrays: `keys` 3 words an item, `from` and `to` one, `counts` the histograms. */
interface RadixWork {
  keys: Int32Array;
  from: Uint32Array;
  to: Uint32Array;
  counts: Uint32Array;
}

/** The arrays kept (see RADIX_KEPT_ITEMS): made on the first sort of this thread that needs them. */
let radixKept: RadixWork | undefined;

/**
 * Radix arrays for `n` items and `countWords` histogram words, the kept ones when they hold them
 * (histograms zeroed; every other entry read is written first); else new ones.
 */
function radixWork(n: number, countWords: number): RadixWork {
  // Each branch: within the kept size, the kept arrays (made on first need: 3 digits at most of a 32-bit id); else new.
  if (n <= RADIX_KEPT_ITEMS && countWords <= 3 * 3 * RADIX_BUCKETS + 1) {
    radixKept ??= {
      keys: new Int32Array(3 * RADIX_KEPT_ITEMS),
      from: new Uint32Array(RADIX_KEPT_ITEMS),
      to: new Uint32Array(RADIX_KEPT_ITEMS),
      counts: new Uint32Array(3 * 3 * RADIX_BUCKETS + 1),
    };
    radixKept.counts.fill(0, 0, countWords);
    return radixKept;
  }
  return {
    keys: new Int32Array(3 * n),
    from: new Uint32Array(n),
    to: new Uint32Array(n),
    counts: new Uint32Array(countWords),
  };
}

/**
 * `items` in `order` (compareStatements'), sorted on their base dense ids by an LSD radix sort
 * when every id is in the base (`idBound`: the base's entity count, which bounds them), the
 * fingerprint breaking ties; else, or for a few items, by comparisons. The radix sort: stable
 * counting-sort passes of RADIX_BITS bits over the third component's id, then the second's, then
 * the first's: O(n (bits / RADIX_BITS)) integer steps and no comparison of strings, where a sort by
 * comparisons makes n log n calls of a comparator (the larger part of a big batch's commit).
 * Every pass's histogram is counted in one sequential pass over the keys before the first move (a
 * digit's count does not depend on the items' order), not one pass each through the permutation
 * (a read of a key in random order a pass); a pass whose digit every item shares is skipped.
 * Ties (the same three ids: two given fingerprints on one triple, rare) are then sorted by
 * fingerprint within their run.
 */
export function sortStatements(order: Order, items: DeltaStatement[], idBound: number): DeltaStatement[] {
  const compare = compareStatements(order);
  const n = items.length;
  if (n < RADIX_SORT_MIN) return items.sort(compare);
  const bits = 32 - Math.clz32(Math.max(1, idBound - 1));
  const digits = Math.ceil(bits / RADIX_BITS);
  const work = radixWork(n, 3 * digits * RADIX_BUCKETS + 1);
  // The order's components as ids, first to last: keys[3i], keys[3i + 1], keys[3i + 2].
  const keys = work.keys;
  for (let i = 0; i < n; i++) {
    const st = items[i]!;
    let a: number;
    let b: number;
    let c: number;
    // Each branch: the order's components, first to last (as compareStatements takes them).
    if (order === "SPO") {
      a = st.sd;
      b = st.pd;
      c = st.od;
    } else if (order === "POS") {
      a = st.pd;
      b = st.od;
      c = st.sd;
    } else {
      a = st.od;
      b = st.sd;
      c = st.pd;
    }
    // An entity new to the delta has no dense id: its place among the base's is by entityId.
    if (a < 0 || b < 0 || c < 0) return items.sort(compare);
    keys[3 * i] = a;
    keys[3 * i + 1] = b;
    keys[3 * i + 2] = c;
  }
  // Digits a component (digits, above), and every pass's histogram counted in one pass over the
  // keys in their array's order (a digit's count does not depend on the order the items are in):
  // pass (component, digit) counts at RADIX_BUCKETS (3 - 1 - component) digits + digit, shifted one.
  const counts = work.counts;
  for (let i = 0; i < 3 * n; i += 3) {
    for (let component = 0; component < 3; component++) {
      const key = keys[i + component]!;
      const base = (2 - component) * digits * RADIX_BUCKETS + 1;
      for (let digit = 0; digit < digits; digit++)
        counts[base + digit * RADIX_BUCKETS + ((key >>> (digit * RADIX_BITS)) & RADIX_MASK)]!++;
    }
  }
  let from = work.from;
  let to = work.to;
  for (let i = 0; i < n; i++) from[i] = i;
  for (let pass = 0; pass < 3 * digits; pass++) {
    const component = 2 - Math.floor(pass / digits);
    const shift = (pass % digits) * RADIX_BITS;
    // counts[at + d] (d >= 1) holds digit d - 1's count: summed, the start of digit d's bucket.
    const at = pass * RADIX_BUCKETS;
    // A digit every item shares moves none: the pass is skipped (the top digit of a small base).
    let trivial = false;
    for (let d = 1; d <= RADIX_BUCKETS && !trivial; d++) trivial = counts[at + d] === n;
    if (trivial) continue;
    counts[at] = 0;
    for (let d = 1; d < RADIX_BUCKETS; d++) counts[at + d]! += counts[at + d - 1]!;
    for (let i = 0; i < n; i++) {
      const item = from[i]!;
      to[counts[at + ((keys[3 * item + component]! >>> shift) & RADIX_MASK)]!++] = item;
    }
    [from, to] = [to, from];
  }
  const out: DeltaStatement[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = items[from[i]!]!;
  // Runs of one triple (given fingerprints), in fingerprint order.
  for (let i = 1, runStart = 0; i <= n; i++) {
    const same =
      i < n &&
      keys[3 * from[i]!] === keys[3 * from[runStart]!] &&
      keys[3 * from[i]! + 1] === keys[3 * from[runStart]! + 1] &&
      keys[3 * from[i]! + 2] === keys[3 * from[runStart]! + 2];
    if (same) continue;
    if (i - runStart > 1) {
      const run = out.slice(runStart, i).sort(compare);
      for (let k = 0; k < run.length; k++) out[runStart + k] = run[k]!;
    }
    runStart = i;
  }
  return out;
}

/** Items of a list per fence entry: a fence's window is about two strides, searched item by item. */
export const FENCE_STRIDE = 16;

/**
 * The fence of `list` (sorted in `order`): the rank of list[j FENCE_STRIDE]'s first component at j.
 * `rankOfNew`: the rank of an entityId not in the base (2 lowerBound - 1). With the list's merge
 * keys over a base of `idBound` entities (`keys`: StatementList.mergeKeys), an item of a numeric
 * key is ranked from it (keyFirst: a number read from one typed array, in order), the others from
 * the item: a batch's first read makes the fence again, and reading an item costs its slot, its
 * object and its fields at random (about 0.4 ms for a list of 100,000, where its keys cost a few
 * hundredths of that: bench:changes, "statements S right after a batch of 1 statement put").
 */
export function buildFence(
  list: StatementRows,
  order: Order,
  rankOfNew: (entityId: string) => number,
  keys?: Float64Array,
  idBound = 0,
): Int32Array {
  const fence = new Int32Array(Math.ceil(list.length / FENCE_STRIDE));
  for (let j = 0; j < fence.length; j++) {
    const i = j * FENCE_STRIDE;
    // Each branch: a numeric key's first component; else the item's (its dense id, -1 when not in the base).
    const key = keys === undefined ? Number.NaN : keys[i]!;
    if (!Number.isNaN(key)) {
      fence[j] = 2 * keyFirst(key, idBound);
      continue;
    }
    const st = list.at(i)!;
    const d = order === "SPO" ? st.sd : order === "POS" ? st.pd : st.od;
    const id = order === "SPO" ? st.s : order === "POS" ? st.p : st.o;
    fence[j] = d >= 0 ? 2 * d : rankOfNew(id);
  }
  return fence;
}

/** How many of the fence's ranks are below `rank` (`orEqual`: at or below). */
function fenceCount(fence: Int32Array, rank: number, orEqual: boolean): number {
  let lo = 0;
  let hi = fence.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const r = fence[mid]!;
    if (r < rank || (orEqual && r === rank)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A lower end for the items whose first component has rank `rank`: every item before it ranks
 * lower (the fence's last entry below `rank` is such an item, and so is everything up to it).
 */
export function fenceLo(fence: Int32Array, rank: number): number {
  const j = fenceCount(fence, rank, false);
  return j === 0 ? 0 : (j - 1) * FENCE_STRIDE + 1;
}

/** An upper end (exclusive) for the items of rank `rank` in a list of `length` items: the first fence entry above it. */
export function fenceHi(fence: Int32Array, rank: number, length: number): number {
  return Math.min(length, fenceCount(fence, rank, true) * FENCE_STRIDE);
}

function lowerBound<T>(list: readonly T[], item: T, compare: (x: T, y: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(list.at(mid)!, item) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A statement's key in `order` against the first `length` parts of `key` (no key array is made).
 * `firstDense`: the base dense id of key[0] (-1: none, or not known): the first components then
 * compare as numbers when the statement's is in the base too (no string read), as the lists' sort;
 * `secondDense` and `thirdDense` the same for key[1] and key[2].
 */
function compareWithKey(
  order: Order,
  st: DeltaStatement,
  key: readonly string[],
  length: number,
  firstDense: number,
  secondDense: number,
  thirdDense: number,
): number {
  if (length === 0) return 0;
  // Each branch: the order's first three components (no array made: this runs in every binary search).
  let a: string;
  let ad: number;
  let b: string;
  let bd: number;
  let c: string;
  let cd: number;
  if (order === "SPO") {
    a = st.s;
    ad = st.sd;
    b = st.p;
    bd = st.pd;
    c = st.o;
    cd = st.od;
  } else if (order === "POS") {
    a = st.p;
    ad = st.pd;
    b = st.o;
    bd = st.od;
    c = st.s;
    cd = st.sd;
  } else {
    a = st.o;
    ad = st.od;
    b = st.s;
    bd = st.sd;
    c = st.p;
    cd = st.pd;
  }
  const x = byId(ad, firstDense, a, key[0]!);
  if (x !== 0 || length === 1) return x;
  const y = byId(bd, secondDense, b, key[1]!);
  if (y !== 0 || length === 2) return y;
  const z = byId(cd, thirdDense, c, key[2]!);
  if (z !== 0 || length === 3) return z;
  return cmp(st.fp, key[3]!);
}

function bound(
  list: StatementRows,
  order: Order,
  key: readonly string[],
  length: number,
  strictlyAfter: boolean,
  firstDense: number,
  lo: number,
  hi: number,
  secondDense: number,
  thirdDense: number,
  keys: Float64Array,
  keyLo: number,
  keyHi: number,
  keyPinned: number,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    // Each branch: a merge key below or above the key's range decides (an integer compared, no
    // item read); in it, when the range pins every component compared (a key, not NaN), equal; else
    // the item.
    const c =
      k < keyLo
        ? -1
        : k >= keyHi
          ? 1
          : !Number.isNaN(k) && length <= keyPinned
            ? 0
            : compareWithKey(order, list.at(mid)!, key, length, firstDense, secondDense, thirdDense);
    if (c < 0 || (strictlyAfter && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** No merge keys: a search given none compares every item it reads (its key range is NaN). */
const NO_MERGE_KEYS: Float64Array = new Float64Array(0);

/**
 * The lowest merge key (mergeKey) of an item whose first component is base entity `first` (and,
 * when >= 0, whose second is base entity `second`) over a base of `idBound` entities; NaN when
 * `first` is not in the base (no range: a search compares every item it reads). With mergeKeyHi,
 * the range [lo, hi) of such items' keys: an item keyed below it is before every key that starts
 * with those components, one keyed at or above it after (an item with no key, NaN, is neither).
 */
export function mergeKeyLo(first: number, second: number, idBound: number): number {
  // Each branch: no range; keys of the first component alone (a large base); of the first, or the pair.
  if (first < 0) return Number.NaN;
  if (idBound > PAIR_KEY_MAX_BOUND) return first;
  return second < 0 ? first * idBound : first * idBound + second;
}

/**
 * How many of the key's first components mergeKeyLo's range pins (0: no range; 1: the first; 2:
 * the first two): an item keyed in the range has those of the key.
 */
export function mergeKeyPinned(first: number, second: number, idBound: number): number {
  // Each branch: as mergeKeyLo's.
  if (first < 0) return 0;
  if (idBound > PAIR_KEY_MAX_BOUND) return 1;
  return second < 0 ? 1 : 2;
}

/** The end (exclusive) of mergeKeyLo's range. */
export function mergeKeyHi(first: number, second: number, idBound: number): number {
  // Each branch: as mergeKeyLo's.
  if (first < 0) return Number.NaN;
  if (idBound > PAIR_KEY_MAX_BOUND) return first + 1;
  return second < 0 ? (first + 1) * idBound : first * idBound + second + 1;
}

/**
 * The range [lo, hi) of `list` (sorted in `order`) whose key starts with `prefix` (`firstDense`,
 * `secondDense`, `thirdDense`: the base dense ids of prefix[0], [1] and [2], -1 when none or not
 * known, as for each function below), searched in
 * [from, to] (a window known to hold it: fenceLo / fenceHi).
 */
export function prefixRange(
  list: StatementRows,
  order: Order,
  prefix: readonly string[],
  firstDense = -1,
  from = 0,
  to = list.length,
  secondDense = -1,
  thirdDense = -1,
  keys = NO_MERGE_KEYS,
  keyLo = Number.NaN,
  keyHi = Number.NaN,
  keyPinned = 0,
): [number, number] {
  if (prefix.length === 0) return [0, list.length];
  const lo = seekPrefix(
    list,
    order,
    prefix,
    firstDense,
    from,
    to,
    secondDense,
    thirdDense,
    keys,
    keyLo,
    keyHi,
    keyPinned,
  );
  return [
    lo,
    prefixEnd(list, order, prefix, firstDense, lo, to, secondDense, thirdDense, keys, keyLo, keyHi, keyPinned),
  ];
}

/**
 * The end (exclusive) of the items of `list` that start with `prefix` (at least one component), searched
 * from `from` (at or before the range's end: its start, when a caller has it, spares prefixRange's
 * first search) up to `to`; the other parameters as prefixRange's.
 */
export function prefixEnd(
  list: StatementRows,
  order: Order,
  prefix: readonly string[],
  firstDense: number,
  from: number,
  to: number,
  secondDense: number,
  thirdDense: number,
  keys: Float64Array,
  keyLo: number,
  keyHi: number,
  keyPinned: number,
): number {
  return bound(
    list,
    order,
    prefix,
    prefix.length,
    true,
    firstDense,
    from,
    to,
    secondDense,
    thirdDense,
    keys,
    keyLo,
    keyHi,
    keyPinned,
  );
}

/**
 * The first index of `list` (sorted in `order`) whose key is at or after `prefix` (the start of its
 * range), searched in [from, to] (a window known to hold it: fenceLo / fenceHi).
 */
export function seekPrefix(
  list: StatementRows,
  order: Order,
  prefix: readonly string[],
  firstDense = -1,
  from = 0,
  to = list.length,
  secondDense = -1,
  thirdDense = -1,
  keys = NO_MERGE_KEYS,
  keyLo = Number.NaN,
  keyHi = Number.NaN,
  keyPinned = 0,
): number {
  return bound(
    list,
    order,
    prefix,
    prefix.length,
    false,
    firstDense,
    from,
    to,
    secondDense,
    thirdDense,
    keys,
    keyLo,
    keyHi,
    keyPinned,
  );
}

/** Whether `list[i]` exists and its key starts with `prefix` (a range's item, found by one comparison). */
export function inPrefix(
  list: StatementRows,
  order: Order,
  prefix: readonly string[],
  i: number,
  firstDense = -1,
  secondDense = -1,
  thirdDense = -1,
  keys = NO_MERGE_KEYS,
  keyLo = Number.NaN,
  keyHi = Number.NaN,
  keyPinned = 0,
): boolean {
  if (i >= list.length) return false;
  const k = keys.length > i ? keys[i]! : Number.NaN;
  // Each check: a merge key outside the prefix's range: not in it; in it, pinning every component
  // of the prefix (a key, not NaN): in it (no item read either way); else the item compared.
  if (k < keyLo || k >= keyHi) return false;
  if (!Number.isNaN(k) && prefix.length <= keyPinned) return true;
  return compareWithKey(order, list.at(i)!, prefix, prefix.length, firstDense, secondDense, thirdDense) === 0;
}

/** The first index in [lo, hi) whose full key is strictly after `key` (four parts). */
export function seekAfter(
  list: StatementRows,
  order: Order,
  key: readonly string[],
  lo: number,
  hi: number,
  firstDense = -1,
  secondDense = -1,
  thirdDense = -1,
  keys = NO_MERGE_KEYS,
  keyLo = Number.NaN,
  keyHi = Number.NaN,
): number {
  return bound(list, order, key, 4, true, firstDense, lo, hi, secondDense, thirdDense, keys, keyLo, keyHi, 0);
}

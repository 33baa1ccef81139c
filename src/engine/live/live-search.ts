/**
 * Live search reads
 * =================
 * LiveGraph.search (live-graph.ts's façade delegates here): a page of entities whose folded raw
 * identifier holds the folded query, on base + delta, with its cursor and its total, over the state
 * of live-state.ts. order "score" is score-search.ts's read (the state's byScore); this file reads
 * order "name" and counts.
 *
 * Algorithm (order "name"): the base's own pages (Graph.search, resumed at any key through a cursor
 * this graph seals with the base's secret: sealSearchKey, the base places a key it did not issue),
 * less the tombstoned entities, merged by tier, folded identifier and entityId with the delta's
 * first limit + 1 matches after the key (its entities found by their 3-grams, gram-index.ts,
 * walked in order in a sorted posting list: deltaByName). The base's page from the key is read
 * first (basePageByName), and it is the answer as it is when no delta match comes before its last
 * item (deltaAhead: for a short query, the slot of the delta's short substrings for its type,
 * short-substrings.ts, holding its count and its first match, shortAhead; else, or when that slot
 * cannot tell, the summary of the rarest gram's sorted posting list searched by two binary
 * searches, deltaMatchBefore, seekPast, deltaMatchWalk) and its tombstoned items, checked against
 * the tombstone bitmap through its filter (bits-filter.ts), are made up for from the few items the
 * base's read lists past the page when any base entity is tombstoned (madeUpPage), or when they
 * cannot tell by a longer read of the same page. Otherwise that page is the merge's first round
 * (searchByName). A base item is folded (its key made: keyed) only to meet a delta item. Totals:
 * the base's total less the tombstoned matches (hiddenMatchCount) plus the delta's
 * (deltaMatchCount), each told by its short substrings' slot for a short query, else by
 * the rarest gram's posting when it is short (GramIndex.countHolding: its size, or its count text
 * searched), else counted over its sorted list (countCandidates: in its joined text, from match to
 * match).
 *
 * Cost: a base read plus, when the base's page is the answer, a bitmap probe an item (through a
 * cache-sized filter) and one slot read for a short query, else O(log D) for a delta of
 * D entities; else the delta's candidates of the query's rarest 3-gram (O(candidates)) and one fold
 * a base item merged. A total: a slot read each, else O(candidates) of the delta and of the
 * tombstones.
 *
 * References: CONTRACT.md "Search", "Changes (live updates)"; live-graph.ts's banner.
 */

import { type CursorContent, ENDPOINT_SEARCH, searchQueryTag } from "../cursor/cursor.js";
import {
  lastSearchPage,
  SEARCH_BOUNDS_BYTES,
  searchByNameChecked,
  searchHint,
  searchItemOf,
  type SearchPageKeys,
  UNSEALED_MORE,
  unsealedRead,
} from "../graph.js";
import { SEARCH_MAX_LIMIT } from "../limits.js";
import { compareFoldedToRaw } from "../search/fold.js";
import type { Hash64 } from "../hash64.js";
import type { Entity, EntityType, Page, SearchParams } from "../types.js";
import { checkSearchParams } from "../validate.js";
import { dropBits, hasBit } from "./dense-bits.js";
import {
  GRAM,
  type GramIndex,
  type GramProbe,
  type JoinedList,
  packedHead,
  SUMMARY_HEAD,
  SUMMARY_SIGNATURE,
  SUMMARY_TAIL,
  SUMMARY_WORDS,
  summaryHead,
  summaryThird,
} from "./gram-index.js";
import { signatureInto } from "./gram-signature.js";
import { ABSENT, NOT_KEPT } from "./short-substrings.js";
import { compareEntities, type DeltaEntity } from "./sorted-delta.js";
import {
  cmp,
  itemOf,
  SEARCH_PART,
  seekEntity,
  TIER_EXACT,
  TIER_INFIX,
  TIER_PREFIX,
  summaryHeadAt,
  typeCodeOf,
  unknownCursorShape,
} from "./search-items.js";

import { type BitsFilter, filteredHas, filterOf } from "./bits-filter.js";
import { TOMBSTONE_SLACK, type LiveState } from "./live-state.js";

/** An order "name" search item with its sort key, on its way through the merge. */
interface SearchItem {
  tier: number;
  folded: string;
  entity: Entity;
  /** A base page's item: its base search index rank (its cursor's hint). */
  rank?: number;
}

/** An order "name" cursor's key as the merge compares it, with the raw identifier and position hint it carries. */
interface SearchKey {
  readonly item: SearchItem;
  readonly raw: string;
  readonly hint: string;
  /** The cursor as the base's codec opened it (what the base's read takes: searchByNameChecked). */
  readonly content: CursorContent;
}

/** What the order "name" merge starts from when the base's page is not the answer as it is. */
interface NameRead {
  /** The base's page from the key, read by basePageByName (its keys still lastSearchPage's). */
  readonly prefetched: Page<Entity>;
  readonly key: SearchKey | undefined;
  /** How many tombstoned base entities match the query (hiddenMatchCount), when a total was asked; else -1. */
  readonly hiddenCount: number;
}

const SEARCH_NAME_PARTS = 3;

/**
 * How many items of a gram index's sorted list for `fq` (GramIndex.sortedList, or every item for a
 * query shorter than a gram) match `fq` and `type`: the list's length when each holds fq (fq is
 * one gram) and no type is asked, else one check an item.
 */
function countListed(list: readonly { folded: string; type: EntityType }[], fq: string, type: EntityType | undefined) {
  const check = fq.length !== GRAM;
  if (!check && type === undefined) return list.length;
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const x = list[i]!;
    if ((type === undefined || x.type === type) && (!check || x.folded.includes(fq))) n++;
  }
  return n;
}

/**
 * How many items of `list` (a gram index's sorted list for `fq`, longer than a gram) hold `fq` and
 * have `type`, found in the list's joined text (GramIndex.joinedOf) from match to match: each
 * indexOf passes over the items without a match in one read of the text, and a match is the first
 * occurrence of its item (the item holding its start, by `starts`; one that runs into the item's
 * separator is none, and the search goes on after its start). An item after a matched one whose
 * prefix shared with it (`shared`, GramIndex.sharedPrefixes) holds that occurrence holds it too
 * (counted unchecked: runs of numbered names cost an integer comparison each). An item is read only
 * to check its type.
 */
function countJoined(
  list: readonly { folded: string; type: EntityType }[],
  fq: string,
  type: EntityType | undefined,
  joined: JoinedList,
  shared: Int32Array,
): number {
  const { text, starts } = joined;
  const len = fq.length;
  let n = 0;
  let i = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(fq, from);
    if (at < 0) return n;
    while (starts[i + 1]! <= at) i++;
    /** Where the occurrence ends, from its item's start. */
    const end = at + len - starts[i]!;
    // Past the item's end (into its separator): no item's; the search goes on after its start.
    if (at + len >= starts[i + 1]!) {
      from = at + 1;
      continue;
    }
    if (type === undefined || list[i]!.type === type) n++;
    // Each next item sharing a prefix that holds this first occurrence: its first occurrence too.
    while (i + 1 < list.length && shared[i + 1]! >= end) {
      i++;
      if (type === undefined || list[i]!.type === type) n++;
    }
    i++;
    if (i >= list.length) return n;
    from = starts[i]!;
  }
}

/**
 * How many of `list`, the candidates of `fq` in `grams` (sortedList's for a query of a gram or
 * more, else every item), match `fq` and `type`.
 */
function countCandidates<T extends { readonly folded: string; readonly type: EntityType }>(
  grams: GramIndex<T>,
  list: readonly T[],
  fq: string,
  type: EntityType | undefined,
): number {
  // Each branch: a gram's sorted list of a query that must be checked, searched in its joined text;
  // else each item as it is.
  if (fq.length > GRAM && list.length > 1)
    return countJoined(list, fq, type, grams.joinedOf(list), grams.sharedPrefixes(list));
  return countListed(list, fq, type);
}

/** How many of the first `n` dense ids of `ids` are marked in `marked` (countBits through `filter`). */
function countFiltered(filter: BitsFilter, marked: Uint32Array, ids: ArrayLike<number>, n: number): number {
  const bits = filter.bits;
  const mask = filter.mask;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const d = ids[i]!;
    const f = d & mask;
    if ((bits[f >>> 5]! & (1 << (f & 31))) !== 0 && hasBit(marked, d)) count++;
  }
  return count;
}

/**
 * The base's page items (with the look-ahead that tells whether a next page exists) a search read
 * lists past its page when some base entity is tombstoned: its tombstoned items are made up from
 * them (madeUpPage) instead of by a second read of the page, longer. Most pages that meet a
 * tombstone meet one (a replaced entity's old name); each look-ahead costs the listing about one
 * rank more, and none is made into an entity unless it is used.
 */
const HIDDEN_LOOK_AHEADS = 2;

/**
 * The bound a base page sets on the delta's matches a read must place (deltaAhead): its last item,
 * with its tier and rank as the base listed it; none on the base's last page.
 */
function pageBound(page: Page<Entity>, keys: SearchPageKeys): SearchItem | undefined {
  const k = page.items.length;
  if (page.nextCursor === null) return undefined;
  return { tier: keys.tiers[k - 1]!, folded: "", entity: page.items[k - 1]!, rank: keys.ranks[k - 1]! };
}

/** A query's gram signature (deltaMatchBefore's; a read is synchronous). */
const QUERY_SIGNATURE = new Int32Array(2);

/** Whether the summary's item at word `at` may hold the query of QUERY_SIGNATURE: every bit of it set. */
function summaryMayHold(summary: Int32Array, at: number): boolean {
  const lo = QUERY_SIGNATURE[0]!;
  const hi = QUERY_SIGNATURE[1]!;
  return (summary[at + SUMMARY_SIGNATURE]! & lo) === lo && (summary[at + SUMMARY_SIGNATURE + 1]! & hi) === hi;
}

/**
 * The first index of a sorted list's summary (`n` items from word `from`) whose first three units,
 * packed (packedHead), are at least `head`.
 */
function seekHead(summary: Int32Array, from: number, n: number, head: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (summaryHeadAt(summary, mid, from) < head) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Folded identifier, then entityId (a tombstone's sorted lists: the delta entities' order). */
function compareByKey(x: { folded: string; entityId: string }, y: { folded: string; entityId: string }): number {
  return cmp(x.folded, y.folded) || cmp(x.entityId, y.entityId);
}

/** The search reads of a live graph (see the banner), over its state. */
export class LiveSearch {
  readonly #s: LiveState;

  constructor(s: LiveState) {
    this.#s = s;
  }

  /**
   * Entities whose folded raw identifier contains the folded `q`, in the contract's order: tier,
   * then (order "score") score highest first, then folded identifier, then entityId; with `count`,
   * the page carries the whole walk's `total`.
   */
  search(params: SearchParams): Page<Entity> {
    const { q, type, limit, cursor, order, count } = checkSearchParams(params);
    const fq = this.#s.fold(q);
    const tag = searchQueryTag(q, type, order, this.#s.parts.fold);
    // Each branch: an order's own read (its base stream, cursor and merge are the order's alone).
    if (order === "score") return this.#s.byScore.search(params, fq, type, limit, cursor, count, tag);
    return this.searchByName(params, fq, type, limit, cursor, count, tag);
  }

  /**
   * A page in order "name" (search() with order "name"): the base's page from the key, read first
   * (basePageByName: most often the answer as it is, less its tombstoned items); else a merge of the
   * base's stream (that page, then its next ones, tombstoned entities left out) with the delta's
   * first page after the key (deltaByName). The base's stream comes in order and after the key, so
   * a base item is folded (its key made) only to meet a delta item that the last base item read
   * does not already precede.
   */
  private searchByName(
    params: SearchParams,
    fq: string,
    type: number,
    limit: number,
    cursor: string | undefined,
    count: boolean,
    tag: Hash64,
  ): Page<Entity> {
    const typeName = params.type;
    const read = this.basePageByName(fq, type, typeName, limit, cursor, count, tag);
    if (!("prefetched" in read)) return read;
    const key = read.key;
    const want = limit + 1;
    // The delta's candidates (a merge: the list itself, not only its summary as basePageByName's probe).
    const delta = this.deltaCandidates(fq);
    /** The base's page read first (basePageByName's): the merge's first round. */
    let prefetched: Page<Entity> | undefined = read.prefetched;
    const hiddenBits = this.#s.hiddenBits;
    // The delta's matches after the key and before the first round's last item (the fence), at most
    // a page of them: the merge's other stream. Most merges place one or two delta items among the
    // base's, so the delta's items past the page are read only when the merge reaches them (fenced).
    const found: SearchItem[] = [];
    const firstKeys = lastSearchPage(this.#s.base);
    const firstItems = read.prefetched.items;
    // Each branch: a next base page (its last item fences the delta's first fetch), or the base's last (no fence).
    const fence: SearchItem | undefined =
      read.prefetched.nextCursor === null || firstItems.length === 0
        ? undefined
        : { tier: firstKeys.tiers[firstItems.length - 1]!, folded: "", entity: firstItems[firstItems.length - 1]! };
    /** The delta's fetch stopped at the fence: its matches past it are fetched when the merge reaches them. */
    let fenced = this.deltaByName(fq, typeName, key?.item, want, found, fence, delta);
    // The tombstoned base entities and the delta's entities that match, counted only for a total
    // (the base's items that must be left out are told by the bitmap as they come).
    let hiddenMatches = 0;
    let deltaMatches = 0;
    if (count) {
      hiddenMatches = read.hiddenCount >= 0 ? read.hiddenCount : this.hiddenMatchCount(fq, typeName);
      // Each branch: a first page's delta stream that stopped short of `want` with no fence holds every
      // delta match (none is before no key); else (a later page, a full stream, or one stopped at the
      // fence) they are counted.
      deltaMatches =
        key === undefined && !fenced && found.length < want ? found.length : this.deltaMatchCount(fq, typeName);
    }
    let m = 0;
    /** The base's next page's cursor, from the page read last (none while the first round's is in hand). */
    let baseCursor: string | undefined;
    /**
     * The last item of the base page read last when that page came unsealed (the first round's): its
     * key is sealed into the next page's cursor only when a next base page is read, so a merge that
     * the first round's page completes seals (and caches) no cursor of its own for the base.
     */
    let unsealedLast: SearchItem | undefined;
    let baseDone = false;
    let baseTotal: number | undefined;
    /** The query's bounds in the base, as its reads found them (a cursor's attachment). */
    let nameBounds: object | null | undefined;
    /** Base items read and not yet placed, in order (ascending). */
    const pending: SearchItem[] = [];
    let p = 0;
    /** Every base item not read yet comes after this key: the last item read. */
    let bound: SearchItem | undefined;
    // Tombstones in the way (any base entity tombstoned): each base page is read a few items longer.
    let pageLimit = want + (hiddenBits === undefined ? 0 : TOMBSTONE_SLACK);
    /**
     * Search order "name" (tier, folded identifier, entityId) of a base item and a delta item: a base
     * item comes with its tier, as the base found it, and its folded identifier "" (compareItems
     * reads its raw identifier, folding it only when that does not decide).
     */
    const order = (x: SearchItem, y: SearchItem): number => this.compareItems(x, y);
    /** Whether base item `x` comes before delta item `y` (at once when the last base item read does). */
    const before = (x: SearchItem, y: SearchItem): boolean =>
      (bound !== undefined && order(bound, y) < 0) || order(x, y) < 0;
    const out: SearchItem[] = [];
    /** The entities of `out`, as items. */
    const entities: Entity[] = [];
    /** The base page read last has a look-ahead item (the first after it) that is not tombstoned. */
    let lookAhead = false;
    /** An item follows the page's `limit` (known without placing it). */
    let more = false;
    while (out.length < want) {
      const x = pending[p];
      // The fenced stream spent with no base item left before it, the first round read (every base
      // item read is at or before the fence): the delta's matches after its last one (or the key), unfenced, as many as the
      // page still takes.
      if (fenced && m === found.length && x === undefined && prefetched === undefined) {
        fenced = false;
        const last = m > 0 ? found[m - 1] : key?.item;
        this.deltaByName(fq, typeName, last, found.length + want - out.length, found, undefined, delta);
      }
      const y = found[m];
      // The page full: only whether an item follows is left to know, not which (a head of either
      // stream, or the base's visible look-ahead), so no base page is read to place it.
      if (out.length === limit && (x !== undefined || y !== undefined || lookAhead)) {
        more = true;
        break;
      }
      // The smaller head of the two streams (no entityId is in both: the base's copies of the
      // delta's entities are tombstoned).
      const next = y === undefined || (x !== undefined && before(x, y)) ? x : y;
      // A base item first: the run of base items read that come before the delta's head, placed at
      // once (all of them when there is no delta head or it comes after the last one read; else up
      // to its place, found by a binary search), as far as the page goes.
      if (next !== undefined && next === x) {
        let end = pending.length;
        if (y !== undefined && !(bound !== undefined && order(bound, y) < 0)) {
          let lo = p + 1;
          while (lo < end) {
            const mid = (lo + end) >>> 1;
            if (order(pending[mid]!, y) < 0) lo = mid + 1;
            else end = mid;
          }
        }
        end = Math.min(end, p + limit - out.length);
        for (; p < end; p++) {
          out.push(pending[p]!);
          entities.push(pending[p]!.entity);
        }
        continue;
      }
      // Each branch: the delta's head is final (the base is done, or nothing unread can come before
      // it), or more of the base is read first.
      if (baseDone || (next !== undefined && bound !== undefined && order(next, bound) <= 0)) {
        if (next === undefined) break;
        out.push(next);
        // A delta item, copied into an entity (a base page's item is the base's own new object, handed on as it is).
        entities.push(itemOf(next.entity));
        m++;
        continue;
      }
      // The first round's page is the one read above; then the page and a few more, for tombstones
      // in the way; each further round asks twice as many.
      const page =
        prefetched ??
        this.#s.base.search({
          q: params.q,
          type: params.type,
          order: "name",
          limit: Math.min(SEARCH_MAX_LIMIT, pageLimit),
          cursor:
            baseCursor ?? (unsealedLast === undefined ? undefined : this.sealSearchKey(tag, unsealedLast, nameBounds)),
          count: count && baseTotal === undefined,
        });
      prefetched = undefined;
      // The base's total comes with its first page read (a base page's total is its whole walk's).
      if (page.total !== undefined) baseTotal = page.total;
      pageLimit *= 2;
      if (p > 0) {
        pending.splice(0, p);
        p = 0;
      }
      // The page's items as they come, none folded yet (order folds one when it meets a delta item
      // of its tier); their dense ids, tiers and ranks as the base found them (no look-up by entityId).
      const keys = lastSearchPage(this.#s.base);
      const ids = keys.ids;
      nameBounds = keys.bounds;
      const items = page.items;
      for (let k = 0; k < items.length; k++) {
        const e = items[k]!;
        const d = ids[k]!;
        const item: SearchItem = { tier: keys.tiers[k]!, folded: "", entity: e, rank: keys.ranks[k]! };
        if (k === items.length - 1) bound = item;
        if (hiddenBits !== undefined && hasBit(hiddenBits, d)) continue;
        pending.push(item);
      }
      // Each branch: the base's last page; a next one from the base's cursor; or (an unsealed
      // page) from a cursor of its last item's key, sealed with the base's hint when it is read.
      lookAhead =
        page.nextCursor !== null &&
        (hiddenBits === undefined || !hasBit(hiddenBits, this.#s.parts.searchIndex.idAt(keys.ranks[items.length]!)));
      baseDone = page.nextCursor === null;
      baseCursor = baseDone || page.nextCursor === UNSEALED_MORE ? undefined : (page.nextCursor ?? undefined);
      unsealedLast = page.nextCursor === UNSEALED_MORE ? bound : undefined;
    }
    const n = Math.min(limit, out.length);
    const items = entities.slice(0, n);
    let nextCursor: string | null = null;
    if (more || out.length > limit) {
      const last = out[n - 1]!;
      // A base item's key carries the base's hint (the base resumes at the next rank instead of
      // placing the key; a later base refuses the hint and places the key).
      const parts = [
        last.entity.rawIdentifier,
        last.entity.entityId,
        last.rank === undefined ? "" : searchHint(this.#s.base, last.rank),
      ];
      // Each branch: a base item with the base's bounds (they go with its hint, so the base's read
      // of the next page skips its backward search); else the key alone.
      nextCursor =
        last.rank !== undefined && nameBounds != null
          ? this.#s.cursors.encode(ENDPOINT_SEARCH, tag, last.tier, parts, nameBounds, SEARCH_BOUNDS_BYTES)
          : this.#s.cursors.encode(ENDPOINT_SEARCH, tag, last.tier, parts);
    }
    if (!count) return { items, nextCursor };
    // The walk's total: the base's, less its tombstoned matches, plus the delta's entities that match.
    // Each branch: counted with a page read, or (no page read) asked now.
    baseTotal ??= this.#s.base.search({ q: params.q, type: params.type, limit: 1, count: true }).total!;
    return { items, nextCursor, total: baseTotal - hiddenMatches + deltaMatches };
  }

  /**
   * The key of an order "name" search cursor of this query (`tag`): the last item's sort key (its
   * identifier folded when first needed: keyed), with the raw identifier and the base's position hint it carries.
   */
  private searchKey(cursor: string, tag: Hash64): SearchKey {
    const content = this.#s.cursors.decode(cursor, ENDPOINT_SEARCH, tag);
    if (content.count !== SEARCH_NAME_PARTS || content.extra > TIER_INFIX) throw unknownCursorShape();
    const raw = content.part(SEARCH_PART.raw);
    const entityId = content.part(SEARCH_PART.entityId);
    return {
      // Not keyed yet (folded ""): folded by deltaByName only when the delta has candidates to seek
      // among, most reads' case being none.
      item: {
        tier: content.extra,
        folded: "",
        entity: { entityId, rawIdentifier: raw, type: "0", sourceType: "" },
      },
      raw,
      hint: content.part(SEARCH_PART.hint),
      content,
    };
  }

  /**
   * Under order "name": the base's page from the key, when it is the answer as it is less its
   * tombstoned items: no delta match comes before the page's last item (or, on the base's last
   * page, after the key at all). The base's page is read as the base alone reads it (its own
   * cursor, sealed with the query's bounds attached, so a next page skips the backward search).
   * Tombstoned items on it are made up for from the look-aheads the base's read listed past it
   * (madeUpPage: HIDDEN_LOOK_AHEADS more than the one a read lists, when any base entity is
   * tombstoned), or, when those cannot tell, by reading the page again that many items longer (the
   * base's cursor then names the longer page's last item: a position, whatever entity it names);
   * the base's look-ahead item (the first after the page) says whether a visible item follows.
   * O(log D) beside the base read, and no merge state made. Else what the merge starts from: the
   * page read last (lastSearchPage still its keys) and the cursor's key.
   */
  private basePageByName(
    fq: string,
    typeNumber: number,
    type: EntityType | undefined,
    limit: number,
    cursor: string | undefined,
    count: boolean,
    tag: Hash64,
  ): Page<Entity> | NameRead {
    const key = cursor === undefined ? undefined : this.searchKey(cursor, tag);
    const hiddenBits = this.#s.hiddenBits;
    // The base's read from the parameters checked, folded, tagged and opened here (not again), its
    // next page's cursor left unsealed: sealed below when the page is the answer (as the base
    // seals it), so a page read again longer or handed to the merge costs no HMAC of its own.
    const base = this.#s.base;
    const content = key?.content;
    // Each branch: no tombstone, one look-ahead (whether a next page exists); else a few more, so
    // that a page's tombstoned items are made up from them (madeUpPage), not by reading it again.
    const lookAheads = hiddenBits === undefined ? 1 : 1 + HIDDEN_LOOK_AHEADS;
    const read = (n: number) =>
      unsealedRead(base, () => searchByNameChecked(base, fq, typeNumber, n, content, count, tag, lookAheads));
    let page = read(limit);
    let keys = lastSearchPage(this.#s.base);
    let k = page.items.length;
    let hidden = 0;
    /** A first page with no next one: it holds every base match (a total needs no index of the delta's). */
    const whole = key === undefined && page.nextCursor === null;
    // For a total, the tombstones that match fq and the type (they are counted): when none does, no
    // item of the page is tombstoned and none needs a look-up in the bitmap. Without a total the
    // bitmap alone is asked: its look-ups cost less than the count. Each branch: no total; a whole
    // page's tombstoned items (every tombstoned match is on it), by the bitmap; else the
    // tombstones' gram index.
    const hiddenCount = !count
      ? -1
      : whole
        ? hiddenBits === undefined
          ? 0
          : countFiltered(filterOf(hiddenBits), hiddenBits, keys.ids, k)
        : this.hiddenMatchCount(fq, type);
    // Each branch: no tombstone can be on the page (nothing to check); or the page's items against the bitmap.
    if (hiddenBits !== undefined && hiddenCount !== 0) {
      const filter = filterOf(hiddenBits);
      hidden = countFiltered(filter, hiddenBits, keys.ids, k);
      // A delta match before the page's last item makes it a merge whatever a longer page would
      // hold: the merge starts from this page, not read again longer (a replaced entity's new name
      // often sorts next to its tombstoned base one).
      if (hidden > 0 && page.nextCursor !== null && this.deltaAhead(fq, type, key, pageBound(page, keys)))
        return { prefetched: page, key, hiddenCount };
      // Made up for from the look-aheads the read listed past the page (a few, when any base entity
      // is tombstoned): the answer when they hold a visible item for each tombstoned one and tell
      // whether a visible item follows (madeUpPage); else read again below.
      if (hidden > 0 && page.nextCursor !== null) {
        const made = this.madeUpPage(page, keys, filter, hiddenBits, hidden);
        if (made !== undefined) {
          if (this.deltaAhead(fq, type, key, made.bound)) return { prefetched: page, key, hiddenCount };
          return this.sealedAnswer(made.page, made.bound, keys, tag, hiddenCount, whole, fq, type);
        }
      }
      // Else made up for by reading again: each round reads the page `hidden` items longer, until
      // its visible items fill it (the longer part may hold tombstones of its own) or the base has
      // no more; a page that would pass the base's limit is left to the merge.
      while (hidden > 0 && page.nextCursor !== null && k - hidden < limit) {
        if (limit + hidden > SEARCH_MAX_LIMIT) return { prefetched: page, key, hiddenCount };
        page = read(limit + hidden);
        keys = lastSearchPage(this.#s.base);
        k = page.items.length;
        hidden = countFiltered(filter, hiddenBits, keys.ids, k);
      }
      // The base's look-ahead tombstoned: whether any visible base item follows is the merge's to find.
      if (page.nextCursor !== null && filteredHas(filter, hiddenBits, this.#s.parts.searchIndex.idAt(keys.ranks[k]!)))
        return { prefetched: page, key, hiddenCount };
    }
    const bound = pageBound(page, keys);
    if (this.deltaAhead(fq, type, key, bound)) return { prefetched: page, key, hiddenCount };
    if (hidden > 0) dropBits(page.items, hiddenBits!, keys.ids);
    return this.sealedAnswer(page, bound, keys, tag, hiddenCount, whole, fq, type);
  }

  /**
   * basePageByName's answer, `page` with its next page's cursor (when it has one) sealed as the base
   * seals it: the key of `bound`, the page's last item as the base listed it (a position: tombstoned
   * or not), at its rank in `keys`, with the query's bounds attached; and the walk's total, when
   * asked (`hiddenCount` >= 0: the tombstones were probed): the base's, less its tombstoned matches,
   * plus the delta's. Each branch of the total: a whole page with no delta match ahead of it has
   * none at all (deltaAhead looked after no key and before no bound); else the delta's counted.
   */
  private sealedAnswer(
    page: Page<Entity>,
    bound: SearchItem | undefined,
    keys: SearchPageKeys,
    tag: Hash64,
    hiddenCount: number,
    whole: boolean,
    fq: string,
    type: EntityType | undefined,
  ): Page<Entity> {
    if (page.nextCursor !== null) {
      const last = bound!.entity;
      page.nextCursor = this.#s.cursors.encode(
        ENDPOINT_SEARCH,
        tag,
        bound!.tier,
        [last.rawIdentifier, last.entityId, searchHint(this.#s.base, bound!.rank!)],
        keys.bounds ?? undefined,
        SEARCH_BOUNDS_BYTES,
      );
    }
    if (hiddenCount >= 0) page.total = page.total! - hiddenCount + (whole ? 0 : this.deltaMatchCount(fq, type));
    return page;
  }

  /**
   * The base's page `page` (its keys `keys`, with the look-aheads the read listed past it: a full
   * page, `hidden` of its items tombstoned) made up to its length from those look-aheads, each
   * checked against the tombstones: the page less its tombstoned items plus the first `hidden`
   * visible look-aheads. Its next cursor (unsealed) says a visible item follows them, its bound is
   * its last item (tier and rank); when the base's matches end among the look-aheads with none
   * following, it is the base's last (fewer items when too few were visible), with no bound.
   * Undefined when the look-aheads cannot tell: all of them spent with more of the base's matches
   * past them (whether a visible one follows is unknown): the caller reads the page again longer.
   * O(look-aheads): an id and a tombstone filter look-up each; a made-up item is one entity made
   * (searchItemOf).
   */
  private madeUpPage(
    page: Page<Entity>,
    keys: SearchPageKeys,
    filter: BitsFilter,
    hiddenBits: Uint32Array,
    hidden: number,
  ): { page: Page<Entity>; bound: SearchItem | undefined } | undefined {
    const k = page.items.length;
    const index = this.#s.parts.searchIndex;
    /** The places in `keys` of the look-aheads that make up the page. */
    const made: number[] = [];
    let follows = false;
    for (let j = k; j < keys.listed; j++) {
      const d = index.idAt(keys.ranks[j]!);
      if (filteredHas(filter, hiddenBits, d)) continue;
      if (made.length === hidden) {
        follows = true;
        break;
      }
      made.push(j);
    }
    // No visible item after those made up, and the base listed every look-ahead asked for: more of
    // its matches may follow, visible or not.
    if (!follows && keys.listed === k + HIDDEN_LOOK_AHEADS + 1) return undefined;
    const items: Entity[] = [];
    for (let i = 0; i < k; i++) if (!filteredHas(filter, hiddenBits, keys.ids[i]!)) items.push(page.items[i]!);
    for (let i = 0; i < made.length; i++) items.push(searchItemOf(this.#s.base, index.idAt(keys.ranks[made[i]!]!)));
    const out: Page<Entity> = { items, nextCursor: follows ? UNSEALED_MORE : null };
    if (page.total !== undefined) out.total = page.total;
    // Each branch: the base's last page (no bound); else its last item, a made-up one (made holds `hidden` >= 1).
    if (!follows) return { page: out, bound: undefined };
    const j = made[made.length - 1]!;
    return {
      page: out,
      bound: { tier: keys.tiers[j]!, folded: "", entity: items[items.length - 1]!, rank: keys.ranks[j]! },
    };
  }

  /**
   * A search cursor after base item `x` (a base page's last item, its tier and rank as the base
   * found them), sealed as the base seals its own, with the query's bounds in the base attached.
   */
  private sealSearchKey(tag: Hash64, x: SearchItem, bounds: object | null | undefined): string {
    return this.#s.cursors.encode(
      ENDPOINT_SEARCH,
      tag,
      x.tier,
      [x.entity.rawIdentifier, x.entity.entityId, searchHint(this.#s.base, x.rank!)],
      bounds ?? undefined,
      SEARCH_BOUNDS_BYTES,
    );
  }

  /**
   * Whether the delta has a match of `fq` (and `type`) after the key and before the base page's
   * last item (anywhere after the key on the base's last page): for a query of a gram or more, read
   * from the summary of its rarest gram's sorted list (GramIndex.probe: no list or posting object
   * reached unless the summary's words leave an item to read), not at all when no delta entity has
   * every gram of fq; for a shorter one, in every delta entity (deltaByName's walk).
   */
  private deltaAhead(
    fq: string,
    type: EntityType | undefined,
    key: SearchKey | undefined,
    bound: SearchItem | undefined,
  ): boolean {
    // A short query: told by its slot of the delta's short substrings when they can (shortAhead).
    const short = this.shortAhead(fq, type, key, bound);
    if (short !== undefined) return short;
    // Each branch: a gram's sorted list, walked by its summary; every delta entity (a query shorter
    // than a gram), by its items.
    if (fq.length >= GRAM) {
      const probe = this.#s.entityGrams.probe(fq, compareEntities, typeCodeOf);
      if (probe.size === 0) return false;
      return this.deltaMatchBefore(fq, type, key?.item, bound, probe);
    }
    const delta = this.#s.entityList;
    if (delta.length === 0) return false;
    const first: SearchItem[] = [];
    this.deltaByName(fq, type, key?.item, 1, first, bound, delta);
    return first.length > 0;
  }

  /**
   * deltaAhead from the delta's short substrings (short-substrings.ts), for the query's type (or
   * any); undefined when they cannot tell. Each answer: no delta entity of the type holds fq (none
   * ahead); the first that does (of the better tier first) at or past the bound (so is every other
   * match); before the bound, on a first page (a match after no key); else not told (a longer
   * query, a first removed and not known, or a key to pass: the lists' walk).
   */
  private shortAhead(
    fq: string,
    type: EntityType | undefined,
    key: SearchKey | undefined,
    bound: SearchItem | undefined,
  ): boolean | undefined {
    const short = this.#s.entityGrams.short!;
    const at = short.seek(fq, type === undefined ? -1 : typeCodeOf({ type }));
    if (at === ABSENT) return false;
    if (at === NOT_KEPT) return undefined;
    // The first match against the bound: by tier, then (the same tier) by its place among the base's
    // names against the bound's name rank (a base item at or after the first's place comes after
    // it), no identifier read; by their keys when the bound has no rank. Unknown: not told here.
    const tier = short.firstTier(at, fq.length);
    const known = tier >= 0;
    if (known && bound !== undefined) {
      if (tier !== bound.tier) {
        if (tier > bound.tier) return false;
      } else if (bound.rank !== undefined) {
        if (short.firstPlace(at) > bound.rank) return false;
      } else {
        const first = short.firstAt(at)!;
        if (this.compareItems({ tier, folded: first.folded, entity: first }, bound) >= 0) return false;
      }
    }
    // A first page (no key to pass): the first comes before the bound (it was told), or there is no
    // bound (the base's last page: any match is ahead).
    if (key === undefined && (bound === undefined || known)) return true;
    return undefined;
  }

  /**
   * deltaAhead for a query of a gram or more: whether the rarest gram's sorted list of fq (`probe`,
   * GramIndex.probe: its size and summary) holds a match of `fq` and `type` after the key `after`
   * and before `before` (none: anywhere after the key), as deltaByName would find its first, read
   * from the list's summary (heads, types and gram signatures in one array, in the list's order):
   * an item's object and string (and the list) are read only when its type and signature let it
   * through (fq is in it, or for a query of one gram every item holds it) or its head ties with the
   * bound's, so most reads touch no delta entity at all. A first page bounded in the infix tier is
   * deltaMatchWalk's; else O(log candidates + what is walked), in words of one array.
   */
  private deltaMatchBefore(
    fq: string,
    type: EntityType | undefined,
    after: SearchItem | undefined,
    before: SearchItem | undefined,
    probe: Readonly<GramProbe<DeltaEntity>>,
  ): boolean {
    const summary = probe.words;
    const from = probe.from;
    const n = probe.size;
    /** The list itself, fetched when an item must be read. */
    let items: readonly DeltaEntity[] | undefined;
    const want = type === undefined ? -1 : typeCodeOf({ type });
    // Each branch: a query of one gram, in every item of its list; a longer one, told by the signature first.
    const check = fq.length !== GRAM;
    if (check) signatureInto(fq, QUERY_SIGNATURE, 0);
    const qHead = summaryHead(fq);
    const qThird = summaryThird(fq);
    // A first page of a short list bounded in the infix tier: one walk from its start.
    if (after === undefined && before !== undefined && before.tier === TIER_INFIX)
      return this.deltaMatchWalk(fq, want, before, probe);
    // Exact and prefix matches: items whose first three units are fq's, from the key (or fq) on.
    if (after === undefined || after.tier <= TIER_PREFIX) {
      // Each branch: from the first item whose first three units are fq's (by the heads alone: no
      // item read), or from the key.
      let i = after === undefined ? seekHead(summary, from, n, packedHead(fq)) : this.seekPast(probe, after);
      for (; i < n; i++) {
        const at = from + i * SUMMARY_WORDS;
        const tail = summary[at + SUMMARY_TAIL]!;
        // Past the items that start with fq's first three units: no more of the first two tiers.
        if (summary[at + SUMMARY_HEAD] !== qHead || tail >>> 8 !== qThird) break;
        // Each check: the type asked, and (longer than a gram) fq's grams all in its signature.
        if (want >= 0 && (tail & 0xff) !== want) continue;
        if (check && !summaryMayHold(summary, at)) continue;
        // A query of one gram (the item starts with it) and a bound in the infix tier or none: this
        // match of the first two tiers comes before it, whatever its tier.
        if (!check && (before === undefined || before.tier === TIER_INFIX)) return true;
        const e = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[i]!;
        // Each branch: before fq (the first item read may be: the heads sought only its first three
        // units); past the range of identifiers that start with fq (sorted: every later item too).
        if (!e.folded.startsWith(fq)) {
          if (e.folded < fq) continue;
          break;
        }
        // The first match of the first two tiers: before the bound, or none is.
        if (before === undefined) return true;
        const x: SearchItem = {
          tier: e.folded.length === fq.length ? TIER_EXACT : TIER_PREFIX,
          folded: e.folded,
          entity: e,
        };
        return this.compareItems(x, before) < 0;
      }
    }
    // The bound in the first two tiers: no infix match comes before it.
    if (before !== undefined && before.tier < TIER_INFIX) return false;
    let j = after !== undefined && after.tier === TIER_INFIX ? this.seekPast(probe, after) : 0;
    /** The bound's first three folded units, packed (packedHead), or -1 for none. */
    const bound = before === undefined ? -1 : this.packedHeadOf(before);
    for (; j < n; j++) {
      const at = from + j * SUMMARY_WORDS;
      const tail = summary[at + SUMMARY_TAIL]!;
      // The item against the bound: by heads where they differ (at or past it: so is every later
      // item), by its key where they tie.
      if (bound >= 0) {
        const h = (summary[at + SUMMARY_HEAD]! >>> 0) * 65536 + (tail >>> 8);
        if (h > bound) return false;
        if (h === bound) {
          const e = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[j]!;
          if (this.compareToItem(e.folded, e.entityId, before!) >= 0) return false;
        }
      }
      if (want >= 0 && (tail & 0xff) !== want) continue;
      // Each branch: a query of one gram, in every item (a prefix one starts with its three units);
      // a longer one, its signature then its identifier checked.
      if (!check) {
        if (summary[at + SUMMARY_HEAD] === qHead && tail >>> 8 === qThird) continue;
        return true;
      }
      if (!summaryMayHold(summary, at)) continue;
      const folded = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[j]!.folded;
      if (folded.includes(fq) && !folded.startsWith(fq)) return true;
    }
    return false;
  }

  /**
   * The first index of `probe`'s list whose key is above the key `after`: sought by the summary's
   * heads (the key's first three folded units, read from its raw identifier in place when they are
   * ASCII: packedHeadOf), then past the items whose head ties with the key's, each compared by its
   * key; so the list and its items are read only on such a tie, and the key is folded only when its
   * head or a tie needs it. O(log n + ties).
   */
  private seekPast(probe: Readonly<GramProbe<DeltaEntity>>, after: SearchItem): number {
    const summary = probe.words;
    const from = probe.from;
    const n = probe.size;
    const head = this.packedHeadOf(after);
    let i = seekHead(summary, from, n, head);
    let items: readonly DeltaEntity[] | undefined;
    for (; i < n && summaryHeadAt(summary, i, from) === head; i++) {
      const e = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[i]!;
      if (this.compareToItem(e.folded, e.entityId, after) > 0) break;
    }
    return i;
  }

  /**
   * deltaMatchBefore on a first page (no key) whose bound `before` is in the infix tier: one walk
   * of the summary from its start, in order (its lines read one after the other), to the first
   * item past the bound (by head, or by key on a tie), then, when fq's head is above the bound's,
   * a binary search for the items that start with fq's head. An item is a match before the bound
   * when it starts with fq (the first two tiers come before any infix item) or holds fq elsewhere
   * and comes before the bound. The signature QUERY_SIGNATURE is fq's (set by the caller when fq is
   * longer than a gram). O(items before the bound + log candidates).
   */
  private deltaMatchWalk(
    fq: string,
    want: number,
    before: SearchItem,
    probe: Readonly<GramProbe<DeltaEntity>>,
  ): boolean {
    const summary = probe.words;
    const from = probe.from;
    const n = probe.size;
    let items: readonly DeltaEntity[] | undefined;
    const check = fq.length !== GRAM;
    const qHead = packedHead(fq);
    const bound = this.packedHeadOf(before);
    let j = 0;
    for (; j < n; j++) {
      const at = from + j * SUMMARY_WORDS;
      const tail = summary[at + SUMMARY_TAIL]!;
      const h = (summary[at + SUMMARY_HEAD]! >>> 0) * 65536 + (tail >>> 8);
      // Past the bound's head: so is every later item (a prefix match past it is sought below).
      if (h > bound) break;
      // Each check: the type asked, and (longer than a gram) fq's grams all in its signature.
      if (want >= 0 && (tail & 0xff) !== want) continue;
      if (check && !summaryMayHold(summary, at)) continue;
      // Each branch: fq's head (a prefix match, or for a query of one gram surely one), or not (an
      // infix match at best).
      if (h === qHead) {
        if (!check) return true;
        const folded = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[j]!.folded;
        if (folded.startsWith(fq)) return true;
        if (!folded.includes(fq)) continue;
      } else if (check && !(items ??= this.#s.entityGrams.probeList(probe, compareEntities))[j]!.folded.includes(fq))
        continue;
      // An infix match (a query of one gram: every item holds it): before the bound by head, or by key on a tie.
      if (h < bound) return true;
      const e = (items ??= this.#s.entityGrams.probeList(probe, compareEntities))[j]!;
      if (this.compareToItem(e.folded, e.entityId, before) < 0) return true;
      // At or past the bound: so is every later item; only a prefix match (fq's head at or past the
      // bound's) is left, after this one.
      j++;
      break;
    }
    // Each branch: fq's head below the bound's (its prefix matches were walked above); the bound's
    // (the rest of its items, from where the walk stopped); or above it (sought by their head).
    if (qHead < bound) return false;
    for (let i = qHead === bound ? j : seekHead(summary, from, n, qHead); i < n; i++) {
      const at = from + i * SUMMARY_WORDS;
      const tail = summary[at + SUMMARY_TAIL]!;
      if ((summary[at + SUMMARY_HEAD]! >>> 0) * 65536 + (tail >>> 8) !== qHead) return false;
      if (want >= 0 && (tail & 0xff) !== want) continue;
      if (!check) return true;
      if (!summaryMayHold(summary, at)) continue;
      if ((items ??= this.#s.entityGrams.probeList(probe, compareEntities))[i]!.folded.startsWith(fq)) return true;
    }
    return false;
  }

  /**
   * The first three units of `item`'s folded identifier, packed as packedHead packs them: read from
   * its raw identifier in place when its first four units are ASCII (each then folds to its lower
   * case where it stands: compareFoldedToRaw's rule), else from its fold (keyed).
   */
  private packedHeadOf(item: SearchItem): number {
    if (item.folded !== "") return packedHead(item.folded);
    const raw = item.entity.rawIdentifier;
    const n = Math.min(raw.length, GRAM + 1);
    let ascii = true;
    for (let i = 0; i < n; i++) if (raw.charCodeAt(i) >= 0x80) ascii = false;
    // Each branch: the ASCII head lower-cased in place, or the whole fold.
    if (!ascii) return packedHead(this.keyed(item).folded);
    let h = 0;
    for (let i = 0; i < GRAM; i++) {
      const c = i < raw.length ? raw.charCodeAt(i) : 0;
      h = h * 65536 + (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
    }
    return h;
  }

  /**
   * The delta entities that may match `fq`, sorted by folded identifier then entityId: for a query of
   * a gram or more its rarest gram's posting list (every match is in it, those that start with fq a
   * range of it; empty when some gram of fq is in no delta entity), else every delta entity.
   */
  private deltaCandidates(fq: string): readonly DeltaEntity[] {
    return fq.length >= GRAM ? this.#s.entityGrams.sortedList(fq, compareEntities) : this.#s.entityList;
  }

  /** How many delta entities match `fq` and `type` (countCandidates over its candidates). */
  private deltaMatchCount(fq: string, type: EntityType | undefined): number {
    // Each branch: told by the short substrings' slot or the rarest gram's posting
    // (GramIndex.countHolding), or its sorted list counted.
    const n = this.#s.entityGrams.countHolding(fq, type === undefined ? -1 : typeCodeOf({ type }), typeCodeOf);
    if (n >= 0) return n;
    return countCandidates(this.#s.entityGrams, this.deltaCandidates(fq), fq, type);
  }

  /**
   * How many tombstoned base entities match `fq` and `type`: countCandidates over the rarest gram's
   * sorted list of the tombstones' gram index (none when some gram of fq is in no tombstone), or
   * every tombstone for a query shorter than a gram.
   */
  private hiddenMatchCount(fq: string, type: EntityType | undefined): number {
    // Told by the short substrings' slot or the rarest gram's posting when they can (as deltaMatchCount).
    const n = this.#s.hiddenGrams.countHolding(fq, type === undefined ? -1 : typeCodeOf({ type }), typeCodeOf);
    if (n >= 0) return n;
    // Each branch: a query of a gram or more, its rarest gram's list; a shorter one, every tombstone.
    const list = fq.length >= GRAM ? this.#s.hiddenGrams.sortedList(fq, compareByKey) : this.#s.hiddenGrams.list();
    return countCandidates(this.#s.hiddenGrams, list, fq, type);
  }

  /**
   * Search order "name" (tier, folded identifier, entityId) of two items of which one may be a base
   * item not keyed yet (its folded identifier ""): compared by tier first, then to its raw identifier (compareToItem), folded only when that
   * does not decide.
   */
  private compareItems(x: SearchItem, y: SearchItem): number {
    const t = x.tier - y.tier;
    if (t !== 0) return t;
    // Each branch: x not keyed and y keyed (y's key against x); else x's key (made if need be) against y.
    if (x.folded === "" && y.folded !== "") return -this.compareToItem(y.folded, y.entity.entityId, x);
    return this.compareToItem(this.keyed(x).folded, x.entity.entityId, y);
  }

  /**
   * The order of the key (folded, entityId) against item `y`'s of the same tier: against `y`'s raw
   * identifier when `y` is not keyed yet (compareFoldedToRaw: most often decided by its first
   * characters, no fold made), `y` keyed when the fold is needed after all.
   */
  private compareToItem(folded: string, entityId: string, y: SearchItem): number {
    // Each branch: y keyed (its key compared), or its raw identifier read in place.
    const c =
      y.folded !== ""
        ? cmp(folded, y.folded)
        : compareFoldedToRaw(folded, y.entity.rawIdentifier, () => this.keyed(y).folded);
    return c || cmp(entityId, y.entity.entityId);
  }

  /** `item` with its folded identifier, folded now if the item was made without it (""). */
  private keyed(item: SearchItem): SearchItem {
    if (item.folded === "") item.folded = this.#s.fold(item.entity.rawIdentifier);
    return item;
  }

  /**
   * Under order "name": the delta's first `want` matches of `fq` (and `type`) after the key
   * `after`, in the contract's order, into `out`. Exact and prefix matches are one range of the
   * delta's list by folded identifier (exact first: the shortest), found by a binary search; infix
   * matches are walked in the same order in the rarest gram's sorted posting list from the key,
   * checked one by one, until the page is full: O(log D + what is walked), not O(candidates).
   * With `before`, only matches that come before that key (none in the infix tier when the key is
   * in an earlier tier; an infix item is held against it by its summary's head, read only on a
   * tie); then true when the walk stopped at that key with room left (matches past it may follow,
   * not fetched), else false.
   */
  private deltaByName(
    fq: string,
    type: EntityType | undefined,
    after: SearchItem | undefined,
    want: number,
    out: SearchItem[],
    before: SearchItem | undefined,
    items: readonly DeltaEntity[] = this.deltaCandidates(fq),
  ): boolean {
    // Each item of the list holds fq when fq is one gram (its posting list); else checked with includes().
    const check = fq.length !== GRAM;
    // Each branch: a gram's sorted list, searched and walked by its summary's words (heads, type,
    // signature: an item is read only when they let it through); every delta entity's, by its items.
    const summary =
      fq.length >= GRAM && items.length > 1 ? this.#s.entityGrams.summaryOf(items, typeCodeOf) : undefined;
    const code = type === undefined ? -1 : typeCodeOf({ type });
    const qHead = packedHead(fq);
    if (summary !== undefined && check) signatureInto(fq, QUERY_SIGNATURE, 0);
    // Each branch: a key in tier 2 passed the first two tiers; else they are walked from the key
    // (or their start, the first folded identifier at or above fq).
    if (after === undefined || after.tier <= TIER_PREFIX) {
      let i =
        after === undefined
          ? seekEntity(items, fq, "", true, summary)
          : seekEntity(items, this.keyed(after).folded, after.entity.entityId, false, summary);
      for (; i < items.length && out.length < want; i++) {
        if (summary !== undefined) {
          const at = i * SUMMARY_WORDS;
          // Past the items whose first three units are fq's: no more of the first two tiers. Then
          // the type asked, and (longer than a gram) fq's grams in the signature, from the words.
          if (summaryHeadAt(summary, i) !== qHead) break;
          if (code >= 0 && (summary[at + SUMMARY_TAIL]! & 0xff) !== code) continue;
          if (check && !summaryMayHold(summary, at)) continue;
        }
        const e = items[i]!;
        // Past the range of identifiers that start with fq: no more of the first two tiers.
        if (!e.folded.startsWith(fq)) break;
        if (type !== undefined && e.type !== type) continue;
        const x: SearchItem = {
          tier: e.folded.length === fq.length ? TIER_EXACT : TIER_PREFIX,
          folded: e.folded,
          entity: e,
        };
        // At or past the bound: so is every later item of this walk and of the infix tier.
        if (before !== undefined && this.compareItems(x, before) >= 0) return true;
        out.push(x);
      }
    }
    // Each branch: the page is full, or the bound lies in the first two tiers (no infix match comes before it).
    if (out.length >= want) return false;
    if (before !== undefined && before.tier < TIER_INFIX) return true;
    let j =
      after !== undefined && after.tier === TIER_INFIX
        ? seekEntity(items, this.keyed(after).folded, after.entity.entityId, false, summary)
        : 0;
    /** The bound's first three folded units, packed (packedHeadOf), when a summary's heads can be held against it; else -1. */
    const boundHead = before !== undefined && summary !== undefined ? this.packedHeadOf(before) : -1;
    for (; j < items.length && out.length < want; j++) {
      /** The item's head from the summary (-1: none). */
      let h = -1;
      // The bound by head, then the type asked, the signature, and (one gram) a prefix, from the summary's words.
      if (summary !== undefined) {
        const at = j * SUMMARY_WORDS;
        h = summaryHeadAt(summary, j);
        // Past the bound's head (an infix item: the list is in its order): so is every later item.
        if (boundHead >= 0 && h > boundHead) return true;
        if (code >= 0 && (summary[at + SUMMARY_TAIL]! & 0xff) !== code) continue;
        if (check ? !summaryMayHold(summary, at) : h === qHead) continue;
      }
      const e = items[j]!;
      // At or past the bound by its key (read only where the heads tie, or with no summary): so is
      // every later item (an item left out above at or past it is no match to place).
      if (before !== undefined && (h < 0 || h === boundHead) && this.compareToItem(e.folded, e.entityId, before) >= 0)
        return true;
      // Each check: the type asked, fq inside (unless the list holds only such), and not a prefix (tiers 0-1 above).
      if (type !== undefined && e.type !== type) continue;
      if (check && !e.folded.includes(fq)) continue;
      if (e.folded.startsWith(fq)) continue;
      out.push({ tier: TIER_INFIX, folded: e.folded, entity: e });
    }
    return false;
  }
}

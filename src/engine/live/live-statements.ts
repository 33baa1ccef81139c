/**
 * Live statements reads
 * =====================
 * LiveGraph.statements (live-graph.ts's façade delegates here): a page of statements matching the
 * filters on base + delta, its cursor and its total, over the state of live-state.ts.
 *
 * Algorithm: the base's pages for the same filters, less the tombstoned statements, merged on the
 * contract's key order with the delta's range for the filters (every filter shape is a prefix of
 * its order's key: orderOf, prefixOf), keeping the page's first limit + 1 items. The base's page
 * from the key is read first, and it is the answer as it is when no delta item comes before its
 * last item and none of its items is tombstoned (one item longer, its cursor not sealed, when a
 * tombstone may lie ahead: graph.ts unsealedRead). When no delta statement or tombstone starts
 * with the query's first filter (the state's first-component marks, firstMark; with two filters or
 * more, a bit of each list's pair filter, pairsOf), the base's page is the answer unchecked, its
 * names brought up to date (patchNames: its ids checked against the replaced entities' filter,
 * then their exact bitmap). When tombstones but no delta statement start with the first filter,
 * the filtered page (a run of positions of its order) is tested against the tombstones' positions
 * (pageLessTombstoned, tombstone-bits.ts). A merge compares a base item with a delta item by the
 * dense ids the base read for it (rowVs, compareRow, by merge keys first), resumes the base at its
 * last page's position hint (hintBefore), and an unfiltered walk attaches where it left the delta
 * to its cursor (WalkPlace). Totals: the range's base count less its tombstones plus its delta
 * items (statementsTotal, rangeSize, hiddenInRange).
 *
 * Cost: a base read plus one binary search per delta list from the key, in the window its fence
 * gives (sorted-delta.ts: fenceOf), when the delta has anything for the query; a base read and a
 * mark's look-up when it has not. Read aids: the fence is made once a list per batch and base
 * (aidsOf, O(list / 16) merge keys read); the merge keys and the pair filter are the list's own,
 * kept up to date by its merges (statement-list.ts, pair-filter.ts).
 *
 * References: CONTRACT.md "Statements", "Changes (live updates)"; live-graph.ts's banner.
 */

import { ENDPOINT_STATEMENTS, type queryTag, statementsQueryTag } from "../cursor/cursor.js";
import {
  lastStatementsHint,
  lastStatementsPage,
  lastStatementsRest,
  lastStatementsStart,
  searchHintPosition,
  type StatementsKey,
  statementsAfterKey,
} from "../graph.js";
import { STATEMENTS_MAX_LIMIT } from "../limits.js";
import type { Page, Statement, StatementsParams } from "../types.js";
import { checkStatementsParams } from "../validate.js";
import { filteredHas, filterOf } from "./bits-filter.js";
import { anyMarked, anyUnmarked, isMarked } from "./tombstone-bits.js";
import {
  buildFence,
  compareStatements,
  type DeltaStatement,
  fenceHi,
  fenceLo,
  type Order,
  inPrefix,
  mergeKeyHi,
  mergeKeyLo,
  mergeKeyPinned,
  packedKey,
  prefixEnd,
  prefixRange,
  seekAfter,
  seekPrefix,
  statementKey,
} from "./sorted-delta.js";
import { cmp, unknownCursorShape } from "./search-items.js";
import { pairMayHold } from "./pair-filter.js";
import { StatementList } from "./statement-list.js";

import { ListAids, type LiveState, TOMBSTONE_SLACK, FIRST_PUT, FIRST_HIDDEN, firstMark } from "./live-state.js";

/**
 * Where an unfiltered statements walk left the delta after a page, attached to the page's cursor in
 * the codec's cache of issued cursors (never in its text): the next page, asked with that cursor of
 * the same graph at the same batch and base, takes the key's subject and both lists' positions
 * from it (no look-up of the subject, no fence, no search of either list); a cursor that comes back
 * without it (evicted, another graph's, a batch or a swap since) is placed as any other.
 */
class WalkPlace {
  constructor(
    /** The issuing graph's token over its base then (LiveState's placeToken). */
    readonly token: object,
    readonly sequence: number,
    /** The base dense id of the page's last item's subject. */
    readonly keyFirst: number,
    /** The first index of the order's statement list after the page's last item. */
    readonly m: number,
    /** The first index of the order's tombstones after the page's last item. */
    readonly h: number,
  ) {}
}

/**
 * Tombstone t against a merged page's last item (placeAfterMerge's; > 0: after it): a base item at
 * `lastAt` of the base's page read last, or (lastAt -1) the delta item list.at(m - 1).
 */
function tombstoneVs(
  order: Order,
  baseIds: ArrayLike<number>,
  lastAt: number,
  last: Statement,
  list: StatementList,
  m: number,
  hiddenList: StatementList,
  hiddenKeys: Float64Array,
  t: number,
  idBound: number,
  compare: (x: DeltaStatement, y: DeltaStatement) => number,
): number {
  // Each branch: the last item is a base one, or a delta one.
  return lastAt >= 0
    ? -rowVs(order, baseIds, lastAt, last, hiddenList.at(t)!, hiddenKeys[t]!, idBound)
    : compare(hiddenList.at(t)!, list.at(m - 1)!);
}

/** Bytes a WalkPlace holds, charged to the cursor cache's budget (an object of five fields). */
const WALK_PLACE_BYTES = 72;

/** An empty statement list (a delta list that the first components' marks rule out for a query). */
const NO_STATEMENTS = new StatementList("SPO");

/** The merge keys of an empty statement list. */
const NO_MERGE_KEYS: Float64Array = new Float64Array(0);

/** CONTRACT.md's table: the order (index) that serves the filters given. */
function orderOf(s: string | undefined, p: string | undefined, o: string | undefined): Order {
  // Each branch is a row of the table.
  if (s !== undefined) return p === undefined && o !== undefined ? "OSP" : "SPO";
  if (p !== undefined) return "POS";
  return o !== undefined ? "OSP" : "SPO";
}

/** The given filters in `order`'s key order (orderOf's order for them): the key prefix a query's items share. */
function prefixOf(order: Order, s: string | undefined, p: string | undefined, o: string | undefined): string[] {
  const parts = order === "SPO" ? [s, p, o] : order === "POS" ? [p, o, s] : [o, s, p];
  const prefix: string[] = [];
  for (const part of parts) {
    if (part === undefined) break;
    prefix.push(part);
  }
  return prefix;
}

/**
 * compareRow, told by merge keys first: `yKey` is y's (sorted-delta.ts mergeKey over a base of
 * `idBound` entities; NaN: none); base item k's is made from its dense ids. Keys that differ
 * decide (no read of y); equal ones, or none, leave it to compareRow.
 */
function rowVs(
  order: Order,
  ids: ArrayLike<number>,
  k: number,
  x: Statement,
  y: DeltaStatement,
  yKey: number,
  idBound: number,
): number {
  const at = 3 * k;
  // Each branch: the order's first two components of item k.
  const a = order === "SPO" ? ids[at]! : order === "POS" ? ids[at + 1]! : ids[at + 2]!;
  const b = order === "SPO" ? ids[at + 1]! : order === "POS" ? ids[at + 2]! : ids[at]!;
  const xKey = packedKey(a, b, idBound);
  // Each branch: keys that differ decide; else the items.
  if (xKey < yKey) return -1;
  if (xKey > yKey) return 1;
  return compareRow(order, ids, k, x, y);
}

/**
 * Item k of the base's last statements page (`x`, its dense ids at ids[3k], ids[3k + 1],
 * ids[3k + 2]) against a delta statement or tombstone, in `order`: a component by integers when
 * `y`'s is in the base too (dense ids follow entityId order; a tombstone's always are), else by
 * entityId; the fingerprint only on a tie of the three.
 */
function compareRow(order: Order, ids: ArrayLike<number>, k: number, x: Statement, y: DeltaStatement): number {
  const at = 3 * k;
  // Each branch: the order's components in its key order, each compared only on a tie of those
  // before it, the fingerprint last.
  if (order === "SPO")
    return (
      subjectVs(ids, at, x, y) ||
      predicateVs(ids, at, x, y) ||
      objectVs(ids, at, x, y) ||
      cmp(x.statementFingerprint, y.fp)
    );
  if (order === "POS")
    return (
      predicateVs(ids, at, x, y) ||
      objectVs(ids, at, x, y) ||
      subjectVs(ids, at, x, y) ||
      cmp(x.statementFingerprint, y.fp)
    );
  return (
    objectVs(ids, at, x, y) ||
    subjectVs(ids, at, x, y) ||
    predicateVs(ids, at, x, y) ||
    cmp(x.statementFingerprint, y.fp)
  );
}

/** compareRow's subject (ids[at] x's dense id): as integers when y's is in the base too, else as entityIds. */
function subjectVs(ids: ArrayLike<number>, at: number, x: Statement, y: DeltaStatement): number {
  return y.sd >= 0 ? ids[at]! - y.sd : cmpEq(x.subjectEntityId, y.s);
}

/** compareRow's predicate (ids[at + 1]), as subjectVs. */
function predicateVs(ids: ArrayLike<number>, at: number, x: Statement, y: DeltaStatement): number {
  return y.pd >= 0 ? ids[at + 1]! - y.pd : cmpEq(x.predicateEntityId, y.p);
}

/** compareRow's object (ids[at + 2]), as subjectVs. */
function objectVs(ids: ArrayLike<number>, at: number, x: Statement, y: DeltaStatement): number {
  return y.od >= 0 ? ids[at + 2]! - y.od : cmpEq(x.objectEntityId, y.o);
}

/** cmp with equality tested first (one comparison of two equal strings instead of two). */
function cmpEq(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** The statements reads of a live graph (see the banner), over its state. */
export class LiveStatements {
  readonly #s: LiveState;

  constructor(s: LiveState) {
    this.#s = s;
  }

  /** Statements matching every given filter, in the order of the index that serves the filters. */
  statements(params: StatementsParams = {}): Page<Statement> {
    const { s, p, o, limit, cursor, count } = checkStatementsParams(params);
    // Checked once here: the base is read through its entry for checked parameters
    // (statementsAfterKey), with this query's tag and the filters' dense ids.
    const tag = statementsQueryTag(s, p, o, this.#s.parts.fold);
    let after: StatementsKey | null = null;
    /** Where the page before left the delta lists, when this graph issued the cursor at this batch and base. */
    let place: WalkPlace | undefined;
    if (cursor !== undefined) {
      const content = this.#s.cursors.decode(cursor, ENDPOINT_STATEMENTS, tag);
      if (content.count !== 5) throw unknownCursorShape();
      after = [content.part(0), content.part(1), content.part(2), content.part(3), content.part(4)];
      const attached = content.attachment;
      // Each check: a place this graph attached, at the batch and base it reads now (else the lists
      // may have changed under its positions).
      if (
        attached instanceof WalkPlace &&
        attached.token === this.#s.placeToken() &&
        attached.sequence === this.#s.sequence
      )
        place = attached;
    }
    const dictionary = this.#s.parts.dictionary;
    const sd = s === undefined ? undefined : dictionary.idOf(s);
    const pd = p === undefined ? undefined : dictionary.idOf(p);
    const od = o === undefined ? undefined : dictionary.idOf(o);
    const order = orderOf(s, p, o);
    const unfiltered = s === undefined && p === undefined && o === undefined;
    // The first filter's base dense id (-1: none), and what starts with it: an entity not in the
    // base may start delta statements (none of the base's, so no tombstone); one in the base, as
    // its marks say.
    const firstId = unfiltered ? -1 : (order === "SPO" ? sd : order === "POS" ? pd : od)!;
    const marks = this.#s.firstMarks;
    const base = this.#s.base;
    // A filtered query's mark is loaded before the base's page is read and tested after: the
    // mark's word (a random line of a quarter of a byte an entity: most often a cache miss) is
    // fetched while the read starts, not before it. The page is read as the merge would read it
    // (a filtered merge reads the base `limit` long), its cursor not sealed (sealed below when
    // the page is the answer).
    const mark = unfiltered || firstId < 0 || marks === undefined ? 0 : firstMark(marks[order], firstId);
    const early = unfiltered ? undefined : statementsAfterKey(base, tag, after, sd, pd, od, limit, count, false);
    let puts: boolean;
    let tombstones: boolean;
    if (unfiltered) puts = tombstones = marks !== undefined;
    else if (firstId < 0) {
      puts = true;
      tombstones = false;
    } else {
      puts = (mark & FIRST_PUT) !== 0;
      tombstones = (mark & FIRST_HIDDEN) !== 0;
    }
    // Two filters or more, both first ones base entities: a list whose pair filter has no item of
    // that pair has nothing for the query either (one bit read, where the list's search reads a
    // few items).
    const second = order === "SPO" ? pd : order === "POS" ? od : sd;
    if ((puts || tombstones) && firstId >= 0 && second !== undefined && second >= 0) {
      if (puts && !pairMayHold(this.pairsOf(this.#s.statementLists[order]), firstId, second)) puts = false;
      if (tombstones && !pairMayHold(this.pairsOf(this.#s.hiddenLists[order]), firstId, second)) tombstones = false;
    }
    const fixed = this.fixedNames(sd, pd, od);
    // No delta statement or tombstone of this order starts with the first filter (or the first two): the base's page
    // (and total) as it is, names brought up to date (nothing else made: this is most queries).
    if (!puts && !tombstones) {
      // Each branch: unfiltered, the base's page read now, its cursor sealed by the base; else the
      // page read above, its cursor sealed here (the one the base would seal: its last item's key
      // and position hint).
      if (early === undefined) {
        const page = statementsAfterKey(base, tag, after, sd, pd, od, limit, count, true);
        this.patchNames(page.items, fixed);
        return page;
      }
      this.patchNames(early.items, fixed);
      const k = early.items.length;
      if (early.nextCursor !== null)
        early.nextCursor = this.statementsCursor(tag, early.items[k - 1]!, lastStatementsHint(base, k - 1));
      return early;
    }
    const prefix = prefixOf(order, s, p, o);
    // The prefix's other components' dense ids (-1: none): the delta lists' searches compare
    // integers where both sides are in the base, not entityId strings.
    const secondId = prefix.length < 2 ? -1 : (order === "SPO" ? pd : order === "POS" ? od : sd)!;
    const thirdId = prefix.length < 3 ? -1 : od!;
    // Filtered, tombstones of the first filter but no delta statement: the base's page (a run of
    // positions of the order) less its tombstoned items, by the tombstone bits (a word or two each,
    // no search of the list), read on when some are (pageLessTombstoned); a total is the base's
    // less the tombstones of the range (two searches of the tombstones' list in its fence window).
    if (!puts && early !== undefined) {
      const baseTotal = early.total;
      this.patchNames(early.items, fixed);
      const page = this.pageLessTombstoned(early, order, limit, tag, sd, pd, od, fixed);
      if (count) page.total = baseTotal! - this.hiddenInRange(order, prefix, firstId, secondId, thirdId);
      return page;
    }
    // A list the marks rule out is left out (as an empty one).
    const list = puts ? this.#s.statementLists[order] : NO_STATEMENTS;
    const hiddenList = tombstones ? this.#s.hiddenLists[order] : NO_STATEMENTS;
    const afterKey =
      after === null ? undefined : statementKey(order, { s: after[0], p: after[1], o: after[2], fp: after[3] });
    // Each list searched in the window its fence gives the first filter (a base entity's: the rank
    // 2 firstId); with no filter, or a first filter not in the base, the whole list.
    let lo = 0;
    let hi = list.length;
    let hlo = 0;
    let hhi = hiddenList.length;
    if (firstId >= 0 && list.length > 0) {
      const fence = this.fenceOf(list, order);
      lo = fenceLo(fence, 2 * firstId);
      hi = fenceHi(fence, 2 * firstId, list.length);
    }
    if (firstId >= 0 && hiddenList.length > 0) {
      const fence = this.fenceOf(hiddenList, order);
      hlo = fenceLo(fence, 2 * firstId);
      hhi = fenceHi(fence, 2 * firstId, hiddenList.length);
    }
    // The first delta item and the first tombstone after the key (the key starts with the prefix, so
    // one binary search each); whether an index holds an item of the range is one comparison.
    // (An id that names no entity now needs no check: the base has no statement naming it that is
    // not tombstoned, and the delta none.)
    // With no filter, a key's searches are windowed by its own first entity (SPO: its subject) and
    // compare it as a dense id, as a first filter's.
    let keyFirst = firstId;
    let slo = lo;
    let shi = hi;
    let shlo = hlo;
    let shhi = hhi;
    // With the place of the page before (an unfiltered walk's next page): its key's subject is known,
    // and so are both lists' positions after the key (below): no look-up, fence or search.
    if (place !== undefined) keyFirst = place.keyFirst;
    else if (prefix.length === 0 && afterKey !== undefined) {
      keyFirst = this.keySubject(after!);
      // Each branch: the key's first entity is a base one (rank 2 id), or ranks between two (2 lowerBound - 1).
      const rank = keyFirst >= 0 ? 2 * keyFirst : 2 * dictionary.lowerBound(afterKey[0]) - 1;
      if (list.length > 0) {
        const fence = this.fenceOf(list, order);
        slo = fenceLo(fence, rank);
        shi = fenceHi(fence, rank, list.length);
      }
      if (hiddenList.length > 0) {
        const fence = this.fenceOf(hiddenList, order);
        shlo = fenceLo(fence, rank);
        shhi = fenceHi(fence, rank, hiddenList.length);
      }
    }
    // Each list's merge keys (sorted-delta.ts mergeKey: the first two components' dense ids in a
    // number), and the ranges of them that the prefix, and the key's first entity (or the prefix),
    // span: a search reads an item only where its key is in the range or none (an entity not in
    // the base), else one number of a typed array.
    const idBound = base.entityCount;
    const keys = this.keysOf(list);
    const hiddenKeys = this.keysOf(hiddenList);
    const pLo = mergeKeyLo(firstId, secondId, idBound);
    const pHi = mergeKeyHi(firstId, secondId, idBound);
    const pPinned = mergeKeyPinned(firstId, secondId, idBound);
    // Each branch: an unfiltered key's own first entity; else the prefix's range.
    const aLo = prefix.length === 0 ? mergeKeyLo(keyFirst, -1, idBound) : pLo;
    const aHi = prefix.length === 0 ? mergeKeyHi(keyFirst, -1, idBound) : pHi;
    // Each branch (both lists): the first page (the prefix's start), a walk's next page with its
    // place (the page before's positions), or a search after the key.
    let m =
      afterKey === undefined
        ? seekPrefix(list, order, prefix, firstId, lo, hi, secondId, thirdId, keys, pLo, pHi, pPinned)
        : place !== undefined
          ? place.m
          : seekAfter(list, order, afterKey, slo, shi, keyFirst, secondId, thirdId, keys, aLo, aHi);
    /** The delta list's first item of the range when the page is a first one (m: seekPrefix's), else -1 (statementsTotal searches it). */
    const m0 = afterKey === undefined ? m : -1;
    const h0 =
      afterKey === undefined
        ? seekPrefix(hiddenList, order, prefix, firstId, hlo, hhi, secondId, thirdId, hiddenKeys, pLo, pHi, pPinned)
        : place !== undefined
          ? place.h
          : seekAfter(hiddenList, order, afterKey, shlo, shhi, keyFirst, secondId, thirdId, hiddenKeys, aLo, aHi);
    const hiddenAhead = inPrefix(
      hiddenList,
      order,
      prefix,
      h0,
      firstId,
      secondId,
      thirdId,
      hiddenKeys,
      pLo,
      pHi,
      pPinned,
    );
    const deltaAhead = inPrefix(list, order, prefix, m, firstId, secondId, thirdId, keys, pLo, pHi, pPinned);
    // Unfiltered, the first tombstone after the key likely on the page (its subject within the
    // subjects a page spans, at the base's mean statements a subject, from the key's subject, a base
    // entity, or the first): the base's first page is read
    // TOMBSTONE_SLACK items longer, so that the merge needs no second base read (a second read is
    // the walk's slowest page).
    const longer =
      prefix.length === 0 &&
      hiddenAhead &&
      (afterKey === undefined || keyFirst >= 0) &&
      (hiddenList.at(h0)!.sd - Math.max(0, keyFirst)) * base.statementCount < limit * base.entityCount;
    const firstLimit = longer ? Math.min(STATEMENTS_MAX_LIMIT, limit + TOMBSTONE_SLACK) : limit;
    // The base's page from the key (a base-issued cursor resumes at its hint), its cursor not sealed
    // (this graph seals one cursor, whichever page it answers).
    // (A filtered query's was read above: firstLimit is `limit` when filtered.)
    const first = early ?? statementsAfterKey(base, tag, after, sd, pd, od, firstLimit, count, false);
    let rest = lastStatementsRest(base);
    this.patchNames(first.items, fixed);
    const got = first.items;
    const k = got.length;
    const ids = lastStatementsPage(base);
    // The page is the answer when it was read `limit` long, no tombstone is among its items and no
    // delta item comes before its last (or, on the base's last page, none is left at all).
    if (
      firstLimit === limit &&
      (!hiddenAhead ||
        k === 0 ||
        rowVs(order, ids, k - 1, got[k - 1]!, hiddenList.at(h0)!, hiddenKeys[h0]!, idBound) < 0) &&
      (!deltaAhead ||
        (first.nextCursor !== null && rowVs(order, ids, k - 1, got[k - 1]!, list.at(m)!, keys[m]!, idBound) < 0))
    ) {
      // Each branch: a next page when base items follow that are not all tombstoned (the
      // tombstones after the page are the range's from h0) or a delta item does, its cursor the
      // one the base would have sealed (its position hint kept); else none.
      if (first.nextCursor !== null) {
        const more =
          deltaAhead ||
          !hiddenAhead ||
          this.baseItemsLeft(rest, order, prefix, firstId, secondId, thirdId, hiddenList, h0, hhi);
        // An unfiltered walk's cursor carries its place: the last item's subject (a base item: its
        // dense id), and both lists' first positions after it (m and h0: the page lies before both).
        const next = prefix.length === 0 ? this.walkPlace(ids[3 * (k - 1)]!, m, h0) : undefined;
        first.nextCursor = more ? this.statementsCursor(tag, got[k - 1]!, lastStatementsHint(base, k - 1), next) : null;
      }
      if (count)
        first.total = this.statementsTotal(
          first.total!,
          order,
          prefix,
          firstId,
          secondId,
          thirdId,
          list,
          keys,
          m0,
          lo,
          hi,
          hiddenList,
          hiddenKeys,
          afterKey === undefined ? h0 : -1,
          hlo,
          hhi,
        );
      return first;
    }
    // The merge: base items (less the tombstoned) and the delta's, `limit` of them; then whether any
    // item follows the page's last (a delta item, a base item read, or one of the base's rest that
    // is not tombstoned), so that the base is read no further than the page.
    const fromBase = this.#s.fromBase;
    fromBase.length = 0;
    /** The place of fromBase[i] in the base's page it came from (the base's page read last). */
    const fromBaseAt = this.#s.fromBaseAt;
    /** The dense ids of the base's page read last (the base's scratch: the same array for every page). */
    const baseIds = lastStatementsPage(base);
    let b = 0;
    /** The place in the base's page read last of the page's last item so far, when it is one of its items; else -1. */
    let lastAt = -1;
    let page: Page<Statement> | undefined = first;
    /** The items of the base's page read last. */
    let pageItems = first.items;
    /** The query's own key's position hint while the base's page read last is the first read ("" after). */
    let keyHint = after === null ? "" : after[4];
    /** Where the base's next page starts (after its last item read), when one is to be read. */
    let nextKey: StatementsKey | undefined;
    let baseDone = false;
    /** The first tombstone of the range not before the base items read so far. */
    let h = h0;
    /** Whether the base item read last was tombstoned (then h is its tombstone). */
    let lastHidden = false;
    const baseTotal = first.total;
    const items: Statement[] = [];
    while (items.length < limit) {
      if (b === fromBase.length && !baseDone) {
        fromBase.length = 0;
        b = 0;
        // The first round's page is the one read above; then the items after its last read (a
        // page and a few more for tombstones in the way; more come in another round).
        if (page === undefined) {
          const n = Math.min(STATEMENTS_MAX_LIMIT, limit - items.length + TOMBSTONE_SLACK);
          page = statementsAfterKey(base, tag, nextKey!, sd, pd, od, n, false, false);
          keyHint = "";
          lastAt = -1;
          rest = lastStatementsRest(base);
          this.patchNames(page.items, fixed);
        }
        pageItems = page.items;
        // Each branch: with no tombstone in the range the page is kept as it is; else its items and
        // the range's tombstones (sorted alike) are walked together and the tombstoned left out (a
        // comparison or two an item, no hash of its fingerprint).
        if (!hiddenAhead)
          for (let j = 0; j < page.items.length; j++) {
            fromBaseAt[j] = j;
            fromBase.push(page.items[j]!);
          }
        else {
          // By the page's dense ids (the base's page read last: no base read since), integers.
          const pageIds = lastStatementsPage(base);
          const pageItems = page.items;
          for (let j = 0; j < pageItems.length; j++) {
            const item = pageItems[j]!;
            // A tombstone past the range compares after every item of it: the walk stops there. The
            // item is tombstoned when the first tombstone not before it has its key (c = 0).
            let c = 1;
            while (
              h < hiddenList.length &&
              (c = rowVs(order, pageIds, j, item, hiddenList.at(h)!, hiddenKeys[h]!, idBound)) > 0
            )
              h++;
            lastHidden = h < hiddenList.length && c === 0;
            if (lastHidden) continue;
            fromBaseAt[fromBase.length] = j;
            fromBase.push(item);
          }
        }
        // Each branch: the base's last page; or the next from its last item's key, with its position
        // hint (the base resumes there without placing the key; no base read since this page's).
        const last = page.items[page.items.length - 1];
        if (page.nextCursor === null || last === undefined) baseDone = true;
        else
          nextKey = [
            last.subjectEntityId,
            last.predicateEntityId,
            last.objectEntityId,
            last.statementFingerprint,
            lastStatementsHint(base, page.items.length - 1),
          ];
        page = undefined;
        continue;
      }
      const x = fromBase[b];
      const y = inPrefix(list, order, prefix, m, firstId, secondId, thirdId, keys, pLo, pHi, pPinned)
        ? list.at(m)
        : undefined;
      if (x === undefined && y === undefined) break;
      // x is of the base's page read last (fromBase is refilled from each page read): compared by
      // the dense ids the base read for it.
      if (y === undefined || (x !== undefined && rowVs(order, baseIds, fromBaseAt[b]!, x, y, keys[m]!, idBound) < 0)) {
        items.push(x!);
        lastAt = fromBaseAt[b]!;
        b++;
      } else {
        items.push(this.statementItem(y));
        lastAt = -1;
        m++;
      }
    }
    // Base items' names were brought up to date as read; the delta's are current. Each branch of
    // `more`: a delta item or a base item read is left; else the base's rest, less its tombstones
    // after the last item read (from h, or the one after h when that item was tombstoned).
    let more =
      inPrefix(list, order, prefix, m, firstId, secondId, thirdId, keys, pLo, pHi, pPinned) || b < fromBase.length;
    if (!more && !baseDone)
      more =
        !hiddenAhead ||
        this.baseItemsLeft(rest, order, prefix, firstId, secondId, thirdId, hiddenList, lastHidden ? h + 1 : h, hhi);
    // The cursor carries a base position hint (the next page resumes the base after it without
    // placing the key): the last item's own when it is a base item of the base's page read last;
    // for a delta item, that of the base's last item before it (below).
    let nextCursor: string | null = null;
    if (items.length > 0 && more) {
      const last = items[items.length - 1]!;
      const hint =
        lastAt >= 0
          ? lastStatementsHint(base, lastAt)
          : this.hintBefore(
              order,
              list.at(m - 1)!,
              keys[m - 1]!,
              pageItems,
              b < fromBase.length ? fromBaseAt[b]! : pageItems.length,
              keyHint,
            );
      // An unfiltered walk's cursor carries its place (walkPlace): the last item's subject's dense id
      // (a base item's from the base's page, a delta item's its own), the first delta item not taken
      // (m: every one before it is on the page or before it) and the first tombstone after the last
      // item (h, walked back over those after it that the base's read ahead passed).
      const next =
        prefix.length === 0
          ? this.placeAfterMerge(order, baseIds, lastAt, last, list, m, hiddenList, hiddenKeys, h0, h)
          : undefined;
      nextCursor = this.statementsCursor(tag, last, hint, next);
    }
    if (!count) return { items, nextCursor };
    return {
      items,
      nextCursor,
      total: this.statementsTotal(
        baseTotal!,
        order,
        prefix,
        firstId,
        secondId,
        thirdId,
        list,
        keys,
        m0,
        lo,
        hi,
        hiddenList,
        hiddenKeys,
        afterKey === undefined ? h0 : -1,
        hlo,
        hhi,
      ),
    };
  }

  /**
   * A filtered page from the base's page read first (`early`, `limit` long, its names brought up to
   * date) less its tombstoned items, with no delta statement for the query: the base's page is a
   * run of positions of `order`, tested against the tombstone bits (a word or two); when some are
   * tombstoned, those left, the base read on after its last item (the number missing and
   * TOMBSTONE_SLACK more, each read's items tested alike) until `limit` are left or the range ends.
   */
  private pageLessTombstoned(
    early: Page<Statement>,
    order: Order,
    limit: number,
    tag: ReturnType<typeof queryTag>,
    sd: number | undefined,
    pd: number | undefined,
    od: number | undefined,
    fixed: number,
  ): Page<Statement> {
    const base = this.#s.base;
    const bits = this.#s.tombstoneBits().of(order);
    let start = lastStatementsStart(base);
    const k = early.items.length;
    // No tombstoned item on the page: the page, with a next one when an item after it is not tombstoned.
    if (!anyMarked(bits, start, start + k)) {
      if (early.nextCursor !== null)
        early.nextCursor = anyUnmarked(bits, start + k, start + k + lastStatementsRest(base))
          ? this.statementsCursor(tag, early.items[k - 1]!, lastStatementsHint(base, k - 1))
          : null;
      return early;
    }
    const items: Statement[] = [];
    let page = early;
    /** The position (in `order`) of the page's last item so far (-1: none yet), and its position hint once the base has read on past it. */
    let lastPos = -1;
    let lastHint: string | undefined;
    for (;;) {
      const got = page.items;
      for (let j = 0; j < got.length && items.length < limit; j++)
        if (!isMarked(bits, start + j)) {
          items.push(got[j]!);
          lastPos = start + j;
        }
      // Each branch: `limit` kept or the range's end; else the base read on after the read's last item.
      if (items.length === limit || page.nextCursor === null || got.length === 0) break;
      if (lastPos >= start) lastHint = lastStatementsHint(base, lastPos - start);
      const last = got[got.length - 1]!;
      const key: StatementsKey = [
        last.subjectEntityId,
        last.predicateEntityId,
        last.objectEntityId,
        last.statementFingerprint,
        lastStatementsHint(base, got.length - 1),
      ];
      const n = Math.min(STATEMENTS_MAX_LIMIT, limit - items.length + TOMBSTONE_SLACK);
      page = statementsAfterKey(base, tag, key, sd, pd, od, n, false, false);
      this.patchNames(page.items, fixed);
      start = lastStatementsStart(base);
    }
    // A next page when a base item after the last kept is not tombstoned (the reads' or the range's rest).
    const end = start + page.items.length + lastStatementsRest(base);
    if (lastPos < 0 || !anyUnmarked(bits, lastPos + 1, end)) return { items, nextCursor: null };
    // The last item's position hint: of the base's page read last, or kept before reading on.
    const hint = lastPos >= start ? lastStatementsHint(base, lastPos - start) : lastHint!;
    return { items, nextCursor: this.statementsCursor(tag, items[items.length - 1]!, hint) };
  }

  /**
   * The base dense id of an unfiltered walk's key's subject (`after`'s; -1: not in the base): the
   * subject of the base's row at the position its hint names, when it names one and that row's
   * subject is the key's (a cursor after a base item, or after a delta item of the same subject
   * as the base item before it: one row read beside the page the base reads next, and one entityId
   * compared); else looked up by entityId (a hash and a few cache misses).
   */
  private keySubject(after: StatementsKey): number {
    const at = searchHintPosition(this.#s.base, after[4]);
    const index = this.#s.parts.statementIndex;
    const dictionary = this.#s.parts.dictionary;
    // Each branch: a position of this base (unfiltered: the SPO order, whose position is the row)
    // whose subject is the key's, or the look-up.
    if (at >= 0 && at < index.length) {
      const d = index.subjectOf(at);
      if (dictionary.is(d, after[0])) return d;
    }
    return dictionary.idOf(after[0]);
  }

  /**
   * The position hint of the base's last item before delta item `y` (a merged page's last item;
   * `yKey` its merge key):
   * every item of the base's page read last (`pageItems`) before place `next` (its first item kept
   * and not taken, or its length) was taken before `y` or tombstoned, so the last of them not after
   * `y` is found walking back (tombstoned items after `y` are not skipped: the base alone, or a
   * live graph of an earlier batch, shows them). None on the page: the query's key when the page
   * is the first read after it (`keyHint`: its hint, or "" for none), else "" (the key is placed:
   * the items before this page's are not at hand).
   */
  private hintBefore(
    order: Order,
    y: DeltaStatement,
    yKey: number,
    pageItems: readonly Statement[],
    next: number,
    keyHint: string,
  ): string {
    const ids = lastStatementsPage(this.#s.base);
    const idBound = this.#s.base.entityCount;
    let k = next - 1;
    while (k >= 0 && rowVs(order, ids, k, pageItems[k]!, y, yKey, idBound) > 0) k--;
    // Each branch: a base item of the page, or the key the page was read after.
    return k >= 0 ? lastStatementsHint(this.#s.base, k) : keyHint;
  }

  /**
   * Whether any of the `rest` base items of a range after some item is not tombstoned, the range's
   * tombstones after that item being those from `from` (in a window ending at `to`): every
   * tombstone of the range is one of its base items.
   */
  private baseItemsLeft(
    rest: number,
    order: Order,
    prefix: readonly string[],
    firstId: number,
    secondId: number,
    thirdId: number,
    hiddenList: StatementList,
    from: number,
    to: number,
  ): boolean {
    // More items than the window holds tombstones: some is not tombstoned (no search needed).
    if (rest > to - from) return true;
    const idBound = this.#s.base.entityCount;
    const [, end] = prefixRange(
      hiddenList,
      order,
      prefix,
      firstId,
      from,
      to,
      secondId,
      thirdId,
      this.keysOf(hiddenList),
      mergeKeyLo(firstId, secondId, idBound),
      mergeKeyHi(firstId, secondId, idBound),
      mergeKeyPinned(firstId, secondId, idBound),
    );
    return rest > end - from;
  }

  /**
   * A statements walk's total: the base's, less its tombstones in the range, plus the delta's range
   * (each list's range: from `start`, its first item when the caller found it, else -1; searched in
   * its fence window [lo, hi); `keys` its merge keys).
   */
  private statementsTotal(
    baseTotal: number,
    order: Order,
    prefix: readonly string[],
    firstId: number,
    secondId: number,
    thirdId: number,
    list: StatementList,
    keys: Float64Array,
    start: number,
    lo: number,
    hi: number,
    hiddenList: StatementList,
    hiddenKeys: Float64Array,
    hiddenStart: number,
    hlo: number,
    hhi: number,
  ): number {
    return (
      baseTotal -
      this.rangeSize(hiddenList, order, prefix, firstId, secondId, thirdId, hiddenKeys, hiddenStart, hlo, hhi) +
      this.rangeSize(list, order, prefix, firstId, secondId, thirdId, keys, start, lo, hi)
    );
  }

  /**
   * How many tombstones the range of a filtered query holds (its first filter a base entity that
   * starts some: firstId >= 0), in the tombstones' list of `order`, searched in its fence window.
   */
  private hiddenInRange(
    order: Order,
    prefix: readonly string[],
    firstId: number,
    secondId: number,
    thirdId: number,
  ): number {
    const list = this.#s.hiddenLists[order];
    // An empty list: no tombstone (its fence and keys are never made).
    if (list.length === 0) return 0;
    const fence = this.fenceOf(list, order);
    const lo = fenceLo(fence, 2 * firstId);
    const hi = fenceHi(fence, 2 * firstId, list.length);
    return this.rangeSize(list, order, prefix, firstId, secondId, thirdId, this.keysOf(list), -1, lo, hi);
  }

  /**
   * How many items of statements list `list` (merge keys `keys`) start with `prefix`: the range
   * from `start` (its first item, found by the caller; -1: searched here) to its end, searched in
   * the window [lo, hi) that holds it. The whole list for no prefix (an unfiltered walk).
   */
  private rangeSize(
    list: StatementList,
    order: Order,
    prefix: readonly string[],
    firstId: number,
    secondId: number,
    thirdId: number,
    keys: Float64Array,
    start: number,
    lo: number,
    hi: number,
  ): number {
    // Each branch: no prefix (every item), an empty window (none), or the range's end searched from its start.
    if (prefix.length === 0) return list.length;
    if (lo >= hi) return 0;
    const idBound = this.#s.base.entityCount;
    const kLo = mergeKeyLo(firstId, secondId, idBound);
    const kHi = mergeKeyHi(firstId, secondId, idBound);
    const kPinned = mergeKeyPinned(firstId, secondId, idBound);
    const from =
      start >= 0 ? start : seekPrefix(list, order, prefix, firstId, lo, hi, secondId, thirdId, keys, kLo, kHi, kPinned);
    return prefixEnd(list, order, prefix, firstId, from, hi, secondId, thirdId, keys, kLo, kHi, kPinned) - from;
  }

  /**
   * The fence of a statements list (sorted-delta.ts buildFence), made at its first read since the
   * list last changed (a batch, or a new base: ranks are the base's dense ids).
   */
  private fenceOf(list: StatementList, order: Order): Int32Array {
    const aids = this.aidsOf(list);
    // Each branch: the fence made since the list last changed, or one made now.
    if (aids.fence !== undefined) return aids.fence;
    const dictionary = this.#s.parts.dictionary;
    const idBound = this.#s.base.entityCount;
    aids.fence = buildFence(list, order, (id) => 2 * dictionary.lowerBound(id) - 1, this.keysOf(list), idBound);
    return aids.fence;
  }

  /**
   * The merge keys of statements list `list`, as its merges keep them (StatementList.mergeKeys:
   * made again only for another base); none for an empty list.
   */
  private keysOf(list: StatementList): Float64Array {
    // An empty list: nothing to search (its keys are never read).
    if (list.length === 0) return NO_MERGE_KEYS;
    return list.mergeKeys(this.#s.base.entityCount);
  }

  /**
   * The read aids of statements list `list` (fenceOf), made since its last change (the
   * batch and base now): all are dropped at the first read of a new batch or base, and a list's
   * record is found by identity (a few comparisons, no hash of the list).
   */
  private aidsOf(list: StatementList): ListAids {
    const aids = this.#s.aids;
    // A batch or a base since the aids were made: none holds.
    if (this.#s.aidsSequence !== this.#s.sequence || this.#s.aidsBase !== this.#s.base) {
      aids.length = 0;
      this.#s.aidsSequence = this.#s.sequence;
      this.#s.aidsBase = this.#s.base;
    }
    for (let i = 0; i < aids.length; i++) if (aids[i]!.list === list) return aids[i]!;
    const made = new ListAids(list);
    aids.push(made);
    return made;
  }

  /**
   * The pair filter of statements list `list` (pair-filter.ts: a query by two filters or more reads
   * one bit of it to know that the list has nothing), kept by the list across batches.
   */
  private pairsOf(list: StatementList): Uint32Array {
    return list.pairFilter(this.#s.base.entityCount);
  }

  /**
   * A statements cursor after `last`: its key, followable across batches and bases, and `hint` (the
   * base's position hint when the page is the base's as it is, else "": none).
   */
  private statementsCursor(tag: ReturnType<typeof queryTag>, last: Statement, hint: string, place?: WalkPlace): string {
    return this.#s.cursors.encode(
      ENDPOINT_STATEMENTS,
      tag,
      0,
      [last.subjectEntityId, last.predicateEntityId, last.objectEntityId, last.statementFingerprint, hint],
      place,
      place === undefined ? 0 : WALK_PLACE_BYTES,
    );
  }

  /**
   * The place (WalkPlace) after a merged page whose last item is `last`: a base item at `lastAt` of
   * the base's page read last (dense ids `baseIds`), or (lastAt -1) the delta item list.at(m - 1).
   * Every delta item before m is on the page or before it; the first tombstone after `last` is
   * found from `h` (the first not before the base items read, which may run past the page) walked
   * back, not below `h0` (the first after the page's key).
   */
  private placeAfterMerge(
    order: Order,
    baseIds: ArrayLike<number>,
    lastAt: number,
    last: Statement,
    list: StatementList,
    m: number,
    hiddenList: StatementList,
    hiddenKeys: Float64Array,
    h0: number,
    h: number,
  ): WalkPlace | undefined {
    const idBound = this.#s.base.entityCount;
    const compare = compareStatements(order);
    let ht = h;
    while (
      ht > h0 &&
      tombstoneVs(order, baseIds, lastAt, last, list, m, hiddenList, hiddenKeys, ht - 1, idBound, compare) > 0
    )
      ht--;
    // A tombstone equal to the last item (a delta item that puts a deleted base statement back) is not after it.
    while (
      ht < hiddenList.length &&
      tombstoneVs(order, baseIds, lastAt, last, list, m, hiddenList, hiddenKeys, ht, idBound, compare) <= 0
    )
      ht++;
    return this.walkPlace(lastAt >= 0 ? baseIds[3 * lastAt]! : list.at(m - 1)!.sd, m, ht);
  }

  /**
   * The place of an unfiltered walk after a page (WalkPlace) at this batch and base: the last item's
   * subject's base dense id `keyFirst` (-1: not in the base: none kept, its rank needs its entityId),
   * and the positions after the last item in the statement list (`m`) and the tombstones (`h`).
   */
  private walkPlace(keyFirst: number, m: number, h: number): WalkPlace | undefined {
    // A subject not in the base: the next page looks it up (its rank lies between base ids).
    if (keyFirst < 0) return undefined;
    return new WalkPlace(this.#s.placeToken(), this.#s.sequence, keyFirst, m, h);
  }

  /**
   * The items of the base's last statements page (read just now) show the new rawIdentifier of
   * each replaced entity they name, found by the dense ids the base read (a bitmap, no look-up by
   * entityId unless replaced).
   */
  private patchNames(items: Statement[], fixed: number): void {
    const marked = this.#s.replacedBase;
    // No base entity replaced: every name is current.
    if (marked === undefined || items.length === 0) return;
    const ids = lastStatementsPage(this.#s.base);
    const filter = filterOf(marked);
    const replaced = this.#s.replaced;
    // Each check: a role a filter fixes to an entity not replaced is current on every item; an id
    // is checked against the filter first (a few KB, in the caches), the exact bitmap only when the
    // filter lets it through.
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!;
      if ((fixed & 1) === 0 && filteredHas(filter, marked, ids[3 * k]!))
        item.subjectRawIdentifier = replaced.get(item.subjectEntityId)!;
      if ((fixed & 2) === 0 && filteredHas(filter, marked, ids[3 * k + 1]!))
        item.predicateRawIdentifier = replaced.get(item.predicateEntityId)!;
      if ((fixed & 4) === 0 && filteredHas(filter, marked, ids[3 * k + 2]!))
        item.objectRawIdentifier = replaced.get(item.objectEntityId)!;
    }
  }

  /**
   * The roles (1 subject, 2 predicate, 4 object) that a statements query's filters fix to a base
   * entity not replaced (dense ids `sd`, `pd`, `od`; undefined: not given): patchNames skips them.
   */
  private fixedNames(sd: number | undefined, pd: number | undefined, od: number | undefined): number {
    const marked = this.#s.replacedBase;
    // No base entity replaced: patchNames checks nothing anyway.
    if (marked === undefined) return 0;
    const filter = filterOf(marked);
    // Each term: the role given, its entity in the base and not replaced.
    return (
      (sd !== undefined && sd >= 0 && !filteredHas(filter, marked, sd) ? 1 : 0) |
      (pd !== undefined && pd >= 0 && !filteredHas(filter, marked, pd) ? 2 : 0) |
      (od !== undefined && od >= 0 && !filteredHas(filter, marked, od) ? 4 : 0)
    );
  }

  private statementItem(st: DeltaStatement): Statement {
    return {
      statementFingerprint: st.fp,
      subjectEntityId: st.s,
      subjectRawIdentifier: this.#s.rawOf(st.s, st.sd),
      predicateEntityId: st.p,
      predicateRawIdentifier: this.#s.rawOf(st.p, st.pd),
      objectEntityId: st.o,
      objectRawIdentifier: this.#s.rawOf(st.o, st.od),
    };
  }
}

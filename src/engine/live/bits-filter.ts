/**
 * Bits filter
 * ===========
 * A small filter in front of a dense bitmap of base entity ids (dense-bits.ts: the live graph's
 * tombstoned base entities, its replaced ones): bit (d & mask) set for every id d marked, about
 * FILTER_BITS_PER_MARK bits a mark, so a page's checks of its ids (a search page's 20, a
 * statements page's up to 150) read a few KB that stay in the CPU's caches, not a cache line each
 * of a bitmap of every base entity (128 KiB at a million, 1.2 MiB at ten million); only an id the
 * filter passes (a marked one, or about 1 in FILTER_BITS_PER_MARK of the others) is looked up in
 * the bitmap. When the filter would be no smaller than the bitmap, the bitmap is its own filter
 * (mask -1: every bit).
 *
 * Kept by bitmap and kept current: filterOf makes a bitmap's filter at its first read (a pass over
 * the bitmap's words) and keeps it; markFiltered, the one way the live graph marks such a bitmap,
 * sets the id's filter bit too. So a batch does not cost the next read a pass over the whole bitmap
 * again (about 0.1 ms at a million entities, scratch loop over bitsFilterOf, and linear in them,
 * for each of the two bitmaps; the filters were made again at the first read after every batch). An id taken out of the bitmap
 * (clearBit) keeps its filter bit: a filter may pass more ids than the bitmap holds, never fewer.
 * A filter that has taken more marks than it was sized for goes, and is made again at the next read,
 * twice as large or more (amortized O(1) a mark).
 *
 * Cost: filterOf O(1), or O(bitmap words) when it makes the filter; markFiltered O(1); memory
 * FILTER_BITS_PER_MARK bits a mark (at least FILTER_MIN_BITS).
 *
 * Reference: B. H. Bloom, "Space/time trade-offs in hash coding with allowable errors", CACM 1970
 * (one hash: the id's low bits).
 */

import { bitCount, hasBit, markBit } from "./dense-bits.js";

/**
 * Bits of a filter per id marked: about 1 in 16 of the other ids a page checks passes it to the
 * exact bitmap. 3,000 replaced entities: 8 KB.
 */
export const FILTER_BITS_PER_MARK = 16;

/** The smallest filter, in bits (a few marks: 128 bytes). */
export const FILTER_MIN_BITS = 1024;

/** A filter in front of a bitmap of dense ids: bit (d & mask) of `bits` set for every id d marked. */
export interface BitsFilter {
  readonly bits: Uint32Array;
  readonly mask: number;
}

/** A bitmap's filter as filterOf keeps it: with how many more marks it takes before it is made again. */
interface KeptFilter extends BitsFilter {
  room: number;
}

/** Each bitmap's filter (let go with the bitmap). */
const FILTERS = new WeakMap<Uint32Array, KeptFilter>();

/**
 * The two bitmaps asked last and their filters (a live graph's two: its tombstoned and its
 * replaced entities), found by identity before the WeakMap: a statements page asks for its filter
 * twice and once more per name of a delta item it shows, where a WeakMap look-up costs tens of ns
 * (statements S+P pages, 3.7 µs, measured up to 5% slower without: bench:changes --reads-only
 * --cases statements, three runs a side, alternated with the commit before the filters were kept).
 */
const recent: (Uint32Array | undefined)[] = [undefined, undefined];
const recentFilters: (KeptFilter | undefined)[] = [undefined, undefined];

/** The filter of bitmap `marked`, made now if it has none (or outgrew the one it had). */
export function filterOf(marked: Uint32Array): BitsFilter {
  // Each branch: one of the two asked last, still kept (room left); else the map's, or one made now.
  if (recent[0] === marked && recentFilters[0]!.room >= 0) return recentFilters[0]!;
  if (recent[1] === marked && recentFilters[1]!.room >= 0) return recentFilters[1]!;
  let filter = FILTERS.get(marked);
  if (filter === undefined) {
    filter = makeFilter(marked);
    FILTERS.set(marked, filter);
  }
  recent[1] = recent[0];
  recentFilters[1] = recentFilters[0];
  recent[0] = marked;
  recentFilters[0] = filter;
  return filter;
}

/** Puts `d` in bitmap `marked`, and in its filter when it has one. */
export function markFiltered(marked: Uint32Array, d: number): void {
  if (hasBit(marked, d)) return;
  markBit(marked, d);
  const filter = FILTERS.get(marked);
  // Each branch: no filter yet (made with this mark in it), the bitmap its own filter (marked
  // above), one full (made again at the next read), or its bit set.
  if (filter === undefined || filter.mask === -1) return;
  // Each branch: full (room below 0: no longer kept, here nor in `recent`), or its bit set.
  if (--filter.room < 0) FILTERS.delete(marked);
  else filter.bits[(d & filter.mask) >>> 5]! |= 1 << (d & 31);
}

/** Whether `d` is in bitmap `marked`: its bit in `filter` first, the bitmap's only when that is set. */
export function filteredHas(filter: BitsFilter, marked: Uint32Array, d: number): boolean {
  const f = d & filter.mask;
  return (filter.bits[f >>> 5]! & (1 << (f & 31))) !== 0 && hasBit(marked, d);
}

/**
 * The filter of `marked`: FILTER_BITS_PER_MARK bits per id marked, rounded up to a power of two (at
 * least FILTER_MIN_BITS), the marks to come taking the room that rounding left (from none to as
 * many again: a filter is made again each time the marks pass a power of two, O(log marks) times);
 * when that is no smaller than the bitmap, the bitmap itself. O(bitmap words). (A filter with room
 * for as many marks again from the start, twice as large, made statements O pages about 2% slower:
 * bench:changes --reads-only, "statements O", five runs a side.)
 */
function makeFilter(marked: Uint32Array): KeptFilter {
  let count = 0;
  for (let w = 0; w < marked.length; w++) if (marked[w] !== 0) count += bitCount(marked[w]!);
  let size = FILTER_MIN_BITS;
  while (size < count * FILTER_BITS_PER_MARK) size *= 2;
  // Not smaller than the bitmap: the bitmap serves as its own filter.
  if (size >= marked.length * 32) return { bits: marked, mask: -1, room: 0 };
  const bits = new Uint32Array(size / 32);
  const mask = size - 1;
  for (let w = 0; w < marked.length; w++) {
    let word = marked[w]!;
    while (word !== 0) {
      const low = word & -word;
      const d = w * 32 + (31 - Math.clz32(low));
      bits[(d & mask) >>> 5]! |= 1 << (d & 31);
      word ^= low;
    }
  }
  return { bits, mask, room: size / FILTER_BITS_PER_MARK - count };
}

/**
 * Suffix array
 * ============
 * Owns the construction of the suffix array of an integer text. (Finding the interval of a pattern
 * is the search index's: it compares across entity separators, which only it knows.)
 *
 * Algorithm: SA-IS, induced sorting (Nong, Zhang, Chan, "Two Efficient Algorithms for Linear Time
 * Suffix Array Construction", IEEE Trans. Computers 60(10), 2011; DCC 2009). This is a port of the
 * AtCoder Library's `sa_is` (atcoder/internal_string.hpp, CC0), which needs no sentinel: a suffix
 * that is a proper prefix of another sorts first, exactly as in plain lexicographic order. The port
 * works on typed arrays only (Int32Array work arrays, the L/S types packed one bit per suffix),
 * recurses on the reduced string of LMS-substring names, and sorts tiny inputs naively as ACL
 * does. Two changes from ACL, both from Yuta Mori's sais: LMS substrings are named inside the
 * suffix array's own space instead of an n-entry LMS map (saves 4n bytes and a cache-missing
 * random access per suffix), and the recursion is skipped when every name is distinct.
 *
 * Cost: O(n + alphabetSize) time per recursion level; the reduced string is at most n/2 long, so
 * O(n + alphabetSize) overall. Memory at the top level, besides the text and the result
 * (4n bytes): types (n/8 bytes), LMS positions, their sorted order and the reduced string
 * (3 x 4m bytes, m <= n/2, typically m ~ n/3), three buckets of alphabetSize + 1 Int32s; each
 * recursion level needs at most half of its parent's. Measured: n = 50M UTF-16 units (a
 * Uint16Array) peaks at 0.7 GB resident, text and result included. Positions are int32: n < 2^31.
 *
 * References: ACL internal_string.hpp; G. Nong's reference sais.c; Ko & Aluru for the L/S types.
 */

/** Below this length, an insertion sort comparing suffixes directly beats SA-IS's setup (ACL's choice). */
const NAIVE_SORT_BELOW = 10;

/**
 * The suffix array of `text`: the start positions of all its suffixes, in lexicographic order. A
 * suffix that is a proper prefix of another sorts first, so the caller adds no sentinel.
 *
 * Every value of `text` must be an integer in [0, alphabetSize) (a RangeError otherwise). For
 * UTF-16 code units plus one separator, alphabetSize = 65537. Buckets cost 3 x 4 x alphabetSize
 * bytes per recursion level, so keep alphabetSize near the largest value actually used.
 *
 * The result is a Uint32Array (a view over the Int32Array the algorithm works in; no copy).
 */
export function buildSuffixArray(text: ArrayLike<number>, alphabetSize: number): Uint32Array {
  if (!Number.isInteger(alphabetSize) || alphabetSize < 0) {
    throw new RangeError(`alphabetSize must be a non-negative integer, got ${alphabetSize}`);
  }
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const v = text[i]!;
    // One O(n) pass, so a bad symbol is a clear error instead of an out-of-range bucket write
    // that typed arrays would silently drop.
    if (!(v >= 0 && v < alphabetSize) || v % 1 !== 0) {
      throw new RangeError(`text[${i}] = ${v} is not an integer in [0, ${alphabetSize})`);
    }
  }
  const sa = saIs(text, n, alphabetSize);
  return new Uint32Array(sa.buffer, sa.byteOffset, sa.length);
}

/**
 * SA-IS on s[0..n) with symbols in [0, alphabetSize). Returns a fresh Int32Array. `s` is the
 * caller's text at the top level and an Int32Array of LMS-substring names below it.
 */
function saIs(s: ArrayLike<number>, n: number, alphabetSize: number): Int32Array {
  // Short inputs: nothing to induce (ACL's fallbacks).
  if (n === 0) return new Int32Array(0);
  if (n === 1) return Int32Array.of(0);
  if (n === 2) return s[0]! < s[1]! ? Int32Array.of(0, 1) : Int32Array.of(1, 0);
  if (n < NAIVE_SORT_BELOW) return saNaive(s, n);

  const sa = new Int32Array(n);

  // Suffix types, one bit each (see isS): 1 when suffix i is S-type (smaller than suffix i+1),
  // 0 when L-type. The last suffix is L-type: it is larger than the empty suffix after it (no
  // sentinel needed). Bits, not bytes: the inductions test types at random positions, and n/8
  // bytes stay in cache where n bytes would not.
  const types = new Uint8Array((n >>> 3) + 1);
  for (let i = n - 2, t = 0; i >= 0; i--) {
    const a = s[i]!;
    const b = s[i + 1]!;
    if (a !== b) t = a < b ? 1 : 0;
    types[i >>> 3]! |= t << (i & 7);
  }

  // Bucket bounds. For symbol c: L-type suffixes fill its bucket from sumL[c] upwards, S-type
  // suffixes fill it from sumS[c] upwards (and from sumL[c + 1] downwards when induced from the
  // right). Sized alphabetSize + 1 so that sumL[c + 1] always exists.
  const sumL = new Int32Array(alphabetSize + 1);
  const sumS = new Int32Array(alphabetSize + 1);
  for (let i = 0; i < n; i++) {
    const c = s[i]!;
    if (isS(types, i) === 0) sumS[c]!++;
    else sumL[c + 1]!++;
  }
  for (let c = 0; c <= alphabetSize; c++) {
    sumS[c]! += sumL[c]!;
    if (c < alphabetSize) sumL[c + 1]! += sumS[c]!;
  }
  const buf = new Int32Array(alphabetSize + 1);

  // LMS positions (an S-type suffix right after an L-type one), in text order.
  let m = 0;
  for (let i = 1; i < n; i++) if (isLms(types, i)) m++;
  const lms = new Int32Array(m);
  for (let i = 1, k = 0; i < n; i++) if (isLms(types, i)) lms[k++] = i;

  // First pass: LMS positions in text order induce an order in which LMS *substrings* are sorted.
  induce(s, n, sa, types, sumL, sumS, buf, lms, m);

  // No LMS position: the text is non-increasing, and one induction already sorted it.
  if (m === 0) return sa;

  // The LMS positions, in the order the first pass put them.
  const sortedLms = new Int32Array(m);
  for (let i = 0, k = 0; i < n; i++) {
    const v = sa[i]!;
    if (v > 0 && isLms(types, v)) sortedLms[k++] = v;
  }

  // Name each LMS substring by its rank among distinct LMS substrings; equal substrings share a
  // name. Work in sa itself (Mori's sais, instead of ACL's n-entry LMS map): LMS positions are at
  // least 2 apart, so slot p >>> 1 is private to LMS position p. It first holds the length of p's
  // LMS substring (up to the next LMS position, or n), then p's name.
  for (let k = 0; k < m; k++) {
    const p = lms[k]!;
    sa[p >>> 1] = (k + 1 < m ? lms[k + 1]! : n) - p;
  }
  let name = 0;
  let prev = -1;
  let prevLength = 0;
  for (let k = 0; k < m; k++) {
    const p = sortedLms[k]!;
    const length = sa[p >>> 1]!;
    let same = false;
    // Equal only with equal lengths, equal symbols, and equal closing symbols (the next LMS
    // character); running into the end of the text makes them different (no sentinel).
    if (prev >= 0 && length === prevLength && p + length < n && prev + length < n) {
      let j = 0;
      while (j <= length && s[p + j] === s[prev + j]) j++;
      same = j > length;
    }
    if (!same) name++;
    sa[p >>> 1] = name - 1;
    prev = p;
    prevLength = length;
  }

  // The reduced string: the names in text order.
  const recS = new Int32Array(m);
  for (let k = 0; k < m; k++) recS[k] = sa[lms[k]! >>> 1]!;

  // Sort the reduced string: directly when every name is distinct (it is its own inverse
  // suffix array), recursively when names repeat. Map back to LMS positions in their true
  // suffix order and induce the final order from them.
  let recSa: Int32Array;
  if (name === m) {
    recSa = sortedLms;
    for (let k = 0; k < m; k++) recSa[recS[k]!] = k;
  } else {
    recSa = saIs(recS, m, name);
  }
  for (let k = 0; k < m; k++) recSa[k] = lms[recSa[k]!]!;
  induce(s, n, sa, types, sumL, sumS, buf, recSa, m);
  return sa;
}

/** 1 when suffix i is S-type, 0 when L-type (bit i of `types`). */
function isS(types: Uint8Array, i: number): number {
  return (types[i >>> 3]! >>> (i & 7)) & 1;
}

/** Whether suffix i (i >= 1) is leftmost S-type: S-type after an L-type. */
function isLms(types: Uint8Array, i: number): boolean {
  return isS(types, i) === 1 && isS(types, i - 1) === 0;
}

/**
 * One induced sort: place the LMS positions `lms` (in the given order) at the ends of their S
 * buckets, induce L-type suffixes left to right, then S-type suffixes right to left.
 */
function induce(
  s: ArrayLike<number>,
  n: number,
  sa: Int32Array,
  types: Uint8Array,
  sumL: Int32Array,
  sumS: Int32Array,
  buf: Int32Array,
  lms: Int32Array,
  m: number,
): void {
  sa.fill(-1);
  buf.set(sumS);
  for (let k = 0; k < m; k++) {
    const d = lms[k]!;
    sa[buf[s[d]!]!++] = d;
  }
  buf.set(sumL);
  // The last suffix is L-type and precedes everything in its bucket (it is the shortest there).
  sa[buf[s[n - 1]!]!++] = n - 1;
  for (let i = 0; i < n; i++) {
    const v = sa[i]! - 1;
    if (v >= 0 && isS(types, v) === 0) sa[buf[s[v]!]!++] = v;
  }
  buf.set(sumL);
  for (let i = n - 1; i >= 0; i--) {
    const v = sa[i]! - 1;
    if (v >= 0 && isS(types, v) === 1) sa[--buf[s[v]! + 1]!] = v;
  }
}

/** Insertion sort of suffix start positions, comparing suffixes symbol by symbol; for n < NAIVE_SORT_BELOW. */
function saNaive(s: ArrayLike<number>, n: number): Int32Array {
  const sa = new Int32Array(n);
  for (let i = 0; i < n; i++) sa[i] = i;
  for (let i = 1; i < n; i++) {
    const x = sa[i]!;
    let j = i - 1;
    while (j >= 0 && suffixLess(s, n, x, sa[j]!)) {
      sa[j + 1] = sa[j]!;
      j--;
    }
    sa[j + 1] = x;
  }
  return sa;
}

/** Whether suffix a sorts before suffix b (a !== b): first difference, or a runs out first. */
function suffixLess(s: ArrayLike<number>, n: number, a: number, b: number): boolean {
  while (a < n && b < n) {
    const ca = s[a]!;
    const cb = s[b]!;
    if (ca !== cb) return ca < cb;
    a++;
    b++;
  }
  return a === n;
}

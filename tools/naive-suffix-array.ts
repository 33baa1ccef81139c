/**
 * Naive suffix array
 * ==================
 * Sorts every suffix start by comparing suffixes directly: O(n^2 log n) in the worst case. It is
 * both the oracle the suffix-array tests check SA-IS against and the baseline the suffix-array
 * benchmark times beside it, so the two always compare with the same thing.
 */

export function naiveSuffixArray(text: ArrayLike<number>): number[] {
  const n = text.length;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => {
    while (a < n && b < n) {
      const d = text[a]! - text[b]!;
      if (d !== 0) return d;
      a++;
      b++;
    }
    return a === n ? -1 : 1;
  });
  return order;
}

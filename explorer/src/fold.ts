/**
 * Folding, tiers and the matched range, in the page
 * =================================================
 * The page shows each result's tier (exact, prefix, infix) and highlights the part of its name that
 * matched. The server orders by tier but does not send it, so the page computes it with the very
 * fold CONTRACT.md ("Case and Unicode") writes, character for character:
 *
 *   NFKC, upper case, lower case, final sigma -> sigma, "i" + U+0307 -> "i", "ß" -> "ss";
 *   on a graph built with accent folding, then NFD, combining marks removed, NFC.
 *
 * The tier: 0 when fold(name) == fold(q), 1 when it starts with it, 2 otherwise (the contract's
 * order, step 1). The highlight: fold changes lengths ("ß" -> "ss", "ﬁ" -> "fi", "é" -> "e"), so
 * the name is cut into segments (a code point and the combining marks after it), each folded
 * alone; where their folds, joined, equal the fold of the whole name (almost always: NFKC composes
 * only inside such a segment, save for rare scripts such as Hangul jamo), the folded match maps
 * back to whole segments of the name. Where they differ the name is shown unhighlighted rather than
 * wrongly. Cost: linear in the name's length; run once per result shown.
 * test/explorer/fold.test.ts checks `caseFold` against the engine's fold on seeded random text.
 */

/** How a graph folds names and queries (the build option; CONTRACT.md "Case and Unicode"). */
export type Folding = "case" | "accents";

const FINAL_SIGMA = /\u03C2/g;
const I_WITH_DOT = /i\u0307/g;
const SHARP_S = /\u00DF/g;
const MARKS = /\p{M}/gu;

/** CONTRACT.md's fold, as written there. */
export function caseFold(s: string): string {
  return s
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .replace(FINAL_SIGMA, "\u03C3")
    .replace(I_WITH_DOT, "i")
    .replace(SHARP_S, "ss");
}

/** CONTRACT.md's fold of a graph built with accent folding. */
export function accentFold(s: string): string {
  return caseFold(s).normalize("NFD").replace(MARKS, "").normalize("NFC");
}

export function foldWith(folding: Folding): (s: string) => string {
  return folding === "accents" ? accentFold : caseFold;
}

export type Tier = 0 | 1 | 2;
export const TIER_NAMES = ["exact", "prefix", "infix"] as const;

/** The contract's tier of a name for a query, under a folding. */
export function tierOf(name: string, query: string, folding: Folding): Tier {
  const fold = foldWith(folding);
  const n = fold(name);
  const q = fold(query);
  // Each branch is one step of the contract's order: equal, starts with, anything else that matched.
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  return 2;
}

/** A range of the original name, in UTF-16 code units: [start, end). */
export interface Range {
  start: number;
  end: number;
}

/** A code point and the combining marks that follow it. */
const SEGMENT = /\P{M}\p{M}*|\p{M}+/gsu;

/**
 * The part of `name` that the first match of `query` covers, or null when the query is not in the
 * folded name or its place cannot be mapped back exactly (see the banner).
 */
export function matchRange(name: string, query: string, folding: Folding): Range | null {
  const fold = foldWith(folding);
  const q = fold(query);
  if (q === "") return null;
  const starts: number[] = [];
  const ends: number[] = [];
  let folded = "";
  for (const m of name.matchAll(SEGMENT)) {
    const f = fold(m[0]);
    starts.push(folded.length);
    folded += f;
    ends.push(folded.length);
  }
  // Segment by segment must give the whole name's fold, or the offsets mean nothing.
  if (folded !== fold(name)) return null;
  const at = folded.indexOf(q);
  if (at === -1) return null;
  const last = at + q.length;
  const segments = [...name.matchAll(SEGMENT)];
  let start = -1;
  let end = -1;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const index = seg.index ?? 0;
    // The first segment whose fold reaches past the match's start, through the last that begins before its end.
    if (start === -1 && ends[i]! > at) start = index;
    if (starts[i]! < last) end = index + seg[0].length;
  }
  return start === -1 ? null : { start, end };
}

/**
 * Which folding explains a page of results. Under the case fold every item's folded name holds the
 * folded query; an item that does not, but does under the accent fold, proves the graph folds
 * accents. Used only when the API does not say which folding the graph has.
 */
export function inferFolding(names: readonly string[], query: string): Folding | null {
  const q = caseFold(query);
  const a = accentFold(query);
  for (const name of names) {
    if (!caseFold(name).includes(q) && accentFold(name).includes(a)) return "accents";
  }
  return null;
}

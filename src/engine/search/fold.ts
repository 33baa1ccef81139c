/**
 * Case and Unicode folding
 * ========================
 * The one place that decides when two identifiers are "the same text" for search, exactly as
 * CONTRACT.md ("Case and Unicode") writes it:
 *
 *   NFKC, then upper case, then lower case (so "ß" -> "SS" -> "ss" and "ﬁ" -> "fi"), then the final
 *   sigma "ς" -> "σ", then "i" + U+0307 COMBINING DOT ABOVE (what "İ" lowers to) -> "i", then "ß" ->
 *   "ss" (capital sharp s "ẞ", U+1E9E, upper-cases to itself and lowers to "ß"; full case folding
 *   makes it "ss", so "STRAẞE" is found by "strasse").
 *
 * Two modes, chosen once per graph (GraphBuilderOptions.fold, kept in the snapshot):
 *  - "case" (the default): the steps above; accents are kept ("dürer" does not match "durer").
 *  - "accents": the steps above, then canonical decomposition (NFD), every combining mark (\p{M})
 *    removed, and NFC again, so "durer" finds "Dürer" and "malmo" finds "Malmö". Marks that are
 *    letters of their script (Devanagari vowel signs, Hebrew points) are marks too and go as well:
 *    the contract's rule, applied alike to names and queries.
 *
 * Cost: linear in the string; it allocates, so it runs once per identifier at build time and once
 * per query, never inside a search loop.
 */

import { checkString } from "../validate.js";

const FINAL_SIGMA = /\u03C2/g;
const I_WITH_DOT = /i\u0307/g;
const SHARP_S = /\u00DF/g;
const MARKS = /\p{M}/gu;

/** How a graph folds identifiers and queries: case only, or case and accents. */
export type FoldMode = "case" | "accents";

/** The fold modes, in the order their codes are stored (snapshot, content tag): "case" is 0. */
export const FOLD_MODES: readonly FoldMode[] = ["case", "accents"];

/** Text of ASCII characters only: folded by lower-casing (NFKC and NFD leave it, no special case applies). */
const ASCII = /^[\u0000-\u007F]*$/;

/** The contract's case folding (mode "case"). */
export function fold(s: string): string {
  // Each branch: ASCII text (most identifiers; a score-order scan folds one per check) by the
  // lower-casing it comes to, else the whole fold.
  if (ASCII.test(checkString(s, "the text to fold"))) return s.toLowerCase();
  let t = s.normalize("NFKC").toUpperCase().toLowerCase();
  // Each replacement only where its character occurs (few names have one): indexOf passes over the
  // text far faster than a global replace that finds nothing, which otherwise costs a non-ASCII
  // query or identifier three scans by the regular expression engine.
  if (t.indexOf("\u03C2") >= 0) t = t.replace(FINAL_SIGMA, "\u03C3");
  if (t.indexOf("\u0307") >= 0) t = t.replace(I_WITH_DOT, "i");
  if (t.indexOf("\u00DF") >= 0) t = t.replace(SHARP_S, "ss");
  return t;
}

/** Case folding, then combining marks removed (mode "accents"). */
export function foldAccents(s: string): string {
  // Each branch: ASCII text has no marks to remove.
  if (ASCII.test(checkString(s, "the text to fold"))) return s.toLowerCase();
  return fold(s).normalize("NFD").replace(MARKS, "").normalize("NFC");
}

/** The fold function of a mode. */
export function folder(mode: FoldMode): (s: string) => string {
  // Each branch: the one function per mode; a new mode must be added here and to FOLD_MODES.
  return mode === "accents" ? foldAccents : fold;
}

/** Folds `s` the way a graph of fold mode `mode` does. */
export function foldWith(s: string, mode: FoldMode): string {
  return folder(mode)(s);
}

/** Whether `value` names a fold mode. */
export function isFoldMode(value: unknown): value is FoldMode {
  return value === "case" || value === "accents";
}

/**
 * The order of `folded` (a folded identifier) and `foldText(raw)`, as `<` orders strings (-1, 0 or
 * 1), read from `raw` in place as long as its ASCII characters decide: an ASCII character followed
 * by another ASCII one (or ending the text) folds to its lower case where it stands in either mode
 * (NFKC, the case steps and the marks' removal change no such pair; only the character right before
 * a non-ASCII one can take what follows into it). So `raw` is folded (whole) only when the two agree
 * up to a character that is not so: most comparisons of two names decide at their first characters.
 * `foldText` is the graph's fold (fold or foldAccents), or what returns `raw`'s fold kept by the
 * caller. Cost: O(the common prefix), no allocation unless it folds.
 */
export function compareFoldedToRaw(folded: string, raw: string, foldText: (s: string) => string): number {
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    // Each branch: a character whose fold may depend on what follows (itself or its next not ASCII):
    // the whole fold decides; else its lower case, compared where it stands.
    if (c >= 0x80 || (i + 1 < n && raw.charCodeAt(i + 1) >= 0x80)) {
      const f = foldText(raw);
      return folded < f ? -1 : folded > f ? 1 : 0;
    }
    // `folded` ends first: a proper prefix of the fold (which holds at least this character).
    if (i === folded.length) return -1;
    const lower = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
    const f = folded.charCodeAt(i);
    if (f !== lower) return f < lower ? -1 : 1;
  }
  // `raw` all ASCII: its fold is its lower case, `folded`'s first n units.
  return folded.length === n ? 0 : 1;
}

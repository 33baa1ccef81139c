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
 * Accents are kept ("dürer" does not match "durer"). Cost: linear in the string; it allocates, so
 * it runs once per identifier at build time and once per query, never inside a search loop.
 */

import { checkString } from "../validate.js";

const FINAL_SIGMA = /\u03C2/g;
const I_WITH_DOT = /i\u0307/g;
const SHARP_S = /\u00DF/g;

/**
 * The folding search applies to identifiers and queries alike: NFKC, then upper case, then lower
 * case, with final sigma as sigma, `i` with a combining dot as `i`, and `ß` as `ss`. Accents are
 * kept. An entity matches `q` when `fold(rawIdentifier).includes(fold(q))`.
 */
export function fold(s: string): string {
  return checkString(s, "the text to fold")
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .replace(FINAL_SIGMA, "\u03C3")
    .replace(I_WITH_DOT, "i")
    .replace(SHARP_S, "ss");
}

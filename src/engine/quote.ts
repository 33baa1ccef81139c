/**
 * Quoting caller text in error sentences
 * ======================================
 * Every error sentence that repeats what the caller gave (an entityId, a parameter's value, a
 * fingerprint) quotes it the same way: as a JSON string literal (so control characters and quotes
 * stay visible and unambiguous), cut to MAX_QUOTED_CHARS code units with "…" after the cut, so a
 * megabyte identifier never becomes a megabyte error message. A cut never splits a surrogate pair.
 */

/** Longest caller text repeated in an error sentence, in UTF-16 code units. */
export const MAX_QUOTED_CHARS = 64;

/** `s` as a JSON string literal, cut short when long. */
export function quote(s: string): string {
  if (s.length <= MAX_QUOTED_CHARS) return JSON.stringify(s);
  let end = MAX_QUOTED_CHARS;
  // Do not leave a lone high surrogate at the cut.
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return JSON.stringify(`${s.slice(0, end)}…`);
}

/** Any value, described for an error sentence: strings quoted, numbers as written, else their kind. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "number") return String(value);
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/**
 * UTF-8 facts about JavaScript strings
 * ====================================
 * A JavaScript string is UTF-16 code units, and any sequence of them is allowed, including a lone
 * surrogate (what a JSON `\uD800` escape gives). CONTRACT.md wants every input string to be
 * well-formed Unicode and bounds its length in bytes of UTF-8: this file answers both questions.
 *
 * `loneSurrogateAt` finds the first lone surrogate with one regular-expression scan (a high surrogate
 * not followed by a low one, or a low one not preceded by a high one). `fitsUtf8Bytes` skips the
 * count when the string is short enough that it cannot be over (UTF-8 takes at most 3 bytes per
 * UTF-16 code unit), and otherwise counts with `Buffer.byteLength` (native, no encoding). Both
 * O(length), no allocation.
 *
 * Reference: Unicode 15, section 3.9 (well-formed UTF-16 and UTF-8); RFC 3629.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Most UTF-8 bytes one UTF-16 code unit can stand for (a pair: 2 units, 4 bytes). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/** Index of the first lone surrogate code unit in `s`, or -1 when `s` is well-formed. */
export function loneSurrogateAt(s: string): number {
  const m = LONE_SURROGATE.exec(s);
  return m === null ? -1 : m.index;
}

/** String.prototype.isWellFormed (ES2024; Node 20 has it), when there: about a third of the scan's cost on short strings. */
const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** Whether `s` has no lone surrogate. */
export function isWellFormed(s: string): boolean {
  return nativeIsWellFormed === undefined ? !LONE_SURROGATE.test(s) : nativeIsWellFormed.call(s);
}

/** Bytes of `s` in UTF-8 (a lone surrogate counts 3, as its replacement U+FFFD does). */
export function utf8ByteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** True when `s` takes at most `maxBytes` bytes of UTF-8. */
export function fitsUtf8Bytes(s: string, maxBytes: number): boolean {
  return s.length * MAX_UTF8_BYTES_PER_UNIT <= maxBytes || utf8ByteLength(s) <= maxBytes;
}

/**
 * Base64url reading
 * =================
 * Owns turning a cursor's text back into its bytes, with the checks a cursor needs made in the same
 * pass: only the base64url alphabet (RFC 4648 section 5: A-Z a-z 0-9 - _), no padding, and the
 * canonical form (no length of 4n + 1, the last character's unused low bits zero), so that one byte
 * sequence has exactly one text and an altered character never decodes to the same bytes.
 *
 * `Buffer.from(text, "base64url")` skips characters outside the alphabet and ignores non-zero
 * trailing bits, so checking its result would take a regular expression and a second encoding of
 * the bytes. This is one loop over the text with a 128-entry table, writing into the caller's buffer
 * (no allocation); `npm run bench:cursor-mac` times a whole decode.
 *
 * Cost: O(length of the text), one table read per character.
 */

/** The value of each ASCII character in base64url, -1 outside the alphabet. */
const VALUE = new Int8Array(128).fill(-1);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** decodeBase64Url's answer for a character outside the alphabet. */
export const NOT_BASE64URL = -1;
/** decodeBase64Url's answer for a length or last character no encoder writes, or too long for `out`. */
export const NOT_CANONICAL = -2;

/** How many bytes decodeBase64Url writes for a text of `length` characters (if it takes it). */
export function decodedBytes(length: number): number {
  const rest = length & 3;
  return (length >>> 2) * 3 + (rest === 0 ? 0 : rest - 1);
}

/** The value of the character at `i`: 0..63, or a negative number outside the alphabet. */
function valueAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  // Past 127, (127 - code) >> 31 is -1 and so is the OR: no branch, and no read past the table.
  return VALUE[code & 127]! | ((127 - code) >> 31);
}

/** Whether every character of `text` is in the alphabet. */
function inAlphabet(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (valueAt(text, i) < 0) return false;
  return true;
}

/**
 * Decodes base64url `text` (no padding) into `out` from index 0. Returns the number of bytes, or
 * NOT_BASE64URL (a character outside the alphabet) or else NOT_CANONICAL (a length of 4n + 1,
 * non-zero unused bits in the last character, or more bytes than `out` holds). `out` may be written
 * to even when the text is refused.
 */
export function decodeBase64Url(text: string, out: Uint8Array): number {
  const n = text.length;
  const rest = n & 3;
  const bytes = decodedBytes(n);
  // Refused for its length, unless a character is refused first (the alphabet is checked first).
  if (rest === 1 || bytes > out.length) return inAlphabet(text) ? NOT_CANONICAL : NOT_BASE64URL;
  const full = n - rest;
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const a = valueAt(text, i);
    const b = valueAt(text, i + 1);
    const c = valueAt(text, i + 2);
    const d = valueAt(text, i + 3);
    if ((a | b | c | d) < 0) return NOT_BASE64URL;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >>> 16;
    out[o++] = (v >>> 8) & 0xff;
    out[o++] = v & 0xff;
  }
  // Each branch: 2 characters carry 1 byte and 4 spare bits, 3 carry 2 bytes and 2 spare bits.
  if (rest === 2) {
    const a = valueAt(text, full);
    const b = valueAt(text, full + 1);
    if ((a | b) < 0) return NOT_BASE64URL;
    if ((b & 0x0f) !== 0) return NOT_CANONICAL;
    out[o] = (a << 2) | (b >>> 4);
  } else if (rest === 3) {
    const a = valueAt(text, full);
    const b = valueAt(text, full + 1);
    const c = valueAt(text, full + 2);
    if ((a | b | c) < 0) return NOT_BASE64URL;
    if ((c & 0x03) !== 0) return NOT_CANONICAL;
    const v = (a << 12) | (b << 6) | c;
    out[o] = v >>> 10;
    out[o + 1] = (v >>> 2) & 0xff;
  }
  return bytes;
}

/**
 * JSON text written as UTF-8 bytes
 * ================================
 * Owns one growable byte buffer and the writing of JSON into it: fixed literals (keys and
 * punctuation, encoded once by the caller) and strings, quoted, escaped and encoded in one pass over
 * their code units, with no intermediate string. The bytes are those of `Buffer.from(JSON.stringify(x))`:
 * `"` and `\` escaped with a backslash; U+0000..U+001F as `\b \t \n \f \r` or `\u00xx`; a lone
 * surrogate as `\udxxx` (ECMA-262's well-formed JSON.stringify, lower-case hex); every other code
 * point in UTF-8 (RFC 3629), U+007F and U+2028 / U+2029 included, as JSON.stringify leaves them.
 *
 * Why not `Buffer.from(JSON.stringify(page))`: that makes the page's text once as a string (V8's
 * serializer copies every field and checks each character for escapes) and then walks it twice more
 * (its UTF-8 length, then the encoding into a fresh buffer). Here each field's code units are read
 * once and written once: 1.8 to 2.5x less CPU for a page serialized again and again, about 10% less
 * for a page fresh from the engine in a stream of distinct queries (serialize.ts has the figures).
 *
 * Use: `begin()`, then for each part `reserve(n)` with a bound on the bytes about to be written
 * (`stringBound` for a string) and `literal` / `string`, then `take()` for an exact-size copy.
 * Reserving once per item rather than per write keeps the bounds check out of the inner loops.
 * Cost: a comparison, a branch and a store per ASCII code unit; a growth doubles the buffer (kept
 * for the next page, up to MAX_KEPT_BYTES) and copies what is written.
 * Not re-entrant: one writer serves one synchronous serialization at a time.
 * References: RFC 8259 section 7 (strings); ECMA-262 SerializeJSONProperty / QuoteJSONString.
 */

/** Most bytes one code unit becomes: `\u00xx` for a control character, `\udxxx` for a lone surrogate. */
const MAX_BYTES_PER_UNIT = 6;
/** Start size of the buffer: a page of the bench mix is 3.4 kB, one of 50 long statements some 20. */
const INITIAL_BYTES = 32 * 1024;
/** Largest buffer kept between pages: one grown past it for a rare huge page is dropped at the next. */
const MAX_KEPT_BYTES = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
/** The escape letter of each control character that has a short form (`\b \t \n \f \r`), else 0. */
const SHORT_ESCAPE = new Uint8Array(0x20);
SHORT_ESCAPE[0x08] = 0x62;
SHORT_ESCAPE[0x09] = 0x74;
SHORT_ESCAPE[0x0a] = 0x6e;
SHORT_ESCAPE[0x0c] = 0x66;
SHORT_ESCAPE[0x0d] = 0x72;

/** The UTF-8 bytes of a fixed piece of JSON, for `literal`. */
export function jsonLiteral(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, "utf8"));
}

/** A bound on the bytes `string(s)` writes: its two quotes and the worst case of each code unit. */
export function stringBound(s: string): number {
  return MAX_BYTES_PER_UNIT * s.length + 2;
}

export class JsonBytes {
  private bytes = new Uint8Array(INITIAL_BYTES);
  private at = 0;

  /** Bytes held between texts (for the tests of the keep limit). */
  get capacity(): number {
    return this.bytes.length;
  }

  /** Starts a new text; what was written before is dropped. */
  begin(): void {
    this.at = 0;
    if (this.bytes.length > MAX_KEPT_BYTES) this.bytes = new Uint8Array(INITIAL_BYTES);
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    const need = this.at + n;
    if (need <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, need));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }

  /** Appends bytes made by `jsonLiteral` (room reserved). */
  literal(piece: Uint8Array): void {
    const b = this.bytes;
    const o = this.at;
    const n = piece.length;
    for (let i = 0; i < n; i++) b[o + i] = piece[i] as number;
    this.at = o + n;
  }

  /** Appends one byte of ASCII punctuation (room reserved). */
  byte(value: number): void {
    this.bytes[this.at++] = value;
  }

  /** Appends `s` as a JSON string (room reserved: `stringBound(s)`). */
  string(s: string): void {
    const b = this.bytes;
    const len = s.length;
    let o = this.at;
    b[o++] = QUOTE;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        // The common case first: printable ASCII that needs no escape.
        if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) {
          b[o++] = c;
          continue;
        }
        b[o++] = BACKSLASH;
        if (c >= 0x20) b[o++] = c;
        else if (SHORT_ESCAPE[c] !== 0) b[o++] = SHORT_ESCAPE[c] as number;
        else {
          b[o++] = 0x75; // u00xx
          b[o++] = 0x30;
          b[o++] = 0x30;
          b[o++] = HEX[c >> 4] as number;
          b[o++] = HEX[c & 15] as number;
        }
      } else if (c < 0x800) {
        b[o++] = 0xc0 | (c >> 6);
        b[o++] = 0x80 | (c & 63);
      } else if (c < 0xd800 || c >= 0xe000) {
        b[o++] = 0xe0 | (c >> 12);
        b[o++] = 0x80 | ((c >> 6) & 63);
        b[o++] = 0x80 | (c & 63);
      } else if (c < 0xdc00 && i + 1 < len && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        // A high surrogate followed by a low one: one code point past U+FFFF, four bytes.
        const cp = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        b[o++] = 0xf0 | (cp >> 18);
        b[o++] = 0x80 | ((cp >> 12) & 63);
        b[o++] = 0x80 | ((cp >> 6) & 63);
        b[o++] = 0x80 | (cp & 63);
      } else {
        // A lone surrogate has no UTF-8 form: JSON.stringify writes it as an escape.
        b[o++] = BACKSLASH;
        b[o++] = 0x75;
        b[o++] = HEX[c >> 12] as number;
        b[o++] = HEX[(c >> 8) & 15] as number;
        b[o++] = HEX[(c >> 4) & 15] as number;
        b[o++] = HEX[c & 15] as number;
      }
    }
    b[o++] = QUOTE;
    this.at = o;
  }

  /** The text written since `begin`, copied into a buffer of its exact size. */
  take(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    out.set(this.bytes.subarray(0, this.at));
    return out;
  }
}

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
 * once and written once: about half the CPU for a page fresh from the engine in a stream of
 * distinct queries (serialize.ts has the figures and the command).
 *
 * One loop, many copies. A serializer writes each field of each item type with a copy of the string
 * writer of its own: string-writers.generated.ts holds one named copy of `writeString` per field,
 * written from its text by tools/build-string-writers.ts (`npm run build:string-writers`; a test
 * fails while the file is stale). Each field's strings are of one kind (a short id copied into a
 * flat one-byte string, a long name sliced from the text store, one or two bytes a character, a
 * one-digit type) and `charCodeAt` dispatches on that kind inside the loop: fed all kinds at one
 * site, its branches and type feedback are shared and mispredicted; each function literal has
 * feedback of its own, so a copy per field sees one kind. The copies are source, not code made from
 * strings at load, so they hold where that is forbidden (`--disallow-code-generation-from-strings`).
 * serialize.ts has the figures.
 *
 * Use: `begin()`, then for each part `reserve(n)` with a bound on the bytes about to be written
 * (`stringBound` for a string) and `literal` / `string` (or a field's generated writer), then `take()`
 * for an exact-size copy.
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

/** The UTF-8 bytes of a fixed piece of JSON, for `literal`. */
export function jsonLiteral(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, "utf8"));
}

/** A bound on the bytes `string(s)` writes: its two quotes and the worst case of each code unit. */
export function stringBound(s: string): number {
  return MAX_BYTES_PER_UNIT * s.length + 2;
}

export class JsonBytes {
  /** The buffer and the write position: the state the string writers work on (module-internal, not for callers). */
  bytes = new Uint8Array(INITIAL_BYTES);
  at = 0;

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

  /** Appends `s` as a JSON string (room reserved: `stringBound(s)`), with the module's general writer. */
  string(s: string): void {
    writeString(this, s);
  }

  /** The text written since `begin`, copied into a buffer of its exact size. */
  take(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    out.set(this.bytes.subarray(0, this.at));
    return out;
  }
}

/** Appends a JSON string to a JsonBytes (room reserved: `stringBound(s)`): writeString and its generated copies. */
export type StringWriter = (out: JsonBytes, s: string) => void;

/**
 * The string writer: quotes, escapes and encodes `s` at `out.at`. The template of the per-field
 * copies (tools/build-string-writers.ts copies its text from its signature to its closing brace into
 * string-writers.generated.ts): its body names nothing but its two arguments, not even a module
 * constant, so the copies mean what it means.
 */
function writeString(out: JsonBytes, s: string): void {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  const b = out.bytes;
  const len = s.length;
  let o = out.at;
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
      // The letter of \b \t \n \f \r, for the control characters that have a short escape; else 0.
      const letter = c === 8 ? 0x62 : c === 9 ? 0x74 : c === 10 ? 0x6e : c === 12 ? 0x66 : c === 13 ? 0x72 : 0;
      if (c >= 0x20) b[o++] = c;
      else if (letter !== 0) b[o++] = letter;
      else {
        b[o++] = 0x75; // u00xx: the two hex digits of a control character are 0 or 1, then 0..f
        b[o++] = 0x30;
        b[o++] = 0x30;
        b[o++] = 0x30 + (c >> 4);
        const d = c & 15;
        b[o++] = d < 10 ? 0x30 + d : 0x57 + d;
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
      // A lone surrogate has no UTF-8 form: JSON.stringify writes it as an escape, \udxxx (lower-case hex).
      b[o++] = BACKSLASH;
      b[o++] = 0x75;
      for (let shift = 12; shift >= 0; shift -= 4) {
        const d = (c >> shift) & 15;
        b[o++] = d < 10 ? 0x30 + d : 0x57 + d;
      }
    }
  }
  b[o++] = QUOTE;
  out.at = o;
}

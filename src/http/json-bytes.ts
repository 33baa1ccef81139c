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
 * for the text as a buffer.
 * Slabs: texts are written one after another into a slab (SLAB_BYTES), and `take()` hands out a view
 * on the text's bytes, which are never written again, not a copy: no copy and no allocation a page
 * (a slab is allocated every hundred pages of the bench mix); a slab lives as long as the last body
 * taken from it, which node drops once the socket has it.
 * Reserving once per item rather than per write keeps the bounds check out of the inner loops.
 * Cost: a comparison, a branch and a store per ASCII code unit; a text that outgrows its slab moves
 * to one twice the size (kept for the next page, up to MAX_KEPT_BYTES), copying what it has written.
 * Not re-entrant: one writer serves one synchronous serialization at a time.
 * References: RFC 8259 section 7 (strings); ECMA-262 SerializeJSONProperty / QuoteJSONString.
 */

/** Most bytes one code unit becomes: `\u00xx` for a control character, `\udxxx` for a lone surrogate. */
const MAX_BYTES_PER_UNIT = 6;
/**
 * Size of a slab, the buffer texts are written into one after another: a page of the bench mix is
 * 2.7 kB, one of 50 long statements some 20.
 */
const SLAB_BYTES = 256 * 1024;
/** Room a new text starts with at least: with less left in the slab, it starts a new one. */
const MIN_ROOM_BYTES = 32 * 1024;
/** Largest slab kept between texts: one grown past it for a rare huge page is dropped at the next. */
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
  /** The slab and the write position: the state the string writers work on (module-internal, not for callers). */
  bytes: Buffer = Buffer.allocUnsafeSlow(SLAB_BYTES);
  at = 0;
  /** Where the text being written starts in the slab; what lies before it belongs to texts taken. */
  private start = 0;

  /** Bytes of the slab held between texts (for the tests of the keep limit). */
  get capacity(): number {
    return this.bytes.length;
  }

  /** Starts a new text after the last one taken (in a new slab when little room is left). */
  begin(): void {
    this.at = this.start;
    if (this.bytes.length > MAX_KEPT_BYTES || this.bytes.length - this.start < MIN_ROOM_BYTES) this.newSlab(SLAB_BYTES);
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    // The text so far moves to a slab of its own that has the room (the old slab stays with the texts taken from it).
    this.newSlab(Math.max(2 * this.bytes.length, this.at - this.start + n));
  }

  /** Continues the text being written in a fresh slab of `size` bytes. */
  private newSlab(size: number): void {
    const slab = Buffer.allocUnsafeSlow(size);
    const written = this.at - this.start;
    if (written > 0) this.bytes.copy(slab, 0, this.start, this.at);
    this.bytes = slab;
    this.start = 0;
    this.at = written;
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

  /**
   * The text written since `begin`, as a view on the slab (no copy): its bytes are never written
   * again, the next text starts after them. A slab lives as long as a body taken from it.
   */
  take(): Buffer {
    const text = this.bytes.subarray(this.start, this.at);
    this.start = this.at;
    return text;
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

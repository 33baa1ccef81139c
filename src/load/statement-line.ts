/**
 * Statement line shape
 * ====================
 * Owns the fast reading of the one line shape nearly every statements file has: the four fields in
 * the contract's order, no whitespace, no escapes, printable ASCII only, as `quiver dump`, the
 * generator and the dataset converters write it:
 *
 *     {"subjectEntityId":"Q1","predicateEntityId":"P31","objectEntityId":"Q5","statementFingerprint":"..."}
 *
 * (the fingerprint may be absent). Such a line is matched by one regular expression over its bytes
 * read as Latin-1: a line with any byte of 0x80 or more cannot match (the classes below are ASCII), so
 * a match is also the line's exact UTF-8 decoding, and its JSON meaning is the four captured strings
 * (no escape, no control character, no repeated key). Every other line (another key order,
 * whitespace, an escape, non-ASCII text, a wrong value type, a bad line) takes the general path:
 * fatal UTF-8 decoding and JSON.parse, with their errors. The builder checks the strings of both
 * paths the same way, so the fast path changes the cost of a line, never its outcome.
 *
 * Cost: one Latin-1 slice and one anchored match a line, where the general path decodes the line's
 * bytes and builds an object with JSON.parse; `npm run bench -- --only build` times the load.
 */

/** A JSON string of printable ASCII without `"` or `\`: its text is the captured characters. */
const PLAIN = String.raw`([\x20\x21\x23-\x5b\x5d-\x7e]*)`;

const STATEMENT_LINE = new RegExp(
  String.raw`^\{"subjectEntityId":"${PLAIN}","predicateEntityId":"${PLAIN}","objectEntityId":"${PLAIN}"` +
    String.raw`(?:,"statementFingerprint":"${PLAIN}")?\}$`,
);

/** The fields of a statement line of the common shape: [subject, predicate, object, fingerprint?]. */
export type StatementFields = readonly [string, string, string, string | undefined];

/**
 * The fields of bytes [start, end) of `line` when they are a statement line of the common shape;
 * null for any other line (which the caller reads the general way).
 */
export function readStatementLine(line: Buffer, start: number, end: number): StatementFields | null {
  const m = STATEMENT_LINE.exec(line.toString("latin1", start, end));
  return m === null ? null : [m[1]!, m[2]!, m[3]!, m[4]];
}

/**
 * Change batches
 * ==============
 * The four kinds of change line of CONTRACT.md "Changes (live updates)", parsed and checked on their
 * own (no graph needed): what a batch says, line by line, or a QuiverError INVALID_CHANGE naming the
 * first bad line and the reason. Whether the batch can apply to the graph as it stands (entities
 * that exist, fingerprints in use) is live-apply.ts's business (CHANGE_CONFLICT).
 *
 *   {"op":"put","entity":{...}}                        an entity, the input format's fields, score optional
 *   {"op":"delete","entityId":"...","cascade":true}    cascade optional (false)
 *   {"op":"put","statement":{...}}                     a statement, the input format's fields
 *   {"op":"delete","statementFingerprint":"..."}
 *
 * A batch is JSON Lines text (blank lines skipped, lines numbered from 1 as the text has them) or an
 * array of such objects (the embedded API; line k is element k - 1). A batch that arrives as bytes
 * (the HTTP body, `quiver apply`'s file) is decoded by `decodeChangeBatch`: strict UTF-8, a bad byte
 * is INVALID_CHANGE naming its line. The rules of the input format
 * hold for the items: fields present and of their type, non-empty ids, `type` "0".."7", every string
 * well-formed Unicode and within its byte limit (limits.ts), `score` a whole number 0..2^32 - 1;
 * fields other than those named are ignored, a repeated key counts its last value (JSON.parse).
 * A line that names both an entity and a statement, or both delete targets, is refused: it would be
 * two changes in one, and which one was meant is not knowable.
 *
 * Lines of a statement put as JSON.stringify writes one (`{"op":"put","statement":{"subjectEntityId":
 * "...","predicateEntityId":"...","objectEntityId":"..."}}`, no space, no escape, no fingerprint:
 * STATEMENT_PUT_LINE) are matched by one sticky regular expression at the line's start in the batch's
 * text instead of JSON.parse: for such a line JSON.parse gives exactly the object made of its three
 * captures (a string with no `"`, `\` or control character is its characters), and the same checks
 * follow, on the captures themselves, cut out of the text at the quotes that end them (no line
 * copied, no object of the JSON made; `test`, not `exec`: no match array a line for the collector). Any other line, a put with its
 * keys in another order or spaced out included, goes through JSON.parse. The captured ids are slices
 * of the batch's text (V8 may keep that text while the delta holds them: until a compaction).
 *
 * Cost: one JSON.parse a line (a regular expression for a statement put: about 20 times less) and
 * O(length) checks of its strings.
 */

import { QuiverError } from "../errors.js";
import {
  ENTITY_ID_MAX_BYTES,
  MAX_SCORE,
  RAW_IDENTIFIER_MAX_BYTES,
  SOURCE_TYPE_MAX_BYTES,
  STATEMENT_FINGERPRINT_MAX_BYTES,
} from "../limits.js";
import { describeValue } from "../quote.js";
import { ENTITY_TYPES, type EntityType } from "../types.js";
import { fitsUtf8Bytes, isWellFormed, loneSurrogateAt, utf8ByteLength } from "../utf8.js";

/**
 * A statement put line exactly as JSON.stringify writes `{op, statement: {subjectEntityId,
 * predicateEntityId, objectEntityId}}`, each id a JSON string with no escape (no `"`, `\`, or control
 * character U+0000 to U+001F, the characters a JSON string must escape).
 */
const STATEMENT_PUT_LINE =
  /\{"op":"put","statement":\{"subjectEntityId":"([^"\\\x00-\x1f]*)","predicateEntityId":"([^"\\\x00-\x1f]*)","objectEntityId":"([^"\\\x00-\x1f]*)"\}\}(?=\n|$)/y;
/** STATEMENT_PUT_LINE's text before its first capture, and between each capture's end and the next one. */
const PUT_SUBJECT = '{"op":"put","statement":{"subjectEntityId":"';
const PUT_PREDICATE = '","predicateEntityId":"';
const PUT_OBJECT = '","objectEntityId":"';

/** An entity as a change puts it: the input format's fields, and the score when the line gave one. */
export interface LiveEntityInput {
  entityId: string;
  rawIdentifier: string;
  type: EntityType;
  sourceType: string;
  score?: number;
}

/** A statement as a change puts it; `statementFingerprint` absent when the line left it out (derived). */
export interface LiveStatementInput {
  subjectEntityId: string;
  predicateEntityId: string;
  objectEntityId: string;
  statementFingerprint?: string;
}

/** One change line, as the embedded API takes it (the JSON of one line of a batch). */
export type Change =
  | { op: "put"; entity: LiveEntityInput }
  | { op: "delete"; entityId: string; cascade?: boolean }
  | { op: "put"; statement: LiveStatementInput }
  | { op: "delete"; statementFingerprint: string };

/** A checked change with the number of the line it came from. */
export type ParsedChange =
  | { kind: "putEntity"; line: number; entity: LiveEntityInput }
  | { kind: "deleteEntity"; line: number; entityId: string; cascade: boolean }
  | { kind: "putStatement"; line: number; statement: LiveStatementInput }
  | { kind: "deleteStatement"; line: number; fingerprint: string };

/** What a batch may be given as: JSON Lines text, or the lines' objects. */
export type ChangeBatch = string | readonly Change[] | readonly unknown[];

/** The error of a bad line: INVALID_CHANGE, "line N: reason". */
export function invalidChange(line: number, reason: string): QuiverError {
  return new QuiverError("INVALID_CHANGE", `line ${line}: ${reason}`, { source: { file: "batch", line } });
}

/** Strict UTF-8: a bad byte is an error, not U+FFFD; a leading U+FEFF is kept as text (not JSON). */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The text of a batch received as bytes (an HTTP body, a file): UTF-8, strictly. A batch that is not
 * valid UTF-8 breaks the input format: INVALID_CHANGE naming the first line that holds a bad byte
 * (lines split at each LF byte, numbered from 1 as parseChangeBatch numbers them), never a U+FFFD in
 * place of the bytes that would then be stored as if the client had sent it.
 * Cost: one decode; a batch that fails is decoded again line by line to find the line.
 */
export function decodeChangeBatch(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidChange(firstInvalidUtf8Line(bytes), "not valid UTF-8");
  }
}

/** The 1-based number of the first line of `bytes` that is not valid UTF-8 (once decoding failed). */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(0x0a, start);
    const end = lf === -1 ? bytes.length : lf;
    try {
      UTF8.decode(bytes.subarray(start, end));
    } catch {
      return line;
    }
    // The whole decode failed, so some line does: the last one when no earlier one has.
    if (lf === -1) return line;
    start = lf + 1;
    line++;
  }
}

/** Every line of a batch, checked, in order; throws INVALID_CHANGE at the first bad one. */
export function parseChangeBatch(batch: ChangeBatch): ParsedChange[] {
  const out: ParsedChange[] = [];
  if (typeof batch === "string") {
    let line = 0;
    let start = 0;
    while (start <= batch.length) {
      line++;
      // Each branch: a statement put in JSON.stringify's form, read in place by the sticky
      // expression (no copy of the line, no object of its JSON: this runs for every line of a
      // big batch); or any other line, cut out and parsed.
      STATEMENT_PUT_LINE.lastIndex = start;
      if (STATEMENT_PUT_LINE.test(batch)) {
        // The ids cut out where the expression's captures are: each ends at the first `"` after its
        // start (a capture holds none), and its start is the fixed text after the last one's end.
        const sFrom = start + PUT_SUBJECT.length;
        const sTo = batch.indexOf('"', sFrom);
        const pFrom = sTo + PUT_PREDICATE.length;
        const pTo = batch.indexOf('"', pFrom);
        const oFrom = pTo + PUT_OBJECT.length;
        const oTo = batch.indexOf('"', oFrom);
        start = STATEMENT_PUT_LINE.lastIndex + 1;
        out.push({
          kind: "putStatement",
          line,
          statement: {
            subjectEntityId: checked(
              batch.slice(sFrom, sTo),
              "statement.subjectEntityId",
              ENTITY_ID_MAX_BYTES,
              true,
              line,
            ),
            predicateEntityId: checked(
              batch.slice(pFrom, pTo),
              "statement.predicateEntityId",
              ENTITY_ID_MAX_BYTES,
              true,
              line,
            ),
            objectEntityId: checked(
              batch.slice(oFrom, oTo),
              "statement.objectEntityId",
              ENTITY_ID_MAX_BYTES,
              true,
              line,
            ),
          },
        });
        continue;
      }
      let end = batch.indexOf("\n", start);
      if (end < 0) end = batch.length;
      const text = batch.slice(start, end);
      start = end + 1;
      // Blank lines (whitespace only, a CR of CRLF included) are skipped, as in the input files.
      if (text.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw invalidChange(line, `not JSON (${e instanceof Error ? e.message : String(e)})`);
      }
      out.push(parseChange(value, line));
    }
    return out;
  }
  if (!Array.isArray(batch)) throw invalidChange(1, "a batch is JSON Lines text or an array of change objects");
  for (let i = 0; i < batch.length; i++) out.push(parseChange(batch[i], i + 1));
  return out;
}

/** One line's value as a change, or INVALID_CHANGE. */
export function parseChange(value: unknown, line: number): ParsedChange {
  const c = object(value, line, "the line");
  const op = c["op"];
  if (op === "put") {
    const hasEntity = c["entity"] !== undefined;
    const hasStatement = c["statement"] !== undefined;
    // Each branch: exactly one item to put; both or neither is not a change this API has.
    if (hasEntity && hasStatement) throw invalidChange(line, 'a put names both "entity" and "statement"; give one');
    if (hasEntity) return { kind: "putEntity", line, entity: entityOf(c["entity"], line) };
    if (hasStatement) return { kind: "putStatement", line, statement: statementOf(c["statement"], line) };
    throw invalidChange(line, 'a put needs "entity" or "statement"');
  }
  if (op === "delete") {
    const hasEntity = c["entityId"] !== undefined;
    const hasFingerprint = c["statementFingerprint"] !== undefined;
    if (hasEntity && hasFingerprint)
      throw invalidChange(line, 'a delete names both "entityId" and "statementFingerprint"; give one');
    if (hasEntity) {
      const entityId = text(c, "entityId", ENTITY_ID_MAX_BYTES, true, line, "");
      const cascade = c["cascade"];
      if (cascade !== undefined && typeof cascade !== "boolean")
        throw invalidChange(line, `field "cascade" must be true or false, got ${describeValue(cascade)}`);
      return { kind: "deleteEntity", line, entityId, cascade: cascade === true };
    }
    if (hasFingerprint) {
      const fingerprint = text(c, "statementFingerprint", STATEMENT_FINGERPRINT_MAX_BYTES, true, line, "");
      return { kind: "deleteStatement", line, fingerprint };
    }
    throw invalidChange(line, 'a delete needs "entityId" or "statementFingerprint"');
  }
  throw invalidChange(
    line,
    `field "op" must be "put" or "delete", got ${op === undefined ? "nothing" : describeValue(op)}`,
  );
}

function entityOf(value: unknown, line: number): LiveEntityInput {
  const e = object(value, line, 'field "entity"');
  const entityId = text(e, "entityId", ENTITY_ID_MAX_BYTES, true, line, "entity.");
  const rawIdentifier = text(e, "rawIdentifier", RAW_IDENTIFIER_MAX_BYTES, false, line, "entity.");
  const type = e["type"];
  if (typeof type !== "string" || !(ENTITY_TYPES as readonly string[]).includes(type))
    throw invalidChange(
      line,
      type === undefined
        ? 'missing field "entity.type"'
        : `field "entity.type" must be one of "0" to "7", got ${describeValue(type)}`,
    );
  const sourceType = text(e, "sourceType", SOURCE_TYPE_MAX_BYTES, false, line, "entity.");
  const entity: LiveEntityInput = { entityId, rawIdentifier, type: type as EntityType, sourceType };
  const score = e["score"];
  // The score is optional: left out, the entity's statements count it (CONTRACT.md "Data model").
  if (score !== undefined) {
    if (typeof score !== "number" || !Number.isInteger(score) || score < 0 || score > MAX_SCORE)
      throw invalidChange(
        line,
        `field "entity.score" must be a whole number from 0 to ${MAX_SCORE}, got ${describeValue(score)}`,
      );
    entity.score = score;
  }
  return entity;
}

function statementOf(value: unknown, line: number): LiveStatementInput {
  const s = object(value, line, 'field "statement"');
  const statement: LiveStatementInput = {
    subjectEntityId: text(s, "subjectEntityId", ENTITY_ID_MAX_BYTES, true, line, "statement."),
    predicateEntityId: text(s, "predicateEntityId", ENTITY_ID_MAX_BYTES, true, line, "statement."),
    objectEntityId: text(s, "objectEntityId", ENTITY_ID_MAX_BYTES, true, line, "statement."),
  };
  if (s["statementFingerprint"] !== undefined)
    statement.statementFingerprint = text(
      s,
      "statementFingerprint",
      STATEMENT_FINGERPRINT_MAX_BYTES,
      true,
      line,
      "statement.",
    );
  return statement;
}

function object(value: unknown, line: number, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidChange(line, `${what} must be a JSON object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

/** A string field of the input format: present, a string, non-empty when asked, well-formed, within its bytes. */
function text(
  obj: Record<string, unknown>,
  name: string,
  maxBytes: number,
  nonEmpty: boolean,
  line: number,
  prefix: string,
): string {
  const v = obj[name];
  if (v === undefined) throw invalidChange(line, `missing field "${prefix}${name}"`);
  if (typeof v !== "string")
    throw invalidChange(line, `field "${prefix}${name}" must be a string, got ${describeValue(v)}`);
  return checked(v, `${prefix}${name}`, maxBytes, nonEmpty, line);
}

/** A string of field `name` checked: non-empty when asked, well-formed, within its bytes. */
function checked(v: string, name: string, maxBytes: number, nonEmpty: boolean, line: number): string {
  if (nonEmpty && v.length === 0) throw invalidChange(line, `field "${name}" must not be empty`);
  // Each branch: a well-formed string (the native test, a third of the scan's cost) goes on; else the scan names the place.
  const lone = isWellFormed(v) ? -1 : loneSurrogateAt(v);
  if (lone >= 0) {
    const unit = v.charCodeAt(lone).toString(16).toUpperCase();
    throw invalidChange(
      line,
      `field "${name}" is not well-formed Unicode: a lone surrogate (U+${unit}) at code unit ${lone}`,
    );
  }
  if (!fitsUtf8Bytes(v, maxBytes))
    throw invalidChange(line, `field "${name}" is ${utf8ByteLength(v)} bytes long in UTF-8; the limit is ${maxBytes}`);
  return v;
}

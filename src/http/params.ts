/**
 * Strict query-string parsing
 * ===========================
 * Turns the raw query string of a request (the part after `?`, still percent-encoded) into the
 * engine's `SearchParams` or `StatementsParams`, or throws a `QuiverError` naming the parameter at
 * fault (CONTRACT.md "Errors", 400 row). The engine then checks what only it knows: the length of q,
 * the type character, the range of limit, the cursor.
 *
 * Rules (each one is a decision the interface leaves open, written here once):
 * - Pairs are separated by `&`; a pair is `name=value`, split at its first `=`. A pair with no `=`
 *   has an empty value. Empty pairs (`a=1&&b=2`, a trailing `&`) are skipped, as URLSearchParams does.
 * - Names and values are percent-decoded strictly: `%` must be followed by two hexadecimal digits,
 *   and the decoded bytes must be well-formed UTF-8 (`TextDecoder` with `fatal`, and `ignoreBOM` so a
 *   leading U+FEFF is kept as the caller's text). Raw non-ASCII characters are refused (node's parser
 *   never lets them through; an embedder calling the handler directly might).
 * - `+` means a space, as in HTML forms and URLSearchParams; a literal plus is `%2B`.
 * - Names are case-sensitive and matched after decoding (`%71=x` is `q=x`).
 * - Checks run pair by pair, left to right, and the first failure is the answer: unknown name, then
 *   repeated name, then bad encoding of the value, then empty value. After the scan: missing `q`.
 * - `limit` is a plain decimal integer: ASCII digits only, no sign, no spaces, no exponent, no
 *   fraction, no leading zeros (one spelling per number: `20`, never `020`), checked with its range
 *   by the engine's `limitFromText` (validate.ts), so the embedded API and HTTP share one sentence.
 *
 * - `order` is `name` or `score`, `count` is `true` or `false`, spelt exactly so (lower case): any
 *   other value is INVALID_PARAMETER naming the two. Left out, they are the defaults (`name`,
 *   `false`), and the engine gets `undefined`, so a request without them is the request it was.
 * - The entity lookup takes its entityId from the path: the one segment after the prefix, percent-
 *   decoded as strictly as a value but with `+` kept as itself (a path is not a form; RFC 3986
 *   section 3.3), so `%2F` is a "/" inside the id. Its query string must hold no parameter at all,
 *   and neither may that of `POST /graph/v1/changes` (its batch is the body).
 *
 * Cost: one pass over the query string; values without `%` or `+` are substrings, never copied.
 */

import { QuiverError } from "../engine/errors.js";
import { SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_LENGTH, STATEMENTS_MAX_LIMIT } from "../engine/limits.js";
import { quote } from "../engine/quote.js";
import type { SearchOrder, SearchParams, StatementsParams } from "../engine/types.js";
import { limitFromText } from "../engine/validate.js";
import { ENTITY_PATH_PREFIX, ROUTES } from "./routes.js";

/** What a parameter is and, in words, what a caller should give (used in every error sentence). */
interface ParameterSpec {
  readonly required: boolean;
  readonly expects: string;
}

interface EndpointSpec<N extends string> {
  readonly path: string;
  readonly parameters: ReadonlyMap<string, ParameterSpec>;
  readonly names: readonly N[];
}

function endpointSpec<N extends string>(path: string, specs: Record<N, ParameterSpec>): EndpointSpec<N> {
  const names = Object.keys(specs) as N[];
  return { path, names, parameters: new Map(names.map((n) => [n, specs[n]])) };
}

const CURSOR_SPEC: ParameterSpec = {
  required: false,
  expects: "the nextCursor of an earlier response to the same query",
};
const FILTER_SPEC: ParameterSpec = { required: false, expects: "an entityId" };
const COUNT_SPEC: ParameterSpec = {
  required: false,
  expects: "true (the page carries the exact total of the whole walk) or false (the default)",
};

export const SEARCH_ENDPOINT = endpointSpec(ROUTES.search, {
  q: { required: true, expects: `a substring of 1 to ${SEARCH_MAX_QUERY_LENGTH} characters to search for` },
  type: { required: false, expects: 'one entity type character, "0" to "7"' },
  limit: { required: false, expects: `a whole number from 1 to ${SEARCH_MAX_LIMIT}` },
  cursor: CURSOR_SPEC,
  order: { required: false, expects: "name (the default: tier, then name) or score (tier, then score, highest first)" },
  count: COUNT_SPEC,
});

export const STATEMENTS_ENDPOINT = endpointSpec(ROUTES.statements, {
  subjectEntityId: FILTER_SPEC,
  predicateEntityId: FILTER_SPEC,
  objectEntityId: FILTER_SPEC,
  limit: { required: false, expects: `a whole number from 1 to ${STATEMENTS_MAX_LIMIT}` },
  cursor: CURSOR_SPEC,
  count: COUNT_SPEC,
});

/** The lookup takes no query parameter at all. */
export const ENTITY_ENDPOINT = endpointSpec(ROUTES.entity, {});

/** Nor does a change batch: the batch is the body (CONTRACT.md: an unknown parameter is 400). */
export const CHANGES_ENDPOINT = endpointSpec(ROUTES.changes, {});

/** The spellings `order` takes, and what each means to the engine. */
const ORDERS: ReadonlyMap<string, SearchOrder> = new Map([
  ["name", "name"],
  ["score", "score"],
]);
/** The spellings `count` takes. */
const COUNTS: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["false", false],
]);

export function parseSearchParams(query: string): SearchParams {
  const v = collectParameters(query, SEARCH_ENDPOINT);
  if (v.q === undefined) {
    throw new QuiverError(
      "MISSING_PARAMETER",
      `The parameter "q" is required: give ${expects(SEARCH_ENDPOINT, "q")}.`,
      { parameter: "q" },
    );
  }
  return {
    q: v.q,
    // Any string: the engine checks it is one of "0".."7" (it checks at run time for every caller).
    type: v.type as SearchParams["type"],
    limit: v.limit === undefined ? undefined : limitFromText(v.limit, SEARCH_MAX_LIMIT),
    cursor: v.cursor,
    order: v.order === undefined ? undefined : oneOf(SEARCH_ENDPOINT, "order", v.order, ORDERS),
    count: v.count === undefined ? undefined : oneOf(SEARCH_ENDPOINT, "count", v.count, COUNTS),
  };
}

export function parseStatementsParams(query: string): StatementsParams {
  const v = collectParameters(query, STATEMENTS_ENDPOINT);
  return {
    subjectEntityId: v.subjectEntityId,
    predicateEntityId: v.predicateEntityId,
    objectEntityId: v.objectEntityId,
    limit: v.limit === undefined ? undefined : limitFromText(v.limit, STATEMENTS_MAX_LIMIT),
    cursor: v.cursor,
    count: v.count === undefined ? undefined : oneOf(STATEMENTS_ENDPOINT, "count", v.count, COUNTS),
  };
}

/**
 * The entityId a lookup path names (the router has matched the path: the prefix, then one non-empty
 * segment), percent-decoded; the query string is checked to hold no parameter. The path is decoded
 * first, as it comes first in the target.
 */
export function parseEntityLookup(path: string, query: string): string {
  const entityId = decodePercent(path.slice(ENTITY_PATH_PREFIX.length), false, PATH_ENTITY_ID, "entityId");
  collectParameters(query, ENTITY_ENDPOINT);
  return entityId;
}

/** Checks that the query string of `POST /graph/v1/changes` holds no parameter (400 naming the first). */
export function checkChangesQuery(query: string): void {
  collectParameters(query, CHANGES_ENDPOINT);
}

/** The meaning of a value that must be one of a few spellings; any other is INVALID_PARAMETER. */
function oneOf<N extends string, T>(
  endpoint: EndpointSpec<N>,
  name: N,
  value: string,
  allowed: ReadonlyMap<string, T>,
): T {
  const meaning = allowed.get(value);
  if (meaning !== undefined) return meaning;
  throw new QuiverError(
    "INVALID_PARAMETER",
    `The parameter ${quote(name)} is ${quote(value)}: give ${expects(endpoint, name)}.`,
    { parameter: name },
  );
}

/** Splits and decodes the query string, checking names, repeats, encoding and emptiness. */
export function collectParameters<N extends string>(
  query: string,
  endpoint: EndpointSpec<N>,
): Partial<Record<N, string>> {
  const values: Partial<Record<string, string>> = {};
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end === -1) end = query.length;
    if (end > start) {
      const eq = query.indexOf("=", start);
      const hasValue = eq !== -1 && eq < end;
      const rawName = query.slice(start, hasValue ? eq : end);
      const name = decodeComponent(rawName, rawName, "name");
      const spec = endpoint.parameters.get(name);
      // Unknown before anything else: a misspelt name is the likeliest mistake, and its value means nothing.
      if (spec === undefined) {
        // The lookup takes none: any parameter is unknown there, and there is no list to give.
        const accepted = endpoint.names.length === 0 ? "takes no parameters" : `accepts ${listNames(endpoint.names)}`;
        throw new QuiverError("UNKNOWN_PARAMETER", `Unknown parameter ${quote(name)}: ${endpoint.path} ${accepted}.`, {
          parameter: name,
        });
      }
      if (values[name] !== undefined) {
        throw new QuiverError(
          "REPEATED_PARAMETER",
          `The parameter ${quote(name)} is given more than once; give it once.`,
          {
            parameter: name,
          },
        );
      }
      const value = hasValue ? decodeComponent(query.slice(eq + 1, end), name, "value") : "";
      if (value === "") {
        throw new QuiverError(
          "EMPTY_PARAMETER",
          `The parameter ${quote(name)} is empty: give ${spec.expects}` + (spec.required ? "." : ", or leave it out."),
          { parameter: name },
        );
      }
      values[name] = value;
    }
    start = end + 1;
  }
  return values as Partial<Record<N, string>>;
}

/** Anything that needs work beyond taking the substring as it is. */
const NEEDS_DECODING = /[%+\u0080-\uffff]/;
/** A character the query string may not hold as it is (it must be percent-encoded). */
const RAW_NON_ASCII = /[\u0080-\uffff]/;
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Percent-decodes one name or value of the query string ("+" is a space). `parameter` is the name
 * reported on failure (for a name that fails to decode, its raw text).
 */
export function decodeComponent(raw: string, parameter: string, part: "name" | "value"): string {
  // Fast path: nothing encoded, which is most identifiers and every cursor (no sentence is made).
  if (!NEEDS_DECODING.test(raw)) return raw;
  return decodePercent(raw, true, part === "name" ? PARAMETER_NAME : PARAMETER_VALUE, parameter);
}

/** What a failing component is, in the words that begin its error sentence (made only on failure). */
type Described = (parameter: string) => string;
const PARAMETER_NAME: Described = (parameter) => `The parameter name ${quote(parameter)}`;
const PARAMETER_VALUE: Described = (parameter) => `The value of ${quote(parameter)}`;
const PATH_ENTITY_ID: Described = () => "The entityId in the path";

/**
 * Percent-decodes `raw` as UTF-8; `plusIsSpace` for the query string (a form's rule), not for a
 * path segment. `describe(parameter)` begins each error sentence; `parameter` is the name the error carries.
 */
function decodePercent(raw: string, plusIsSpace: boolean, describe: Described, parameter: string): string {
  // Fast path: nothing encoded, which is most identifiers and every cursor.
  if (!NEEDS_DECODING.test(raw)) return raw;
  // Percent-encoded ASCII (a space, a name's UTF-8 bytes): the JavaScript engine's own decoder,
  // which checks UTF-8 as strictly as the fatal TextDecoder below (RFC 3629: no overlong form,
  // surrogate or byte past U+10FFFF; test/http/params.test.ts compares the two on seeded random
  // bytes) at a fraction of its cost, with no bytes made first. It knows neither "+" nor raw
  // non-ASCII: "+" is replaced first, raw non-ASCII goes below, and whatever it refuses goes below
  // too, to be named precisely.
  if (!RAW_NON_ASCII.test(raw)) {
    try {
      return decodeURIComponent(plusIsSpace && raw.includes("+") ? raw.replaceAll("+", " ") : raw);
    } catch {
      // Malformed: the loop below finds out how, for the error.
    }
  }
  const what = describe(parameter);
  const bytes = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 /* % */) {
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) {
        throw new QuiverError(
          "INVALID_ENCODING",
          `${what} has a "%" that is not followed by two hexadecimal digits; write a literal "%" as %25.`,
          { parameter },
        );
      }
      bytes[n++] = (hi << 4) | lo;
      i += 2;
    } else if (c === 0x2b /* + */ && plusIsSpace) {
      bytes[n++] = 0x20;
    } else if (c >= 0x80) {
      throw new QuiverError(
        "INVALID_ENCODING",
        `${what} has a raw non-ASCII character; percent-encode its UTF-8 bytes (for example "é" as %C3%A9).`,
        { parameter },
      );
    } else {
      bytes[n++] = c;
    }
  }
  try {
    return UTF8.decode(bytes.subarray(0, n));
  } catch {
    throw new QuiverError(
      "INVALID_ENCODING",
      `${what} is not valid UTF-8 once percent-decoded; percent-encode the UTF-8 bytes of each character (for example "é" as %C3%A9).`,
      { parameter },
    );
  }
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1; // also NaN past the end of the string
}

function expects<N extends string>(endpoint: EndpointSpec<N>, name: N): string {
  return endpoint.parameters.get(name)?.expects ?? "a value";
}

function listNames(names: readonly string[]): string {
  return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}

/**
 * Strict query-string parsing, by hand-checkable examples: what a query string becomes, and which
 * code and parameter each bad one is refused with.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { QuiverError } from "../../src/engine/errors.js";
import { decodeComponent, parseEntityLookup, parseSearchParams, parseStatementsParams } from "../../src/http/params.js";
import { Rng } from "../support/oracle.js";

function refused(fn: () => unknown): QuiverError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, QuiverError);
    return e as QuiverError;
  }
  throw new Error("expected a QuiverError");
}

test("search: values as given, absent ones undefined", () => {
  assert.equal(parseSearchParams("q=berlin"), {
    q: "berlin",
    type: undefined,
    limit: undefined,
    cursor: undefined,
    order: undefined,
    count: undefined,
  });
  assert.equal(parseSearchParams("limit=5&type=3&q=a&cursor=AbC_-9&order=score&count=true"), {
    q: "a",
    type: "3",
    limit: 5,
    cursor: "AbC_-9",
    order: "score",
    count: true,
  });
});

test("decoding: %XX in either case, '+' as space, UTF-8, a BOM kept, '=' inside a value", () => {
  assert.is(parseSearchParams("q=Stra%C3%9Fe").q, "Straße");
  assert.is(parseSearchParams("q=stra%c3%9fe").q, "straße");
  assert.is(parseSearchParams("q=a+b%20c%2Bd").q, "a b c+d");
  assert.is(parseSearchParams("q=%F0%9F%98%80").q, "\u{1F600}");
  assert.is(parseSearchParams("q=%EF%BB%BFx").q, "\uFEFFx");
  assert.is(parseSearchParams("q=a=b").q, "a=b");
  assert.is(parseSearchParams("q=%00").q, "\u0000");
  assert.is(parseSearchParams("%71=x").q, "x", "names are decoded too");
});

test("empty pairs are skipped", () => {
  assert.is(parseSearchParams("&&q=a&&").q, "a");
});

test("limit: digits only, no leading zeros, in range: one check and one sentence, the engine's", () => {
  assert.is(parseSearchParams("q=a&limit=100").limit, 100);
  assert.is(parseSearchParams("q=a&limit=1").limit, 1);
  assert.is(parseStatementsParams("limit=200").limit, 200);
  for (const bad of [
    "0",
    "101",
    "1.5",
    "abc",
    "%2B3",
    "-1",
    "+3",
    "%203",
    "1e2",
    "0x10",
    "007",
    "00",
    "%D9%A1%D9%A2",
    "%EF%BC%91",
  ]) {
    const e = refused(() => parseSearchParams(`q=a&limit=${bad}`));
    assert.is(e.code, "INVALID_LIMIT", bad);
    assert.is(e.parameter, "limit");
    assert.match(e.message, /^limit must be a whole number from 1 to 100, in plain digits/);
  }
  assert.is(refused(() => parseSearchParams("q=a&limit=9007199254740993")).code, "INVALID_LIMIT");
  assert.is(refused(() => parseStatementsParams("limit=201")).code, "INVALID_LIMIT");
});

test("each refusal: its code and the parameter it names", () => {
  const cases: [string, string, string][] = [
    ["", "MISSING_PARAMETER", "q"],
    ["q=", "EMPTY_PARAMETER", "q"],
    ["q", "EMPTY_PARAMETER", "q"],
    ["q=a&q=a", "REPEATED_PARAMETER", "q"],
    ["q=a&x=1", "UNKNOWN_PARAMETER", "x"],
    ["q=a&__proto__=1", "UNKNOWN_PARAMETER", "__proto__"],
    ["q=a&constructor=1", "UNKNOWN_PARAMETER", "constructor"],
    ["q=%", "INVALID_ENCODING", "q"],
    ["q=%2", "INVALID_ENCODING", "q"],
    ["q=%zz", "INVALID_ENCODING", "q"],
    ["q=%C3%28", "INVALID_ENCODING", "q"],
    ["q=%ED%BF%BF", "INVALID_ENCODING", "q"],
    ["q=%F4%90%80%80", "INVALID_ENCODING", "q"],
    ["q=\u00e9", "INVALID_ENCODING", "q"],
    ["%C3=1", "INVALID_ENCODING", "%C3"],
  ];
  for (const [query, code, parameter] of cases) {
    const e = refused(() => parseSearchParams(query));
    assert.is(e.code, code, query);
    assert.is(e.parameter, parameter, query);
    assert.ok(e.message.includes(parameter), e.message);
  }
});

test("left to right, the first fault wins; missing q only after the scan", () => {
  assert.is(refused(() => parseSearchParams("x=1&q=")).code, "UNKNOWN_PARAMETER");
  assert.is(refused(() => parseSearchParams("q=&x=1")).code, "EMPTY_PARAMETER");
  assert.is(refused(() => parseSearchParams("limit=abc")).code, "MISSING_PARAMETER");
  assert.is(refused(() => parseSearchParams("q=a&q=%ZZ")).code, "REPEATED_PARAMETER");
});

test("statements: all optional; filters, limit, cursor", () => {
  assert.equal(parseStatementsParams(""), {
    subjectEntityId: undefined,
    predicateEntityId: undefined,
    objectEntityId: undefined,
    limit: undefined,
    cursor: undefined,
    count: undefined,
  });
  assert.equal(parseStatementsParams("objectEntityId=Q5&subjectEntityId=Q42&predicateEntityId=P31&limit=200"), {
    subjectEntityId: "Q42",
    predicateEntityId: "P31",
    objectEntityId: "Q5",
    limit: 200,
    cursor: undefined,
    count: undefined,
  });
  assert.is(parseStatementsParams("count=true").count, true);
  assert.is(parseStatementsParams("count=false").count, false);
  assert.is(refused(() => parseStatementsParams("q=a")).code, "UNKNOWN_PARAMETER");
  assert.is(refused(() => parseStatementsParams("subjectEntityId=")).parameter, "subjectEntityId");
});

test("order and count: the exact spellings, the defaults left undefined, every other value refused", () => {
  assert.is(parseSearchParams("q=a&order=name").order, "name");
  assert.is(parseSearchParams("q=a&order=score").order, "score");
  assert.is(parseSearchParams("q=a&count=false").count, false);
  assert.is(parseSearchParams("q=a&count=true").count, true);
  assert.is(parseSearchParams("q=a&order=sc%6Fre").order, "score", "values are decoded first");
  const cases: [string, string, string][] = [
    ["q=a&order=", "EMPTY_PARAMETER", "order"],
    ["q=a&order", "EMPTY_PARAMETER", "order"],
    ["q=a&count=", "EMPTY_PARAMETER", "count"],
    ["q=a&order=name&order=name", "REPEATED_PARAMETER", "order"],
    ["q=a&count=true&count=false", "REPEATED_PARAMETER", "count"],
    ["q=a&Order=score", "UNKNOWN_PARAMETER", "Order"],
    ["q=a&order=Score", "INVALID_PARAMETER", "order"],
    ["q=a&order=rank", "INVALID_PARAMETER", "order"],
    ["q=a&order=score+", "INVALID_PARAMETER", "order"],
    ["q=a&order=%FF", "INVALID_ENCODING", "order"],
    ["q=a&count=TRUE", "INVALID_PARAMETER", "count"],
    ["q=a&count=1", "INVALID_PARAMETER", "count"],
    ["q=a&count=yes", "INVALID_PARAMETER", "count"],
    ["q=a&count=%74rue%20", "INVALID_PARAMETER", "count"],
    ["count=true", "MISSING_PARAMETER", "q"],
  ];
  for (const [query, code, parameter] of cases) {
    const e = refused(() => parseSearchParams(query));
    assert.is(e.code, code, query);
    assert.is(e.parameter, parameter, query);
  }
  assert.is(refused(() => parseStatementsParams("count=0")).code, "INVALID_PARAMETER");
  assert.is(refused(() => parseStatementsParams("order=score")).code, "UNKNOWN_PARAMETER", "statements have no order");
});

test("entity lookup: the path segment percent-decoded ('+' kept, %2F a slash), no query parameter at all", () => {
  const lookup = (segment: string, query = "") => parseEntityLookup(`/graph/v1/entities/${segment}`, query);
  assert.is(lookup("Q42"), "Q42");
  assert.is(lookup("a%2Fb"), "a/b");
  assert.is(lookup("a%2fb%3Fc%23d%25"), "a/b?c#d%");
  assert.is(lookup("a+b%20c"), "a+b c", "a path is not a form: '+' is itself");
  assert.is(lookup("Z%C3%BCrich"), "Zürich");
  assert.is(lookup("%F0%9F%98%80"), "\u{1F600}");
  assert.is(lookup("Q1", ""), "Q1");
  assert.is(lookup("Q1", "&&"), "Q1", "empty pairs are no parameters");
  for (const [segment, query, code, parameter] of [
    ["Q1", "x=1", "UNKNOWN_PARAMETER", "x"],
    ["Q1", "entityId=Q1", "UNKNOWN_PARAMETER", "entityId"],
    ["Q1", "x", "UNKNOWN_PARAMETER", "x"],
    ["Q1", "%FF=1", "INVALID_ENCODING", "%FF"],
    ["a%", "", "INVALID_ENCODING", "entityId"],
    ["a%2", "", "INVALID_ENCODING", "entityId"],
    ["%C3%28", "", "INVALID_ENCODING", "entityId"],
    ["%ED%A0%80", "", "INVALID_ENCODING", "entityId"],
    ["\u00e9", "", "INVALID_ENCODING", "entityId"],
    ["%C3", "x=1", "INVALID_ENCODING", "entityId"],
  ] as const) {
    const e = refused(() => lookup(segment, query));
    assert.is(e.code, code, `${segment}?${query}`);
    assert.is(e.parameter, parameter, `${segment}?${query}`);
  }
  assert.match(refused(() => lookup("%C3%28")).message, /^The entityId in the path is not valid UTF-8/);
});

test("decodeComponent: the fast path returns the very string", () => {
  const s = "AbC_-9.~";
  assert.is(decodeComponent(s, "cursor", "value"), s);
});

/**
 * What a value decodes to, by the rules alone: "+" a space, %XX a byte, other ASCII itself, raw
 * non-ASCII refused; the bytes then strict UTF-8 (the fatal TextDecoder). "error:<reason>" when refused.
 */
function decodedByTheRules(raw: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x80) return "error:raw";
    if (c === 0x2b) bytes.push(0x20);
    else if (c !== 0x25) bytes.push(c);
    else {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return "error:percent";
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(Uint8Array.from(bytes));
  } catch {
    return "error:utf8";
  }
}

test("decodeComponent agrees with the rules on seeded random values: valid and broken UTF-8, bad escapes, '+', raw non-ASCII", () => {
  const rng = new Rng(20261124);
  // Pieces drawn in turn: printable ASCII, "+", escapes of any byte (so of broken UTF-8 too: lone
  // continuations, overlongs, surrogates, bytes past U+10FFFF, truncated sequences), escapes of
  // whole characters, a bad escape, a raw non-ASCII character.
  const pieces: (() => string)[] = [
    () => String.fromCharCode(rng.range(0x20, 0x7e)).replace(/[%+]/, "a"),
    () => "+",
    () => `%${rng.range(0, 255).toString(16).padStart(2, "0")}`,
    () => `%${rng.range(0x80, 0xff).toString(16).toUpperCase()}`,
    () => encodeURIComponent(String.fromCodePoint(rng.pick([rng.range(0x80, 0xd7ff), rng.range(0xe000, 0x10ffff)]))),
    () => rng.pick(["%", "%4", "%G1", "%%", "%ED%A0%80", "%C0%80", "%F4%90%80%80", "%EF%BB%BF"]),
    () => String.fromCharCode(rng.range(0x80, 0xffff)),
  ];
  for (let round = 0; round < 5000; round++) {
    let raw = "";
    const n = rng.range(1, 8);
    for (let i = 0; i < n; i++) raw += rng.pick(pieces)();
    const want = decodedByTheRules(raw);
    let got: string;
    try {
      got = decodeComponent(raw, "q", "value");
    } catch (e) {
      assert.instance(e, QuiverError);
      assert.is((e as QuiverError).code, "INVALID_ENCODING", JSON.stringify(raw));
      const message = (e as QuiverError).message;
      got = /raw non-ASCII/.test(message) ? "error:raw" : /hexadecimal/.test(message) ? "error:percent" : "error:utf8";
    }
    assert.is(got, want, JSON.stringify(raw));
  }
});

test("messages say what is allowed", () => {
  assert.match(refused(() => parseSearchParams("q=a&x=1")).message, /accepts q, type, limit, cursor, order and count/);
  assert.match(
    refused(() => parseStatementsParams("x=1")).message,
    /accepts subjectEntityId, predicateEntityId, objectEntityId, limit, cursor and count/,
  );
  assert.match(refused(() => parseSearchParams("q=a&order=rank")).message, /"rank".*name .* or score/);
  assert.match(refused(() => parseStatementsParams("count=yes")).message, /"yes".*true .* or false/);
  assert.match(refused(() => parseEntityLookup("/graph/v1/entities/Q1", "q=a")).message, /takes no parameters/);
  assert.match(refused(() => parseSearchParams("q=a&limit=x")).message, /from 1 to 100/);
  assert.match(refused(() => parseStatementsParams("limit=x")).message, /from 1 to 200/);
  assert.match(refused(() => parseSearchParams("")).message, /1 to 256 characters/);
});

test.run();

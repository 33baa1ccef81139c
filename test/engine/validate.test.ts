/**
 * Validation tests
 * ================
 * src/engine/validate.ts against CONTRACT.md's parameter rules: for each check, the values it
 * accepts (and what it returns for them, including the edges: limit 1 and max, q of exactly the
 * maximum length in UTF-16 code units), and for each rejection the QuiverError code and the
 * `parameter` it names, with a message that says what is allowed.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkLimit, checkOptionalText, checkQuery, checkType, limitFromText } from "../../src/engine/validate.js";
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  STATEMENTS_DEFAULT_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "../../src/engine/limits.js";
import { expectCode, show } from "../support/oracle.js";

test("the contract's numbers", () => {
  assert.equal([SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_LENGTH], [20, 100, 256]);
  assert.equal([STATEMENTS_DEFAULT_LIMIT, STATEMENTS_MAX_LIMIT], [50, 200]);
});

test("checkLimit: absent gives the default; 1..max is returned as is", () => {
  assert.is(checkLimit(undefined, 20, 100), 20);
  assert.is(checkLimit(undefined, 50, 200), 50);
  for (const v of [1, 2, 20, 99, 100]) assert.is(checkLimit(v, 20, 100), v);
  assert.is(checkLimit(200, 50, 200), 200);
  assert.is(checkLimit(1.0, 20, 100), 1);
});

test("checkLimit: out of range, fractional, NaN and non-numbers are INVALID_LIMIT on limit", () => {
  const bad: unknown[] = [
    0,
    -1,
    101,
    1000,
    1.5,
    99.9,
    0.5,
    NaN,
    Infinity,
    -Infinity,
    "5",
    "",
    null,
    true,
    [5],
    { limit: 5 },
    5n,
  ];
  for (const v of bad) {
    const label = typeof v === "bigint" ? `${v}n` : show(v);
    const e = expectCode(() => checkLimit(v, 20, 100), "INVALID_LIMIT", "limit", `checkLimit(${label})`);
    assert.ok(e.message.includes("1 to 100"), `${label}: message ${show(e.message)} does not say the range`);
  }
  // The bound is the one passed in: 101 is fine for statements, 201 is not.
  assert.is(checkLimit(101, 50, 200), 101);
  const e = expectCode(() => checkLimit(201, 50, 200), "INVALID_LIMIT", "limit");
  assert.ok(e.message.includes("1 to 200") && e.message.includes("201"), e.message);
});

test("checkQuery: 1..max UTF-16 code units, returned unchanged", () => {
  assert.is(checkQuery("a", 256), "a");
  assert.is(checkQuery(" Straße ", 256), " Straße ");
  assert.is(checkQuery("\u0000", 256), "\u0000");
  const max = "x".repeat(256);
  assert.is(checkQuery(max, 256), max);
  // 128 astral characters are 256 code units: exactly the maximum.
  const astral = "😀".repeat(128);
  assert.is(astral.length, 256);
  assert.is(checkQuery(astral, 256), astral);
});

test("checkQuery: missing, empty, over-long, not a string", () => {
  expectCode(() => checkQuery(undefined, 256), "MISSING_PARAMETER", "q");
  expectCode(() => checkQuery("", 256), "EMPTY_PARAMETER", "q");
  const e = expectCode(() => checkQuery("x".repeat(257), 256), "QUERY_TOO_LONG", "q");
  assert.ok(e.message.includes("257") && e.message.includes("256"), e.message);
  // 128 astral characters and one more code unit: 257 units although only 129 code points.
  expectCode(() => checkQuery(`${"😀".repeat(128)}a`, 256), "QUERY_TOO_LONG", "q");
  expectCode(() => checkQuery("abc", 2), "QUERY_TOO_LONG", "q");
  for (const v of [5, null, ["a"], { q: "a" }, true])
    expectCode(() => checkQuery(v, 256), "INVALID_PARAMETER", "q", show(v));
});

test('checkType: "0".."7" give 0..7, absent gives -1', () => {
  assert.is(checkType(undefined), -1);
  for (let t = 0; t < 8; t++) assert.is(checkType(String(t)), t);
});

test("checkType: empty is EMPTY_PARAMETER; anything else is INVALID_TYPE on type", () => {
  expectCode(() => checkType(""), "EMPTY_PARAMETER", "type");
  for (const v of ["8", "9", "-1", "07", "00", " 1", "1 ", "a", "０", "1.0", 3, 0, null, ["1"]]) {
    const e = expectCode(() => checkType(v), "INVALID_TYPE", "type", `checkType(${show(v)})`);
    assert.ok(e.message.includes('"0" to "7"'), e.message);
  }
});

test("checkOptionalText: absent or non-empty string; names the parameter it was given", () => {
  assert.is(checkOptionalText(undefined, "subjectEntityId"), undefined);
  assert.is(checkOptionalText("Q42", "subjectEntityId"), "Q42");
  assert.is(checkOptionalText(" ", "cursor"), " ");
  for (const name of ["subjectEntityId", "predicateEntityId", "objectEntityId", "cursor"]) {
    expectCode(() => checkOptionalText("", name), "EMPTY_PARAMETER", name);
    expectCode(() => checkOptionalText(42, name), "INVALID_PARAMETER", name);
    expectCode(() => checkOptionalText(null, name), "INVALID_PARAMETER", name);
  }
});

test("rejections describe the value without echoing an unbounded string", () => {
  const e = expectCode(() => checkType("z".repeat(10_000)), "INVALID_TYPE", "type");
  assert.ok(e.message.length < 200, `message is ${e.message.length} characters`);
});

test("limitFromText: the digits of a query string, with checkLimit's sentence", () => {
  assert.is(limitFromText("1", 100), 1);
  assert.is(limitFromText("100", 100), 100);
  assert.is(limitFromText("200", 200), 200);
  const sentences = new Set<string>();
  for (const bad of ["0", "101", "007", "+1", "-1", "1.0", "1e2", " 1", "", "99999999999999999999", "١"]) {
    const e = expectCode(() => limitFromText(bad, 100), "INVALID_LIMIT", "limit", `limitFromText(${show(bad)})`);
    assert.ok(e.message.endsWith(`got ${JSON.stringify(bad)}.`), e.message);
    sentences.add(e.message.slice(0, e.message.indexOf("got ")));
  }
  sentences.add(expectCode(() => checkLimit(0, 20, 100), "INVALID_LIMIT", "limit").message.replace(/got .*$/, ""));
  assert.is(sentences.size, 1, "one sentence for both, whatever is wrong");
});

test.run();

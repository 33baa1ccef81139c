/**
 * Entity tags: the digest of a request's canonical parameters is a function of them and of the
 * graph's seed, and tells apart every pair of keys in a seeded random set, neighbours included
 * (one code unit more, an odd key and the even key one NUL longer, keys that differ in one unit).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import type { SearchParams, StatementsParams } from "../../src/engine/types.js";
import {
  entityKey,
  searchDigest,
  searchKey,
  statementsDigest,
  statementsKey,
  tagDigest,
  tagSeed,
} from "../../src/http/caching.js";
import { Rng } from "../support/oracle.js";

const seed = tagSeed("content", "secret:x");

test("digests are those of the earlier releases (a served tag stays valid across an upgrade)", () => {
  // Made by tagDigest at 2c10838, which joined the digest's characters one string at a time.
  const keys = ["search|2:ab|-|20|-", "statements|3:Q42|-|-|50|-|count", "entity|4:Q\u00e9\u4e2d"];
  assert.equal(
    keys.map((k) => tagDigest(seed, k)),
    ["AgMnBWch_yB90mAm_FGD", "B4AOAJwE6VAqptDSvoFA", "AA3_CMIJ7HAokxBZ54lZ"],
  );
});

test("the same key and seed give the same digest; another seed another", () => {
  const key = "search|2:ab|-|20|-";
  assert.is(tagDigest(seed, key), tagDigest(seed, key));
  assert.is.not(tagDigest(seed, key), tagDigest(tagSeed("other content", "secret:x"), key));
  assert.match(tagDigest(seed, key), /^[A-Za-z0-9_-]{20}$/);
});

test("seeded random keys and their neighbours all get digests of their own", () => {
  const rng = new Rng(20261124);
  const seen = new Map<string, string>();
  const add = (key: string) => {
    const digest = tagDigest(seed, key);
    const other = seen.get(digest);
    if (other !== undefined && other !== key) assert.unreachable(`${JSON.stringify(key)} and ${JSON.stringify(other)}`);
    seen.set(digest, key);
  };
  for (let round = 0; round < 4000; round++) {
    let key = "";
    const n = rng.range(0, 40);
    for (let i = 0; i < n; i++) key += String.fromCharCode(rng.pick([rng.range(0x20, 0x7e), rng.range(0, 0xffff), 0]));
    add(key);
    add(`${key}\u0000`);
    add(`${key}\u0000\u0000`);
    add(`${key}x`);
    if (key.length > 0) add(key.slice(0, -1));
    if (key.length > 0) add(String.fromCharCode(key.charCodeAt(0) ^ 1) + key.slice(1));
  }
  assert.ok(seen.size > 20_000);
});

test("canonical keys: unchanged without order and count; the defaults spelt out share them; count=true and order=score do not", () => {
  // The keys of before, so the tags of before: a client that sends none of the new parameters keeps its tags.
  assert.is(searchKey({ q: "ab" }, 20), "search|2:ab|-|20|-");
  assert.is(searchKey({ q: "ab", type: "3", limit: 5, cursor: "c" }, 20), "search|2:ab|1:3|5|1:c");
  assert.is(statementsKey({ subjectEntityId: "s" }, 50), "statements|1:s|-|-|50|-");
  const base = { q: "ab", type: "3" as const, limit: 5, cursor: "c" };
  assert.is(searchKey({ ...base, order: "name", count: false }, 20), searchKey(base, 20));
  assert.is(statementsKey({ objectEntityId: "o", count: false }, 50), statementsKey({ objectEntityId: "o" }, 50));
  const keys = [
    searchKey(base, 20),
    searchKey({ ...base, count: true }, 20),
    searchKey({ ...base, order: "score" }, 20),
    searchKey({ ...base, order: "score", count: true }, 20),
    // A cursor that spells what a suffix would: the length prefix keeps them apart.
    searchKey({ ...base, cursor: "c|count" }, 20),
    searchKey({ ...base, cursor: "c|order:score" }, 20),
    statementsKey({ objectEntityId: "o" }, 50),
    statementsKey({ objectEntityId: "o", count: true }, 50),
    entityKey("ab"),
    entityKey("search|2:ab|-|20|-"),
  ];
  assert.is(new Set(keys).size, keys.length, keys.join("\n"));
  assert.is(new Set(keys.map((k) => tagDigest(seed, k))).size, keys.length);
});

test("searchDigest and statementsDigest are tagDigest of searchKey and statementsKey, on seeded random parameters", () => {
  const rng = new Rng(20261126);
  const text = () => {
    let s = "";
    const n = rng.range(0, 30);
    for (let i = 0; i < n; i++) s += String.fromCharCode(rng.pick([rng.range(0x20, 0x7e), rng.range(0, 0xffff), 0x7c]));
    return s;
  };
  const maybe = <T>(value: () => T): T | undefined => (rng.chance(0.5) ? undefined : value());
  for (let round = 0; round < 3000; round++) {
    const roundSeed = tagSeed(`content ${round % 7}`, "secret:x");
    const search: SearchParams = {
      q: text(),
      type: maybe(() => rng.pick(["0", "3", "7"] as const)),
      limit: maybe(() => rng.range(1, 1000)),
      cursor: maybe(text),
      order: maybe(() => rng.pick(["name", "score"] as const)),
      count: maybe(() => rng.pick([true, false])),
    };
    assert.is(searchDigest(roundSeed, search, 20), tagDigest(roundSeed, searchKey(search, 20)));
    const statements: StatementsParams = {
      subjectEntityId: maybe(text),
      predicateEntityId: maybe(text),
      objectEntityId: maybe(text),
      limit: maybe(() => rng.range(1, 1000)),
      cursor: maybe(text),
      count: maybe(() => rng.pick([true, false])),
    };
    assert.is(statementsDigest(roundSeed, statements, 50), tagDigest(roundSeed, statementsKey(statements, 50)));
  }
});

test.run();

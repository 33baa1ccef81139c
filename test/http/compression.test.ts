/**
 * Content-coding negotiation: each Accept-Encoding value gets its coding whatever values came before
 * it (negotiateEncoding keeps the last value's answer), asked in a seeded random order with repeats.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { type ContentEncoding, negotiateEncoding } from "../../src/http/compression.js";
import { Rng } from "../support/oracle.js";

const CASES: [string | readonly string[] | undefined, ContentEncoding][] = [
  [undefined, "identity"],
  ["", "identity"],
  ["gzip", "gzip"],
  ["x-gzip", "gzip"],
  ["br", "br"],
  ["gzip, deflate, br", "br"],
  ["gzip;q=1, br;q=0.5", "gzip"],
  ["br;q=0", "identity"],
  ["br;q=0, gzip", "gzip"],
  ["*", "br"],
  ["*;q=0", "identity"],
  ["gzip;q=0, *", "br"],
  ["identity", "identity"],
  ["GZIP", "gzip"],
  [["gzip", "br;q=0"], "gzip"],
  [["br"], "br"],
];

test("each Accept-Encoding value gets its coding, asked in any order and repeated", () => {
  const rng = new Rng(20261126);
  for (let i = 0; i < 5000; i++) {
    const [header, coding] = rng.pick(CASES);
    assert.is(negotiateEncoding(header), coding, JSON.stringify(header));
    // The same value again, as a client sends it: the same answer.
    if (rng.chance(0.5)) assert.is(negotiateEncoding(header), coding, JSON.stringify(header));
  }
});

test.run();

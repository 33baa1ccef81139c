/**
 * batch-chain.ts: a batch's digest hashed off the thread (WebCrypto, the thread pool) equals the
 * one made on it, for texts of every kind of code unit a batch may hold.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { batchDigest, batchDigestOffThread } from "../../../src/engine/live/batch-chain.js";
import { Rng } from "../../support/oracle.js";

test("batchDigestOffThread equals batchDigest (ASCII, Latin-1, other BMP, astral, U+0000, a lone surrogate, empty, a MB)", async () => {
  const rng = new Rng(71);
  const units = ["a", "{", '"', "\n", "é", "ÿ", "Ω", "中", "😀", "\u0000", "\ud800", "\u2028"];
  const texts = ["", "x", "a".repeat(1 << 20)];
  for (let k = 0; k < 60; k++) texts.push(Array.from({ length: rng.range(1, 400) }, () => rng.pick(units)).join(""));
  for (const text of texts)
    assert.is(await batchDigestOffThread(text), batchDigest(text), JSON.stringify(text.slice(0, 40)));
});

test.run();

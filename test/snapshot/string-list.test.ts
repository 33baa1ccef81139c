/**
 * String list tests
 * =================
 * src/snapshot/string-list.ts: lists of every awkward kind (empty, empty strings, U+0000, lone
 * surrogates, astral pairs, Latin-1 only) round-trip exactly in batches of any size, encoded in one
 * batch size and decoded in another; the blob is one byte a code unit exactly when every code unit
 * is below 256; offsets that could not have been written are named.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { decodeStringList, encodeStringList, stringListProblem } from "../../src/snapshot/string-list.js";
import { Rng } from "../support/oracle.js";

test("round trip: Latin-1 and UTF-16 lists (lone surrogates, U+0000, empty strings), in batches of any size", () => {
  const lists: string[][] = [
    [],
    [""],
    ["", "", ""],
    ["a", "", "bc", "\u0000", "ÿé", "x".repeat(50), ""],
    ["Straße", "😀", "\uD800", "\uDFFF", "", "中文", "a\u0000b", "\uFFFF", "y".repeat(40)],
  ];
  const rng = new Rng(3);
  lists.push(
    Array.from({ length: 300 }, () =>
      String.fromCharCode(...Array.from({ length: rng.int(9) }, () => rng.int(rng.chance(0.5) ? 256 : 0x10000))),
    ),
  );
  for (const list of lists) {
    for (const batch of [1, 2, 3, 7, 64, 1 << 20]) {
      const { offsets, blob } = encodeStringList(list, batch);
      assert.is(
        blob instanceof Uint16Array,
        list.some((x) => /[^\u0000-\u00ff]/.test(x)),
      );
      assert.is(stringListProblem(offsets, blob), undefined);
      assert.equal(decodeStringList(offsets, blob, batch), list, `batch ${batch}`);
      assert.equal(decodeStringList(offsets, blob, 5), list, `encoded in batches of ${batch}, decoded in 5`);
    }
  }
});

test("hand-checked: offsets in code units, blob as written", () => {
  const { offsets, blob } = encodeStringList(["ab", "", "ÿ"]);
  assert.equal(offsets, Uint32Array.of(0, 2, 2, 3));
  assert.equal(blob, Uint8Array.of(0x61, 0x62, 0xff));
  const wide = encodeStringList(["a", "€"]);
  assert.equal(wide.blob, Uint16Array.of(0x61, 0x20ac));
});

test("offsets a writer never makes are named", () => {
  const blob = Uint8Array.of(1, 2, 3);
  assert.match(stringListProblem(new Uint32Array(0), blob)!, /offsets are empty/);
  assert.match(stringListProblem(Uint32Array.of(1, 3), blob)!, /do not span/);
  assert.match(stringListProblem(Uint32Array.of(0, 2), blob)!, /do not span/);
  assert.match(stringListProblem(Uint32Array.of(0, 3, 2, 3), blob)!, /offsets 1 and 2 are out of order/);
  assert.is(stringListProblem(Uint32Array.of(0), new Uint8Array(0)), undefined);
});

test.run();

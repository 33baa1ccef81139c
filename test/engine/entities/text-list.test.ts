/**
 * Text list tests: strings in and out unchanged (Latin-1 and wider, empty, astral, U+0000), compare
 * and equals in JavaScript order, the serial form round trip, and entries pointing outside their
 * store refused.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { TextList } from "../../../src/engine/entities/text-list.js";
import { Rng } from "../../support/oracle.js";

const SAMPLES = [
  "",
  "a",
  "Dürer",
  "Ελλάδα",
  "字",
  "😀 emoji",
  "\u0000x",
  "ÿ",
  "Ā",
  "plain ascii text longer than thirteen",
];

test("get returns every string; lengths and code units add up", () => {
  const list = TextList.from(SAMPLES);
  assert.is(list.length, SAMPLES.length);
  SAMPLES.forEach((s, i) => {
    assert.is(list.get(i), s);
    assert.is(list.lengthOf(i), s.length);
  });
  assert.is(list.codeUnits, SAMPLES.join("").length);
});

test("compare and equals agree with JavaScript string order", () => {
  const rng = new Rng(4);
  const pieces = ["a", "b", "é", "😀", "\uE000", "ｆ", ""];
  const strings = Array.from({ length: 60 }, () => rng.pick(pieces) + rng.pick(pieces) + rng.pick(pieces));
  const list = TextList.from(strings);
  for (let i = 0; i < strings.length; i++) {
    for (const other of strings) {
      const a = strings[i]!;
      const want = a < other ? -1 : a > other ? 1 : 0;
      assert.is(Math.sign(list.compare(i, other)), want, `${JSON.stringify(a)} vs ${JSON.stringify(other)}`);
      assert.is(list.equals(i, other), a === other);
    }
  }
});

test("serial form: round trip; an entry outside its store is corrupt", () => {
  const list = TextList.from(SAMPLES);
  const w = new MemorySerialWriter();
  list.serialize(w);
  const back = TextList.deserialize(new MemorySerialReader(w.fields));
  assert.equal(
    Array.from({ length: back.length }, (_, i) => back.get(i)),
    SAMPLES,
  );
  const index = (w.fields.get("index") as Uint32Array).slice();
  index[3] = 1_000_000; // the second string's length, far past its store
  w.fields.set("index", index);
  assert.throws(() => TextList.deserialize(new MemorySerialReader(w.fields)), /outside its store/);
});

test.run();

/**
 * Entity id table tests
 * =====================
 * src/load/entity-id-table.ts against a Map on seeded random ids (ASCII, non-ASCII, prefixes of
 * one another, ids short enough to sit in their slot and longer ones with a tail, the empty string
 * never an id): every id is found as its index, with its hash, from its UTF-8 bytes inside a larger
 * line, and byte strings that are no id (a prefix, an extension, one byte changed) are not found.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  entityHashHi,
  entityHashLo,
  findEntityId,
  findEntitySlot,
  makeEntityIdTable,
} from "../../src/load/entity-id-table.js";
import { Rng } from "../support/oracle.js";

const ALPHABET = ["Q", "P", "1", "2", "9", "a", "_", "é", "ß", "中", " ", "\u{1F600}"];

function randomId(rng: Rng): string {
  const length = 1 + Math.floor(rng.float() * 9);
  let id = "";
  for (let i = 0; i < length; i++) id += ALPHABET[Math.floor(rng.float() * ALPHABET.length)]!;
  return id;
}

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: every id is found as its index, and nothing else is`, () => {
    const rng = new Rng(seed);
    const index = new Map<string, number>();
    const ids: string[] = [];
    while (ids.length < 3000) {
      const id = randomId(rng);
      if (index.has(id)) continue;
      index.set(id, ids.length);
      ids.push(id);
    }
    const hashes = Uint32Array.from({ length: 2 * ids.length }, () => Math.floor(rng.float() * 2 ** 32));
    const table = makeEntityIdTable(ids, hashes);
    let long = 0;
    const lookUp = (text: string): number => {
      // Inside a line: bytes before and after the value are not part of it.
      const line = Buffer.from(`{"x":"${text}"}`, "utf8");
      const start = Buffer.byteLength('{"x":"');
      return findEntityId(table, line, start, start + Buffer.byteLength(text, "utf8"));
    };
    for (const [id, i] of index) {
      assert.is(lookUp(id), i, id);
      const line = Buffer.from(`"${id}"`, "utf8");
      const slot = findEntitySlot(table, line, 1, line.length - 1);
      assert.is(entityHashHi(table, slot), hashes[2 * i], id);
      assert.is(entityHashLo(table, slot), hashes[2 * i + 1], id);
      if (line.length - 2 > 16) long++;
    }
    // Both kinds of id were asked: whole in their slot, and with a tail.
    assert.ok(long > 100 && long < ids.length - 100, String(long));
    for (let k = 0; k < 3000; k++) {
      const base = ids[Math.floor(rng.float() * ids.length)]!;
      for (const other of [base.slice(0, -1), `${base}Q`, `Q${base}`, randomId(rng)]) {
        assert.is(lookUp(other), index.get(other) ?? -1, other);
      }
    }
    assert.is(lookUp(""), -1);
  });
}

test.run();

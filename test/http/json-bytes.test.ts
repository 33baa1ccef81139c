/**
 * JsonBytes writes exactly the bytes of Buffer.from(JSON.stringify(s)) for any string: seeded random
 * code units from every class the encoder branches on (printable ASCII, the escaped ASCII, the
 * controls with and without a short escape, two- and three-byte code points, surrogate pairs, lone
 * and reversed surrogates, U+2028, U+FFFF), at lengths that cross its growth and its keep limit.
 */

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { JsonBytes, jsonLiteral, type StringWriter, stringBound } from "../../src/http/json-bytes.js";
import * as generated from "../../src/http/string-writers.generated.js";
import { Rng } from "../support/oracle.js";

/** One code unit of each class, drawn in turn. */
const CLASSES: ((rng: Rng) => string)[] = [
  (rng) => String.fromCharCode(rng.range(0x20, 0x7e)),
  (rng) => rng.pick(['"', "\\", "/", "\u007f"]),
  (rng) => String.fromCharCode(rng.range(0x00, 0x1f)),
  (rng) => String.fromCharCode(rng.range(0x80, 0x7ff)),
  (rng) => String.fromCharCode(rng.pick([rng.range(0x800, 0xd7ff), rng.range(0xe000, 0xffff)])),
  (rng) => String.fromCodePoint(rng.range(0x10000, 0x10ffff)),
  (rng) => String.fromCharCode(rng.range(0xd800, 0xdbff)),
  (rng) => String.fromCharCode(rng.range(0xdc00, 0xdfff)),
  (rng) => rng.pick(["\u2028", "\u2029", "\uffff", "\udc00\ud800", "\ud800\ud800\udc00"]),
];

function randomText(rng: Rng, length: number): string {
  let s = "";
  while (s.length < length) s += rng.pick(CLASSES)(rng);
  return s;
}

/** `parts` as a JSON array, each part written by `write` (the writer's general string method unless given). */
function written(writer: JsonBytes, parts: string[], write?: StringWriter): Buffer {
  writer.begin();
  writer.reserve(1);
  writer.byte(0x5b); // [
  parts.forEach((part, i) => {
    writer.reserve(1 + stringBound(part));
    if (i > 0) writer.byte(0x2c);
    if (write === undefined) writer.string(part);
    else write(writer, part);
  });
  writer.reserve(1);
  writer.literal(jsonLiteral("]"));
  return writer.take();
}

test("seeded random strings come out as the bytes of JSON.stringify", () => {
  const rng = new Rng(20261124);
  const writer = new JsonBytes();
  for (let round = 0; round < 400; round++) {
    const parts = Array.from({ length: rng.range(0, 12) }, () => randomText(rng, rng.range(0, 40)));
    assert.equal(written(writer, parts), Buffer.from(JSON.stringify(parts)), JSON.stringify(parts));
  }
});

test("each field's generated copy of the string writer writes the same bytes, copies fed different text in turn", () => {
  // The serializers use one copy per field (string-writers.generated.ts): each must be the one writer.
  const copies = Object.values(generated) as StringWriter[];
  assert.is(copies.length, 11);
  assert.is(new Set(copies).size, copies.length);
  const rng = new Rng(20261125);
  const writer = new JsonBytes();
  for (let round = 0; round < 300; round++) {
    const parts = Array.from({ length: rng.range(0, 8) }, () => randomText(rng, rng.range(0, 30)));
    const copy = copies[round % copies.length]!;
    assert.equal(written(writer, parts, copy), Buffer.from(JSON.stringify(parts)), JSON.stringify(parts));
  }
});

test("where code from strings is forbidden, the serializers load and write the same bytes", () => {
  // A hardened node (--disallow-code-generation-from-strings) refuses `new Function` and eval: the
  // HTTP layer makes no code from strings (its per-field writers are generated source), so it loads
  // there, with the same writers and the same bytes.
  const serialize = fileURLToPath(new URL("../../src/http/serialize.js", import.meta.url));
  const page = {
    items: [{ entityId: 'Q"1', rawIdentifier: "é\u0001\ud800 x", type: "3", sourceType: "wiki" }],
    nextCursor: "abc",
  };
  const script = `import(${JSON.stringify(serialize)}).then((m) => process.stdout.write(m.entityPage(${JSON.stringify(page)}).toString("base64")))`;
  const run = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "-e", script], {
    encoding: "utf8",
  });
  assert.is(run.status, 0, run.stderr);
  assert.is(Buffer.from(run.stdout, "base64").toString("utf8"), JSON.stringify(page));
});

test("every code unit alone, and the bound holds for each", () => {
  const writer = new JsonBytes();
  for (let c = 0; c <= 0xffff; c++) {
    const s = String.fromCharCode(c);
    const bytes = written(writer, [s]);
    assert.ok(bytes.equals(Buffer.from(JSON.stringify([s]))), `U+${c.toString(16)}`);
    assert.ok(bytes.length - 2 <= stringBound(s), `bound of U+${c.toString(16)}`);
  }
});

test("pages past the buffer grow it, pages past the keep limit drop it, and the next page is right", () => {
  const rng = new Rng(7);
  const writer = new JsonBytes();
  for (const length of [10, 40_000, 5, 300_000, 3, 0]) {
    const parts = [randomText(rng, length), "tail"];
    assert.equal(written(writer, parts), Buffer.from(JSON.stringify(parts)), `length ${length}`);
  }
});

test("a text that fills its reservation to the last byte, around the first growth, is whole", () => {
  // Control characters are the worst case (six bytes each): the bound is exact for them. Lengths
  // around 32 kB / 6 put the end of the text on each side of the first buffer's end.
  for (let length = 5440; length <= 5480; length++) {
    const parts = ["\u0001".repeat(length)];
    assert.equal(written(new JsonBytes(), parts), Buffer.from(JSON.stringify(parts)), `length ${length}`);
  }
});

test("the buffer is kept for the next page up to 1 MiB, and a larger one is dropped", () => {
  const writer = new JsonBytes();
  const small = writer.capacity;
  written(writer, ["a".repeat(100_000)]);
  const grown = writer.capacity;
  assert.ok(grown > small && grown <= 1024 * 1024, `grown to ${grown}`);
  written(writer, ["b"]);
  assert.is(writer.capacity, grown, "kept");
  written(writer, ["c".repeat(1024 * 1024)]);
  assert.ok(writer.capacity > 1024 * 1024);
  writer.begin();
  assert.is(writer.capacity, small, "dropped");
});

test("take copies: a body taken stays as it was after the next page is written", () => {
  const writer = new JsonBytes();
  const first = written(writer, ["first"]);
  written(writer, ["second, longer"]);
  assert.is(first.toString("utf8"), '["first"]');
});

test.run();

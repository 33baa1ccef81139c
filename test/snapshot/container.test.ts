/**
 * Container tests
 * ===============
 * src/snapshot/container.ts on sections of its own making (no graph): every kind round-trips, arrays
 * come back as 8-aligned views in place, kept sections precede transient ones and transientSplit cuts
 * where they start; the header's refusals, each in words (foreign, empty, truncated, trailing bytes,
 * older and newer formats, flags); and damage to each field of a table entry, found through the
 * table reader itself (readTable's `entryAt`), refused even when the checksum is made to match.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import {
  ALIGNMENT,
  encodeContainer,
  FORMAT_VERSION,
  HEADER_BYTES,
  MIN_FORMAT_VERSION,
  openContainer,
  readHeader,
  readTable,
  type SectionInput,
  transientSplit,
} from "../../src/snapshot/container.js";
import { Rng } from "../support/oracle.js";
import { concat, expectInvalid, fixChecksum } from "../support/snapshot.js";

/** One section of every kind, odd lengths, empty ones, transient ones in between kept ones. */
function sampleSections(): SectionInput[] {
  return [
    { name: "a.bytes", kind: "u8", data: Uint8Array.of(1, 2, 3), transient: false },
    { name: "a.units", kind: "u16", data: Uint16Array.of(0xffff, 0, 7), transient: true },
    { name: "count", kind: "integer", value: 2 ** 53 - 1 },
    { name: "zero", kind: "integer", value: 0 },
    { name: "b.words", kind: "u32", data: Uint32Array.of(0xffffffff, 5), transient: false },
    { name: "b.empty", kind: "u32", data: new Uint32Array(0), transient: false },
    { name: "b.signed", kind: "i32", data: Int32Array.of(-1, 2 ** 31 - 1, -(2 ** 31)), transient: false },
    { name: "c.doubles", kind: "f64", data: Float64Array.of(0.5, -Infinity), transient: true },
    { name: "tag", kind: "text", value: "Straße 😀" },
    { name: "empty-text", kind: "text", value: "" },
    { name: "c.last_one", kind: "u8", data: new Uint8Array(0), transient: true },
  ];
}

function sampleFile(): Uint8Array {
  return concat(encodeContainer(sampleSections()));
}

test("round trip: every kind comes back equal; arrays are 8-aligned views on the file's buffer", () => {
  const bytes = sampleFile();
  const { table, values } = openContainer(bytes, "sample.snap");
  assert.is(table.header.version, FORMAT_VERSION);
  assert.is(table.header.totalLength, bytes.length);
  for (const s of sampleSections()) {
    const got = values.get(s.name);
    if (s.kind === "integer" || s.kind === "text") assert.is(got, s.value, s.name);
    else {
      assert.equal(got, s.data, s.name);
      const view = got as Uint8Array;
      assert.ok(view.buffer === bytes.buffer, `${s.name} is a view on the file`);
      assert.is(view.byteOffset % ALIGNMENT, 0, s.name);
    }
  }
  assert.is(values.size, sampleSections().length);
});

test("layout: kept sections first in the order given, then transient ones; transientSplit cuts at the first of those", () => {
  const bytes = sampleFile();
  const { sections } = readTable(bytes, "sample.snap");
  assert.equal(
    sections.map((s) => s.name),
    [
      "a.bytes",
      "count",
      "zero",
      "b.words",
      "b.empty",
      "b.signed",
      "tag",
      "empty-text",
      "a.units",
      "c.doubles",
      "c.last_one",
    ],
  );
  for (const s of sections) {
    if (s.kind !== "integer") assert.is(s.offset % ALIGNMENT, 0, s.name);
    assert.is(s.transient, ["a.units", "c.doubles", "c.last_one"].includes(s.name), s.name);
  }
  const split = transientSplit(bytes, bytes.length);
  assert.is(split, sections.find((s) => s.name === "a.units")!.offset);
  for (const s of sections) if (!s.transient) assert.ok(s.offset + s.byteLength <= split, s.name);
  // Two pieces cut there open the same; the kept arrays view the head.
  const head = bytes.slice(0, split);
  const { values } = openContainer({ head, tail: bytes.slice(split) }, "pieces.snap");
  assert.ok((values.get("b.words") as Uint32Array).buffer === head.buffer);
  assert.equal(values.get("c.doubles"), Float64Array.of(0.5, -Infinity));
  // No transient section: one piece. A start too short to hold the table: one piece.
  const kept = concat(encodeContainer([{ name: "x", kind: "u8", data: Uint8Array.of(1), transient: false }]));
  assert.is(transientSplit(kept, kept.length), kept.length);
  assert.is(transientSplit(bytes.subarray(0, HEADER_BYTES + 3), bytes.length), bytes.length);
  assert.is(transientSplit(new Uint8Array(10), 5000), 5000);
});

test("writing: bad or repeated names and negative integers are bugs, thrown as plain errors", () => {
  const u8 = Uint8Array.of(1);
  assert.throws(() => encodeContainer([{ name: "a..b", kind: "u8", data: u8, transient: false }]), /not valid/);
  assert.throws(() => encodeContainer([{ name: "é", kind: "u8", data: u8, transient: false }]), /not valid/);
  assert.throws(
    () => encodeContainer([{ name: "x".repeat(256), kind: "u8", data: u8, transient: false }]),
    /not valid/,
  );
  assert.throws(
    () =>
      encodeContainer([
        { name: "a", kind: "integer", value: 1 },
        { name: "a", kind: "u8", data: u8, transient: true },
      ]),
    /written twice/,
  );
  assert.throws(() => encodeContainer([{ name: "a", kind: "integer", value: -1 }]), RangeError);
});

test("header: foreign, empty, truncated, trailing bytes, flags: each refused in words", () => {
  const bytes = sampleFile();
  expectInvalid(() => openContainer(new Uint8Array(0), "e.snap"), "e.snap", /empty file \(0 bytes\)/);
  expectInvalid(() => openContainer(new Uint8Array(4096), "z.snap"), "z.snap", /not a Quiver snapshot \(bad magic\)/);
  expectInvalid(() => openContainer(new TextEncoder().encode('{"entityId":1}\n'), "j.snap"), "j.snap", /bad magic/);
  for (const cut of [1, 8, 11, 12, HEADER_BYTES - 1, HEADER_BYTES, bytes.length - 1]) {
    expectInvalid(() => openContainer(bytes.slice(0, cut), "t.snap"), "t.snap", /truncated/, `cut ${cut}`);
  }
  const longer = new Uint8Array(bytes.length + 8);
  longer.set(bytes);
  expectInvalid(() => openContainer(longer, "l.snap"), "l.snap", /8 unexpected bytes after the end/);
  const flagged = bytes.slice();
  flagged[12] = 1;
  expectInvalid(() => openContainer(fixChecksum(flagged), "f.snap"), "f.snap", /unknown flags 0x1/);
  const flipped = bytes.slice();
  flipped[bytes.length - 9] = flipped[bytes.length - 9]! ^ 4;
  expectInvalid(() => openContainer(flipped, "c.snap"), "c.snap", /checksum mismatch: the file is corrupted/);
  // A caller's checksum, computed while reading, is trusted in place of a second pass.
  expectInvalid(
    () => openContainer(bytes, "k.snap", { checksum: readHeader(bytes, "k.snap").checksum ^ 1 }),
    "k.snap",
    /checksum mismatch/,
  );
});

test("header: an older or a newer format is refused by its version, before anything else is read", () => {
  // The magic and the version sit at bytes 0..11 in every format; nothing else of an older one is read.
  const older = new Uint8Array(704);
  older.set(sampleFile().subarray(0, 8));
  new DataView(older.buffer).setUint32(8, 1, true);
  expectInvalid(
    () => openContainer(older, "old.snap"),
    "old.snap",
    new RegExp(
      `^old\\.snap: made with snapshot format 1 by an older Quiver \\(this one reads formats ${MIN_FORMAT_VERSION} to ${FORMAT_VERSION}\\); rebuild it with quiver build$`,
    ),
  );
  expectInvalid(() => openContainer(older.subarray(0, 12), "old.snap"), "old.snap", /format 1 by an older Quiver/);
  const newer = sampleFile();
  new DataView(newer.buffer).setUint32(8, FORMAT_VERSION + 1, true);
  expectInvalid(
    () => openContainer(newer, "new.snap"),
    "new.snap",
    new RegExp(
      `made with snapshot format ${FORMAT_VERSION + 1} by a newer Quiver \\(this one reads formats ${MIN_FORMAT_VERSION} to ${FORMAT_VERSION}\\); upgrade Quiver or rebuild it with quiver build`,
    ),
  );
  const zero = sampleFile();
  new DataView(zero.buffer).setUint32(8, 0, true);
  expectInvalid(() => openContainer(zero, "zero.snap"), "zero.snap", /format version 0/);
});

test("table: damage to each field of an entry is refused, checksum made to match", () => {
  const bytes = sampleFile();
  const { sections } = readTable(bytes, "sample.snap");
  const at = (name: string) => sections.find((s) => s.name === name)!;
  const damaged = (change: (view: DataView) => void): Uint8Array => {
    const copy = bytes.slice();
    change(new DataView(copy.buffer));
    return fixChecksum(copy);
  };
  const words = at("b.words");
  const cases: [string, (v: DataView) => void, RegExp][] = [
    ["kind", (v) => v.setUint8(words.entryAt, 99), /entry 3 has unknown kind 99/],
    ["flags", (v) => v.setUint8(words.entryAt + 1, 2), /entry 3 has unknown flags/],
    ["reserved", (v) => v.setUint32(words.entryAt + 4, 1, true), /entry 3 has unknown flags/],
    ["name length 0", (v) => v.setUint16(words.entryAt + 2, 0, true), /entry 3 has a name of 0 bytes/],
    ["name length", (v) => v.setUint16(words.entryAt + 2, 9, true), /invalid name|do not fill|unknown kind/],
    ["name", (v) => v.setUint8(words.entryAt + 24, 0x20), /entry 3 has an invalid name/],
    ["misaligned", (v) => v.setUint32(words.entryAt + 8, words.offset + 4, true), /b\.words .* not 8-aligned/],
    ["before the data", (v) => v.setUint32(words.entryAt + 8, 8, true), /b\.words .* outside the data area/],
    ["past the end", (v) => v.setUint32(words.entryAt + 16, 1 << 20, true), /b\.words .* outside the data area/],
    ["huge", (v) => v.setUint32(words.entryAt + 20, 1 << 22, true), /out of range/],
    ["overlap", (v) => v.setUint32(words.entryAt + 8, at("b.signed").offset, true), /overlap/],
    ["integer offset", (v) => v.setUint32(at("count").entryAt + 8, 8, true), /integer section count has an offset/],
    ["integer flagged", (v) => v.setUint8(at("zero").entryAt + 1, 1), /integer section zero has an offset or flags/],
    ["count", (v) => v.setUint32(24, sections.length + 1, true), /runs past the table|do not fit/],
    ["fewer", (v) => v.setUint32(24, sections.length - 1, true), /do not fill/],
    ["table bytes", (v) => v.setUint32(32, 12, true), /does not fit|do not fit/],
    ["header reserved", (v) => v.setUint32(36, 5, true), /reserved word/],
  ];
  for (const [what, change, pattern] of cases) {
    expectInvalid(() => openContainer(damaged(change), "d.snap"), "d.snap", pattern, what);
  }
  // One name given twice: the second entry renamed to the first's (same length).
  const twice = damaged((v) => {
    const second = at("b.empty");
    v.setUint16(second.entryAt + 2, 5, true);
    for (let i = 0; i < 8; i++) v.setUint8(second.entryAt + 24 + i, i < 5 ? "count".charCodeAt(i) : 0);
  });
  expectInvalid(() => openContainer(twice, "d.snap"), "d.snap", /section count appears twice/);
  // Invalid UTF-8 in a text.
  const text = damaged((v) => v.setUint8(at("tag").offset, 0xff));
  expectInvalid(() => openContainer(text, "d.snap"), "d.snap", /section tag is not valid UTF-8/);
});

test("table: any flipped byte of the header or table is refused or reads back a table that is still valid", () => {
  const bytes = sampleFile();
  const { header } = readTable(bytes, "s.snap");
  const rng = new Rng(7);
  for (let i = 0; i < HEADER_BYTES + header.tableBytes; i++) {
    for (const flip of [0xff, 1 << rng.int(8)]) {
      const bad = bytes.slice();
      bad[i] = bad[i]! ^ flip;
      try {
        const { values } = openContainer(i === 28 ? bad : fixChecksum(bad), "flip.snap");
        // Survivors changed nothing a reader relies on, or renamed a section within the name rules.
        assert.ok(values.size <= sampleSections().length, `byte ${i}`);
      } catch (e) {
        expectInvalid(
          () => {
            throw e;
          },
          "flip.snap",
          undefined,
          `byte ${i}`,
        );
      }
    }
  }
});

test.run();

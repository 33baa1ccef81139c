/**
 * Fingerprint column tests: src/engine/statements/fingerprint-column.ts on seeded random rows in each layout
 * (none given, every row hex, a mix of hex, text and derived rows): `given` and `hexHalves` read back
 * what the builder was given, row by row, and `touchHalves` shows where exactly those halves lie
 * (every-row-hex layout) or is null (the others). fromHexBits makes the column build
 * makes of hex-only rows, section for section, and so does gathered from columns by input row read
 * in a shuffled order. The serial forms: each layout, and a column fromHexBits made (two arrays),
 * read back from its interleaved halves (format 7), and a format 6 form (the halves in two arrays,
 * hi and lo) reads back the same rows and saves as format 7's sections.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { FingerprintColumn, type GivenFingerprint } from "../../../src/engine/statements/fingerprint-column.js";
import { type Hash64, hex64 } from "../../../src/engine/hash64.js";
import { Rng } from "../../support/oracle.js";
import { BitVector } from "../../../src/engine/succinct/bit-vector.js";
import { ContainerWriter } from "../../../src/snapshot/container-serial.js";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";

type Kind = "none" | "hex" | "mixed";

function randomGiven(rng: Rng, n: number, kind: Kind): GivenFingerprint[] {
  return Array.from({ length: n }, (_, row): GivenFingerprint => {
    if (kind === "none") return undefined;
    const hex = { hi: rng.int(0x100000000) >>> 0, lo: rng.int(0x100000000) >>> 0 };
    if (kind === "hex") return hex;
    const pick = rng.int(3);
    return pick === 0 ? hex : pick === 1 ? `fp-${row}-${rng.int(1000)}` : undefined;
  });
}

for (const kind of ["none", "hex", "mixed"] as const) {
  test(`${kind}: given and hexHalves read back every row; touchHalves points at the halves of the rows asked`, () => {
    const rng = new Rng(kind.length * 7 + 1);
    const n = 3000;
    const given = randomGiven(rng, n, kind);
    const column = FingerprintColumn.build(n, (row) => given[row]);
    const halves: Hash64 = [0, 0];
    for (let row = 0; row < n; row++) {
      const g = given[row];
      const want = g === undefined ? undefined : typeof g === "string" ? g : hex64(g.hi, g.lo);
      assert.is(column.given(row), want, `row ${row}`);
      const isHex = g !== undefined && typeof g !== "string";
      assert.is(column.hexHalves(row, halves), isHex, `row ${row}`);
      if (isHex) assert.equal([halves[0], halves[1]], [g.hi, g.lo], `row ${row}`);
    }
    const rows = Uint32Array.from({ length: 50 }, () => rng.int(n));
    let want = 0;
    if (kind === "hex")
      for (const row of rows)
        want ^= (given[row] as { hi: number; lo: number }).hi ^ (given[row] as { hi: number; lo: number }).lo;
    // touchHalves: where the halves lie, for a page's own loop of reads (every-row-hex layout only).
    const at = column.touchHalves;
    assert.is(at === null, kind !== "hex");
    assert.is(foldHalves(column, rows), want);
  });
}

/** The serial sections of `column`, with their bytes. */
function sections(column: FingerprintColumn): string {
  const w = new ContainerWriter();
  column.serialize(w);
  return JSON.stringify(w.sections, (_, v: unknown) =>
    ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex") : v,
  );
}

for (const share of [0, 0.4, 1]) {
  test(`fromHexBits (${share * 100}% of the rows hex, the rest derived) makes the column build makes`, () => {
    const rng = new Rng(31 + share * 10);
    const n = 2000;
    const given: GivenFingerprint[] = Array.from({ length: n }, () =>
      rng.int(1000) < share * 1000 ? { hi: rng.int(0x100000000) >>> 0, lo: rng.int(0x100000000) >>> 0 } : undefined,
    );
    const rows: number[] = [];
    const hi: number[] = [];
    const lo: number[] = [];
    given.forEach((g, row) => {
      if (g === undefined || typeof g === "string") return;
      rows.push(row);
      hi.push(g.hi);
      lo.push(g.lo);
    });
    const built = FingerprintColumn.build(n, (row) => given[row]);
    const bits = new BitVector(n);
    for (const row of rows) bits.set(row);
    const from = FingerprintColumn.fromHexBits(n, bits.seal(), Uint32Array.from(hi), Uint32Array.from(lo));
    assert.is(sections(from), sections(built));
    for (let row = 0; row < n; row++) assert.is(from.given(row), built.given(row), `row ${row}`);
  });
}

for (const share of [0, 0.4, 1]) {
  test(`gathered (${share * 100}% of the rows hex, the rest derived, in a shuffled order) makes the column build makes`, () => {
    const rng = new Rng(53 + share * 10);
    const n = 2000;
    const flags = new Uint8Array(n);
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let row = 0; row < n; row++) {
      // Derived rows keep halves too (the builder's columns do): gathered must not read them.
      hi[row] = rng.int(0x100000000) >>> 0;
      lo[row] = rng.int(0x100000000) >>> 0;
      flags[row] = rng.int(1000) < share * 1000 ? 1 : 0;
    }
    const order = Uint32Array.from({ length: n }, (_, j) => j);
    for (let j = n - 1; j > 0; j--) {
      const k = rng.int(j + 1);
      [order[j], order[k]] = [order[k]!, order[j]!];
    }
    const built = FingerprintColumn.build(n, (j) => {
      const row = order[j]!;
      return flags[row] === 1 ? { hi: hi[row]!, lo: lo[row]! } : undefined;
    });
    const gathered = FingerprintColumn.gathered(order, flags, hi, lo);
    assert.is(sections(gathered), sections(built));
    for (let j = 0; j < n; j++) assert.is(gathered.given(j), built.given(j), `row ${j}`);
  });
}

/** Whether `a` and `b` answer given, hexHalves and touchHalves alike for every row of `given`. */
function assertSameRows(a: FingerprintColumn, b: FingerprintColumn, n: number, rng: Rng): void {
  assert.is(a.length, b.length);
  assert.is(a.hexCount, b.hexCount);
  assert.is(a.byteLength, b.byteLength);
  const ha: Hash64 = [0, 0];
  const hb: Hash64 = [0, 0];
  for (let row = 0; row < n; row++) {
    assert.is(a.given(row), b.given(row), `row ${row}`);
    assert.is(a.hexHalves(row, ha), b.hexHalves(row, hb), `row ${row}`);
    assert.equal(ha, hb, `row ${row}`);
  }
  const rows = Uint32Array.from({ length: 64 }, () => rng.int(n));
  assert.is(foldHalves(a, rows), foldHalves(b, rows));
}

/** The fold of `rows`' halves read where touchHalves says they lie (0: it says none). */
function foldHalves(column: FingerprintColumn, rows: Uint32Array): number {
  const at = column.touchHalves;
  let folded = 0;
  if (at !== null) for (const row of rows) folded ^= at.hi[at.stride * row]! ^ at.lo[at.stride * row + at.loAt]!;
  return folded;
}

/** `column` written to fields and read back (verified). */
function roundTrip(column: FingerprintColumn): FingerprintColumn {
  const w = new MemorySerialWriter();
  column.serialize(w);
  return FingerprintColumn.deserialize(new MemorySerialReader(w.fields));
}

for (const kind of ["none", "hex", "mixed"] as const) {
  test(`${kind}: the serial form (interleaved halves) reads back every row; a format 6 form (hi, lo) too`, () => {
    const rng = new Rng(kind.length * 11 + 5);
    const n = 2500;
    const given = randomGiven(rng, n, kind);
    const built = FingerprintColumn.build(n, (row) => given[row]);
    assertSameRows(roundTrip(built), built, n, rng);
    // The same fields as format 6 wrote them: the halves in two arrays.
    const w = new MemorySerialWriter();
    built.serialize(w);
    const halves = w.fields.get("halves");
    if (kind === "none") assert.is(halves, undefined);
    else {
      assert.ok(halves instanceof Uint32Array);
      const old = new Map(w.fields);
      old.delete("halves");
      old.set(
        "hi",
        halves.filter((_, i) => i % 2 === 0),
      );
      old.set(
        "lo",
        halves.filter((_, i) => i % 2 === 1),
      );
      const fromOld = FingerprintColumn.deserialize(new MemorySerialReader(old));
      assertSameRows(fromOld, built, n, rng);
      // Saved again, it writes format 7's sections.
      assert.is(sections(fromOld), sections(built));
    }
  });
}

test("fromHexBits's column (two arrays) saves interleaved and reads back every row", () => {
  const rng = new Rng(97);
  const n = 3000;
  const given: GivenFingerprint[] = Array.from({ length: n }, () =>
    rng.int(2) === 0 ? { hi: rng.int(0x100000000) >>> 0, lo: rng.int(0x100000000) >>> 0 } : undefined,
  );
  const bits = new BitVector(n);
  const hi: number[] = [];
  const lo: number[] = [];
  given.forEach((g, row) => {
    if (g === undefined || typeof g === "string") return;
    bits.set(row);
    hi.push(g.hi);
    lo.push(g.lo);
  });
  const from = FingerprintColumn.fromHexBits(n, bits.seal(), Uint32Array.from(hi), Uint32Array.from(lo));
  const back = roundTrip(from);
  assertSameRows(back, from, n, rng);
  assertSameRows(
    back,
    FingerprintColumn.build(n, (row) => given[row]),
    n,
    rng,
  );
});

test("an odd count of interleaved halves, or hi and lo of different lengths, is refused", () => {
  const built = FingerprintColumn.build(4, () => ({ hi: 1, lo: 2 }));
  const w = new MemorySerialWriter();
  built.serialize(w);
  const odd = new Map(w.fields);
  odd.set("halves", new Uint32Array(7));
  assert.throws(() => FingerprintColumn.deserialize(new MemorySerialReader(odd)), /odd count/);
  const uneven = new Map(w.fields);
  uneven.delete("halves");
  uneven.set("hi", new Uint32Array(4));
  uneven.set("lo", new Uint32Array(3));
  assert.throws(() => FingerprintColumn.deserialize(new MemorySerialReader(uneven)), /different lengths/);
});

test.run();

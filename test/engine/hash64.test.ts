/**
 * hash64 and fingerprint tests
 * ============================
 * src/engine/hash64.ts and src/engine/statements/fingerprint.ts against an independent FNV-1a-64 written with
 * BigInt, over the byte feed hash64.ts's banner documents (per string: its length as 4 bytes
 * little-endian, then each UTF-16 code unit as 2 bytes little-endian). The BigInt reference is
 * first checked on the published FNV-1a-64 test vectors, so the two cannot share a mistake. Then:
 * literals, seeded random strings (lone surrogates, U+0000, astral, lengths past 255 and 65,535 so
 * every byte of the length prefix is used), hex64's zero padding (and HexPage against it), and
 * deriveFingerprint's shape, order sensitivity and length prefix. hash64Units (stored code units)
 * and hash64String (one string, no array) against the same reference. And fastRange against the exact product in BigInt.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  fastRange,
  hash64,
  hash64String,
  hash64Units,
  hash64Words,
  hex64,
  type Hash64,
} from "../../src/engine/hash64.js";
import { deriveFingerprint, HexPage, readHexFingerprint } from "../../src/engine/statements/fingerprint.js";
import { Rng, show } from "../support/oracle.js";

const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a-64 over raw bytes, with BigInt: the textbook definition. */
function fnv1a64(bytes: readonly number[]): bigint {
  let h = OFFSET_BASIS;
  for (const b of bytes) h = ((h ^ BigInt(b)) * PRIME) & MASK;
  return h;
}

/** The byte feed hash64.ts documents. */
function feed(parts: readonly string[]): number[] {
  const bytes: number[] = [];
  for (const s of parts) {
    const n = s.length;
    bytes.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      bytes.push(c & 0xff, c >>> 8);
    }
  }
  return bytes;
}

function reference(parts: readonly string[]): bigint {
  return fnv1a64(feed(parts));
}

/** The derived fingerprint, the slow way: FNV-1a 64 over the three entityIds' own hashes, 8 bytes each, big-endian. */
const PINNED_FINGERPRINT = "0055d94fe2ca2271";

function referenceFingerprint(s: string, p: string, o: string): bigint {
  const bytes: number[] = [];
  for (const part of [s, p, o]) {
    const h = reference([part]);
    for (let shift = 56n; shift >= 0n; shift -= 8n) bytes.push(Number((h >> shift) & 0xffn));
  }
  return fnv1a64(bytes);
}

function asBigInt([hi, lo]: Hash64): bigint {
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function hex(x: bigint): string {
  return x.toString(16).padStart(16, "0");
}

test("the BigInt reference reproduces the published FNV-1a-64 vectors", () => {
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
  assert.is(hex(fnv1a64([])), "cbf29ce484222325");
  assert.is(hex(fnv1a64(ascii("a"))), "af63dc4c8601ec8c");
  assert.is(hex(fnv1a64(ascii("foobar"))), "85944171f73967e8");
});

test("no parts: the offset basis", () => {
  const h = hash64([]);
  assert.equal(h, [0xcbf29ce4, 0x84222325]);
  assert.is(asBigInt(h), 0xcbf29ce484222325n);
});

test("hash64 equals the reference on literals", () => {
  const cases: string[][] = [
    [""],
    ["", ""],
    ["a"],
    ["Q42", "P31", "Q5"],
    ["a\u0000b", "c"],
    ["a", "b\u0000c"],
    ["Straße", "İstanbul", "ΟΔΟΣ"],
    ["😀", "\uD83D", "\uDE00"],
    ["\uFFFF\u0000\u00FF\u0100"],
  ];
  for (const parts of cases) assert.is(asBigInt(hash64(parts)), reference(parts), show(parts));
  // Halves are uint32, never negative.
  for (const parts of cases) {
    const [hi, lo] = hash64(parts);
    assert.ok(
      hi >= 0 && hi <= 0xffffffff && Number.isInteger(hi) && lo >= 0 && lo <= 0xffffffff && Number.isInteger(lo),
      show(parts),
    );
  }
});

test("hash64 writes into and returns the caller's pair", () => {
  const out: Hash64 = [1, 2];
  const back = hash64(["x"], out);
  assert.ok(back === out);
  assert.is(asBigInt(out), reference(["x"]));
  // A second call overwrites it.
  hash64(["y"], out);
  assert.is(asBigInt(out), reference(["y"]));
});

test("the length prefix: strings past 255 and 65,535 code units", () => {
  for (const n of [255, 256, 257, 65535, 65536, 70001]) {
    const s = "\uD800x".repeat(Math.ceil(n / 2)).slice(0, n);
    assert.is(asBigInt(hash64([s])), reference([s]), `length ${n}`);
    assert.is(asBigInt(hash64([s, "a"])), reference([s, "a"]), `length ${n}, two parts`);
  }
  // Parts are not concatenated: moving a boundary changes the hash.
  assert.is.not(asBigInt(hash64(["ab", "c"])), asBigInt(hash64(["a", "bc"])));
  assert.is.not(asBigInt(hash64(["", "a"])), asBigInt(hash64(["a", ""])));
  assert.is.not(asBigInt(hash64(["a"])), asBigInt(hash64(["a", ""])));
});

const UNITS = [
  0x00, 0x01, 0x41, 0x7f, 0x80, 0xff, 0x100, 0x3a3, 0x4e2d, 0xd800, 0xd83d, 0xdbff, 0xdc00, 0xde00, 0xdfff, 0xe000,
  0xfeff, 0xffff,
];

function randomString(rng: Rng): string {
  const n = rng.chance(0.1) ? rng.range(100, 400) : rng.int(12);
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(rng.chance(0.5) ? rng.pick(UNITS) : rng.int(0x10000));
  return s;
}

test("oracle: hash64 equals the reference on seeded random strings (lone surrogates included)", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    for (let k = 0; k < 50; k++) {
      const parts: string[] = [];
      const n = rng.int(5);
      for (let i = 0; i < n; i++) parts.push(randomString(rng));
      const got = asBigInt(hash64(parts));
      const want = reference(parts);
      if (got !== want)
        assert.unreachable(`seed ${seed}: hash64(${show(parts)}) = ${hex(got)}, reference ${hex(want)}`);
    }
  }
});

test("oracle: hash64Units over stored code units (Latin-1 bytes or UTF-16 units, at an offset) equals the reference", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    for (let k = 0; k < 50; k++) {
      // Half the strings Latin-1 only (stored as bytes), half any code units (stored as 16-bit units).
      const latin1 = rng.chance(0.5);
      const s = latin1
        ? Array.from({ length: rng.chance(0.1) ? rng.range(256, 700) : rng.int(14) }, () =>
            String.fromCharCode(rng.int(0x100)),
          ).join("")
        : randomString(rng);
      const from = rng.int(5);
      const units = latin1 ? new Uint8Array(from + s.length + 3) : new Uint16Array(from + s.length + 3);
      for (let i = 0; i < s.length; i++) units[from + i] = s.charCodeAt(i);
      const got = asBigInt(hash64Units(units, from, s.length, [0, 0]));
      const want = reference([s]);
      if (got !== want)
        assert.unreachable(
          `seed ${seed}: hash64Units(${show(s)}, latin1 ${latin1}) = ${hex(got)}, reference ${hex(want)}`,
        );
    }
  }
});

test("oracle: hash64String(s) equals the reference for [s] (and hash64([s])) on seeded random strings", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    for (let k = 0; k < 50; k++) {
      const s = randomString(rng);
      const out: Hash64 = [7, 7];
      const got = asBigInt(hash64String(s, out));
      const want = reference([s]);
      if (got !== want || asBigInt(hash64([s])) !== want)
        assert.unreachable(`seed ${seed}: hash64String(${show(s)}) = ${hex(got)}, reference ${hex(want)}`);
      assert.is(asBigInt(out), want, "written into the pair given");
    }
  }
});

test("hash64String equals the reference on Latin-1 strings (one step a unit) and at the kept length prefixes' bound", () => {
  // Lengths either side of the prefix states hash64String keeps (1,024), all units below 256, and the
  // same with one unit of 256 or more among them (that unit's two steps).
  for (const n of [0, 1, 7, 1023, 1024, 1025, 2000]) {
    const latin1 = Array.from({ length: n }, (_, i) => String.fromCharCode((i * 37 + 11) & 0xff)).join("");
    assert.is(asBigInt(hash64String(latin1, [0, 0])), reference([latin1]), `Latin-1, length ${n}`);
    if (n > 0) {
      const mixed = `${latin1.slice(0, n >> 1)}\u0100${latin1.slice((n >> 1) + 1)}`;
      assert.is(asBigInt(hash64String(mixed, [0, 0])), reference([mixed]), `one unit past Latin-1, length ${n}`);
    }
  }
  for (let seed = 1; seed <= 20; seed++) {
    const rng = new Rng(seed);
    for (let k = 0; k < 50; k++) {
      const s = Array.from({ length: rng.int(40) }, () => String.fromCharCode(rng.int(0x100))).join("");
      const got = asBigInt(hash64String(s, [0, 0]));
      if (got !== reference([s])) assert.unreachable(`seed ${seed}: hash64String(${show(s)}) = ${hex(got)}`);
    }
  }
});

test("hex64: 16 lowercase digits, zero-padded in each half", () => {
  assert.is(hex64(0, 0), "0000000000000000");
  assert.is(hex64(0, 1), "0000000000000001");
  assert.is(hex64(1, 0), "0000000100000000");
  assert.is(hex64(0xffffffff, 0xffffffff), "ffffffffffffffff");
  assert.is(hex64(0x0123abcd, 0x00ef0001), "0123abcd00ef0001");
  assert.is(hex64(0x0000f000, 0x000a0000), "0000f000000a0000");
  const rng = new Rng(7);
  for (let k = 0; k < 2000; k++) {
    const hi = rng.int(2 ** 32);
    const lo = rng.chance(0.3) ? rng.int(0x10000) : rng.int(2 ** 32);
    const want = hex((BigInt(hi) << 32n) | BigInt(lo));
    if (hex64(hi, lo) !== want) assert.unreachable(`hex64(${hi}, ${lo}) = ${hex64(hi, lo)}, want ${want}`);
  }
});

test("HexPage: every value of a page is hex64 of it, page after page, shorter pages too", () => {
  const rng = new Rng(77);
  const page = new HexPage(200);
  const edges = [0, 1, 9, 10, 15, 16, 0x0fffffff, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
  for (const n of [200, 1, 50, 0, 137, 200]) {
    const values = Array.from({ length: n }, (_, k) =>
      k < edges.length * edges.length
        ? [edges[Math.floor(k / edges.length)]!, edges[k % edges.length]!]
        : [rng.int(2 ** 32), rng.int(2 ** 32)],
    );
    for (const [k, [hi, lo]] of values.entries()) page.set(k, hi!, lo!);
    page.seal(n);
    for (const [k, [hi, lo]] of values.entries()) assert.is(page.get(k), hex64(hi!, lo!), `page of ${n}, value ${k}`);
  }
});

test("deriveFingerprint: the hash of the three entityIds' hashes, 16 lowercase hex digits", () => {
  const fp = deriveFingerprint("Q42", "P31", "Q5");
  assert.match(fp, /^[0-9a-f]{16}$/);
  assert.is(fp, hex(referenceFingerprint("Q42", "P31", "Q5")));
  // Pinned: a derived fingerprint must not change between versions (clients keep them). It changed
  // once, in 0.2.0, from the hash of the three strings to the hash of their hashes (CHANGELOG).
  assert.is(fp, PINNED_FINGERPRINT);
  const rng = new Rng(11);
  for (let k = 0; k < 300; k++) {
    const s = randomString(rng);
    const p = randomString(rng);
    const o = randomString(rng);
    const got = deriveFingerprint(s, p, o);
    if (got !== hex(referenceFingerprint(s, p, o)))
      assert.unreachable(`deriveFingerprint(${show([s, p, o])}) = ${got}`);
  }
});

test("deriveFingerprint is order-sensitive and length-prefixed", () => {
  assert.is.not(deriveFingerprint("s", "p", "o"), deriveFingerprint("o", "p", "s"));
  assert.is.not(deriveFingerprint("s", "p", "o"), deriveFingerprint("p", "s", "o"));
  assert.is.not(deriveFingerprint("a\u0000b", "c", "x"), deriveFingerprint("a", "b\u0000c", "x"));
  assert.is.not(deriveFingerprint("ab", "c", "x"), deriveFingerprint("a", "bc", "x"));
  assert.is.not(deriveFingerprint("a", "a", "a"), deriveFingerprint("a", "a", "b"));
});

test("readHexFingerprint: 16 lowercase hex digits and their two halves, nothing else", () => {
  const out: Hash64 = [7, 7];
  assert.ok(readHexFingerprint("0123456789abcdef", out));
  assert.equal(out, [0x01234567, 0x89abcdef]);
  assert.ok(readHexFingerprint(deriveFingerprint("a", "b", "c"), out));
  for (const bad of [
    "",
    "0123456789abcde",
    "0123456789abcdef0",
    "0123456789ABCDEF",
    "0123456789abcdeg",
    "0123456789abcde/",
    "0123456789abcde:",
    "0123456789abcde`",
    " 123456789abcdef",
    "0123456789abcdef\n",
    "fp-1",
  ]) {
    const kept: Hash64 = [7, 7];
    assert.not.ok(readHexFingerprint(bad, kept), show(bad));
    assert.equal(kept, [7, 7], `${show(bad)} changed out`);
  }
  assert.ok(readHexFingerprint("ffffffff00000000", out));
  assert.equal(out, [0xffffffff, 0]);
  assert.ok(readHexFingerprint("0000000180000000", out));
  assert.equal(out, [1, 0x80000000]);
  const rng = new Rng(5);
  for (let k = 0; k < 500; k++) {
    const fp = deriveFingerprint(String(k), "p", randomString(rng));
    assert.ok(readHexFingerprint(fp, out));
    assert.is(hex64(out[0], out[1]), fp);
  }
});

test("hash64Words equals FNV-1a-64 over each word's 4 bytes, most significant first", () => {
  const rng = new Rng(64);
  for (let round = 0; round < 2000; round++) {
    const words = Array.from({ length: rng.int(8) }, () =>
      rng.chance(0.2) ? [0, 0xffffffff, 0x80000000, 0xff][rng.int(4)]! : rng.int(0x100000000),
    );
    const bytes = words.flatMap((w) => [w >>> 24, (w >>> 16) & 0xff, (w >>> 8) & 0xff, w & 0xff]);
    const [hi, lo] = hash64Words(words);
    assert.is(hex64(hi, lo), fnv1a64(bytes).toString(16).padStart(16, "0"), `words ${words.join(",")}`);
  }
});

test("fastRange is floor(mix * size / 2^32) exactly, below size, at the extremes and at random", () => {
  const rng = new Rng(33);
  const sizes = [1, 2, 3, 1000, 20_000_000, 2 ** 31 - 1, 2 ** 32 - 1];
  const mixes = [0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff];
  for (let k = 0; k < 200; k++) {
    sizes.push(1 + rng.int(2 ** 32 - 1));
    mixes.push(rng.int(2 ** 32));
  }
  for (const size of sizes) {
    for (const mix of mixes) {
      const exact = Number((BigInt(mix) * BigInt(size)) >> 32n);
      const got = fastRange(mix, size);
      if (got !== exact || got >= size) assert.unreachable(`fastRange(${mix}, ${size}) = ${got}, want ${exact}`);
    }
  }
});

test.run();

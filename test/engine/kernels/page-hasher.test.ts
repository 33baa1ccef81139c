/**
 * Page hasher tests
 * =================
 * src/engine/kernels/page-hasher.ts: the assembled WebAssembly module and the JavaScript fallback, each
 * against hash64Words (itself checked against a BigInt FNV-1a 64 in hash64.test.ts) on seeded random
 * words and on the edge words, for pages of every size up to the capacity; a page past it refused.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { hash64Words, type Hash64 } from "../../../src/engine/hash64.js";
import { PAGE_HASHER_CAPACITY, PageHasher } from "../../../src/engine/kernels/page-hasher.js";
import { Rng } from "../../support/oracle.js";

const EDGES = [0, 1, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

test("the WebAssembly module runs on this Node (so the next test checks it, not the fallback)", () => {
  assert.ok(new PageHasher().native);
  assert.not.ok(new PageHasher(false).native);
});

test("oracle: both paths equal hash64Words, pages of 0 to the capacity, random and edge words", () => {
  const rng = new Rng(21);
  const want: Hash64 = [0, 0];
  for (const hasher of [new PageHasher(), new PageHasher(false)]) {
    for (const n of [0, 1, 2, 50, 199, PAGE_HASHER_CAPACITY, 3]) {
      const words: number[][] = [];
      for (let k = 0; k < n; k++) {
        const w = Array.from({ length: 6 }, () => (rng.int(4) === 0 ? rng.pick(EDGES) : rng.int(2 ** 32)));
        words.push(w);
        hasher.setInput(k, w[0]!, w[1]!, w[2]!, w[3]!, w[4]!, w[5]!);
      }
      hasher.hash(n);
      for (let k = 0; k < n; k++) {
        hash64Words(words[k]!, want);
        const got = [hasher.hi(k), hasher.lo(k)];
        if (got[0] !== want[0] || got[1] !== want[1])
          assert.unreachable(`native ${hasher.native}, page of ${n}, item ${k}: ${got} want ${want}`);
      }
    }
  }
});

test("a page past the capacity is refused", () => {
  assert.throws(() => new PageHasher().hash(PAGE_HASHER_CAPACITY + 1), RangeError);
});

test.run();

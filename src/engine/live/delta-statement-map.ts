/**
 * Delta statement map
 * ===================
 * The live graph's delta statements by fingerprint (live-state.ts's `statements`): get, set, delete,
 * size and the values, as a Map<string, DeltaStatement> gives them, for a map that grows to millions
 * of keys (a batch of 10,000 puts enters 10,000).
 *
 * Algorithm: a fingerprint of 16 lowercase hex digits (every derived one, and a given one of that
 * form: statements/fingerprint.ts readHexFingerprint) is its two 32-bit halves, the key of an
 * open-addressing table with linear probing over one Uint32Array, three words a slot: the key's
 * halves and a reference (0: empty; else 1 + the value's index in a dense array of the values). A
 * look-up reads one slot (12 bytes: most often one cache line) and, on a hit, the value; a miss reads
 * no value at all. The first slot of a key is the top bits of a mix of its halves with a random
 * per-map seed (murmur3's fmix32), so given fingerprints cannot be chosen to pile onto one run of
 * slots. A delete shifts the
 * run after the slot back (Knuth's algorithm R: no tombstone slots, so probes never lengthen as keys
 * come and go); a value index freed by a delete is reused by the next set. The table doubles when
 * more than MAX_LOAD full, re-entering the keys from the slots (no string read or hashed; in slot
 * order, so that with top-bit homes the writes stream forward through the new slots). Any other
 * fingerprint (text given by a change) is a key of a plain Map.
 *
 * Why not a Map for all: V8's Map is a hash table of entries chained per bucket, whose look-ups and
 * inserts read a bucket and then an entry (two cache misses apiece at a million keys) and hash the
 * key's characters once per string; and it doubles by rehashing every entry into a new table on
 * the heap. At a delta of a million statements its set was about 7 ms of a 10,000-put batch's
 * commit (node --cpu-prof over the batches of the row "engine: batch of 10,000 statement puts,
 * CPU" of npm run bench:changes).
 *
 * Cost: expected O(1) a call (about 1.5 probed slots a hit, 2.5 a miss at load 1/2); 12 bytes a slot
 * and 1/MAX_LOAD to 2/MAX_LOAD slots a hex key (24 to 48 bytes), plus the dense values' array.
 *
 * Reference: D. Knuth, TAOCP vol. 3, 6.4 (linear probing, algorithm R); A. Appleby, MurmurHash3
 * (fmix32); statements/fingerprint-table.ts (the base's table, the same scheme over rows).
 */

import { randomBytes } from "node:crypto";
import { fmix32, type Hash64 } from "../hash64.js";
import { readHexFingerprint } from "../statements/fingerprint.js";

/** Slots of a new map (a power of two: a first slot is the mix's top bits). */
const INITIAL_SLOTS = 1024;
/** Largest fraction of slots in use before the table doubles. */
const MAX_LOAD = 0.5;
/** Words a slot: hi, lo, reference. */
const SLOT_WORDS = 3;

/** A value with its fingerprint: what the map holds. */
interface Fingerprinted {
  readonly fp: string;
}

export class DeltaStatementMap<V extends Fingerprinted> {
  /** SLOT_WORDS words a slot: hi, lo, 1 + the value's index (0: an empty slot). */
  #slots = new Uint32Array(INITIAL_SLOTS * SLOT_WORDS);
  /** Slots minus one (a mask: the slots are a power of two). */
  #mask = INITIAL_SLOTS - 1;
  /** 32 - log2(slots): a key's first slot is the top bits of its mix. */
  #shift = 32 - Math.log2(INITIAL_SLOTS);
  /** Keys in the table. */
  #used = 0;
  /** The hex keys' values, at the index their slot references; an index freed by a delete holds undefined. */
  #values: (V | undefined)[] = [];
  /** Indexes of #values freed by deletes (reused first). */
  #free: number[] = [];
  /** The other fingerprints (text). */
  readonly #texts = new Map<string, V>();
  readonly #seedHi: number;
  readonly #seedLo: number;
  /** A fingerprint's halves, read into (no pair made a call). */
  readonly #halves: Hash64 = [0, 0];

  constructor() {
    const seed = randomBytes(8);
    this.#seedHi = seed.readUInt32LE(0);
    this.#seedLo = seed.readUInt32LE(4);
  }

  get size(): number {
    return this.#used + this.#texts.size;
  }

  /** The value of fingerprint `fp`, or undefined. */
  get(fp: string): V | undefined {
    const h = this.#halves;
    // Each branch: a 64-bit key, in the table; a text one, in the Map.
    if (!readHexFingerprint(fp, h)) return this.#texts.get(fp);
    const at = this.#find(h[0], h[1]);
    return at < 0 ? undefined : this.#values[this.#slots[at * SLOT_WORDS + 2]! - 1];
  }

  has(fp: string): boolean {
    return this.get(fp) !== undefined;
  }

  /** Enters `value` as fingerprint `fp`'s (replacing the one it had). */
  set(fp: string, value: V): this {
    const h = this.#halves;
    if (!readHexFingerprint(fp, h)) {
      this.#texts.set(fp, value);
      return this;
    }
    const hi = h[0];
    const lo = h[1];
    // One probe: the key's slot, or the empty slot that ends its run (where a new key goes).
    const found = this.#probe(hi, lo);
    if (found >= 0) {
      this.#values[this.#slots[found * SLOT_WORDS + 2]! - 1] = value;
      return this;
    }
    // Each branch: an index a delete freed, or a new one at the end (the array stays packed).
    let index: number;
    if (this.#free.length > 0) {
      index = this.#free.pop()!;
      this.#values[index] = value;
    } else {
      index = this.#values.length;
      this.#values.push(value);
    }
    // Each branch: the table doubles first (the key's empty slot is then found in the new one), or
    // the key goes into the empty slot the probe ended at (no second walk of its run).
    if (this.#used + 1 > (this.#mask + 1) * MAX_LOAD) {
      this.#grow();
      this.#place(hi, lo, index + 1);
    } else {
      const w = ~found * SLOT_WORDS;
      this.#slots[w] = hi;
      this.#slots[w + 1] = lo;
      this.#slots[w + 2] = index + 1;
    }
    this.#used++;
    return this;
  }

  /** Removes fingerprint `fp`; whether it was there. */
  delete(fp: string): boolean {
    const h = this.#halves;
    if (!readHexFingerprint(fp, h)) return this.#texts.delete(fp);
    let at = this.#find(h[0], h[1]);
    if (at < 0) return false;
    const slots = this.#slots;
    const mask = this.#mask;
    const index = slots[at * SLOT_WORDS + 2]! - 1;
    this.#values[index] = undefined;
    this.#free.push(index);
    this.#used--;
    // Algorithm R: the run after the emptied slot moves back past it where its keys' home allows
    // (a key stays put when its home slot lies cyclically in (at, next]).
    for (let next = (at + 1) & mask; ; next = (next + 1) & mask) {
      const ref = slots[next * SLOT_WORDS + 2]!;
      if (ref === 0) break;
      const home = this.#home(slots[next * SLOT_WORDS]!, slots[next * SLOT_WORDS + 1]!);
      // Each branch: the key's home lies between the hole and it (it must stay), or not (it moves into the hole).
      if (at <= next ? at < home && home <= next : at < home || home <= next) continue;
      slots.copyWithin(at * SLOT_WORDS, next * SLOT_WORDS, next * SLOT_WORDS + SLOT_WORDS);
      at = next;
    }
    slots[at * SLOT_WORDS] = 0;
    slots[at * SLOT_WORDS + 1] = 0;
    slots[at * SLOT_WORDS + 2] = 0;
    return true;
  }

  /** @internal The first slot of hex fingerprint `fp` (-1 for text), of slotCount: a test builds clusters with it. */
  homeOf(fp: string): number {
    return readHexFingerprint(fp, this.#halves) ? this.#home(this.#halves[0], this.#halves[1]) : -1;
  }

  /** @internal The table's slots now. */
  get slotCount(): number {
    return this.#mask + 1;
  }

  /** Every value, in no particular order. */
  *values(): IterableIterator<V> {
    for (const v of this.#values) if (v !== undefined) yield v;
    yield* this.#texts.values();
  }

  /** The slot holding key (hi, lo), or -1. */
  #find(hi: number, lo: number): number {
    const at = this.#probe(hi, lo);
    return at >= 0 ? at : -1;
  }

  /** The slot holding key (hi, lo); else ~(the empty slot that ends its run), a negative number. */
  #probe(hi: number, lo: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let at = this.#home(hi, lo); ; at = (at + 1) & mask) {
      const w = at * SLOT_WORDS;
      if (slots[w + 2] === 0) return ~at;
      if (slots[w + 1] === lo && slots[w] === hi) return at;
    }
  }

  /**
   * Key (hi, lo)'s first slot: the top bits of its mix (so that a doubling sends the keys of slot i
   * to slots 2i and 2i + 1 and on: #grow writes the new slots in about the order it reads the old).
   */
  #home(hi: number, lo: number): number {
    return (fmix32(lo ^ this.#seedLo) ^ fmix32(hi ^ this.#seedHi)) >>> this.#shift;
  }

  /** Enters key (hi, lo) with reference `ref` in its first empty slot (the key is not in the table). */
  #place(hi: number, lo: number, ref: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let at = this.#home(hi, lo);
    while (slots[at * SLOT_WORDS + 2] !== 0) at = (at + 1) & mask;
    slots[at * SLOT_WORDS] = hi;
    slots[at * SLOT_WORDS + 1] = lo;
    slots[at * SLOT_WORDS + 2] = ref;
  }

  /**
   * Doubles the slots, the keys entered again from the old ones, in slot order: as homes are top
   * bits, the writes move forward through the new slots (a stream, not a cache miss a key).
   */
  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    this.#mask = (this.#mask << 1) | 1;
    this.#shift--;
    for (let w = 0; w < old.length; w += SLOT_WORDS) {
      const ref = old[w + 2]!;
      if (ref !== 0) this.#place(old[w]!, old[w + 1]!, ref);
    }
  }
}

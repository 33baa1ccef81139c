/**
 * Fingerprint table
 * =================
 * While a graph is loaded: which statement row first used each 64-bit fingerprint (every derived
 * fingerprint, and every given one of 16 lowercase hex digits); and over a built graph's rows, which
 * row holds a fingerprint (live/base-fingerprints.ts: a change names statements by fingerprint). GraphBuilder asks it once per
 * statement, at add time, so a second statement with a fingerprint already used is known on its own
 * line: the same triple is an exact duplicate (kept once), a different one is a conflict naming both
 * lines. k copies of one statement cost k look-ups, O(k).
 *
 * Algorithm: open addressing with linear probing over one Uint32Array of slots, each 0 (empty) or a
 * row + 1. The keys are not copied into the table: a slot's key is read from the builder's fingerprint
 * columns (`keyHi`, `keyLo`), where the row's key already lives. The slot of a key is a mix of its two
 * halves with a random per-table seed (murmur3's fmix32, twice), so a file cannot be written to pile
 * its fingerprints onto one run of slots; the mix is mapped onto the slots by a multiply-shift
 * (Lemire's fastrange), so the table need not be a power of two: `reserve` sizes it to the entries
 * it is told of over MAX_LOAD, not to the next power of two (at 10M statements 80 MB, not 134). The
 * table doubles when it is more than MAX_LOAD full.
 * Each slot keeps a tag in the bits that its row does not need (the low bits of the key's mix: 8 bits
 * at 10M rows, 5 at 100M): a probe passes a slot whose tag differs without reading its row's key (a
 * key read is a cache miss or more: the builder's column, or a built graph's entities and their
 * hashes), so a look-up of a key that is not there, at load 1/2, reads a key about once in 2^tag bits
 * instead of 1.5 times. A table told the most rows it will hold (`maxRows`: a built graph's,
 * live/base-fingerprints.ts) keeps its row bits; one told nothing (the builder's) starts narrow and
 * widens them as its rows grow (`reserve` widens them once for the rows it is told of), each time
 * re-encoding its slots in place: the narrower tag is the wider one's low bits, so no key is read.
 * `touch` reads many keys' first slots at once before their findOrAdd: their cache misses overlap.
 *
 * Cost: expected O(1) probes per look-up (about 1.5 for a hit, 2.5 for a miss at load 1/2). Memory: 4
 * bytes per slot and between 1/MAX_LOAD and 2/MAX_LOAD slots per distinct fingerprint: 8 to 16 bytes
 * per statement while loading (8 when reserved for what comes; 24 during the one copy of a
 * doubling), freed by `release()` at build.
 * `reserve(n)` sizes the table for n entries at once when the caller can estimate them (the loader
 * does, from the statement file's size), so no doubling rereads the keys.
 *
 * Reference: D. Knuth, TAOCP vol. 3, 6.4 (linear probing); A. Appleby, MurmurHash3 (fmix32); D.
 * Lemire, "A fast alternative to the modulo reduction" (2016).
 */

import { randomBytes } from "node:crypto";
import { fastRange, fmix32 } from "../hash64.js";

/** Slots of a new table. */
const INITIAL_SLOTS = 1024;
/** Largest fraction of slots in use before the table doubles. */
const MAX_LOAD = 0.5;
const EMPTY = 0;

/** Reads the fingerprint half of a row; the builder's columns. */
export interface KeyColumn {
  get(row: number): number;
}

/** A table's slots and seeds: the same table over the same keys elsewhere (another thread). */
export interface FingerprintTableState {
  slots: Uint32Array;
  used: number;
  seedHi: number;
  seedLo: number;
  /** Bits of a slot that hold its row + 1 (the rest hold its tag; 32: no tag). */
  rowBits: number;
}

/** Bits that hold 1 to `n` (a slot's row + 1), at least 1. */
function bitsFor(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(n + 1)));
}

export class FingerprintTable {
  private slots: Uint32Array = new Uint32Array(INITIAL_SLOTS);
  private used = 0;
  private readonly seedHi: number;
  private readonly seedLo: number;
  private readonly keyHi: KeyColumn;
  private readonly keyLo: KeyColumn;
  /** Bits of a slot holding row + 1 (the low ones), the mask of them, and of the tag above them (0: none). */
  private rowBits: number;
  private rowMask: number;
  private tagMask: number;
  /** rowBits mod 32: a slot shifted right by it, masked by tagMask, is its tag (0 when it has none). */
  private tagShift: number;
  /**
   * True for a table told neither its most rows nor a state: its row bits follow the rows it is given
   * (widen), so its slots carry as many bits of tag as the rows leave.
   */
  private readonly growingRows: boolean;
  /** What `touch` read: kept so that the reads are not optimized away. */
  private touched = 0;
  /** Slots looked at so far, over every call: the table's work, which tests compare. */
  probes = 0;
  /** Keys read by probes (a slot whose tag matched), over every call: what the tags save, which tests compare. */
  keyReads = 0;

  /**
   * `state`: a table made over the same keys elsewhere (`state()`), taken as it is; else an empty
   * one, whose slots carry tags when `maxRows` (the most rows it will hold) leaves them bits.
   */
  constructor(keyHi: KeyColumn, keyLo: KeyColumn, state?: FingerprintTableState, maxRows?: number) {
    this.keyHi = keyHi;
    this.keyLo = keyLo;
    // Each branch: a table handed over keeps its seeds and tags (its slots were placed by them), a new one draws its own.
    if (state !== undefined) {
      this.slots = state.slots;
      this.used = state.used;
      this.seedHi = state.seedHi;
      this.seedLo = state.seedLo;
      this.rowBits = state.rowBits;
    } else {
      const seed = randomBytes(8);
      this.seedHi = seed.readUInt32LE(0);
      this.seedLo = seed.readUInt32LE(4);
      this.rowBits = maxRows === undefined ? bitsFor(INITIAL_SLOTS) : Math.min(32, bitsFor(maxRows));
    }
    // Each branch: a table told nothing widens its row bits as rows come; a told or handed-over one keeps them.
    this.growingRows = state === undefined && maxRows === undefined;
    this.rowMask = 2 ** this.rowBits - 1;
    this.tagMask = 2 ** (32 - this.rowBits) - 1;
    this.tagShift = this.rowBits & 31;
  }

  /** The slots (shared, not copied) and seeds: what a FingerprintTable over the same keys resumes from. */
  state(): FingerprintTableState {
    return { slots: this.slots, used: this.used, seedHi: this.seedHi, seedLo: this.seedLo, rowBits: this.rowBits };
  }

  /** Distinct fingerprints entered. */
  get size(): number {
    return this.used;
  }

  get byteLength(): number {
    return this.slots.byteLength;
  }

  /**
   * The row that already holds fingerprint (hi, lo), or -1 when none does; then `row` is entered as
   * its holder (the caller writes the key into its columns at `row`).
   */
  findOrAdd(hi: number, lo: number, row: number): number {
    // Each branch: a table that follows its rows makes room for this one; a told one cannot.
    if (row + 1 > this.rowMask) {
      if (!this.growingRows) throw new Error(`FingerprintTable: row ${row} does not fit its ${this.rowBits} bits`);
      this.widen(bitsFor(2 * (row + 1)));
    }
    if (this.used + 1 > this.slots.length * MAX_LOAD) this.grow();
    const slots = this.slots;
    const mix = this.mix(hi, lo);
    const tag = mix & this.tagMask;
    let at = fastRange(mix, slots.length);
    for (;;) {
      this.probes++;
      const entry = slots[at] as number;
      if (entry === EMPTY) {
        slots[at] = row + 1 + tag * (this.rowMask + 1);
        this.used++;
        return -1;
      }
      const other = this.holder(entry, tag);
      if (other >= 0 && this.keyLo.get(other) === lo && this.keyHi.get(other) === hi) return other;
      at = at + 1 === slots.length ? 0 : at + 1;
    }
  }

  /** The row that holds fingerprint (hi, lo), or -1 when none does; nothing is entered. */
  find(hi: number, lo: number): number {
    const slots = this.slots;
    const mix = this.mix(hi, lo);
    const tag = mix & this.tagMask;
    let at = fastRange(mix, slots.length);
    for (;;) {
      this.probes++;
      const entry = slots[at] as number;
      if (entry === EMPTY) return -1;
      const other = this.holder(entry, tag);
      if (other >= 0 && this.keyLo.get(other) === lo && this.keyHi.get(other) === hi) return other;
      at = at + 1 === slots.length ? 0 : at + 1;
    }
  }

  /**
   * find for many keys at once: `out[i]` is the row of key (his[i], los[i]), or -1, for every i
   * below `n`. In rounds over the keys still unresolved: each reads every one's slot (their cache
   * misses overlap, where one find waits for each of its own in turn), then settles it (empty, or
   * its key) or moves it to the next slot for the next round. Same answers as find.
   */
  findMany(his: Uint32Array, los: Uint32Array, n: number, out: Int32Array): void {
    const slots = this.slots;
    const size = slots.length;
    const at = new Uint32Array(n);
    const tags = new Uint32Array(n);
    const todo = new Int32Array(n);
    const entries = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const mix = this.mix(his[i]!, los[i]!);
      tags[i] = mix & this.tagMask;
      at[i] = fastRange(mix, size);
      todo[i] = i;
    }
    for (let count = n; count > 0; ) {
      for (let k = 0; k < count; k++) entries[k] = slots[at[todo[k]!]!]!;
      this.probes += count;
      let next = 0;
      for (let k = 0; k < count; k++) {
        const i = todo[k]!;
        const entry = entries[k]!;
        // Each branch: an empty slot (absent), the key's holder (found), another key's (the next slot, next round).
        if (entry === EMPTY) {
          out[i] = -1;
          continue;
        }
        const other = this.holder(entry, tags[i]!);
        if (other >= 0 && this.keyLo.get(other) === los[i] && this.keyHi.get(other) === his[i]) {
          out[i] = other;
          continue;
        }
        const slot = at[i]! + 1;
        at[i] = slot === size ? 0 : slot;
        todo[next++] = i;
      }
      count = next;
    }
  }

  /**
   * Reads the first slot of keys (his[i], los[i]) for i in [from, to), and nothing else: the reads do
   * not wait for one another, so their cache misses overlap, and findOrAdd of the same keys right
   * after finds their slots in the cache instead of waiting for each miss in turn (a table far larger
   * than the cache misses on nearly every key). Changes no answer.
   */
  touch(his: Uint32Array, los: Uint32Array, from: number, to: number): void {
    const slots = this.slots;
    const size = slots.length;
    let sum = this.touched;
    for (let i = from; i < to; i++) sum ^= slots[fastRange(this.mix(his[i]!, los[i]!), size)]!;
    this.touched = sum;
  }

  /** The row of a full slot `entry` when its tag is `tag` (its key may be the one sought; counted), else -1. */
  private holder(entry: number, tag: number): number {
    // Each branch: another tag is another key (no key read), the same tag asks the key.
    if (((entry >>> this.tagShift) & this.tagMask) !== tag) return -1;
    this.keyReads++;
    return ((entry & this.rowMask) >>> 0) - 1;
  }

  /**
   * Makes room for `entries` fingerprints in all without doubling on the way (each doubling reads
   * every key again, from the builder's columns: a cache miss each). Does nothing when there is room.
   */
  reserve(entries: number): void {
    // A table that follows its rows is told here about how many come: its row bits are widened once.
    if (this.growingRows && bitsFor(entries) > this.rowBits) this.widen(bitsFor(entries));
    const size = Math.ceil(entries / MAX_LOAD);
    if (size > this.slots.length) this.rehash(size);
  }

  /** Frees the slots; the table is empty afterwards (GraphBuilder calls it once loading is over). */
  release(): void {
    this.slots = new Uint32Array(INITIAL_SLOTS);
    this.used = 0;
  }

  /** The mix of key (hi, lo): its first slot is the mix mapped onto the slots (fastRange), its tag the mix's low bits. */
  private mix(hi: number, lo: number): number {
    return fmix32(fmix32(lo ^ this.seedLo) ^ hi ^ this.seedHi);
  }

  /**
   * Gives rows `bits` bits (at most 32), re-encoding every slot in place: a tag is the low bits of its
   * key's mix, so the narrower tag is the old one's low bits and no key is read; no slot moves.
   */
  private widen(bits: number): void {
    const rowBits = Math.min(32, bits);
    if (rowBits <= this.rowBits) return;
    const { rowMask, tagMask, tagShift } = this;
    this.rowBits = rowBits;
    this.rowMask = 2 ** rowBits - 1;
    this.tagMask = 2 ** (32 - rowBits) - 1;
    this.tagShift = rowBits & 31;
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const entry = slots[i] as number;
      if (entry === EMPTY) continue;
      const tag = (entry >>> tagShift) & tagMask & this.tagMask;
      slots[i] = ((entry & rowMask) >>> 0) + tag * (this.rowMask + 1);
    }
  }

  private grow(): void {
    this.rehash(this.slots.length * 2);
  }

  /** Moves every entry into a table of `size` slots. */
  private rehash(size: number): void {
    const old = this.slots;
    const slots = new Uint32Array(size);
    this.slots = slots;
    for (let i = 0; i < old.length; i++) {
      const entry = old[i] as number;
      if (entry === EMPTY) continue;
      const row = ((entry & this.rowMask) >>> 0) - 1;
      let at = fastRange(this.mix(this.keyHi.get(row), this.keyLo.get(row)), size);
      while (slots[at] !== EMPTY) at = at + 1 === size ? 0 : at + 1;
      slots[at] = entry;
    }
  }
}

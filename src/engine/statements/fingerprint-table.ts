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
}

export class FingerprintTable {
  private slots: Uint32Array = new Uint32Array(INITIAL_SLOTS);
  private used = 0;
  private readonly seedHi: number;
  private readonly seedLo: number;
  private readonly keyHi: KeyColumn;
  private readonly keyLo: KeyColumn;
  /** Slots looked at so far, over every call: the table's work, which tests compare. */
  probes = 0;

  /** `state`: a table made over the same keys elsewhere (`state()`), taken as it is; else an empty one. */
  constructor(keyHi: KeyColumn, keyLo: KeyColumn, state?: FingerprintTableState) {
    this.keyHi = keyHi;
    this.keyLo = keyLo;
    // Each branch: a table handed over keeps its seeds (its slots were placed by them), a new one draws its own.
    if (state !== undefined) {
      this.slots = state.slots;
      this.used = state.used;
      this.seedHi = state.seedHi;
      this.seedLo = state.seedLo;
      return;
    }
    const seed = randomBytes(8);
    this.seedHi = seed.readUInt32LE(0);
    this.seedLo = seed.readUInt32LE(4);
  }

  /** The slots (shared, not copied) and seeds: what a FingerprintTable over the same keys resumes from. */
  state(): FingerprintTableState {
    return { slots: this.slots, used: this.used, seedHi: this.seedHi, seedLo: this.seedLo };
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
    if (this.used + 1 > this.slots.length * MAX_LOAD) this.grow();
    const slots = this.slots;
    let at = this.home(hi, lo);
    for (;;) {
      this.probes++;
      const entry = slots[at] as number;
      if (entry === EMPTY) {
        slots[at] = row + 1;
        this.used++;
        return -1;
      }
      const other = entry - 1;
      if (this.keyLo.get(other) === lo && this.keyHi.get(other) === hi) return other;
      at = at + 1 === slots.length ? 0 : at + 1;
    }
  }

  /** The row that holds fingerprint (hi, lo), or -1 when none does; nothing is entered. */
  find(hi: number, lo: number): number {
    const slots = this.slots;
    let at = this.home(hi, lo);
    for (;;) {
      this.probes++;
      const entry = slots[at] as number;
      if (entry === EMPTY) return -1;
      const other = entry - 1;
      if (this.keyLo.get(other) === lo && this.keyHi.get(other) === hi) return other;
      at = at + 1 === slots.length ? 0 : at + 1;
    }
  }

  /**
   * Makes room for `entries` fingerprints in all without doubling on the way (each doubling reads
   * every key again, from the builder's columns: a cache miss each). Does nothing when there is room.
   */
  reserve(entries: number): void {
    const size = Math.ceil(entries / MAX_LOAD);
    if (size > this.slots.length) this.rehash(size);
  }

  /** Frees the slots; the table is empty afterwards (GraphBuilder calls it once loading is over). */
  release(): void {
    this.slots = new Uint32Array(INITIAL_SLOTS);
    this.used = 0;
  }

  /** The first slot of key (hi, lo): its mix mapped onto the slots (fastRange). */
  private home(hi: number, lo: number): number {
    return fastRange(fmix32(fmix32(lo ^ this.seedLo) ^ hi ^ this.seedHi), this.slots.length);
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
      const row = entry - 1;
      let at = this.home(this.keyHi.get(row), this.keyLo.get(row));
      while (slots[at] !== EMPTY) at = at + 1 === size ? 0 : at + 1;
      slots[at] = entry;
    }
  }
}

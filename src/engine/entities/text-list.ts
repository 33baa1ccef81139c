/**
 * Text list
 * =========
 * Owns an immutable list of strings (the fingerprints the input gave as text) stored in a TextStore
 * (text-store.ts: a few large JavaScript strings, one or two bytes a code unit) instead of one
 * string object each. Entry i is two words: the span's word in the store, then its length.
 *
 * `get(i)` is a slice of a chunk (no character read for 13 code units or more; see text-store.ts);
 * `compare(i, s)` and `equals(i, s)` read code units in place (equals by a slice of the chunk and `===`).
 *
 * Cost: get O(1); compare O(length). Space: 8 bytes a string plus 1 or 2 bytes a code unit. Serial
 * form: the index, and the store's (text-store.ts).
 */

import type { SerialReader, SerialWriter } from "../serial.js";
import { TextStore, TextStoreBuilder } from "./text-store.js";

export class TextList {
  /** Two words an entry: the span's word in the store, its length. */
  private readonly index: Uint32Array;
  private readonly store: TextStore;

  private constructor(index: Uint32Array, store: TextStore) {
    this.index = index;
    this.store = store;
  }

  static from(strings: Iterable<string>, count?: number): TextList {
    const builder = new TextStoreBuilder();
    let index = new Uint32Array(2 * (count ?? 16));
    let n = 0;
    for (const s of strings) {
      if (2 * n + 2 > index.length) {
        const grown = new Uint32Array(index.length * 2);
        grown.set(index);
        index = grown;
      }
      index[2 * n] = builder.add(s);
      index[2 * n + 1] = s.length;
      n++;
    }
    return new TextList(index.length === 2 * n ? index : index.slice(0, 2 * n), builder.finish());
  }

  get length(): number {
    return this.index.length >>> 1;
  }

  /** The string at i, for 0 <= i < length (not checked). */
  get(i: number): string {
    return this.store.slice(this.index[2 * i]!, this.index[2 * i + 1]!);
  }

  /** Length of string i in code units. */
  lengthOf(i: number): number {
    return this.index[2 * i + 1]!;
  }

  /** Compares string i with `s` in JavaScript order (UTF-16 code units): negative, 0 or positive. */
  compare(i: number, s: string): number {
    return this.store.compare(this.index[2 * i]!, this.index[2 * i + 1]!, s);
  }

  equals(i: number, s: string): boolean {
    return this.store.equals(this.index[2 * i]!, this.index[2 * i + 1]!, s);
  }

  /** Code units of all strings. */
  get codeUnits(): number {
    let n = 0;
    for (let i = 1; i < this.index.length; i += 2) n += this.index[i]!;
    return n;
  }

  /** Bytes held: the index, and the store's characters (1 or 2 bytes a code unit). */
  get byteLength(): number {
    return this.index.byteLength + this.store.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.array("index", this.index);
    this.store.serialize(w);
  }

  static deserialize(r: SerialReader): TextList {
    const index = r.uint32("index");
    const store = TextStore.deserialize(r);
    if (index.length % 2 !== 0) r.corrupt("a text list index has an odd number of words");
    // Every entry must lie inside its store: a bad entry could otherwise read past a chunk.
    for (let i = 0; i < index.length; i += 2) {
      if (!store.holds(index[i]!, index[i + 1]!)) r.corrupt(`text list entry ${i / 2} lies outside its store`);
    }
    return new TextList(index, store);
  }
}

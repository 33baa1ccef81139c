/**
 * Fingerprint column
 * ==================
 * The statementFingerprint of every statement row, kept as two uint32 columns when the fingerprint is
 * 16 lowercase hex digits (every derived one), and as a string in a side table otherwise. For 16-digit
 * lowercase hex, numeric order of (hi, lo) equals string order, so comparisons stay the contract's.
 * 8 bytes a statement plus the side table.
 *
 * Serial form (engine/serial.ts): `hi`, `lo`, and the side table as `textRows` (ascending rows,
 * transient) and `text` (a string list, one per row). `deserialize` checks the lengths and that the
 * side table's rows ascend below the row count, each with a non-empty fingerprint.
 */

import { hex64 } from "./hash64.js";
import { checkLength, type SerialReader, type SerialWriter } from "./serial.js";

export class FingerprintColumn {
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** Rows whose fingerprint is not 16 lowercase hex digits, with their text. Usually empty. */
  readonly text: ReadonlyMap<number, string>;

  constructor(hi: Uint32Array, lo: Uint32Array, text: ReadonlyMap<number, string>) {
    this.hi = hi;
    this.lo = lo;
    this.text = text;
  }

  /** Writes the serial form (see the banner). */
  serialize(w: SerialWriter): void {
    w.array("hi", this.hi);
    w.array("lo", this.lo);
    const rows = Uint32Array.from([...this.text.keys()].sort((a, b) => a - b));
    w.array("textRows", rows, { transient: true });
    w.strings(
      "text",
      Array.from(rows, (row) => this.text.get(row)!),
    );
  }

  /** Restores the fingerprints of `rowCount` statement rows from their serial form. */
  static deserialize(r: SerialReader, rowCount: number): FingerprintColumn {
    const hi = r.uint32("hi");
    const lo = r.uint32("lo");
    checkLength(r, "hi", hi, rowCount, "one per statement");
    checkLength(r, "lo", lo, rowCount, "one per statement");
    const rows = r.uint32("textRows");
    const texts = r.strings("text");
    checkLength(r, "text", texts, rows.length, "one per row of textRows");
    const text = new Map<number, string>();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      // Ascending rows: each once, so the Map holds exactly the stored list.
      if (row >= rowCount || (i > 0 && row <= rows[i - 1]!)) r.corrupt("textRows are out of range or order");
      if (texts[i]!.length === 0) r.corrupt(`the fingerprint of row ${row} is empty`);
      text.set(row, texts[i]!);
    }
    return new FingerprintColumn(hi, lo, text);
  }

  get(row: number): string {
    // The side table is empty for derived fingerprints: skip the Map probe in that common case.
    if (this.text.size !== 0) {
      const t = this.text.get(row);
      if (t !== undefined) return t;
    }
    return hex64(this.hi[row] as number, this.lo[row] as number);
  }

  /** Orders two rows by fingerprint, as strings. */
  compareRows(a: number, b: number): number {
    if (this.text.size === 0) {
      const d = (this.hi[a] as number) - (this.hi[b] as number);
      return d !== 0 ? d : (this.lo[a] as number) - (this.lo[b] as number);
    }
    const x = this.get(a);
    const y = this.get(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /** Orders a row's fingerprint against a fingerprint string. */
  compareTo(row: number, fp: string): number {
    const x = this.get(row);
    return x < fp ? -1 : x > fp ? 1 : 0;
  }

  get byteLength(): number {
    let text = 0;
    for (const t of this.text.values()) text += 2 * t.length + 16;
    return this.hi.byteLength + this.lo.byteLength + text;
  }
}

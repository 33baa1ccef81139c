/**
 * String lists in a snapshot
 * ==========================
 * Owns how a list of JavaScript strings lies in a snapshot: a blob of all their code units and a
 * Uint32 offset per string (count + 1 of them, in code units, from 0 to the blob's length). The
 * blob is Latin-1 (one byte a code unit, a Uint8Array) when every code unit of the list is below 256,
 * else UTF-16LE (a Uint16Array). UTF-16 keeps any JavaScript string exactly, lone surrogates
 * included (UTF-8 would not); Latin-1 halves the usual ASCII identifiers.
 *
 * Both directions go in batches of about a fixed number of code units (at least one string each):
 * encoding joins a batch and writes it with one Buffer call; decoding turns a batch into one string
 * with one Buffer call, then `slice`s each string out of it (V8 keeps slices as views of the batch,
 * which is why a batch stays well under V8's maximum string length, 2^29 - 24 code units).
 *
 * Cost: one pass over the code units each way, plus one `slice` per string on decode. Decoding the
 * strings is the one per-item step of opening a snapshot (npm run bench:snapshot, "decode" row).
 */

export type StringBlob = Uint8Array | Uint16Array;

/** Code units decoded per Buffer call. */
export const DECODE_BATCH_CODE_UNITS = 1 << 26;
/** Code units per `join` + Buffer write while encoding. */
export const ENCODE_BATCH_CODE_UNITS = 1 << 24;
/** The most code units one list can hold: its offsets are Uint32. */
export const MAX_LIST_CODE_UNITS = 0xffffffff;

const WIDE = /[^\u0000-\u00ff]/;

/** `list` as offsets + blob (see the banner). Throws RangeError past MAX_LIST_CODE_UNITS. */
export function encodeStringList(
  list: readonly string[],
  batchCodeUnits: number = ENCODE_BATCH_CODE_UNITS,
): { offsets: Uint32Array; blob: StringBlob } {
  const offsets = new Uint32Array(list.length + 1);
  let total = 0;
  let wide = false;
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    total += s.length;
    if (total > MAX_LIST_CODE_UNITS)
      throw new RangeError(`a string list of more than ${MAX_LIST_CODE_UNITS} code units cannot be stored`);
    offsets[i + 1] = total;
    // One wide code unit anywhere makes the whole blob UTF-16; stop testing once it is.
    if (!wide && WIDE.test(s)) wide = true;
  }
  const blob: StringBlob = wide ? new Uint16Array(total) : new Uint8Array(total);
  const out = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const encoding = wide ? "utf16le" : "latin1";
  const unit = wide ? 2 : 1;
  forEachBatch(offsets, batchCodeUnits, (i, j) => {
    out.write(list.slice(i, j).join(""), offsets[i]! * unit, encoding);
  });
  return { offsets, blob };
}

/**
 * What is wrong with `offsets` as the offsets of a list over `blob`, or undefined when nothing is:
 * at least one entry, the first 0, none decreasing, the last the blob's length. One pass.
 */
export function stringListProblem(offsets: Uint32Array, blob: StringBlob): string | undefined {
  const count = offsets.length - 1;
  if (count < 0) return "offsets are empty (a list needs at least the end offset)";
  if (offsets[0] !== 0 || offsets[count] !== blob.length) return "offsets do not span the text";
  for (let i = 0; i < count; i++) {
    if (offsets[i + 1]! < offsets[i]!) return `offsets ${i} and ${i + 1} are out of order`;
  }
  return undefined;
}

/** The strings of a list whose offsets passed stringListProblem (see the banner). */
export function decodeStringList(
  offsets: Uint32Array,
  blob: StringBlob,
  batchCodeUnits: number = DECODE_BATCH_CODE_UNITS,
): string[] {
  const wide = blob instanceof Uint16Array;
  const unit = wide ? 2 : 1;
  const encoding = wide ? "utf16le" : "latin1";
  const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const out: string[] = new Array(offsets.length - 1);
  forEachBatch(offsets, batchCodeUnits, (i, j) => {
    const from = offsets[i]!;
    const batch = bytes.toString(encoding, from * unit, offsets[j]! * unit);
    for (let k = i; k < j; k++) out[k] = batch.slice(offsets[k]! - from, offsets[k + 1]! - from);
  });
  return out;
}

/** Calls `each(i, j)` for consecutive batches of strings i..j-1, each within `batchCodeUnits` or one string. */
function forEachBatch(offsets: Uint32Array, batchCodeUnits: number, each: (i: number, j: number) => void): void {
  const count = offsets.length - 1;
  for (let i = 0; i < count; ) {
    const from = offsets[i]!;
    let j = i + 1;
    while (j < count && offsets[j + 1]! - from <= batchCodeUnits) j++;
    each(i, j);
    i = j;
  }
}

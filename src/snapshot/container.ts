/**
 * Snapshot container
 * ==================
 * Owns the byte layout of a snapshot file, whatever it holds: a header, a table of named sections,
 * the sections, a checksum. It knows nothing of graphs (graph-manifest.ts says what goes in, each
 * structure writes its own fields); it turns a list of sections into the chunks of a file, and a
 * file's bytes back into the sections, refusing any file it did not write. Pure: no file system here.
 *
 * Layout, all integers little-endian:
 *
 *   offset  size  field
 *   0       8     magic "QUIVERSN"
 *   8       4     format version (u32), FORMAT_VERSION (read: MIN_FORMAT_VERSION to FORMAT_VERSION)
 *   12      4     flags (u32), 0
 *   16      8     total file length in bytes (u64)
 *   24      4     section count (u32)
 *   28      4     CRC-32 (zlib's, ISO-HDLC) of bytes [CHECKSUM_FROM = 32, total length)
 *   32      4     section table length in bytes (u32), a multiple of 8
 *   36      4     reserved, 0
 *   40            section table: one entry per section, in file order, each
 *                   kind (u8) | flags (u8, bit 0: transient) | name length (u16) | reserved (u32, 0)
 *                   | a (u64) | b (u64) | name (ASCII, zero-padded to a multiple of 8)
 *                 where for an array (u8, u16, u32, i32, f64) a = byte offset, b = element count;
 *                 for a text a = byte offset, b = its UTF-8 bytes; for an integer a = 0, b = the value
 *   ...           the sections' bytes, each at an offset that is a multiple of 8, zero padding between
 *
 * The magic and the version stay at bytes 0..11 in every version, so any Quiver can tell a foreign
 * file from an older or a newer one and say which. An array section is the array's bytes as they lie
 * in memory; since every offset is 8-aligned and the file is read into 8-aligned ArrayBuffers,
 * opening makes each array a view on the file's buffer: no copy, no per-item parsing. That requires a
 * little-endian host (every platform Node ships for today); a big-endian one is refused.
 *
 * Kept and transient: sections marked transient (read only while opening: the string lists, which
 * become JS strings) are written after all the others. The file layer cuts the file where they
 * start (transientSplit) and reads the rest into a buffer of its own, dropped once the graph is
 * open, so an opened graph holds no dead bytes. openContainer takes the file in one piece or two,
 * cut anywhere (a section across the cut, or unaligned, is copied: never the case at transientSplit).
 *
 * `readTable` is the one reader of the header and the table (the file layer, `quiver info` and the
 * tests use it). It checks: magic, version, flags, length (truncated or trailing bytes), then every
 * entry (known kind and flags, a valid name given once, 8-aligned, inside the data area, no two
 * sections overlapping, entries filling the table exactly). openContainer then compares the
 * checksum; whether the sections make a graph is for the structures (graph-manifest.ts).
 *
 * Cost: encoding copies nothing but the header and table (the arrays are chunks as they are), plus
 * one CRC pass; opening is one CRC pass (zlib's, a few GB/s; file.ts overlaps it with the reads) and
 * a view per section.
 *
 * References: PNG's chunks and CRC-32 (RFC 2083) for magic + versioned sections + checksum; HDT
 * (Fernández et al., J. Web Semantics 19, 2013) for a built index that opens without a rebuild.
 */

import { crc32 } from "node:zlib";

import { QuiverError } from "../engine/errors.js";
import type { SerialArray } from "../engine/serial.js";

/** "QUIVERSN": Quiver snapshot. */
export const SNAPSHOT_MAGIC = Uint8Array.from([0x51, 0x55, 0x49, 0x56, 0x45, 0x52, 0x53, 0x4e]);
/**
 * The format this Quiver writes (it reads MIN_FORMAT_VERSION to it). Bump it for any change of the layout or
 * of what a structure stores. 2: named sections, each structure's own serial form, and fold's
 * ß -> ss step (text folded by format 1's Quivers would be searched wrongly). 3: one entity table
 * (a record per entity, entityId and rawIdentifier side by side) instead of a dictionary section
 * and entity columns. 4: each entity's score and the graph's fold mode (older files have neither:
 * refused with a sentence that says to rebuild them). 5: the last change batch the graph holds and
 * where its change log's content tags start (graph-manifest.ts), and scores as a dictionary with a
 * score index of banded suffixes (search/scores.ts, search/score-index.ts): format 4's score
 * sections are not read (format 4 was never released; such a file is refused with the sentence
 * that says to rebuild it). 6: every object's first OSP position as an Elias-Fano sequence
 * (statements.objectIndex, succinct/elias-fano.ts) in place of every 16th (statements.objectStarts);
 * a format 5 file is still read and served as before (its windows searched), and saved as format 6.
 * 7: the given fingerprints' halves interleaved in one section (statements.fingerprints.halves,
 * statements/fingerprint-column.ts: one cache miss a row where the two arrays hi and lo took two); a
 * format 5 or 6 file is read with its two arrays as they are (nothing copied), and saved interleaved.
 * 8: the FM-index's class sequence as blocked symbol ranks (search.fm.classRanks,
 * succinct/symbol-ranks.ts: one round of cache misses a rank) in place of a wavelet matrix
 * (search.fm.classes); a format 5 to 7 file's matrix is turned into them at open, and saved so.
 */
export const FORMAT_VERSION: number = 8;
/** The oldest format this Quiver reads (graph-manifest.ts reads each format it accepts). */
export const MIN_FORMAT_VERSION: number = 5;
/** The formats this Quiver reads, as its refusals name them. */
const READS =
  MIN_FORMAT_VERSION === FORMAT_VERSION
    ? `format ${FORMAT_VERSION}`
    : `formats ${MIN_FORMAT_VERSION} to ${FORMAT_VERSION}`;
export const HEADER_BYTES = 40;
/** Where the header keeps the checksum. */
export const CHECKSUM_AT = 28;
/** The checksum covers every byte from here to the end (the table length and the table included). */
export const CHECKSUM_FROM = 32;
/** Section alignment: the widest element (and a cache-friendly start for every array). */
export const ALIGNMENT = 8;
/** Fixed part of a table entry; the name follows. */
const ENTRY_BYTES = 24;
const MAX_NAME_BYTES = 255;
const TRANSIENT_FLAG = 1;
/** A full section name: segments of [A-Za-z0-9_-] joined by dots. */
const SECTION_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export type ArrayKind = "u8" | "u16" | "u32" | "i32" | "f64";
export type SectionKind = ArrayKind | "integer" | "text";

const KIND_CODES: Record<SectionKind, number> = { u8: 1, u16: 2, u32: 3, i32: 4, f64: 5, integer: 6, text: 7 };
const KIND_BY_CODE = new Map<number, SectionKind>(
  Object.entries(KIND_CODES).map(([k, code]) => [code, k as SectionKind]),
);
/** Bytes per element of a section's data (an integer has none). */
const ELEMENT_BYTES: Record<SectionKind, number> = { u8: 1, u16: 2, u32: 4, i32: 4, f64: 8, integer: 0, text: 1 };

/** A section to write. */
export type SectionInput =
  | { name: string; kind: ArrayKind; data: SerialArray; transient: boolean }
  | { name: string; kind: "integer"; value: number }
  | { name: string; kind: "text"; value: string };

/** A section as the table describes it. */
export interface SectionEntry {
  name: string;
  kind: SectionKind;
  transient: boolean;
  /** Byte offset in the file (0 for an integer). */
  offset: number;
  /** Elements of an array, UTF-8 bytes of a text, the value of an integer. */
  count: number;
  /** Bytes of data in the file (0 for an integer). */
  byteLength: number;
  /** Where this section's entry starts in the table (a byte offset in the file). */
  entryAt: number;
}

/** What the fixed header says, once checked. */
export interface SnapshotHeader {
  version: number;
  totalLength: number;
  sectionCount: number;
  tableBytes: number;
  checksum: number;
}

export interface SnapshotTable {
  header: SnapshotHeader;
  /** Every section, in file order. */
  sections: SectionEntry[];
}

/** A section's content once opened: an array viewing the file's bytes, an integer, a text. */
export type SectionValue = SerialArray | number | string;

/**
 * A snapshot's bytes in two pieces: `head` holds bytes [0, head.length), `tail` the rest. The file
 * layer cuts at transientSplit, so the tail holds only transient sections and can be dropped after
 * opening. 8-aligned views are used in place; others are copied once.
 */
export interface SnapshotBytes {
  head: Uint8Array;
  tail: Uint8Array;
}

/** True when this host stores multi-byte integers little-endian, as snapshots do. */
export function hostIsLittleEndian(): boolean {
  return new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
}

/**
 * CRC-32 of `data` continuing from `crc`. Empty data leaves `crc` as it is: zlib.crc32 given a view
 * of a zero-length ArrayBuffer passes zlib a NULL pointer, and zlib answers 0 for that (its "initial
 * value" idiom), dropping the running checksum.
 */
export function snapshotChecksum(data: Uint8Array, crc: number): number {
  return data.length === 0 ? crc : crc32(data, crc);
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/**
 * The file holding `sections` as chunks whose concatenation is the file: kept sections in the order
 * given, then transient ones in the order given. Arrays are chunks as they are (views, not copies);
 * only the header, the table, texts and padding are new memory. Throws (a bug, not bad input) for a
 * bad or repeated name.
 */
export function encodeContainer(sections: readonly SectionInput[]): Uint8Array[] {
  if (!hostIsLittleEndian())
    throw new Error("snapshots are little-endian; this host is big-endian and cannot write them");
  const isTransient = (s: SectionInput) => s.kind !== "integer" && s.kind !== "text" && s.transient;
  const ordered = [...sections.filter((s) => !isTransient(s)), ...sections.filter(isTransient)];
  const names = new Set<string>();
  let tableBytes = 0;
  for (const s of ordered) {
    if (!SECTION_NAME.test(s.name) || s.name.length > MAX_NAME_BYTES)
      throw new Error(`section name ${JSON.stringify(s.name)} is not valid`);
    if (names.has(s.name)) throw new Error(`section ${s.name} written twice`);
    names.add(s.name);
    tableBytes += ENTRY_BYTES + alignUp(s.name.length);
  }
  const head = new Uint8Array(HEADER_BYTES + tableBytes);
  const view = new DataView(head.buffer);
  const chunks: Uint8Array[] = [head];
  let at = head.length;
  let entry = HEADER_BYTES;
  for (const s of ordered) {
    let data: Uint8Array | undefined;
    if (s.kind === "text") data = new TextEncoder().encode(s.value);
    else if (s.kind !== "integer") data = new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    view.setUint8(entry, KIND_CODES[s.kind]);
    view.setUint8(entry + 1, isTransient(s) ? TRANSIENT_FLAG : 0);
    view.setUint16(entry + 2, s.name.length, true);
    setUint64(view, entry + 8, data === undefined ? 0 : at);
    setUint64(
      view,
      entry + 16,
      s.kind === "integer" ? checkedInteger(s.name, s.value) : s.kind === "text" ? data!.length : s.data.length,
    );
    head.set(Buffer.from(s.name, "latin1"), entry + ENTRY_BYTES);
    entry += ENTRY_BYTES + alignUp(s.name.length);
    if (data === undefined) continue;
    // An empty section adds no chunk (see snapshotChecksum for why an empty view must not reach crc32).
    if (data.length > 0) chunks.push(data);
    at += data.length;
    // Zero padding up to the next 8-byte boundary, so the next section can be viewed in place.
    const pad = alignUp(at) - at;
    if (pad > 0) {
      chunks.push(new Uint8Array(pad));
      at += pad;
    }
  }
  head.set(SNAPSHOT_MAGIC, 0);
  view.setUint32(8, FORMAT_VERSION, true);
  view.setUint32(12, 0, true);
  setUint64(view, 16, at);
  view.setUint32(24, ordered.length, true);
  view.setUint32(32, tableBytes, true);
  let crc = snapshotChecksum(head.subarray(CHECKSUM_FROM), 0);
  for (let i = 1; i < chunks.length; i++) crc = snapshotChecksum(chunks[i]!, crc);
  view.setUint32(CHECKSUM_AT, crc, true);
  return chunks;
}

function checkedInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`section ${name}: integer ${value}`);
  return value;
}

function alignUp(x: number): number {
  return Math.ceil(x / ALIGNMENT) * ALIGNMENT;
}

function setUint64(view: DataView, at: number, value: number): void {
  view.setUint32(at, value % 2 ** 32, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

type Fail = (what: string) => never;

function failer(fileName: string): Fail {
  return (what: string): never => {
    throw new QuiverError("INVALID_SNAPSHOT", `${fileName}: ${what}`);
  };
}

function getUint64(view: DataView, at: number, fail: Fail, what: string): number {
  const lo = view.getUint32(at, true);
  const hi = view.getUint32(at + 4, true);
  // Beyond 2^53 a number loses precision, and no file is that long.
  if (hi >= 2 ** 21) fail(`${what} ${hi} * 2^32 + ${lo} is out of range; the file is corrupted`);
  return hi * 2 ** 32 + lo;
}

/**
 * Checks the header at the start of `bytes` against the file's length (`bytes` may hold only the
 * start of the file): magic, version, flags, total length, table length. Throws INVALID_SNAPSHOT
 * "<fileName>: <what>" otherwise.
 */
export function readHeader(bytes: Uint8Array, fileName: string, fileLength: number = bytes.length): SnapshotHeader {
  const fail = failer(fileName);
  // Empty: the commonest foreign file of all (a failed copy, a touch); say so plainly.
  if (fileLength === 0) fail("empty file (0 bytes), not a Quiver snapshot");
  for (let i = 0; i < Math.min(SNAPSHOT_MAGIC.length, bytes.length); i++) {
    if (bytes[i] !== SNAPSHOT_MAGIC[i]) fail("not a Quiver snapshot (bad magic)");
  }
  // A file shorter than the header but starting like one was cut off, not foreign.
  if (bytes.length < 12) fail(`truncated: expected at least ${HEADER_BYTES} bytes of header, found ${fileLength}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEADER_BYTES));
  const version = view.getUint32(8, true);
  // The version before anything else of the layout: an older file's header is not this one's.
  if (version > FORMAT_VERSION)
    fail(
      `made with snapshot format ${version} by a newer Quiver (this one reads ${READS}); upgrade Quiver or rebuild it with quiver build`,
    );
  if (version === 0) fail("format version 0 is no Quiver snapshot format; the file is corrupted");
  if (version < MIN_FORMAT_VERSION)
    fail(
      `made with snapshot format ${version} by an older Quiver (this one reads ${READS}); rebuild it with quiver build`,
    );
  if (bytes.length < HEADER_BYTES)
    fail(`truncated: expected at least ${HEADER_BYTES} bytes of header, found ${fileLength}`);
  const flags = view.getUint32(12, true);
  if (flags !== 0)
    fail(`unknown flags 0x${flags.toString(16)} in the header; the file is corrupted or from a newer Quiver`);
  const totalLength = getUint64(view, 16, fail, "total length");
  if (fileLength < totalLength) fail(`truncated: expected ${totalLength} bytes, found ${fileLength}`);
  if (fileLength > totalLength)
    fail(
      `${fileLength - totalLength} unexpected bytes after the end of the snapshot (expected ${totalLength} bytes, found ${fileLength}); the file is corrupted`,
    );
  const sectionCount = view.getUint32(24, true);
  const checksum = view.getUint32(CHECKSUM_AT, true);
  const tableBytes = view.getUint32(32, true);
  if (view.getUint32(36, true) !== 0) fail("the header's reserved word is not 0; the file is corrupted");
  if (
    tableBytes % ALIGNMENT !== 0 ||
    HEADER_BYTES + tableBytes > totalLength ||
    sectionCount * ENTRY_BYTES > tableBytes
  )
    fail(
      `a section table of ${sectionCount} entries in ${tableBytes} bytes does not fit in ${totalLength} bytes; the file is corrupted`,
    );
  return { version, totalLength, sectionCount, tableBytes, checksum };
}

/** Bytes from the start of the file to the end of the table: what readTable needs to see. */
export function tableEnd(header: SnapshotHeader): number {
  return HEADER_BYTES + header.tableBytes;
}

/**
 * The header and the section table of a snapshot whose first bytes are `bytes` (at least up to
 * tableEnd; `fileLength` is the whole file's), every entry checked (see the banner). The one reader
 * of the table. Throws INVALID_SNAPSHOT "<fileName>: <what>" for anything wrong.
 */
export function readTable(bytes: Uint8Array, fileName: string, fileLength: number = bytes.length): SnapshotTable {
  const fail = failer(fileName);
  const header = readHeader(bytes, fileName, fileLength);
  const end = tableEnd(header);
  if (bytes.length < end) throw new RangeError(`readTable needs the first ${end} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, end);
  const sections: SectionEntry[] = [];
  const names = new Set<string>();
  const corrupted: Fail = (what: string): never => fail(`${what}; the file is corrupted`);
  let at = HEADER_BYTES;
  for (let i = 0; i < header.sectionCount; i++) {
    if (at + ENTRY_BYTES > end) corrupted(`section table entry ${i} runs past the table`);
    const kind = KIND_BY_CODE.get(view.getUint8(at));
    if (kind === undefined) corrupted(`section table entry ${i} has unknown kind ${view.getUint8(at)}`);
    const flags = view.getUint8(at + 1);
    const nameBytes = view.getUint16(at + 2, true);
    const transient = flags === TRANSIENT_FLAG;
    if ((flags & ~TRANSIENT_FLAG) !== 0 || view.getUint32(at + 4, true) !== 0)
      corrupted(`section table entry ${i} has unknown flags`);
    if (nameBytes === 0 || nameBytes > MAX_NAME_BYTES || at + ENTRY_BYTES + nameBytes > end)
      corrupted(`section table entry ${i} has a name of ${nameBytes} bytes`);
    const nameAt = bytes.byteOffset + at + ENTRY_BYTES;
    const name = Buffer.from(bytes.buffer, nameAt, nameBytes).toString("latin1");
    if (!SECTION_NAME.test(name)) corrupted(`section table entry ${i} has an invalid name`);
    if (names.has(name)) corrupted(`section ${name} appears twice`);
    names.add(name);
    const a = getUint64(view, at + 8, fail, `field a of section ${name}`);
    const b = getUint64(view, at + 16, fail, `field b of section ${name}`);
    const byteLength = b * ELEMENT_BYTES[kind];
    // Each branch: an integer lives in the table; any other section must lie in the data area.
    if (kind === "integer") {
      if (a !== 0 || transient) corrupted(`integer section ${name} has an offset or flags`);
    } else if (a % ALIGNMENT !== 0 || a < end || a + byteLength > header.totalLength) {
      corrupted(
        `section ${name} (bytes ${a} to ${a + byteLength}) lies outside the data area (${end} to ${header.totalLength}) or is not 8-aligned`,
      );
    }
    sections.push({ name, kind, transient, offset: a, count: b, byteLength, entryAt: at });
    at += ENTRY_BYTES + alignUp(nameBytes);
  }
  if (at !== end)
    corrupted(`the section table's ${header.sectionCount} entries do not fill its ${header.tableBytes} bytes`);
  const placed = sections.filter((s) => s.kind !== "integer").sort((x, y) => x.offset - y.offset);
  for (let i = 1; i < placed.length; i++) {
    const prev = placed[i - 1]!;
    if (placed[i]!.offset < prev.offset + prev.byteLength)
      corrupted(`sections ${prev.name} and ${placed[i]!.name} overlap`);
  }
  return { header, sections };
}

/**
 * Where a file whose first bytes are `start` can be cut so that everything after the cut is
 * transient: the offset of the first transient section when all of them follow every kept one, else
 * `fileLength` (one piece). A damaged header or table (or `start` too short to hold the table) also
 * answers `fileLength`: openContainer then says what is wrong.
 */
export function transientSplit(start: Uint8Array, fileLength: number): number {
  let table: SnapshotTable;
  try {
    table = readTable(start, "", fileLength);
  } catch {
    return fileLength;
  }
  let firstTransient = fileLength;
  let lastKeptEnd = tableEnd(table.header);
  for (const s of table.sections) {
    // Each branch: a transient section moves the cut down; a kept one must end before the cut.
    if (s.transient) firstTransient = Math.min(firstTransient, s.offset);
    else lastKeptEnd = Math.max(lastKeptEnd, s.offset + s.byteLength);
  }
  return firstTransient >= lastKeptEnd ? firstTransient : fileLength;
}

export interface OpenContainerOptions {
  /**
   * The CRC-32 of bytes [CHECKSUM_FROM, end) when the caller computed it while reading (file.ts
   * does, overlapping it with the reads); compared with the header's instead of computed again.
   */
  checksum?: number | undefined;
  /**
   * Set when the bytes after the table are still arriving (snapshot/read-thread.ts): blocks until
   * bytes [offset, offset + length) of the file are in. The checksum is then not compared here: the
   * caller compares it with the header's once every byte is in (`table.header.checksum`), before
   * it trusts what was opened. Each section is waited for when it is first read (`ready`).
   */
  waitFor?: ((offset: number, length: number) => void) | undefined;
}

/**
 * The sections of a snapshot (`bytes`: the whole file, in one piece or two), by name: arrays as
 * views on the file's buffers, integers, texts. Checks the header, the checksum and the table;
 * throws INVALID_SNAPSHOT "<fileName>: <what>" for any damaged, foreign, older or newer file.
 */
export function openContainer(
  bytes: Uint8Array | SnapshotBytes,
  fileName: string,
  options: OpenContainerOptions = {},
): { table: SnapshotTable; values: Map<string, SectionValue>; ready: ((name: string) => void) | undefined } {
  const fail = failer(fileName);
  // A host of the other byte order would read every integer swapped: refuse, don't misread.
  if (!hostIsLittleEndian())
    fail("snapshots are little-endian and this host is big-endian; Quiver cannot open them here");
  let { head, tail } = bytes instanceof Uint8Array ? { head: bytes, tail: new Uint8Array(0) } : bytes;
  const fileLength = head.length + tail.length;
  // The header and table in one piece, even when a caller cut the file inside them.
  const startOf = (length: number): Uint8Array =>
    head.length >= length ? head : concatBytes(head, tail.subarray(0, Math.min(tail.length, length - head.length)));
  const header = readHeader(startOf(HEADER_BYTES), fileName, fileLength);
  const { waitFor } = options;
  // Each branch: bytes still arriving (the caller compares the checksum at the end), or all in.
  if (waitFor === undefined) {
    // The header checked that the file is exactly totalLength bytes, so both sums cover the same bytes.
    const actual =
      options.checksum ??
      snapshotChecksum(
        tail.subarray(Math.max(0, CHECKSUM_FROM - head.length)),
        snapshotChecksum(head.subarray(CHECKSUM_FROM), 0),
      );
    if (actual !== header.checksum) fail("checksum mismatch: the file is corrupted");
  }
  // Views need 8-aligned offsets in the buffer. file.ts reads into its own ArrayBuffers (aligned);
  // a caller's Buffer may sit at any offset of Node's pool, so copy it once in that case.
  if (head.byteOffset % ALIGNMENT !== 0) head = new Uint8Array(head);
  if (tail.byteOffset % ALIGNMENT !== 0) tail = new Uint8Array(tail);
  const table = readTable(startOf(tableEnd(header)), fileName, fileLength);
  const values = new Map<string, SectionValue>();
  for (const s of table.sections) {
    if (s.kind === "integer") {
      values.set(s.name, s.count);
      continue;
    }
    // A text is decoded now, and a section across the cut (or unaligned) copied now: their bytes
    // first. An array viewed in place is waited for when read (`ready`).
    if (waitFor !== undefined && (s.kind === "text" || !inPlace(head, tail, s.offset, s.byteLength)))
      waitFor(s.offset, s.byteLength);
    const data = sectionBytes(head, tail, s.offset, s.byteLength);
    if (s.kind === "text") {
      try {
        values.set(s.name, new TextDecoder("utf-8", { fatal: true }).decode(data));
      } catch {
        fail(`section ${s.name} is not valid UTF-8; the file is corrupted`);
      }
      continue;
    }
    values.set(s.name, arrayView(s.kind, data));
  }
  const entries = new Map(table.sections.map((s) => [s.name, s]));
  const ready =
    waitFor === undefined
      ? undefined
      : (name: string): void => {
          const s = entries.get(name);
          if (s !== undefined) waitFor(s.offset, s.byteLength);
        };
  return { table, values, ready };
}

/** Whether bytes [offset, offset + length) are viewed in place by sectionBytes (not copied). */
function inPlace(head: Uint8Array, tail: Uint8Array, offset: number, length: number): boolean {
  const within = offset + length <= head.length || offset >= head.length;
  const start = offset < head.length ? head.byteOffset + offset : tail.byteOffset + offset - head.length;
  return within && start % ALIGNMENT === 0;
}

/**
 * Bytes [offset, offset + length) of the file as an 8-aligned view: in place in the head or the
 * tail, or (only for a cut that is not transientSplit's) copied into a buffer of its own.
 */
function sectionBytes(head: Uint8Array, tail: Uint8Array, offset: number, length: number): Uint8Array {
  let piece: Uint8Array;
  if (offset + length <= head.length) piece = head.subarray(offset, offset + length);
  else if (offset >= head.length) piece = tail.subarray(offset - head.length, offset - head.length + length);
  else piece = concatBytes(head.subarray(offset), tail.subarray(0, offset + length - head.length));
  return piece.byteOffset % ALIGNMENT === 0 ? piece : piece.slice();
}

/** The typed array of kind `kind` viewing `data` (8-aligned) in place. */
function arrayView(kind: ArrayKind, data: Uint8Array): SerialArray {
  const { buffer, byteOffset: at, byteLength } = data;
  // Each branch: the typed array the element kind names.
  switch (kind) {
    case "u8":
      return new Uint8Array(buffer, at, byteLength);
    case "u16":
      return new Uint16Array(buffer, at, byteLength / 2);
    case "u32":
      return new Uint32Array(buffer, at, byteLength / 4);
    case "i32":
      return new Int32Array(buffer, at, byteLength / 4);
    case "f64":
      return new Float64Array(buffer, at, byteLength / 8);
  }
}

/** `a` then `b` in a fresh (8-aligned) buffer. */
function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

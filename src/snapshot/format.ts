// @ts-nocheck (temporary on branch engine: the snapshot format moves to per-structure serial forms)
/**
 * Snapshot format
 * ===============
 * Owns the byte layout of a snapshot file: every part of a built graph (GraphParts: identifier text,
 * dictionary, suffix array, search structures, triple indexes, fingerprints) as one versioned,
 * checksummed buffer, and the checks that refuse a damaged one. Pure: no file system here (file.ts
 * reads and writes), so the layout can be tested on bytes in memory.
 *
 * Layout, all integers little-endian:
 *
 *   offset  size  field
 *   0       8     magic "QUIVERSN"
 *   8       4     format version (u32), FORMAT_VERSION
 *   12      4     flags (u32), 0 in version 1
 *   16      8     total file length in bytes (u64)
 *   24      4     section count (u32)
 *   28      4     CRC-32 (zlib's, ISO-HDLC) of bytes [32, total length)
 *   32      24*k  section table, one entry per section:
 *                   id (u32) | element kind (u32) | byte offset (u64) | element count (u64)
 *   ...           sections, each at an offset that is a multiple of 8, zero padding between
 *
 * The magic and the version stay at bytes 0..11 in every future version, so any Quiver can tell a
 * foreign file from a newer one. A typed-array section is the array's bytes as they lie in memory;
 * since every offset is 8-aligned and the file is read into 8-aligned ArrayBuffers, opening makes
 * each array a view on the file's buffer (`new Uint32Array(buffer, offset, count)`): no copy, no
 * per-item parsing, no rebuild. That requires a little-endian host (every platform Node ships for
 * today); a big-endian one is refused with a clear error rather than read byte-swapped.
 *
 * Sections are written in SECTIONS order: those the graph keeps first, then the transient ones
 * (strings and their offsets, the fingerprint side table: needed only while opening). The file
 * layer cuts the file there (transientSplit) and reads the tail into a buffer of its own, which is
 * garbage once the strings are decoded; so an opened graph holds no dead bytes. decodeSnapshot takes
 * the file whole or in any two pieces (a section that straddles the cut, or lies unaligned in the
 * tail, is copied: never the case for transientSplit's cut).
 *
 * Strings (entityIds, rawIdentifiers, sourceTypes, non-hex fingerprints) are one list each: a blob
 * of all code units and a Uint32 offset per string (count + 1 of them, in code units). The blob is
 * Latin-1 (one byte a code unit) when every code unit of the list is < 256, else UTF-16LE; its
 * element kind (U8 or U16) says which. UTF-16 keeps any JavaScript string exactly, lone surrogates
 * included (UTF-8 would not). Decoding the strings is the one per-item step of opening: the engine
 * keeps identifiers as JS strings so a page is built without decoding anything, so on open each blob
 * becomes strings with one Buffer decode call per batch of DECODE_BATCH_CODE_UNITS code units (one
 * call for any list that fits: V8 strings have a maximum length) and one `slice` per string.
 *
 * Validation, all before any engine object is handed out, every failure a QuiverError
 * INVALID_SNAPSHOT "<file>: <what is wrong>": magic, version, flags, length (truncated or trailing
 * bytes), checksum, then the table (known ids, each once, element kinds, 8-aligned, in bounds, no
 * overlap), then the contents: counts consistent with one another, offsets monotonic and within
 * their blob, every stored index below the length of what it indexes (dense ids < entity count,
 * rows < statement count, suffix-array entries < text length, ranks < entity count), entityIds
 * strictly ascending, the wavelet matrix's rank counts recomputed and compared, and no value of its
 * document array outside the ranks. So a file whose corruption happens to keep the CRC still cannot
 * make a query read outside an array; it can only give wrong answers. What is not checked (orders of
 * the triple indexes, the suffix array being the sorted permutation) would cost a sort to verify.
 *
 * Cost: save is one copy of the strings into blobs (the typed arrays are written as they are) and a
 * CRC pass; open is a CRC pass (zlib's, a few GB/s; file.ts overlaps it with the reads), a few
 * linear scans of the integer arrays, one popcount pass over the wavelet matrix, and the string
 * decode. Measured at 1M entities / 10M statements (a 474 MiB file), after the read: about 0.5 s,
 * of which the strings ~0.25 s, the statement columns' bounds ~0.12 s, the wavelet recount ~0.07 s.
 *
 * References: HDT (Fernández et al., "Binary RDF representation for publication and exchange",
 * J. Web Semantics 19, 2013) for the idea of a built index that opens without a rebuild; PNG's chunk
 * table and CRC-32 (RFC 2083) for magic + versioned sections + checksum.
 */

import { crc32 } from "node:zlib";

import { BitVector } from "../engine/bit-vector.js";
import { QuiverError } from "../engine/errors.js";
import { FingerprintColumn } from "../engine/fingerprint-column.js";
import type { GraphParts } from "../engine/graph.js";
import { SearchIndex, TYPE_COUNT } from "../engine/search-index.js";
import { StatementIndex } from "../engine/statement-index.js";
import { ENTITY_TYPES } from "../engine/types.js";
import { MAX_WAVELET_BITS, WaveletMatrix } from "../engine/wavelet-matrix.js";

/** "QUIVERSN": Quiver snapshot. */
export const SNAPSHOT_MAGIC = Uint8Array.from([0x51, 0x55, 0x49, 0x56, 0x45, 0x52, 0x53, 0x4e]);
/** The format this Quiver writes and the newest it reads. Bump it for any layout change. */
export const FORMAT_VERSION = 1;
export const HEADER_BYTES = 32;
const TABLE_ENTRY_BYTES = 24;
/** Section alignment: the widest element (and a cache-friendly start for every array). */
const ALIGNMENT = 8;
/** Code units decoded per Buffer call: well under V8's maximum string length (2^29 - 24). */
export const DECODE_BATCH_CODE_UNITS = 1 << 26;
/** Code units per `join` + Buffer write while encoding a blob. */
export const ENCODE_BATCH_CODE_UNITS = 1 << 24;

/** Element kinds of a section: what typed array it is read as. */
const KIND_U8 = 1;
const KIND_U16 = 2;
const KIND_U32 = 3;
const KIND_I32 = 4;
const KIND_BYTES: Record<number, number> = { [KIND_U8]: 1, [KIND_U16]: 2, [KIND_U32]: 4, [KIND_I32]: 4 };

/**
 * Every section of format version 1: id, name (for errors), the element kinds it may have, and
 * whether it is transient: read only while opening (the string lists, which become JS strings, and
 * the fingerprint side table, which becomes a Map). Transient sections are written last, so the file
 * layer can read them into a buffer of their own that is dropped once the graph is open.
 */
const SECTIONS = {
  META: { id: 1, name: "meta", kinds: [KIND_U32], transient: false },
  TYPES: { id: 6, name: "entity types", kinds: [KIND_U8], transient: false },
  SOURCE_TYPE_INDEX: { id: 7, name: "sourceType index", kinds: [KIND_U32], transient: false },
  SEARCH_TEXT: { id: 10, name: "search text", kinds: [KIND_U16], transient: false },
  SEARCH_SEPARATORS: { id: 11, name: "search separators", kinds: [KIND_U32], transient: false },
  SEARCH_STARTS: { id: 12, name: "search starts", kinds: [KIND_U32], transient: false },
  RANK_TO_ID: { id: 13, name: "rank-to-id", kinds: [KIND_U32], transient: false },
  SUFFIX_ARRAY: { id: 14, name: "suffix array", kinds: [KIND_U32], transient: false },
  WAVELET_BLOCKS: { id: 15, name: "wavelet matrix blocks", kinds: [KIND_I32], transient: false },
  WAVELET_ZEROS: { id: 16, name: "wavelet matrix zero counts", kinds: [KIND_I32], transient: false },
  TYPE_RANKS: { id: 17, name: "type ranks", kinds: [KIND_U32], transient: false },
  TYPE_STARTS: { id: 18, name: "type starts", kinds: [KIND_U32], transient: false },
  SUBJECT: { id: 19, name: "subject column", kinds: [KIND_U32], transient: false },
  PREDICATE: { id: 20, name: "predicate column", kinds: [KIND_U32], transient: false },
  OBJECT: { id: 21, name: "object column", kinds: [KIND_U32], transient: false },
  POS_ROWS: { id: 22, name: "POS order", kinds: [KIND_U32], transient: false },
  OSP_ROWS: { id: 23, name: "OSP order", kinds: [KIND_U32], transient: false },
  FINGERPRINT_HI: { id: 24, name: "fingerprint high words", kinds: [KIND_U32], transient: false },
  FINGERPRINT_LO: { id: 25, name: "fingerprint low words", kinds: [KIND_U32], transient: false },
  ENTITY_ID_OFFSETS: { id: 2, name: "entityId offsets", kinds: [KIND_U32], transient: true },
  ENTITY_ID_TEXT: { id: 3, name: "entityId text", kinds: [KIND_U8, KIND_U16], transient: true },
  RAW_ID_OFFSETS: { id: 4, name: "rawIdentifier offsets", kinds: [KIND_U32], transient: true },
  RAW_ID_TEXT: { id: 5, name: "rawIdentifier text", kinds: [KIND_U8, KIND_U16], transient: true },
  SOURCE_TYPE_OFFSETS: { id: 8, name: "sourceType offsets", kinds: [KIND_U32], transient: true },
  SOURCE_TYPE_TEXT: { id: 9, name: "sourceType text", kinds: [KIND_U8, KIND_U16], transient: true },
  FINGERPRINT_TEXT_ROWS: { id: 26, name: "fingerprint text rows", kinds: [KIND_U32], transient: true },
  FINGERPRINT_TEXT_OFFSETS: { id: 27, name: "fingerprint text offsets", kinds: [KIND_U32], transient: true },
  FINGERPRINT_TEXT: { id: 28, name: "fingerprint text", kinds: [KIND_U8, KIND_U16], transient: true },
} as const;

type SectionKey = keyof typeof SECTIONS;
/** The sections in file order: every non-transient one, then the transient ones. */
const SECTION_KEYS = Object.keys(SECTIONS) as SectionKey[];
const SECTION_BY_ID = new Map<number, SectionKey>(SECTION_KEYS.map((k) => [SECTIONS[k].id, k]));

/** META section: fields by index. */
const META_ENTITY_COUNT = 0;
const META_STATEMENT_COUNT = 1;
const META_RANK_BITS = 2;
const META_FIELDS = 3;

export type StringBlob = Uint8Array | Uint16Array;
type SectionData = Uint8Array | Uint16Array | Uint32Array | Int32Array;

/** True when this host stores multi-byte integers little-endian, as snapshots do. */
export function hostIsLittleEndian(): boolean {
  return new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/**
 * The snapshot of `parts` as a list of chunks whose concatenation is the file. The typed arrays of
 * the graph are chunks as they are (views, not copies); only the string blobs, the header, the table
 * and the padding are new memory.
 */
export function encodeSnapshot(parts: GraphParts): Uint8Array[] {
  throw new Error("snapshot format: being moved to per-structure serial forms");
}

/** A string list as offsets + blob (Latin-1 bytes when every code unit fits, else UTF-16 code units). */
/**
 * A string list as offsets + blob (Latin-1 bytes when every code unit fits, else UTF-16 code units).
 * The strings go into the blob in joined batches of about `batchCodeUnits`. Exported for tests.
 */
export function encodeStringList(
  list: readonly string[],
  batchCodeUnits: number = ENCODE_BATCH_CODE_UNITS,
): { offsets: Uint32Array; blob: StringBlob } {
  const offsets = new Uint32Array(list.length + 1);
  let total = 0;
  let wide = false;
  const WIDE = /[^\u0000-\u00ff]/;
  for (let i = 0; i < list.length; i++) {
    const s = list[i] as string;
    total += s.length;
    if (total > 0xffffffff)
      throw new Error("snapshot: a string list exceeds 2^32 code units, more than format version 1 can hold");
    offsets[i + 1] = total;
    if (!wide && WIDE.test(s)) wide = true;
  }
  // Latin-1 halves the blob for the usual ASCII identifiers; any wider code unit needs UTF-16.
  const blob: StringBlob = wide ? new Uint16Array(total) : new Uint8Array(total);
  const out = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const encoding = wide ? "utf16le" : "latin1";
  const unit = wide ? 2 : 1;
  for (let i = 0; i < list.length; ) {
    // A batch: strings i..j-1, about batchCodeUnits code units (at least one string).
    const from = offsets[i] as number;
    let j = i + 1;
    while (j < list.length && (offsets[j + 1] as number) - from <= batchCodeUnits) j++;
    out.write(list.slice(i, j).join(""), from * unit, encoding);
    i = j;
  }
  return { offsets, blob };
}

/**
 * CRC-32 of `data` continuing from `crc`. Empty data leaves `crc` as it is: zlib.crc32 given a view
 * of a zero-length ArrayBuffer passes zlib a NULL pointer, and zlib answers 0 for that (its "initial
 * value" idiom), dropping the running checksum.
 */
export function snapshotChecksum(data: Uint8Array, crc: number): number {
  return data.length === 0 ? crc : crc32(data, crc);
}

function kindOf(array: SectionData): number {
  if (array instanceof Uint8Array) return KIND_U8;
  if (array instanceof Uint16Array) return KIND_U16;
  if (array instanceof Uint32Array) return KIND_U32;
  return KIND_I32;
}

function alignUp(x: number): number {
  return Math.ceil(x / ALIGNMENT) * ALIGNMENT;
}

function setUint64(view: DataView, at: number, value: number): void {
  view.setUint32(at, value % 2 ** 32, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/** What the fixed header says, once its magic, version, flags and length have been checked. */
export interface SnapshotHeader {
  version: number;
  totalLength: number;
  sectionCount: number;
  checksum: number;
}

/**
 * Checks the header of `bytes` against the actual length: magic, version, flags, total length.
 * `bytes` may hold only the start of the file when `fileLength` gives the whole length.
 */
export function readSnapshotHeader(
  bytes: Uint8Array,
  fileName: string,
  fileLength: number = bytes.length,
): SnapshotHeader {
  const fail: Fail = failer(fileName);
  // Empty: the commonest foreign file of all (a failed copy, a touch); say so plainly.
  if (fileLength === 0) fail("empty file (0 bytes), not a Quiver snapshot");
  const magicBytes = Math.min(SNAPSHOT_MAGIC.length, bytes.length);
  for (let i = 0; i < magicBytes; i++) {
    if (bytes[i] !== SNAPSHOT_MAGIC[i]) fail("not a Quiver snapshot (bad magic)");
  }
  // A file shorter than the header but starting like one was cut off, not foreign.
  if (bytes.length < HEADER_BYTES)
    fail(`truncated: expected at least ${HEADER_BYTES} bytes of header, found ${fileLength}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const version = view.getUint32(8, true);
  if (version > FORMAT_VERSION) {
    fail(
      `format version ${version} is newer than this Quiver reads (${FORMAT_VERSION}); upgrade Quiver or rebuild the snapshot`,
    );
  }
  if (version !== FORMAT_VERSION)
    fail(`format version ${version} is not one this Quiver reads (${FORMAT_VERSION}); rebuild the snapshot`);
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
  const checksum = view.getUint32(28, true);
  if (HEADER_BYTES + sectionCount * TABLE_ENTRY_BYTES > totalLength) {
    fail(`section table of ${sectionCount} entries does not fit in ${totalLength} bytes; the file is corrupted`);
  }
  return { version, totalLength, sectionCount, checksum };
}

/**
 * A snapshot file's bytes in two pieces: `head` holds bytes [0, head.length), `tail` the rest. The
 * file layer splits at transientSplit(), so the tail holds only transient sections and can be
 * dropped after decoding. Both must be 8-aligned views (they are copied once otherwise).
 */
export interface SnapshotBytes {
  head: Uint8Array;
  tail: Uint8Array;
}

export interface DecodeOptions {
  /**
   * The CRC-32 of bytes [HEADER_BYTES, end) of the file (see snapshotChecksum), when the caller
   * computed it while reading (file.ts does, overlapping it with the reads); decodeSnapshot then
   * compares it with the header's instead of computing it again. Left out: decodeSnapshot computes it.
   */
  checksum?: number | undefined;
}

/**
 * Where a file whose first bytes are `start` (at least the header and the table, else the answer is
 * `fileLength`) can be cut so that everything after the cut is transient: the offset of the first
 * transient section when all of them follow every other section, else `fileLength` (one piece).
 * A damaged header or table also answers `fileLength`: decodeSnapshot then says what is wrong.
 */
export function transientSplit(start: Uint8Array, fileLength: number): number {
  if (start.length < HEADER_BYTES) return fileLength;
  const view = new DataView(start.buffer, start.byteOffset, start.byteLength);
  const sectionCount = view.getUint32(24, true);
  if (HEADER_BYTES + sectionCount * TABLE_ENTRY_BYTES > start.length) return fileLength;
  let firstTransient = Infinity;
  let lastKeptEnd = HEADER_BYTES + sectionCount * TABLE_ENTRY_BYTES;
  for (let i = 0; i < sectionCount; i++) {
    const entry = HEADER_BYTES + i * TABLE_ENTRY_BYTES;
    const key = SECTION_BY_ID.get(view.getUint32(entry, true));
    const elementBytes = KIND_BYTES[view.getUint32(entry + 4, true)];
    if (key === undefined || elementBytes === undefined) return fileLength;
    const offset = view.getUint32(entry + 8, true) + view.getUint32(entry + 12, true) * 2 ** 32;
    const end = offset + (view.getUint32(entry + 16, true) + view.getUint32(entry + 20, true) * 2 ** 32) * elementBytes;
    // Each branch: a transient section moves the cut down; a kept one must end before the cut.
    if (SECTIONS[key].transient) firstTransient = Math.min(firstTransient, offset);
    else lastKeptEnd = Math.max(lastKeptEnd, end);
  }
  if (!(firstTransient >= lastKeptEnd && firstTransient <= fileLength && firstTransient % ALIGNMENT === 0))
    return fileLength;
  return firstTransient;
}

/**
 * The graph parts stored in `bytes` (a whole snapshot file, in one piece or two), with its typed
 * arrays as views on the buffer of the head. Throws QuiverError INVALID_SNAPSHOT "<fileName>: <what
 * is wrong>" for any damaged, foreign or newer file; constructs the engine objects only once
 * everything has been checked.
 */
export function decodeSnapshot(
  bytes: Uint8Array | SnapshotBytes,
  fileName: string,
  options: DecodeOptions = {},
): GraphParts {
  const fail: Fail = failer(fileName);
  // A host of the other byte order would read every integer swapped: refuse, don't misread.
  if (!hostIsLittleEndian())
    fail("snapshots are little-endian and this host is big-endian; Quiver cannot open them here");
  let { head, tail } = bytes instanceof Uint8Array ? { head: bytes, tail: new Uint8Array(0) } : bytes;
  const header = readSnapshotHeader(head, fileName, head.length + tail.length);
  // The header checked that the file is exactly totalLength bytes, so both sums cover the same bytes.
  const actual = options.checksum ?? snapshotChecksum(tail, snapshotChecksum(head.subarray(HEADER_BYTES), 0));
  if (actual !== header.checksum) fail("checksum mismatch: the file is corrupted");
  // Views need 8-aligned offsets in the buffer. file.ts reads into its own ArrayBuffers (aligned);
  // a caller's Buffer may sit at any offset of Node's pool, so copy it once in that case.
  if (head.byteOffset % ALIGNMENT !== 0) head = new Uint8Array(head);
  if (tail.byteOffset % ALIGNMENT !== 0) tail = new Uint8Array(tail);
  const s = readSections({ head, tail }, header, fail);
  return checkAndAssemble(s, fail);
}

type Sections = Record<SectionKey, SectionData>;
type Fail = (what: string) => never;

function failer(fileName: string): Fail {
  return (what: string): never => {
    throw new QuiverError("INVALID_SNAPSHOT", `${fileName}: ${what}`);
  };
}

function getUint64(view: DataView, at: number, fail: Fail, what: string): number {
  const lo = view.getUint32(at, true);
  const hi = view.getUint32(at + 4, true);
  // Lengths beyond 2^53 cannot be real file positions; the number would also lose precision.
  if (hi >= 2 ** 21) fail(`${what} ${hi} * 2^32 + ${lo} is out of range; the file is corrupted`);
  return hi * 2 ** 32 + lo;
}

/** Reads and checks the section table; returns every section as a typed-array view. */
function readSections(bytes: SnapshotBytes, header: SnapshotHeader, fail: Fail): Sections {
  const { head, tail } = bytes;
  const tableEnd = HEADER_BYTES + header.sectionCount * TABLE_ENTRY_BYTES;
  // The table lies in the head, unless a caller cut the file inside it: then read it from a copy.
  const table = tableEnd <= head.length ? head : concatBytes(head, tail.subarray(0, tableEnd - head.length));
  const view = new DataView(table.buffer, table.byteOffset, tableEnd);
  const found = new Map<SectionKey, SectionData>();
  const extents: [start: number, end: number, name: string][] = [];
  for (let i = 0; i < header.sectionCount; i++) {
    const entry = HEADER_BYTES + i * TABLE_ENTRY_BYTES;
    const id = view.getUint32(entry, true);
    const key = SECTION_BY_ID.get(id);
    if (key === undefined) fail(`unknown section id ${id} in the section table; the file is corrupted`);
    const spec = SECTIONS[key];
    if (found.has(key)) fail(`section "${spec.name}" appears twice; the file is corrupted`);
    const kind = view.getUint32(entry + 4, true);
    if (!(spec.kinds as readonly number[]).includes(kind))
      fail(`section "${spec.name}" has element kind ${kind}, which it cannot have; the file is corrupted`);
    const offset = getUint64(view, entry + 8, fail, `offset of section "${spec.name}"`);
    const count = getUint64(view, entry + 16, fail, `element count of section "${spec.name}"`);
    const byteLength = count * (KIND_BYTES[kind] as number);
    if (offset % ALIGNMENT !== 0)
      fail(`section "${spec.name}" starts at ${offset}, not a multiple of ${ALIGNMENT}; the file is corrupted`);
    if (offset < tableEnd || offset + byteLength > header.totalLength) {
      fail(
        `section "${spec.name}" (bytes ${offset} to ${offset + byteLength}) lies outside the data area (${tableEnd} to ${header.totalLength}); the file is corrupted`,
      );
    }
    extents.push([offset, offset + byteLength, spec.name]);
    // Which piece holds the section: the head, the tail, or (only for a cut that is not
    // transientSplit's) both, or the tail at an unaligned place: then it is copied into a buffer
    // of its own.
    let piece: Uint8Array;
    let pieceOffset: number;
    if (offset + byteLength <= head.length) [piece, pieceOffset] = [head, offset];
    else if (offset >= head.length) [piece, pieceOffset] = [tail, offset - head.length];
    else
      [piece, pieceOffset] = [
        concatBytes(head.subarray(offset), tail.subarray(0, offset + byteLength - head.length)),
        0,
      ];
    if ((piece.byteOffset + pieceOffset) % ALIGNMENT !== 0)
      [piece, pieceOffset] = [piece.slice(pieceOffset, pieceOffset + byteLength), 0];
    const at = piece.byteOffset + pieceOffset;
    const buffer = piece.buffer;
    // Each branch: the typed array the element kind names, viewed in place (no copy).
    if (kind === KIND_U8) found.set(key, new Uint8Array(buffer, at, count));
    else if (kind === KIND_U16) found.set(key, new Uint16Array(buffer, at, count));
    else if (kind === KIND_U32) found.set(key, new Uint32Array(buffer, at, count));
    else found.set(key, new Int32Array(buffer, at, count));
  }
  for (const key of SECTION_KEYS) {
    if (!found.has(key)) fail(`section "${SECTIONS[key].name}" is missing; the file is corrupted`);
  }
  extents.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < extents.length; i++) {
    const [start, , name] = extents[i] as [number, number, string];
    const [, prevEnd, prevName] = extents[i - 1] as [number, number, string];
    if (start < prevEnd) fail(`sections "${prevName}" and "${name}" overlap; the file is corrupted`);
  }
  return Object.fromEntries(found) as Sections;
}

/** Checks every count and index of the sections against one another, then builds the parts. */
function checkAndAssemble(_s: Sections, fail: Fail): GraphParts {
  return fail("snapshot format: being moved to per-structure serial forms");
}

/**
 * The wavelet matrix over the document array, after checking that its blocks are the right size,
 * that every level's rank counts (which queries trust to stay inside the arrays) are the ones its
 * bits give, and that every stored value is a rank below `n` in one of the 8 type bands.
 */
function checkWaveletMatrix(
  blocks: Int32Array,
  zeros: Int32Array,
  length: number,
  rankBits: number,
  n: number,
  corrupt: Fail,
): WaveletMatrix {
  const bits = rankBits + 3;
  const stride = BitVector.blocksLength(length);
  if (zeros.length !== bits) corrupt(`wavelet matrix has ${zeros.length} levels, expected ${bits}`);
  if (blocks.length !== bits * stride)
    corrupt(`wavelet matrix has ${blocks.length} block words, expected ${bits * stride}`);
  // Recount each level in a scratch vector: seal() rewrites the counts from the bits alone, so
  // any difference from the stored words is a stored count that lies.
  const scratch = new Int32Array(stride);
  for (let d = 0; d < bits; d++) {
    const level = blocks.subarray(d * stride, (d + 1) * stride);
    scratch.set(level);
    const recount = new BitVector(length, scratch).seal();
    for (let w = 0; w < stride; w++) {
      if (scratch[w] !== level[w]) corrupt(`wavelet matrix level ${d} has a wrong rank count at word ${w}`);
    }
    if (zeros[d] !== recount.rank0(length)) corrupt(`wavelet matrix level ${d} has a wrong zero count`);
  }
  const documents = WaveletMatrix.fromArrays(length, bits, blocks, zeros);
  // With true counts, range successor is exact: no value may lie past the last rank of its band.
  const band = 2 ** rankBits;
  for (let t = 0; t < TYPE_COUNT; t++) {
    if (documents.rangeSuccessor(0, length, t * band + n, (t + 1) * band) >= 0)
      corrupt(`wavelet matrix holds a rank of type ${t} beyond the ${n} entities`);
  }
  return documents;
}

/**
 * The strings of one list: offsets checked (count + 1 of them, from 0, non-decreasing, ending at the
 * blob's length), then decoded by decodeStringList.
 */
function decodeStrings(offsets: Uint32Array, blob: StringBlob, count: number, what: string, corrupt: Fail): string[] {
  if (offsets.length !== count + 1) corrupt(`${what} offsets: ${offsets.length} entries for ${count} strings`);
  if (offsets[0] !== 0 || offsets[count] !== blob.length) corrupt(`${what} offsets do not span the ${what} text`);
  for (let i = 0; i < count; i++) {
    if ((offsets[i + 1] as number) < (offsets[i] as number))
      corrupt(`${what} offsets ${i} and ${i + 1} are out of order`);
  }
  return decodeStringList(offsets, blob);
}

/**
 * The strings of a checked list: the blob decoded with one Buffer call per batch of about
 * `batchCodeUnits` code units (at least one string), and one `slice` per string. Exported for tests.
 */
export function decodeStringList(
  offsets: Uint32Array,
  blob: StringBlob,
  batchCodeUnits: number = DECODE_BATCH_CODE_UNITS,
): string[] {
  const count = offsets.length - 1;
  const wide = blob instanceof Uint16Array;
  const unit = wide ? 2 : 1;
  const encoding = wide ? "utf16le" : "latin1";
  const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const out: string[] = new Array(count);
  let i = 0;
  while (i < count) {
    // A batch: strings i..j-1, as many as fit in batchCodeUnits (at least one).
    const from = offsets[i] as number;
    let j = i + 1;
    while (j < count && (offsets[j + 1] as number) - from <= batchCodeUnits) j++;
    const to = offsets[j] as number;
    const batch = bytes.toString(encoding, from * unit, to * unit);
    for (let k = i; k < j; k++) out[k] = batch.slice((offsets[k] as number) - from, (offsets[k + 1] as number) - from);
    i = j;
  }
  return out;
}

/** `a` then `b` in a fresh (8-aligned) buffer. */
function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function checkPermutation(values: Uint32Array, what: string, corrupt: Fail): void {
  const seen = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v >= values.length || seen[v] === 1) corrupt(`${what} is not a permutation`);
    seen[v] = 1;
  }
}

/**
 * The largest element (-1 for none): one pass, about 10 ms over ten million ids. One function per
 * array type: a loop that sees both Uint8Array and Uint32Array runs several times slower.
 */
function maxOf(values: Uint8Array | Uint32Array): number {
  return values instanceof Uint32Array ? maxOfUint32(values) : maxOfUint8(values);
}

function maxOfUint32(values: Uint32Array): number {
  let max = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v > max) max = v;
  }
  return max;
}

function maxOfUint8(values: Uint8Array): number {
  let max = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v > max) max = v;
  }
  return max;
}

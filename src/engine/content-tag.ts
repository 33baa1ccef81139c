/**
 * Content tag
 * ===========
 * A digest of what a graph holds, the same for any two graphs with the same content however they
 * were built or opened: SHA-256 over the content in a canonical order (entities by entityId, each
 * entityId, rawIdentifier and sourceType as a 32-bit length and UTF-16LE code units, and its type;
 * then the statements in SPO order, each as its three dense ids and its fingerprint's text; then,
 * only when there are any, the scores that differ from the default (dense id and score), and, only
 * when not "case", the fold mode). Every number is a 32-bit little-endian word. These bytes are fixed: graphs built by other versions of
 * Quiver (replicas during a rolling upgrade, snapshots) must keep agreeing on the tag.
 *
 * Two uses: `graph.stats().contentTag` (an ETag over HTTP names the content that made an answer),
 * and the id a cursor records with its position (graph.ts): equal content means equal positions, so
 * any graph with the same tag, a replica or a rebuild, resumes a cursor at its recorded position.
 *
 * Algorithm: the bytes are written by hand into a 1 MiB batch (numbers byte by byte, strings code
 * unit by code unit), so the hash sees few large updates and no string is encoded by a call into
 * C++ per field; a fingerprint of 16 hex digits (every derived one, and a given one stored as its
 * two 32-bit halves, fingerprint-column.ts) is written from its halves as digit codes, never made a
 * string. A string longer than the batch is written across batches. The statements, nearly all of
 * the bytes (48 a statement), are written a 32-bit word at a time on a little-endian machine: the
 * batch is flushed where they start, so every word of them falls on a word of the batch, and a
 * fingerprint's byte becomes its two digits' UTF-16LE code units with one look-up (HEX_PAIRS).
 *
 * Where the batches go (TagHashing): a SHA-256 on this thread (localTagHashing), or one on another
 * (load/tag-hash-thread.ts), which hashes each batch while this thread writes the next: the same
 * bytes in the same order, so the same tag.
 *
 * Cost: one pass over the content; computed once at build and kept in snapshots. The build's
 * content-tag phase in `npm run bench -- --only build` times it.
 */

import { createHash } from "node:crypto";
import type { Hash64 } from "./hash64.js";
import { hexDigit } from "./hash64.js";

/** Bytes gathered before each hash update. */
export const TAG_BATCH_BYTES = 1 << 20;
const BATCH_BYTES = TAG_BATCH_BYTES;
/** Hex digits of a 64-bit fingerprint. */
const FINGERPRINT_DIGITS = 16;
/** Bytes of a statement with a 16-hex fingerprint: three ids, the text's length, 16 UTF-16 code units. */
const STATEMENT_BYTES = 4 * 4 + 2 * FINGERPRINT_DIGITS;

/** What the tag reads of a graph, in canonical order. */
export interface TaggedContent {
  entityCount: number;
  /** entityId, rawIdentifier and sourceType of dense id `id`. */
  entityStrings(id: number): [string, string, string];
  typeOf(id: number): number;
  statementCount: number;
  /** Subject, predicate and object dense ids of SPO row `row`. */
  statementIds(row: number, out: Uint32Array): void;
  /**
   * The text of SPO row `row`'s fingerprint when it is not 16 lowercase hex digits (a text the input
   * gave); otherwise undefined, after writing its 64-bit value (given in hex, or derived) into
   * `halves`: its text is their 16 hex digits, written without making the string.
   */
  fingerprintTextOr(row: number, halves: Hash64): string | undefined;
  /** Entities whose score is not their default (their count of statements), as (dense id, score), ids ascending. */
  scoreOverrides?: readonly (readonly [number, number])[];
  /** The fold mode's code (fold.ts FOLD_MODES): 0 for "case". */
  foldCode?: number;
}

/** Whether a Uint32Array stores its words little-endian (the tag's byte order): the word-at-a-time writes need it. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
/** Byte b's two lowercase hex digits as UTF-16LE code units, read as one little-endian word. */
const HEX_PAIRS = Uint32Array.from({ length: 256 }, (_, b) => hexDigit(b >>> 4) | (hexDigit(b & 15) << 16));

/** Section marks of what follows the statements, each written only when not the default. */
const SCORES_MARK = 1;
const FOLD_MARK = 2;

/**
 * Where the tag's bytes go, a batch at a time, in order. The writer fills `batch()` (TAG_BATCH_BYTES
 * long) and hands its first bytes over with `update`; it asks `batch()` again before writing more
 * (a hasher on another thread gives another batch while it hashes this one).
 */
export interface TagHashing {
  /** The batch to write into next (TAG_BATCH_BYTES long, its length a multiple of 4 from a word boundary). */
  batch(): Uint8Array;
  /** Hands over the first `length` bytes of the batch last given. */
  update(length: number): void;
  /** The SHA-256 of every byte handed over, in hex; the hashing is done. */
  digest(): string;
}

/** Hashing on this thread: one batch, hashed as it is handed over. */
export function localTagHashing(): TagHashing {
  const hash = createHash("sha256");
  const batch = new Uint8Array(BATCH_BYTES);
  return {
    batch: () => batch,
    update: (length) => {
      hash.update(batch.subarray(0, length));
    },
    digest: () => hash.digest("hex"),
  };
}

/** The tag of `content`, its bytes hashed by `hashing` (default: on this thread). */
export function contentTag(content: TaggedContent, hashing: TagHashing = localTagHashing()): string {
  const out = new TagWriter(hashing);
  out.word(content.entityCount);
  for (let id = 0; id < content.entityCount; id++) {
    for (const s of content.entityStrings(id)) out.text(s);
    out.word(content.typeOf(id));
  }
  out.word(content.statementCount);
  out.align();
  const ids = new Uint32Array(3);
  const halves: Hash64 = [0, 0];
  for (let row = 0; row < content.statementCount; row++) {
    content.statementIds(row, ids);
    const text = content.fingerprintTextOr(row, halves);
    // Each branch: a fingerprint of 16 hex digits (nearly every one) is written with its ids in
    // words; any other text as text (which may leave the batch off its word alignment: align()).
    if (text === undefined) out.hexStatement(ids, halves[0], halves[1]);
    else {
      out.word(ids[0]!);
      out.word(ids[1]!);
      out.word(ids[2]!);
      out.text(text);
      out.align();
    }
  }
  // Each branch: a graph with default scores and case folding writes nothing more, so its tag is the
  // one earlier versions computed; others add a marked section (the statements' count fixed where
  // they end, so the bytes stay unambiguous).
  if (content.scoreOverrides !== undefined && content.scoreOverrides.length > 0) {
    out.word(SCORES_MARK);
    out.word(content.scoreOverrides.length);
    for (const [id, score] of content.scoreOverrides) {
      out.word(id);
      out.word(score);
    }
  }
  if (content.foldCode !== undefined && content.foldCode !== 0) {
    out.word(FOLD_MARK);
    out.word(content.foldCode);
  }
  return out.digest();
}

/** The canonical bytes, batched into the hash. */
class TagWriter {
  private readonly hashing: TagHashing;
  private batch: Uint8Array;
  /** The batch as 32-bit words (used only when LITTLE_ENDIAN, at a multiple of 4). */
  private words: Uint32Array;
  private at = 0;

  constructor(hashing: TagHashing) {
    this.hashing = hashing;
    this.batch = hashing.batch();
    this.words = new Uint32Array(this.batch.buffer, this.batch.byteOffset, BATCH_BYTES >>> 2);
  }

  /** Flushes the batch unless it ends on a word: the next writes can then be whole words. */
  align(): void {
    if ((this.at & 3) !== 0) this.flush();
  }

  /**
   * A statement: its three ids and its fingerprint's 16 hex digits (`hexText`), the same bytes as
   * word, word, word, hexText; a word at a time when the batch is on a word (after align()).
   */
  hexStatement(ids: Uint32Array, hi: number, lo: number): void {
    // Each branch: whole words on a little-endian machine at a word boundary, else byte by byte.
    if (!LITTLE_ENDIAN || (this.at & 3) !== 0) {
      this.word(ids[0]!);
      this.word(ids[1]!);
      this.word(ids[2]!);
      this.hexText(hi, lo);
      return;
    }
    if (this.at + STATEMENT_BYTES > BATCH_BYTES) this.flush();
    const w = this.words;
    const k = this.at >>> 2;
    w[k] = ids[0]!;
    w[k + 1] = ids[1]!;
    w[k + 2] = ids[2]!;
    w[k + 3] = FINGERPRINT_DIGITS;
    w[k + 4] = HEX_PAIRS[hi >>> 24]!;
    w[k + 5] = HEX_PAIRS[(hi >>> 16) & 255]!;
    w[k + 6] = HEX_PAIRS[(hi >>> 8) & 255]!;
    w[k + 7] = HEX_PAIRS[hi & 255]!;
    w[k + 8] = HEX_PAIRS[lo >>> 24]!;
    w[k + 9] = HEX_PAIRS[(lo >>> 16) & 255]!;
    w[k + 10] = HEX_PAIRS[(lo >>> 8) & 255]!;
    w[k + 11] = HEX_PAIRS[lo & 255]!;
    this.at += STATEMENT_BYTES;
  }

  /** A 32-bit little-endian word. */
  word(n: number): void {
    if (this.at + 4 > BATCH_BYTES) this.flush();
    const b = this.batch;
    let at = this.at;
    b[at++] = n;
    b[at++] = n >>> 8;
    b[at++] = n >>> 16;
    b[at++] = n >>> 24;
    this.at = at;
  }

  /** A string: its length in code units, then the code units, UTF-16LE (across batches when it is long). */
  text(s: string): void {
    this.word(s.length);
    // A string that does not fit what is left of the batch starts a new one (whole, when it fits one).
    if (this.at + 2 * s.length > BATCH_BYTES) this.flush();
    for (let i = 0; i < s.length; ) {
      // Each branch: a full batch (a string longer than one) goes before the next code units.
      if (this.at + 2 > BATCH_BYTES) this.flush();
      const b = this.batch;
      let at = this.at;
      const end = Math.min(s.length, i + ((BATCH_BYTES - at) >>> 1));
      for (; i < end; i++) {
        const c = s.charCodeAt(i);
        b[at++] = c;
        b[at++] = c >>> 8;
      }
      this.at = at;
    }
  }

  /** The text of a 64-bit value as 16 lowercase hex digits, as `text` writes it: the same bytes, no string. */
  hexText(hi: number, lo: number): void {
    this.word(FINGERPRINT_DIGITS);
    if (this.at + 2 * FINGERPRINT_DIGITS > BATCH_BYTES) this.flush();
    const b = this.batch;
    let at = this.at;
    for (let shift = 28; shift >= 0; shift -= 4) {
      b[at] = hexDigit((hi >>> shift) & 0xf);
      b[at + 1] = 0;
      at += 2;
    }
    for (let shift = 28; shift >= 0; shift -= 4) {
      b[at] = hexDigit((lo >>> shift) & 0xf);
      b[at + 1] = 0;
      at += 2;
    }
    this.at = at;
  }

  digest(): string {
    this.flush();
    return this.hashing.digest();
  }

  /** Hands the batch's bytes over and takes the next batch to write into. */
  private flush(): void {
    if (this.at === 0) return;
    this.hashing.update(this.at);
    this.at = 0;
    const next = this.hashing.batch();
    // Each branch: the same batch again (hashing here), or another (hashing on another thread).
    if (next !== this.batch) {
      this.batch = next;
      this.words = new Uint32Array(next.buffer, next.byteOffset, BATCH_BYTES >>> 2);
    }
  }
}

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
 * string. A string longer than the batch goes to the hash by itself.
 *
 * Cost: one pass over the content; computed once at build and kept in snapshots. At 300,000
 * entities and 2M statements, 1.1-1.6 s -> 0.8-1.0 s with derived fingerprints and 0.85-1.1 s ->
 * 0.43-0.54 s with given ones, against the per-field writes and fingerprint strings this replaced
 * (a scratch run timing both versions on the same snapshots, alternated); the build's content-tag
 * phase in `npm run bench -- --only build`.
 */

import { createHash } from "node:crypto";
import type { Hash64 } from "./hash64.js";
import { hexDigit } from "./hash64.js";

/** Bytes gathered before each hash update. */
const BATCH_BYTES = 1 << 20;
/** Hex digits of a 64-bit fingerprint. */
const FINGERPRINT_DIGITS = 16;

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

/** Section marks of what follows the statements, each written only when not the default. */
const SCORES_MARK = 1;
const FOLD_MARK = 2;

export function contentTag(content: TaggedContent): string {
  const out = new TagWriter();
  out.word(content.entityCount);
  for (let id = 0; id < content.entityCount; id++) {
    for (const s of content.entityStrings(id)) out.text(s);
    out.word(content.typeOf(id));
  }
  out.word(content.statementCount);
  const ids = new Uint32Array(3);
  const halves: Hash64 = [0, 0];
  for (let row = 0; row < content.statementCount; row++) {
    content.statementIds(row, ids);
    out.word(ids[0]!);
    out.word(ids[1]!);
    out.word(ids[2]!);
    const text = content.fingerprintTextOr(row, halves);
    if (text === undefined) out.hexText(halves[0], halves[1]);
    else out.text(text);
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
  private readonly hash = createHash("sha256");
  private readonly batch = new Uint8Array(BATCH_BYTES);
  private at = 0;

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

  /** A string: its length in code units, then the code units, UTF-16LE. */
  text(s: string): void {
    this.word(s.length);
    const bytes = 2 * s.length;
    if (this.at + bytes > BATCH_BYTES) this.flush();
    if (bytes > BATCH_BYTES) {
      this.hash.update(s, "utf16le");
      return;
    }
    const b = this.batch;
    let at = this.at;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      b[at++] = c;
      b[at++] = c >>> 8;
    }
    this.at = at;
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
    return this.hash.digest("hex");
  }

  private flush(): void {
    this.hash.update(this.batch.subarray(0, this.at));
    this.at = 0;
  }
}

/**
 * Batch chain
 * ===========
 * A digest of the batches a live graph applied on top of its base, in order: with the base's tag
 * and the sequence it names the live graph's content (live-graph.ts contentTag), so that two
 * graphs with one tag hold the same content (CONTRACT.md "Caching": two answers with one tag have
 * the same bytes, whatever graph or replica served them). The sequence alone does not: two change
 * logs over one base (a log lost and started again, a staging and a production writer) reach one
 * sequence with other batches.
 *
 * Algorithm: chain(0) = SHA-256 of the base's sequence; chain(n) = SHA-256(chain(n - 1), the
 * batch's digest), the digest being the SHA-256 of the batch's text in UTF-8: the JSON Lines as
 * given, or a batch given as objects written one JSON line each (live-apply.ts batchText). That
 * text is what the change log holds, byte for byte, and what a follower, a restart and `quiver
 * compact` apply again, so every process that applies one log's batches from one base computes the
 * same chain; and the log's own checksum of a batch file is this digest (ChangeLogWriter.append
 * takes it: one SHA-256 a batch, not two). The same changes spelled otherwise (key order, ignored
 * fields, blank lines) make another digest: another tag for the same content, which the contract
 * allows (one tag must mean one content, not the converse).
 *
 * Cost: one SHA-256 of the batch's text at its preparation (about 1 ms a MB; the log's checksum,
 * which a server computed anyway), and one SHA-256 of two short strings at its commit.
 *
 * References: CONTRACT.md "Caching", "Changes (live updates)"; RFC 9110 section 8.8.3 (strong validators).
 */

import { createHash } from "node:crypto";

/** The chain of a base at `baseSequence`, before any batch. */
export function chainStart(baseSequence: number): string {
  return createHash("sha256").update(`quiver-batch-chain\u0000${baseSequence}`).digest("hex");
}

/** The digest of a batch of text `text` (see the banner): the SHA-256 of its UTF-8, in 64 hex digits. */
export function batchDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The chain after a batch of digest `digest` (batchDigest) on top of `chain`. */
export function chainNext(chain: string, digest: string): string {
  return createHash("sha256").update(`${chain}\u0000${digest}`).digest("hex");
}

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
 * batch's canonical text). The canonical text is the batch's checked changes (change-batch.ts
 * ParsedChange), one JSON array a line with only the fields the contract names, so a batch given
 * as its JSON Lines, as objects, or read back from a change log gives the same digest whatever its
 * spelling (key order, ignored fields, blank lines); a statement left to a derived fingerprint is
 * written without one (the derivation is a function of its triple). Every process that applies one
 * log's batches from one base computes the same chain: writer, followers, a restart.
 *
 * Cost: O(bytes of the batch) once per batch, at its preparation (before the change log write),
 * hashed a thousand lines at a time (a hash update per line costs about as much as the line); and
 * one SHA-256 of 64 hex digits and a 43-character digest at its commit. Small beside the batch's
 * own preparation and commit, which look up and index every line.
 *
 * References: CONTRACT.md "Caching", "Changes (live updates)"; RFC 9110 section 8.8.3 (strong validators).
 */

import { createHash } from "node:crypto";
import type { ParsedChange } from "./change-batch.js";

/** The chain of a base at `baseSequence`, before any batch. */
export function chainStart(baseSequence: number): string {
  return createHash("sha256").update(`quiver-batch-chain\u0000${baseSequence}`).digest("hex");
}

/** Lines of canonical text handed to the hash at once: one update per line costs about as much as the line's text. */
const LINES_PER_UPDATE = 1024;

/** The canonical text of one checked change (see the banner). */
function canonicalLine(c: ParsedChange): string {
  // Each branch: one kind of line, with the fields the contract gives it and nothing else.
  switch (c.kind) {
    case "putEntity": {
      const e = c.entity;
      return JSON.stringify(["e", e.entityId, e.rawIdentifier, e.type, e.sourceType, e.score ?? null]);
    }
    case "deleteEntity":
      return JSON.stringify(["d", c.entityId, c.cascade]);
    case "putStatement": {
      const s = c.statement;
      return JSON.stringify([
        "s",
        s.subjectEntityId,
        s.predicateEntityId,
        s.objectEntityId,
        s.statementFingerprint ?? null,
      ]);
    }
    case "deleteStatement":
      return JSON.stringify(["x", c.fingerprint]);
  }
}

/** The digest of one batch's checked changes (see the banner for the canonical text). */
export function batchDigest(changes: readonly ParsedChange[]): string {
  const hash = createHash("sha256");
  for (let at = 0; at < changes.length; at += LINES_PER_UPDATE) {
    let text = "";
    const end = Math.min(changes.length, at + LINES_PER_UPDATE);
    for (let i = at; i < end; i++) text += `${canonicalLine(changes[i]!)}\n`;
    hash.update(text);
  }
  return hash.digest("base64url");
}

/** The chain after a batch of digest `digest` (batchDigest) on top of `chain`. */
export function chainNext(chain: string, digest: string): string {
  return createHash("sha256").update(`${chain}\u0000${digest}`).digest("hex");
}

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
 * allows (one tag must mean one content, not the converse). A batch given as objects to a graph
 * with no change log (no text to write, none to read back) is named by its checked changes instead
 * (changesDigest: each field with its length, so no two batches spell alike; after a marker no
 * batch text can start with), not by their JSON, which costs about half the batch's own apply.
 *
 * Cost: one SHA-256 of the batch's text (the log's checksum, which a server computed anyway),
 * made when the prepared batch's digest is first read (its commit, or the log's append) unless the
 * caller hashed the text already, as a server does on the thread pool while it prepares the batch
 * (batchDigestOffThread); or of its changes' fields (about 2-4 ms for 10,000 statement puts given
 * as objects); and one SHA-256 of two short strings at its commit.
 *
 * References: CONTRACT.md "Caching", "Changes (live updates)"; RFC 9110 section 8.8.3 (strong validators).
 */

import { createHash, webcrypto } from "node:crypto";
import type { ParsedChange } from "./change-batch.js";

/** The chain of a base at `baseSequence`, before any batch. */
export function chainStart(baseSequence: number): string {
  return createHash("sha256").update(`quiver-batch-chain\u0000${baseSequence}`).digest("hex");
}

/** The digest of a batch of text `text` (see the banner): the SHA-256 of its UTF-8, in 64 hex digits. */
export function batchDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * batchDigest(text), hashed on libuv's thread pool (WebCrypto's digest): the calling thread only
 * encodes the text to UTF-8 and is free meanwhile. A server hashes a batch so while it prepares it
 * (LiveStore.applyAsync), where the hash on its own thread took about 4 ms of a 1.2 MB batch of
 * 10,000 puts (a CPU profile of `quiver serve --changes` under the HTTP rows of npm run bench:changes).
 */
export async function batchDigestOffThread(text: string): Promise<string> {
  const hash = await webcrypto.subtle.digest("SHA-256", Buffer.from(text, "utf8"));
  return Buffer.from(hash).toString("hex");
}

/** What a changesDigest input starts with: a control character, which no JSON Lines text (so no batch's text) starts with. */
const CHANGES_MARKER = "\u0001quiver-changes\n";

/** Changes digested together: one hash update per change costs about as much as the change's text. */
const CHANGES_PER_UPDATE = 1024;

/** A string in changesDigest's text: its length, a colon, itself (so no two sequences of strings read alike). */
function field(s: string): string {
  return `${s.length}:${s}`;
}

/** One checked change in changesDigest's text: its kind's letter and its fields, each with its length. */
function changeText(c: ParsedChange): string {
  // Each branch: one kind of change, with the fields the contract gives it (an absent one "-").
  switch (c.kind) {
    case "putEntity": {
      const e = c.entity;
      return `e${field(e.entityId)}${field(e.rawIdentifier)}${field(e.type)}${field(e.sourceType)}${e.score ?? "-"}\n`;
    }
    case "deleteEntity":
      return `d${field(c.entityId)}${c.cascade ? 1 : 0}\n`;
    case "putStatement": {
      const st = c.statement;
      const fp = st.statementFingerprint;
      return `s${field(st.subjectEntityId)}${field(st.predicateEntityId)}${field(st.objectEntityId)}${fp === undefined ? "-" : field(fp)}\n`;
    }
    case "deleteStatement":
      return `x${field(c.fingerprint)}\n`;
  }
}

/**
 * The digest of a batch given as objects to a graph with no change log (see the banner): the SHA-256
 * of its checked changes' fields, in 64 hex digits.
 */
export function changesDigest(changes: readonly ParsedChange[]): string {
  const hash = createHash("sha256").update(CHANGES_MARKER);
  for (let at = 0; at < changes.length; at += CHANGES_PER_UPDATE) {
    let text = "";
    const end = Math.min(changes.length, at + CHANGES_PER_UPDATE);
    for (let i = at; i < end; i++) text += changeText(changes[i]!);
    hash.update(text, "utf8");
  }
  return hash.digest("hex");
}

/** The chain after a batch of digest `digest` (batchDigest) on top of `chain`. */
export function chainNext(chain: string, digest: string): string {
  return createHash("sha256").update(`${chain}\u0000${digest}`).digest("hex");
}

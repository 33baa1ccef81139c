/**
 * Forged cursors (L4 of the 97427d8 review): whoever guesses a weak cursor secret from one issued
 * cursor can seal any body. Every such cursor, however malformed behind its valid MAC (part
 * lengths that never end or overrun the body, odd UTF-16 parts, bogus position hints, unknown
 * tiers, wrong part counts), gives a page or a QuiverError; never another error (a 500).
 * Seeded, 3,000 forgeries over search and statements.
 */

import { createHmac } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GraphBuilder, QuiverError } from "../../../src/index.js";
import { rng } from "../../../reliability/fuzz-cases.js";

const SECRET = "k9";
const HEADER_BYTES = 11;
const MAC_BYTES = 16;

function graph() {
  const b = new GraphBuilder({ cursorSecret: SECRET });
  for (let i = 0; i < 60; i++)
    b.addEntity({
      entityId: `Q${i}`,
      rawIdentifier: `alpha item ${i}`,
      type: (["0", "1", "2"] as const)[i % 3]!,
      sourceType: "t",
    });
  for (let i = 1; i < 60; i++)
    b.addStatement({ subjectEntityId: "Q0", predicateEntityId: "Q1", objectEntityId: `Q${i}` });
  return b.build();
}

/** A cursor with this header and body, sealed as the codec seals: HMAC-SHA256 of the body, first 16 bytes. */
function seal(header: Buffer, body: Buffer): string {
  const all = Buffer.concat([header, body]);
  const mac = createHmac("sha256", SECRET).update(all).digest().subarray(0, MAC_BYTES);
  return Buffer.concat([all, mac]).toString("base64url");
}

function varint(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    if (n < 0x80) {
      out.push(n);
      return out;
    }
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
}

test("an issued cursor re-sealed unchanged is accepted (the forgery is the codec's own sealing)", () => {
  const g = graph();
  const first = g.search({ q: "alpha", limit: 5 });
  const bytes = Buffer.from(first.nextCursor as string, "base64url");
  const again = seal(bytes.subarray(0, HEADER_BYTES), bytes.subarray(HEADER_BYTES, bytes.length - MAC_BYTES));
  assert.is(again, first.nextCursor);
});

test("3,000 forged cursors with valid MACs: a page or a QuiverError, never another error", () => {
  const g = graph();
  const random = rng(27).next;
  const search = Buffer.from(g.search({ q: "alpha", limit: 5 }).nextCursor as string, "base64url");
  const statements = Buffer.from(g.statements({ limit: 5 }).nextCursor as string, "base64url");
  const codes = new Map<string, number>();
  for (let i = 0; i < 3000; i++) {
    const isSearch = i % 2 === 0;
    const header = Buffer.from((isSearch ? search : statements).subarray(0, HEADER_BYTES));
    // The tier byte: any value now and then.
    if (random() < 0.3) header[2] = Math.floor(random() * 256);
    const body: number[] = [];
    const parts = Math.floor(random() * 7);
    for (let p = 0; p < parts; p++) {
      const kind = random();
      if (kind < 0.1) {
        // A varint that never ends.
        body.push(0x80, 0x80, 0x80, 0x80, 0x80, 0x80);
      } else if (kind < 0.2) {
        // A length past the body.
        body.push(...varint(2 * 4000));
      } else if (kind < 0.3) {
        // An odd-length UTF-16 part.
        body.push(...varint(2 * 3 + 1), 1, 2, 3);
      } else {
        const text =
          kind < 0.6
            ? `Q${Math.floor(random() * 80)}`
            : kind < 0.8
              ? `${"x".repeat(Math.floor(random() * 4))}.${Math.floor(random() * 1e6)
                  .toString(16)
                  .padStart(8, "0")}`
              : String.fromCharCode(
                  ...Array.from({ length: Math.floor(random() * 20) }, () => Math.floor(random() * 0x3000)),
                );
        const utf16 = random() < 0.2;
        const bytes = Buffer.from(text, utf16 ? "utf16le" : "utf8");
        body.push(...varint(2 * bytes.length + (utf16 ? 1 : 0)), ...bytes);
      }
    }
    const cursor = seal(header, Buffer.from(body));
    try {
      if (isSearch) g.search({ q: "alpha", limit: 5, cursor });
      else g.statements({ limit: 5, cursor });
      codes.set("page", (codes.get("page") ?? 0) + 1);
    } catch (e) {
      if (!(e instanceof QuiverError)) assert.unreachable(`forgery ${i} threw ${(e as Error).stack}`);
      const code = (e as QuiverError).code;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
  }
  assert.ok((codes.get("INVALID_CURSOR") ?? 0) > 100, JSON.stringify([...codes]));
});

test.run();

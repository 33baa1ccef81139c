/**
 * Test helpers for snapshots
 * ==========================
 * A graph's snapshot as one 8-aligned buffer (with a fixed build time, so bytes are reproducible),
 * a checksum rewritten after a deliberate corruption (so the structures' own checks are what
 * refuses it), and the expectation every refusal must meet: a QuiverError INVALID_SNAPSHOT whose
 * message starts with the file's name. Two structures' serial forms compared field by field.
 */

import { crc32 } from "node:zlib";
import * as assert from "uvu/assert";

import { isQuiverError, type Graph } from "../../src/index.js";
import type { SerialField } from "../../src/engine/serial.js";
import { CHECKSUM_AT, CHECKSUM_FROM } from "../../src/snapshot/container.js";
import { encodeSnapshot } from "../../src/snapshot/file.js";
import { show } from "./oracle.js";

/** The build time tests record, so that two encodings of one graph are the same bytes. */
export const FIXED_BUILT_AT = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));

/** Chunks as one buffer of its own (8-aligned, as file.ts reads a file). */
export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(new ArrayBuffer(n));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Asserts two serial forms (MemorySerialWriter's fields) the same: the same names in the same order,
 * arrays byte for byte (no diff of megabytes on failure), other fields equal. `label` starts each
 * failure's message.
 */
export function assertSameFields(
  got: ReadonlyMap<string, SerialField>,
  expected: ReadonlyMap<string, SerialField>,
  label = "",
): void {
  const prefix = label === "" ? "" : `${label}: `;
  assert.equal([...got.keys()], [...expected.keys()], `${prefix}field names`);
  for (const [name, value] of expected) {
    const other = got.get(name);
    // Each branch: arrays byte for byte, other fields as they are.
    if (ArrayBuffer.isView(value)) {
      const b = other as ArrayBufferView;
      const same = Buffer.from(value.buffer, value.byteOffset, value.byteLength).equals(
        new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
      );
      assert.ok(same, `${prefix}${name}`);
    } else assert.equal(other, value, `${prefix}${name}`);
  }
}

/** The snapshot of `g` as one buffer. */
export function snapshotBytes(g: Graph): Uint8Array {
  return concat(encodeSnapshot(g, { builtAt: FIXED_BUILT_AT }));
}

/** Rewrites the header's checksum so the file passes it: what is left to refuse it are the structures' checks. */
export function fixChecksum(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(
    CHECKSUM_AT,
    crc32(bytes.subarray(CHECKSUM_FROM)),
    true,
  );
  return bytes;
}

function checkRefusal(e: unknown, file: string, pattern: RegExp | undefined, ctx: string): string {
  if (!isQuiverError(e))
    throw new Error(
      `${ctx}: want QuiverError INVALID_SNAPSHOT, got ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`,
    );
  assert.is(e.code, "INVALID_SNAPSHOT", ctx);
  assert.ok(e.message.startsWith(`${file}: `), `${ctx}: message ${show(e.message)} does not start with the file name`);
  if (pattern !== undefined) assert.match(e.message, pattern, ctx);
  return e.message;
}

/** `f` must throw QuiverError INVALID_SNAPSHOT naming `file` (and matching `pattern`); returns the message. */
export function expectInvalid(f: () => unknown, file: string, pattern?: RegExp, ctx = ""): string {
  try {
    f();
  } catch (e) {
    return checkRefusal(e, file, pattern, ctx);
  }
  assert.unreachable(`${ctx}: want QuiverError INVALID_SNAPSHOT, but it returned`);
  return "";
}

export async function expectInvalidAsync(
  f: () => Promise<unknown>,
  file: string,
  pattern?: RegExp,
  ctx = "",
): Promise<string> {
  try {
    await f();
  } catch (e) {
    return checkRefusal(e, file, pattern, ctx);
  }
  assert.unreachable(`${ctx}: want QuiverError INVALID_SNAPSHOT, but it resolved`);
  return "";
}

/**
 * Files published whole
 * =====================
 * The two steps every file Quiver writes goes through (a snapshot, `quiver dump`'s and `quiver
 * convert`'s JSON Lines): a temporary file of the writer's own beside the destination,
 * `<path>.<pid>.<random>.tmp`, created exclusively ("wx": never an existing file, so never a user's
 * own `<path>.tmp` or another writer's file), written, fsync'ed and renamed over the destination; then
 * the directory fsync'ed, so the rename survives a power cut. rename(2) is atomic within a file
 * system: a reader sees the old file or the new one whole, never a cut one.
 *
 * Cost: one open and one fsync per file, one fsync per directory.
 */

import { randomBytes } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";

/** Tries at a fresh temporary name when one exists already (a 48-bit random name: never, in practice). */
const TEMPORARY_NAME_TRIES = 4;

/** A temporary file of this writer's own beside `path`, created exclusively (see the banner). */
export async function createTemporary(path: string): Promise<{ handle: FileHandle; tmp: string }> {
  for (let attempt = 1; ; attempt++) {
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      return { handle: await open(tmp, "wx"), tmp };
    } catch (e) {
      // Someone else's file has this name: leave it alone and draw another.
      if ((e as { code?: unknown }).code === "EEXIST" && attempt < TEMPORARY_NAME_TRIES) continue;
      throw e;
    }
  }
}

/**
 * fsync of a directory, so that a rename in it survives a power cut. Best effort: some platforms and
 * file systems refuse to open or sync a directory, and the file itself is already durable.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Not supported here: the rename is still atomic, only perhaps not yet durable.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

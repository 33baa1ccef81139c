/**
 * A folder made with its missing parents
 * ======================================
 * `mkdir -p` for the folders Quiver writes into (a change log, `quiver dump --out`, the datasets'
 * JSON Lines), in place of node's `mkdirSync(dir, { recursive: true })`, which never returns where a
 * parent exists but cannot hold the child: under /proc, /sys or a stale mount, mkdir(2) answers
 * ENOENT for the child and EEXIST for its parent, and node's loop (Node 18 to 22) makes the parent
 * and tries the child again forever, at 100% CPU (`quiver serve --changes /proc/x` hung so).
 *
 * Algorithm: mkdir the folder; on ENOENT make its parent the same way, then mkdir the folder once
 * more, and an error then is final (the parent exists: retrying could only repeat it). EEXIST is
 * success when the path is a folder. So each level of the path is tried at most twice.
 *
 * Cost: at most two mkdir calls and one stat a level of the path.
 * Reference: mkdir(2); nodejs/node's recursive mkdir (MKDirpSync in src/node_file.cc).
 */

import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Makes folder `dir` and any missing parents; throws the mkdir error that stops it (ENOENT, EACCES, ENOTDIR...). */
export function makeDirectory(dir: string): void {
  const missing = tryMake(dir);
  if (missing === undefined) return;
  const parent = dirname(dir);
  // The root (a path with no parent left) that mkdir says does not exist: nothing above to make.
  if (parent === dir) throw missing;
  makeDirectory(parent);
  // The parent is there now: an error making the folder again is the answer, not a reason to loop.
  const again = tryMake(dir);
  if (again !== undefined) throw again;
}

/**
 * mkdir of `dir` alone: undefined when it is a folder afterwards (made now, or there already); its
 * ENOENT error when its parent is missing (or, under /proc, cannot hold it); any other error is
 * thrown, as is EEXIST for a path that is not a folder.
 */
function tryMake(dir: string): NodeJS.ErrnoException | undefined {
  try {
    mkdirSync(dir);
    return undefined;
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    if (error.code === "ENOENT") return error;
    // Each branch: an existing folder is what was asked; anything else there (a file) is the error itself.
    if (error.code === "EEXIST" && statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true) return undefined;
    throw error;
  }
}

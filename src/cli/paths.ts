/**
 * Checks on the paths a command is given
 * ======================================
 * Run before the long work (reading gigabytes, building indexes), so that a typo in a path, a
 * folder given for a file or an output nobody may write ends the command at once, naming the option
 * and the path, instead of after minutes of loading. Each check is one or two stat/access calls.
 *
 * These are early reports, not guarantees: the file system may change before the work reaches the
 * path, and the reading and writing code still handles every error it meets.
 */

import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { STDIN_PATH } from "../index.js";
import { CommandFailure, UsageError } from "./command.js";

const kindOf = (isDirectory: boolean): string => (isDirectory ? "a folder" : "not a regular file");

/** `option PATH`: an input file that exists, is a file and may be read; `-` (stdin) passes. */
export async function checkInputFile(option: string, path: string): Promise<void> {
  if (path === STDIN_PATH) return;
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new CommandFailure(`${option} ${path}: ${describeMissing(e)}`);
  });
  if (!info.isFile() && !info.isFIFO() && !info.isCharacterDevice()) {
    // A FIFO or /dev/stdin streams like a file; a folder or a socket does not.
    throw new CommandFailure(`${option} ${path}: is ${kindOf(info.isDirectory())}; give a file`);
  }
  await access(path, constants.R_OK).catch(() => {
    throw new CommandFailure(`${option} ${path}: cannot be read (permission denied)`);
  });
}

/** `option PATH`: an input folder that exists and may be listed. */
export async function checkInputDirectory(option: string, path: string): Promise<void> {
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new CommandFailure(`${option} ${path}: ${describeMissing(e)}`);
  });
  if (!info.isDirectory()) throw new CommandFailure(`${option} ${path}: is a file; give a folder`);
  await access(path, constants.R_OK | constants.X_OK).catch(() => {
    throw new CommandFailure(`${option} ${path}: cannot be read (permission denied)`);
  });
}

/**
 * `option PATH`: a file the command will create or replace. Its folder must exist and be writable;
 * the path itself must not be a folder, and an existing file there must be replaceable.
 */
export async function checkOutputFile(option: string, path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory() === true) {
    throw new CommandFailure(`${option} ${path}: is a folder; give the path of the file to write`);
  }
  const folder = dirname(resolve(path));
  const folderInfo = await stat(folder).catch(() => undefined);
  if (folderInfo === undefined) throw new CommandFailure(`${option} ${path}: the folder ${folder} does not exist`);
  if (!folderInfo.isDirectory()) throw new CommandFailure(`${option} ${path}: ${folder} is not a folder`);
  await access(folder, constants.W_OK | constants.X_OK).catch(() => {
    throw new CommandFailure(`${option} ${path}: cannot write in ${folder} (permission denied)`);
  });
}

/**
 * `option PATH`: a folder the command will write files into, created if missing (with its missing
 * parents). It must not be a file; the nearest existing folder on the way must be writable.
 */
export async function checkOutputDirectory(option: string, path: string): Promise<void> {
  let at = resolve(path);
  for (;;) {
    const info = await stat(at).catch(() => undefined);
    if (info !== undefined) {
      if (!info.isDirectory()) {
        throw new CommandFailure(
          at === resolve(path) ? `${option} ${path}: is a file; give a folder` : `${option} ${path}: ${at} is a file`,
        );
      }
      await access(at, constants.W_OK | constants.X_OK).catch(() => {
        throw new CommandFailure(`${option} ${path}: cannot write in ${at} (permission denied)`);
      });
      return;
    }
    const parent = dirname(at);
    // The root always exists; reaching it without finding a folder means the path is unusable.
    if (parent === at) throw new CommandFailure(`${option} ${path}: no folder on the way exists`);
    at = parent;
  }
}

/** The JSON Lines inputs of a graph: each a readable file, or `-` for one of them (stdin reads once). */
export async function checkGraphInputFiles(entities: string, statements: string): Promise<void> {
  if (entities === STDIN_PATH && statements === STDIN_PATH) {
    throw new UsageError("--entities and --statements cannot both be - (stdin): give at least one as a file");
  }
  await checkInputFile("--entities", entities);
  await checkInputFile("--statements", statements);
}

function describeMissing(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case "ENOENT":
      return "no such file or folder";
    case "ENOTDIR":
      return "a part of the path is a file, not a folder";
    case "EACCES":
      return "cannot be reached (permission denied)";
    default:
      return e.message;
  }
}

/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open
 * for content, so a link swapped in after the check fails in the kernel and
 * a FIFO can never block the process.
 *
 * @module
 */
import * as fs from "node:fs";
import { isUtf8 } from "node:buffer";
import { type DirEntry, FsError, type FsPort } from "./fs_port.ts";
import { createExclusive, errnoError, holdDirectory, infoOf, kindOf, openRegular } from "./descriptor.ts";
import { missingOpenFlags } from "./capabilities.ts";

/** Maps a Node error to the project's codes, at this one boundary. */
function fsError(error: unknown): FsError {
  if (error instanceof FsError) return error;
  return errnoError(error) ?? new FsError("io");
}

function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fsError(error);
  }
}

/**
 * Lists a directory with exact names. Names are read as strings (fast);
 * only when one holds U+FFFD, which is also what a byte that is not UTF-8
 * decodes to, is the directory read again as raw bytes, and a name that is
 * not UTF-8 left out: it cannot be named faithfully in JSON.
 */
function readDir(path: string): DirEntry[] {
  const entries = fs.readdirSync(path, { withFileTypes: true });
  if (!entries.some((d) => d.name.includes("\uFFFD"))) {
    return entries.map((d): DirEntry => ({ name: d.name, kind: kindOf(d) }));
  }
  const exact: DirEntry[] = [];
  for (const d of fs.readdirSync(path, { withFileTypes: true, encoding: "buffer" })) {
    if (isUtf8(d.name)) exact.push({ name: d.name.toString("utf8"), kind: kindOf(d) });
  }
  return exact;
}

/** The `FsPort` for Node.js; `unsupported` where `node:fs` lacks the no-follow open (Windows). */
export const nodePort: FsPort = {
  unsupported: missingOpenFlags(fs.constants),

  realPath: (path) => attempt(() => fs.realpathSync(path)),

  lstat(path) {
    try {
      return infoOf(fs.lstatSync(path, { bigint: true }));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException)?.code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw fsError(error);
    }
  },

  holdDirectory: (path) => holdDirectory(path, fsError),
  readDir: (path) => attempt(() => readDir(path)),
  openRead: (path) => openRegular((p) => nodePort.lstat(p), path, fsError),
  createExclusive: (path, mode) => createExclusive(path, mode, fsError),
  rename: (from, to) => attempt(() => fs.renameSync(from, to)),
  remove: (path) => attempt(() => fs.unlinkSync(path)),
};

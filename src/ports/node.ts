/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open
 * for content (`descriptor.ts`).
 *
 * @module
 */
import * as fs from "node:fs";
import { isUtf8 } from "node:buffer";
import type { DirEntry, FsPort } from "./fs_port.ts";
import {
  attempt,
  createExclusive,
  fsErrorOf,
  holdDirectory,
  infoOf,
  kindOf,
  openRegular,
} from "./descriptor.ts";
import { missingOpenFlags } from "./capabilities.ts";

/**
 * Names are read as strings (fast); only when one holds U+FFFD, which is also
 * what a byte that is not UTF-8 decodes to, is the directory read again as
 * bytes, and a name that is not UTF-8 left out.
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
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  lstat(path) {
    try {
      return infoOf(fs.lstatSync(path, { bigint: true }));
    } catch (error) {
      const failure = fsErrorOf(error);
      if (failure.code === "not_found" || failure.code === "not_directory") return null;
      throw failure;
    }
  },
  holdDirectory: (path) => holdDirectory(path, fsErrorOf),
  readDir: (path) => attempt(fsErrorOf, () => readDir(path)),
  openRead: (path) => openRegular((p) => nodePort.lstat(p), path, fsErrorOf),
  createExclusive: (path, mode) => createExclusive(path, mode, fsErrorOf),
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};

/**
 * The Deno port: `Deno.*`, and Deno's built-in `node:fs` for the primitives
 * `Deno.*` lacks (`descriptor.ts`): the open for content with
 * `O_NOFOLLOW | O_NONBLOCK`, and `fchmod` for the mode of a write's new file.
 *
 * @module
 */
import { constants } from "node:fs";
import { type DirEntry, type EntryKind, type FileInfo, FsError, type FsPort } from "./fs_port.ts";
import { attempt, createExclusive, fsErrorOf, holdDirectory, openRegular } from "./descriptor.ts";
import { missingOpenFlags } from "./capabilities.ts";

function kindOf(s: Deno.FileInfo | Deno.DirEntry): EntryKind {
  if (s.isFile) return "file";
  if (s.isDirectory) return "directory";
  return s.isSymlink ? "symlink" : "other";
}

function nanos(date: Date | null): bigint {
  return date === null ? 0n : BigInt(date.getTime()) * 1_000_000n;
}

function infoOf(s: Deno.FileInfo): FileInfo {
  return {
    kind: kindOf(s),
    size: s.size,
    mtimeNs: nanos(s.mtime),
    ctimeNs: nanos(s.ctime),
    ino: BigInt(s.ino ?? 0),
    dev: BigInt(s.dev),
    nlink: s.nlink ?? 1,
    mode: (s.mode ?? 0) & 0o7777,
  };
}

/** Deno's errors carry the errno `code`, except a permission refusal, which never reaches the kernel. */
function fsError(error: unknown): FsError {
  const denied = error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable;
  return denied ? new FsError("denied") : fsErrorOf(error);
}

/**
 * Deno decodes a name that is not UTF-8 with U+FFFD for the bad bytes, so it
 * cannot be told from one that really holds U+FFFD: such a name is reported
 * once, as `unknown`, and the caller's no-follow lstat of that very name
 * finds the real file or nothing. A name that is not UTF-8 is never served
 * as another's.
 */
function readDir(path: string): DirEntry[] {
  const entries: DirEntry[] = [];
  const doubtful = new Set<string>();
  for (const d of Deno.readDirSync(path)) {
    if (!d.name.includes("\uFFFD")) entries.push({ name: d.name, kind: kindOf(d) });
    else if (!doubtful.has(d.name)) {
      doubtful.add(d.name);
      entries.push({ name: d.name, kind: "unknown" });
    }
  }
  return entries;
}

/** The `FsPort` for Deno. */
export const denoPort: FsPort = {
  unsupported: missingOpenFlags(constants),
  byteSearch: "rarest-byte",
  realPath: (path) => attempt(fsError, () => Deno.realPathSync(path)),
  lstat(path) {
    try {
      return infoOf(Deno.lstatSync(path));
    } catch (error) {
      const failure = fsError(error);
      if (failure.code === "not_found" || failure.code === "not_directory") return null;
      throw failure;
    }
  },
  holdDirectory: (path) => holdDirectory(path, fsError),
  readDir: (path) => attempt(fsError, () => readDir(path)),
  openRead: (path) => openRegular((p) => denoPort.lstat(p), path, fsError),
  createExclusive: (path, mode) => createExclusive(path, mode, fsError),
  rename: (from, to) => attempt(fsError, () => Deno.renameSync(from, to)),
  remove(path) {
    // `Deno.removeSync` would also remove an empty directory; this port removes files only.
    if (denoPort.lstat(path)?.kind === "directory") throw new FsError("not_regular");
    attempt(fsError, () => Deno.removeSync(path));
  },
};

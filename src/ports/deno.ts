/**
 * The Deno port: `Deno.*`, and Deno's built-in `node:fs` for the two
 * primitives `Deno.*` lacks (SPEC section 4): the open for content with
 * `O_NOFOLLOW | O_NONBLOCK`, so a link swapped in after the check fails in
 * the kernel and a FIFO swapped in cannot block the process, and `fchmod`
 * for the mode of a write's new file (`descriptor.ts`).
 *
 * @module
 */
import { type DirEntry, type EntryKind, type FileInfo, FsError, type FsPort } from "./fs_port.ts";
import { constants } from "node:fs";
import { createExclusive, errnoError, holdDirectory, openRegular } from "./descriptor.ts";
import { missingOpenFlags } from "./capabilities.ts";

const MS_TO_NS = 1_000_000n;

function kindOf(s: Deno.FileInfo | Deno.DirEntry): EntryKind {
  if (s.isFile) return "file";
  if (s.isDirectory) return "directory";
  if (s.isSymlink) return "symlink";
  return "other";
}

function nanos(date: Date | null): bigint {
  return date === null ? 0n : BigInt(date.getTime()) * MS_TO_NS;
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

/** Maps a Deno error (of `Deno.*` or of its `node:fs`) to the project's codes, at this one boundary. */
function fsError(error: unknown): FsError {
  if (error instanceof FsError) return error;
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
  ) return new FsError("denied");
  const byErrno = errnoError(error);
  if (byErrno !== null) return byErrno;
  if (error instanceof Deno.errors.NotFound) return new FsError("not_found");
  if (error instanceof Deno.errors.AlreadyExists) return new FsError("exists");
  if (error instanceof Deno.errors.NotADirectory) return new FsError("not_directory");
  if (error instanceof Deno.errors.FilesystemLoop) return new FsError("symlink");
  if (error instanceof Deno.errors.IsADirectory) return new FsError("not_regular");
  return new FsError("io");
}

function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fsError(error);
  }
}

/**
 * Lists a directory. Deno decodes a name that is not UTF-8 with U+FFFD for
 * the bad bytes (`node:fs` on Deno too), so such a name cannot be told from
 * one that really holds U+FFFD. An entry whose name holds U+FFFD is
 * therefore reported once, of kind `unknown`: the caller's no-follow lstat
 * of that very name then finds the real file, or nothing, and the name of
 * an entry that is not UTF-8 is never served as another's.
 */
function readDir(path: string): DirEntry[] {
  const entries: DirEntry[] = [];
  let doubtful: Set<string> | undefined;
  for (const d of Deno.readDirSync(path)) {
    if (!d.name.includes("\uFFFD")) {
      entries.push({ name: d.name, kind: kindOf(d) });
      continue;
    }
    doubtful ??= new Set();
    if (doubtful.has(d.name)) continue;
    doubtful.add(d.name);
    entries.push({ name: d.name, kind: "unknown" });
  }
  return entries;
}

/** The `FsPort` for Deno. */
export const denoPort: FsPort = {
  unsupported: missingOpenFlags(constants),
  byteSearch: "rarest-byte",
  realPath: (path) => attempt(() => Deno.realPathSync(path)),

  lstat(path) {
    try {
      return infoOf(Deno.lstatSync(path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return null;
      }
      throw fsError(error);
    }
  },

  holdDirectory: (path) => holdDirectory(path, fsError),
  readDir: (path) => attempt(() => readDir(path)),
  openRead: (path) => openRegular((p) => denoPort.lstat(p), path, fsError),
  createExclusive: (path, mode) => createExclusive(path, mode, fsError),
  rename: (from, to) => attempt(() => Deno.renameSync(from, to)),
  remove(path) {
    // `Deno.removeSync` would also remove an empty directory; this port removes files only.
    if (denoPort.lstat(path)?.kind === "directory") throw new FsError("not_regular");
    attempt(() => Deno.removeSync(path));
  },
};

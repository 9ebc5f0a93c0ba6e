/**
 * The descriptor primitives both ports share, on `node:fs`: the open for
 * content with `O_NOFOLLOW | O_NONBLOCK`, the exclusive create whose mode is
 * set through the descriptor, and the `FileHandle` over a descriptor. The
 * Deno port uses them because `Deno.*` has no such open and no `fchmod`
 * (`node:fs` is built into Deno, not a dependency). Each port brings its own
 * `ErrorMap` for the errors its runtime throws.
 *
 * @module
 */
import * as fs from "node:fs";
import type { Buffer } from "node:buffer";
import {
  type DirectoryHold,
  type EntryKind,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsErrorCode,
} from "./fs_port.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;

/** Maps a thrown error to the project's codes. */
export type ErrorMap = (error: unknown) => FsError;

const BY_ERRNO: Readonly<Record<string, FsErrorCode>> = {
  ENOENT: "not_found",
  ELOOP: "symlink",
  ENOTDIR: "not_directory",
  EEXIST: "exists",
  EACCES: "denied",
  EPERM: "denied",
  EISDIR: "not_regular",
  ENXIO: "not_regular",
  ENAMETOOLONG: "not_found", // a name longer than the system takes cannot exist
  EMFILE: "busy", // out of descriptors: the call fails, a file is never skipped as if unreadable
  ENFILE: "busy",
};

/** An error as an `FsError`, by its errno `code` (`io` for any other); an `FsError` passes unchanged. */
export function fsErrorOf(error: unknown): FsError {
  if (error instanceof FsError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return new FsError(typeof code === "string" && Object.hasOwn(BY_ERRNO, code) ? BY_ERRNO[code] : "io");
}

/** Runs `fn`, throwing what it throws through `map`. */
export function attempt<T>(map: ErrorMap, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw map(error);
  }
}

/** What a `node:fs` stat or directory entry is. */
export function kindOf(s: fs.BigIntStats | fs.Dirent<string | Buffer>): EntryKind {
  if (s.isFile()) return "file";
  if (s.isDirectory()) return "directory";
  return s.isSymbolicLink() ? "symlink" : "other";
}

/** A `node:fs` bigint stat as the port reports it. */
export function infoOf(s: fs.BigIntStats): FileInfo {
  return {
    kind: kindOf(s),
    size: Number(s.size),
    mtimeNs: s.mtimeNs,
    ctimeNs: s.ctimeNs,
    ino: s.ino,
    dev: s.dev,
    nlink: Number(s.nlink),
    mode: Number(s.mode) & 0o7777,
  };
}

function fdHandle(fd: number, map: ErrorMap): FileHandle {
  let open = true;
  return {
    stat: () => attempt(map, () => infoOf(fs.fstatSync(fd, { bigint: true }))),
    readAt(buffer, position) {
      return attempt(map, () => {
        let done = 0;
        for (let n = 1; n > 0 && done < buffer.length; done += n) {
          n = fs.readSync(fd, buffer, done, buffer.length - done, position + done);
        }
        return done;
      });
    },
    writeAll(data) {
      attempt(map, () => {
        let done = 0;
        while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done);
      });
    },
    sync: () => attempt(map, () => fs.fsyncSync(fd)),
    close() {
      if (open) {
        open = false;
        fs.closeSync(fd);
      }
    },
  };
}

/**
 * `FsPort.openRead`: checks `path` with the port's no-follow `lstat`, then
 * opens it with `O_NOFOLLOW | O_NONBLOCK`, so a link swapped in after the
 * check fails in the kernel and a FIFO cannot block. The check keeps FIFOs
 * and devices from being opened at all in the common case, and the
 * descriptor must be the very inode it saw (else `changed`: an atomic write
 * renamed over the path) and a regular file. That proof is what refuses a
 * swapped-in link on Deno under scoped permissions (`--allow-read=<dir>`):
 * Deno 2.9 resolves the link itself for its permission check and opens the
 * target, so the kernel never sees the link.
 */
export function openRegular(
  lstat: (path: string) => FileInfo | null,
  path: string,
  map: ErrorMap,
): FileHandle {
  const seen = lstat(path);
  if (seen === null) throw new FsError("not_found");
  if (seen.kind === "symlink") throw new FsError("symlink");
  if (seen.kind !== "file") throw new FsError("not_regular");
  const file = fdHandle(attempt(map, () => fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)), map);
  try {
    const info = file.stat();
    if (info.kind !== "file") throw new FsError("not_regular");
    if (info.ino !== seen.ino || info.dev !== seen.dev) throw new FsError("changed");
    return file;
  } catch (error) {
    file.close();
    throw map(error);
  }
}

/**
 * `FsPort.createExclusive`: `O_CREAT | O_EXCL | O_NOFOLLOW`, then the mode
 * through the descriptor (`fchmod`), never by path, so a link swapped in for
 * the new name cannot redirect it.
 */
export function createExclusive(path: string, mode: number | undefined, map: ErrorMap): FileHandle {
  const fd = attempt(map, () => fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666));
  if (mode !== undefined) {
    try {
      fs.fchmodSync(fd, mode); // the umask narrowed the mode of the open
    } catch (error) {
      fs.closeSync(fd);
      throw map(error);
    }
  }
  return fdHandle(fd, map);
}

/** `FsPort.holdDirectory`: `O_DIRECTORY | O_NOFOLLOW`, kept open by the caller. */
export function holdDirectory(path: string, map: ErrorMap): DirectoryHold {
  return fdHandle(attempt(map, () => fs.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)), map);
}

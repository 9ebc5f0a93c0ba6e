/**
 * What both ports share, on `node:fs` (built into Deno, whose `Deno.*` lacks these): the no-follow
 * lstat wrapper, the open for content with `O_NOFOLLOW | O_NONBLOCK`, the exclusive create whose mode
 * is set through the descriptor, and the `FileHandle` over a descriptor.
 *
 * @module
 */
import * as fs from "node:fs";
import type { Buffer } from "node:buffer";
import type { EntryKind, FileHandle, FileInfo, FsErrorCode, FsPort, RootAnchor } from "./fs_port.ts";
import { FsError } from "./fs_port.ts";
import { missingOpenFlags } from "./capabilities.ts";

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
export const kindOf = (s: fs.BigIntStats | fs.Dirent<string | Buffer>): EntryKind =>
  s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other";

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

/** The `FileHandle` over an open descriptor `fd`, its errors mapped by `map`. */
export function fdHandle(fd: number, map: ErrorMap): FileHandle {
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

/** Opens a file: `path` with `flags` and `mode`, kept below the root an `anchor` names if one is given. */
export type OpenFile = (path: string, flags: number, mode: number | undefined, anchor?: RootAnchor) => number;

/**
 * The port members both runtimes share, given the runtime's error map, its no-follow stat (which throws),
 * the port itself, through whose own `lstat` `openRead` checks (the contract tests wrap it), and how it opens
 * a file: by path, unless the runtime can do better given an anchor (Node's, from the root down).
 */
export function descriptorPort(
  map: ErrorMap,
  lstatOf: (path: string) => FileInfo,
  self: () => FsPort,
  openFile: OpenFile = (path, flags, mode) => fs.openSync(path, flags, mode),
): Pick<FsPort, "unsupported" | "lstat" | "holdDirectory" | "openRead" | "createExclusive"> {
  const open = (path: string, flags: number, mode?: number, anchor?: RootAnchor) =>
    attempt(map, () => openFile(path, flags, mode, anchor));
  return {
    unsupported: missingOpenFlags(fs.constants),
    lstat(path) {
      try {
        return lstatOf(path);
      } catch (error) {
        const failure = map(error);
        if (failure.code === "not_found" || failure.code === "not_directory") return null;
        throw failure;
      }
    },
    holdDirectory: (path) => fdHandle(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), map),
    openRead(path, anchor) {
      // Checked by lstat first (a FIFO or device is never opened), then opened no-follow and non-blocking;
      // the descriptor must be the very inode seen (`changed`: renamed over). That proof is what refuses a
      // swapped-in link on Deno under `--allow-read=<dir>`, which resolves the link itself before the open.
      const seen = self().lstat(path);
      if (seen === null) throw new FsError("not_found");
      if (seen.kind === "symlink") throw new FsError("symlink");
      if (seen.kind !== "file") throw new FsError("not_regular");
      const file = fdHandle(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, undefined, anchor), map);
      try {
        const info = file.stat();
        if (info.kind !== "file") throw new FsError("not_regular");
        if (info.ino !== seen.ino || info.dev !== seen.dev) throw new FsError("changed");
        return { ...file, opened: info };
      } catch (error) {
        file.close();
        throw map(error);
      }
    },
    createExclusive(path, mode, anchor) {
      // The mode is set through the descriptor, never by path, so a link swapped in cannot redirect it.
      const fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666, anchor);
      if (mode !== undefined) {
        try {
          fs.fchmodSync(fd, mode); // the umask narrowed the mode of the open
        } catch (error) {
          fs.closeSync(fd);
          throw map(error);
        }
      }
      return fdHandle(fd, map);
    },
  };
}

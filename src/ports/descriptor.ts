/**
 * What both ports share, on `node:fs` (built into Deno, whose `Deno.*` lacks these): the no-follow
 * lstat wrapper, the open for content with `O_NOFOLLOW | O_NONBLOCK`, the exclusive create whose mode
 * is set through the descriptor, and the `FileHandle` over a descriptor.
 *
 * @module
 */
import * as fs from "node:fs";
import type { Buffer } from "node:buffer";
import type { EntryKind, FileHandle, FileInfo, FsErrorCode, FsPort } from "./fs_port.ts";
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
export function descriptorHandle(fd: number, map: ErrorMap): FileHandle {
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
 * The port members both runtimes share, given the runtime's error map, its no-follow stat (which throws),
 * the port itself, through whose own `lstat` `openRead` checks (the contract tests wrap it), and, where the
 * runtime can tell, where a descriptor just opened by a path is when that is not what the path names (a link
 * on the way was followed), else `undefined`.
 */
export function descriptorPort(
  map: ErrorMap,
  lstatOf: (path: string) => FileInfo,
  self: () => FsPort,
  reachedElsewhere: (fd: number, path: string) => string | undefined = () => undefined,
): Pick<FsPort, "unsupported" | "lstat" | "holdDirectory" | "openRead" | "createExclusive"> {
  const open = (path: string, flags: number, mode?: number) =>
    attempt(map, () => fs.openSync(path, flags, mode));
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
    holdDirectory: (path) => descriptorHandle(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), map),
    openRead(path) {
      // Checked by lstat first (a FIFO or device is never opened), then opened no-follow and non-blocking;
      // the descriptor must be the very inode seen (`changed`: renamed over). That proof is what refuses a
      // swapped-in link on Deno under `--allow-read=<dir>`, which resolves the link itself before the open.
      const seen = self().lstat(path);
      if (seen === null) throw new FsError("not_found");
      if (seen.kind === "symlink") throw new FsError("symlink");
      if (seen.kind !== "file") throw new FsError("not_regular");
      const fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      const file = descriptorHandle(fd, map);
      try {
        if (reachedElsewhere(fd, path) !== undefined) throw new FsError("changed"); // through a link on the way
        const info = file.stat();
        if (info.kind !== "file") throw new FsError("not_regular");
        if (info.ino !== seen.ino || info.dev !== seen.dev) throw new FsError("changed");
        return { ...file, opened: info };
      } catch (error) {
        file.close();
        throw map(error);
      }
    },
    createExclusive(path, mode) {
      // The mode is set through the descriptor, never by path, so a link swapped in cannot redirect it.
      const fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666);
      try {
        const elsewhere = reachedElsewhere(fd, path);
        if (elsewhere !== undefined) {
          // Created through a link on the way: taken back, empty, from where it is (only a process that may
          // write to that directory could have put another file at its new random name since).
          try {
            if (!elsewhere.endsWith(" (deleted)")) fs.unlinkSync(elsewhere);
          } catch { /* moved or removed since: not this call's to find */ }
          throw new FsError("changed");
        }
        if (mode !== undefined) fs.fchmodSync(fd, mode); // the umask narrowed the mode of the open
      } catch (error) {
        fs.closeSync(fd);
        throw map(error);
      }
      return descriptorHandle(fd, map);
    },
  };
}

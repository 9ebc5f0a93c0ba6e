/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open
 * for content, so a link swapped in after the check fails in the kernel and
 * a FIFO can never block the process.
 *
 * @module
 */
import * as fs from "node:fs";
import {
  type DirEntry,
  type EntryKind,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsPort,
} from "./fs_port.ts";
import { missingOpenFlags } from "./capabilities.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

function kindOf(s: fs.BigIntStats | fs.Dirent): EntryKind {
  if (s.isFile()) return "file";
  if (s.isDirectory()) return "directory";
  if (s.isSymbolicLink()) return "symlink";
  return "other";
}

function infoOf(s: fs.BigIntStats): FileInfo {
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

/** Maps a Node error to the project's codes, at this one boundary. */
function fsError(error: unknown): FsError {
  if (error instanceof FsError) return error;
  switch ((error as NodeJS.ErrnoException)?.code) {
    case "ENOENT":
      return new FsError("not_found");
    case "ELOOP":
      return new FsError("symlink");
    case "ENOTDIR":
      return new FsError("not_directory");
    case "EEXIST":
      return new FsError("exists");
    case "EACCES":
    case "EPERM":
      return new FsError("denied");
    case "EISDIR":
    case "ENXIO":
      return new FsError("not_regular");
    default:
      return new FsError("io");
  }
}

function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fsError(error);
  }
}

function handle(fd: number): FileHandle {
  let open = true;
  return {
    stat: () => attempt(() => infoOf(fs.fstatSync(fd, { bigint: true }))),
    readAt: (buffer, position) => attempt(() => fs.readSync(fd, buffer, 0, buffer.length, position)),
    writeAll(data) {
      attempt(() => {
        let done = 0;
        while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done);
      });
    },
    sync: () => attempt(() => fs.fsyncSync(fd)),
    close() {
      if (open) {
        open = false;
        fs.closeSync(fd);
      }
    },
  };
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

  readDir: (path) =>
    attempt(() =>
      fs.readdirSync(path, { withFileTypes: true }).map((d): DirEntry => ({
        name: d.name,
        kind: kindOf(d),
      }))
    ),

  openRead(path) {
    const seen = nodePort.lstat(path);
    if (seen === null) throw new FsError("not_found");
    if (seen.kind === "symlink") throw new FsError("symlink");
    if (seen.kind !== "file") throw new FsError("not_regular");
    const fd = attempt(() => fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
    const file = handle(fd);
    try {
      const info = file.stat();
      if (info.kind !== "file") throw new FsError("not_regular");
      if (info.ino !== seen.ino || info.dev !== seen.dev) throw new FsError("changed");
      return file;
    } catch (error) {
      file.close();
      throw fsError(error);
    }
  },

  createExclusive(path, mode) {
    const fd = attempt(() => fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666));
    if (mode !== undefined) {
      try {
        fs.fchmodSync(fd, mode);
      } catch (error) {
        fs.closeSync(fd);
        throw fsError(error);
      }
    }
    return handle(fd);
  },

  rename: (from, to) => attempt(() => fs.renameSync(from, to)),
  remove: (path) => attempt(() => fs.unlinkSync(path)),
};

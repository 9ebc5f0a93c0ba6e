/**
 * The Deno port: `Deno.*` only. Deno has no `O_NOFOLLOW`, so `openRead`
 * closes that gap by proof: it lstats the path without following links,
 * opens it, fstats the descriptor, and refuses unless the descriptor is the
 * very inode (device and inode number) the lstat saw and a regular file.
 * A link swapped in between the two steps opens some other inode and fails.
 *
 * @module
 */
import {
  type DirEntry,
  type EntryKind,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsPort,
} from "./fs_port.ts";

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

/** Maps a Deno error to the project's codes, at this one boundary. */
function fsError(error: unknown): FsError {
  if (error instanceof FsError) return error;
  if (error instanceof Deno.errors.NotFound) return new FsError("not_found");
  if (error instanceof Deno.errors.AlreadyExists) return new FsError("exists");
  if (error instanceof Deno.errors.NotADirectory) return new FsError("not_directory");
  if (error instanceof Deno.errors.FilesystemLoop) return new FsError("symlink");
  if (error instanceof Deno.errors.IsADirectory) return new FsError("not_regular");
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
  ) return new FsError("denied");
  return new FsError("io");
}

function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fsError(error);
  }
}

function handle(file: Deno.FsFile): FileHandle {
  let open = true;
  return {
    stat: () => attempt(() => infoOf(file.statSync())),
    readAt(buffer, position) {
      return attempt(() => {
        file.seekSync(position, Deno.SeekMode.Start);
        let done = 0;
        while (done < buffer.length) {
          const n = file.readSync(buffer.subarray(done));
          if (n === null || n === 0) break;
          done += n;
        }
        return done;
      });
    },
    writeAll(data) {
      attempt(() => {
        let done = 0;
        while (done < data.length) done += file.writeSync(data.subarray(done));
      });
    },
    sync: () => attempt(() => file.syncSync()),
    close() {
      if (open) {
        open = false;
        file.close();
      }
    },
  };
}

/** The `FsPort` for Deno. */
export const denoPort: FsPort = {
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

  readDir: (path) =>
    attempt(() => Array.from(Deno.readDirSync(path), (d): DirEntry => ({ name: d.name, kind: kindOf(d) }))),

  openRead(path) {
    const seen = denoPort.lstat(path);
    if (seen === null) throw new FsError("not_found");
    if (seen.kind === "symlink") throw new FsError("symlink");
    if (seen.kind !== "file") throw new FsError("not_regular");
    const file = handle(attempt(() => Deno.openSync(path, { read: true })));
    try {
      const info = file.stat();
      // The proof that replaces O_NOFOLLOW: same device, same inode, still regular.
      if (info.ino !== seen.ino || info.dev !== seen.dev) throw new FsError("changed");
      if (info.kind !== "file") throw new FsError("not_regular");
      return file;
    } catch (error) {
      file.close();
      throw fsError(error);
    }
  },

  createExclusive(path, mode) {
    const file = attempt(() => Deno.openSync(path, { write: true, createNew: true, mode: mode ?? 0o666 }));
    if (mode !== undefined) {
      try {
        // Deno has no fchmod; the file was just created exclusively by us.
        Deno.chmodSync(path, mode);
      } catch (error) {
        file.close();
        throw fsError(error);
      }
    }
    return handle(file);
  },

  rename: (from, to) => attempt(() => Deno.renameSync(from, to)),
  remove(path) {
    // `Deno.removeSync` would also remove an empty directory; this port removes files only.
    if (denoPort.lstat(path)?.kind === "directory") throw new FsError("not_regular");
    attempt(() => Deno.removeSync(path));
  },
};

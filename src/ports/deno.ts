/**
 * The Deno port: `Deno.*`, and Deno's built-in `node:fs` for what `Deno.*` lacks (`descriptor.ts`).
 *
 * @module
 */
import { Writable } from "node:stream";
import { DIR_BATCH, type DirEntry, type EntryKind, type FileInfo, FsError, type FsPort } from "./fs_port.ts";
import { attempt, descriptorPort, fsErrorOf } from "./descriptor.ts";

const kindOf = (s: Deno.FileInfo | Deno.DirEntry): EntryKind =>
  s.isFile ? "file" : s.isDirectory ? "directory" : s.isSymlink ? "symlink" : "other";

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
 * A directory's entries as the port reports them. Deno decodes a name that is not UTF-8 with U+FFFD for the
 * bad bytes, so such a name cannot be told from one really holding U+FFFD: it is reported once, as
 * `unknown`, for the caller's no-follow lstat.
 */
class Entries {
  readonly list: DirEntry[] = [];
  readonly #doubtful = new Set<string>();

  add(d: Deno.DirEntry): void {
    if (!d.name.includes("\uFFFD")) this.list.push({ name: d.name, kind: kindOf(d) });
    else if (!this.#doubtful.has(d.name)) {
      this.#doubtful.add(d.name);
      this.list.push({ name: d.name, kind: "unknown" });
    }
  }
}

function readDir(path: string): DirEntry[] {
  const entries = new Entries();
  for (const d of Deno.readDirSync(path)) entries.add(d);
  return entries.list;
}

/** `Deno.readDir` reads the directory on another thread, handing the entries over as it goes. */
async function readDirPaced(path: string, pause: () => Promise<unknown>): Promise<DirEntry[]> {
  const entries = new Entries();
  const reader = Deno.readDir(path)[Symbol.asyncIterator]();
  let ended = false; // read to the end, or failed: nothing left to close
  try {
    for (let n = 1;; n++) {
      let next: IteratorResult<Deno.DirEntry>;
      try {
        next = await reader.next();
      } catch (error) {
        ended = true;
        throw fsError(error);
      }
      if (next.done) {
        ended = true;
        return entries.list;
      }
      entries.add(next.value);
      if (n % DIR_BATCH === 0) await pause();
    }
  } finally {
    if (!ended) await reader.return?.(); // a pause threw: close the directory
  }
}

/** The `FsPort` for Deno. */
export const denoPort: FsPort = {
  ...descriptorPort(fsError, (path) => infoOf(Deno.lstatSync(path)), () => denoPort),
  byteSearch: "wasm", // Deno's `Buffer#indexOf` is JavaScript
  realPath: (path) => attempt(fsError, () => Deno.realPathSync(path)),
  readDir: (path) => attempt(fsError, () => readDir(path)),
  readDirPaced,
  rename: (from, to) => attempt(fsError, () => Deno.renameSync(from, to)),
  remove(path) {
    // `Deno.removeSync` would also remove an empty directory; this port removes files only.
    if (denoPort.lstat(path)?.kind === "directory") throw new FsError("not_regular");
    attempt(fsError, () => Deno.removeSync(path));
  },
};

/**
 * Stdout for the protocol on Deno. Deno's `process.stdout` writes a pipe synchronously, so once a host that
 * reads only after writing its whole batch has let the pipe fill, the server would stop reading stdin too and
 * both would wait forever. `Deno.stdout.write` waits off the event loop: input keeps being read, and the
 * answers queue here, as Node's stdout queues them.
 */
export function denoStdout(): Writable {
  return new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      writeAll(chunk).then(() => done(), done);
    },
  });
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
}

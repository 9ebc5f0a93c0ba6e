/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 * On Linux, given the root it must stay in, every directory read and every file open or create goes through
 * descriptors from the pinned root down, each directory opened no-follow in the one before (`inDirectory`):
 * no link swapped in on the way is ever followed.
 *
 * @module
 */
import * as fs from "node:fs";
import { type Buffer, isUtf8 } from "node:buffer";
import {
  DIR_BATCH,
  type DirectoryHold,
  type DirEntry,
  type FileInfo,
  FsError,
  type FsPort,
  type ReadProof,
  type RootAnchor,
} from "./fs_port.ts";

import { attempt, descriptorPort, fdHandle, fsErrorOf, infoOf, kindOf } from "./descriptor.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;

/** Names are read as strings (fast); only if one holds U+FFFD, as bytes, leaving out any not UTF-8. */
function readDirAt(path: string): DirEntry[] {
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

/**
 * Appends up to `DIR_BATCH` entries of `dir` to `entries`, leaving out names not UTF-8; false once it is
 * read to the end. Names come as bytes: a directory read with pauses is never read again by path, where
 * another may be by then, to learn a name's bytes. (Deno's `node:fs` hands strings, decoded lossily.)
 */
function readBatch(dir: fs.Dir, entries: DirEntry[]): boolean {
  for (let n = 0; n < DIR_BATCH; n++) {
    const d = dir.readSync();
    if (d === null) return false;
    const raw = d.name as string | Buffer;
    if (typeof raw === "string") entries.push({ name: raw, kind: kindOf(d) });
    else if (isUtf8(raw)) entries.push({ name: raw.toString("utf8"), kind: kindOf(d) });
  }
  return true;
}

// Node honours `encoding: "buffer"` here (names as `Buffer`s), though @types/node 20 types `Dir` for strings.
const AS_BYTES = { bufferSize: DIR_BATCH, encoding: "buffer" as BufferEncoding };

const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const sameInode = (a: FileInfo, b: FileInfo) => a.ino === b.ino && a.dev === b.dev;
const fstat = (fd: number) => attempt(fsErrorOf, () => infoOf(fs.fstatSync(fd, { bigint: true })));

/**
 * Whether a directory can be read through a descriptor shown in `at`: the descriptor of `at` itself, opened
 * again through `at`, must be the same directory, and be read. Needs two descriptors at once.
 */
function readsThrough(at: string): boolean {
  const fd = fs.openSync(at, O_RDONLY | O_DIRECTORY);
  try {
    const again = fs.openSync(`${at}${fd}`, O_RDONLY | O_DIRECTORY);
    try {
      if (!sameInode(fstat(again), fstat(fd))) return false;
    } finally {
      fs.closeSync(again);
    }
    const dir = fs.opendirSync(`${at}${fd}`);
    try {
      dir.readSync(); // a runtime may open the path only now (Deno's `node:fs`)
    } finally {
      dir.closeSync();
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where Linux shows each open descriptor of this process as a path, `/proc/<pid>/fd/`: opening `<fd>` there
 * opens the very object the descriptor holds, wherever its path now leads, and `<fd>/<name>` opens `name` in
 * it (an `openat`, which `node:fs` lacks). `<pid>` is read from the link `/proc/self`, which the kernel
 * resolves for the caller, and not taken from `process.pid`: where `/proc` belongs to another PID namespace
 * (`unshare --pid` without a `/proc` of its own) the two differ, and `/proc/<process.pid>` is another process,
 * whose descriptors lead anywhere. (Read once: an open through `self` would resolve the link every time.)
 * `null` where this cannot be read (no `/proc`, or `self` leads nowhere: a `/proc` of a namespace this
 * process is not in); `undefined` when the probe could not tell (out of descriptors).
 */
function probeDescriptorDir(): string | null | undefined {
  try {
    const pid = fs.readlinkSync("/proc/self");
    if (!/^[1-9][0-9]*$/.test(pid)) return null;
    const at = `/proc/${pid}/fd/`;
    return readsThrough(at) ? at : null;
  } catch (error) {
    return fsErrorOf(error).code === "busy" ? undefined : null;
  }
}

let ownDescriptors: string | null | undefined;

/**
 * Where this process's descriptors show (told once, then kept), or `null` where reads go by path. Out of
 * descriptors before the probe could tell, the call fails (`busy`) rather than read by path, unproven.
 */
function descriptorDir(): string | null {
  if (ownDescriptors === undefined) ownDescriptors = probeDescriptorDir();
  if (ownDescriptors === undefined) throw new FsError("busy");
  return ownDescriptors;
}

/** Opens `name` in the directory `fd` holds (no-follow if `flags` say so), through descriptors shown `at`. */
function openIn(at: string, fd: number, name: string, flags: number, mode?: number): number {
  return attempt(fsErrorOf, () => fs.openSync(`${at}${fd}/${name}`, flags, mode));
}

/** The roots held open (`holdDirectory`), by path: a walk below one starts from its descriptor. */
const heldRoots = new Map<string, { readonly fd: number; readonly info: FileInfo }>();

/** Opens a directory (a root) and keeps it open; a walk below it then starts from this descriptor. */
function holdDirectory(path: string): DirectoryHold {
  const fd = attempt(fsErrorOf, () => fs.openSync(path, DIRECTORY));
  const hold = fdHandle(fd, fsErrorOf);
  let held;
  try {
    held = { fd, info: hold.stat() };
  } catch (error) {
    hold.close();
    throw error;
  }
  heldRoots.set(path, held);
  return {
    stat: hold.stat,
    close() {
      if (heldRoots.get(path) === held) heldRoots.delete(path);
      hold.close(); // safe twice
    },
  };
}

/**
 * Runs `use` on a descriptor of the directory at `path`, the anchor's root or below it, reached from the root
 * down: the root's held descriptor (`holdDirectory`) if it is the pinned one, else the root opened and checked
 * by `fstat` to be; then each directory below it opened no-follow in the one before. A link or another root
 * swapped in anywhere on the way is refused (`not_directory`, `changed`), never followed, wherever its target
 * lies. The descriptors it opened are closed when `use` returns.
 */
function inDirectory<T>(at: string, path: string, anchor: RootAnchor, use: (fd: number) => T): T {
  const names = path === anchor.root ? [] : path.slice(anchor.root.length + 1).split("/");
  if (names.length > 0 && !path.startsWith(`${anchor.root}/`)) {
    throw new Error(`${path} is not below its root`);
  }
  const held = heldRoots.get(anchor.root);
  let fd = -1;
  let owned = false;
  try {
    if (held !== undefined && sameInode(held.info, anchor.rootInfo)) {
      fd = held.fd;
    } else {
      fd = attempt(fsErrorOf, () => fs.openSync(anchor.root, DIRECTORY));
      owned = true;
      if (!sameInode(fstat(fd), anchor.rootInfo)) throw new FsError("changed");
    }
    for (const name of names) {
      const below = openIn(at, fd, name, DIRECTORY);
      if (owned) fs.closeSync(fd);
      fd = below;
      owned = true;
    }
    return use(fd);
  } finally {
    if (owned) fs.closeSync(fd);
  }
}

/** Throws `changed` unless descriptor `fd` holds the directory `info` names. */
function assertIs(fd: number, info: FileInfo): void {
  if (!sameInode(fstat(fd), info)) throw new FsError("changed");
}

/**
 * Lists the directory at `path`; given a `proof`, where descriptors can be read, the one it names, reached
 * from the root down (`inDirectory`) and read through its own descriptor.
 */
function readDir(path: string, proof?: ReadProof): DirEntry[] {
  const at = proof === undefined ? null : descriptorDir();
  if (proof === undefined || at === null) return readDirAt(path);
  return inDirectory(at, path, proof, (fd) => {
    assertIs(fd, proof.info);
    return readDirAt(`${at}${fd}`);
  });
}

/**
 * Opens the file at `path` with `flags` (no-follow among them); given an `anchor`, where descriptors can be
 * read, in its directory reached from the root down (`inDirectory`), so never through a link on the way.
 */
function openFile(path: string, flags: number, mode: number | undefined, anchor?: RootAnchor): number {
  const at = anchor === undefined ? null : descriptorDir();
  if (anchor === undefined || at === null) return attempt(fsErrorOf, () => fs.openSync(path, flags, mode));
  const slash = path.lastIndexOf("/");
  const dir = slash === 0 ? "/" : path.slice(0, slash);
  return inDirectory(at, dir, anchor, (fd) => openIn(at, fd, path.slice(slash + 1), flags, mode));
}

/**
 * Lists a directory a batch at a time (no sort, unlike `readdirSync`: faster on a big one). Given a `proof`,
 * where descriptors can be read, the one it names, reached from the root down (`inDirectory`) and read
 * through its own descriptor, which is closed once the first batch is read: Deno's `node:fs` opens a `Dir`'s
 * path only then (a descriptor number closed before could name another file by then), and across pauses a
 * read holds only its `Dir`'s descriptor.
 */
async function readDirPaced(
  path: string,
  pause: () => Promise<unknown>,
  proof?: ReadProof,
): Promise<DirEntry[]> {
  const entries: DirEntry[] = [];
  const firstBatch = (from: string) => {
    const dir = attempt(fsErrorOf, () => fs.opendirSync(from, AS_BYTES));
    try {
      return { dir, more: attempt(fsErrorOf, () => readBatch(dir, entries)) };
    } catch (error) {
      dir.closeSync();
      throw error;
    }
  };
  const at = proof === undefined ? null : descriptorDir();
  const { dir, more: first } = proof === undefined || at === null
    ? firstBatch(path)
    : inDirectory(at, path, proof, (fd) => {
      assertIs(fd, proof.info);
      return firstBatch(`${at}${fd}`);
    });
  try {
    for (let more = first; more;) {
      await pause();
      more = attempt(fsErrorOf, () => readBatch(dir, entries));
    }
  } finally {
    dir.closeSync();
  }
  return entries;
}

/** The `FsPort` for Node.js; `unsupported` where `node:fs` lacks the no-follow open (Windows). */
export const nodePort: FsPort = {
  ...descriptorPort(
    fsErrorOf,
    (path) => infoOf(fs.lstatSync(path, { bigint: true })),
    () => nodePort,
    openFile,
  ),
  holdDirectory,
  inputTurn: "immediates",
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  readDir: (path, proof) => attempt(fsErrorOf, () => readDir(path, proof)),
  readDirPaced,
  get pacedReadsProven() {
    return descriptorDir() !== null;
  },
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};

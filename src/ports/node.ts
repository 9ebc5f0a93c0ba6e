/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 * On Linux, given the root it must stay in, every directory read and every file open or create goes through
 * descriptors from the pinned root down, each directory opened no-follow in the one before (`openFromRoot`):
 * no link swapped in on the way is ever followed.
 *
 * @module
 */
import * as fs from "node:fs";
import { type Buffer, isUtf8 } from "node:buffer";
import {
  DIR_BATCH,
  type DirEntry,
  type FileInfo,
  FsError,
  type FsPort,
  type ReadProof,
  type RootAnchor,
} from "./fs_port.ts";

import { attempt, descriptorPort, fsErrorOf, infoOf, kindOf } from "./descriptor.ts";

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

/**
 * Where Linux shows each open descriptor as a path: opening `/proc/self/fd/<fd>` opens the very object the
 * descriptor holds, wherever its path now leads, and `/proc/self/fd/<fd>/<name>` opens `name` in it.
 */
const OWN_DESCRIPTORS = "/proc/self/fd/";

/**
 * Whether a directory can be read through its descriptor here, probed on `/proc/self/fd` itself (so only
 * `/proc` must be readable); `undefined` when the probe could not tell (out of descriptors).
 */
function probeOwnDescriptors(): boolean | undefined {
  try {
    const fd = fs.openSync(OWN_DESCRIPTORS, O_RDONLY | O_DIRECTORY);
    try {
      const dir = fs.opendirSync(`${OWN_DESCRIPTORS}${fd}`);
      try {
        dir.readSync(); // a runtime may open the path only now (Deno's `node:fs`)
      } finally {
        dir.closeSync();
      }
      return true;
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return fsErrorOf(error).code === "busy" ? undefined : false;
  }
}

let ownDescriptors: boolean | undefined;

/**
 * Whether reads go through descriptors here (told once, then kept). Out of descriptors before the probe could
 * tell, the call fails (`busy`) rather than read by path, unproven.
 */
function readsThroughDescriptors(): boolean {
  ownDescriptors ??= probeOwnDescriptors();
  if (ownDescriptors === undefined) throw new FsError("busy");
  return ownDescriptors;
}

const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** Opens `name` in the directory `fd` holds, no-follow: `openat`, which `node:fs` lacks, through `/proc`. */
function openIn(fd: number, name: string, flags: number, mode?: number): number {
  return attempt(fsErrorOf, () => fs.openSync(`${OWN_DESCRIPTORS}${fd}/${name}`, flags, mode));
}

const sameInode = (a: fs.BigIntStats, b: FileInfo) => a.ino === b.ino && a.dev === b.dev;
const fstat = (fd: number) => attempt(fsErrorOf, () => fs.fstatSync(fd, { bigint: true }));

/**
 * Opens the directory at `path`, the anchor's root or below it, from the root down: the root is opened and
 * checked by `fstat` to be the pinned one, then each directory below it is opened no-follow in the one before.
 * A link or another root swapped in anywhere on the way is refused (`not_directory`, `changed`), never
 * followed, wherever its target lies. The caller closes the descriptor.
 */
function openFromRoot(path: string, anchor: RootAnchor): number {
  const names = path === anchor.root ? [] : path.slice(anchor.root.length + 1).split("/");
  if (names.length > 0 && !path.startsWith(`${anchor.root}/`)) {
    throw new Error(`${path} is not below its root`);
  }
  let fd = attempt(fsErrorOf, () => fs.openSync(anchor.root, DIRECTORY));
  try {
    if (!sameInode(fstat(fd), anchor.rootInfo)) throw new FsError("changed");
    for (const name of names) {
      const below = openIn(fd, name, DIRECTORY);
      fs.closeSync(fd);
      fd = below;
    }
    const opened = fd;
    fd = -1;
    return opened;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** `openFromRoot` for the directory a `proof` names: the one it reaches must be `proof.info` (`changed`). */
function openProved(path: string, proof: ReadProof): number {
  const fd = openFromRoot(path, proof);
  try {
    if (!sameInode(fstat(fd), proof.info)) throw new FsError("changed");
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Lists the directory at `path`; given a `proof`, where descriptors can be read, the one it names, through
 * its own descriptor reached from the root down (`openProved`), so no directory a link leads to is listed.
 */
function readDir(path: string, proof?: ReadProof): DirEntry[] {
  if (proof === undefined || !readsThroughDescriptors()) return readDirAt(path);
  const fd = openProved(path, proof);
  try {
    return readDirAt(`${OWN_DESCRIPTORS}${fd}`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Opens the file at `path` with `flags` (no-follow among them); given an `anchor`, where descriptors can be
 * read, in its directory reached from the root down (`openFromRoot`), so never through a link on the way.
 */
function openFile(path: string, flags: number, mode: number | undefined, anchor?: RootAnchor): number {
  if (anchor === undefined || !readsThroughDescriptors()) {
    return attempt(fsErrorOf, () => fs.openSync(path, flags, mode));
  }
  const slash = path.lastIndexOf("/");
  const dir = openFromRoot(slash === 0 ? "/" : path.slice(0, slash), anchor);
  try {
    return openIn(dir, path.slice(slash + 1), flags, mode);
  } finally {
    fs.closeSync(dir);
  }
}

/** A directory opened for reading. */
interface OpenDirectory {
  readonly dir: fs.Dir;
  /** Closes what only the opening needed, once the first batch is read. */
  opened(): void;
  close(): void;
}

/**
 * Opens the directory at `path` for reading; given a `proof`, where descriptors can be read, the one it names,
 * reached from the root down (`openProved`) and read through its own descriptor. That descriptor stays open
 * until the first batch is read: Deno's `node:fs` opens a `Dir`'s path only then, and a descriptor number
 * closed before could name another file by then.
 */
function openDirectory(path: string, proof?: ReadProof): OpenDirectory {
  if (proof === undefined || !readsThroughDescriptors()) {
    const dir = attempt(fsErrorOf, () => fs.opendirSync(path, AS_BYTES));
    return { dir, opened() {}, close: () => dir.closeSync() };
  }
  let held = openProved(path, proof);
  const release = () => {
    if (held >= 0) fs.closeSync(held);
    held = -1;
  };
  let dir: fs.Dir;
  try {
    dir = attempt(fsErrorOf, () => fs.opendirSync(`${OWN_DESCRIPTORS}${held}`, AS_BYTES));
  } catch (error) {
    release();
    throw error;
  }
  return {
    dir,
    opened: release,
    close() {
      try {
        dir.closeSync();
      } finally {
        release();
      }
    },
  };
}

/** An open directory is read a batch at a time (no sort, unlike `readdirSync`: faster on a big one). */
async function readDirPaced(
  path: string,
  pause: () => Promise<unknown>,
  proof?: ReadProof,
): Promise<DirEntry[]> {
  const opening = openDirectory(path, proof);
  const entries: DirEntry[] = [];
  const next = () => attempt(fsErrorOf, () => readBatch(opening.dir, entries));
  try {
    let more = next();
    opening.opened(); // before the first pause: across pauses a read holds only its `Dir`'s descriptor
    while (more) {
      await pause();
      more = next();
    }
  } finally {
    opening.close();
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
  inputTurn: "immediates",
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  readDir: (path, proof) => attempt(fsErrorOf, () => readDir(path, proof)),
  readDirPaced,
  get pacedReadsProven() {
    return readsThroughDescriptors();
  },
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};

/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 * On Linux, each directory read and file open is proved to have reached the very path it named, no link
 * followed on the way (`assertReached`), and a big directory read with pauses is reached through descriptors
 * from the root down (`openDirectory`).
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
} from "./fs_port.ts";

import { attempt, descriptorHandle, descriptorPort, fsErrorOf, infoOf, kindOf } from "./descriptor.ts";

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
 * descriptor holds, wherever its path now leads.
 */
const OWN_DESCRIPTORS = "/proc/self/fd/";

/**
 * Whether a descriptor's path can be read back and its directory read through it here, probed on `/`;
 * `undefined` when the probe could not tell (out of descriptors), so it is probed again next time rather than
 * given up for good.
 */
function probeOwnDescriptors(): boolean | undefined {
  try {
    const fd = fs.openSync("/", O_RDONLY | O_DIRECTORY);
    try {
      if (fs.readlinkSync(`${OWN_DESCRIPTORS}${fd}`) !== "/") return false;
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
const readsThroughDescriptors = () => (ownDescriptors ??= probeOwnDescriptors()) === true;

// Cleared for good if a directory held (a root) reads back another path than its own: then no path can be
// compared so (a mount the process cannot name), and opens go unchecked, as where `/proc` is missing.
let pathsReadBack = true;
const checksPaths = () => pathsReadBack && readsThroughDescriptors();

/** The path the kernel gives the object `fd` holds, as the port names it (a root of `/` joins as `//name`). */
const pathOf = (fd: number) => fs.readlinkSync(`${OWN_DESCRIPTORS}${fd}`);
const asNamed = (path: string) => path.startsWith("//") ? path.slice(1) : path;

/**
 * Where descriptor `fd`, just opened by `path`, is, when that is not what `path` names: the kernel's own path
 * of the object (`/proc/self/fd/<fd>`), unless it is `path` itself. Opening by path follows a link anywhere
 * but at the end; so a directory on the way swapped for a link (and perhaps back) between the walk's lstats
 * and this open, which no lstat could see, shows here. A rename anywhere on the path meanwhile shows too: the
 * caller then fails or leaves the object out, as if it were gone.
 */
function reachedElsewhere(fd: number, path: string): string | undefined {
  if (!checksPaths()) return undefined;
  const reached = attempt(fsErrorOf, () => pathOf(fd));
  return reached === asNamed(path) ? undefined : reached;
}

/** Throws `changed` if descriptor `fd`, just opened by `path`, is not what `path` names (`reachedElsewhere`). */
function assertReached(fd: number, path: string): void {
  if (reachedElsewhere(fd, path) !== undefined) throw new FsError("changed");
}

/**
 * Lists the directory at `path`. Where paths are checked, through a descriptor opened no-follow and proved to
 * hold what `path` names (`assertReached`), so no directory it does not name is listed.
 */
function readDir(path: string): DirEntry[] {
  if (!checksPaths()) return readDirAt(path);
  const fd = fs.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    assertReached(fd, path);
    return readDirAt(`${OWN_DESCRIPTORS}${fd}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** Holds a directory (the root) open; one whose descriptor reads back another path turns `checksPaths` off. */
function holdDirectory(path: string): DirectoryHold {
  const fd = attempt(fsErrorOf, () => fs.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  try {
    if (checksPaths() && pathOf(fd) !== asNamed(path)) pathsReadBack = false;
  } catch (error) {
    fs.closeSync(fd);
    throw fsErrorOf(error);
  }
  return descriptorHandle(fd, fsErrorOf);
}

/** Opens `name` in the directory `fd` holds, no-follow: `openat`, which `node:fs` lacks, through `/proc`. */
function openBelow(fd: number, name: string): number {
  return attempt(
    fsErrorOf,
    () => fs.openSync(`${OWN_DESCRIPTORS}${fd}/${name}`, O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
  );
}

const sameInode = (a: fs.BigIntStats, b: FileInfo) => a.ino === b.ino && a.dev === b.dev;

/** A directory opened for reading. */
interface OpenDirectory {
  readonly dir: fs.Dir;
  /** Closes what only the opening needed, once the first batch is read. */
  opened(): void;
  close(): void;
}

/**
 * Opens the directory at `path` for reading. Given a `proof`, where descriptors can be read, the root is
 * opened and checked by `fstat` to be the pinned one, then each directory below it is opened no-follow in
 * the one before, the last checked to be `proof.info`, and read through its descriptor: a link or another
 * directory swapped in anywhere on the way is refused (`not_directory`, `changed`), never listed. That
 * descriptor stays open until the first batch is read: Deno's `node:fs` opens a `Dir`'s path only then, and a
 * descriptor number closed before could name another file by then.
 */
function openDirectory(path: string, proof?: ReadProof): OpenDirectory {
  if (proof === undefined || !readsThroughDescriptors()) {
    const dir = attempt(fsErrorOf, () => fs.opendirSync(path, AS_BYTES));
    return { dir, opened() {}, close: () => dir.closeSync() };
  }
  const names = path === proof.root ? [] : path.slice(proof.root.length + 1).split("/");
  if (names.length > 0 && !path.startsWith(`${proof.root}/`)) {
    throw new Error(`${path} is not below its root`);
  }
  let fd = attempt(fsErrorOf, () => fs.openSync(proof.root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  try {
    const stat = () => attempt(fsErrorOf, () => fs.fstatSync(fd, { bigint: true }));
    if (!sameInode(stat(), proof.rootInfo)) throw new FsError("changed");
    for (const name of names) {
      const below = openBelow(fd, name);
      fs.closeSync(fd);
      fd = below;
    }
    if (!sameInode(stat(), proof.info)) throw new FsError("changed");
    const dir = attempt(fsErrorOf, () => fs.opendirSync(`${OWN_DESCRIPTORS}${fd}`, AS_BYTES));
    let held = fd;
    fd = -1; // now closed by the read
    const release = () => {
      if (held >= 0) fs.closeSync(held);
      held = -1;
    };
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
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
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
    reachedElsewhere,
  ),
  holdDirectory,
  inputTurn: "immediates",
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  readDir: (path) => attempt(fsErrorOf, () => readDir(path)),
  readDirPaced,
  get pacedReadsProven() {
    return readsThroughDescriptors();
  },
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};

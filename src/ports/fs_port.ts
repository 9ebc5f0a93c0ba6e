/**
 * The runtime seam: the core touches the filesystem only through an `FsPort` (`deno.ts` on `Deno.*`,
 * `node.ts` on `node:fs`, `descriptor.ts` the primitives both share). Every call is synchronous but
 * `readDirPaced`, for a directory too big to read while the event loop waits.
 *
 * @module
 */

/** The entries `readDirPaced` reads between two pauses. */
export const DIR_BATCH = 1_024;

/** What a directory entry or an open descriptor is. `unknown`: the directory did not say. */
export type EntryKind = "file" | "directory" | "symlink" | "other" | "unknown";

/** One directory entry, with its kind as the directory reported it (no stat; `unknown`: lstat it). */
export interface DirEntry {
  /** The entry's name, one path segment. */
  readonly name: string;
  /** Its kind, as the directory reported it. */
  readonly kind: EntryKind;
}

/** What a no-follow `lstat` or an `fstat` of an open descriptor reports. */
export interface FileInfo {
  /** The kind of the object itself (a link is `symlink`, never its target). */
  readonly kind: EntryKind;
  /** Size in bytes. */
  readonly size: number;
  /** Modification time in nanoseconds (Deno reports milliseconds, scaled). */
  readonly mtimeNs: bigint;
  /** Status-change time in nanoseconds (Deno 2.9 reports whole seconds, scaled). */
  readonly ctimeNs: bigint;
  /** Inode number. */
  readonly ino: bigint;
  /** Device number. */
  readonly dev: bigint;
  /** Hard-link count. */
  readonly nlink: number;
  /** Permission bits (`mode & 0o7777`). */
  readonly mode: number;
}

/** An open descriptor. */
export interface FileHandle {
  /** From `openRead`: the `fstat` it took to prove the descriptor, so the caller need not take another. */
  readonly opened?: FileInfo;
  /** `fstat` of this descriptor. */
  stat(): FileInfo;
  /** Reads `buffer.length` bytes at `position`, fewer only at end of file; returns how many. */
  readAt(buffer: Uint8Array, position: number): number;
  /** Writes all of `data` at the current position. */
  writeAll(data: Uint8Array): void;
  /** Flushes the file's data and metadata to storage. */
  sync(): void;
  /** Closes the descriptor; safe to call twice. */
  close(): void;
}

/** A directory kept open: while it is, its inode number cannot be given to another. */
export type DirectoryHold = Pick<FileHandle, "stat" | "close">;

/** The project's own error codes; ports map errno and runtime errors to these. */
export type FsErrorCode =
  | "not_found"
  | "symlink"
  | "not_directory"
  | "not_regular"
  | "exists"
  | "changed"
  | "denied"
  | "busy"
  | "io";

/** A filesystem failure, already stripped of errno text and host paths. */
export class FsError extends Error {
  /** Makes a filesystem error; `code`: what went wrong, in the project's terms. */
  constructor(readonly code: FsErrorCode) {
    super(code);
    this.name = "FsError";
  }
}

/** The root a read or open must stay below: its absolute path and its identity, checked through a descriptor. */
export interface RootAnchor {
  /** The root's absolute path, a prefix of every path read below it. */
  readonly root: string;
  /** The root's identity: the pin. */
  readonly rootInfo: FileInfo;
}

/**
 * What a directory read must read, for a port that proves it (`pacedReadsProven`): the directory `info`
 * (device and inode), reached from `root` (itself the directory `rootInfo`, checked through its descriptor)
 * through real directories only, each opened no-follow below the one before, so no link or other directory
 * swapped in on the way is what gets listed.
 */
export interface ReadProof extends RootAnchor {
  /** The identity of the directory read, as the caller lstatted it. */
  readonly info: FileInfo;
}

/** The filesystem primitives the core needs. Paths are absolute. */
export interface FsPort {
  /** Why this runtime cannot keep the contract (one line), if it cannot; `openRoot` then refuses the port. */
  readonly unsupported?: string;
  /**
   * The substring search this runtime runs fast (`search_text`, `search_files`): `buffer` (the default,
   * `Buffer#indexOf`) or `wasm` (WebAssembly SIMD, where `Buffer#indexOf` is not native code).
   */
  readonly byteSearch?: "buffer" | "wasm";
  /**
   * How a long scan lets this runtime's event loop read input: `immediates` (Node polls for input between
   * two of them) or `timer` (the default: a turn that waits, which Deno needs; see `inputTurnFor`).
   */
  readonly inputTurn?: "immediates" | "timer";
  /** Resolves every link in `path` (used once, to pin the root). */
  realPath(path: string): string;
  /** No-follow stat; `null` when nothing is there. */
  lstat(path: string): FileInfo | null;
  /** Opens a directory and keeps it open (pins the root's inode number); `not_directory` if not one. */
  holdDirectory(path: string): DirectoryHold;
  /**
   * Lists a directory; a name not UTF-8 is left out, or, where undecidable, reported once as `unknown`. Given a
   * `proof`, a port with `pacedReadsProven` reads the directory it names or refuses (`changed`, or
   * `not_directory` for a link on the way); another reads whatever `path` leads to.
   */
  readDir(path: string, proof?: ReadProof): DirEntry[];
  /**
   * Lists a directory as `readDir` does, in batches of at most `DIR_BATCH` entries, awaiting `pause()` after
   * each full one; what `pause` throws ends the read (its descriptor closed) and is thrown as it is. Other
   * work may run between two batches: on Deno they are read on another thread. A port with
   * `pacedReadsProven` reads the directory `proof` names or refuses (`changed`, or `not_directory` for a link
   * on the way); another reads whatever `path` leads to when it opens it.
   */
  readDirPaced(path: string, pause: () => Promise<unknown>, proof?: ReadProof): Promise<DirEntry[]>;
  /**
   * Whether the reads and opens given a proof or an anchor prove them (see `ReadProof`): no link swapped in
   * anywhere on the way is followed. If not, the caller must prove after a read that no directory on the path
   * was swapped meanwhile, as far as it can. A port may throw `busy` here when it cannot tell for want of
   * descriptors.
   */
  readonly pacedReadsProven?: boolean;
  /**
   * Opens a regular file, never via a final link nor blocking (`symlink`, `not_regular`, `changed`). Given an
   * `anchor`, a port with `pacedReadsProven` opens it in its directory reached from the root down, so a link
   * on the way is refused (`not_directory`) instead of followed.
   */
  openRead(path: string, anchor?: RootAnchor): FileHandle;
  /**
   * Creates a new file to write; `exists` if anything (even a link) is there; `mode` set via the fd. Given an
   * `anchor`, as `openRead` opens.
   */
  createExclusive(path: string, mode?: number, anchor?: RootAnchor): FileHandle;
  /** Atomically renames `from` over `to` (never follows a link at `to`). */
  rename(from: string, to: string): void;
  /** Removes a file (not a directory). */
  remove(path: string): void;
}

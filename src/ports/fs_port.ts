/**
 * The runtime seam. The core reaches the filesystem only through this
 * interface; `deno.ts` implements it with `Deno.*` and `node.ts` with
 * `node:fs` (`descriptor.ts` holds the descriptor primitives both use). Every call is synchronous: each tool call is bounded by its own
 * budgets, and synchronous calls avoid a thread-pool round trip per file.
 *
 * @module
 */

/** What a directory entry or an open descriptor is. `unknown`: the directory did not say. */
export type EntryKind = "file" | "directory" | "symlink" | "other" | "unknown";

/** One directory entry, with its kind as the directory reported it (no stat). */
export interface DirEntry {
  /** The entry's name, one path segment. */
  readonly name: string;
  /** The kind reported by the directory itself; a symlink is reported as `symlink`; `unknown`: lstat it. */
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
export interface DirectoryHold {
  /** `fstat` of the descriptor. */
  stat(): FileInfo;
  /** Closes the descriptor; safe to call twice. */
  close(): void;
}

/** The project's own error codes; ports map errno and runtime errors to these. */
export type FsErrorCode =
  | "not_found"
  | "symlink"
  | "not_directory"
  | "not_regular"
  | "exists"
  | "changed"
  | "denied"
  | "io";

/** A filesystem failure, already stripped of errno text and host paths. */
export class FsError extends Error {
  /** What went wrong, in the project's terms. */
  readonly code: FsErrorCode;
  /**
   * Makes a filesystem error.
   *
   * @param code What went wrong.
   */
  constructor(code: FsErrorCode) {
    super(code);
    this.name = "FsError";
    this.code = code;
  }
}

/** The filesystem primitives the core needs. Paths are absolute. */
export interface FsPort {
  /**
   * Set when this runtime lacks a primitive the port needs to keep the
   * contract (`node:fs` without `O_NOFOLLOW` on Windows): one line saying
   * which. `openRoot` then refuses to open a root with this port.
   */
  readonly unsupported?: string;
  /**
   * Which substring search this runtime runs fast, for `search_text`:
   * `buffer` (`Buffer#indexOf`, native code on Node; the default) or
   * `rarest-byte` (the engine's `Uint8Array#indexOf` on the needle's rarest
   * byte, for Deno, whose `Buffer` is a JavaScript layer). Not a filesystem
   * primitive, but the one other thing that differs by runtime, so it rides
   * the one seam, and the choice is made where the port is bound.
   */
  readonly byteSearch?: "buffer" | "rarest-byte";
  /** Resolves every link in `path` (used once, to pin the root). */
  realPath(path: string): string;
  /** No-follow stat; `null` when nothing is there. */
  lstat(path: string): FileInfo | null;
  /**
   * Opens a directory and keeps it open (used once, to pin the root): a
   * directory removed and re-created at the same path would otherwise get
   * the same inode number back (ext4 hands it out again at once). Fails with
   * `not_directory` when it is not one.
   */
  holdDirectory(path: string): DirectoryHold;
  /**
   * Lists a directory, each entry's kind taken from the directory itself.
   * Names are exact: a name that is not valid UTF-8 is left out (it cannot
   * be named faithfully in JSON). A runtime that cannot tell such a name from
   * one that holds U+FFFD reports a name with U+FFFD once, as `unknown`, so
   * that an lstat of the name decides.
   */
  readDir(path: string): DirEntry[];
  /**
   * Opens a regular file for reading without following a link at the final
   * component and without blocking (a FIFO swapped in fails). Fails with
   * `symlink`, `not_regular`, `not_found` or `changed` (the object was
   * swapped between the check and the open).
   */
  openRead(path: string): FileHandle;
  /**
   * Creates a new file for writing, failing with `exists` if anything (a link
   * included) is already there. With `mode`, the file gets exactly that mode,
   * set through the descriptor, never by path.
   */
  createExclusive(path: string, mode?: number): FileHandle;
  /** Atomically renames `from` over `to` (never follows a link at `to`). */
  rename(from: string, to: string): void;
  /** Removes a file (not a directory). */
  remove(path: string): void;
}

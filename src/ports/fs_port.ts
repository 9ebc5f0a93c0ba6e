/**
 * The runtime seam: `deno.ts` implements it with `Deno.*`, `node.ts` with
 * `node:fs` (`descriptor.ts` holds the primitives both use), and an entry
 * binds one. The core touches the filesystem only through it, except for
 * stdin and stdout (the binary's transport, `cli/`) and the working directory
 * a relative root is resolved against. Every call is synchronous: a tool call
 * is bounded by its budgets, and a sync call saves a thread-pool round trip
 * per file.
 *
 * @module
 */

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
  | "busy"
  | "io";

/** A filesystem failure, already stripped of errno text and host paths. */
export class FsError extends Error {
  /** What went wrong, in the project's terms. */
  readonly code: FsErrorCode;
  /** Makes a filesystem error with its `code`. */
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
   * `buffer` (`Buffer#indexOf`, native on Node; the default) or `rarest-byte`
   * (`Uint8Array#indexOf` on the needle's rarest byte, for Deno, whose
   * `Buffer` is a JavaScript layer). Not a filesystem primitive, but the one
   * other thing that differs by runtime, so it rides the one seam.
   */
  readonly byteSearch?: "buffer" | "rarest-byte";
  /** Resolves every link in `path` (used once, to pin the root). */
  realPath(path: string): string;
  /** No-follow stat; `null` when nothing is there. */
  lstat(path: string): FileInfo | null;
  /**
   * Opens a directory and keeps it open (used once, to pin the root, so its
   * inode number cannot be handed out again); `not_directory` when it is not one.
   */
  holdDirectory(path: string): DirectoryHold;
  /**
   * Lists a directory. Names are exact: one that is not UTF-8 is left out (JSON
   * cannot name it faithfully); a runtime that cannot tell it from one holding
   * U+FFFD reports such a name once, as `unknown`, for an lstat to decide.
   */
  readDir(path: string): DirEntry[];
  /**
   * Opens a regular file for reading, never through a link at the final
   * component and never blocking (a FIFO swapped in fails): `symlink`,
   * `not_regular`, `not_found`, or `changed` (swapped between check and open).
   */
  openRead(path: string): FileHandle;
  /**
   * Creates a new file for writing; `exists` if anything, a link included, is
   * there. `mode` is set exactly, through the descriptor, never by path.
   */
  createExclusive(path: string, mode?: number): FileHandle;
  /** Atomically renames `from` over `to` (never follows a link at `to`). */
  rename(from: string, to: string): void;
  /** Removes a file (not a directory). */
  remove(path: string): void;
}

/**
 * Confinement for calls that name a path: argument validation, the
 * served-path check, and the walk from the root to the target that refuses
 * any component that is not a real directory.
 *
 * @module
 */
import { ToolError } from "./errors.ts";
import { normalizeRelative } from "./paths.ts";
import { refuseArgument } from "./quote.ts";
import type { Root } from "./root.ts";
import { type FileHandle, type FileInfo, FsError } from "./ports/fs_port.ts";
import { isTempName } from "./temp_names.ts";

/** Validates a path argument; `""` (the root) only where `allowRoot`. */
export function checkPathArgument(root: Root, path: string, allowRoot: boolean): string {
  const rel = normalizeRelative(path, root.limits.maxPathBytes);
  if (rel === null) {
    throw refuseArgument(
      "path must be relative, with no '.', '..' or empty segments, no backslash, NUL or drive prefix",
      path,
    );
  }
  if (rel === "" && !allowRoot) throw refuseArgument("path must name a file, not the root", path);
  return rel;
}

/** The one answer for a path that is missing, excluded or otherwise not served. */
export function notFound(rel: string): ToolError {
  return new ToolError(`not found: ${rel}`);
}

/**
 * Checks, on every call, that each directory between the root and `rel` is a
 * real directory and not a link (even one pointing back inside the root).
 */
export function checkParents(root: Root, rel: string): void {
  const parts = rel.split("/");
  let dir = "";
  for (const part of parts.slice(0, -1)) {
    dir = dir === "" ? part : `${dir}/${part}`;
    // Decided from the name first: a pruned (excluded, unreachable) directory is never statted.
    if (!root.selector.mayContain(dir)) throw notFound(rel);
    const info = root.fs.lstat(root.inventory.abs(dir));
    if (info === null) throw notFound(rel);
    if (info.kind === "symlink") {
      throw new ToolError(`${dir} is a symbolic link, and links are never followed`);
    }
    if (info.kind !== "directory") throw notFound(rel);
  }
}

/** An open served file and its identity at open time. */
export interface OpenFile {
  /** The descriptor; the caller closes it. */
  readonly handle: FileHandle;
  /** `fstat` of the descriptor. */
  readonly info: FileInfo;
}

/**
 * Opens a served regular file for content. Excluded, unselected and
 * temporary paths get exactly the answer a missing path gets.
 */
export function openServedFile(root: Root, rel: string): OpenFile {
  const depth = rel.split("/").length - 1;
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  if (!root.selector.isServed(rel) || isTempName(name) || depth > root.limits.maxDepth) {
    throw notFound(rel);
  }
  for (let attempt = 1;; attempt++) {
    checkParents(root, rel);
    let handle: FileHandle;
    try {
      handle = root.fs.openRead(root.inventory.abs(rel));
    } catch (error) {
      // Replaced between the check and the open (an atomic write renamed over it): look again.
      if (error instanceof FsError && error.code === "changed" && attempt < OPEN_ATTEMPTS) continue;
      if (error instanceof FsError && error.code === "not_regular" && isUnservedDir(root, rel)) {
        throw notFound(rel); // a directory that serves nothing must not be revealed
      }
      throw openError(error, rel);
    }
    try {
      const info = handle.stat();
      // The no-follow open guards only the last component. A parent directory swapped for a
      // link during the open led it outside the root: so after the open, the parents must
      // still be real directories and the path must still name the opened file.
      checkParents(root, rel);
      const now = root.fs.lstat(root.inventory.abs(rel));
      if (now !== null && now.ino === info.ino && now.dev === info.dev) return { handle, info };
    } catch (error) {
      handle.close();
      if (error instanceof ToolError) throw error;
      throw openError(error, rel);
    }
    handle.close();
    if (attempt >= OPEN_ATTEMPTS) throw openError(new FsError("changed"), rel);
  }
}

/**
 * How often an open is tried when the path names another file by the time
 * it is opened or verified (an atomic write renamed over it). Without the
 * retry, a search that met a file being rewritten skipped it as if gone.
 */
const OPEN_ATTEMPTS = 3;

/** Whether `rel` is a directory with nothing served below it (excluded, unreachable or empty). */
function isUnservedDir(root: Root, rel: string): boolean {
  return root.fs.lstat(root.inventory.abs(rel))?.kind === "directory" && !root.inventory.hasServed(rel);
}

function openError(error: unknown, rel: string): ToolError {
  if (!(error instanceof FsError)) return new ToolError(`${rel} could not be opened`);
  switch (error.code) {
    case "not_found":
    case "not_directory":
      return notFound(rel);
    case "symlink":
      return new ToolError(`${rel} is a symbolic link, and links are never followed`);
    case "not_regular":
      return new ToolError(`${rel} is not a regular file`);
    case "changed":
      return new ToolError(`${rel} was replaced while it was being opened; try again`);
    case "denied":
      return new ToolError(`permission denied: ${rel}`);
    default:
      return new ToolError(`${rel} could not be opened`);
  }
}

/** Reads `buffer.length` bytes at `position`, or fewer at end of file. */
export function readFully(handle: FileHandle, buffer: Uint8Array, position: number): number {
  let done = 0;
  while (done < buffer.length) {
    const n = handle.readAt(buffer.subarray(done), position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * Confinement for calls that name a path: argument validation, the
 * served-path check, and the walk from the root to the target that refuses
 * any component that is not a real directory.
 *
 * @module
 */
import { ToolError } from "./errors.ts";
import { normalizeRelative } from "./paths.ts";
import type { Root } from "./root.ts";
import { type FileHandle, type FileInfo, FsError } from "./ports/fs_port.ts";
import { isTempName } from "./temp_names.ts";

/** Validates a path argument; `""` (the root) only where `allowRoot`. */
export function checkPathArgument(root: Root, path: string, allowRoot: boolean): string {
  const rel = normalizeRelative(path, root.limits.maxPathBytes);
  if (rel === null) {
    throw new ToolError(
      "path must be relative, with no '.', '..' or empty segments, no backslash, NUL or drive prefix",
    );
  }
  if (rel === "" && !allowRoot) throw new ToolError("path must name a file, not the root");
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
  checkParents(root, rel);
  let handle: FileHandle;
  try {
    handle = root.fs.openRead(root.inventory.abs(rel));
  } catch (error) {
    throw openError(error, rel);
  }
  try {
    return { handle, info: handle.stat() };
  } catch (error) {
    handle.close();
    throw openError(error, rel);
  }
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

/**
 * Confinement for calls that name a path: argument validation, the root
 * pin, the served-path decision made from the name alone, and the walk from
 * the root to the target that refuses any component that is not a real
 * directory.
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
 * Refuses the call unless the root path still names the very directory
 * pinned at start. Every call begins with it, so a root renamed away,
 * removed, or replaced by another directory or by a link is refused before
 * anything is read, listed or written.
 */
export function checkRoot(root: Root): void {
  try {
    root.checkPin();
  } catch (error) {
    throw refusal(error, "");
  }
}

/** What a path argument may name, decided from its name alone. */
export interface Admitted {
  /** A served file. */
  readonly file: boolean;
  /** A directory that may hold something served. */
  readonly directory: boolean;
}

/**
 * Decides from the name alone, before any filesystem access, whether `rel`
 * can name a served file or a directory that may hold one (`as` says which
 * the caller accepts). A path that is excluded, lies below or passes
 * through an excluded or unreachable directory, is too deep, or has a
 * temporary name in it gets exactly the answer of a missing path, so an
 * excluded name's existence or kind never shows.
 */
export function admit(root: Root, rel: string, as: "file" | "directory" | "either"): Admitted {
  const { selector, limits } = root;
  const segments = rel.split("/");
  if (segments.some(isTempName)) throw notFound(rel);
  let dir = "";
  for (let i = 0; i < segments.length - 1; i++) {
    dir = i === 0 ? segments[0] : `${dir}/${segments[i]}`;
    if (!selector.mayContain(dir)) throw notFound(rel);
  }
  const admitted = {
    file: as !== "directory" && segments.length - 1 <= limits.maxDepth && selector.isServed(rel),
    directory: as !== "file" && segments.length <= limits.maxDepth && selector.mayContain(rel),
  };
  if (!admitted.file && !admitted.directory) throw notFound(rel);
  return admitted;
}

/**
 * Checks, on every call, that each directory between the root and `rel` is a
 * real directory and not a link (even one pointing back inside the root).
 * Call `admit` first: this walk touches the filesystem.
 */
export function checkParents(root: Root, rel: string): void {
  let dir = "";
  for (let at = rel.indexOf("/"); at >= 0; at = rel.indexOf("/", at + 1)) {
    dir = rel.slice(0, at);
    let info: FileInfo | null;
    try {
      info = root.lstat(dir);
    } catch (error) {
      throw refusal(error, rel);
    }
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
 * temporary paths get exactly the answer a missing path gets, without any
 * filesystem access.
 */
export function openServedFile(root: Root, rel: string): OpenFile {
  admit(root, rel, "file");
  for (let attempt = 1;; attempt++) {
    checkParents(root, rel);
    let handle: FileHandle;
    try {
      handle = root.openRead(rel);
    } catch (error) {
      // Replaced between the check and the open (an atomic write renamed over it): look again.
      if (error instanceof FsError && error.code === "changed" && attempt < OPEN_ATTEMPTS) continue;
      // A directory that serves nothing must not be revealed.
      throw error instanceof FsError && error.code === "not_regular" && isUnservedDir(root, rel)
        ? notFound(rel)
        : refusal(error, rel);
    }
    try {
      const info = handle.stat();
      // The no-follow open guards only the last component. A parent directory swapped for a
      // link during the open led it outside the root: so after the open, the parents must
      // still be real directories and the path must still name the opened file.
      checkParents(root, rel);
      const now = root.lstat(rel);
      if (now !== null && now.ino === info.ino && now.dev === info.dev) {
        checkRoot(root); // and the walk to it started from the pinned root, not one swapped in meanwhile
        return { handle, info };
      }
    } catch (error) {
      handle.close();
      throw refusal(error, rel);
    }
    handle.close();
    if (attempt >= OPEN_ATTEMPTS) throw refusal(new FsError("changed"), rel);
  }
}

/**
 * How often an open is tried when the path names another file by the time
 * it is opened or verified (an atomic write renamed over it). Without the
 * retry, a search that met a file being rewritten skipped it as if gone.
 */
const OPEN_ATTEMPTS = 3;

/**
 * Whether `rel` is a directory with nothing served below it (excluded,
 * unreachable or empty). Throws the refusal when it cannot be read.
 */
function isUnservedDir(root: Root, rel: string): boolean {
  try {
    return root.lstat(rel)?.kind === "directory" && !root.hasServed(rel);
  } catch (error) {
    throw refusal(error, rel);
  }
}

/**
 * The refusal for a filesystem failure on `rel` (`""`: the root). Whatever a
 * user can do to the tree ends here as one short line, never as an internal
 * error. Anything that is not a filesystem failure comes back unchanged.
 */
export function refusal(error: unknown, rel: string): unknown {
  if (!(error instanceof FsError)) return error;
  const name = rel === "" ? "the root" : rel;
  switch (error.code) {
    case "not_found":
    case "not_directory":
      return notFound(rel);
    case "symlink":
      return new ToolError(`${name} is a symbolic link, and links are never followed`);
    case "not_regular":
      return new ToolError(`${name} is not a regular file`);
    case "changed":
      return new ToolError(`${name} was replaced while it was being opened; try again`);
    case "denied":
      return new ToolError(`permission denied: ${name}`);
    default:
      return new ToolError(`${name} could not be read`);
  }
}

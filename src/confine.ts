/**
 * Confinement for calls that name a path: the argument check, the root pin,
 * the served-path decision made from the name alone, and the walk from the
 * root that refuses any component that is not a real directory.
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

/** Refuses the call unless the root path still names the directory pinned at start. */
export function checkRoot(root: Root): void {
  try {
    root.checkPin();
  } catch (error) {
    throw refusal(error, "");
  }
}

/**
 * Decides from the name alone, before any filesystem access, whether `rel`
 * may name a served file or a directory that may hold one (`as`: which the
 * caller accepts). A path that is excluded, too deep, passes through an
 * excluded or unreachable directory, or has a temporary name in it gets the
 * answer of a missing path, so an excluded name's existence never shows.
 */
export function admit(
  root: Root,
  rel: string,
  as: "file" | "directory" | "either",
): { readonly file: boolean; readonly directory: boolean } {
  if (rel === "") return { file: false, directory: true };
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
 * Checks that each directory between the root and `rel` is a real directory,
 * not a link (even one back inside the root). Call `admit` first: this walks
 * the filesystem.
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

/**
 * Opens a served regular file for content, with the descriptor's `fstat`;
 * the caller closes it. An unserved path gets the answer of a missing one,
 * without any filesystem access.
 */
export function openServedFile(root: Root, rel: string): { handle: FileHandle; info: FileInfo } {
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

// Opens tried when the path names another file by the time it is opened or verified (an atomic
// write renamed over it): without the retry, a search skipped a file being rewritten as if gone.
const OPEN_ATTEMPTS = 3;

/** Whether `rel` is a directory with nothing served below it; throws the refusal when it cannot be read. */
function isUnservedDir(root: Root, rel: string): boolean {
  try {
    return root.lstat(rel)?.kind === "directory" && !root.hasServed(rel);
  } catch (error) {
    throw refusal(error, rel);
  }
}

/**
 * The refusal for a filesystem failure on `rel` (`""`: the root): whatever a
 * user can do to the tree ends as one short line, never an internal error.
 * Anything else comes back unchanged.
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

/**
 * Confinement for calls that name a path: the argument check, the root pin, the decision made from
 * the name alone, and the open of a served file, which the inventory must list, spelled exactly so.
 *
 * @module
 */
import { BUSY_MESSAGE, ToolError } from "./errors.ts";
import { depthOf, pathRefusal } from "./paths.ts";
import { refuseArgument, shownPath } from "./quote.ts";
import type { Root } from "./root.ts";
import { type FileHandle, type FileInfo, FsError } from "./ports/fs_port.ts";
import { isTempName } from "./temp_names.ts";

/** Validates a path argument; `""` (the root) only where `allowRoot`. */
export function checkPathArgument(root: Root, path: string, allowRoot: boolean): string {
  const refusal = pathRefusal(path, root.limits.maxPathBytes);
  if (refusal !== null) throw refuseArgument(refusal, path);
  if (path === "" && !allowRoot) throw refuseArgument("path must name a file, not the root", path);
  return path;
}

/** The one answer for a path that is missing, excluded or otherwise not served. */
export function notFound(rel: string): ToolError {
  return new ToolError(`not found: ${shownPath(rel)}`);
}

/** The refusal of a file over the file limit (`maxFileBytes`, `--max-file-bytes`), for a call that named it. */
export function tooLarge(root: Root, rel: string): ToolError {
  return new ToolError(`${shownPath(rel)} is larger than the ${root.limits.maxFileBytes}-byte file limit`);
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
 * Decides from the name alone, before any filesystem access, whether `rel` may name a served file or a
 * directory that may hold one (`as`: which the caller accepts). A path excluded, too deep, under an
 * excluded directory or with a temporary name gets the answer of a missing path, so it never shows.
 */
export function admit(
  root: Root,
  rel: string,
  as: "file" | "either",
): { readonly file: boolean; readonly directory: boolean } {
  if (rel === "") return { file: false, directory: true };
  const { selector, limits } = root;
  if (!rel.includes("/") && isTempName(rel)) throw notFound(rel); // a write's temporary file
  const depth = depthOf(rel);
  for (let at = rel.indexOf("/"); at >= 0; at = rel.indexOf("/", at + 1)) {
    if (!selector.mayContain(rel.slice(0, at))) throw notFound(rel);
  }
  const admitted = {
    file: depth - 1 <= limits.maxDepth && selector.isServed(rel),
    directory: as === "either" && depth <= limits.maxDepth && selector.mayContain(rel),
  };
  if (!admitted.file && !admitted.directory) throw notFound(rel);
  return admitted;
}

/** Opens a served regular file, with its `fstat`; the caller closes it. An unserved path is not looked at. */
export function openServedFile(
  root: Root,
  rel: string,
  listed = false,
): { handle: FileHandle; info: FileInfo } {
  if (!listed) admit(root, rel, "file");
  for (let attempt = 1;; attempt++) {
    // A path the walker listed in this very call (`listed`: a search's scope) is checked after the open only.
    if (!listed || attempt > 1) requireListed(root, rel);
    let handle: FileHandle;
    try {
      handle = root.openRead(rel);
    } catch (error) {
      // Replaced between the check and the open (an atomic write renamed over it): look again.
      if (error instanceof FsError && error.code === "changed" && attempt < OPEN_ATTEMPTS) continue;
      throw refusal(error, rel);
    }
    try {
      const info = handle.opened ?? handle.stat();
      // The no-follow open guards only the last component: after it, the parents (from the pinned root)
      // must still be real directories listing it, and the path must still name the opened file. Where the
      // open cannot follow a link on the way (Node on Linux), this still refuses a parent replaced by a
      // directory that spells the name otherwise, which an open on a case-folding filesystem reaches too.
      requireListed(root, rel);
      const now = root.lstat(rel);
      if (now !== null && now.ino === info.ino && now.dev === info.dev) return { handle, info };
    } catch (error) {
      handle.close();
      throw refusal(error, rel);
    }
    handle.close();
    if (attempt >= OPEN_ATTEMPTS) throw refusal(new FsError("changed"), rel);
  }
}

/** Refuses `rel` unless the inventory lists it as a served file (a directory: see `list_directory`). */
function requireListed(root: Root, rel: string): void {
  try {
    if (root.isFile(rel)) return;
    if ((root.entries(rel)?.length ?? 0) > 0) {
      throw new ToolError(`${shownPath(rel)} is a directory; list it with list_directory`);
    }
  } catch (error) {
    throw refusal(error, rel);
  }
  throw notServed(root, rel);
}

/**
 * The refusal of an admitted path the inventory does not serve: a moved root says so; a path through a
 * link its directory lists under that very name names the first such link on the way; anything else
 * (missing, unserved, respelled) is not found.
 */
export function notServed(root: Root, rel: string): unknown {
  try {
    root.checkPin(); // a root moved meanwhile is the answer, not what its replacement lacks
    for (let at = rel.indexOf("/");; at = rel.indexOf("/", at + 1)) {
      const part = at < 0 ? rel : rel.slice(0, at);
      const kind = root.listedKind(part); // as its directory spells it: never another spelling's kind
      if (kind === "symlink") {
        return new ToolError(`${shownPath(part)} is a symbolic link, and links are never followed`);
      }
      if (kind !== "directory" || at < 0) return notFound(rel);
    }
  } catch (error) {
    return refusal(error, rel);
  }
}

// Opens tried when an atomic write renames over the path between the check, the open and the verification.
const OPEN_ATTEMPTS = 3;

/** A filesystem failure on `rel` (`""`: the root) as one short refusal; anything else unchanged. */
export function refusal(error: unknown, rel: string): unknown {
  if (!(error instanceof FsError)) return error;
  const name = rel === "" ? "the root" : shownPath(rel);
  const because = { cause: error };
  switch (error.code) {
    case "not_found":
    case "not_directory":
      return new ToolError(notFound(rel).message, because);
    case "symlink":
      return new ToolError(`${name} is a symbolic link, and links are never followed`, because);
    case "not_regular":
      return new ToolError(`${name} is not a regular file`, because);
    case "changed":
      return new ToolError(`${name} was replaced while it was being opened; try again`, because);
    case "denied":
      return new ToolError(`permission denied: ${name}`, because);
    case "busy":
      return new ToolError(BUSY_MESSAGE, because);
    default:
      return new ToolError(`${name} could not be read`, because);
  }
}

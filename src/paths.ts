/**
 * The path contract for tool arguments: relative paths only, rejected, never resolved, when they could
 * point anywhere unexpected.
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import { DEFAULT_LIMITS } from "./limits.ts";

/** Longest path segment, in UTF-8 bytes (the usual `NAME_MAX`). */
export const MAX_SEGMENT_BYTES = 255;

/**
 * The system's `PATH_MAX` on Linux, its NUL included: the longest absolute path a call may name. The runtimes
 * reach every file by absolute path, so one longer than this with the root's path before it cannot be opened.
 */
export const SYSTEM_PATH_BYTES = 4_096;

/** The bytes `SYSTEM_PATH_BYTES` leaves for a relative path below `rootPath`: less its path, a `/` and the NUL. */
export function roomBelow(rootPath: string): number {
  return SYSTEM_PATH_BYTES - utf8Length(rootPath) - 2;
}

/**
 * How deep a relative path lies: its segments (`""`, the root: 0). A directory is served down to
 * `maxDepth`, so a file down to one more.
 */
export function depthOf(rel: string): number {
  return rel === "" ? 0 : rel.split("/").length;
}

const DRIVE_PREFIX = /^[A-Za-z]:/;

/**
 * Validates a relative path argument; `""` names the root. Absolute paths, `.`/`..` and empty segments
 * (`a//b`, a trailing `/`), NUL bytes, backslashes, drive prefixes and paths over `maxBytes` UTF-8 bytes
 * give `null`: nothing is resolved or normalised away.
 *
 * @example Accepting and rejecting paths
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeRelative } from "./paths.ts";
 * assert.equal(normalizeRelative("docs/a.md"), "docs/a.md");
 * assert.equal(normalizeRelative("../etc/passwd"), null);
 * assert.equal(normalizeRelative("docs//a.md"), null);
 * ```
 */
export function normalizeRelative(path: string, maxBytes = DEFAULT_LIMITS.maxPathBytes): string | null {
  return pathRefusal(path, maxBytes) === null ? path : null;
}

/** The rule a path argument must keep besides its length. */
const PATH_RULE =
  "path must be relative, with no '.', '..' or empty segments, no backslash, NUL or drive prefix";

/** Why `normalizeRelative` refuses a path: the rule it breaks, as a refusal states it; `null` when it does not. */
export function pathRefusal(path: string, maxBytes = DEFAULT_LIMITS.maxPathBytes): string | null {
  if (typeof path !== "string") return PATH_RULE;
  if (path === "") return null;
  // A lone surrogate has no UTF-8 form: encoded, it would become U+FFFD and name another file.
  if (/\p{Surrogate}/u.test(path)) return "path must be Unicode text, without a lone surrogate";
  // An absolute path breaks the segment rule below: its leading `/` leaves an empty segment.
  if (/[\0\\]/.test(path) || DRIVE_PREFIX.test(path)) return PATH_RULE;
  const segments = path.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return PATH_RULE;
  if (utf8Length(path) > maxBytes) return `path is longer than ${maxBytes} bytes (maxPathBytes)`;
  if (segments.some((segment) => utf8Length(segment) > MAX_SEGMENT_BYTES)) {
    return `path has a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
  }
  return null;
}

/**
 * Whether an entry of `dir` can be named back: `nameableIn(dir, maxBytes)(name)` holds exactly when
 * `normalizeRelative` accepts `dir/name`, for a `dir` it accepts and a `name` as a listing gives one (UTF-8,
 * no NUL or `/`, not `.` or `..`, at most `NAME_MAX` bytes). A walk serves no other name, so every path a
 * tool shows can be passed back to a tool. Cheap: a listing asks it of every entry.
 */
export function nameableIn(dir: string, maxBytes: number): (name: string) => boolean {
  const prefixBytes = dir === "" ? 0 : utf8Length(dir) + 1;
  const atRoot = dir === "";
  return (name) =>
    !name.includes("\\") && !(atRoot && DRIVE_PREFIX.test(name)) &&
    // A UTF-16 unit is at most 3 UTF-8 bytes: most names need no count.
    (prefixBytes + name.length * 3 <= maxBytes || prefixBytes + utf8Length(name) <= maxBytes);
}

/** The directory holding a relative path (`""`: the root). */
export function parentOf(rel: string): string {
  return rel.slice(0, Math.max(rel.lastIndexOf("/"), 0));
}

/** Joins a relative directory (possibly the root, `""`) and a name. */
export function joinRelative(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

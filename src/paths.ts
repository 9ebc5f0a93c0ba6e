/**
 * The path contract for tool arguments: relative paths only, rejected rather
 * than resolved when they could point anywhere unexpected.
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import { DEFAULT_LIMITS } from "./limits.ts";

/** Longest single path segment, in UTF-8 bytes (the usual `NAME_MAX`). */
export const MAX_SEGMENT_BYTES = 255;

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Validates a relative path argument. The empty string names the root.
 *
 * Absolute paths, `.`/`..` segments, empty segments (`a//b`, a trailing `/`),
 * NUL bytes, backslashes, Windows drive prefixes and over-long paths are
 * rejected with `null`; nothing is ever resolved or normalised away.
 *
 * @example Accepting and rejecting paths
 * ```ts
 * import { normalizeRelative } from "./paths.ts";
 * normalizeRelative("docs/a.md"); // "docs/a.md"
 * normalizeRelative("../etc/passwd"); // null
 * ```
 *
 * @param path The argument as received.
 * @param maxBytes The longest accepted path, in UTF-8 bytes.
 * @returns The path, or `null` when it is not an acceptable relative path.
 */
export function normalizeRelative(
  path: string,
  maxBytes: number = DEFAULT_LIMITS.maxPathBytes,
): string | null {
  if (typeof path !== "string") return null;
  if (path === "") return "";
  if (utf8Length(path) > maxBytes) return null;
  if (path.includes("\0") || path.includes("\\")) return null;
  if (LONE_SURROGATE.test(path)) return null; // not encodable: the runtime would name another file
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return null;
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return null;
    if (utf8Length(segment) > MAX_SEGMENT_BYTES) return null;
  }
  return path;
}

/** Joins a relative directory (possibly the root, `""`) and a name. */
export function joinRelative(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

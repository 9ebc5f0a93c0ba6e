/**
 * The glob grammar: `*` matches any run of characters inside one segment,
 * `**` as a whole segment matches zero or more segments, every other
 * character is literal. A trailing `**` means "everything inside", so it
 * matches one or more segments: `lib/**` selects `lib/a.ts` but not a file
 * named `lib`, and so never reaches the root level.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";

/** Splits and validates a pattern, throwing `ConfigError` on a bad one. */
export function parseGlob(pattern: string): readonly string[] {
  const bad = (why: string) => new ConfigError(`invalid glob "${pattern}": ${why}`);
  if (typeof pattern !== "string" || pattern === "") throw bad("it is empty");
  if (pattern.includes("\0")) throw bad("it contains a NUL byte");
  if (pattern.includes("\\")) throw bad("it contains a backslash");
  if (pattern.startsWith("/") || /^[A-Za-z]:/.test(pattern)) throw bad("it is absolute");
  const segments = pattern.split("/");
  for (const segment of segments) {
    if (segment === "") throw bad("it has an empty segment");
    if (segment === "." || segment === "..") throw bad("it has a '.' or '..' segment");
    if (segment.includes("**") && segment !== "**") throw bad("'**' must be a whole segment");
  }
  return segments;
}

const SPECIAL = /[.+?^${}()|[\]\\]/g;

/** The regular expression source for one non-`**` segment. */
export function segmentSource(segment: string): string {
  return segment.split("*").map((part) => part.replace(SPECIAL, "\\$&")).join("[^/]*");
}

/**
 * Compiles a glob into an anchored regular expression over relative paths.
 *
 * @example Matching paths
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileGlob } from "./glob.ts";
 * assert.equal(compileGlob("lib/**").test("lib/deep/a.ts"), true);
 * assert.equal(compileGlob("lib/**").test("lib"), false);
 * assert.equal(compileGlob("*.md").test("docs/a.md"), false);
 * ```
 *
 * @param pattern A glob of the grammar above.
 * @returns A `RegExp` that tests whole relative paths.
 * @throws {ConfigError} when the pattern is absolute, has `.`/`..` or empty
 *   segments, a backslash, a NUL, or `**` mixed with other characters.
 */
export function compileGlob(pattern: string): RegExp {
  const segments = parseGlob(pattern);
  let source = "";
  let atStart = true; // nothing but `**` segments so far
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      if (atStart && last) source += "[^/]+(?:/[^/]+)*";
      else if (atStart) source += "(?:[^/]+/)*";
      else if (last) source += "(?:/[^/]+)+";
      else source += "(?:/[^/]+)*";
      return;
    }
    source += (atStart ? "" : "/") + segmentSource(segment);
    atStart = false;
  });
  return new RegExp(`^${source}$`, "u");
}

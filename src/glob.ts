/**
 * The glob grammar: `*` matches any run of characters inside one segment, `**` as a whole segment
 * zero or more segments, every other character is literal. A trailing `**` means "everything inside":
 * one or more segments, so `lib/**` selects `lib/a.ts` but not a file named `lib`.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";
import { quoteArgument } from "./quote.ts";

/** The regular expression source for one non-`**` segment. */
export function segmentSource(segment: string): string {
  return segment.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*");
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
 * @throws {ConfigError} when the pattern is empty, absolute, or has a `.`/`..`/empty segment, a backslash,
 *   a NUL, or `**` mixed with other characters.
 */
export function compileGlob(pattern: string): RegExp {
  if (typeof pattern !== "string") {
    throw new ConfigError(`invalid glob ${String(pattern)}: it is not a string`);
  }
  const bad = (why: string) => new ConfigError(`invalid glob ${quoteArgument(pattern)}: ${why}`);
  if (pattern === "") throw bad("it is empty");
  if (pattern.includes("\0")) throw bad("it contains a NUL byte");
  if (pattern.includes("\\")) throw bad("it contains a backslash");
  if (pattern.startsWith("/") || /^[A-Za-z]:/.test(pattern)) throw bad("it is absolute");
  const segments = pattern.split("/");
  let source = "";
  let atStart = true; // nothing but `**` segments so far
  segments.forEach((segment, i) => {
    if (segment === "") throw bad("it has an empty segment");
    if (segment === "." || segment === "..") throw bad("it has a '.' or '..' segment");
    if (segment.includes("**") && segment !== "**") throw bad("'**' must be a whole segment");
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

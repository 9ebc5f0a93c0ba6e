/**
 * Which paths a root serves, from names alone: a path matching some include, with neither it nor an
 * ancestor matching an exclude (`--exclude private` excludes `private/key.txt`). Directories are judged
 * segment by segment, so the walker prunes one before it stats or opens anything inside.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";
import { compileGlob, segmentSource } from "./glob.ts";

/** What a root serves, decided from relative paths alone. */
export interface Selector {
  /** Whether a relative file path is served. */
  isServed(path: string): boolean;
  /** Whether a directory could hold a served path: some include reaches below it, and it is not excluded. */
  mayContain(dir: string): boolean;
  /** Whether everything below a directory is excluded (it or an ancestor matches an exclude, or one covers below it). */
  isExcludedDir(dir: string): boolean;
  /** Whether every path below a directory is served (so `isServed` and `mayContain` hold for each). */
  servesAllBelow(dir: string): boolean;
  /** Whether some include pattern can match a file directly in the root. */
  readonly reachesRootLevel: boolean;
}

/** A glob's regular expressions, and its segment automaton: state `i` means "segments before `i` are matched". */
function compile(pattern: string) {
  const whole = compileGlob(pattern); // validates it, so its segments are these
  const segments = pattern.split("/");
  const n = segments.length;
  const matchers = segments.map((s) => s === "**" ? null : new RegExp(`^${segmentSource(s)}$`, "u"));
  let tail = n; // from state `tail` on only `**` remains, which every path below matches
  while (tail > 0 && segments[tail - 1] === "**") tail--;
  // Adds the states a `**` reaches by matching nothing (a trailing one must match something).
  const close = (states: Set<number>) => {
    for (const s of states) if (s < n - 1 && matchers[s] === null) states.add(s + 1);
    return states;
  };
  /** The states after consuming the segments of a directory path. */
  const run = (dir: string): number[] => {
    let states = close(new Set([0]));
    for (const name of dir === "" ? [] : dir.split("/")) {
      const next = new Set<number>();
      for (const s of states) {
        if (matchers[s] === null) next.add(s).add(s + 1); // `**` consumes this segment, stays or moves on
        else if (matchers[s]?.test(name)) next.add(s + 1);
      }
      states = close(next);
    }
    return [...states];
  };
  const literals = segments.filter((s) => s !== "**").length;
  return {
    whole,
    // No segment matches a `/`, so a match that a `/` (or the end) follows ends at a segment boundary:
    // one test answers "this path or an ancestor matches".
    orAncestor: new RegExp(`${whole.source.slice(0, -1)}(?:/[^]*)?$`, "u"),
    reachesBelow: (dir: string) => run(dir).some((s) => s < n),
    coversBelow: (dir: string) => run(dir).some((s) => s >= tail && s < n),
    matchesOneSegment: literals === 0 || (literals === 1 && segments[n - 1] !== "**"),
  };
}

/** Compiles the globs of one option; an invalid one throws a `ConfigError` that names the option. */
function compileAll(globs: readonly string[], option: "include" | "exclude") {
  return globs.map((glob) => {
    try {
      return compile(glob);
    } catch (error) {
      throw error instanceof ConfigError ? new ConfigError(`has an ${error.problem}`, option) : error;
    }
  });
}

/**
 * Builds a selector from include and exclude globs; none included selects nothing.
 *
 * @example A library-only selection
 * ```ts
 * import assert from "node:assert/strict";
 * import { createSelector } from "./selector.ts";
 * const selector = createSelector(["lib/**"], ["**\/secrets/**"]);
 * assert.equal(selector.isServed("lib/a.ts"), true);
 * assert.equal(selector.isServed("lib/secrets/key.txt"), false);
 * assert.equal(selector.mayContain("lib/secrets"), false);
 * assert.equal(selector.reachesRootLevel, false);
 * ```
 *
 * @throws {ConfigError} when a glob is invalid.
 */
export function createSelector(include: readonly string[], exclude: readonly string[] = []): Selector {
  const includes = compileAll(include, "include");
  // An exclude ending in `/**` covers the name before it too (`build/**` a file named `build`, and so does
  // `build/**/**`), so the name an excluded directory has is decided from the name alone, never statted.
  const excludes = compileAll(
    exclude.flatMap((p) => p.endsWith("/**") ? [p, p.replace(/(\/\*\*)+$/, "")] : [p]),
    "exclude",
  );
  // The root itself is never excluded (a `*` would match its empty path), only what is below it.
  const isExcludedDir = (dir: string) =>
    excludes.some((p) => (dir !== "" && p.orAncestor.test(dir)) || p.coversBelow(dir));
  return {
    isServed: (path) =>
      includes.some((p) => p.whole.test(path)) && !excludes.some((p) => p.orAncestor.test(path)),
    mayContain: (dir) => includes.some((p) => p.reachesBelow(dir)) && !isExcludedDir(dir),
    isExcludedDir,
    // An include covers everything below, no exclude reaches below, and the directory is not excluded.
    servesAllBelow: (dir) =>
      includes.some((p) => p.coversBelow(dir)) && !excludes.some((p) => p.reachesBelow(dir)) &&
      !excludes.some((p) => dir !== "" && p.orAncestor.test(dir)),
    reachesRootLevel: includes.some((p) => p.matchesOneSegment),
  };
}

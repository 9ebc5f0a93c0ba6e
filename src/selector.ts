/**
 * Which paths a root serves, decided from names alone: a path matching some
 * include, with neither it nor an ancestor matching an exclude
 * (`--exclude private` excludes `private/key.txt`). Directory questions are
 * answered by running the patterns segment by segment, so the walker prunes a
 * directory before it stats or opens anything inside.
 *
 * @module
 */
import { compileGlob, parseGlob, segmentSource } from "./glob.ts";

/** What a root serves, decided from relative paths alone. */
export interface Selector {
  /** Whether a relative file path is served. */
  isServed(path: string): boolean;
  /** Whether a directory could hold a served path: some include reaches below it, and it is not excluded. */
  mayContain(dir: string): boolean;
  /** Whether everything below a directory is excluded (it or an ancestor matches an exclude, or one covers below it). */
  isExcludedDir(dir: string): boolean;
  /** Whether some include pattern can match a file directly in the root. */
  readonly reachesRootLevel: boolean;
}

/** A pattern as a segment automaton: state `i` means "segments before i are matched". */
class Pattern {
  readonly #segments: readonly string[];
  readonly #matchers: (RegExp | null)[]; // `null` for `**`
  readonly #whole: RegExp;
  readonly #orBelow: RegExp; // the pattern, or a path below one that matches it

  constructor(pattern: string, whole: RegExp) {
    this.#segments = parseGlob(pattern);
    this.#matchers = this.#segments.map((s) => s === "**" ? null : new RegExp(`^${segmentSource(s)}$`, "u"));
    this.#whole = whole;
    // No segment of a glob matches a `/`, so a match that a `/` (or the end) follows ends at a
    // segment boundary: one test answers "this path or an ancestor matches".
    this.#orBelow = new RegExp(`${whole.source.slice(0, -1)}(?:/[^]*)?$`, "u");
  }

  test(path: string): boolean {
    return this.#whole.test(path);
  }

  testOrAncestor(path: string): boolean {
    return this.#orBelow.test(path);
  }

  /** Adds the states reachable by letting a `**` match nothing (a trailing one must match something). */
  #close(states: Set<number>): Set<number> {
    const last = this.#segments.length - 1;
    for (const s of states) if (s < last && this.#matchers[s] === null) states.add(s + 1);
    return states;
  }

  /** The states after consuming the segments of a directory path. */
  #run(dir: string): Set<number> {
    let states = this.#close(new Set([0]));
    if (dir === "") return states;
    for (const name of dir.split("/")) {
      const next = new Set<number>();
      for (const s of states) {
        if (s >= this.#segments.length) continue;
        const m = this.#matchers[s];
        if (m === null) next.add(s).add(s + 1); // `**` consumes this segment, stays or moves on
        else if (m.test(name)) next.add(s + 1);
      }
      states = this.#close(next);
      if (states.size === 0) break;
    }
    return states;
  }

  /** Whether some path strictly below `dir` can match. */
  reachesBelow(dir: string): boolean {
    for (const s of this.#run(dir)) if (s < this.#segments.length) return true;
    return false;
  }

  /** Whether every path strictly below `dir` matches (what remains is only `**`). */
  coversBelow(dir: string): boolean {
    for (const s of this.#run(dir)) {
      const rest = this.#segments.slice(s);
      if (rest.length > 0 && rest.every((seg) => seg === "**")) return true;
    }
    return false;
  }

  /** Whether a one-segment path can match: one literal segment, not followed by a trailing `**`. */
  get matchesOneSegment(): boolean {
    const literal = this.#segments.filter((s) => s !== "**").length;
    return literal === 0 || (literal === 1 && this.#segments.at(-1) !== "**");
  }
}

/**
 * Builds a selector from include and exclude globs.
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
 * @param include Globs that select paths; none selects nothing.
 * @param exclude Globs that remove paths from the selection.
 * @returns The selector.
 * @throws {ConfigError} when a glob is invalid.
 */
export function createSelector(include: readonly string[], exclude: readonly string[] = []): Selector {
  const compile = (p: string) => new Pattern(p, compileGlob(p));
  const includes = include.map(compile);
  // An exclude ending in `/**` covers the name before it too (`build/**` a file named `build`),
  // so the name an excluded directory has is decided from the name alone, never statted.
  const excludes = exclude.flatMap((p) =>
    p.endsWith("/**") ? [compile(p), compile(p.slice(0, -3))] : [compile(p)]
  );
  // The root itself is never excluded (a `*` would match its empty path), only what is below it.
  const isExcludedDir = (dir: string) =>
    excludes.some((p) => (dir !== "" && p.testOrAncestor(dir)) || p.coversBelow(dir));
  return {
    isServed: (path) => includes.some((p) => p.test(path)) && !excludes.some((p) => p.testOrAncestor(path)),
    mayContain: (dir) => includes.some((p) => p.reachesBelow(dir)) && !isExcludedDir(dir),
    isExcludedDir,
    reachesRootLevel: includes.some((p) => p.matchesOneSegment),
  };
}

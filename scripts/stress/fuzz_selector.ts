/**
 * Campaign `selector`: `createSelector` against a deliberately naive
 * reference matcher (recursive, segment by segment), in process; then random
 * trees served by the real server, whose `search_files` must list exactly
 * the files the reference selects.
 *
 * @module
 */
import fc from "fast-check";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createSelector } from "../../src/selector.ts";
import { compareBytewise } from "../../src/bytes.ts";
import { Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, orRefusal, Tally, tempDir, traverse } from "./util.ts";

/** `*` matches any run of characters within one segment; everything else is literal. */
function segmentMatches(pattern: string, name: string): boolean {
  if (pattern === "") return name === "";
  if (pattern[0] === "*") {
    for (let i = 0; i <= name.length; i++) if (segmentMatches(pattern.slice(1), name.slice(i))) return true;
    return false;
  }
  return name !== "" && name[0] === pattern[0] && segmentMatches(pattern.slice(1), name.slice(1));
}

/** `**` as a whole segment matches zero or more segments, except a trailing one: one or more. */
function segmentsMatch(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length === 0) return path.length === 0;
  const [head, ...rest] = pattern;
  if (head === "**") {
    if (rest.length === 0) return path.length >= 1;
    if (segmentsMatch(rest, path)) return true;
    return path.length > 0 && segmentsMatch(pattern, path.slice(1));
  }
  return path.length > 0 && segmentMatches(head, path[0]) && segmentsMatch(rest, path.slice(1));
}

/** The reference: does a glob match a relative path? */
export function referenceMatch(glob: string, path: string): boolean {
  return segmentsMatch(glob.split("/"), path.split("/"));
}

const NAMES = ["a", "b", "ab", "ba", "a.f", "b.f", "ab.f", "f", "bab.f", "x"];
const GLOB_SEGMENTS = ["*", "**", "a", "b", "a*", "*b", "*.f", "f", "a*b", "*a*", "ab", "*.*", "x"];

const globArbitrary = fc.array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 4 })
  .map((s) => s.join("/"));
const pathArbitrary = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }).map((s) =>
  s.join("/")
);
const caseArbitrary = fc.record({
  include: fc.array(globArbitrary, { minLength: 0, maxLength: 3 }),
  exclude: fc.array(globArbitrary, { minLength: 0, maxLength: 2 }),
  paths: fc.uniqueArray(pathArbitrary, { minLength: 1, maxLength: 24 }),
});

/**
 * Served: some include matches, and no exclude matches the path or one of its ancestors (an exclude
 * ending in `/**`, or in a run of them, also matching the name before it).
 */
function referenceServed(include: readonly string[], exclude: readonly string[], path: string): boolean {
  const globs = exclude.flatMap((g) => {
    let base = g;
    while (base.endsWith("/**")) base = base.slice(0, -3);
    return base === g ? [g] : [g, base];
  });
  const excluded = [...dirsOf(path), path].some((p) => globs.some((g) => referenceMatch(g, p)));
  return include.some((g) => referenceMatch(g, path)) && !excluded;
}

/** Whether some one-segment path can match the glob (a witness per literal segment). */
function referenceReachesRootLevel(include: readonly string[]): boolean {
  return include.some((g) => {
    const witnesses = ["x", ...g.split("/").filter((s) => s !== "**").map((s) => s.replaceAll("*", "x"))];
    return witnesses.some((w) => referenceMatch(g, w));
  });
}

function dirsOf(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

async function run(options: CampaignOptions) {
  const tally = new Tally("selector", options);
  const long = options.scale === "long";

  for (const c of fc.sample(caseArbitrary, { seed: options.seed, numRuns: long ? 5_000 : 500 })) {
    tally.iterations++;
    const selector = createSelector(c.include, c.exclude);
    const label = `include=${JSON.stringify(c.include)} exclude=${JSON.stringify(c.exclude)}`;
    tally.check(
      selector.reachesRootLevel === referenceReachesRootLevel(c.include),
      () => `${label}: reachesRootLevel=${selector.reachesRootLevel}`,
    );
    for (const path of c.paths) {
      const served = referenceServed(c.include, c.exclude, path);
      if (
        !tally.check(selector.isServed(path) === served, () => `${label}: isServed(${path}) != ${served}`)
      ) {
        continue;
      }
      for (const dir of dirsOf(path)) {
        // Pruning must be sound: a directory holding a served path is never pruned,
        // and a directory an exclude covers holds no served path.
        if (served) {
          tally.check(selector.mayContain(dir), () => `${label}: mayContain(${dir}) prunes ${path}`);
        }
        if (selector.isExcludedDir(dir)) {
          tally.check(!served, () => `${label}: isExcludedDir(${dir}) but ${path}`);
        }
        // A directory whose path an exclude matches is pruned, with everything below it.
        if ([...dirsOf(dir), dir].some((d) => c.exclude.some((g) => referenceMatch(g, d)))) {
          tally.check(!selector.mayContain(dir), () => `${label}: mayContain(${dir}) below an exclude`);
        }
      }
    }
  }

  // Real trees: the server serves exactly what the reference selects.
  const trees = fc.sample(caseArbitrary.filter((c) => c.include.length > 0), {
    seed: options.seed + 1,
    numRuns: long ? 60 : 4,
  });
  for (const c of trees) {
    tally.iterations++;
    const base = tempDir("selector");
    try {
      const root = join(base.path, "root");
      mkdirSync(root);
      const files = c.paths.filter((p) => !c.paths.some((q) => q.startsWith(`${p}/`))); // no file/dir clash
      for (const path of files) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), path);
      }
      const args = [
        ...c.include.flatMap((g) => ["--include", g]),
        ...c.exclude.flatMap((g) => ["--exclude", g]),
      ];
      const peer = new Peer(options.target, root, args, [base.path]);
      try {
        const want = files.filter((p) => referenceServed(c.include, c.exclude, p) && /[abfx]/.test(p))
          .sort(compareBytewise);
        // Every name holds one of these letters; search each and merge.
        const got = new Set<string>();
        for (const query of ["a", "b", "f", "x"]) {
          const found = await orRefusal(traverse(peer, "search_files", { query, limit: 7 }));
          if ("error" in found) {
            tally.fail(`search_files ${query}: ${found.error}`);
            continue;
          }
          for (const item of found.items as { path: string }[]) got.add(item.path);
        }
        const gotSorted = [...got].sort(compareBytewise);
        tally.check(
          JSON.stringify(gotSorted) === JSON.stringify(want),
          () =>
            `args ${JSON.stringify(args)} files ${JSON.stringify(files)}: served ${
              JSON.stringify(gotSorted)
            }`,
        );
        tally.check((await peer.close()) === 0, () => "the server did not exit 0 after stdin closed");
      } finally {
        await peer.kill();
        tally.absorb(peer);
      }
    } finally {
      base.remove();
    }
  }
  return tally.result();
}

/** The `selector` campaign. */
export const selectorCampaign: Campaign = { name: "selector", run };

/**
 * Unit tests of the inventory (`Root`'s cached tree, `listing.ts`) in this
 * process, against what a plain recursive walk says: served paths in
 * bytewise order, path searches resumed from any position, directory
 * entries, and the state digest that binds a `search_files` cursor.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { makeRoot } from "./_harness.ts";
import { compareBytewise } from "../src/bytes.ts";
import { openRoot } from "../mod.ts";
import { matchesDigest } from "../src/path_search.ts";

/** Name parts whose orders disagree: `-` and `.` sort before `/`, U+E000 before an astral pair in UTF-16 only. */
const PARTS = ["a", "b", "a-", "a.", "A", "é", "😀", "\uE000", "iris", "-"];
const segment = fc.array(fc.constantFrom(...PARTS), { minLength: 1, maxLength: 2 }).map((p) => p.join(""));
const relPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/"));

/** A set of file paths where no file is also a directory of another. */
const fileSet = fc.uniqueArray(relPath, { maxLength: 14 }).map((paths) =>
  paths.filter((p) => !paths.some((q) => q.startsWith(`${p}/`)))
);

const QUERIES = ["a", "-", ".", "é", "😀", "\uE000", "a/", "/a", "-/", "iris", "zz"];

/** Every page of `find`, followed to the end. */
function findAll(root: ReturnType<typeof openRoot>, query: string, max: number): string[] {
  const all: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = root.find(query, after, max);
    all.push(...page.paths);
    if (!page.more) return all;
    assert.ok(page.paths.length > 0 && all.length < 1_000, "every page moves forward");
    after = page.paths.at(-1);
  }
}

test("inventory: files, searches from any position and directory entries match a plain walk", () => {
  fc.assert(
    fc.property(fileSet, fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }), (paths, positions) => {
      const temp = makeRoot(Object.fromEntries(paths.map((p) => [p, "x"])));
      try {
        const root = openRoot({ root: temp.path, include: ["**"] });
        const sorted = [...paths].sort(compareBytewise);
        assert.deepEqual([...(root.subtree("")?.files("") ?? [])], sorted);
        for (const query of QUERIES) {
          const matches = sorted.filter((p) => p.includes(query));
          for (const max of [1, 2, 1000]) assert.deepEqual(findAll(root, query, max), matches, query);
          for (const position of [...positions, ...sorted.map((p) => p.slice(0, 3))]) {
            const after = matches.filter((p) => compareBytewise(p, position) > 0);
            assert.deepEqual(
              root.find(query, position, 1000).paths,
              after,
              `${query} after ${position}`,
            );
          }
        }
        const dirs = new Set([""]);
        for (const p of sorted) {
          for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) dirs.add(p.slice(0, i));
        }
        for (const dir of dirs) {
          const prefix = dir === "" ? "" : `${dir}/`;
          const children = new Map<string, boolean>();
          for (const p of sorted.filter((p) => p.startsWith(prefix))) {
            const rest = p.slice(prefix.length);
            const slash = rest.indexOf("/");
            children.set(slash < 0 ? rest : rest.slice(0, slash), slash >= 0);
          }
          const want = [...children].sort(([a], [b]) => compareBytewise(a, b));
          const entries = root.entries(dir)!;
          const got = Array.from({ length: entries.length }, (_, i) => [entries.name(i), entries.isDir(i)]);
          assert.deepEqual(got, want, `entries of ${dir}`);
          assert.equal(root.hasServed(dir), want.length > 0);
        }
      } finally {
        temp.cleanup();
      }
    }),
    { numRuns: 40 },
  );
});

test("inventory: the search state changes exactly when a matching served path is added or removed", async () => {
  const temp = makeRoot({ "a/b/one.txt": "1", "a/two.txt": "2", "c/three.txt": "3", "skip/x.secret": "s" });
  try {
    const root = openRoot({ root: temp.path, include: ["**"], exclude: ["**/*.secret"] });
    const pacer = { checkpoint: () => Promise.resolve() };
    const state = () => matchesDigest(root.find(".txt", undefined, 1).tree, ".txt", pacer);
    const first = await state();
    assert.equal(await state(), first, "unchanged tree, same state");
    writeFileSync(join(temp.path, "a/b/one.txt"), "edited bytes");
    assert.equal(await state(), first, "a content edit keeps the path set");
    mkdirSync(join(temp.path, "a/b/empty"));
    assert.equal(await state(), first, "an empty directory serves nothing");
    writeFileSync(join(temp.path, "skip/y.secret"), "s");
    assert.equal(await state(), first, "an excluded file is not served");
    writeFileSync(join(temp.path, "a/b/other.md"), "m");
    assert.equal(await state(), first, "a served file that does not match");
    assert.equal(root.hasServed("a/b/empty"), false);
    writeFileSync(join(temp.path, "a/b/empty/new.txt"), "n");
    const added = await state();
    assert.notEqual(added, first, "a new match deep in the tree");
    assert.equal(root.hasServed("a/b/empty"), true);
    unlinkSync(join(temp.path, "a/b/empty/new.txt"));
    assert.equal(await state(), first, "removed again: the same set as at first");
    rmSync(join(temp.path, "c"), { recursive: true });
    assert.notEqual(await state(), first, "a removed directory removes its files");
    assert.deepEqual([...(root.subtree("")?.files("") ?? [])], ["a/b/one.txt", "a/b/other.md", "a/two.txt"]);
  } finally {
    temp.cleanup();
  }
});

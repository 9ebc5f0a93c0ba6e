import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUNTIME, traverse, withServer } from "./_harness.ts";
import { withInProcess } from "./_inprocess.ts";
import { contentHash } from "./_sha256.ts";
import { Rng } from "./_rng.ts";
import { Listing, ServedEntries, sortPaced } from "../src/listing.ts";
import { PACED_READ_BYTES } from "../src/root.ts";

/** Bytewise (UTF-8) order, which is not JavaScript's UTF-16 `<` for astral characters. */
function bytewise(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Names whose bytewise order differs from case-insensitive, locale and
 * UTF-16 order: `B` before `a`; `a-b` (0x2d) and `a.txt` (0x2e) before
 * `a/…` (0x2f) in full paths but after `a` by name; `😀` (F0…) after `～`
 * (EF…) although its UTF-16 surrogate (D83D) sorts before U+FF5E.
 */
const FILES: Record<string, string> = {
  "B": "needle B\n",
  "a-b": "needle a-b\n",
  "a.txt": "needle a.txt\n",
  "a/x": "needle a/x\n",
  "a/é": "needle a/é\n",
  "a/b/c": "needle a/b/c\n",
  "a0": "needle a0\n",
  "ab": "needle ab\n",
  "é": "needle é\n",
  "e": "needle e\n",
  "z": "needle z\n",
  "～": "needle ～\n",
  "😀": "needle 😀\n",
  "\u{10FFFF}x": "needle max\n",
  "Z": "needle Z\n",
  "_": "needle _\n",
  "~": "needle ~\n",
  "0": "needle 0\n",
  " sp": "needle sp\n",
};

const ROOT_NAMES = [
  " sp",
  "0",
  "B",
  "Z",
  "_",
  "a",
  "a-b",
  "a.txt",
  "a0",
  "ab",
  "e",
  "z",
  "~",
  "é",
  "～",
  "😀",
  "\u{10FFFF}x",
];
const ALL_PATHS = [
  " sp",
  "0",
  "B",
  "Z",
  "_",
  "a-b",
  "a.txt",
  "a/b/c",
  "a/x",
  "a/é",
  "a0",
  "ab",
  "e",
  "z",
  "~",
  "é",
  "～",
  "😀",
  "\u{10FFFF}x",
];

test("the expected orders are bytewise and differ from JavaScript's default sort", () => {
  assert.deepEqual([...ROOT_NAMES].sort(bytewise), ROOT_NAMES);
  assert.deepEqual([...ALL_PATHS].sort(bytewise), ALL_PATHS);
  assert.deepEqual(Object.keys(FILES).sort(bytewise), ALL_PATHS);
  assert.notDeepEqual([...ALL_PATHS].sort(), ALL_PATHS);
});

test(`${RUNTIME}: list_directory, search_files and search_text order bytewise`, async () => {
  await withServer(FILES, ["--include", "**"], async (server) => {
    const root = await traverse(server, "list_directory", {});
    assert.deepEqual(root.items.map((i) => i.name), ROOT_NAMES);
    assert.deepEqual(root.items.find((i) => i.name === "a"), { name: "a", kind: "directory", path: "a" });
    assert.ok(root.items.filter((i) => i.name !== "a").every((i) => i.kind === "file" && i.path === i.name));
    const a = await traverse(server, "list_directory", { path: "a" });
    assert.deepEqual(a.items, [
      { name: "b", kind: "directory", path: "a/b" },
      { name: "x", kind: "file", path: "a/x" },
      { name: "é", kind: "file", path: "a/é" },
    ]);
    for (const query of ["a", "e", "x", "/", "é"]) {
      const found = await traverse(server, "search_files", { query });
      assert.deepEqual(found.items.map((i) => i.path), ALL_PATHS.filter((p) => p.includes(query)), query);
    }
    const everything = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(everything.items.map((i) => i.path), ALL_PATHS);
    assert.ok(everything.items.every((i) => i.line === 1));
    // An empty path names the root, as an omitted one does.
    assert.deepEqual((await traverse(server, "list_directory", { path: "" })).items, root.items);
    assert.deepEqual(
      (await traverse(server, "search_text", { query: "needle", path: "" })).items,
      everything.items,
    );
  });
});

test(`${RUNTIME}: paging with a small limit covers every item exactly once`, async () => {
  const files: Record<string, string> = { ...FILES };
  for (let i = 0; i < 40; i++) {
    files[`many/f${String(i * 7919 % 1000).padStart(3, "0")}-${i}.txt`] = `needle ${i}\n`;
  }
  files["many/sub/deep.txt"] = "needle deep\n";
  await withServer(files, ["--include", "**", "--max-result-bytes", "2000"], async (server) => {
    const cases: [string, Record<string, unknown>][] = [
      ["list_directory", {}],
      ["list_directory", { path: "many" }],
      ["search_files", { query: "a" }],
      ["search_files", { query: "/" }],
      ["search_text", { query: "needle" }],
      ["search_text", { query: "needle", path: "many" }],
    ];
    for (const [tool, args] of cases) {
      const first = server.lines.length;
      const whole = await traverse(server, tool, args);
      assert.ok(whole.items.length > 3, `${tool} ${JSON.stringify(args)}`);
      // Without a limit, the ceiling cuts the pages, and each holds as many items as fit.
      const lines = server.lines.slice(first);
      assert.equal(lines.length, whole.pages.length);
      assert.ok(whole.pages.length > 1, `${tool} ${JSON.stringify(args)} spans pages at 2,000 bytes`);
      const widest = Math.max(...whole.items.map((i) => Buffer.byteLength(JSON.stringify(i))));
      for (const line of lines.slice(0, -1)) {
        const size = Buffer.byteLength(line);
        assert.ok(size > 2_000 - 2 * widest - 64, `${tool} ${JSON.stringify(args)}: a ${size}-byte page`);
      }
      for (const limit of [1, 2, 3, 7]) {
        const paged = await traverse(server, tool, { ...args, limit });
        assert.deepEqual(paged.items, whole.items, `${tool} ${JSON.stringify(args)} limit ${limit}`);
        assert.ok(paged.pages.every((p) => p.items.length <= limit));
        assert.equal(
          paged.pages.length,
          Math.ceil(whole.items.length / limit),
          "every page is full but the last",
        );
      }
      const keys = whole.items.map((i) => JSON.stringify(i));
      assert.equal(new Set(keys).size, keys.length, "no item twice");
    }
    for (const line of server.lines) assert.ok(Buffer.byteLength(line) <= 2_000);
    const many = await traverse(server, "list_directory", { path: "many" });
    const names = many.items.map((i) => i.name);
    assert.deepEqual(names, [...names].sort(bytewise));
    assert.equal(names.length, 41);
  });
});

test("maxPageItems caps list_directory, search_files and search_text pages (in-process)", async () => {
  await withInProcess(FILES, { limits: { maxPageItems: 2 } }, async (server) => {
    for (
      const [tool, args, want] of [
        ["list_directory", {}, ROOT_NAMES.length],
        ["search_files", { query: "a" }, ALL_PATHS.filter((p) => p.includes("a")).length],
        ["search_text", { query: "needle" }, ALL_PATHS.length],
      ] as const
    ) {
      const { items, pages } = await traverse(server, tool, { ...args, limit: 100 });
      assert.equal(items.length, want, tool);
      assert.ok(pages.every((p) => p.items.length <= 2), tool);
      assert.equal(pages.length, Math.ceil(want / 2), tool);
    }
  });
});

test("list_directory's content_hash frames each page's own items, however paged (in-process)", async () => {
  // The server keeps a page's hash with the directory's entries: a page of other bounds, of another
  // directory, or of the same directory once changed must never get a kept one.
  const framed = (items: { kind: string; path: string }[]) =>
    contentHash(items.map((i) => `${i.kind}\t${i.path}\n`).join(""));
  await withInProcess(FILES, {}, async (server, root) => {
    const check = async (path: string, limit: number) => {
      const { pages } = await traverse(server, "list_directory", { path, limit });
      for (const page of pages) assert.equal(page.content_hash, framed(page.items), `${path} by ${limit}`);
      return pages.length;
    };
    for (const limit of [2, 3, 2, 100, 1, 3]) assert.ok(await check("", limit) > 1 || limit === 100);
    await check("a", 1);
    await check("a", 2);
    writeFileSync(join(root.path, "a", "new"), "needle new\n");
    writeFileSync(join(root.path, "0new"), "needle 0new\n");
    await check("a", 2); // its first page has the bounds it had: the new file is in it
    for (const limit of [2, 3, 100]) await check("", limit);
  });
});

/** `n` random names from characters whose UTF-16 and UTF-8 orders differ, and a few directory keys. */
function randomKeys(n: number, seed: number): string[] {
  const rng = new Rng(seed);
  const chars = ["a", "b", "-", ".", " ", "~", "é", "～", "\uE000", "\uFFFF", "😀", "\u{10FFFF}"];
  const keys = new Set<string>();
  while (keys.size < n) {
    let name = "";
    const length = 1 + rng.int(4);
    while (name.length < length) name += chars[rng.int(chars.length)];
    keys.add(rng.int(10) === 0 ? `${name}/` : name);
  }
  return [...keys];
}

test("sortPaced orders keys as a listing does, pausing between its runs and merges", async () => {
  for (const [n, seed] of [[10_000, 1], [9_000, 2], [1, 3], [0, 4]]) {
    const keys = randomKeys(n, seed);
    let pauses = 0;
    const sorted = await sortPaced(keys.slice(), () => Promise.resolve(pauses++));
    assert.deepEqual(sorted, [...keys].sort(bytewise), `${n} keys`);
    assert.ok(n < 5_000 || pauses >= 4, `${n} keys: ${pauses} pauses`);
    assert.ok(
      (await Listing.paced(keys.slice(), () => Promise.resolve())).text.equals(
        new Listing(keys.slice()).text,
      ),
    );
  }
});

test("a listing's cursor state is the same computed ahead with pauses as at once", async () => {
  const listing = new Listing(randomKeys(10_000, 5));
  const order = Uint32Array.from(listing.starts.subarray(0, listing.length).keys());
  const ahead = new ServedEntries(listing, order);
  let pauses = 0;
  await ahead.settle(() => Promise.resolve(pauses++));
  assert.ok(pauses >= 2, `${pauses} pauses`);
  assert.equal(ahead.state, new ServedEntries(listing, order).state);
  assert.notEqual(ahead.state, new ServedEntries(listing, order.subarray(1)).state);
});

test(`${RUNTIME}: a big directory, read with pauses, lists and searches in order, page by page`, async () => {
  // Enough names that the directory is at least PACED_READ_BYTES on any common filesystem (ext4, tmpfs,
  // btrfs, xfs), names whose orders differ around '/', and a subdirectory that serves a file.
  const files: Record<string, string> = { "big/a/x.md": "needle\n", "big/a.md": "", "big/a-b.md": "" };
  for (let i = 0; i < 5_000; i++) files[`big/${(i * 7_919 % 5_000).toString(36)}~${i}.md`] = "";
  await withServer(files, ["--include", "**"], async (server, root) => {
    const size = statSync(join(root.path, "big")).size;
    assert.ok(size >= PACED_READ_BYTES, `the directory is ${size} bytes: too small to be read with pauses`);
    const names = Object.keys(files).map((p) => p.split("/")[1]);
    const listed = await traverse(server, "list_directory", { path: "big" });
    assert.deepEqual(listed.items.map((i) => i.name), [...new Set(names)].sort(bytewise));
    assert.ok(listed.pages.length > 1);
    assert.equal(listed.items.find((i) => i.name === "a")?.kind, "directory");
    const found = await traverse(server, "search_files", { query: "a" }, { limits: [700, 1_000] });
    const paths = Object.keys(files).filter((p) => p.includes("a")).sort(bytewise);
    assert.deepEqual(found.items.map((i) => i.path), paths);
  });
});

/**
 * Runs a server session under `strace` and checks, from the kernel's side,
 * that excluded paths are skipped before any stat or open: the trace of
 * file and descriptor syscalls never names a path inside an excluded
 * directory or an excluded file. Skipped where `strace` is missing or may
 * not trace.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME, startServerUnder, structured, toolErrorText, traverse } from "./_harness.ts";

const EXCLUDED_DIR = "excluded-dir-7f3a";
const EXCLUDED_FILE = "secret-file-9c2b.txt";

/** Why this suite cannot run here, or `false` when `strace` can trace a child. */
const SKIP: string | false = (() => {
  const probe = spawnSync("strace", ["-o", "/dev/null", "--", "true"], { encoding: "utf8" });
  if (probe.error) return "strace is not installed";
  if (probe.status !== 0) return `strace cannot trace here: ${probe.stderr.trim().split("\n")[0]}`;
  return false;
})();

const FILES = {
  "top.txt": "MARK top\n",
  "served/a.txt": "MARK a\n",
  "served/deep/b.md": "MARK b\n",
  [`${EXCLUDED_FILE}`]: "MARK secret\n",
  [`served/${EXCLUDED_FILE}`]: "MARK secret\n",
  [`${EXCLUDED_DIR}/inner.txt`]: "MARK hidden\n",
  [`${EXCLUDED_DIR}/sub/deep.txt`]: "MARK hidden\n",
  [`served/${EXCLUDED_DIR}/x.txt`]: "MARK hidden\n",
};

const ARGS = ["--include", "**", "--exclude", `**/${EXCLUDED_DIR}/**`, "--exclude", `**/${EXCLUDED_FILE}`];

test(`${RUNTIME}: under strace, no syscall names an excluded directory or file`, { skip: SKIP }, async () => {
  const root = makeRoot(FILES);
  const traceDir = makeRoot();
  const traceFile = join(traceDir.path, "trace.txt");
  // `-s 0` keeps read/write buffers (requests naming excluded paths) out of
  // the trace; path arguments are always printed in full.
  const strace = ["strace", "-f", "-qq", "-s", "0", "-e", "trace=file,desc", "-o", traceFile, "--"];
  const server = startServerUnder(strace, root.path, ARGS);
  try {
    // What is served: listings, searches and reads walk and open it.
    const listing = await traverse(server, "list_directory", {});
    assert.deepEqual(listing.items.map((i: { name: string }) => i.name), ["served", "top.txt"]);
    const sub = await traverse(server, "list_directory", { path: "served" });
    assert.deepEqual(sub.items.map((i: { name: string }) => i.name), ["a.txt", "deep"]);
    const found = await traverse(server, "search_files", { query: "." });
    assert.deepEqual(found.items.map((i: { path: string }) => i.path), [
      "served/a.txt",
      "served/deep/b.md",
      "top.txt",
    ]);
    const text = await traverse(server, "search_text", { query: "MARK" });
    assert.deepEqual(text.items.map((i: { path: string }) => i.path), [
      "served/a.txt",
      "served/deep/b.md",
      "top.txt",
    ]);
    await traverse(server, "search_text", { query: "MARK", path: "served" });
    for (const path of ["top.txt", "served/a.txt", "served/deep/b.md"]) {
      assert.equal(structured(await server.call("read_text_file", { path })).items.length, 1);
    }
    assert.equal(
      structured(await server.call("write_text_file", { path: "new.txt", content: "x" })).bytes,
      1,
    );

    // What is excluded, named directly: refused without touching it.
    const refused: [string, Record<string, unknown>][] = [
      ["read_text_file", { path: EXCLUDED_FILE }],
      ["read_text_file", { path: `served/${EXCLUDED_FILE}` }],
      ["read_text_file", { path: `${EXCLUDED_DIR}/inner.txt` }],
      ["read_text_file", { path: `${EXCLUDED_DIR}/sub/deep.txt` }],
      ["read_text_file", { path: `served/${EXCLUDED_DIR}/x.txt` }],
      ["list_directory", { path: EXCLUDED_DIR }],
      ["list_directory", { path: `${EXCLUDED_DIR}/sub` }],
      ["list_directory", { path: `served/${EXCLUDED_DIR}` }],
      ["list_directory", { path: `${EXCLUDED_DIR}/sub/more` }],
      ["search_text", { query: "MARK", path: `${EXCLUDED_DIR}/sub/more` }],
      ["search_text", { query: "MARK", path: EXCLUDED_DIR }],
      ["search_text", { query: "MARK", path: `${EXCLUDED_DIR}/sub` }],
      ["search_text", { query: "MARK", path: `${EXCLUDED_DIR}/inner.txt` }],
      ["search_text", { query: "MARK", path: `served/${EXCLUDED_DIR}` }],
      ["write_text_file", { path: EXCLUDED_FILE, content: "x" }],
    ];
    for (const [tool, args] of refused) toolErrorText(await server.call(tool, args));
    for (const query of ["secret", "excluded", "hidden"]) {
      assert.deepEqual(structured(await server.call("search_files", { query })).items, [], query);
    }
    assert.equal(await server.close(), 0);

    const trace = readFileSync(traceFile, "utf8");
    const real = realpathSync(root.path);
    // The trace does record the server's file syscalls on served paths...
    assert.ok(trace.includes(join(real, "served", "deep", "b.md")), "served paths are in the trace");
    assert.ok(trace.includes(join(real, "new.txt")), "the write is in the trace");
    // ...and never a path inside an excluded directory, nor an excluded file, at any depth.
    const lines = trace.split("\n");
    const leaks = lines.filter((line) => line.includes(`${EXCLUDED_DIR}/`) || line.includes(EXCLUDED_FILE));
    assert.deepEqual(leaks, []);
    // The excluded directory's own name is only ever lstat-ed: `search_text` given it as a
    // scope checks whether it is a file, which the glob rule would serve (a trailing `**`
    // matches one or more segments). It is never opened or listed.
    for (const line of lines.filter((l) => l.includes(EXCLUDED_DIR))) {
      assert.match(line, /^\d+ +(statx|newfstatat|lstat|fstatat64)\(.*(AT_SYMLINK_NOFOLLOW|lstat)/, line);
    }
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    root.cleanup();
    traceDir.cleanup();
  }
});

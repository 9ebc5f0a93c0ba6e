/**
 * Runs a server session under `strace` and checks, from the kernel's side,
 * that excluded paths are decided from their names alone: over every tool
 * and every argument shape (an excluded file, directory or link named
 * directly, a path below one, a path through one, a search scope), the trace
 * of file and descriptor syscalls never names an excluded path, and every
 * such call gets exactly the answer a missing path gets. Skipped where
 * `strace` is missing or may not trace.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, realpathSync, renameSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME, startServerUnder, structured, toolErrorText, traverse } from "./_harness.ts";

/** Why this suite cannot run here, or `false` when `strace` can trace a child. */
const SKIP: string | false = (() => {
  const probe = spawnSync("strace", ["-o", "/dev/null", "--", "true"], { encoding: "utf8" });
  if (probe.error) return "strace is not installed";
  if (probe.status !== 0) return `strace cannot trace here: ${probe.stderr.trim().split("\n")[0]}`;
  return false;
})();

// Every excluded name is unique, so a trace line that contains one names an excluded path.
const DIR = "xdir-7f3a"; // --exclude '**/xdir-7f3a': the directory and everything below it
const FILE = "xfile-9c2b.txt"; // --exclude '**/xfile-9c2b.txt'
const KEY = ".k3y"; // --exclude '*.k3y': root-level names only, of any kind
const BELOW = "xbelow-5d1e"; // --exclude '**/xbelow-5d1e/**': only what lies below it

const FILES = {
  "top.txt": "MARK top\n",
  "served/a.txt": "MARK a\n",
  "served/deep/b.md": "MARK b\n",
  [FILE]: "MARK secret\n",
  [`served/${FILE}`]: "MARK secret\n",
  [`${DIR}/inner.txt`]: "MARK hidden\n",
  [`${DIR}/sub/deep.txt`]: "MARK hidden\n",
  [`served/${DIR}/x.txt`]: "MARK hidden\n",
  [`file${KEY}`]: "MARK hidden\n",
  [`dir${KEY}/x`]: "MARK hidden\n",
  [`${BELOW}/y.txt`]: "MARK hidden\n",
  [`${BELOW}/sub/z.txt`]: "MARK hidden\n",
};

const ARGS = [
  "--include",
  "**",
  "--exclude",
  `**/${DIR}`,
  "--exclude",
  `**/${FILE}`,
  "--exclude",
  `*${KEY}`,
  "--exclude",
  `**/${BELOW}/**`,
];

/** Paths that are excluded, or lie below or pass through an excluded path. */
const EXCLUDED = [
  FILE,
  `served/${FILE}`,
  `${FILE}/x`,
  DIR,
  `${DIR}/inner.txt`,
  `${DIR}/sub`,
  `${DIR}/sub/deep.txt`,
  `${DIR}/sub/more/x`,
  `${DIR}/nosuch`,
  `served/${DIR}`,
  `served/${DIR}/x.txt`,
  `file${KEY}`,
  `file${KEY}/y`,
  `dir${KEY}`,
  `dir${KEY}/x`,
  `link${KEY}`,
  `link${KEY}/x`,
  `none${KEY}`,
  `none${KEY}/x`,
  `${BELOW}/y.txt`,
  `${BELOW}/sub`,
  `${BELOW}/sub/z.txt`,
  `${BELOW}/nosuch/x`,
];

/** Every tool call shape that takes a path, for one path. */
function shapes(path: string): [string, Record<string, unknown>][] {
  return [
    ["read_text_file", { path }],
    ["list_directory", { path }],
    ["search_text", { query: "MARK", path }],
    ["read_text_file", { path, limit: 1 }],
  ];
}

/** Whether a trace line names an excluded path. */
function namesExcluded(line: string): boolean {
  // `xbelow-5d1e` itself is not excluded (a trailing `**` matches one or more segments): only below it.
  return line.includes(DIR) || line.includes(FILE) || line.includes(KEY) || line.includes(`${BELOW}/`);
}

test(`${RUNTIME}: under strace, no syscall names an excluded path, whatever the tool and argument shape`, {
  skip: SKIP,
}, async () => {
  const root = makeRoot(FILES);
  const traceDir = makeRoot();
  const traceFile = join(traceDir.path, "trace.txt");
  symlinkSync(join(root.path, "served"), join(root.path, `link${KEY}`));
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
    const served = ["served/a.txt", "served/deep/b.md", "top.txt"];
    const found = await traverse(server, "search_files", { query: "." });
    assert.deepEqual(found.items.map((i: { path: string }) => i.path), served);
    const text = await traverse(server, "search_text", { query: "MARK" });
    assert.deepEqual(text.items.map((i: { path: string }) => i.path), served);
    await traverse(server, "search_text", { query: "MARK", path: "served" });
    for (const path of served) {
      assert.equal(structured(await server.call("read_text_file", { path })).items.length, 1);
    }
    assert.equal(
      structured(await server.call("write_text_file", { path: "new.txt", content: "x" })).bytes,
      1,
    );

    // Every excluded shape: exactly the answer of a missing path, whatever the excluded object is.
    for (const path of EXCLUDED) {
      for (const [tool, args] of shapes(path)) {
        const text = toolErrorText(await server.call(tool, args));
        assert.equal(text, `not found: ${path}`, `${tool} ${JSON.stringify(args)}`);
      }
    }
    for (const path of [FILE, `file${KEY}`, `link${KEY}`, `none${KEY}`]) {
      const text = toolErrorText(await server.call("write_text_file", { path, content: "x" }));
      assert.match(text, /is not selected by this root's --include\/--exclude/, path);
    }
    for (const query of ["xfile", "xdir", "k3y", "xbelow", "hidden"]) {
      assert.deepEqual(structured(await server.call("search_files", { query })).items, [], query);
    }
    assert.deepEqual((await traverse(server, "search_text", { query: "hidden" })).items, []);
    assert.equal(await server.close(), 0);

    const trace = readFileSync(traceFile, "utf8");
    const real = realpathSync(root.path);
    // The trace does record the server's file syscalls on served paths...
    assert.ok(trace.includes(join(real, "served", "deep", "b.md")), "served paths are in the trace");
    assert.ok(trace.includes(join(real, "new.txt")), "the write is in the trace");
    // ...and never an excluded path, at any depth.
    assert.deepEqual(trace.split("\n").filter(namesExcluded), []);
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    root.cleanup();
    traceDir.cleanup();
  }
});

test(
  `${RUNTIME}: under strace, a write names its temporary file only to create it exclusively and rename it`,
  {
    skip: SKIP,
  },
  async () => {
    const root = makeRoot({ "a.txt": "old\n" });
    const traceDir = makeRoot();
    const traceFile = join(traceDir.path, "trace.txt");
    chmodSync(join(root.path, "a.txt"), 0o640); // an existing target's mode is carried over to the new file
    const strace = ["strace", "-f", "-qq", "-s", "0", "-e", "trace=file,desc", "-o", traceFile, "--"];
    const server = startServerUnder(strace, root.path, ["--include", "**"]);
    try {
      for (const path of ["a.txt", "b.txt", "a.txt"]) {
        assert.equal(structured(await server.call("write_text_file", { path, content: "new\n" })).bytes, 4);
      }
      assert.equal(await server.close(), 0);
      assert.equal(statSync(join(root.path, "a.txt")).mode & 0o777, 0o640);

      // After the exclusive create, the temporary file is reached through its descriptor only (its
      // mode set by fchmod): a path-based call could follow a link swapped in for the name. (The create
      // may name it in the root's descriptor, `/proc/<pid>/fd/<fd>/<name>`, the rename by its path.)
      const lines = readFileSync(traceFile, "utf8").split("\n");
      let creates = 0;
      for (const [i, line] of lines.entries()) {
        const temp = /"[^"]*\/(\.ptc-fs-mcp-[0-9a-f]+\.tmp)", [^)]*O_CREAT\|O_EXCL/.exec(line)?.[1];
        if (temp === undefined) continue;
        creates++;
        const later = lines.slice(i + 1).filter((l) => l.includes(`/${temp}"`));
        assert.ok(later.length > 0, "the temporary file is renamed");
        for (const l of later) assert.match(l, /^\d+ +rename(at2?)?\(/, l);
      }
      assert.equal(creates, 3, "every write created its temporary file exclusively");
    } finally {
      await server.close().catch(() => server.child.kill("SIGKILL"));
      root.cleanup();
      traceDir.cleanup();
    }
  },
);

test(
  `${RUNTIME}: under strace, a cached directory replaced by a link between calls is never walked through`,
  { skip: SKIP },
  async () => {
    // `list_directory` caches `a` (and reads `a/s1` to see it serves); `a` then becomes a link to a tree
    // outside. The next walks must see the link at `a` and look no further: nothing below it is named.
    const root = makeRoot({ "a/f.txt": "x\n", "a/s1/deep/h.txt": "h\n" });
    const outside = makeRoot({ "s1/OUTSIDE-4e1b/more/k.txt": "k\n" });
    const traceDir = makeRoot();
    const traceFile = join(traceDir.path, "trace.txt");
    const strace = ["strace", "-f", "-qq", "-s", "0", "-e", "trace=file,desc", "-o", traceFile, "--"];
    const server = startServerUnder(strace, root.path, ["--include", "**"]);
    try {
      const listing = await traverse(server, "list_directory", {});
      assert.deepEqual(listing.items.map((i: { name: string }) => i.name), ["a"]);
      renameSync(join(root.path, "a"), join(traceDir.path, "old-a"));
      symlinkSync(outside.path, join(root.path, "a"));
      for (
        const [tool, args] of [["search_files", { query: "k" }], ["search_text", { query: "k" }]] as const
      ) {
        assert.deepEqual(structured(await server.call(tool, args)).items, [], tool);
      }
      assert.match(toolErrorText(await server.call("list_directory", { path: "a" })), /symbolic link/);
      assert.equal(await server.close(), 0);
      const below = readFileSync(traceFile, "utf8").split("\n")
        .filter((l) => l.includes(`${realpathSync(root.path)}/a/`) || l.includes("OUTSIDE-4e1b"));
      assert.deepEqual(below, []);
    } finally {
      await server.close().catch(() => server.child.kill("SIGKILL"));
      root.cleanup();
      outside.cleanup();
      traceDir.cleanup();
    }
  },
);

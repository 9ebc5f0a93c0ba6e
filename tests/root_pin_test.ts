/**
 * The root is pinned by identity: once the root path names anything but the
 * directory the server started on (renamed away and replaced by a link to
 * an outside directory, or by a new directory, or removed), every tool call
 * is refused with the exact text, and nothing outside is read, listed or
 * written.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME, Server, startServer, structured, toolErrorText, traverse } from "./_harness.ts";
import { ROOT_MOVED_MESSAGE } from "../mod.ts";

const SECRET = "OUTSIDE-SECRET-41d7";

/** Every tool, with arguments that succeed on the original root. */
const CALLS: [string, Record<string, unknown>][] = [
  ["list_directory", {}],
  ["list_directory", { path: "dir" }],
  ["search_files", { query: "txt" }],
  ["search_text", { query: "MARK" }],
  ["search_text", { query: "MARK", path: "dir" }],
  ["search_text", { query: "MARK", path: "secret.txt" }],
  ["read_text_file", { path: "secret.txt" }],
  ["read_text_file", { path: "dir/inner.txt" }],
  ["write_text_file", { path: "victim.txt", content: "overwritten\n" }],
];

/** What sits at the root path after the replacement, made from the outside directory. */
const REPLACEMENTS: Record<string, (rootPath: string, outside: string) => void> = {
  "a symlink to an outside directory": (rootPath, outside) => symlinkSync(outside, rootPath),
  "a new directory": (rootPath, outside) => {
    mkdirSync(join(rootPath, "dir"), { recursive: true });
    for (const name of ["secret.txt", "victim.txt", "dir/inner.txt"]) {
      writeFileSync(join(rootPath, name), readFileSync(join(outside, name)));
    }
  },
  "nothing": () => {},
};

test(`${RUNTIME}: a root removed and re-created at its path (the same inode number, on ext4) refuses every tool`, async () => {
  const base = makeRoot({ "r/secret.txt": "MARK inside\n", "r/victim.txt": "MARK inside victim\n" });
  const rootPath = join(base.path, "r");
  const server = startServer(rootPath, ["--include", "**"]);
  try {
    structured(await server.call("read_text_file", { path: "secret.txt" }));
    rmSync(rootPath, { recursive: true });
    mkdirSync(join(rootPath, "dir"), { recursive: true });
    writeFileSync(join(rootPath, "secret.txt"), `MARK ${SECRET}\n`);
    writeFileSync(join(rootPath, "victim.txt"), `MARK ${SECRET} victim\n`);
    writeFileSync(join(rootPath, "dir", "inner.txt"), `MARK ${SECRET} inner\n`);
    const before = snapshot(rootPath);
    for (const [tool, args] of CALLS) {
      assert.equal(
        toolErrorText(await server.call(tool, args)),
        ROOT_MOVED_MESSAGE,
        `${tool} ${JSON.stringify(args)}`,
      );
    }
    assert.equal(snapshot(rootPath), before, "nothing at the root path changed");
    for (const line of server.lines) assert.equal(line.includes(SECRET), false, line);
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    base.cleanup();
  }
});

/** A listing of a directory tree with every file's bytes, to compare before and after. */
function snapshot(dir: string): string {
  const out: string[] = [];
  for (const name of ["secret.txt", "victim.txt", "dir/inner.txt"]) {
    const path = join(dir, name);
    const s = lstatSync(path, { bigint: true });
    out.push(`${name} ${s.ino} ${s.size} ${s.mtimeNs} ${readFileSync(path, "utf8")}`);
  }
  return out.join("\n");
}

for (const [kind, replace] of Object.entries(REPLACEMENTS)) {
  test(`${RUNTIME}: a root renamed away and replaced by ${kind} refuses every tool`, async () => {
    const base = makeRoot({
      "r/secret.txt": "MARK inside\n",
      "r/victim.txt": "MARK inside victim\n",
      "r/dir/inner.txt": "MARK inside inner\n",
      "o/secret.txt": `MARK ${SECRET}\n`,
      "o/victim.txt": `MARK ${SECRET} victim\n`,
      "o/dir/inner.txt": `MARK ${SECRET} inner\n`,
    });
    const rootPath = join(base.path, "r");
    const outside = join(base.path, "o");
    const server = startServer(rootPath, ["--include", "**"]);
    try {
      // The calls work before, and fill the walker's cache.
      for (const [tool, args] of CALLS) {
        if (tool !== "write_text_file") structured(await server.call(tool, args));
      }
      const before = snapshot(outside);
      const lines = server.lines.length;
      renameSync(rootPath, join(base.path, "r.old"));
      replace(rootPath, outside);
      const replaced = kind === "nothing" ? "" : snapshot(rootPath);
      for (const [tool, args] of CALLS) {
        assert.equal(
          toolErrorText(await server.call(tool, args)),
          ROOT_MOVED_MESSAGE,
          `${tool} ${JSON.stringify(args)}`,
        );
      }
      assert.equal(snapshot(outside), before, "nothing outside changed");
      if (kind !== "nothing") assert.equal(snapshot(rootPath), replaced, "nothing at the root path changed");
      for (const line of server.lines.slice(lines)) assert.equal(line.includes(SECRET), false, line);

      // The very directory moved back is the pinned root again.
      if (kind === "nothing") {
        renameSync(join(base.path, "r.old"), rootPath);
        const page = structured(await server.call("read_text_file", { path: "secret.txt" }));
        assert.equal(page.items[0].text, "MARK inside\n");
      }
    } finally {
      await server.close().catch(() => server.child.kill("SIGKILL"));
      base.cleanup();
    }
  });
}

test(`${RUNTIME}: a root reached through a symlinked ancestor is pinned by its real path, and a denial never ends the process`, async () => {
  const base = makeRoot({ "real/root/a.txt": "MARK real\n", "other/root/a.txt": "MARK OTHER-5e2\n" });
  const viaLink = join(base.path, "link", "root");
  const real = join(base.path, "real", "root");
  symlinkSync(join(base.path, "real"), join(base.path, "link"));
  let server = new Server(viaLink, ["--root", viaLink, "--include", "**"]);
  try {
    if (RUNTIME === "deno") {
      // Deno checks a permission against the path as written, without resolving links: a grant on
      // the path through the link does not cover the real path the server pins. One line, exit 64.
      assert.equal((await server.exited()).code, 64);
      assert.match(server.stderr, /^ptc-fs-mcp: --root ".*" is not permitted; grant .* on its real path/);
      assert.equal(server.stderr.trim().split("\n").length, 1, server.stderr);
      server = new Server(real, ["--root", real, "--include", "**"]);
    }
    assert.equal(
      structured(await server.call("read_text_file", { path: "a.txt" })).items[0].text,
      "MARK real\n",
    );
    // Re-pointing the ancestor moves nothing the server uses: it serves the real path it pinned.
    symlinkSync(join(base.path, "other"), join(base.path, "link2"));
    renameSync(join(base.path, "link2"), join(base.path, "link"));
    assert.equal(
      structured(await server.call("read_text_file", { path: "a.txt" })).items[0].text,
      "MARK real\n",
    );
    assert.equal((await traverse(server, "search_text", { query: "MARK" })).items.length, 1);
    for (const line of server.lines) assert.equal(line.includes("OTHER-5e2"), false, line);
    assert.equal(await server.close(), 0);
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    base.cleanup();
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import {
  makeRoot,
  RUNTIME,
  type Server,
  startServer,
  structured,
  type TempRoot,
  toolErrorText,
  traverse,
  withServer,
} from "./_harness.ts";
import { contentHash } from "./_sha256.ts";
import { NO_ROOT_LEVEL_INCLUDE, SYSTEM_PATH_BYTES } from "../mod.ts";
import { TEMP_NAME_BYTES } from "../src/temp_names.ts";
import { PACED_READ_BYTES } from "../src/root.ts";

const TEMP = /^\.ptc-fs-mcp-.*\.tmp$/;
const RETRY = [
  "shared.txt was replaced while it was being opened; try again",
  "the file changed while it was read; read it again",
];

/** Every name in the tree below `dir`, relative, sorted. */
function tree(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    out.push(rel);
    if (entry.isDirectory()) out.push(...tree(join(dir, entry.name), rel + "/"));
  }
  return out.sort();
}

function noTempFiles(root: TempRoot): void {
  const temps = tree(root.path).filter((rel) => TEMP.test(rel.slice(rel.lastIndexOf("/") + 1)));
  assert.deepEqual(temps, [], "no temporary file is left behind");
}

async function write(server: Server, path: string, content: string) {
  return structured(await server.call("write_text_file", { path, content }));
}

/** Reads a file in one page (fails when it takes more). */
async function readOnePage(server: Server, path: string) {
  const page = structured(await server.call("read_text_file", { path }));
  assert.equal(page.next_cursor, null, "one page");
  return {
    text: page.items.map((i: { text: string }) => i.text).join(""),
    hash: page.content_hash as string,
  };
}

test(`${RUNTIME}: a write is visible to the very next call of every tool`, async () => {
  await withServer({ "old.txt": "old\n" }, ["--include", "**"], async (server, root) => {
    for (const content of ["first version\n", "second, longer version with a needle\n", "3\n"]) {
      const result = await write(server, "note.txt", content);
      assert.deepEqual(result, {
        path: "note.txt",
        bytes: Buffer.byteLength(content),
        content_hash: contentHash(content),
      });
      assert.equal(readFileSync(join(root.path, "note.txt"), "utf8"), content);
      assert.equal((await readOnePage(server, "note.txt")).text, content);
    }
    const names = (await traverse(server, "list_directory", {})).items.map((i) => i.name);
    assert.deepEqual(names, ["note.txt", "old.txt"]);
    assert.deepEqual((await traverse(server, "search_files", { query: "note" })).items, [{
      path: "note.txt",
    }]);
    await write(server, "fresh.md", "a needle here\n");
    assert.deepEqual((await traverse(server, "search_text", { query: "needle" })).items, [
      { path: "fresh.md", line: 1, text: "a needle here" },
    ]);
    noTempFiles(root);
  });
});

test(`${RUNTIME}: the write's content_hash is the following single-page read's`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const contents = [
      "",
      "x",
      "line\r\nwith CRLF\r\n",
      "é€😀 mixed ß\n",
      "\uFEFFbom first",
      "a".repeat(20_000),
    ];
    for (const content of contents) {
      const written = await write(server, "h.txt", content);
      assert.equal(written.bytes, Buffer.byteLength(content));
      const read = await readOnePage(server, "h.txt");
      assert.equal(read.text, content);
      assert.equal(written.content_hash, read.hash, JSON.stringify(content.slice(0, 20)));
      assert.equal(written.content_hash, contentHash(content));
    }
  });
});

test(`${RUNTIME}: a hard link keeps the old bytes; the target keeps its mode`, async () => {
  await withServer({ "a.txt": "old bytes\n", "m.txt": "m" }, ["--include", "**"], async (server, root) => {
    const a = join(root.path, "a.txt");
    linkSync(a, join(root.path, "b.txt"));
    await write(server, "a.txt", "new bytes\n");
    assert.equal(readFileSync(a, "utf8"), "new bytes\n");
    assert.equal(readFileSync(join(root.path, "b.txt"), "utf8"), "old bytes\n");
    assert.equal((await readOnePage(server, "b.txt")).text, "old bytes\n");
    assert.equal(statSync(join(root.path, "b.txt")).nlink, 1, "the write replaced a.txt, not its inode");

    const m = join(root.path, "m.txt");
    for (const mode of [0o600, 0o751, 0o644]) {
      chmodSync(m, mode);
      await write(server, "m.txt", `mode ${mode.toString(8)}`);
      assert.equal(statSync(m).mode & 0o7777, mode);
      assert.equal(readFileSync(m, "utf8"), `mode ${mode.toString(8)}`);
    }
    noTempFiles(root);
  });
});

test(`${RUNTIME}: a symlink or a directory at the target is refused and nothing changes`, async () => {
  await withServer(
    { "target.txt": "target\n", "sub/x.txt": "x\n" },
    ["--include", "**"],
    async (server, root) => {
      const at = (rel: string) => join(root.path, rel);
      symlinkSync("target.txt", at("link.txt"));
      symlinkSync("missing.txt", at("dangling.txt"));
      symlinkSync("sub", at("dirlink"));
      const before = tree(root.path);
      for (const path of ["link.txt", "dangling.txt", "dirlink", "sub"]) {
        const text = toolErrorText(await server.call("write_text_file", { path, content: "overwritten\n" }));
        assert.ok(!text.includes(root.path), "no host path in the refusal");
        assert.ok(!text.includes("\n"));
      }
      assert.deepEqual(tree(root.path), before);
      assert.ok(lstatSync(at("link.txt")).isSymbolicLink());
      assert.equal(readlinkSync(at("link.txt")), "target.txt");
      assert.ok(lstatSync(at("dangling.txt")).isSymbolicLink());
      assert.ok(lstatSync(at("dirlink")).isSymbolicLink());
      assert.ok(lstatSync(at("sub")).isDirectory());
      assert.equal(readFileSync(at("target.txt"), "utf8"), "target\n");
      assert.equal(readFileSync(at("sub/x.txt"), "utf8"), "x\n");
    },
  );
});

test(`${RUNTIME}: without a root-level include every write gets the exact refusal`, async () => {
  await withServer({ "lib/a.ts": "a" }, ["--include", "lib/**"], async (server, root) => {
    const before = tree(root.path);
    for (const path of ["a.txt", "lib", "x", "A.txt"]) {
      const text = toolErrorText(await server.call("write_text_file", { path, content: "x" }));
      assert.equal(text, NO_ROOT_LEVEL_INCLUDE);
      assert.equal(text, "no --include pattern of this root matches a file in the root itself");
    }
    assert.deepEqual(tree(root.path), before);
  });
});

test(`${RUNTIME}: only a selected lowercase basename can be written`, async () => {
  const args = ["--include", "**", "--exclude", "*.secret", "--exclude", "sub/**"];
  await withServer({ "sub/in.txt": "in" }, args, async (server, root) => {
    const before = tree(root.path);
    const refused = [
      "A.txt",
      "aB.txt",
      "a/b.txt",
      "sub/in.txt",
      "sub",
      ".",
      "..",
      "",
      "a b.txt",
      "é.txt",
      "a\\b.txt",
      "a\u0000b",
      "/abs.txt",
      "./a.txt",
      "a.txt/",
      "c:x",
      "a:b",
      "x".repeat(256),
      "key.secret",
    ];
    for (const path of refused) {
      const text = toolErrorText(await server.call("write_text_file", { path, content: "x" }));
      assert.ok(text.length > 0 && !text.includes("\n"), JSON.stringify(path));
    }
    assert.deepEqual(tree(root.path), before, "nothing was written");

    const allowed = ["a.txt", ".hidden", "a-b_c.9", "0", "...", "x".repeat(255)];
    for (const path of allowed) {
      await write(server, path, `content of ${path.length}`);
      assert.equal((await readOnePage(server, path)).text, `content of ${path.length}`, path);
    }
  });

  await withServer({}, ["--include", "*.md"], async (server, root) => {
    const text = toolErrorText(await server.call("write_text_file", { path: "a.txt", content: "x" }));
    assert.match(text, /a\.txt/);
    await write(server, "a.md", "ok");
    assert.deepEqual(tree(root.path), ["a.md"]);
  });
});

test(`${RUNTIME}: a payload over --max-write-bytes is refused by its UTF-8 size`, async () => {
  await withServer(
    { "f.txt": "before" },
    ["--include", "**", "--max-write-bytes", "10"],
    async (server, root) => {
      const f = join(root.path, "f.txt");
      for (const content of ["01234567890", "€€€€", "😀😀😀"]) {
        assert.ok(content.length <= 11 && Buffer.byteLength(content) > 10);
        const text = toolErrorText(await server.call("write_text_file", { path: "f.txt", content }));
        assert.match(text, /10/);
        assert.equal(readFileSync(f, "utf8"), "before");
      }
      for (const content of ["0123456789", "€€€", "😀😀", ""]) {
        await write(server, "f.txt", content);
        assert.equal(readFileSync(f, "utf8"), content);
      }
      noTempFiles(root);
    },
  );
});

test(`${RUNTIME}: temporary write files are never served by any tool, and only they`, async () => {
  const temp = ".ptc-fs-mcp-00000000deadbeef.tmp"; // the form a write creates: 16 hex digits, in the root
  const files = {
    [temp]: "needle in a temp file\n",
    // Not a write's temporary file: below the root (writes land only there), or of another form.
    [`sub/${temp}`]: "needle in a nested look-alike\n",
    ".ptc-fs-mcp-notes.tmp": "needle in a root-level look-alike\n",
    "sub/keep.txt": "needle kept\n",
    "keep.txt": "kept\n",
  };
  await withServer(files, ["--include", "**"], async (server) => {
    const names = (dir: Record<string, unknown>) =>
      traverse(server, "list_directory", dir).then((r) => r.items.map((i) => i.path));
    assert.deepEqual(await names({}), [".ptc-fs-mcp-notes.tmp", "keep.txt", "sub"]);
    assert.deepEqual(await names({ path: "sub" }), [`sub/${temp}`, "sub/keep.txt"]);
    for (const query of [".ptc-fs-mcp", "tmp", "deadbeef", "e"]) {
      const found = (await traverse(server, "search_files", { query })).items.map((i) => i.path);
      assert.ok(!found.includes(temp), `search_files ${query}: ${found}`);
    }
    assert.deepEqual((await traverse(server, "search_text", { query: "needle" })).items.map((i) => i.path), [
      ".ptc-fs-mcp-notes.tmp",
      `sub/${temp}`,
      "sub/keep.txt",
    ]);
    const missing = temp.replace("deadbeef", "00000000");
    for (const path of [temp, missing]) {
      assert.equal(toolErrorText(await server.call("read_text_file", { path })), `not found: ${path}`);
      assert.equal(
        toolErrorText(await server.call("search_text", { query: "needle", path })),
        `not found: ${path}`,
      );
    }
    assert.equal(structured(await server.call("read_text_file", { path: `sub/${temp}` })).items.length, 1);
  });
});

test(`${RUNTIME}: a write to a temporary file's name is refused (it could never be read back)`, async () => {
  const temp = ".ptc-fs-mcp-00000000deadbeef.tmp";
  await withServer({ [temp]: "left over\n" }, ["--include", "**"], async (server, root) => {
    const response = await server.call("write_text_file", { path: temp, content: "written" });
    assert.equal(response.result.isError, true, `${temp} was written`);
    assert.equal(readFileSync(join(root.path, temp), "utf8"), "left over\n");
    // A name of another form is an ordinary one.
    const other = ".ptc-fs-mcp-new.tmp";
    assert.equal(
      structured(await server.call("write_text_file", { path: other, content: "written" })).bytes,
      7,
    );
    assert.equal(structured(await server.call("read_text_file", { path: other })).items[0].text, "written");
  });
});

test(`${RUNTIME}: two servers rewriting and reading one file never observe a mixed file`, async () => {
  const root = makeRoot({ "shared.txt": "initial\n" });
  const a = startServer(root.path, ["--include", "**"]);
  const b = startServer(root.path, ["--include", "**"]);
  try {
    const versions = new Set<string>(["initial\n"]);
    const version = (who: string, round: number, size: number) => {
      const head = `${who}${round}:`;
      return head + who.toLowerCase().repeat(size - head.length - 1) + "\n";
    };
    let reads = 0;
    let retries = 0;
    const read = async (server: Server) => {
      const response = await server.call("read_text_file", { path: "shared.txt" });
      if (response.result?.isError) {
        // A replacement racing the open or the read is refused, never misread.
        assert.ok(RETRY.includes(response.result.content[0].text), response.result.content[0].text);
        retries++;
        return;
      }
      const page = structured(response);
      assert.equal(page.next_cursor, null);
      const text = page.items.map((i: { text: string }) => i.text).join("");
      assert.ok(versions.has(text), `a read saw a mixed file: ${text.slice(0, 40)}...${text.slice(-40)}`);
      assert.equal(page.content_hash, contentHash(text));
      reads++;
    };
    for (let round = 0; round < 200; round++) {
      const fromA = version("A", round, 6_000 + round);
      const fromB = version("B", round, 9_000 - round);
      versions.add(fromA).add(fromB);
      await Promise.all([
        write(a, "shared.txt", fromA),
        read(b),
        write(b, "shared.txt", fromB),
        read(a),
        read(b),
      ]);
    }
    assert.equal(reads + retries, 600);
    assert.ok(reads > retries, `${reads} reads, ${retries} refused`);
    assert.ok(versions.has(readFileSync(join(root.path, "shared.txt"), "utf8")));
    noTempFiles(root);
  } finally {
    await Promise.all([a.close(), b.close()]).catch(() => {
      a.child.kill("SIGKILL");
      b.child.kill("SIGKILL");
    });
    root.cleanup();
  }
});

test(`${RUNTIME}: writes land in the root only, never in a subdirectory`, async () => {
  await withServer({ "sub/": "" }, ["--include", "**"], async (server, root) => {
    mkdirSync(join(root.path, "sub", "deeper"));
    const text = toolErrorText(await server.call("write_text_file", { path: "sub/a.txt", content: "x" }));
    assert.ok(text.length > 0);
    await write(server, "a.txt", "x");
    assert.deepEqual(tree(root.path), ["a.txt", "sub", "sub/deeper"]);
  });
});

test(`${RUNTIME}: a write larger than --max-file-bytes is refused: it could not be read back`, async () => {
  await withServer(
    { "notes.txt": "old\n" },
    ["--include", "**", "--max-file-bytes", "100"],
    async (server, root) => {
      assert.equal(
        toolErrorText(await server.call("write_text_file", { path: "notes.txt", content: "x".repeat(101) })),
        "content is 101 bytes, more than the 100-byte file limit (--max-file-bytes), so it could not be read back",
      );
      assert.equal(readFileSync(join(root.path, "notes.txt"), "utf8"), "old\n", "nothing changed on disk");
      noTempFiles(root);
      // At the limit it is written, and reads back.
      await write(server, "notes.txt", "é".repeat(50));
      const read = structured(await server.call("read_text_file", { path: "notes.txt" }));
      assert.equal(read.items[0].text, "é".repeat(50));
    },
  );
});

test(`${RUNTIME}: in a root too big to read at once, a write to a link is refused without a guess`, async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 3_000; i++) files[`f${String(i).padStart(4, "0")}-with-a-longer-name.txt`] = "";
  await withServer(files, ["--include", "**"], async (server, root) => {
    symlinkSync(join(root.path, "f0000-with-a-longer-name.txt"), join(root.path, "lnk.txt"));
    assert.ok(statSync(root.path).size >= PACED_READ_BYTES, "the root is big");
    assert.equal(
      toolErrorText(await server.call("write_text_file", { path: "lnk.txt", content: "x" })),
      'path names something other than a regular file this root serves: "lnk.txt"',
    );
    assert.equal(lstatSync(join(root.path, "lnk.txt")).isSymbolicLink(), true, "the link is left alone");
  });
});

test(`${RUNTIME}: a write refuses a name its root's long path leaves no room for, saying so, and writes nothing`, async () => {
  const temp = makeRoot();
  try {
    /** A directory below the temp root whose path leaves `room` bytes of SYSTEM_PATH_BYTES for a name. */
    const rootLeaving = (room: number, name: string) => {
      let path = join(temp.path, name);
      const length = SYSTEM_PATH_BYTES - 2 - room; // the root's path, a `/`, the name and a NUL
      while (length - Buffer.byteLength(path) > 201 + 2) path += `/${"r".repeat(200)}`; // then 2 bytes or more left
      path += `/${"q".repeat(length - Buffer.byteLength(path) - 1)}`;
      mkdirSync(path, { recursive: true });
      assert.equal(Buffer.byteLength(path), length);
      return path;
    };
    const roomy = rootLeaving(40, "roomy");
    const server = startServer(roomy);
    try {
      const name = `${"n".repeat(36)}.txt`; // 40 bytes: fits
      assert.equal(structured(await server.call("write_text_file", { path: name, content: "x" })).bytes, 1);
      const longer = `${"n".repeat(37)}.txt`;
      assert.equal(
        toolErrorText(await server.call("write_text_file", { path: longer, content: "x" })),
        `path is longer than the 40 bytes the root's own path leaves of the system's ${SYSTEM_PATH_BYTES}, so it ` +
          `could not be read back: "${longer}"`,
      );
    } finally {
      await server.close();
    }
    assert.deepEqual(readdirSync(roomy), [`${"n".repeat(36)}.txt`]);
    const cramped = rootLeaving(TEMP_NAME_BYTES - 1, "cramped");
    const second = startServer(cramped);
    try {
      assert.match(
        toolErrorText(await second.call("write_text_file", { path: "a.txt", content: "x" })),
        /^this root's own path is too long to write in: with it, a write's temporary file would pass the system's 4096-byte path limit$/,
      );
    } finally {
      await second.close();
    }
    assert.deepEqual(readdirSync(cramped), []);
  } finally {
    temp.cleanup();
  }
});

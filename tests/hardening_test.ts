/**
 * Regressions from the hostile pass: each test is one way the server was
 * made to break its contract, tried again. In process on wrapped ports where
 * the condition cannot be made on this machine (a case-folding filesystem,
 * descriptors running out, a file replaced on every open), end to end
 * against the real binary otherwise.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { makeRoot, META, RUNTIME, startServer, structured, toolErrorText, withServer } from "./_harness.ts";
import { FsError, type FsPort, openRoot, ToolError } from "../mod.ts";
import type { DirEntry } from "../src/ports/fs_port.ts";
import { toolContext } from "./_inprocess.ts";
import { assertValid } from "./_schema.ts";
import { nodePort } from "../src/ports/node.ts";
import type { Root } from "../src/root.ts";
import type { Tool } from "../src/tools/tool.ts";
import { listDirectory } from "../src/tools/list_directory.ts";
import { MAX_PACED_UTF8_CHECKS, readTextFile } from "../src/tools/read_text_file.ts";
import { searchFiles } from "../src/tools/search_files.ts";
import { searchText } from "../src/tools/search_text.ts";
import { writeTextFile } from "../src/tools/write_text_file.ts";
import { scanSlot } from "../src/search/scan.ts";
import { PACED_READ_BYTES } from "../src/root.ts";

/** Calls a tool's handler directly, as the server would; returns its value or its error's text. */
async function call(root: Root, tool: Tool, args: Record<string, unknown>): Promise<unknown> {
  try {
    return (await tool.run(args as never, toolContext(root))).value;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/**
 * The Node port on a filesystem that folds case, like the default volume of
 * macOS: a path's every component reaches the entry its directory spells the
 * same but for case, while a directory lists its names as they are spelled.
 */
const folding: FsPort = {
  ...nodePort,
  lstat: (path) => nodePort.lstat(fold(path)),
  openRead: (path) => nodePort.openRead(fold(path)),
  readDir: (path) => nodePort.readDir(fold(path)),
  holdDirectory: (path) => nodePort.holdDirectory(fold(path)),
};
let foldFrom = "";
function fold(path: string): string {
  if (foldFrom === "" || !path.startsWith(foldFrom)) return path;
  let at = foldFrom.slice(0, -1);
  for (const part of path.slice(foldFrom.length).split("/")) {
    let names: string[] = [];
    try {
      names = readdirSync(at);
    } catch { /* not a directory: the lookup fails as it would */ }
    at += `/${names.find((n) => n.toLowerCase() === part.toLowerCase()) ?? part}`;
  }
  return at;
}

test("on a case-folding filesystem an excluded name is not reached by another spelling", async () => {
  const temp = makeRoot({ "top.key": "SECRET", "private/key.txt": "SECRET", "a.txt": "served" });
  try {
    const root = openRoot({ root: temp.path, include: ["**"], exclude: ["*.key", "private"], fs: folding });
    foldFrom = `${root.path}/`;
    for (const path of ["TOP.KEY", "Top.key", "PRIVATE/key.txt", "Private/KEY.TXT"]) {
      assert.equal(await call(root, readTextFile, { path }), `error: not found: ${path}`);
      assert.equal(await call(root, searchText, { query: "SECRET", path }), `error: not found: ${path}`);
    }
    assert.equal(await call(root, listDirectory, { path: "PRIVATE" }), "error: not found: PRIVATE");
    // The served file is served under its own spelling only.
    assert.equal(
      ((await call(root, readTextFile, { path: "a.txt" })) as { items: unknown[] }).items.length,
      1,
    );
    assert.equal(await call(root, readTextFile, { path: "A.TXT" }), "error: not found: A.TXT");
  } finally {
    foldFrom = "";
    temp.cleanup();
  }
});

test("on a case-folding filesystem another spelling never shows what an excluded entry is", async () => {
  const temp = makeRoot({ "a.txt": "served", "private/x.txt": "SECRET", "Secret.dir/x.txt": "SECRET" });
  try {
    symlinkSync("a.txt", join(temp.path, "top.key"));
    symlinkSync("../a.txt", join(temp.path, "private", "link"));
    symlinkSync("a.txt", join(temp.path, "Link.txt"));
    symlinkSync("a.txt", join(temp.path, "ok.lnk")); // served by name: its refusal may say what it is
    const exclude = ["top.key", "private", "Link.txt", "Secret.dir"];
    const root = openRoot({ root: temp.path, include: ["**"], exclude, fs: folding });
    foldFrom = `${root.path}/`;
    for (const path of ["TOP.KEY", "PRIVATE/LINK", "Private/link/x"]) {
      assert.equal(await call(root, readTextFile, { path }), `error: not found: ${path}`);
      assert.equal(await call(root, listDirectory, { path }), `error: not found: ${path}`);
      assert.equal(await call(root, searchText, { query: "s", path }), `error: not found: ${path}`);
    }
    // A write to another spelling of an excluded link or directory: one refusal, whatever is there.
    const otherSpelling = (path: string) =>
      `error: path reaches an entry the root spells otherwise (this filesystem folds case or Unicode forms), ` +
      `so it cannot be written: "${path}"`;
    for (const path of ["link.txt", "secret.dir"]) {
      assert.equal(await call(root, writeTextFile, { path, content: "x" }), otherSpelling(path));
    }
    assert.equal(readFileSync(join(temp.path, "a.txt"), "utf8"), "served", "nothing written through a link");
    // Spelled as listed, a link is still named one.
    assert.equal(
      await call(root, readTextFile, { path: "ok.lnk" }),
      "error: ok.lnk is a symbolic link, and links are never followed",
    );
    assert.equal(
      await call(root, writeTextFile, { path: "ok.lnk", content: "x" }),
      "error: ok.lnk is a symbolic link; links are never written through",
    );
  } finally {
    foldFrom = "";
    temp.cleanup();
  }
});

test("a search whose file cannot be opened for want of descriptors fails instead of skipping it", async () => {
  const temp = makeRoot({ "a.txt": "needle\n", "b.txt": "needle\n" });
  try {
    const port: FsPort = {
      ...nodePort,
      openRead(path) {
        if (path.endsWith("/b.txt")) throw new FsError("busy");
        return nodePort.openRead(path);
      },
    };
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const text = await call(root, searchText, { query: "needle" });
    assert.equal(text, "error: the server has too many files open; try again when fewer calls run");
  } finally {
    temp.cleanup();
  }
});

test("a walk whose directory cannot be read for want of descriptors fails instead of skipping it", async () => {
  // A small directory read in one go and a big one read with pauses; each tool that walks past them.
  const temp = makeRoot({ "a.txt": "needle\n", "small/b.txt": "needle\n", "big/c.txt": "needle\n" });
  try {
    const big = join(temp.path, "big");
    for (const busy of ["small", "big"]) {
      const port: FsPort = {
        ...nodePort,
        lstat(path) {
          const info = nodePort.lstat(path);
          return path === big && info ? { ...info, size: PACED_READ_BYTES } : info;
        },
        readDir(path) {
          if (path === join(temp.path, busy)) throw new FsError("busy");
          return nodePort.readDir(path);
        },
        readDirPaced(path, pause, proof) {
          if (path === join(temp.path, busy)) return Promise.reject(new FsError("busy"));
          return nodePort.readDirPaced(path, pause, proof);
        },
      };
      const root = openRoot({ root: temp.path, include: ["**"], fs: port });
      const calls: [Tool, Record<string, unknown>][] = [
        [searchFiles, { query: ".txt" }],
        [searchText, { query: "needle" }],
        [listDirectory, {}],
      ];
      for (const [tool, args] of calls) {
        assert.equal(
          await call(root, tool, args),
          "error: the server has too many files open; try again when fewer calls run",
          `${tool.name}, ${busy}`,
        );
      }
    }
  } finally {
    temp.cleanup();
  }
});

test("a search whose file is replaced on every open fails instead of skipping it", async () => {
  const temp = makeRoot({ "a.txt": "needle\n" });
  try {
    const port: FsPort = {
      ...nodePort,
      openRead() {
        throw new FsError("changed");
      },
    };
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    assert.equal(
      await call(root, searchText, { query: "needle" }),
      "error: a.txt was replaced while it was being opened; try again",
    );
  } finally {
    temp.cleanup();
  }
});

test("search_text opens at most searchScanFiles files per call and resumes where it stopped", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 7; i++) files[`f${i}.txt`] = i % 2 === 0 ? "needle\n" : "hay\n";
  const temp = makeRoot(files);
  try {
    const root = openRoot({ root: temp.path, include: ["**"], limits: { searchScanFiles: 2 }, fs: nodePort });
    const ctx = toolContext(root);
    const paths: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { value } = await searchText.run({ query: "needle", ...(cursor ? { cursor } : {}) }, ctx);
      paths.push(...value.items.map((i) => i.path));
      cursor = (value.next_cursor as string | null) ?? undefined;
      pages++;
    } while (cursor !== undefined);
    assert.deepEqual(paths, ["f0.txt", "f2.txt", "f4.txt", "f6.txt"]);
    assert.equal(pages, 4, "two files a call: seven files take four calls");
  } finally {
    temp.cleanup();
  }
});

test("a search cancelled while it waits for a scan slot gives the slot up without touching the filesystem", async () => {
  const temp = makeRoot({ "a.txt": "needle\n" });
  const held = await Promise.all([scanSlot(), scanSlot(), scanSlot(), scanSlot()]); // every slot taken
  try {
    let touched = 0; // the port's calls once the root is open
    const port: FsPort = {
      ...nodePort,
      lstat: (path) => (touched++, nodePort.lstat(path)),
      readDir: (path) => (touched++, nodePort.readDir(path)),
    };
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    touched = 0;
    const abort = new AbortController();
    const waiting = Promise.resolve(searchText.run({ query: "needle" }, toolContext(root, abort.signal)));
    abort.abort();
    for (const release of held) release();
    await assert.rejects(
      waiting,
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.equal(touched, 0, "the cancelled call listed nothing");
    // The slot it had is free again: a call now scans at once.
    const { value } = await searchText.run({ query: "needle" }, toolContext(root));
    assert.deepEqual(value.items.map((i) => i.path), ["a.txt"]);
  } finally {
    for (const release of held) release();
    temp.cleanup();
  }
});

test("a path of control characters gets a cursor the server takes back, and the traversal goes on", async () => {
  const name = "\x01".repeat(200);
  const deep = [name, name, name, name, name].join("/");
  const temp = makeRoot({ [`${deep}/x.txt`]: "x\n", "a.txt": "x\n", "zz.txt": "x\n" });
  try {
    const root = openRoot({ root: temp.path, include: ["**"], fs: nodePort });
    const ctx = toolContext(root);
    const paths: string[] = [];
    let cursor: string | undefined;
    do {
      const { value } = await searchFiles.run({ query: "txt", limit: 1, ...(cursor ? { cursor } : {}) }, ctx);
      paths.push(...value.items.map((i) => i.path));
      cursor = (value.next_cursor as string | null) ?? undefined;
    } while (cursor !== undefined);
    assert.deepEqual(paths, [`${deep}/x.txt`, "a.txt", "zz.txt"]);
  } finally {
    temp.cleanup();
  }
});

test(`${RUNTIME}: a write over a set-user-ID file keeps its permission bits but never set-ID or sticky bits`, async () => {
  await withServer({ "tool": "echo hi\n" }, ["--include", "**"], async (server, root) => {
    chmodSync(join(root.path, "tool"), 0o6755);
    structured(await server.call("write_text_file", { path: "tool", content: "#!/bin/sh\nid\n" }));
    assert.equal(statSync(join(root.path, "tool")).mode & 0o7777, 0o755);
  });
});

test(`${RUNTIME}: lone surrogates are refused in a path, a query and a write's content, saying why`, async () => {
  await withServer(
    { "a.txt": "\uFFFD\n", "\uFFFD.txt": "x\n" },
    ["--include", "**"],
    async (server, root) => {
      // Encoded, a lone surrogate becomes U+FFFD: this one would name the file `\uFFFD.txt`.
      for (const tool of ["read_text_file", "list_directory"]) {
        assert.match(
          toolErrorText(await server.call(tool, { path: "\udc80.txt" })),
          /^path must be Unicode text, without a lone surrogate/,
          tool,
        );
      }
      for (const tool of ["search_text", "search_files"]) {
        assert.match(
          toolErrorText(await server.call(tool, { query: "\ud800" })),
          /^query must be Unicode text/,
        );
      }
      const text = toolErrorText(await server.call("write_text_file", { path: "b.txt", content: "x\udc00" }));
      assert.match(text, /^content must be Unicode text/);
      assert.throws(() => statSync(join(root.path, "b.txt")), "nothing was written");
    },
  );
});

test(`${RUNTIME}: an error text shows at most 256 bytes of a path and escapes line breaks of any kind`, async () => {
  await withServer({ "a.txt": "a" }, ["--include", "**"], async (server) => {
    const long = "d/".repeat(400) + "x.txt";
    const text = toolErrorText(await server.call("read_text_file", { path: long }));
    assert.equal(text, `not found: ${long.slice(0, 256)}…`);
    const odd = toolErrorText(await server.call("read_text_file", { path: "a\u2028b\u0085c" }));
    assert.equal(odd, "not found: a\\u2028b\\u0085c");
  });
});

test(`${RUNTIME}: malformed lines get JSON-RPC's errors, and a last request without a newline is answered`, async () => {
  const root = makeRoot({ "a.txt": "a" });
  const server = startServer(root.path);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  try {
    server.writeLine("{not json");
    server.writeLine(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]));
    server.writeLine(JSON.stringify({ jsonrpc: "1.0", id: "old", method: "tools/list" }));
    // Ids the MCP schema does not allow are not echoed: a fraction, and one past 2^53 that parses as another.
    server.writeLine(`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`);
    server.writeLine(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}`);
    // A write whose content holds a byte that is not UTF-8 (Latin-1 é) is not decoded as U+FFFD and served.
    const write = {
      name: "write_text_file",
      arguments: { path: "latin1.txt", content: "caf@" },
      _meta: meta,
    };
    const bytes = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: write }));
    server.child.stdin!.write(Buffer.concat([bytes.subarray(0, bytes.indexOf("@")), Buffer.from([0xe9])]));
    server.child.stdin!.write(Buffer.concat([bytes.subarray(bytes.indexOf("@") + 1), Buffer.from("\n")]));
    server.writeLine(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "c",
        method: "tools/list",
        params: { cursor: null, _meta: meta },
      }),
    );
    server.writeLine(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "d",
        method: "tools/list",
        params: { cursor: "next", _meta: meta },
      }),
    );
    server.child.stdin!.end(
      JSON.stringify({ jsonrpc: "2.0", id: "last", method: "tools/list", params: { _meta: meta } }),
    );
    assert.equal((await server.exited()).code, 0);
    const replies = server.lines.map((line) => JSON.parse(line));
    assert.deepEqual(replies.slice(0, 8).map((r) => [r.id, r.error?.code, r.error?.message]), [
      [undefined, -32700, "Parse error: the line is not JSON"],
      [undefined, -32600, "Invalid request: batches are not supported; send one message per line"],
      ["old", -32600, 'Invalid request: not a JSON-RPC 2.0 message (jsonrpc: "2.0")'],
      [undefined, -32600, "Invalid request: id must be a string or an integer"],
      [undefined, -32600, "Invalid request: id must be a string or an integer"],
      [undefined, -32700, "Parse error: the line is not UTF-8"],
      ["c", -32602, "Invalid params.cursor: must be a string"],
      ["d", -32602, "Invalid cursor: the tool list is one page; send tools/list without one"],
    ]);
    for (const reply of replies.slice(0, 8)) assertValid("JSONRPCErrorResponse", reply);
    assert.ok(!existsSync(join(root.path, "latin1.txt")), "nothing was written");
    assert.equal(replies[8].id, "last");
    assert.ok(Array.isArray(replies[8].result.tools));
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: initialize claiming 2026-07-28 is told why, and --root given twice is refused`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const reply = await server.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2026-07-28", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    assert.equal(reply.error.code, -32022);
    assert.equal(
      reply.error.message,
      "Unsupported protocol version 2026-07-28: this server speaks only 2026-07-28, which has no initialize request",
    );
  });
  const root = makeRoot();
  try {
    const twice = startServer(root.path, ["--include", "**", "--root", root.path]);
    assert.equal((await twice.exited()).code, 64);
    assert.equal(twice.stderr, "ptc-fs-mcp: --root was given 2 times; give it once\n");
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: an exclude ending in /** also covers the name before it: never listed, read or searched`, async () => {
  const files = { "sub/secrets/key.txt": "K", "secrets": "a file named secrets", "ok.txt": "o" };
  await withServer(files, ["--include", "**", "--exclude", "**/secrets/**"], async (server) => {
    for (const path of ["secrets", "sub/secrets", "sub/secrets/key.txt"]) {
      assert.equal(toolErrorText(await server.call("read_text_file", { path })), `not found: ${path}`);
      assert.equal(toolErrorText(await server.call("list_directory", { path })), `not found: ${path}`);
    }
    const listed = structured(await server.call("list_directory", {})).items.map((i: { name: string }) =>
      i.name
    );
    assert.deepEqual(listed, ["ok.txt"]);
  });
});

test("the first listing of a large tree pauses for input between directories: a cancellation stops it", async () => {
  // Seven directories, each read in 15 ms (longer than a pause's interval): the listing a call starts with
  // would hold the event loop for all of them; it must pause, see the cancellation and read no more.
  const files: Record<string, string> = {};
  for (let d = 0; d < 6; d++) files[`d${d}/a.txt`] = "needle\n";
  const temp = makeRoot(files);
  try {
    const cases: [Tool, Record<string, unknown>][] = [
      [searchFiles, { query: "a" }],
      [searchText, { query: "needle" }],
      [listDirectory, {}],
    ];
    for (const [tool, args] of cases) {
      const abort = new AbortController();
      let reads = 0;
      const port: FsPort = {
        ...nodePort,
        readDir(path) {
          if (++reads === 2) abort.abort(); // the client cancels while the second directory is read
          busy(15);
          return nodePort.readDir(path);
        },
      };
      const root = openRoot({ root: temp.path, include: ["**"], fs: port });
      await assert.rejects(
        Promise.resolve(tool.run(args as never, toolContext(root, abort.signal))),
        (error: unknown) => error instanceof ToolError && error.message === "cancelled",
        tool.name,
      );
      assert.ok(reads <= 3, `${tool.name} read ${reads} of 7 directories after its cancellation`);
    }
  } finally {
    temp.cleanup();
  }
});

test("list_directory pauses while it searches below a subdirectory for a served file: a cancellation stops it", async () => {
  // `top` serves one file, six directories down its last branch: whether the root's listing shows `top`
  // depends on directories below the depth the listing reads, each read in 15 ms here.
  const files: Record<string, string> = { "top/d5/a.md": "" };
  for (let d = 0; d < 5; d++) files[`top/d${d}/a.txt`] = "";
  const temp = makeRoot(files);
  try {
    const abort = new AbortController();
    let reads = 0;
    const port: FsPort = {
      ...nodePort,
      readDir(path) {
        if (++reads === 3) abort.abort(); // the client cancels while `top/d0` is read
        busy(15);
        return nodePort.readDir(path);
      },
    };
    const root = openRoot({ root: temp.path, include: ["**/*.md"], fs: port });
    await assert.rejects(
      Promise.resolve(listDirectory.run({} as never, toolContext(root, abort.signal))),
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.ok(reads <= 4, `read ${reads} of 8 directories after its cancellation`);
    // Uncancelled, the same search finds the file and the listing shows `top`.
    const listed = await call(
      openRoot({ root: temp.path, include: ["**/*.md"], fs: nodePort }),
      listDirectory,
      {},
    );
    assert.deepEqual((listed as { items: { path: string }[] }).items.map((i) => i.path), ["top"]);
  } finally {
    temp.cleanup();
  }
});

/** Busy for `ms` milliseconds: work that takes long. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a directory that takes long to read
  }
}

/**
 * The Node port with the directory `big` (absolute) said to be big (its size), its paced read coming one name
 * a batch, each taking 15 ms; `onBatch` is told each batch's number before it is read.
 */
function slowBigPort(big: string, onBatch: (batch: number) => void): FsPort {
  let batches = 0;
  return {
    ...nodePort,
    lstat(path) {
      const info = nodePort.lstat(path);
      return path === big && info ? { ...info, size: PACED_READ_BYTES } : info;
    },
    async readDirPaced(path, pause) {
      const entries = nodePort.readDir(path);
      for (let i = 0; i < entries.length; i++) {
        onBatch(++batches);
        busy(15);
        await pause();
      }
      return entries;
    },
  };
}

test("a call that read a big directory just changed with pauses never reads it again in one go", async () => {
  // A listing made within the racy margin of its directory's last change is not trusted from the cache: the
  // lookups after the paced read must take it as the call validated it, or they read it again at once.
  const temp = makeRoot({ "big/f0.txt": "needle\n", "big/f1.txt": "needle\n", "big/sub/x.txt": "" });
  try {
    const big = join(realpathSync(temp.path), "big");
    const cases: [Tool, Record<string, unknown>, string][] = [
      [
        listDirectory,
        { path: "big/f1.txt" },
        "big/f1.txt is a file, not a directory; read it with read_text_file",
      ],
      [listDirectory, { path: "big/missing" }, "not found: big/missing"],
      [searchText, { query: "needle", path: "big/missing" }, "not found: big/missing"],
      [readTextFile, { path: "big/missing.txt" }, "not found: big/missing.txt"],
    ];
    for (const [tool, args, refusal] of cases) {
      const label = `${tool.name} ${JSON.stringify(args)}`;
      let readsAtOnce = 0;
      const slow = slowBigPort(big, () => {});
      const port: FsPort = {
        ...slow,
        readDir(path) {
          if (path === big) readsAtOnce++;
          return slow.readDir(path);
        },
      };
      // Made now: the root, and `big` in it, changed within the margin.
      writeFileSync(join(temp.path, "big", `new-${tool.name}.txt`), "");
      const root = openRoot({ root: temp.path, include: ["**"], fs: port });
      await assert.rejects(
        Promise.resolve(tool.run(args as never, toolContext(root, new AbortController().signal))),
        (error: unknown) => error instanceof ToolError && error.message === refusal,
        label,
      );
      assert.equal(readsAtOnce, 0, `${label} read big in one go`);
    }
  } finally {
    temp.cleanup();
  }
});

test("a parent swapped for a link between a listing's lookups of its parents, with no pause, is refused", async () => {
  // Out of scope as a race (SPEC 11), yet the walk's own lookup of the parents, after its pass, catches it: a
  // walk that trusted its pass for the parents too listed the link's outside target here (a hostile pass).
  const temp = makeRoot({ "root/a/b/c/x.txt": "x\n", "outside/a/b/c/OUTSIDE-3f1.txt": "o\n" });
  try {
    const base = realpathSync(temp.path);
    const rootPath = join(base, "root");
    let armed = false;
    const port: FsPort = {
      ...nodePort,
      lstat(path) {
        if (armed && path === join(rootPath, "a/b")) { // after the pass looked `a` up, before `a/b`
          armed = false;
          renameSync(join(rootPath, "a"), join(base, "moved"));
          symlinkSync(join(base, "outside/a"), join(rootPath, "a"));
        }
        return nodePort.lstat(path);
      },
    };
    // Settled listings: past the racy margin and the second they were made in (Deno's ctime).
    await new Promise((resolve) => setTimeout(resolve, 1_060 - (Date.now() % 1_000)));
    const root = openRoot({ root: rootPath, include: ["**"], fs: port });
    const list = async () =>
      (await listDirectory.run({ path: "a/b/c" }, toolContext(root, new AbortController().signal))).value;
    assert.deepEqual((await list()).items.map((i) => i.name), ["x.txt"]); // warm
    armed = true;
    await assert.rejects(
      list(),
      (error: unknown) =>
        error instanceof ToolError && error.message === "a is a symbolic link, and links are never followed",
    );
  } finally {
    temp.cleanup();
  }
});

test("a listing read in the second of its whole-second ctime (Deno's) is read again: a chmod then is seen", async () => {
  // Deno reports ctime in whole seconds and a chmod moves only ctime, so a chmod in the second a listing was
  // read leaves its identity as it was. This port reports each directory's ctime as the current second, and
  // refuses to read `d` once told to, as a chmod would.
  const temp = makeRoot({ "d/a.txt": "a\n" });
  try {
    let denied = false;
    const port: FsPort = {
      ...nodePort,
      lstat(path) {
        const info = nodePort.lstat(path);
        const second = BigInt(Math.floor(Date.now() / 1000)) * 1_000_000_000n;
        return info?.kind === "directory" ? { ...info, ctimeNs: second } : info;
      },
      readDir(path) {
        if (denied && path.endsWith("/d")) throw new FsError("denied");
        return nodePort.readDir(path);
      },
    };
    // Both calls in one second, after its first 100 ms and the directory's mtime (both would untrust it).
    await new Promise((resolve) => setTimeout(resolve, 60));
    while (Date.now() % 1000 < 100 || Date.now() % 1000 > 700) await new Promise((r) => setTimeout(r, 10));
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const list = async () =>
      (await listDirectory.run({ path: "d" }, toolContext(root, new AbortController().signal))).value;
    assert.deepEqual((await list()).items.map((i) => i.name), ["a.txt"]);
    denied = true;
    await assert.rejects(
      list(),
      (error: unknown) => error instanceof ToolError && error.message === "permission denied: d",
    );
  } finally {
    temp.cleanup();
  }
});

/** The Node port, each read of a file taking 15 ms (past the time between pauses); `on` sees opens, reads, closes. */
function slowFilePort(on: { open?: () => void; read?: () => void; close?: () => void }): FsPort {
  return {
    ...nodePort,
    openRead(path) {
      const handle = nodePort.openRead(path);
      on.open?.();
      return {
        ...handle,
        opened: handle.opened,
        stat: () => handle.stat(),
        close: () => {
          on.close?.();
          handle.close();
        },
        readAt(buffer, position) {
          on.read?.();
          busy(15);
          return handle.readAt(buffer, position);
        },
      };
    },
  };
}

test("a big file's first page pauses for input while it checks the file is UTF-8: a cancellation stops it", async () => {
  // Four pieces of 1 MiB to check, each read taking 15 ms: the check must pause, see the cancellation and
  // read no more, where it held the event loop for all of them (a 256 MiB file: 0.3 s).
  const temp = makeRoot({ "big.txt": "é".repeat(2 * 1024 * 1024) });
  try {
    const abort = new AbortController();
    let reads = 0;
    const port = slowFilePort({
      read: () => {
        if (++reads === 2) abort.abort(); // the client cancels while the second piece is read
      },
    });
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    await assert.rejects(
      Promise.resolve(readTextFile.run({ path: "big.txt" } as never, toolContext(root, abort.signal))),
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.ok(reads <= 3, `read ${reads} of the 4 pieces after its cancellation`);
  } finally {
    temp.cleanup();
  }
});

test(`at most ${MAX_PACED_UTF8_CHECKS} first pages check a big file with pauses at once: descriptors stay bounded`, async () => {
  // Each check holds its file open across its pauses: eight reads of a big file at once held eight across
  // them, and 600 pipelined ran a server out of descriptors. Past the bound, a check runs in one go.
  const content = "é".repeat(2 * 1024 * 1024); // four pieces of 1 MiB to check
  const temp = makeRoot({ "big.txt": content });
  try {
    let open = 0;
    let most = 0; // files open while the calls paused: sampled between turns of the event loop
    const sampler = setInterval(() => most = Math.max(most, open), 1);
    const port = slowFilePort({ open: () => open++, close: () => open-- }); // every piece ends in a pause
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const pages = await Promise.all(
      Array.from({ length: 8 }, () => call(root, readTextFile, { path: "big.txt" })),
    ).finally(() => clearInterval(sampler));
    for (const page of pages) {
      const { items } = page as { items: { byte_offset: number; text: string }[] };
      assert.equal(items[0].byte_offset, 0);
      assert.ok(content.startsWith(items.map((i) => i.text).join("")));
    }
    assert.equal(open, 0);
    assert.ok(most > 0 && most <= MAX_PACED_UTF8_CHECKS, `${most} files open across pauses`);
  } finally {
    temp.cleanup();
  }
});

test("a big directory's first read pauses for input between its batches: a cancellation stops it", async () => {
  // `big` says it is big (its size), and its read comes in batches of one name, each taking 15 ms: a call
  // that reads it, walking it or looking up a path below it, must pause between them, see the cancellation
  // and read no more.
  const files: Record<string, string> = { "big/sub/x.txt": "" };
  for (let i = 0; i < 8; i++) files[`big/f${i}.txt`] = "needle\n";
  const temp = makeRoot(files);
  try {
    const big = join(realpathSync(temp.path), "big");
    const cases: [Tool, Record<string, unknown>][] = [
      [searchFiles, { query: "f" }],
      [searchText, { query: "needle" }],
      [listDirectory, {}],
      [listDirectory, { path: "big" }],
      [listDirectory, { path: "big/sub" }],
      [searchText, { query: "needle", path: "big/f1.txt" }],
      [readTextFile, { path: "big/f1.txt" }],
    ];
    for (const [tool, args] of cases) {
      const abort = new AbortController();
      let batches = 0;
      const port = slowBigPort(big, (batch) => {
        batches = batch;
        if (batch === 2) abort.abort(); // the client cancels while the second batch is read
      });
      const root = openRoot({ root: temp.path, include: ["**"], fs: port });
      const label = `${tool.name} ${JSON.stringify(args)}`;
      await assert.rejects(
        Promise.resolve(tool.run(args as never, toolContext(root, abort.signal))),
        (error: unknown) => error instanceof ToolError && error.message === "cancelled",
        label,
      );
      assert.ok(
        batches >= 2 && batches <= 3,
        `${label} read ${batches} of 9 batches, cancelled at the second`,
      );
    }
  } finally {
    temp.cleanup();
  }
});

test("a write's look at a big root pauses while it reads it: a cancellation stops it, and nothing is written", async () => {
  const files: Record<string, string> = { "a.md": "old\n" };
  for (let i = 0; i < 8; i++) files[`f${i}.md`] = "";
  const temp = makeRoot(files);
  try {
    const served = realpathSync(temp.path);
    const abort = new AbortController();
    let batches = 0;
    const port = slowBigPort(served, (batch) => {
      batches = batch;
      if (batch === 2) abort.abort(); // the client cancels while the second batch is read
    });
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    await assert.rejects(
      Promise.resolve(
        writeTextFile.run({ path: "a.md", content: "new\n" } as never, toolContext(root, abort.signal)),
      ),
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.ok(batches >= 2 && batches <= 3, `read ${batches} of 9 batches, cancelled at the second`);
    assert.equal(readFileSync(join(served, "a.md"), "utf8"), "old\n");
    assert.deepEqual(readdirSync(served).sort(), Object.keys(files).sort(), "no temporary file left");
  } finally {
    temp.cleanup();
  }
});

/**
 * The Node port with `big` said to be big (its size) and, with `writing`, written to all the time (its
 * identity changes at every lstat), else last changed long ago; `reads` counts its reads, in one go and with
 * pauses. `growing`: every read of `big` also lists a name no read listed before, so each read caches a new
 * listing.
 */
function bigDirPort(
  big: string,
  writing: boolean,
  growing = false,
): { port: FsPort; reads: { oneGo: number; paced: number } } {
  const reads = { oneGo: 0, paced: 0 };
  let tick = 0n;
  const grown = (entries: DirEntry[]) =>
    growing ? [...entries, { name: `new-${reads.oneGo + reads.paced}.dat`, kind: "file" as const }] : entries;
  const port: FsPort = {
    ...nodePort,
    lstat(path) {
      const info = nodePort.lstat(path);
      if (path !== big || !info) return info;
      const changed = writing ? BigInt(Date.now()) * 1_000_000n + ++tick : 1_000_000_000n;
      return { ...info, size: PACED_READ_BYTES, mtimeNs: changed, ctimeNs: changed };
    },
    readDir(path) {
      if (path !== big) return nodePort.readDir(path);
      reads.oneGo++;
      return grown(nodePort.readDir(path));
    },
    async readDirPaced(path, pause) {
      if (path === big) reads.paced++;
      const entries = await nodePort.readDirPaced(path, pause);
      await pause();
      return path === big ? grown(entries) : entries;
    },
  };
  return { port, reads };
}

// The root is the big directory in the second case: a walk from it once took its listing as validated only
// for the walk's start, so every file a search opened read the whole root again while it kept changing.
for (const big of ["big", ""]) {
  const at = (rel: string) => big === "" ? rel : `${big}/${rel}`;
  test(
    `lookups below a big directory being written to read it with pauses only, never again in one go${
      big === "" ? " (the root)" : ""
    }`,
    async () => {
      const temp = makeRoot({ [at("f.txt")]: "in big\n", [at("sub/g.txt")]: "in sub\n" });
      try {
        const { port, reads } = bigDirPort(join(realpathSync(temp.path), ...big === "" ? [] : [big]), true);
        const root = openRoot({ root: temp.path, include: ["**"], fs: port });
        const has = (text: string) => (value: unknown) => JSON.stringify(value).includes(text);
        const cases: [Tool, Record<string, unknown>, (value: unknown) => boolean][] = [
          [readTextFile, { path: at("f.txt") }, has("in big")],
          [readTextFile, { path: at("sub/g.txt") }, has("in sub")],
          [searchText, { query: "in", path: at("f.txt") }, has(at("f.txt"))],
          [searchText, { query: "in", ...big === "" ? {} : { path: big } }, has(at("sub/g.txt"))],
          [listDirectory, { path: at("sub") }, has("g.txt")],
          [listDirectory, big === "" ? {} : { path: big }, has("f.txt")],
          [searchFiles, { query: "g.txt" }, has(at("sub/g.txt"))],
        ];
        for (const [tool, args, right] of cases) {
          const value = await call(root, tool, args);
          assert.ok(right(value), `${tool.name} ${JSON.stringify(args)}: ${JSON.stringify(value)}`);
        }
        assert.equal(reads.oneGo, 0, `read in one go ${reads.oneGo} times (with pauses ${reads.paced})`);
        assert.ok(reads.paced >= cases.length, `read with pauses ${reads.paced} times`);
      } finally {
        temp.cleanup();
      }
    },
  );
}

// Another call reading the directory meanwhile caches a later listing of it: a search once took only the
// cached one as what it had validated, and so read the directory again, in one go, in its walk and at each
// file after (the other call reading it while the search's walk looks at the subdirectories, or while the
// search scans).
for (const big of ["big", ""]) {
  const at = (rel: string) => big === "" ? rel : `${big}/${rel}`;
  const scope = big === "" ? {} : { path: big };
  const others: [Tool, Record<string, unknown>][] = [
    [listDirectory, scope],
    [searchFiles, { query: "f1" }],
    [searchText, { query: "absent", path: at("f1.txt") }], // one file: it reads the directory, not 200 files
  ];
  for (const [other, args] of others) {
    for (const during of ["walk", "scan"]) {
      test(`a search over a big ${big === "" ? "root" : "directory"} being written to keeps its own listing while ${other.name} caches a later one during its ${during}`, async () => {
        const files = [
          ...Array.from({ length: 200 }, (_, i) => [at(`f${i}.txt`), `line ${i}\n`]),
          ...Array.from({ length: 10 }, (_, i) => [at(`sub${i}/g.txt`), `line in sub ${i}\n`]),
        ];
        const temp = makeRoot(Object.fromEntries(files));
        try {
          const big_ = join(realpathSync(temp.path), ...big === "" ? [] : [big]);
          const { port, reads } = bigDirPort(big_, true, true);
          let running: Promise<unknown> | undefined;
          let otherDone = false;
          const start = () => running ??= call(root, other, args).then((value) => (otherDone = true, value));
          const root = openRoot({
            root: temp.path,
            include: ["**"],
            fs: {
              ...port,
              lstat(path) {
                // The walk's look at each subdirectory, after the big one's read, is slow: it pauses
                // there, and the other call that starts at the first one reads the big directory meanwhile.
                if (/\/sub\d$/.test(path)) {
                  const slow = performance.now() + 2;
                  while (performance.now() < slow);
                  if (during === "walk") start();
                }
                return port.lstat(path);
              },
              openRead(path) {
                const slow = performance.now() + 1; // a slow disk: the scan pauses every few files
                while (performance.now() < slow);
                if (during === "scan" && path.endsWith("/f50.txt")) start(); // runs in the scan's pauses
                return port.openRead(path);
              },
            },
          });
          const value = await call(root, searchText, { query: "line", ...scope }) as { items: unknown[] };
          assert.equal(value.items?.length, 210, JSON.stringify(value).slice(0, 200));
          assert.ok(otherDone, `${other.name} ran while the search did`);
          assert.ok(typeof await running === "object", `${other.name} answered`);
          assert.equal(reads.oneGo, 0, `read in one go ${reads.oneGo} times (with pauses ${reads.paced})`);
        } finally {
          temp.cleanup();
        }
      });
    }
  }
}

/** Eight files in `big`: `big/fN.txt` holds `file N`. */
function eightInBig(): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`big/f${i}.txt`, `file ${i}\n`]));
}

test("calls that want a big directory while another call reads it wait for that one read", async () => {
  const temp = makeRoot(eightInBig());
  try {
    const { port, reads } = bigDirPort(join(realpathSync(temp.path), "big"), false);
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const values = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => call(root, readTextFile, { path: `big/f${i}.txt` })),
      call(root, listDirectory, { path: "big" }),
      call(root, searchFiles, { query: "f" }),
    ]);
    for (let i = 0; i < 8; i++) {
      assert.ok(JSON.stringify(values[i]).includes(`file ${i}`), JSON.stringify(values[i]));
    }
    assert.equal((values[8] as { items: unknown[] }).items.length, 8);
    assert.equal((values[9] as { items: unknown[] }).items.length, 8);
    assert.deepEqual(reads, { oneGo: 0, paced: 1 });
  } finally {
    temp.cleanup();
  }
});

test("a call that waits for another's read of a big directory takes it only as it would take a cached one", async () => {
  // `big` changed just now, so its listing is not trusted yet. While one call reads it, a file is created in
  // the same timestamp tick and a second call starts, asking for that file: it waits for the read under way,
  // which began before the file was there, and must then read the directory itself rather than take it.
  const temp = makeRoot({ "big/a.txt": "a\n" });
  try {
    const big = join(realpathSync(temp.path), "big");
    const stamp = BigInt(Date.now()) * 1_000_000n; // kept by the creation below: the same tick
    let second: Promise<unknown> | undefined;
    const port: FsPort = {
      ...nodePort,
      lstat(path) {
        const info = nodePort.lstat(path);
        return path === big && info
          ? { ...info, size: PACED_READ_BYTES, mtimeNs: stamp, ctimeNs: stamp }
          : info;
      },
      async readDirPaced(path, pause) {
        const entries = nodePort.readDir(path);
        if (second === undefined) {
          writeFileSync(join(big, "new.txt"), "new\n");
          second = call(root, readTextFile, { path: "big/new.txt" }); // `root` is set by then
        }
        busy(15);
        await pause();
        return entries;
      },
    };
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const first = await call(root, listDirectory, { path: "big" });
    assert.deepEqual((first as { items: { name: string }[] }).items.map((i) => i.name), ["a.txt"]);
    assert.ok(JSON.stringify(await second).includes("new\\n"), JSON.stringify(await second));
  } finally {
    temp.cleanup();
  }
});

test("a call cancelled while it waits for another call's read of a big directory stops at once", async () => {
  const temp = makeRoot(eightInBig());
  try {
    const big = join(realpathSync(temp.path), "big");
    const abort = new AbortController();
    let batches = 0;
    let readStarted = () => {};
    const started = new Promise<void>((resolve) => readStarted = resolve);
    const port = slowBigPort(big, (batch) => {
      batches = batch;
      if (batch === 1) readStarted();
      if (batch === 3) abort.abort(); // the waiting call is cancelled while the first one reads
    });
    const root = openRoot({ root: temp.path, include: ["**"], fs: port });
    const order: string[] = [];
    const reading = call(root, listDirectory, { path: "big" }).then((value) => (order.push("read"), value));
    await started; // the listing reads `big`: the read below waits for it
    const waiting = Promise.resolve(
      readTextFile.run({ path: "big/f1.txt" } as never, toolContext(root, abort.signal)),
    )
      .then(() => "answered", (error) => error instanceof ToolError ? error.message : String(error))
      .then((outcome) => (order.push("waiting"), outcome));
    assert.equal(await waiting, "cancelled");
    assert.equal(((await reading) as { items: unknown[] }).items.length, 8);
    assert.deepEqual(order, ["waiting", "read"], "the cancelled call did not wait for the read to end");
    assert.equal(batches, 8, "the directory was read once");
  } finally {
    temp.cleanup();
  }
});

/**
 * The Node port under a racing actor: reading `slow` takes 15 ms, so the walk pauses after it, and at the
 * root-pin check after that pause `swapped` becomes a link to `outside`; `goneOnce` is missing at its first
 * lstat. With `big`, `slow` says it is big (its size) and the walk pauses in the middle of reading it, its
 * names read already. `outside` lists every system call that reached outside the root.
 */
function racingPort(
  base: string,
  { slow, swapped, goneOnce, big }: { slow: string; swapped: string; goneOnce?: string; big?: boolean },
): { port: FsPort; outside: string[]; swappedYet(): boolean } {
  const served = join(base, "root");
  const inside = (real: string) => real === served || real.startsWith(`${served}/`);
  const outside: string[] = [];
  let armed = false;
  let done = false;
  const port: FsPort = {
    ...nodePort,
    lstat(path) {
      if (path === served && armed && !done) {
        done = true;
        renameSync(join(served, swapped), join(base, "moved"));
        symlinkSync(join(base, "outside"), join(served, swapped));
      }
      if (path !== served && !inside(realpathSync(dirname(path)))) outside.push(`lstat ${path}`);
      if (goneOnce && path === join(served, goneOnce)) {
        goneOnce = undefined;
        return null;
      }
      const info = nodePort.lstat(path);
      return big && path === join(served, slow) && info ? { ...info, size: PACED_READ_BYTES } : info;
    },
    openRead(path) {
      if (!inside(realpathSync(dirname(path)))) outside.push(`openRead ${path}`);
      return nodePort.openRead(path);
    },
    readDir(path) {
      if (!inside(realpathSync(path))) outside.push(`readDir ${path}`);
      if (path === join(served, slow)) {
        busy(15);
        armed = true;
      }
      return nodePort.readDir(path);
    },
    async readDirPaced(path, pause) {
      if (!inside(realpathSync(path))) outside.push(`readDir ${path}`);
      if (path !== join(served, slow)) return nodePort.readDirPaced(path, pause);
      const entries = nodePort.readDir(path); // through the descriptor opened before the swap
      busy(15);
      armed = true;
      await pause();
      return entries;
    },
  };
  return { port, outside, swappedYet: () => done };
}

/**
 * Runs `tool` once, serving the `.md` files under `root/` of a tree made of `files`, while `race` happens (see
 * `racingPort`); returns what it showed, whether the swap happened, and the system calls outside the root.
 */
async function callRacing(
  files: Record<string, string>,
  race: Parameters<typeof racingPort>[1],
  tool: Tool,
  args: Record<string, unknown>,
): Promise<{ items: unknown[]; swapped: boolean; outside: string[] }> {
  const temp = makeRoot(files);
  try {
    const base = realpathSync(temp.path);
    const { port, outside, swappedYet } = racingPort(base, race);
    const root = openRoot({ root: join(base, "root"), include: ["**/*.md"], fs: port });
    const value = await call(root, tool, args) as { items: unknown[] };
    return { items: value.items, swapped: swappedYet(), outside };
  } finally {
    temp.cleanup();
  }
}

/**
 * Runs each tool on `root/a/b/{l,m,n}` and `root/a/c` with `a/b`, then `a`, replaced by a link to `outside`
 * after the slow `a/b/l` (`big`: while it is read as a big directory), and checks that none of the served
 * files at `outside/<dir>` for each of `outsideDirs` was reached or shown.
 */
async function neverOutside(outsideDirs: readonly string[], big: boolean): Promise<void> {
  const files = {
    "root/a/b/l/x.txt": "",
    "root/a/b/m/": "",
    "root/a/b/n/": "",
    "root/a/c/": "",
    ...Object.fromEntries(outsideDirs.map((d) => [`outside/${d}/OUTSIDE.md`, "secret\n"])),
  };
  const cases: [Tool, Record<string, unknown>, string][] = [
    [searchFiles, { query: "OUTSIDE" }, "a/b"],
    [searchFiles, { query: "OUTSIDE" }, "a"],
    [searchText, { query: "secret" }, "a/b"],
    [listDirectory, {}, "a/b"],
    [listDirectory, {}, "a"],
  ];
  for (const [tool, args, swapped] of cases) {
    const label = `${tool.name}, ${swapped} swapped`;
    const raced = await callRacing(files, { slow: "a/b/l", swapped, big }, tool, args);
    assert.ok(raced.swapped, `${label}: the walk paused ${big ? "in" : "after"} a/b/l`);
    assert.deepEqual(raced.outside, [], `${label}: reached outside the root`);
    assert.deepEqual(raced.items, [], `${label}: showed what lies outside the root`);
  }
}

test("a parent replaced by a link while a listing pauses is never read through", async () => {
  // After the slow `a/b/l`, `a/b` (or `a`) becomes a link to a tree outside the root holding served files
  // where `m`, `n` and `c` would be. Nothing there may be read, listed, or decide what a listing shows: not
  // the next directory, checked again after the pause, nor its siblings or its parent's, which follow with no
  // pause in between.
  await neverOutside(["m", "n", "c", "b/m", "b/n"], false);
});

test("a parent replaced by a link while a big directory is read is never read or looked at through", async () => {
  // As above, but `a/b` (or `a`) is replaced while `a/b/l`, a big directory, is read: after that read, its
  // parents are checked before the directory itself is looked at again, and the next directory after them.
  await neverOutside(["l", "m", "n", "c", "b/l", "b/m", "b/n"], true);
});

test("a directory the walk's first pass found missing is reached only through parents checked again", async () => {
  // The first pass finds `a/b/c/m` missing and moves on; after the slow `a/b/c/p` it pauses, `a/b` becomes a
  // link meanwhile, and it validates `a/z`. The walk that follows trusts `a`, `a/b` and `a/b/c` as validated
  // and looks up `a/b/c/m` again, and `a/b/c/p` after it: only through `a/b` checked again, never through the
  // link to `outside/c`.
  const raced = await callRacing(
    {
      "root/a/b/c/m/": "",
      "root/a/b/c/p/x.txt": "",
      "root/a/z/": "",
      "outside/c/m/OUTSIDE.md": "",
      "outside/c/p/OUTSIDE.md": "",
    },
    { slow: "a/b/c/p", swapped: "a/b", goneOnce: "a/b/c/m" },
    searchFiles,
    { query: "OUTSIDE" },
  );
  assert.ok(raced.swapped, "the walk paused after a/b/c/p");
  assert.deepEqual(raced.outside, [], "reached outside the root");
  assert.deepEqual(raced.items, [], "showed what lies outside the root");
});

test("search_text opens no file through a parent replaced by a link after its listing walked it", async () => {
  // The walk validates `x/a` and its file, then pauses after the slow `x/z/z1`; `x/a` becomes a link to a
  // directory outside the root meanwhile. The scan that follows must not open `x/a/f.md` through it (the
  // identity it binds for the file it skipped is still an lstat by path: a stat, never an open or a read).
  const raced = await callRacing(
    { "root/x/a/f.md": "needle\n", "root/x/z/z1/": "", "root/x/z/z2/": "", "outside/f.md": "needle\n" },
    { slow: "x/z/z1", swapped: "x/a" },
    searchText,
    { query: "needle" },
  );
  assert.ok(raced.swapped, "the walk paused after x/z/z1");
  assert.deepEqual(
    raced.outside.filter((c) => !c.startsWith("lstat")),
    [],
    "opened or read outside the root",
  );
  assert.deepEqual(raced.items, [], "showed what lies outside the root");
});

/** How the racer of `swapAtOpenPort` runs. */
interface SwapRace {
  /** The big directory read, relative to `root/`. */
  readonly dir: string;
  /** The directory on its path swapped for a link to `<base>/outside/<swapped>`, and back. */
  readonly swapped: string;
  /** How many of the big directory's reads the racer swaps around. */
  readonly swaps: number;
  /** The port proves its reads (the Node port's `pacedReadsProven`), or reads by path as Deno's does. */
  readonly proven: boolean;
  /** The read asked for the directory an lstat through the link shows, as if that lstat raced too. */
  readonly atLstat?: boolean;
  /** The racer swaps around a read of the big directory in one go (`readDir`) too. */
  readonly atReadInOneGo?: boolean;
}

/**
 * The Node port, a racer swapping a directory for a link to one outside the root just before each of the big
 * directory's first reads opens it, and back after. It reports ctimes as Deno does (whole seconds), and `dir`
 * as big as a paced read's and unchanged for 10 s (its times shifted back, so its listing is trusted once read).
 */
function swapAtOpenPort(base: string, race: SwapRace): { port: FsPort; swapsDone(): number } {
  const root = join(base, "root");
  const big = join(root, race.dir);
  const swapped = join(root, race.swapped);
  let done = 0;
  const swapOut = () => {
    renameSync(swapped, join(base, "moved"));
    symlinkSync(join(base, "outside", race.swapped), swapped);
  };
  const swapBack = () => {
    unlinkSync(swapped);
    renameSync(join(base, "moved"), swapped);
  };
  const earlier = 10_000_000_000n;
  const port: FsPort = {
    ...nodePort,
    pacedReadsProven: race.proven,
    lstat(path) {
      const info = nodePort.lstat(path);
      if (info === null) return null;
      const shown = { ...info, ctimeNs: info.ctimeNs - info.ctimeNs % 1_000_000_000n };
      if (path !== big || info.kind !== "directory") return shown;
      return {
        ...shown,
        size: PACED_READ_BYTES,
        mtimeNs: shown.mtimeNs - earlier,
        ctimeNs: shown.ctimeNs - earlier,
      };
    },
    readDir(path) {
      if (path !== big || !race.atReadInOneGo) return nodePort.readDir(path);
      swapOut();
      try {
        return nodePort.readDir(path);
      } finally {
        swapBack();
      }
    },
    async readDirPaced(path, pause, proof) {
      if (path !== big || done >= race.swaps) return await nodePort.readDirPaced(path, pause, proof);
      done++;
      swapOut();
      try {
        const shown = proof && race.atLstat ? { ...proof, info: nodePort.lstat(path)! } : proof;
        return await nodePort.readDirPaced(path, pause, race.proven ? shown : undefined);
      } finally {
        swapBack();
      }
    },
  };
  return { port, swapsDone: () => done };
}

/** Runs `tool` twice on a fresh root with `race` under way; returns both answers as text. */
async function callSwapped(race: SwapRace, tool: Tool, args: Record<string, unknown>): Promise<string[]> {
  const temp = makeRoot({
    [`root/${race.dir}/in.md`]: "",
    [`outside/${race.dir}/OUTSIDE.md`]: "secret\n",
  });
  try {
    const base = realpathSync(temp.path);
    const { port, swapsDone } = swapAtOpenPort(base, race);
    const root = openRoot({ root: join(base, "root"), include: ["**"], fs: port });
    const answers: string[] = [];
    for (let n = 0; n < 2; n++) {
      const value = await call(root, tool, args);
      answers.push(typeof value === "string" ? value : JSON.stringify(value));
    }
    assert.ok(swapsDone() > 0, "the racer swapped");
    return answers;
  } finally {
    temp.cleanup();
  }
}

const SWAPPED_CALLS: [Tool, Record<string, unknown>][] = [
  [listDirectory, { path: "a/big" }],
  [searchFiles, { query: ".md" }],
];

/** On a port that proves its reads, `a/big` or `a` swapped at every read (and as `race` says) lists nothing outside. */
async function assertNoOutsideNames(race: Pick<SwapRace, "atLstat" | "atReadInOneGo">): Promise<void> {
  for (const [tool, args] of SWAPPED_CALLS) {
    for (const swapped of ["a/big", "a"]) {
      for (
        const answer of await callSwapped(
          { ...race, dir: "a/big", swapped, swaps: Infinity, proven: true },
          tool,
          args,
        )
      ) {
        assert.ok(!answer.includes("OUTSIDE"), `${tool.name}, ${swapped}: ${answer}`);
      }
    }
  }
}

test("a big directory swapped for a link and back as its read opens is caught by the stamps above it", async () => {
  // A port that reads by path (Deno's): the swap renames an entry of the directory above, which moves its
  // mtime, so the read is made again. Without that, one swap within a second went unseen.
  for (const [tool, args] of SWAPPED_CALLS) {
    for (const swapped of ["a/big", "a"]) {
      const [first] = await callSwapped({ dir: "a/big", swapped, swaps: 1, proven: false }, tool, args);
      assert.ok(
        !first.includes("OUTSIDE") && first.includes("a/big/in.md"),
        `${tool.name}, ${swapped}: ${first}`,
      );
    }
  }
});

test("a big directory read taken at its last try, unproven, serves that call only: the next one reads again", async () => {
  // A racer swapping at every read wins on a port that reads by path (documented); its listing is never trusted.
  for (const [tool, args] of SWAPPED_CALLS) {
    const [, second] = await callSwapped({ dir: "a/big", swapped: "a", swaps: 3, proven: false }, tool, args);
    assert.ok(!second.includes("OUTSIDE") && second.includes("a/big/in.md"), `${tool.name}: ${second}`);
  }
});

test("a port that proves its reads never lists a big directory through a link swapped in on its way", {
  skip: !nodePort.pacedReadsProven && "the Node port proves its reads on Linux under Node only",
}, async () => {
  // Swapped at every read, and already at the lstat before it, which then shows the outside directory's
  // identity: every directory from the root down is opened no-follow in the one before.
  await assertNoOutsideNames({ atLstat: true });
});

test("a big directory whose proven read was refused is not read in one go by the lookups after it", {
  skip: !nodePort.pacedReadsProven && "the Node port proves its reads on Linux under Node only",
}, async () => {
  // The walk's own lookups meet the directory the pass could not validate; reading it there, by path, in one
  // go, went through the link a racer swapped in for that read too.
  await assertNoOutsideNames({ atReadInOneGo: true });
});

test(
  "a small directory or a file reached through a parent swapped for a link in the instant of its read is refused",
  {
    skip: !nodePort.pacedReadsProven && "the Node port proves its reads on Linux under Node only",
  },
  async () => {
    // `a` is a link to a directory outside only while the port reads `a/b` or opens `a/f.txt` by path, and
    // while it lstats `a/f.txt` (so the file's lstat after the open agrees with it); every other lstat, of
    // `a` and of the directories above, sees the real one. No check by path can see such a swap.
    const temp = makeRoot({
      "root/a/b/in.md": "",
      "root/a/f.txt": "in bytes\n",
      "outside/b/OUTSIDE.md": "",
      "outside/f.txt": "OUT bytes\n",
    });
    try {
      const base = realpathSync(temp.path);
      const a = join(base, "root", "a");
      const [dir, file] = [join(a, "b"), join(a, "f.txt")];
      const swaps = { dir: 0, file: 0 };
      const swapped = <T>(what: keyof typeof swaps, read: () => T): T => {
        swaps[what]++;
        renameSync(a, join(base, "moved"));
        symlinkSync(join(base, "outside"), a);
        try {
          return read();
        } finally {
          unlinkSync(a);
          renameSync(join(base, "moved"), a);
        }
      };
      const port: FsPort = {
        ...nodePort,
        lstat: (path) => path === file ? swapped("file", () => nodePort.lstat(path)) : nodePort.lstat(path),
        readDir: (path, proof) =>
          path === dir ? swapped("dir", () => nodePort.readDir(path, proof)) : nodePort.readDir(path, proof),
        openRead: (path, anchor) =>
          path === file
            ? swapped("file", () => nodePort.openRead(path, anchor))
            : nodePort.openRead(path, anchor),
      };
      const root = openRoot({ root: join(base, "root"), include: ["**"], fs: port });
      const answers = [
        await call(root, listDirectory, { path: "a/b" }),
        await call(root, searchFiles, { query: ".md" }),
        await call(root, readTextFile, { path: "a/f.txt" }),
        await call(root, searchText, { query: "bytes" }),
      ].map((answer) => typeof answer === "string" ? answer : JSON.stringify(answer));
      assert.ok(
        swaps.dir > 0 && swaps.file > 0,
        "the racer swapped at a directory's read and at a file's open",
      );
      assert.deepEqual(answers.filter((answer) => answer.includes("OUT")), []);
      // Unswapped, each is served: the refusals above came from the swap.
      const plain = openRoot({ root: join(base, "root"), include: ["**"], fs: nodePort });
      assert.match(JSON.stringify(await call(plain, listDirectory, { path: "a/b" })), /"a\/b\/in\.md"/);
      assert.match(JSON.stringify(await call(plain, readTextFile, { path: "a/f.txt" })), /"in bytes\\n"/);
    } finally {
      temp.cleanup();
    }
  },
);

test("a write whose root is swapped for a link as it creates its temporary file creates it in the root", {
  skip: !nodePort.pacedReadsProven &&
    "the Node port reads and opens from the root down on Linux under Node only",
}, async () => {
  // The root is a link to a directory outside only while the port creates the temporary file (a racer with
  // write access to the directory holding the root); the call's checks before and after see the real one.
  // The port creates it in the pinned root's own descriptor, so the rename after finds it there.
  const temp = makeRoot({ "root/keep.txt": "", "outside/.keep": "" });
  try {
    const base = realpathSync(temp.path);
    const [rootPath, outside] = [join(base, "root"), join(base, "outside")];
    const port: FsPort = {
      ...nodePort,
      createExclusive(path, mode, anchor) {
        renameSync(rootPath, join(base, "moved"));
        symlinkSync(outside, rootPath);
        try {
          return nodePort.createExclusive(path, mode, anchor);
        } finally {
          unlinkSync(rootPath);
          renameSync(join(base, "moved"), rootPath);
        }
      },
    };
    const root = openRoot({ root: rootPath, include: ["**"], fs: port });
    const answer = await call(root, writeTextFile, { path: "new.txt", content: "WRITTEN" });
    assert.deepEqual(readdirSync(outside), [".keep"], "a file written or left outside the root");
    assert.equal((answer as { bytes?: number }).bytes, 7, JSON.stringify(answer));
    assert.equal(readFileSync(join(rootPath, "new.txt"), "utf8"), "WRITTEN");
  } finally {
    temp.cleanup();
  }
});

test("a resumed search pauses for input while it checks the files before its position: a cancellation stops it", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1_200; i++) files[`f${String(i).padStart(4, "0")}.txt`] = "x\n";
  const temp = makeRoot(files);
  try {
    const plain = openRoot({
      root: temp.path,
      include: ["**"],
      limits: { searchScanFiles: 1_000 },
      fs: nodePort,
    });
    const { cursors } = toolContext(plain); // one key for both calls: the cursor must open
    const first = (await searchText.run({ query: "needle" }, { ...toolContext(plain), cursors })).value;
    assert.ok(first.next_cursor, "the first page stops at its file budget");
    // The resumed call checks the identity of the 1,000 files before its position, one lstat each (slow
    // here); the client cancels during the 300th.
    const abort = new AbortController();
    let lstats = 0;
    const port: FsPort = {
      ...nodePort,
      lstat(path) {
        if (path.endsWith(".txt")) {
          if (++lstats === 300) abort.abort();
          const until = performance.now() + 0.1;
          while (performance.now() < until) {
            // a slow filesystem
          }
        }
        return nodePort.lstat(path);
      },
    };
    const root = openRoot({ root: temp.path, include: ["**"], limits: { searchScanFiles: 1_000 }, fs: port });
    const ctx = { ...toolContext(root, abort.signal), cursors };
    await assert.rejects(
      Promise.resolve(searchText.run({ query: "needle", cursor: first.next_cursor as string }, ctx)),
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.ok(lstats < 1_000, `${lstats} files checked after the cancellation`);
  } finally {
    temp.cleanup();
  }
});

test(`${RUNTIME}: an argument nested past the engine's stack is refused by name, not with a stack error`, async () => {
  await withServer({ "a.txt": "a" }, ["--include", "**"], async (server) => {
    // Written by hand: Node's own JSON.stringify cannot write a value this deep (its stack ends first).
    const deep = "[".repeat(20_000) + '"x"' + "]".repeat(20_000);
    const meta = JSON.stringify(META);
    for (const [tool, key] of [["read_text_file", "path"], ["search_files", "query"]]) {
      const id = `deep-${tool}`;
      const line = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call",` +
        `"params":{"name":"${tool}","arguments":{"${key}":${deep}},"_meta":${meta}}}`;
      const text = toolErrorText(await server.sendLine(line, id));
      assert.match(text, new RegExp(`\\b${key}: must be a string`), text.slice(0, 300));
      assert.doesNotMatch(text, /stack|RangeError/i, text.slice(0, 300));
    }
    assert.equal(structured(await server.call("read_text_file", { path: "a.txt" })).items[0].text, "a");
  });
});

test("a write's name longer than maxPathBytes is refused, as every other tool refuses it, and nothing is written", async () => {
  const temp = makeRoot({});
  try {
    const root = openRoot({ root: temp.path, include: ["**"], limits: { maxPathBytes: 8 }, fs: nodePort });
    assert.equal(
      await call(root, writeTextFile, { path: "longname.txt", content: "x" }),
      'error: path is longer than 8 bytes (maxPathBytes), so it could not be read back: "longname.txt"',
    );
    assert.equal(
      await call(root, readTextFile, { path: "longname.txt" }),
      'error: path is longer than 8 bytes (maxPathBytes): "longname.txt"',
    );
    assert.deepEqual(readdirSync(temp.path), []);
    assert.deepEqual(await call(root, writeTextFile, { path: "a.txt", content: "x" }), {
      path: "a.txt",
      bytes: 1,
      content_hash: "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
    });
  } finally {
    temp.cleanup();
  }
});

test("a write that fails once begun says why in words, and leaves nothing behind", async () => {
  const temp = makeRoot({ "a.txt": "old\n" });
  try {
    const cases: [FsError["code"], string][] = [
      ["denied", "permission denied in the root"],
      ["busy", "the server has too many files open; try again when fewer calls run"],
      ["io", "the filesystem refused it (full, read-only or failing)"],
      ["not_found", "the root changed meanwhile; try again"],
    ];
    for (const [code, why] of cases) {
      const port: FsPort = {
        ...nodePort,
        rename() {
          throw new FsError(code);
        },
      };
      const root = openRoot({ root: temp.path, include: ["**"], fs: port });
      assert.equal(
        await call(root, writeTextFile, { path: "a.txt", content: "new\n" }),
        `error: a.txt was not written, and nothing changed: ${why}`,
        code,
      );
      assert.deepEqual(readdirSync(temp.path), ["a.txt"], `${code}: its temporary file is removed`);
      assert.equal(readFileSync(join(temp.path, "a.txt"), "utf8"), "old\n");
    }
  } finally {
    temp.cleanup();
  }
});

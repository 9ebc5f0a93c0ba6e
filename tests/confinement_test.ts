import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  makeRoot,
  type Response,
  RUNTIME,
  type Server,
  structured,
  type TempRoot,
  toolErrorText,
  traverse,
  withServer,
} from "./_harness.ts";

const ERRNO =
  /\bE(NOENT|LOOP|NOTDIR|ACCES|PERM|ISDIR|NXIO|EXIST|INVAL|IO|BADF|NAMETOOLONG|AGAIN|BUSY|XDEV)\b/;

/**
 * An error text without the quoted argument that ends a refusal: that is the
 * client's own text (here, at times, a host path the test sent).
 */
function withoutEcho(text: string): string {
  return text.replace(/: "(?:[^"\\]|\\.)*"…?$/, "");
}

/** Asserts that an error text is one clean line: no host path, stack frame or errno code. */
function assertClean(text: string, hostPaths: readonly string[]): void {
  for (const path of hostPaths) {
    assert.equal(withoutEcho(text).includes(path), false, `host path in ${JSON.stringify(text)}`);
  }
  assert.equal(text.includes("\n"), false, `more than one line: ${JSON.stringify(text)}`);
  assert.equal(text.includes("    at "), false, `stack frame in ${JSON.stringify(text)}`);
  assert.doesNotMatch(text, ERRNO, `errno code in ${JSON.stringify(text)}`);
}

/** The host paths that must never appear in a response: the root, as given and resolved. */
function hostPaths(...roots: TempRoot[]): string[] {
  return roots.flatMap((r) => [r.path, realpathSync(r.path)]);
}

/** The error text of a refused call, checked for hygiene. */
function refusal(response: Response, paths: readonly string[]): string {
  const text = toolErrorText(response);
  assertClean(text, paths);
  return text;
}

/** A response with the named path replaced, to compare two answers that differ only in it. */
function shape(response: Response, path: string): string {
  assert.equal(response.error, undefined);
  return JSON.stringify(response.result).replaceAll(path, "<path>");
}

async function names(server: Server, path?: string): Promise<string[]> {
  const { items } = await traverse(server, "list_directory", path === undefined ? {} : { path });
  return items.map((i: { name: string }) => i.name);
}

async function served(server: Server, query: string): Promise<string[]> {
  const { items } = await traverse(server, "search_files", { query });
  return items.map((i: { path: string }) => i.path);
}

async function hits(server: Server, query: string, path?: string): Promise<string[]> {
  const { items } = await traverse(server, "search_text", path === undefined ? { query } : { query, path });
  return items.map((i: { path: string; line: number }) => `${i.path}:${i.line}`);
}

test(`${RUNTIME}: an excluded path gets the same answer as a path that does not exist`, async () => {
  const files = {
    "a.txt": "public\n",
    "secret.txt": "EXCLUDED-MARK\n",
    "excluded/inner.txt": "EXCLUDED-MARK\n",
    "excluded/sub/deep.txt": "EXCLUDED-MARK\n",
    "pub/ok.txt": "public\n",
    "pub/hidden.key": "EXCLUDED-MARK\n",
  };
  const args = [
    "--include",
    "**",
    "--exclude",
    "secret.txt",
    "--exclude",
    "excluded/**",
    "--exclude",
    "elink/**",
    "--exclude",
    "**/*.key",
  ];
  await withServer(files, args, async (server, root) => {
    // An excluded name that is a link to a served directory.
    symlinkSync(join(root.path, "pub"), join(root.path, "elink"));
    const paths = hostPaths(root);
    const pairs: [string, string, string][] = [
      ["read_text_file", "secret.txt", "nosuch.txt"],
      ["read_text_file", "excluded/inner.txt", "nosuchdir/inner.txt"],
      ["read_text_file", "excluded/sub/deep.txt", "nosuchdir/sub/deep.txt"],
      ["read_text_file", "pub/hidden.key", "pub/nosuch.key"],
      ["read_text_file", "elink/ok.txt", "nolink/ok.txt"],
      ["read_text_file", "elink/sub/x.txt", "nolink/sub/x.txt"],
      ["read_text_file", "excluded", "nosuchdir"],
      ["list_directory", "excluded", "nosuchdir"],
      ["list_directory", "excluded/sub", "nosuchdir/sub"],
      ["list_directory", "elink", "nolink"],
      ["list_directory", "elink/sub", "nolink/sub"],
      ["list_directory", "secret.txt", "nosuch.txt"],
      ["search_text", "excluded", "nosuchdir"],
      ["search_text", "excluded/sub", "nosuchdir/sub"],
      ["search_text", "excluded/inner.txt", "nosuchdir/inner.txt"],
      ["search_text", "elink", "nolink"],
      ["search_text", "elink/sub", "nolink/sub"],
      ["search_text", "secret.txt", "nosuch.txt"],
      ["search_text", "pub/hidden.key", "pub/nosuch.key"],
    ];
    for (const [tool, excluded, missing] of pairs) {
      const extra = tool === "search_text" ? { query: "MARK" } : {};
      const a = await server.call(tool, { ...extra, path: excluded });
      const b = await server.call(tool, { ...extra, path: missing });
      refusal(a, paths);
      refusal(b, paths);
      assert.equal(shape(a, excluded), shape(b, missing), `${tool} ${excluded} vs ${missing}`);
    }

    assert.deepEqual(await names(server), ["a.txt", "pub"]);
    assert.deepEqual(await names(server, "pub"), ["ok.txt"]);
    assert.deepEqual(await served(server, "."), ["a.txt", "pub/ok.txt"]);
    for (const query of ["secret", "excluded", "inner", "elink", "hidden", ".key"]) {
      assert.deepEqual(await served(server, query), [], query);
    }
    assert.deepEqual(await hits(server, "MARK"), []);
    assert.deepEqual(await hits(server, "public"), ["a.txt:1", "pub/ok.txt:1"]);
    for (const line of server.lines) assert.equal(line.includes("EXCLUDED-MARK"), false);
  });
});

test(`${RUNTIME}: a directory with nothing served is never listed nor named`, async () => {
  const files = {
    "docs/a.md": "# a\n",
    "code/x.ts": "x\n",
    "code/deep/y.ts": "y\n",
    "empty/": "",
    "mixed/only.txt": "t\n",
    "mixed/sub/z.md": "z\n",
  };
  await withServer(files, ["--include", "**/*.md"], async (server, root) => {
    const paths = hostPaths(root);
    assert.deepEqual(await names(server), ["docs", "mixed"]);
    assert.deepEqual(await names(server, "mixed"), ["sub"]);
    assert.deepEqual(await served(server, "/"), ["docs/a.md", "mixed/sub/z.md"]);
    for (const tool of ["list_directory", "search_text", "read_text_file"]) {
      const extra = tool === "search_text" ? { query: "x" } : {};
      for (const unserved of ["code", "code/deep", "empty"]) {
        const a = await server.call(tool, { ...extra, path: unserved });
        const b = await server.call(tool, { ...extra, path: "nosuchdir" });
        refusal(a, paths);
        assert.equal(shape(a, unserved), shape(b, "nosuchdir"), `${tool} ${unserved}`);
      }
    }
  });
  await withServer(
    { "a.txt": "a\n", "empty/": "", "deep/er/": "" },
    ["--include", "**"],
    async (server, root) => {
      const paths = hostPaths(root);
      assert.deepEqual(await names(server), ["a.txt"]);
      for (const tool of ["list_directory", "search_text", "read_text_file"]) {
        const extra = tool === "search_text" ? { query: "a" } : {};
        for (const unserved of ["empty", "deep", "deep/er"]) {
          const a = await server.call(tool, { ...extra, path: unserved });
          const b = await server.call(tool, { ...extra, path: "nosuchdir" });
          refusal(a, paths);
          assert.equal(shape(a, unserved), shape(b, "nosuchdir"), `${tool} ${unserved}`);
        }
      }
    },
  );
});

test(`${RUNTIME}: symbolic links to files and directories are never listed, searched, followed or read`, async () => {
  const outside = makeRoot({ "outside-file.txt": "OUTSIDE-MARK\n", "secret.txt": "OUTSIDE-MARK secret\n" });
  try {
    const files = { "a.txt": "MARK a\n", "inside/secret.txt": "INSIDE-MARK\n" };
    await withServer(files, ["--include", "**"], async (server, root) => {
      const paths = hostPaths(root, outside);
      symlinkSync(join(outside.path, "outside-file.txt"), join(root.path, "flink.txt"));
      symlinkSync(join(root.path, "a.txt"), join(root.path, "innerlink.txt"));
      symlinkSync(outside.path, join(root.path, "outlink"));
      symlinkSync(join(root.path, "inside"), join(root.path, "inlink"));
      symlinkSync("inside", join(root.path, "rellink"));
      symlinkSync(outside.path, join(root.path, "inside", "nested-link"));

      assert.deepEqual(await names(server), ["a.txt", "inside"]);
      assert.deepEqual(await names(server, "inside"), ["secret.txt"]);
      assert.deepEqual(await served(server, "."), ["a.txt", "inside/secret.txt"]);
      assert.deepEqual(await served(server, "link"), []);
      assert.deepEqual(await hits(server, "MARK"), ["a.txt:1", "inside/secret.txt:1"]);
      assert.deepEqual(await hits(server, "OUTSIDE-MARK"), []);

      for (const link of ["flink.txt", "innerlink.txt"]) {
        refusal(await server.call("read_text_file", { path: link }), paths);
        refusal(await server.call("search_text", { query: "MARK", path: link }), paths);
        refusal(await server.call("list_directory", { path: link }), paths);
      }
      for (const dir of ["outlink", "inlink", "rellink", "inside/nested-link"]) {
        refusal(await server.call("read_text_file", { path: `${dir}/secret.txt` }), paths);
        refusal(await server.call("read_text_file", { path: `${dir}/outside-file.txt` }), paths);
        refusal(await server.call("list_directory", { path: dir }), paths);
        refusal(await server.call("list_directory", { path: `${dir}/sub` }), paths);
        refusal(await server.call("search_text", { query: "MARK", path: dir }), paths);
        refusal(await server.call("search_text", { query: "MARK", path: `${dir}/secret.txt` }), paths);
      }
      for (const line of server.lines) {
        assert.equal(line.includes("OUTSIDE-MARK"), false);
        assert.equal(line.includes("inlink/"), false);
        assert.equal(line.includes("rellink/"), false);
      }
    });
  } finally {
    outside.cleanup();
  }
});

test(`${RUNTIME}: a directory or file swapped for a link between two calls is refused on the second`, async () => {
  const outside = makeRoot({ "moved/": "" });
  try {
    const files = { "d/a.txt": "D-MARK\n", "e/a.txt": "E-MARK\n", "f.txt": "F-MARK\n", "keep.txt": "k\n" };
    await withServer(files, ["--include", "**"], async (server, root) => {
      const paths = hostPaths(root, outside);
      const at = (rel: string) => join(root.path, rel);
      // The first calls see real directories and fill the walker's cache.
      for (const dir of ["d", "e"]) {
        assert.equal(
          structured(await server.call("read_text_file", { path: `${dir}/a.txt` })).items.length,
          1,
        );
        assert.deepEqual(await names(server, dir), ["a.txt"]);
        assert.deepEqual(await hits(server, "MARK", dir), [`${dir}/a.txt:1`]);
      }
      assert.deepEqual(await served(server, "."), ["d/a.txt", "e/a.txt", "f.txt", "keep.txt"]);
      assert.equal(structured(await server.call("read_text_file", { path: "f.txt" })).items.length, 1);

      // d now points outside (at its own former content), e back inside, f.txt at a served file.
      const before = server.lines.length;
      renameSync(at("d"), join(outside.path, "moved", "d"));
      symlinkSync(join(outside.path, "moved", "d"), at("d"));
      renameSync(at("e"), at("e-real"));
      symlinkSync(at("e-real"), at("e"));
      renameSync(at("f.txt"), at("f-real.txt"));
      symlinkSync(at("f-real.txt"), at("f.txt"));

      for (const dir of ["d", "e"]) {
        refusal(await server.call("read_text_file", { path: `${dir}/a.txt` }), paths);
        refusal(await server.call("list_directory", { path: dir }), paths);
        refusal(await server.call("search_text", { query: "MARK", path: dir }), paths);
        refusal(await server.call("search_text", { query: "MARK", path: `${dir}/a.txt` }), paths);
      }
      refusal(await server.call("read_text_file", { path: "f.txt" }), paths);
      assert.deepEqual(await names(server), ["e-real", "f-real.txt", "keep.txt"]);
      assert.deepEqual(await served(server, "."), ["e-real/a.txt", "f-real.txt", "keep.txt"]);
      assert.deepEqual(await hits(server, "MARK"), ["e-real/a.txt:1", "f-real.txt:1"]);
      for (const line of server.lines.slice(before)) assert.equal(line.includes("D-MARK"), false);
    });
  } finally {
    outside.cleanup();
  }
});

test(`${RUNTIME}: a FIFO is skipped by listings and searches and refused by read without hanging`, async (t) => {
  const probe = spawnSync("mkfifo", ["--version"], { encoding: "utf8" });
  if (probe.error) {
    t.skip("mkfifo is not available");
    return;
  }
  const files = { "a.txt": "pipe MARK\n", "mixed/b.txt": "MARK b\n", "only/": "" };
  await withServer(files, ["--include", "**"], async (server, root) => {
    const paths = hostPaths(root);
    for (const fifo of ["pipe.txt", "mixed/pipe.txt", "only/pipe.txt"]) {
      const made = spawnSync("mkfifo", [join(root.path, fifo)]);
      assert.equal(made.status, 0, `mkfifo ${fifo}`);
    }
    assert.deepEqual(await names(server), ["a.txt", "mixed"]);
    assert.deepEqual(await names(server, "mixed"), ["b.txt"]);
    assert.deepEqual(await served(server, "pipe"), []);
    assert.deepEqual(await hits(server, "MARK"), ["a.txt:1", "mixed/b.txt:1"]);
    for (const fifo of ["pipe.txt", "mixed/pipe.txt", "only/pipe.txt"]) {
      refusal(await server.call("read_text_file", { path: fifo }), paths);
      refusal(await server.call("search_text", { query: "MARK", path: fifo }), paths);
    }
    // Still responsive afterwards: nothing blocked on the pipes.
    assert.equal(
      structured(await server.call("read_text_file", { path: "a.txt" })).items[0].text,
      "pipe MARK\n",
    );
  });
});

/**
 * A child process that swaps `target.txt` between a real file and a link to
 * `outside` until the file `stop` appears, then reports how often it swapped.
 */
const SWAPPER = `
import { existsSync, renameSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import process from "node:process";
const [root, outside, stop] = process.argv.slice(2);
writeSync(1, "ready\\n");
let n = 0;
for (; !existsSync(stop); n++) {
  symlinkSync(outside, root + "/.swap-link");
  renameSync(root + "/.swap-link", root + "/target.txt");
  writeFileSync(root + "/.swap-file", "INSIDE-CONTENT\\n");
  renameSync(root + "/.swap-file", root + "/target.txt");
}
writeSync(1, "swapped " + n + "\\n");
`;

/** Reads made while the swapper runs; it only stops when told to, after them. */
const MIN_READS = 600;
/** Fewest swaps that make the race meaningful. */
const MIN_SWAPS = 100;

test(`${RUNTIME}: a file raced with a link to an outside file never returns the outside bytes`, async () => {
  const MARK = "OUTSIDE-RACE-MARK-5e1f";
  const outside = makeRoot({ "outside.txt": `${MARK}\n`, "swapper.mjs": SWAPPER });
  try {
    const args = ["--include", "**", "--exclude", ".swap-*"];
    await withServer({ "target.txt": "INSIDE-CONTENT\n" }, args, async (server, root) => {
      const paths = hostPaths(root, outside);
      const script = join(outside.path, "swapper.mjs");
      const runArgs = RUNTIME === "deno" ? ["run", "--allow-read", "--allow-write", script] : [script];
      const target = join(outside.path, "outside.txt");
      const stop = join(outside.path, "stop");
      const child = spawn(process.execPath, [...runArgs, root.path, target, stop], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      child.stdout!.setEncoding("utf8");
      const ready = new Promise<void>((resolve) => {
        child.stdout!.on("data", (chunk: string) => {
          output += chunk;
          if (output.includes("ready\n")) resolve();
        });
      });
      let finished = false;
      const exited = new Promise<number | null>((resolve) =>
        child.on("exit", (code) => {
          finished = true;
          resolve(code);
        })
      );
      let reads = 0;
      let refused = 0;
      try {
        await ready;
        // Every one of these reads races the swapper, which runs until the stop file appears.
        for (let i = 0; i < MIN_READS; i++) {
          assert.equal(finished, false, "the swapper must still be running");
          const response = await server.call("read_text_file", { path: "target.txt" });
          assert.equal(JSON.stringify(response).includes(MARK), false, `iteration ${i}`);
          if (response.result.isError) {
            refusal(response, paths);
            refused++;
          } else {
            assert.equal(response.result.structuredContent.items[0].text, "INSIDE-CONTENT\n");
            reads++;
          }
          if (i % 10 === 0) {
            const search = await server.call("search_text", { query: "MARK" });
            assert.equal(JSON.stringify(search).includes(MARK), false, `search ${i}`);
            const scoped = await server.call("search_text", { query: "CONTENT", path: "target.txt" });
            assert.equal(JSON.stringify(scoped).includes(MARK), false, `scoped search ${i}`);
          }
        }
      } finally {
        writeFileSync(stop, "");
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        await exited;
        clearTimeout(timer);
      }
      const swaps = Number(/swapped (\d+)\n/.exec(output)?.[1] ?? 0);
      assert.ok(swaps >= MIN_SWAPS, `only ${swaps} swaps raced the reads`);
      assert.equal(reads + refused, MIN_READS);
      assert.ok(reads > 0, "the inside file was served between swaps");
      for (const line of server.lines) assert.equal(line.includes(MARK), false);
    });
  } finally {
    outside.cleanup();
  }
});

test(`${RUNTIME}: no error text carries a host path, a stack frame or an errno code`, async () => {
  const files = {
    "a.txt": "a\n",
    "dir/b.txt": "b\n",
    "bin.dat": new Uint8Array([0xff, 0xfe, 0x00, 0x80]),
    "long.txt": "x".repeat(5_000),
    "secret.txt": "s\n",
  };
  const args = ["--include", "**", "--exclude", "secret.txt", "--max-result-bytes", "2048"];
  await withServer(files, args, async (server, root) => {
    const paths = hostPaths(root);
    symlinkSync(join(root.path, "a.txt"), join(root.path, "link.txt"));
    symlinkSync(join(root.path, "dir"), join(root.path, "linkdir"));
    mkdirSync(join(root.path, "sub"));
    const calls: [string, Record<string, unknown>][] = [
      ["read_text_file", { path: root.path + "/a.txt" }],
      ["read_text_file", { path: "../a.txt" }],
      ["read_text_file", { path: "a//b" }],
      ["read_text_file", { path: "C:\\a.txt" }],
      ["read_text_file", { path: "x".repeat(5_000) }],
      ["read_text_file", { path: "nosuch.txt" }],
      ["read_text_file", { path: "secret.txt" }],
      ["read_text_file", { path: "link.txt" }],
      ["read_text_file", { path: "linkdir/b.txt" }],
      ["read_text_file", { path: "dir" }],
      ["read_text_file", { path: "a.txt/x" }],
      ["read_text_file", { path: "bin.dat" }],
      ["read_text_file", { path: "a.txt", cursor: "not-a-cursor" }],
      ["read_text_file", { path: 7 }],
      ["list_directory", { path: "a.txt" }],
      ["list_directory", { path: "/" }],
      ["list_directory", { path: "linkdir" }],
      ["list_directory", { path: "sub" }],
      ["search_files", { query: "" }],
      ["search_files", { query: "x".repeat(300) }],
      ["search_text", { query: "a\nb" }],
      ["search_text", { query: "a", path: "../" }],
      ["search_text", { query: "a", path: "linkdir/b.txt" }],
      ["write_text_file", { path: "Upper.txt", content: "x" }],
      ["write_text_file", { path: "dir", content: "x" }],
      ["write_text_file", { path: "link.txt", content: "x" }],
      ["write_text_file", { path: "sub/a.txt", content: "x" }],
      ["write_text_file", { path: "secret.txt", content: "x" }],
      ["write_text_file", { path: "big.txt", content: "x".repeat(70_000) }],
    ];
    for (const [tool, callArgs] of calls) {
      const response = await server.call(tool, callArgs);
      refusal(response, paths);
    }
    // A stale cursor, too.
    const first = structured(await server.call("read_text_file", { path: "long.txt" }));
    assert.notEqual(first.next_cursor, null);
    writeFileSync(join(root.path, "long.txt"), "y".repeat(6_000));
    refusal(await server.call("read_text_file", { path: "long.txt", cursor: first.next_cursor }), paths);
    for (const line of server.lines) {
      const message = JSON.parse(line);
      for (const block of message.result?.isError ? message.result.content : []) {
        block.text = withoutEcho(block.text);
      }
      for (const path of paths) assert.equal(JSON.stringify(message).includes(path), false, line);
    }
    assert.equal(server.stderr.includes("    at "), false);
  });
});

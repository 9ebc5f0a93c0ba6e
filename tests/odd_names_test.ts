/**
 * Names that are not valid UTF-8 cannot be represented faithfully in JSON,
 * so they are never served: not listed, found, searched or read, and never
 * shown with U+FFFD. A name that really holds U+FFFD is served as itself.
 * Nor is a path the path contract would refuse as an argument (a backslash,
 * a root-level drive prefix, over `maxPathBytes`).
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeRoot,
  RUNTIME,
  startServer,
  structured,
  toolErrorText,
  traverse,
  withServer,
} from "./_harness.ts";
import { SYSTEM_PATH_BYTES } from "../mod.ts";
import { withInProcess } from "./_inprocess.ts";
import { contentHash } from "./_sha256.ts";

test(`${RUNTIME}: a name that is not UTF-8 is never served; a name with U+FFFD is served as itself`, async () => {
  await withServer({ "plain.txt": "MARK plain\n" }, ["--include", "**"], async (server, root) => {
    // Names of raw bytes (0xff is never UTF-8): the shell makes them, whatever this runtime can spell.
    const made = spawnSync("sh", [
      "-c",
      'printf "MARK BYTES-7c1\\n" > "$(printf "odd\\377.txt")" && ' +
      'printf "MARK BYTES-7c1\\n" > "$(printf "only\\377.txt")" && ' +
      'mkdir "$(printf "dir\\377")" && printf "MARK BYTES-7c1\\n" > "$(printf "dir\\377/in.txt")" && ' +
      'mkdir sub && printf "MARK BYTES-7c1\\n" > "$(printf "sub/deep\\377.txt")"',
    ], { cwd: root.path, encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    writeFileSync(join(root.path, "odd\uFFFD.txt"), "MARK REAL-FFFD\n");
    writeFileSync(join(root.path, "sub", "ok.txt"), "MARK sub\n");

    const names = (await traverse(server, "list_directory", {})).items.map((i: { name: string }) => i.name);
    assert.deepEqual(names, ["odd\uFFFD.txt", "plain.txt", "sub"]);
    const sub = (await traverse(server, "list_directory", { path: "sub" })).items;
    assert.deepEqual(sub.map((i: { name: string }) => i.name), ["ok.txt"]);
    const found = (await traverse(server, "search_files", { query: "." })).items;
    assert.deepEqual(found.map((i: { path: string }) => i.path), [
      "odd\uFFFD.txt",
      "plain.txt",
      "sub/ok.txt",
    ]);
    const hits = (await traverse(server, "search_text", { query: "MARK" })).items;
    assert.deepEqual(hits.map((i: { text: string }) => i.text), ["MARK REAL-FFFD", "MARK plain", "MARK sub"]);

    const page = structured(await server.call("read_text_file", { path: "odd\uFFFD.txt" }));
    assert.equal(page.items[0].text, "MARK REAL-FFFD\n");
    for (const path of ["only\uFFFD.txt", "dir\uFFFD/in.txt", "sub/deep\uFFFD.txt"]) {
      assert.equal(toolErrorText(await server.call("read_text_file", { path })), `not found: ${path}`);
    }
    assert.equal(
      toolErrorText(await server.call("list_directory", { path: "dir\uFFFD" })),
      "not found: dir\uFFFD",
    );
    for (const line of server.lines) assert.equal(line.includes("BYTES-7c1"), false, line);
  });
});

test(`${RUNTIME}: a name no argument could name back is not served, so every path shown can be passed back`, async () => {
  const files = {
    "back\\slash.txt": "MARK backslash\n",
    "c:x.txt": "MARK drive\n",
    "d\\dir/in.txt": "MARK below a backslash\n",
    "ok/c:/y.txt": "MARK deeper colon\n", // a drive prefix only at the start of a path
    "ok/a\\b.txt": "MARK deeper backslash\n",
    "plain.txt": "MARK plain\n",
  };
  await withServer(files, ["--include", "**"], async (server) => {
    const shown = [
      "ok/c:/y.txt",
      "plain.txt",
    ];
    const listed = (await traverse(server, "list_directory", {})).items.map((i: { path: string }) => i.path);
    assert.deepEqual(listed, ["ok", "plain.txt"]);
    const found = (await traverse(server, "search_files", { query: "t" })).items.map((i: { path: string }) =>
      i.path
    );
    assert.deepEqual(found, shown);
    const hits = (await traverse(server, "search_text", { query: "MARK" })).items.map((i: { path: string }) =>
      i.path
    );
    assert.deepEqual(hits, shown);
    for (const path of shown) {
      assert.equal(structured(await server.call("read_text_file", { path })).items.length, 1, path);
    }
    for (const line of server.lines) assert.equal(/backslash|drive/.test(line), false, line);
  });
});

test(`${RUNTIME}: a path the system could not open once the root's path is before it is not served`, async () => {
  // A root path of about 2,840 bytes; below it a directory whose absolute path fits in PATH_MAX (4,096 bytes,
  // its NUL included) with a file that fits and one that does not, made by a relative name.
  const temp = makeRoot();
  const segments = (char: string, count: number) => Array.from({ length: count }, () => char.repeat(200));
  const root = join(temp.path, ...segments("r", 14));
  const dir = segments("s", 6).join("/");
  const far = `${"f".repeat(200)}.txt`;
  try {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, "a.txt"), "MARK near\n");
    const made = spawnSync("sh", ["-c", `printf 'MARK far\\n' > ${far}`], { cwd: join(root, dir) });
    assert.equal(made.status, 0, `${made.stderr}`);
    const bytes = (rel: string) => Buffer.byteLength(`${root}/${rel}`) + 1;
    assert.ok(bytes(`${dir}/a.txt`) <= SYSTEM_PATH_BYTES && bytes(`${dir}/${far}`) > SYSTEM_PATH_BYTES);
    const server = startServer(root);
    try {
      const paths = async (tool: string, args: Record<string, unknown>) =>
        (await traverse(server, tool, args)).items.map((i: { path: string }) => i.path);
      assert.deepEqual(await paths("search_files", { query: ".txt" }), [`${dir}/a.txt`]);
      assert.deepEqual(await paths("list_directory", { path: dir }), [`${dir}/a.txt`]);
      assert.deepEqual(await paths("search_text", { query: "MARK" }), [`${dir}/a.txt`]);
    } finally {
      await server.close();
    }
  } finally {
    spawnSync("rm", ["-rf", temp.path]); // the runtimes remove by absolute path, too long for the far file
  }
});

test(`${RUNTIME}: a path over maxPathBytes is not served`, async () => {
  const long = `${"d".repeat(40)}/${"f".repeat(30)}.txt`; // 75 bytes
  await withInProcess({ [long]: "MARK long\n", "short.txt": "MARK short\n" }, {
    limits: { maxPathBytes: 74 },
  }, async (server) => {
    const found = (await traverse(server, "search_files", { query: "." })).items.map((i: { path: string }) =>
      i.path
    );
    assert.deepEqual(found, ["short.txt"]);
    const listed = (await traverse(server, "list_directory", {})).items.map((i: { path: string }) => i.path);
    assert.deepEqual(listed, ["short.txt"]); // its directory holds nothing served
  });
  await withInProcess({ [long]: "MARK long\n" }, { limits: { maxPathBytes: 75 } }, async (server) => {
    const found = (await traverse(server, "search_files", { query: "." })).items.map((i: { path: string }) =>
      i.path
    );
    assert.deepEqual(found, [long]);
  });
});

test(`${RUNTIME}: content_hash escapes a path's tab and newline, so one odd name never hashes like two files`, async () => {
  type Item = { kind?: string; path: string; line?: number; text?: string };
  // The README's framing, one line per item; `escape` false gives what an unescaped framing would hash.
  const framed = (tool: string, items: Item[], escape: boolean) => {
    const field = (p: string) =>
      escape ? p.replaceAll("\\", "\\\\").replaceAll("\t", "\\t").replaceAll("\n", "\\n") : p;
    return contentHash(
      items.map((i) =>
        tool === "list_directory"
          ? `${i.kind}\t${field(i.path)}\n`
          : tool === "search_files"
          ? `${field(i.path)}\n`
          : `${field(i.path)}\t${i.line}\t${i.text}\n`
      ).join(""),
    );
  };
  // Two roots whose pages an unescaped framing cannot tell apart: the server's hashes must differ.
  const pair = async (tool: string, args: Record<string, unknown>, ...roots: Record<string, string>[]) => {
    const pages: { items: Item[]; content_hash: string }[] = [];
    for (const files of roots) {
      await withServer(files, ["--include", "**"], async (server) => {
        const page = structured(await server.call(tool, args));
        assert.equal(page.content_hash, framed(tool, page.items, true), tool);
        pages.push(page);
      });
    }
    assert.equal(framed(tool, pages[0].items, false), framed(tool, pages[1].items, false), tool);
    assert.notEqual(pages[0].content_hash, pages[1].content_hash, tool);
  };
  await pair("list_directory", {}, { "a\nfile\tb": "" }, { a: "", b: "" });
  await pair("search_files", { query: "x" }, { "xa\nxb": "" }, { xa: "", xb: "" });
  await pair("search_text", { query: "MARK" }, { "a\t1\tMARK\nb": "MARK\n" }, { a: "MARK\n", b: "MARK\n" });
});

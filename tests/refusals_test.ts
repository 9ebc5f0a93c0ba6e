/**
 * Refusals a person can act on: a refused argument is named in the error
 * text as the client gave it (JSON-quoted, control characters escaped, cut
 * to 256 bytes), so a program that made many calls can tell which one
 * failed. The content of a write is never echoed.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { RUNTIME, structured, toolErrorText, withServer } from "./_harness.ts";

const PATH_RULE =
  "path must be relative, with no '.', '..' or empty segments, no backslash, NUL or drive prefix";
const WRITE_RULE = "path must be one lowercase file name of [a-z0-9._-], with no directory";

test(`${RUNTIME}: a refused path is named in the error text, quoted, for every tool`, async () => {
  await withServer({ "a.txt": "a\n", "d/b.txt": "b\n" }, ["--include", "**"], async (server) => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["read_text_file", { path: "../package.json" }, `${PATH_RULE}: "../package.json"`],
      ["read_text_file", { path: "" }, 'path must name a file, not the root: ""'],
      ["list_directory", { path: "/etc" }, `${PATH_RULE}: "/etc"`],
      ["list_directory", { path: "d//b.txt" }, `${PATH_RULE}: "d//b.txt"`],
      ["search_text", { query: "a", path: "C:\\d" }, `${PATH_RULE}: "C:\\\\d"`],
      ["search_text", { query: "a", path: "./d" }, `${PATH_RULE}: "./d"`],
      ["read_text_file", { path: "../a\nb\u0000\u2028" }, `${PATH_RULE}: "../a\\nb\\u0000\\u2028"`],
      ["read_text_file", { path: "x/".repeat(3_000) }, `${PATH_RULE}: "${"x/".repeat(128)}"…`],
      // A path that breaks only a length rule is told so.
      [
        "read_text_file",
        { path: "x".repeat(256) },
        `path has a segment longer than 255 bytes: "${"x".repeat(256)}"`,
      ],
      [
        "list_directory",
        { path: "a/".repeat(2_100) + "b" },
        `path is longer than 4096 bytes (maxPathBytes): "${"a/".repeat(128)}"…`,
      ],
      [
        "write_text_file",
        { path: "x".repeat(300), content: "x" },
        `path is longer than 255 bytes, the longest file name: "${"x".repeat(256)}"…`,
      ],
      [
        "write_text_file", // 6 million characters overflowed a pattern's backtracking
        { path: "x".repeat(6_000_000), content: "x" },
        `path is longer than 255 bytes, the longest file name: "${"x".repeat(256)}"…`,
      ],
      // A path that was accepted is shown unquoted, escaped, then cut: still at most 256 bytes.
      ["read_text_file", { path: "\u0001".repeat(250) }, `not found: ${"\\u0001".repeat(42)}…`],
      ["write_text_file", { path: "../evil.txt", content: "x" }, `${WRITE_RULE}: "../evil.txt"`],
      ["write_text_file", { path: "Upper.txt", content: "x" }, `${WRITE_RULE}: "Upper.txt"`],
      ["write_text_file", { path: "d/b.txt", content: "x" }, `${WRITE_RULE}: "d/b.txt"`],
      [
        "write_text_file",
        { path: ".ptc-fs-mcp-0123456789abcdef.tmp", content: "x" },
        'path is reserved for the temporary files of writes, which are never served: ".ptc-fs-mcp-0123456789abcdef.tmp"',
      ],
    ];
    for (const [tool, args, expected] of cases) {
      assert.equal(toolErrorText(await server.call(tool, args)), expected, `${tool} ${JSON.stringify(args)}`);
    }
  });
});

test(`${RUNTIME}: a refused query is named in the error text, quoted and cut`, async () => {
  await withServer({ "a.txt": "a\n" }, ["--include", "**"], async (server) => {
    for (const tool of ["search_files", "search_text"]) {
      assert.equal(
        toolErrorText(await server.call(tool, { query: "one\ntwo" })),
        'query must be one line: "one\\ntwo"',
      );
      assert.equal(
        toolErrorText(await server.call(tool, { query: "carriage\r" })),
        'query must be one line: "carriage\\r"',
      );
      assert.equal(
        toolErrorText(await server.call(tool, { query: "q".repeat(300) })),
        `query is longer than 256 bytes: "${"q".repeat(256)}"…`,
      );
    }
  });
});

test(`${RUNTIME}: a write refusal names the path, never the content`, async () => {
  const content = "CONTENT-MUST-NOT-ECHO ../x\n";
  const args = ["--include", "**", "--exclude", "*.secret", "--max-write-bytes", "64"];
  await withServer({}, args, async (server) => {
    const refusals = [
      { path: "Bad Name", content },
      { path: "x.secret", content },
      { path: "big.txt", content: content.repeat(10) },
    ];
    const texts = [];
    for (const call of refusals) texts.push(toolErrorText(await server.call("write_text_file", call)));
    assert.deepEqual(texts, [
      `${WRITE_RULE}: "Bad Name"`,
      'path is not selected by this root\'s --include/--exclude, so it cannot be written: "x.secret"',
      "content is 270 bytes, more than the 64-byte write limit (--max-write-bytes)",
    ]);
    for (const line of server.lines) assert.equal(line.includes("CONTENT-MUST-NOT-ECHO"), false, line);
  });
});

test(`${RUNTIME}: cursor refusals keep their exact texts`, async () => {
  await withServer({ "a.txt": "a\n", "b.txt": "b\n" }, ["--include", "**"], async (server) => {
    assert.equal(
      toolErrorText(await server.call("list_directory", { cursor: "../not\na-cursor" })),
      "cursor is not valid",
    );
    const first = structured(await server.call("list_directory", { limit: 1 }));
    await server.call("write_text_file", { path: "c.txt", content: "c" });
    assert.equal(
      toolErrorText(await server.call("list_directory", { limit: 1, cursor: first.next_cursor })),
      "the filesystem changed since this cursor was issued; start the traversal again",
    );
  });
});

test(`${RUNTIME}: arguments that break the input schema are isError results naming the argument and value`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["read_text_file", { path: 42 }, "path: must be a string: 42"],
      ["list_directory", { limit: 0 }, "limit: must be at least 1: 0"],
      ["list_directory", { limit: 1.5 }, "limit: must be a whole number below 2^53: 1.5"],
      ["search_files", { query: "a", limit: "3" }, 'limit: must be a whole number below 2^53: "3"'],
      [
        "list_directory",
        { limit: 2 ** 53 + 2 },
        "limit: must be a whole number below 2^53: 9007199254740994",
      ],
      ["search_text", { query: "" }, 'query: must not be empty: ""'],
      ["search_files", {}, "query: is required"],
      ["list_directory", { path: { a: "x\u2028" } }, 'path: must be a string: {"a":"x\\u2028"}'],
      ["list_directory", { cursor: Array(300).fill(1) }, `cursor: must be a string: [${"1,".repeat(127)}1…`],
      ["write_text_file", { path: "a.txt", content: 5 }, "content: must be a string"], // a write's content: never
    ];
    for (const [tool, args, expected] of cases) {
      assert.equal(
        toolErrorText(await server.call(tool, args)),
        `Input validation error: Invalid arguments for tool ${tool}: ${expected}`,
        JSON.stringify(args),
      );
    }
    // An unknown key is the client's text: quoted like any refused argument, so the text stays one line.
    const unknown = toolErrorText(await server.call("list_directory", { "pa\nth": "a", other: 1 }));
    assert.match(unknown, /: unknown argument "pa\\nth" and 1 more$/);
    // deno-lint-ignore no-control-regex
    assert.equal(/[\u0000-\u001f]/.test(unknown), false, JSON.stringify(unknown));
  });
});

test(`${RUNTIME}: an argument named __proto__ is refused as unknown, and nothing is written`, async () => {
  await withServer({ "a.txt": "a\n" }, ["--include", "**"], async (server, root) => {
    // Only parsed JSON holds `__proto__` as a member (in a literal it sets the prototype): the SDK's request
    // parser would drop it unseen.
    const cases: [string, string][] = [
      ["search_files", '{"query": "a", "__proto__": {"x": 1}}'],
      ["list_directory", '{"__proto__": 5}'],
      ["write_text_file", '{"path": "ok.txt", "content": "x", "__proto__": {"path": "evil.txt"}}'],
    ];
    for (const [tool, json] of cases) {
      const args = JSON.parse(json);
      assert.equal(Object.hasOwn(args, "__proto__"), true);
      assert.equal(
        toolErrorText(await server.call(tool, args)),
        `Input validation error: Invalid arguments for tool ${tool}: unknown argument "__proto__"`,
        json,
      );
    }
    assert.deepEqual(readdirSync(root.path), ["a.txt"]);
  });
});

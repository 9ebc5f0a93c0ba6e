/**
 * Names that are not valid UTF-8 cannot be represented faithfully in JSON,
 * so they are never served: not listed, found, searched or read, and never
 * shown with U+FFFD. A name that really holds U+FFFD is served as itself.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUNTIME, structured, toolErrorText, traverse, withServer } from "./_harness.ts";

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

/**
 * A directory or file the server may not read (permissions) serves nothing:
 * the whole-tree tools skip it and keep working, and a call naming it or a
 * path below it gets `permission denied: <path>`, never an internal error.
 *
 * The suite runs as root on the CI machines, where permission bits deny
 * nothing: there the server runs under `setpriv` without the two
 * capabilities that override them (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`),
 * so the kernel checks the bits as it would for any user.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME, startServerUnder, structured, toolErrorText, traverse } from "./_harness.ts";

const DROP = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"];

/** The command prefix under which permission bits deny this user, or why there is none. */
const PREFIX: string[] | string = (() => {
  if (spawnSync("id", ["-u"], { encoding: "utf8" }).stdout.trim() !== "0") return [];
  const probe = spawnSync(DROP[0], [...DROP.slice(1), "true"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return "running as root, and setpriv cannot drop the capabilities";
  return DROP;
})();

test(`${RUNTIME}: an unreadable directory or file serves nothing and is refused by name`, {
  skip: typeof PREFIX === "string" ? PREFIX : false,
}, async () => {
  const root = makeRoot({
    "a.txt": "MARK a\n",
    "open/ok.txt": "MARK ok\n",
    "locked/s.txt": "MARK LOCKED-3b9\n",
    "locked/sub/t.txt": "MARK LOCKED-3b9\n",
    "nolist/g.txt": "MARK LOCKED-3b9\n",
    "secret.txt": "MARK LOCKED-3b9\n",
  });
  chmodSync(join(root.path, "locked"), 0o000);
  chmodSync(join(root.path, "nolist"), 0o311); // may be searched, not read
  chmodSync(join(root.path, "secret.txt"), 0o000);
  const server = startServerUnder(PREFIX as string[], root.path, ["--include", "**"]);
  try {
    const names = async (path?: string) =>
      (await traverse(server, "list_directory", path === undefined ? {} : { path })).items
        .map((i: { name: string }) => i.name);
    const paths = async (tool: string, args: Record<string, unknown>) =>
      (await traverse(server, tool, args)).items.map((i: { path: string }) => i.path);

    // Listings are content-blind: the unreadable file is listed, the unreadable directories are not.
    assert.deepEqual(await names(), ["a.txt", "open", "secret.txt"]);
    assert.deepEqual(await paths("search_files", { query: "." }), ["a.txt", "open/ok.txt", "secret.txt"]);
    assert.deepEqual(await paths("search_text", { query: "MARK" }), ["a.txt", "open/ok.txt"]);

    const refused: [string, Record<string, unknown>, string][] = [
      ["list_directory", { path: "locked" }, "locked"],
      ["list_directory", { path: "locked/sub" }, "locked/sub"],
      ["list_directory", { path: "nolist" }, "nolist"],
      ["read_text_file", { path: "locked" }, "locked"],
      ["read_text_file", { path: "locked/s.txt" }, "locked/s.txt"],
      ["read_text_file", { path: "locked/sub/t.txt" }, "locked/sub/t.txt"],
      ["read_text_file", { path: "secret.txt" }, "secret.txt"],
      ["search_text", { query: "MARK", path: "locked" }, "locked"],
      ["search_text", { query: "MARK", path: "locked/s.txt" }, "locked/s.txt"],
      ["search_text", { query: "MARK", path: "nolist" }, "nolist"],
    ];
    for (const [tool, args, path] of refused) {
      assert.equal(toolErrorText(await server.call(tool, args)), `permission denied: ${path}`, tool);
    }
    // The server keeps serving, and a directory made readable again is served again.
    assert.equal(
      structured(await server.call("read_text_file", { path: "a.txt" })).items[0].text,
      "MARK a\n",
    );
    chmodSync(join(root.path, "locked"), 0o755);
    assert.deepEqual(await names(), ["a.txt", "locked", "open", "secret.txt"]);
    assert.deepEqual(await names("locked"), ["s.txt", "sub"]);
    for (const line of server.lines) {
      assert.equal(line.includes("internal error"), false, line);
      assert.equal(line.includes("LOCKED-3b9"), false, line);
    }
    assert.equal(await server.close(), 0);
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    chmodSync(join(root.path, "nolist"), 0o755);
    chmodSync(join(root.path, "locked"), 0o755);
    root.cleanup();
  }
});

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
import {
  makeRoot,
  RUNTIME,
  serverCommand,
  startServerUnder,
  structured,
  toolErrorText,
  traverse,
} from "./_harness.ts";

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
    "noenter/c.txt": "MARK LOCKED-3b9\n",
    "secret.txt": "MARK LOCKED-3b9\n",
  });
  chmodSync(join(root.path, "locked"), 0o000);
  chmodSync(join(root.path, "nolist"), 0o311); // may be searched, not read
  chmodSync(join(root.path, "noenter"), 0o644); // may be read, not searched: its names list, its files do not open
  chmodSync(join(root.path, "secret.txt"), 0o000);
  const server = startServerUnder(PREFIX as string[], root.path, ["--include", "**"]);
  try {
    const names = async (path?: string) =>
      (await traverse(server, "list_directory", path === undefined ? {} : { path })).items
        .map((i: { name: string }) => i.name);
    const paths = async (tool: string, args: Record<string, unknown>) =>
      (await traverse(server, tool, args)).items.map((i: { path: string }) => i.path);

    // Listings are content-blind: the files that cannot be opened are listed, the unreadable directories
    // are not. A search skips the files it cannot open, in a directory it is given too.
    assert.deepEqual(await names(), ["a.txt", "noenter", "open", "secret.txt"]);
    assert.deepEqual(await names("noenter"), ["c.txt"]);
    assert.deepEqual(await paths("search_files", { query: "." }), [
      "a.txt",
      "noenter/c.txt",
      "open/ok.txt",
      "secret.txt",
    ]);
    assert.deepEqual(await paths("search_text", { query: "MARK" }), ["a.txt", "open/ok.txt"]);
    assert.deepEqual(await paths("search_text", { query: "MARK", path: "noenter" }), []);

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
      // A search naming one file it cannot open is refused, as reading it is.
      ["search_text", { query: "MARK", path: "secret.txt" }, "secret.txt"],
      ["read_text_file", { path: "noenter/c.txt" }, "noenter/c.txt"],
      ["search_text", { query: "MARK", path: "noenter/c.txt" }, "noenter/c.txt"],
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
    assert.deepEqual(await names(), ["a.txt", "locked", "noenter", "open", "secret.txt"]);
    assert.deepEqual(await names("locked"), ["s.txt", "sub"]);
    // The root itself made unreadable after the start: every whole-tree tool says so alike.
    chmodSync(root.path, 0o000);
    for (
      const [tool, args] of [["list_directory", {}], ["search_files", { query: "." }], ["search_text", {
        query: "M",
      }]] as const
    ) {
      assert.equal(toolErrorText(await server.call(tool, args)), "permission denied: the root", tool);
    }
    chmodSync(root.path, 0o755);
    for (const line of server.lines) {
      assert.equal(line.includes("internal error"), false, line);
      assert.equal(line.includes("LOCKED-3b9"), false, line);
    }
    assert.equal(await server.close(), 0);
  } finally {
    chmodSync(root.path, 0o755);
    await server.close().catch(() => server.child.kill("SIGKILL"));
    chmodSync(join(root.path, "nolist"), 0o755);
    chmodSync(join(root.path, "noenter"), 0o755);
    chmodSync(join(root.path, "locked"), 0o755);
    root.cleanup();
  }
});

test(`${RUNTIME}: a root its permission bits refuse ends the start with one line that says what to grant`, {
  skip: typeof PREFIX === "string" ? PREFIX : false,
}, () => {
  const root = makeRoot({ "a.txt": "a\n" });
  chmodSync(root.path, 0o311); // may be entered, not read
  try {
    const { cmd, args } = serverCommand(root.path, ["--root", root.path, "--include", "**"]);
    const [program, ...rest] = [...PREFIX as string[], cmd, ...args];
    const run = spawnSync(program, rest, { encoding: "utf8", input: "" });
    assert.equal(run.status, 64, run.stderr);
    const grant =
      "grant read and write permission on its real path (on Deno: --allow-read and --allow-write), " +
      "and give that path as the root (no symlink in it)";
    assert.equal(run.stderr, `ptc-fs-mcp: --root ${JSON.stringify(root.path)} is not permitted; ${grant}\n`);
    assert.equal(run.stdout, "");
  } finally {
    chmodSync(root.path, 0o755);
    root.cleanup();
  }
});

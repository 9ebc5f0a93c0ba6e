/**
 * The command line's manners, on the real binary of each runtime: `-h`,
 * limit flags that name the bound they crossed, globs and dash values named
 * by their flag, a root named by the
 * absolute path that was tried, and the refusal to start where `node:fs`
 * lacks the no-follow open.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { ChildClient } from "./_client.ts";
import { makeRoot, NODE_CLI, RUNTIME, serverCommand, type TempRoot } from "./_harness.ts";
import { MAX_LIMIT, MAX_WRITE_BYTES_LIMIT } from "../src/limits.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Runs the server of this runtime with `args`, in `root` (also its permission scope), stdin closed. */
function cli(root: TempRoot, args: readonly string[]) {
  const { cmd, args: argv } = serverCommand(root.path, args);
  return spawnSync(cmd, argv, { cwd: root.path, encoding: "utf8", input: "" });
}

/** Runs `tests/_cli_without`: the command line on a port built without the `node:fs` flags in `drop`. */
function cliWithout(root: TempRoot, drop: string, args: readonly string[]) {
  const script = join(HERE, RUNTIME === "deno" ? "_cli_without.ts" : "_cli_without.js");
  const argv = RUNTIME === "deno"
    ? ["run", "--no-prompt", `--allow-read=${root.path}`, `--allow-write=${root.path}`, script]
    : [script];
  return spawnSync(process.execPath, [...argv, drop, ...args], { encoding: "utf8", input: "" });
}

/** A temp root whose path is already real, so a path the server resolves can be predicted. */
function realRoot(files: Record<string, string> = {}): TempRoot {
  const root = makeRoot(files);
  return { path: realpathSync(root.path), cleanup: root.cleanup };
}

test(`${RUNTIME}: -h prints the same help as --help and exits 0`, () => {
  const root = realRoot();
  try {
    const long = cli(root, ["--help"]);
    const short = cli(root, ["-h"]);
    assert.equal(short.status, 0, short.stderr);
    assert.equal(short.stderr, "");
    assert.equal(short.stdout, long.stdout);
    assert.match(short.stdout, /^Usage: ptc-fs-mcp --root <dir>/);
    assert.match(short.stdout, /\n {2}-h, --help {16}print this help\n/);
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: a limit flag past its largest value names that bound and the flag`, () => {
  const root = realRoot();
  try {
    const bounds = [
      ["--max-write-bytes", MAX_WRITE_BYTES_LIMIT], // a larger write could not arrive in one stdin line
      ["--max-file-bytes", MAX_LIMIT],
      ["--max-result-bytes", MAX_LIMIT],
    ] as const;
    for (const [flag, max] of bounds) {
      for (const value of ["99999999999999999999", String(max + 1)]) {
        const result = cli(root, ["--root", root.path, "--include", "**", flag, value]);
        assert.equal(result.status, 64, `${flag} ${value}`);
        assert.equal(result.stdout, "");
        assert.equal(result.stderr, `ptc-fs-mcp: ${flag} must be at most ${max}\n`);
      }
      // The bound itself is accepted: the server starts, and ends at end of input.
      const largest = cli(root, ["--root", root.path, "--include", "**", flag, String(max)]);
      assert.equal(largest.status, 0, largest.stderr);
      assert.equal(largest.stderr, "");
    }
    const small = cli(root, ["--root", root.path, "--include", "**", "--max-result-bytes", "10"]);
    assert.equal(small.status, 64);
    assert.equal(small.stderr, "ptc-fs-mcp: --max-result-bytes must be at least 1024\n");
    const word = cli(root, ["--root", root.path, "--include", "**", "--max-file-bytes", "1e9"]);
    assert.equal(word.status, 64);
    assert.equal(word.stderr, "ptc-fs-mcp: --max-file-bytes must be a whole number of bytes\n");
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: a bad glob or a value that starts with a dash is named by its flag, on one line`, () => {
  const root = realRoot();
  try {
    const cases: [string[], string][] = [
      [["--include", ""], `--include has an invalid glob "": it is empty`],
      [["--include=", "--include", "**"], `--include has an invalid glob "": it is empty`],
      [
        ["--include", "**", "--exclude", "/a\nb\u001b[31m"],
        `--exclude has an invalid glob "/a\\nb\\u001b[31m": it is absolute`,
      ],
      [["--include", "**", "--max-write-bytes", "-1"], "--max-write-bytes must be a whole number of bytes"],
      [
        ["--include", "-x"],
        "--include needs a value; for one that starts with a dash, write --include=<value>",
      ],
      [["--include", "**", "--b\u001bo\ngus"], "Unknown option '--b\\u001bo\\ngus' (see --help)"],
    ];
    for (const [args, line] of cases) {
      const result = cli(root, ["--root", root.path, ...args]);
      assert.equal(result.status, 64, args.join(" "));
      assert.equal(result.stdout, "");
      assert.equal(result.stderr, `ptc-fs-mcp: ${line}\n`);
    }
    // A long glob is cut in the echo, after its quote.
    const long = cli(root, ["--root", root.path, "--include", `/${"x".repeat(5_000)}`]);
    assert.equal(long.status, 64);
    assert.match(long.stderr, /^ptc-fs-mcp: --include has an invalid glob "\/x{255}"…: it is absolute\n$/);
  } finally {
    root.cleanup();
  }
});

test("deno: a --root outside the permission grants says what to grant", { skip: RUNTIME !== "deno" }, () => {
  const granted = realRoot();
  const root = realRoot({ "a.txt": "a" });
  try {
    const { cmd, args } = serverCommand(granted.path, ["--root", root.path, "--include", "**"]);
    const run = spawnSync(cmd, args, { encoding: "utf8", input: "" });
    assert.equal(run.status, 64);
    const grant =
      "grant read and write permission on its real path (on Deno: --allow-read and --allow-write)";
    const shown = JSON.stringify(root.path);
    assert.equal(run.stderr, `ptc-fs-mcp: --root ${shown} does not exist or cannot be read; ${grant}\n`);
  } finally {
    granted.cleanup();
    root.cleanup();
  }
});

test("deno: run without this deno.json's imports, the entry says in one line that it cannot load", {
  skip: RUNTIME !== "deno",
}, () => {
  const root = makeRoot({ "a.txt": "a" });
  try {
    const { cmd, args } = serverCommand(root.path, ["--root", root.path, "--include", "**"]);
    const run = spawnSync(cmd, [args[0], "--no-config", ...args.slice(1)], { encoding: "utf8", input: "" });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^ptc-fs-mcp: cannot load the server: [^\n]+\n$/);
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: a --root that is missing or a file is named by the absolute path that was tried`, () => {
  const root = realRoot({ "notes.txt": "x" });
  try {
    const missing = cli(root, ["--root", "workspace", "--include", "**"]);
    assert.equal(missing.status, 64);
    assert.equal(missing.stdout, "");
    assert.equal(
      missing.stderr,
      `ptc-fs-mcp: --root ${JSON.stringify(join(root.path, "workspace"))} does not exist or cannot be read\n`,
    );
    const file = cli(root, ["--root", "./notes.txt", "--include", "**"]);
    assert.equal(file.status, 64);
    assert.equal(
      file.stderr,
      `ptc-fs-mcp: --root ${JSON.stringify(join(root.path, "notes.txt"))} is not a directory\n`,
    );
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: where node:fs has no O_NOFOLLOW the server refuses to start with one line`, () => {
  const root = realRoot({ "a.txt": "a" });
  try {
    const args = ["--root", root.path, "--include", "**"];
    // The same entry with every flag present serves (and ends at end of input).
    const whole = cliWithout(root, "-", args);
    assert.equal(whole.status, 0, whole.stderr);
    assert.equal(whole.stderr, "");
    const expected = (missing: string) =>
      `ptc-fs-mcp: cannot start on this platform: node:fs has no ${missing}, without which opening a file ` +
      "could follow a symbolic link or hang on a FIFO (Windows is not supported)\n";
    for (
      const [drop, missing] of [
        ["O_NOFOLLOW", "O_NOFOLLOW"],
        ["O_NONBLOCK", "O_NONBLOCK"],
        ["O_NOFOLLOW,O_NONBLOCK", "O_NOFOLLOW and O_NONBLOCK"],
      ]
    ) {
      const refused = cliWithout(root, drop, args);
      assert.notEqual(refused.status, 0, drop);
      assert.equal(refused.stdout, "", drop);
      assert.equal(refused.stderr, expected(missing));
    }
  } finally {
    root.cleanup();
  }
});

test("node: the npm command run by Deno says to run cli.ts instead, and serves nothing", {
  skip: (RUNTIME !== "node" || !process.env.PTC_FS_MCP_DENO) &&
    "needs the Deno binary (`deno task test` gives it)",
}, () => {
  // Deno's loop ended after a few requests on this command's stdin handling: it exited without a word.
  const root = realRoot();
  try {
    const child = spawnSync(process.env.PTC_FS_MCP_DENO!, [
      "run",
      "-A",
      NODE_CLI,
      "--root",
      root.path,
      "--include",
      "**",
    ], {
      encoding: "utf8",
      input: "",
    });
    assert.equal(child.status, 64);
    assert.equal(child.stdout, "");
    assert.equal(
      child.stderr,
      "ptc-fs-mcp: this is the Node.js command; on Deno run cli.ts (@ptcrunner/fs-mcp/cli)\n",
    );
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: the server starts and serves every tool without loading locale data`, async () => {
  // Its first use costs 16–25 ms of start-up (a tool description once formatted a number with it).
  const root = makeRoot({ "a.txt": "alpha\n", "d/b.txt": "beta\n" });
  const { cmd, args } = serverCommand(root.path, ["--root", root.path, "--include", "**"]);
  const guard = join(HERE, RUNTIME === "deno" ? "_no_locale.ts" : "_no_locale.js");
  // Before the script: after `run` on Deno, first on Node.
  args.splice(RUNTIME === "deno" ? 1 : 0, 0, RUNTIME === "deno" ? `--preload=${guard}` : `--import=${guard}`);
  const server = new ChildClient(cmd, args);
  try {
    const tools = (await server.request("tools/list")).result.tools;
    const searchText = tools.find((tool: { name: string }) => tool.name === "search_text");
    assert.equal(
      searchText.outputSchema.properties.items.items.properties.text.description,
      "The whole line without its line break, cut to 1,024 bytes.",
    );
    for (
      const [tool, toolArgs] of [
        ["list_directory", {}],
        ["search_files", { query: "txt" }],
        ["search_text", { query: "a" }],
        ["read_text_file", { path: "d/b.txt" }],
        ["write_text_file", { path: "c.txt", content: "gamma\n" }],
      ] as const
    ) {
      assert.equal((await server.call(tool, toolArgs)).result?.isError, undefined, tool);
    }
    assert.equal(await server.close(), 0);
    assert.match(server.stderr, /^locale guard loaded$/m, "the guard must have run");
    assert.doesNotMatch(server.stderr, /locale data used/);
  } finally {
    await server.kill();
    root.cleanup();
  }
});

/**
 * No reply is lost at shutdown (SPEC section 2): a host that pipes a batch of
 * requests and then closes stdin, or sends SIGTERM or SIGINT, gets an answer
 * to every request the server received, and the process exits with status 0.
 * The batch holds three long `search_text` calls, so answers are still being
 * worked on when the input ends; it is repeated, because a lost answer
 * showed only in some runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeRoot, META, NODE_CLI, REPO, RUNTIME, Server, serverCommand, type TempRoot } from "./_harness.ts";

/** Rounds per way of ending: the old transport lost an answer in 2 to 4 runs of 10. */
const EOF_ROUNDS = 10;
const SIGNAL_ROUNDS = 5;

const request = (id: string, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: META },
});
const call = (id: string, name: string, args: Record<string, unknown>) =>
  request(id, "tools/call", { name, arguments: args });

/** The batch, written at once; `discover` last, so its answer means every line was read. */
const BATCH = [
  call("search-1", "search_text", { query: "absent needle" }),
  call("search-2", "search_text", { query: "absent needle", path: "corpus" }),
  call("search-3", "search_text", { query: "dolor" }),
  call("read", "read_text_file", { path: "corpus/f00.txt" }),
  call("list", "list_directory", {}),
  request("discover", "server/discover"),
];
const IDS = BATCH.map((m) => m.id).sort();

/** About 24 MiB of text, so each search runs well past the first answers. */
function corpus(): TempRoot {
  const line = "lorem ipsum dolor sit amet ".repeat(40) + "\n";
  const files: Record<string, string> = {};
  for (let i = 0; i < 48; i++) files[`corpus/f${String(i).padStart(2, "0")}.txt`] = line.repeat(480);
  return makeRoot(files);
}

interface Outcome {
  ids: string[];
  code: number | null;
  signal: string | null;
}

/**
 * Starts a server, writes the batch, and ends it: by closing stdin right
 * after the batch, or by `signal` once the last request was answered.
 */
async function runBatch(root: string, end: "eof" | "SIGTERM" | "SIGINT"): Promise<Outcome> {
  const server = new Server(root, ["--root", root, "--include", "**"]);
  try {
    const batch = BATCH.map((m) => JSON.stringify(m)).join("\n");
    if (end === "eof") {
      server.writeLine(batch);
      server.child.stdin!.end();
    } else {
      await server.sendLine(batch, "discover"); // one write; `discover`, last, answered
      // Not `child.kill`: Deno's child_process reports a killed child's exit as that signal.
      process.kill(server.child.pid!, end);
    }
    const { code, signal } = await server.exited();
    return { ids: server.lines.map((line) => JSON.parse(line).id), code, signal };
  } finally {
    await server.kill();
  }
}

for (const end of ["eof", "SIGTERM", "SIGINT"] as const) {
  const rounds = end === "eof" ? EOF_ROUNDS : SIGNAL_ROUNDS;
  const how = end === "eof" ? "stdin is closed right after the batch" : `${end} arrives mid-batch`;
  test(`${RUNTIME}: every pipelined request is answered and the exit is 0 when ${how}`, async () => {
    const root = corpus();
    try {
      for (let round = 1; round <= rounds; round++) {
        const outcome = await runBatch(root.path, end);
        assert.deepEqual(
          { ...outcome, ids: outcome.ids.sort() },
          { ids: IDS, code: 0, signal: null },
          `round ${round} of ${rounds}`,
        );
      }
    } finally {
      root.cleanup();
    }
  });
}

/** Requests in the big batch: about 440 KB, far more than a pipe holds, so the runtime reads it in chunks. */
const BIG_BATCH = 3_000;

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${RUNTIME}: ${signal} right after a large batch was written still answers every request in it`, async () => {
    const root = makeRoot({ "a.txt": "a\n" });
    try {
      for (let round = 1; round <= 2; round++) {
        const server = new Server(root.path, ["--root", root.path, "--include", "**"]);
        try {
          await server.call("list_directory", {}); // started
          const batch = Array.from(
            { length: BIG_BATCH },
            (_, i) => JSON.stringify(request(`r${i}`, "tools/list")),
          );
          // The signal follows the write at once: the runtime may have read requests it did not yet hand over.
          await new Promise<void>((resolve, reject) =>
            server.child.stdin!.write(`${batch.join("\n")}\n`, (error) => error ? reject(error) : resolve())
          );
          process.kill(server.child.pid!, signal);
          const { code, signal: killed } = await server.exited();
          const answered = new Set(server.lines.map((line) => JSON.parse(line).id));
          assert.deepEqual({ code, killed }, { code: 0, killed: null }, `round ${round}`);
          assert.equal(
            batch.filter((_, i) => !answered.has(`r${i}`)).length,
            0,
            `round ${round}: unanswered`,
          );
        } finally {
          await server.kill();
        }
      }
    } finally {
      root.cleanup();
    }
  });
}

test(`${RUNTIME}: a client that keeps writing after SIGTERM cannot keep the server from stopping`, async () => {
  const root = makeRoot({ "a.txt": "a\n" });
  const server = new Server(root.path, ["--root", root.path, "--include", "**"]);
  try {
    await server.call("list_directory", {}); // started
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/ping", params: { _meta: META } }) +
      "\n";
    const chunk = line.repeat(500);
    let writing = true;
    const flood = (async () => {
      while (writing) {
        await new Promise<void>((resolve) => server.child.stdin!.write(chunk, () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, 1)); // lets the exit be seen
      }
    })();
    process.kill(server.child.pid!, "SIGTERM");
    const { code, signal } = await server.exited(); // after MAX_INPUT_AFTER_STOP more bytes at most
    writing = false;
    await flood.catch(() => {}); // the pipe closed under it
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  } finally {
    await server.kill();
    root.cleanup();
  }
});

test(`${RUNTIME}: stop signals during start-up are kept as one: what stdin brought is answered, then status 0`, async () => {
  const root = makeRoot({ "a.txt": "a\n" });
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    const script = join(here, `_signal_at_start.${RUNTIME === "deno" ? "ts" : "js"}`);
    const argv = RUNTIME === "deno"
      ? ["run", "--no-prompt", `--allow-read=${root.path}`, `--allow-write=${root.path}`, script]
      : [script];
    const child = spawn(process.execPath, [...argv, "--root", root.path, "--include", "**"]);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => stdout += chunk);
    child.stderr.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    // Stdin stays open: only the signal kept from start-up can end the server.
    for (
      const m of [request("discover", "server/discover"), call("read", "read_text_file", { path: "a.txt" })]
    ) {
      child.stdin.write(JSON.stringify(m) + "\n");
    }
    const [status, signal] = await new Promise<[number | null, string | null]>((resolve) => {
      child.on("close", (code, signal) => resolve([code, signal]));
    });
    child.stdin.destroy();
    assert.equal(signal, null, "not ended by the signal");
    assert.equal(status, 0, stderr);
    const answers = stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((a) => a.id).sort(), ["discover", "read"]);
    assert.equal(answers.find((a) => a.id === "read").result.structuredContent.items[0].text, "a\n");
  } finally {
    root.cleanup();
  }
});

// The test above hands the signals over only once the signal module ran; this one checks that the real entry
// runs that module first. A runtime evaluates no module before every static import is loaded, so a server
// imported statically would leave start-up to the default action of a signal for as long as it loads (on
// Deno, a SIGTERM 35–50 ms after the spawn killed the server before, and is answered now). A regex over the
// source: an import statement starts a line, `import(` and `import.meta` do not match it.
test(`${RUNTIME}: the entry's only static import is the signal module: the server is loaded after it ran`, () => {
  const entry = RUNTIME === "deno" ? join(REPO, "cli.ts") : NODE_CLI;
  const source = readFileSync(entry, "utf8");
  const imports = [...source.matchAll(/^import\s[^;]*?["']([^"']+)["']/gm)].map((m) => m[1]);
  assert.deepEqual(imports, [`./src/cli/signals.${RUNTIME === "deno" ? "ts" : "js"}`]);
  assert.match(source, /[^.\w]import\("\.\//, "the server is imported dynamically");
});

test(`${RUNTIME}: a host that reads only after writing its whole batch and closing stdin gets every answer`, async () => {
  const root = makeRoot({ "a.txt": "hello\n".repeat(50) });
  try {
    const { cmd, args } = serverCommand(root.path, ["--root", root.path, "--include", "**"]);
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"] });
    child.stdout.pause(); // nothing is read until the batch is written: the answers fill the pipe first
    const count = 3_000; // about 750 KB of requests and 2 MB of answers, well past what pipes hold
    const batch = Array.from(
      { length: count },
      (_, i) => JSON.stringify(call(`q${i}`, "search_text", { query: "hello", limit: 5 })) + "\n",
    ).join("");
    // A liveness guard, not a time limit: a server that stops reading its input never lets the write end.
    let guard: ReturnType<typeof setTimeout> | undefined;
    const written = await Promise.race([
      new Promise<boolean>((resolve) => child.stdin.end(batch, () => resolve(true))),
      new Promise<boolean>((resolve) => guard = setTimeout(() => resolve(false), 120_000)),
    ]);
    clearTimeout(guard);
    if (!written) child.kill("SIGKILL");
    assert.ok(written, "the server stopped reading its input while its answers waited to be read");
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => stdout += chunk).resume(); // paused explicitly above
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(status, 0);
    const ids = new Set(stdout.trim().split("\n").map((line) => JSON.parse(line).id));
    assert.equal(ids.size, count);
  } finally {
    root.cleanup();
  }
});

test(`${RUNTIME}: requests written a byte at a time are answered, and the server runs until stdin ends`, async () => {
  // Deno's stdin, paused after each chunk until an immediate, let the loop end between two bytes: the server
  // exited 0 with stdin open and the second request unanswered (3 runs in 4).
  const root = makeRoot({ "a.txt": "a\n" });
  const server = new Server(root.path, ["--root", root.path, "--include", "**"]);
  try {
    const text = ["one", "two"].map((id) => JSON.stringify(request(id, "server/discover")) + "\n").join("");
    for (const byte of text) {
      await new Promise<void>((resolve) => server.child.stdin!.write(byte, () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.ok(server.alive, "still running");
    }
    server.child.stdin!.end();
    const { code, signal } = await server.exited();
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    assert.deepEqual(server.lines.map((line) => JSON.parse(line).id), ["one", "two"]);
  } finally {
    await server.kill();
    root.cleanup();
  }
});

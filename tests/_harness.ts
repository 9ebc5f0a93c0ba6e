/**
 * The test harness, for both runtimes: under `deno test` it drives the Deno
 * server (`deno run` with root-scoped permissions only); under `node --test`
 * (the npm build compiles this suite into `npm/.test/`) it drives
 * `node npm/dist/cli.js`. Roots are made per test in a temp dir.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Which runtime this suite is exercising. */
export const RUNTIME: "deno" | "node" = "Deno" in globalThis ? "deno" : "node";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The repository root: found by walking up to `deno.json`, else `$PTC_FS_MCP_REPO`. */
export const REPO: string = (() => {
  for (let dir = HERE;; dir = dirname(dir)) {
    if (existsSync(join(dir, "deno.json"))) return dir;
    if (dirname(dir) === dir) break;
  }
  const fromEnv = process.env.PTC_FS_MCP_REPO;
  if (fromEnv) return fromEnv;
  throw new Error("cannot find the repository root; set PTC_FS_MCP_REPO");
})();

/** The built Node bin: `<npm out>/dist/cli.js`, beside this suite's compiled copy in `<npm out>/.test/tests/`. */
export const NODE_CLI: string = join(HERE, "..", "..", "dist", "cli.js");

/** The `_meta` every 2026-07-28 request carries. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "ptc-fs-mcp-tests", version: "0" },
};

/** A temp root, removed by `cleanup`. */
export interface TempRoot {
  readonly path: string;
  cleanup(): void;
}

/** Makes a temp root with the given files (`dir/` keys make empty directories). */
export function makeRoot(files: Record<string, string | Uint8Array> = {}): TempRoot {
  const path = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-test-"));
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(path, rel);
    if (rel.endsWith("/")) {
      mkdirSync(abs, { recursive: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** The command that starts the server of this suite's runtime. */
export function serverCommand(root: string, args: readonly string[]): { cmd: string; args: string[] } {
  if (RUNTIME === "deno") {
    return {
      cmd: process.execPath,
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${root}`,
        `--allow-write=${root}`,
        join(REPO, "cli.ts"),
        ...args,
      ],
    };
  }
  return { cmd: process.execPath, args: [NODE_CLI, ...args] };
}

/** A JSON-RPC response as received. */
// deno-lint-ignore no-explicit-any
export type Response = { jsonrpc: "2.0"; id: string | number | null; result?: any; error?: any };

/** Responses awaited by id (the JSON of the id), as both harnesses keep them. */
export type Waiting = Map<string, (r: Response) => void>;

/**
 * Registers a waiter for `message`'s id, sends the message with `write`, and
 * resolves with the response, or rejects after `timeoutMs` or when `write` fails.
 */
export function awaitReply(
  waiting: Waiting,
  message: Record<string, unknown>,
  timeoutMs: number,
  write: () => unknown,
): Promise<Response> {
  const key = JSON.stringify(message.id);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(key);
      reject(new Error(`no response to ${key} within ${timeoutMs} ms`));
    }, timeoutMs);
    waiting.set(key, (r) => {
      clearTimeout(timer);
      resolve(r);
    });
    Promise.resolve().then(write).catch(reject);
  });
}

/** A running server and a line-oriented JSON-RPC client for it. */
export class Server {
  readonly child: ChildProcess;
  /** Every stdout line, raw. */
  readonly lines: string[] = [];
  /** Everything written to stderr. */
  stderr = "";
  #buffer = "";
  #nextId = 1;
  #waiting = new Map<string, (r: Response) => void>();
  #exited: Promise<number | null>;

  /**
   * @param root The root the server may read and write.
   * @param args The server's arguments.
   * @param prefix A command to run the server under (e.g. `strace ... --`); none by default.
   */
  constructor(root: string, args: readonly string[], prefix: readonly string[] = []) {
    const command = serverCommand(root, args);
    const [cmd, ...argv] = [...prefix, command.cmd, ...command.args];
    this.child = spawn(cmd, argv, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.#onData(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => (this.stderr += chunk));
    this.#exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let nl;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      this.lines.push(line);
      let message: Response;
      try {
        message = JSON.parse(line);
      } catch {
        continue; // the test that cares checks `lines`
      }
      const key = JSON.stringify(message.id);
      const resolve = this.#waiting.get(key);
      if (resolve) {
        this.#waiting.delete(key);
        resolve(message);
      }
    }
  }

  /** Writes one raw line to stdin. */
  writeLine(line: string): void {
    this.child.stdin!.write(line + "\n");
  }

  /** Sends a raw message and waits for the response with its id. */
  send(message: Record<string, unknown>, timeoutMs = 20_000): Promise<Response> {
    return awaitReply(this.#waiting, message, timeoutMs, () => this.writeLine(JSON.stringify(message)));
  }

  /** Sends a 2026-07-28 request. */
  request(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = META) {
    return this.send({ jsonrpc: "2.0", id: this.#nextId++, method, params: { ...params, _meta: meta } });
  }

  /** Calls a tool and returns the whole response. */
  call(name: string, args: Record<string, unknown> = {}) {
    return this.request("tools/call", { name, arguments: args });
  }

  /** Closes stdin and waits for the exit code. */
  async close(timeoutMs = 10_000): Promise<number | null> {
    this.child.stdin!.end();
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), timeoutMs));
    const result = await Promise.race([this.#exited, timer]);
    if (result === "timeout") {
      this.child.kill("SIGKILL");
      throw new Error("the server did not exit after stdin closed");
    }
    return result;
  }

  /** Waits for exit (for a server that exits by itself). */
  exited(): Promise<number | null> {
    return this.#exited;
  }
}

/** Starts a server on a root. */
export function startServer(root: string, args: readonly string[] = ["--include", "**"]): Server {
  return new Server(root, ["--root", root, ...args]);
}

/** Starts a server on a root under a wrapping command, e.g. `["strace", "-o", file, "--"]`. */
export function startServerUnder(
  prefix: readonly string[],
  root: string,
  args: readonly string[] = ["--include", "**"],
): Server {
  return new Server(root, ["--root", root, ...args], prefix);
}

/** Runs `fn` with a fresh root and a server on it, cleaning up both. */
export async function withServer(
  files: Record<string, string | Uint8Array>,
  args: readonly string[],
  fn: (server: Server, root: TempRoot) => Promise<void>,
): Promise<void> {
  const root = makeRoot(files);
  const server = startServer(root.path, args);
  try {
    await fn(server, root);
  } finally {
    await server.close().catch(() => server.child.kill("SIGKILL"));
    root.cleanup();
  }
}

/** The structured result of a successful tool call (fails the test otherwise). */
// deno-lint-ignore no-explicit-any
export function structured(response: Response): any {
  if (response.error) throw new Error(`JSON-RPC error: ${JSON.stringify(response.error)}`);
  if (response.result.isError) throw new Error(`tool error: ${response.result.content[0].text}`);
  return response.result.structuredContent;
}

/** The error text of a failed tool call (fails the test otherwise). */
export function toolErrorText(response: Response): string {
  if (response.error) throw new Error(`JSON-RPC error: ${JSON.stringify(response.error)}`);
  if (!response.result.isError) {
    throw new Error(`expected a tool error, got ${JSON.stringify(response.result)}`);
  }
  return response.result.content[0].text;
}

/** Follows `next_cursor` to null and returns every item (and every page). */
export async function traverse(server: Server, tool: string, args: Record<string, unknown>) {
  // deno-lint-ignore no-explicit-any
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const page = structured(await server.call(tool, cursor === null ? args : { ...args, cursor }));
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor !== null && pages.length < 100_000);
  return { items: pages.flatMap((p) => p.items), pages };
}

/**
 * The test harness, for both runtimes: under `deno test` it drives the Deno
 * server (`deno run` with root-scoped permissions only); under `node --test`
 * (the npm build compiles this suite into `npm/.test/`) it drives
 * `node npm/dist/cli.js`. Roots are made per test in a temp dir.
 *
 * @module
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { ChildClient } from "./_client.ts";

export { type Caller, META, type Response, structured, toolErrorText, traverse } from "./_client.ts";

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

/** A running server of this suite's runtime; every stdout line is kept in `lines`. */
export class Server extends ChildClient {
  /** Every stdout line, raw. */
  readonly lines: string[] = [];

  /**
   * @param root The root the server may read and write.
   * @param args The server's arguments.
   * @param prefix A command to run the server under (e.g. `strace ... --`); none by default.
   */
  constructor(root: string, args: readonly string[], prefix: readonly string[] = []) {
    const command = serverCommand(root, args);
    const [cmd, ...argv] = [...prefix, command.cmd, ...command.args];
    super(cmd, argv, { timeoutMs: 20_000 });
  }

  protected override received(line: string): void {
    this.lines.push(line);
    super.received(line);
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

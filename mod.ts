/**
 * ptc-fs-mcp: a small, exact filesystem MCP server (protocol 2026-07-28)
 * that reads and writes files under one confined root. This is the library
 * entry for Deno (JSR); `mod.node.ts` is the same API on Node's port (npm).
 *
 * `openRoot` validates a configuration and pins the root; `createServer`
 * builds the `McpServer` the binary serves, for any transport. The path
 * contract (`normalizeRelative`, `compileGlob`, `createSelector`) and the
 * `FsPort` seam are exported so a host can reuse them.
 *
 * @example Writing and reading a file in-process
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@modelcontextprotocol/client";
 * import { InMemoryTransport } from "@modelcontextprotocol/server";
 * import { createServer, openRoot } from "@ptcrunner/fs-mcp";
 *
 * const dir = Deno.makeTempDirSync();
 * const server = createServer(openRoot({ root: dir, include: ["**"], exclude: ["*.secret"] }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" }, {
 *   versionNegotiation: { mode: { pin: "2026-07-28" } },
 * });
 * await client.connect(clientSide);
 * const call = async (name: string, args: Record<string, unknown>) =>
 *   (await client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;
 * const written = await call("write_text_file", { path: "notes.md", content: "# Notes\n" });
 * const read = await call("read_text_file", { path: "notes.md" });
 * assert.deepEqual(read.items, [{ byte_offset: 0, text: "# Notes\n" }]);
 * assert.equal(read.content_hash, written.content_hash);
 * await client.close();
 * await server.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 *
 * @module
 */
import { denoPort } from "./src/ports/deno.ts";
import { openRoot as openRootWith, type Root, type RootOptions } from "./src/root.ts";

export * from "./src/api.ts";

/**
 * Validates a configuration and pins the root, on Deno's filesystem port
 * unless `options.fs` names another.
 *
 * @param options The root directory, include and exclude globs, limits.
 * @returns The opened root, for `createServer`.
 * @throws {ConfigError} when the root, a glob or a limit is unusable.
 */
export function openRoot(options: RootOptions): Root {
  return openRootWith({ ...options, fs: options?.fs ?? denoPort });
}

/**
 * ptc-fs-mcp: a small, exact filesystem MCP server (protocol 2026-07-28)
 * that reads and writes files under one confined root. This is the library
 * entry for Deno (JSR); the npm package's is `mod.node.ts`, the same API on
 * Node's filesystem port.
 *
 * `openRoot` validates a configuration and pins the root; `createServer`
 * builds the same `McpServer` the binary serves, for any transport. The path
 * contract (`normalizeRelative`, `compileGlob`, `createSelector`) and the
 * `FsPort` seam are exported so a host can reuse them.
 *
 * @example Serving a root in-process
 * ```ts ignore
 * import { createServer, openRoot } from "@ptcrunner/fs-mcp";
 * const root = openRoot({ root: "./workspace", include: ["**"], exclude: ["*.secret"] });
 * const server = createServer(root);
 * await server.connect(myTransport);
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
  return openRootWith({ ...options, fs: options.fs ?? denoPort });
}

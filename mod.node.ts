/**
 * ptc-fs-mcp: a small, exact filesystem MCP server (protocol 2026-07-28)
 * that reads and writes files under one confined root. This is the library
 * entry of the npm package: the API of `mod.ts` (see its example), on Node's
 * filesystem port. `examples/embed.mjs` runs it on Node.
 *
 * @module
 */
import { nodePort } from "./src/ports/node.ts";
import { openRoot as openRootWith, type Root, type RootOptions } from "./src/root.ts";

export * from "./src/api.ts";

/**
 * Validates a configuration and pins the root, on Node's filesystem port
 * unless `options.fs` names another.
 *
 * @param options The root directory, include and exclude globs, limits.
 * @returns The opened root, for `createServer`.
 * @throws {ConfigError} when the root, a glob or a limit is unusable.
 */
export function openRoot(options: RootOptions): Root {
  return openRootWith({ ...options, fs: options?.fs ?? nodePort });
}

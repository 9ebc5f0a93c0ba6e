/**
 * ptc-fs-mcp: a small, exact filesystem MCP server (protocol 2026-07-28)
 * that reads and writes files under one confined root.
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
export { openRoot, type Root, type RootOptions } from "./src/root.ts";
export { createServer, type McpServer, type ServerIdentity } from "./src/server.ts";
export {
  ConfigError,
  INVALID_CURSOR_MESSAGE,
  ROOT_MOVED_MESSAGE,
  STALE_CURSOR_MESSAGE,
  ToolError,
} from "./src/errors.ts";
export { DEFAULT_LIMITS, type Limits } from "./src/limits.ts";
export { normalizeRelative } from "./src/paths.ts";
export { compileGlob } from "./src/glob.ts";
export { createSelector, type Selector } from "./src/selector.ts";
export { NO_ROOT_LEVEL_INCLUDE } from "./src/tools/write_text_file.ts";
export { PROTOCOL_VERSION, SERVER_NAME, VERSION } from "./src/version.ts";
export {
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
  VersionGate,
} from "./src/version_gate.ts";
export type {
  DirectoryHold,
  DirEntry,
  EntryKind,
  FileHandle,
  FileInfo,
  FsErrorCode,
  FsPort,
} from "./src/ports/fs_port.ts";
export { FsError } from "./src/ports/fs_port.ts";

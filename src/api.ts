/**
 * Everything the library exports but `openRoot`, which each entry binds to its runtime's port: `mod.ts`
 * (Deno, JSR), `mod.node.ts` (Node, npm).
 *
 * @module
 */
export type { Root, RootOptions } from "./root.ts";
export { createServer, type McpServer, type ServerIdentity } from "./server.ts";
export {
  BUSY_MESSAGE,
  ConfigError,
  INVALID_CURSOR_MESSAGE,
  ROOT_MOVED_MESSAGE,
  STALE_CURSOR_MESSAGE,
  ToolError,
} from "./errors.ts";
export { DEFAULT_LIMITS, type Limits } from "./limits.ts";
export { normalizeRelative, SYSTEM_PATH_BYTES } from "./paths.ts";
export { compileGlob } from "./glob.ts";
export { createSelector, type Selector } from "./selector.ts";
export { NO_ROOT_LEVEL_INCLUDE } from "./tools/write_text_file.ts";
export { PROTOCOL_VERSION, SERVER_NAME, VERSION } from "./version.ts";
export { type JSONRPCMessage, type Transport, type TransportSendOptions, VersionGate } from "./server.ts";
export type {
  DirectoryHold,
  DirEntry,
  EntryKind,
  FileHandle,
  FileInfo,
  FsErrorCode,
  FsPort,
  ReadProof,
  RootAnchor,
} from "./ports/fs_port.ts";
export { FsError } from "./ports/fs_port.ts";

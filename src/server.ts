/**
 * `createServer`: the `McpServer` the binary serves, for any transport. It
 * advertises only `tools` (the list never changes, so no `listChanged`),
 * registers the five tools in a fixed order, and turns every failure into a
 * one-line `isError` result.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/server";
import { CursorCodec } from "./cursor.ts";
import { ToolError } from "./errors.ts";
import { toolResult } from "./page.ts";
import type { Root } from "./root.ts";
import { SERVER_NAME, VERSION } from "./version.ts";
import type { Tool } from "./tools/tool.ts";
import { listDirectory } from "./tools/list_directory.ts";
import { searchFiles } from "./tools/search_files.ts";
import { searchText } from "./tools/search_text.ts";
import { readTextFile } from "./tools/read_text_file.ts";
import { writeTextFile } from "./tools/write_text_file.ts";

/** The five tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [listDirectory, searchFiles, searchText, readTextFile, writeTextFile];

/** The name and version a server reports in `serverInfo`. */
export interface ServerIdentity {
  /** Server name; default `ptc-fs-mcp`. */
  name: string;
  /** Server version; default the package version. */
  version: string;
}

const INSTRUCTIONS = "Files under one confined root. Paths are relative to the root. Read tools return " +
  "{items, next_cursor, content_hash}: follow next_cursor until it is null. write_text_file replaces a " +
  "file directly in the root, atomically.";

/** How long clients may cache `server/discover` and `tools/list`: the answers never change. */
const CACHE_HINT = { ttlMs: 3_600_000, cacheScope: "private" } as const;

/**
 * Builds the MCP server for an opened root.
 *
 * @example Serving a root over the SDK's in-memory transport
 * ```ts ignore
 * import { createServer, openRoot } from "../mod.ts";
 * const server = createServer(openRoot({ root: "./workspace", include: ["**"] }));
 * ```
 *
 * @param root The root from `openRoot`.
 * @param identity The `serverInfo` to report; defaults to this package's.
 * @returns A server ready for `connect(transport)`.
 */
export function createServer(
  root: Root,
  identity: ServerIdentity = { name: SERVER_NAME, version: VERSION },
): McpServer {
  const serverInfo = { name: identity.name, version: identity.version };
  const server = new McpServer(serverInfo, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { "server/discover": CACHE_HINT, "tools/list": CACHE_HINT },
  });
  const cursors = new CursorCodec();
  for (const tool of TOOLS) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    }, async (args: unknown, ctx) => {
      try {
        const context = {
          root,
          cursors,
          serverInfo,
          requestId: ctx.mcpReq.id,
          maxBytes: root.limits.maxResultBytes,
          signal: ctx.mcpReq.signal,
        };
        return toolResult((await tool.run(args as never, context)) as object);
      } catch (error) {
        return { isError: true, content: [{ type: "text" as const, text: failureText(error) }] };
      }
    });
  }
  // The SDK advertises `tools.listChanged: true` by default; this list never changes.
  delete server.server.getCapabilities().tools?.listChanged;
  return server;
}

/** One short line for a failure: a `ToolError`'s own text, otherwise nothing internal. */
function failureText(error: unknown): string {
  if (error instanceof ToolError) return error.message;
  return "internal error: the call could not be completed";
}

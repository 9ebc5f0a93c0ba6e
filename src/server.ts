/**
 * `createServer`: the `McpServer` the binary serves, for any transport. It
 * advertises only `tools`, registers the five in a fixed order, and turns
 * every failure into a one-line `isError` result.
 *
 * @module
 */
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { CursorCodec } from "./cursor.ts";
import { VersionGate } from "./version_gate.ts";
import { ToolError } from "./errors.ts";
import { checkRoot } from "./confine.ts";
import { FsError } from "./ports/fs_port.ts";
import { type ResultLines, toolResult } from "./result_line.ts";
import type { Root } from "./root.ts";
import { SERVER_NAME, VERSION } from "./version.ts";
import type { Reply, Tool } from "./tools/tool.ts";
import { listDirectory } from "./tools/list_directory.ts";
import { searchFiles } from "./tools/search_files.ts";
import { searchText } from "./tools/search_text.ts";
import { readTextFile } from "./tools/read_text_file.ts";
import { writeTextFile } from "./tools/write_text_file.ts";

/** The five tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [listDirectory, searchFiles, searchText, readTextFile, writeTextFile];

/** The SDK's `McpServer`, as `createServer` returns it: call `connect(transport)` on it. */
export type McpServer = SdkMcpServer;

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

// How long clients may cache `server/discover` and `tools/list`: the answers never change.
const CACHE_HINT = { ttlMs: 3_600_000, cacheScope: "private" } as const;

/**
 * Builds the MCP server for an opened root.
 *
 * @example Serving a root over the SDK's in-memory transport
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@modelcontextprotocol/client";
 * import { InMemoryTransport } from "@modelcontextprotocol/server";
 * import { createServer, openRoot } from "../mod.ts";
 * const dir = Deno.makeTempDirSync();
 * const server = createServer(openRoot({ root: dir, include: ["**"] }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" }, {
 *   versionNegotiation: { mode: { pin: "2026-07-28" } },
 * });
 * await client.connect(clientSide);
 * assert.equal((await client.listTools()).tools.length, 5);
 * await client.close();
 * await server.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 *
 * @param root The root from `openRoot`.
 * @param identity The `serverInfo` to report; defaults to this package's.
 * @returns A server ready for `connect(transport)`: it then speaks 2026-07-28 only.
 */
export function createServer(root: Root, identity?: ServerIdentity): McpServer {
  return buildServer(root, identity);
}

/**
 * `createServer`, also recording each result in `lines`: the binary hands the
 * same `ResultLines` to its stdio transport, which writes a recorded result
 * from its own bytes.
 */
export function buildServer(
  root: Root,
  identity: ServerIdentity = { name: SERVER_NAME, version: VERSION },
  lines?: ResultLines,
): McpServer {
  const serverInfo = { name: identity.name, version: identity.version };
  const server = new SdkMcpServer(serverInfo, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { "server/discover": CACHE_HINT, "tools/list": CACHE_HINT },
  });
  const cursors = new CursorCodec(undefined, root.limits.maxPathBytes);
  for (const tool of TOOLS) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    }, async (args: unknown, ctx) => {
      try {
        const requestId = ctx.mcpReq.id;
        const context = {
          root,
          cursors,
          serverInfo,
          requestId,
          maxBytes: root.limits.maxResultBytes,
          signal: ctx.mcpReq.signal,
        };
        checkRoot(root); // first, before anything is read, listed or written
        // Every later walk starts at the root entry, which must still be the pinned root, so a
        // synchronous tool ends on a checked root; `search_text`, which yields, checks again at its end.
        const { value, writeJson } = (await tool.run(args as never, context)) as Reply<object>;
        return lines ? lines.record(requestId, value, writeJson) : toolResult(value);
      } catch (error) {
        return { isError: true, content: [{ type: "text" as const, text: failureText(error) }] };
      }
    });
  }
  // The SDK advertises `tools.listChanged: true` by default; this list never changes.
  delete server.server.getCapabilities().tools?.listChanged;
  return servedModernOnly(server);
}

/**
 * Makes `connect(transport)` serve as the binary does, on any transport. A
 * bare SDK `connect` has no `server/discover` and serves a 2025-era client
 * through `initialize`; so `connect` hands the transport, behind the
 * `VersionGate`, to the SDK's serving entry (`serveStdio` takes any
 * transport) with `legacy: "reject"`, which then attaches its own channel
 * through the original `connect`. `close` tears the whole connection down.
 */
function servedModernOnly(server: McpServer): McpServer {
  const attach = server.connect.bind(server);
  const detach = server.close.bind(server);
  let connection: { close(): Promise<void> } | undefined;
  server.connect = (transport) => {
    if (connection) return attach(transport); // the serving entry's own channel
    connection = serveStdio(() => server, {
      legacy: "reject",
      transport: new VersionGate(transport),
      onerror: () => {}, // malformed input is answered on the wire; nothing to report
    });
    return Promise.resolve();
  };
  server.close = async () => {
    const current = connection;
    connection = undefined;
    if (current) await current.close(); // ends the entry, which calls back here (then `current` is unset)
    await detach(); // also when the peer ended the connection first: detaching twice is harmless
  };
  return server;
}

/**
 * One short line for a failure: a `ToolError`'s text, control characters
 * escaped (it may echo a client's path, `not found: a\nb`); nothing internal.
 */
function failureText(error: unknown): string {
  if (error instanceof ToolError) return error.message.replace(CONTROL, escapeControl);
  // A filesystem condition is never an internal error; the tools name the path, this is the backstop.
  if (error instanceof FsError) {
    return `the call met a filesystem condition it could not complete (${error.code.replace("_", " ")})`;
  }
  return "internal error: the call could not be completed";
}

// C0 and C1 controls, and the two characters that end a line in JavaScript.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escapeControl(c: string): string {
  const short: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  return short[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

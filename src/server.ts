/**
 * `createServer`: the `McpServer` the binary serves, for any transport, 2026-07-28 only. It advertises only
 * `tools`, registers the five in a fixed order, and turns every failure into a one-line `isError` result. Its
 * `VersionGate` checks every request (the SDK's stdio entry checks only the opening one), so another revision
 * or `initialize` is refused whenever it comes, and the connection stays usable.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCMessage as SdkJSONRPCMessage,
  McpServer as SdkMcpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  type Transport as SdkTransport,
  type TransportSendOptions as SdkTransportSendOptions,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { CursorCodec } from "./cursor.ts";
import { BUSY_MESSAGE, ConfigError, ToolError } from "./errors.ts";
import { escapeControl, quoteArgument } from "./quote.ts";
import { checkRoot } from "./confine.ts";
import { FsError } from "./ports/fs_port.ts";
import { type ResultLines, toolResult } from "./result_line.ts";
import type { Root } from "./root.ts";
import { PROTOCOL_VERSION, SERVER_NAME, VERSION } from "./version.ts";
import { type Reply, type Tool, unknownArguments } from "./tools/tool.ts";
import { listDirectory } from "./tools/list_directory.ts";
import { searchFiles } from "./tools/search_files.ts";
import { searchText } from "./tools/search_text.ts";
import { readTextFile } from "./tools/read_text_file.ts";
import { writeTextFile } from "./tools/write_text_file.ts";

/** The five tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [listDirectory, searchFiles, searchText, readTextFile, writeTextFile];
const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

/** The SDK's `McpServer`, as `createServer` returns it: call `connect(transport)` on it. */
export type McpServer = SdkMcpServer;
/** The SDK's `Transport` interface, which `VersionGate` wraps and implements. */
export type Transport = SdkTransport;
/** A JSON-RPC message, as the SDK's transports carry it. */
export type JSONRPCMessage = SdkJSONRPCMessage;
/** The options of the SDK's `Transport.send`. */
export type TransportSendOptions = SdkTransportSendOptions;

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
 * @throws {ConfigError} when `identity` lacks a string `name` or `version`.
 */
export function createServer(root: Root, identity?: ServerIdentity): McpServer {
  if (
    identity !== undefined && !(typeof identity?.name === "string" && typeof identity.version === "string")
  ) {
    throw new ConfigError("must have a string name and a string version (MCP's serverInfo)", "identity");
  }
  return buildServer(root, identity);
}

/** `createServer`, also recording each result in `lines`, which the binary's stdio transport writes. */
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
    // The SDK reads only the metadata it knows from the config (not `name` or `run`).
    const config = { ...tool, annotations: { ...tool.annotations } };
    server.registerTool(tool.name, config, async (args: unknown, ctx) => {
      const { id: requestId, signal } = ctx.mcpReq;
      const context = { root, cursors, serverInfo, requestId, maxBytes: root.limits.maxResultBytes, signal };
      try {
        // First, before anything is read, listed or written. Later walks start at the root entry, which must
        // still be the pinned root; `search_text`, which yields, checks again at its end.
        checkRoot(root);
        const reply = (await tool.run(args as never, context)) as Reply<object>;
        // A cancelled request gets no answer, so nothing would take its record back: make none.
        if (!lines || signal.aborted) return toolResult(reply.value);
        return reply.writeJson
          ? lines.record(requestId, reply.shape, reply.writeJson)
          : lines.record(requestId, reply.value);
      } catch (error) {
        return { isError: true, content: [{ type: "text" as const, text: failureText(error) }] };
      }
    });
  }
  // The SDK advertises `tools.listChanged: true` by default; this list never changes.
  delete server.server.getCapabilities().tools?.listChanged;
  return servedModernOnly(server, serverInfo);
}

/**
 * Makes `connect(transport)` serve as the binary does, on any transport: behind the `VersionGate`, through
 * the SDK's serving entry (`serveStdio` takes any transport), which rejects 2025-era clients. As the SDK's
 * own `connect`, it rejects when the transport does not start, and when the server is already connected.
 */
function servedModernOnly(server: McpServer, serverInfo: ServerIdentity): McpServer {
  const attach = server.connect.bind(server);
  const detach = server.close.bind(server);
  let connection: { close(): Promise<void> } | undefined;
  let entryConnects = false; // the serving entry asked for the server: its next `connect` is the entry's channel
  server.connect = (transport) => {
    if (entryConnects) {
      entryConnects = false;
      return attach(transport);
    }
    if (connection) return Promise.reject(new Error("the server is already connected; close it first"));
    const gate = new VersionGate(transport, serverInfo);
    const start = gate.start.bind(gate);
    let started = Promise.resolve();
    // The entry starts it at once and keeps the outcome to itself; a start that throws is a rejection too.
    gate.start = () => started = new Promise<void>((resolve) => resolve(start()));
    const current = serveStdio(() => {
      entryConnects = true;
      return server;
    }, {
      legacy: "reject",
      transport: gate,
      onerror: () => {}, // before the first request; after it, the SDK reports through `server.server.onerror`
    });
    connection = current;
    return started.catch((error) => {
      if (connection === current) connection = undefined; // not connected: a retry goes through the gate
      throw error;
    });
  };
  server.close = async () => {
    const current = connection;
    connection = undefined;
    entryConnects = false;
    if (current) await current.close(); // ends the entry, which calls back here (then `current` is unset)
    await detach(); // also when the peer ended the connection first: detaching twice is harmless
  };
  return server;
}

// One short line for a failure: a `ToolError`'s text, control characters escaped (it may echo a client's
// path, `not found: a\nb`); nothing internal.
function failureText(error: unknown): string {
  if (error instanceof ToolError) return escapeControl(error.message);
  // A filesystem condition is never an internal error; the tools name the path, this is the backstop.
  if (error instanceof FsError) {
    if (error.code === "busy") return BUSY_MESSAGE; // wherever it was met: no path is needed to say it
    return `the call met a filesystem condition it could not complete (${error.code.replace("_", " ")})`;
  }
  return "internal error: the call could not be completed";
}

/** Whether a JSON value is an object: not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type Refusal = { code: number; message: string; data?: unknown } | { toolError: string };

/** Why a request must not reach the server (a JSON-RPC error, or a tool's `isError` result), or `null`. */
function refusalFor(message: JSONRPCMessage): Refusal | null {
  if (!("method" in message) || !("id" in message)) return null; // notifications and responses pass
  const params = (message.params ?? {}) as Record<string, unknown>;
  const unsupported = (claim: unknown, initialize = false): Refusal => {
    // What was asked, as a string: a number or boolean as its text (`42`); none, or a structure, as "".
    const requested = typeof claim === "string"
      ? claim
      : typeof claim === "number" || typeof claim === "boolean"
      ? String(claim)
      : "";
    // Both versions in the message, which legacy clients show (not `data`); an odd claim is quoted.
    const shown = /^[\w.-]{1,64}$/.test(requested) ? requested : quoteArgument(requested);
    const why = initialize && requested === PROTOCOL_VERSION ? ", which has no initialize request" : "";
    return {
      code: ProtocolErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version ${shown}: this server speaks only ${PROTOCOL_VERSION}${why}`,
      data: { supported: [PROTOCOL_VERSION], requested },
    };
  };
  const invalid = (what: string, value: unknown, expected: string) => ({
    code: ProtocolErrorCode.InvalidParams,
    message: value === undefined ? `Missing ${what}` : `Invalid ${what}: must be ${expected}`,
  });
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  // A 2025-era opening names its version in params, a 2026-era one in `_meta`.
  if (message.method === "initialize") return unsupported(params.protocolVersion ?? version, true);
  if (typeof version !== "string") {
    return invalid(`params._meta["${PROTOCOL_VERSION_META_KEY}"]`, version, "a version string");
  }
  if (version !== PROTOCOL_VERSION) return unsupported(version);
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (!isObject(capabilities)) {
    return invalid(`params._meta["${CLIENT_CAPABILITIES_META_KEY}"]`, capabilities, "an object");
  }
  // The SDK would refuse a cursor not a string too, with its validator's report (as an internal error): one
  // line instead. A string one was not issued here (the list is one page), so it is invalid too.
  if (message.method === "tools/list" && params.cursor !== undefined) {
    if (typeof params.cursor !== "string") return invalid("params.cursor", params.cursor, "a string");
    return {
      code: ProtocolErrorCode.InvalidParams,
      message: "Invalid cursor: the tool list is one page; send tools/list without one",
    };
  }
  if (message.method === "tools/call") {
    if (typeof params.name !== "string") return invalid("params.name", params.name, "a tool name");
    if (!TOOL_NAMES.includes(params.name)) {
      // The SDK's own answer echoes the name whole, control characters and all: quoted and cut, as any argument.
      return {
        code: ProtocolErrorCode.InvalidParams,
        message: `Unknown tool ${quoteArgument(params.name)}: this server has ${TOOL_NAMES.join(", ")}`,
      };
    }
    const args = params.arguments;
    if (args !== undefined && !isObject(args)) {
      return invalid("params.arguments", args, "an object");
    }
    // The SDK's request parser copies the arguments member by member, and a `__proto__` member (which only
    // parsed JSON can hold) sets the copy's prototype instead: the tool's strict schema would never see it.
    // Refused here as that schema refuses any other unknown argument, in the SDK's words.
    if (args !== undefined && Object.hasOwn(args, "__proto__")) {
      return {
        toolError: `Input validation error: Invalid arguments for tool ${params.name}: ` +
          unknownArguments(["__proto__"]),
      };
    }
  }
  return null;
}

/** Wraps a transport so that every inbound request passes the protocol gate first. */
export class VersionGate implements Transport {
  /** Set by the server side. */
  onclose?: () => void;
  /** Set by the server side. */
  onerror?: (error: Error) => void;
  /** Set by the server side. */
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;
  readonly #serverInfo: ServerIdentity;

  /**
   * Wraps `inner`; pass the gate, not `inner`, to the server.
   * @param serverInfo What the server reports, for the results the gate gives itself; default this package.
   */
  constructor(inner: Transport, serverInfo: ServerIdentity = { name: SERVER_NAME, version: VERSION }) {
    this.#inner = inner;
    this.#serverInfo = { name: serverInfo.name, version: serverInfo.version };
  }

  /** Starts the inner transport, routing its messages through the gate. */
  start(): Promise<void> {
    this.#inner.onclose = () => this.onclose?.();
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onmessage = (message, extra) => {
      const refusal = refusalFor(message);
      if (refusal === null) return this.onmessage?.(message, extra);
      const id = (message as { id: string | number }).id;
      const answer: JSONRPCMessage = "toolError" in refusal
        ? {
          jsonrpc: "2.0",
          id,
          result: {
            content: [{ type: "text", text: refusal.toolError }],
            isError: true,
            resultType: "complete",
            _meta: { [SERVER_INFO_META_KEY]: this.#serverInfo },
          },
        }
        : { jsonrpc: "2.0", id, error: refusal };
      this.#inner.send(answer).catch((error) => this.onerror?.(error));
    };
    return this.#inner.start();
  }

  /** Sends through the inner transport; an error's message as one line (the SDK's may span several). */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const error = (message as { error?: { message?: unknown } }).error;
    if (typeof error?.message === "string" && /[\r\n]/.test(error.message)) {
      message = {
        ...message,
        error: { ...error, message: error.message.replace(/\s*[\r\n]+\s*/g, " ") },
      } as JSONRPCMessage;
    }
    return this.#inner.send(message, options);
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.#inner.close();
  }
}

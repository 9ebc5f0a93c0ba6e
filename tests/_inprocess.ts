/**
 * The in-process harness: `openRoot` + `createServer` from `mod.ts` in the
 * test's own process, for the limits that have no command-line flag
 * (`searchScanBytes`, `readChunkBytes`, `maxPageItems`, ...).
 *
 * The server is wired exactly as the binary wires it, only over the SDK's
 * `InMemoryTransport` instead of stdio: `createServer(root).connect(t)`
 * serves 2026-07-28 only on any transport. The test side speaks
 * raw JSON-RPC messages carrying `_meta`, like the stdio harness, and keeps
 * every response as its encoded line in `lines`.
 *
 * @module
 */
import { CursorCodec } from "../src/cursor.ts";
import type { ToolContext } from "../src/tools/tool.ts";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { createServer, type Limits, openRoot, type Root } from "../mod.ts";
import { type Caller, META, Replies, type Response } from "./_client.ts";
import { makeRoot, type TempRoot } from "./_harness.ts";

/** The root options of an in-process server. */
export interface InProcessOptions {
  include?: readonly string[];
  exclude?: readonly string[];
  limits?: Partial<Limits>;
}

/** A server running in this process, and a raw JSON-RPC client for it. */
export class InProcessServer implements Caller {
  /** The opened root the server serves. */
  readonly root: Root;
  /** Every message the server sent, as its JSON line. */
  readonly lines: string[] = [];
  #client: InMemoryTransport;
  #handle: { close(): Promise<void> };
  #nextId = 1;
  readonly #replies = new Replies();

  private constructor(root: Root, client: InMemoryTransport, handle: { close(): Promise<void> }) {
    this.root = root;
    this.#client = client;
    this.#handle = handle;
    client.onmessage = (message: JSONRPCMessage) => {
      this.lines.push(JSON.stringify(message));
      if ("id" in message) this.#replies.settle(message as unknown as Response);
    };
  }

  /** Opens `path` as a root and serves it in-process. */
  static start(path: string, options: InProcessOptions = {}): Promise<InProcessServer> {
    return InProcessServer.serve(openRoot({
      root: path,
      include: options.include ?? ["**"],
      exclude: options.exclude ?? [],
      limits: options.limits ?? {},
    }));
  }

  /** Serves an opened root in-process (one opened on another port, for example). */
  static async serve(root: Root): Promise<InProcessServer> {
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = createServer(root);
    await handle.connect(serverSide);
    const server = new InProcessServer(root, client, handle);
    await client.start();
    return server;
  }

  /** Sends a raw message and waits for the response with its id. */
  send(message: Record<string, unknown>, timeoutMs = 20_000): Promise<Response> {
    return this.#replies.wait(
      message.id,
      timeoutMs,
      () => this.#client.send(message as unknown as JSONRPCMessage),
    );
  }

  /** Sends a 2026-07-28 request. */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: { meta?: Record<string, unknown> } = {},
  ) {
    const meta = options.meta ?? META;
    return this.send({ jsonrpc: "2.0", id: this.#nextId++, method, params: { ...params, _meta: meta } });
  }

  /** Calls a tool and returns the whole response. */
  call(name: string, args: Record<string, unknown> = {}): Promise<Response> {
    return this.request("tools/call", { name, arguments: args });
  }

  /** Tears the connection down. */
  async close(): Promise<void> {
    await this.#handle.close();
  }
}

/** Runs `fn` with a fresh root and an in-process server on it, cleaning up both. */
export async function withInProcess(
  files: Record<string, string | Uint8Array>,
  options: InProcessOptions,
  fn: (server: InProcessServer, root: TempRoot) => Promise<void>,
): Promise<void> {
  const root = makeRoot(files);
  let server: InProcessServer | undefined;
  try {
    server = await InProcessServer.start(root.path, options);
    await fn(server, root);
  } finally {
    await server?.close();
    root.cleanup();
  }
}

/** What a tool's handler gets, for calling one directly on a root (as the server would). */
export function toolContext(root: Root, signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    root,
    cursors: new CursorCodec(undefined, root.limits.maxPathBytes),
    serverInfo: { name: "test", version: "0" },
    requestId: 1,
    maxBytes: root.limits.maxResultBytes,
    signal,
  };
}

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
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { createServer, type Limits, openRoot, type Root } from "../mod.ts";
import { awaitReply, makeRoot, META, type Response, structured, type TempRoot } from "./_harness.ts";

/** What `traverseAll` needs: anything that can call a tool (either harness). */
export interface Caller {
  call(name: string, args?: Record<string, unknown>): Promise<Response>;
}

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
  #waiting = new Map<string, (r: Response) => void>();

  private constructor(root: Root, client: InMemoryTransport, handle: { close(): Promise<void> }) {
    this.root = root;
    this.#client = client;
    this.#handle = handle;
    client.onmessage = (message: JSONRPCMessage) => {
      this.lines.push(JSON.stringify(message));
      const response = message as unknown as Response;
      if (!("id" in response)) return;
      const key = JSON.stringify(response.id);
      const resolve = this.#waiting.get(key);
      if (resolve) {
        this.#waiting.delete(key);
        resolve(response);
      }
    };
  }

  /** Opens `path` as a root and serves it in-process. */
  static async start(path: string, options: InProcessOptions = {}): Promise<InProcessServer> {
    const root = openRoot({
      root: path,
      include: options.include ?? ["**"],
      exclude: options.exclude ?? [],
      limits: options.limits ?? {},
    });
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = createServer(root);
    await handle.connect(serverSide);
    const server = new InProcessServer(root, client, handle);
    await client.start();
    return server;
  }

  /** Sends a raw message and waits for the response with its id. */
  send(message: Record<string, unknown>, timeoutMs = 20_000): Promise<Response> {
    return awaitReply(
      this.#waiting,
      message,
      timeoutMs,
      () => this.#client.send(message as unknown as JSONRPCMessage),
    );
  }

  /** Sends a 2026-07-28 request. */
  request(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = META) {
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

/**
 * Follows `next_cursor` to null through either harness and returns every
 * item and every page. `limits` (optional) gives the `limit` of each page in
 * turn, cycling, so a traversal may change it between pages.
 */
export async function traverseAll(
  server: Caller,
  tool: string,
  args: Record<string, unknown>,
  options: { limits?: readonly number[]; maxPages?: number } = {},
) {
  // deno-lint-ignore no-explicit-any
  const pages: any[] = [];
  const maxPages = options.maxPages ?? 100_000;
  let cursor: string | null = null;
  do {
    const call: Record<string, unknown> = { ...args };
    if (cursor !== null) call.cursor = cursor;
    if (options.limits) call.limit = options.limits[pages.length % options.limits.length];
    const page = structured(await server.call(tool, call));
    pages.push(page);
    cursor = page.next_cursor;
    if (pages.length >= maxPages && cursor !== null) {
      throw new Error(`${tool} did not finish within ${maxPages} pages`);
    }
  } while (cursor !== null);
  // deno-lint-ignore no-explicit-any
  return { items: pages.flatMap((p) => p.items) as any[], pages };
}

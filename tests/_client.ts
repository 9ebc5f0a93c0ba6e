/**
 * The one JSON-RPC client of the test suite, the stress campaigns and the
 * benchmark: a server process spawned with `node:child_process` (on both
 * runtimes), one JSON message per stdout line, responses matched to requests
 * by id. What a user adds sits in thin subclasses: the suite keeps every line
 * (`_harness.ts`), the stress `Peer` checks every line, the benchmark reads
 * the process's memory. `traverse` follows a cursor through any `Caller`, the
 * in-process server included.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";

/** The `_meta` every 2026-07-28 request carries. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "ptc-fs-mcp-tests", version: "0" },
};

/** A JSON-RPC response as received. */
// deno-lint-ignore no-explicit-any
export type Response = { jsonrpc: "2.0"; id: string | number | null; result?: any; error?: any };

/** Anything that can call a tool: a child process or the in-process server. */
export interface Caller {
  /** Names the server in error messages (`deno server`), when there are several. */
  readonly label?: string;
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<Response>;
}

/** Thrown when a request gets no answer in time, or the server is gone. */
export class NoReply extends Error {}

/** Thrown by `structured` for an answer that is not a page: `text` is the tool's error text, as sent. */
export class CallFailed extends Error {
  constructor(readonly text: string, message: string) {
    super(message);
  }
}

/** Requests awaiting their response, keyed by the JSON of their id. */
export class Replies {
  readonly #waiting = new Map<string, { resolve(r: Response): void; reject(e: Error): void }>();

  /**
   * Registers `id`, runs `write`, and resolves with the response; rejects
   * after `timeoutMs`, when `write` throws, or when `rejectAll` is called.
   */
  wait(id: unknown, timeoutMs: number, write: () => unknown): Promise<Response> {
    const key = JSON.stringify(id);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(key);
        reject(new NoReply(`no response to ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => (clearTimeout(timer), this.#waiting.delete(key));
      this.#waiting.set(key, { resolve: (r) => (done(), resolve(r)), reject: (e) => (done(), reject(e)) });
      Promise.resolve().then(write).catch((e) => this.#waiting.get(key)?.reject(e));
    });
  }

  /** Hands a response to its waiter; `false` when nobody waits for its id. */
  settle(response: Response): boolean {
    const waiter = this.#waiting.get(JSON.stringify(response.id));
    waiter?.resolve(response);
    return waiter !== undefined;
  }

  /** Stops waiting for `id`: its request rejects with `error`. */
  abandon(id: unknown, error: Error): void {
    this.#waiting.get(JSON.stringify(id))?.reject(error);
  }

  /** Rejects every waiting request. */
  rejectAll(error: Error): void {
    for (const waiter of [...this.#waiting.values()]) waiter.reject(error);
  }
}

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: string | null;
}

/** Options of a `ChildClient`. */
export interface ChildOptions {
  /** Names the server in error messages. */
  label?: string;
  /** How long a request may wait for its response (default 30 s). */
  timeoutMs?: number;
  /** The first id `request` uses (default 1). */
  firstId?: number;
  /** The server's working directory. */
  cwd?: string;
  /** The server's whole environment (default: this process's). */
  env?: Record<string, string>;
}

const MAX_STDERR = 256 * 1024;
const decoder = new TextDecoder();

/** A spawned server and a line-oriented JSON-RPC client for it. */
export class ChildClient implements Caller {
  readonly child: ChildProcess;
  readonly label: string;
  /** The start of stderr (up to 256 KiB). */
  stderr = "";
  /** Requests awaiting their response. */
  protected readonly replies: Replies = new Replies();
  readonly #timeoutMs: number;
  #nextId: number;
  #partial: Uint8Array[] = []; // the bytes of a line not yet ended
  #exit: Exit | null = null;
  readonly #exited: Promise<Exit>;

  /**
   * Spawns `cmd args` with piped stdio.
   *
   * @param cmd The executable.
   * @param args Its arguments.
   * @param options A label, the request timeout, the first id, the working directory.
   */
  constructor(cmd: string, args: readonly string[], options: ChildOptions = {}) {
    this.label = options.label ?? "server";
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#nextId = options.firstId ?? 1;
    this.child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdin!.on("error", () => {}); // a write to a server that is gone fails; its exit says why
    this.child.stdout!.on("data", (chunk: Uint8Array) => this.#onData(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      if (this.stderr.length < MAX_STDERR) this.stderr += chunk;
    });
    this.#exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: string | null) => {
        if (this.#exit !== null) return;
        this.#exit = { code, signal };
        const said = this.stderr.replace(/\s+/g, " ").trim().slice(-300);
        this.replies.rejectAll(
          new NoReply(
            `the ${this.label} exited (${code ?? signal}) before answering${said ? `: ${said}` : ""}`,
          ),
        );
        resolve(this.#exit);
      };
      // `close`, not `exit`: the last answers may still be in the pipe when the process exits.
      this.child.on("close", finish);
      this.child.on("error", () => finish(null, null)); // it could not be started
    });
  }

  /** Whether the process still runs. */
  get alive(): boolean {
    return this.#exit === null;
  }

  /** Resolves with the exit code and signal once the process ended and its output is read. */
  exited(): Promise<Exit> {
    return this.#exited;
  }

  #onData(chunk: Uint8Array): void {
    // Split on the byte, decode whole lines: a character may be cut between two chunks.
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const parts = this.#partial;
      this.#partial = [];
      parts.push(chunk.subarray(start, nl));
      this.received(decoder.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts)));
      start = nl + 1;
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
  }

  /** Takes one stdout line: a response settles its request, anything else is ignored. */
  protected received(line: string): void {
    let message: Response;
    try {
      message = JSON.parse(line);
    } catch {
      return; // the caller that cares about raw lines keeps them
    }
    if (message !== null && typeof message === "object" && "id" in message) this.replies.settle(message);
  }

  /** Writes raw text or bytes to stdin (no newline added); nothing once the process is gone. */
  writeRaw(data: string | Uint8Array): void {
    if (this.alive) this.child.stdin!.write(data);
  }

  /** Writes one line to stdin. */
  writeLine(line: string): void {
    this.writeRaw(line + "\n");
  }

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Writes one raw line and waits for the response with id `id`. */
  sendLine(line: string, id: unknown, timeoutMs: number = this.#timeoutMs): Promise<Response> {
    if (!this.alive) return Promise.reject(new NoReply(`the ${this.label} is not running`));
    return this.replies.wait(id, timeoutMs, () => this.writeLine(line));
  }

  /** Sends a message and waits for the response with its id. */
  send(message: Record<string, unknown>, timeoutMs?: number): Promise<Response> {
    return this.sendLine(JSON.stringify(message), message.id, timeoutMs);
  }

  /** Sends a 2026-07-28 request (`meta` replaces the usual `_meta`). */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: { meta?: Record<string, unknown>; timeoutMs?: number } = {},
  ): Promise<Response> {
    const message = {
      jsonrpc: "2.0",
      id: this.nextId(),
      method,
      params: { ...params, _meta: options.meta ?? META },
    };
    return this.send(message, options.timeoutMs);
  }

  /** Calls a tool and returns the whole response. */
  call(name: string, args: unknown = {}, timeoutMs?: number): Promise<Response> {
    return this.request("tools/call", { name, arguments: args }, { timeoutMs });
  }

  /** Sends a notification. */
  notify(method: string, params: Record<string, unknown>): void {
    this.writeLine(JSON.stringify({ jsonrpc: "2.0", method, params: { ...params, _meta: META } }));
  }

  /**
   * Closes stdin and waits for the exit code. A server still running after
   * `timeoutMs` is killed, and `close` throws.
   */
  async close(timeoutMs = 15_000): Promise<number | null> {
    if (!this.alive) return this.#exit!.code;
    this.child.stdin!.end();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), timeoutMs)));
    const result = await Promise.race([this.#exited, late]);
    clearTimeout(timer);
    if (result === "late") {
      await this.kill();
      throw new NoReply(`the ${this.label} did not exit within ${timeoutMs} ms after stdin closed`);
    }
    return result.code;
  }

  /** SIGKILLs the process and waits for it. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill("SIGKILL");
    await this.#exited;
  }
}

/**
 * The structured result of a successful tool call; throws `CallFailed`
 * otherwise, its message starting with `label` when given.
 */
// deno-lint-ignore no-explicit-any
export function structured(response: Response, label?: string): any {
  const failed = (text: string, message: string) =>
    new CallFailed(text, label === undefined ? message : `${label}: ${message}`);
  if (response.error) {
    throw failed(
      `JSON-RPC ${response.error.code}: ${response.error.message}`,
      `JSON-RPC error: ${JSON.stringify(response.error)}`,
    );
  }
  if (response.result?.isError) {
    const text = String(response.result.content?.[0]?.text);
    throw failed(text, `tool error: ${text}`);
  }
  return response.result.structuredContent;
}

/** The error text of a failed tool call (throws otherwise). */
export function toolErrorText(response: Response): string {
  if (response.error) throw new Error(`JSON-RPC error: ${JSON.stringify(response.error)}`);
  if (!response.result.isError) {
    throw new Error(`expected a tool error, got ${JSON.stringify(response.result)}`);
  }
  return response.result.content[0].text;
}

/** How `traverse` pages. */
export interface TraverseOptions {
  /** The `limit` of each page in turn, cycling, so a traversal may change it between pages. */
  limits?: readonly number[];
  /** Throw when the traversal has not ended after this many pages (default 100,000). */
  maxPages?: number;
  /** Each call's timeout. */
  timeoutMs?: number;
}

/**
 * Follows `next_cursor` from the first page to null and returns every item
 * and every page. Throws `CallFailed` when a page is refused.
 */
export async function traverse(
  caller: Caller,
  tool: string,
  args: Record<string, unknown>,
  options: TraverseOptions = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ items: any[]; pages: any[] }> {
  // deno-lint-ignore no-explicit-any
  const pages: any[] = [];
  const maxPages = options.maxPages ?? 100_000;
  let cursor: string | null = null;
  do {
    const call: Record<string, unknown> = { ...args };
    if (cursor !== null) call.cursor = cursor;
    if (options.limits) call.limit = options.limits[pages.length % options.limits.length];
    const response = await caller.call(tool, call, options.timeoutMs);
    const page = structured(response, caller.label);
    if (!Array.isArray(page?.items)) {
      throw new CallFailed("no structured page", `no structured page: ${JSON.stringify(response)}`);
    }
    pages.push(page);
    cursor = page.next_cursor;
    if (pages.length >= maxPages && cursor !== null) {
      throw new Error(`${caller.label ?? tool}: ${tool} did not finish within ${maxPages} pages`);
    }
  } while (cursor !== null);
  return { items: pages.flatMap((p) => p.items), pages };
}

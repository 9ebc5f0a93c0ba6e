/**
 * A stress client for one real server process over stdio. Unlike the test
 * harness it trusts nothing: every stdout line is checked to be a JSON-RPC
 * 2.0 message, every error text is checked for host paths, stack frames and
 * errno codes, and a response that arrives for a cancelled id is recorded.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";

/** The two runtimes the server ships on. */
export type Runtime = "deno" | "node";

/** How to start the server of one runtime. */
export interface Target {
  readonly runtime: Runtime;
  /** The command for the server with these arguments (`--root <root>` included). */
  command(root: string, args: readonly string[]): { cmd: string; args: string[] };
}

/** The `_meta` every 2026-07-28 request carries. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "ptc-fs-mcp-stress", version: "0" },
};

/** A message as received. */
// deno-lint-ignore no-explicit-any
export type Message = { jsonrpc?: unknown; id?: unknown; result?: any; error?: any; method?: unknown };

const ERRNO_NAME = new RegExp(
  "\\bE(?:NOENT|ACCES|PERM|LOOP|NOTDIR|ISDIR|EXIST|NXIO|BADF|INVAL|MFILE|NFILE|NAMETOOLONG|IO|BUSY|" +
    "TXTBSY|XDEV|NOSPC|ROFS|AGAIN|NOTEMPTY|SPIPE|FBIG|OVERFLOW|PIPE|CONNRESET)\\b",
);
const ERRNO_WORDS = /errno|os error|syscall/i;
const STACK_FRAME =
  /^\s*at\s|\sat\s\S*\s?\(?\S+:\d+:\d+\)?|file:\/\/\/|node:internal|ext:(?:core|deno)|\.(?:ts|js|mjs):\d+/m;

/**
 * The quoted argument that ends a refusal (`...: "/abs/path"`, cut ones end in `…`): the client's own
 * text, which may be a host path the client chose to send.
 */
const ECHOED_ARGUMENT = /: "(?:[^"\\]|\\.)*"…?$/;

/** Why an error text breaks the hygiene rule, or `null` when it is clean. */
export function hygieneProblem(text: string, hostPaths: readonly string[]): string | null {
  const own = text.replace(ECHOED_ARGUMENT, "");
  for (const path of hostPaths) if (path !== "" && own.includes(path)) return "contains a host path";
  if (STACK_FRAME.test(text)) return "contains a stack frame";
  if (ERRNO_NAME.test(text) || ERRNO_WORDS.test(text)) return "contains an errno code";
  return null;
}

/** Why a stdout line is not a JSON-RPC 2.0 message, or `null`. */
export function protocolProblem(line: string): string | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return "not an object";
  const m = message as Message;
  if (m.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  if ("method" in m) return typeof m.method === "string" ? null : "method is not a string";
  if (!("id" in m)) return "a response without id";
  if (("result" in m) === ("error" in m)) return "not exactly one of result and error";
  if ("error" in m && (typeof m.error?.code !== "number" || typeof m.error?.message !== "string")) {
    return "a malformed error object";
  }
  return null;
}

/** Thrown when a request gets no answer in time, or the process is gone. */
export class NoReply extends Error {}

const MAX_STDERR = 64 * 1024;

/** One server process and its client. */
export class Peer {
  readonly child: ChildProcess;
  /** Lines received on stdout. */
  lineCount = 0;
  /** stdout lines that were not valid JSON-RPC (capped). */
  readonly protocolProblems: string[] = [];
  /** Error texts that leaked a path, a stack or an errno (capped). */
  readonly hygieneProblems: string[] = [];
  /** Error texts checked. */
  errorTexts = 0;
  /** Ids answered after the client cancelled them, with the start of the answer. */
  readonly answeredAfterCancel: { id: unknown; answer: string }[] = [];
  /** The start of stderr. */
  stderr = "";
  readonly #hostPaths: readonly string[];
  readonly #pending = new Map<string, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  readonly #cancelled = new Set<string>();
  #buffer = "";
  #nextId = 1_000_001; // far from the small ids the garbage campaign sends
  #exit: { code: number | null; signal: string | null } | null = null;
  readonly #exited: Promise<{ code: number | null; signal: string | null }>;

  /**
   * @param target The runtime to start.
   * @param root The root to serve.
   * @param args Arguments after `--root <root>`.
   * @param hostPaths Absolute paths no error text may contain (the root is always one).
   */
  constructor(target: Target, root: string, args: readonly string[], hostPaths: readonly string[] = []) {
    this.#hostPaths = [root, ...hostPaths];
    const { cmd, args: argv } = target.command(root, ["--root", root, ...args]);
    this.child = spawn(cmd, argv, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdin!.on("error", () => {}); // writes to a killed server fail; the exit says why
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.#onData(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      if (this.stderr.length < MAX_STDERR) this.stderr += chunk;
    });
    this.#exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.#exit = { code, signal };
        for (const [key, waiter] of this.#pending) {
          waiter.reject(new NoReply(`the server exited before answering ${key}`));
        }
        this.#pending.clear();
        resolve(this.#exit);
      });
    });
  }

  /** Whether the process is still running. */
  get alive(): boolean {
    return this.#exit === null;
  }

  /** Resolves with the exit code and signal. */
  exited(): Promise<{ code: number | null; signal: string | null }> {
    return this.#exited;
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let nl;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      this.#onLine(line);
    }
  }

  #onLine(line: string): void {
    this.lineCount++;
    const problem = protocolProblem(line);
    if (problem !== null) {
      if (this.protocolProblems.length < 20) this.protocolProblems.push(`${problem}: ${line.slice(0, 200)}`);
      return;
    }
    const message = JSON.parse(line) as Message;
    this.#checkHygiene(message);
    if (!("id" in message)) return;
    const key = JSON.stringify(message.id);
    const waiter = this.#pending.get(key);
    if (waiter) {
      this.#pending.delete(key);
      waiter.resolve(message);
    } else if (this.#cancelled.has(key)) {
      this.answeredAfterCancel.push({ id: message.id, answer: line.slice(0, 300) });
    }
  }

  #checkHygiene(message: Message): void {
    const texts: string[] = [];
    if (message.error) texts.push(String(message.error.message), JSON.stringify(message.error.data ?? null));
    if (message.result?.isError === true && Array.isArray(message.result.content)) {
      for (const block of message.result.content) texts.push(String(block?.text));
    }
    for (const text of texts) {
      this.errorTexts++;
      const problem = hygieneProblem(text, this.#hostPaths);
      if (problem !== null && this.hygieneProblems.length < 20) {
        this.hygieneProblems.push(`${problem}: ${text.slice(0, 300)}`);
      }
    }
  }

  /** Writes raw bytes or text to stdin (no newline added). */
  writeRaw(data: string | Uint8Array): void {
    if (this.alive) this.child.stdin!.write(data);
  }

  /** A fresh numeric request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Sends a message and waits for the response with its id. */
  send(message: Record<string, unknown>, timeoutMs = 30_000): Promise<Message> {
    return this.sendLine(JSON.stringify(message), message.id, timeoutMs);
  }

  /** Writes one raw line and waits for the response with id `id`. */
  sendLine(line: string, id: unknown, timeoutMs = 30_000): Promise<Message> {
    const key = JSON.stringify(id);
    return new Promise((resolve, reject) => {
      if (!this.alive) return reject(new NoReply(`the server is not running (sending ${key})`));
      const timer = setTimeout(() => {
        this.#pending.delete(key);
        reject(new NoReply(`no answer to ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(key, {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.writeRaw(line + "\n");
    });
  }

  /** Sends a 2026-07-28 request. */
  request(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<Message> {
    return this.send(
      { jsonrpc: "2.0", id: this.nextId(), method, params: { ...params, _meta: META } },
      timeoutMs,
    );
  }

  /** Calls a tool. */
  call(name: string, args: unknown, timeoutMs?: number): Promise<Message> {
    return this.request("tools/call", { name, arguments: args }, timeoutMs);
  }

  /** Sends a notification. */
  notify(method: string, params: Record<string, unknown>): void {
    this.writeRaw(JSON.stringify({ jsonrpc: "2.0", method, params: { ...params, _meta: META } }) + "\n");
  }

  /** Cancels a request: from now on an answer to `id` is recorded as a failure. */
  cancel(id: unknown): void {
    const key = JSON.stringify(id);
    this.#cancelled.add(key);
    const waiter = this.#pending.get(key);
    this.#pending.delete(key);
    waiter?.reject(new NoReply("cancelled"));
    this.notify("notifications/cancelled", { requestId: id, reason: "stress: cancelled by the client" });
  }

  /** Whether the server answers a cheap request now. */
  async answers(timeoutMs = 30_000): Promise<boolean> {
    try {
      const reply = await this.request("tools/list", {}, timeoutMs);
      return Array.isArray(reply.result?.tools);
    } catch {
      return false;
    }
  }

  /** Closes stdin and waits for the exit; kills after `timeoutMs`. Returns the exit code (or null). */
  async close(timeoutMs = 15_000): Promise<number | null> {
    if (!this.alive) return this.#exit!.code;
    this.child.stdin!.end();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), timeoutMs)));
    const result = await Promise.race([this.#exited, late]);
    clearTimeout(timer);
    if (result === "late") {
      await this.kill();
      return null;
    }
    return result.code;
  }

  /** SIGKILLs the process and waits for it. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill("SIGKILL");
    await this.#exited;
  }
}

/** Every error text of a stderr that shows a crash: an uncaught exception prints a stack. */
export function stderrProblem(stderr: string): string | null {
  return /^\s+at\s/m.test(stderr) || /Uncaught|Unhandled/i.test(stderr) ? "a stack trace on stderr" : null;
}

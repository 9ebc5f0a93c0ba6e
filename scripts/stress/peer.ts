/**
 * A stress client for one real server process over stdio. Unlike the test
 * harness it trusts nothing: every stdout line is checked to be a JSON-RPC
 * 2.0 message, every error text is checked for host paths, stack frames and
 * errno codes, and a response that arrives for a cancelled id is recorded.
 *
 * @module
 */
import { ChildClient, NoReply, type Response } from "../../tests/_client.ts";

export { META, NoReply } from "../../tests/_client.ts";

/** The two runtimes the server ships on. */
export type Runtime = "deno" | "node";

/** How to start the server of one runtime. */
export interface Target {
  readonly runtime: Runtime;
  /** The command for the server with these arguments (`--root <root>` included). */
  command(root: string, args: readonly string[]): { cmd: string; args: string[] };
}

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
  // The MCP schema lets an error go without an id (a line whose id could not be read); a result never.
  if (!("id" in m) && !("error" in m)) return "a result without id";
  if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return "an id the schema forbids";
  if (("result" in m) === ("error" in m)) return "not exactly one of result and error";
  if ("error" in m && (typeof m.error?.code !== "number" || typeof m.error?.message !== "string")) {
    return "a malformed error object";
  }
  return null;
}

/** One server process and a client that checks every line it sends. */
export class Peer extends ChildClient {
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
  readonly #hostPaths: readonly string[];
  readonly #cancelled = new Set<string>();

  /**
   * @param target The runtime to start.
   * @param root The root to serve.
   * @param args Arguments after `--root <root>`.
   * @param hostPaths Absolute paths no error text may contain (the root is always one).
   */
  constructor(target: Target, root: string, args: readonly string[], hostPaths: readonly string[] = []) {
    const { cmd, args: argv } = target.command(root, ["--root", root, ...args]);
    super(cmd, argv, { firstId: 1_000_001 }); // far from the small ids the garbage campaign sends
    this.#hostPaths = [root, ...hostPaths];
  }

  protected override received(line: string): void {
    this.lineCount++;
    const problem = protocolProblem(line);
    if (problem !== null) {
      if (this.protocolProblems.length < 20) this.protocolProblems.push(`${problem}: ${line.slice(0, 200)}`);
      return;
    }
    const message = JSON.parse(line) as Message;
    this.#checkHygiene(message);
    if (!("id" in message) || this.replies.settle(message as Response)) return;
    if (this.#cancelled.has(JSON.stringify(message.id))) {
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

  /** Cancels a request: from now on an answer to `id` is recorded as a failure. */
  cancel(id: unknown): void {
    this.#cancelled.add(JSON.stringify(id));
    this.replies.abandon(id, new NoReply("cancelled"));
    this.notify("notifications/cancelled", { requestId: id, reason: "stress: cancelled by the client" });
  }

  /** Whether the server answers a cheap request now. */
  async answers(timeoutMs = 30_000): Promise<boolean> {
    try {
      const reply = await this.request("tools/list", {}, { timeoutMs });
      return Array.isArray(reply.result?.tools);
    } catch {
      return false;
    }
  }

  /** Closes stdin and waits for the exit; kills after `timeoutMs`. Returns the exit code, or null when killed. */
  override async close(timeoutMs?: number): Promise<number | null> {
    try {
      return await super.close(timeoutMs);
    } catch (error) {
      if (error instanceof NoReply) return null;
      throw error;
    }
  }
}

/** Every error text of a stderr that shows a crash: an uncaught exception prints a stack. */
export function stderrProblem(stderr: string): string | null {
  return /^\s+at\s/m.test(stderr) || /Uncaught|Unhandled/i.test(stderr) ? "a stack trace on stderr" : null;
}

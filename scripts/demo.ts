/**
 * A short scripted session against the real server: it creates
 * `./workspace` with a few files if they are missing, starts
 * `deno run --allow-read=<workspace> --allow-write=<workspace> cli.ts`,
 * speaks plain 2026-07-28 JSON-RPC to it over stdio, and prints what went
 * back and forth. It exits 0 when every call was answered as expected.
 *
 * Usage: deno task demo [--workspace <dir>]   (default: ./workspace)
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const flag = Deno.args.indexOf("--workspace");
const workspace = flag >= 0 ? resolve(Deno.args[flag + 1]) : join(repo, "workspace");

const SEED: Record<string, string> = {
  "README.md": "# Demo workspace\n\nFiles the ptc-fs-mcp demo serves. TODO: add your own.\n",
  "notes/ideas.md": "- a server small enough to read in one sitting\n- TODO: try a cursor\n",
  "lib/greet.ts": "export const greet = (name: string) => `hello, ${name}`;\n",
};

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "ptc-fs-mcp-demo", version: "1" },
};

// deno-lint-ignore no-explicit-any
type Json = any;

/** A minimal line-oriented JSON-RPC client over the child's stdio. */
class Session {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<number, (message: Json) => void>();
  readonly #reading: Promise<void>;
  #nextId = 1;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        this.#waiting.get(message.id)?.(message);
        this.#waiting.delete(message.id);
      }
    }
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<Json> {
    const id = this.#nextId++;
    const answer = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 30 s`)), 30_000);
      this.#waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } });
    this.#writer.write(new TextEncoder().encode(line + "\n"));
    return answer;
  }

  async close(): Promise<number> {
    await this.#writer.close();
    const { code } = await this.#child.status;
    await this.#reading;
    return code;
  }
}

function show(label: string, value: unknown): void {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  console.log(`${label} ${text.length > 600 ? text.slice(0, 597) + "..." : text}`);
}

/** Calls a tool, prints the exchange, and returns the structured result (or throws). */
async function call(session: Session, name: string, args: Record<string, unknown>): Promise<Json> {
  console.log();
  show("→ tools/call", { name, arguments: args });
  const response = await session.request("tools/call", { name, arguments: args });
  if (response.error) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(response.error)}`);
  if (response.result.isError) throw new Error(`${name}: ${response.result.content[0].text}`);
  show("←", response.result.structuredContent);
  return response.result.structuredContent;
}

let created = 0;
for (const [rel, content] of Object.entries(SEED)) {
  const path = join(workspace, rel);
  try {
    Deno.lstatSync(path);
  } catch {
    Deno.mkdirSync(dirname(path), { recursive: true });
    Deno.writeTextFileSync(path, content);
    created++;
  }
}
console.log(`workspace: ${workspace}${created ? ` (created ${created} file(s))` : ""}`);

const args = [
  "run",
  "--no-prompt",
  `--allow-read=${workspace}`,
  `--allow-write=${workspace}`,
  join(repo, "cli.ts"),
  "--root",
  workspace,
  "--include",
  "**",
];
console.log(`server:    deno ${args.map((a) => (a === "**" ? "'**'" : a)).join(" ")}`);
const child = new Deno.Command(Deno.execPath(), { args, stdin: "piped", stdout: "piped", stderr: "inherit" })
  .spawn();
const session = new Session(child);

let ok = false;
try {
  console.log();
  console.log("→ server/discover");
  const discover = (await session.request("server/discover")).result;
  show("←", {
    supportedVersions: discover.supportedVersions,
    capabilities: discover.capabilities,
    serverInfo: discover._meta["io.modelcontextprotocol/serverInfo"],
  });

  console.log();
  console.log("→ tools/list");
  const tools = (await session.request("tools/list")).result.tools;
  show("← tools:", tools.map((t: { name: string }) => t.name).join(", "));

  await call(session, "list_directory", {});
  const content = "Written by the demo through write_text_file.\nTODO: read it back.\n";
  const written = await call(session, "write_text_file", { path: "demo-note.md", content });
  const read = await call(session, "read_text_file", { path: "demo-note.md" });
  const same = read.content_hash === written.content_hash;
  console.log(`  content_hash of the read ${same ? "equals" : "DIFFERS FROM"} the write's`);
  await call(session, "search_files", { query: ".md" });
  await call(session, "search_text", { query: "TODO" });
  ok = same;
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : error}`);
} finally {
  const code = await session.close();
  console.log();
  console.log(`server exited with ${code} after stdin closed`);
  ok &&= code === 0;
}
Deno.exit(ok ? 0 : 1);

/**
 * Embedding ptc-fs-mcp in one Deno process: a temp root, the server from
 * `createServer`, and the official MCP client (protocol 2026-07-28) linked
 * to it over the SDK's in-memory transport. It writes a file, reads it back,
 * searches it, prints a short transcript, and exits non-zero when the
 * write's `content_hash` differs from the read's or anything else is off.
 * `embed.mjs` is the same program for Node and the npm package.
 *
 * Run: deno run --allow-read --allow-write examples/embed.ts
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { createServer, openRoot } from "../mod.ts";

type Structured = Record<string, unknown> & { items?: Record<string, unknown>[] };

const dir = Deno.makeTempDirSync({ prefix: "ptc-fs-mcp-embed-" });
let failures = 0;
function check(ok: boolean, what: string): void {
  if (ok) return;
  failures++;
  console.error(`MISMATCH: ${what}`);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return "sha256:" + Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

try {
  Deno.mkdirSync(`${dir}/notes`);
  Deno.writeTextFileSync(`${dir}/notes/todo.md`, "- water the plants\n- answer the letter\n");
  const root = openRoot({ root: dir, include: ["**"] });

  // createServer's connect() serves 2026-07-28 only, on any transport, exactly
  // as the binary does over stdio.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createServer(root);
  await server.connect(serverSide);
  const client = new Client({ name: "embed-example", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(clientSide);
  const info = client.getServerVersion();
  console.log(`connected to ${info?.name} ${info?.version} over the in-memory transport`);

  const call = async (name: string, args: Record<string, unknown>): Promise<Structured> => {
    const result = await client.callTool({ name, arguments: args });
    console.log(`> ${name} ${JSON.stringify(args)}`);
    console.log(`< ${JSON.stringify(result.structuredContent ?? result.content)}`);
    if (result.isError) throw new Error(`${name} failed`);
    return result.structuredContent as Structured;
  };

  const content = "hello from embed.ts\nthe answer is 42\n";
  const written = await call("write_text_file", { path: "hello.txt", content });
  const read = await call("read_text_file", { path: "hello.txt" });
  const found = await call("search_text", { query: "answer" });

  check(written.bytes === new TextEncoder().encode(content).length, "the byte count of the write");
  check(written.content_hash === await sha256(content), "the write's content_hash is sha256 of the bytes");
  check(read.next_cursor === null, "the read fits one page");
  check(read.items?.map((i) => i.text).join("") === content, "the read returns the written text");
  check(written.content_hash === read.content_hash, "the write's content_hash equals the read's");
  check(
    JSON.stringify(found.items) === JSON.stringify([
      { path: "hello.txt", line: 2, text: "the answer is 42" },
      { path: "notes/todo.md", line: 2, text: "- answer the letter" },
    ]),
    "search_text finds both lines",
  );
  await client.close();
  await server.close();
} catch (error) {
  failures++;
  console.error(error instanceof Error ? error.message : error);
} finally {
  Deno.removeSync(dir, { recursive: true });
}

console.log(failures === 0 ? "ok: the write and the read agree" : `${failures} check(s) failed`);
Deno.exit(failures === 0 ? 0 : 1);

// Embedding ptc-fs-mcp in one Node process: a temp root, the server from
// `createServer`, and the official MCP client (protocol 2026-07-28) linked to
// it over the SDK's in-memory transport. It writes a file, reads it back,
// searches it, prints a short transcript, and exits non-zero when the write's
// `content_hash` differs from the read's or anything else is off.
// `embed.ts` is the same program for Deno and the source tree.
//
// It imports the npm package, so run it where `ptc-fs-mcp` resolves:
//   npm install ptc-fs-mcp@0.1.0 @modelcontextprotocol/client@2.4.0 && node embed.mjs
// or, from a checkout, after `deno task build:npm`:
//   cp examples/embed.mjs npm/ && node npm/embed.mjs
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { createServer, openRoot } from "ptc-fs-mcp";

const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-embed-"));
let failures = 0;
function check(ok, what) {
  if (ok) return;
  failures++;
  console.error(`MISMATCH: ${what}`);
}

try {
  mkdirSync(join(dir, "notes"));
  writeFileSync(join(dir, "notes", "todo.md"), "- water the plants\n- answer the letter\n");
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

  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    console.log(`> ${name} ${JSON.stringify(args)}`);
    console.log(`< ${JSON.stringify(result.structuredContent ?? result.content)}`);
    if (result.isError) throw new Error(`${name} failed`);
    return result.structuredContent;
  };

  const content = "hello from embed.mjs\nthe answer is 42\n";
  const written = await call("write_text_file", { path: "hello.txt", content });
  const read = await call("read_text_file", { path: "hello.txt" });
  const found = await call("search_text", { query: "answer" });

  const expectedHash = "sha256:" + createHash("sha256").update(content, "utf8").digest("hex");
  check(written.bytes === Buffer.byteLength(content), "the byte count of the write");
  check(written.content_hash === expectedHash, "the write's content_hash is sha256 of the bytes");
  check(read.next_cursor === null, "the read fits one page");
  check(read.items.map((i) => i.text).join("") === content, "the read returns the written text");
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
  rmSync(dir, { recursive: true, force: true });
}

console.log(failures === 0 ? "ok: the write and the read agree" : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);

/**
 * The protocol floor of a read traversal: a bare SDK `McpServer` over
 * `serveStdio` whose `read_text_file` answers from memory with the pages a
 * real traversal returned, recorded in a JSON-lines file (its argument).
 * It does no file work at all, so its time is what the SDK, the pipe and
 * the client cost for the same calls and the same bytes. Plain JavaScript,
 * like `noop_server.ts`, so it runs on Node as `.mjs` and on Deno.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const pages = readFileSync(process.argv[process.argv.length - 1], "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line));
// The page that follows each cursor, so the client's traversal is the same as against the server.
const after = new Map(pages.slice(0, -1).map((page, i) => [page.next_cursor, pages[i + 1]]));

serveStdio(() => {
  const server = new McpServer({ name: "replay", version: "0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "read_text_file",
    {
      description: "Replays recorded pages.",
      inputSchema: z.strictObject({ path: z.string(), cursor: z.string().optional() }),
      outputSchema: z.object({
        items: z.array(z.object({ byte_offset: z.number().int().nonnegative(), text: z.string() })),
        next_cursor: z.string().nullable(),
        content_hash: z.string(),
      }),
    },
    ({ cursor }) => {
      const page = cursor === undefined ? pages[0] : after.get(cursor);
      return { content: [{ type: "text", text: JSON.stringify(page) }], structuredContent: page };
    },
  );
  return server;
}, { legacy: "reject" });

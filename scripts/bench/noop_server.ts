/**
 * The latency baseline: a bare SDK `McpServer` over `serveStdio` with one
 * tool that does nothing. Plain JavaScript (no type annotations), so the
 * benchmark can copy it beside the npm build's `node_modules` and run it on
 * Node as `.mjs`, and run this same file on Deno through the import map.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "noop", version: "0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "noop",
    { description: "Does nothing.", inputSchema: z.strictObject({ path: z.string() }) },
    () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return server;
}, { legacy: "reject" });

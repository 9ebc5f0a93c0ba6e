/**
 * The floor of the cold start and of the small reads: an SDK `McpServer` with one tool, `noop`, that has an
 * input schema and answers "ok", served over stdio. `bare_server.mjs noop` runs it as it is, loading the SDK
 * module by module; on Node the benchmark also runs it bundled into one minified file, the way the npm bin
 * is bundled (`prepareNode` in `runtimes.ts`). It imports statically, so that bundle holds only what it uses.
 *
 * @module
 */
import process from "node:process";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

// The process's own streams, handed over: bundled with the SDK's `browser` shims, as the bin is, the SDK has none.
const transport = new StdioServerTransport(process.stdin, process.stdout);

serveStdio(() => {
  const server = new McpServer({ name: "bare-noop", version: "0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "noop",
    { description: "Does nothing.", inputSchema: z.strictObject({ path: z.string() }) },
    () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return server;
}, { legacy: "reject", transport });

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, META, REPO, RUNTIME, serverCommand, startServer, withServer } from "./_harness.ts";
import { assertValid } from "./_schema.ts";
import { TOOLS } from "../src/server.ts";
import { VERSION } from "../src/version.ts";

const TOOL_NAMES = ["list_directory", "search_files", "search_text", "read_text_file", "write_text_file"];
const LEGACY = { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" };

test(`${RUNTIME}: server/discover advertises only tools, one version, and serverInfo`, async () => {
  await withServer({ "a.txt": "a" }, ["--include", "**"], async (server) => {
    const response = await server.request("server/discover");
    assertValid("DiscoverResultResponse", response);
    const result = response.result;
    assert.deepEqual(result.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(result.capabilities, { tools: {} });
    assert.deepEqual(result._meta["io.modelcontextprotocol/serverInfo"], {
      name: "ptc-fs-mcp",
      version: VERSION,
    });
    assert.equal(result.resultType, "complete");
    assert.equal(typeof result.instructions, "string");
    assert.equal(typeof result.ttlMs, "number");
    assert.ok(["public", "private"].includes(result.cacheScope));
  });
});

test(`${RUNTIME}: initialize is refused with -32022 and a modern request is still served`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const refused = await server.send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    assertValid("JSONRPCErrorResponse", refused);
    assert.equal(refused.error.code, -32022);
    // Legacy clients show the message, not `data`: it names both versions.
    assert.equal(
      refused.error.message,
      "Unsupported protocol version 2025-11-25: this server speaks only 2026-07-28",
    );
    assert.deepEqual(refused.error.data, { supported: ["2026-07-28"], requested: "2025-11-25" });
    const served = await server.request("server/discover");
    assertValid("DiscoverResultResponse", served);
  });
});

test(`${RUNTIME}: every request's version is checked, also after a served modern request`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const first = await server.request("tools/list", {}, { meta: LEGACY });
    assert.equal(first.error.code, -32022);
    assertValid("ListToolsResultResponse", await server.request("tools/list"));
    const after = await server.request("tools/list", {}, { meta: LEGACY });
    assertValid("JSONRPCErrorResponse", after);
    assert.equal(after.error.code, -32022);
    assert.equal(
      after.error.message,
      "Unsupported protocol version 2025-11-25: this server speaks only 2026-07-28",
    );
    assert.deepEqual(after.error.data, { supported: ["2026-07-28"], requested: "2025-11-25" });
    const odd = { ...META, "io.modelcontextprotocol/protocolVersion": "2026-07-28\nx" };
    const strange = await server.request("tools/list", {}, { meta: odd });
    assert.equal(
      strange.error.message,
      'Unsupported protocol version "2026-07-28\\nx": this server speaks only 2026-07-28',
    );
    assert.equal(strange.error.data.requested, "2026-07-28\nx");
    const call = await server.request("tools/call", { name: "list_directory", arguments: {} }, {
      meta: LEGACY,
    });
    assert.equal(call.error.code, -32022);
  });
});

test(`${RUNTIME}: a request without a protocol version gets -32602`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const { "io.modelcontextprotocol/protocolVersion": _, ...noVersion } = META;
    const opening = await server.request("tools/list", {}, { meta: noVersion });
    assertValid("JSONRPCErrorResponse", opening);
    assert.equal(opening.error.code, -32602);
    await server.request("server/discover");
    const later = await server.send({ jsonrpc: "2.0", id: 99, method: "tools/list", params: {} });
    assert.equal(later.error.code, -32602);
  });
});

test(`${RUNTIME}: a request whose params are malformed gets -32602 with one line naming what is wrong`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const meta = (extra: Record<string, unknown>) => ({ ...META, ...extra });
    const cases: [Record<string, unknown>, string][] = [
      [{ params: { _meta: null } }, "Invalid params: params._meta must be an object"],
      [{ params: { _meta: "x" } }, "Invalid params: params._meta must be an object"],
      [{ params: [] }, "Invalid params: params must be an object"],
      [
        { params: { _meta: meta({ progressToken: {} }) } },
        "Invalid params: a member of params._meta has the wrong type (progressToken: a string or a number)",
      ],
      [
        { params: { _meta: meta({ "io.modelcontextprotocol/protocolVersion": 20260728 }) } },
        'Invalid params._meta["io.modelcontextprotocol/protocolVersion"]: must be a version string',
      ],
      [
        { params: { _meta: meta({ "io.modelcontextprotocol/clientCapabilities": [] }) } },
        'Invalid params._meta["io.modelcontextprotocol/clientCapabilities"]: must be an object',
      ],
      [
        { method: "tools/call", params: { _meta: META, name: "list_directory", arguments: null } },
        "Invalid params.arguments: must be an object",
      ],
      [
        { method: "tools/call", params: { _meta: META, name: 5, arguments: {} } },
        "Invalid params.name: must be a tool name",
      ],
    ];
    for (const [i, [fields, message]] of cases.entries()) {
      const response = await server.send({ jsonrpc: "2.0", id: i, method: "tools/list", ...fields });
      assertValid("JSONRPCErrorResponse", response);
      assert.deepEqual(response.error, { code: -32602, message }, JSON.stringify(fields));
    }
    // A member JSON-RPC does not define is left out, not refused.
    const extra = await server.send({
      jsonrpc: "2.0",
      id: "x",
      method: "server/discover",
      params: { _meta: META },
      x: 1,
    });
    assertValid("DiscoverResultResponse", extra);
  });
});

test(`${RUNTIME}: initialize is refused with the version it asked for, wherever it names one`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const cases: [unknown, string][] = [
      [{ _meta: LEGACY }, "2025-11-25"],
      [{ protocolVersion: 42 }, "42"],
      [[], ""],
    ];
    for (const [params, requested] of cases) {
      const refused = await server.send({ jsonrpc: "2.0", id: requested, method: "initialize", params });
      assert.equal(refused.error.code, -32022, JSON.stringify(params));
      assert.deepEqual(refused.error.data, { supported: ["2026-07-28"], requested });
    }
    // A structure is no version: not echoed, and never walked (5,000 levels overflowed a stringify).
    const deep = "[".repeat(5_000) + "]".repeat(5_000);
    const line = `{"jsonrpc":"2.0","id":"deep","method":"initialize","params":{"protocolVersion":${deep}}}`;
    const refused = await server.sendLine(line, "deep");
    assert.deepEqual(refused.error.data, { supported: ["2026-07-28"], requested: "" });
    assertValid("DiscoverResultResponse", await server.request("server/discover"));
  });
});

test(`${RUNTIME}: tools/list gives the five tools in a fixed order, identically twice`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const one = await server.request("tools/list");
    const two = await server.request("tools/list");
    assertValid("ListToolsResultResponse", one);
    assert.deepEqual(one.result.tools.map((t: { name: string }) => t.name), TOOL_NAMES);
    assert.deepEqual(one.result.tools, two.result.tools);
    assert.deepEqual(TOOLS.map((t) => t.name), TOOL_NAMES);
    for (const tool of one.result.tools) {
      assert.ok(tool.title && tool.description && tool.inputSchema && tool.outputSchema, tool.name);
      const write = tool.name === "write_text_file";
      // Exactly the four hints (the title is the tool's own `title`).
      assert.deepEqual(tool.annotations, {
        readOnlyHint: !write,
        destructiveHint: write,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
  });
});

test(`${RUNTIME}: tools/list is answered whole at the smallest result ceiling, which bounds tool calls`, async () => {
  await withServer(
    { "a.txt": "x".repeat(3_000) },
    ["--include", "**", "--max-result-bytes", "1024"],
    async (server) => {
      const listed = await server.request("tools/list");
      assert.deepEqual(listed.result.tools.map((t: { name: string }) => t.name), TOOL_NAMES);
      assert.ok(server.lines.at(-1)!.length + 1 > 1_024); // the README's exception: about 7.9 KB
      const read = await server.call("read_text_file", { path: "a.txt" });
      assert.ok(read.result.structuredContent.next_cursor !== null);
      assert.ok(Buffer.byteLength(server.lines.at(-1)!) + 1 <= 1_024);
    },
  );
});

test(`${RUNTIME}: an unknown tool is JSON-RPC -32602; bad arguments are an isError result`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const unknown = await server.call("no_such_tool", {});
    assertValid("JSONRPCErrorResponse", unknown);
    assert.equal(unknown.error.code, -32602);
    const tools = "list_directory, search_files, search_text, read_text_file, write_text_file";
    assert.equal(unknown.error.message, `Unknown tool "no_such_tool": this server has ${tools}`);
    // Named as any refused argument is: control characters escaped, cut to 256 bytes.
    const odd = await server.call(`\u0007${"x".repeat(5_000)}`, {});
    assert.equal(odd.error.code, -32602);
    assert.equal(odd.error.message, `Unknown tool "\\u0007${"x".repeat(250)}"…: this server has ${tools}`);
    const bad = await server.call("read_text_file", { path: 42 });
    assertValid("CallToolResultResponse", bad);
    assert.equal(bad.result.isError, true);
    assert.equal(bad.result.content[0].text.includes("\n"), false);
  });
});

test(`${RUNTIME}: stdout carries only JSON-RPC lines, and closing stdin exits 0`, async () => {
  const server = startServer(makeDir(), ["--include", "**"]);
  await server.request("server/discover");
  await server.call("list_directory", {});
  server.writeLine("this is not json");
  await server.request("tools/list");
  assert.equal(await server.close(), 0);
  for (const line of server.lines) {
    const message = JSON.parse(line);
    assert.equal(message.jsonrpc, "2.0");
  }
});

test(`${RUNTIME}: a bad flag exits 64 with one stderr line; --help and --version exit 0`, () => {
  const { cmd, args } = serverCommand(makeDir(), ["--bogus"]);
  const bad = spawnSync(cmd, args, { encoding: "utf8", input: "" });
  assert.equal(bad.status, 64);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
  assert.equal(bad.stdout, "");
  const missing = spawnSync(
    cmd,
    serverCommand(makeDir(), ["--root", "/nonexistent/ptc-fs-mcp", "--include", "**"]).args,
    {
      encoding: "utf8",
    },
  );
  assert.equal(missing.status, 64);
  // Outside its grants Deno cannot tell a missing path from a forbidden one: the line says what to grant.
  const grant =
    "; grant read and write permission on its real path (on Deno: --allow-read and --allow-write)";
  const why = `does not exist or cannot be read${RUNTIME === "deno" ? grant : ""}`;
  assert.equal(missing.stderr, `ptc-fs-mcp: --root "/nonexistent/ptc-fs-mcp" ${why}\n`);
  const version = spawnSync(cmd, serverCommand(makeDir(), ["--version"]).args, { encoding: "utf8" });
  assert.equal(version.status, 0);
  assert.equal(version.stdout.trim(), `ptc-fs-mcp ${VERSION}`);
  const help = spawnSync(cmd, serverCommand(makeDir(), ["--help"]).args, { encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--include/);
});

test(`${RUNTIME}: without --include the CLI exits 64 with one stderr line naming --include`, () => {
  const root = makeDir();
  const { cmd, args } = serverCommand(root, ["--root", root]);
  // `input` closes stdin: a server that started anyway would exit 0 instead of hanging the test.
  const run = spawnSync(cmd, args, { encoding: "utf8", input: "", timeout: 30_000 });
  assert.equal(run.status, 64);
  assert.equal(run.stdout, "");
  assert.equal(
    run.stderr,
    "ptc-fs-mcp: at least one --include pattern is required; the default serves no file\n",
  );
  const withExclude = spawnSync(cmd, [...args, "--exclude", "**/secret"], { encoding: "utf8", input: "" });
  assert.equal(withExclude.status, 64);
  assert.match(withExclude.stderr, /--include/);
  // No argument at all: the one line names --include too, not only the missing --root.
  const bare = serverCommand(root, []);
  const none = spawnSync(bare.cmd, bare.args, { encoding: "utf8", input: "", timeout: 30_000 });
  assert.equal(none.status, 64);
  assert.equal(
    none.stderr,
    "ptc-fs-mcp: --root and at least one --include pattern are required; the default serves no file " +
      "(see --help)\n",
  );
});

test(`${RUNTIME}: a root no include reaches warns on stderr and still starts`, async () => {
  await withServer({ "lib/a.ts": "x" }, ["--include", "lib/**"], async (server) => {
    assertValid("DiscoverResultResponse", await server.request("server/discover"));
    assert.ok(server.stderr.startsWith(
      "ptc-fs-mcp: no --include pattern matches a file in the root itself, so write_text_file will refuse every call.",
    ));
  });
});

test("deno.json and src/version.ts agree on the version", () => {
  const denoJson = JSON.parse(readFileSync(join(REPO, "deno.json"), "utf8"));
  assert.equal(denoJson.version, VERSION);
});

/** An empty temp directory for a server's permissions or root, removed when the file's tests are done. */
function makeDir(): string {
  const root = makeRoot();
  after(root.cleanup);
  return root.path;
}

test(`${RUNTIME}: the official v2 client talks to the real server over its stdio transport`, async () => {
  const root = makeRoot({ "docs/guide.md": "first\nthe needle line\n" });
  const { cmd, args } = serverCommand(root.path, ["--root", root.path, "--include", "**"]);
  const transport = new StdioClientTransport({ command: cmd, args, stderr: "pipe" });
  const client = new Client({ name: "protocol-test", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(transport);
    assert.deepEqual(client.getServerVersion(), { name: "ptc-fs-mcp", version: VERSION });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    const listed = await client.callTool({ name: "list_directory", arguments: {} });
    assert.deepEqual((listed.structuredContent as { items: unknown[] }).items, [
      { name: "docs", kind: "directory", path: "docs" },
    ]);
    const found = await client.callTool({ name: "search_text", arguments: { query: "needle" } });
    assert.deepEqual((found.structuredContent as { items: unknown[] }).items, [
      { path: "docs/guide.md", line: 2, text: "the needle line" },
    ]);
  } finally {
    await client.close();
    root.cleanup();
  }
});

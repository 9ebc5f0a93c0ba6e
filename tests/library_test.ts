import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { ConfigError, createServer, openRoot } from "../mod.ts";
import { makeRoot, META } from "./_harness.ts";

/** createServer + connect over the SDK's in-memory transport, talking raw JSON-RPC. */
async function connected(files: Record<string, string>) {
  const dir = makeRoot(files);
  const server = createServer(openRoot({ root: dir.path, include: ["**"] }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<unknown, (m: Record<string, unknown>) => void>();
  client.onmessage = (m) => waiting.get((m as { id?: unknown }).id)?.(m as Record<string, unknown>);
  await client.start();
  let id = 0;
  // deno-lint-ignore no-explicit-any
  const send = (method: string, params: Record<string, unknown>): Promise<any> => {
    const mine = ++id;
    return new Promise((resolve) => {
      waiting.set(mine, resolve);
      client.send({ jsonrpc: "2.0", id: mine, method, params } as JSONRPCMessage);
    });
  };
  return { server, send, dir };
}

test("createServer(root).connect(transport) serves 2026-07-28 only, on any transport", async () => {
  const { server, send, dir } = await connected({ "a.txt": "alpha\n" });
  try {
    const discover = await send("server/discover", { _meta: META });
    assert.deepEqual(discover.result.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(discover.result.capabilities, { tools: {} });
    const init = await send("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    });
    assert.equal(init.error.code, -32022);
    const legacy = await send("tools/list", {
      _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
    });
    assert.equal(legacy.error.code, -32022);
    const read = await send("tools/call", {
      _meta: META,
      name: "read_text_file",
      arguments: { path: "a.txt" },
    });
    assert.equal(read.result.resultType, "complete");
    assert.equal(read.result.structuredContent.items[0].text, "alpha\n");
  } finally {
    await server.close();
    dir.cleanup();
  }
});

test("the official v2 client pinned to 2026-07-28 works over createServer's in-memory connection", async () => {
  const dir = makeRoot({ "notes.md": "one\ntwo needle\n" });
  const server = createServer(openRoot({ root: dir.path, include: ["**"] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "library-test", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(clientSide);
    assert.deepEqual(client.getServerVersion(), { name: "ptc-fs-mcp", version: "0.1.0" });
    const tools = await client.listTools();
    assert.equal(tools.tools.length, 5);
    const found = await client.callTool({ name: "search_text", arguments: { query: "needle" } });
    assert.deepEqual((found.structuredContent as { items: unknown[] }).items, [
      { path: "notes.md", line: 2, text: "two needle" },
    ]);
  } finally {
    await client.close();
    await server.close();
    dir.cleanup();
  }
});

test("after the peer closes the in-memory connection, the same server can be connected again", async () => {
  const dir = makeRoot({ "a.txt": "alpha\n" });
  const server = createServer(openRoot({ root: dir.path, include: ["**"] }));
  try {
    for (let round = 0; round < 2; round++) {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const answered = new Promise<Record<string, unknown>>((resolve) => {
        client.onmessage = (m) => resolve(m as Record<string, unknown>);
      });
      await client.start();
      await client.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META } });
      const discover = (await answered) as { result: { supportedVersions: string[] } };
      assert.deepEqual(discover.result.supportedVersions, ["2026-07-28"], `round ${round}`);
      await client.close(); // the peer ends the connection
      await server.close();
    }
  } finally {
    dir.cleanup();
  }
});

test("connect rejects when the transport does not start, or the server is connected; a retry is gated", async () => {
  const dir = makeRoot({ "a.txt": "alpha\n" });
  try {
    const server = createServer(openRoot({ root: dir.path, include: ["**"] }));
    const [, rejects] = InMemoryTransport.createLinkedPair();
    rejects.start = () => Promise.reject(new Error("no pipe"));
    await assert.rejects(server.connect(rejects), /no pipe/);
    const [, throws] = InMemoryTransport.createLinkedPair();
    throws.start = () => {
      throw new Error("no pipe either");
    };
    await assert.rejects(server.connect(throws), /no pipe either/);

    // The retry is served behind the gate: a 2025-era opening is refused, a modern request answered.
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const answers = new Map<unknown, Record<string, unknown>>();
    const answered = new Promise<void>((resolve) => {
      client.onmessage = (m) => {
        answers.set((m as { id?: unknown }).id, m as Record<string, unknown>);
        if (answers.size === 2) resolve();
      };
    });
    await client.start();
    const opening = {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    };
    await client.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: opening });
    await client.send({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: META } });
    await answered;
    assert.equal((answers.get(1)?.error as { code: number }).code, -32022);
    assert.ok(answers.get(2)?.result);

    const [, another] = InMemoryTransport.createLinkedPair();
    await assert.rejects(server.connect(another), /already connected/);

    // After the first request, a transport error reaches server.onerror, once.
    const reported: string[] = [];
    server.server.onerror = (error) => reported.push(error.message);
    serverSide.onerror?.(new Error("the pipe broke"));
    assert.deepEqual(reported, ["the pipe broke"]);
    await server.close();
  } finally {
    dir.cleanup();
  }
});

test("createServer refuses an identity without a string name and version", () => {
  const dir = makeRoot({ "a.txt": "alpha\n" });
  try {
    const root = openRoot({ root: dir.path, include: ["**"] });
    for (const identity of [{}, { name: "x" }, { version: "1" }, { name: 1, version: "1" }, null]) {
      assert.throws(
        () => createServer(root, identity as never),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message === "identity must have a string name and a string version (MCP's serverInfo)",
        JSON.stringify(identity),
      );
    }
    assert.ok(createServer(root, { name: "mine", version: "2.0.0" }));
  } finally {
    dir.cleanup();
  }
});

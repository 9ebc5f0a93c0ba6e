/**
 * Result lines built as bytes (`src/result_line.ts`): `encodeLine` writes
 * exactly `JSON.stringify(message) + "\n"` whatever the recorded result
 * holds, the text block equals the result's JSON, and every line the real
 * binary writes is byte for byte the `JSON.stringify` of its own parse — for
 * read pages written straight from file bytes too.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { traverse, withServer } from "./_harness.ts";
import { ByteSink, encodeLine, ResultLines, toolResult } from "../src/result_line.ts";

const decoder = new TextDecoder();

/** Every control character, the characters JSON escapes, and each UTF-8 width (U+2028/9 included). */
const SPECIAL = [
  ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)),
  '"',
  "\\",
  "/",
  "\x7f",
  "\u00e9",
  "\u0800",
  "\u2028",
  "\u2029",
  "\uffff",
  "\u{1f600}",
  "\u{10ffff}",
];
const text = fc.array(
  fc.oneof(
    fc.constantFrom(...SPECIAL),
    fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x80, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0xe000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  ),
  { maxLength: 40 },
).map((chars) => chars.join(""));

/**
 * The message the SDK sends for a handler's result. Its validation copies
 * every object but keeps the values of `structuredContent` as they are;
 * then it stamps the result by spreading.
 */
function message(result: { content: object[]; structuredContent: object }, id: string | number) {
  const validated = {
    content: result.content.map((block) => ({ ...block })),
    structuredContent: { ...result.structuredContent },
  };
  return {
    result: {
      ...validated,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "n", version: "1" } },
    },
    jsonrpc: "2.0",
    id,
  };
}

/** The line `encodeLine` writes for `value`, with what `lines` recorded for its id. */
function encoded(value: { id?: string | number }, lines?: ResultLines): string {
  const sink = new ByteSink(16); // small, so growing is exercised
  encodeLine(value, sink, lines?.take(value.id));
  return decoder.decode(sink.view());
}

test("encodeLine writes exactly JSON.stringify(message) + newline for any page", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ path: text, line: fc.nat(), text }), { maxLength: 6 }),
      fc.option(text, { nil: null }),
      fc.oneof(fc.nat(), text),
      (items, next, id) => {
        const lines = new ResultLines();
        const msg = message(lines.record(id, { items, next_cursor: next, content_hash: "sha256:x" }), id);
        assert.equal(encoded(msg, lines), JSON.stringify(msg) + "\n");
      },
    ),
    { numRuns: 300 },
  );
});

test("a page's own byte writer is used, and escapes bytes exactly as JSON.stringify does", () => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 5 }), (texts) => {
      const page = { items: texts.map((t) => ({ text: t })), next_cursor: null, content_hash: "h" };
      let used = false;
      const lines = new ResultLines();
      const result = lines.record(3, page, (sink) => {
        used = true;
        sink.text('{"items":[');
        texts.forEach((t, i) => {
          sink.text(`${i === 0 ? "" : ","}{"text":"`);
          sink.jsonString(new TextEncoder().encode(t));
          sink.text('"}');
        });
        sink.text('],"next_cursor":null,"content_hash":"h"}');
      });
      const msg = message(result, 3);
      assert.equal(encoded(msg, lines), JSON.stringify(msg) + "\n");
      assert.ok(used);
    }),
    { numRuns: 300 },
  );
});

test("the text block is the value's JSON, for pages and other results", () => {
  for (
    const value of [{ items: [{ path: 'a"b\n' }], next_cursor: null, content_hash: "h" }, {
      path: "a",
      bytes: 1,
    }]
  ) {
    assert.deepEqual(toolResult(value), {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    });
  }
});

test("a string id that looks like a stand-in, and messages without a page, are written plainly", () => {
  const page = { items: [], next_cursor: null, content_hash: "h" };
  for (const id of ["\u0000ptc-fs-mcp:value\u0000", "\u0000ptc-fs-mcp:text\u0000"]) {
    const lines = new ResultLines();
    const msg = message(lines.record(id, page), id);
    assert.equal(encoded(msg, lines), JSON.stringify(msg) + "\n");
  }
  const plain = [
    { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "bad" } },
    { jsonrpc: "2.0", method: "notifications/message", params: { text: "é\u2028" } },
    message({ content: [{ type: "text", text: "x" }], structuredContent: page }, 4), // not recorded
    message(toolResult({ path: "a.txt", bytes: 3, content_hash: "h" }), 5), // not recorded either
  ];
  for (const msg of plain) assert.equal(encoded(msg), JSON.stringify(msg) + "\n");
  // A result changed after it was recorded is written from the message, not from the record.
  const lines = new ResultLines();
  const changed = message(lines.record(6, { items: [1], next_cursor: null, content_hash: "h" }), 6);
  (changed.result.structuredContent as Record<string, unknown>).content_hash = "other";
  assert.equal(encoded(changed, lines), JSON.stringify(changed) + "\n");
});

test("every line the binary writes is JSON.stringify of its own parse, read pages included", async () => {
  const special = SPECIAL.join("") + "plain text\r\n".repeat(50) + "日本語 façade\n".repeat(300);
  const files = { "all.txt": special, "a.txt": "alpha\n", "sub/b.txt": 'quote " and \\ backslash\n' };
  for (const ceiling of ["3000", "48000"]) {
    await withServer(files, ["--include", "**", "--max-result-bytes", ceiling], async (server) => {
      const read = await traverse(server, "read_text_file", { path: "all.txt" });
      assert.equal(read.items.map((i: { text: string }) => i.text).join(""), special);
      if (ceiling === "3000") assert.ok(read.pages.length > 3, "several pages");
      await traverse(server, "list_directory", {});
      await traverse(server, "search_files", { query: "txt" });
      await traverse(server, "search_text", { query: "a" });
      assert.ok(server.lines.length >= 4);
      for (const line of server.lines) {
        assert.equal(line, JSON.stringify(JSON.parse(line)), "the line is what JSON.stringify writes");
        assert.ok(Buffer.byteLength(line) <= Number(ceiling), "within the ceiling");
      }
    });
  }
});

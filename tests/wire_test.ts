/**
 * Result lines built as bytes (`src/result_line.ts`): the SDK's result
 * carries a stand-in for its text block, and `encodeLine` writes exactly
 * `JSON.stringify(message) + "\n"` with the stand-in replaced by the value's
 * JSON, whatever the recorded result holds; and every line the real binary
 * writes is byte for byte the `JSON.stringify` of its own parse, its text
 * block the JSON of its structured content — read pages, written straight
 * from file bytes, too.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { PassThrough } from "node:stream";
import process from "node:process";
import { setImmediate } from "node:timers";
import { META } from "./_client.ts";
import { makeRoot, traverse, withServer } from "./_harness.ts";
import { openRoot } from "../mod.ts";
import {
  MAX_INPUT_AFTER_STOP,
  MAX_READS_AFTER_STOP,
  MAX_WAIT_AFTER_STOP_MS,
  QUIET_AFTER_STOP_MS,
  QUIET_STEP_MS,
  StdioTransport,
} from "../src/cli/stdio.ts";
import { ByteSink, encodedSize, encodeLine, ResultLines, toolResult } from "../src/result_line.ts";
import { buildServer } from "../src/server.ts";
import type { JsonWriter } from "../src/page.ts";

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

/** The line `encodeLine` writes for `value`, with what `lines` recorded for the result it carries. */
function encoded(value: { id?: string | number }, lines?: ResultLines): string {
  const sink = new ByteSink(16); // small, so growing is exercised
  encodeLine(value, sink, lines?.take(value));
  return decoder.decode(sink.view());
}

/** The line a client must receive for `msg`: its text block the JSON of its structured content. */
function sent(msg: ReturnType<typeof message>): string {
  const { result } = msg;
  const content = [{ type: "text", text: JSON.stringify(result.structuredContent) }];
  return JSON.stringify({ ...msg, result: { ...result, content } }) + "\n";
}

test("encodeLine writes JSON.stringify(message) + newline, the stand-in made the page's JSON, for any page", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ path: text, line: fc.nat(), text }), { maxLength: 6 }),
      fc.option(text, { nil: null }),
      fc.oneof(fc.nat(), text),
      (items, next, id) => {
        const lines = new ResultLines();
        const msg = message(lines.record(id, { items, next_cursor: next, content_hash: "sha256:x" }), id);
        const { text: carried } = msg.result.content[0] as { text: string };
        assert.notEqual(carried, JSON.stringify(msg.result.structuredContent), "a stand-in until written");
        assert.equal(encoded(msg, lines), sent(msg));
      },
    ),
    { numRuns: 300 },
  );
});

test("a page measured by encodedSize is written from what was measured: the same bytes, of that length", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ name: text, path: text }), { maxLength: 6 }),
      fc.oneof(fc.nat(), text),
      (items, id) => {
        const page = { items, next_cursor: null, content_hash: "sha256:x" };
        const size = encodedSize(
          { requestId: id, maxBytes: 0, serverInfo: { name: "n", version: "1" } },
          page,
        );
        const lines = new ResultLines();
        const msg = message(lines.record(id, page), id);
        const line = encoded(msg, lines);
        assert.equal(line, sent(msg));
        assert.equal(Buffer.byteLength(line), size, "encodedSize is the line's length, its newline included");
      },
    ),
    { numRuns: 300 },
  );
});

/** The writer of the page `{items: [{text}...], next_cursor: null, content_hash: "h"}`, from the texts' bytes. */
function pageWriter(texts: readonly string[]): JsonWriter {
  return (sink) => {
    sink.text('{"items":[');
    texts.forEach((t, i) => {
      sink.text(`${i === 0 ? "" : ","}{"text":"`);
      sink.jsonString(new TextEncoder().encode(t));
      sink.text('"}');
    });
    sink.text('],"next_cursor":null,"content_hash":"h"}');
  };
}

test("a page's own byte writer is used, and escapes bytes exactly as JSON.stringify does", () => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 5 }), (texts) => {
      const page = { items: texts.map((t) => ({ text: t })), next_cursor: null, content_hash: "h" };
      let used = false;
      const lines = new ResultLines();
      const result = lines.record(3, page, (sink) => {
        used = true;
        pageWriter(texts)(sink);
      });
      const msg = message(result, 3);
      assert.equal(encoded(msg, lines), sent(msg));
      assert.ok(used);
    }),
    { numRuns: 300 },
  );
});

test("a page recorded as its shape, texts left empty, is written whole by its writer, the plain way too", () => {
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), (texts) => {
      const page = { items: texts.map((t) => ({ text: t })), next_cursor: null, content_hash: "h" };
      const write = pageWriter(texts);
      const shape = () => ({ ...page, items: texts.map(() => ({ text: "" })) });
      const whole = (id: string | number) => sent(message(toolResult(page), id));
      // From its record; with an id that holds a stand-in's mark; after a request that reused its id took it.
      let lines = new ResultLines();
      assert.equal(encoded(message(lines.record(1, shape(), write), 1), lines), whole(1));
      const marked = "\u0000ptc-fs-mcp:text\u0000";
      lines = new ResultLines();
      assert.equal(encoded(message(lines.record(marked, shape(), write), marked), lines), whole(marked));
      lines = new ResultLines();
      const [first, second] = [
        message(lines.record(2, shape(), write), 2),
        message(lines.record(2, shape(), write), 2),
      ];
      assert.equal(encoded(first, lines), whole(2));
      assert.equal(
        encoded(second, lines),
        whole(2),
        "its record dropped: made by the writer its items carry",
      );
      assert.equal(lines.size, 0);
    }),
    { numRuns: 200 },
  );
});

test("a string's two copies are written in one pass across blocks, as JSON.stringify writes them", () => {
  // Past the 16 KiB a step escapes, every special character on both sides of a step's edge.
  const value = "x".repeat(16 * 1024 - 3) + SPECIAL.join("") + "y".repeat(20_000) + SPECIAL.join("");
  const write = pageWriter([value]);
  const page = { items: [{ text: value }], next_cursor: null, content_hash: "h" };
  const lines = new ResultLines();
  const msg = message(lines.record(9, { ...page, items: [{ text: "" }] }, write), 9);
  assert.equal(encoded(msg, lines), sent(message(toolResult(page), 9)));
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
    assert.equal(encoded(msg, lines), sent(msg));
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
  assert.equal(encoded(changed, lines), sent(changed));
});

test("records are found by the stand-in each result carries: reused ids, and a cancelled one's dropped", () => {
  const lines = new ResultLines();
  const written: string[] = [];
  const record = (id: number, hash: string) => {
    const page = { items: [hash], next_cursor: null, content_hash: hash };
    return message(
      lines.record(id, page, (sink) => (written.push(hash), sink.text(JSON.stringify(page)))),
      id,
    );
  };
  // Two requests with one id, answered in the other order: each line has its own page. The first answer
  // settles the id, so the other is written the plain way, not from the first's record.
  const [first, second] = [record(1, "first"), record(1, "second")];
  assert.equal(encoded(second, lines), sent(second));
  assert.equal(encoded(first, lines), sent(first));
  assert.deepEqual(written, ["second", "first"], "the plain way, still by the writer its page carries");
  assert.equal(lines.size, 0);
  // A cancelled request's record is dropped; a request that reused its id is still written whole.
  const cancelledTwin = record(2, "twin");
  lines.drop(2);
  assert.equal(lines.size, 0);
  assert.equal(encoded(cancelledTwin, lines), sent(cancelledTwin));
  assert.deepEqual(written, ["second", "first", "twin"]);
});

test("no record outlives its request: answered, refused, or cancelled while in flight", async () => {
  const root = makeRoot({ "a.txt": "x".repeat(100_000) });
  const results = new ResultLines();
  const [input, output] = [new PassThrough(), new PassThrough()];
  const answered = new Map<string | number, { result?: { structuredContent?: unknown } }>();
  const waiting = new Map<string | number, () => void>();
  let partial = "";
  output.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const message = JSON.parse(line);
      answered.set(message.id, message);
      waiting.get(message.id)?.();
    }
  });
  const transport = new StdioTransport(input, output, results, () => {});
  await buildServer(openRoot({ root: root.path, include: ["**"] }), undefined, results).connect(transport);
  const call = (id: string | number, args: object) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "read_text_file", arguments: args, _meta: META },
    }) + "\n";
  const cancel = (id: string | number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, _meta: META },
    }) +
    "\n";
  try {
    // Each call with its cancellation right behind it, in one write: cancelled while in flight.
    let batch = "";
    for (let id = 0; id < 50; id++) batch += call(id, { path: "a.txt" }) + cancel(id);
    input.write(batch + call("answered", { path: "a.txt" }) + call("refused", { path: "missing.txt" }));
    const last = new Promise<void>((resolve) => waiting.set("last", resolve));
    input.write(call("last", { path: "a.txt" }));
    await last;
    assert.ok(answered.get("answered")?.result?.structuredContent, "a call not cancelled is answered");
    assert.ok(answered.has("refused"), "a refused call is answered");
    assert.equal(results.size, 0, "every record was taken or dropped");
  } finally {
    await transport.close();
    root.cleanup();
  }
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
        const { result } = JSON.parse(line);
        if (result?.structuredContent) {
          assert.equal(
            result.content[0].text,
            JSON.stringify(result.structuredContent),
            "the text is the JSON",
          );
        }
        assert.ok(Buffer.byteLength(line) <= Number(ceiling), "within the ceiling");
      }
    });
  }
});

/** A turn of the event loop: the next immediate. */
const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The line `answeredAfterStop` sends for `id`. */
const discoverLine = (id: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: META } }) + "\n";

test("with oneChunkATurn (Node), input is taken in a chunk a loop turn: a flood cannot hold the loop", async () => {
  // Node reads up to 32 chunks of a stream in a row and runs a signal's handler only after them: a flood of
  // small requests held SIGTERM back for 3–8 s.
  const input = new PassThrough();
  const transport = new StdioTransport(input, new PassThrough(), new ResultLines(), () => {}, {
    oneChunkATurn: true,
  });
  const received: unknown[] = [];
  transport.onmessage = (message) => void received.push(message);
  await transport.start();
  for (let i = 0; i < 3; i++) input.write(discoverLine(`chunk-${i}`)); // three chunks, written at once
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(received.length, 1, "one chunk in this turn");
  for (let turn = 0; turn < 10 && received.length < 3; turn++) {
    await immediate();
  }
  assert.equal(received.length, 3, "the others in the turns after");
  await transport.close();
});

/**
 * A transport serving a fresh root over in-memory streams, stopped as at a signal (its turns immediates) while
 * `feed` sends discover requests by id, the ids of an array in one write; the ids answered, once it closed.
 */
async function answeredAfterStop(
  feed: (
    send: (ids: string | string[]) => void,
    stop: () => Promise<void>,
    closed: () => boolean,
  ) => Promise<void>,
): Promise<string[]> {
  const root = makeRoot({ "a.txt": "a\n" });
  const results = new ResultLines();
  const [input, output] = [new PassThrough(), new PassThrough()];
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  const transport = new StdioTransport(input, output, results, () => {});
  await buildServer(openRoot({ root: root.path, include: ["**"] }), undefined, results).connect(transport);
  const send = (ids: string | string[]) => input.write([ids].flat().map(discoverLine).join(""));
  try {
    const stop = () => transport.finishAfterInput(immediate);
    let closed = false;
    void transport.closed.then(() => closed = true);
    const stopped = stop();
    await feed(send, stop, () => closed);
    await stopped;
    await transport.closed;
    return written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line).id);
  } finally {
    root.cleanup();
  }
}

const halfQuietWindow = () => new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_STOP_MS / 2));

test("two stop signals in one turn are one stop: a request arriving after them is still answered", async () => {
  // Deno hands over SIGTERM and SIGINT that came while it started together, once the server is up, before
  // its first read of stdin: the second must not stop the input the first waits for.
  const answered = await answeredAfterStop(async (send, stop) => {
    void stop();
    await halfQuietWindow();
    send("late");
  });
  assert.deepEqual(answered, ["late"]);
});

/** Waits until the first stop's drain has had its first turn (an immediate it queued before these). */
const afterDrainTurn = async () => {
  for (let i = 0; i < 2; i++) await immediate();
};

/** `n` ids from `prefix`, in writes of 64 KiB at most: reads as a pipe would bring them. */
function inPipeReads(prefix: string, n: number): string[][] {
  const reads: string[][] = [[]];
  for (let i = 0, bytes = 0; i < n; i++) {
    const id = `${prefix}-${i}`;
    bytes += discoverLine(id).length;
    if (bytes > 64 * 1024) {
      reads.push([]);
      bytes = discoverLine(id).length;
    }
    reads.at(-1)!.push(id);
  }
  return reads;
}

for (const when of ["in the same turn", "a turn after the first"] as const) {
  test(`a second stop signal ${when} is the same stop: what comes after it is taken in as after the first`, async () => {
    // Deno may hand over a SIGINT sent with SIGTERM after the first drain's turn, and still had up to 157 KB
    // of a batch written before both to hand over: it is all answered.
    const reads = inPipeReads("late", (MAX_INPUT_AFTER_STOP / 4) / discoverLine("late-0").length);
    const answered = await answeredAfterStop(async (send, stop) => {
      if (when !== "in the same turn") await afterDrainTurn();
      void stop();
      for (const ids of reads) {
        send(ids);
        await immediate();
      }
    });
    assert.deepEqual(answered, reads.flat());
  });
}

test("after a stop signal, a client that floods the input in one turn is stopped at the bytes cap", async () => {
  // Node reads up to 32 chunks of 64 KiB in one turn of its loop: the bound holds inside a turn, too.
  const reads = inPipeReads("flood", (2 * MAX_INPUT_AFTER_STOP) / discoverLine("flood-0").length);
  const answered = await answeredAfterStop((send) => {
    for (const ids of reads) send(ids); // in one turn
    return Promise.resolve();
  });
  const takenBytes = answered.reduce((sum, id) => sum + discoverLine(id).length, 0);
  assert.ok(takenBytes > MAX_INPUT_AFTER_STOP / 2, `took in ${takenBytes} bytes`);
  assert.ok(takenBytes <= MAX_INPUT_AFTER_STOP, `took in ${takenBytes} bytes`);
});

test("after a stop signal, a request still arriving in the quiet window is answered, then the transport closes", async () => {
  // The stop comes first; the request only after a pause longer than two turns (a runtime slow to hand over
  // its first read), but inside the quiet window: it was sent before the stop, so it is answered.
  const answered = await answeredAfterStop(async (send) => {
    await halfQuietWindow();
    send("late");
  });
  assert.deepEqual(answered, ["late"]);
});

test("after a stop signal, input that comes in reads apart, later than two turns, is all answered", async () => {
  // A runtime may hand over a batch sent before the stop in reads some milliseconds apart: after the first
  // read, input is still taken in until none came for the quiet window, not only for two turns.
  const answered = await answeredAfterStop(async (send) => {
    send("first");
    await halfQuietWindow();
    send("second");
  });
  assert.deepEqual(answered, ["first", "second"]);
});

test("after a stop signal, input that keeps coming within the quiet window is taken in for longer than it", async () => {
  // Input that came while the server waited starts the quiet window again, so this takes 5 quiet windows.
  const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
  const answered = await answeredAfterStop(async (send) => {
    for (const id of ids) {
      send(id);
      await halfQuietWindow();
    }
  });
  assert.deepEqual(answered, ids);
});

test("after a stop signal, a client that keeps writing a little at a time is stopped after the waiting cap", async () => {
  // One request each half quiet window never lets the window pass. The server waits a step at least between
  // two, so `MAX_WAIT_AFTER_STOP_MS` of waiting in all ends the input after this many requests at most; the
  // client gives up after 4 times as many, which the server takes in only if the cap is missing.
  const bound = MAX_WAIT_AFTER_STOP_MS / QUIET_STEP_MS + 1;
  const answered = await answeredAfterStop(async (send, _stop, closed) => {
    for (let n = 0; n < 4 * bound && !closed(); n++) {
      send(`trickle-${n}`);
      await halfQuietWindow();
    }
  });
  assert.ok(answered.length > 1, "input is still taken in after the first quiet window");
  assert.ok(answered.length <= bound, `took in ${answered.length} requests`);
});

test("after a stop signal, a client that writes a little each turn is stopped after the reads cap", async () => {
  // Each request comes in a read of its own, in a turn the server spends reading, so it never waits: only
  // `MAX_READS_AFTER_STOP` ends the input (the bytes cap would take about 4,000 of them).
  const answered = await answeredAfterStop(async (send, _stop, closed) => {
    for (let n = 0; n < 4 * MAX_READS_AFTER_STOP && !closed(); n++) {
      send(`turn-${n}`);
      await immediate();
    }
  });
  assert.ok(answered.length > 2, "input is still taken in after two turns");
  assert.ok(answered.length <= MAX_READS_AFTER_STOP, `took in ${answered.length} requests`);
});

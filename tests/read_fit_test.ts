/**
 * How `read_text_file` fits a page: the per-byte cost table it fits with
 * (`STRING_BYTE_COST`, checked against `encodedSize` on random strings),
 * pages that are exactly the longest that fit (one more character would
 * not), and the whole-file UTF-8 check of files larger than one validation
 * read.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { makeRoot, RUNTIME, structured, toolErrorText, withServer } from "./_harness.ts";
import { type InProcessServer, toolContext, withInProcess } from "./_inprocess.ts";
import { openRoot } from "../mod.ts";
import { charBoundary } from "../src/bytes.ts";
import { CursorCodec } from "../src/cursor.ts";
import { cursorPosition, readTextFile } from "../src/tools/read_text_file.ts";
import { ByteSink, encodedSize, type Envelope, itemCost, STRING_BYTE_COST } from "../src/result_line.ts";
import { SERVER_NAME, VERSION } from "../src/version.ts";

const ENVELOPE: Envelope = { requestId: 7, maxBytes: 0, serverInfo: { name: SERVER_NAME, version: VERSION } };

/** Every control character, the characters JSON escapes, and each UTF-8 width (U+2028/9 included). */
const SPECIAL = [
  ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)),
  '"',
  "\\",
  "/",
  "\x7f",
  "\u0080",
  "\u00e9",
  "\u07ff",
  "\u0800",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\uffff",
  "\u{10000}",
  "\u{1f600}",
  "\u{10ffff}",
];
const char = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc.integer({ min: 0x00, max: 0x7f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xe000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

function costOf(bytes: Uint8Array): number {
  let cost = 0;
  for (const b of bytes) cost += STRING_BYTE_COST[b];
  return cost;
}

test("STRING_BYTE_COST: a string's bytes cost exactly what they add to the encoded line", () => {
  const page = (text: string, offset: number) => ({
    items: [{ byte_offset: offset, text }],
    next_cursor: null,
    content_hash: "sha256:" + "0".repeat(64),
  });
  // Each ASCII byte alone, then random mixes.
  for (let b = 0; b < 0x80; b++) {
    const text = String.fromCharCode(b);
    assert.equal(
      encodedSize(ENVELOPE, page(text, 0)) - encodedSize(ENVELOPE, page("", 0)),
      STRING_BYTE_COST[b],
      `byte ${b}`,
    );
  }
  fc.assert(
    fc.property(fc.string({ unit: char, maxLength: 40 }), fc.nat({ max: 1e12 }), (text, offset) => {
      const bytes = Buffer.from(text);
      assert.equal(
        encodedSize(ENVELOPE, page(text, offset)) - encodedSize(ENVELOPE, page("", offset)),
        costOf(bytes),
      );
      // And an item's whole cost is its empty cost plus its bytes'.
      assert.equal(
        itemCost({ byte_offset: offset, text }),
        itemCost({ byte_offset: offset, text: "" }) + costOf(bytes),
      );
    }),
    { numRuns: 2_000 },
  );
});

/** A deterministic file of `size`-ish bytes dense in escapes, controls and multi-byte characters. */
function nastyText(size: number, seed: number): Buffer {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
  const parts: string[] = [];
  let at = 0;
  while (at < size) {
    const r = next();
    const c = r < 0.3
      ? SPECIAL[Math.floor(next() * SPECIAL.length)]
      : r < 0.7
      ? String.fromCharCode(0x20 + Math.floor(next() * 0x5f))
      : String.fromCodePoint([0xe9, 0x4e2d, 0x1f600][Math.floor(next() * 3)]);
    parts.push(c);
    at += Buffer.byteLength(c);
  }
  return Buffer.from(parts.join(""));
}

/**
 * Reads `name` page by page and checks that every page fits `max` and that
 * one more character (extending the last item within its chunk, or
 * starting a new item) would not have fit.
 */
async function checkLongest(
  server: InProcessServer,
  name: string,
  file: Buffer,
  max: number,
  chunk: number,
  maxItems: number,
): Promise<number> {
  const codec = new CursorCodec(); // cursor lengths do not depend on the key
  let cursor: string | null = null;
  let offset = 0;
  let pages = 0;
  do {
    const response = await server.call(
      "read_text_file",
      cursor === null ? { path: name } : { path: name, cursor },
    );
    const page = structured(response);
    pages++;
    const envelope: Envelope = {
      requestId: response.id as number,
      maxBytes: max,
      serverInfo: response.result._meta["io.modelcontextprotocol/serverInfo"],
    };
    const size = encodedSize(envelope, page);
    assert.equal(size, Buffer.byteLength(`${server.lines.at(-1)!}\n`), "encodedSize is the line's length");
    assert.ok(size <= max, `a ${size}-byte line under a ${max}-byte ceiling`);
    const items: { byte_offset: number; text: string }[] = page.items;
    assert.ok(items.length > 0 || file.length === 0);
    for (const item of items) {
      assert.equal(item.byte_offset, offset);
      const bytes = Buffer.from(item.text);
      assert.ok(bytes.equals(file.subarray(offset, offset + bytes.length)), "the item is the file's bytes");
      offset += bytes.length;
    }
    if (offset < file.length) {
      // The page one character longer: the last item grows within its chunk, or a new one starts.
      const last = items[items.length - 1];
      const lastEnd = charBoundary(file, last.byte_offset + chunk);
      const charEnd = firstCharEnd(file, offset);
      const longerItems = offset < lastEnd
        ? [...items.slice(0, -1), { ...last, text: file.subarray(last.byte_offset, charEnd).toString() }]
        : [...items, { byte_offset: offset, text: file.subarray(offset, charEnd).toString() }];
      if (longerItems.length <= maxItems) {
        const longer = {
          items: longerItems,
          next_cursor: charEnd >= file.length ? null : codec.issue(
            "read_text_file",
            { path: name },
            "0".repeat(64),
            cursorPosition(charEnd, file.length),
          ),
          content_hash: page.content_hash,
        };
        assert.ok(encodedSize(envelope, longer) > max, `page ${pages} is not the longest that fits`);
      }
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
  assert.equal(offset, file.length);
  return pages;
}

/** The end of the character that starts at `at`. */
function firstCharEnd(bytes: Uint8Array, at: number): number {
  const b = bytes[at];
  return at + (b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2);
}

test("every read_text_file page is the longest that fits the ceiling exactly (in-process)", async () => {
  const file = nastyText(12_000, 3);
  const ascii = Buffer.from("a".repeat(8_000));
  for (const [readChunkBytes, maxResultBytes] of [[4, 1_024], [7, 1_500], [100, 3_333], [16_384, 9_000]]) {
    await withInProcess(
      { "n.txt": file, "a.txt": ascii },
      { limits: { readChunkBytes, maxResultBytes } },
      async (server) => {
        const pages = await checkLongest(server, "n.txt", file, maxResultBytes, readChunkBytes, 1_000);
        assert.ok(pages > 1);
        await checkLongest(server, "a.txt", ascii, maxResultBytes, readChunkBytes, 1_000);
      },
    );
  }
});

test("a last page takes the whole rest when it fits without a cursor (in-process)", async () => {
  // Sizes around the point where the rest fits only because the last page carries no cursor.
  for (let size = 400; size <= 560; size += 4) {
    const file = Buffer.from("b".repeat(size));
    await withInProcess({ "b.txt": file }, { limits: { maxResultBytes: 1_300 } }, async (server) => {
      await checkLongest(server, "b.txt", file, 1_300, 16_384, 1_000);
    });
  }
});

test(`${RUNTIME}: files larger than one validation read: characters across reads, late bad bytes`, async () => {
  const MIB = 1024 * 1024;
  const pad = (n: number) => Buffer.from("x".repeat(n));
  const emoji = Buffer.from("\u{1f600}");
  const files = {
    // A 4-byte character across each 1 MiB boundary.
    "good.txt": Buffer.concat([pad(MIB - 2), emoji, pad(MIB - 4), emoji, pad(10)]),
    "late.txt": Buffer.concat([pad(MIB + 5), Buffer.from([0xff]), pad(10)]),
    "across.txt": Buffer.concat([pad(MIB - 1), Buffer.from([0xe2, 0x28, 0xa1]), pad(10)]),
    "cut.txt": Buffer.concat([pad(MIB + 100), emoji.subarray(0, 3)]),
  };
  await withServer(files, ["--include", "**", "--max-result-bytes", "5000000"], async (server) => {
    const page = structured(await server.call("read_text_file", { path: "good.txt" }));
    assert.equal(page.next_cursor, null);
    const text = page.items.map((i: { text: string }) => i.text).join("");
    assert.ok(Buffer.from(text).equals(files["good.txt"]));
    for (const name of ["late.txt", "across.txt", "cut.txt"]) {
      assert.equal(
        toolErrorText(await server.call("read_text_file", { path: name })),
        `${name} is not valid UTF-8 text`,
      );
    }
  });
});

test("a read page's value is the JSON its writer makes from the bytes, and its shape that value less its texts", async () => {
  const files = {
    "empty.txt": "",
    "small.txt": 'a"b\\c\n\t é\u2028😀',
    "big.txt": 'x\u00e9"\n'.repeat(30_000), // several items a page, and several pages
  };
  const temp = makeRoot(files);
  try {
    const ctx = toolContext(openRoot({ root: temp.path, include: ["**"] }));
    for (const path of Object.keys(files)) {
      for (const limit of [undefined, 1]) {
        let text = "";
        let cursor: string | undefined;
        do {
          const reply = await readTextFile.run({ path, limit, cursor }, ctx);
          assert.ok(reply.writeJson, "a read page is written from its bytes");
          const sink = new ByteSink(16);
          reply.writeJson(sink);
          const { value } = reply;
          assert.equal(new TextDecoder().decode(sink.view()), JSON.stringify(value), path);
          assert.deepEqual(reply.shape, {
            ...value,
            items: value.items.map((item) => ({ ...item, text: "" })),
          });
          text += value.items.map((item) => item.text).join("");
          cursor = (value.next_cursor as string | null) ?? undefined;
        } while (cursor);
        assert.equal(text, files[path as keyof typeof files], `${path}: the pages' texts are the file`);
      }
    }
  } finally {
    temp.cleanup();
  }
});

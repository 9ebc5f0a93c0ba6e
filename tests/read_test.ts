import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { RUNTIME, type Server, structured, toolErrorText, traverse, withServer } from "./_harness.ts";
import { withInProcess } from "./_inprocess.ts";
import { DEFAULT_LIMITS } from "../mod.ts";
import { mulberry32 } from "./_rng.ts";
import { contentHash } from "./_sha256.ts";

const CHUNK = DEFAULT_LIMITS.readChunkBytes;
const MIB = 1024 * 1024;

/** Characters of every UTF-8 width, plus the ones JSON escapes. */
const ONE = ["a", "z", "\n", '"', "\\", "\t"];
const TWO = ["é", "ß", "Ж"];
const THREE = ["€", "中", "\u2028"];
const FOUR = ["😀", "𝄞", "🜁"];

/**
 * About `size` bytes of mixed-width UTF-8, where a 4-byte character
 * straddles every multiple of `chunk`; the rest is a dense random mix, so
 * the edges of pages (which start anywhere) land inside characters too.
 */
function mixedText(size: number, chunk: number, seed = 1): Buffer {
  const next = mulberry32(seed);
  const pick = (set: string[]) => set[Math.floor(next() * set.length)];
  const parts: string[] = [];
  let at = 0;
  while (at < size) {
    const toEdge = chunk - (at % chunk);
    let c: string;
    if (toEdge <= 3) c = pick(FOUR);
    else {
      const r = next();
      c = pick(r < 0.4 ? ONE : r < 0.6 ? TWO : r < 0.8 ? THREE : FOUR);
      if (Buffer.byteLength(c) === toEdge) c = "a"; // never end a character exactly on an edge
    }
    parts.push(c);
    at += Buffer.byteLength(c);
  }
  return Buffer.from(parts.join(""));
}

/** Reads a whole file page by page and checks every page; returns the pages. */
async function readAndCheck(server: Server, path: string, file: Buffer, limit: number | undefined) {
  const { pages } = await traverse(
    server,
    "read_text_file",
    limit === undefined ? { path } : { path, limit },
  );
  let offset = 0;
  const texts: Buffer[] = [];
  for (const page of pages) {
    assert.deepEqual(Object.keys(page).sort(), ["content_hash", "items", "next_cursor"]);
    if (limit !== undefined) {
      assert.ok(page.items.length <= limit, `a page holds ${page.items.length} > ${limit}`);
    }
    const pageBytes: Buffer[] = [];
    for (const item of page.items) {
      assert.equal(item.byte_offset, offset, "items are contiguous");
      const bytes = Buffer.from(item.text);
      assert.ok(bytes.length > 0, "no empty item");
      assert.ok(bytes.length <= CHUNK, `an item of ${bytes.length} bytes exceeds the chunk size`);
      offset += bytes.length;
      pageBytes.push(bytes);
    }
    const pageText = Buffer.concat(pageBytes);
    assert.equal(page.content_hash, contentHash(pageText), "content_hash covers the page's text bytes");
    texts.push(pageText);
  }
  assert.equal(pages.at(-1).next_cursor, null);
  const whole = Buffer.concat(texts);
  assert.equal(whole.length, file.length);
  assert.ok(whole.equals(file), "the pages reconstruct the file byte for byte");
  return pages;
}

const FILE = mixedText(MIB, CHUNK);

test("the 1 MiB fixture puts a character across every chunk edge", () => {
  assert.ok(FILE.length >= MIB && FILE.length < MIB + 4);
  for (let edge = CHUNK; edge < FILE.length; edge += CHUNK) {
    assert.equal(FILE[edge] & 0xc0, 0x80, `a continuation byte at ${edge}`);
  }
  assert.equal(Buffer.from(FILE.toString("utf8")).equals(FILE), true, "valid UTF-8");
});

for (const ceiling of [2_000, 10_000, undefined]) {
  const label = ceiling === undefined ? "the default ceiling" : `--max-result-bytes ${ceiling}`;
  test(`${RUNTIME}: read_text_file reconstructs 1 MiB of multi-byte text under ${label}`, async () => {
    const args = ceiling === undefined
      ? ["--include", "**"]
      : ["--include", "**", "--max-result-bytes", `${ceiling}`];
    const max = ceiling ?? DEFAULT_LIMITS.maxResultBytes;
    await withServer({ "big.txt": FILE }, args, async (server) => {
      for (const limit of [1, 3, undefined]) {
        const first = server.lines.length;
        const pages = await readAndCheck(server, "big.txt", FILE, limit);
        const lines = server.lines.slice(first);
        assert.equal(lines.length, pages.length);
        if (limit === undefined) {
          // Pages are filled up to the ceiling (less than one character short), not merely kept under it.
          const sizes = lines.slice(0, -1).map((line) => Buffer.byteLength(line));
          for (const size of sizes) {
            assert.ok(size > max - 64, `a ${size}-byte page under a ${max}-byte ceiling`);
          }
        }
      }
      assert.ok(server.lines.length > 0);
      for (const line of server.lines) {
        const size = Buffer.byteLength(line);
        assert.ok(size <= max, `a response line of ${size} bytes exceeds the ${max}-byte ceiling`);
      }
    });
  });
}

test(`${RUNTIME}: a byte-order mark is text like any other, at the start and at a page start`, async () => {
  const bom = "\uFEFF";
  const text = bom + "a".repeat(CHUNK - 3) + bom + "tail\n";
  const file = Buffer.from(text);
  assert.equal(file.subarray(CHUNK, CHUNK + 3).toString(), bom);
  await withServer({ "bom.txt": file }, ["--include", "**"], async (server) => {
    const pages = await readAndCheck(server, "bom.txt", file, 1);
    assert.equal(pages.length, 2);
    assert.ok(pages[0].items[0].text.startsWith(bom));
    assert.ok(pages[1].items[0].text.startsWith(bom));
    await readAndCheck(server, "bom.txt", file, undefined);
  });
});

test(`${RUNTIME}: a file that is not UTF-8 anywhere is refused, an empty file reads as nothing`, async () => {
  const late = Buffer.concat([
    Buffer.from("x".repeat(300_000)),
    Buffer.from([0xc3, 0x28]),
    Buffer.from("ok"),
  ]);
  const files = {
    "bad.txt": Buffer.from([0x61, 0x62, 0xff, 0x63]),
    "late.txt": late,
    "truncated.txt": Buffer.from([0x61, 0xe2, 0x82]),
    "surrogate.txt": Buffer.from([0x61, 0xed, 0xa0, 0x80]),
    "overlong.txt": Buffer.from([0xc0, 0xaf]),
    "empty.txt": new Uint8Array(0),
  };
  await withServer(files, ["--include", "**"], async (server) => {
    for (const name of ["bad.txt", "late.txt", "truncated.txt", "surrogate.txt", "overlong.txt"]) {
      for (const limit of [undefined, 1]) {
        const text = toolErrorText(await server.call("read_text_file", { path: name, limit }));
        assert.equal(text, `${name} is not valid UTF-8 text`);
      }
    }
    const empty = structured(await server.call("read_text_file", { path: "empty.txt" }));
    assert.deepEqual(empty, { items: [], next_cursor: null, content_hash: contentHash(new Uint8Array(0)) });
  });
});

test("read_text_file cuts items on character boundaries at tiny chunk sizes (in-process)", async () => {
  const file = mixedText(24_000, 7, 2);
  for (const readChunkBytes of [4, 5, 7, 16]) {
    await withInProcess(
      { "m.txt": file },
      { limits: { readChunkBytes, maxResultBytes: 6_000 } },
      async (server) => {
        const { pages } = await traverse(server, "read_text_file", { path: "m.txt" });
        const items = pages.flatMap((p) => p.items);
        let offset = 0;
        for (const item of items) {
          assert.equal(item.byte_offset, offset);
          const n = Buffer.byteLength(item.text);
          assert.ok(
            n > 0 && n <= readChunkBytes,
            `an item of ${n} bytes with readChunkBytes ${readChunkBytes}`,
          );
          offset += n;
        }
        assert.ok(Buffer.concat(items.map((i) => Buffer.from(i.text))).equals(file));
        for (const page of pages) {
          assert.equal(
            page.content_hash,
            contentHash(Buffer.from(page.items.map((i: { text: string }) => i.text).join(""))),
          );
        }
        for (const line of server.lines) assert.ok(Buffer.byteLength(line) <= 6_000);
      },
    );
  }
});

test("maxPageItems caps a page whatever the limit asks (in-process)", async () => {
  const file = Buffer.from("0123456789".repeat(100));
  await withInProcess(
    { "d.txt": file },
    { limits: { readChunkBytes: 16, maxPageItems: 3 } },
    async (server) => {
      const { pages, items } = await traverse(server, "read_text_file", { path: "d.txt", limit: 50 });
      assert.ok(pages.every((p) => p.items.length <= 3));
      assert.equal(pages.length, Math.ceil(1000 / 16 / 3));
      assert.equal(items.map((i) => i.text).join(""), file.toString());
    },
  );
});

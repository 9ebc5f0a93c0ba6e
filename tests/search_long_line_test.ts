/**
 * `search_text` on lines longer than its scan window: the window never
 * grows, the scan streams through the line a window at a time (a match may
 * straddle two windows, a character may be cut by one), honours a
 * cancellation inside the line, and still reports the line whole (its text
 * cut to 1,024 bytes) or skips it whole when it is not UTF-8.
 *
 * The in-process server with `searchScanBytes: 4096` scans in windows of
 * 4 KiB (the smallest), so lines of tens of KiB are already "long".
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME, traverse } from "./_harness.ts";
import { Rng } from "./_rng.ts";
import { toolContext, withInProcess } from "./_inprocess.ts";
import { expected } from "./_search_reference.ts";
import { type FileHandle, type FsPort, openRoot, ToolError } from "../mod.ts";
import { searchText } from "../src/tools/search_text.ts";
import { nodePort } from "../src/ports/node.ts";

const WINDOW = 4_096;

/** A line of `length` bytes of filler with pieces set at offsets. */
function line(length: number, pieces: [number, string | Uint8Array][] = [], fill = "x"): Buffer {
  const bytes = Buffer.alloc(length, fill);
  for (const [at, piece] of pieces) Buffer.from(piece as string).copy(bytes, at);
  return bytes;
}

test(`${RUNTIME}: a line longer than the scan window is reported whole, matched across window edges`, async () => {
  const euro = "\u20ac"; // 3 bytes
  const clef = "\u{1d11e}"; // 4 bytes
  const files = {
    // The text is cut before a character the 1,024-byte cut would split; the needle straddles
    // the first window edge; characters straddle later edges.
    "straddle.txt": Buffer.concat([
      line(20_000, [[1_022, euro], [WINDOW - 3, "needle"], [2 * WINDOW - 1, euro], [3 * WINDOW - 2, clef]]),
      Buffer.from("\nneedle two\n"),
    ]),
    // Not UTF-8 deep inside the line, or a character cut by garbage across an edge: skipped whole.
    "invalid.txt": Buffer.concat([
      line(30_000, [[10, "needle"], [25_000, new Uint8Array([0xff])]]),
      Buffer.from("\nneedle after\n"),
    ]),
    "cut.txt": line(3 * WINDOW, [[5, "needle"], [2 * WINDOW - 1, new Uint8Array([0xe2, 0x41])]]),
    // The needle ends exactly at the end of a long last line without newline.
    "tail.txt": Buffer.concat([Buffer.from("short\n"), line(5 * WINDOW + 17, [[5 * WINDOW + 11, "needle"]])]),
    // Two long lines in a row, the match in the second; then a window of short lines.
    "two.txt": Buffer.concat([
      line(9_000),
      Buffer.from("\n"),
      line(9_000, [[8_000, "needle"]]),
      Buffer.from("\n"),
      Buffer.from("needle short\n".repeat(400)),
    ]),
    "none.txt": line(50_000, [[WINDOW - 2, "need"], [WINDOW + 5, "le"]]),
  };
  await withInProcess(files, { limits: { searchScanBytes: WINDOW } }, async (server, root) => {
    const want = Object.keys(files).sort().flatMap((path) =>
      expected(path, readFileSync(join(root.path, path)), "needle")
    );
    assert.ok(!want.some((i) => i.path === "invalid.txt" && i.line === 1));
    for (const limits of [undefined, [1], [3, 1000]]) {
      const { items } = await traverse(server, "search_text", { query: "needle" }, { limits });
      assert.deepEqual(items, want, JSON.stringify(limits));
    }
    const straddle = want.find((i) => i.path === "straddle.txt" && i.line === 1)!;
    assert.equal(Buffer.byteLength(straddle.text), 1_022, "cut before the character the cut would split");
  });
});

test(`${RUNTIME}: the lines after a long line that ends in the file's last window are searched`, async () => {
  // At the default limits the window is 1 MiB and the budget larger, so nothing ends the call between the
  // window where a long line ends and the short lines after it in that window (they were once dropped).
  const MIB = 1024 * 1024;
  const files = {
    "exact.txt": Buffer.concat([line(MIB), Buffer.from("\nneedle after a window\n")]),
    "matched.txt": Buffer.concat([line(MIB + 100, [[10, "needle"]]), Buffer.from("\nneedle 2\r\nneedle 3")]),
    "longer.txt": Buffer.concat([line(2 * MIB + 7), Buffer.from(`\n${"needle and more\n".repeat(1_000)}`)]),
  };
  await withInProcess(files, {}, async (server, root) => {
    const want = Object.keys(files).sort().flatMap((path) =>
      expected(path, readFileSync(join(root.path, path)), "needle")
    );
    assert.equal(want.length, 1 + 3 + 1_000);
    const { items } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, want);
  });
});

test(`${RUNTIME}: random long lines are reported exactly as the bytes say`, async () => {
  const rng = new Rng(0x5eed);
  const pieces = ["needle", "\u00e9", "\u20ac", "\u{1d11e}", "\r", new Uint8Array([0xff]), "nee", "dle"];
  const files: Record<string, Buffer> = {};
  for (let f = 0; f < 6; f++) {
    const lines: Buffer[] = [];
    for (let l = 0, count = 1 + rng.int(5); l < count; l++) {
      const length = rng.int(4) === 0 ? rng.int(200) : WINDOW + rng.int(6 * WINDOW);
      const marks: [number, string | Uint8Array][] = [];
      for (let k = rng.int(6); k > 0; k--) {
        const piece = pieces[rng.int(pieces.length)];
        marks.push([rng.int(Math.max(1, length - 8)), piece]);
      }
      lines.push(line(length, marks, "abcdefgh"[rng.int(8)]));
    }
    if (rng.int(2) === 0) lines.push(Buffer.from("needle at the end")); // short lines after a long one
    if (rng.int(2) === 0) lines.push(Buffer.from(""));
    files[`r${f}.txt`] = Buffer.from(lines.map((b) => b.toString("latin1")).join("\n"), "latin1");
  }
  await withInProcess(files, { limits: { searchScanBytes: WINDOW } }, async (server, root) => {
    const want = Object.keys(files).sort().flatMap((path) =>
      expected(path, readFileSync(join(root.path, path)), "needle")
    );
    assert.ok(want.length > 0, "some lines match");
    const { items } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, want);
  });
});

test(`${RUNTIME}: inside one long line the scan never reads more than a window at once and stops when cancelled`, async () => {
  const temp = makeRoot({ "long.txt": line(64 * WINDOW, [[60 * WINDOW, "needle"]]) });
  try {
    // A port whose reads are recorded, and that cancels the call at its fifth read.
    const reads: number[] = [];
    const abort = new AbortController();
    const port: FsPort = {
      ...nodePort,
      openRead(path: string): FileHandle {
        const handle = nodePort.openRead(path);
        return {
          ...handle,
          readAt(buffer: Uint8Array, position: number) {
            reads.push(buffer.length);
            if (reads.length === 5) abort.abort();
            return handle.readAt(buffer, position);
          },
        };
      },
    };
    const root = openRoot({
      root: temp.path,
      include: ["**"],
      limits: { searchScanBytes: WINDOW },
      fs: port,
    });
    const ctx = toolContext(root, abort.signal);
    await assert.rejects(
      Promise.resolve(searchText.run({ query: "needle", path: "long.txt" }, ctx)),
      (error: unknown) => error instanceof ToolError && error.message === "cancelled",
    );
    assert.ok(Math.max(...reads) <= WINDOW, `a read of ${Math.max(...reads)} bytes`);
    assert.equal(reads.length, 5, "no read after the cancellation");

    // Uncancelled, the line is found, still a window at a time.
    reads.length = 0;
    const { value: page } = await searchText.run({ query: "needle", path: "long.txt" }, {
      ...ctx,
      signal: new AbortController().signal,
    });
    assert.deepEqual(page.items.map((i: { line: number }) => i.line), [1]);
    assert.ok(Math.max(...reads) <= WINDOW, `a read of ${Math.max(...reads)} bytes`);
    assert.equal(reads.reduce((a, b) => a + b, 0), 64 * WINDOW);
  } finally {
    temp.cleanup();
  }
});

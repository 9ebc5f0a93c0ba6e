import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { RUNTIME, structured, toolErrorText, traverse, withServer } from "./_harness.ts";
import { withInProcess } from "./_inprocess.ts";
import { expected } from "./_search_reference.ts";

test(`${RUNTIME}: invalid UTF-8 lines are skipped whole; CRLF and a last line without newline are lines`, async () => {
  const bad = Buffer.concat([
    Buffer.from("needle one\n"),
    Buffer.from("needle \xff bad\n", "latin1"),
    Buffer.from("needle three\n"),
    Buffer.from("plain \xff line without the word\n", "latin1"),
    Buffer.from([0x78, 0xc3]),
    Buffer.from("needle split sequence\n"),
    Buffer.from("needle six needle twice\n"),
    Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xed, 0xa0, 0x80, 0x0a]), // an encoded surrogate
    Buffer.from("needle last"),
  ]);
  const crlf = Buffer.from("a needle\r\nb needle\r\nc\r\nmid\rneedle\r\n\r\nneedle at the end\r\n");
  const noNewline = Buffer.from("first\nsecond\nthe needle");
  const files = { "bad.txt": bad, "crlf.txt": crlf, "tail.txt": noNewline };
  await withServer(files, ["--include", "**"], async (server) => {
    const { items } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, [
      { path: "bad.txt", line: 1, text: "needle one" },
      { path: "bad.txt", line: 3, text: "needle three" },
      { path: "bad.txt", line: 6, text: "needle six needle twice" },
      { path: "bad.txt", line: 8, text: "needle last" },
      { path: "crlf.txt", line: 1, text: "a needle" },
      { path: "crlf.txt", line: 2, text: "b needle" },
      { path: "crlf.txt", line: 4, text: "mid\rneedle" },
      { path: "crlf.txt", line: 6, text: "needle at the end" },
      { path: "tail.txt", line: 3, text: "the needle" },
    ]);
    for (const [path, bytes] of Object.entries(files)) {
      assert.deepEqual(items.filter((i) => i.path === path), expected(path, bytes, "needle"), path);
    }
  });
});

test(`${RUNTIME}: a file over --max-file-bytes is skipped by a search, refused when a call names it`, async () => {
  const files = { "big.txt": "needle needle needle\n", "small.txt": "needle\n" }; // 21 and 7 bytes
  await withServer(files, ["--include", "**", "--max-file-bytes", "10"], async (server) => {
    const refusal = "big.txt is larger than the 10-byte file limit";
    assert.deepEqual((await traverse(server, "search_text", { query: "needle" })).items, [
      { path: "small.txt", line: 1, text: "needle" },
    ]);
    assert.equal(
      toolErrorText(await server.call("search_text", { query: "needle", path: "big.txt" })),
      refusal,
    );
    assert.equal(toolErrorText(await server.call("read_text_file", { path: "big.txt" })), refusal);
    assert.deepEqual(
      (await traverse(server, "search_text", { query: "needle", path: "small.txt" })).items,
      [{ path: "small.txt", line: 1, text: "needle" }],
    );
    // Listings never open a file: the big one is listed.
    assert.deepEqual((await traverse(server, "search_files", { query: "." })).items, [
      { path: "big.txt" },
      { path: "small.txt" },
    ]);
  });
});

test(`${RUNTIME}: a long line's text is cut to 1,024 bytes on a character boundary`, async () => {
  const lines = [
    "needle" + "€".repeat(1_000),
    "€".repeat(1_000) + "needle",
    "😀".repeat(300) + "needle",
    "a".repeat(2_000) + "needle",
    "é".repeat(600) + "needle",
    "x" + "😀".repeat(300) + "needle",
    "needle" + "a".repeat(1_018),
    "needle" + "a".repeat(1_019),
  ];
  const file = Buffer.from(lines.join("\n") + "\n");
  await withServer({ "long.txt": file }, ["--include", "**"], async (server) => {
    const { items } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, expected("long.txt", file, "needle"));
    assert.equal(items.length, lines.length);
    const sizes = items.map((i) => Buffer.byteLength(i.text));
    assert.deepEqual(sizes, [1_023, 1_023, 1_024, 1_024, 1_024, 1_021, 1_024, 1_024]);
    items.forEach((item, i) => assert.ok(lines[i].startsWith(item.text)));
    assert.equal(items[6].text, lines[6], "a line of exactly 1,024 bytes is whole");
    const euro = await traverse(server, "search_text", { query: "€needle" });
    assert.deepEqual(euro.items.map((i) => i.line), [2], "a multi-byte query matches bytes");
  });
});

test(`${RUNTIME}: line numbers are right across the scan windows of one call`, async () => {
  // About 17 MiB of lines of varying length; a needle every 9,973rd line and on the lines around 8 and 16 MiB.
  const parts: string[] = [];
  let size = 0;
  for (let n = 1; size < 17 * 1024 * 1024; n++) {
    const near = (mib: number) => Math.abs(size - mib * 1024 * 1024) < 200;
    const hit = n % 9_973 === 0 || near(8) || near(16);
    const line = `${n} ${"~".repeat(n % 61)}${hit ? " needle" : " hay"} é\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  const file = Buffer.from(parts.join(""));
  await withServer({ "huge.txt": file }, ["--include", "**"], async (server) => {
    const first = structured(await server.call("search_text", { query: "needle" }));
    const { items } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(first.items, items, "one call scans the whole file");
    assert.equal(first.next_cursor, null);
    const want = expected("huge.txt", file, "needle");
    assert.ok(want.length > 20);
    assert.deepEqual(items, want);
  });
});

test("a needle straddling the scan budget's end is found on the next page (in-process)", async () => {
  // searchScanBytes 1: each call reads one 4,096-byte window, then returns a progress cursor.
  const files: Record<string, Buffer> = {};
  for (let split = 1; split < "needle".length; split++) {
    const head = "filler line\n".repeat(300); // 3,600 bytes
    const pad = "p".repeat(4_096 - head.length - split);
    files[`split${split}.txt`] = Buffer.from(`${head}${pad}needle tail\nafter\n`);
    assert.equal(files[`split${split}.txt`].subarray(4_096 - split, 4_096 + 6 - split).toString(), "needle");
  }
  await withInProcess(files, { limits: { searchScanBytes: 1 } }, async (server) => {
    const { items, pages } = await traverse(server, "search_text", { query: "needle" }, {
      maxPages: 1_000,
    });
    const want = Object.entries(files).flatMap(([path, bytes]) => expected(path, bytes, "needle"));
    assert.equal(want.length, 5);
    assert.deepEqual(items, want);
    assert.ok(pages.some((p) => p.items.length === 0 && p.next_cursor !== null));
  });
});

test("an empty page carries a progress cursor, and following it finds the match (in-process)", async () => {
  const file = Buffer.from("nothing to see here\n".repeat(2_000) + "the needle\n");
  await withInProcess({ "a.txt": file }, { limits: { searchScanBytes: 1 } }, async (server) => {
    const first = structured(await server.call("search_text", { query: "needle" }));
    assert.deepEqual(first.items, []);
    assert.equal(typeof first.next_cursor, "string");
    const { items, pages } = await traverse(server, "search_text", { query: "needle" }, {
      maxPages: 1_000,
    });
    assert.deepEqual(items, [{ path: "a.txt", line: 2_001, text: "the needle" }]);
    assert.ok(pages.length >= 10, `${pages.length} pages for 40 KB at 4 KB a call`);
    assert.ok(pages.slice(0, -1).every((p) => p.items.length === 0 && p.next_cursor !== null));
  });
});

test("a line longer than the scan budget still makes progress and is found (in-process)", async () => {
  const long = "x".repeat(20_000) + " needle at the end of a long line\n";
  const file = Buffer.from("short needle\n" + long + "needle after\n");
  for (const searchScanBytes of [1, 5_000]) {
    await withInProcess({ "l.txt": file }, { limits: { searchScanBytes } }, async (server) => {
      const { items } = await traverse(server, "search_text", { query: "needle" }, { maxPages: 200 });
      assert.deepEqual(items, expected("l.txt", file, "needle"));
      assert.deepEqual(items.map((i) => i.line), [1, 2, 3]);
    });
  }
});

test("line numbers are right across windows and calls at small budgets (in-process)", async () => {
  const parts: string[] = [];
  for (let n = 1; n <= 6_000; n++) {
    const hit = n % 7 === 0 || n % 11 === 0;
    parts.push(
      `${"ab".repeat(n % 23)}${hit ? "nee\r\ndle" : ""}${hit ? "needle" : "hay"}${n % 5 === 0 ? "\r" : ""}\n`,
    );
  }
  const files = {
    "one.txt": Buffer.from(parts.join("")),
    "two.txt": Buffer.from(parts.slice(0, 999).join("") + "needle without newline"),
    "three/deep.txt": Buffer.from(parts.reverse().join("")),
  };
  const want = ["one.txt", "three/deep.txt", "two.txt"].flatMap((p) =>
    expected(p, files[p as keyof typeof files], "needle")
  );
  assert.ok(want.length > 2_000);
  for (const searchScanBytes of [1, 4_097, 10_000, 65_536]) {
    for (const limit of [undefined, 7]) {
      await withInProcess(files, { limits: { searchScanBytes } }, async (server) => {
        const args = limit === undefined ? { query: "needle" } : { query: "needle", limit };
        const { items } = await traverse(server, "search_text", args, { maxPages: 5_000 });
        assert.deepEqual(items, want, `searchScanBytes ${searchScanBytes}, limit ${limit}`);
      });
    }
  }
});

test("search_text pages fit the result ceiling with long lines (in-process)", async () => {
  const file = Buffer.from(("needle " + "€".repeat(400) + "\n").repeat(200));
  await withInProcess({ "w.txt": file }, { limits: { maxResultBytes: 5_000 } }, async (server) => {
    const { items, pages } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, expected("w.txt", file, "needle"));
    assert.ok(pages.length > 10);
    for (const line of server.lines) assert.ok(Buffer.byteLength(line) <= 5_000);
  });
});

test(`${RUNTIME}: a long scan lets the server read input: a request sent while it scans is answered first`, async () => {
  // 2,000 files of 32 KiB: one call scans all 62.5 MiB (the default budget is 64), many turns of 10 ms of work.
  const filler = Buffer.alloc(32 * 1024, "filler line\n");
  const files = Object.fromEntries(
    Array.from({ length: 2_000 }, (_, i) => [`f${String(i).padStart(4, "0")}`, filler]),
  );
  await withServer(files, ["--include", "**"], async (server) => {
    await server.request("server/discover"); // started, its modules read
    // The bytes the server has read so far (through `cat`: Deno grants /proc/<pid> only with --allow-all).
    const io = () => execFileSync("cat", [`/proc/${server.child.pid}/io`], { encoding: "utf8" });
    const bytesRead = () => Number(/^rchar: (\d+)$/m.exec(io())![1]);
    const before = bytesRead();
    const order: string[] = [];
    const search = server.call("search_text", { query: "absent" }).then((
      r,
    ) => (order.push("search_text"), r));
    // Sent once the scan is under way (4 MiB read): only a turn of the event loop in the scan can read it.
    while (bytesRead() - before < 4 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 1));
    const list = server.request("tools/list").then((r) => (order.push("tools/list"), r));
    await Promise.all([search, list]);
    assert.deepEqual(order, ["tools/list", "search_text"]);
    assert.equal(structured(await search).items.length, 0);
    assert.equal(bytesRead() - before >= filler.length * 2_000, true, "the scan read every file");
  });
});

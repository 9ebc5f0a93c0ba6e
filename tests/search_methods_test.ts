/**
 * The substring searches behind `search_text` and `search_files` (the port
 * names the one its runtime runs fast, so each must be checked on its own),
 * and the window buffer a process keeps across calls.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { bytesSearch, type SearchMethod, searchMethodFor, wasmSearch } from "../src/search/find_bytes.ts";
import { WASM_BLOCK_BYTES } from "../src/search/wasm_find.ts";
import { nodePort } from "../src/ports/node.ts";
import { compareBytewise } from "../src/bytes.ts";
import { Listing, Tree } from "../src/listing.ts";
import { matchesDigest, Search } from "../src/path_search.ts";
import { traverse } from "./_harness.ts";
import { withInProcess } from "./_inprocess.ts";
import { mulberry32 } from "./_rng.ts";

/** Every match offset of `needle` in `haystack`, overlapping ones included, the slow way. */
function naive(haystack: Uint8Array, needle: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at + needle.length <= haystack.length; at++) {
    let i = 0;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) out.push(at);
  }
  return out;
}

function allMatches(method: SearchMethod, haystack: Buffer, needle: Buffer, step: (at: number) => number) {
  const find = method(needle)(haystack);
  const out: number[] = [];
  for (let at = find(0); at >= 0; at = find(step(at))) out.push(at);
  return out;
}

const METHODS: [string, SearchMethod][] = [["bytesSearch", bytesSearch], ["wasmSearch", wasmSearch]];

test("both search methods find exactly the matches a naive scan finds, from any offset", () => {
  const random = mulberry32(7);
  // Small alphabets make partial and overlapping matches common; one includes bytes >= 0x80.
  const alphabets = [[0x61, 0x62], [0x61, 0x62, 0x0a, 0x51], [0x61, 0xc3, 0xa9, 0x80, 0xff, 0x0a], [
    0x00,
    0x7a,
  ]];
  for (let round = 0; round < 400; round++) {
    const alphabet = alphabets[round % alphabets.length];
    const pick = () => alphabet[Math.floor(random() * alphabet.length)];
    const haystack = Buffer.from(Array.from({ length: Math.floor(random() * 300) }, pick));
    const needle = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 6) }, pick));
    const want = naive(haystack, needle);
    for (const [name, method] of METHODS) {
      assert.deepEqual(allMatches(method, haystack, needle, (at) => at + 1), want, `${name} ${round}`);
      // From past the end, and resuming after a whole match (as search_text does after a line).
      assert.equal(method(needle)(haystack)(haystack.length + 1), -1, name);
      const disjoint = allMatches(method, haystack, needle, (at) => at + needle.length);
      assert.deepEqual(disjoint, disjointOf(want, needle.length), `${name} ${round} disjoint`);
    }
  }
});

function disjointOf(matches: number[], length: number): number[] {
  const out: number[] = [];
  for (const at of matches) if (out.length === 0 || at >= out[out.length - 1] + length) out.push(at);
  return out;
}

test("a match at the very start or end of the window, or the whole window, is found", () => {
  for (const [name, method] of METHODS) {
    const needle = Buffer.from("Qz7é");
    assert.equal(method(needle)(Buffer.from("Qz7é and more"))(0), 0, name);
    assert.equal(method(needle)(Buffer.from("more and Qz7é"))(0), 9, name);
    assert.equal(method(needle)(Buffer.from("Qz7é"))(0), 0, name);
    assert.equal(method(needle)(Buffer.from("Qz7"))(0), -1, name);
    assert.equal(method(needle)(Buffer.from(""))(0), -1, name);
    // No caller searches for nothing (a query is never empty), but both answer as `Buffer#indexOf` does.
    assert.deepEqual([0, 1, 3, 5].map((from) => method(Buffer.alloc(0))(Buffer.from("abc"))(from)), [
      0,
      1,
      3,
      3,
    ]);
    // The needle's first byte occurs often, and just before the end, without a match.
    assert.equal(method(needle)(Buffer.from("QQQQQQQQQQQQQQQQ".repeat(100) + "Qz7"))(0), -1, name);
  }
});

test("a match across a seam between blocks is found once, in the block where it starts", () => {
  const C = WASM_BLOCK_BYTES;
  for (const needle of [Buffer.from("Q"), Buffer.from("Qz7"), Buffer.from("Qz7\u00e9X9")]) {
    const L = needle.length;
    // One match per haystack: starting before, across, at and after a seam, ending at it, and at the end.
    const starts = [0, C - L - 1, C - L, C - L + 1, C - 1, C, C + 1, 2 * C - 1, 2 * C + 16 - L];
    for (const at of starts) {
      const haystack = Buffer.alloc(2 * C + 16, "a"); // not a whole number of blocks
      needle.copy(haystack, at);
      assert.deepEqual(naive(haystack, needle), [at], `the haystack holds one match at ${at}`);
      for (const [name, method] of METHODS) {
        assert.deepEqual(
          allMatches(method, haystack, needle, (m) => m + 1),
          [at],
          `${name}: ${L} bytes at ${at}`,
        );
        assert.equal(method(needle)(haystack)(at + 1), -1, `${name}: from just past it`);
      }
    }
  }
});

test("needles of every length up to past a block, in haystacks of several blocks, are found exactly", () => {
  // The SIMD search compares a needle's first and last byte 16 positions at a time, then the bytes between:
  // two-letter haystacks make both agree often without a match. A host may raise the query limit, so a needle
  // may be longer than a block.
  const random = mulberry32(11);
  const lengths = [1, 2, 3, 15, 16, 17, 31, 33, 256, WASM_BLOCK_BYTES - 1, WASM_BLOCK_BYTES + 5];
  for (const length of lengths) {
    const pick = () => (random() < 0.9 ? 0x61 : 0x62);
    const needle = Buffer.from(Array.from({ length }, pick));
    const haystack = Buffer.from(Array.from({ length: 3 * WASM_BLOCK_BYTES + 77 }, pick));
    const copies = Math.min(6, Math.floor(haystack.length / length)); // apart, so none overwrites another
    const slot = Math.floor(haystack.length / copies);
    for (let i = 0; i < copies; i++) needle.copy(haystack, i * slot + Math.floor(random() * (slot - length)));
    const want = naive(haystack, needle);
    assert.ok(want.length >= copies, `${length}: the haystack holds the needle`);
    for (const [name, method] of METHODS) {
      assert.deepEqual(
        allMatches(method, haystack, needle, (at) => at + 1),
        want,
        `${name}: ${length} bytes`,
      );
    }
  }
});

test("where the first and last byte agree almost everywhere, matches are still found exactly", () => {
  // A long needle of `a`s in a haystack of them: the SIMD search spends its budget on each block and hands
  // the block to `String#indexOf`; the matches lie inside blocks, across a seam, and at the very end.
  const needle = Buffer.from(`${"a".repeat(200)}b${"a".repeat(54)}`);
  const haystack = Buffer.alloc(3 * WASM_BLOCK_BYTES + 300, "a");
  const at = [1_000, WASM_BLOCK_BYTES - 100, 2 * WASM_BLOCK_BYTES + 7_000, haystack.length - needle.length];
  for (const start of at) needle.copy(haystack, start);
  const want = naive(haystack, needle);
  assert.deepEqual(want, at, "the haystack holds the needle where it was put");
  for (const [name, method] of METHODS) {
    assert.deepEqual(allMatches(method, haystack, needle, (m) => m + 1), want, name);
  }
});

test("one match at any offset is found from any start, whichever 64 positions the search skips", () => {
  // The SIMD search skips 64 positions at a time where none has both the needle's first and last byte, after
  // 4 steps of 16 from its start and after each candidate: a match must be found wherever it falls against
  // those strides, its last byte in the next 64 or not.
  for (
    const needle of [
      Buffer.from("Q"),
      Buffer.from("Qz"),
      Buffer.from("Qz7\u00e9X9abcdefgh"),
      Buffer.alloc(70, "Q"),
    ]
  ) {
    const length = 300 + needle.length;
    for (let at = 0; at + needle.length <= length; at++) {
      const haystack = Buffer.alloc(length, "a");
      needle.copy(haystack, at);
      for (const from of [0, 1, 15, 16, 63, 64, 65, at - 1, at, at + 1]) {
        if (from < 0) continue;
        const want = from <= at ? at : -1;
        for (const [name, method] of METHODS) {
          assert.equal(
            method(needle)(haystack)(from),
            want,
            `${name}: ${needle.length} bytes at ${at}, from ${from}`,
          );
        }
      }
    }
  }
});

test("one needle's search over several windows in turn answers for the window it is given", () => {
  const needle = Buffer.from("Qz7");
  const a = Buffer.alloc(3 * WASM_BLOCK_BYTES, "a");
  const b = Buffer.alloc(3 * WASM_BLOCK_BYTES, "b");
  a.write("Qz7", 10);
  b.write("Qz7", WASM_BLOCK_BYTES + 20);
  for (const [name, method] of METHODS) {
    const search = method(needle);
    const [inA, inB] = [search(a), search(b)];
    assert.equal(inA(0), 10, name);
    assert.equal(inB(0), WASM_BLOCK_BYTES + 20, name);
    assert.equal(inA(5), 10, `${name}: the first window again, in the block the other one moved past`);
    assert.equal(inB(WASM_BLOCK_BYTES + 21), -1, name);
    // A window that ends one byte short of a match the window before held at the same place: the byte past
    // its end, left from that window, is not part of it. (A match could start at 16 to 30 in it: one more
    // start, 31, would complete the SIMD loop's second run of 16, and read that byte.)
    const whole = Buffer.from(`${"a".repeat(31)}Qz7`);
    const cut = Buffer.from(`${"a".repeat(31)}Qz`);
    assert.equal(search(whole)(0), 31, name);
    assert.equal(search(cut)(0), -1, `${name}: nothing is read past the window`);
  }
});

test("searches for different needles, taken in turn as concurrent calls take them, each find their own", () => {
  const B = WASM_BLOCK_BYTES;
  const haystack = Buffer.alloc(3 * B, "a");
  const long = Buffer.from(`Qz7${"x".repeat(5_000)}`); // grows the memory that the searches share
  haystack.write("Qz7", 100);
  haystack.write("Qz7", B + 200);
  long.copy(haystack, B + 6_000);
  haystack.write("Qz7", 2 * B + 9);
  for (const [name, method] of METHODS) {
    const short = method(Buffer.from("Qz7"))(haystack);
    const longer = method(long)(haystack);
    assert.equal(short(0), 100, name);
    assert.equal(longer(0), B + 6_000, `${name}: the long needle, in the second block`);
    // Not 200: the second block, now in the shared memory, is not the first one the short search read.
    assert.equal(short(101), B + 200, `${name}: the short needle again, after the long one`);
    assert.equal(longer(B + 6_001), -1, name);
    assert.equal(short(B + 201), B + 6_000, name);
    assert.equal(short(B + 6_001), 2 * B + 9, name);
  }
});

test("the path search finds the same pages with either method, across block seams", async () => {
  // One directory whose listing spans several blocks, names of one, two, three and four UTF-8 bytes
  // per character, and a subdirectory between runs of files; matches fall near and across block seams.
  const names: string[] = [];
  for (let i = 0; names.length < 14_000; i++) {
    const word = ["q", "é", "本", "\u{1F600}"][i % 4];
    names.push(`${"a".repeat(i % 17)}${word}${i}${i % 5 === 0 ? "-iris." : ""}txt`);
  }
  const sub = new Tree(new Listing(["-iris.md", "x.txt"]), []);
  const tree = new Tree(new Listing([...names, "m/"]), [sub]);
  assert.ok(tree.listing.text.length > 3 * WASM_BLOCK_BYTES, "the listing spans several blocks");
  const paths = [...names, "m/-iris.md", "m/x.txt"].sort(compareBytewise);
  const pacer = { checkpoint: () => Promise.resolve() };
  let windows = 0; // the method given is the one searched with
  const counted: SearchMethod = (needle) => (window) => (windows++, wasmSearch(needle)(window));
  assert.equal(new Search("-iris.", 10, counted).run(tree, undefined).paths.length, 10);
  assert.ok(windows > 0);
  for (const query of ["-iris.", "本1", "\u{1F600}2", "é", "m/-", "nowhere"]) {
    const want = paths.filter((p) => p.includes(query));
    for (const [name, method] of METHODS) {
      // Page by page, 700 at a time, each after the last path of the one before, as cursors do.
      const got: string[] = [];
      let after: string | undefined;
      for (;;) {
        const { paths: page, more } = new Search(query, 700, method).run(tree, after);
        got.push(...page);
        if (!more) break;
        after = page.at(-1);
      }
      assert.deepEqual(got, want, `${name}: ${query}`);
    }
    const digests = await Promise.all(
      METHODS.map(([, method]) => matchesDigest(new Tree(tree.listing, tree.children), query, pacer, method)),
    );
    assert.equal(digests[0], digests[1], `the same digest: ${query}`);
  }
});

test("a port picks one of the two methods, the same every time", () => {
  const chosen = searchMethodFor(nodePort);
  assert.ok(chosen === bytesSearch || chosen === wasmSearch);
  assert.equal(searchMethodFor(nodePort), chosen);
  assert.equal(searchMethodFor({ byteSearch: "wasm" }), wasmSearch);
  assert.equal(searchMethodFor({}), bytesSearch);
});

test("a window buffer kept from an earlier, larger scan never makes a window exceed the budget (in-process)", async () => {
  const big = Buffer.from("hay and more hay\n".repeat(40_000) + "needle\n"); // ~680 KB: a large buffer
  await withInProcess({ "big.txt": big }, {}, async (server) => {
    const { items, pages } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, [{ path: "big.txt", line: 40_001, text: "needle" }]);
    assert.equal(pages.length, 1);
  });
  const small = Buffer.from("x".repeat(4_095) + "\n").toString().repeat(16) + "needle\n";
  await withInProcess({ "s.txt": small }, { limits: { searchScanBytes: 4_096 } }, async (server) => {
    const { items, pages } = await traverse(server, "search_text", { query: "needle" });
    assert.deepEqual(items, [{ path: "s.txt", line: 17, text: "needle" }]);
    // 4,096-byte windows at a 4,096-byte budget: one window per call, so 16 lines take 17 calls.
    assert.equal(pages.length, 17);
  });
});

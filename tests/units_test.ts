/**
 * Unit tests of the small runtime-neutral modules: `page.ts` (result
 * fitting), `cursor.ts` (signed cursors), `bytes.ts` (UTF-8 helpers) and
 * `limits.ts`. One test checks `encodedSize` against the lines a real server
 * writes.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { META, RUNTIME, type Server, withServer } from "./_harness.ts";
import { charBoundary, compareBytewise, utf8, utf8Length } from "../src/bytes.ts";
import { assertState, CursorCodec, cursorLength, MAX_CURSOR_LENGTH } from "../src/cursor.ts";
import { ConfigError, INVALID_CURSOR_MESSAGE, STALE_CURSOR_MESSAGE, ToolError } from "../src/errors.ts";
import {
  DEFAULT_LIMITS,
  type Limits,
  MAX_LIMIT,
  MAX_WRITE_BYTES_LIMIT,
  MIN_RESULT_BYTES,
  resolveLimits,
} from "../src/limits.ts";
import { fitPage, type Page, type PageParts } from "../src/page.ts";
import { encodedSize, type Envelope } from "../src/result_line.ts";
import { SERVER_NAME, VERSION } from "../src/version.ts";
import { Listing, Tree } from "../src/listing.ts";
import { filesOf, pathsDigest } from "../src/search/scope.ts";
import { PATHS_PER_CHECKPOINT } from "../src/pacing.ts";
import { matchesDigest } from "../src/path_search.ts";
import { createHash } from "node:crypto";

/** One character from each UTF-8 length class, the UTF-16 order traps included. */
const char = fc.oneof(
  fc.integer({ min: 0x00, max: 0x7f }), // 1 byte
  fc.integer({ min: 0x80, max: 0x7ff }), // 2 bytes
  fc.integer({ min: 0x800, max: 0xd7ff }), // 3 bytes, below the surrogates
  fc.integer({ min: 0xe000, max: 0xffff }), // 3 bytes, above the surrogates in code points, below in UTF-16
  fc.integer({ min: 0x10000, max: 0x10ffff }), // 4 bytes: a surrogate pair in UTF-16
).map((cp) => String.fromCodePoint(cp));
const text = (maxLength = 12) => fc.string({ unit: char, maxLength });

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Fails the test unless `fn` throws a `ToolError` with exactly `message`. */
function assertToolError(fn: () => unknown, message: string): void {
  assert.throws(fn, (error: unknown) => error instanceof ToolError && error.message === message);
}

// ---------------------------------------------------------------- bytes.ts

test("compareBytewise orders like the UTF-8 bytes, astral and U+E000-U+FFFF included", () => {
  fc.assert(
    fc.property(text(), text(), (a, b) => {
      assert.equal(sign(compareBytewise(a, b)), sign(Buffer.compare(utf8(a), utf8(b))), `${a} vs ${b}`);
    }),
    { numRuns: 2_000 },
  );
  // Shared prefixes, where only the tail decides.
  fc.assert(
    fc.property(text(), text(4), text(4), (prefix, a, b) => {
      const x = prefix + a;
      const y = prefix + b;
      assert.equal(sign(compareBytewise(x, y)), sign(Buffer.compare(utf8(x), utf8(y))));
    }),
    { numRuns: 1_000 },
  );
  // The cases JavaScript's `<` gets wrong: U+E000..U+FFFF sort below astral characters in UTF-8.
  assert.ok(compareBytewise("\uffff", "\u{10000}") < 0);
  assert.ok(compareBytewise("\ue000", "\u{1f600}") < 0);
  assert.ok("\uffff" > "\u{10000}", "UTF-16 order differs, so this case means something");
  assert.equal(compareBytewise("a\u{1f600}", "a\u{1f600}"), 0);
  assert.ok(compareBytewise("ab", "abc") < 0);
  assert.ok(compareBytewise("abc", "ab") > 0);
  const names = ["\u{10000}", "\uffff", "z", "\u00e9", "\ue000", "\ud7ff", "A", "\u{1f600}", ""];
  const byBytes = [...names].sort((x, y) => Buffer.compare(utf8(x), utf8(y)));
  assert.deepEqual([...names].sort(compareBytewise), byBytes);
});

test("utf8Length equals TextEncoder's byte length", () => {
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(text(40), (s) => {
      assert.equal(utf8Length(s), encoder.encode(s).length);
    }),
    { numRuns: 2_000 },
  );
  for (const s of ["", "a", "\u00e9", "\u20ac", "\u{1f600}", "\uffff\u{10000}"]) {
    assert.equal(utf8Length(s), encoder.encode(s).length, JSON.stringify(s));
  }
});

test("utf8Length counts a lone surrogate as the U+FFFD that TextEncoder writes", () => {
  const encoder = new TextEncoder();
  for (const s of ["\ud800", "\udc00", "\ud800\u00e9", "\ud800\u4e00", "x\udfffy", "\ud800\ud800\udc00"]) {
    assert.equal(utf8Length(s), encoder.encode(s).length, JSON.stringify(s));
  }
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      (a, b) => {
        // `a.slice` may split a pair and leave lone surrogates at the seams.
        const s = a + b.slice(1);
        assert.equal(utf8Length(s), encoder.encode(s).length);
      },
    ),
    { numRuns: 1_000 },
  );
});

test("charBoundary gives the largest cut at or before `end` that splits no character", () => {
  fc.assert(
    fc.property(text(20), (s) => {
      const bytes = utf8(s);
      for (let end = 0; end <= bytes.length + 2; end++) {
        const cut = charBoundary(bytes, end);
        if (end >= bytes.length) {
          assert.equal(cut, bytes.length);
          continue;
        }
        assert.ok(cut <= end && cut > end - 4, `cut ${cut} for end ${end}`);
        assert.notEqual(bytes[cut] & 0xc0, 0x80, "the cut is at the start of a character");
        for (let k = cut + 1; k <= end; k++) {
          assert.equal(bytes[k] & 0xc0, 0x80, "no later boundary was skipped");
        }
        const head = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
          bytes.subarray(0, cut),
        );
        assert.ok(s.startsWith(head), "the cut keeps whole characters");
      }
    }),
    { numRuns: 500 },
  );
  const emoji = utf8("a\u{1f600}b"); // 61 F0 9F 98 80 62
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((end) => charBoundary(emoji, end)), [0, 1, 1, 1, 1, 5, 6]);
});

// ---------------------------------------------------------------- page.ts

const ENVELOPE = { requestId: 7, serverInfo: { name: SERVER_NAME, version: VERSION } };

/** A page's parts for `items`: `cursor(n)` on every page but the last, and a real digest of the items. */
function parts(items: readonly string[], cursor: string | ((n: number) => string)): PageParts<string> {
  const at = typeof cursor === "string" ? () => cursor : cursor;
  return {
    cursor: (n) => n < items.length ? at(n) : null,
    hash: (first) => `sha256:${createHash("sha256").update(first.join("\n")).digest("hex")}`,
  };
}

/** The page of the first `n` items, as `fitPage` makes it from `p`. */
function pageOf(items: readonly string[], p: PageParts<string>, n: number): Page<string> {
  return { items: items.slice(0, n), next_cursor: p.cursor(n), content_hash: p.hash(items.slice(0, n)) };
}

test("fitPage keeps everything that fits and returns the empty page for no items", () => {
  const items = ["one", "two", '\u{1f600}\n"three"'];
  const envelope: Envelope = { ...ENVELOPE, maxBytes: 48_000 };
  assert.deepEqual(fitPage(envelope, items, parts(items, "c")), pageOf(items, parts(items, "c"), 3));
  assert.deepEqual(fitPage(envelope, [], parts([], "c")), pageOf([], parts([], "c"), 0));
});

test("fitPage drops items from the end until the encoded line fits", () => {
  const items = Array.from({ length: 100 }, (_, i) => `item ${i} ${"\u00e9".repeat(40)} "quoted" \\ \n`);
  const p = parts(items, "x".repeat(200));
  const envelope: Envelope = { ...ENVELOPE, maxBytes: 4_000 };
  const page = fitPage(envelope, items, p);
  assert.ok(page.items.length > 0 && page.items.length < items.length, `${page.items.length} items`);
  assert.deepEqual(page, pageOf(items, p, page.items.length), "a prefix, with its cursor and its hash");
  assert.ok(encodedSize(envelope, page) <= envelope.maxBytes);
  assert.ok(
    encodedSize(envelope, pageOf(items, p, page.items.length + 1)) > envelope.maxBytes,
    "the longest such prefix",
  );
});

test("fitPage hashes only the page it returns, and never builds one whose least costs pass the ceiling", () => {
  const items = Array.from({ length: 1_000 }, (_, i) => `some/longer/path/${i}.txt`);
  const envelope: Envelope = { ...ENVELOPE, maxBytes: 8_000 };
  const counted = (leastCost?: (item: string) => number) => {
    const p = parts(items, (n) => `c${n}`);
    let hashed = 0;
    const page = fitPage(envelope, items, { ...p, hash: (first) => (hashed++, p.hash(first)), leastCost });
    return { page, hashed };
  };
  const plain = counted();
  assert.equal(plain.hashed, 2, "the whole page measured once, then the page returned");
  const bounded = counted((item) => 2 * item.length);
  assert.equal(bounded.hashed, 1, "the whole page known too big: only the page returned");
  assert.deepEqual(bounded.page, plain.page);
});

test("fitPage's refusal says whether the item failed alone or with the page's cursor", () => {
  const envelope: Envelope = { ...ENVELOPE, maxBytes: 1_024 };
  const small = ["a".repeat(400), "b".repeat(400), "c".repeat(400)]; // too many for one page; one fits alone
  assert.throws(
    () => fitPage(envelope, small, parts(small, "c".repeat(700))),
    { message: /^one item with the page's cursor is larger than the result ceiling/ },
  );
  const big = ["a".repeat(1_024)];
  assert.throws(() => fitPage(envelope, big, parts(big, "c")), {
    message: /^one item is larger than the result ceiling/,
  });
});

test("fitPage: any ceiling and cursors of any length give a fitting prefix page, or an error when one item cannot fit", () => {
  fc.assert(
    fc.property(
      fc.array(text(60), { maxLength: 30 }),
      fc.integer({ min: 300, max: 6_000 }),
      fc.integer({ min: 1, max: 600 }),
      fc.integer({ min: 0, max: 40 }),
      fc.boolean(),
      (items, maxBytes, cursorLength, cursorStep, bounded) => {
        const envelope: Envelope = { ...ENVELOPE, maxBytes };
        // A cursor's length varies with its page, as a real one's does with the last item's path.
        const p = parts(items, (n) => "c".repeat(cursorLength + (n % 7) * cursorStep));
        const leastCost = bounded ? (item: string) => 2 * item.length : undefined;
        let page: Page<string>;
        try {
          page = fitPage(envelope, items, { ...p, leastCost });
        } catch (error) {
          assert.ok(error instanceof ToolError, `${error}`);
          assert.match(error.message, /larger than the result ceiling/);
          assert.ok(items.length > 0);
          assert.ok(encodedSize(envelope, pageOf(items, p, 1)) > maxBytes, "refused although one item fits");
          return;
        }
        const n = page.items.length;
        assert.deepEqual(page, pageOf(items, p, n));
        if (items.length === 0) return;
        assert.ok(n >= 1, "an empty page for non-empty items would never progress");
        assert.ok(encodedSize(envelope, page) <= maxBytes, "the page fits");
        // The longest such prefix: one more item would not fit.
        if (n < items.length) {
          assert.ok(
            encodedSize(envelope, pageOf(items, p, n + 1)) > maxBytes,
            `page of ${n} is needlessly short`,
          );
        }
      },
    ),
    { numRuns: 500 },
  );
});

test("fitPage errors when a single item is larger than the ceiling", () => {
  const items = ["x".repeat(5_000), "small"];
  const envelope: Envelope = { ...ENVELOPE, maxBytes: 2_000 };
  assert.throws(() => fitPage(envelope, items, parts(items, "c")), ToolError);
});

/** The raw line the server wrote for the response with `id`. */
function lineFor(server: Server, id: string | number): string {
  const line = server.lines.find((l) => JSON.parse(l).id === id);
  assert.ok(line !== undefined, `no line for id ${id}`);
  return line;
}

test(`${RUNTIME}: encodedSize is the byte length of the line the server writes, its newline included`, async () => {
  const content = 'tab\there "quotes" \\ back\u2028sep \u0001 \u00e9\u20ac\u{1f600} \ue000\n'.repeat(20);
  const files = {
    'caf\u00e9 "x".txt': content,
    "\u{1f600}/a b.txt": "match me\n",
    "plain.txt": "match me too\n",
  };
  await withServer(files, ["--include", "**"], async (server) => {
    const calls: [string | number, string, Record<string, unknown>][] = [
      [1, "list_directory", {}],
      ["id-\u00e9-\u{1f600}", "read_text_file", { path: 'caf\u00e9 "x".txt' }],
      [3, "search_text", { query: "match" }],
      [4, "search_files", { query: "." }],
    ];
    for (const [id, name, args] of calls) {
      const response = await server.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args, _meta: META },
      });
      assert.equal(response.result?.isError, undefined, JSON.stringify(response));
      const structured = response.result.structuredContent;
      assert.ok(structured.items.length > 0, `${name} returned items`);
      const envelope: Envelope = {
        requestId: id,
        maxBytes: 0,
        serverInfo: response.result._meta["io.modelcontextprotocol/serverInfo"],
      };
      assert.deepEqual(envelope.serverInfo, ENVELOPE.serverInfo);
      const line = lineFor(server, id);
      assert.equal(
        JSON.parse(line).result.content[0].text,
        JSON.stringify(structured),
        `${name}: text block`,
      );
      assert.equal(encodedSize(envelope, structured), Buffer.byteLength(`${line}\n`), `${name}: ${line}`);
    }
  });
});

// ---------------------------------------------------------------- cursor.ts

const STATE_1 = createHash("sha256").update("state 1").digest("hex");

test("CursorCodec round-trips state and position for the same tool and arguments", () => {
  const codec = new CursorCodec();
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.jsonValue(),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString("hex")),
      fc.string({ maxLength: 64 }),
      (tool, args, state, position) => {
        // A position is any well-formed string; a tool's name holds no NUL, and a state is a hex digest.
        fc.pre(!tool.includes("\0") && !/\p{Surrogate}/u.test(tool + position));
        const cursor = codec.issue(tool, args, state, position);
        assert.deepEqual(codec.open(cursor, tool, args), { state, position });
      },
    ),
    { numRuns: 300 },
  );
});

test("a cursor carries only its state, as 32 bytes, and its position; tool and arguments are in the mac", () => {
  const codec = new CursorCodec();
  const position = "docs/a-rather-long-name.md";
  const cursor = codec.issue("search_files", { query: "docs/a-rather" }, STATE_1, position);
  const [payload, mac] = cursor.split(".");
  assert.deepEqual(
    Buffer.from(payload, "base64url"),
    Buffer.concat([Buffer.from(STATE_1, "hex"), Buffer.from(position)]),
  );
  assert.equal(mac.length, 43, "HMAC-SHA-256, whole");
  assert.throws(() => codec.issue("search_files", {}, "not a digest", position), TypeError);
});

test("cursorLength is the length of every cursor issued for a position of that many bytes", () => {
  const codec = new CursorCodec();
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.jsonValue(), (position, args) => {
      fc.pre(!/\p{Surrogate}/u.test(position));
      const bytes = Buffer.byteLength(position);
      assert.equal(codec.issue("read_text_file", args, STATE_1, position).length, cursorLength(bytes));
    }),
    { numRuns: 300 },
  );
});

test("CursorCodec refuses a cursor from another codec, tool, arguments, or with any edit", () => {
  const codec = new CursorCodec();
  const args = { path: "docs", pattern: "**/*.md" };
  const cursor = codec.issue("search_files", args, STATE_1, "docs/a.md\u00003");
  assert.deepEqual(codec.open(cursor, "search_files", { ...args }), {
    state: STATE_1,
    position: "docs/a.md\u00003",
  });

  assertToolError(() => new CursorCodec().open(cursor, "search_files", args), INVALID_CURSOR_MESSAGE);
  assertToolError(() => codec.open(cursor, "list_directory", args), INVALID_CURSOR_MESSAGE);
  assertToolError(() => codec.open(cursor, "search_files", { ...args, path: "src" }), INVALID_CURSOR_MESSAGE);
  for (
    const bad of ["", ".", "abc", `${cursor}x`, `x${cursor}`, cursor.replace(".", ""), cursor + "." + cursor]
  ) {
    assertToolError(() => codec.open(bad, "search_files", args), INVALID_CURSOR_MESSAGE);
  }
  assertToolError(
    () => codec.open("a".repeat(MAX_CURSOR_LENGTH + 1), "search_files", args),
    INVALID_CURSOR_MESSAGE,
  );

  // Every single-character edit, anywhere, is refused with the same message.
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
  for (let i = 0; i < cursor.length; i++) {
    for (const c of [alphabet[(alphabet.indexOf(cursor[i]) + 1) % alphabet.length], "=", "%"]) {
      const edited = cursor.slice(0, i) + c + cursor.slice(i + 1);
      if (edited === cursor) continue;
      assertToolError(() => codec.open(edited, "search_files", args), INVALID_CURSOR_MESSAGE);
    }
  }

  // Two codecs with the same key interoperate; the key is what binds a cursor to a process.
  const key = new Uint8Array(32).fill(7);
  const issued = new CursorCodec(key).issue("t", {}, STATE_1, "1");
  assert.deepEqual(new CursorCodec(key).open(issued, "t", {}), { state: STATE_1, position: "1" });
  assertToolError(
    () => new CursorCodec(new Uint8Array(32).fill(8)).open(issued, "t", {}),
    INVALID_CURSOR_MESSAGE,
  );
});

test("assertState passes the bound state and refuses any other", () => {
  const codec = new CursorCodec();
  const claims = codec.open(
    codec.issue("read_text_file", { path: "a" }, STATE_1, "0"),
    "read_text_file",
    {
      path: "a",
    },
  );
  assert.equal(assertState(claims, STATE_1), undefined);
  const other = createHash("sha256").update("state 2").digest("hex");
  assertToolError(() => assertState(claims, other), STALE_CURSOR_MESSAGE);
  assertToolError(() => assertState(claims, ""), STALE_CURSOR_MESSAGE);
});

// ---------------------------------------------------------------- limits.ts

const LIMIT_KEYS: (keyof Limits)[] = [
  "maxResultBytes",
  "maxPageItems",
  "readChunkBytes",
  "searchScanBytes",
  "searchScanFiles",
  "maxQueryBytes",
  "maxWriteBytes",
  "maxFileBytes",
  "maxDepth",
  "maxPathBytes",
];

test("DEFAULT_LIMITS is frozen, complete, and accepted by resolveLimits", () => {
  assert.ok(Object.isFrozen(DEFAULT_LIMITS));
  assert.deepEqual(Object.keys(DEFAULT_LIMITS).sort(), [...LIMIT_KEYS].sort());
  for (const key of LIMIT_KEYS) {
    assert.ok(Number.isSafeInteger(DEFAULT_LIMITS[key]) && DEFAULT_LIMITS[key] > 0, key);
  }
  assert.equal(DEFAULT_LIMITS.maxResultBytes, 48_000);
  assert.throws(() => {
    (DEFAULT_LIMITS as { maxDepth: number }).maxDepth = 1;
  }, TypeError);
  assert.equal(DEFAULT_LIMITS.maxDepth, 64);
  assert.deepEqual(resolveLimits(), { ...DEFAULT_LIMITS });
  assert.deepEqual(resolveLimits({}), { ...DEFAULT_LIMITS });
  assert.deepEqual(resolveLimits({ ...DEFAULT_LIMITS }), { ...DEFAULT_LIMITS });
});

test("resolveLimits merges valid values over the defaults and skips undefined ones", () => {
  const limits = resolveLimits({ maxPageItems: 5, maxDepth: undefined, maxResultBytes: MIN_RESULT_BYTES });
  assert.deepEqual(limits, { ...DEFAULT_LIMITS, maxPageItems: 5, maxResultBytes: MIN_RESULT_BYTES });
  assert.equal(DEFAULT_LIMITS.maxPageItems, 1_000, "the defaults are untouched");
  assert.equal(resolveLimits({ maxWriteBytes: 0 }).maxWriteBytes, 0);
  assert.equal(resolveLimits({ maxPageItems: 1 }).maxPageItems, 1);
  assert.equal(resolveLimits({ maxDepth: 1 }).maxDepth, 1);
  assert.equal(
    resolveLimits({ searchScanBytes: Number.MAX_SAFE_INTEGER }).searchScanBytes,
    Number.MAX_SAFE_INTEGER,
  );
});

test("resolveLimits refuses unknown keys, non-integers and values out of range, naming limits.<key>", () => {
  const refuses = (partial: unknown, message: string | RegExp) =>
    assert.throws(
      () => resolveLimits(partial as Partial<Limits>),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        if (typeof message === "string") assert.equal(error.message, message);
        else assert.match(error.message, message);
        return true;
      },
      `${Object.keys(partial as object)}: ${String(Object.values(partial as object))}`,
    );
  for (const key of ["maxResults", "max_depth", "toString", "constructor", "hasOwnProperty", "valueOf"]) {
    refuses({ [key]: 10 }, `limits has no limit named "${key}"`);
  }
  refuses(JSON.parse('{"__proto__": 10}'), 'limits has no limit named "__proto__"');
  refuses({ maxDepht: undefined }, 'limits has no limit named "maxDepht"'); // a misspelt name, even left unset
  for (const key of LIMIT_KEYS) {
    // A write's content must fit one stdin line; every other limit goes up to MAX_LIMIT.
    const max = key === "maxWriteBytes" ? MAX_WRITE_BYTES_LIMIT : MAX_LIMIT;
    for (const value of [MIN_RESULT_BYTES + 0.5, Number.NaN, "100", null, true, 10n]) {
      refuses({ [key]: value }, new RegExp(`^limits\\.${key} must be an integer from \\d+ to ${max}$`));
    }
    // A value past a bound names that bound, not "must be an integer".
    for (const value of [max + 1, 2 ** 64, 1e20, Infinity]) {
      refuses({ [key]: value }, `limits.${key} must be at most ${max}`);
    }
    for (const value of [-1, -Infinity]) {
      refuses({ [key]: value }, new RegExp(`^limits\\.${key} must be at least \\d+$`));
    }
    assert.equal(resolveLimits({ [key]: max })[key], max);
  }
  refuses({ maxResultBytes: MIN_RESULT_BYTES - 1 }, "limits.maxResultBytes must be at least 1024");
  refuses({ maxPageItems: 0 }, "limits.maxPageItems must be at least 1");
  refuses({ maxDepth: 0 }, "limits.maxDepth must be at least 1");
  refuses({ maxQueryBytes: 0 }, "limits.maxQueryBytes must be at least 1");
  refuses({ readChunkBytes: 3 }, "limits.readChunkBytes must be at least 4");
  refuses({ maxFileBytes: 1.5 }, `limits.maxFileBytes must be an integer from 0 to ${MAX_LIMIT}`);
  assert.equal(resolveLimits({ readChunkBytes: 4 }).readChunkBytes, 4);
});

test("a ConfigError about a limit carries the option and the problem apart", () => {
  assert.throws(() => resolveLimits({ maxFileBytes: 1e20 }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.option, "limits.maxFileBytes");
    assert.equal(error.problem, `must be at most ${MAX_LIMIT}`);
    assert.equal(error.message, `limits.maxFileBytes must be at most ${MAX_LIMIT}`);
    return true;
  });
  const plain = new ConfigError("invalid glob");
  assert.equal(plain.option, undefined);
  assert.equal(plain.problem, "invalid glob");
  assert.equal(plain.message, "invalid glob");
});

test("a search's scope is listed and hashed with a checkpoint every PATHS_PER_CHECKPOINT paths", async () => {
  const names = Array.from({ length: 2 * PATHS_PER_CHECKPOINT + 100 }, (_, i) => `f${i}.txt`);
  const sub = new Tree(new Listing(["x", "y"]), []);
  const tree = new Tree(new Listing([...names, "sub/"]), [sub]);
  const expected = [...names, "sub/x", "sub/y"].map((p) => `d/${p}`).sort(compareBytewise);
  let checkpoints = 0;
  const pacer = { checkpoint: () => Promise.resolve(void checkpoints++) };
  const files = await filesOf(tree, "d/", pacer);
  assert.deepEqual(files, expected);
  assert.equal(checkpoints, Math.floor(expected.length / PATHS_PER_CHECKPOINT));
  checkpoints = 0;
  const digest = await pathsDigest(files, pacer);
  // The same bytes as the paths hashed at once: each ended by a NUL.
  assert.equal(digest, createHash("sha256").update(`${files.join("\0")}\0`).digest("hex"));
  assert.equal(checkpoints, Math.ceil(expected.length / PATHS_PER_CHECKPOINT));
  assert.equal(await pathsDigest([], pacer), createHash("sha256").update("").digest("hex"));
});

test("search_files hashes the matches of its query a checkpoint every PATHS_PER_CHECKPOINT, once per tree", async () => {
  const names = Array.from(
    { length: 2 * PATHS_PER_CHECKPOINT + 100 },
    (_, i) => `f${i}.${i % 3 ? "txt" : "md"}`,
  );
  const sub = new Tree(new Listing(["x.txt", "y.md"]), []);
  const tree = new Tree(new Listing([...names, "sub/"]), [sub]);
  const all = [...names, "sub/x.txt", "sub/y.md"].sort(compareBytewise);
  let checkpoints = 0;
  const pacer = { checkpoint: () => Promise.resolve(void checkpoints++) };
  for (const query of [".txt", "/", "nothing"]) {
    checkpoints = 0;
    const matches = all.filter((p) => p.includes(query));
    const hex = await matchesDigest(tree, query, pacer);
    const lines = matches.length === 0 ? "" : `${matches.join("\0")}\0`;
    assert.equal(hex, createHash("sha256").update(lines).digest("hex"), query);
    assert.equal(checkpoints, Math.max(0, Math.ceil(matches.length / PATHS_PER_CHECKPOINT) - 1), query);
    checkpoints = 0;
    assert.equal(await matchesDigest(tree, query, pacer), hex, `${query}, again`);
    assert.equal(checkpoints, 0, `${query}: kept with the tree`);
  }
  // Another tree with the same paths hashes them again, to the same digest.
  assert.equal(
    await matchesDigest(new Tree(tree.listing, tree.children), ".txt", pacer),
    await matchesDigest(tree, ".txt", pacer),
  );
});

/**
 * `read_text_file`: a UTF-8 file in pages of `{byte_offset, text}` items.
 * Concatenating every `text` of every page gives the file byte for byte;
 * items are cut on character boundaries, and the last item of a page is
 * shortened to fill the page rather than dropped.
 *
 * Cursor state: the file's identity (size, mtime, ctime, inode, device).
 * content_hash framing: the file's raw bytes that the page covers, so a
 * single-page read of a file hashes like the write that produced it.
 *
 * A page is fitted on the raw bytes, in one pass: every byte has a fixed
 * cost in the result line (`STRING_BYTE_COST`), an item a fixed overhead,
 * and the page's shell depends only on whether there is a next cursor and
 * how long it is (which depends only on the digits of its position). So the
 * page is the longest that fits, exactly, and each item is decoded once.
 * On stdio, the page's JSON is written straight from those bytes (`wire.ts`).
 * On stdio, the page's JSON is written straight from those bytes (`wire.ts`).
 *
 * @module
 */
import { isUtf8 } from "node:buffer";
import * as z from "zod";
import { charBoundary, completeEnd, decodeValid } from "../bytes.ts";
import { checkPathArgument, openServedFile, readFully } from "../confine.ts";
import { assertState } from "../cursor.ts";
import { STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { encodedSize, itemCost, type Page, pageSchema, STRING_BYTE_COST } from "../page.ts";
import type { FileHandle, FileInfo } from "../ports/fs_port.ts";
import { type ByteSink, setJsonWriter } from "../wire.ts";
import { argumentsSchema, pageCap, pagingArgs, READ_ONLY, type Tool, type ToolContext } from "./tool.ts";

const item = z.object({
  byte_offset: z.number().int().nonnegative().describe("Offset of `text` in the file, in bytes."),
  text: z.string(),
});
type Item = z.infer<typeof item>;

const inputSchema = argumentsSchema({
  path: z.string().describe("File relative to the root."),
  ...pagingArgs,
});

const NAME = "read_text_file";

/** The refusal when a first page's file changed while it was read. */
const CHANGED_WHILE_READ = "the file changed while it was read; read it again";

/** Bytes read from disk at a time while checking that a whole file is UTF-8. */
const VALIDATE_CHUNK = 1024 * 1024;

/** The largest read buffer kept between calls; a larger page reads into a buffer of its own. */
const SCRATCH_MAX = 4 * VALIDATE_CHUNK;

/** A `content_hash` stands for any other: they all have the same length. */
const ANY_HASH = "sha256:" + "0".repeat(64);

/** A state digest (hex SHA-256, like `identity`) stands for any other. */
const ANY_STATE = "0".repeat(64);

function identity(info: FileInfo): string {
  return new Digest().text(`${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}:${info.dev}`).hex();
}

/** What changes when the bytes behind an open descriptor change. */
function contentIdentity(info: FileInfo): string {
  return `${info.size}:${info.mtimeNs}:${info.ino}:${info.dev}`;
}

/** The `read_text_file` tool. */
export const readTextFile: Tool<typeof inputSchema, ReturnType<typeof pageSchema<typeof item>>> = {
  name: NAME,
  title: "Read a text file",
  description: "Read a UTF-8 text file of the root. Each page holds consecutive pieces " +
    "`{byte_offset, text}`; concatenating every `text` of every page reconstructs the file exactly. " +
    "Follow `next_cursor` until it is null. Files that are not valid UTF-8 are refused.",
  inputSchema,
  outputSchema: pageSchema(item),
  annotations: READ_ONLY,
  run({ path, cursor, limit }, ctx) {
    const { root } = ctx;
    const rel = checkPathArgument(root, path, false);
    const args = { path: rel };
    const claims = cursor === undefined ? undefined : ctx.cursors.open<number>(cursor, NAME, args);
    const { handle, info } = openServedFile(root, rel);
    try {
      const size = info.size;
      if (size > root.limits.maxFileBytes) {
        throw new ToolError(`${rel} is larger than the ${root.limits.maxFileBytes}-byte file limit`);
      }
      let state: string | undefined;
      let offset = 0;
      if (claims) {
        state = identity(info);
        assertState(claims, state);
        offset = claims.position;
      }
      const maxItems = pageCap(ctx, limit);
      // Every byte costs at least 2 and a page holds at most maxItems chunks, so no page can hold more.
      const want = Math.min(
        size - offset,
        Math.floor(ctx.maxBytes / 2) + 4,
        maxItems * root.limits.readChunkBytes,
      );
      let bytes: Uint8Array;
      let checked = false; // whether `bytes` themselves were validated
      if (!claims && size <= VALIDATE_CHUNK) {
        // A small file: one read both validates it and fills the page.
        const buffer = scratch(size);
        const got = readFully(handle, buffer, 0);
        if (!isUtf8(buffer.subarray(0, got))) throw new ToolError(`${rel} is not valid UTF-8 text`);
        bytes = buffer.subarray(0, Math.min(got, want));
        if (bytes.length < got) bytes = bytes.subarray(0, completeEnd(bytes, bytes.length));
        checked = true;
      } else {
        if (!claims && !isUtf8File(handle, size, scratch(VALIDATE_CHUNK))) {
          throw new ToolError(`${rel} is not valid UTF-8 text`);
        }
        const buffer = want <= SCRATCH_MAX ? scratch(want) : new Uint8Array(want);
        const got = readFully(handle, buffer, offset);
        // Stop before a character that the read cut in two, unless the file ends there.
        bytes = buffer.subarray(0, offset + got >= size ? got : completeEnd(buffer, got));
      }
      // Bytes read now may differ from the bytes validated before (a write in place): check them.
      if (!checked && !isUtf8(bytes)) throw new ToolError(CHANGED_WHILE_READ);

      const ends = fitItems(ctx, bytes, offset, size, maxItems, (end) => cursorLength(ctx, end));
      const items: Item[] = [];
      for (let i = 0, start = 0; i < ends.length; start = ends[i++]) {
        items.push({ byte_offset: offset + start, text: decodeValid(bytes.subarray(start, ends[i])) });
      }
      const end = ends.length === 0 ? 0 : ends[ends.length - 1];
      const hash = new Digest().bytes(bytes.subarray(0, end)).contentHash();
      if (contentIdentity(handle.stat()) !== contentIdentity(info)) {
        // Written in place while this page was read. (A rename over the path only touches the
        // old inode's ctime: the bytes read through this descriptor are still whole.)
        throw new ToolError(claims ? STALE_CURSOR_MESSAGE : CHANGED_WHILE_READ);
      }
      let next: string | null = null;
      if (offset + end < size) {
        next = ctx.cursors.issue(NAME, args, state ?? identity(info), offset + end);
        if (next.length !== cursorLength(ctx, offset + end)) {
          // The page was fitted for a cursor of another length: never send a line over the ceiling.
          cursorLengths.clear();
          throw new Error("read_text_file: the cursor length changed");
        }
      }
      const page = { items, next_cursor: next, content_hash: hash };
      const pageBytes = bytes.slice(0, end); // a copy: the read buffer serves the next call
      setJsonWriter(page, (sink) => writePageJson(sink, page, pageBytes, ends));
      return page;
    } finally {
      handle.close();
    }
  },
};

/**
 * Writes the UTF-8 of `JSON.stringify(page)` straight from the bytes its
 * items were decoded from (`ends`: the item ends in `bytes`), so the text
 * is never serialised as a string. Keys in the order the page object has.
 */
function writePageJson(sink: ByteSink, page: Page<Item>, bytes: Uint8Array, ends: readonly number[]): void {
  sink.text('{"items":[');
  for (let i = 0, start = 0; i < ends.length; start = ends[i++]) {
    sink.text(`${i === 0 ? "" : ","}{"byte_offset":${page.items[i].byte_offset},"text":"`);
    sink.jsonStringBody(bytes.subarray(start, ends[i]));
    sink.text('"}');
  }
  const { next_cursor, content_hash } = page;
  sink.text(`],"next_cursor":${JSON.stringify(next_cursor)},"content_hash":${JSON.stringify(content_hash)}}`);
}

let scratchBuffer = new Uint8Array(0);

/**
 * A read buffer of at least `n` bytes, kept between calls (a call runs to
 * completion before the next starts: the file port is synchronous, and no
 * returned value holds on to the buffer).
 */
function scratch(n: number): Uint8Array {
  if (scratchBuffer.length < n) {
    scratchBuffer = new Uint8Array(Math.max(n, Math.min(2 * scratchBuffer.length, SCRATCH_MAX)));
  }
  return scratchBuffer.subarray(0, n);
}

/** Validates a whole file as UTF-8, `buffer` at a time; a character cut by a read waits for the next. */
function isUtf8File(handle: FileHandle, size: number, buffer: Uint8Array): boolean {
  let carry = 0; // bytes of an incomplete character at the start of `buffer`
  for (let at = 0; at < size;) {
    const n = readFully(handle, buffer.subarray(carry, Math.min(buffer.length, carry + size - at)), at);
    if (n === 0) break;
    at += n;
    const filled = carry + n;
    const whole = at >= size ? filled : completeEnd(buffer, filled);
    if (!isUtf8(buffer.subarray(0, whole))) return false;
    buffer.copyWithin(0, whole, filled);
    carry = filled - whole;
  }
  return carry === 0;
}

/** Cursor lengths by the number of digits of the position: they depend on nothing else. */
const cursorLengths = new Map<number, number>();

/** The length of the cursor for position `end`, learned once per digit count from a probe cursor. */
function cursorLength(ctx: ToolContext, end: number): number {
  const digits = String(end).length;
  let length = cursorLengths.get(digits);
  if (length === undefined) {
    // Arguments and state are digests of fixed length, whatever their inputs.
    length = ctx.cursors.issue(NAME, { path: "" }, ANY_STATE, 10 ** (digits - 1)).length;
    cursorLengths.set(digits, length);
  }
  return length;
}

/**
 * The item ends (offsets into `bytes`) of the longest page that fits: whole
 * chunks while they fit, then one shortened chunk for the room that is
 * left, at most `maxItems` items. `bytes` are the valid UTF-8 read at
 * `offset` of a `size`-byte file; `cursorLength(end)` is the length of the
 * next cursor of a page ending at file position `end < size`.
 *
 * @throws {ToolError} when not even one character fits.
 */
function fitItems(
  ctx: ToolContext,
  bytes: Uint8Array,
  offset: number,
  size: number,
  maxItems: number,
  cursorLength: (end: number) => number,
): number[] {
  const room = (cursor: number | null) =>
    ctx.maxBytes -
    encodedSize(ctx, {
      items: [],
      next_cursor: cursor === null ? null : "x".repeat(cursor),
      content_hash: ANY_HASH,
    });
  const chunkBytes = ctx.root.limits.readChunkBytes;
  if (offset + bytes.length >= size) {
    // The rest of the file: as the last page, without a cursor, if it all fits.
    const ends = scan(bytes, offset, maxItems, chunkBytes, () => room(null));
    if (ends.length > 0 && ends[ends.length - 1] === bytes.length || bytes.length === 0) return ends;
  }
  // Shorter than the rest of the file, so with a cursor (a longer shell never fits more).
  const ends = scan(bytes, offset, maxItems, chunkBytes, (end) => room(cursorLength(end)));
  if (ends.length === 0) {
    throw new ToolError("the result ceiling (--max-result-bytes) is too small for one character");
  }
  return ends;
}

/**
 * Walks `bytes`, adding up item costs, and returns the item ends of the
 * longest page within `room(end)` (the room left by the page's shell when it
 * ends at file position `end`; it only changes where `end` gains a digit,
 * and only shrinks).
 */
function scan(
  bytes: Uint8Array,
  offset: number,
  maxItems: number,
  chunkBytes: number,
  room: (end: number) => number,
): number[] {
  const ends: number[] = [];
  const length = bytes.length;
  let budget = room(offset + 1);
  let recheck = 10 ** String(offset + 1).length - offset; // the first end with another digit count
  let used = 0;
  let at = 0;
  while (at < length && ends.length < maxItems) {
    const chunkEnd = Math.min(charBoundary(bytes, at + chunkBytes), length);
    let cost = used + itemCost({ byte_offset: offset + at, text: "" }) - (ends.length === 0 ? 2 : 0);
    // Byte by byte while the budget stays the same (a character's cost is the sum of its bytes').
    const fastEnd = Math.min(chunkEnd, recheck - 1);
    let j = at;
    for (; j < fastEnd; j++) {
      const more = cost + STRING_BYTE_COST[bytes[j]];
      if (more > budget) break;
      cost = more;
    }
    // Back to the last character boundary.
    let i = j === chunkEnd ? j : charBoundary(bytes, j);
    for (let k = i; k < j; k++) cost -= STRING_BYTE_COST[bytes[k]];
    if (j === fastEnd && j < chunkEnd) {
      // The end gains a digit within this chunk: character by character, the budget checked at each.
      while (i < chunkEnd) {
        const b = bytes[i];
        const next = i + (b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2);
        let c = 0;
        for (let k = i; k < next; k++) c += STRING_BYTE_COST[bytes[k]];
        if (next >= recheck) {
          budget = room(offset + next);
          recheck = 10 ** String(offset + next).length - offset;
        }
        if (cost + c > budget) break;
        cost += c;
        i = next;
      }
    }
    if (i === at) break;
    ends.push(i);
    used = cost;
    at = i;
    if (i < chunkEnd) break; // shortened: the page is full
  }
  return ends;
}

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
 * @module
 */
import * as z from "zod";
import { charBoundary, decodeStrict } from "../bytes.ts";
import { checkPathArgument, openServedFile, readFully } from "../confine.ts";
import { assertState } from "../cursor.ts";
import { STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { encodedSize, itemCost, pageSchema } from "../page.ts";
import type { FileHandle, FileInfo } from "../ports/fs_port.ts";
import { pageCap, pagingArgs, READ_ONLY, type Tool, type ToolContext } from "./tool.ts";

const item = z.object({
  byte_offset: z.number().int().nonnegative().describe("Offset of `text` in the file, in bytes."),
  text: z.string(),
});
type Item = z.infer<typeof item>;

const inputSchema = z.strictObject({
  path: z.string().describe("File relative to the root."),
  ...pagingArgs,
});

const NAME = "read_text_file";

/** The refusal when a first page's file changed while it was read. */
const CHANGED_WHILE_READ = "the file changed while it was read; read it again";

/** Bytes read from disk at a time while checking that a whole file is UTF-8. */
const VALIDATE_CHUNK = 1024 * 1024;

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
      if (info.size > root.limits.maxFileBytes) {
        throw new ToolError(`${rel} is larger than the ${root.limits.maxFileBytes}-byte file limit`);
      }
      const state = identity(info);
      let offset = 0;
      if (claims) {
        assertState(claims, state);
        offset = claims.position;
      } else if (!isUtf8File(handle, info.size)) {
        throw new ToolError(`${rel} is not valid UTF-8 text`);
      }
      const longestCursor = ctx.cursors.issue(NAME, args, state, info.size);
      const page = readPage(handle, info.size, offset, pageCap(ctx, limit), longestCursor, ctx);
      if (contentIdentity(handle.stat()) !== contentIdentity(info)) {
        // Written in place while this page was read. (A rename over the path only touches the
        // old inode's ctime: the bytes read through this descriptor are still whole.)
        throw new ToolError(claims ? STALE_CURSOR_MESSAGE : CHANGED_WHILE_READ);
      }
      const next = page.end >= info.size ? null : ctx.cursors.issue(NAME, args, state, page.end);
      return { items: page.items, next_cursor: next, content_hash: page.hash };
    } finally {
      handle.close();
    }
  },
};

function isUtf8File(handle: FileHandle, size: number): boolean {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const buffer = new Uint8Array(Math.min(size, VALIDATE_CHUNK));
  try {
    for (let at = 0; at < size;) {
      const n = readFully(handle, buffer, at);
      if (n === 0) break;
      decoder.decode(buffer.subarray(0, n), { stream: true });
      at += n;
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/**
 * Fills one page from `offset`: whole chunks while they fit, then one
 * shortened chunk for the room that is left.
 */
function readPage(
  handle: FileHandle,
  size: number,
  offset: number,
  maxItems: number,
  longestCursor: string,
  ctx: ToolContext,
): { items: Item[]; end: number; hash: string } {
  // Every byte costs at least twice (structured + text), so this is enough to fill a page.
  const want = Math.min(size - offset, ctx.maxBytes);
  const buffer = new Uint8Array(want);
  const got = readFully(handle, buffer, offset);
  // Stop before a character that the read cut in two, unless the file ends there.
  const bytes = buffer.subarray(0, offset + got >= size ? got : completeEnd(buffer, got));
  const empty = { items: [], next_cursor: longestCursor, content_hash: "sha256:" + "0".repeat(64) };
  let room = ctx.maxBytes - encodedSize(ctx, empty);
  const items: Item[] = [];
  const chunkBytes = ctx.root.limits.readChunkBytes;
  let at = 0;
  while (at < bytes.length && items.length < maxItems) {
    let end = charBoundary(bytes, at + chunkBytes);
    let piece = toItem(bytes, at, end, offset);
    let cost = itemCost(piece);
    if (cost > room) {
      end = longestFit(bytes, at, end, offset, room);
      if (end === at) break;
      piece = toItem(bytes, at, end, offset);
      cost = itemCost(piece);
    }
    items.push(piece);
    room -= cost;
    at = end;
  }
  if (items.length === 0 && bytes.length > 0) {
    throw new ToolError("the result ceiling (--max-result-bytes) is too small for one character");
  }
  return { items, end: offset + at, hash: new Digest().bytes(bytes.subarray(0, at)).contentHash() };
}

/** The end of the last complete UTF-8 character within the first `n` bytes. */
function completeEnd(bytes: Uint8Array, n: number): number {
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    const length = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return i + length <= n ? n : i;
  }
  return n;
}

function toItem(bytes: Uint8Array, start: number, end: number, offset: number): Item {
  const text = decodeStrict(bytes.subarray(start, end));
  if (text === null) throw new ToolError(CHANGED_WHILE_READ);
  return { byte_offset: offset + start, text };
}

/** The largest character-boundary end in (start, end] whose item fits `room`. */
function longestFit(bytes: Uint8Array, start: number, end: number, offset: number, room: number): number {
  let lo = start; // fits (empty)
  let hi = end; // does not fit
  while (hi - lo > 4) {
    const mid = charBoundary(bytes, (lo + hi) >> 1);
    if (mid <= lo) break;
    if (itemCost(toItem(bytes, start, mid, offset)) <= room) lo = mid;
    else hi = mid;
  }
  // Finish character by character.
  for (let next = nextBoundary(bytes, lo, hi); next < hi; next = nextBoundary(bytes, lo, hi)) {
    if (itemCost(toItem(bytes, start, next, offset)) > room) break;
    lo = next;
  }
  return lo;
}

function nextBoundary(bytes: Uint8Array, at: number, limit: number): number {
  let next = at + 1;
  while (next < limit && (bytes[next] & 0xc0) === 0x80) next++;
  return next;
}

/**
 * `read_text_file`: a UTF-8 file in pages of `{byte_offset, text}` items cut on character boundaries; all the
 * texts, concatenated, are the file. Cursor state: the file's identity; content_hash: the raw bytes the page
 * covers. A page is fitted exactly in one pass over its bytes, and writes its JSON straight from them.
 *
 * @module
 */
import { isUtf8 } from "node:buffer";
import * as z from "zod";
import { charBoundary, completeEnd, decodeValid, Utf8Stream } from "../bytes.ts";
import { admit, checkPathArgument, openServedFile, tooLarge } from "../confine.ts";
import { shownPath } from "../quote.ts";
import { Pacer } from "../pacing.ts";
import { parentOf } from "../paths.ts";
import { assertState, cursorLength, targetOf } from "../cursor.ts";
import { STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { identityDigest, sameContent } from "../identity.ts";
import { type JsonSink, type Page, pageSchema } from "../page.ts";
import type { FileHandle } from "../ports/fs_port.ts";
import { encodedSize, itemCost, STRING_BYTE_COST } from "../result_line.ts";
import {
  argumentsSchema,
  pageCap,
  pagingArgs,
  READ_ONLY,
  stringArg,
  type Tool,
  type ToolContext,
} from "./tool.ts";

const item = z.object({
  byte_offset: z.int().min(0).describe("Offset of `text` in the file, in bytes."),
  text: z.string(),
});
type Item = z.infer<typeof item>;

const inputSchema = argumentsSchema({
  path: stringArg().describe("File relative to the root."),
  ...pagingArgs,
});

const NAME = "read_text_file";
const CHANGED_WHILE_READ = "the file changed while it was read; read it again";
const VALIDATE_CHUNK = 1024 * 1024; // bytes read at a time to check that a whole file is UTF-8
const SCRATCH_MAX = 4 * VALIDATE_CHUNK; // the largest read buffer kept between calls
const ANY_HASH = "sha256:" + "0".repeat(64); // stands for any content_hash: they all have this length

/**
 * A cursor's position: the offset in as many digits as the file's size (which a cursor binds), so every
 * cursor of a file has the same length and a page can be fitted before its cursor is made. Exported for the
 * fitting tests.
 */
export const cursorPosition = (offset: number, size: number): string =>
  String(offset).padStart(String(size).length, "0");

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
  async run({ path, cursor, limit }, ctx) {
    const { root } = ctx;
    const rel = checkPathArgument(root, path, false);
    admit(root, rel, "file"); // from the name first: an unserved path is never touched
    const args = { path: rel };
    const claims = cursor === undefined ? undefined : ctx.cursors.open(cursor, NAME, args);
    // Its directories first, a big one read with pauses.
    const pacer = new Pacer(root, ctx.signal);
    const { handle, info } = await targetOf(
      claims,
      root.prepared(parentOf(rel), pacer, () => openServedFile(root, rel)),
    );
    const notText = () => new ToolError(`${shownPath(rel)} is not valid UTF-8 text`);
    try {
      const size = info.size;
      const state = identityDigest(info);
      if (claims) assertState(claims, state); // first: a file grown past the limit since has changed
      if (size > root.limits.maxFileBytes) throw tooLarge(root, rel);
      const offset = claims ? Number(claims.position) : 0;
      const maxItems = pageCap(ctx, limit);
      // Every byte costs at least 2 and a page holds at most maxItems chunks, so no page can hold more.
      const want = Math.min(
        size - offset,
        Math.floor(ctx.maxBytes / 2) + 4,
        maxItems * root.limits.readChunkBytes,
      );
      let bytes: Uint8Array;
      if (!claims && size <= VALIDATE_CHUNK) {
        // A small file: one read both validates it and fills the page.
        const buffer = scratch(size);
        const got = handle.readAt(buffer, 0);
        if (!isUtf8(buffer.subarray(0, got))) throw notText();
        bytes = buffer.subarray(0, got > want ? completeEnd(buffer, want) : got);
      } else {
        if (!claims && !(await isUtf8File(handle, size, scratch(VALIDATE_CHUNK), pacer))) throw notText();
        const buffer = want <= SCRATCH_MAX ? scratch(want) : new Uint8Array(want);
        const got = handle.readAt(buffer, offset);
        // Stop before a character that the read cut in two, unless the file ends there.
        bytes = buffer.subarray(0, offset + got >= size ? got : completeEnd(buffer, got));
        // These bytes may differ from the ones validated (a write in place): check them too.
        if (!isUtf8(bytes)) throw new ToolError(CHANGED_WHILE_READ);
      }
      const cursorAt = (at: number) => ctx.cursors.issue(NAME, args, state, cursorPosition(at, size));
      // Every cursor of the file is as long: the page is fitted with a stand-in, and one is signed only for a
      // page that ends before the file.
      const anyCursor = "A".repeat(cursorLength(cursorPosition(0, size).length));
      const ends = fitItems(ctx, bytes, offset, size, maxItems, anyCursor);
      const starts = ends.map((_, i) => i === 0 ? 0 : ends[i - 1]); // where each item begins in the bytes
      const end = ends.at(-1) ?? 0;
      if (!sameContent(handle.stat(), info)) { // written in place while this page was read
        throw new ToolError(claims ? STALE_CURSOR_MESSAGE : CHANGED_WHILE_READ);
      }
      // The page with its texts left empty: the binary writes the line from the bytes, and decodes none.
      const shape: Page<Item> = {
        items: starts.map((start) => ({ byte_offset: offset + start, text: "" })),
        next_cursor: offset + end < size ? cursorAt(offset + end) : null,
        content_hash: new Digest().bytes(bytes.subarray(0, end)).contentHash(),
      };
      const pageBytes = bytes.slice(0, end); // a copy: the read buffer serves the next call
      let page: Page<Item> | undefined;
      return {
        shape,
        get value() {
          return page ??= {
            ...shape,
            items: shape.items.map(({ byte_offset }, i) => ({
              byte_offset,
              text: decodeValid(pageBytes.subarray(starts[i], ends[i])),
            })),
          };
        },
        writeJson: (sink) => writePageJson(sink, shape, pageBytes, ends),
      };
    } finally {
      handle.close();
    }
  },
};

/** Writes the UTF-8 of the page's `JSON.stringify`, its texts from the bytes they are decoded from. */
function writePageJson(sink: JsonSink, shape: Page<Item>, bytes: Uint8Array, ends: readonly number[]): void {
  sink.text('{"items":[');
  for (let i = 0, start = 0; i < ends.length; start = ends[i++]) {
    sink.text(`${i === 0 ? "" : ","}{"byte_offset":${shape.items[i].byte_offset},"text":"`);
    sink.jsonString(bytes.subarray(start, ends[i]));
    sink.text('"}');
  }
  const { next_cursor, content_hash } = shape;
  sink.text(`],"next_cursor":${JSON.stringify(next_cursor)},"content_hash":${JSON.stringify(content_hash)}}`);
}

let scratchBuffer = new Uint8Array(0);

/** A read buffer of `n` bytes, kept between calls: the port is synchronous, and no result holds on to it. */
function scratch(n: number): Uint8Array {
  if (scratchBuffer.length < n) {
    scratchBuffer = new Uint8Array(Math.max(n, Math.min(2 * scratchBuffer.length, SCRATCH_MAX)));
  }
  return scratchBuffer.subarray(0, n);
}

/**
 * First pages that check a big file with pauses at once, each holding its descriptor across them: past this
 * many, a check runs in one go (600 pipelined reads of a big file otherwise held 600 descriptors).
 */
export const MAX_PACED_UTF8_CHECKS = 4;
let pacedChecks = 0;

/**
 * Whether the file's `size` bytes are UTF-8, read into `buffer` a piece at a time, with a checkpoint after
 * each (a 256 MiB file held input for 0.3 s) unless `MAX_PACED_UTF8_CHECKS` run. Each piece is taken in before
 * the pause, since another call may read into the same scratch buffer meanwhile; a write in place meanwhile
 * is caught by the page's last fstat.
 */
async function isUtf8File(
  handle: FileHandle,
  size: number,
  buffer: Uint8Array,
  pacer: Pacer,
): Promise<boolean> {
  const paced = pacedChecks < MAX_PACED_UTF8_CHECKS;
  if (paced) pacedChecks++;
  try {
    const utf8 = new Utf8Stream();
    for (let at = 0, n = 1; at < size && n > 0 && !utf8.failed; at += n) {
      n = handle.readAt(buffer.subarray(0, Math.min(buffer.length, size - at)), at);
      utf8.push(buffer.subarray(0, n));
      if (paced) await pacer.checkpoint();
    }
    return utf8.valid;
  } finally {
    if (paced) pacedChecks--;
  }
}

/**
 * The item ends (offsets into `bytes`, the valid UTF-8 read at `offset`) of the longest page that fits: whole
 * chunks, then one shortened for the room left, at most `maxItems`; a page that ends before the file carries
 * a cursor as long as `anyCursor`. Throws when not one character fits.
 */
function fitItems(
  ctx: ToolContext,
  bytes: Uint8Array,
  offset: number,
  size: number,
  maxItems: number,
  anyCursor: string,
): number[] {
  const { maxBytes } = ctx;
  const { readChunkBytes } = ctx.root.limits;
  const cost = STRING_BYTE_COST; // in a local: the loop below runs once per byte of the page
  // Each byte has a fixed cost, an item a fixed overhead, the shell a fixed size: one pass fits exactly.
  const fit = (cursor: string | null): number[] => {
    const shell = encodedSize(ctx, { items: [], next_cursor: cursor, content_hash: ANY_HASH });
    const ends: number[] = [];
    for (let at = 0, used = shell; at < bytes.length && ends.length < maxItems;) {
      const chunkEnd = charBoundary(bytes, at + readChunkBytes);
      used += itemCost({ byte_offset: offset + at, text: "" }) - (ends.length === 0 ? 2 : 0);
      // Byte by byte (a character's cost is the sum of its bytes'), then back to a character boundary.
      let j = at;
      for (; j < chunkEnd; j++) {
        const next = used + cost[bytes[j]];
        if (next > maxBytes) break;
        used = next;
      }
      const i = j === chunkEnd ? j : charBoundary(bytes, j);
      for (let k = i; k < j; k++) used -= cost[bytes[k]];
      if (i === at) break;
      ends.push(i);
      at = i;
      if (i < chunkEnd) break; // shortened: the page is full
    }
    return ends;
  };
  if (offset + bytes.length >= size) {
    // The rest of the file: as the last page, without a cursor, if it all fits.
    const ends = fit(null);
    if (bytes.length === 0 || ends.at(-1) === bytes.length) return ends;
  }
  const ends = fit(anyCursor); // shorter than the rest, so with a cursor (a longer shell never fits more)
  if (ends.length === 0) {
    throw new ToolError(
      "the result ceiling (maxResultBytes, --max-result-bytes) is too small for one character",
    );
  }
  return ends;
}

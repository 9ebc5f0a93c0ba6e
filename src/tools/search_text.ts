/**
 * `search_text`: lines of served files that contain a literal query, in file
 * order then line order. Files are scanned in windows (one per file up to
 * `SCAN_WINDOW_BYTES`) with a native substring search (see `windowSearch`);
 * a line is reported whole (its text cut to `MAX_LINE_TEXT_BYTES` on a
 * character boundary) or skipped when its bytes are not valid UTF-8, also a
 * line longer than a window, which is streamed through (`#longLine`). A call
 * scans at most `searchScanBytes`, so a page may hold no items and still
 * carry a progress cursor.
 *
 * Cursor state: the set of paths in scope, and the identity of every file
 * up to the cursor's position. content_hash framing: one line
 * `<path>\t<line>\t<text>\n` per item.
 *
 * @module
 */
import * as z from "zod";
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";
import { charBoundary, compareBytewise, decodeStrict, decodeValid, Utf8Stream } from "../bytes.ts";
import {
  admit,
  checkParents,
  checkPathArgument,
  checkRoot,
  notFound,
  openServedFile,
  readFully,
  refusal,
} from "../confine.ts";
import { assertState } from "../cursor.ts";
import { ROOT_MOVED_MESSAGE, STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { fitPage, itemCost, type Page, pageSchema } from "../page.ts";
import { type FileHandle, type FileInfo, FsError } from "../ports/fs_port.ts";
import type { Root } from "../root.ts";
import { checkQuery } from "./query.ts";
import {
  argumentsSchema,
  pageCap,
  pagingArgs,
  queryArg,
  READ_ONLY,
  type Tool,
  type ToolContext,
} from "./tool.ts";

/** Longest `text` of a reported line, in UTF-8 bytes. */
export const MAX_LINE_TEXT_BYTES = 1_024;

/**
 * Largest window read from a file at once; a longer line is streamed
 * through, never given a larger window. 1 MiB rather than 8: as fast on a
 * 170 MiB file (measured on both runtimes), a third of the memory for three
 * concurrent calls, and a fresh window buffer (the first touch of its pages
 * cost 27 ms per 8 MiB on the development machine) no longer holds the event
 * loop past the 10 ms between yields.
 */
export const SCAN_WINDOW_BYTES = 1024 * 1024;

/** Smallest buffer allocated for a window, so a run of small files does not regrow it each time. */
const MIN_BUFFER_BYTES = 64 * 1024;

/**
 * Milliseconds of scanning between two yields to the event loop (where a
 * cancellation can arrive), checked before each file and each window. A call
 * needs many chances: with a yield per 16 MiB, a cancellation of a 32 MiB
 * scan was missed about one time in three. A yield costs a timer tick (1 ms
 * or more), so yielding by time rather than by bytes scanned keeps that cost
 * a small share of any scan, fast or slow.
 */
const YIELD_EVERY_MS = 10;

const NEWLINE = 0x0a;
const CR = 0x0d;

const item = z.object({
  path: z.string(),
  line: z.int().min(1).describe("1-based line number."),
  text: z.string().describe("The whole line without its line break, cut to 1,024 bytes."),
});
type Item = z.infer<typeof item>;

const inputSchema = argumentsSchema({
  query: queryArg,
  path: z.string().optional().describe("Only search this directory (or file), relative to the root."),
  ...pagingArgs,
});

const NAME = "search_text";

/** Where a search continues: file `f`, at byte `o` (a line start), which is line `l`. */
interface Position {
  f: string;
  o: number;
  l: number;
}

/** The `search_text` tool. */
export const searchText: Tool<typeof inputSchema, ReturnType<typeof pageSchema<typeof item>>> = {
  name: NAME,
  title: "Search file contents",
  description: "Find lines containing `query` as a literal, case-sensitive byte string in the served " +
    "files (optionally only under `path`). Items are `{path, line, text}` in path order, then line order. " +
    "A page may be empty and still carry `next_cursor` (the scan budget ran out): keep following " +
    "`next_cursor` until it is null.",
  inputSchema,
  outputSchema: pageSchema(item),
  annotations: READ_ONLY,
  async run({ query, path = "", cursor, limit }, ctx) {
    const { root } = ctx;
    checkQuery(root, query);
    const scope = checkPathArgument(root, path, true);
    const args = { query, path: scope };
    const claims = cursor === undefined ? undefined : ctx.cursors.open<Position>(cursor, NAME, args);
    const files = scopeFiles(root, scope);

    const paths = new Digest().text(files.length === 0 ? "" : `${files.join("\n")}\n`).hex();
    const identities = new Identities(files.length); // of every file up to the position
    // A cursor's state: the scope's paths, and the identities of the files up to its own.
    const stateAt = (f: string) => {
      let through = 0;
      while (through < identities.count && compareBytewise(files[through], f) <= 0) through++;
      return identities.state(paths, through);
    };
    let start: Position = { f: files[0] ?? "", o: 0, l: 1 };
    let index = 0;
    if (claims) {
      start = claims.position;
      for (; index < files.length && compareBytewise(files[index], start.f) <= 0; index++) {
        identities.set(index, identityOf(root, files[index]));
      }
      assertState(claims, stateAt(start.f));
      if (index > 0 && files[index - 1] === start.f) index--; // resume in it
    }

    const scan = new Scan(ctx, Buffer.from(query), pageCap(ctx, limit));
    let position: Position | null = start;
    try {
      for (; index < files.length; index++) {
        const file = files[index];
        const resumed = claims !== undefined && file === start.f;
        const stop = await scan.file(resumed ? start : { f: file, o: 0, l: 1 }, (info) => {
          // The file a cursor resumes in must be the very one its state was checked against: if it
          // was replaced since, the offset points into another version.
          if (resumed && !identities.same(index, info)) throw new ToolError(STALE_CURSOR_MESSAGE);
          identities.set(index, info);
        });
        if (stop) {
          position = stop;
          break;
        }
      }
    } finally {
      scan.release();
    }
    if (index >= files.length) position = null;

    return fitPage(ctx, scan.items, (n): Page<Item> => {
      const at = n === scan.items.length ? position : scan.after[n - 1] ?? start;
      return {
        items: scan.items.slice(0, n),
        next_cursor: at === null ? null : ctx.cursors.issue(NAME, args, stateAt(at.f), at),
        content_hash: scan.items.slice(0, n).reduce(
          (d, i) => d.text(`${i.path}\t${i.line}\t${i.text}\n`),
          new Digest(),
        ).contentHash(),
      };
    });
  },
};

/** Bytes of one identity record: kind, size, mtime, ctime, inode, device. */
const IDENTITY_BYTES = 48;
const KINDS: readonly (FileInfo["kind"])[] = ["file", "directory", "symlink", "other", "unknown"];

/**
 * The identities (size, times, inode, device; or absent) of files `0` to
 * `count - 1` of a call's scope, in path order, as fixed-size binary
 * records in one buffer. A string per file, alive for the whole call, was
 * most of what a call's garbage collections found still alive, which is
 * what makes the young generation grow (and the process's memory with it).
 */
class Identities {
  #bytes: Uint8Array;
  #view: DataView;
  count = 0;

  constructor(files: number) {
    this.#bytes = new Uint8Array(Math.min(files, 1_024) * IDENTITY_BYTES);
    this.#view = new DataView(this.#bytes.buffer);
  }

  /** Records file `index`'s identity; `null`: absent. */
  set(index: number, info: FileInfo | null): void {
    const at = index * IDENTITY_BYTES;
    if (at + IDENTITY_BYTES > this.#bytes.length) {
      const bigger = new Uint8Array(Math.max(at + IDENTITY_BYTES, this.#bytes.length * 2));
      bigger.set(this.#bytes);
      this.#bytes = bigger;
      this.#view = new DataView(bigger.buffer);
    }
    write(this.#view, at, info);
    this.count = Math.max(this.count, index + 1);
  }

  /** Whether file `index` was recorded with this identity. */
  same(index: number, info: FileInfo | null): boolean {
    if (index >= this.count) return false;
    write(SCRATCH_VIEW, 0, info);
    const at = index * IDENTITY_BYTES;
    for (let i = 0; i < IDENTITY_BYTES; i++) if (this.#bytes[at + i] !== SCRATCH[i]) return false;
    return true;
  }

  /** The state digest: the scope's path digest, then the first `through` records. */
  state(paths: string, through: number): string {
    return new Digest().text(paths).bytes(this.#bytes.subarray(0, through * IDENTITY_BYTES)).hex();
  }
}

/** One record, to compare with (used synchronously only). */
const SCRATCH = new Uint8Array(IDENTITY_BYTES);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

function write(view: DataView, at: number, info: FileInfo | null): void {
  for (let i = 0; i < IDENTITY_BYTES; i += 8) view.setFloat64(at + i, 0);
  if (info === null) return; // absent: kind 0
  view.setUint8(at, 1 + KINDS.indexOf(info.kind));
  view.setFloat64(at + 8, info.size);
  view.setBigInt64(at + 16, info.mtimeNs);
  view.setBigInt64(at + 24, info.ctimeNs);
  view.setBigUint64(at + 32, info.ino);
  view.setBigUint64(at + 40, info.dev);
}

/** The served files a scope names: one file, or every file below a directory. */
function scopeFiles(root: Root, scope: string): string[] {
  // Decided from the name first: an excluded or unreachable scope is never touched.
  const may = scope === "" ? { file: false, directory: true } : admit(root, scope, "either");
  let files: string[] = [];
  try {
    if (scope !== "") checkParents(root, scope);
    if (may.file && root.fs.lstat(root.inventory.abs(scope))?.kind === "file") return [scope];
    if (may.directory) files = [...root.inventory.files(scope)];
  } catch (error) {
    throw refusal(error, scope);
  }
  if (scope !== "" && files.length === 0) throw notFound(scope);
  return files;
}

/** The identity of a scope's file now, `null` when it is gone or cannot be looked at. */
function identityOf(root: Root, rel: string): FileInfo | null {
  try {
    return root.fs.lstat(root.inventory.abs(rel));
  } catch (error) {
    if (error instanceof FsError) return null;
    throw error;
  }
}

/**
 * The window buffer a finished call leaves for the next one, so that a process
 * keeps one buffer instead of allocating one per call (a call in progress
 * takes it; a concurrent call allocates its own).
 */
let spareBuffer: Buffer | null = null;

/** One call's scan: the items found, the position after each, and the budgets. */
class Scan {
  readonly items: Item[] = [];
  readonly after: Position[] = [];
  readonly #ctx: ToolContext;
  readonly #needle: Buffer;
  readonly #search: WindowSearch;
  readonly #maxItems: number;
  #room: number;
  #scanned = 0;
  #yieldedAt = performance.now(); // when the call last yielded (or started)
  /** Most bytes one window holds; a longer line is streamed through, never given a larger window. */
  readonly #windowBytes: number;
  /** Holds the window; allocated on demand, only as large as the files need. */
  #buffer: Buffer | null = null;

  constructor(ctx: ToolContext, needle: Buffer, maxItems: number) {
    this.#ctx = ctx;
    this.#needle = needle;
    this.#search = windowSearch()(needle);
    this.#maxItems = maxItems;
    this.#room = ctx.maxBytes;
    this.#windowBytes = Math.max(4_096, Math.min(SCAN_WINDOW_BYTES, ctx.root.limits.searchScanBytes));
  }

  /** Scans one file from `from`; returns where to continue when this call must stop. */
  async file(from: Position, record: (info: FileInfo | null) => void): Promise<Position | null> {
    const { root } = this.#ctx;
    if (this.#scanned >= root.limits.searchScanBytes) {
      // Stopping before this file: bind its identity as the next call will check it.
      record(identityOf(root, from.f));
      return from;
    }
    // In this call's first file, stop for the budget only past `from`, so every call makes progress
    // (a line longer than the budget is scanned whole).
    const first = this.#scanned === 0;
    await this.#checkpoint();
    let opened;
    try {
      opened = openServedFile(root, from.f);
    } catch (error) {
      if (!(error instanceof ToolError) || error.message === ROOT_MOVED_MESSAGE) throw error;
      record(identityOf(root, from.f));
      return null; // gone, swapped for a link, not regular or not readable: skipped
    }
    const { handle, info } = opened;
    try {
      record(info);
      if (info.size > root.limits.maxFileBytes || from.o >= info.size) return null;
      let base = from.o; // file offset of the window start, always a line start
      let line = from.l;
      let carry = 0; // bytes at the window start carried over from the previous window
      while (base + carry < info.size) {
        // A window never reaches past the size the file had when opened: the bytes it holds
        // belong to the identity recorded for it.
        const bytes = Math.min(this.#windowBytes, info.size - base);
        const buffer = this.#bufferFor(bytes, carry);
        const n = carry + readFully(handle, buffer.subarray(carry, bytes), base + carry);
        const eof = n < bytes || base + n >= info.size; // a short read: the file shrank
        const window = buffer.subarray(0, n);
        this.#scanned += n - carry;
        if (!eof && lastIndexOf.call(window, NEWLINE) < 0) {
          // One line fills the whole window: stream through it instead of growing the window.
          const long = await this.#longLine(handle, info.size, window, from.f, base, line);
          if (long.stop) return long.stop;
          if (long.next === null) return null;
          base = long.next;
          carry = long.carry;
          line++;
        } else {
          const result = this.#lines(window, from.f, base, line, eof);
          if (result.stop) return result.stop;
          if (eof) return null;
          // Carry the unfinished last line into the next window.
          const next = result.lastLineStart;
          line = result.lineAt(next);
          window.copyWithin(0, next, n);
          carry = n - next;
          base += next;
        }
        if (this.#scanned >= root.limits.searchScanBytes && (base > from.o || !first)) {
          return { f: from.f, o: base, l: line };
        }
        await this.#checkpoint();
      }
      return null;
    } finally {
      handle.close();
    }
  }

  /**
   * Streams through one line longer than a window, a window at a time, so a
   * call's memory stays at one window whatever the line's length, and it
   * yields and honours cancellation inside the line. Kept meanwhile: the
   * line's first bytes (its reported text), whether it matched (a match may
   * straddle two windows: the last `needle - 1` bytes are kept too), and the
   * UTF-8 validation state (a character cut by a window edge waits for the
   * next). `window` holds the line's first window, from `start`.
   *
   * Returns where the next line starts (`null` at end of file), with its
   * first `carry` bytes already at the start of the buffer, or where the
   * call must stop.
   */
  async #longLine(
    handle: FileHandle,
    size: number,
    window: Buffer,
    path: string,
    start: number,
    number: number,
  ): Promise<{ stop: Position | null; next: number | null; carry: number }> {
    const head = Buffer.from(window.subarray(0, MAX_LINE_TEXT_BYTES + 4)); // a copy: the buffer is reused
    const overlap = this.#needle.length - 1;
    let tail = Buffer.from(window.subarray(window.length - overlap));
    let matched = this.#search(window)(0) >= 0;
    const utf8 = new Utf8Stream();
    utf8.push(window);
    let at = start + window.length;
    while (true) {
      await this.#checkpoint();
      const bytes = Math.min(this.#windowBytes, size - at);
      const buffer = this.#bufferFor(bytes, 0);
      const n = bytes === 0 ? 0 : readFully(handle, buffer.subarray(0, bytes), at);
      this.#scanned += n;
      const newline = indexOf.call(buffer.subarray(0, n), NEWLINE);
      const part = buffer.subarray(0, newline < 0 ? n : newline);
      if (!matched && overlap > 0) {
        matched = Buffer.concat([tail, part.subarray(0, overlap)]).indexOf(this.#needle) >= 0;
      }
      if (!matched) matched = this.#search(part)(0) >= 0;
      utf8.push(part);
      if (newline < 0 && n === bytes && at + n < size) {
        tail = Buffer.from(part.subarray(Math.max(0, part.length - overlap)));
        at += n;
        continue;
      }
      // The line ends here: at a newline, or at the end of the file.
      const end = at + part.length;
      const next = newline < 0 ? null : end + 1;
      if (matched && utf8.valid) {
        const text = decodeValid(head.subarray(0, charBoundary(head, MAX_LINE_TEXT_BYTES)));
        const found: Item = { path, line: number, text };
        const stop = this.#offer(found, { f: path, o: next ?? end, l: number + 1 }, {
          f: path,
          o: start,
          l: number,
        });
        if (stop) return { stop, next, carry: 0 };
      }
      if (next === null) return { stop: null, next, carry: 0 };
      buffer.copyWithin(0, newline + 1, n);
      return { stop: null, next, carry: n - newline - 1 };
    }
  }

  /** Hands the window buffer back for the next call. */
  release(): void {
    const buffer = this.#buffer;
    this.#buffer = null;
    if (buffer && buffer.length > (spareBuffer?.length ?? 0)) {
      spareBuffer = buffer;
    }
  }

  /**
   * A buffer of at least `bytes` (the next window), whose first `carry` bytes
   * are the current window's: the buffer this call holds, the spare one, or
   * a new one rounded up to a power of two (within the window size).
   */
  #bufferFor(bytes: number, carry: number): Buffer {
    if (this.#buffer === null && spareBuffer !== null) {
      this.#buffer = spareBuffer;
      spareBuffer = null;
    }
    const current = this.#buffer;
    if (current !== null && current.length >= bytes) return current;
    let size = MIN_BUFFER_BYTES;
    while (size < bytes) size *= 2;
    const bigger = Buffer.allocUnsafe(Math.max(bytes, Math.min(size, this.#windowBytes)));
    if (current !== null && carry > 0) current.copy(bigger, 0, 0, carry);
    this.#buffer = bigger;
    return bigger;
  }

  /** Reports the matching lines of a window that starts at a line start. */
  #lines(window: Buffer, path: string, base: number, firstLine: number, eof: boolean) {
    let counted = 0;
    let countedLine = firstLine;
    const lineAt = (offset: number) => {
      countedLine += countNewlines(window, counted, offset);
      counted = offset;
      return countedLine;
    };
    const lastNewline = lastIndexOf.call(window, NEWLINE);
    const lastLineStart = eof ? window.length : lastNewline + 1;
    const find = this.#search(window);
    let from = 0;
    while (true) {
      const match = find(from);
      if (match < 0) break;
      const start = match === 0 ? 0 : lastIndexOf.call(window, NEWLINE, match - 1) + 1;
      if (start >= lastLineStart) break; // the unfinished last line: next window
      const newline = indexOf.call(window, NEWLINE, match + this.#needle.length);
      const end = newline < 0 ? window.length : newline;
      const number = lineAt(start);
      const next: Position = { f: path, o: base + (newline < 0 ? end : end + 1), l: number + 1 };
      from = end + 1;
      const text = lineText(window.subarray(start, end), newline >= 0);
      if (text === null) continue; // not UTF-8: skipped whole
      const stop = this.#offer({ path, line: number, text }, next, { f: path, o: base + start, l: number });
      if (stop) return { stop, lastLineStart, lineAt };
    }
    return { stop: null, lastLineStart, lineAt };
  }

  /**
   * Takes a found line, to be followed by `next`; returns `here` (the line's
   * own position) instead when the page is full, for the next call.
   */
  #offer(found: Item, next: Position, here: Position): Position | null {
    const cost = itemCost(found);
    // A first item that does not fit is taken anyway: fitPage reports it.
    if (this.items.length > 0 && (this.items.length >= this.#maxItems || cost > this.#room)) return here;
    this.items.push(found);
    this.after.push(next);
    this.#room -= cost;
    return null;
  }

  /**
   * Lets the event loop run (so a cancellation can arrive) once the call has
   * run `YIELD_EVERY_MS` since the last time — across files, so a corpus of
   * small files yields too — and honours a cancellation.
   */
  async #checkpoint(): Promise<void> {
    if (performance.now() - this.#yieldedAt >= YIELD_EVERY_MS) {
      // A timer alone can resume the scan before stdin is polled again (and a cancellation
      // read): the immediate after it runs only once the loop has polled for input.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
      this.#yieldedAt = performance.now();
      if (!this.#ctx.signal.aborted) checkRoot(this.#ctx.root); // the root may have moved meanwhile
    }
    if (this.#ctx.signal.aborted) throw new ToolError("cancelled");
  }
}

// The typed-array built-ins, for single bytes: on every runtime a direct engine call, where a
// `Buffer` method may go through a binding or a polyfill first.
const indexOf = Uint8Array.prototype.indexOf;
const lastIndexOf = Uint8Array.prototype.lastIndexOf;

/** A line's reported text: without `\r\n`/`\n`, cut on a character boundary; `null` when not UTF-8. */
function lineText(bytes: Uint8Array, hadNewline: boolean): string | null {
  const end = hadNewline && bytes.length > 0 && bytes[bytes.length - 1] === CR
    ? bytes.length - 1
    : bytes.length;
  const line = bytes.subarray(0, end);
  if (decodeStrict(line) === null) return null;
  return decodeStrict(line.subarray(0, charBoundary(line, MAX_LINE_TEXT_BYTES)));
}

function countNewlines(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (
    let at = indexOf.call(bytes, NEWLINE, from);
    at >= 0 && at < to;
    at = indexOf.call(bytes, NEWLINE, at + 1)
  ) {
    count++;
  }
  return count;
}

// ---------------------------------------------------------------- substring search

/** Finds a needle in one window: `find(from)` is the first match at or after `from`, or -1. */
export type WindowSearch = (window: Buffer) => (from: number) => number;

/** Builds the `WindowSearch` for one needle. */
export type SearchMethod = (needle: Buffer) => WindowSearch;

/** `Buffer.prototype.indexOf` on the bytes: native code where `Buffer` is native (Node). */
export const bytesSearch: SearchMethod = (needle) => (window) => (from) => window.indexOf(needle, from);

/**
 * How common each byte is in typical text (prose, code, markup): its rank,
 * most frequent first. Bytes not ranked (other controls, backslash, caret,
 * backquote, tilde) are rarer than all others. Multi-byte UTF-8 ranks
 * after ASCII, lead bytes (one per character) before continuation bytes.
 */
const BYTE_RANK = (() => {
  const ascii =
    " etaoinsrhldcumfpgwy.,b\n_v=();k-\"/'x:01*SETAICRNOLDMPFBHG>2<{}34#j5\t6789UWVKYq[]z&|%@!+?$JXQZ\r";
  const order = [...ascii].map((c) => c.charCodeAt(0));
  for (let b = 0xc2; b <= 0xf4; b++) order.push(b);
  for (let b = 0x80; b <= 0xbf; b++) order.push(b);
  const rank = new Uint16Array(256).fill(order.length);
  order.forEach((byte, i) => (rank[byte] = i));
  return rank;
})();

/** The index in `needle` of its rarest byte in typical text. */
export function rarestByte(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) if (BYTE_RANK[needle[i]] > BYTE_RANK[needle[best]]) best = i;
  return best;
}

/**
 * `Uint8Array.prototype.indexOf` for the needle's rarest byte, then a check
 * of the other bytes around each hit. The typed-array search is an engine
 * built-in on every runtime; it beats `Buffer.prototype.indexOf` where
 * `Buffer` is a JavaScript layer (Deno), as long as the byte it looks for is
 * rare, hence the frequency table.
 */
export const anchoredSearch: SearchMethod = (needle) => {
  const anchor = rarestByte(needle);
  const byte = needle[anchor];
  const length = needle.length;
  return (window) => (from) => {
    const last = window.length - length; // the last offset a match can start at
    for (
      let at = indexOf.call(window, byte, from + anchor);
      at >= 0;
      at = indexOf.call(window, byte, at + 1)
    ) {
      const start = at - anchor;
      if (start > last) return -1;
      let i = 0;
      while (i < length && window[start + i] === needle[i]) i++;
      if (i === length) return start;
    }
    return -1;
  };
};

let chosen: SearchMethod | null = null;

/**
 * The faster of `bytesSearch` and `anchoredSearch` on this runtime, measured
 * once, at the first search, on a synthetic text window (about 3 ms). Both give the same answers; they differ in speed by an
 * order of magnitude, one way on Node and the other way on Deno, so a short
 * measurement picks reliably without naming the runtime.
 */
export function windowSearch(): SearchMethod {
  if (chosen === null) chosen = fastest([bytesSearch, anchoredSearch]);
  return chosen;
}

function fastest(methods: SearchMethod[]): SearchMethod {
  const sample = Buffer.from(
    "the quick brown fox jumps over the lazy dog, 0123456789; return value;\n".repeat(512),
  );
  const needle = Buffer.from("Quick brown fox"); // absent: every method scans it all
  const searches = methods.map((method) => method(needle));
  const best = methods.map(() => Infinity); // fewest milliseconds per window
  for (let round = 0; round < 2; round++) {
    searches.forEach((search, i) => {
      let runs = 0;
      let elapsed = 0;
      const t0 = performance.now();
      do {
        search(sample)(0);
        runs++;
        elapsed = performance.now() - t0;
      } while (elapsed < 0.5 && runs < 10_000);
      best[i] = Math.min(best[i], elapsed / runs);
    });
  }
  return methods[best.indexOf(Math.min(...best))];
}

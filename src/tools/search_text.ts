/**
 * `search_text`: lines of served files that contain a literal query, in file
 * order then line order. Files are scanned in large windows with the
 * runtime's native substring search; a line is reported whole (its text cut
 * to `MAX_LINE_TEXT_BYTES` on a character boundary) or skipped when its
 * bytes are not valid UTF-8. A call scans at most `searchScanBytes`, so a
 * page may hold no items and still carry a progress cursor.
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
import { charBoundary, compareBytewise, decodeStrict } from "../bytes.ts";
import { checkParents, checkPathArgument, notFound, openServedFile, readFully } from "../confine.ts";
import { assertState } from "../cursor.ts";
import { STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { fitPage, itemCost, type Page, pageSchema } from "../page.ts";
import type { FileInfo } from "../ports/fs_port.ts";
import type { Root } from "../root.ts";
import { isTempName } from "../temp_names.ts";
import { checkQuery } from "./query.ts";
import { pageCap, pagingArgs, queryArg, READ_ONLY, type Tool, type ToolContext } from "./tool.ts";

/** Longest `text` of a reported line, in UTF-8 bytes. */
export const MAX_LINE_TEXT_BYTES = 1_024;

/** Largest window read from a file at once. */
export const SCAN_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * Bytes scanned between two yields to the event loop (where a cancellation
 * can arrive). A yield does not always let pending input in (the runtime may
 * resume the scan before it reads stdin), so a long call needs many chances:
 * with 16 MiB, a cancellation of a 32 MiB scan was missed about one time in three.
 */
const YIELD_EVERY_BYTES = 4 * 1024 * 1024;

/** Files opened between two yields, however small they are. */
const YIELD_EVERY_FILES = 1_000;

const NEWLINE = 0x0a;
const CR = 0x0d;

const item = z.object({
  path: z.string(),
  line: z.number().int().positive().describe("1-based line number."),
  text: z.string().describe("The whole line without its line break, cut to 1,024 bytes."),
});
type Item = z.infer<typeof item>;

const inputSchema = z.strictObject({
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

function identity(info: FileInfo | null): string {
  return info === null
    ? "absent"
    : `${info.kind}:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}:${info.dev}`;
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

    const paths = files.reduce((d, f) => d.text(`${f}\n`), new Digest()).hex();
    const seen: [string, string][] = []; // [path, identity] of every file up to the position
    const stateAt = (f: string) => {
      const d = new Digest().text(paths);
      for (const [p, id] of seen) if (compareBytewise(p, f) <= 0) d.text(`${p}\0${id}\n`);
      return d.hex();
    };
    let start: Position = { f: files[0] ?? "", o: 0, l: 1 };
    if (claims) {
      start = claims.position;
      for (const f of files) {
        if (compareBytewise(f, start.f) > 0) break;
        seen.push([f, identity(root.fs.lstat(root.inventory.abs(f)))]);
      }
      assertState(claims, stateAt(start.f));
    }

    const scan = new Scan(ctx, Buffer.from(query), pageCap(ctx, limit));
    let index = files.findIndex((f) => compareBytewise(f, start.f) >= 0);
    if (index < 0) index = files.length;
    let position: Position | null = start;
    for (; index < files.length; index++) {
      const file = files[index];
      const from = file === start.f ? start : { f: file, o: 0, l: 1 };
      if (file !== start.f) seen.push([file, "pending"]);
      const stop = await scan.file(from, (id) => {
        // The file a cursor resumes in must be the very one its state was checked against: if it
        // was replaced since, the offset points into another version.
        if (claims && file === start.f && seen.at(-1)?.[1] !== id) throw new ToolError(STALE_CURSOR_MESSAGE);
        setIdentity(seen, file, id);
      });
      if (stop) {
        position = stop;
        break;
      }
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

function setIdentity(seen: [string, string][], file: string, id: string): void {
  const last = seen.at(-1);
  if (last && last[0] === file) last[1] = id;
  else seen.push([file, id]);
}

/** The served files a scope names: one file, or every file below a directory. */
function scopeFiles(root: Root, scope: string): string[] {
  if (scope !== "") {
    checkParents(root, scope);
    const name = scope.slice(scope.lastIndexOf("/") + 1);
    if (
      root.selector.isServed(scope) && !isTempName(name) &&
      root.fs.lstat(root.inventory.abs(scope))?.kind === "file"
    ) {
      return [scope];
    }
  }
  const files = [...root.inventory.files(scope)];
  if (scope !== "" && files.length === 0) throw notFound(scope);
  return files;
}

/** One call's scan: the items found, the position after each, and the budgets. */
class Scan {
  readonly items: Item[] = [];
  readonly after: Position[] = [];
  readonly #ctx: ToolContext;
  readonly #needle: Buffer;
  readonly #maxItems: number;
  #room: number;
  #scanned = 0;
  #yieldedAt = 0; // `#scanned` at the last yield
  #filesSinceYield = 0;
  #window: Buffer;

  constructor(ctx: ToolContext, needle: Buffer, maxItems: number) {
    this.#ctx = ctx;
    this.#needle = needle;
    this.#maxItems = maxItems;
    this.#room = ctx.maxBytes;
    const size = Math.max(4_096, Math.min(SCAN_WINDOW_BYTES, ctx.root.limits.searchScanBytes));
    this.#window = Buffer.allocUnsafe(size);
  }

  /** Scans one file from `from`; returns where to continue when this call must stop. */
  async file(from: Position, record: (identity: string) => void): Promise<Position | null> {
    const { root } = this.#ctx;
    if (this.#scanned >= root.limits.searchScanBytes) {
      // Stopping before this file: bind its identity as the next call will check it.
      record(identity(root.fs.lstat(root.inventory.abs(from.f))));
      return from;
    }
    // In this call's first file, stop for the budget only past `from`, so every call makes progress
    // (a line longer than the budget is scanned whole).
    const first = this.#scanned === 0;
    await this.#checkpoint(true);
    let opened;
    try {
      opened = openServedFile(root, from.f);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      record(identity(root.fs.lstat(root.inventory.abs(from.f))));
      return null; // gone, swapped for a link, or not regular: skipped
    }
    const { handle, info } = opened;
    try {
      record(identity(info));
      if (info.size > root.limits.maxFileBytes || from.o >= info.size) return null;
      let base = from.o; // file offset of the window start, always a line start
      let line = from.l;
      let carry = 0; // bytes at the window start carried over from the previous window
      while (base + carry < info.size) {
        if (carry === this.#window.length) this.#grow(root.limits.maxFileBytes);
        const n = carry + readFully(handle, this.#window.subarray(carry), base + carry);
        const eof = base + n >= info.size || n === carry;
        const window = this.#window.subarray(0, n);
        this.#scanned += n - carry;
        const result = this.#lines(window, from.f, base, line, eof);
        if (result.stop) return result.stop;
        if (eof) return null;
        // Carry the unfinished last line into the next window.
        const next = result.lastLineStart;
        line = result.lineAt(next);
        window.copyWithin(0, next, n);
        carry = n - next;
        base += next;
        if (this.#scanned >= root.limits.searchScanBytes && (base > from.o || !first)) {
          return { f: from.f, o: base, l: line };
        }
        await this.#checkpoint(false);
      }
      return null;
    } finally {
      handle.close();
    }
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
    const lastNewline = window.lastIndexOf(NEWLINE);
    const lastLineStart = eof ? window.length : lastNewline + 1;
    let from = 0;
    while (true) {
      const match = window.indexOf(this.#needle, from);
      if (match < 0) break;
      const start = match === 0 ? 0 : window.lastIndexOf(NEWLINE, match - 1) + 1;
      if (start >= lastLineStart) break; // the unfinished last line: next window
      const newline = window.indexOf(NEWLINE, match);
      const end = newline < 0 ? window.length : newline;
      const number = lineAt(start);
      const next: Position = { f: path, o: base + (newline < 0 ? end : end + 1), l: number + 1 };
      from = end + 1;
      const text = lineText(window.subarray(start, end), newline >= 0);
      if (text === null) continue; // not UTF-8: skipped whole
      const found: Item = { path, line: number, text };
      const cost = itemCost(found);
      if (this.items.length >= this.#maxItems || cost > this.#room) {
        if (this.items.length === 0) this.#accept(found, next, cost); // fitPage reports it
        else return { stop: { f: path, o: base + start, l: number }, lastLineStart, lineAt };
      } else this.#accept(found, next, cost);
    }
    return { stop: null, lastLineStart, lineAt };
  }

  #accept(found: Item, next: Position, cost: number): void {
    this.items.push(found);
    this.after.push(next);
    this.#room -= cost;
  }

  #grow(max: number): void {
    const bigger = Buffer.allocUnsafe(Math.min(this.#window.length * 2, max + 1));
    this.#window.copy(bigger);
    this.#window = bigger;
  }

  /**
   * Lets the event loop run (so a cancellation can arrive) once enough bytes
   * were scanned or files opened since the last time — counted across files,
   * so a corpus of files smaller than a window yields too — and honours it.
   */
  async #checkpoint(newFile: boolean): Promise<void> {
    if (newFile) this.#filesSinceYield++;
    if (this.#scanned - this.#yieldedAt >= YIELD_EVERY_BYTES || this.#filesSinceYield >= YIELD_EVERY_FILES) {
      this.#yieldedAt = this.#scanned;
      this.#filesSinceYield = 0;
      // A timer alone can resume the scan before stdin is polled again (and a cancellation
      // read): the immediate after it runs only once the loop has polled for input.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.#ctx.signal.aborted) throw new ToolError("cancelled");
  }
}

/** A line's reported text: without `\r\n`/`\n`, cut on a character boundary; `null` when not UTF-8. */
function lineText(bytes: Uint8Array, hadNewline: boolean): string | null {
  const end = hadNewline && bytes.length > 0 && bytes[bytes.length - 1] === CR
    ? bytes.length - 1
    : bytes.length;
  const line = bytes.subarray(0, end);
  if (decodeStrict(line) === null) return null;
  return decodeStrict(line.subarray(0, charBoundary(line, MAX_LINE_TEXT_BYTES)));
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE, from); at >= 0 && at < to; at = bytes.indexOf(NEWLINE, at + 1)) {
    count++;
  }
  return count;
}

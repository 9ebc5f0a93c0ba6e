/**
 * The scan behind `search_text`: files read in windows of at most
 * `SCAN_WINDOW_BYTES`, each searched with the port's substring search. A line
 * is reported whole (its text cut to `MAX_LINE_TEXT_BYTES`) or skipped whole
 * when not UTF-8; one longer than a window is streamed through, so a call
 * holds one window whatever the input's shape. A call scans at most
 * `searchScanBytes`, and yields every `YIELD_EVERY_MS` of work, where a
 * cancellation or a moved root ends it.
 *
 * One class over about 300 lines: the window loop, the long-line stream and
 * the budgets share the same position, buffer and counters.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";
import { charBoundary, decodeStrict, decodeValid, Utf8Stream } from "../bytes.ts";
import { checkRoot, openServedFile } from "../confine.ts";
import { ROOT_MOVED_MESSAGE, ToolError } from "../errors.ts";
import { itemCost } from "../result_line.ts";
import type { FileHandle, FileInfo } from "../ports/fs_port.ts";
import { FsError } from "../ports/fs_port.ts";
import type { Root } from "../root.ts";
import { searchMethodFor, type WindowSearch } from "./find_bytes.ts";

const MAX_LINE_TEXT_BYTES = 1_024;

/**
 * 1 MiB rather than 8: as fast on a 170 MiB file (both runtimes), a third of
 * the memory for three concurrent calls, and a fresh buffer (first touch of
 * its pages: 27 ms per 8 MiB on the development machine) no longer holds the
 * event loop past the 10 ms between yields.
 */
const SCAN_WINDOW_BYTES = 1024 * 1024;

const MIN_BUFFER_BYTES = 64 * 1024; // so a run of small files does not regrow the buffer each time

/**
 * Checked before each file and window. With a yield per 16 MiB instead, a
 * cancellation of a 32 MiB scan was missed one time in three; a yield costs a
 * timer tick (1 ms or more), so yielding by time keeps it a small share of
 * any scan, fast or slow.
 */
const YIELD_EVERY_MS = 10;

const NEWLINE = 0x0a;
const CR = 0x0d;

/** A matching line: the item of a `search_text` page. */
export type Match = { path: string; line: number; text: string };

/** Where a search continues: file `f`, at byte `o` (a line start), which is line `l`. */
export type Position = { f: string; o: number; l: number };

/** The identity of a scope's file now, `null` when it is gone or cannot be looked at. */
export function identityOf(root: Root, rel: string): FileInfo | null {
  try {
    return root.lstat(rel);
  } catch (error) {
    if (error instanceof FsError) return null;
    throw error;
  }
}

/**
 * Scans that run at once in a process; more calls wait their turn. Each
 * holds a window and descriptors: 800 pipelined calls, unbounded, held
 * 820 MiB and ran out of descriptors.
 */
export const MAX_CONCURRENT_SCANS = 4;
let running = 0;
const waiting: (() => void)[] = [];

/** Waits for a scan slot; returns the function that gives it back (to the next caller waiting, if any). */
export async function scanSlot(): Promise<() => void> {
  if (running < MAX_CONCURRENT_SCANS) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // handed over, `running` unchanged
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

// The window buffer a finished call leaves for the next, so a process keeps one rather than
// allocating one per call (a call in progress takes it; a concurrent call allocates its own).
let spareBuffer: Buffer | null = null;

/** One call's scan: the items found, the position after each, and the budgets. */
export class Scan {
  readonly items: Match[] = [];
  readonly after: Position[] = [];
  readonly #root: Root;
  readonly #signal: AbortSignal;
  readonly #needle: Buffer;
  readonly #search: WindowSearch;
  readonly #maxItems: number;
  #room: number;
  #scanned = 0;
  #files = 0; // files opened
  #yieldedAt = performance.now(); // when the call last yielded (or started)
  readonly #windowBytes: number;
  #buffer: Buffer | null = null; // allocated on demand, only as large as the files need

  /** @param room Bytes the page's items may take in the result line. */
  constructor(root: Root, needle: Buffer, maxItems: number, room: number, signal: AbortSignal) {
    this.#root = root;
    this.#signal = signal;
    this.#needle = needle;
    this.#search = searchMethodFor(root.fs)(needle);
    this.#maxItems = maxItems;
    this.#room = room;
    this.#windowBytes = Math.max(4_096, Math.min(SCAN_WINDOW_BYTES, root.limits.searchScanBytes));
  }

  /** Scans one file from `from`; returns where to continue when this call must stop. */
  async file(from: Position, record: (info: FileInfo | null) => void): Promise<Position | null> {
    const root = this.#root;
    if (this.#scanned >= root.limits.searchScanBytes || this.#files >= root.limits.searchScanFiles) {
      // Stopping before this file: bind its identity as the next call will check it.
      record(identityOf(root, from.f));
      return from;
    }
    // In this call's first file, stop for the budget only past `from`, so every call makes progress
    // (a line longer than the budget is scanned whole).
    const first = this.#scanned === 0;
    await this.#checkpoint();
    this.#files++;
    let opened;
    try {
      opened = openServedFile(root, from.f, true); // from this call's listing of the scope
    } catch (error) {
      // Gone, a link, not a regular file, not readable: skipped. But a file being replaced, or one
      // the server could not open for want of descriptors, fails the call: a skip would be a silent miss.
      const cause = error instanceof ToolError ? error.cause : undefined;
      const transient = cause instanceof FsError && ["changed", "busy", "io"].includes(cause.code);
      if (!(error instanceof ToolError) || error.message === ROOT_MOVED_MESSAGE || transient) throw error;
      record(identityOf(root, from.f));
      return null;
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
        const n = carry + handle.readAt(buffer.subarray(carry, bytes), base + carry);
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
   * Streams through a line longer than a window (`window`: its first, from
   * `start`), yielding and honouring cancellation inside it. Kept meanwhile:
   * the line's first bytes (its text), whether it matched (the last
   * `needle - 1` bytes too: a match may straddle two windows) and the UTF-8
   * state. Returns where the next line starts (`null`: end of file), its
   * first `carry` bytes already at the buffer's start, or where to stop.
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
      const n = bytes === 0 ? 0 : handle.readAt(buffer.subarray(0, bytes), at);
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
        const found: Match = { path, line: number, text };
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
   * A buffer of at least `bytes` whose first `carry` bytes are the current
   * window's: this call's, the spare one, or a new one of a power of two.
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

  /** Takes a found line, to be followed by `next`; on a full page returns `here`, its own position, instead. */
  #offer(found: Match, next: Position, here: Position): Position | null {
    const cost = itemCost(found);
    // A first item that does not fit is taken anyway: fitPage reports it.
    if (this.items.length > 0 && (this.items.length >= this.#maxItems || cost > this.#room)) return here;
    this.items.push(found);
    this.after.push(next);
    this.#room -= cost;
    return null;
  }

  /** Yields once the call ran `YIELD_EVERY_MS` (across files too), and honours a cancellation. */
  async #checkpoint(): Promise<void> {
    if (performance.now() - this.#yieldedAt >= YIELD_EVERY_MS) {
      // A timer alone can resume the scan before stdin is polled again (and a cancellation
      // read): the immediate after it runs only once the loop has polled for input.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
      this.#yieldedAt = performance.now();
      if (!this.#signal.aborted) checkRoot(this.#root); // the root may have moved meanwhile
    }
    if (this.#signal.aborted) throw new ToolError("cancelled");
  }
}

// For single bytes: an engine built-in on every runtime, where `Buffer` may add a layer first.
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

/**
 * The scan behind `search_text`: files read in windows of at most `SCAN_WINDOW_BYTES`, each searched with the
 * port's substring search. A line is reported whole (its text cut) or skipped whole when not UTF-8; one longer
 * than a window is streamed through. A call scans at most `searchScanBytes`, pausing for input (`Pacer`).
 * Over 250 lines in one class because the window loop, long lines and budgets share one position and buffer.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { charBoundary, decodeStrict, decodeValid, Utf8Stream } from "../bytes.ts";
import { openServedFile, tooLarge } from "../confine.ts";
import { ROOT_MOVED_MESSAGE, ToolError } from "../errors.ts";
import { identityOf } from "../identity.ts";
import { parentOf } from "../paths.ts";
import { itemCost } from "../result_line.ts";
import type { FileInfo } from "../ports/fs_port.ts";
import type { Pacer } from "../pacing.ts";
import { FsError } from "../ports/fs_port.ts";
import type { Root } from "../root.ts";
import { searchMethodFor, type WindowSearch } from "./find_bytes.ts";

/** Longest line text `search_text` reports, in UTF-8 bytes: a longer line is cut on a character boundary. */
export const MAX_LINE_TEXT_BYTES = 1_024;
const SCAN_WINDOW_BYTES = 1024 * 1024;
const MIN_BUFFER_BYTES = 64 * 1024; // so a run of small files does not regrow the buffer each time
const NEWLINE = 0x0a;
const CR = 0x0d;

/** A matching line: the item of a `search_text` page. */
export type Match = { path: string; line: number; text: string };

/** Where a search continues: file `f`, at byte `o` (a line start), which is line `l`. */
export type Position = { f: string; o: number; l: number };

/** Scans that run at once in a process; more calls wait their turn (each holds a window and descriptors). */
const MAX_CONCURRENT_SCANS = 4;
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

/** A line longer than a window, streamed through: kept are its text, its last `needle - 1` bytes and its state. */
type LongLine = { start: number; text: string; tail: Buffer; matched: boolean; utf8: Utf8Stream };

/** One call's scan: the items found, the position after each, and the budgets. */
export class Scan {
  readonly items: Match[] = [];
  readonly after: Position[] = [];
  readonly #root: Root;
  readonly #pacer: Pacer;
  readonly #validated: ReadonlyMap<string, unknown>;
  readonly #needle: Buffer;
  readonly #search: WindowSearch;
  readonly #maxItems: number;
  #room: number;
  #scanned = 0;
  #files = 0; // files opened
  #checkedDirs = new Set<string>(); // directories whose parents were checked since the last pause
  #checkedAt = 0; // the pause count when they were
  readonly #windowBytes: number;
  #buffer: Buffer | null = null; // allocated on demand, only as large as the files need

  /**
   * @param room Bytes the page's items may take in the result line.
   * @param pacer The call's pacing, shared with its listing.
   * @param validated The directories the call's listing validated, taken as such (`Root.accepting`).
   */
  constructor(
    root: Root,
    needle: Buffer,
    maxItems: number,
    room: number,
    pacer: Pacer,
    validated: ReadonlyMap<string, unknown>,
  ) {
    this.#root = root;
    this.#pacer = pacer;
    this.#validated = validated;
    this.#needle = needle;
    this.#search = searchMethodFor(root.fs)(needle);
    this.#maxItems = maxItems;
    this.#room = room;
    this.#windowBytes = Math.max(4_096, Math.min(SCAN_WINDOW_BYTES, root.limits.searchScanBytes));
  }

  /**
   * Scans one file from `from`; returns where to continue when this call must stop. `named`: the call's scope
   * is this one file, which is then refused as a read of it would be, not skipped.
   */
  async file(
    from: Position,
    record: (info: FileInfo | null) => void,
    named = false,
  ): Promise<Position | null> {
    const root = this.#root;
    if (this.#scanned >= root.limits.searchScanBytes || this.#files >= root.limits.searchScanFiles) {
      record(identityOf(root, from.f)); // bound as the next call will check it
      return from;
    }
    // In this call's first file, stop for the budget only past `from`: every call makes progress.
    const first = this.#scanned === 0;
    await this.#pacer.checkpoint();
    this.#files++;
    const dir = parentOf(from.f);
    const unchecked = this.#openUnchecked(dir);
    let opened;
    try {
      // From this call's listing of the scope, and checked through the directories it validated.
      opened = root.accepting(this.#validated, () => openServedFile(root, from.f, unchecked));
      if (!unchecked) this.#checkedDirs.add(dir);
    } catch (error) {
      // Gone, a link, not regular, unreadable: skipped, unless named. Being replaced or out of descriptors
      // fails the call instead: a skip would be a silent miss.
      const cause = error instanceof ToolError ? error.cause : undefined;
      const transient = cause instanceof FsError && ["changed", "busy", "io"].includes(cause.code);
      if (named || !(error instanceof ToolError) || error.message === ROOT_MOVED_MESSAGE || transient) {
        throw error;
      }
      record(identityOf(root, from.f));
      return null;
    }
    const { handle, info } = opened;
    try {
      record(info);
      if (info.size > root.limits.maxFileBytes) {
        if (named) throw tooLarge(root, from.f);
        return null;
      }
      if (from.o >= info.size) return null;
      let base = from.o; // file offset of the buffer's start: a line start, or inside `long`
      let line = from.l;
      let carry = 0; // bytes at the buffer's start carried over from the previous window
      let long: LongLine | null = null;
      // Bytes left to read, or carried and not yet searched: the rest of the window where a long line ended.
      while (base + carry < info.size || carry > 0) {
        // Never past the size at open: the bytes read belong to the identity recorded.
        const bytes = Math.min(this.#windowBytes, info.size - base);
        const buffer = this.#bufferFor(bytes, carry);
        const n = carry + handle.readAt(buffer.subarray(carry, bytes), base + carry);
        const eof = n < bytes || base + n >= info.size; // a short read: the file shrank
        const window = buffer.subarray(0, n);
        this.#scanned += n - carry;
        // The window's last newline; inside a long line, its first (where the line ends).
        const newline = long === null ? lastIndexOf.call(window, NEWLINE) : indexOf.call(window, NEWLINE);
        let next: number; // where the next window starts: the bytes after it are carried into it
        if (long === null && (eof || newline >= 0)) {
          next = eof ? n : newline + 1; // the unfinished last line: the next window's
          const { stop, lineAt } = this.#lines(window, from.f, base, line, next);
          if (stop) return stop;
          if (eof) return null;
          line = lineAt(next);
        } else {
          // A line filling a whole window is streamed through rather than growing the window.
          long ??= {
            start: base,
            text: decodeValid(window.subarray(0, charBoundary(window, MAX_LINE_TEXT_BYTES))), // used if UTF-8
            tail: Buffer.alloc(0),
            matched: false,
            utf8: new Utf8Stream(),
          };
          this.#stream(long, window.subarray(0, newline < 0 ? n : newline));
          next = newline < 0 ? n : newline + 1;
          if (newline >= 0 || eof) { // the line ends: at a newline, or at the end of the file
            const stop = long.matched && long.utf8.valid &&
              this.#offer({ path: from.f, line, text: long.text }, long.start, base + next);
            if (stop) return stop;
            if (newline < 0) return null;
            line++;
            long = null;
          }
        }
        window.copyWithin(0, next, n);
        carry = n - next;
        base += next;
        if (long === null && this.#scanned >= root.limits.searchScanBytes && (base > from.o || !first)) {
          return { f: from.f, o: base, l: line };
        }
        await this.#pacer.checkpoint();
      }
      return null;
    } finally {
      handle.close();
    }
  }

  /**
   * Whether a file in `dir` may be opened before its parents are checked again (they are after the open in
   * any case): while the call has not paused, its listing just walked them; after a pause, only once one
   * file of `dir` was opened with them checked first, since a parent replaced by a link meanwhile would
   * otherwise be opened through.
   */
  #openUnchecked(dir: string): boolean {
    const pauses = this.#pacer.pauses;
    if (pauses === 0) return true;
    if (pauses !== this.#checkedAt) {
      this.#checkedDirs.clear();
      this.#checkedAt = pauses;
    }
    return this.#checkedDirs.has(dir);
  }

  /** Takes the next part of a long line: whether it matched (a match may straddle two parts), and its UTF-8. */
  #stream(long: LongLine, part: Buffer): void {
    const overlap = this.#needle.length - 1;
    if (!long.matched && overlap > 0) {
      long.matched = Buffer.concat([long.tail, part.subarray(0, overlap)]).indexOf(this.#needle) >= 0;
    }
    if (!long.matched) long.matched = this.#search(part)(0) >= 0;
    long.utf8.push(part);
    long.tail = Buffer.from(part.subarray(Math.max(0, part.length - overlap)));
  }

  /** Hands the window buffer back for the next call. */
  release(): void {
    const buffer = this.#buffer;
    this.#buffer = null;
    if (buffer && buffer.length > (spareBuffer?.length ?? 0)) spareBuffer = buffer;
  }

  /** A buffer of `bytes` whose first `carry` bytes are the window's: this call's, the spare, or a larger one. */
  #bufferFor(bytes: number, carry: number): Buffer {
    if (this.#buffer === null) [this.#buffer, spareBuffer] = [spareBuffer, null];
    const current = this.#buffer;
    if (current !== null && current.length >= bytes) return current;
    let size = MIN_BUFFER_BYTES;
    while (size < bytes) size *= 2;
    this.#buffer = Buffer.allocUnsafe(Math.min(size, this.#windowBytes)); // `bytes` fits: never over a window
    current?.copy(this.#buffer, 0, 0, carry);
    return this.#buffer;
  }

  /** Reports the matching lines of a window (from a line start, line `line`) that start before `last`. */
  #lines(window: Buffer, path: string, base: number, line: number, last: number) {
    let counted = 0; // `line` is the number of the line at `counted`
    const lineAt = (offset: number) => {
      for (let at = indexOf.call(window, NEWLINE, counted); at >= 0 && at < offset;) {
        line++;
        at = indexOf.call(window, NEWLINE, at + 1);
      }
      counted = offset;
      return line;
    };
    const find = this.#search(window);
    for (let match = find(0); match >= 0;) {
      const start = match === 0 ? 0 : lastIndexOf.call(window, NEWLINE, match - 1) + 1;
      if (start >= last) break;
      const newline = indexOf.call(window, NEWLINE, match + this.#needle.length);
      const next = newline < 0 ? window.length : newline + 1;
      const text = lineText(window.subarray(start, newline < 0 ? next : newline), newline >= 0);
      if (text !== null) { // `null`: not UTF-8, skipped whole
        const stop = this.#offer({ path, line: lineAt(start), text }, base + start, base + next);
        if (stop) return { stop, lineAt };
      }
      match = find(next);
    }
    return { stop: null, lineAt };
  }

  /** Takes a found line, at offset `at`, to be followed by `next`; on a full page returns its own position instead. */
  #offer(found: Match, at: number, next: number): Position | null {
    const cost = itemCost(found);
    // A first item that does not fit is taken anyway: fitPage reports it.
    if (this.items.length > 0 && (this.items.length >= this.#maxItems || cost > this.#room)) {
      return { f: found.path, o: at, l: found.line };
    }
    this.items.push(found);
    this.after.push({ f: found.path, o: next, l: found.line + 1 });
    this.#room -= cost;
    return null;
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
  return decodeValid(line.subarray(0, charBoundary(line, MAX_LINE_TEXT_BYTES))); // a prefix of UTF-8
}

/**
 * The walker's data, touching no filesystem: a directory's listing, the validated subtree built from
 * listings, and the entries a listing shows. A listing holds its sort keys (a file's name, or a directory's
 * name and `/`, so sibling order is path order) as NUL-terminated UTF-8 in one buffer off the heap.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { compareBytewise } from "./bytes.ts";
import { Digest } from "./hashing.ts";

const SLASH = 0x2f;
const BEYOND_SURROGATES = /[\ud800-\uffff]/;

/** One read of a directory: its served files and candidate subdirectories, in path order. Immutable. */
export class Listing {
  readonly text: Buffer; // every key's UTF-8 and a NUL
  readonly starts: Uint32Array; // where each key starts in `text`; `text.length` last
  readonly subdirs: readonly string[]; // the candidate subdirectories' names
  readonly subdirAt: readonly number[]; // the key index of each

  /**
   * @param keys Sort keys, in any order (sorted here) unless `text` is given.
   * @param text The keys in path order, each one's UTF-8 and a NUL (`Listing.paced` makes it).
   */
  constructor(keys: string[], text?: Buffer) {
    if (text === undefined) {
      keys.sort(keyOrder(keys));
      text = Buffer.from(keys.length === 0 ? "" : `${keys.join("\0")}\0`, "utf8");
    }
    this.text = text;
    this.starts = new Uint32Array(keys.length + 1);
    for (let at = 0, k = 0; at < this.text.length; at++) if (this.text[at] === 0) this.starts[++k] = at + 1;
    const subdirAt: number[] = [];
    keys.forEach((key, i) => key.endsWith("/") && subdirAt.push(i));
    this.subdirAt = subdirAt;
    this.subdirs = subdirAt.map((i) => keys[i].slice(0, -1));
  }

  /** A big directory's listing, its keys sorted and encoded with pauses (`sortPaced`), `SORT_RUN` at a time. */
  static async paced(keys: string[], pause: () => Promise<unknown>): Promise<Listing> {
    const sorted = await sortPaced(keys, pause);
    const parts: Buffer[] = [];
    for (let at = 0; at < sorted.length; at += SORT_RUN) {
      parts.push(Buffer.from(`${sorted.slice(at, at + SORT_RUN).join("\0")}\0`, "utf8"));
      await pause();
    }
    return new Listing(sorted, Buffer.concat(parts));
  }

  get length(): number {
    return this.starts.length - 1;
  }

  /** How many served files. */
  get files(): number {
    return this.length - this.subdirs.length;
  }

  isDir(i: number): boolean {
    return this.text[this.starts[i + 1] - 2] === SLASH;
  }

  name(i: number): string {
    return this.text.toString("utf8", this.starts[i], this.#nameEnd(i));
  }

  /** Compares the names of keys `i` and `j`, bytewise. */
  compareNames(i: number, j: number): number {
    return this.#compare(this.starts[i], this.#nameEnd(i), this.text, this.starts[j], this.#nameEnd(j));
  }

  keyLength(i: number): number {
    return this.starts[i + 1] - 1 - this.starts[i];
  }

  /** Compares key `i` with `s` from byte `from` on, bytewise. */
  compareKey(i: number, s: Uint8Array, from: number): number {
    return this.#compare(this.starts[i], this.starts[i + 1] - 1, s, from, s.length);
  }

  /** Whether key `i` is a prefix of `s` from byte `from` on. */
  isPrefixOf(i: number, s: Uint8Array, from: number): boolean {
    const length = this.keyLength(i);
    if (from + length > s.length) return false;
    return this.#compare(this.starts[i], this.starts[i] + length, s, from, from + length) === 0;
  }

  /** Whether `key` (a file's name, or a directory's name and `/`) is one of the keys, byte for byte. */
  has(key: string): boolean {
    const bytes = Buffer.from(key, "utf8");
    const i = firstIndex(this.length, (i) => this.compareKey(i, bytes, 0) >= 0);
    return i < this.length && this.compareKey(i, bytes, 0) === 0;
  }

  /** The first key index greater than `s` from byte `from` on. */
  firstAfter(s: Uint8Array, from: number): number {
    return firstIndex(this.length, (i) => this.compareKey(i, s, from) > 0);
  }

  /** The index of the key that holds byte `at`. */
  keyAt(at: number): number {
    return firstIndex(this.length, (i) => this.starts[i] > at) - 1;
  }

  #nameEnd(i: number): number {
    return this.starts[i + 1] - (this.isDir(i) ? 2 : 1);
  }

  /** Compares `text[from..to)` with `s[s0..s1)`, bytewise. */
  #compare(from: number, to: number, s: Uint8Array, s0: number, s1: number): number {
    const { text } = this;
    const n = Math.min(to - from, s1 - s0);
    for (let i = 0; i < n; i++) {
      const d = text[from + i] - s[s0 + i];
      if (d !== 0) return d;
    }
    return to - from - (s1 - s0);
  }
}

/** The sort that puts keys in path order: the default (UTF-16) one unless a surrogate or U+E000.. occurs. */
function keyOrder(keys: readonly string[]): ((a: string, b: string) => number) | undefined {
  return keys.some((k) => BEYOND_SURROGATES.test(k)) ? compareBytewise : undefined;
}

const SORT_RUN = 4_096; // keys sorted at once by `sortPaced` (which merges the runs pairwise), entries hashed

/**
 * Sorts keys into path order, awaiting `pause()` after every `SORT_RUN` keys sorted or merged: runs of
 * `SORT_RUN` keys are sorted, then merged pairwise. A big directory's sort is the longest step of its read
 * (160,000 names: about 130 ms at once).
 */
export async function sortPaced(keys: string[], pause: () => Promise<unknown>): Promise<string[]> {
  let bytewise = false; // `keyOrder`, a run at a time
  for (let i = 0; i < keys.length && !bytewise; i++) {
    bytewise = BEYOND_SURROGATES.test(keys[i]);
    if (i % SORT_RUN === SORT_RUN - 1) await pause();
  }
  const order = bytewise ? compareBytewise : undefined;
  const compare = order ?? ((a: string, b: string) => a < b ? -1 : a > b ? 1 : 0);
  let runs: string[][] = [];
  for (let at = 0; at < keys.length; at += SORT_RUN) {
    runs.push(keys.slice(at, at + SORT_RUN).sort(order));
    await pause();
  }
  while (runs.length > 1) {
    const merged: string[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      merged.push(r + 1 < runs.length ? await merge(runs[r], runs[r + 1], compare, pause) : runs[r]);
    }
    runs = merged;
  }
  return runs[0] ?? [];
}

async function merge(
  a: readonly string[],
  b: readonly string[],
  compare: (a: string, b: string) => number,
  pause: () => Promise<unknown>,
): Promise<string[]> {
  const out = new Array<string>(a.length + b.length);
  for (let o = 0, i = 0, j = 0; o < out.length; o++) {
    out[o] = j === b.length || (i < a.length && compare(a[i], b[j]) <= 0) ? a[i++] : b[j++];
    if (o % SORT_RUN === SORT_RUN - 1) await pause();
  }
  return out;
}

/** A validated subtree: a listing, and per subdirectory its subtree (`null`: gone). Immutable. */
export class Tree {
  readonly listing: Listing;
  readonly children: readonly (Tree | null)[];
  /** Served files in this subtree. */
  readonly count: number;

  constructor(listing: Listing, children: readonly (Tree | null)[]) {
    this.listing = listing;
    this.children = children;
    let count = listing.files;
    for (const child of children) if (child) count += child.count;
    this.count = count;
  }

  /** The served file paths of this subtree, bytewise; `prefix` is its directory's path and `/`, or `""`. */
  *files(prefix: string): Generator<string> {
    const { listing, children } = this;
    for (let i = 0, k = 0; i < listing.length; i++) {
      const child = listing.isDir(i) ? children[k++] : undefined; // a file's is undefined, a gone directory's null
      if (child === undefined) yield prefix + listing.name(i);
      else if (child?.count) yield* child.files(`${prefix}${listing.name(i)}/`);
    }
  }
}

/** The entries `list_directory` shows: a listing's files and served subdirectories, by name, bytewise. */
export class ServedEntries {
  readonly #listing: Listing;
  readonly #order: Uint32Array;
  #state: string | undefined;

  /** @param order The indexes of the keys shown, in name order. */
  constructor(listing: Listing, order: Uint32Array) {
    this.#listing = listing;
    this.#order = order;
  }

  /** How many entries. */
  get length(): number {
    return this.#order.length;
  }

  /** The name of entry `i`. */
  name(i: number): string {
    return this.#listing.name(this.#order[i]);
  }

  /** Whether entry `i` is a directory. */
  isDir(i: number): boolean {
    return this.#listing.isDir(this.#order[i]);
  }

  /** The digest a `list_directory` cursor binds: `<kind>\t<name>` and a NUL per entry (a name may hold `\n`). */
  get state(): string {
    if (this.#state === undefined) { for (const _ of this.#hashRuns()); }
    return this.#state!;
  }

  /** Computes `state` ahead, pausing between runs of entries: 160,000 names take 30–80 ms. */
  async settle(pause: () => Promise<unknown>): Promise<void> {
    if (this.#state === undefined) { for (const _ of this.#hashRuns()) await pause(); }
  }

  /** Hashes the lines `SORT_RUN` entries at a time, yielding after each run, and sets `#state`. */
  *#hashRuns(): Generator<void> {
    const digest = new Digest();
    for (let from = 0; from < this.length; from += SORT_RUN) {
      let lines = "";
      for (let i = from; i < Math.min(from + SORT_RUN, this.length); i++) {
        lines += `${this.isDir(i) ? "directory" : "file"}\t${this.name(i)}\0`;
      }
      digest.text(lines);
      yield;
    }
    this.#state ??= digest.hex();
  }
}

/** The first index below `n` where the monotone `pred` holds (`n` when none): a binary search. */
export function firstIndex(n: number, pred: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

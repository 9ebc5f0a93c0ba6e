/**
 * The walker. It lists served files in bytewise path order, deciding from
 * names alone: a directory that an exclude covers, or that no include can
 * reach, is pruned before anything inside it is statted or opened; links and
 * special files are skipped, never followed; depth is bounded.
 *
 * Each directory's filtered listing is cached under the directory's identity
 * (inode, size, mtime, ctime). Every call revalidates each directory it
 * visits with one no-follow lstat, so results are live while an unchanged
 * tree is not re-read. A listing read within `RACY_MARGIN_MS` of the
 * directory's last change (the later of ctime and mtime) is not trusted (a
 * change in the same timestamp tick would be invisible), and is read again
 * next time.
 *
 * @module
 */
import { compareBytewise } from "./bytes.ts";
import { joinRelative } from "./paths.ts";
import type { Selector } from "./selector.ts";
import type { FileInfo, FsPort } from "./ports/fs_port.ts";
import { isTempName } from "./temp_names.ts";

/** Listings younger than this (relative to the directory's ctime) are re-read. */
export const RACY_MARGIN_MS = 50;

/** How often a directory is read when it keeps changing during the read. */
const SETTLED_READ_ATTEMPTS = 3;

/** The most names the cache holds before it starts over. */
export const MAX_CACHED_NAMES = 2_000_000;

/** A directory's served contents, sorted in bytewise path order. */
export interface Listing {
  /** Served regular files and candidate subdirectories, names only. */
  readonly entries: readonly { readonly name: string; readonly dir: boolean }[];
}

interface CacheEntry {
  readonly identity: string;
  readonly trusted: boolean;
  readonly listing: Listing;
}

function identityOf(info: FileInfo): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** Sort key that makes sibling order equal full-path bytewise order. */
function sortKey(entry: { name: string; dir: boolean }): string {
  return entry.dir ? `${entry.name}/` : entry.name;
}

/** The served-file inventory of one root. */
export class Inventory {
  readonly #fs: FsPort;
  readonly #root: string;
  readonly #selector: Selector;
  readonly #maxDepth: number;
  readonly #cache = new Map<string, CacheEntry>();
  #cachedNames = 0;

  /**
   * @param fs The port.
   * @param root The pinned root's real path.
   * @param selector What is served.
   * @param maxDepth How many directory levels below the root are walked.
   */
  constructor(fs: FsPort, root: string, selector: Selector, maxDepth: number) {
    this.#fs = fs;
    this.#root = root;
    this.#selector = selector;
    this.#maxDepth = maxDepth;
  }

  /** The absolute host path of a relative path. */
  abs(rel: string): string {
    return rel === "" ? this.#root : `${this.#root}/${rel}`;
  }

  /**
   * The served listing of a directory, or `null` when it is not a real
   * directory the selection can reach (missing, a link, a file, pruned).
   */
  listing(dir: string): Listing | null {
    const depth = dir === "" ? 0 : dir.split("/").length;
    if (depth > this.#maxDepth) return null;
    if (dir !== "" && !this.#selector.mayContain(dir)) return null;
    const now = Date.now();
    const info = this.#fs.lstat(this.abs(dir));
    if (info === null || info.kind !== "directory") return null;
    const identity = identityOf(info);
    const cached = this.#cache.get(dir);
    if (cached && cached.trusted && cached.identity === identity) return cached.listing;
    const listing = this.#readSettled(dir, depth, info);
    if (listing === null) return null;
    // The later of ctime and mtime: Deno reports ctime in whole seconds, mtime in milliseconds.
    const changedNs = info.ctimeNs > info.mtimeNs ? info.ctimeNs : info.mtimeNs;
    const trusted = Number(changedNs / 1_000_000n) + RACY_MARGIN_MS < now;
    this.#remember(dir, { identity, trusted, listing });
    return listing;
  }

  /**
   * Reads a directory and checks that it is still the same directory after
   * the read: a directory swapped for a link while it was read listed the
   * link's target. A swap and back restores the inode but not the ctime, so
   * an unsettled read (any change of identity) is read again, a few times.
   */
  #readSettled(dir: string, depth: number, before: FileInfo): Listing | null {
    for (let attempt = 1;; attempt++) {
      const listing = this.#read(dir, depth);
      const after = this.#fs.lstat(this.abs(dir));
      if (after === null || after.ino !== before.ino || after.dev !== before.dev) return null;
      if (identityOf(after) === identityOf(before) || attempt >= SETTLED_READ_ATTEMPTS) return listing;
      before = after;
    }
  }

  #read(dir: string, depth: number): Listing {
    const entries: { name: string; dir: boolean }[] = [];
    for (const { name, kind: reported } of this.#fs.readDir(this.abs(dir))) {
      if (isTempName(name)) continue;
      const path = joinRelative(dir, name);
      const wantFile = this.#selector.isServed(path);
      const wantDir = depth < this.#maxDepth && this.#selector.mayContain(path);
      if (!wantFile && !wantDir) continue; // decided from the name: never statted
      let kind = reported;
      if (kind === "unknown") kind = this.#fs.lstat(this.abs(path))?.kind ?? "other";
      if (kind === "file" && wantFile) entries.push({ name, dir: false });
      else if (kind === "directory" && wantDir) entries.push({ name, dir: true });
    }
    entries.sort((a, b) => compareBytewise(sortKey(a), sortKey(b)));
    return { entries };
  }

  #remember(dir: string, entry: CacheEntry): void {
    const previous = this.#cache.get(dir);
    if (previous) this.#cachedNames -= previous.listing.entries.length;
    if (this.#cachedNames + entry.listing.entries.length > MAX_CACHED_NAMES) {
      this.#cache.clear();
      this.#cachedNames = 0;
    }
    this.#cache.set(dir, entry);
    this.#cachedNames += entry.listing.entries.length;
  }

  /** Served file paths at or below `dir`, in bytewise order. */
  *files(dir: string): Generator<string> {
    const listing = this.listing(dir);
    if (listing === null) return;
    for (const entry of listing.entries) {
      const path = joinRelative(dir, entry.name);
      if (entry.dir) yield* this.files(path);
      else yield path;
    }
  }

  /** Whether anything at or below `dir` is served (stops at the first file). */
  hasServed(dir: string): boolean {
    for (const _ of this.files(dir)) return true;
    return false;
  }
}

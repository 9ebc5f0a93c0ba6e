/**
 * The walker. It lists served files in bytewise path order, deciding from
 * names alone: a directory that an exclude covers, or that no include can
 * reach, is pruned before anything inside it is statted or opened; links and
 * special files are skipped, never followed; depth is bounded; a directory
 * that cannot be read serves nothing.
 *
 * Each directory's filtered listing is cached under the directory's identity
 * (inode, size, mtime, ctime). Every call revalidates each directory it
 * relies on with one no-follow lstat, so results are live while an unchanged
 * tree is not re-read. A listing read within `RACY_MARGIN_MS` of the
 * directory's last change (the later of its ctime and mtime) is not trusted
 * (a change in the same timestamp tick would be invisible), and is read
 * again next time.
 *
 * Work per call is per directory, not per file: a validated subtree (a
 * `Tree` of listings) is reused whole, with its served-file count and its
 * digest, while no directory in it changed; a search skips what lies before
 * its position by binary search; "is anything served below?" is answered by
 * a directory's own files, or first by the subdirectory that answered last
 * time.
 *
 * @module
 */
import { joinRelative } from "./paths.ts";
import { EMPTY_DIGEST, Listing, sortKeys, Tree } from "./listing.ts";
import { Search } from "./path_search.ts";
import type { Selector } from "./selector.ts";
import { type EntryKind, type FileInfo, FsError, type FsPort } from "./ports/fs_port.ts";
import { sameIdentity } from "./identity.ts";
import { Digest } from "./hashing.ts";
import { isTempName } from "./temp_names.ts";

/** A listing read within this of its directory's last change (the later of ctime and mtime) is read again. */
export const RACY_MARGIN_MS = 50;

/** How often a directory is read when it keeps changing during the read. */
const SETTLED_READ_ATTEMPTS = 3;

/** The most names the cache holds before it starts over. */
export const MAX_CACHED_NAMES = 2_000_000;

/**
 * The served entries of a directory, as `list_directory` shows them: served
 * files and the subdirectories with something served below, by name,
 * bytewise.
 */
export interface ServedEntries {
  /** How many entries. */
  readonly length: number;
  /** The name of entry `i`. */
  name(i: number): string;
  /** Whether entry `i` is a directory. */
  isDir(i: number): boolean;
  /** A digest of the names and kinds (one line `<kind>\t<name>\n` each): a `list_directory` cursor binds it. */
  readonly state: string;
}

/** What `find` returns: one page of matches and the state it depends on. */
export interface Found {
  /** Matching served paths after the position, in bytewise order. */
  readonly paths: string[];
  /** Whether more matches follow. */
  readonly more: boolean;
  /** Digest of the set of served paths of the whole root. */
  readonly state: string;
}

/** A directory in the cache: its listing, the identity it was read under, and what was derived from it. */
interface CachedDir {
  /** The directory's absolute host path. */
  readonly abs: string;
  info: FileInfo;
  trusted: boolean;
  readonly listing: Listing;
  /** The last validated subtree of this listing. */
  tree?: Tree;
  /** The subdirectory (index into `listing.subdirs`) that last had something served below it. */
  hint: number;
  /** The relative paths of the listing's subdirectories, made once. */
  subdirPaths?: readonly string[];
  /** The last entries shown, and which subdirectories they showed. */
  shown?: { value: ServedEntries; served: Uint8Array };
}

/** A listing's entries in name order, some subdirectories left out. */
class ShownEntries implements ServedEntries {
  readonly #listing: Listing;
  readonly #order: Uint32Array;
  #state: string | undefined;

  constructor(listing: Listing, order: Uint32Array) {
    this.#listing = listing;
    this.#order = order;
  }

  get length(): number {
    return this.#order.length;
  }

  name(i: number): string {
    return this.#listing.name(this.#order[i]);
  }

  isDir(i: number): boolean {
    return this.#listing.isDir(this.#order[i]);
  }

  get state(): string {
    if (this.#state === undefined) {
      let lines = "";
      for (let i = 0; i < this.length; i++) {
        lines += `${this.isDir(i) ? "directory" : "file"}\t${this.name(i)}\n`;
      }
      this.#state = new Digest().text(lines).hex();
    }
    return this.#state;
  }
}

/** The relative path of subdirectory `k` of a directory's listing. */
function subdirPath(dir: string, entry: CachedDir, k: number): string {
  entry.subdirPaths ??= entry.listing.subdirs.map((name) => joinRelative(dir, name));
  return entry.subdirPaths[k];
}

function depthOf(dir: string): number {
  if (dir === "") return 0;
  let depth = 1;
  for (let i = dir.indexOf("/"); i >= 0; i = dir.indexOf("/", i + 1)) depth++;
  return depth;
}

/** The served-file inventory of one root. */
export class Inventory {
  readonly #fs: FsPort;
  readonly #root: string;
  readonly #selector: Selector;
  readonly #maxDepth: number;
  readonly #cache = new Map<string, CachedDir>();
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

  #abs(rel: string): string {
    return rel === "" ? this.#root : `${this.#root}/${rel}`;
  }

  /**
   * The served entries of a directory, or `null` when it is not a real
   * directory the selection can reach (missing, a link, a file, pruned). The
   * same object comes back while nothing it shows changed. Throws `FsError`
   * when the directory itself cannot be read; so do the other queries below.
   */
  entries(dir: string): ServedEntries | null {
    const depth = depthOf(dir);
    const entry = this.#entry(dir, depth, false);
    if (entry === null) return null;
    const { listing } = entry;
    const served = new Uint8Array(listing.subdirs.length);
    for (let k = 0; k < served.length; k++) {
      served[k] = this.#serves(subdirPath(dir, entry, k), depth + 1, true) ? 1 : 0;
    }
    if (entry.shown && entry.shown.served.every((s, k) => s === served[k])) return entry.shown.value;
    const order: number[] = [];
    for (let i = 0, k = 0; i < listing.length; i++) if (!listing.isDir(i) || served[k++]) order.push(i);
    order.sort((i, j) => listing.compareNames(i, j));
    const value = new ShownEntries(listing, Uint32Array.from(order));
    entry.shown = { value, served };
    return value;
  }

  /** Whether anything at or below `dir` is served (stops at the first file). */
  hasServed(dir: string): boolean {
    return this.#serves(dir, depthOf(dir), false);
  }

  /**
   * Up to `max` served paths containing `query`, after `after` in bytewise
   * order, with the digest of the whole root's served-path set. Every
   * directory is revalidated; only the part after `after` is searched, and
   * only until one match past `max`.
   */
  find(query: string, after: string | undefined, max: number): Found {
    const tree = this.#tree("", 0, false);
    if (tree === null) return { paths: [], more: false, state: EMPTY_DIGEST };
    const { paths, more } = new Search(query, max).run(tree, after);
    return { paths, more, state: tree.digest };
  }

  /** Served file paths at or below `dir`, in bytewise order. */
  *files(dir: string): Generator<string> {
    const tree = this.#tree(dir, depthOf(dir), false);
    if (tree === null) return;
    const stack = [{ tree, prefix: dir === "" ? "" : `${dir}/`, i: 0, k: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const { listing, children } = top.tree;
      if (top.i === listing.length) {
        stack.pop();
        continue;
      }
      const i = top.i++;
      if (!listing.isDir(i)) {
        yield top.prefix + listing.name(i);
        continue;
      }
      const child = children[top.k];
      if (child?.count) {
        stack.push({ tree: child, prefix: `${top.prefix}${listing.subdirs[top.k]}/`, i: 0, k: 0 });
      }
      top.k++;
    }
  }

  /**
   * The validated cache entry of a directory, or `null`. `checked`: the
   * selector and the depth bound already admitted it (it is a listed
   * subdirectory). A listed subdirectory that cannot be read (permissions)
   * serves nothing, so the walk skips it; the directory a call names
   * throws the `FsError` instead, for the call to report.
   */
  #entry(dir: string, depth: number, checked: boolean): CachedDir | null {
    const cached = this.#cache.get(dir);
    if (!checked && cached === undefined) {
      if (depth > this.#maxDepth) return null;
      if (dir !== "" && !this.#selector.mayContain(dir)) return null;
    }
    try {
      return this.#validate(dir, depth, cached);
    } catch (error) {
      if (!(error instanceof FsError)) throw error;
      if (cached) this.#forget(dir, cached);
      // Removed or replaced while it was read: gone, like a directory the lstat did not find.
      if (error.code === "not_found" || error.code === "not_directory") return null;
      if (checked) return null;
      throw error;
    }
  }

  /** `#entry` once admitted: revalidates the cached listing, or reads the directory. */
  #validate(dir: string, depth: number, cached: CachedDir | undefined): CachedDir | null {
    const now = Date.now();
    const abs = cached?.abs ?? this.#abs(dir);
    const info = this.#fs.lstat(abs);
    if (info === null || info.kind !== "directory") {
      if (cached) this.#forget(dir, cached);
      return null;
    }
    if (cached && cached.trusted && sameIdentity(cached.info, info)) return cached;
    const listing = this.#readSettled(dir, depth, info);
    if (listing === null) return null;
    // The later of ctime and mtime: Deno reports ctime in whole seconds, mtime in milliseconds.
    const changedNs = info.ctimeNs > info.mtimeNs ? info.ctimeNs : info.mtimeNs;
    const trusted = Number(changedNs / 1_000_000n) + RACY_MARGIN_MS < now;
    if (cached && cached.listing.equals(listing)) {
      // Read again and found the same: keep the entry and what was derived from it.
      cached.info = info;
      cached.trusted = trusted;
      return cached;
    }
    const entry: CachedDir = { abs, info, trusted, listing, hint: 0 };
    this.#remember(dir, entry);
    return entry;
  }

  /** Validates every directory of a subtree; unchanged parts come back as the same objects. */
  #tree(dir: string, depth: number, checked: boolean): Tree | null {
    const entry = this.#entry(dir, depth, checked);
    if (entry === null) return null;
    const { listing, tree: old } = entry;
    const { subdirs } = listing;
    let fresh: (Tree | null)[] | undefined;
    for (let k = 0; k < subdirs.length; k++) {
      const child = this.#tree(subdirPath(dir, entry, k), depth + 1, true);
      if (fresh) fresh[k] = child;
      else if (old === undefined || old.children[k] !== child) {
        fresh = old ? old.children.slice() : new Array<Tree | null>(subdirs.length).fill(null);
        fresh[k] = child;
      }
    }
    if (old && !fresh) return old;
    return entry.tree = new Tree(listing, fresh ?? []);
  }

  /** Whether something is served below a directory; asks the subdirectory that answered last time first. */
  #serves(dir: string, depth: number, checked: boolean): boolean {
    const entry = this.#entry(dir, depth, checked);
    if (entry === null) return false;
    const { subdirs } = entry.listing;
    if (entry.listing.files > 0) return true;
    for (let j = 0; j < subdirs.length; j++) {
      const k = (entry.hint + j) % subdirs.length;
      if (this.#serves(subdirPath(dir, entry, k), depth + 1, true)) {
        entry.hint = k;
        return true;
      }
    }
    return false;
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
      const after = this.#fs.lstat(this.#abs(dir));
      if (after === null || after.ino !== before.ino || after.dev !== before.dev) return null;
      if (sameIdentity(after, before) || attempt >= SETTLED_READ_ATTEMPTS) return listing;
      before = after;
    }
  }

  /** The listing of a directory's served files and candidate subdirectories. */
  #read(dir: string, depth: number): Listing {
    const keys: string[] = [];
    const dirsAllowed = depth < this.#maxDepth;
    for (const { name, kind: reported } of this.#fs.readDir(this.#abs(dir))) {
      if (isTempName(name) || reported === "symlink" || reported === "other") continue;
      const path = joinRelative(dir, name);
      // Decided from the name: an entry that could be neither is never statted.
      const wantFile = reported !== "directory" && this.#selector.isServed(path);
      const wantDir = reported !== "file" && dirsAllowed && this.#selector.mayContain(path);
      if (!wantFile && !wantDir) continue;
      let kind: EntryKind = reported;
      if (kind === "unknown") kind = this.#fs.lstat(this.#abs(path))?.kind ?? "other";
      if (kind === "file" && wantFile) keys.push(name);
      else if (kind === "directory" && wantDir) keys.push(`${name}/`);
    }
    sortKeys(keys);
    return new Listing(keys);
  }

  #remember(dir: string, entry: CachedDir): void {
    const previous = this.#cache.get(dir);
    if (previous) this.#cachedNames -= previous.listing.length;
    if (this.#cachedNames + entry.listing.length > MAX_CACHED_NAMES) {
      this.#cache.clear();
      this.#cachedNames = 0;
    }
    this.#cache.set(dir, entry);
    this.#cachedNames += entry.listing.length;
  }

  #forget(dir: string, entry: CachedDir): void {
    this.#cache.delete(dir);
    this.#cachedNames -= entry.listing.length;
  }
}

/**
 * The walker: served files in bytewise path order, decided from names alone.
 * A directory an exclude covers, or no include can reach, is pruned before
 * anything inside it is statted; links and special files are skipped, never
 * followed; depth is bounded; a directory that cannot be read serves nothing.
 *
 * Each directory's listing is cached under the directory's identity and
 * revalidated by one no-follow lstat per call, so results are live while an
 * unchanged tree is not re-read. A listing read within `RACY_MARGIN_MS` of
 * the directory's last change (the later of its ctime and mtime) is read
 * again next time: a change in the same timestamp tick would be invisible.
 * Work per call is per directory, not per file: a validated subtree (`Tree`)
 * is reused whole, with its count and digest, while nothing in it changed.
 *
 * @module
 */
import { joinRelative } from "./paths.ts";
import { EMPTY_DIGEST, Listing, ServedEntries, sortKeys, Tree } from "./listing.ts";
import { Search } from "./path_search.ts";
import type { Selector } from "./selector.ts";
import { type EntryKind, type FileInfo, FsError, type FsPort } from "./ports/fs_port.ts";
import { sameIdentity } from "./identity.ts";
import { ROOT_MOVED_MESSAGE, ToolError } from "./errors.ts";
import { isTempName } from "./temp_names.ts";

const RACY_MARGIN_MS = 50;
const SETTLED_READ_ATTEMPTS = 3; // reads of a directory that keeps changing while it is read
const MAX_CACHED_NAMES = 2_000_000; // then the cache starts over

/** A page of `search_files`: matching paths, whether more follow, and the digest of the root's served paths. */
export interface Found {
  readonly paths: string[];
  readonly more: boolean;
  readonly state: string;
}

/** A cached directory: its listing, the identity it was read under, and what was derived from it. */
interface CachedDir {
  readonly abs: string;
  info: FileInfo;
  trusted: boolean; // read long enough after its last change
  readonly listing: Listing;
  tree?: Tree; // the last validated subtree
  hint: number; // the subdirectory that last had something served below it
  subdirPaths?: readonly string[];
  shown?: { value: ServedEntries; served: Uint8Array }; // the last entries shown, and which subdirectories
}

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
  readonly #pin: FileInfo | undefined; // the root's identity at start: every walk starts from it
  readonly #cache = new Map<string, CachedDir>();
  #cachedNames = 0;

  /** @param root The pinned root's real path. */
  constructor(fs: FsPort, root: string, selector: Selector, maxDepth: number, pin?: FileInfo) {
    this.#fs = fs;
    this.#root = root;
    this.#pin = pin;
    this.#selector = selector;
    this.#maxDepth = maxDepth;
  }

  #abs(rel: string): string {
    return rel === "" ? this.#root : `${this.#root}/${rel}`;
  }

  /**
   * The served entries of a directory (the same object while nothing it
   * shows changed), or `null` when it is not a real directory the selection
   * reaches. This and the queries below throw `FsError` when the directory
   * itself cannot be read.
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
    const value = new ServedEntries(listing, Uint32Array.from(order));
    entry.shown = { value, served };
    return value;
  }

  /** Whether anything at or below `dir` is served (stops at the first file). */
  hasServed(dir: string): boolean {
    return this.#serves(dir, depthOf(dir), false);
  }

  /**
   * Up to `max` served paths containing `query` after `after`, bytewise, and
   * the digest of the root's served paths: every directory is revalidated,
   * but only the part after `after` searched, until one match past `max`.
   */
  find(query: string, after: string | undefined, max: number): Found {
    const tree = this.#tree("", 0, false);
    if (tree === null) return { paths: [], more: false, state: EMPTY_DIGEST };
    const { paths, more } = new Search(query, max).run(tree, after);
    return { paths, more, state: tree.digest };
  }

  /**
   * Whether `rel` is a served file: listed, byte for byte, by its directory,
   * which its own directory lists, up to the root. A name is served only as
   * the directory spells it, so on a filesystem that folds case or Unicode
   * forms, `TOP.KEY` never reaches an excluded `top.key`.
   */
  isFile(rel: string): boolean {
    const slash = rel.lastIndexOf("/");
    const dir = slash < 0 ? "" : rel.slice(0, slash);
    return this.#entry(dir, depthOf(dir), false)?.listing.has(rel.slice(slash + 1)) ?? false;
  }

  /** Served file paths at or below `dir`, in bytewise order. */
  *files(dir: string): Generator<string> {
    yield* this.#tree(dir, depthOf(dir), false)?.files(dir === "" ? "" : `${dir}/`) ?? [];
  }

  /**
   * The validated cache entry of a directory, or `null`. `checked`: it is a
   * listed subdirectory, reached by a walk; one that cannot be read serves
   * nothing. A directory a call names must be listed by its parent, byte for
   * byte (see `isFile`), and throws for the call to report when it cannot
   * be read.
   */
  #entry(dir: string, depth: number, checked: boolean): CachedDir | null {
    const cached = this.#cache.get(dir);
    if (!checked && dir !== "") {
      if (cached === undefined && (depth > this.#maxDepth || !this.#selector.mayContain(dir))) return null;
      const slash = dir.lastIndexOf("/");
      const parent = this.#entry(slash < 0 ? "" : dir.slice(0, slash), depth - 1, false);
      if (!parent?.listing.has(`${dir.slice(slash + 1)}/`)) return null;
    }
    try {
      return this.#validate(dir, depth, cached);
    } catch (error) {
      if (!(error instanceof FsError)) throw error;
      if (cached) this.#forget(dir, cached);
      // Removed or replaced while it was read: gone, like a directory the lstat did not find.
      if (checked || error.code === "not_found" || error.code === "not_directory") return null;
      throw error;
    }
  }

  #validate(dir: string, depth: number, cached: CachedDir | undefined): CachedDir | null {
    const now = Date.now();
    const abs = cached?.abs ?? this.#abs(dir);
    const info = this.#fs.lstat(abs);
    // The root path must still name the pinned root: a walk never starts from a directory swapped in.
    if (
      dir === "" && this.#pin &&
      (info?.kind !== "directory" || info.ino !== this.#pin.ino || info.dev !== this.#pin.dev)
    ) {
      throw new ToolError(ROOT_MOVED_MESSAGE);
    }
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

  /** Whether something is served below a directory, asking first the subdirectory that answered last time. */
  #serves(dir: string, depth: number, checked: boolean): boolean {
    const entry = this.#entry(dir, depth, checked);
    if (entry === null) return false;
    if (entry.listing.files > 0) return true;
    const { subdirs } = entry.listing;
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
   * Reads a directory and checks it is still the same one after: a directory
   * swapped for a link while it was read listed the link's target. A swap and
   * back restores the inode but not the ctime, so an unsettled read (any
   * change of identity) is read again, a few times.
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

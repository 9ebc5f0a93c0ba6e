/**
 * `openRoot` pins the root by its real path and identity; a `Root` gives the tools their verbs on relative
 * paths and finds what is served from a cache of directory listings, each revalidated by one no-follow lstat
 * per call. Over 250 lines: the verbs and the walker are one class, sharing the pin, the cache and the reads
 * under way.
 *
 * @module
 */
import { resolve } from "node:path";
import { ConfigError, ROOT_MOVED_MESSAGE, ToolError } from "./errors.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { createSelector, type Selector } from "./selector.ts";
import type {
  DirectoryHold,
  DirEntry,
  EntryKind,
  FileHandle,
  FileInfo,
  FsPort,
  RootAnchor,
} from "./ports/fs_port.ts";
import { DIR_BATCH, FsError } from "./ports/fs_port.ts";
import { depthOf, joinRelative, nameableIn, parentOf, roomBelow } from "./paths.ts";
import { Listing, ServedEntries, Tree } from "./listing.ts";
import { type Found, Search } from "./path_search.ts";
import { type SearchMethod, searchMethodFor } from "./search/find_bytes.ts";
import { sameIdentity } from "./identity.ts";
import { isTempName } from "./temp_names.ts";
import type { Pacer } from "./pacing.ts";

const RACY_MARGIN_MS = 50; // a listing read this soon after its directory changed is read again next time
const SETTLED_READ_ATTEMPTS = 3; // reads of a directory that keeps changing while it is read
const MAX_CACHED_NAMES = 2_000_000; // then the cache starts over
/**
 * A directory at least this big (its `st_size`: about 2,000 names on ext4) is read by `walkPaced` in
 * batches, pausing between them, and so are its filtering and sort: 160,000 names held input for 0.6 s.
 */
export const PACED_READ_BYTES = 64 * 1024;
const NO_TREE = new Tree(new Listing([]), []);

/** The directories a `walkPaced` pass validated, by path: its walk trusts them without a system call. */
type Fresh = Map<string, CachedDir>;

/** A cached directory: its listing, the identity it was read under, and what was derived from it. */
interface CachedDir {
  info: FileInfo;
  trusted: boolean; // read long enough after its last change
  readonly listing: Listing;
  tree?: Tree; // the last validated subtree
  hint: number; // the subdirectory that last had something served below it
  subdirPaths?: readonly string[];
  shown?: { value: ServedEntries; served: boolean[] }; // the last entries shown, and which subdirectories
}

/** A directory's identity as lstatted (`info`) just before a read, and when (`now`, `Date.now()`). */
interface Seen {
  readonly info: FileInfo;
  readonly now: number;
}

/** A cache lookup: the entry still valid (`null`: no directory there), or the directory to read again. */
type Lookup = { readonly valid: CachedDir | null } | { readonly stale: Seen };

/**
 * A read's listing and the identity it was read under (`null`: the directory went meanwhile); `unproven`: it
 * may have gone through a directory swapped meanwhile, so it serves this call only and is never trusted.
 */
type Read = { readonly listing: Listing; readonly seen: Seen; readonly unproven?: boolean } | null;

/** Whether an lstat still shows the directory `info` describes: the same inode, changed or not. */
function sameDirectory(now: FileInfo | null, info: FileInfo): now is FileInfo {
  return now?.kind === "directory" && now.ino === info.ino && now.dev === info.dev;
}

/** The last instant a ctime stands for: Deno reports whole seconds, so one on a second may be any of it. */
function ctimeEndNs(info: FileInfo): bigint {
  return info.ctimeNs % 1_000_000_000n === 0n ? info.ctimeNs + 999_999_999n : info.ctimeNs;
}

/**
 * How long until `#stampsAbove`'s `stamps` prove a read (see `#provableStampsAbove`): 0 if they do now,
 * `Infinity` if waiting would not help (a directory gone, an mtime set ahead within its ctime's second).
 */
function unprovableFor(stamps: readonly (FileInfo | null)[], now: number): number {
  let waitMs = 0;
  for (const info of stamps) {
    if (info === null) return Infinity;
    const settledAt = Number(info.mtimeNs / 1_000_000n) + RACY_MARGIN_MS + 1;
    const setAhead = info.mtimeNs > ctimeEndNs(info) + BigInt(RACY_MARGIN_MS) * 1_000_000n;
    if (settledAt <= now || setAhead) continue;
    waitMs = settledAt > now + RACY_MARGIN_MS + 1 ? Infinity : Math.max(waitMs, settledAt - now);
  }
  return waitMs;
}

/** Whether two `#stampsAbove` lists show the same directories, no entry of theirs changed. */
function sameStamps(a: readonly (FileInfo | null)[], b: readonly (FileInfo | null)[]): boolean {
  return a.length === b.length && a.every((info, i) => {
    const now = b[i];
    return info !== null && sameDirectory(now, info) && now.mtimeNs === info.mtimeNs &&
      now.ctimeNs === info.ctimeNs;
  });
}

/**
 * Whether a failure to look at or read a directory is left for the walk to meet, the directory then serving
 * nothing unless the call names it: every one but running out of descriptors, which fails the call, so that
 * no answer silently leaves out what could not be read.
 */
function leftToTheWalk(error: unknown): error is FsError {
  return error instanceof FsError && error.code !== "busy";
}

/**
 * Whether a port refused to read a directory because its path leads elsewhere now: to another directory, or
 * through a link or a file on the way (a port that proves its reads says `changed` or `not_directory`).
 */
function leadsElsewhere(error: unknown): boolean {
  return error instanceof FsError && (error.code === "changed" || error.code === "not_directory");
}

/** Drops `dir` (when one is given) and every directory below it from `fresh`; returns whether it did. */
function dropReplaced(fresh: Fresh, dir: string | undefined): boolean {
  if (dir === undefined) return false;
  for (const path of fresh.keys()) if (path === dir || path.startsWith(`${dir}/`)) fresh.delete(path);
  return true;
}

/** What `openRoot` accepts. */
export interface RootOptions {
  /** The directory to serve, resolved against the working directory. */
  root: string;
  /** Globs that select served paths; at least one (`["**"]` serves every file). */
  include: readonly string[];
  /** Globs that narrow the selection. */
  exclude?: readonly string[];
  /** Limits to change; the rest keep `DEFAULT_LIMITS`. */
  limits?: Partial<Limits>;
  /** The filesystem port; the entry point you imported supplies its runtime's. */
  fs?: FsPort;
}

// Closes a root's directory descriptor once nothing uses the root any more (a host may open many).
const released = new FinalizationRegistry<DirectoryHold>((hold) => hold.close());

/** An opened, pinned root. Open one with `openRoot`; hand it to `createServer`. */
export class Root {
  /** The root's real absolute path. Never shown to a client. */
  readonly path: string;
  /** The include globs, as given. */
  readonly include: readonly string[];
  /** The exclude globs, as given. */
  readonly exclude: readonly string[];
  /** What is served, decided from relative paths alone. */
  readonly selector: Selector;
  /** The effective limits. */
  readonly limits: Limits;
  /** The filesystem port. */
  readonly fs: FsPort;
  /**
   * The longest relative path served, in UTF-8 bytes: `limits.maxPathBytes`, or less where the root's own
   * path leaves less of `SYSTEM_PATH_BYTES` (the root's path, a `/` and the relative path, with a NUL).
   */
  readonly servedPathBytes: number;
  readonly #pin: FileInfo;
  readonly #anchor: RootAnchor; // what the port opens every directory and file below: the pinned root
  readonly #byteSearch: SearchMethod; // the one the port runs fast, for path searches
  readonly #cache = new Map<string, CachedDir>();
  #cachedNames = 0;
  #fresh: Fresh | null = null; // while a `walkPaced` walk runs: the directories it validated
  #unchanged: Set<string> | null = null; // during that walk (which cannot pause): those checked since
  #accepted: ReadonlyMap<string, unknown> | null = null; // during `accepting`: what its call validated
  readonly #reading = new Map<string, Promise<CachedDir | null>>(); // big directories being read, with pauses

  /** @ignore Use `openRoot`. */
  constructor(
    fs: FsPort,
    path: string,
    pin: FileInfo,
    options: RootOptions,
    selector: Selector,
    limits: Limits,
  ) {
    this.fs = fs;
    this.path = path;
    this.#pin = pin;
    this.#anchor = { root: path, rootInfo: pin };
    this.#byteSearch = searchMethodFor(fs);
    this.include = Object.freeze([...options.include]);
    this.exclude = Object.freeze([...(options.exclude ?? [])]);
    this.selector = selector;
    this.limits = limits;
    this.servedPathBytes = Math.min(limits.maxPathBytes, roomBelow(path));
  }

  /** Throws `ToolError` when the root path no longer names the pinned directory, `FsError` when it cannot be looked at. */
  checkPin(): void {
    this.#assertPinned(this.fs.lstat(this.path));
  }

  /** No-follow lstat of a relative path (`""`: the root); `null` when nothing is there. */
  lstat(rel: string): FileInfo | null {
    return this.fs.lstat(this.#abs(rel));
  }

  /** Opens a regular file for reading, never through a link at its last component. */
  openRead(rel: string): FileHandle {
    return this.fs.openRead(this.#abs(rel), this.#anchor);
  }

  /** Creates a new file exclusively, `mode` set through the descriptor. */
  createExclusive(rel: string, mode?: number): FileHandle {
    return this.fs.createExclusive(this.#abs(rel), mode, this.#anchor);
  }

  /** Renames `from` over `to`, both relative. */
  rename(from: string, to: string): void {
    this.fs.rename(this.#abs(from), this.#abs(to));
  }

  /** Removes a file. */
  remove(rel: string): void {
    this.fs.remove(this.#abs(rel));
  }

  /**
   * The served entries of a directory (the same object while they stay the same), or `null` when it is none
   * the selection reaches. This and the queries below throw `FsError` when `dir` cannot be read.
   * @internal
   */
  entries(dir: string): ServedEntries | null {
    const entry = this.#entry(dir, false);
    if (entry === null) return null;
    const { listing } = entry;
    const served = listing.subdirs.map((_, k) => this.#serves(this.#subdir(dir, entry, k), true));
    if (entry.shown && entry.shown.served.every((s, k) => s === served[k])) return entry.shown.value;
    const order: number[] = [];
    for (let i = 0, k = 0; i < listing.length; i++) if (!listing.isDir(i) || served[k++]) order.push(i);
    // Keys are in path order, where `a/` follows `a.txt`; without a directory, that is name order already.
    if (served.some((s) => s)) order.sort((i, j) => listing.compareNames(i, j));
    const value = new ServedEntries(listing, Uint32Array.from(order));
    entry.shown = { value, served };
    return value;
  }

  /**
   * Whether `rel` is a served file, spelled exactly as its directory lists it: on a filesystem that folds
   * case, `TOP.KEY` never reaches an excluded `top.key`.
   */
  isFile(rel: string): boolean {
    const slash = rel.lastIndexOf("/");
    const dir = slash < 0 ? "" : rel.slice(0, slash);
    return this.#entry(dir, false)?.listing.has(rel.slice(slash + 1)) ?? false;
  }

  /**
   * The kind of the entry `rel` as its directory spells it, byte for byte; `null` when the directory lists no
   * such name; `undefined` when it cannot tell, the directory being too big to read in one go here
   * (`PACED_READ_BYTES`). On a filesystem that folds case or Unicode forms, an lstat of `rel` may reach an
   * entry spelled otherwise, perhaps an excluded one; the directory's own names never do. For refusals: beyond
   * what is served, it reads the directory each time.
   * @internal
   */
  listedKind(rel: string): EntryKind | null | undefined {
    const slash = rel.lastIndexOf("/");
    const dir = slash < 0 ? "" : rel.slice(0, slash);
    const name = rel.slice(slash + 1);
    const entry = this.#entry(dir, false);
    // A name it serves is spelled so: an lstat reaches that very entry, and says what it is now.
    if (entry?.listing.has(`${name}/`) || entry?.listing.has(name)) {
      return this.fs.lstat(this.#abs(rel))?.kind ?? null;
    }
    const info = entry?.info ?? this.fs.lstat(this.#abs(dir)); // as the lookup just validated it, if it did
    if (info?.kind !== "directory") return null;
    if (info.size >= PACED_READ_BYTES) return undefined;
    const listed = this.fs.readDir(this.#abs(dir), { ...this.#anchor, info }).find((e) => e.name === name);
    if (listed === undefined) return null;
    return listed.kind === "unknown" ? this.fs.lstat(this.#abs(rel))?.kind ?? null : listed.kind;
  }

  /**
   * Whether anything at or below `dir` is served.
   * @internal
   */
  hasServed(dir: string): boolean {
    return this.#serves(dir, false);
  }

  /**
   * Up to `max` served paths containing `query` after `after`, and the validated tree they were found in.
   * @internal
   */
  find(query: string, after: string | undefined, max: number): Found {
    return new Search(query, max, this.#byteSearch).run(this.#tree("", false) ?? NO_TREE, after);
  }

  /**
   * Runs `walk`, a synchronous walk from `dir` down to `depth` levels, after validating first, one directory
   * at a time and pausing at `pacer` between them, every directory it will reach: those down to `depth`, and
   * below the last level those its search for a served file reaches (`#serves`). Each is lstatted and, if new
   * or changed, read, exactly as the walk would, and only a directory validated so is descended into (a
   * cached one replaced by a link is never walked through). The walk then trusts those directories, so it
   * holds the event loop only for its own bookkeeping (a first walk of 310,000 files held input for 2 s).
   * What fails here is left for the walk to meet. `validated` gets the directories, for the call's later
   * lookups (`accepting`).
   * @internal
   */
  async walkPaced<T>(
    dir: string,
    depth: number,
    pacer: Pacer,
    walk: () => T,
    validated?: Map<string, unknown>,
  ): Promise<T> {
    let seen = pacer.pauses;
    // Whether the call paused (between directories or inside a big one's read) since it last asked.
    const pausedSince = () => {
      const paused = pacer.pauses !== seen;
      seen = pacer.pauses;
      return paused;
    };
    const above = dir === "" ? null : await this.#prepare(parentOf(dir), pacer); // as the walk meets them
    const fresh: Fresh = new Map();
    const pending: [string, number][] = [[dir, depth]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [at, left] = next;
      await pacer.checkpoint();
      // After a pause the directories above it may have been replaced: below one that was, none is read.
      if (at !== dir) {
        if (pausedSince() && dropReplaced(fresh, this.#replacedAbove(at, fresh))) continue;
        if (!fresh.has(parentOf(at))) continue; // below one dropped
      } else if (above && pausedSince() && this.#replacedAbove(at, above) !== undefined) continue;
      let entry: CachedDir | null = null;
      try {
        // The top one named (and listed by its parent as validated above), the rest listed.
        entry = await this.#entryPaced(at, at !== dir, pacer, fresh, above?.get(parentOf(at)));
      } catch (error) {
        if (!leftToTheWalk(error)) throw error;
      }
      if (entry === null) continue;
      fresh.set(at, entry);
      if (left === 0) {
        // At its depth, the walk asks whether anything below is served (`#serves`): search that here too.
        await this.#servesPaced(at, entry, pacer, fresh, pausedSince);
        continue;
      }
      for (let k = entry.listing.subdirs.length - 1; k >= 0; k--) {
        pending.push([this.#subdir(at, entry, k), left - 1]);
      }
    }
    for (const [at, entry] of [...above ?? [], ...fresh]) validated?.set(at, entry);
    this.#fresh = fresh; // synchronous from here to the end: no other call runs meanwhile
    this.#unchanged = new Set();
    try {
      return this.accepting(above ?? new Map(), walk);
    } finally {
      this.#fresh = null;
      this.#unchanged = null;
    }
  }

  /**
   * Runs `lookup`, a synchronous lookup below `dir`, after validating the directories from the root down to
   * `dir` one at a time as `walkPaced` does (a big one read with pauses, each through the ones above it
   * checked again), under `accepting` them; `validated` gets them too, for the call's later lookups.
   * @internal
   */
  async prepared<T>(
    dir: string,
    pacer: Pacer,
    lookup: () => T,
    validated: Map<string, unknown> = new Map(),
  ): Promise<T> {
    for (const [at, entry] of await this.#prepare(dir, pacer)) validated.set(at, entry);
    return this.accepting(validated, lookup);
  }

  /**
   * Runs `lookup` (synchronous) taking the directories this call validated (`validated`, from `prepared` or
   * `walkPaced`) as it validated them, while each is still the same directory, changed or not: as a listing
   * read in the lookup itself would be. So a directory being written to is not read again in one go at every
   * lookup, which a big one would hold input for.
   * @internal
   */
  accepting<T>(validated: ReadonlyMap<string, unknown>, lookup: () => T): T {
    const outer = this.#accepted;
    this.#accepted = validated;
    try {
      return lookup();
    } finally {
      this.#accepted = outer;
    }
  }

  /**
   * The directories from the root down to `dir` as validated now, by path; what fails is left for the lookup
   * to meet. Nothing when all are cached, trusted and small: then a lookup reads none (a small read's case).
   */
  async #prepare(dir: string, pacer: Pacer): Promise<Fresh> {
    const chain = [""]; // the root, then each directory down to `dir`
    for (let at = dir.indexOf("/"); at >= 0; at = dir.indexOf("/", at + 1)) chain.push(dir.slice(0, at));
    if (dir !== "") chain.push(dir);
    const validated: Fresh = new Map();
    const settled = (at: string) => {
      const cached = this.#cache.get(at);
      return cached?.trusted && cached.info.size < PACED_READ_BYTES;
    };
    if (chain.every(settled)) return validated;
    let seen = pacer.pauses;
    for (const at of chain) {
      // After a pause the directories above may have been replaced: checked again, top down, first.
      if (pacer.pauses !== seen && this.#replacedAbove(at, validated) !== undefined) break;
      seen = pacer.pauses;
      let entry: CachedDir | null = null;
      try {
        entry = await this.#entryPaced(at, false, pacer, validated, validated.get(parentOf(at)));
      } catch (error) {
        if (!leftToTheWalk(error)) throw error;
      }
      if (entry === null) break;
      validated.set(at, entry);
    }
    return validated;
  }

  /**
   * `#serves` for a validated `entry`, as `walkPaced` runs it: the same directories in the same order, each
   * validated after a pause and added to `fresh`, so the walk's own search reads nothing more (unless another
   * call moved a directory's hint meanwhile; that search is then exact, only not paused).
   */
  async #servesPaced(
    dir: string,
    entry: CachedDir,
    pacer: Pacer,
    fresh: Fresh,
    pausedSince: () => boolean,
  ): Promise<boolean> {
    if (entry.listing.files > 0) return true;
    const { subdirs } = entry.listing;
    for (let j = 0; j < subdirs.length; j++) {
      const sub = this.#subdir(dir, entry, (entry.hint + j) % subdirs.length);
      await pacer.checkpoint();
      if (pausedSince() && dropReplaced(fresh, this.#replacedAbove(sub, fresh))) return false;
      if (!fresh.has(dir)) return false; // dropped below: left to the walk too
      let child: CachedDir | null = null;
      try {
        child = await this.#entryPaced(sub, true, pacer, fresh);
      } catch (error) {
        if (!leftToTheWalk(error)) throw error;
      }
      if (child === null) continue;
      fresh.set(sub, child);
      if (await this.#servesPaced(sub, child, pacer, fresh, pausedSince)) return true;
    }
    return false;
  }

  /**
   * The first directory above `rel` that is no longer the one this call validated (a `lstat` each: the
   * same inode, still a directory), or `undefined` when a path through them still ends inside the root.
   * Asked after a pause, when any of them may have been replaced by a link, and by the walk before it reads,
   * below a directory the pass validated, one the pass did not.
   */
  #replacedAbove(rel: string, fresh: Fresh): string | undefined {
    for (let at = rel.indexOf("/"); at >= 0; at = rel.indexOf("/", at + 1)) {
      const above = rel.slice(0, at);
      if (this.#unchanged?.has(above)) continue;
      const known = fresh.get(above) ?? this.#cache.get(above);
      let now: FileInfo | null = null;
      try {
        now = this.fs.lstat(this.#abs(above));
      } catch (error) {
        if (!(error instanceof FsError)) throw error;
      }
      if (!known || !sameDirectory(now, known.info)) return above;
      this.#unchanged?.add(above);
    }
    return undefined;
  }

  /**
   * The validated subtree at `dir` (immutable: its served files are `files` of it), or `null`.
   * @internal
   */
  subtree(dir: string): Tree | null {
    return this.#tree(dir, false);
  }

  #abs(rel: string): string {
    return rel === "" ? this.path : `${this.path}/${rel}`;
  }

  #assertPinned(info: FileInfo | null): void {
    if (!sameDirectory(info, this.#pin)) {
      throw new ToolError(ROOT_MOVED_MESSAGE);
    }
  }

  #subdir(dir: string, entry: CachedDir, k: number): string {
    entry.subdirPaths ??= entry.listing.subdirs.map((name) => joinRelative(dir, name));
    return entry.subdirPaths[k];
  }

  /**
   * The validated cache entry of a directory, or `null`. `checked`: a listed subdirectory reached by a walk,
   * serving nothing when unreadable. A directory a call names must be listed by its parent byte for byte.
   */
  #entry(dir: string, checked: boolean): CachedDir | null {
    const cached = this.#cache.get(dir);
    if (!checked && !this.#listedByParent(dir, cached)) return null;
    try {
      const found = this.#lookup(dir, cached);
      if ("valid" in found) return found.valid;
      // A big directory is read only by a walk's paced pass, which proves the read or checks the path around
      // it. One met here the pass did not validate (it refused the read) or that is another one by now (a
      // link swapped in above leads the lstat elsewhere) is gone for this lookup, never read by path in one go.
      if (dir !== "" && found.stale.info.size >= PACED_READ_BYTES) return null;
      return this.#store(dir, this.#readSettled(dir, found.stale));
    } catch (error) {
      return this.#unreadable(dir, checked, error);
    }
  }

  /**
   * `#entry` as `walkPaced` runs it: a directory of `PACED_READ_BYTES` or more is read with pauses (other
   * calls may run meanwhile), checked after them against `fresh` and the cache, and read once for all the
   * calls that want it meanwhile. One a call names must be listed by its `parent`, given when this call
   * validated it (the directories above checked again after any pause), else looked up as `#entry` does.
   */
  async #entryPaced(
    dir: string,
    checked: boolean,
    pacer: Pacer,
    fresh: Fresh,
    parent?: CachedDir,
  ): Promise<CachedDir | null> {
    for (;;) {
      const cached = this.#cache.get(dir);
      if (!checked && !this.#listedByParent(dir, cached, parent)) return null;
      try {
        const found = this.#lookup(dir, cached);
        if ("valid" in found) return found.valid;
        if (found.stale.info.size < PACED_READ_BYTES) {
          return this.#store(dir, this.#readSettled(dir, found.stale));
        }
        const reading = this.#reading.get(dir);
        if (reading === undefined) return await this.#readShared(dir, found.stale, pacer, fresh);
        // Another call is reading it: wait, then look again, the directories above checked first. Its listing
        // is taken only as any cached one is (trusted, unchanged): it may have begun before this call did.
        await pacer.wait(reading.catch(() => null));
        if (this.#replacedAbove(dir, fresh) !== undefined) return null; // left to the walk, which checks again
      } catch (error) {
        return this.#unreadable(dir, checked, error);
      }
    }
  }

  /** Reads a big directory with pauses and caches it, sharing the read with the calls that want it meanwhile. */
  async #readShared(dir: string, before: Seen, pacer: Pacer, fresh: Fresh): Promise<CachedDir | null> {
    const read = this.#readSettledPaced(dir, before, pacer, fresh).then((read) => this.#store(dir, read));
    this.#reading.set(dir, read);
    try {
      return await read;
    } finally {
      if (this.#reading.get(dir) === read) this.#reading.delete(dir);
    }
  }

  /** Whether a directory a call names is listed by its parent (`parent`, or looked up), byte for byte. */
  #listedByParent(dir: string, cached: CachedDir | undefined, parent?: CachedDir | null): boolean {
    if (dir === "") return true;
    if (!cached && (depthOf(dir) > this.limits.maxDepth || !this.selector.mayContain(dir))) return false;
    parent ??= this.#entry(parentOf(dir), false);
    return parent?.listing.has(`${dir.slice(dir.lastIndexOf("/") + 1)}/`) ?? false;
  }

  /** A directory that failed to be looked at or read: forgotten, and gone unless a call named it (`leftToTheWalk`). */
  #unreadable(dir: string, checked: boolean, error: unknown): null {
    if (!leftToTheWalk(error)) throw error;
    const cached = this.#cache.get(dir);
    if (cached) this.#forget(dir, cached);
    // Removed or replaced while it was read: gone, like a directory the lstat did not find; the root, moved.
    const gone = error.code === "not_found" || error.code === "not_directory";
    if (gone && dir === "") throw new ToolError(ROOT_MOVED_MESSAGE);
    if (checked || gone) return null;
    throw error;
  }

  /** The cached entry of `dir` if it is still valid, else the identity to read it under. */
  #lookup(dir: string, cached: CachedDir | undefined): Lookup {
    if (this.#fresh) {
      // Validated by `walkPaced`: taken as it validated it, even when another call has cached a later read
      // since. The root's pin is checked again, though: a walk never starts from a root swapped in.
      const validated = this.#fresh.get(dir);
      if (validated) {
        if (dir === "") this.#assertPinned(this.fs.lstat(this.path));
        return { valid: validated };
      }
      // One it did not validate (a child it found gone, a hint another call moved): the directories above,
      // trusted without a system call, may have been replaced since, so the path must still run through them.
      if (this.#fresh.has(parentOf(dir)) && this.#replacedAbove(dir, this.#fresh) !== undefined) {
        return { valid: null };
      }
    }
    const now = Date.now();
    const info = this.fs.lstat(this.#abs(dir));
    if (dir === "") this.#assertPinned(info); // a walk never starts from a directory swapped in
    if (info?.kind !== "directory") {
      if (cached) this.#forget(dir, cached);
      return { valid: null };
    }
    if (cached?.trusted && sameIdentity(cached.info, info)) return { valid: cached };
    // Validated earlier in this call (`accepting`): as good as a listing read in this very lookup while the
    // directory is the same one, even when another call has cached a later read since (else each lookup of a
    // directory being written to would read it again, in one go). The same one by device and inode: one
    // re-created under its old inode number passes, and this call may miss names made since (its opens are
    // checked).
    const accepted = this.#accepted?.get(dir) as CachedDir | undefined;
    if (accepted && sameDirectory(info, accepted.info)) return { valid: accepted };
    return { stale: { info, now } };
  }

  /** Caches a read's listing under the identity it was read under; `null` for none. */
  #store(dir: string, read: Read): CachedDir | null {
    if (read === null && dir === "") throw new ToolError(ROOT_MOVED_MESSAGE); // another directory by the end
    if (read === null) return null;
    const { listing, seen: { info, now }, unproven } = read;
    // The later of ctime and mtime. Deno reports ctime in whole seconds (mtime in milliseconds), and a chmod
    // moves only ctime: a ctime on a whole second may stand for any instant of it, so it counts as its end.
    const ctimeNs = ctimeEndNs(info);
    const changedNs = ctimeNs > info.mtimeNs ? ctimeNs : info.mtimeNs;
    const trusted = !unproven && Number(changedNs / 1_000_000n) + RACY_MARGIN_MS < now;
    const cached = this.#cache.get(dir); // as it is now: a paced read lets other calls change it
    if (cached?.listing.text.equals(listing.text)) {
      cached.info = info; // read again and found the same: keep what was derived from it
      cached.trusted = trusted;
      return cached;
    }
    if (cached) this.#forget(dir, cached);
    if (this.#cachedNames + listing.length > MAX_CACHED_NAMES) {
      this.#cache.clear();
      this.#cachedNames = 0;
    }
    const entry: CachedDir = { info, trusted, listing, hint: 0 };
    this.#cache.set(dir, entry);
    this.#cachedNames += listing.length;
    return entry;
  }

  /** Validates every directory of a subtree; unchanged parts come back as the same objects. */
  #tree(dir: string, checked: boolean): Tree | null {
    const entry = this.#entry(dir, checked);
    if (entry === null) return null;
    const { listing, tree: old } = entry;
    let fresh: (Tree | null)[] | undefined;
    for (let k = 0; k < listing.subdirs.length; k++) {
      const child = this.#tree(this.#subdir(dir, entry, k), true);
      if (fresh === undefined && old?.children[k] !== child) fresh = old?.children.slice() ?? [];
      if (fresh) fresh[k] = child;
    }
    if (old && !fresh) return old;
    return entry.tree = new Tree(listing, fresh ?? []);
  }

  /** Whether something is served below a directory, asking first the subdirectory that answered last time. */
  #serves(dir: string, checked: boolean): boolean {
    const entry = this.#entry(dir, checked);
    if (entry === null) return false;
    if (entry.listing.files > 0) return true;
    const { subdirs } = entry.listing;
    for (let j = 0; j < subdirs.length; j++) {
      const k = (entry.hint + j) % subdirs.length;
      if (this.#serves(this.#subdir(dir, entry, k), true)) {
        entry.hint = k;
        return true;
      }
    }
    return false;
  }

  /**
   * Reads a directory and checks it is still the same one after: one swapped for a link meanwhile listed the
   * link's target. A swap and back keeps the inode but not the ctime, so an unsettled read is read again.
   */
  #readSettled(dir: string, before: Seen): Read {
    for (let attempt = 1;; attempt++) {
      let listing: Listing;
      try {
        listing = this.#read(dir, before.info);
      } catch (error) {
        if (leadsElsewhere(error)) return null; // as if found so after the read
        throw error;
      }
      const after = this.#identityAfterRead(dir, before);
      if (after === before || (after !== null && attempt >= SETTLED_READ_ATTEMPTS)) {
        return { listing, seen: before };
      }
      if (after === null) return null;
      before = after;
    }
  }

  /**
   * `#readSettled` for a big directory, with pauses. After them the directories above may have been replaced:
   * they are checked first, top down (so no lstat goes through a link), then the directory itself, and the
   * names whose kind the directory did not report are lstatted before the next pause.
   *
   * The pauses give a racer time to swap the directory, or one above it, for a link and back while the read
   * opens it, which no lstat after could see. A port with `pacedReadsProven` reads the directory `ReadProof`
   * names or refuses. On another, the stamps of the directories above must show no entry of theirs changed
   * meanwhile (a swap renames one), or the read is made again; the last one is taken as any directory that
   * keeps changing is, but for this call only (never trusted): a racer that swaps at every read still wins.
   */
  async #readSettledPaced(dir: string, before: Seen, pacer: Pacer, fresh: Fresh): Promise<Read> {
    const proven = this.fs.pacedReadsProven === true;
    for (let attempt = 1;; attempt++) {
      const stamps = proven ? [] : await this.#provableStampsAbove(dir, pacer);
      const proof = { ...this.#anchor, info: before.info };
      let entries: DirEntry[];
      try {
        entries = await this.fs.readDirPaced(this.#abs(dir), () => pacer.checkpoint(), proof);
      } catch (error) {
        if (leadsElsewhere(error)) return null; // as if found so after the read
        throw error;
      }
      if (this.#replacedAbove(dir, fresh) !== undefined) return null; // left to the walk, which checks again
      const after = this.#identityAfterRead(dir, before);
      if (after === null) return null;
      const throughSame = proven || (stamps !== undefined && sameStamps(stamps, this.#stampsAbove(dir)));
      if ((after === before && throughSame) || attempt >= SETTLED_READ_ATTEMPTS) {
        const listing = await this.#listPaced(dir, entries, pacer);
        return { listing, seen: before, unproven: !throughSame };
      }
      before = after;
    }
  }

  /** The root and each directory above `dir`, lstatted top down (`null`: not a directory now). */
  #stampsAbove(dir: string): (FileInfo | null)[] {
    if (dir === "") return []; // the root's own path is the pin's to check
    const above = [""];
    for (let at = dir.indexOf("/"); at >= 0; at = dir.indexOf("/", at + 1)) above.push(dir.slice(0, at));
    return above.map((rel) => {
      const info = this.fs.lstat(this.#abs(rel));
      return info?.kind === "directory" ? info : null;
    });
  }

  /**
   * `#stampsAbove` taken where two equal lists around a read prove the read went through the same
   * directories, or `undefined`. A swap of a directory on the path, there and back, renames an entry of the
   * one above it, which stamps that one's mtime and ctime with the time of the swap: a stamp at least
   * `RACY_MARGIN_MS` old (one within the same clock tick would not move), or one set by `utimes` past its
   * ctime's end (the swap would move the ctime), cannot stay as it is. One changed just now is waited out.
   */
  async #provableStampsAbove(dir: string, pacer: Pacer): Promise<(FileInfo | null)[] | undefined> {
    let stamps = this.#stampsAbove(dir);
    let waitMs = unprovableFor(stamps, Date.now());
    if (waitMs > 0 && waitMs < Infinity) {
      await pacer.wait(new Promise((resolve) => setTimeout(resolve, waitMs)));
      stamps = this.#stampsAbove(dir);
      waitMs = unprovableFor(stamps, Date.now());
    }
    return waitMs === 0 ? stamps : undefined;
  }

  /**
   * After a read begun under `before`: `before` if unchanged, the directory's identity now if it changed,
   * `null` if it is another directory or none.
   */
  #identityAfterRead(dir: string, before: Seen): Seen | null {
    const now = Date.now();
    const after = this.fs.lstat(this.#abs(dir));
    if (!sameDirectory(after, before.info)) return null;
    return sameIdentity(after, before.info) ? before : { info: after, now };
  }

  /** Reads the directory `dir`, lstatted as `info`: the port proves it reads that one, where it can. */
  #read(dir: string, info: FileInfo): Listing {
    const key = this.#keyOf(dir);
    const keys: string[] = [];
    for (const entry of this.fs.readDir(this.#abs(dir), { ...this.#anchor, info })) {
      const k = key(entry);
      if (k !== undefined) keys.push(k);
    }
    return new Listing(keys);
  }

  /** A big directory's listing from its entries: filtered and sorted with pauses, its lstats made first. */
  async #listPaced(dir: string, entries: readonly DirEntry[], pacer: Pacer): Promise<Listing> {
    const pause = () => pacer.checkpoint();
    const key = this.#keyOf(dir);
    const keys: string[] = [];
    const add = (entry: DirEntry) => {
      const k = key(entry);
      if (k !== undefined) keys.push(k);
    };
    for (const entry of entries) if (entry.kind === "unknown") add(entry); // lstatted: no pause before
    for (let i = 0; i < entries.length; i++) {
      if (entries[i].kind !== "unknown") add(entries[i]);
      if (i % DIR_BATCH === DIR_BATCH - 1) await pause();
    }
    return await Listing.paced(keys, pause);
  }

  /**
   * The sort key an entry of `dir` gets in its listing (a file's name, a directory's name and `/`), or
   * `undefined` when it is not served and leads to nothing served. Decided from the name first: an entry
   * that could be neither is never statted; one whose kind the directory did not report is lstatted.
   */
  #keyOf(dir: string): (entry: DirEntry) => string | undefined {
    const dirsAllowed = depthOf(dir) < this.limits.maxDepth;
    const all = this.selector.servesAllBelow(dir); // then no name needs its own test (`--include '**'`)
    const nameable = nameableIn(dir, this.servedPathBytes); // a path no argument could name, or no open reach
    const temps = dir === ""; // writes, and so their temporary files, are only in the root
    return ({ name, kind: reported }) => {
      if ((temps && isTempName(name)) || reported === "symlink" || reported === "other" || !nameable(name)) {
        return undefined;
      }
      const path = all ? undefined : joinRelative(dir, name);
      const wantFile = reported !== "directory" && (path === undefined || this.selector.isServed(path));
      const wantDir = reported !== "file" && dirsAllowed &&
        (path === undefined || this.selector.mayContain(path));
      if (!wantFile && !wantDir) return undefined;
      let kind: EntryKind = reported;
      if (kind === "unknown") kind = this.fs.lstat(this.#abs(joinRelative(dir, name)))?.kind ?? "other";
      if (kind === "file" && wantFile) return name;
      if (kind === "directory" && wantDir) return `${name}/`;
      return undefined;
    };
  }

  #forget(dir: string, entry: CachedDir): void {
    this.#cache.delete(dir);
    this.#cachedNames -= entry.listing.length;
  }
}

/** An `include` or `exclude` option as given by a caller without types: an array of strings, or nothing. */
function globsOf(value: unknown, option: string): readonly string[] {
  if (value === undefined) return [];
  // `Array.from`: a hole is `undefined` there, where `every` would skip it.
  if (!Array.isArray(value) || !Array.from(value).every((glob) => typeof glob === "string")) {
    throw new ConfigError("must be an array of glob strings", option);
  }
  return value;
}

/**
 * Validates the configuration and pins the root, holding its directory open while the root is in use.
 * Throws `ConfigError` when the port cannot serve here, `include` is empty, a glob or limit is invalid, or
 * the root is missing, not a directory or not permitted (the message names its absolute path).
 */
export function openRoot(options: RootOptions & { fs: FsPort }): Root {
  const { fs } = options;
  if (fs.unsupported !== undefined) throw new ConfigError(fs.unsupported);
  const include = globsOf(options.include, "include");
  if (include.length === 0) {
    throw new ConfigError("must hold at least one glob; the default serves no file", "include");
  }
  const selector = createSelector(include, globsOf(options.exclude, "exclude"));
  const limits = resolveLimits(options.limits);
  if (options.root === undefined || options.root === "") throw new ConfigError("is required", "root");
  if (typeof options.root !== "string") throw new ConfigError("must be a string", "root");
  // The caller's own argument, made absolute, so a relative root that missed says where it looked.
  let given = options.root;
  try {
    given = resolve(given);
  } catch {
    // Only the working directory lookup can fail (it was removed): the path stays as given.
  }
  const refuse = (problem: string) => new ConfigError(`${JSON.stringify(given)} ${problem}`, "root");
  const grant = "grant read and write permission on its real path (on Deno: --allow-read and --allow-write)";
  let path: string;
  try {
    path = fs.realPath(given);
  } catch (error) {
    if (!(error instanceof FsError)) throw error;
    // Outside a Deno grant even a missing path is "denied": either way, the path is the user's to check.
    throw refuse(`does not exist or cannot be read${error.code === "denied" ? `; ${grant}` : ""}`);
  }
  let hold: DirectoryHold | undefined;
  let pin: FileInfo;
  try {
    // Held open: a root removed and re-created at its path could otherwise get the same inode number back.
    hold = fs.holdDirectory(path);
    pin = hold.stat();
  } catch (error) {
    hold?.close();
    if (!(error instanceof FsError)) throw error;
    // Refused by the system's permission bits, or by Deno's grants, which Deno checks against the path as
    // written, without resolving links.
    if (error.code === "denied") {
      throw refuse(`is not permitted; ${grant}, and give that path as the root (no symlink in it)`);
    }
    throw refuse(error.code === "not_directory" ? "is not a directory" : "does not exist or cannot be read");
  }
  const root = new Root(fs, path, pin, options, selector, limits);
  released.register(root, hold);
  return root;
}

/**
 * The path search behind `search_files`: the served paths of a validated `Tree` that contain a query and
 * come after a position, bytewise, until one match past the page. What lies before the position is skipped
 * by binary search; a run of file names is searched with one byte search over the listing's text, by the
 * method the port runs fast (`find_bytes.ts`).
 * Also the digest of every match, which a `search_files` cursor binds.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { Digest } from "./hashing.ts";
import { firstIndex, type Listing, type Tree } from "./listing.ts";
import { type Pacer, PATHS_PER_CHECKPOINT } from "./pacing.ts";
import { bytesSearch, type SearchMethod, type WindowSearch } from "./search/find_bytes.ts";

const LONE_SURROGATE = /\p{Surrogate}/u;

/** A page of `search_files`: matching paths, whether more follow, and the tree searched. */
export interface Found {
  readonly paths: string[];
  readonly more: boolean;
  readonly tree: Tree;
}

/** Queries whose match digest a tree keeps (`matchesDigest`): a few traversals interleaved. */
const DIGESTS_PER_TREE = 8;
const matchDigests = new WeakMap<Tree, Map<string, string>>();

/**
 * SHA-256 hex of the served paths of `tree` (the root's) that contain `query`, each ended by a NUL (no path
 * holds one): the state a `search_files` cursor binds, since a path that does not match changes no page.
 * Searched `PATHS_PER_CHECKPOINT` matches at a time, with a checkpoint between (the tree is immutable), and
 * kept with the tree, so the next page of an unchanged root does not search it again.
 */
export async function matchesDigest(
  tree: Tree,
  query: string,
  pacer: Pick<Pacer, "checkpoint">,
  method: SearchMethod = bytesSearch,
): Promise<string> {
  const known = matchDigests.get(tree)?.get(query);
  if (known !== undefined) return known;
  const digest = new Digest();
  let after: string | undefined;
  for (;;) {
    const { paths, more } = new Search(query, PATHS_PER_CHECKPOINT, method).run(tree, after);
    if (paths.length > 0) digest.text(`${paths.join("\0")}\0`);
    if (!more) break;
    after = paths.at(-1);
    await pacer.checkpoint();
  }
  const hex = digest.hex();
  const kept = matchDigests.get(tree) ?? new Map<string, string>(); // as now: other calls ran meanwhile
  if (kept.size >= DIGESTS_PER_TREE) kept.delete(kept.keys().next().value!); // the oldest
  matchDigests.set(tree, kept.set(query, hex));
  return hex;
}

/** One page of a path search: at most `max` matches. */
export class Search {
  readonly #paths: string[] = [];
  #more = false;
  readonly #query: string;
  readonly #search: WindowSearch;
  readonly #max: number;
  readonly #plain: boolean; // no `/` in the query: it lies within one segment, so names are searched

  /** `method`: the byte search the port runs fast (`searchMethodFor`). */
  constructor(query: string, max: number, method: SearchMethod = bytesSearch) {
    this.#query = query;
    this.#search = method(Buffer.from(query, "utf8"));
    this.#max = max;
    this.#plain = !query.includes("/");
  }

  /** Searches `tree` (the root's) after the path `after`. */
  run(tree: Tree, after: string | undefined): Found {
    // No path holds a NUL or a lone surrogate: such a query matches nothing.
    if (!this.#query.includes("\0") && !LONE_SURROGATE.test(this.#query)) {
      this.#walk(tree, "", after === undefined ? undefined : Buffer.from(after, "utf8"), 0, false);
    }
    return { paths: this.#paths, more: this.#more, tree };
  }

  /**
   * Walks the subtree at `prefix` (`""` or ending in `/`), from `position` (its bytes from `from` on);
   * `hit`: the directory path already contains the plain query. True once the page is complete.
   */
  #walk(tree: Tree, prefix: string, position: Buffer | undefined, from: number, hit: boolean): boolean {
    const { listing, children } = tree;
    const { subdirs, subdirAt } = listing;
    let i = position === undefined ? 0 : listing.firstAfter(position, from);
    let k = firstIndex(subdirAt.length, (k) => subdirAt[k] >= i);
    // The key just before the start, a subdirectory whose key is a prefix of the position, holds it: walked first.
    if (k > 0 && subdirAt[k - 1] === i - 1 && listing.isPrefixOf(i - 1, position!, from)) {
      k--;
      i--;
      from += listing.keyLength(i);
    } else {
      position = undefined;
    }
    // Between two subdirectories the keys are files: each run is searched at once.
    for (;; k++) {
      const end = k < subdirs.length ? subdirAt[k] : listing.length;
      if (i < end && this.#files(listing, prefix, i, end, hit)) return true;
      if (k === subdirs.length) return false;
      const child = children[k];
      const name = subdirs[k];
      const childHit = hit || (this.#plain && name.includes(this.#query));
      if (child?.count && this.#walk(child, `${prefix}${name}/`, position, from, childHit)) return true;
      position = undefined;
      i = end + 1;
    }
  }

  /** Collects the matches among keys `from` to `to`, all files. */
  #files(listing: Listing, prefix: string, from: number, to: number, hit: boolean): boolean {
    if (hit || !this.#plain) {
      for (let i = from; i < to; i++) {
        const path = prefix + listing.name(i);
        if ((hit || path.includes(this.#query)) && this.#add(path)) return true;
      }
      return false;
    }
    const { text, starts } = listing;
    const end = starts[to];
    const find = this.#search(text);
    for (let at = find(starts[from]); at >= 0 && at < end;) {
      const i = listing.keyAt(at);
      if (this.#add(prefix + listing.name(i))) return true;
      at = find(starts[i + 1]);
    }
    return false;
  }

  /** Adds a match; on a full page notes that more follow and returns true instead. */
  #add(path: string): boolean {
    if (this.#paths.length === this.#max) {
      this.#more = true;
      return true;
    }
    this.#paths.push(path);
    return false;
  }
}

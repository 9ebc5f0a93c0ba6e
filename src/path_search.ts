/**
 * The path search behind `search_files`: the served paths of a validated `Tree` that contain a query and
 * come after a position, bytewise, until one match past the page. What lies before the position is skipped
 * by binary search; a run of file names is searched with one native byte search over the listing's text.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { firstIndex, type Listing, type Tree } from "./listing.ts";

const LONE_SURROGATE = /\p{Surrogate}/u;

/** A page of `search_files`: matching paths, whether more follow, and the digest of the root's served paths. */
export interface Found {
  readonly paths: string[];
  readonly more: boolean;
  readonly state: string;
}

/** One page of a path search: at most `max` matches. */
export class Search {
  readonly #paths: string[] = [];
  #more = false;
  readonly #query: string;
  readonly #needle: Buffer;
  readonly #max: number;
  readonly #plain: boolean; // no `/` in the query: it lies within one segment, so names are searched

  constructor(query: string, max: number) {
    this.#query = query;
    this.#needle = Buffer.from(query, "utf8");
    this.#max = max;
    this.#plain = !query.includes("/");
  }

  /** Searches `tree` (the root's) after the path `after`. */
  run(tree: Tree, after: string | undefined): Found {
    // No path holds a NUL or a lone surrogate: such a query matches nothing.
    if (!this.#query.includes("\0") && !LONE_SURROGATE.test(this.#query)) {
      this.#walk(tree, "", after === undefined ? undefined : Buffer.from(after, "utf8"), 0, false);
    }
    return { paths: this.#paths, more: this.#more, state: tree.digest };
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
    for (let at = text.indexOf(this.#needle, starts[from]); at >= 0 && at < end;) {
      const i = listing.keyAt(at);
      if (this.#add(prefix + listing.name(i))) return true;
      at = text.indexOf(this.#needle, starts[i + 1]);
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

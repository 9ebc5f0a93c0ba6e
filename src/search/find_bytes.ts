/**
 * The substring search `search_text` runs over each window: two methods with the same answers, the port
 * naming the one its runtime runs fast (`FsPort.byteSearch`), never chosen by timing.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { FsPort } from "../ports/fs_port.ts";

/** Finds a needle in one window: `find(from)` is the first match at or after `from`, or -1. */
export type WindowSearch = (window: Buffer) => (from: number) => number;

/** Builds the `WindowSearch` for one needle. */
export type SearchMethod = (needle: Buffer) => WindowSearch;

/** `Buffer.prototype.indexOf` on the bytes: native code where `Buffer` is native (Node). */
export const bytesSearch: SearchMethod = (needle) => (window) => (from) => window.indexOf(needle, from);

/** Bytes of a window read as one string: small enough to be a young-generation string, not a large object. */
export const LATIN1_CHUNK_BYTES = 64 * 1024;

/**
 * `String.prototype.indexOf` over the window read as latin1, one character per byte, so an index is a byte
 * offset: the engine's own search, where `Buffer#indexOf` is a JavaScript layer (Deno). Read a chunk at a
 * time, each running `needle - 1` bytes into the next, so a match across the seam is found in its own chunk.
 */
export const latin1Search: SearchMethod = (needle) => {
  const text = needle.toString("latin1");
  return (window) => {
    let start = -1; // where `chunk` starts in the window
    let chunk = "";
    return (from) => {
      for (let at = Math.max(from, 0); at + needle.length <= window.length; at = start + LATIN1_CHUNK_BYTES) {
        const k = at - (at % LATIN1_CHUNK_BYTES);
        if (k !== start) {
          start = k;
          chunk = window.toString(
            "latin1",
            k,
            Math.min(window.length, k + LATIN1_CHUNK_BYTES + needle.length - 1),
          );
        }
        const i = chunk.indexOf(text, at - k);
        if (i >= 0) return k + i; // it starts in this chunk: the overlap is too short to hold another
      }
      return -1;
    };
  };
};

/** The search method the port asks for (`Buffer#indexOf` unless it says otherwise). */
export function searchMethodFor(fs: Pick<FsPort, "byteSearch">): SearchMethod {
  return fs.byteSearch === "latin1" ? latin1Search : bytesSearch;
}

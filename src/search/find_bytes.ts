/**
 * The substring search `search_text` runs over each window: two methods with the same answers, the port
 * naming the one its runtime runs fast (`FsPort.byteSearch`), never chosen by timing.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { FsPort } from "../ports/fs_port.ts";

const indexOf = Uint8Array.prototype.indexOf; // an engine built-in on every runtime

/** Finds a needle in one window: `find(from)` is the first match at or after `from`, or -1. */
export type WindowSearch = (window: Buffer) => (from: number) => number;

/** Builds the `WindowSearch` for one needle. */
export type SearchMethod = (needle: Buffer) => WindowSearch;

/** `Buffer.prototype.indexOf` on the bytes: native code where `Buffer` is native (Node). */
export const bytesSearch: SearchMethod = (needle) => (window) => (from) => window.indexOf(needle, from);

/**
 * Each byte's rank by frequency in typical text (prose, code, markup), most frequent first; bytes not listed
 * are rarer than all. Multi-byte UTF-8 ranks after ASCII, lead bytes before continuation bytes.
 */
const BYTE_RANK = (() => {
  const ascii =
    " etaoinsrhldcumfpgwy.,b\n_v=();k-\"/'x:01*SETAICRNOLDMPFBHG>2<{}34#j5\t6789UWVKYq[]z&|%@!+?$JXQZ\r";
  const order = [...ascii].map((c) => c.charCodeAt(0));
  for (let b = 0xc2; b <= 0xf4; b++) order.push(b);
  for (let b = 0x80; b <= 0xbf; b++) order.push(b);
  const rank = new Uint16Array(256).fill(order.length);
  order.forEach((byte, i) => (rank[byte] = i));
  return rank;
})();

/** The index in `needle` of its rarest byte in typical text. */
export function rarestByte(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) if (BYTE_RANK[needle[i]] > BYTE_RANK[needle[best]]) best = i;
  return best;
}

/**
 * `Uint8Array.prototype.indexOf` for the needle's rarest byte, then a check of the rest around each hit:
 * faster than `Buffer#indexOf` where `Buffer` is a JavaScript layer (Deno), as long as that byte is rare.
 */
export const anchoredSearch: SearchMethod = (needle) => {
  const anchor = rarestByte(needle);
  const byte = needle[anchor];
  const length = needle.length;
  return (window) => (from) => {
    const last = window.length - length; // the last offset a match can start at
    for (
      let at = indexOf.call(window, byte, from + anchor);
      at >= 0;
      at = indexOf.call(window, byte, at + 1)
    ) {
      const start = at - anchor;
      if (start > last) return -1;
      let i = 0;
      while (i < length && window[start + i] === needle[i]) i++;
      if (i === length) return start;
    }
    return -1;
  };
};

/** The search method the port asks for (`Buffer#indexOf` unless it says otherwise). */
export function searchMethodFor(fs: Pick<FsPort, "byteSearch">): SearchMethod {
  return fs.byteSearch === "rarest-byte" ? anchoredSearch : bytesSearch;
}

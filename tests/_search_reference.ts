/**
 * The reference for `search_text`: the items it must report for a query in
 * one file, computed naively from the file's bytes.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** A `search_text` item. */
export type Item = { path: string; line: number; text: string };

/** Longest reported text, in bytes. */
const MAX_TEXT = 1_024;

/** The items search_text must report for `query` in one file, computed here from the bytes. */
export function expected(path: string, bytes: Buffer, query: string): Item[] {
  const needle = Buffer.from(query);
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const out: Item[] = [];
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    let body = bytes.subarray(start, end);
    if (nl >= 0 && body.at(-1) === 0x0d) body = body.subarray(0, -1);
    if (body.indexOf(needle) >= 0) {
      let text: string | null;
      try {
        text = decoder.decode(body);
      } catch {
        text = null;
      }
      if (text !== null) {
        let cut = Math.min(body.length, MAX_TEXT);
        while (cut < body.length && (body[cut] & 0xc0) === 0x80) cut--;
        out.push({ path, line, text: body.subarray(0, cut).toString("utf8") });
      }
    }
    start = end + 1;
  }
  return out;
}

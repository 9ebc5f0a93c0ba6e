/**
 * A cap on stdin lines. The SDK's stdio transport closes the whole
 * connection when its read buffer overflows (10 MiB by default), leaving a
 * process that reads nothing more and answers nothing: one over-long line
 * would end the session. It also copies its whole buffer for every chunk
 * that arrives, so a line of many chunks costs quadratic time. This filter
 * sits in front of it: it passes on whole lines only, each in one chunk, and
 * drops a line longer than the cap whole (as the SDK skips any malformed
 * line), so the next message is served.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type Readable, Transform } from "node:stream";

/** Longest stdin line (one JSON-RPC message) the server reads, in bytes. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Passes `input` through line by line, dropping every line longer than `maxBytes`.
 *
 * @param input The raw stdin stream.
 * @param maxBytes The longest line passed on, without its newline.
 * @returns A stream of whole lines, each at most `maxBytes` long.
 */
export function limitLines(input: Readable, maxBytes: number = MAX_LINE_BYTES): Readable {
  let pending: Buffer[] = []; // the start of the current line
  let length = 0;
  let dropping = false; // the current line is over the cap: skip to its end
  const filter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out: Buffer[] = [];
      for (let at = 0; at < chunk.length;) {
        const newline = chunk.indexOf(NEWLINE, at);
        const end = newline < 0 ? chunk.length : newline + 1;
        if (!dropping) {
          length += end - at - (newline < 0 ? 0 : 1);
          if (length > maxBytes) {
            dropping = true;
            pending = [];
          } else pending.push(chunk.subarray(at, end));
        }
        if (newline < 0) break;
        if (!dropping) out.push(Buffer.concat(pending));
        pending = [];
        length = 0;
        dropping = false;
        at = end;
      }
      done(null, out.length === 0 ? undefined : Buffer.concat(out));
    },
  });
  input.on("error", (error) => filter.destroy(error));
  return input.pipe(filter);
}

/**
 * How a refusal names the argument it refused: as the client gave it, so a
 * program that made many calls can tell which failed, yet in one short line.
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import { ToolError } from "./errors.ts";

/** Longest echo of an argument, in UTF-8 bytes between its quotes. */
export const MAX_ECHO_BYTES = 256;

// JSON.stringify escapes U+0000-U+001F, `"` and `\`, and lone surrogates; these it leaves alone,
// though they are control characters (U+007F-U+009F) or end a line (U+2028, U+2029).
const ALSO_ESCAPED = /^[\u007f-\u009f\u2028\u2029]$/;

/**
 * An argument as a JSON string, control characters and lone surrogates
 * escaped; an escaped form longer than `MAX_ECHO_BYTES` is cut on a character
 * boundary (never inside an escape) and followed by `…` after the quote.
 *
 * @example Quoting a refused path
 * ```ts
 * import assert from "node:assert/strict";
 * import { quoteArgument } from "./quote.ts";
 * assert.equal(quoteArgument("../a\nb"), '"../a\\nb"');
 * assert.equal(quoteArgument("x".repeat(300)), `"${"x".repeat(256)}"…`);
 * ```
 */
export function quoteArgument(value: string): string {
  let body = "";
  let bytes = 0;
  for (const char of value) { // by code point; a lone surrogate comes alone
    const piece = ALSO_ESCAPED.test(char)
      ? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
      : JSON.stringify(char).slice(1, -1);
    bytes += utf8Length(piece);
    if (bytes > MAX_ECHO_BYTES) return `"${body}"…`;
    body += piece;
  }
  return `"${body}"`;
}

/**
 * A refused argument, `<rule>: <quoted value>`, to throw.
 *
 * @example Naming the refused argument
 * ```ts
 * import assert from "node:assert/strict";
 * import { refuseArgument } from "./quote.ts";
 * assert.equal(refuseArgument("query must be one line", "a\nb").message, 'query must be one line: "a\\nb"');
 * ```
 */
export function refuseArgument(rule: string, value: string): ToolError {
  return new ToolError(`${rule}: ${quoteArgument(value)}`);
}

/**
 * A path as an error text shows it after the path was accepted (`not found:
 * <path>`): as given, cut to `MAX_ECHO_BYTES` on a character boundary and
 * followed by `…` when longer. The server escapes control characters.
 */
export function shownPath(rel: string): string {
  if (utf8Length(rel) <= MAX_ECHO_BYTES) return rel;
  let cut = "";
  for (const char of rel) {
    if (utf8Length(cut + char) > MAX_ECHO_BYTES) break;
    cut += char;
  }
  return `${cut}…`;
}

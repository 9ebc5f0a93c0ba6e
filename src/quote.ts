/**
 * How a refusal names the argument it refused: as the client gave it, so a program that made many calls can
 * tell which failed, yet in one short line.
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import { ToolError } from "./errors.ts";

/** Longest echo of an argument, in UTF-8 bytes between its quotes. */
export const MAX_ECHO_BYTES = 256;

// C0 and C1 controls, and the two characters that end a line in JavaScript.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `text` with its control characters escaped (`\n`, `\r`, `\t`, else `\uXXXX`), so it stays one line. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * An argument as a JSON string, control characters and lone surrogates escaped; an escaped form longer than
 * `MAX_ECHO_BYTES` is cut on a character boundary (never inside an escape) and followed by `…` after the quote.
 */
export function quoteArgument(value: string): string {
  let body = "";
  let bytes = 0;
  for (const char of value) { // by code point; a lone surrogate comes alone
    // JSON escapes U+0000-U+001F, `"`, `\` and lone surrogates; escapeControl the rest of CONTROL.
    const piece = escapeControl(JSON.stringify(char).slice(1, -1));
    bytes += utf8Length(piece);
    if (bytes > MAX_ECHO_BYTES) return `"${body}"…`;
    body += piece;
  }
  return `"${body}"`;
}

/** A refused argument, `<rule>: <quoted value>`, to throw. */
export function refuseArgument(rule: string, value: string): ToolError {
  return new ToolError(`${rule}: ${quoteArgument(value)}`);
}

/**
 * A path as an error text shows it after the path was accepted (`not found: <path>`): as given, its control
 * characters escaped, cut to `MAX_ECHO_BYTES` (escapes counted, never split) and followed by `…` when longer.
 */
export function shownPath(rel: string): string {
  let bytes = 0;
  let shown = "";
  for (const char of rel) {
    const piece = escapeControl(char);
    bytes += utf8Length(piece);
    if (bytes > MAX_ECHO_BYTES) return `${shown}…`;
    shown += piece;
  }
  return shown;
}

/** A value a client gave, as a refusal shows it: a string quoted (`quoteArgument`), any other as its JSON, cut. */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return quoteArgument(value);
  // A number as parsed: JSON has no text for one out of range (`1e400` parses to Infinity).
  return shownPath(typeof value === "number" ? String(value) : jsonOf(value));
}

/** A value's JSON; a structure nested past the engine's stack (Node's stringify recurses) as its kind. */
function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return Array.isArray(value) ? "[…]" : "{…}";
  }
}

/**
 * UTF-8 helpers shared by the tools: byte lengths, bytewise order, cuts on character boundaries, validation.
 *
 * @module
 */
import { isUtf8 } from "node:buffer";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Encodes a string as UTF-8. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The UTF-8 length of a string without encoding it; a lone surrogate counts as U+FFFD (3 bytes). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++, bytes += 2; // a pair: 4 bytes for 2 units
    } else bytes += 2;
  }
  return bytes;
}

/** Moves a code unit so that UTF-16 order becomes code point (= UTF-8 byte) order. */
function rank(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c;
}

/** Compares two strings by their UTF-8 bytes (JavaScript's `<` compares UTF-16 units). */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** The largest cut `<= end` that does not split a UTF-8 character of `bytes`. */
export function charBoundary(bytes: Uint8Array, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let cut = end;
  while (cut > 0 && end - cut < 3 && (bytes[cut] & 0xc0) === 0x80) cut--; // back over continuation bytes
  return (bytes[cut] & 0xc0) === 0x80 ? end : cut;
}

/** Decodes UTF-8, or `null` when it is not (validated first: a fatal decoder's throw costs tens of µs). */
export function decodeStrict(bytes: Uint8Array): string | null {
  return isUtf8(bytes) ? decoder.decode(bytes) : null;
}

/** Decodes bytes already known to be UTF-8, in one pass; a byte-order mark is kept as text. */
export function decodeValid(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** How many bytes the UTF-8 character starting with `lead` claims. */
function claimedLength(lead: number): number {
  return lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/**
 * The end of the last complete character in the first `n` bytes, not looking past them: `n`, or the start
 * of a character that `n` cuts in two. Bytes that are not UTF-8 give `n` (validation refuses them later).
 */
export function completeEnd(bytes: Uint8Array, n: number): number {
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    if ((bytes[i] & 0xc0) === 0x80) continue;
    return i + claimedLength(bytes[i]) <= n ? n : i;
  }
  return n;
}

/** Validates UTF-8 arriving in pieces, keeping only a character cut by a piece's end (at most 3 bytes). */
export class Utf8Stream {
  readonly #pending = new Uint8Array(4);
  #pendingLength = 0;
  #valid = true;

  /** Takes the next piece. */
  push(bytes: Uint8Array): void {
    if (!this.#valid || bytes.length === 0) return;
    let from = 0;
    if (this.#pendingLength > 0) {
      const want = claimedLength(this.#pending[0]);
      from = Math.min(want - this.#pendingLength, bytes.length);
      this.#pending.set(bytes.subarray(0, from), this.#pendingLength);
      this.#pendingLength += from;
      if (this.#pendingLength < want) return; // still cut: a piece of one or two bytes
      this.#valid = isUtf8(this.#pending.subarray(0, want));
      this.#pendingLength = 0;
      if (!this.#valid) return;
    }
    const end = Math.max(from, completeEnd(bytes, bytes.length));
    this.#valid = isUtf8(bytes.subarray(from, end));
    this.#pending.set(bytes.subarray(end));
    this.#pendingLength = bytes.length - end;
  }

  /** Whether a piece so far was not UTF-8 (no later piece can mend it). */
  get failed(): boolean {
    return !this.#valid;
  }

  /** Whether every piece so far was UTF-8 and the last one ended on a character boundary. */
  get valid(): boolean {
    return this.#valid && this.#pendingLength === 0;
  }
}
